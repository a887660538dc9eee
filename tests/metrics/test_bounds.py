"""The papers' bounds: hand-computed values and Monte Carlo checks.

Statistical checks use fixed seeds. Each one asserts an event whose
probability of failing by chance is below 1e-6, computed from the binomial
law in the test itself (scipy.stats.binom).
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from skdpgraph.edge_dp import (
    pig_epsilon,
    pig_expected_density,
    pig_expected_edges,
    pig_min_s,
)
from skdpgraph.metrics import (
    laplace_mst_error_bound,
    order_preservation_probability,
    pamst_error_bound,
    partitioning_topology_probability,
)
from skdpgraph.tree import laplace_mst, minimum_spanning_tree, pamst
from skdpgraph.utils import edges_to_csr

ALPHA = 1e-6  # false-failure rate of every statistical assertion


def assert_rate_at_most(count, n, p, alpha=ALPHA):
    """Fail only if ``count`` successes out of ``n`` refute a rate ``<= p``.

    Under rate ``p``, ``P(X >= count) = binom.sf(count - 1, n, p)``; asserting
    it is above ``alpha`` fails by chance with probability < ``alpha``.
    """
    assert stats.binom.sf(count - 1, n, p) > alpha, (count, n, p)


def assert_rate_at_least(count, n, p, alpha=ALPHA):
    """Fail only if ``count`` out of ``n`` refutes a rate ``>= p``."""
    assert stats.binom.cdf(count, n, p) > alpha, (count, n, p)


def assert_rate_equals(count, n, p):
    """Two-sided: each side fails by chance with probability < ALPHA / 2."""
    assert_rate_at_most(count, n, p, ALPHA / 2)
    assert_rate_at_least(count, n, p, ALPHA / 2)


# ---------------------------------------------------------------------------
# PAMST and Laplace-MST error bounds
# ---------------------------------------------------------------------------

def test_pamst_bound_hand_values():
    # Corollary 3.4.1 with the thesis's Delta u = 1 / |E|:
    # 2 (|V|-1) / (|E| eps) ((|V|-1) ln((|V|-1)/gamma) + 2 ln((|V|-1)!))
    n, m, eps, gamma = 10, 30, 0.5, 0.05
    expected = 2 * 9 / (m * eps) * (9 * math.log(9 / gamma) + 2 * math.log(math.factorial(9)))
    got = pamst_error_bound(n, eps, sensitivity=1 / m, gamma=gamma)
    assert got == pytest.approx(expected, rel=1e-12)
    # Theorem 3.4.2 with explicit ranges.
    sizes = [3, 5, 2]
    expected = 2 * 2.0 * 3 / 1.5 * (3 * math.log(3 / 0.2) + math.log(30))
    got = pamst_error_bound(4, 1.5, sensitivity=2.0, gamma=0.2, range_sizes=sizes)
    assert got == pytest.approx(expected, rel=1e-12)
    # The worst-case ranges i (n - i) reproduce the corollary.
    n = 6
    worst = [i * (n - i) for i in range(1, n)]
    assert pamst_error_bound(n, 1.0, sensitivity=1.0, range_sizes=worst) == pytest.approx(
        pamst_error_bound(n, 1.0, sensitivity=1.0), rel=1e-12)


def test_laplace_bound_hand_values():
    # Theorem 3.2.1: 2 (|V| - 1) / eps ln(|E| / gamma) for l1, mu = 1.
    got = laplace_mst_error_bound(100, 400, 0.7, sensitivity=1.0, gamma=0.05)
    assert got == pytest.approx(2 * 99 / 0.7 * math.log(400 / 0.05), rel=1e-12)
    # linf: the scale is |E| mu / eps.
    got = laplace_mst_error_bound(100, 400, 0.7, sensitivity=0.5, neighborhood="linf",
                                  gamma=0.05)
    assert got == pytest.approx(2 * 99 * 400 * 0.5 / 0.7 * math.log(400 / 0.05), rel=1e-12)
    # The thesis's calibration (l1, mu = 1) equals linf with mu = 1 / |E|.
    assert laplace_mst_error_bound(20, 50, 1.0, sensitivity=1.0) == pytest.approx(
        laplace_mst_error_bound(20, 50, 1.0, sensitivity=1 / 50, neighborhood="linf"))


def _complete_graph(n, seed):
    rng = np.random.default_rng(seed)
    W = np.triu(rng.uniform(0.0, 10.0, (n, n)), 1)
    return W + W.T


@pytest.mark.slow
@pytest.mark.parametrize("eps", [4.0, 16.0])
def test_pamst_bound_holds_monte_carlo(eps):
    # Corollary 3.4.1 for the library's PAMST: P(Error >= B(gamma)) <= gamma.
    D = _complete_graph(5, 0)
    best = minimum_spanning_tree(D).weights.sum()
    rng = np.random.default_rng(1)
    n_runs = 1500
    errors = np.array([pamst(D, eps, sensitivity=1.0, random_state=rng).weights.sum() - best
                       for _ in range(n_runs)])
    assert errors.min() >= -1e-9
    for gamma in (0.05, 0.5, 0.9):  # three assertions: ALPHA / 3 each
        bound = pamst_error_bound(5, eps, sensitivity=1.0, gamma=gamma)
        assert_rate_at_most(int(np.sum(errors >= bound)), n_runs, gamma, ALPHA / 3)


def _naive_pamst_with_ranges(D, eps, mu, rng):
    """Sequential PAMST on a complete graph, recording the cut sizes."""
    n = D.shape[0]
    c = eps / (n - 1) / (2 * mu)
    inside = np.zeros(n, bool)
    inside[rng.integers(n)] = True
    total, sizes = 0.0, []
    for _ in range(n - 1):
        a, b = np.nonzero(inside[:, None] & ~inside[None, :])
        w = D[a, b]
        p = np.exp(-c * (w - w.min()))
        k = rng.choice(w.size, p=p / p.sum())
        total += w[k]
        sizes.append(w.size)
        inside[b[k]] = True
    return total, sizes


def test_pamst_theorem_342_with_ranges_monte_carlo():
    D = _complete_graph(6, 3)
    best = minimum_spanning_tree(D).weights.sum()
    rng = np.random.default_rng(4)
    n_runs, gamma = 800, 0.5
    bad = 0
    for _ in range(n_runs):
        total, sizes = _naive_pamst_with_ranges(D, 20.0, 1.0, rng)
        bad += total - best >= pamst_error_bound(6, 20.0, sensitivity=1.0, gamma=gamma,
                                                 range_sizes=sizes)
    assert_rate_at_most(bad, n_runs, gamma)


@pytest.mark.slow
@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_laplace_bound_holds_monte_carlo(neighborhood):
    D = _complete_graph(6, 5)
    m = 15
    best = minimum_spanning_tree(D).weights.sum()
    rng = np.random.default_rng(6)
    eps = 2.0 if neighborhood == "l1" else 30.0
    n_runs = 1500
    errors = []
    for _ in range(n_runs):
        t = laplace_mst(D, eps, sensitivity=1.0, neighborhood=neighborhood, random_state=rng)
        errors.append(D[t.edges[:, 0], t.edges[:, 1]].sum() - best)
    errors = np.array(errors)
    for gamma in (0.05, 0.9):  # two assertions: ALPHA / 2 each
        bound = laplace_mst_error_bound(6, m, eps, sensitivity=1.0, neighborhood=neighborhood,
                                        gamma=gamma)
        assert_rate_at_most(int(np.sum(errors >= bound)), n_runs, gamma, ALPHA / 2)


def test_error_bounds_bad_input():
    with pytest.raises(ValueError, match="n_nodes"):
        pamst_error_bound(1, 1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="gamma"):
        pamst_error_bound(5, 1.0, sensitivity=1.0, gamma=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        pamst_error_bound(5, -1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="range_sizes"):
        pamst_error_bound(5, 1.0, sensitivity=1.0, range_sizes=[1, 2])
    with pytest.raises(ValueError, match="at least 4 edges"):
        laplace_mst_error_bound(5, 3, 1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="neighborhood"):
        laplace_mst_error_bound(5, 6, 1.0, sensitivity=1.0, neighborhood="l2")
    with pytest.raises(TypeError):
        laplace_mst_error_bound(5.5, 6, 1.0, sensitivity=1.0)


# ---------------------------------------------------------------------------
# Theorem 13: partitioning topology
# ---------------------------------------------------------------------------

def exact_partitioning_probability(n, edges, labels, c):
    """P(PAMST's tree partitions the clusters), by dynamic programming.

    PAMST's state is the set S of reached nodes; a cluster stays connected in
    the tree iff each of its nodes after the first joins through an edge
    from the same cluster, so f(S) = P(reach S with no failure) obeys a
    forward recursion over subsets. The root is uniform.
    """
    labels = np.asarray(labels)
    adj = [[] for _ in range(n)]
    for a, b, w in edges:
        adj[a].append((b, w))
        adj[b].append((a, w))
    f = {1 << r: 1.0 / n for r in range(n)}
    for size in range(1, n):
        for S, pS in [(S, p) for S, p in f.items() if bin(S).count("1") == size]:
            cut = [(a, b, w) for a in range(n) if S >> a & 1 for b, w in adj[a]
                   if not S >> b & 1]
            ws = np.array([w for _, _, w in cut])
            pr = np.exp(-c * (ws - ws.min()))
            pr /= pr.sum()
            for (a, b, _), q in zip(cut, pr):
                started = any(S >> x & 1 for x in range(n) if labels[x] == labels[b])
                if started and labels[a] != labels[b]:
                    continue  # b joins its started cluster from outside: failure
                T = S | (1 << b)
                f[T] = f.get(T, 0.0) + pS * q
    return f.get((1 << n) - 1, 0.0)


# Two strongly homogeneous clusters whose inside weights are nearly equal:
# the paper's exponent uses max^2/min - min ~ 2 x the true gap max^2/min - max.
M_, m_, S_ = 0.3, 0.29, 0.311
EDGES13 = [(0, 1, m_), (1, 2, M_), (3, 4, m_), (4, 5, M_),
           (0, 3, S_), (2, 5, S_), (1, 4, S_), (0, 5, S_)]
LABELS13 = [0, 0, 0, 1, 1, 1]


def _graph13():
    u, v, w = zip(*EDGES13)
    return edges_to_csr(np.array(u), np.array(v), np.array(w), 6)


def _partitioned(tree_edges, labels):
    labels = np.asarray(labels)
    inter = labels[tree_edges[:, 0]] != labels[tree_edges[:, 1]]
    return int(inter.sum()) == np.unique(labels).size - 1


def test_partitioning_hand_value():
    D = np.array([[0, 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]], float)
    # c = 3 / (2 * 3) = 0.5; 4 leaving edges, each counted for both clusters,
    # times |C_i| - 1 = 1: failure <= 8 exp(-0.5 * (9 - 1)).
    p = partitioning_topology_probability(D, [0, 0, 1, 1], 3.0, sensitivity=1.0)
    assert p == pytest.approx(1 - 8 * math.exp(-4.0), rel=1e-12)
    # Paper's form: alpha = 1 in both clusters, so the gap is 0: vacuous.
    assert partitioning_topology_probability(D, [0, 0, 1, 1], 3.0, sensitivity=1.0,
                                             form="paper") == 0.0
    # Paper's form by hand on EDGES13: (3 - 1) |E| exp(-c (M^2/m - m)) per cluster.
    G = _graph13()
    c = 6.0 / (2 * 0.001 * 5)
    expected = 1 - 2 * 2 * 8 * math.exp(-c * (M_ ** 2 / m_ - m_))
    got = partitioning_topology_probability(G, LABELS13, 6.0, sensitivity=0.001, form="paper")
    assert got == pytest.approx(expected, rel=1e-9)


@pytest.mark.slow
def test_partitioning_exact_dp_matches_library_pamst():
    # The reference DP against the library's sampler (c = 100: P ~ 0.5).
    G = _graph13()
    c = 100.0
    eps = c * 2 * 0.001 * 5
    exact = exact_partitioning_probability(6, EDGES13, LABELS13, c)
    rng = np.random.default_rng(0)
    n_runs = 3000
    hits = sum(_partitioned(pamst(G, eps, sensitivity=0.001, random_state=rng).edges, LABELS13)
               for _ in range(n_runs))
    assert_rate_equals(hits, n_runs, exact)


@pytest.mark.parametrize("c", [300.0, 600.0, 1000.0])
def test_corrected_partitioning_bound_below_exact_probability(c):
    G = _graph13()
    eps = c * 2 * 0.001 * 5
    exact = exact_partitioning_probability(6, EDGES13, LABELS13, c)
    bound = partitioning_topology_probability(G, LABELS13, eps, sensitivity=0.001)
    assert 0.0 < bound <= exact


def test_paper_partitioning_bound_fails():
    # Theorem 13 as printed claims P >= 0.99984 at c = 600; the exact
    # probability is 0.99762.
    G = _graph13()
    c = 600.0
    eps = c * 2 * 0.001 * 5
    exact = exact_partitioning_probability(6, EDGES13, LABELS13, c)
    paper = partitioning_topology_probability(G, LABELS13, eps, sensitivity=0.001, form="paper")
    assert paper > exact + 1e-3


def _vectorised_pamst_partitioned(n, edges, labels, c, n_runs, rng):
    """Many PAMST runs at once (naive sequential sampler, vectorised over runs)."""
    labels = np.asarray(labels)
    a = np.array([e[0] for e in edges] + [e[1] for e in edges])
    b = np.array([e[1] for e in edges] + [e[0] for e in edges])
    w = np.array([e[2] for e in edges] * 2)
    inside = np.zeros((n_runs, n), bool)
    inside[np.arange(n_runs), rng.integers(0, n, n_runs)] = True
    ok = np.ones(n_runs, bool)
    for _ in range(n - 1):
        cut = inside[:, a] & ~inside[:, b]          # directed edge a -> b crosses
        logit = np.where(cut, -c * w, -np.inf)
        logit -= logit.max(axis=1, keepdims=True)
        p = np.exp(logit)
        p /= p.sum(axis=1, keepdims=True)
        k = (p.cumsum(axis=1) < rng.random((n_runs, 1))).sum(axis=1)
        k = np.minimum(k, a.size - 1)
        src, dst = a[k], b[k]
        started = (inside & (labels[None, :] == labels[dst][:, None])).any(axis=1)
        ok &= ~(started & (labels[src] != labels[dst]))
        inside[np.arange(n_runs), dst] = True
    return ok


def test_paper_partitioning_bound_fails_monte_carlo():
    G = _graph13()
    c = 600.0
    eps = c * 2 * 0.001 * 5
    paper = partitioning_topology_probability(G, LABELS13, eps, sensitivity=0.001, form="paper")
    rng = np.random.default_rng(2)
    n_runs = 100_000
    fails = int((~_vectorised_pamst_partitioned(6, EDGES13, LABELS13, c, n_runs, rng)).sum())
    # If the paper's bound held, failures would be Binomial(n, <= 1 - paper):
    # refute that at level ALPHA (expected ~238 failures against <= 16).
    assert stats.binom.sf(fails - 1, n_runs, 1 - paper) < ALPHA
    # and the corrected bound is consistent with the same sample.
    corrected = partitioning_topology_probability(G, LABELS13, eps, sensitivity=0.001)
    assert_rate_at_most(fails, n_runs, 1 - corrected)


@pytest.mark.slow
def test_corrected_partitioning_bound_holds_monte_carlo_library():
    G = _graph13()
    c = 300.0
    eps = c * 2 * 0.001 * 5
    bound = partitioning_topology_probability(G, LABELS13, eps, sensitivity=0.001)
    assert bound > 0.3
    rng = np.random.default_rng(3)
    n_runs = 2000
    hits = sum(_partitioned(pamst(G, eps, sensitivity=0.001, random_state=rng).edges, LABELS13)
               for _ in range(n_runs))
    assert_rate_at_least(hits, n_runs, bound)


def test_partitioning_disconnected_cluster_is_zero():
    # Cluster 0 = {0, 2} has no edge inside: no spanning tree partitions.
    D = np.array([[0, 5, 5], [5, 0, 1], [5, 1, 0]], float)
    G = edges_to_csr(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 1.0]), 3)
    assert partitioning_topology_probability(G, [0, 1, 0], 10.0, sensitivity=1.0) == 0.0
    assert partitioning_topology_probability(D, [0, 1, 1], 1e4, sensitivity=1.0) > 0.99


def test_partitioning_bad_input():
    D = np.array([[0, 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]], float)
    with pytest.raises(ValueError, match="one label per node"):
        partitioning_topology_probability(D, [0, 1], 1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="form"):
        partitioning_topology_probability(D, [0, 0, 1, 1], 1.0, sensitivity=1.0, form="x")
    G = edges_to_csr(np.array([0, 2]), np.array([1, 3]), np.ones(2), 4)
    with pytest.raises(ValueError, match="connected components"):
        partitioning_topology_probability(G, [0, 0, 1, 1], 1.0, sensitivity=1.0)
    # paper form checks its hypothesis (strong homogeneity)
    D2 = D.copy()
    D2[0, 2] = D2[2, 0] = 0.5
    with pytest.raises(ValueError, match="strongly homogeneous"):
        partitioning_topology_probability(D2, [0, 0, 1, 1], 1.0, sensitivity=1.0, form="paper")


# ---------------------------------------------------------------------------
# Theorem 4.2.1: order preservation under Laplace noise
# ---------------------------------------------------------------------------

def _laplace_order_kept(blocks, b, n_runs, rng):
    kept = np.ones(n_runs, bool)
    noisy = [np.asarray(blk, float)[None, :] + rng.laplace(0, b, (n_runs, len(blk)))
             for blk in blocks]
    for lo, hi in zip(noisy[:-1], noisy[1:]):
        kept &= lo.max(axis=1) < hi.min(axis=1)
    return kept


def test_order_preservation_hand_values():
    # Two single edges: the bound is exact, 1 - e^{-t/b}(1/2 + t/(4b)).
    p = order_preservation_probability([[1.0], [3.0]], 0.5, sensitivity=1.0)
    assert p == pytest.approx(1 - math.exp(-1.0) * 0.75, rel=1e-12)
    assert order_preservation_probability([[1.0], [3.0]], 0.5, sensitivity=1.0,
                                          form="paper") == pytest.approx(p)
    # Paper's form for blocks of sizes 2 and 3: (2 + 3 - 1) terms.
    blocks = [[0.0, 1.0], [5.0, 6.0, 7.0]]
    got = order_preservation_probability(blocks, 1.0, sensitivity=1.0, form="paper")
    assert got == pytest.approx(1 - 4 * math.exp(-4.0) * (0.5 + 1.0), rel=1e-12)
    # linf scales the noise by |E|.
    a = order_preservation_probability(blocks, 5.0, sensitivity=1.0, neighborhood="linf")
    b = order_preservation_probability(blocks, 1.0, sensitivity=1.0)
    assert a == pytest.approx(b, rel=1e-12)


def test_order_preservation_exact_case_monte_carlo():
    # Single-edge blocks: the bound equals the probability; a tight check.
    rng = np.random.default_rng(0)
    blocks = [[0.0], [2.3]]
    p = order_preservation_probability(blocks, 1.0, sensitivity=1.0)
    n_runs = 50_000
    kept = int(_laplace_order_kept(blocks, 1.0, n_runs, rng).sum())
    assert_rate_equals(kept, n_runs, p)


@pytest.mark.parametrize("blocks, eps", [
    ([np.zeros(100), np.full(100, 16.0)], 1.0),
    ([np.linspace(0, 1, 20), np.linspace(4, 5, 30), np.linspace(8, 9, 10)], 4.0),
    ([np.zeros(3), np.full(2000, 12.0)], 1.0),
])
def test_order_preservation_corrected_bound_holds_monte_carlo(blocks, eps):
    p = order_preservation_probability(blocks, eps, sensitivity=1.0)
    assert p > 0.5
    rng = np.random.default_rng(1)
    n_runs = 4000
    kept = int(_laplace_order_kept(blocks, 1.0 / eps, n_runs, rng).sum())
    assert_rate_at_least(kept, n_runs, p)


def test_order_preservation_paper_bound_fails_monte_carlo():
    # Two blocks of 100 edges 9 apart, Laplace(1): the paper claims
    # P >= 1 - 199 e^{-9} (1/2 + 9/4) = 0.93; about half the draws misorder.
    blocks = [np.zeros(100), np.full(100, 9.0)]
    paper = order_preservation_probability(blocks, 1.0, sensitivity=1.0, form="paper")
    assert paper > 0.9
    rng = np.random.default_rng(2)
    n_runs = 4000
    kept = int(_laplace_order_kept(blocks, 1.0, n_runs, rng).sum())
    assert stats.binom.cdf(kept, n_runs, paper) < ALPHA
    # The corrected bound is vacuous here, and says so.
    assert order_preservation_probability(blocks, 1.0, sensitivity=1.0) == 0.0


def test_order_preservation_bad_input():
    with pytest.raises(ValueError, match="ordered"):
        order_preservation_probability([[0.0, 2.0], [1.0]], 1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="at least 2 blocks"):
        order_preservation_probability([[0.0]], 1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="empty"):
        order_preservation_probability([[0.0], []], 1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="n_edges"):
        order_preservation_probability([[0.0], [1.0]], 1.0, sensitivity=1.0, n_edges=1)


# ---------------------------------------------------------------------------
# PIG (Muelle et al., Theorems 1-4)
# ---------------------------------------------------------------------------

def test_pig_values_from_the_paper():
    # Muelle et al.'s table: density -> s >= ... -> epsilon <= ...
    assert pig_epsilon(0.027) == pytest.approx(4.292, abs=1e-3)     # synthetic 506 nodes
    assert pig_epsilon(0.096) == pytest.approx(2.988, abs=2e-3)     # Disney
    assert pig_epsilon(0.022) == pytest.approx(4.499, abs=1e-3)     # Facebook
    assert math.ceil(pig_min_s(0.0129) * 1000) / 1000 == 0.027
    assert math.ceil(pig_min_s(0.0108) * 1000) / 1000 == 0.023
    assert round(pig_min_s(0.0439), 3) == 0.096
    assert pig_epsilon(1.0) == 0.0
    assert pig_min_s(0.25) == pytest.approx(1.0)
    np.testing.assert_allclose(pig_epsilon(np.array([0.5, 1.0])), [math.log(3), 0.0])


def test_pig_theorem2_doubles_density():
    d = np.array([0.0, 0.01, 0.1, 0.25])
    s = pig_min_s(d)
    np.testing.assert_allclose(pig_expected_density(d, np.maximum(s, 1e-300)), 2 * d,
                               atol=1e-12)


def test_pig_expected_edges_hand_values():
    assert pig_expected_edges(4, 2, 0.5) == pytest.approx(0.75 * 2 + 4 * 0.25)
    assert pig_expected_edges(10, 45, 1.0) == pytest.approx(22.5)
    # Theorems 3 and 4 agree: E|E_P| / (n(n-1)/2) = E d_P.
    n, m, s = 30, 40, 0.2
    assert pig_expected_edges(n, m, s) / (n * (n - 1) / 2) == pytest.approx(
        pig_expected_density(m / (n * (n - 1) / 2), s))


def _naive_flip(A, s, rng):
    n = A.shape[0]
    iu = np.triu_indices(n, 1)
    bits = A[iu].astype(bool)
    randomise = rng.random(bits.size) < s
    coin = rng.random(bits.size) < 0.5
    return np.where(randomise, coin, bits)


def test_pig_expected_edges_monte_carlo():
    rng = np.random.default_rng(0)
    n = 40
    A = np.zeros((n, n), bool)
    iu = np.triu_indices(n, 1)
    pick = rng.random(iu[0].size) < 0.05
    A[iu[0][pick], iu[1][pick]] = True
    m = int(pick.sum())
    s = 0.1
    runs = 4000
    counts = np.array([_naive_flip(A, s, rng).sum() for _ in range(runs)])
    expected = pig_expected_edges(n, m, s)
    # Each run is a sum of independent bits: its variance is known exactly.
    var = m * (s / 2) * (1 - s / 2) + (n * (n - 1) // 2 - m) * (s / 2) * (1 - s / 2)
    z = stats.norm.isf(ALPHA / 2)
    assert abs(counts.mean() - expected) < z * math.sqrt(var / runs)


def test_pig_epsilon_exact_audit():
    # Two graphs on 3 nodes differing in one edge: the largest log-ratio of
    # the probabilities of any perturbed output is exactly ln(2/s - 1).
    s = 0.3
    keep, flip = 1 - s / 2, s / 2

    def prob(orig, out):
        return math.prod(keep if o == b else flip for o, b in zip(orig, out))

    g1, g2 = (1, 0, 1), (0, 0, 1)
    ratios = [math.log(prob(g1, out) / prob(g2, out))
              for out in itertools.product((0, 1), repeat=3)]
    assert max(ratios) == pytest.approx(pig_epsilon(s))


def test_pig_bad_input():
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        pig_epsilon(0.0)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        pig_epsilon(1.5)
    with pytest.raises(ValueError, match="0.25"):
        pig_min_s(0.3)
    with pytest.raises(ValueError, match="density"):
        pig_expected_density(-0.1, 0.5)
    with pytest.raises(ValueError, match="n_edges"):
        pig_expected_edges(3, 4, 0.5)
    with pytest.raises(ValueError, match="n_nodes"):
        pig_expected_edges(1, 0, 0.5)


def test_order_preservation_reads_arrays_of_blocks_at_once():
    from skdpgraph.metrics import order_preservation_probability as bound

    rows = np.arange(1000.0).reshape(100, 10) + 5.0 * np.arange(100)[:, None]
    for form in ("corrected", "paper"):
        assert bound(rows, 1.0, sensitivity=0.5, form=form) == bound(
            list(rows), 1.0, sensitivity=0.5, form=form)
        flat = rows.ravel()
        assert bound(flat, 1.0, sensitivity=0.1, form=form) == bound(
            [[x] for x in flat], 1.0, sensitivity=0.1, form=form)
    # a long unordered 1-D array: each number a block, refused at once
    with pytest.raises(ValueError, match=r"blocks must be ordered: max\(blocks\[0\]\)"):
        bound(np.r_[2.0, 1.0, np.zeros(10**6)], 1.0, sensitivity=1.0)
    for bad, match in ((np.zeros((3, 0)), "block 0 is empty"),
                       (np.array([[1.0], [np.nan]]), "block 1 contains NaN"),
                       (np.array([1.0]), "at least 2 blocks")):
        with pytest.raises(ValueError, match=match):
            bound(bad, 1.0, sensitivity=1.0)
