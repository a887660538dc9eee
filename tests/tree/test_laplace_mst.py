"""Laplace-MST: the exact MST of the noisy graph, and the noise's law."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from skdpgraph.privacy import grid_for
from skdpgraph.tree import laplace_mst, minimum_spanning_tree
from skdpgraph.utils import check_graph, edges_to_csr

#: Nominal level of the KS test (false-failure rate far below 1e-6).
ALPHA = 1e-8


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
