"""Sparse-graph helpers of skdpgraph.utils against scipy."""

import numpy as np
import scipy.sparse as sp

from skdpgraph.utils import edges_to_csr, n_components


def test_n_components_of_sparse_graphs():
    rng = np.random.default_rng(0)
    for n in (1, 2, 50, 3000):
        m = int(rng.integers(0, 2 * n))
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = u != v
        key = np.unique(np.minimum(u[keep], v[keep]) * n + np.maximum(u[keep], v[keep]))
        G = edges_to_csr(key // n, key % n, np.ones(key.size), n)
        expected = sp.csgraph.connected_components(G, directed=False)[0]
        assert n_components(G) == expected
