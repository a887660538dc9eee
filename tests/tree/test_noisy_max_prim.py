"""Tests of Prim's algorithm with Report-Noisy-Max steps.

The dense O(|V|^2) sampler is checked against the exact law of Prim with
exponential-mechanism steps from a uniformly random root (enumerated over
roots and over the orders in which a tree's edges can be added), then that
law is audited for worst-case neighbours: pure DP and Renyi divergences for
the zCDP calibration. Each chi-square test rejects at p < 1e-7 with a fixed
seed; with fewer than ten of them the file's false-failure rate is below
1e-6.
"""

import math

import numpy as np
import pytest
from _spanning_tree_reference import (
    chi_square_pvalue,
    neighbours,
    prim_em_log_law,
    random_k5,
    renyi_divergence,
    spanning_trees,
    tree_counts,
)

from skdpgraph.privacy import approx_dp_to_zcdp, noisy_max_prim_scale
from skdpgraph.tree import noisy_max_prim_tree
from skdpgraph.utils import check_graph, edges_to_csr, graph_edges

P_REJECT = 1e-7

AU = np.array([0, 1, 2, 0, 0])
AV = np.array([1, 2, 3, 3, 2])
AW = np.array([0.2, 0.5, 0.0, 0.6, 0.4])  # one zero-weight edge


def _audit_graph():
    return edges_to_csr(AU, AV, AW, 4)


def _counts(graph, trees, n_samples, seed, **kwargs):
    return tree_counts(noisy_max_prim_tree, graph, trees, n_samples, seed, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("graph_fn", [_audit_graph, random_k5])
def test_sampler_matches_the_prim_law(graph_fn):
    graph = graph_fn()
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    trees = spanning_trees(u, v, n)
    b, rho = noisy_max_prim_scale(sensitivity=0.05, n_tree_edges=n - 1, epsilon=1.0,
                                  delta=1e-3)
    assert rho == pytest.approx(approx_dp_to_zcdp(1.0, 1e-3))
    logp = prim_em_log_law(trees, u, v, w, n, b)
    counts = _counts(graph, trees, 4000, seed=9, epsilon=1.0, delta=1e-3, sensitivity=0.05)
    assert chi_square_pvalue(counts, np.exp(logp)) > P_REJECT


def test_pure_calibration_is_pamst():
    b, rho = noisy_max_prim_scale(sensitivity=0.1, n_tree_edges=99, epsilon=2.0)
    # PAMST: each of 99 steps gets 2/99 and P(e) ~ exp(-eps_step w / (2 mu))
    assert rho is None and 1.0 / b == pytest.approx((2.0 / 99) / (2 * 0.1))
    b, _ = noisy_max_prim_scale(sensitivity=0.1, n_tree_edges=99, rho=0.5)
    # zCDP: 99 steps of eps0 = 2 mu / b, each eps0^2 / 8
    assert 99 * (2 * 0.1 / b) ** 2 / 8 == pytest.approx(0.5)


@pytest.mark.slow
@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_pure_audit(neighborhood):
    eps, mu = 1.0, 0.25
    b, _ = noisy_max_prim_scale(sensitivity=mu, n_tree_edges=3, epsilon=eps)
    trees = spanning_trees(AU, AV, 4)
    base = prim_em_log_law(trees, AU, AV, AW, 4, b)
    worst = max(np.max(np.abs(prim_em_log_law(trees, AU, AV, w2, 4, b) - base))
                for w2 in neighbours(AW, mu, neighborhood))
    assert worst <= eps + 1e-9
    assert worst > 0.1 * eps


@pytest.mark.slow
def test_zcdp_audit():
    mu = 0.25
    rho = 0.02
    b, _ = noisy_max_prim_scale(sensitivity=mu, n_tree_edges=3, rho=rho)
    trees = spanning_trees(AU, AV, 4)
    base = prim_em_log_law(trees, AU, AV, AW, 4, b)
    worst_ratio = 0.0
    for w2 in neighbours(AW, mu, "linf"):
        other = prim_em_log_law(trees, AU, AV, w2, 4, b)
        for a in (1.5, 2.0, 4.0, 16.0, 64.0):
            for p, q in ((base, other), (other, base)):
                worst_ratio = max(worst_ratio, renyi_divergence(p, q, a) / (a * rho))
    assert worst_ratio <= 1.0 + 1e-9
    assert worst_ratio > 0.05


def test_forest_and_true_weights():
    u = np.array([0, 0, 1, 3, 5])
    v = np.array([1, 2, 2, 4, 6])
    w = np.array([0.1, 0.3, 0.2, 0.0, 0.7])
    graph = edges_to_csr(u, v, w, 8)  # components {0,1,2}, {3,4}, {5,6}, {7}
    for seed in range(20):
        T = noisy_max_prim_tree(graph, 1.0, sensitivity=0.1, random_state=seed)
        assert T.edges.shape == (4, 2)
        assert {(3, 4), (5, 6)} <= {tuple(e) for e in T.edges.tolist()}
        np.testing.assert_array_equal(T.weights, np.asarray(graph[T.edges[:, 0], T.edges[:, 1]]).ravel())


def test_large_budget_gives_the_mst():
    graph = check_graph(np.random.default_rng(0).random((60, 2)), metric="euclidean")
    from skdpgraph.tree import minimum_spanning_tree

    T = noisy_max_prim_tree(graph, 1e9, sensitivity=1e-3, random_state=0)
    np.testing.assert_array_equal(T.edges, minimum_spanning_tree(graph).edges)


def test_sparse_graph_uses_the_clock_race():
    rng = np.random.default_rng(1)
    n = 200
    u = np.arange(1, n)
    v = (rng.random(n - 1) * np.arange(1, n)).astype(np.int64)
    extra_u, extra_v = rng.integers(0, n, 400), rng.integers(0, n, 400)
    keep = extra_u != extra_v
    lo = np.concatenate([np.minimum(u, v), np.minimum(extra_u, extra_v)[keep]])
    hi = np.concatenate([np.maximum(u, v), np.maximum(extra_u, extra_v)[keep]])
    codes = np.unique(lo * n + hi)
    graph = edges_to_csr(codes // n, codes % n, rng.random(codes.size), n)
    T = noisy_max_prim_tree(graph, 1.0, delta=1e-6, sensitivity=0.1, random_state=0)
    assert T.edges.shape == (n - 1, 2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(epsilon=None), "exactly one"),
    (dict(rho=0.1), "exactly one"),
    (dict(delta=0.0), "delta"),
    (dict(epsilon=0.0), "epsilon"),
    (dict(sensitivity=-1.0), "sensitivity"),
    (dict(neighborhood="both"), "neighborhood"),
])
def test_bad_parameters(kwargs, match):
    params = dict(epsilon=1.0, sensitivity=0.1)
    params.update(kwargs)
    with pytest.raises(ValueError, match=match):
        noisy_max_prim_tree(random_k5(), **params)


def test_reproducible_and_input_untouched():
    graph = random_k5()
    before = graph.copy()
    a = noisy_max_prim_tree(graph, 1.0, sensitivity=0.1, random_state=5)
    b = noisy_max_prim_tree(graph, 1.0, sensitivity=0.1, random_state=5)
    np.testing.assert_array_equal(a.edges, b.edges)
    np.testing.assert_array_equal(graph, before)
    assert math.isfinite(a.weights.sum())


def test_a_scale_that_underflows_is_an_exact_mst():
    D = np.array([[0, 1, 9], [1, 0, 2], [9, 2, 0]], dtype=float)
    t = noisy_max_prim_tree(D, 1e308, sensitivity=1e-308, random_state=0)
    assert t.edges.tolist() == [[0, 1], [1, 2]]
