"""Exact minimum spanning trees (forests): scipy on sparse graphs, one Prim on dense ones."""

import numpy as np
import scipy.sparse as sp

from ..utils import graph_edges, mst_edge_indices
from ..utils._sparse import pair_index
from ._base import SpanningTree, as_graph, is_forest, make_spanning_tree


def prim_dense(n, row_keys):
    """Prim's algorithm on a complete graph whose edge keys are read row by row.

    O(n^2) time and O(n) extra memory: the key of edge ``{v, x}`` is asked
    for exactly once, when the first of its endpoints joins the tree, so the
    caller may draw noise for it at that moment (the Laplace-MST and the
    input perturbation of a dense graph do) and the result is the exact MST
    of the keys so drawn.

    Parameters
    ----------
    n : int
        Number of nodes.
    row_keys : callable
        ``row_keys(v, rest)`` returns the keys (float array) of the edges
        from node ``v`` to the nodes ``rest``; ``inf`` marks a non-edge.

    Returns
    -------
    u, v : ndarray of int64
        Endpoints of the forest's edges, in the order Prim adds them.
    key : ndarray of float64
        The key of each edge.
    """
    us = np.empty(max(n - 1, 0), dtype=np.int64)
    vs = np.empty(max(n - 1, 0), dtype=np.int64)
    keys = np.empty(max(n - 1, 0))
    rest = np.arange(1, n)
    best = np.asarray(row_keys(0, rest), dtype=np.float64).copy()
    parent = np.zeros(n - 1, dtype=np.int64)
    m = 0
    while rest.size:
        j = int(np.argmin(best))
        v = int(rest[j])
        if best[j] < np.inf:  # otherwise v starts a new component (-inf is an edge)
            us[m], vs[m], keys[m] = parent[j], v, best[j]
            m += 1
        last = rest.size - 1
        rest[j], best[j], parent[j] = rest[last], best[last], parent[last]
        rest, best, parent = rest[:last], best[:last], parent[:last]
        if rest.size:
            key = row_keys(v, rest)
            upd = key < best
            best[upd] = key[upd]
            parent[upd] = v
    return us[:m], vs[:m], keys[:m]


def minimum_spanning_tree(graph, *, check_input=True):
    """Exact minimum spanning tree (forest) of a graph.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or sparse matrix
        A graph of distances (anything :func:`skdpgraph.utils.check_graph`
        accepts with ``metric="precomputed"``).
    check_input : bool, default=True
        Validate ``graph``; pass False only for a canonical graph.

    Returns
    -------
    SpanningTree
        One tree per connected component. Zero-weight edges are handled
        exactly (scipy's routine would read them as non-edges; see
        :func:`skdpgraph.utils.mst_edge_indices`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import minimum_spanning_tree
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> minimum_spanning_tree(D).edges.tolist()
    [[0, 1], [1, 2]]
    """
    graph = as_graph(graph, check_input)
    n = graph.shape[0]
    if not sp.issparse(graph):
        u, v, w = prim_dense(n, lambda x, rest: graph[x, rest])
        return make_spanning_tree(u, v, w, n, check_input=False)
    u, v, w = graph_edges(graph)
    idx = mst_edge_indices(u, v, w, n)
    return make_spanning_tree(u[idx], v[idx], w[idx], n, check_input=False)


def edge_list_mst(u, v, key, n, dense=False):
    """Positions of the minimum spanning forest's edges in an edge list.

    Parameters
    ----------
    u, v, key : ndarray of shape (m,)
        The edges and their keys, as :func:`skdpgraph.utils.graph_edges`
        lists them (for ``dense=True``: every pair ``u < v`` of ``n`` nodes,
        in row-major order).
    n : int
    dense : bool, default=False
        The list is a complete graph: Prim's algorithm in O(n^2) time and
        O(n) extra memory instead of sorting ``n^2 / 2`` keys.

    Returns
    -------
    idx : ndarray of int64
    """
    if not dense:
        return mst_edge_indices(u, v, key, n)
    top = np.finfo(np.float64).max

    def row_keys(x, rest):  # every pair is an edge: a key that overflowed to inf stays one
        return np.minimum(key[pair_index(np.minimum(x, rest), np.maximum(x, rest), n)], top)

    tu, tv, _ = prim_dense(n, row_keys)
    return pair_index(np.minimum(tu, tv), np.maximum(tu, tv), n)


def tree_from_graph(graph):
    """The canonical graph itself if it is a forest, else its exact MST.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        A canonical graph (:func:`skdpgraph.utils.check_graph`); it is not
        validated again.

    Returns
    -------
    SpanningTree
        A sparse graph that is a forest, with its own edges and weights;
        otherwise its minimum spanning forest
        (:func:`minimum_spanning_tree`).
    """
    if sp.issparse(graph) and is_forest(graph):
        u, v, w = graph_edges(graph)
        return SpanningTree(graph, np.column_stack([u, v]), w)
    return minimum_spanning_tree(graph, check_input=False)
