"""SCAN against a brute-force reference written from Xu et al.'s definitions."""

import math
from collections import deque
from functools import partial

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.cluster import SCAN, scan, structural_similarity
from skdpgraph.cluster import _scan as scan_module
from skdpgraph.utils import _neighbours as neighbours_module
from skdpgraph.edge_dp import EdgeFlipPerturbation

# ---------------------------------------------------------------------------
# Brute-force reference: Python sets, one definition at a time.
# ---------------------------------------------------------------------------


def _neighbour_sets(A):
    A = np.asarray(A)
    n = A.shape[0]
    return [set(np.flatnonzero(A[v]).tolist()) - {v} for v in range(n)]


def _sigma(nbrs, u, v):
    cu, cv = nbrs[u] | {u}, nbrs[v] | {v}
    # Same floating-point expression as the library: exact agreement.
    return len(cu & cv) / math.sqrt(float(len(cu) * len(cv)))


def reference_scan(A, eps, mu):
    nbrs = _neighbour_sets(A)
    n = len(nbrs)
    eps_nbhd = [{v} | {w for w in nbrs[v] if _sigma(nbrs, v, w) >= eps} for v in range(n)]
    core = [len(eps_nbhd[v]) >= mu for v in range(n)]
    # Structure-connected clusters: BFS over direct structure reachability
    # between cores.
    comp = [-1] * n
    n_comp = 0
    for c in range(n):
        if core[c] and comp[c] < 0:
            comp[c] = n_comp
            queue = deque([c])
            while queue:
                x = queue.popleft()
                for y in eps_nbhd[x]:
                    if core[y] and comp[y] < 0:
                        comp[y] = n_comp
                        queue.append(y)
            n_comp += 1
    label = comp[:]
    for b in range(n):
        if core[b]:
            continue
        reach = [c for c in eps_nbhd[b] if c != b and core[c]]
        if reach:
            best = max(reach, key=lambda c: (_sigma(nbrs, b, c), -c))
            label[b] = comp[best]
    # Number clusters by their smallest node.
    order = {}
    for v in range(n):
        if label[v] >= 0 and label[v] not in order:
            order[label[v]] = len(order)
    labels = np.array([order[lab] if lab >= 0 else -1 for lab in label])
    kind = []
    for v in range(n):
        if core[v]:
            kind.append("core")
        elif labels[v] >= 0:
            kind.append("border")
        else:
            adjacent = {labels[w] for w in nbrs[v] if labels[w] >= 0}
            kind.append("hub" if len(adjacent) >= 2 else "outlier")
    return labels, np.array(kind), np.flatnonzero(core)


def _random_graph(rng, n, p):
    A = np.triu(rng.random((n, n)) < p, 1).astype(float)
    return A + A.T


def _planted(rng, sizes, p_in, p_out):
    n = sum(sizes)
    y = np.repeat(np.arange(len(sizes)), sizes)
    P = np.where(y[:, None] == y[None, :], p_in, p_out)
    A = np.triu(rng.random((n, n)) < P, 1).astype(float)
    return A + A.T, y


# ---------------------------------------------------------------------------
# Agreement with the reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_scan_matches_reference_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    A = _random_graph(rng, n, rng.uniform(0.05, 0.6))
    if seed % 3 == 0:  # graphs with community structure too
        A, _ = _planted(rng, [n // 2 + 1, n // 2 + 1], 0.7, 0.08)
    for eps in (0.3, 0.5, 0.6, 0.7, 0.85, 1.0):
        for mu in (1, 2, 3, 4, 6):
            res = scan(sp.csr_array(A), similarity_threshold=eps, min_neighbors=mu)
            labels, kind, cores = reference_scan(A, eps, mu)
            np.testing.assert_array_equal(res.labels, labels)
            np.testing.assert_array_equal(res.node_kind, kind)
            np.testing.assert_array_equal(res.core_sample_indices, cores)
            assert res.n_clusters == labels.max() + 1


@pytest.mark.parametrize("n_left, n_right", [(3, 2), (2, 3)])
def test_border_reachable_from_two_clusters_joins_the_most_similar_core(n_left, n_right):
    # Two 8-cliques; node 16 is joined to n_left nodes of the left one and
    # n_right of the right one. With |N[16]| = 6 and |N[c]| = 9 for the
    # joined clique nodes: sigma = (1 + k) / sqrt(54), i.e. 0.544 for k = 3
    # and 0.408 for k = 2. At threshold 0.4 and mu = 7 the clique nodes are
    # cores and node 16 (6 similar nodes) is a border reachable from both
    # clusters; it goes to the side it is more similar to, whichever
    # cluster is found first.
    G = nx.Graph()
    G.add_edges_from(nx.complete_graph(range(8)).edges)
    G.add_edges_from(nx.complete_graph(range(8, 16)).edges)
    G.add_edges_from([(16, c) for c in range(n_left)])
    G.add_edges_from([(16, c) for c in range(8, 8 + n_right)])
    A = nx.to_scipy_sparse_array(G, nodelist=range(17))
    res = scan(A, similarity_threshold=0.4, min_neighbors=7)
    assert res.node_kind[16] == "border"
    assert res.n_clusters == 2
    assert res.labels[16] == (0 if n_left > n_right else 1)
    labels, kind, _ = reference_scan(A.toarray(), 0.4, 7)
    np.testing.assert_array_equal(res.labels, labels)


def test_structural_similarity_matches_reference():
    rng = np.random.default_rng(3)
    A = _random_graph(rng, 40, 0.2)
    S = structural_similarity(A)
    nbrs = _neighbour_sets(A)
    assert S.nnz == np.count_nonzero(A)
    for u, v in zip(*np.nonzero(A)):
        assert S[u, v] == _sigma(nbrs, u, v)
    assert (abs(S - S.T)).nnz == 0


def _force_method(monkeypatch, method):
    """White-box: every common-neighbour count by the given search."""
    counts = partial(neighbours_module.common_neighbour_counts, method=method)
    monkeypatch.setattr(scan_module, "common_neighbour_counts", counts)


def _flipped_graph(n, epsilon, seed):
    """A planted partition released by edge flipping: dense, mean degree ~ n / (1 + e^eps)."""
    rng = np.random.default_rng(seed)
    A, _ = _planted(rng, [n // 3, n // 3, n - 2 * (n // 3)], 0.4, 0.05)
    return EdgeFlipPerturbation(epsilon=epsilon, random_state=seed).fit_transform(A)


def _both_kinds(seed):
    """A sparse random graph and a dense one (edge-flipped), about 150 nodes each."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 200))
    sparse = sp.csr_array(_random_graph(rng, n, 4.0 / n))
    return [sparse, _flipped_graph(n, float(rng.choice([1.0, 2.0, 4.0])), seed)]


@pytest.mark.parametrize("seed", range(6))
def test_bitset_and_triangle_searches_agree(monkeypatch, seed):
    # The dense-graph search (AND + popcount of bitset rows) and the
    # sparse-graph one (triangle listing), forced either way, give the same
    # similarities, bit for bit, and the same partition, on sparse and dense
    # graphs; so does the automatic choice.
    for A in _both_kinds(seed):
        results = {}
        for method in ("bitset", "triangles", None):
            with monkeypatch.context() as m:
                if method is not None:
                    _force_method(m, method)
                res = scan(A, similarity_threshold=0.5, min_neighbors=3)
                results[method] = (structural_similarity(A), res)
        S0, r0 = results["triangles"]
        for S, r in results.values():
            np.testing.assert_array_equal(S.indptr, S0.indptr)
            np.testing.assert_array_equal(S.indices, S0.indices)
            np.testing.assert_array_equal(S.data, S0.data)
            np.testing.assert_array_equal(r.labels, r0.labels)
            np.testing.assert_array_equal(r.node_kind, r0.node_kind)
            np.testing.assert_array_equal(r.core_sample_indices, r0.core_sample_indices)
        labels, kind, _ = reference_scan(A.toarray(), 0.5, 3)
        np.testing.assert_array_equal(r0.labels, labels)
        np.testing.assert_array_equal(r0.node_kind, kind)


@pytest.mark.parametrize("n", [2, 63, 64, 65, 127, 128, 130, 200])
def test_bitset_counts_against_the_dense_product(n):
    # Row lengths around the 64-bit word boundaries.
    rng = np.random.default_rng(n)
    A = np.where(np.eye(n) > 0, 0.0, 1.0) if n == 65 else _random_graph(rng, n, 0.45)
    counts = neighbours_module.common_neighbour_counts(sp.csr_array(A), method="bitset")
    C = sp.csr_array(A)
    expected = (A @ A)[C.nonzero()]
    np.testing.assert_array_equal(counts, expected)


def test_dense_graphs_take_the_bitset_and_sparse_ones_the_triangles(monkeypatch):
    chosen = []
    for name in ("_bitset_counts", "_triangle_counts"):
        original = getattr(neighbours_module, name)

        def spy(*args, _name=name, _original=original):
            chosen.append(_name)
            return _original(*args)
        monkeypatch.setattr(neighbours_module, name, spy)
    rng = np.random.default_rng(0)
    structural_similarity(_flipped_graph(600, 2.0, 0))
    structural_similarity(sp.csr_array(_random_graph(rng, 600, 5.0 / 600)))
    assert chosen == ["_bitset_counts", "_triangle_counts"]


def _similarity_from_product(A):
    """sigma on the edges from the dense product A @ A (independent reference)."""
    A = np.asarray(A, dtype=np.int64)
    common = (A @ A + 2) * A
    deg = A.sum(axis=1)
    closed = np.sqrt(np.outer(deg + 1.0, deg + 1.0))
    return np.where(A > 0, common / closed, 0.0)


@pytest.mark.parametrize("graph", [
    nx.star_graph(300),  # one hub: no triangle
    nx.complete_graph(40),  # every pair: n - 2 common neighbours
    nx.barbell_graph(12, 3),
    nx.powerlaw_cluster_graph(400, 4, 0.7, seed=2),  # heavy-tailed degrees, triangles
    nx.disjoint_union(nx.gnp_random_graph(150, 0.4, seed=5), nx.empty_graph(5)),
])
@pytest.mark.parametrize("method", [None, "bitset", "triangles"])
def test_common_neighbour_counts_against_the_dense_product(monkeypatch, graph, method):
    n = graph.number_of_nodes()
    A = nx.to_numpy_array(graph, nodelist=range(n))
    if method is not None:
        _force_method(monkeypatch, method)
    S = structural_similarity(sp.csr_array(A))
    assert S.nnz == np.count_nonzero(A)
    np.testing.assert_array_equal(S.toarray(), _similarity_from_product(A))


# ---------------------------------------------------------------------------
# Behaviour
# ---------------------------------------------------------------------------


def test_hub_and_outlier():
    # Two 5-cliques bridged by node 10 (a hub); node 11 hangs off node 0
    # (an outlier: its only neighbour is in one cluster); node 12 isolated.
    G = nx.Graph()
    G.add_nodes_from(range(13))
    G.add_edges_from(nx.complete_graph(range(5)).edges)
    G.add_edges_from(nx.complete_graph(range(5, 10)).edges)
    G.add_edges_from([(10, 4), (10, 5), (11, 0)])
    model = SCAN(similarity_threshold=0.7, min_neighbors=3).fit(G)
    assert model.n_clusters_ == 2
    np.testing.assert_array_equal(model.labels_[:10], [0] * 5 + [1] * 5)
    assert list(model.labels_[10:]) == [-1, -1, -1]
    assert list(model.node_kind_[10:]) == ["hub", "outlier", "outlier"]
    assert set(model.node_kind_[:10]) == {"core"}


def test_recovers_planted_partition():
    rng = np.random.default_rng(0)
    A, y = _planted(rng, [40, 30, 30], 0.5, 0.01)
    model = SCAN(similarity_threshold=0.4, min_neighbors=4).fit(sp.csr_array(A))
    clustered = model.labels_ >= 0
    assert clustered.mean() > 0.9
    assert adjusted_rand_score(y[clustered], model.labels_[clustered]) == 1.0


def test_min_neighbors_1_makes_every_node_a_core():
    A = np.zeros((4, 4))
    A[0, 1] = A[1, 0] = 1
    res = scan(A, similarity_threshold=1.0, min_neighbors=1)
    assert list(res.node_kind) == ["core"] * 4
    assert list(res.labels) == [0, 0, 1, 2]


def test_weights_ignored_and_input_forms_agree():
    rng = np.random.default_rng(4)
    W = _random_graph(rng, 25, 0.3) * rng.uniform(0.5, 3.0, (25, 25))
    W = np.triu(W, 1)
    W = W + W.T
    ref = scan(W != 0, similarity_threshold=0.5, min_neighbors=3)
    for X in (W, sp.csr_array(W), sp.coo_matrix(W), nx.from_numpy_array(W)):
        res = scan(X, similarity_threshold=0.5, min_neighbors=3)
        np.testing.assert_array_equal(res.labels, ref.labels)
    # An explicitly stored zero is an edge.
    S = sp.csr_array(W)
    S.data[:] = 0.0
    np.testing.assert_array_equal(
        scan(S, similarity_threshold=0.5, min_neighbors=3).labels, ref.labels)


def test_caller_data_not_modified():
    rng = np.random.default_rng(5)
    A = sp.csr_matrix(_random_graph(rng, 20, 0.3))
    before = (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())
    SCAN().fit(A)
    assert before == (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())


def test_graph_without_edges():
    model = SCAN().fit(sp.csr_array((5, 5)))
    assert model.n_clusters_ == 0
    assert list(model.labels_) == [-1] * 5
    assert list(model.node_kind_) == ["outlier"] * 5


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("params", [
    {"similarity_threshold": 0.0}, {"similarity_threshold": 1.5},
    {"similarity_threshold": -0.1}, {"min_neighbors": 0}, {"min_neighbors": 2.5},
])
def test_bad_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        SCAN(**params).fit(nx.path_graph(4))
    with pytest.raises((ValueError, TypeError), match=next(iter(params))):
        scan(nx.path_graph(4), **params)


@pytest.mark.parametrize("bad, match", [
    (nx.path_graph(3, create_using=nx.DiGraph), "directed"),
    (np.array([[0, -1.0], [-1.0, 0]]), "Negative values"),
    (np.array([[0, 1.0], [0, 0]]), "not symmetric"),
    (np.ones((2, 3)), "square"),
    (np.array([[0, np.nan], [np.nan, 0]]), "NaN"),
])
def test_bad_graphs(bad, match):
    with pytest.raises(ValueError, match=match):
        SCAN().fit(bad)


# ---------------------------------------------------------------------------
# scikit-learn conformance
# ---------------------------------------------------------------------------

_FEATURES = (
    "check_clustering fits a 50 x 2 feature matrix, but SCAN clusters a graph "
    "given by its square adjacency matrix (and check_nonsquare_error requires "
    "non-square input to be refused)"
)


@parametrize_with_checks(
    [SCAN(), SCAN(similarity_threshold=0.3, min_neighbors=5)],
    expected_failed_checks=lambda est: {"check_clustering": _FEATURES},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
