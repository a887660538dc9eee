"""Sparse-graph helpers of skdpgraph.utils against scipy."""

import numpy as np
import pytest
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
