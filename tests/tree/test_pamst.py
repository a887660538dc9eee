"""PAMST: exact laws against enumeration, privacy audits, bad input."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from _pamst_reference import chi_square_statistic, exact_pamst_distribution, naive_pamst
from scipy import stats

from skdpgraph.privacy import pamst_step_epsilon
from skdpgraph.tree import (
    minimum_spanning_tree,
    pamst,
)
from skdpgraph.utils import check_graph, edges_to_csr

#: Nominal level of each chi-square and KS test. Pearson's statistic with cells
#: expected near 5 has a heavier tail than the chi-square law (about 1.5 times
#: at 1e-4, more further out), so the nominal level sits well below the 1e-6
#: budget; a calibration off by a factor 2 moves the statistics by hundreds.
ALPHA = 1e-8

# A 5-node graph with a cycle structure rich enough for root-dependent laws.
G5 = ([0, 0, 1, 1, 2, 2, 3], [1, 2, 2, 3, 3, 4, 4],
      [0.1, 0.9, 0.4, 1.3, 0.2, 0.7, 1.0], 5)
# Two light triangles joined by two edges far heavier than float's exp range
# (c * 1000 > 709): exercises the restarts, the horizon and the light cut-off.
G_HUGE = ([0, 0, 1, 1, 2, 3, 3, 4], [1, 2, 2, 4, 3, 4, 5, 5],
          [0.0, 1.0, 0.5, 1000.7, 1000.0, 0.3, 0.9, 0.6], 6)
# The same with a moderate jump (c * 40): float sums T(u) + L would absorb
# the light clocks after the jump; exercises the precision stopping rule.
G_JUMP = ([0, 0, 1, 1, 2, 3, 3, 4], [1, 2, 2, 4, 3, 4, 5, 5],
          [0.0, 1.0, 0.5, 40.7, 40.0, 0.3, 0.9, 0.6], 6)


def _disjoint_copies(u, v, w, n, copies):
    """Canonical sparse graph made of ``copies`` disjoint copies of a graph."""
    u, v, w = np.asarray(u), np.asarray(v), np.asarray(w, dtype=float)
    off = (np.arange(copies) * n)[:, None]
    uu, vv = (u + off).ravel(), (v + off).ravel()
    return edges_to_csr(uu, vv, np.tile(w, copies), n * copies)


def _trees_of_copies(tree, u, v, n, copies):
    """Tree of each copy as a frozenset of local edge indices."""
    index = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(u, v))}
    e = tree.edges
    copy = e[:, 0] // n
    local = [index[(int(a), int(b))] for a, b in (e - (copy * n)[:, None])]
    out = [[] for _ in range(copies)]
    for c_, k in zip(copy.tolist(), local):
        out[c_].append(k)
    return [frozenset(t) for t in out]


def _check_law(samples, law):
    """Chi-square goodness of fit of sampled trees against the exact law."""
    trees = sorted(law, key=lambda t: -law[t])
    assert set(samples) <= set(trees), "a sampled tree is not a spanning tree PAMST can output"
    probs = np.exp([law[t] for t in trees])
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    counts = [sum(1 for s in samples if s == t) for t in trees]
    stat, df = chi_square_statistic(counts, probs)
    assert df >= 2
    assert stat < stats.chi2.isf(ALPHA, df), (stat, df)


def _fast_samples(graph_def, c, copies, seed, method="auto"):
    u, v, w, n = graph_def
    G = _disjoint_copies(u, v, w, n, copies)
    mu = 1.0
    eps = c * 2 * mu * copies * (n - 1)  # so that each step has eps_step / (2 mu) = c
    tree = pamst(G, eps, sensitivity=mu, random_state=seed, method=method)
    assert tree.edges.shape == (copies * (n - 1), 2)
    return _trees_of_copies(tree, u, v, n, copies)


@pytest.mark.slow
def test_reference_sampler_matches_enumeration():
    # The two references agree with each other (guards the enumerator).
    u, v, w, n = G5
    law = exact_pamst_distribution(u, v, w, n, c=2.0)
    rng = np.random.default_rng(11)
    samples = [naive_pamst(u, v, w, n, 2.0, rng) for _ in range(4000)]
    _check_law(samples, law)


@pytest.mark.parametrize("graph_def, c", [(G5, 2.0), (G5, 0.05), (G_JUMP, 1.0),
                                          (G_HUGE, 1.0)])
def test_sparse_sampler_exact_law(graph_def, c):
    # 20000 independent PAMST trees at once: one call on 20000 disjoint copies
    # (each component gets its own uniform root and its own race).
    u, v, w, n = graph_def
    law = exact_pamst_distribution(u, v, w, n, c)
    _check_law(_fast_samples(graph_def, c, 20000, seed=5), law)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["race", "sequential"])
def test_phases_and_sequential_fallback_exact_law(method):
    # "race": restarts only; "sequential": the sequential sampler throughout.
    u, v, w, n = G_HUGE
    law = exact_pamst_distribution(u, v, w, n, 1.0)
    _check_law(_fast_samples(G_HUGE, 1.0, 5000, seed=7, method=method), law)


@pytest.mark.slow
def test_sequential_sampler_from_roots_exact_law():
    # The sequential fallback on its own, started from the roots.
    u, v, w, n = G5
    samples = _fast_samples(G5, 2.0, 5000, seed=3, method="sequential")
    _check_law(samples, exact_pamst_distribution(u, v, w, n, 2.0))


@pytest.mark.slow
@pytest.mark.parametrize("c", [3.0, 40.0, 300.0])
def test_dense_sampler_exact_law(c):
    # c = 40: near ties and one edge heavier by 2 (c * 2 = 80), so draws
    # with that edge go through the Gumbel-max path (weights below 2**-40 of
    # the total) and must keep the exact law.
    rng = np.random.default_rng(0)
    n = 4
    W = rng.random((n, n)) * (1.0 if c < 10 else 0.02)
    if c == 40.0:
        W[0, 3] += 4.0
    W = W + W.T
    np.fill_diagonal(W, 0)
    u, v = np.triu_indices(n, 1)
    law = exact_pamst_distribution(u, v, W[u, v], n, c)
    index = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(u, v))}
    eps = c * 2 * (n - 1)
    gen = np.random.default_rng(1)
    samples = []
    for _ in range(6000):
        t = pamst(W, eps, sensitivity=1.0, random_state=gen, check_input=False)
        samples.append(frozenset(index[(int(a), int(b))] for a, b in t.edges))
    _check_law(samples, law)


def test_dense_and_sparse_inputs_same_law():
    # A complete graph given densely and as a sparse matrix: same exact law,
    # and both samplers fit it (checked above); here the weights are equal.
    D = np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]], dtype=float)
    Ts = pamst(sp.csr_array(D), 10.0, sensitivity=1.0, random_state=0)
    Td = pamst(D, 10.0, sensitivity=1.0, random_state=0)
    for t in (Ts, Td):
        assert t.edges.shape == (2, 2)
        np.testing.assert_array_equal(t.weights, D[t.edges[:, 0], t.edges[:, 1]])


# ---------------------------------------------------------------------------
# privacy audits: exact output laws on neighbouring weight functions
# ---------------------------------------------------------------------------

def _max_log_ratio(u, v, w, n, c, neighbours):
    base = exact_pamst_distribution(u, v, w, n, c)
    worst = 0.0
    for w2 in neighbours:
        other = exact_pamst_distribution(u, v, w2, n, c)
        assert set(other) == set(base)
        worst = max(worst, max(abs(base[t] - other[t]) for t in base))
    return worst


def _l1_neighbours(w, mu, rng, n_random=30):
    w = np.asarray(w, dtype=float)
    out = []
    for i in range(w.size):
        for sgn in (-1, 1):
            d = np.zeros(w.size)
            d[i] = sgn * mu
            out.append(w + d)
    for _ in range(n_random):  # random points of the l1 sphere
        d = rng.standard_normal(w.size)
        out.append(w + mu * d / np.abs(d).sum())
    return out


def _linf_neighbours(w, mu):
    w = np.asarray(w, dtype=float)
    grid = np.array(np.meshgrid(*[[-mu, 0.0, mu]] * w.size)).reshape(w.size, -1).T
    return [w + d for d in grid]


TRIANGLE = ([0, 0, 1], [1, 2, 2], [0.2, 0.5, 0.3], 3)
K4 = ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], [0.3, 0.1, 0.7, 0.4, 0.2, 0.6], 4)


@pytest.mark.slow
@pytest.mark.parametrize("graph_def", [TRIANGLE, K4])
@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_pamst_privacy_audit(graph_def, neighborhood):
    u, v, w, n = graph_def
    eps, mu = 1.5, 0.25
    # The library's calibration: c = eps_step / (2 mu).
    c = pamst_step_epsilon(n - 1, epsilon=eps) / (2 * mu)
    rng = np.random.default_rng(0)
    nb = (_l1_neighbours(w, mu, rng) if neighborhood == "l1"
          else _linf_neighbours(w, mu))
    worst = _max_log_ratio(u, v, w, n, c, nb)
    assert worst <= eps + 1e-12
    # The audit is not vacuous: these exact worst cases are 0.22 eps / 0.13 eps
    # (l1: one weight moves) and 0.46 eps / 0.69 eps (linf) for the triangle / K4.
    assert worst > (0.1 if neighborhood == "l1" else 0.4) * eps


@pytest.mark.slow
def test_pamst_audit_catches_a_wrong_calibration():
    # Dropping the factor 2 of the exponential mechanism (c = eps_step / mu)
    # breaks epsilon-DP under linf neighbours: the audit sees it.
    u, v, w, n = K4
    eps, mu = 1.5, 0.25
    c_wrong = pamst_step_epsilon(n - 1, epsilon=eps) / mu
    worst = _max_log_ratio(u, v, w, n, c_wrong, _linf_neighbours(w, mu))
    assert worst > eps


def test_pamst_zcdp_step_budget():
    rho, steps = 0.02, 99
    assert pamst_step_epsilon(steps, rho=rho) == pytest.approx(math.sqrt(8 * rho / steps))
    assert pamst_step_epsilon(steps, epsilon=1.0) == pytest.approx(1 / 99)
    with pytest.raises(ValueError, match="exactly one"):
        pamst_step_epsilon(steps, epsilon=1.0, rho=0.1)


# ---------------------------------------------------------------------------
# any spread of weights, disconnected graphs, inputs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [1e3, 1e8, 1e300])
def test_pamst_extreme_spread_no_nan_and_mst_limit(eps):
    # With c (w_max - w_min) far beyond exp's range the tree is a spanning
    # tree without NaN, and for well separated distinct weights it is the MST.
    rng = np.random.default_rng(4)
    n = 60
    X = rng.random((n, 2))
    D = check_graph(X, metric="euclidean")
    u, v = np.triu_indices(n, 1)
    keep = rng.random(u.size) < 0.2
    G = edges_to_csr(u[keep], v[keep], D[u[keep], v[keep]] * 1e3, n)
    for graph in (G, D * 1e3):
        t = pamst(graph, eps, sensitivity=1e-3, random_state=0)
        assert np.all(np.isfinite(t.weights))
        ref = minimum_spanning_tree(graph)
        assert t.edges.shape == ref.edges.shape
        if eps >= 1e8:
            np.testing.assert_array_equal(t.edges, ref.edges)


def test_pamst_disconnected_graph_gives_forest():
    G = edges_to_csr([0, 1, 3, 4, 4], [1, 2, 4, 5, 6], [1.0, 0.0, 2.0, 0.5, 0.7], 8)
    t = pamst(G, 1.0, sensitivity=1.0, random_state=0)
    # 8 nodes, components {0,1,2}, {3,4,5,6}, {7}: 5 edges, the zero-weight
    # edge counts as an edge.
    np.testing.assert_array_equal(t.edges, [[0, 1], [1, 2], [3, 4], [4, 5], [4, 6]])
    np.testing.assert_array_equal(t.weights, [1.0, 0.0, 2.0, 0.5, 0.7])
    assert t.tree.nnz == 10


def test_pamst_fixed_seed_reproducible_and_none_fresh():
    rng = np.random.default_rng(0)
    D = rng.random((30, 30))
    D = D + D.T
    a = pamst(D, 1.0, sensitivity=1.0, random_state=3)
    b = pamst(D, 1.0, sensitivity=1.0, random_state=3)
    np.testing.assert_array_equal(a.edges, b.edges)
    # Fresh entropy: 5 draws of a near-uniform tree law on 30 nodes all equal
    # has probability < 1e-30.
    draws = {pamst(D, 1.0, sensitivity=1.0).edges.tobytes() for _ in range(5)}
    assert len(draws) > 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"),
    (dict(epsilon=math.inf), "finite"),
    (dict(epsilon=math.nan), "finite"),
    (dict(epsilon=1.0, sensitivity=0.0), "sensitivity"),
    (dict(epsilon=1.0, neighborhood="l2"), "neighborhood"),
    (dict(epsilon=None), "exactly one"),
])
def test_pamst_bad_parameters(kwargs, match):
    D = np.array([[0, 1.0], [1.0, 0]])
    kw = dict(sensitivity=1.0) | kwargs
    eps = kw.pop("epsilon")
    with pytest.raises(ValueError, match=match):
        pamst(D, eps, **kw)


def test_pamst_validates_graph_and_keeps_input():
    D = np.array([[0, 1.0, 2.0], [1.0, 0, -3.0], [2.0, -3.0, 0]])
    with pytest.raises(ValueError, match="negative"):
        pamst(D, 1.0, sensitivity=1.0)
    A = sp.random(20, 20, density=0.3, random_state=0, format="csr")
    A = A + A.T
    before = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    pamst(A, 1.0, sensitivity=1.0, random_state=0)
    for x, y in zip(before, (A.data, A.indices, A.indptr)):
        assert x.tobytes() == y.tobytes()
