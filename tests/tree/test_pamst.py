"""PAMST, Laplace-MST and Weight-Release: exact laws, privacy audits, bad input."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _pamst_reference import chi_square_statistic, exact_pamst_distribution, naive_pamst
from scipy import stats

from skdpgraph.exceptions import PrivacyLeakWarning
from skdpgraph.privacy import grid_for, pamst_step_epsilon, standard_gumbel
from skdpgraph.tree import (
    laplace_mst,
    minimum_spanning_tree,
    pamst,
    release_tree_weights,
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


@pytest.mark.parametrize("method", ["race", "sequential"])
def test_phases_and_sequential_fallback_exact_law(method):
    # "race": restarts only; "sequential": the sequential sampler throughout.
    u, v, w, n = G_HUGE
    law = exact_pamst_distribution(u, v, w, n, 1.0)
    _check_law(_fast_samples(G_HUGE, 1.0, 5000, seed=7, method=method), law)


def test_sequential_sampler_from_roots_exact_law():
    # The sequential fallback on its own, started from the roots.
    u, v, w, n = G5
    samples = _fast_samples(G5, 2.0, 5000, seed=3, method="sequential")
    _check_law(samples, exact_pamst_distribution(u, v, w, n, 2.0))


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


# ---------------------------------------------------------------------------
# Laplace-MST and Weight-Release
# ---------------------------------------------------------------------------

def test_laplace_mst_exact_mst_of_noisy_graph_dense_and_sparse():
    # Large epsilon: the noise is far below the gaps, so the MST is exact and
    # the released weights are within a few noise scales of the truth.
    rng = np.random.default_rng(2)
    X = rng.random((40, 2))
    D = check_graph(X, metric="euclidean")
    ref = minimum_spanning_tree(D)
    # The release rounds every weight to the public grid (half a step at
    # most), then adds discrete noise of scale about mu / eps = 1e-9 (l1):
    # |noise| < 40 scales w.p. 1 - 40 e^-40.
    grid = grid_for(1.0, D[np.triu_indices(40, 1)])
    for G in (D, sp.csr_array(D)):
        t = laplace_mst(G, 1e9, sensitivity=1.0, random_state=0)
        np.testing.assert_array_equal(t.edges, ref.edges)
        np.testing.assert_allclose(t.weights, ref.weights, atol=grid / 2 + 4e-8)
        assert np.all(t.weights / grid == np.round(t.weights / grid))


@pytest.mark.parametrize("neighborhood, factor", [("l1", 1), ("linf", 6)])
def test_laplace_mst_noise_scale(neighborhood, factor):
    # On a tree (a path with 6 edges) the MST is the whole graph, so every
    # noisy weight is released: noise / scale must be Laplace(0, 1).
    k = 6
    G = edges_to_csr(np.arange(k), np.arange(1, k + 1), np.full(k, 50.0), k + 1)
    eps, mu = 2.0, 0.5
    scale = factor * mu / eps
    noise = np.concatenate([
        laplace_mst(G, eps, sensitivity=mu, neighborhood=neighborhood,
                    random_state=s).weights - 50.0 for s in range(400)])
    # KS test, rejecting a correct scale with probability 1e-6.
    assert stats.kstest(noise / scale, stats.laplace.cdf).pvalue > ALPHA


def test_release_tree_weights_normalisation_and_clipping():
    t = minimum_spanning_tree(np.array([[0, .2, .9], [.2, 0, .4], [.9, .4, 0]]))
    out = release_tree_weights(t, 1e12, sensitivity=0.1, weight_bounds=(0.0, 2.0),
                               random_state=0)
    # (w - 0) / 2, up to half a step of the public grid of the release
    grid = grid_for(0.1, t.weights)
    np.testing.assert_allclose(out.weights, [0.1, 0.2], atol=grid / 4 + 1e-9)
    np.testing.assert_array_equal(out.edges, t.edges)
    # Tiny epsilon: noise dwarfs the weights; all weights in (0, 1].
    out = release_tree_weights(t, 1e-6, sensitivity=0.1, weight_bounds=(0.0, 2.0),
                               random_state=0)
    assert np.all(out.weights > 0) and np.all(out.weights <= 1)
    raw = release_tree_weights(t, 1e-6, sensitivity=0.1, weight_bounds=(0.1, 2.0),
                               random_state=0, normalize=False)
    assert np.all((raw.weights >= 0.1) & (raw.weights <= 2.0))


def test_release_tree_weights_bounds_from_data_warns():
    t = minimum_spanning_tree(np.array([[0, .2, .9], [.2, 0, .4], [.9, .4, 0]]))
    with pytest.warns(PrivacyLeakWarning, match="computed from the private"):
        release_tree_weights(t, 1.0, sensitivity=0.1, random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="outside weight_bounds"):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0.0, 0.3),
                             random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0.0, 1.0),
                             random_state=0)


@pytest.mark.parametrize("bounds, match", [((1.0, 0.0), "low < high"),
                                           ((0.5, 0.5), "low < high"),
                                           ((-1.0, 1.0), ">= 0"),
                                           ((0.0, math.inf), "finite"),
                                           ((0.0,), "pair")])
def test_release_tree_weights_bad_bounds(bounds, match):
    t = minimum_spanning_tree(np.array([[0, .2], [.2, 0]]))
    with pytest.raises(ValueError, match=match):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=bounds)


def test_release_tree_weights_gaussian_needs_budget():
    t = minimum_spanning_tree(np.array([[0, .2], [.2, 0]]))
    with pytest.raises(ValueError, match="rho"):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0, 1),
                             mechanism="gaussian")
    out = release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0, 1),
                               mechanism="gaussian", delta=1e-6, random_state=0)
    assert out.weights.shape == (1,)
    with pytest.raises(ValueError, match="mechanism"):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0, 1),
                             mechanism="cauchy")


# --- Gumbel noise with unbounded tails (input perturbation, Gumbel-max) ------

class _Words:
    """A stand-in random_state whose 64-bit words are scripted, then random."""

    def __init__(self, words, seed=0):
        self._words = [np.uint64(w) for w in words]
        self._rng = np.random.default_rng(seed)
        self.bit_generator = self

    def random_raw(self, size):
        head, self._words = self._words[:size], self._words[size:]
        tail = self._rng.bit_generator.random_raw(size - len(head))
        return np.concatenate([np.array(head, dtype=np.uint64), tail])


def test_standard_gumbel_law_and_tails():
    # four seeded tests rejecting at p < 5e-8: false-failure rate < 2e-7
    g = standard_gumbel(400_000, np.random.default_rng(0))
    assert stats.kstest(g, "gumbel_r").pvalue > 5e-8
    # tail frequencies P(G > t) = 1 - exp(-exp(-t)) and P(G < t) = exp(-exp(-t))
    for t in (6.0, 9.0):
        p = -np.expm1(-np.exp(-t))
        k = np.count_nonzero(g > t)
        assert stats.binomtest(k, g.size, p).pvalue > 5e-8
    k = np.count_nonzero(g < -1.5)
    assert stats.binomtest(k, g.size, np.exp(-np.exp(1.5))).pvalue > 5e-8
    assert standard_gumbel((3, 4), np.random.default_rng(0)).shape == (3, 4)


def test_standard_gumbel_is_unbounded_beyond_numpys_range():
    # numpy's Gumbel lies in [-3.6, 36.7]: a candidate 40 behind never wins.
    top = 2 ** 63
    # U = 1 - x, x = 2**-64 (0 + 2**-64 * 1.5) after one refinement: G ~ 88
    g = standard_gumbel(1, _Words([top + 0, 1]))[0]
    assert 87.0 < g < 89.0
    # all-zero refinements: E underflows, G is the largest double (never NaN)
    g = standard_gumbel(1, _Words([top] + [0] * 40))[0]
    assert np.isfinite(g) and g > 1e300
    assert np.argmax(np.array([0.0, -1e6]) + np.array([0.0, g])) == 1
    assert np.argmax(np.array([0.0, -np.inf]) + np.array([0.0, g])) == 0
    # U near 0: E large, G down to -log(744)
    g = standard_gumbel(1, _Words([0] * 40))[0]
    assert -6.7 < g < -6.5


def test_gumbel_max_lag_of_60_is_possible():
    # A Gumbel-max choice with a candidate 60 behind: it wins for a finite
    # word sequence (so with positive probability), as in the exact law.
    # leader: U = 1/4; laggard: U = 1 - x, x ~ 2**-128 after two refinements
    words = [2 ** 62, 2 ** 63, 0, 1]
    g = standard_gumbel(2, _Words(words))
    assert g[1] - g[0] > 60.0
    assert np.argmax(np.array([0.0, -60.0]) + g) == 1


def test_mst_eligible_edges_path_queries_match_brute_force():
    import networkx as nx

    from skdpgraph.metrics import mst_eligible_edges

    rng = np.random.default_rng(3)
    for _ in range(5):
        n = 30
        G = nx.gnm_random_graph(n, 60, seed=int(rng.integers(1000)))
        for a, b in G.edges:
            G[a][b]["weight"] = float(rng.integers(1, 6))  # many ties
        A = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
        u, v, w, eligible = mst_eligible_edges(A)
        for a, b, x, ok in zip(u, v, w, eligible):
            H = nx.Graph([(p, q) for p, q, d in G.edges(data="weight") if d < x])
            H.add_nodes_from(range(n))
            assert ok == (not nx.has_path(H, int(a), int(b)))


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
    # Keys with zeros, negatives and many ties: the forest is the one of
    # Kruskal's algorithm over (key, edge index), whatever the key range.
    from skdpgraph.utils import mst_edge_indices

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    pairs = np.unique(rng.integers(0, n * n, size=4 * n))
    u, v = pairs // n, pairs % n
    keep = u < v
    u, v = u[keep], v[keep]
    key = rng.integers(-3, 4, size=u.size).astype(float) * 0.5
    if seed % 4 == 0:
        key = np.abs(key) + 1.0  # positive keys: scipy's own path
    got = mst_edge_indices(u, v, key, n)
    if seed % 4 == 0:
        # Any minimum forest: same size and total key.
        ref = _kruskal_by_key_then_index(u, v, key, n)
        assert got.size == len(ref) and key[got].sum() == key[ref].sum()
    else:
        assert got.tolist() == _kruskal_by_key_then_index(u, v, key, n)
