"""EpsilonGraph and HomogeneousGraph."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.exceptions import DisconnectedGraphWarning
from skdpgraph.graphs import EpsilonGraph, HomogeneousGraph
from skdpgraph.metrics import check_homogeneity
from skdpgraph.utils import check_graph


def _dense(G):
    """Dense matrix with NaN for absent entries (explicit zeros stay 0)."""
    out = np.full(G.shape, np.nan)
    coo = sp.coo_array(G)
    out[coo.row, coo.col] = coo.data
    return out


@pytest.mark.filterwarnings("ignore::skdpgraph.exceptions.DisconnectedGraphWarning")
@parametrize_with_checks([
    EpsilonGraph(),
    EpsilonGraph(radius=0.5, metric="manhattan"),
    EpsilonGraph(metric="cosine"),
    EpsilonGraph(radius=2.0, metric="precomputed"),
    HomogeneousGraph(),
    HomogeneousGraph(w_min=0.5, w_max=1.0),
    HomogeneousGraph(metric="precomputed"),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# EpsilonGraph
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("metric, scipy_metric, kwargs", [
    ("euclidean", "euclidean", {}),
    ("manhattan", "cityblock", {}),
    ("chebyshev", "chebyshev", {}),
    ("minkowski", "minkowski", {"p": 3}),
    ("sqeuclidean", "sqeuclidean", {}),
    ("cosine", "cosine", {}),
])
def test_epsilon_graph_matches_brute_force(metric, scipy_metric, kwargs):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    D = cdist(X, X, scipy_metric, **kwargs)
    radius = float(np.quantile(D[np.triu_indices(120, 1)], 0.1))
    G = EpsilonGraph(radius=radius, metric=metric, **kwargs).fit_transform(X)
    assert isinstance(G, sp.csr_array) and G.dtype == np.float64
    expected = np.where(D <= radius, D, np.nan)
    got = _dense(G)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[~np.isnan(got)], expected[~np.isnan(expected)],
                               rtol=1e-10, atol=1e-12)
    # exactly symmetric, structure and values
    assert (G != G.T).nnz == 0
    np.testing.assert_array_equal(_dense(G), _dense(G).T)


def test_metric_params():
    rng = np.random.default_rng(8)
    X = rng.random((40, 3))
    a = EpsilonGraph(radius=0.5, metric="minkowski", metric_params={"p": 3}).fit_transform(X)
    b = EpsilonGraph(radius=0.5, metric="minkowski", p=3).fit_transform(X)
    np.testing.assert_array_equal(_dense(a), _dense(b))
    D = cdist(X, X, "minkowski", p=3)
    np.testing.assert_array_equal(np.isnan(_dense(a)), D > 0.5)
    with pytest.raises(ValueError, match="not supported"):
        EpsilonGraph(metric="euclidean", metric_params={"w": 1}).fit(X)
    with pytest.raises(ValueError, match="not supported"):
        HomogeneousGraph(metric="manhattan", metric_params={"p": 1}).fit(X)

    def scaled(a, b, k=1.0):
        return k * float(np.abs(a - b).sum())

    c = EpsilonGraph(radius=1.0, metric=scaled, metric_params={"k": 2.0}).fit_transform(X)
    d = EpsilonGraph(radius=0.5, metric="manhattan").fit_transform(X)
    np.testing.assert_allclose(_dense(c), 2 * _dense(d), equal_nan=True, rtol=1e-12)


def test_epsilon_graph_callable_metric():
    rng = np.random.default_rng(1)
    X = rng.random((30, 2))

    def l1(a, b):
        return float(np.abs(a - b).sum())

    G = EpsilonGraph(radius=0.4, metric=l1).fit_transform(X)
    H = EpsilonGraph(radius=0.4, metric="manhattan").fit_transform(X)
    np.testing.assert_allclose(_dense(G), _dense(H), equal_nan=True, rtol=1e-12)


def test_duplicates_are_explicit_zero_edges_and_diagonal_is_ignored():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.3, 0.4], [5.0, 5.0]])
    est = EpsilonGraph(radius=0.5)
    G = est.fit_transform(X)
    assert G[[0], [1]][0] == 0.0 and G.has_sorted_indices
    assert G.indices[G.indptr[0]:G.indptr[1]].tolist() == [0, 1, 2]  # zeros stored
    assert G[[0], [2]][0] == pytest.approx(0.5)        # radius is inclusive
    assert est.n_components_ == 2                      # the far point is isolated
    canon = check_graph(G)                             # what the clusterers see
    assert canon.diagonal().tolist() == [0.0] * 4 and canon.nnz == 6
    assert canon.indices[canon.indptr[0]:canon.indptr[1]].tolist() == [1, 2]  # 0-edge kept


def test_exact_symmetry_far_from_origin():
    # The dot-product trick loses symmetry for points far from the origin;
    # the graph must stay exactly symmetric (structure and values).
    rng = np.random.default_rng(2)
    X = 1e6 + rng.random((300, 4))
    for algorithm in ("brute", "kd_tree"):
        G = EpsilonGraph(radius=0.5, algorithm=algorithm).fit_transform(X)
        assert (G != G.T).nnz == 0
        D = cdist(X, X)
        np.testing.assert_array_equal(np.isnan(_dense(G)), D > 0.5)
    # check_graph accepts it without symmetrising anything away
    assert check_graph(G).nnz == G.nnz - 300


def test_sparse_features_match_dense():
    rng = np.random.default_rng(3)
    X = rng.random((80, 6))
    X[X < 0.6] = 0
    for metric in ("euclidean", "manhattan", "cosine"):
        dense = EpsilonGraph(radius=0.8, metric=metric).fit_transform(X)
        sparse = EpsilonGraph(radius=0.8, metric=metric).fit_transform(sp.csr_array(X))
        np.testing.assert_allclose(_dense(sparse), _dense(dense), equal_nan=True, rtol=1e-12,
                                   atol=1e-12)
        assert (sparse != sparse.T).nnz == 0
    with pytest.raises(TypeError, match="sparse"):
        EpsilonGraph(metric="chebyshev").fit(sp.csr_array(X))


def test_precomputed_dense_and_sparse():
    rng = np.random.default_rng(4)
    X = rng.random((40, 2))
    D = cdist(X, X)
    G = EpsilonGraph(radius=0.2, metric="precomputed").fit_transform(D)
    H = EpsilonGraph(radius=0.2).fit_transform(X)
    np.testing.assert_allclose(_dense(G), _dense(H), equal_nan=True, rtol=1e-12)
    S = sp.csr_array(np.where(D <= 0.3, D, 0.0))
    S.setdiag(0.0)  # explicit zeros on the diagonal are entries too
    G2 = EpsilonGraph(radius=0.2, metric="precomputed").fit_transform(S)
    np.testing.assert_allclose(_dense(G2), _dense(H), equal_nan=True, rtol=1e-12)
    with pytest.raises(ValueError, match="square"):
        EpsilonGraph(metric="precomputed").fit(D[:5])
    with pytest.raises(ValueError, match=">= 0"):
        EpsilonGraph(metric="precomputed").fit(-D)


def test_transform_new_points_and_batches():
    rng = np.random.default_rng(5)
    X, Q = rng.random((60, 2)), rng.random((17, 2))
    est = EpsilonGraph(radius=0.25).fit(X)
    G = est.transform(Q)
    assert G.shape == (17, 60)
    D = cdist(Q, X)
    np.testing.assert_allclose(_dense(G), np.where(D <= 0.25, D, np.nan), equal_nan=True,
                               rtol=1e-12)
    # rows do not depend on the batch or its order
    perm = rng.permutation(17)
    batches = sp.vstack([est.transform(Q[perm[:5]]), est.transform(Q[perm[5:]])])
    np.testing.assert_allclose(_dense(batches), _dense(G)[perm], equal_nan=True)
    # fit().transform(X) equals fit_transform(X)
    np.testing.assert_array_equal(_dense(est.transform(X)),
                                  _dense(EpsilonGraph(radius=0.25).fit_transform(X)))


def test_pipeline_with_dbmstclu():
    from skdpgraph.cluster import DBMSTClu

    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(0, 0.1, (30, 2)), rng.normal(3, 0.1, (30, 2))])
    pipe = make_pipeline(EpsilonGraph(radius=1.0), DBMSTClu(metric="precomputed"))
    labels = pipe.fit_predict(X)
    assert labels.shape == (60,)
    # the two blobs are two components of the graph: no cluster spans both
    assert not set(labels[:30].tolist()) & set(labels[30:].tolist())
    assert pipe[0].n_components_ == 2


def test_epsilon_graph_bad_input_and_no_mutation():
    X = np.random.default_rng(7).random((10, 2))
    X0 = X.copy()
    for radius in (0.0, -1.0):
        with pytest.raises(ValueError, match="radius"):
            EpsilonGraph(radius=radius).fit(X)
    with pytest.raises(ValueError, match="1 sample"):
        EpsilonGraph().fit(X[:1])
    with pytest.raises(ValueError, match="features"):
        EpsilonGraph().fit(X).transform(X[:, :1])
    with pytest.raises(ValueError, match="NaN"):
        EpsilonGraph().fit(np.array([[0.0], [np.nan]]))
    with pytest.raises(TypeError, match="sparse"):
        EpsilonGraph(metric=lambda a, b: 0.0).fit(sp.csr_array(X))
    EpsilonGraph(radius=0.3).fit_transform(X)
    assert X.tobytes() == X0.tobytes()


# ---------------------------------------------------------------------------
# HomogeneousGraph
# ---------------------------------------------------------------------------

def _rule(D, y, w_min, w_max):
    same = y[:, None] == y[None, :]
    keep = np.where(same, (D >= w_min) & (D <= w_max), D > w_max ** 2 / w_min)
    np.fill_diagonal(keep, False)
    return keep


def test_homogeneous_graph_with_labels():
    rng = np.random.default_rng(0)
    X = rng.random((50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    est = HomogeneousGraph(w_min=0.1, w_max=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)
        G = est.fit_transform(X, y)
    D = cdist(X, X)
    keep = _rule(D, y, 0.1, 0.3)
    np.testing.assert_array_equal(~np.isnan(_dense(G)), keep)
    # rescaled by the largest kept distance, into (0, 1]
    assert est.scale_ == pytest.approx(D[keep].max())
    np.testing.assert_allclose(_dense(G)[keep], D[keep] / est.scale_, rtol=1e-12)
    assert G.max() == 1.0 and G.data.min() > 0
    assert (G != G.T).nnz == 0
    # the benchmark construction makes every cluster strongly homogeneous
    assert check_homogeneity(G, y).all_strong
    assert est.classes_.tolist() == [0, 1]


def test_homogeneous_graph_without_labels_drops_the_band():
    rng = np.random.default_rng(1)
    X = rng.random((40, 2))
    D = cdist(X, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)
        G = HomogeneousGraph(w_min=0.1, w_max=0.3).fit_transform(X)
    keep = ((D >= 0.1) & (D <= 0.3)) | (D > 0.9)
    np.fill_diagonal(keep, False)
    np.testing.assert_array_equal(~np.isnan(_dense(G)), keep)


def test_homogeneous_graph_disconnected_warns():
    # one label, two far groups: nothing joins them
    est = HomogeneousGraph(w_min=0.1, w_max=0.3)
    with pytest.warns(DisconnectedGraphWarning, match="2 connected components"):
        est.fit(np.array([[0.0], [0.2], [5.0], [5.2]]), [0, 0, 0, 0])
    assert est.n_components_ == 2
    # two labels: the leaving edges longer than 0.9 join the groups
    X = np.array([[0.0], [0.2], [0.4], [1.0], [1.2]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DisconnectedGraphWarning)
        est.fit(X, [0, 0, 0, 1, 1])
    assert est.n_components_ == 1


def test_homogeneous_transform_new_points_and_label_inheritance():
    rng = np.random.default_rng(2)
    X = rng.random((30, 2))
    y = (X[:, 1] > 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)
        est = HomogeneousGraph(w_min=0.05, w_max=0.3).fit(X, y)
        G = est.fit_transform(X, y)
    np.testing.assert_array_equal(_dense(est.transform(X)), _dense(G))
    # a query equal to a fitted point takes its label; a new point has none
    Q = np.vstack([X[:3], [[0.5, 0.5]]])
    T = est.transform(Q)
    np.testing.assert_array_equal(_dense(T)[:3], _dense(G)[:3])
    d = cdist(Q[3:], X)[0]
    expected = ((d >= 0.05) & (d <= 0.3)) | (d > 0.3 ** 2 / 0.05)
    np.testing.assert_array_equal(~np.isnan(_dense(T)[3]), expected)
    np.testing.assert_allclose(_dense(T)[3][expected], d[expected] / est.scale_)


def test_homogeneous_precomputed_matches_features():
    rng = np.random.default_rng(3)
    X = rng.random((25, 2))
    y = rng.integers(0, 2, 25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)
        a = HomogeneousGraph(metric="precomputed").fit_transform(cdist(X, X), y)
        b = HomogeneousGraph().fit_transform(X, y)
    np.testing.assert_allclose(_dense(a), _dense(b), equal_nan=True, rtol=1e-12)


def test_homogeneous_bad_input():
    X = np.random.default_rng(4).random((10, 2))
    X0 = X.copy()
    with pytest.raises(ValueError, match="w_min must be smaller than w_max"):
        HomogeneousGraph(w_min=0.3, w_max=0.3).fit(X)
    with pytest.raises(ValueError, match="w_min must be smaller than w_max"):
        HomogeneousGraph(w_min=0.5, w_max=0.2).fit(X)
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="w_min"):
            HomogeneousGraph(w_min=bad, w_max=1.0).fit(X)
        with pytest.raises(ValueError, match="w_max"):
            HomogeneousGraph(w_min=0.05, w_max=bad).fit(X)
    with pytest.raises(ValueError, match="one label per sample"):
        HomogeneousGraph().fit(X, [0, 1, 0])
    with pytest.raises(TypeError, match="sparse"):
        HomogeneousGraph().fit(sp.csr_array(X))
    with pytest.raises(ValueError, match="1 sample"):
        HomogeneousGraph().fit(X[:1])
    assert X.tobytes() == X0.tobytes()


def test_weight_transformers_take_networkx_graphs():
    import networkx as nx

    from skdpgraph.graphs import SimilarityToDistance, StructuralDistance

    G = nx.karate_club_graph()
    A = nx.to_scipy_sparse_array(G, nodelist=list(G), format="csr")
    for est in (SimilarityToDistance(), StructuralDistance()):
        np.testing.assert_array_equal(est.fit_transform(G).toarray(),
                                      est.fit_transform(A).toarray())


def test_weight_transformers_read_no_bsr_padding_as_edges():
    from skdpgraph.graphs import SimilarityToDistance, StructuralDistance

    A = np.array([[0, 0.5, 0, 0], [0.5, 0, 0.2, 0], [0, 0.2, 0, 0.7], [0, 0, 0.7, 0]])
    B = sp.bsr_array(A, blocksize=(2, 2))  # stores 16 values for 6 entries
    for est in (SimilarityToDistance(), StructuralDistance()):
        got = est.fit_transform(B)
        assert got.nnz == 6
        np.testing.assert_array_equal(got.toarray(),
                                      est.fit_transform(sp.csr_array(A)).toarray())


def test_homogeneous_graph_uses_y_whatever_the_input_format():
    import networkx as nx
    from sklearn.metrics import pairwise_distances

    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    D = pairwise_distances(X)
    G = nx.from_numpy_array(D)
    ref = HomogeneousGraph(0.05, 0.3).fit_transform(X, y).toarray()
    for given in (D, sp.csr_array(D), G):
        got = HomogeneousGraph(0.05, 0.3, metric="precomputed").fit_transform(given, y)
        np.testing.assert_allclose(got.toarray(), ref)


@pytest.mark.filterwarnings("ignore::skdpgraph.exceptions.DisconnectedGraphWarning")
def test_graph_transformers_name_their_output_columns_after_the_nodes():
    from sklearn.exceptions import NotFittedError
    from sklearn.preprocessing import StandardScaler

    from skdpgraph.graphs import SimilarityToDistance, StructuralDistance

    rng = np.random.default_rng(0)
    X, y = rng.random((12, 2)), np.arange(12) % 2
    A = sp.csr_array(rng.random((12, 12)) > 0.5, dtype=float)
    A = A.maximum(A.T)
    A.setdiag(0)
    A.eliminate_zeros()
    cases = [(EpsilonGraph(radius=0.5), (X,)), (HomogeneousGraph(), (X, y)),
             (SimilarityToDistance(), (A,)), (StructuralDistance(), (A,))]
    for est, args in cases:
        with pytest.raises(NotFittedError):
            est.get_feature_names_out()
        out = est.fit_transform(*args)
        prefix = type(est).__name__.lower()
        assert list(est.get_feature_names_out()) == [f"{prefix}{i}" for i in range(12)]
        assert out.shape[1] == 12
    # Fitted on 12 points, the graph of 5 new ones still has the 12 fitted columns.
    est = EpsilonGraph(radius=0.5).fit(X)
    assert est.transform(X[:5]).shape == (5, 12) and len(est.get_feature_names_out()) == 12
    # set_output is available; pandas output of a sparse graph is scikit-learn's error.
    pipe = make_pipeline(StandardScaler(), EpsilonGraph(radius=1.0)).set_output(
        transform="pandas")
    with pytest.raises(ValueError, match="sparse"):
        pipe.fit_transform(X)
    dense = SimilarityToDistance().set_output(transform="pandas").fit_transform(A.toarray() + 1)
    assert list(dense.columns) == [f"similaritytodistance{i}" for i in range(12)]


@pytest.mark.parametrize("similarity", ["jaccard", "cosine"])
def test_structural_distance_against_the_dense_product(similarity):
    import networkx as nx

    from skdpgraph.graphs import StructuralDistance

    for graph in (nx.star_graph(200), nx.complete_graph(30),
                  nx.powerlaw_cluster_graph(300, 4, 0.7, seed=2)):
        n = graph.number_of_nodes()
        A = nx.to_numpy_array(graph, nodelist=range(n))
        inter = (A @ A + 2) * A  # |N[u] & N[v]| of adjacent u, v
        closed = A.sum(axis=1) + 1.0
        if similarity == "jaccard":
            sim = inter / (closed[:, None] + closed[None, :] - inter)
        else:
            sim = inter / np.sqrt(np.outer(closed, closed))
        expected = np.where(A > 0, np.clip(1.0 - sim, 0.0, 1.0), 0.0)
        got = StructuralDistance(similarity=similarity).fit_transform(sp.csr_array(A))
        assert got.nnz == np.count_nonzero(A)
        np.testing.assert_array_equal(got.toarray(), expected)



@pytest.mark.parametrize("similarity", ["jaccard", "cosine"])
def test_structural_distance_fit_transform_is_fit_then_transform(similarity):
    import networkx as nx

    from skdpgraph.graphs import StructuralDistance

    graph = nx.powerlaw_cluster_graph(120, 3, 0.5, seed=4)
    A = nx.to_numpy_array(graph, nodelist=range(120))
    for X in (A, sp.csr_array(A), sp.coo_array(A), graph):
        before = X.copy()
        est = StructuralDistance(similarity=similarity)
        got = est.fit_transform(X)
        assert est.n_features_in_ == 120
        expected = StructuralDistance(similarity=similarity).fit(X).transform(X)
        assert sp.issparse(got) and got.format == "csr"
        np.testing.assert_array_equal(got.indptr, expected.indptr)
        np.testing.assert_array_equal(got.indices, expected.indices)
        np.testing.assert_array_equal(got.data, expected.data)
        if isinstance(X, nx.Graph):
            assert nx.utils.graphs_equal(X, before)
        else:
            np.testing.assert_array_equal(sp.csr_array(X).toarray(), sp.csr_array(before).toarray())
    # The same refusals as fit, before anything is computed.
    for bad, message in ((np.triu(A), "not symmetric"), (A[:, :50], "square"),
                         (-A, "Negative values")):
        with pytest.raises(ValueError, match=message):
            StructuralDistance(similarity=similarity).fit_transform(bad)
        with pytest.raises(ValueError, match=message):
            StructuralDistance(similarity=similarity).fit(bad)
    with pytest.raises(ValueError, match="similarity"):
        StructuralDistance(similarity="dice").fit_transform(A)

def test_an_epsilon_graph_past_the_memory_limit_is_refused_while_it_is_built():
    from skdpgraph.exceptions import DenseMemoryError
    from skdpgraph.utils import config_context

    X = np.random.default_rng(0).random((5000, 2))
    with config_context(max_dense_memory=2**20):  # 1 MiB: about 10,000 edges
        with pytest.raises(DenseMemoryError, match="Lower radius"):
            EpsilonGraph(radius=10.0).fit(X)  # the complete graph
        EpsilonGraph(radius=0.005).fit(X)  # about 1,000 edges
        graph = EpsilonGraph(radius=0.05).fit(X[:100])
        components = graph.n_components_
        with pytest.raises(DenseMemoryError):
            graph.set_params(radius=10.0).fit(X)
    # A refused refit leaves the fit before it.
    assert graph.n_components_ == components and graph.n_features_in_ == 2
    assert len(graph.get_feature_names_out()) == 100
    assert graph.transform(X[:3]).shape == (3, 100)


def test_features_whose_distances_overflow_are_refused_as_check_graph_refuses_them():
    X = np.array([[0.0, 0.0], [1e200, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="overflow"):
        check_graph(X, metric="euclidean")
    for est in (EpsilonGraph(radius=1e300), HomogeneousGraph()):
        with pytest.raises(ValueError, match="overflow"):
            est.fit(X)
    fitted = EpsilonGraph(radius=1.0).fit(X[[0, 2]])
    with pytest.raises(ValueError, match="overflow"):
        fitted.transform(X)
    with pytest.raises(ValueError, match="underflow"):
        EpsilonGraph(radius=1e-300).fit(X[[0, 2]] * 1e-200)


@pytest.mark.parametrize("conversion", ["inverse", "neg_log", "max_minus"])
def test_similarity_to_distance_maps_a_zero_diagonal_to_zero(conversion):
    # Counts with a zero diagonal (a self-similarity means nothing) were refused by the maps
    # that have no distance for 0; converted now, off the diagonal as check_graph does.
    from skdpgraph.graphs import SimilarityToDistance

    C = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]], float)
    kw = {} if conversion == "inverse" else {"max_similarity": 3.0}
    dense = SimilarityToDistance(conversion, **kw).fit_transform(C)
    stored = sp.csr_array(C)
    stored.setdiag(0.0)
    sparse = SimilarityToDistance(conversion, **kw).fit_transform(stored)
    off = ~np.eye(3, dtype=bool)
    expected = {"inverse": 1 / C[off], "neg_log": -np.log(C[off] / 3),
                "max_minus": 3 - C[off]}[conversion]
    np.testing.assert_allclose(dense[off], expected)
    assert np.all(np.diag(dense) == 0.0)
    np.testing.assert_array_equal(sparse.toarray(), dense)
    assert np.all(C == np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]]))  # the input as given


def test_weight_transformers_refuse_an_asymmetric_graph_at_fit():
    from skdpgraph.graphs import SimilarityToDistance, StructuralDistance

    P = np.ones((4, 4)) - np.eye(4)
    with pytest.raises(ValueError, match="not symmetric"):
        StructuralDistance().fit(np.triu(P))
    with pytest.raises(ValueError, match="not symmetric"):
        SimilarityToDistance("max_minus", max_similarity=2).fit([[1, 2], [0.5, 1]])


def test_similarity_to_distance_maps_every_batch_with_the_maximum_read_at_fit():
    from skdpgraph.exceptions import PrivacyLeakWarning
    from skdpgraph.graphs import SimilarityToDistance

    S = np.array([[10, 2, 1], [2, 10, 4], [1, 4, 10.]])
    with pytest.warns(PrivacyLeakWarning, match="largest similarity"):
        t = SimilarityToDistance("max_minus").fit(S)
    assert t.max_similarity_ == 10.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read once, at fit
        np.testing.assert_array_equal(t.transform(np.array([[1, 3, 5.]])), [[9, 7, 5]])
        np.testing.assert_array_equal(t.transform(S[1:]), 10 - S[1:])


def test_a_leaf_size_past_a_c_size_is_refused_by_name():
    X = np.random.default_rng(0).random((20, 2))
    with pytest.raises(ValueError, match="'leaf_size' parameter of EpsilonGraph"):
        EpsilonGraph(0.3, leaf_size=2**63).fit_transform(X)


def test_precomputed_builders_read_the_matrix_as_the_clusterers_do():
    # A BSR's padding is no edge, duplicate entries add up (scipy's convention) and
    # mirror entries that differ by rounding are one symmetric edge: as check_graph.
    D = np.zeros((4, 4))
    D[0, 2] = D[2, 0] = 1.0
    D[1, 3] = D[3, 1] = 2.0
    dup = sp.csr_array((np.full(4, 0.3), (np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0]))),
                       shape=(3, 3))
    near = np.array([[0, 0.1, 1], [0.1 * (1 + 1e-9), 0, 1], [1, 1, 0]])
    cases = [(sp.bsr_array(D, blocksize=(4, 4)), sp.csr_array(D)),
             (dup, sp.csr_array(dup.toarray())),
             (sp.csr_array(near), check_graph(sp.csr_array(near)))]
    for X, same in cases:
        for builder in (EpsilonGraph(radius=0.5, metric="precomputed"),
                        EpsilonGraph(radius=5.0, metric="precomputed"),
                        HomogeneousGraph(0.2, 0.5, metric="precomputed"),
                        HomogeneousGraph(0.05, 0.1, metric="precomputed")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                G, H = builder.fit_transform(X), clone(builder).fit_transform(same)
            assert (G != H).nnz == 0 and (G != G.T).nnz == 0, (builder, X.format)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        G = EpsilonGraph(radius=0.1, metric="precomputed").fit_transform(near)
    assert (G != G.T).nnz == 0 and G[0, 1] == G[1, 0] == 0 and G.nnz == 3  # the diagonal


def test_a_refused_refit_leaves_the_homogeneous_graph_as_it_was():
    X = np.random.default_rng(0).random((30, 2))
    model = HomogeneousGraph(0.1, 0.3).fit(X)
    state = {k: v for k, v in vars(model).items()}
    with pytest.raises(ValueError, match="one label per sample"):
        model.fit(np.random.default_rng(1).random((40, 3)), y=[0, 1])
    assert vars(model).keys() == state.keys() and model.n_features_in_ == 2
    np.testing.assert_array_equal(model.transform(X[:5]).toarray(),
                                  HomogeneousGraph(0.1, 0.3).fit(X).transform(X[:5]).toarray())
    with pytest.raises(TypeError, match="one comparable kind"):
        HomogeneousGraph(0.1, 0.3).fit(X[:3], y=np.array(["a", None, "b"], dtype=object))


def test_a_precomputed_frame_keeps_its_column_names():
    pd = pytest.importorskip("pandas")
    D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    frame = pd.DataFrame(D, columns=list("abcd"))
    for builder in (EpsilonGraph(radius=1.5, metric="precomputed"),
                    HomogeneousGraph(0.5, 0.9, metric="precomputed")):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # no feature-name mismatch
            warnings.simplefilter("ignore", DisconnectedGraphWarning)
            builder.fit(frame)
            builder.transform(frame)
        assert list(builder.feature_names_in_) == list("abcd")


@pytest.mark.parametrize("algorithm", ["kd_tree", "ball_tree", "brute"])
def test_epsilon_graph_far_from_the_origin_is_the_graph_near_it(algorithm):
    # The trees' distances come from coordinate differences: a margin that grew with the
    # norms made every pair a candidate (refused as too dense at 1e6). Pairs exactly at
    # the radius, and one ulp beyond, decide as near the origin.
    from skdpgraph.utils import config_context

    rng = np.random.default_rng(3)
    X0 = rng.uniform(size=(3000, 2))
    for offset in (0.0, 1e6):
        X = X0 + offset
        D = cdist(X, X)
        radius = float(np.sort(D[0])[25])  # a pair at exactly the radius
        limit = 2**26 if algorithm != "brute" else None  # ~20 times the graph's bytes
        with config_context(max_dense_memory=limit):
            G = EpsilonGraph(radius=radius, algorithm=algorithm).fit_transform(X)
        assert np.array_equal(G.toarray() > 0, (D <= radius) & (D > 0)), offset
        nudged = np.nextafter(radius, 0)
        assert EpsilonGraph(radius=nudged, algorithm=algorithm).fit_transform(X).nnz < G.nnz


def test_epsilon_graph_ball_tree_keeps_pairs_at_the_radius_between_clumps():
    # Collinear clumps far apart: the ball tree's centroid bounds round relative to the
    # data's extent, and a margin relative to the radius alone lost a pair at exactly the
    # radius (an asymmetric graph in 41 of 300 such gaps).
    rng = np.random.default_rng(2)
    for _ in range(100):
        gap = float(10 ** rng.uniform(-9, -5))
        x = np.r_[rng.random(19) * 50, 1000.0, 1000.0 + gap, 2000.0 + gap - rng.random(19) * 50]
        X = x[:, None]
        r = float(EpsilonGraph(radius=1.0).fit_transform(X[19:21])[0, 1])  # its distance
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = EpsilonGraph(radius=r, algorithm="ball_tree", leaf_size=5)
            G = est.fit_transform(X)
            assert (G != G.T).nnz == 0 and G[19, 20] == G[20, 19] == r
            assert 19 in est.transform(X[[20]]).indices
