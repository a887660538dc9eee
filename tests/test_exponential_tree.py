"""Tests of the exponential mechanism over spanning trees and its UST samplers.

Statistical tests: every chi-square test below uses a fixed seed and rejects
at p < 5e-8, so each fails by chance with probability below 5e-8; there are
16 such tests in this file, so the false-failure rate is below 1e-6. The
sample sizes (two to three thousand) give the tests power against any real
error: a calibration off by a factor 2 moves the chi-square statistic by
thousands.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _spanning_tree_reference import (
    chi_square_pvalue,
    exponential_tree_log_law,
    neighbours,
    random_k5,
    spanning_trees,
    tree_counts,
)

from skdpgraph.privacy import exponential_tree_scale
from skdpgraph.tree import UstBudgetError, exponential_tree, sample_weighted_ust
from skdpgraph.tree._ust._sampler import (
    _edge_index_of_successors,
    _prune,
    _ust_by_cycle_popping,
    _ust_by_elimination,
)
from skdpgraph.utils import check_graph, edges_to_csr, graph_edges

P_REJECT = 5e-8


def _sparse_graph():
    u = np.array([0, 0, 1, 1, 2, 3, 3, 4, 2, 5, 6, 0])
    v = np.array([1, 2, 2, 3, 4, 4, 5, 5, 5, 6, 7, 7])
    w = np.array([0.3, 0.1, 0.0, 0.5, 0.2, 0.4, 0.9, 0.6, 0.7, 0.2, 0.8, 0.5])
    return edges_to_csr(u, v, w, 8)


def _forest_graph():
    # a triangle and a 4-cycle with a chord: two components
    u = np.array([0, 0, 1, 3, 4, 5, 3, 3])
    v = np.array([1, 2, 2, 4, 5, 6, 6, 5])
    w = np.array([0.2, 0.5, 0.3, 0.1, 0.4, 0.2, 0.6, 0.3])
    return edges_to_csr(u, v, w, 7)


def _sample_counts(graph, trees, n_samples, seed, **kwargs):
    return tree_counts(exponential_tree, graph, trees, n_samples, seed, **kwargs)


@pytest.mark.parametrize("graph_fn", [random_k5, _sparse_graph, _forest_graph])
@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_exponential_tree_law_matches_enumeration(graph_fn, neighborhood):
    graph = graph_fn()
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, n)
    k = len(trees[0])
    # a budget giving a non-degenerate law (c of a few per unit weight)
    mu = 0.1
    eps = 0.6 if neighborhood == "l1" else 0.6 * k
    c = exponential_tree_scale(eps, mu, neighborhood, k)
    assert c == pytest.approx(3.0)
    logp = exponential_tree_log_law(trees, w, c)
    counts = _sample_counts(graph, trees, 2000, seed=11, epsilon=eps,
                            sensitivity=mu, neighborhood=neighborhood)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


@pytest.mark.parametrize("force", [(False, False), (True, False), (False, True),
                                   (True, True), "cycle_popping"])
def test_each_engine_is_exact(force):
    graph = _sparse_graph()
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, n)
    logc = -4.0 * w
    logp = exponential_tree_log_law(trees, w, 4.0)
    rng = np.random.default_rng(5)
    counts = np.zeros(len(trees))
    for _ in range(3000):
        if force == "cycle_popping":
            succ, roots = _ust_by_cycle_popping(u, v, logc, n, rng, 1e12)
            picked = _edge_index_of_successors(u, v, n, succ, roots)
        else:
            picked = _ust_by_elimination(u, v, logc, n, rng, _force=force)
        counts[trees.index(tuple(sorted(picked.tolist())))] += 1
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


def test_blocked_dense_elimination_is_exact(monkeypatch):
    # blocks of 2 nodes exercise the GEMM update between blocks
    import skdpgraph.tree._ust._sampler as ust

    original = ust._eliminate_dense_linear
    monkeypatch.setattr(ust, "_eliminate_dense_linear",
                        lambda *a, **k: original(*a, block=2))
    graph = random_k5()
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, 5)
    rng = np.random.default_rng(8)
    counts = np.zeros(len(trees))
    for _ in range(3000):
        picked = ust._ust_by_elimination(u, v, -3.0 * w, 5, rng, _force=(False, True))
        counts[trees.index(tuple(sorted(picked.tolist())))] += 1
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, 3.0))) > P_REJECT


def test_huge_inverse_temperature_is_exact_and_finite():
    # c * spread ~ 1e4: far beyond float64 exp range; near-ties keep it random.
    u = np.array([0, 0, 1, 1, 2, 2, 3])
    v = np.array([1, 2, 2, 3, 3, 4, 4])
    w = np.array([1.0, 1.0002, 2.0, 2.0001, 2.0, 5.0, 5.0001])
    c = 5000.0
    trees = spanning_trees(u, v, 5)
    logp = exponential_tree_log_law(trees, w, c)
    rng = np.random.default_rng(2)
    counts = np.zeros(len(trees))
    for _ in range(2000):
        mask = sample_weighted_ust(u, v, -c * w, 5, rng, method="elimination")
        counts[trees.index(tuple(np.flatnonzero(mask).tolist()))] += 1
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


def test_auto_fallback_keeps_the_law_exact():
    # Two tight clusters joined by heavy edges trap the walk; a small budget
    # makes cycle popping give up about half of the time. Falling back must
    # not bias the law (the budget depends on the popped cycles only).
    u = np.array([0, 0, 1, 3, 3, 4, 2, 1])
    v = np.array([1, 2, 2, 4, 5, 5, 3, 4])
    w = np.array([0.0, 0.1, 0.05, 0.0, 0.1, 0.05, 1.0, 1.2])
    c = 2.0
    n = 6
    trees = spanning_trees(u, v, n)
    logp = exponential_tree_log_law(trees, w, c)
    rng = np.random.default_rng(4)
    fails = 0
    counts = np.zeros(len(trees))
    for _ in range(3000):
        try:
            succ, roots = _ust_by_cycle_popping(u, v, -c * w, n, rng, 3000)
            picked = _edge_index_of_successors(u, v, n, succ, roots)
        except UstBudgetError:
            fails += 1
            picked = _ust_by_elimination(u, v, -c * w, n, rng)
        counts[trees.index(tuple(sorted(picked.tolist())))] += 1
    assert 600 < fails < 2400  # both branches are exercised (about 44% fail)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


def test_pruned_edges_are_improbable():
    graph = random_k5()
    u, v, w = graph_edges(graph)
    c = 400.0
    keep = _prune(u, v, -c * w, 5)
    assert not keep.all()
    trees = spanning_trees(u, v, 5)
    logp = exponential_tree_log_law(trees, w, c)
    incl = np.zeros(u.size)
    for t, lp in zip(trees, logp):
        incl[list(t)] += np.exp(lp)
    assert incl[~keep].sum() < np.exp(-50.0)
    # the MST is always kept
    from skdpgraph.tree import minimum_spanning_tree

    mst = minimum_spanning_tree(graph)
    kept = {(int(a), int(b)) for a, b in zip(u[keep], v[keep])}
    assert {tuple(e) for e in mst.edges.tolist()} <= kept


@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_privacy_audit_exact(neighborhood):
    """Largest log-ratio of tree probabilities over neighbours is <= epsilon."""
    graph = random_k5()
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, 5)
    A = np.zeros((len(trees), u.size))
    for i, t in enumerate(trees):
        A[i, list(t)] = 1.0
    eps, mu = 1.0, 0.5
    c = exponential_tree_scale(eps, mu, neighborhood, 4)

    def log_law(weights):
        lw = -c * (A @ weights)
        return lw - np.logaddexp.reduce(lw)

    base = log_law(w)
    worst = max(np.max(np.abs(log_law(w2) - base)) for w2 in neighbours(w, mu, neighborhood))
    assert worst <= eps + 1e-9
    # not vacuous: a sizeable part of the budget is really used
    assert worst > 0.3 * eps


def test_linf_with_l1_calibration_fails_the_audit():
    graph = random_k5()
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, 5)
    A = np.zeros((len(trees), u.size))
    for i, t in enumerate(trees):
        A[i, list(t)] = 1.0
    eps, mu = 1.0, 0.5
    c_wrong = exponential_tree_scale(eps, mu, "l1", 4)  # Delta = mu under linf: wrong

    def log_law(weights):
        lw = -c_wrong * (A @ weights)
        return lw - np.logaddexp.reduce(lw)

    base = log_law(w)
    worst = max(np.max(np.abs(log_law(w2) - base)) for w2 in neighbours(w, mu, "linf"))
    assert worst > 2 * eps


def test_returns_true_weights_and_a_spanning_tree():
    graph = _sparse_graph()
    T = exponential_tree(graph, 2.0, sensitivity=0.1, random_state=0)
    assert T.edges.shape == (7, 2)
    np.testing.assert_array_equal(T.weights, graph[T.edges[:, 0], T.edges[:, 1]])
    assert np.all(T.edges[:, 0] < T.edges[:, 1])
    assert (T.tree != T.tree.T).nnz == 0


def test_forest_and_isolated_nodes():
    u = np.array([0, 2])
    v = np.array([1, 3])
    graph = edges_to_csr(u, v, np.array([0.5, 0.0]), 5)
    T = exponential_tree(graph, 1.0, sensitivity=0.1, neighborhood="linf", random_state=0)
    assert T.edges.tolist() == [[0, 1], [2, 3]]
    assert T.weights.tolist() == [0.5, 0.0]


def test_reproducible_with_seed_and_fresh_without():
    graph = check_graph(np.random.default_rng(0).random((40, 2)), metric="euclidean")
    a = exponential_tree(graph, 1.0, sensitivity=0.1, random_state=7)
    b = exponential_tree(graph, 1.0, sensitivity=0.1, random_state=7)
    np.testing.assert_array_equal(a.edges, b.edges)
    c = exponential_tree(graph, 1.0, sensitivity=0.1)
    assert c.edges.shape == (39, 2)


def test_medium_graphs_all_regimes():
    # 400 clustered points: cycle popping at small c, elimination (float64 and
    # log space, with pruning) at large c; every result a spanning tree.
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(0, 0.05, (200, 2)), rng.normal(1, 0.05, (200, 2))])
    graph = check_graph(X, metric="euclidean")
    for eps in (0.01, 1.0, 100.0, 1e4, 1e9):
        T = exponential_tree(graph, eps, sensitivity=0.01, random_state=0)
        assert T.edges.shape == (399, 2)
        n_comp = sp.csgraph.connected_components(T.tree, directed=False)[0]
        assert n_comp == 1
    # at a huge budget the tree is the MST
    from skdpgraph.tree import minimum_spanning_tree

    np.testing.assert_array_equal(T.edges, minimum_spanning_tree(graph).edges)


def test_cycle_popping_budget_error():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 0.01, (30, 2)), rng.normal(1, 0.01, (30, 2))])
    graph = check_graph(X, metric="euclidean")
    with pytest.raises(UstBudgetError, match="budget"):
        exponential_tree(graph, 10.0, sensitivity=0.01, random_state=0,
                         method="cycle_popping", max_work=1e4)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=float("inf")), ValueError, "epsilon"),
    (dict(sensitivity=-1.0), ValueError, "sensitivity"),
    (dict(neighborhood="l2"), ValueError, "neighborhood"),
    (dict(method="wilson"), ValueError, "method"),
    (dict(epsilon="1"), TypeError, "epsilon"),
])
def test_bad_parameters(kwargs, exc, match):
    params = dict(epsilon=1.0, sensitivity=0.1, neighborhood="l1")
    params.update(kwargs)
    with pytest.raises(exc, match=match):
        exponential_tree(random_k5(), **params)


def test_input_not_modified():
    graph = _sparse_graph()
    before = (graph.data.copy(), graph.indices.copy(), graph.indptr.copy())
    exponential_tree(graph, 1.0, sensitivity=0.1, random_state=0)
    for a, b in zip(before, (graph.data, graph.indices, graph.indptr)):
        np.testing.assert_array_equal(a, b)


def test_gap_split_is_exact():
    # Two light triangles joined by three heavy edges: c * gap ~ 190 triggers
    # the split; within each level the choices stay random.
    u = np.array([0, 0, 1, 3, 3, 4, 0, 1, 2])
    v = np.array([1, 2, 2, 4, 5, 5, 3, 4, 5])
    w = np.array([0.1, 0.2, 0.3, 0.15, 0.1, 0.3, 10.0, 10.05, 10.1])
    c = 20.0
    from skdpgraph.tree._ust._sampler import _gap_split

    assert _gap_split(-c * w) is not None
    trees = spanning_trees(u, v, 6)
    logp = exponential_tree_log_law(trees, w, c)
    rng = np.random.default_rng(6)
    counts = np.zeros(len(trees))
    for _ in range(2000):
        mask = sample_weighted_ust(u, v, -c * w, 6, rng)
        counts[trees.index(tuple(np.flatnonzero(mask).tolist()))] += 1
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


def test_tree_path_min_matches_brute_force():
    import networkx as nx

    from skdpgraph.tree._ust._sampler import _tree_path_min

    rng = np.random.default_rng(0)
    n = 60
    # a forest of two random trees
    parent = np.full(n, -1)
    parent[1:30] = [int(rng.integers(0, i)) for i in range(1, 30)]
    parent[31:] = [int(rng.integers(30, i)) for i in range(31, n)]
    kids = np.flatnonzero(parent >= 0)
    tu, tv = parent[kids], kids
    tval = rng.normal(size=kids.size)
    G = nx.Graph()
    for a, b, x in zip(tu, tv, tval):
        G.add_edge(int(a), int(b), x=x)
    qu = rng.integers(0, 30, 200)
    qv = rng.integers(0, 30, 200)
    qu2 = rng.integers(30, n, 200)
    qv2 = rng.integers(30, n, 200)
    qu, qv = np.concatenate([qu, qu2]), np.concatenate([qv, qv2])
    got = _tree_path_min(tu, tv, tval, n, qu, qv)
    for a, b, g in zip(qu, qv, got):
        path = nx.shortest_path(G, int(a), int(b))
        want = min((G[x][y]["x"] for x, y in zip(path, path[1:])), default=np.inf)
        assert g == want


def test_trap_elimination_is_exact():
    # Three tight pairs joined by heavy edges: cycle popping with a small
    # budget fails about half of the time; the trapped nodes are then
    # eliminated (star-mesh) and popping restarts on the Schur complement.
    from skdpgraph.tree._ust._sampler import _ust_with_trap_elimination

    u = np.array([0, 0, 0, 1, 2, 2, 3, 4, 5])
    v = np.array([1, 3, 6, 2, 3, 5, 4, 5, 6])
    w = np.array([0.0, 1.5, 0.9, 1.0, 0.0, 1.3, 1.1, 0.05, 1.2])
    c, n = 3.0, 7
    trees = spanning_trees(u, v, n)
    logp = exponential_tree_log_law(trees, w, c)
    rng = np.random.default_rng(12)
    fails = 0
    for _ in range(200):
        try:
            _ust_by_cycle_popping(u, v, -c * w, n, rng, 6000)
        except UstBudgetError as exc:
            fails += 1
            assert exc.trapped.size > 0
    assert 40 < fails < 160  # the trap path is exercised (about half the time)
    counts = np.zeros(len(trees))
    for _ in range(2000):
        picked = _ust_with_trap_elimination(u, v, -c * w, n, rng, 6000, None)
        counts[trees.index(tuple(sorted(picked.tolist())))] += 1
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT
