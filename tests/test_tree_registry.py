"""Every registered tree mechanism works inside PrivateMSTClustering.

(scikit-learn's estimator checks for each mechanism are in its own test file.)"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from skdpgraph.accounting import BudgetAccountant
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

