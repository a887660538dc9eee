"""Sparse-graph helpers of skdpgraph.utils against scipy."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from skdpgraph.utils import edges_to_csr, n_components


def test_n_components_of_sparse_graphs():
    rng = np.random.default_rng(0)
    for n in (1, 2, 50, 3000):
        m = int(rng.integers(0, 2 * n))
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = u != v
        key = np.unique(np.minimum(u[keep], v[keep]) * n + np.maximum(u[keep], v[keep]))
        G = edges_to_csr(key // n, key % n, np.ones(key.size), n)
        expected = sp.csgraph.connected_components(G, directed=False)[0]
        assert n_components(G) == expected


def _kruskal_by_key_then_index(u, v, key, n):
    """Brute-force Kruskal over edges ordered by (key, edge index)."""
    comp = list(range(n))

    def find(a):
        while comp[a] != a:
            a = comp[a]
        return a

    chosen = []
    for i in sorted(range(len(key)), key=lambda i: (key[i], i)):
        a, b = find(int(u[i])), find(int(v[i]))
        if a != b:
            comp[a] = b
            chosen.append(i)
    return sorted(chosen)


@pytest.mark.parametrize("seed", range(40))
def test_mst_edge_indices_breaks_ties_by_edge_index(seed):
    # Keys with zeros, negatives and many ties (or all positive): the forest is
    # the one of Kruskal's algorithm over (key, edge index), whatever the keys.
    from skdpgraph.utils import mst_edge_indices

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    pairs = np.unique(rng.integers(0, n * n, size=4 * n))
    u, v = pairs // n, pairs % n
    keep = u < v
    u, v = u[keep], v[keep]
    key = rng.integers(-3, 4, size=u.size).astype(float) * 0.5
    if seed % 4 == 0:
        key = np.abs(key) + 1.0
    got = mst_edge_indices(u, v, key, n)
    assert got.tolist() == _kruskal_by_key_then_index(u, v, key, n)


@pytest.mark.parametrize("seed", range(24))
def test_mst_edge_indices_on_dense_graphs_is_kruskals_forest(seed):
    # Many more edges than nodes (the lightest are taken first, the rest
    # filtered), in shuffled order, with ties, zeros and negatives, over one
    # or several components.
    from skdpgraph.utils import mst_edge_indices

    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(5, 90))
    iu, iv = np.triu_indices(n, 1)
    keep = rng.random(iu.size) < [1.0, 0.6, 0.3][seed % 3]
    if seed % 2:  # two components: no edge between the halves
        keep &= (iu < n // 2) == (iv < n // 2)
    u, v = iu[keep], iv[keep]
    shuffle = rng.permutation(u.size)
    u, v = u[shuffle], v[shuffle]
    key = [rng.random(u.size), rng.integers(-2, 3, u.size) * 0.5, np.zeros(u.size),
           rng.integers(0, 40, u.size).astype(float)][seed % 4]
    got = mst_edge_indices(u, v, key, n)
    assert got.tolist() == _kruskal_by_key_then_index(u, v, key, n)


@pytest.mark.parametrize("seed", range(5))
def test_mst_edge_indices_matches_scipy_total(seed):
    # Distinct positive keys on a sparse graph with several components: the
    # unique minimum spanning forest, the one scipy finds.
    from skdpgraph.utils import mst_edge_indices

    rng = np.random.default_rng(100 + seed)
    n = 2000
    pairs = np.unique(rng.integers(0, n * n, size=3 * n))
    u, v = pairs // n, pairs % n
    keep = u < v
    u, v = u[keep], v[keep]
    key = rng.permutation(u.size) + 1.0
    got = mst_edge_indices(u, v, key, n)
    T = sp.csgraph.minimum_spanning_tree(sp.csr_array((key, (u, v)), shape=(n, n))).tocoo()
    expected = np.sort(np.searchsorted(u * n + v, T.row.astype(np.int64) * n + T.col))
    assert got.tolist() == expected.tolist()


def test_mst_edge_indices_leaves_its_input_alone():
    from skdpgraph.utils import mst_edge_indices

    u, v = np.array([0, 1, 0]), np.array([1, 2, 2])
    key = np.array([2.0, 2.0, -1.0])
    copies = [a.copy() for a in (u, v, key)]
    assert mst_edge_indices(u, v, key, 3).tolist() == [0, 2]
    for a, b in zip((u, v, key), copies):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("u, v, match", [
    ([0, 5], [1, 2], "0..4"),      # an endpoint past the last node
    ([0, -1], [1, 2], "0..4"),     # a negative endpoint
    ([0, 1], [1], "same length"),  # endpoints of different lengths
])
def test_edge_list_helpers_refuse_bad_endpoints(u, v, match):
    # The compiled loops index with the endpoints unchecked: they are checked first.
    from skdpgraph.utils import mst_edge_indices

    key = np.ones(len(u))
    with pytest.raises(ValueError, match=match):
        mst_edge_indices(np.array(u), np.array(v), key, 5)
    with pytest.raises(ValueError, match=match):
        edges_to_csr(np.array(u), np.array(v), key, 5)


@pytest.mark.parametrize("u, v, w, error, match", [
    # both directions of one edge: its weight was summed, twice the weight a release
    # was calibrated for
    ([0, 1, 1], [1, 0, 2], [0.5, 0.5, 1.0], ValueError, "listed more than once"),
    ([0, 2, 0], [1, 1, 1], [0.5, 1.0, 0.5], ValueError, "listed more than once"),
    ([0, 1], [0, 2], [0.5, 0.7], ValueError, "join a node to itself"),
    ([0.0, 1.5], [1.0, 2.0], [0.5, 0.7], ValueError, "fractional"),  # was edge (1, 2)
    ([0.0, np.inf], [1.0, 2.0], [0.5, 0.7], ValueError, "non-finite"),
    (["0", "1"], ["1", "2"], [0.5, 0.7], TypeError, "node numbers"),
    ([0, 1], [1, 2], [0.5, np.nan], ValueError, "NaN or infinite"),
])
def test_edges_to_csr_refuses_what_it_would_misread(u, v, w, error, match):
    args = [np.array(u), np.array(v), np.array(w)]
    copies = [a.copy() for a in args]
    with pytest.raises(error, match=match):
        edges_to_csr(*args, 3)
    for a, b in zip(args, copies):
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def test_edges_to_csr_takes_whole_float_node_numbers_and_negative_weights():
    G = edges_to_csr(np.array([1.0, 0.0]), np.array([2.0, 1.0]), [-0.5, 0.7], 3)
    assert G.toarray().tolist() == [[0.0, 0.7, 0.0], [0.7, 0.0, -0.5], [0.0, -0.5, 0.0]]


def test_edge_list_helpers_refuse_a_wrong_number_of_weights():
    from skdpgraph.utils import mst_edge_indices

    u, v = np.array([0, 1]), np.array([1, 2])
    with pytest.raises(ValueError, match="one value per edge"):
        mst_edge_indices(u, v, np.ones(3), 3)
    with pytest.raises(ValueError, match="one weight per edge"):
        edges_to_csr(u, v, np.ones(3), 3)


def _node_count_calls(n):
    from skdpgraph.tree import make_spanning_tree, root_forest, sample_weighted_ust

    u, v, w = np.array([0]), np.array([1]), np.array([1.0])
    return {"edges_to_csr": lambda: edges_to_csr(u, v, w, n),
            "root_forest": lambda: root_forest(np.array([[0, 1]]), w, n),
            "make_spanning_tree": lambda: make_spanning_tree(u, v, w, n),
            "sample_weighted_ust": lambda: sample_weighted_ust(u, v, w, n, 0)}


@pytest.mark.parametrize("name", ["edges_to_csr", "root_forest", "make_spanning_tree",
                                  "sample_weighted_ust"])
@pytest.mark.parametrize("n", [2**32, 2**62])
def test_node_counts_whose_pair_keys_overflow_are_refused(name, n):
    with pytest.raises(ValueError, match=f"{name}: at most 3037000499 nodes"):
        _node_count_calls(n)[name]()


_NODE_MEMORY_SCRIPT = """
import resource, sys
sys.path.insert(0, {tests!r})
from test_sparse import _node_count_calls
from skdpgraph.exceptions import WorkMemoryError
calls = _node_count_calls(200_000_000)  # 3.2 GB of node offsets at least
resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, resource.RLIM_INFINITY))
for name, call in calls.items():
    try:
        call()
    except WorkMemoryError as exc:
        assert f"{{name}} on 200000000 nodes needs at least" in str(exc), exc
        assert "charged" not in str(exc), exc
        print("refused")
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit of Linux")
def test_node_counts_past_memory_are_refused_before_allocating():
    script = _NODE_MEMORY_SCRIPT.format(tests=str(Path(__file__).parent))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["refused"] * 4


def test_graph_edges_reads_duplicates_as_scipy_does_and_names_what_it_takes():
    from skdpgraph.utils import graph_edges

    dup = sp.csr_array((np.full(4, 0.5), np.array([1, 1, 0, 0]), np.array([0, 2, 4])),
                       shape=(2, 2))
    before = dup.data.copy()
    u, v, w = graph_edges(dup)
    assert (u.tolist(), v.tolist(), w.tolist()) == ([0], [1], [1.0])
    np.testing.assert_array_equal(dup.data, before)
    with pytest.raises(TypeError, match="canonical graph.*got list"):
        graph_edges([[0, 1.0], [1.0, 0]])
