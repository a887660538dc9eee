"""Every registered tree mechanism works inside PrivateMSTClustering."""

import warnings

import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.accounting import BudgetAccountant, PrivacyLeakWarning
from skdpgraph.cluster import TREE_MECHANISMS, PrivateMSTClustering

NEW = ["exponential", "input_perturbation", "noisy_max_prim"]


def test_registry_lists_the_mechanisms():
    assert set(NEW) | {"pamst", "laplace"} <= set(TREE_MECHANISMS)
    assert all(TREE_MECHANISMS[name].kind == "topology" for name in NEW)


@pytest.mark.parametrize("mechanism", NEW)
@pytest.mark.parametrize("accounting", ["pure", "zcdp"])
def test_fit_spends_exactly_the_budget(mechanism, accounting):
    X, y = make_blobs(60, centers=[[0, 0], [10, 0], [0, 10]], cluster_std=0.5, random_state=0)
    acc = BudgetAccountant(epsilon=3.0, delta=1e-3)
    delta = 1e-6 if accounting == "zcdp" else None
    model = PrivateMSTClustering(epsilon=2.0, sensitivity=1e-3, weight_bounds=(0.0, 25.0),
                                 tree_mechanism=mechanism, accounting=accounting, delta=delta,
                                 accountant=acc, random_state=0).fit(X)
    assert model.epsilon_spent_ <= 2.0 + 1e-9
    assert acc.total() == pytest.approx((model.epsilon_spent_, model.delta_spent_))
    assert model.tree_.nnz == 2 * 59 and model.labels_.shape == (60,)
    # with a tiny sensitivity the released tree carries the signal
    assert adjusted_rand_score(y, model.labels_) > 0.4


CHECKED = [
    PrivateMSTClustering(tree_mechanism=mechanism, sensitivity=1e-3,
                         weight_bounds=(0.0, 10.0), random_state=0, **extra)
    for mechanism in NEW
    for extra in ({}, {"accounting": "zcdp", "delta": 1e-6, "neighborhood": "linf"})
]


@parametrize_with_checks(CHECKED)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check(estimator)


@pytest.mark.parametrize("mechanism", NEW)
@pytest.mark.parametrize("accounting", ["pure", "zcdp"])
def test_estimator_end_to_end(mechanism, accounting):
    X, y = make_blobs(n_samples=90, centers=[[0, 0], [10, 0], [0, 10]], cluster_std=0.5,
                      random_state=0)
    delta = 1e-6 if accounting == "zcdp" else None
    model = PrivateMSTClustering(epsilon=50.0, sensitivity=1e-3, weight_bounds=(0.0, 20.0),
                                 accounting=accounting, delta=delta,
                                 tree_mechanism=mechanism, random_state=0)
    labels = model.fit_predict(X)
    assert adjusted_rand_score(y, labels) > 0.9
    assert model.tree_edges_.shape == (89, 2)
    assert model.epsilon_spent_ <= 50.0 + 1e-9
    assert model.delta_spent_ == (1e-6 if accounting == "zcdp" else 0.0)
