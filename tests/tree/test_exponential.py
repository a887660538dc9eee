"""Tests of the exponential mechanism over spanning trees and its UST samplers.

Statistical tests: every chi-square test below uses a fixed seed and rejects
at p < 3e-8, so each fails by chance with probability below 3e-8; there are
26 such tests in this file, so the false-failure rate is below 1e-6. The
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
from skdpgraph.tree import exponential_tree, minimum_spanning_tree, sample_weighted_ust
from skdpgraph.utils import check_graph, edges_to_csr, graph_edges

P_REJECT = 3e-8


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


@pytest.mark.slow
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


def _two_cycles():
    # two 5-cycles and a bridge: 10 nodes, 11 edges, 25 trees; sparse enough
    # for the minimum-degree elimination
    u = np.array([0, 1, 2, 3, 0, 5, 6, 7, 8, 5, 4])
    v = np.array([1, 2, 3, 4, 4, 6, 7, 8, 9, 9, 5])
    return u, v, 10


def _ust_counts(u, v, n, logc, trees, n_samples, seed, **kwargs):
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(trees))
    for _ in range(n_samples):
        mask = sample_weighted_ust(u, v, logc, n, rng, **kwargs)
        counts[trees.index(tuple(np.flatnonzero(mask).tolist()))] += 1
    return counts


# (graph, weights' scale c, near-tie weights?) reaching each engine's code
# path: dense elimination in float64 (blocks of 2 nodes, so the block product
# runs) and in log space, sparse (minimum-degree) elimination in both, and
# cycle popping without any budget stop.
@pytest.mark.parametrize("case, method", [
    ("dense-float64", "elimination"), ("dense-log", "elimination"),
    ("sparse-float64", "elimination"), ("sparse-log", "elimination"),
    ("sparse-float64", "cycle_popping"), ("dense-float64", "cycle_popping"),
    ("dense-log", "cycle_popping"),
])
@pytest.mark.slow
def test_each_engine_is_exact(case, method):
    if case.startswith("dense"):
        graph = _sparse_graph()
        n = graph.shape[0]
        u, v, w = graph_edges(graph)
    else:
        u, v, n = _two_cycles()
        w = np.array([0.3, 0.1, 0.0, 0.5, 0.2, 0.4, 0.9, 0.6, 0.7, 0.2, 0.8])
    c = 4.0
    if case.endswith("log"):
        # c * spread in the thousands: log space; near ties keep it random
        w = 1.0 + 1e-4 * w + np.arange(w.size) // 4
        c = 4000.0
    trees = spanning_trees(u, v, n)
    # cycle popping in log space: rows with neighbours below 2**-40 of their
    # total (drawn apart); it may hand over to elimination, also exact.
    max_work = None if case.endswith("log") else 1e12
    counts = _ust_counts(u, v, n, -c * w, trees, 2000, 5, method=method, reduce=False,
                         max_work=max_work)
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, c))) > P_REJECT


@pytest.mark.slow
@pytest.mark.parametrize("step", [1, 11])
def test_cycle_popping_is_exact_in_any_numbering(step):
    # A 40-cycle and a triangle. Numbered along the cycle (step 1) an edge's
    # ends are 1 apart, closer than in breadth-first order; numbered by
    # steps of 11 they are 11 or 29 apart, and the breadth-first order
    # (2 apart) is the closer one: the walks run on either numbering, and
    # the law must be the same.
    position = np.arange(40)
    node = (step * position) % 40
    u = np.r_[node, 40, 40, 41]
    v = np.r_[np.roll(node, -1), 41, 42, 42]
    w = np.r_[np.linspace(0.0, 0.8, 40), 0.1, 0.5, 0.3]
    c, n = 3.0, 43
    trees = spanning_trees(u, v, n)
    counts = _ust_counts(u, v, n, -c * w, trees, 3000, 6, method="cycle_popping",
                         reduce=False, max_work=1e12)
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, c))) > P_REJECT


@pytest.mark.slow
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


@pytest.mark.slow
def test_budget_fallback_keeps_the_law_exact():
    # Two tight clusters joined by heavy edges trap the walk; a small budget
    # makes cycle popping hand over to elimination about half of the time
    # (54% of runs read more than 20 draws, measured).
    # Falling back must not bias the law (the budget depends on the popped
    # cycles only).
    u = np.array([0, 0, 1, 3, 3, 4, 2, 1])
    v = np.array([1, 2, 2, 4, 5, 5, 3, 4])
    w = np.array([0.0, 0.1, 0.05, 0.0, 0.1, 0.05, 1.0, 1.2])
    c, n = 2.0, 6
    trees = spanning_trees(u, v, n)
    counts = _ust_counts(u, v, n, -c * w, trees, 3000, 4, method="cycle_popping",
                         max_work=20.0)
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, c))) > P_REJECT


@pytest.mark.slow
def test_exponential_tree_completes_where_the_budget_used_to_run_out():
    # This call raised UstBudgetError (a failure whose probability depends
    # on the weights: a side channel); it now falls back and completes.
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 0.01, (30, 2)), rng.normal(1, 0.01, (30, 2))])
    graph = check_graph(X, metric="euclidean")
    for seed in range(2):
        T = exponential_tree(graph, 10.0, sensitivity=0.01, random_state=seed,
                             method="cycle_popping", max_work=1e4)
        assert T.edges.shape == (59, 2)
    # and on a tiny graph the law of the completed draws is exact
    graph = _sparse_graph()
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, graph.shape[0])
    counts = _sample_counts(graph, trees, 2000, seed=3, epsilon=0.6, sensitivity=0.1,
                            method="cycle_popping", max_work=1.0)
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, 3.0))) > P_REJECT


@pytest.mark.slow
def test_reductions_keep_the_law():
    # K5 with c = 60: the heaviest edges are pruned (inclusion < exp(-50))
    # or split off; the trees that remain likely keep their exact law.
    graph = random_k5()
    u, v, w = graph_edges(graph)
    w = w.copy()
    w[np.argsort(w)[-3:]] += 3.0
    trees = spanning_trees(u, v, 5)
    c = 60.0
    logp = exponential_tree_log_law(trees, w, c)
    counts = _ust_counts(u, v, 5, -c * w, trees, 2000, 9)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


@pytest.mark.slow
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


@pytest.mark.slow
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
    for eps in (0.01, 1.0, 100.0, 1e4, 1e7):
        T = exponential_tree(graph, eps, sensitivity=0.01, random_state=0)
        assert T.edges.shape == (399, 2)
        n_comp = sp.csgraph.connected_components(T.tree, directed=False)[0]
        assert n_comp == 1
    # at a huge budget the tree is the MST
    from skdpgraph.tree import minimum_spanning_tree

    np.testing.assert_array_equal(T.edges, minimum_spanning_tree(graph).edges)


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


@pytest.mark.parametrize("u, v, n, exc, match", [
    ([0], [5], 3, ValueError, r"in \[0, n\)"),
    ([-1], [1], 2, ValueError, r"in \[0, n\)"),
    ([1], [1], 2, ValueError, "to itself"),
    ([0, 0], [1, 1], 2, ValueError, "at most once"),
    ([0, 1], [1, 0], 2, ValueError, "at most once"),
    ([1, 0, 1], [2, 1, 2], 3, ValueError, "at most once"),
    ([0.0], [1.0], 2, TypeError, "u must be a 1-D array of integers"),
    ([[0]], [[1]], 2, TypeError, "1-D"),
    ([0], [1], 2.0, TypeError, "n must be an integer"),
    ([0], [1], -2, ValueError, "n must be non-negative"),
    ([0, 1], [1], 3, ValueError, "same shape"),
])
def test_sample_weighted_ust_rejects_bad_edges(u, v, n, exc, match):
    # The compiled loops index with the endpoints: checked before them.
    logc = np.zeros(np.asarray(u).shape)
    with pytest.raises(exc, match=match):
        sample_weighted_ust(np.array(u), np.array(v), logc, n, np.random.default_rng(0))


def test_stopped_runs_without_eliminations_still_give_a_tree():
    # With a budget of one draw every run stops at once, before any pop, and
    # nothing traps the walk (equal conductances): no node is eliminated, the
    # budget doubles until a run completes. The edges go in shuffled, some
    # reversed: the tree must come back as indices of the edges as given.
    rng = np.random.default_rng(8)
    n = 12
    u = np.r_[np.arange(n), 0, 2, 4, 6]
    v = np.r_[(np.arange(n) + 1) % n, 5, 9, 10, 11]
    order = rng.permutation(u.size)
    u, v = u[order], v[order]
    u[::3], v[::3] = v[::3].copy(), u[::3].copy()
    for seed in range(20):
        mask = sample_weighted_ust(u, v, np.zeros(u.size), n, np.random.default_rng(seed),
                                   method="cycle_popping", max_work=1.0,
                                   max_elimination_nodes=1)
        tree = sp.coo_array((np.ones(int(mask.sum())), (u[mask], v[mask])), shape=(n, n))
        assert mask.sum() == n - 1
        assert sp.csgraph.connected_components(tree, directed=False)[0] == 1


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
    trees = spanning_trees(u, v, 6)
    logp = exponential_tree_log_law(trees, w, c)
    rng = np.random.default_rng(6)
    counts = np.zeros(len(trees))
    for _ in range(2000):
        mask = sample_weighted_ust(u, v, -c * w, 6, rng)
        counts[trees.index(tuple(np.flatnonzero(mask).tolist()))] += 1
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


# Three tight pairs joined by heavy edges. With a budget of 60 draws cycle
# popping stops on most draws; the elimination fallback is disabled
# (max_elimination_nodes=1) or takes over once the pairs are reduced (4).
# At c = 3 the pairs hold the walk for about exp(3) crossings, too few to be
# found from the conductances: the nodes the stopped run popped most are
# eliminated. At c = 7 they hold it for about exp(6.3) and more: the pairs
# are found from the conductances and one node of each is eliminated.
@pytest.mark.slow
@pytest.mark.parametrize("c", [3.0, 7.0])
@pytest.mark.parametrize("max_elimination_nodes", [1, 4])
def test_trap_elimination_is_exact(c, max_elimination_nodes):
    u = np.array([0, 0, 0, 1, 2, 2, 3, 4, 5])
    v = np.array([1, 3, 6, 2, 3, 5, 4, 5, 6])
    w = np.array([0.0, 1.5, 0.9, 1.0, 0.0, 1.3, 1.1, 0.05, 1.2])
    n = 7
    trees = spanning_trees(u, v, n)
    counts = _ust_counts(u, v, n, -c * w, trees, 2000, 12, max_work=60.0,
                         max_elimination_nodes=max_elimination_nodes)
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, c))) > P_REJECT


# Two tight triangles {0, 1, 2} and {3, 4, 5} (inner weight 0) joined to each
# other and to node 6 by heavy edges. At c = 8 cycle popping stops on the
# budget, the triangles are found from the conductances, and 1, 2, 4 and 5 are
# eliminated one after the other: each mesh adds to the previous ones, so the
# tree of the last graph holds mesh edges of several eliminations, and undoing
# one of them can split the tree into three parts.
# The edges also go in shuffled, half of them as (v, u): the transforms
# take them in any order.
@pytest.mark.slow
@pytest.mark.parametrize("shuffled", [False, True])
def test_trap_elimination_with_fill_in_is_exact(shuffled):
    u = np.array([0, 0, 1, 3, 3, 4, 2, 0, 1, 0, 3, 5])
    v = np.array([1, 2, 2, 4, 5, 5, 3, 4, 5, 6, 6, 6])
    w = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.2, 0.9, 1.1, 1.0, 1.3])
    n, c = 7, 8.0
    if shuffled:
        order = np.random.default_rng(4).permutation(u.size)
        u, v, w = u[order], v[order], w[order]
        u[::2], v[::2] = v[::2].copy(), u[::2].copy()
    trees = spanning_trees(u, v, n)
    counts = _ust_counts(u, v, n, -c * w, trees, 3000, 21, max_work=20.0,
                         max_elimination_nodes=1)
    assert chi_square_pvalue(counts, np.exp(exponential_tree_log_law(trees, w, c))) > P_REJECT


@pytest.mark.parametrize("method", ["elimination", "cycle_popping", "auto"])
def test_extreme_spread_gives_the_light_tree_without_failure(method):
    # Weights spread by 1e6 scales (c * spread = 1e6, beyond exp's range):
    # the light tree is almost sure; every engine returns it, with or
    # without the reductions, and nothing overflows or fails.
    graph = _sparse_graph()
    u, v, w = graph_edges(graph)
    logc = -1e6 * np.argsort(np.argsort(w)).astype(float)
    mst = set(np.flatnonzero(sample_weighted_ust(u, v, logc, 8, np.random.default_rng(0),
                                                 method="elimination")).tolist())
    for reduce in (True, False):
        with np.errstate(over="raise", invalid="raise"):
            mask = sample_weighted_ust(u, v, logc, 8, np.random.default_rng(1),
                                       method=method, reduce=reduce)
        assert set(np.flatnonzero(mask).tolist()) == mst
    ranks = np.argsort(np.argsort(w))
    expected = minimum_spanning_tree(edges_to_csr(u, v, ranks + 1.0, 8)).edges
    assert sorted(zip(u[list(mst)].tolist(), v[list(mst)].tolist())) == \
        [tuple(e) for e in expected.tolist()]


def test_log_weights_past_what_doubles_hold_exactly_are_refused():
    # c w past 2**32: the sampler's sums would round by O(1) (at weights near 2**52 a
    # loss of 4.6 was measured at epsilon 2, where the exact law loses 0).
    D = np.array([[0, 1e308, 5e307], [1e308, 0, 1.0], [5e307, 1.0, 0]])
    for epsilon, mu in ((1.0, 0.1), (1e300, 1e-10)):
        with pytest.raises(ValueError, match="passes 2\\*\\*32"):
            exponential_tree(D, epsilon, sensitivity=mu, random_state=0)
    B = 2.0 ** 52
    D = np.array([[0, 0.5, B], [0.5, 0, B + 1], [B, B + 1, 0]])
    with pytest.raises(ValueError, match="passes 2\\*\\*32"):
        exponential_tree(D, 2.0, sensitivity=1.0, random_state=0)
    # Equal weights: every tree equally likely whatever c.
    t = exponential_tree(np.full((3, 3), 1e308) - np.diag([1e308] * 3), 1e300,
                         sensitivity=1e-10, random_state=0)
    assert t.edges.shape == (2, 2)


def test_sample_weighted_ust_checks_its_options():
    u, v, logc = np.array([0, 0, 1]), np.array([1, 2, 2]), np.zeros(3)
    for seed in (0, None, np.random.default_rng(0)):
        assert sample_weighted_ust(u, v, logc, 3, seed).sum() == 2
    for kwargs, error in [({"max_work": -1.0}, ValueError), ({"max_work": np.nan}, ValueError),
                          ({"max_work": "a"}, TypeError), ({"reduce": "no"}, TypeError),
                          ({"max_elimination_nodes": 1.5}, TypeError),
                          ({"max_elimination_nodes": 0}, ValueError)]:
        with pytest.raises(error):
            sample_weighted_ust(u, v, logc, 3, 0, **kwargs)
    with pytest.raises(TypeError, match="random_state"):
        sample_weighted_ust(u, v, logc, 3, "seed")
