"""Compiled loops (numba) of the sparse helpers: union-find components, Kruskal's forest,
a symmetric CSR, the mirror check of a CSR, a breadth-first numbering, the bridges of a graph.

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
def mirror_difference(indptr, indices, data, average):
    """Largest ``|A[i, j] - A[j, i]|`` over the stored entries of a CSR ``A`` with sorted
    indices and no diagonal, or -1.0 if an entry is stored without its mirror; with
    ``average``, both entries of each pair become ``0.5 a + 0.5 b``.

    One pass in row order, no transpose: the mirrors ``(j, i)`` of the entries ``(i, j)``,
    ``i < j``, are the entries of row ``j`` below the diagonal, met in increasing ``i``, so
    each is the next unmatched entry of its row.
    """
    n = indptr.size - 1
    unmatched = indptr[:n].copy()  # per row, its next entry below the diagonal to match
    largest = 0.0
    for i in range(n):
        start, stop = unmatched[i], indptr[i + 1]
        if start < stop and indices[start] < i:
            return -1.0  # an entry below the diagonal that no earlier row mirrors
        for e in range(start, stop):
            j = indices[e]
            f = unmatched[j]
            if f == indptr[j + 1] or indices[f] != i:
                return -1.0
            unmatched[j] = f + 1
            a, b = data[e], data[f]
            largest = max(largest, abs(a - b))
            if average:
                data[e] = data[f] = 0.5 * a + 0.5 * b
    return largest


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


@numba.njit(cache=True)
def bridge_mask(indptr, neighbour, edge, n_edges):
    """Mask of the bridges of an undirected graph, in linear time.

    A bridge is an edge whose removal increases the number of connected
    components: the tree edge ``(p, x)`` of a depth-first forest is one
    exactly when no edge leaves the subtree of ``x`` other than itself,
    i.e. when the smallest preorder number reachable from that subtree by
    one edge other than ``(p, x)`` (its low-link) is that of ``x`` [T72]_.

    Parameters
    ----------
    indptr, neighbour, edge : ndarray of int64
        Both directions of the edges grouped by node (:func:`symmetric_csr`):
        the entries of node ``x`` are ``indptr[x]:indptr[x + 1]``,
        ``neighbour`` their other end and ``edge`` the index of their edge.
    n_edges : int
        Number of edges (``edge`` holds each of ``0 .. n_edges - 1`` twice).

    Returns
    -------
    bridge : ndarray of bool, shape (n_edges,)
        ``bridge[e]`` whether edge ``e`` is a bridge.

    Notes
    -----
    The depth-first search keeps its path on an explicit stack, with each
    node's next entry to look at, so that paths of millions of nodes need
    no recursion. The edge to the parent is skipped by its index, not by
    its other end: of two parallel edges neither is a bridge.

    References
    ----------
    .. [T72] R. E. Tarjan, "Depth-first search and linear graph algorithms",
       SIAM Journal on Computing 1 (1972).
    """
    n = indptr.size - 1
    bridge = np.zeros(n_edges, dtype=np.bool_)
    pre = np.full(n, -1, dtype=np.int64)  # preorder number; -1: not reached yet
    low = np.empty(n, dtype=np.int64)
    up_edge = np.empty(n, dtype=np.int64)  # the tree edge to the parent
    cursor = np.empty(n, dtype=np.int64)  # next entry of the node to look at
    path = np.empty(n, dtype=np.int64)  # the search's path from the root
    counter = 0
    for root in range(n):
        if pre[root] >= 0:
            continue
        pre[root] = low[root] = counter
        counter += 1
        up_edge[root] = -1
        cursor[root] = indptr[root]
        top = 0
        path[0] = root
        while top >= 0:
            x = path[top]
            x_low, x_up = low[x], up_edge[x]
            j, end = cursor[x], indptr[x + 1]
            while j < end:  # x's entries up to its next child, if any
                y = neighbour[j]
                if pre[y] < 0:
                    break
                # An edge back to an ancestor (the edge to the parent aside);
                # the ids are read for those only, not for every entry.
                if pre[y] < x_low and edge[j] != x_up:
                    x_low = pre[y]
                j += 1
            low[x] = x_low
            if j < end:  # a tree edge: go down to y
                cursor[x] = j + 1
                y = neighbour[j]
                pre[y] = low[y] = counter
                counter += 1
                up_edge[y] = edge[j]
                cursor[y] = indptr[y]
                top += 1
                path[top] = y
                continue
            # x is done: its low-link is final, hand it to its parent.
            top -= 1
            if top >= 0:
                p = path[top]
                if x_low < low[p]:
                    low[p] = x_low
                if x_low > pre[p]:
                    bridge[x_up] = True
    return bridge
