"""Every registered tree mechanism works inside PrivateMSTClustering."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import skdpgraph.tree
from skdpgraph.cluster import PrivateMSTClustering
from skdpgraph.exceptions import PrivacyLeakWarning
from skdpgraph.privacy import BudgetAccountant
from skdpgraph.tree import TREE_MECHANISMS, ust_delta

NEW = ["exponential", "input_perturbation", "noisy_max_prim"]


def test_registry_lists_the_mechanisms():
    assert set(NEW) | {"pamst", "laplace"} <= set(TREE_MECHANISMS)
    assert all(not TREE_MECHANISMS[name].releases_weights for name in NEW)
    assert TREE_MECHANISMS["laplace"].releases_weights
    # Public functions only.
    for mech in TREE_MECHANISMS.values():
        assert getattr(skdpgraph.tree, mech.func.__name__) is mech.func


@pytest.mark.parametrize("name", sorted(TREE_MECHANISMS))
def test_every_mechanism_has_the_one_signature_and_gateway(name):
    func = TREE_MECHANISMS[name].func
    D = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 2.0], [4.0, 2.0, 0.0]])
    tree = func(D, 1.0, sensitivity=0.1, neighborhood="l1", delta=None, rho=None,
                random_state=0, check_input=True)
    assert tree.edges.shape == (2, 2)
    # The gateway refuses what check_graph refuses, for every mechanism alike.
    bad = np.array([[0.0, -5.0, 1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="[Nn]egative|symmetric"):
        func(bad, 1.0, sensitivity=0.1, neighborhood="l1", random_state=0)


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
    with warnings.catch_warnings():
        if mechanism == "exponential":  # at epsilon 50 its truncation's delta is vacuous
            warnings.filterwarnings("ignore", "At epsilon=50 the truncation",
                                    PrivacyLeakWarning)
        labels = model.fit_predict(X)
    assert adjusted_rand_score(y, labels) > 0.9
    assert model.tree_edges_.shape == (89, 2)
    assert model.epsilon_spent_ <= 50.0 + 1e-9
    delta = 1e-6 if accounting == "zcdp" else 0.0
    if mechanism == "exponential":  # its reductions' truncation, charged too
        delta = min(1.0, delta + (1 + math.exp(model.epsilon_spent_)) * ust_delta(4005))
    assert model.delta_spent_ == pytest.approx(delta, rel=1e-12, abs=0)


def test_a_vacuous_truncation_delta_is_said_before_the_charge():
    X, _ = make_blobs(n_samples=40, random_state=0)
    kwargs = dict(sensitivity=1e-3, weight_bounds=(0.0, 20.0), tree_mechanism="exponential",
                  random_state=0)
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        PrivateMSTClustering(epsilon=2.0, accountant=accountant, **kwargs).fit(X)
        assert accountant.total()[1] < 1e-15  # far below 1/|V|: no warning
        accountant = BudgetAccountant()
        with pytest.raises(PrivacyLeakWarning, match="no guarantee at all"):
            PrivateMSTClustering(epsilon=45.0, accountant=accountant, **kwargs).fit(X)
    assert accountant.total() == (0.0, 0.0)
    # Between 1/|V| and 1: a weak guarantee, said without "no guarantee".
    epsilon = math.log(1 / 40 / ust_delta(780)) + 1.0
    with pytest.warns(PrivacyLeakWarning, match=r"not below 1/\|V\| = 1/40: a release"):
        PrivateMSTClustering(epsilon=epsilon, **kwargs).fit(X)


def test_a_registered_mechanism_that_returns_no_forest_is_refused():
    import numpy as np

    from skdpgraph.cluster import PrivateMSTClustering
    from skdpgraph.tree import make_spanning_tree, register_tree_mechanism
    from skdpgraph.tree._registry import TREE_MECHANISMS

    def cycle(graph, epsilon=None, *, rho=None, sensitivity, neighborhood="l1",
              random_state=None, check_input=True):
        return make_spanning_tree([0, 1, 0], [1, 2, 2], [1.0, 2.0, 3.0], graph.shape[0],
                                  check_input=False)

    D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    register_tree_mechanism("cycle_for_test", cycle)
    try:
        with pytest.raises(ValueError, match="forest"):
            PrivateMSTClustering(epsilon=1.0, sensitivity=0.1, weight_bounds=(0, 4),
                                 metric="precomputed", tree_mechanism="cycle_for_test",
                                 random_state=0).fit(D)
    finally:
        del TREE_MECHANISMS["cycle_for_test"]


def test_check_tree_release_reads_public_numbers_only():
    from skdpgraph.privacy import plan_tree_release
    from skdpgraph.tree import check_tree_release, get_tree_mechanism

    plan = plan_tree_release(1.0)
    pamst = get_tree_mechanism("pamst")
    common = dict(neighborhood="l1", n_nodes=40, n_edges=20)
    check_tree_release(pamst, plan, sensitivity=0.1, **common)  # fits: no error
    path = sp.diags([np.ones(39), np.ones(39)], [-1, 1], format="csr")
    with pytest.raises(ValueError, match="needs a grid"):
        check_tree_release(pamst, plan, sensitivity=1e300, **common, graph=path)
    # Only k = |V| - 1 is out of range: without the graph, the release decides.
    tiny = 30 * 1024 * 2.0**-1000
    check_tree_release(pamst, plan, sensitivity=tiny, **common)
    with pytest.raises(ValueError, match="needs a grid"):  # a connected graph: k = 39
        check_tree_release(pamst, plan, sensitivity=tiny, **common,
                           graph=np.ones((40, 40)) - np.eye(40))
