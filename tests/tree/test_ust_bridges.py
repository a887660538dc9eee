"""The weighted UST sampler on graphs with bridges.

Every spanning forest holds every bridge, and the sampler sets them apart
before any engine runs. These tests check that the law stays the exact
UST on graphs with bridges, that trees of any size come back whole, and,
against ``networkx.bridges``, that exactly the bridges are set apart.

Statistical tests: each chi-square test below uses a fixed seed and rejects
at p < 3e-8, so each fails by chance with probability below 3e-8; there are
23 such tests in this file, so the false-failure rate is below 1e-6. With
two to three thousand draws, a tree whose probability is off by a tenth of
itself moves the statistic by tens when the tree is drawn a few hundred
times.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from _spanning_tree_reference import chi_square_pvalue, exponential_tree_log_law, spanning_trees

from skdpgraph.tree import exponential_tree, sample_weighted_ust
from skdpgraph.utils import edges_to_csr

P_REJECT = 3e-8


def _two_cycles_and_a_path():
    # A triangle {0, 1, 2} and a square with a diagonal {5, 6, 7, 8}, joined
    # by the path 2-3-4-5: 3 x 8 = 24 trees, each with the three bridges.
    u = np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 5])
    v = np.array([1, 2, 2, 3, 4, 5, 6, 7, 8, 5, 7])
    return u, v, 9


def _cycle_with_pendant_trees():
    # A 6-cycle with the chord 0-3 (15 trees), a tree of three edges hanging
    # from node 1 and an edge hanging from node 4; the edges in shuffled
    # order, some given as (v, u).
    u = np.array([0, 1, 2, 3, 4, 5, 0, 1, 6, 6, 4])
    v = np.array([1, 2, 3, 4, 5, 0, 3, 6, 7, 8, 9])
    order = np.random.default_rng(2).permutation(u.size)
    u, v = u[order], v[order]
    u[::3], v[::3] = v[::3].copy(), u[::3].copy()
    return u, v, 10


def _forest():
    # A triangle with a pendant edge, K4 with a pendant path of two edges,
    # a lone edge and two isolated nodes (12, 13): 3 x 16 = 48 forests.
    u = np.array([0, 0, 1, 2, 4, 4, 4, 5, 5, 6, 7, 8, 10])
    v = np.array([1, 2, 2, 3, 5, 6, 7, 6, 7, 7, 8, 9, 11])
    return u, v, 14


def _forest_with_nodes_shuffled():
    # The forest with its nodes renumbered at random: the isolated nodes and the
    # lone edge lie between the numbers of the other components.
    u, v, n = _forest()
    name = np.random.default_rng(5).permutation(n)
    return name[u], name[v], n


GRAPHS = {"two cycles and a path": _two_cycles_and_a_path,
          "cycle with pendant trees": _cycle_with_pendant_trees,
          "forest": _forest,
          "forest, nodes shuffled": _forest_with_nodes_shuffled}


def _counts(u, v, n, logc, trees, n_samples, seed, **kwargs):
    rng = np.random.default_rng(seed)
    index = {t: i for i, t in enumerate(trees)}
    counts = np.zeros(len(trees))
    for _ in range(n_samples):
        mask = sample_weighted_ust(u, v, logc, n, rng, **kwargs)
        tree = tuple(np.flatnonzero(mask).tolist())
        assert tree in index, f"not a spanning forest: {tree}"
        counts[index[tree]] += 1
    return counts


def _check_law(u, v, n, w, c, n_samples, seed, **kwargs):
    trees = spanning_trees(u, v, n)
    counts = _counts(u, v, n, -c * w, trees, n_samples, seed, **kwargs)
    logp = exponential_tree_log_law(trees, w, c)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


# Each engine, and the reductions on and off (the bridges are set apart in
# every case): 16 chi-square tests.
@pytest.mark.slow
@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("kwargs", [
    dict(), dict(reduce=False), dict(method="cycle_popping", reduce=False, max_work=1e12),
    dict(method="elimination", reduce=False),
], ids=["auto", "auto-exact", "cycle_popping", "elimination"])
def test_law_is_exact_with_bridges(graph, kwargs):
    u, v, n = GRAPHS[graph]()
    w = np.random.default_rng(len(graph)).random(u.size)
    _check_law(u, v, n, w, 3.0, 2000, 7, **kwargs)


# Cycle popping out of budget on every part left once the bridges are set
# apart: the elimination takes over, or (max_elimination_nodes=1) the traps
# are eliminated and cycle popping restarts. 6 chi-square tests.
@pytest.mark.slow
@pytest.mark.parametrize("max_elimination_nodes", [1, 3000])
@pytest.mark.parametrize("graph", ["two cycles and a path", "forest", "forest, nodes shuffled"])
def test_law_is_exact_with_bridges_and_fallbacks(graph, max_elimination_nodes):
    u, v, n = GRAPHS[graph]()
    w = np.random.default_rng(5).random(u.size)
    _check_law(u, v, n, w, 6.0, 2000, 8, method="cycle_popping", max_work=3.0,
               max_elimination_nodes=max_elimination_nodes)


@pytest.mark.slow
def test_law_is_exact_when_the_gap_split_leaves_bridges():
    # Two light triangles, each with a light pendant edge, joined by two heavy
    # edges (0-4, 1-5) and a heavy pendant edge 6-8: c * gap ~ 190 triggers
    # the gap split. The light edges' graph then has bridges (2-3, 6-7), and
    # so has the graph of its components (the pendant one); the heavy edge
    # between the triangles is picked in proportion to its conductance.
    u = np.array([0, 0, 1, 2, 4, 4, 5, 6, 0, 1, 6])
    v = np.array([1, 2, 2, 3, 5, 6, 6, 7, 4, 5, 8])
    w = np.array([0.1, 0.2, 0.3, 0.25, 0.15, 0.1, 0.3, 0.2, 10.0, 10.05, 10.1])
    _check_law(u, v, 9, w, 20.0, 2000, 6)


def _random_graph(rng):
    """A small random graph with bridges: a sparse random graph, a random
    tree, or several of them side by side; its edges in random order."""
    kind = rng.integers(3)
    n = int(rng.integers(2, 16))
    seed = int(rng.integers(2**31))
    if kind == 0:
        G = nx.gnm_random_graph(n, int(rng.integers(0, 2 * n)), seed=seed)
    elif kind == 1:
        G = nx.random_labeled_tree(n, seed=seed)
    else:
        G = nx.disjoint_union(nx.gnm_random_graph(n, n + 2, seed=seed),
                              nx.cycle_graph(int(rng.integers(3, 6))))
        G.add_edge(0, n)  # a bridge between a random graph and a cycle
        G = nx.disjoint_union(G, nx.random_labeled_tree(4, seed=seed))
    edges = np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2)
    edges = edges[rng.permutation(len(edges))]
    flip = rng.random(len(edges)) < 0.5
    edges[flip] = edges[flip][:, ::-1]
    bridges = {frozenset(e) for e in nx.bridges(G)}
    is_bridge = np.array([frozenset(e) in bridges for e in edges.tolist()], dtype=bool)
    return edges[:, 0].copy(), edges[:, 1].copy(), G.number_of_nodes(), is_bridge


@pytest.mark.parametrize("seed", range(30))
def test_exactly_the_bridges_are_set_apart(seed):
    rng = np.random.default_rng(seed)
    u, v, n, is_bridge = _random_graph(rng)
    n_components = sp.csgraph.connected_components(
        sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n)), directed=False)[0]
    # An edge taken for a bridge would be in every draw. A non-bridge of
    # conductance exp(-10**4) relative to the others is in the exact UST with
    # probability below n exp(-10**4): it must never be drawn.
    for e in np.flatnonzero(~is_bridge):
        logc = rng.normal(size=u.size)
        logc[e] = -1e4
        mask = sample_weighted_ust(u, v, logc, n, rng, reduce=False)
        assert not mask[e]
        assert mask[is_bridge].all() and mask.sum() == n - n_components
    # The bridges are set apart before anything is drawn, so with the same
    # seed and budget the graph and the graph without networkx's bridges
    # give the same draw on the other edges: a bridge left in (or a
    # non-bridge set apart) would change the graph the engines see.
    logc = rng.normal(size=u.size)
    for draw in range(3):
        mask = sample_weighted_ust(u, v, logc, n, np.random.default_rng(draw), reduce=False,
                                   max_work=1e9)
        rest = sample_weighted_ust(u[~is_bridge], v[~is_bridge], logc[~is_bridge], n,
                                   np.random.default_rng(draw), reduce=False, max_work=1e9)
        np.testing.assert_array_equal(mask[~is_bridge], rest)
        assert mask[is_bridge].all()


def _large_trees():
    n = 200_000
    rng = np.random.default_rng(0)
    path = np.arange(n - 1), np.arange(1, n)
    star = np.zeros(n - 1, dtype=np.int64), np.arange(1, n)
    child = np.arange(1, n)
    random_tree = (rng.random(n - 1) * child).astype(np.int64), child  # a random parent each
    return n, {"path": path, "star": star, "random tree": random_tree}


@pytest.mark.parametrize("reduce", [True, False])
def test_large_trees_come_back_whole(reduce):
    # A tree is its only spanning tree: every edge is a bridge, and no walk
    # is needed (Wilson's walks took quadratic time on a path).
    n, trees = _large_trees()
    rng = np.random.default_rng(1)
    for u, v in trees.values():
        logc = 3.0 * rng.normal(size=u.size)
        assert sample_weighted_ust(u, v, logc, n, rng, reduce=reduce).all()
        assert sample_weighted_ust(v, u, logc, n, rng, method="cycle_popping",
                                   reduce=reduce).all()
    u, v = trees["path"]
    T = exponential_tree(edges_to_csr(u, v, rng.random(u.size), n), 1.0, sensitivity=0.01,
                         random_state=0)
    np.testing.assert_array_equal(T.edges, np.column_stack([u, v]))


def test_large_chain_of_cycles_keeps_every_bridge():
    # 20,000 triangles in a row, each joined to the next by a bridge: a
    # spanning tree holds the 19,999 bridges and two edges of each triangle.
    k = 20_000
    base = 3 * np.arange(k)
    u = np.r_[base, base, base + 1, base[:-1] + 2]
    v = np.r_[base + 1, base + 2, base + 2, base[1:]]
    logc = np.random.default_rng(3).normal(size=u.size)
    mask = sample_weighted_ust(u, v, logc, 3 * k, np.random.default_rng(4))
    assert mask[3 * k:].all()
    assert mask.sum() == 3 * k - 1
    tree = sp.coo_array((np.ones(int(mask.sum())), (u[mask], v[mask])), shape=(3 * k, 3 * k))
    assert sp.csgraph.connected_components(tree, directed=False)[0] == 1
