"""PrivateGraphClustering (PIG): perturb by edge flipping, then cluster."""

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import DBSCAN, SpectralClustering
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.cluster import SCAN, GraphKMedoids, PrivateGraphClustering
from skdpgraph.edge_dp import flip_edges, pig_epsilon, pig_s_from_epsilon
from skdpgraph.exceptions import BudgetError, FewerClustersWarning
from skdpgraph.privacy import BudgetAccountant


def _two_cliques(size=30):
    G = nx.disjoint_union(nx.complete_graph(size), nx.complete_graph(size))
    G.add_edge(0, size)
    return nx.to_scipy_sparse_array(G, nodelist=range(2 * size)), np.repeat([0, 1], size)


def test_labels_are_the_clusterer_on_the_released_graph():
    A, _ = _two_cliques()
    model = PrivateGraphClustering(SCAN(0.5, 4), s=0.2, random_state=3).fit(A)
    # The released graph is exactly flip_edges with the same randomness ...
    expected = flip_edges(A, 0.2, random_state=3)
    assert (model.perturbed_graph_ != expected).nnz == 0
    # ... and the labels are the clusterer's on it (post-processing).
    np.testing.assert_array_equal(model.labels_, SCAN(0.5, 4).fit(expected).labels_)
    assert model.s_ == 0.2
    assert model.epsilon_spent_ == pig_epsilon(0.2)
    assert model.n_features_in_ == 60
    assert isinstance(model.estimator_, SCAN)


def test_epsilon_parameter():
    A, _ = _two_cliques(10)
    model = PrivateGraphClustering(SCAN(), epsilon=1.5, random_state=0).fit(A)
    assert model.epsilon_spent_ == 1.5
    assert model.s_ == pig_s_from_epsilon(1.5)
    assert pig_epsilon(model.s_) <= 1.5


@pytest.mark.parametrize("estimator", [
    SCAN(similarity_threshold=0.5, min_neighbors=4),
    GraphKMedoids(2, random_state=0),
    SpectralClustering(2, affinity="precomputed", random_state=0),
])
def test_recovers_two_cliques_at_high_epsilon(estimator):
    # epsilon = 6: each of the 1,770 pairs flips with probability 0.25%
    # (about 4 flips): the two cliques stay recognisable.
    # One release is one draw: with GraphKMedoids about 1 seed in 9 misassigns a
    # node (ARI 0.933; two would give 0.869, three fail), so a single seed leaves
    # a thin margin. A majority of 7 releases must recover the cliques: if one
    # release fails with probability q < 1e-2 (none of 300 did), the test fails
    # with probability < 35 q^4 < 4e-7; noise that destroys the cliques fails all.
    A, y = _two_cliques()
    recovered = 0
    for seed in range(1, 8):
        labels = PrivateGraphClustering(estimator, epsilon=6.0,
                                        random_state=seed).fit_predict(A)
        clustered = labels >= 0
        recovered += bool(clustered.mean() > 0.9
                          and adjusted_rand_score(y[clustered], labels[clustered]) > 0.85)
    assert recovered >= 4, recovered


def test_any_precomputed_clusterer_dbscan():
    # DBSCAN on the 0/1 adjacency read as distances: eps=1 makes graph
    # neighbours the eps-neighbours.
    A, _ = _two_cliques(10)
    model = PrivateGraphClustering(DBSCAN(eps=1.0, min_samples=3, metric="precomputed"),
                                   s=0.01, random_state=0).fit(A)
    expected = DBSCAN(eps=1.0, min_samples=3, metric="precomputed").fit(model.perturbed_graph_)
    np.testing.assert_array_equal(model.labels_, expected.labels_)


def test_accountant_is_charged_once_per_fit():
    A, _ = _two_cliques(8)
    acc = BudgetAccountant(epsilon=2.0)
    model = PrivateGraphClustering(SCAN(), epsilon=1.0, random_state=0, accountant=acc)
    model.fit(A)
    model.fit(A)
    assert acc.spent_budget == [(1.0, 0.0), (1.0, 0.0)]
    with pytest.raises(BudgetError):
        model.fit(A)
    assert acc.spent_budget == [(1.0, 0.0), (1.0, 0.0)]


def test_duck_typed_accountant():
    calls = []

    class Ledger:
        def check(self, epsilon, delta):
            calls.append(("check", epsilon, delta))

        def spend(self, epsilon, delta):
            calls.append(("spend", epsilon, delta))

    eps = pig_epsilon(0.1)
    PrivateGraphClustering(SCAN(), s=0.1, random_state=0, accountant=Ledger()).fit(
        nx.karate_club_graph())
    assert calls == [("check", eps, 0.0), ("spend", eps, 0.0)]


def test_networkx_and_dense_inputs_weights_ignored():
    G = nx.les_miserables_graph()  # weighted co-appearance counts
    A = nx.to_numpy_array(G)
    a = PrivateGraphClustering(SCAN(0.5, 3), s=0.05, random_state=2).fit(G)
    b = PrivateGraphClustering(SCAN(0.5, 3), s=0.05, random_state=2).fit(A)
    c = PrivateGraphClustering(SCAN(0.5, 3), s=0.05, random_state=2).fit(A > 0)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.labels_, c.labels_)


def test_caller_data_not_modified():
    A, _ = _two_cliques(6)
    A = sp.csr_matrix(A)
    before = (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())
    PrivateGraphClustering(SCAN(), s=0.3, random_state=0).fit(A)
    assert before == (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())


def test_estimator_is_cloned():
    est = SCAN()
    PrivateGraphClustering(est, s=0.3, random_state=0).fit(nx.karate_club_graph())
    assert not hasattr(est, "labels_")


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

_G = nx.karate_club_graph()


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": None}, "needs epsilon.*or s.*neither"),
    ({"s": 0.0}, "'s' parameter"),
    ({"s": 1.01}, "'s' parameter"),
    ({"s": -0.5}, "'s' parameter"),
    ({"epsilon": 0.0}, "'epsilon' parameter"),
    ({"epsilon": -2.0}, "'epsilon' parameter"),
    ({"epsilon": math.inf}, "'epsilon' parameter"),
    ({"s": 0.1, "accountant": object()}, "'accountant' parameter"),
])
def test_bad_privacy_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PrivateGraphClustering(SCAN(), **kwargs).fit(_G)


def test_bad_estimator():
    with pytest.raises(ValueError, match="'estimator' parameter"):
        PrivateGraphClustering("SCAN", s=0.1).fit(_G)

    class NotAClusterer(BaseEstimator):
        def fit(self, X, y=None):
            return self

    # Refused before anything is spent.
    acc = BudgetAccountant(epsilon=10.0)
    with pytest.raises(TypeError, match="must be a clusterer"):
        PrivateGraphClustering(NotAClusterer(), s=0.1, accountant=acc).fit(_G)
    assert acc.total() == (0.0, 0.0)

    class NoLabels(ClusterMixin, BaseEstimator):
        def fit(self, X, y=None):
            return self

    with pytest.raises(TypeError, match="did not set labels_") as info:
        PrivateGraphClustering(NoLabels(), s=0.1).fit(_G)
    # found after the release was charged: kept on the error
    assert info.value.perturbed_graph.shape == (_G.number_of_nodes(),) * 2
    assert "charged before it failed" in " ".join(info.value.__notes__)


@pytest.mark.parametrize("bad, match", [
    (nx.path_graph(4, create_using=nx.DiGraph), "directed"),
    (np.array([[0, -1.0], [-1.0, 0]]), "Negative values"),
    (np.array([[0, 1.0, 0], [0, 0, 1.0], [0, 1.0, 0]]), "not symmetric"),
])
def test_bad_graphs(bad, match):
    with pytest.raises(ValueError, match=match):
        PrivateGraphClustering(SCAN(), s=0.1).fit(bad)


# ---------------------------------------------------------------------------
# scikit-learn conformance
# ---------------------------------------------------------------------------

_FEATURES = (
    "check_clustering fits a 50 x 2 feature matrix, but PrivateGraphClustering "
    "clusters a graph given by its square adjacency matrix (and "
    "check_nonsquare_error requires non-square input to be refused)"
)


@pytest.mark.filterwarnings("ignore:Graph is not fully connected:UserWarning")
@parametrize_with_checks(
    [
        PrivateGraphClustering(SCAN(), epsilon=2.0, random_state=0),
        PrivateGraphClustering(GraphKMedoids(2, random_state=0), s=0.1, random_state=0),
        PrivateGraphClustering(SpectralClustering(2, affinity="precomputed", random_state=0),
                               epsilon=3.0, random_state=0),
    ],
    expected_failed_checks=lambda est: {"check_clustering": _FEATURES},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_public_mistakes_are_refused_before_the_budget_is_spent():
    import networkx as nx

    from skdpgraph import BudgetAccountant
    from skdpgraph.cluster import DebiasedSpectralClustering, GraphKMedoids

    G = nx.karate_club_graph()
    for est in (GraphKMedoids(50, random_state=0), DebiasedSpectralClustering(50)):
        acc = BudgetAccountant(epsilon=10)
        with pytest.raises(ValueError, match="n_clusters=50"):
            PrivateGraphClustering(est, epsilon=3.0, accountant=acc, random_state=0).fit(G)
        assert acc.total() == (0.0, 0.0)
    # The clusterer's own parameters, the library's and scikit-learn's, in a Pipeline too
    # (they used to be checked by its fit, after the release).
    from sklearn.pipeline import make_pipeline

    class MySCAN(SCAN):  # a user's subclass keeps the library's constraints
        pass

    PrivateGraphClustering(MySCAN(), epsilon=3.0, random_state=0).fit(G)
    for est in (SCAN(similarity_threshold=5.0), GraphKMedoids(n_clusters=0),
                SpectralClustering(affinity="nonsense"), MySCAN(similarity_threshold=5.0),
                make_pipeline(SpectralClustering(affinity="nonsense"))):
        acc = BudgetAccountant(epsilon=10)
        with pytest.raises(ValueError, match="parameter of"):
            PrivateGraphClustering(est, epsilon=3.0, accountant=acc, random_state=0).fit(G)
        assert acc.total() == (0.0, 0.0)


def test_a_pipeline_ending_in_a_clusterer_is_its_clusterer():
    import networkx as nx
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from skdpgraph import BudgetAccountant
    from skdpgraph.cluster import DebiasedSpectralClustering

    G = nx.karate_club_graph()
    for last in (SCAN(), DebiasedSpectralClustering(2, random_state=0)):
        pipe = make_pipeline(FunctionTransformer(), last)
        model = PrivateGraphClustering(pipe, epsilon=3.0, random_state=0).fit(G)
        direct = PrivateGraphClustering(last, epsilon=3.0, random_state=0).fit(G)
        np.testing.assert_array_equal(model.labels_, direct.labels_)
    # the release's flip probability reaches the last step
    assert model.estimator_[-1].flip_probability == model.s_ / 2
    acc = BudgetAccountant(epsilon=10)
    with pytest.raises(ValueError, match="n_clusters=50"):
        PrivateGraphClustering(make_pipeline(FunctionTransformer(), GraphKMedoids(50)),
                               epsilon=3.0, accountant=acc, random_state=0).fit(G)
    assert acc.total() == (0.0, 0.0)
    shrink = FunctionTransformer(lambda A: A[:10][:, :10], accept_sparse=True)
    with pytest.raises(ValueError, match="keep every node"):
        PrivateGraphClustering(make_pipeline(shrink, SCAN()), epsilon=3.0,
                               random_state=0).fit(G)


def test_public_limits_first_and_a_failed_clusterer_keeps_the_release():
    # GraphKMedoids's memory limit depends on the node count alone: refused before the
    # charge. A clusterer that fails once the release is paid hands it back.
    from sklearn.cluster import HDBSCAN

    from skdpgraph.privacy import BudgetAccountant

    G = nx.karate_club_graph()
    budget = BudgetAccountant(10.0)
    with pytest.raises(ValueError, match="max_memory"):
        PrivateGraphClustering(GraphKMedoids(2, max_memory=1e-6), epsilon=1.0,
                               accountant=budget, random_state=0).fit(G)
    assert budget.total() == (0.0, 0.0)
    with pytest.raises(ValueError) as info:
        PrivateGraphClustering(HDBSCAN(min_cluster_size=100, metric="precomputed"),
                               epsilon=1.0, accountant=budget, random_state=0).fit(G)
    assert budget.total() == (1.0, 0.0)
    released = info.value.perturbed_graph
    assert released.shape == (34, 34) and (released != released.T).nnz == 0
    assert "perturbed_graph" in "".join(getattr(info.value, "__notes__", ["perturbed_graph"]))


def test_a_release_with_no_cluster_says_so():
    # SCAN finds no core in a noisy release of a block model: every node is noise.
    from skdpgraph.exceptions import FewerClustersWarning

    G = nx.planted_partition_graph(4, 100, 0.2, 0.01, seed=0)
    with pytest.warns(FewerClustersWarning, match="no cluster"):
        model = PrivateGraphClustering(epsilon=1.0, random_state=0).fit(G)
    assert np.all(model.labels_ == -1)


@pytest.mark.parametrize("privacy", [{"epsilon": 1e-17}, {"s": 1.0}])
def test_debiasing_clusterer_refused_where_the_flip_is_a_fair_coin(privacy):
    from skdpgraph.cluster import DebiasedSpectralClustering

    acc = BudgetAccountant()
    model = PrivateGraphClustering(DebiasedSpectralClustering(2), accountant=acc, **privacy)
    with pytest.raises(ValueError, match="s/2 equal to 1/2 .* nothing for "
                                         "DebiasedSpectralClustering to debias"):
        model.fit(nx.karate_club_graph())
    assert acc.spent_budget == []


def test_a_clusterer_with_labels_that_are_not_numbers():
    class Named(ClusterMixin, BaseEstimator):
        def fit(self, X, y=None):
            self.labels_ = np.where(np.arange(X.shape[0]) < 17, "left", "right")
            return self

    model = PrivateGraphClustering(Named(), epsilon=2.0, random_state=0).fit(_G)
    assert model.n_clusters_ == 2 and model.labels_[0] == "left"


def test_negative_labels_are_noise_in_the_count_and_its_warning():
    class Marked(ClusterMixin, BaseEstimator):  # noise as -1, and as HDBSCAN's -2 and -3
        def __init__(self, n_clusters=2):
            self.n_clusters = n_clusters

        def fit(self, X, y=None):
            self.labels_ = np.resize([0, 1, -1, -2, -3], X.shape[0])
            return self

    model = PrivateGraphClustering(Marked(), epsilon=2.0, random_state=0).fit(_G)
    assert model.n_clusters_ == 2
    with pytest.warns(FewerClustersWarning, match="hold 2 clusters"):
        PrivateGraphClustering(Marked(3), epsilon=2.0, random_state=0).fit(_G)
