"""Synthetic graphs of the papers."""


import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.sparse.csgraph import connected_components

from skdpgraph.cluster import DBMSTClu
from skdpgraph.datasets import (
    make_homogeneous_circles,
    make_homogeneous_moons,
    make_lfr_graph,
    make_weighted_erdos_renyi,
)
from skdpgraph.metrics import check_homogeneity
from skdpgraph.utils import check_graph


def _is_canonical(G):
    assert isinstance(G, sp.csr_array) and G.dtype == np.float64
    assert (G != G.T).nnz == 0
    assert np.all(G.diagonal() == 0) and G.has_sorted_indices
    assert check_graph(G).nnz == G.nnz  # nothing to canonicalise away


@pytest.mark.parametrize("make", [make_homogeneous_moons, make_homogeneous_circles])
def test_homogeneous_datasets(make):
    data = make(random_state=0)
    G, y, X = data.graph, data.labels, data.positions
    _is_canonical(G)
    assert G.shape == (100, 100) and y.shape == (100,) and X.shape == (100, 2)
    assert np.bincount(y).tolist() == [50, 50]
    assert G.data.min() > 0 and G.max() == 1.0
    assert connected_components(G, directed=False)[0] == 1
    # the construction of UAI Section 4: inside weights in [0.1, 0.3] (before
    # scaling), leaving weights above 0.3^2 / 0.1 = 0.9, hence strongly homogeneous
    coo = sp.coo_array(G)
    same = y[coo.row] == y[coo.col]
    raw = coo.data * data.scale
    assert raw[same].min() >= 0.1 - 1e-12 and raw[same].max() <= 0.3 + 1e-12
    assert raw[~same].min() > 0.9
    np.testing.assert_allclose(raw, np.linalg.norm(X[coo.row] - X[coo.col], axis=1),
                               rtol=1e-12)
    report = check_homogeneity(G, y)
    assert report.all_strong and report.all_weak


@pytest.mark.parametrize("make", [make_homogeneous_moons, make_homogeneous_circles])
def test_dbmstclu_recovers_homogeneous_clusters(make):
    # Corollary 3.1 of the UAI paper: weakly homogeneous clusters are
    # recovered exactly by DBMSTClu on the MST.
    for seed in range(3):
        data = make(random_state=seed)
        labels = DBMSTClu(metric="precomputed").fit(data.graph).labels_
        assert (labels == data.labels).all() or (labels == 1 - data.labels).all()


def test_homogeneous_reproducible_and_parameters():
    a = make_homogeneous_moons(random_state=5)
    b = make_homogeneous_moons(random_state=5)
    assert (a.graph != b.graph).nnz == 0 and np.array_equal(a.positions, b.positions)
    c = make_homogeneous_moons(60, noise=0.02, w_min=0.06, w_max=0.3, random_state=1)
    assert c.graph.shape == (60, 60)
    assert check_homogeneity(c.graph, c.labels).all_strong


def test_homogeneous_retries_then_fails():
    # Far too much noise: no draw has connected clusters.
    with pytest.raises(RuntimeError, match="connected"):
        make_homogeneous_moons(noise=2.0, max_tries=3, random_state=0)


def test_homogeneous_bad_input():
    with pytest.raises(ValueError, match="w_min must be smaller"):
        make_homogeneous_moons(w_min=0.3, w_max=0.1)
    with pytest.raises(ValueError, match="w_max"):
        make_homogeneous_circles(w_max=1.5)
    with pytest.raises(ValueError, match="w_min"):
        make_homogeneous_circles(w_min=0.0)
    with pytest.raises(ValueError, match="n_samples"):
        make_homogeneous_moons(1)
    with pytest.raises(ValueError, match="factor"):
        make_homogeneous_circles(factor=1.0)
    with pytest.raises(TypeError):
        make_homogeneous_moons(10.5)


# ---------------------------------------------------------------------------
# Erdos-Renyi
# ---------------------------------------------------------------------------

def test_erdos_renyi_basic():
    data = make_weighted_erdos_renyi(200, 0.3, random_state=0)
    G = data.graph
    _is_canonical(G)
    assert data.labels is None and data.positions is None and data.n_components == 1
    w = sp.triu(G, 1).data
    assert w.min() >= 0 and w.max() < 10
    # Two checks, each at 5e-8: the test fails by chance with probability < 1e-7.
    # edge count: Binomial(19900, 0.3), exact two-sided quantiles
    n_pairs = 200 * 199 // 2
    lo, hi = stats.binom.ppf([2.5e-8, 1 - 2.5e-8], n_pairs, 0.3)
    assert lo <= w.size <= hi
    # weights U(0, 10): Kolmogorov-Smirnov on about 6,000 weights (a range off by
    # 5 %, U(0, 9.5), gives p ~ 4e-10 here)
    assert stats.kstest(w, stats.uniform(0, 10).cdf).pvalue > 5e-8


@pytest.mark.slow
def test_erdos_renyi_pairs_are_uniform():
    # Every pair is an edge with probability p: counts over many graphs.
    n, p, runs = 6, 0.4, 3000
    rng = np.random.default_rng(0)
    counts = np.zeros((n, n))
    for _ in range(runs):
        counts += make_weighted_erdos_renyi(n, p, ensure_connected=False,
                                            random_state=rng).graph.toarray() > 0
    iu = np.triu_indices(n, 1)
    # 15 two-sided binomial checks: each at 1e-6 / 15
    lo, hi = stats.binom.ppf([1e-6 / 30, 1 - 1e-6 / 30], runs, p)
    assert np.all((counts[iu] >= lo) & (counts[iu] <= hi))


def test_erdos_renyi_large_sparse_path():
    data = make_weighted_erdos_renyi(4000, 0.002, ensure_connected=False, random_state=1)
    m = data.graph.nnz // 2
    n_pairs = 4000 * 3999 // 2
    lo, hi = stats.binom.ppf([0.5e-6, 1 - 0.5e-6], n_pairs, 0.002)
    assert lo <= m <= hi
    _is_canonical(data.graph)


def test_erdos_renyi_edge_cases_and_connectivity_policy():
    full = make_weighted_erdos_renyi(10, 1.0, weight_range=(1.0, 2.0), random_state=0)
    assert full.graph.nnz == 90 and full.graph.data.min() >= 1.0
    empty = make_weighted_erdos_renyi(10, 0.0, ensure_connected=False, random_state=0)
    assert empty.graph.nnz == 0 and empty.n_components == 10
    with pytest.raises(RuntimeError, match="disconnected"):
        make_weighted_erdos_renyi(10, 0.0, max_tries=5, random_state=0)
    # redraws until connected: n_tries > 1 happens for a sparse G(n, p)
    data = make_weighted_erdos_renyi(30, 0.12, random_state=3)
    assert data.n_components == 1
    a = make_weighted_erdos_renyi(50, 0.2, random_state=9)
    b = make_weighted_erdos_renyi(50, 0.2, random_state=9)
    assert (a.graph != b.graph).nnz == 0


def test_erdos_renyi_bad_input():
    for p in (-0.1, 1.1, float("nan")):
        with pytest.raises(ValueError, match="p must be in"):
            make_weighted_erdos_renyi(10, p)
    with pytest.raises(ValueError, match="n_nodes"):
        make_weighted_erdos_renyi(1, 0.5)
    with pytest.raises(ValueError, match="weight_range"):
        make_weighted_erdos_renyi(10, 0.5, weight_range=(5, 1))
    with pytest.raises(ValueError, match="weight_range"):
        make_weighted_erdos_renyi(10, 0.5, weight_range=(-1, 1))
    with pytest.raises(TypeError, match="weight_range"):
        make_weighted_erdos_renyi(10, 0.5, weight_range=3)


# ---------------------------------------------------------------------------
# LFR
# ---------------------------------------------------------------------------

def test_lfr_graph():
    data = make_lfr_graph(random_state=0)
    G, y = data.graph, data.labels
    _is_canonical(G)
    assert G.shape == (506, 506) and y.shape == (506,) and data.positions is None
    assert np.all(G.data == 1.0)
    density = (G.nnz // 2) / (506 * 505 / 2)
    assert 0.008 < density < 0.02           # Muelle et al.: 1% to 2.5%
    assert 25 <= y.max() + 1 <= 60          # about 40 communities
    # mixing: most edges stay inside their community (mu = 0.1)
    coo = sp.coo_array(G)
    assert np.mean(y[coo.row] == y[coo.col]) > 0.8
    # the recorded seed reproduces the graph with networkx directly
    H = nx.LFR_benchmark_graph(506, 2.5, 1.5, 0.1, min_degree=3, max_degree=25,
                               min_community=5, max_community=35, seed=data.seed)
    H.remove_edges_from(nx.selfloop_edges(H))
    assert H.number_of_edges() == G.nnz // 2


def test_lfr_retry_policy(monkeypatch):
    calls = []
    real = nx.LFR_benchmark_graph

    def flaky(*args, seed=None, **kwargs):
        calls.append(seed)
        if len(calls) < 3:
            raise nx.ExceededMaxIterations("no convergence")
        return real(*args, seed=seed, **kwargs)

    monkeypatch.setattr(nx, "LFR_benchmark_graph", flaky)
    data = make_lfr_graph(random_state=1)
    assert data.n_tries == 3 and data.seed == calls[-1] and len(set(calls)) == 3
    # deterministic given random_state: the same seeds are tried again
    calls_first = list(calls)
    calls.clear()
    make_lfr_graph(random_state=1)
    assert calls == calls_first

    def never(*args, **kwargs):
        raise nx.ExceededMaxIterations("no convergence")

    monkeypatch.setattr(nx, "LFR_benchmark_graph", never)
    with pytest.raises(RuntimeError, match="did not converge in 4 attempts"):
        make_lfr_graph(max_tries=4, random_state=0)


def test_lfr_bad_input():
    with pytest.raises(ValueError, match="tau1"):
        make_lfr_graph(tau1=1.0)
    with pytest.raises(ValueError, match="mu"):
        make_lfr_graph(mu=1.5)
    with pytest.raises(ValueError, match="n_nodes"):
        make_lfr_graph(1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(min_community=2, max_community=2), "no node fits in a community"),
    (dict(min_community=1, max_community=1), "no node fits in a community"),
    (dict(min_degree=30, max_degree=40, max_community=20), "no node fits in a community"),
    (dict(average_degree=5e-324), r"average_degree must be in \[1, 25\]"),
])
def test_lfr_bounds_no_attempt_can_meet_are_refused_up_front(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_lfr_graph(500, random_state=0, **kwargs)


@pytest.mark.parametrize("n", [2**31 + 1, 2**63])
def test_erdos_renyi_node_counts_past_the_pair_numbers_are_refused(n):
    with pytest.raises(ValueError, match="n_nodes must be <= 2147483648"):
        make_weighted_erdos_renyi(n, 1e-12)
