"""Compiled loops (numba) of the rooting of a forest (:func:`._rooted.root_forest`).

Imported by :mod:`._rooted` inside the function that needs them, so that
``import skdpgraph`` does not import numba.
"""

import numba
import numpy as np

from ..utils._sparse_kernels import symmetric_csr


@numba.njit(cache=True)
def root_forest_arrays(u, v, n):
    """Parents, DFS preorder (children in increasing node order), sizes and depths.

    Each component is rooted at its smallest node, components come in the
    order of their roots. Three linear passes: the parents by a
    breadth-first search over the adjacency (a counting sort of the
    edges), the children of every node in increasing order (a counting
    sort of the nodes by parent), and the preorder by a depth-first search
    with an explicit stack.

    Returns ``(order, parent, parent_edge, size, depth, roots)``;
    ``parent_edge[x]`` is the index in ``u, v`` of the edge from ``x`` to
    its parent (-1 for roots).
    """
    indptr, other, edge = symmetric_csr(u, v, n)

    # Parents: a breadth-first search from each smallest unvisited node.
    parent = np.full(n, -1, dtype=np.int64)
    parent_edge = np.full(n, -1, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    roots = np.empty(n, dtype=np.int64)
    n_roots = 0
    head = tail = 0
    for s in range(n):
        if seen[s]:
            continue
        roots[n_roots] = s
        n_roots += 1
        seen[s] = True
        queue[tail] = s
        tail += 1
        while head < tail:
            x = queue[head]
            head += 1
            for j in range(indptr[x], indptr[x + 1]):
                y = other[j]
                if not seen[y]:
                    seen[y] = True
                    parent[y] = x
                    parent_edge[y] = edge[j]
                    queue[tail] = y
                    tail += 1

    # Children of every node, in increasing node order.
    first = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        if parent[x] >= 0:
            first[parent[x] + 1] += 1
    for x in range(n):
        first[x + 1] += first[x]
    fill = first[:n].copy()
    children = np.empty(max(n - n_roots, 0), dtype=np.int64)
    for x in range(n):
        p = parent[x]
        if p >= 0:
            children[fill[p]] = x
            fill[p] += 1

    # Preorder: pop a node, push its children from the largest down.
    order = np.empty(n, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    stack = queue  # reused: the stack never holds more than n nodes
    k = 0
    for r in range(n_roots):
        top = 0
        stack[top] = roots[r]
        top += 1
        while top > 0:
            top -= 1
            x = stack[top]
            order[k] = x
            k += 1
            for j in range(first[x + 1] - 1, first[x] - 1, -1):
                y = children[j]
                depth[y] = depth[x] + 1
                stack[top] = y
                top += 1
    size = np.ones(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        x = order[i]
        if parent[x] >= 0:
            size[parent[x]] += size[x]
    return order, parent, parent_edge, size, depth, roots[:n_roots].copy()
