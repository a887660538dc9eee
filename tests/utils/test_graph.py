import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from skdpgraph import check_graph, from_networkx, to_networkx
from skdpgraph.tree import minimum_spanning_tree, tree_from_graph
from skdpgraph.utils import check_adjacency, graph_edges, similarity_to_distance


def _sym(rng, n, density=0.5):
    A = rng.random((n, n)) * (rng.random((n, n)) < density)
    A = np.triu(A, 1)
    return A + A.T


def test_dense_precomputed_is_complete_graph():
    D = np.array([[9.0, 1.0, 2.0], [1.0, 9.0, 0.0], [2.0, 0.0, 9.0]])
    G = check_graph(D)
    assert isinstance(G, np.ndarray)
    assert np.all(np.diag(G) == 0)
    u, v, w = graph_edges(G)
    assert list(zip(u, v, w)) == [(0, 1, 1.0), (0, 2, 2.0), (1, 2, 0.0)]


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "bsr"])
@pytest.mark.parametrize("kind", ["matrix", "array"])
def test_sparse_any_format_explicit_zero_is_edge(fmt, kind):
    row = np.array([0, 1, 1, 2])
    col = np.array([1, 0, 2, 1])
    data = np.array([0.0, 0.0, 3.0, 3.0])
    ctor = sp.coo_matrix if kind == "matrix" else sp.coo_array
    A = ctor((data, (row, col)), shape=(3, 3)).asformat(fmt)
    G = check_graph(A)
    assert sp.issparse(G) and G.format == "csr"
    u, v, w = graph_edges(G)
    expected = [(0, 1, 0.0), (1, 2, 3.0)]
    if A.nnz < 4:  # lil/dok drop stored zeros on conversion: only the real edge remains
        expected = expected[1:]
    assert list(zip(u.tolist(), v.tolist(), w.tolist())) == expected


def test_sparse_duplicates_summed_and_self_loops_dropped():
    A = sp.coo_array((np.array([1.0, 1.0, 2.0, 5.0]), (np.array([0, 0, 1, 2]), np.array([1, 1, 0, 2]))),
                     shape=(3, 3))
    G = check_graph(A)
    assert G.nnz == 2 and G[0, 1] == 2.0 and G[2, 2] == 0


def test_features_give_pairwise_distances():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])
    G = check_graph(X, metric="euclidean")
    assert G[0, 1] == pytest.approx(5.0) and G[0, 2] == pytest.approx(1.0)
    G1 = check_graph(X, metric="manhattan")
    assert G1[0, 1] == pytest.approx(7.0)


def test_networkx_round_trip():
    rng = np.random.default_rng(0)
    A = _sym(rng, 8)
    A[0, 1] = A[1, 0] = 0.0
    r, c = np.nonzero(A)
    r, c = np.concatenate([r, [0, 1]]), np.concatenate([c, [1, 0]])
    S = sp.coo_array((np.concatenate([A[A != 0], [0.0, 0.0]]), (r, c)), shape=(8, 8))  # explicit zero edge 0-1
    G = check_graph(S)
    H = to_networkx(G, labels=np.arange(8))
    assert H.has_edge(0, 1) and H[0][1]["weight"] == 0.0
    assert H.nodes[3]["label"] == 3
    back = from_networkx(H)
    assert (back != G).nnz == 0 and back.nnz == G.nnz
    assert sp.issparse(check_graph(H))


@pytest.mark.parametrize(
    "X, metric, exc, match",
    [
        (np.zeros((3, 4)), "precomputed", ValueError, "square"),
        (np.array([[0, 1.0], [2.0, 0]]), "precomputed", ValueError, "not symmetric.*differ"),
        (np.array([[0, -1.0], [-1.0, 0]]), "precomputed", ValueError, "negative"),
        (np.array([[0, np.nan], [np.nan, 0]]), "precomputed", ValueError, "NaN or infinite"),
        (np.array([[0, np.inf], [np.inf, 0]]), "precomputed", ValueError, "NaN or infinite"),
        (np.zeros((1, 1)), "precomputed", ValueError, "at least 2 nodes"),
        (np.zeros(5), "precomputed", ValueError, "2-D"),
        (np.zeros(5), "euclidean", ValueError, "2-D"),
        (np.array([["a", "b"], ["b", "a"]]), "precomputed", TypeError, "holds strings"),
        (np.array([["0", "1"], ["1", "0"]]), "precomputed", TypeError, "holds strings"),
        (np.array([[0, 1], [1, 0]], dtype="datetime64[s]"), "precomputed", TypeError, "dtype"),
        (np.array([["a", "b"], ["c", "d"]], dtype=object), "euclidean", TypeError, "non-numeric"),
        (np.zeros((2, 2), dtype=complex), "precomputed", ValueError, "Complex data"),
        (np.zeros((1, 3)), "euclidean", ValueError, "n_samples=1"),
        (np.array([[0.0, np.nan]]).repeat(3, 0), "euclidean", ValueError, "NaN"),
    ],
)
def test_bad_input_errors(X, metric, exc, match):
    with pytest.raises(exc, match=match):
        check_graph(X, metric=metric)


def test_sparse_bad_input_errors():
    with pytest.raises(ValueError, match="without its mirror entry"):
        check_graph(sp.csr_array(np.triu(np.ones((3, 3)), 1)))
    with pytest.raises(ValueError, match="square"):
        check_graph(sp.csr_array(np.ones((2, 3))))
    with pytest.raises(ValueError, match="negative"):
        check_graph(sp.csr_array(-np.ones((2, 2))))
    A = sp.csr_array(np.array([[0, 1.0], [1.5, 0]]))
    with pytest.raises(ValueError, match="differ"):
        check_graph(A)
    with pytest.raises(ValueError, match="directed"):
        check_graph(nx.DiGraph([(0, 1)]))


def test_caller_data_untouched():
    rng = np.random.default_rng(1)
    A = _sym(rng, 10)
    A[np.diag_indices(10)] = 3.0
    S = sp.coo_matrix(A)
    before_dense, before_sparse = A.copy(), S.copy()
    check_graph(A)
    check_graph(S)
    assert np.array_equal(A, before_dense)
    assert np.array_equal(S.data, before_sparse.data) and np.array_equal(S.row, before_sparse.row)


def test_mst_matches_networkx_and_handles_zero_weights():
    rng = np.random.default_rng(2)
    for trial in range(20):
        n = int(rng.integers(2, 30))
        A = np.round(_sym(rng, n, density=0.4) * 4) / 4  # ties and zeros
        mask = (np.triu(rng.random((n, n)) < 0.4, 1))
        mask = mask | mask.T
        S = sp.csr_array(np.where(mask, A, 0.0))
        # keep zero-weight edges as explicit entries
        r, c = np.nonzero(mask)
        S = sp.csr_array((A[r, c], (r, c)), shape=(n, n))
        G = check_graph(S)
        T = minimum_spanning_tree(G)
        H = nx.Graph()
        H.add_nodes_from(range(n))
        H.add_weighted_edges_from((int(a), int(b), float(A[a, b])) for a, b in zip(r, c) if a < b)
        ref = sum(d["weight"] for _, _, d in nx.minimum_spanning_edges(H, data=True))
        n_comp = nx.number_connected_components(H)
        assert T.edges.shape == (n - n_comp, 2)
        assert T.weights.sum() == pytest.approx(ref)


def test_dense_prim_equals_sparse_mst_on_complete_graphs():
    rng = np.random.default_rng(3)
    for _ in range(10):
        n = int(rng.integers(2, 40))
        A = np.round(_sym(rng, n, density=1.1) * 8) / 8
        D = check_graph(A)
        u, v = np.triu_indices(n, 1)
        S = sp.csr_array((np.concatenate([A[u, v], A[u, v]]), (np.concatenate([u, v]), np.concatenate([v, u]))),
                         shape=(n, n))
        assert minimum_spanning_tree(D).weights.sum() == pytest.approx(minimum_spanning_tree(check_graph(S)).weights.sum())
        assert minimum_spanning_tree(D).edges.shape == (n - 1, 2)


def test_tree_input_used_as_is():
    T = nx.random_labeled_tree(15, seed=4)
    for a, b in T.edges:
        T[a][b]["weight"] = float(a + b)
    G = from_networkx(T)
    out = tree_from_graph(G)
    assert out.tree is G



def test_mst_of_noisy_graphs_with_zero_and_negative_weights():
    from skdpgraph.utils import edges_to_csr

    rng = np.random.default_rng(1)
    for t in range(30):
        H = nx.gnp_random_graph(25, 0.3, seed=t)
        E = np.array(H.edges())
        w = np.round(rng.normal(size=len(E)), 1)  # ties, zeros and negatives
        # A noisy graph is canonical but not a graph of distances: no check.
        T = minimum_spanning_tree(edges_to_csr(E[:, 0], E[:, 1], w, 25), check_input=False)
        for (a, b), x in zip(E.tolist(), w.tolist()):
            H[a][b]["weight"] = x
        ref = sum(d["weight"] for *_, d in nx.minimum_spanning_edges(H, data=True))
        assert T.weights.sum() == pytest.approx(ref)
        assert T.edges.shape[0] == 25 - nx.number_connected_components(H)


def test_dense_feature_paths_refuse_past_the_memory_limit():
    # DBMSTClu / PrivateMSTClustering on features and HomogeneousGraph form
    # dense (n, n) arrays: past max_dense_memory they refuse before
    # allocating, with the estimate and how to raise the limit.
    from skdpgraph.cluster import DBMSTClu, PrivateMSTClustering
    from skdpgraph.exceptions import DenseMemoryError
    from skdpgraph.graphs import HomogeneousGraph
    from skdpgraph.utils import config_context, get_config

    X = np.random.default_rng(0).normal(size=(60, 2))
    before = X.copy()
    fits = [lambda: DBMSTClu().fit(X),
            lambda: PrivateMSTClustering(epsilon=1.0, weight_bounds=(0.0, 10.0),
                                         random_state=0).fit(X),
            lambda: HomogeneousGraph().fit_transform(X)]
    with config_context(max_dense_memory=8.0 * 60 * 60):
        assert get_config()["max_dense_memory"] == 8.0 * 60 * 60
        for fit in fits:
            with pytest.raises(DenseMemoryError, match=r"needs about \d.* MiB .*above the limit "
                               r"of .*set_config\(max_dense_memory") as err:
                fit()
            # Both a MemoryError and a ValueError.
            assert isinstance(err.value, MemoryError) and isinstance(err.value, ValueError)
    np.testing.assert_array_equal(X, before)
    for fit in fits:
        fit()


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_compressed_input_with_duplicates_unsorted_indices_and_loops(fmt):
    # The compressed path (no COO round trip) gives what the COO path gives:
    # duplicates summed, self-loops dropped, explicit zeros kept; the
    # caller's matrix is unchanged.
    row = np.array([0, 0, 1, 1, 2, 2, 0, 2, 1, 3])
    col = np.array([2, 1, 0, 2, 0, 1, 2, 2, 3, 1])
    val = np.array([1.0, 0.0, 0.0, 4.0, 1.5, 4.0, 0.5, 9.0, 2.0, 2.0])
    coo = sp.coo_array((val, (row, col)), shape=(4, 4))
    X = coo.asformat(fmt)
    X.has_canonical_format = False
    if fmt == "csr":  # unsorted indices and duplicates kept as stored
        order = np.lexsort((-col, row))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=4))])
        X = sp.csr_array((val[order], col[order], indptr), shape=(4, 4))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    got = check_graph(X)
    want = check_graph(coo)
    assert (got != want).nnz == 0 and got.nnz == want.nnz == 8
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    assert got[0, 1] == 0.0 and got[0, 2] == 1.5 and got.diagonal().sum() == 0
    assert not np.any(np.repeat(np.arange(4), np.diff(got.indptr)) == got.indices)
    np.testing.assert_array_equal(X.data, before[0])
    np.testing.assert_array_equal(X.indices, before[1])
    np.testing.assert_array_equal(X.indptr, before[2])


def test_duplicate_entries_that_sum_past_the_float_maximum_are_refused():
    big = np.finfo(np.float64).max / 1.5
    for make in (sp.coo_array, sp.csr_array):
        A = make((np.array([big, big, big, big, 1.0, 1.0]),
                  (np.array([0, 0, 1, 1, 1, 2]), np.array([1, 1, 0, 0, 2, 1]))), shape=(3, 3))
        with pytest.raises(ValueError, match="NaN or infinite|sum past the largest float"):
            check_graph(A)


def test_dense_adjacency_is_checked_like_a_sparse_one():
    from skdpgraph.utils import check_adjacency

    A = np.zeros((4, 4))
    A[2, 3] = A[3, 2] = 1.0
    A[0, 1] = 1e-20  # a directed edge, however small
    for X in (A, sp.csr_array(A)):
        with pytest.raises(ValueError, match="not symmetric"):
            check_adjacency(X)
    B = np.zeros((3, 3))
    B[0, 1] = B[1, 0] = 5e-324  # a subnormal edge stays an edge
    assert check_adjacency(B).nnz == check_adjacency(sp.csr_array(B)).nnz == 2
    B[1, 2], B[2, 1] = 1.0, 1.0 + 1e-12  # halved: still an edge
    assert check_adjacency(B).nnz == check_adjacency(sp.csr_array(B)).nnz == 4
    with pytest.raises(TypeError, match="non-numeric"):
        check_adjacency([["a", "b"], ["c", "d"]])


def test_similarities_whose_inverse_overflows_become_the_largest_float():
    # 1 / 1e-310 is inf: it reached DBMSTClu's compiled engine, which ended the process;
    # then it was refused, before the charge of a private fit, on a private value.
    import networkx as nx

    from skdpgraph import DBMSTClu

    big = np.finfo(np.float64).max
    G = nx.Graph([("a", "b", {"weight": 3.0}), ("b", "c", {"weight": 1e-310})])
    model = DBMSTClu(metric="precomputed", weight_kind="similarity").fit(G)
    assert model.labels_.tolist() == [0, 0, 1]  # the weakest link is cut
    S = sp.csr_array(np.array([[0.0, 1e-310], [1e-310, 0.0]]))
    assert check_graph(S, weight_kind="similarity").data.tolist() == [big, big]
    dense = check_graph(S.toarray() + np.eye(2), weight_kind="similarity")
    assert dense[0, 1] == dense[1, 0] == big
    assert similarity_to_distance([5e-324, 0.5]).tolist() == [big, 2.0]


def test_similarities_and_the_memory_limit_must_be_real_numbers():
    from skdpgraph.utils import set_config, similarity_to_distance

    for bad in ("ab", np.ones(2) * 1j):
        with pytest.raises(TypeError, match="real numbers"):
            similarity_to_distance(bad)
    with pytest.raises(ValueError, match="max_dense_memory"):
        set_config(max_dense_memory="abc")


def test_bsr_blocks_store_zeros_that_are_not_edges():
    import networkx as nx

    A = from_networkx(nx.karate_club_graph(), weight_kind="similarity")
    B = sp.bsr_array(A.toarray(), blocksize=(2, 2))  # 312 stored values, 156 entries
    assert B.nnz > A.nnz
    G = check_graph(B)
    assert (G != check_graph(A)).nnz == 0 and G.nnz == A.nnz
    assert check_adjacency(B).nnz == A.nnz
    one = sp.bsr_array(A)  # 1 x 1 blocks: a stored zero is an edge, as in every format
    assert check_graph(one).nnz == A.nnz


def test_nodelist_must_name_the_nodes_of_the_graph():
    import networkx as nx

    G = nx.Graph([("x", "y", {"weight": 1.5}), ("y", "z", {"weight": 2.5})])
    G.add_node("iso")
    with pytest.raises(ValueError, match="not a node of G"):
        from_networkx(G, nodelist=["x", "y", "z", "NOT_A_NODE"])
    with pytest.raises(ValueError, match="not a node of G"):
        from_networkx(G, nodelist=["x", "y", "z", None])
    assert from_networkx(G, nodelist=["iso", "x", "y", "z"]).nnz == 4


def test_an_unweighted_adjacency_does_not_read_weights():
    import networkx as nx

    G = nx.karate_club_graph()
    expected = check_adjacency(G)
    for value in ("strong", float("nan"), None, -3.0):
        H = G.copy()
        nx.set_edge_attributes(H, value, "weight")
        assert (check_adjacency(H) != expected).nnz == 0
    with pytest.raises(ValueError):
        check_adjacency(H, weighted=True)


def test_metric_params_that_do_not_fit_the_metric_are_named():
    X = np.random.default_rng(0).random((5, 2))
    with pytest.raises(TypeError, match=r"metric_params=\{'foo': 1\}"):
        check_graph(X, metric="euclidean", metric_params={"foo": 1})


def test_an_unweighted_adjacency_is_read_as_a_pattern():
    # Weights are ignored: an entry stored twice is one edge, and values that differ
    # between the directions of an edge are no asymmetry (they were refused, the message
    # speaking of a "largest weight 2"); a weighted read still refuses them.
    dup = sp.coo_array((np.ones(3), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(3, 3))
    uneven = np.array([[0, 1.0], [2.0, 0]])
    expected = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0.0]])
    np.testing.assert_array_equal(check_adjacency(dup).toarray(), expected)
    for X in (uneven, sp.csr_array(uneven)):
        np.testing.assert_array_equal(check_adjacency(X).toarray(), [[0, 1], [1, 0]])
        with pytest.raises(ValueError, match="not symmetric"):
            check_adjacency(X, weighted=True)
    with pytest.raises(ValueError, match="without its mirror"):
        check_adjacency(sp.csr_array(np.array([[0, 1.0], [0, 0]])))


def test_check_dense_memory_refuses_negative_counts():
    from skdpgraph.utils import check_dense_memory

    with pytest.raises(ValueError, match="counts >= 0"):
        check_dense_memory((-1, -1), 1, "X")
    check_dense_memory((0, 5), 1, "X")


def test_a_dense_adjacency_matrix_read_as_distances_is_warned():
    # networkx.to_numpy_array: its zeros are missing edges, read as edges of distance 0
    # (Les Miserables gave 2 clusters, its graph 20), with no word.
    import networkx as nx

    from skdpgraph import DBMSTClu, config_context
    from skdpgraph.exceptions import WeightMeaningWarning

    A = nx.to_numpy_array(nx.karate_club_graph(), weight=None)
    with pytest.warns(WeightMeaningWarning, match="off-diagonal entries are 0"):
        DBMSTClu(metric="precomputed").fit(A)
    D = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))  # distances: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_graph(D)
        check_graph(A, weight_kind="distance")
        with config_context(data_dependent_warnings=False):
            check_graph(A)


def test_refusals_name_no_entry_or_value():
    # The input may be private: a refusal says what is wrong and how to find it, not where.
    A = np.zeros((40, 40))
    A[17, 29], A[29, 17] = 0.123456, 0.654321
    B = A.copy()
    B[29, 17] = 0.0
    C = A.copy()
    C[29, 17] = A[17, 29]
    C[3, 11] = C[11, 3] = -7.25
    cases = [(check_graph, A), (check_graph, sp.csr_array(A)), (check_graph, sp.csr_array(B)),
             (check_adjacency, B), (check_adjacency, sp.csr_array(B)), (check_adjacency, C),
             (check_adjacency, sp.csr_array(C)), (check_graph, C)]
    for check, X in cases:
        with pytest.raises(ValueError) as info:
            check(X)
        message = str(info.value)
        for private in ("17", "29", "0.123", "0.654", "0.531", "7.25", "-7", " 3,", "11"):
            assert private not in message, (message, private)
    G = nx.Graph()
    G.add_edge("alice", "bob", weight="heavy")
    secret = np.array([[0, "alice@x"], ["alice@x", 0]], dtype=object)
    for check, X in ((check_graph, G), (check_graph, secret), (check_adjacency, secret)):
        with pytest.raises((TypeError, ValueError)) as info:
            check(X)
        for private in ("alice", "bob", "heavy"):
            assert private not in str(info.value), str(info.value)


@pytest.mark.parametrize("n_edges", [300, 60_000])  # below and above 2^16 stored entries
def test_symmetry_is_checked_and_averaged_the_same_at_every_size(n_edges):
    rng = np.random.default_rng(n_edges)
    n = n_edges // 3
    u, v = rng.integers(0, n, size=(2, 2 * n_edges))
    key = np.unique(np.minimum(u, v) * n + np.maximum(u, v))
    key = rng.permutation(key[key // n != key % n])[:n_edges]
    u, v = key // n, key % n
    w = rng.random(n_edges) + 0.5
    w[:3] = -0.0  # a zero stored with its sign: +0.0 once checked
    row, col = np.concatenate([u, v]), np.concatenate([v, u])
    A = sp.csr_array((np.concatenate([w, w]), (row, col)), shape=(n, n))
    G = check_graph(A)
    assert not np.signbit(G.data).any() and (G != A).nnz == 0 and G.nnz == A.nnz

    # Within the tolerance: each pair becomes 0.5 a + 0.5 b, the same in both directions.
    near = np.concatenate([w, w * (1 + rng.choice([0.0, 3e-9], size=n_edges))])
    B = sp.csr_array((near, (row, col)), shape=(n, n))
    before = B.data.copy()
    G = check_graph(B)
    np.testing.assert_array_equal(B.data, before)  # the caller's matrix is untouched
    expected = (0.5 * B + 0.5 * B.T).tocsr()
    assert (G != G.T).nnz == 0 and abs(G - expected).max() == 0

    big = near.copy()  # near the largest float, halved before the sum: no overflow
    big[3], big[n_edges + 3] = np.finfo(np.float64).max, np.finfo(np.float64).max * (1 - 1e-12)
    G = check_graph(sp.csr_array((big, (row, col)), shape=(n, n)))
    assert G[u[3], v[3]] == G[v[3], u[3]] == 0.5 * big[3] + 0.5 * big[n_edges + 3] < np.inf

    far = near.copy()
    far[-1] *= 1 + 1e-6
    with pytest.raises(ValueError, match="not symmetric.*differ"):
        check_graph(sp.csr_array((far, (row, col)), shape=(n, n)))
    # An entry without its mirror, above or below the diagonal, in the first, a middle or
    # the last row.
    order = np.lexsort((col, row))
    for drop in (order[0], order[len(order) // 2], order[-1], n_edges, n_edges - 1):
        keep = np.arange(row.size) != drop
        C = sp.csr_array((np.concatenate([w, w])[keep], (row[keep], col[keep])), shape=(n, n))
        with pytest.raises(ValueError, match="without its mirror"):
            check_graph(C)
    # Every row with as many entries below the diagonal as mirrors point to it, but the
    # pairs crossed: (0, 2), (1, 3) above and (2, 1), (3, 0) below, on four more nodes.
    cross_row, cross_col = n + np.array([0, 1, 2, 3]), n + np.array([2, 3, 1, 0])
    crossed = sp.csr_array((np.concatenate([w, w, np.ones(4)]),
                            (np.append(row, cross_row), np.append(col, cross_col))),
                           shape=(n + 4, n + 4))
    with pytest.raises(ValueError, match="without its mirror"):
        check_graph(crossed)
    extra = sp.csr_array((np.concatenate([w, w, [1.0]]),
                          (np.append(row, n - 1), np.append(col, 0))), shape=(n, n))
    if extra.nnz > A.nnz:  # (n - 1, 0) was not an edge
        with pytest.raises(ValueError, match="without its mirror"):
            check_graph(extra)


def _secret_inputs():
    secret = 0.123456789
    yield "string", np.array([[0.0, 1.0], [2.0, "SECRET987"]], dtype=object)
    yield "complex", np.array([[0.0, secret + 1j], [secret + 1j, 0.0]])
    yield "1-D", np.array([secret, 0.5, 0.25])


@pytest.mark.parametrize("kind, X", list(_secret_inputs()), ids=lambda x: str(x)[:8])
def test_refusals_quote_no_entry_of_the_input(kind, X):
    from skdpgraph import DBMSTClu
    from skdpgraph.graphs import (EpsilonGraph, HomogeneousGraph, SimilarityToDistance,
                                  StructuralDistance)

    calls = [EpsilonGraph().fit, HomogeneousGraph(0.1, 0.5).fit, SimilarityToDistance().fit,
             StructuralDistance().fit, check_adjacency, lambda A: check_graph(A, "euclidean"),
             DBMSTClu().fit, lambda A: EpsilonGraph().fit([[0.0], [1.0]]).transform(A)]
    for call in calls:
        with pytest.raises((TypeError, ValueError)) as info:
            call(X)
        shown = "".join(map(str, (info.value, info.value.__cause__, info.value.__context__
                                  if not info.value.__suppress_context__ else None)))
        assert "SECRET" not in shown and "12345" not in shown, (call, shown)


def test_edge_lists_refuse_weights_that_are_not_real_numbers_by_name():
    from skdpgraph.utils import edges_to_csr

    for w, error in ((["SECRET987"], TypeError), (np.array(["7"]), TypeError),
                     (np.array([2 + 3j]), ValueError),
                     (np.array(["2024-01-01"], dtype="datetime64[D]"), TypeError),
                     (np.array(["SECRET987"], dtype=object), TypeError),
                     (np.array([np.datetime64("2020-01-01"), 1.0], dtype=object), TypeError)):
        with pytest.raises(error, match="edges_to_csr: w") as info:
            edges_to_csr(np.arange(len(w)), np.arange(1, len(w) + 1), w, len(w) + 1)
        assert "SECRET" not in str(info.value)
    G = edges_to_csr([0], [1], np.array([0.5], dtype=object), 2)  # numbers in objects
    assert G[0, 1] == 0.5
    with pytest.raises(ValueError, match="NaN or infinite weights\\.$"):
        edges_to_csr([0, 1], [1, 2], [np.nan, 1.0], 3)


def test_networkx_weights_that_float_would_read_or_truncate_are_refused():
    for value in (np.complex128(2 + 3j), np.datetime64("2020-01-01"), "7", b"7"):
        G = nx.Graph()
        G.add_edge(0, 1, weight=value)
        with pytest.raises(TypeError, match="non-numeric 'weight'"):
            from_networkx(G)
    G = nx.path_graph(3)
    assert from_networkx(G).nnz == 4
    with pytest.raises(ValueError, match="conversion must be one of"):
        from_networkx(G, conversion="foo")


def test_a_dense_distance_matrix_is_checked_within_one_copy_of_it():
    # max |D - D.T| was taken on two (n, n) temporaries: 3x the input at the peak.
    import tracemalloc

    from skdpgraph.graphs import EpsilonGraph

    rng = np.random.default_rng(0)
    D = rng.uniform(0.01, 1.0, size=(1500, 1500))
    D = np.maximum(D, D.T)
    np.fill_diagonal(D, 0.0)
    for call in (check_graph, EpsilonGraph(radius=0.05, metric="precomputed").fit_transform):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(D[:50, :50])  # compiled loops loaded before: their memory is not the input's
        tracemalloc.start()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(D)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1.5 * D.nbytes, (call, peak / D.nbytes)
