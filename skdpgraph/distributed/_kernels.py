"""Compiled kernel of the distributed spanning forest (imported lazily: numba)."""

import numba
import numpy as np


@numba.njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


@numba.njit(cache=True)
def kruskal_keep(a, b, n_nodes):
    """Which edges Kruskal's algorithm keeps, for edges already in key order.

    Parameters
    ----------
    a, b : ndarray of int32 or int64, shape (m,)
        Endpoints of the edges in ``0..n_nodes-1``, sorted by increasing key
        (ties already broken).
    n_nodes : int

    Returns
    -------
    keep : ndarray of bool, shape (m,)
        The edges of the minimum spanning forest: an edge is kept when it
        joins two different trees of the edges kept before it.
    """
    m = a.size
    parent = np.arange(n_nodes)
    size = np.ones(n_nodes, dtype=np.int64)
    keep = np.zeros(m, dtype=np.bool_)
    joined = 0
    for i in range(m):
        if joined == n_nodes - 1:
            break
        x = _find(parent, a[i])
        y = _find(parent, b[i])
        if x == y:
            continue
        if size[x] < size[y]:
            x, y = y, x
        parent[y] = x
        size[x] += size[y]
        keep[i] = True
        joined += 1
    return keep
