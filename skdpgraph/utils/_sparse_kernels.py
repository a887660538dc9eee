"""Compiled loops (numba) of the sparse helpers: union-find components, Kruskal's forest,
a symmetric CSR, a breadth-first numbering.

Imported by :mod:`._sparse` inside the functions that need them, so that
``import skdpgraph`` does not import numba.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


@numba.njit(cache=True)
def _union(parent, a, b):
    # The smaller root stays a root: every root is its component's smallest node.
    a = _find(parent, a)
    b = _find(parent, b)
    if a < b:
        parent[b] = a
    elif b < a:
        parent[a] = b


@numba.njit(cache=True)
def _labels(parent):
    """Component labels numbered by smallest node, and their number."""
    n = parent.size
    labels = np.empty(n, dtype=np.int64)
    count = 0
    for x in range(n):
        root = _find(parent, x)
        if root == x:
            labels[x] = count
            count += 1
        else:
            labels[x] = labels[root]  # root < x: already labelled
    return count, labels


@numba.njit(cache=True)
def edge_components(u, v, n):
    """``(n_components, labels)`` of the graph with edges ``(u[e], v[e])`` on ``n`` nodes."""
    parent = np.arange(n)
    for e in range(u.size):
        _union(parent, u[e], v[e])
    return _labels(parent)


@numba.njit(cache=True)
def csr_components(indptr, indices):
    """``(n_components, labels)`` of the undirected graph of a CSR's stored entries."""
    n = indptr.size - 1
    parent = np.arange(n)
    for x in range(n):
        for j in range(indptr[x], indptr[x + 1]):
            _union(parent, x, indices[j])
    return _labels(parent)


@numba.njit(cache=True)
def kruskal_keep(a, b, parent, joined):
    """Which edges Kruskal's algorithm keeps, for edges already in key order.

    Parameters
    ----------
    a, b : ndarray of int32 or int64, shape (m,)
        Endpoints of the edges, sorted by increasing key (ties already
        broken). int32 endpoints and parents halve the memory traffic.
    parent : ndarray of the endpoints' dtype, shape (n_nodes,)
        Union-find forest of the edges kept before (``arange`` if none);
        updated in place.
    joined : int
        The number of edges kept before.

    Returns
    -------
    keep : ndarray of bool, shape (m,)
        The edges of the minimum spanning forest: an edge is kept when it
        joins two different trees of the edges kept before it.
    joined : int
        The number of edges kept in all.
    """
    m = a.size
    n_nodes = parent.size
    keep = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        if joined == n_nodes - 1:  # a spanning tree: no later edge joins two trees
            break
        x, y = _find(parent, a[i]), _find(parent, b[i])
        if x != y:
            parent[max(x, y)] = min(x, y)
            keep[i] = True
            joined += 1
    return keep, joined


@numba.njit(cache=True)
def joined_apart(a, b, parent):
    """Which edges join two different trees of the union-find forest ``parent``."""
    apart = np.empty(a.size, dtype=np.bool_)
    for i in range(a.size):
        apart[i] = _find(parent, a[i]) != _find(parent, b[i])
    return apart


@numba.njit(cache=True)
def symmetric_csr(u, v, n):
    """Both directions of the edges ``(u, v)`` grouped by source: a counting sort.

    Returns ``(indptr, neighbour, edge)``: the entries of node ``x`` are
    ``indptr[x]:indptr[x + 1]``, ``neighbour`` their other end and ``edge``
    the index of their edge in ``u, v``.
    """
    m = u.size
    indptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        indptr[u[e] + 1] += 1
        indptr[v[e] + 1] += 1
    for x in range(n):
        indptr[x + 1] += indptr[x]
    fill = indptr[:n].copy()
    neighbour = np.empty(2 * m, dtype=np.int64)
    edge = np.empty(2 * m, dtype=np.int64)
    for e in range(m):
        a, b = u[e], v[e]
        neighbour[fill[a]] = b
        edge[fill[a]] = e
        fill[a] += 1
        neighbour[fill[b]] = a
        edge[fill[b]] = e
        fill[b] += 1
    return indptr, neighbour, edge


@numba.njit(cache=True)
def breadth_first_order(indptr, neighbour):
    """Nodes in breadth-first order, each component from its smallest node.

    Returns ``(order, component_start)``: component ``c`` is
    ``order[component_start[c]:component_start[c + 1]]``.
    """
    n = indptr.size - 1
    order = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    start = np.empty(n + 1, dtype=np.int64)
    n_components = 0
    head = tail = 0
    for s in range(n):
        if seen[s]:
            continue
        start[n_components] = tail
        n_components += 1
        seen[s] = True
        order[tail] = s
        tail += 1
        while head < tail:
            x = order[head]
            head += 1
            for j in range(indptr[x], indptr[x + 1]):
                y = neighbour[j]
                if not seen[y]:
                    seen[y] = True
                    order[tail] = y
                    tail += 1
    start[n_components] = n
    return order, start[:n_components + 1].copy()
