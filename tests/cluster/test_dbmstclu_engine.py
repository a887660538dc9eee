"""The compiled DBMSTClu engine against a slow float reference of the same rules.

``_dbmstclu_float_reference`` evaluates every cut of every cluster by breadth-first
searches, with the library's float expressions, tie rule and tolerance; cuts, labels
and the index path must be identical, ties included. Trees of every shape the engine
treats differently (deep paths, wide stars, caterpillars, brooms, spiders, binary and
random trees), weights with many exact ties, zeros, values clipped at bounds, and
forests with isolated nodes and two-node components.
"""

import heapq

import numpy as np
import pytest
from _dbmstclu_float_reference import float_reference_dbmstclu
from _dbmstclu_reference import reference_dbmstclu

from skdpgraph import dbmstclu
from skdpgraph.tree import make_spanning_tree

SHAPES = ["path", "star", "caterpillar", "broom", "spider", "binary", "recursive", "prufer"]
STYLES = ["continuous", "monotone", "ints", "zero_ints", "clipped", "released", "grid",
          "zeros"]


def _parents(rng, n, shape):
    """Edges (parent, child) of a tree of ``n`` nodes of the given shape."""
    c = np.arange(1, n)
    if shape == "path":
        return c - 1, c
    if shape == "star":
        return np.zeros(n - 1, dtype=np.int64), c
    if shape == "caterpillar":
        spine = max(1, n // 3)
        return np.where(c < spine, c - 1, rng.integers(0, spine, n - 1)), c
    if shape == "broom":
        handle = max(1, n // 2)
        return np.where(c < handle, c - 1, handle - 1), c
    if shape == "spider":
        legs = int(rng.integers(2, 6))
        return np.where(c <= legs, 0, c - legs), c
    if shape == "binary":
        return (c - 1) // 2, c
    if shape == "recursive":
        return (rng.random(n - 1) * c).astype(np.int64), c
    # uniform random labelled tree, from a Pruefer sequence
    code = rng.integers(0, n, max(n - 2, 0)).tolist()
    degree = [1] * n
    for x in code:
        degree[x] += 1
    leaves = [a for a in range(n) if degree[a] == 1]
    heapq.heapify(leaves)
    u, v = [], []
    for x in code:
        leaf = heapq.heappop(leaves)
        u.append(leaf)
        v.append(x)
        degree[x] -= 1
        if degree[x] == 1:
            heapq.heappush(leaves, x)
    u.append(heapq.heappop(leaves))
    v.append(heapq.heappop(leaves))
    return np.array(u, dtype=np.int64), np.array(v, dtype=np.int64)


def _weights(rng, child, style):
    m = child.size
    if style == "continuous":
        return rng.random(m)
    if style == "monotone":  # growing away from node 0: the largest edge cut at each step
        return np.sort(rng.random(m))[np.argsort(np.argsort(child))]
    if style == "ints":
        return rng.integers(1, 5, m).astype(float)
    if style == "zero_ints":
        return rng.integers(0, 3, m).astype(float)
    if style == "clipped":
        return np.clip(rng.random(m) + rng.laplace(scale=0.4, size=m), 0.05, 1.0)
    if style == "released":  # about 40% at each clipping bound, the lower one tiny
        return np.clip(rng.laplace(0.5, 3.0, size=m), 1e-300, 1.0)
    if style == "grid":
        return np.round(np.clip(rng.random(m) + rng.laplace(scale=0.3, size=m), 0, 1) * 4) / 4
    return np.zeros(m)


def random_forest(seed, n_max):
    """(n, edges, weights) of a random forest; the shape and weight style follow the seed."""
    rng = np.random.default_rng([2024, seed])
    shape = SHAPES[seed % len(SHAPES)]
    style = STYLES[(seed // len(SHAPES)) % len(STYLES)]
    n = int(rng.integers(2, n_max + 1))
    u, v = _parents(rng, n, shape)
    w = _weights(rng, np.maximum(u, v), style)
    if seed % 3 == 0:  # a forest: some edges dropped, isolated nodes and two-node components
        keep = rng.random(u.size) < 0.8
        extra, pairs = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        first = n + extra + 2 * np.arange(pairs)
        u, v = np.concatenate([u[keep], first]), np.concatenate([v[keep], first + 1])
        w = np.concatenate([w[keep], rng.random(pairs)])
        n += extra + 2 * pairs
    perm = rng.permutation(n)  # node numbers unrelated to the shape
    a, b = perm[u], perm[v]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((hi, lo))
    return n, np.column_stack([lo[order], hi[order]]), w[order]


def _check_against_reference(n, edges, w):
    res = dbmstclu(make_spanning_tree(edges[:, 0], edges[:, 1], w, n))
    order, path, labels = float_reference_dbmstclu(n, edges.tolist(), w.tolist())
    assert res.labels.tolist() == labels
    assert res.cut_edges.tolist() == edges[order].tolist()
    expected = np.clip(np.array(path, dtype=np.float64) / n, -1.0, 1.0)
    assert np.array_equal(res.dbcvi_path, expected)  # bit for bit
    return len(order)


@pytest.mark.parametrize("block", range(8))
def test_identical_to_float_reference_on_small_forests(block):
    # 1,600 forests of 2 to 14 nodes: every shape with every weight style.
    cuts = sum(_check_against_reference(*random_forest(seed, 14))
               for seed in range(200 * block, 200 * block + 200))
    assert cuts > 200


@pytest.mark.parametrize("block", range(8))
def test_identical_to_float_reference_on_larger_forests(block):
    # Deeper frames, chains and bounds stored again: 400 forests of up to 60 nodes.
    for seed in range(10_000 + 50 * block, 10_000 + 50 * block + 50):
        _check_against_reference(*random_forest(seed, 60))


def test_float_reference_agrees_with_exact_reference():
    # The float reference itself: the same cuts as the exact-rational Algorithm 1 on trees.
    for seed in range(120):
        rng = np.random.default_rng([7, seed])
        n = int(rng.integers(2, 12))
        u, v = _parents(rng, n, SHAPES[seed % len(SHAPES)])
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        order = np.lexsort((hi, lo))
        edges = np.column_stack([lo[order], hi[order]])
        w = _weights(rng, hi[order], STYLES[seed % len(STYLES)])
        exact_labels, exact_order, _ = reference_dbmstclu(n, [tuple(e) for e in edges.tolist()],
                                                          w.tolist())
        order, _, labels = float_reference_dbmstclu(n, edges.tolist(), w.tolist())
        assert order == exact_order and labels == exact_labels


@pytest.mark.parametrize("shape", ["path", "star", "binary", "spider", "broom", "caterpillar"])
def test_largest_edge_cut_at_every_step(shape):
    # Weights growing away from node 0: every cut takes the cluster's largest edge, which
    # changes its dispersion at each step (the quadratic case of the numpy engine).
    rng = np.random.default_rng(3)
    n = 40
    u, v = _parents(rng, n, shape)
    w = v.astype(float)
    order = np.lexsort((v, u))
    edges = np.column_stack([u[order], v[order]])
    assert _check_against_reference(n, edges, w[order]) == n - 1


def test_two_node_components_and_isolated_nodes():
    n = 2 * 500 + 7  # 500 two-node components, 7 isolated nodes
    u = np.arange(0, 1000, 2)
    res = dbmstclu(make_spanning_tree(u, u + 1, np.random.default_rng(0).random(500), n))
    assert res.n_clusters == n
    assert res.cut_edges[:, 0].tolist() == u.tolist()
    assert res.dbcvi == 1.0 and res.dbcvi_path[-1] == 1.0


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("seed", range(2))
def test_many_clusters_waiting_for_the_greedy(seed, tied):
    # A star of 40 two-node arms on heavy edges: every arm is cut off before any pair is
    # split (tiny gains, exactly tied with ``tied``), so 40 clusters wait for the greedy at
    # once (the replay scans a few and keeps more in its segment tree).
    rng = np.random.default_rng([43, seed])
    pairs = 40
    a = 1 + 2 * np.arange(pairs)
    u, v = np.concatenate([np.zeros(pairs, dtype=np.int64), a]), np.concatenate([a, a + 1])
    inner = np.full(pairs, 0.05) if tied else rng.random(pairs) * 0.1
    w = np.concatenate([10.0 + rng.random(pairs), inner])
    order = np.lexsort((v, u))
    n_cuts = _check_against_reference(2 * pairs + 1, np.column_stack([u[order], v[order]]),
                                      w[order])
    assert n_cuts == 2 * pairs


@pytest.mark.slow
def test_forest_beyond_the_caches_same_as_its_parts():
    # A forest of more than 2**19 nodes is numbered in breadth-first order before the
    # engine runs: a small tree at nodes 0..199 (its edges first, its component first)
    # must get the same cuts and clusters as alone, next to a long path.
    rng = np.random.default_rng(7)
    small_u, small_v = _parents(rng, 200, "prufer")
    small_w = np.round(rng.random(199), 1)  # ties: the edge numbers decide
    n_path = (1 << 19) + 5
    path = np.arange(200, 200 + n_path - 1)
    u = np.concatenate([small_u, path])
    v = np.concatenate([small_v, path + 1])
    w = np.concatenate([small_w, rng.random(n_path - 1)])
    alone = dbmstclu(make_spanning_tree(small_u, small_v, small_w, 200))
    forest = dbmstclu(make_spanning_tree(u, v, w, 200 + n_path))
    k = alone.cut_edges.shape[0]
    assert forest.cut_edges[:k].tolist() == alone.cut_edges.tolist()
    assert forest.labels[:200].tolist() == alone.labels.tolist()
    assert forest.labels[200:].min() == alone.labels.max() + 1
