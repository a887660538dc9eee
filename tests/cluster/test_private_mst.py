"""PrivateMSTClustering: estimator API, ecosystem, accounting, bad input, utility floors."""

import math
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from _failing_stderr import FailingStderr
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, homogeneity_score, pairwise_distances
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.cluster import DBMSTClu, PrivateMSTClustering
from skdpgraph.exceptions import BudgetError, NoiseDominatesWarning, PrivacyLeakWarning
from skdpgraph.privacy import (
    BudgetAccountant,
    approx_dp_to_zcdp,
    prepay_search,
    zcdp_to_approx_dp,
)
from skdpgraph.tree import (
    TREE_MECHANISMS,
    minimum_spanning_tree,
    register_tree_mechanism,
)
from skdpgraph.utils import edges_to_csr

# A fixed seed and a small sensitivity: the checks include a utility test
# (ARI > 0.4 on blobs) that needs a regime where the private tree carries
# signal; sensitivity 1e-3 gives PAMST steps with c (w_max - w_min) ~ 20.
CHECKED = [
    PrivateMSTClustering(sensitivity=1e-3, weight_bounds=(0.0, 10.0), random_state=0),
    PrivateMSTClustering(sensitivity=1e-3, weight_bounds=(0.0, 10.0), accounting="zcdp",
                         delta=1e-6, neighborhood="linf", random_state=0),
    PrivateMSTClustering(sensitivity=1e-3, weight_bounds=(0.0, 10.0),
                         tree_mechanism="laplace", random_state=0),
]


@parametrize_with_checks(CHECKED)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check(estimator)


def _blobs(n=60, seed=0):
    X, y = make_blobs(n_samples=n, centers=[[0, 0], [10, 0], [0, 10]],
                      cluster_std=0.5, random_state=seed)
    return X, y


def _model(**kw):
    # PAMST: these tests (and their comments) are about PTClust's own tree.
    params = dict(sensitivity=0.01, weight_bounds=(0.0, 20.0), tree_mechanism="pamst",
                  random_state=0)
    params.update(kw)
    return PrivateMSTClustering(**params)


# ---------------------------------------------------------------------------
# ecosystem
# ---------------------------------------------------------------------------

def test_pipeline_features_to_private_labels():
    from skdpgraph.graphs import EpsilonGraph
    X, y = _blobs()
    model = make_pipeline(StandardScaler(), EpsilonGraph(radius=1.0),
                          _model(epsilon=200.0, metric="precomputed",
                                 weight_bounds=(0.0, 1.0)))
    labels = model.fit_predict(X)
    assert labels.shape == (60,)
    # The epsilon-graph of the standardised blobs has one component per blob;
    # components are clustered apart (DBMSTClu cuts each at least once), so
    # every cluster lies inside one blob.
    assert homogeneity_score(y, labels) == pytest.approx(1.0)
    # predict on new points goes through the whole pipeline.
    np.testing.assert_array_equal(model.predict(X[:5] + 0.01), labels[:5])


def test_pipeline_from_features_default_metric():
    X, y = _blobs()
    labels = make_pipeline(StandardScaler(), _model(epsilon=100.0)).fit_predict(X)
    assert labels.shape == (60,) and labels.dtype.kind == "i"


@pytest.mark.slow
def test_grid_search_over_epsilon_parallel():
    # Choosing epsilon this way spends privacy: it is for studying the
    # trade-off on data with ground truth. At epsilon = 100 each of the ~39
    # PAMST steps has c = (50/39)/(2*0.01) = 64, so an inter-blob edge (>= 8
    # apart) against an intra-blob one (<= 2) has odds below e^-384: the tree
    # is MST-like and the clustering exact; at epsilon = 0.01 the tree is
    # nearly uniformly random.
    # The fits run in worker processes: they are paid for on the client first.
    X, y = _blobs()
    D = pairwise_distances(X)
    budget = BudgetAccountant()
    gs = GridSearchCV(_model(metric="precomputed"), {"epsilon": [0.01, 100.0]},
                      scoring="adjusted_rand_score", n_jobs=2, cv=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        gs = prepay_search(gs, D, y, accountant=budget)
        gs.fit(D, y)
    assert budget.total()[0] == pytest.approx(3 * 100.01 + 100.0)
    assert gs.best_params_ == {"epsilon": 100.0}
    assert gs.cv_results_["mean_test_score"][1] == 1.0
    assert gs.cv_results_["mean_test_score"][0] < 0.5


def test_pickle_fitted_estimator():
    X, _ = _blobs()
    model = _model(epsilon=50.0, keep_training_data=True).fit(X)
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.labels_, model.labels_)
    np.testing.assert_array_equal(clone.predict(X[:7]), model.predict(X[:7]))
    assert (clone.tree_ != model.tree_).nnz == 0
    assert clone.epsilon_spent_ == model.epsilon_spent_


def _raw_bytes(data):
    if sp.issparse(data):
        return [data.data.tobytes(), data.indices.tobytes(), data.indptr.tobytes()]
    return [np.asarray(data).tobytes()]


@pytest.mark.parametrize("kind", ["dense", "sparse", "features"])
def test_input_not_modified(kind):
    X, _ = _blobs()
    if kind == "features":
        data, metric = X.copy(), "euclidean"
    else:
        D = pairwise_distances(X)
        data = sp.csr_matrix(np.where(D < 3, D, 0)) if kind == "sparse" else D
        metric = "precomputed"
    snapshot = _raw_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        _model(metric=metric, weight_bounds=(0.5, 1.0)).fit(data)  # clipping happens
    assert _raw_bytes(data) == snapshot


# ---------------------------------------------------------------------------
# outputs, predict, forests
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("mech", ["pamst", "laplace"])
def test_fitted_attributes(mech):
    X, y = _blobs()
    m = _model(epsilon=100.0, tree_mechanism=mech).fit(X)
    n = X.shape[0]
    assert sp.issparse(m.tree_) and m.tree_.shape == (n, n)
    assert m.tree_edges_.shape == (n - 1, 2)
    w = m.tree_.data
    assert np.all((w > 0) & (w <= 1))
    assert m.labels_.shape == (n,) and m.n_clusters_ == len(np.unique(m.labels_))
    assert -1 <= m.dbcvi_ <= 1
    assert m.cut_edges_.shape == (m.n_clusters_ - 1, 2)
    assert adjusted_rand_score(y, m.labels_) == 1.0
    assert m.weight_bounds_ == (0.0, 20.0)


def test_predict_nearest_training_node():
    X, y = _blobs()
    m = _model(epsilon=100.0, keep_training_data=True).fit(X)
    rng = np.random.default_rng(0)
    Q = X[[3, 17, 42]] + rng.normal(0, 0.01, (3, 2))
    np.testing.assert_array_equal(m.predict(Q), m.labels_[[3, 17, 42]])
    # precomputed: dense and sparse distances to the training nodes.
    D = pairwise_distances(X)
    mp = _model(epsilon=100.0, metric="precomputed").fit(D)
    Dq = pairwise_distances(Q, X)
    np.testing.assert_array_equal(mp.predict(Dq), mp.labels_[[3, 17, 42]])
    S = sp.csr_array(np.where(Dq < 1.0, Dq, 0.0))
    np.testing.assert_array_equal(mp.predict(S), mp.labels_[[3, 17, 42]])
    with pytest.raises(ValueError, match="stores no value"):
        mp.predict(sp.csr_array((2, 60)))
    with pytest.raises(ValueError, match="expecting 60 features"):
        mp.predict(Dq[:, :10])
    with pytest.raises(ValueError, match="non-negative"):
        mp.predict(-Dq)


def test_disconnected_graph_forest_and_components_kept_apart():
    # Two components; each is clustered on its own and never merged.
    G = edges_to_csr([0, 1, 2, 4, 5], [1, 2, 3, 5, 6], [0.1, 0.1, 0.1, 0.1, 0.1], 7)
    m = _model(epsilon=10.0, metric="precomputed", weight_bounds=(0.0, 1.0)).fit(G)
    assert m.tree_edges_.shape == (5, 2)
    assert set(m.labels_[:4]).isdisjoint(m.labels_[4:])


def test_networkx_input_and_predict_error():
    import networkx as nx
    G = nx.path_graph(5)
    nx.set_edge_attributes(G, 0.5, "weight")
    m = _model(epsilon=10.0, weight_bounds=(0.0, 1.0), keep_training_data=True).fit(G)
    assert m.labels_.shape == (5,)
    with pytest.raises(ValueError, match="networkx"):
        m.predict(np.zeros((1, 2)))


# ---------------------------------------------------------------------------
# privacy parameters and accounting
# ---------------------------------------------------------------------------

def test_pure_accounting_budget_split():
    X, _ = _blobs()
    m = _model(epsilon=2.0, tree_share=0.25).fit(X)
    assert m.epsilon_spent_ == 2.0 and m.delta_spent_ == 0.0 and m.rho_spent_ is None
    assert m.step_epsilon_ == pytest.approx(0.25 * 2.0 / 59)


def test_zcdp_accounting_hand_computed():
    X, _ = _blobs()
    m = _model(epsilon=1.0, accounting="zcdp", delta=1e-6, neighborhood="linf").fit(X)
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    assert m.rho_spent_ == pytest.approx(rho)
    # Each of the 59 steps: eps_s^2 / 8 = (rho / 2) / 59.
    assert m.step_epsilon_ == pytest.approx(math.sqrt(8 * rho / 2 / 59))
    assert m.delta_spent_ == 1e-6
    assert m.epsilon_spent_ == pytest.approx(zcdp_to_approx_dp(rho, 1e-6))
    assert m.epsilon_spent_ <= 1.0
    # zCDP gives the steps far more than pure composition (0.5 / 59).
    assert m.step_epsilon_ > 3 * 0.5 / 59


def test_zcdp_with_laplace_mechanism_is_pure():
    X, _ = _blobs()
    m = _model(epsilon=1.0, accounting="zcdp", delta=1e-6, tree_mechanism="laplace").fit(X)
    assert (m.epsilon_spent_, m.delta_spent_) == (1.0, 0.0)


def test_accountant_checked_and_spent():
    X, _ = _blobs()
    acc = BudgetAccountant(epsilon=1.5)
    _model(epsilon=1.0, accountant=acc).fit(X)
    assert acc.spent_budget == [(1.0, 0.0)]
    m = _model(epsilon=1.0, accountant=acc)
    with pytest.raises(BudgetError):
        m.fit(X)
    assert not hasattr(m, "labels_")
    assert acc.spent_budget == [(1.0, 0.0)]


def test_duck_typed_accountant():
    calls = []

    class Recorder:
        def check(self, epsilon, delta):
            calls.append(("check", epsilon, delta))
            return True

        def spend(self, epsilon, delta):
            calls.append(("spend", epsilon, delta))

    X, _ = _blobs()
    m = _model(epsilon=1.0, accounting="zcdp", delta=1e-5, accountant=Recorder()).fit(X)
    assert calls == [("check", m.epsilon_spent_, 1e-5), ("spend", m.epsilon_spent_, 1e-5)]


def test_bounds_from_data_warn():
    X, _ = _blobs()
    with pytest.warns(PrivacyLeakWarning, match="computed from the private"):
        m = _model(weight_bounds=None).fit(X)
    D = pairwise_distances(X)
    # Coarse bounds: 0 and the power of two at or above the largest weight,
    # never the exact private minimum or maximum.
    assert m.weight_bounds_ == (0.0, 2.0 ** np.ceil(np.log2(D.max())))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _model().fit(X)  # public bounds covering the data: no warning


def test_weights_outside_bounds_are_clipped_with_warning():
    X, _ = _blobs()
    D = pairwise_distances(X)
    with pytest.warns(PrivacyLeakWarning, match="outside weight_bounds"):
        a = _model(metric="precomputed", weight_bounds=(1.0, 5.0)).fit(D)
    Dc = np.clip(D, 1.0, 5.0)
    np.fill_diagonal(Dc, 0)
    b = _model(metric="precomputed", weight_bounds=(1.0, 5.0)).fit(Dc)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert (a.tree_ != b.tree_).nnz == 0


@pytest.mark.parametrize("mechanism", ["laplace", "pamst"])
def test_a_positive_lower_bound_does_not_shift_the_weights(mechanism):
    # Without noise the release is DBMSTClu's clustering whatever valid bounds are given:
    # DBMSTClu is scale invariant, not shift invariant (a shift by -low made the lightest
    # edge weigh 0 and split the first cluster).
    x = np.array([0.0, 1.0, 2.2, 5.2, 6.3])
    D = np.abs(x[:, None] - x[None, :])
    expected = DBMSTClu(metric="precomputed").fit_predict(D)
    for bounds in [(0.0, 8.0), (1.0, 8.0), (0.5, 3.0)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (0.5, 3): longer edges clipped, same tree cut
            m = PrivateMSTClustering(epsilon=1e6, sensitivity=1e-3, weight_bounds=bounds,
                                     tree_mechanism=mechanism, metric="precomputed",
                                     random_state=0).fit(D)
        np.testing.assert_array_equal(m.labels_, expected)


@pytest.mark.parametrize("params, match", [
    (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"),
    (dict(epsilon=math.inf), "epsilon"),
    (dict(epsilon=math.nan), "epsilon"),
    (dict(sensitivity=0.0), "sensitivity"),
    (dict(sensitivity=-0.1), "sensitivity"),
    (dict(accounting="zcdp", delta=0.0), "delta"),
    (dict(accounting="zcdp", delta=1.0), "delta"),
    (dict(accounting="zcdp", delta=1.5), "delta"),
    (dict(accounting="zcdp"), "needs delta"),
    (dict(delta=1e-6), "only used with accounting='zcdp'"),
    (dict(neighborhood="l2"), "neighborhood"),
    (dict(accounting="rdp"), "accounting"),
    (dict(tree_mechanism="exact"), "tree_mechanism"),
    (dict(tree_share=1.0), "tree_share"),
    (dict(weight_bounds=(1.0, 0.0)), "low < high"),
    (dict(weight_bounds=(0.5, 0.5)), "low < high"),
    (dict(weight_bounds=(-1.0, 1.0)), ">= 0"),
    (dict(weight_bounds=(0.0, 1.0, 2.0)), "pair"),
    (dict(accountant=object()), "accountant"),
    (dict(random_state="seed"), "random_state"),
])
def test_bad_parameters(params, match):
    X, _ = _blobs(n=10)
    with pytest.raises(ValueError, match=match):
        _model(**params).fit(X)


def test_bad_input_data():
    with pytest.raises(ValueError, match="negative"):
        _model(metric="precomputed").fit(np.array([[0, -1.0], [-1.0, 0]]))
    with pytest.raises(ValueError, match="symmetric"):
        _model(metric="precomputed").fit(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(ValueError, match="NaN or infinite"):
        _model(metric="precomputed").fit(np.array([[0, np.nan], [np.nan, 0]]))


def test_register_tree_mechanism():
    def exact_topology(graph, epsilon=None, *, sensitivity, neighborhood, delta=None,
                       rho=None, random_state=None, check_input=True):
        # Not private: a stand-in that releases the MST, to test the registry.
        return minimum_spanning_tree(graph, check_input=check_input)

    register_tree_mechanism("_test_exact", exact_topology)
    try:
        X, y = _blobs()
        m = _model(epsilon=100.0, tree_mechanism="_test_exact").fit(X)
        assert adjusted_rand_score(y, m.labels_) == 1.0
        m = _model(epsilon=1.0, tree_mechanism="_test_exact", accounting="zcdp",
                   delta=1e-6).fit(X)
        assert m.rho_spent_ == pytest.approx(approx_dp_to_zcdp(1.0, 1e-6))
    finally:
        del TREE_MECHANISMS["_test_exact"]
    with pytest.raises(TypeError, match="callable"):
        register_tree_mechanism("x", "not a function")


# ---------------------------------------------------------------------------
# the UAI experiment (small, justified floors; the full study is
# examples/ptclust_experiment.py)
# ---------------------------------------------------------------------------

def _inter_edges(tree, labels):
    coo = tree.tocoo()
    up = coo.row < coo.col
    return int(np.count_nonzero(labels[coo.row[up]] != labels[coo.col[up]]))


def test_experiment_floor_laplace_recovers_circles_topology():
    # Homogeneous circles: intra-cluster weights <= 0.18, inter >= 0.53
    # (normalised). Laplace-MST at eps = 20 (mu = 0.1, l1) has scale 0.005;
    # the tree has exactly the one inter-cluster edge of the MST unless some
    # noise exceeds 0.17 = 34 scales: probability <= 2000 * e^-34 < 4e-12.
    from skdpgraph.datasets import make_homogeneous_circles
    for seed in range(3):
        data = make_homogeneous_circles(random_state=seed)
        m = PrivateMSTClustering(epsilon=20.0, sensitivity=0.1, weight_bounds=(0.0, 1.0),
                                 tree_mechanism="laplace", metric="precomputed",
                                 random_state=seed).fit(data.graph)
        assert _inter_edges(m.tree_, data.labels) == 1


def test_experiment_pamst_calibration_at_paper_settings():
    # PTClust at the paper's settings spends eps/2/99 per PAMST step, so the
    # odds between any two cut edges of weights in (0, 1] are within
    # exp(c) = exp(eps / 2 / 99 / (2 mu)); at eps = 5 that is 1.135: the tree
    # is close to a uniformly random one.
    from skdpgraph.datasets import make_homogeneous_moons
    data = make_homogeneous_moons(random_state=0)
    m = PrivateMSTClustering(epsilon=5.0, sensitivity=0.1, weight_bounds=(0.0, 1.0),
                             tree_mechanism="pamst", metric="precomputed", random_state=0)
    with pytest.warns(NoiseDominatesWarning, match="from epsilon = 39.6"):
        m.fit(data.graph)
    assert m.step_epsilon_ == pytest.approx(2.5 / 99)
    assert math.exp(m.step_epsilon_ / (2 * 0.1)) < 1.14


def test_function_check_input_false_on_a_canonical_graph_gives_the_same_release():
    from skdpgraph.cluster import private_mst_clustering
    from skdpgraph.utils import check_graph

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 0.1, (15, 2)), rng.normal(3, 0.1, (15, 2))])
    G = check_graph(X, metric="euclidean")
    kwargs = dict(sensitivity=0.01, weight_bounds=(0.0, 6.0), random_state=0)
    checked = private_mst_clustering(G, 20.0, **kwargs)
    unchecked = private_mst_clustering(G, 20.0, check_input=False, **kwargs)
    np.testing.assert_array_equal(checked.labels, unchecked.labels)
    np.testing.assert_array_equal(checked.tree.edges, unchecked.tree.edges)
    np.testing.assert_array_equal(checked.tree.weights, unchecked.tree.weights)


def test_function_form_checks_its_parameters_before_charging():
    from skdpgraph import private_mst_clustering

    D = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))
    for kwargs, error in [({"tree_share": 1.5, "tree_mechanism": "pamst"}, ValueError),
                          ({"tree_share": np.nan}, ValueError),
                          ({"tree_share": "0.5"}, TypeError),
                          ({"verbose": "x"}, TypeError),
                          ({"verbose": -1}, ValueError)]:
        acc = BudgetAccountant(epsilon=10)
        with pytest.raises(error):
            private_mst_clustering(D, 1.0, sensitivity=0.1, accountant=acc, **kwargs)
        assert acc.total() == (0.0, 0.0)
    with pytest.raises(TypeError, match="accountant"):
        private_mst_clustering(D, 1.0, sensitivity=0.1, accountant="x")


def test_predict_reads_similarities_as_fit_does():
    S = np.full((6, 6), 0.05)
    S[:3, :3] = S[3:, 3:] = 0.9
    np.fill_diagonal(S, 1.0)
    model = PrivateMSTClustering(epsilon=50, sensitivity=0.01, weight_bounds=(0, 25),
                                 metric="precomputed", weight_kind="similarity",
                                 random_state=0).fit(S)
    np.testing.assert_array_equal(model.predict(S), model.labels_)
    np.testing.assert_array_equal(model.predict(sp.csr_array(S)), model.labels_)


@pytest.mark.parametrize("params", [
    dict(neighborhood="linf"), dict(neighborhood="linf", accounting="zcdp", delta=1e-6),
    dict(neighborhood="linf", tree_mechanism="pamst"), dict(tree_mechanism="exponential"),
    dict(weight_bounds=None)])
def test_a_graph_without_edges_gives_singletons_under_every_setting(params):
    # Under linf the calibrations scale with |E| or |V| - c, which are 0 here: a
    # ValueError about a zero sensitivity used to come after the charge.
    import networkx as nx

    kw = dict(metric="precomputed", weight_bounds=(0.0, 1.0), random_state=0)
    kw.update(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PrivateMSTClustering(**kw).fit(nx.empty_graph(5))
    np.testing.assert_array_equal(model.labels_, np.arange(5))


def test_predict_sums_duplicate_sparse_entries_as_fit_does():
    D = np.array([[0, 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0.0]])
    model = PrivateMSTClustering(epsilon=50, sensitivity=0.01, weight_bounds=(0, 10),
                                 metric="precomputed", random_state=0).fit(D)
    # Column 0 holds 0.1 + 5.0: node 2 (2.0) is the nearest.
    Q = sp.csr_array((np.array([0.1, 5.0, 2.0]), np.array([0, 0, 2]), np.array([0, 3])),
                     shape=(1, 4))
    data = Q.data.copy()
    assert model.predict(Q)[0] == model.labels_[2]
    assert model.predict(Q)[0] == model.predict(Q.tocoo().tocsr())[0]
    np.testing.assert_array_equal(Q.data, data)  # the caller's matrix is untouched


def test_predict_refuses_a_graph_with_a_clear_message():
    import networkx as nx

    G = nx.path_graph(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PrivateMSTClustering(metric="precomputed", weight_bounds=(0, 2),
                                     random_state=0).fit(G)
    with pytest.raises(TypeError, match="labels_"):
        model.predict(G)


def test_a_refused_fit_leaves_the_estimator_as_it_was():
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    from skdpgraph import BudgetAccountant
    from skdpgraph.exceptions import BudgetError

    X = np.random.default_rng(0).random((30, 2))
    budget = BudgetAccountant(epsilon=1.0)
    model = PrivateMSTClustering(epsilon=2.0, sensitivity=0.1, weight_bounds=(0, 2),
                                 accountant=budget, random_state=0)
    with pytest.raises(BudgetError):
        model.fit(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    model.set_params(epsilon=1.0).fit(X)
    with pytest.raises(BudgetError):
        model.fit(np.random.default_rng(1).random((60, 3)))
    assert model.n_features_in_ == 2 and model.labels_.shape == (30,)


@pytest.mark.parametrize("mechanism", ["laplace", "pamst", "exponential",
                                       "input_perturbation", "noisy_max_prim"])
@pytest.mark.parametrize("params, match", [
    ({"epsilon": 1e-300}, "noise scale"),
    ({"sensitivity": 1e300}, "needs a grid"),
    ({"sensitivity": 1e-300}, "needs a grid"),
])
def test_a_release_that_cannot_be_made_is_refused_before_the_charge(mechanism, params, match):
    X = np.random.default_rng(0).random((20, 2))
    accountant = BudgetAccountant()
    kwargs = {"sensitivity": 0.1, "weight_bounds": (0.0, 1.0), **params}
    if mechanism in ("exponential", "input_perturbation") and params == {"sensitivity": 1e-300}:
        match = "passes 2\\*\\*32"  # its doubles' limit, checked first
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        with pytest.raises(ValueError, match=match):
            PrivateMSTClustering(tree_mechanism=mechanism, accountant=accountant,
                                 random_state=0, **kwargs).fit(X)
    assert accountant.total() == (0.0, 0.0)


def test_the_release_check_counts_components_where_the_extremes_disagree():
    # 20 two-node components: Weight-Release of k = 20 weights, whose grid is in range
    # for a sensitivity at which k = |V| - 1 = 39 would need a grid below 2**-1000.
    rows = np.arange(0, 40, 2)
    A = edges_to_csr(rows, rows + 1, np.full(20, 0.5), 40)
    sensitivity = 30 * 1024 * 2.0**-1000
    accountant = BudgetAccountant()
    model = PrivateMSTClustering(epsilon=1.0, sensitivity=sensitivity, weight_bounds=(0, 1),
                                 metric="precomputed", tree_mechanism="pamst",
                                 accountant=accountant, random_state=0).fit(A)
    assert model.n_clusters_ == 40 and accountant.total() == (1.0, 0.0)  # each pair cut


@pytest.mark.parametrize("mechanism", ["laplace", "pamst", "exponential",
                                       "input_perturbation", "noisy_max_prim"])
def test_subnormal_weight_bounds_release_without_arithmetic_errors(mechanism):
    from skdpgraph.privacy import signal_epsilon

    assert signal_epsilon(mechanism, weight_range=5e-324, sensitivity=0.1,
                          neighborhood="l1", n_tree_edges=9, n_edges=45) == math.inf
    D = np.abs(np.subtract.outer(np.arange(10.0), np.arange(10.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # noise dominates; clipped weights
        warnings.simplefilter("error", RuntimeWarning)
        model = PrivateMSTClustering(weight_bounds=(0, 5e-324), metric="precomputed",
                                     tree_mechanism=mechanism, random_state=0).fit(D)
    assert 1 <= model.n_clusters_ <= 10


@pytest.mark.parametrize("mechanism", ["laplace", "pamst"])
def test_grids_coarser_than_2_to_the_23_release(mechanism):
    # Weights in large units: a grid step of 2**34 or more; rounding them used to
    # overflow its clipping bound after the charge.
    X = np.random.default_rng(0).random((20, 2)) * 1e11
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        PrivateMSTClustering(epsilon=1.0, sensitivity=2e10, neighborhood="linf",
                             weight_bounds=(0, 2e11), tree_mechanism=mechanism,
                             accountant=accountant, random_state=0).fit(X)
    assert accountant.total() == (1.0, 0.0)


@pytest.mark.parametrize("mechanism", ["laplace", "pamst", "exponential", "noisy_max_prim",
                                       "input_perturbation"])
def test_budgets_at_the_ends_of_the_doubles_are_refused_before_the_charge(mechanism):
    D = np.abs(np.subtract.outer(np.arange(8.0), np.arange(8.0)))
    for kwargs in (dict(epsilon=5e-324),
                   dict(epsilon=1.7976931348623157e308, accounting="zcdp", delta=1e-6)):
        acc = BudgetAccountant()
        with pytest.raises(ValueError, match="coarse(r|st) grid|too large|cannot be split"):
            PrivateMSTClustering(sensitivity=1.0, weight_bounds=(0, 8), metric="precomputed",
                                 tree_mechanism=mechanism, accountant=acc, **kwargs).fit(D)
        assert acc.total() == (0.0, 0.0)


def test_a_tree_share_whose_step_budget_underflows_releases_a_uniform_tree():
    D = np.abs(np.subtract.outer(np.arange(8.0), np.arange(8.0)))
    acc = BudgetAccountant()
    with pytest.warns(NoiseDominatesWarning):
        model = PrivateMSTClustering(epsilon=1.0, sensitivity=1.0, weight_bounds=(0, 8),
                                     tree_share=5e-324, tree_mechanism="pamst",
                                     metric="precomputed", accountant=acc).fit(D)
    assert model.tree_.nnz == 14  # a spanning tree of the 8 nodes
    assert acc.total()[0] <= 1.0


_MEMORY_SCRIPT = """
import resource
import numpy as np, scipy.sparse as sp
from skdpgraph.cluster import PrivateLabelPropagation, PrivateMSTClustering
from skdpgraph.exceptions import WorkMemoryError
from skdpgraph.privacy import BudgetAccountant
n = 40_000_000  # a graph of one edge: its CSR is 160 MB, the fits need more than 3 GiB
g = sp.csr_array((np.ones(2), np.array([1, 0], dtype=np.int32),
                  np.r_[0, 1, np.full(n - 1, 2)].astype(np.int32)), shape=(n, n))
resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY))
for est in (PrivateMSTClustering(metric="precomputed", weight_bounds=(0, 1)),
            PrivateLabelPropagation(2)):
    est.set_params(accountant=BudgetAccountant())
    try:
        est.fit(g)
    except WorkMemoryError as exc:
        assert "Nothing was charged" in str(exc) and f"{n} nodes" in str(exc), exc
        assert est.accountant.spent_budget == [], est.accountant.spent_budget
        print("refused")
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit of Linux")
def test_fits_that_cannot_hold_their_work_are_refused_before_the_charge():
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["refused", "refused"]


def test_an_edge_table_of_more_nodes_than_memory_is_refused_before_the_charge():
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from skdpgraph.distributed import EdgeTable
    from skdpgraph.exceptions import WorkMemoryError

    edge = dd.from_pandas(pd.DataFrame({"u": [0], "v": [1], "weight": [0.5]}), npartitions=1)
    budget = BudgetAccountant()
    with pytest.raises(WorkMemoryError, match="2199023255552 nodes needs at least"):
        PrivateMSTClustering(metric="precomputed", weight_bounds=(0, 1),
                             accountant=budget).fit(EdgeTable(edge, nodes=2**41))
    assert budget.spent_budget == []


@pytest.mark.parametrize("mechanism", ["pamst", "exponential", "noisy_max_prim"])
@pytest.mark.parametrize("accounting", ["pure", "zcdp"])
def test_a_sampler_temperature_past_its_cap_is_refused_before_the_charge(mechanism, accounting):
    # The samplers cap c at 1e300 / (the private spread of the weights): where that
    # binds, the law would depend on the data. With public bounds it never binds now.
    from skdpgraph.tree import get_tree_mechanism

    D = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))
    delta = 1e-6 if accounting == "zcdp" else None
    for mu, refused in [(1e-300, True), (1e-280, mechanism == "exponential")]:
        # The exponential mechanism's log-weights c w must stay within 2**32 (its
        # doubles round by O(1) past it): refused from the public bounds too.
        acc = BudgetAccountant()
        model = PrivateMSTClustering(epsilon=1.0, sensitivity=mu, weight_bounds=(0, 1e3),
                                     tree_mechanism=mechanism, accounting=accounting,
                                     delta=delta, metric="precomputed", accountant=acc,
                                     random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if refused:
                with pytest.raises(ValueError, match="inverse temperature"):
                    model.fit(D)
                assert acc.spent_budget == []
            else:
                model.fit(D)
                assert acc.spent_budget != []
    rate = get_tree_mechanism(mechanism).rate
    assert rate(1, sensitivity=0.1, neighborhood="l1", epsilon=2.0) >= rate(
        5, sensitivity=0.1, neighborhood="l1", epsilon=2.0) > 0


def test_a_registered_sampler_with_a_rate_is_checked_as_the_built_in_ones():
    from skdpgraph.tree import TREE_MECHANISMS, get_tree_mechanism, register_tree_mechanism

    built_in = get_tree_mechanism("pamst")
    register_tree_mechanism("wrapped_pamst", lambda *a, **k: built_in.func(*a, **k),
                            composed_steps=True, rate=built_in.rate)
    try:
        acc = BudgetAccountant()
        with pytest.raises(ValueError, match="inverse temperature"):
            PrivateMSTClustering(epsilon=1.0, sensitivity=1e-300, weight_bounds=(0, 1e3),
                                 tree_mechanism="wrapped_pamst", metric="precomputed",
                                 accountant=acc).fit(np.abs(np.subtract.outer(
                                     np.arange(6.0), np.arange(6.0))))
        assert acc.spent_budget == []
    finally:
        del TREE_MECHANISMS["wrapped_pamst"]


@pytest.mark.parametrize("stage, kept", [("release (", None), ("DBMSTClu", "tree")])
def test_failure_after_the_charge_says_so_and_keeps_the_tree(stage, kept):
    import contextlib

    X, _ = make_blobs(60, centers=3, random_state=0)
    acc = BudgetAccountant()
    model = PrivateMSTClustering(epsilon=2.0, sensitivity=0.01, weight_bounds=(0.0, 20.0),
                                 accountant=acc, random_state=0, verbose=1)
    with contextlib.redirect_stderr(FailingStderr(stage)), pytest.raises(OSError) as info:
        model.fit(X)
    assert len(acc.spent_budget) == 1
    note = " ".join(getattr(info.value, "__notes__", []))
    assert "was charged before it failed" in note
    if kept is None:
        assert "nothing was released" in note
    else:
        assert ".tree" in note and info.value.tree.tree.shape == (60, 60)
    assert not hasattr(model, "labels_")


@pytest.mark.parametrize("mechanism", ["exponential", "input_perturbation"])
def test_bounds_whose_log_odds_doubles_cannot_hold_are_refused_before_the_charge(mechanism):
    # Public bounds up to 2**53 with sensitivity 1: c |w| past 2**32, where the samplers'
    # doubles round by O(1) (a loss of 4.2 was measured on the topology's share of 2).
    acc = BudgetAccountant()
    D = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))
    model = PrivateMSTClustering(epsilon=4.0, sensitivity=1.0, weight_bounds=(0, 2.0 ** 53),
                                 tree_mechanism=mechanism, metric="precomputed",
                                 accountant=acc, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="passes 2\\*\\*32.*Nothing was charged"):
            model.fit(D)
        assert acc.spent_budget == []
        model.set_params(weight_bounds=(0, 2.0 ** 20)).fit(D)
    assert acc.spent_budget != []


@pytest.mark.parametrize("mechanism", ["exponential", "input_perturbation"])
def test_without_bounds_the_sampler_limit_reads_the_published_bounds_only(mechanism):
    # Bounds from the data are published as (0, 2**ceil(log2 w_max)): whether the release
    # is refused must not depend on the exact largest weight below that (5e9 and 6e9 both
    # publish (0, 2**33)). It is refused after the charge (the bounds are read there).
    epsilon = 3.0 if mechanism == "exponential" else 12.0  # c = 0.75 in both
    outcomes = []
    for w_max in (5e9, 6e9):
        D = np.abs(np.subtract.outer(np.arange(5.0), np.arange(5.0)))
        D[0, 4] = D[4, 0] = w_max
        acc = BudgetAccountant()
        model = PrivateMSTClustering(epsilon=epsilon, sensitivity=1.0, tree_mechanism=mechanism,
                                     metric="precomputed", accountant=acc, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match="passes 2\\*\\*32") as info:
                model.fit(D)
        assert acc.spent_budget != [] and "charged" in " ".join(info.value.__notes__)
        outcomes.append(str(info.value))
    assert outcomes[0] == outcomes[1]
