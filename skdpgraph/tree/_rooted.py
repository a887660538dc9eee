"""Rooting a forest: DFS preorder, parents, depths, subtree aggregates and path queries.

The rooting is linear whatever the degrees and the depth: compiled loops
(:mod:`._rooted_kernels`) find the parents by a breadth-first search and
the DFS preorder (children in increasing node order) with an explicit
stack. :func:`path_max` answers many path queries at once by binary
lifting over the parent pointers (the one implementation of path queries
of the library: minima are maxima of negated values).
"""

from typing import NamedTuple

import numpy as np

from ..utils._validation import check_edge_list


class RootedForest(NamedTuple):
    """A forest rooted at the smallest node of each component.

    Attributes
    ----------
    order : ndarray of shape (n,)
        DFS preorder of all nodes; each component is a contiguous block that
        starts at its root (children visited in increasing node order).
    parent : ndarray of shape (n,)
        Parent of each node, -1 for component roots.
    parent_weight : ndarray of shape (n,)
        Weight of the edge to the parent, ``-inf`` for roots.
    parent_rank : ndarray of shape (n,)
        Index of the edge to the parent in the edges given to
        :func:`root_forest` (its rank in the lexicographic order of the
        forest's edges when they come sorted); -1 for roots.
    tin : ndarray of shape (n,)
        Position of each node in ``order``.
    size : ndarray of shape (n,)
        Number of nodes in the subtree of each node.
    comp_start : ndarray of shape (n_components + 1,)
        Component ``c`` occupies ``order[comp_start[c]:comp_start[c + 1]]``.
    depth : ndarray of shape (n,)
        Number of edges between each node and its component's root.
    """

    order: np.ndarray
    parent: np.ndarray
    parent_weight: np.ndarray
    parent_rank: np.ndarray
    tin: np.ndarray
    size: np.ndarray
    comp_start: np.ndarray
    depth: np.ndarray


def root_forest(edges, weights, n):
    """Root a forest given by its edge list.

    Linear in ``n`` whatever the degrees, the depth and the number of
    components: three passes of compiled loops (the parents by a
    breadth-first search, the children of every node by a counting sort,
    the preorder by a depth-first search with an explicit stack).

    Parameters
    ----------
    edges : ndarray of shape (m, 2)
        Forest edges ``(u, v)`` on ``n`` nodes, in any order and orientation
        (``parent_rank`` indexes this array: the rank in lexicographic order
        when the edges come as a :class:`SpanningTree` lists them).
    weights : ndarray of shape (m,)
        Real value of each edge (becomes ``parent_weight`` of its child end).
    n : int
        Number of nodes.

    Returns
    -------
    RootedForest

    Raises
    ------
    TypeError, ValueError
        If the edges are not a forest on ``n`` nodes listed as documented, or
        the weights are not one real number per edge.
    """
    from ._rooted_kernels import root_forest_arrays

    edges = np.asarray(edges)
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(f"edges must have shape (m, 2); got {edges.shape}.")
    u, v, n = check_edge_list(edges[:, 0], edges[:, 1], n, forest=True, what="root_forest",
                              node_bytes=64.0)  # eight int64 arrays a node at least
    weights = np.asarray(weights)
    if weights.shape != u.shape or (weights.size and weights.dtype.kind not in "biuf"):
        raise ValueError(f"weights must hold one real number per edge ({u.size}); got dtype "
                         f"{weights.dtype} and shape {weights.shape}.")
    weights = weights.astype(np.float64)
    order, parent, parent_edge, size, depth, roots = root_forest_arrays(
        np.ascontiguousarray(u), np.ascontiguousarray(v), n)
    # Weight and rank of each node's parent edge.
    child = parent_edge >= 0
    parent_weight = np.full(n, -np.inf)
    parent_weight[child] = weights[parent_edge[child]]
    tin = np.empty(n, dtype=np.int64)
    tin[order] = np.arange(n)
    comp_start = np.concatenate([tin[roots], [n]])
    return RootedForest(order, parent, parent_weight, parent_edge, tin, size, comp_start,
                        depth)


def path_max(forest, a, b):
    """Largest ``forest.parent_weight`` on the forest path between ``a[k]`` and ``b[k]``.

    Binary lifting: ``O(n log n)`` preprocessing (the ``2**j``-th ancestor of
    every node and the largest edge value on the way), then ``O(log n)``
    whole-array steps for all queries together. ``a[k]`` and ``b[k]`` must
    lie in the same tree (else ``ValueError``); an empty path (``a[k] ==
    b[k]``) gives ``-inf``. For path minima, root the forest on negated
    values and negate the result.

    Parameters
    ----------
    forest : RootedForest
        From :func:`root_forest`, with the edge values as weights.
    a, b : ndarray of int, shape (q,)
        The ends of the ``q`` paths, node numbers in ``0..n-1``.

    Returns
    -------
    ndarray of float64, shape (q,)
    """
    n = forest.parent.size
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1 or (a.size and a.dtype.kind not in "iu") or (
            b.size and b.dtype.kind not in "iu"):
        raise ValueError(f"a and b must be 1-D integer arrays of one shape; got {a.shape} "
                         f"and {b.shape}.")
    # Copies (lifted in place below); empty lists come as float64.
    a, b = a.astype(np.int64), b.astype(np.int64)
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError(f"nodes must be in [0, n) = [0, {n}).")
    tree_of = np.searchsorted(forest.comp_start, forest.tin, side="right") - 1
    if np.any(tree_of[a] != tree_of[b]):
        k = int(np.flatnonzero(tree_of[a] != tree_of[b])[0])
        raise ValueError(f"a[k] and b[k] must lie in the same tree; nodes {a[k]} and {b[k]} "
                         f"(k = {k}) do not.")
    up = np.where(forest.parent >= 0, forest.parent, np.arange(n))
    ups, tops = [up], [forest.parent_weight]
    for _ in range(1, max(1, int(forest.depth.max(initial=0)).bit_length())):
        prev_up, prev_top = ups[-1], tops[-1]
        ups.append(prev_up[prev_up])
        tops.append(np.maximum(prev_top, prev_top[prev_up]))
    swap = forest.depth[a] < forest.depth[b]
    a[swap], b[swap] = b[swap], a[swap]
    res = np.full(a.size, -np.inf)
    # Lift the deeper end to the depth of the other ...
    diff = forest.depth[a] - forest.depth[b]
    for j, (up_j, top_j) in enumerate(zip(ups, tops)):
        sel = np.flatnonzero((diff >> j) & 1)
        res[sel] = np.maximum(res[sel], top_j[a[sel]])
        a[sel] = up_j[a[sel]]
    # ... then both ends to just below their lowest common ancestor.
    for up_j, top_j in zip(reversed(ups), reversed(tops)):
        sel = np.flatnonzero(up_j[a] != up_j[b])
        res[sel] = np.maximum(res[sel], np.maximum(top_j[a[sel]], top_j[b[sel]]))
        a[sel] = up_j[a[sel]]
        b[sel] = up_j[b[sel]]
    last = np.flatnonzero(a != b)
    res[last] = np.maximum(res[last], np.maximum(tops[0][a[last]], tops[0][b[last]]))
    return res
