"""Tests of input perturbation (noise on every weight once, then an exact MST).

The Gumbel variant's privacy rests on one identity: the MST of ``w - b G``
has the law of Kruskal's algorithm choosing each edge by the exponential
mechanism ``~ exp(-w / b)`` among the edges that keep the forest acyclic. The
tests check that identity against an exact enumeration (chi-square), then
audit the exact law for worst-case neighbours (pure DP and Renyi divergences
for zCDP). Each chi-square test rejects at p < 1e-7 with a fixed seed; there
are fewer than ten in this file, so the false-failure rate is below 1e-6. The
noise checks of the Laplace and Gaussian variants use 6-sigma bounds on
averages of 4,000 draws (false failure ~2e-9 each).
"""

import math

import numpy as np
import pytest
from _spanning_tree_reference import (
    chi_square_pvalue,
    kruskal_em_log_law,
    neighbours,
    random_k5,
    renyi_divergence,
    spanning_trees,
    tree_counts,
)
from scipy import stats

from skdpgraph.privacy import (
    approx_dp_to_zcdp,
    input_perturbation_scale,
    release_laplace,
)
from skdpgraph.tree import input_perturbation_tree
from skdpgraph.utils import edges_to_csr, graph_edges

P_REJECT = 1e-7

# 4-cycle with a chord: 8 spanning trees, small enough for 3^5 neighbours.
AU = np.array([0, 1, 2, 0, 0])
AV = np.array([1, 2, 3, 3, 2])
AW = np.array([0.2, 0.5, 0.3, 0.6, 0.4])


def _audit_graph():
    return edges_to_csr(AU, AV, AW, 4)


def _counts(graph, trees, n_samples, seed, **kwargs):
    return tree_counts(input_perturbation_tree, graph, trees, n_samples, seed, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("graph_fn", [_audit_graph, random_k5])
def test_gumbel_mst_is_the_sequential_exponential_mechanism(graph_fn):
    graph = graph_fn()
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, n)
    eps, mu = 1.0, 0.05
    b, rho = input_perturbation_scale("gumbel", sensitivity=mu, neighborhood="linf",
                                      n_tree_edges=n - 1, n_edges=u.size, epsilon=eps)
    assert rho is None and b == pytest.approx(2 * (n - 1) * mu / eps)
    logp = kruskal_em_log_law(trees, u, v, w, n, b)
    counts = _counts(graph, trees, 4000, seed=3, epsilon=eps, sensitivity=mu)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


@pytest.mark.slow
def test_gumbel_law_on_a_forest():
    # two components: a triangle and an edge
    u = np.array([0, 0, 1, 3])
    v = np.array([1, 2, 2, 4])
    w = np.array([0.1, 0.3, 0.2, 0.5])
    graph = edges_to_csr(u, v, w, 5)
    trees = spanning_trees(u, v, 5)
    b, _ = input_perturbation_scale("gumbel", sensitivity=0.1, neighborhood="linf",
                                    n_tree_edges=3, n_edges=4, epsilon=2.0)
    logp = kruskal_em_log_law(trees, u, v, w, 5, b)
    counts = _counts(graph, trees, 3000, seed=5, epsilon=2.0, sensitivity=0.1)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


@pytest.mark.slow
@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_gumbel_pure_audit(neighborhood):
    eps, mu = 1.0, 0.25
    b, _ = input_perturbation_scale("gumbel", sensitivity=mu, neighborhood=neighborhood,
                                    n_tree_edges=3, n_edges=5, epsilon=eps)
    trees = spanning_trees(AU, AV, 4)
    base = kruskal_em_log_law(trees, AU, AV, AW, 4, b)
    worst = max(np.max(np.abs(kruskal_em_log_law(trees, AU, AV, w2, 4, b) - base))
                for w2 in neighbours(AW, mu, neighborhood))
    assert worst <= eps + 1e-9
    assert worst > 0.1 * eps  # the audit sees a real privacy loss


@pytest.mark.slow
def test_gumbel_zcdp_audit():
    """Renyi divergences of the exact tree law obey D_alpha <= alpha rho."""
    mu = 0.25
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    b, rho_used = input_perturbation_scale("gumbel", sensitivity=mu, neighborhood="linf",
                                           n_tree_edges=3, n_edges=5, epsilon=1.0,
                                           delta=1e-6)
    assert rho_used == pytest.approx(rho)
    assert b == pytest.approx(mu * math.sqrt(3 / (2 * rho)))
    trees = spanning_trees(AU, AV, 4)
    base = kruskal_em_log_law(trees, AU, AV, AW, 4, b)
    alphas = [1.5, 2.0, 4.0, 16.0, 64.0]
    worst_ratio = 0.0
    for w2 in neighbours(AW, mu, "linf"):
        other = kruskal_em_log_law(trees, AU, AV, w2, 4, b)
        for a in alphas:
            for p, q in ((base, other), (other, base)):
                worst_ratio = max(worst_ratio, renyi_divergence(p, q, a) / (a * rho))
    assert worst_ratio <= 1.0 + 1e-9
    assert worst_ratio > 0.05


@pytest.mark.slow
def test_too_little_gumbel_noise_fails_the_audit():
    # Noise calibrated for one step instead of |V| - 1 steps.
    eps, mu = 1.0, 0.25
    b_wrong = 2 * mu / eps
    trees = spanning_trees(AU, AV, 4)
    base = kruskal_em_log_law(trees, AU, AV, AW, 4, b_wrong)
    worst = max(np.max(np.abs(kruskal_em_log_law(trees, AU, AV, w2, 4, b_wrong) - base))
                for w2 in neighbours(AW, mu, "linf"))
    assert worst > eps


def test_gumbel_returns_true_weights_dense_and_sparse():
    for graph in (random_k5(), _audit_graph()):
        T = input_perturbation_tree(graph, 1.0, sensitivity=0.1, random_state=0)
        np.testing.assert_array_equal(T.weights, np.asarray(graph[T.edges[:, 0], T.edges[:, 1]]).ravel())


def test_scales_by_hand():
    kw = dict(sensitivity=0.5, n_tree_edges=9, n_edges=40)
    assert input_perturbation_scale("laplace", neighborhood="l1", epsilon=2.0, **kw)[0] == 0.25
    assert input_perturbation_scale("laplace", neighborhood="linf", epsilon=2.0, **kw)[0] == 10.0
    s, rho = input_perturbation_scale("gaussian", neighborhood="linf", rho=0.5, **kw)
    assert (s, rho) == (pytest.approx(math.sqrt(40) * 0.5), 0.5)
    s, _ = input_perturbation_scale("gaussian", neighborhood="l1", rho=0.5, **kw)
    assert s == pytest.approx(0.5)
    b, _ = input_perturbation_scale("gumbel", neighborhood="linf", rho=0.5, **kw)
    assert b == pytest.approx(0.5 * 3.0)  # mu sqrt(9 / (2 * 0.5))
    b, _ = input_perturbation_scale("gumbel", neighborhood="l1", epsilon=3.0, **kw)
    assert b == pytest.approx(2 * 9 * 0.5 / 3.0)


def _path_graph(m, rng):
    w = rng.random(m)
    return edges_to_csr(np.arange(m), np.arange(1, m + 1), w, m + 1), w


@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_laplace_noise_is_released_at_the_right_scale(neighborhood):
    # On a path (a tree) every noisy MST is the path itself: the release is
    # the true weights plus the noise, one draw per edge.
    m = 4000
    graph, w = _path_graph(m, np.random.default_rng(0))
    eps, mu = 1.0, 1e-4
    T = input_perturbation_tree(graph, eps, sensitivity=mu, neighborhood=neighborhood,
                                noise="laplace", random_state=1)
    scale = mu / eps if neighborhood == "l1" else m * mu / eps
    noise = T.weights - w
    # E|X| = scale, sd(|X|) = scale: 6 sigma on the mean of 4000
    assert abs(np.mean(np.abs(noise)) / scale - 1) < 6 / math.sqrt(m)
    assert stats.kstest(noise / scale, "laplace").pvalue > P_REJECT
    # Analytic audit of the release: the log density ratio of the noisy
    # vector for neighbours w and w' is at most ||w - w'||_1 / scale, and
    # the worst neighbour of the neighbourhood reaches exactly epsilon.
    worst_shift = mu if neighborhood == "l1" else m * mu
    assert worst_shift / scale == pytest.approx(eps)


@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_gaussian_noise_is_released_at_the_right_scale(neighborhood):
    m = 4000
    graph, w = _path_graph(m, np.random.default_rng(2))
    rho, mu = 0.5, 1e-3
    T = input_perturbation_tree(graph, sensitivity=mu, neighborhood=neighborhood,
                                noise="gaussian", rho=rho, random_state=3)
    sigma = (mu if neighborhood == "l1" else math.sqrt(m) * mu) / math.sqrt(2 * rho)
    noise = T.weights - w
    # sample variance / sigma^2 ~ chi2(m)/m: sd sqrt(2/m); 6 sigma bound
    assert abs(np.var(noise) / sigma ** 2 - 1) < 6 * math.sqrt(2 / m)
    assert stats.kstest(noise / sigma, "norm").pvalue > P_REJECT
    # zCDP of the Gaussian release: ||w - w'||_2^2 / (2 sigma^2) <= rho
    l2 = mu if neighborhood == "l1" else math.sqrt(m) * mu
    assert l2 ** 2 / (2 * sigma ** 2) == pytest.approx(rho)


def test_noisy_mst_is_the_exact_mst_of_the_noisy_weights():
    # Same seed: the tree is the MST of w + noise, found by brute force.
    graph = _audit_graph()
    u, v, w = graph_edges(graph)
    T = input_perturbation_tree(graph, 0.5, sensitivity=0.1, noise="laplace",
                                neighborhood="l1", random_state=4)
    noisy = release_laplace(w, 0.1, 0.5, np.random.default_rng(4))
    trees = spanning_trees(u, v, 4)
    best = min(trees, key=lambda t: noisy[list(t)].sum())
    assert {(int(u[e]), int(v[e])) for e in best} == {tuple(e) for e in T.edges.tolist()}
    np.testing.assert_allclose(np.sort(T.weights), np.sort(noisy[list(best)]))


def test_large_sparse_graph_is_fast_and_a_tree():
    rng = np.random.default_rng(0)
    n = 20000
    u = np.concatenate([np.arange(1, n), rng.integers(0, n, 60000)])
    v = np.concatenate([(rng.random(n - 1) * np.arange(1, n)).astype(np.int64),
                        rng.integers(0, n, 60000)])
    keep = u != v
    lo, hi = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    codes = np.unique(lo * n + hi)
    graph = edges_to_csr(codes // n, codes % n, rng.random(codes.size), n)
    T = input_perturbation_tree(graph, 1.0, delta=1e-6, sensitivity=0.01, random_state=0)
    assert T.edges.shape == (n - 1, 2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(noise="uniform"), "noise"),
    (dict(noise="gaussian"), "delta"),
    (dict(noise="laplace", epsilon=None, rho=0.1), "epsilon"),
    (dict(epsilon=None), "exactly one"),
    (dict(rho=0.1), "exactly one"),
    (dict(epsilon=None, rho=0.1, delta=1e-5), "delta"),
    (dict(delta=1.5), "delta"),
    (dict(rho=-1.0, epsilon=None), "rho"),
    (dict(epsilon=-1.0), "epsilon"),
    (dict(sensitivity=0.0), "sensitivity"),
    (dict(neighborhood="l0"), "neighborhood"),
])
def test_bad_parameters(kwargs, match):
    params = dict(epsilon=1.0, sensitivity=0.1)
    params.update(kwargs)
    with pytest.raises(ValueError, match=match):
        input_perturbation_tree(random_k5(), **params)


def test_input_not_modified_and_seed_reproducible():
    graph = random_k5()
    before = graph.copy()
    a = input_perturbation_tree(graph, 1.0, sensitivity=0.1, random_state=3)
    b = input_perturbation_tree(graph, 1.0, sensitivity=0.1, random_state=3)
    np.testing.assert_array_equal(graph, before)
    np.testing.assert_array_equal(a.edges, b.edges)


def test_noise_that_overflows_still_gives_a_spanning_tree():
    import scipy.sparse as sp

    D = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))
    for mu in (1e307, 1e308):
        for graph in (D, sp.csr_array(D)):
            t = input_perturbation_tree(graph, 1.0, sensitivity=mu, random_state=0)
            assert t.edges.shape == (5, 2) and np.all(np.isfinite(t.weights))


@pytest.mark.parametrize("noise, extra", [("gumbel", {}), ("laplace", {}),
                                          ("gaussian", {"delta": 1e-6})])
def test_a_graph_without_edges_gives_the_empty_forest(noise, extra):
    import scipy.sparse as sp

    t = input_perturbation_tree(sp.csr_array((3, 3)), 1.0, sensitivity=0.1, noise=noise,
                                random_state=0, **extra)
    assert t.edges.shape == (0, 2)


def test_keys_that_doubles_round_past_the_noise_scale_are_refused():
    # Weights near 2**52 round at 1, a fifth of the scale b = 5: keys w - b G tied and
    # broken by edge order (the law was off by 0.547 against 0.25). Refused by name.
    B = 2.0 ** 52 + 2
    D = np.array([[0, 0.5, B], [0.5, 0, B + 1], [B, B + 1, 0]])
    with pytest.raises(ValueError, match="passes 2\\*\\*32"):
        input_perturbation_tree(D, 2.0, sensitivity=1.0, random_state=0)
    D[D > 1] -= 2.0 ** 52  # the same differences, near 0: drawn
    assert input_perturbation_tree(D, 2.0, sensitivity=1.0, random_state=0).edges.shape == (2, 2)
