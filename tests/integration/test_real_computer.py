"""Privacy on a real computer: what the fitted object holds, the grid the
released numbers live on, the accountant under threads and processes, and
where randomness comes from."""

import pickle
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.metrics import pairwise_distances
from sklearn.model_selection import GridSearchCV

from skdpgraph.cluster import PrivateMSTClustering
from skdpgraph.exceptions import BudgetError, DetachedAccountantError
from skdpgraph.privacy import BudgetAccountant, grid_for, release_sensitivity
from skdpgraph.tree import TREE_MECHANISMS, minimum_spanning_tree, register_tree_mechanism
from skdpgraph.utils import check_random_state, edges_to_csr


def _features():
    X, _ = make_blobs(40, centers=[[0, 0], [8, 0]], cluster_std=0.7, random_state=3)
    return X * np.pi  # values with full 52-bit mantissas


def _float_bytes(values):
    return {np.float64(v).tobytes() for v in np.ravel(values)}


@pytest.mark.parametrize("mechanism", sorted(TREE_MECHANISMS))
def test_pickled_model_holds_no_raw_training_value(mechanism):
    X = _features()
    D = pairwise_distances(X)
    true_tree = minimum_spanning_tree(D).weights
    model = PrivateMSTClustering(epsilon=5.0, sensitivity=0.1, weight_bounds=(0.0, 64.0),
                                 tree_mechanism=mechanism, random_state=0).fit(X)
    blob = pickle.dumps(model)
    assert not any(b in blob for b in _float_bytes(X)), "a training feature is in the pickle"
    assert not any(b in blob for b in _float_bytes(true_tree)), "a true weight is in the pickle"
    # The search does find data when the model keeps it.
    kept = PrivateMSTClustering(epsilon=5.0, sensitivity=0.1, weight_bounds=(0.0, 64.0),
                                tree_mechanism=mechanism, keep_training_data=True,
                                random_state=0).fit(X)
    assert sum(b in pickle.dumps(kept) for b in _float_bytes(X)) == X.size


def test_inferred_bounds_are_coarse():
    X = _features()
    D = pairwise_distances(X)
    with pytest.warns(UserWarning, match="order of magnitude"):
        model = PrivateMSTClustering(epsilon=5.0, sensitivity=0.1, random_state=0).fit(X)
    lo, hi = model.weight_bounds_
    assert lo == 0.0 and hi == 2.0 ** np.ceil(np.log2(D.max()))
    assert np.float64(D.max()).tobytes() not in pickle.dumps(model)


@pytest.mark.parametrize("mechanism, accounting", [("laplace", "pure"), ("pamst", "pure"),
                                                   ("pamst", "zcdp")])
@pytest.mark.parametrize("w", [0.3, 0.7])
def test_released_weights_live_on_a_public_grid(mechanism, accounting, w):
    # The attack of Mironov (2012) reads which doubles a release can produce;
    # here every released weight is a multiple of a grid fixed by public
    # numbers, whatever the private weight (0.3 or 0.7).
    G = edges_to_csr([0], [1], [w], 2)
    delta = 1e-6 if accounting == "zcdp" else None
    released = []
    for seed in range(200):
        model = PrivateMSTClustering(epsilon=1.0, sensitivity=0.5, weight_bounds=(0.0, 1.0),
                                     tree_mechanism=mechanism, accounting=accounting,
                                     delta=delta, metric="precomputed",
                                     random_state=seed).fit(G)
        released.append(model.tree_.data[0])
    released = np.array(released)
    grid = grid_for(release_sensitivity(1, 0.5, "l1"), 1)
    on_grid = released / grid == np.round(released / grid)
    tiny = released == np.finfo(float).tiny  # clipped into (0, 1]: post-processing
    assert np.all(on_grid | tiny | (released == 1.0))
    # Noise, not a constant. Most releases sit on the two clipped atoms: with
    # pamst-zcdp (Gaussian, sigma 3.2) only 12% of them fall inside (0, 1), so
    # 200 seeds give Bin(200, 0.124) interior values, about 25; a floor of 20
    # failed for about one seed set in seven. Both atoms plus at least 4
    # interior values: fails by chance with probability below 1e-8.
    assert len(np.unique(released)) > 5


def test_accountant_is_thread_safe():
    acc = BudgetAccountant(epsilon=1000.0, delta=1.0)
    errors = []

    def spend():
        for _ in range(300):
            try:
                acc.spend(1.0, 0.0)
            except BudgetError:
                errors.append(1)

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert acc.total()[0] == 1000.0  # never more than the budget
    assert len(acc.spent_budget) == 1000 and len(errors) == 8 * 300 - 1000


def test_pickled_accountant_refuses_to_spend():
    acc = BudgetAccountant(epsilon=2.0)
    acc.spend(0.5, 0.0)
    copy = pickle.loads(pickle.dumps(acc))
    assert copy.total() == (0.5, 0.0)
    with pytest.raises(DetachedAccountantError, match="restored from a pickle"):
        copy.spend(0.1, 0.0)
    with pytest.raises(DetachedAccountantError):
        copy.check(0.1, 0.0)
    acc.spend(0.1, 0.0)  # the original still works


def test_grid_search_in_worker_processes_never_loses_spends():
    X = _features()
    acc = BudgetAccountant(epsilon=100.0)
    model = PrivateMSTClustering(sensitivity=0.1, weight_bounds=(0.0, 64.0),
                                 tree_mechanism="laplace", accountant=acc, random_state=0)

    def score(estimator, X_, y_=None):
        return float(estimator.n_clusters_)

    search = GridSearchCV(model, {"epsilon": [1.0, 2.0]}, cv=[(np.arange(40),) * 2],
                          scoring=score, n_jobs=2, error_score="raise")
    with pytest.raises(DetachedAccountantError):
        search.fit(X)
    assert acc.total() == (0.0, 0.0)
    # In one process the spends come back to the caller's accountant.
    search.set_params(n_jobs=1).fit(X)
    # The two candidates, then the refit of the best one.
    assert acc.total()[0] == pytest.approx(1.0 + 2.0 + search.best_params_["epsilon"])


def test_budget_is_charged_before_the_mechanism_runs():
    def failing(graph, epsilon=None, *, sensitivity, neighborhood, delta=None, rho=None,
                random_state=None, check_input=True):
        raise RuntimeError("the mechanism failed after reading the weights")

    register_tree_mechanism("_failing", failing)
    try:
        acc = BudgetAccountant(epsilon=10.0)
        model = PrivateMSTClustering(epsilon=3.0, sensitivity=0.1, weight_bounds=(0.0, 64.0),
                                     tree_mechanism="_failing", accountant=acc)
        with pytest.raises(RuntimeError, match="failed"):
            model.fit(_features())
        assert acc.total() == (3.0, 0.0)
    finally:
        del TREE_MECHANISMS["_failing"]


def test_default_randomness_is_cryptographically_secure():
    a, b = check_random_state(None), check_random_state(None)
    assert type(a.bit_generator).__name__ in {"AESCounter", "ChaCha"}
    assert a.integers(2**63) != b.integers(2**63)
    # An integer seed reproduces (and is therefore not private).
    assert check_random_state(7).random() == check_random_state(7).random()
    # Each released weight has atoms at the clipped ends (about 7% chance that
    # two fits agree on one edge), so compare 60 edges: two unseeded fits agree
    # everywhere with probability below 1e-60.
    rng = np.random.default_rng(0)
    G = sp.diags([1.0 + rng.random(60)], [1], shape=(61, 61), format="csr")
    G = sp.csr_array(G + G.T)
    m1 = PrivateMSTClustering(tree_mechanism="laplace", weight_bounds=(0, 3),
                              metric="precomputed").fit(G)
    m2 = PrivateMSTClustering(tree_mechanism="laplace", weight_bounds=(0, 3),
                              metric="precomputed").fit(G)
    assert not np.array_equal(m1.tree_.data, m2.tree_.data)
