"""Spanning trees and forests of canonical graphs (exact, non-private).

A spanning tree is returned as a :class:`SpanningTree`: the tree as a
symmetric canonical CSR array plus its edge list. When the graph is
disconnected, the result is a spanning *forest*: one tree per connected
component (the topology is public, so this costs no privacy).
"""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as _scipy_mst

from ._graph import edges_to_csr, graph_edges

__all__ = [
    "SpanningTree",
    "make_spanning_tree",
    "minimum_spanning_tree",
    "is_forest",
    "tree_from_graph",
]


class SpanningTree(NamedTuple):
    """A spanning tree (or forest) of a graph with ``n`` nodes.

    Attributes
    ----------
    tree : scipy.sparse.csr_array of shape (n, n)
        Symmetric canonical CSR array of the tree; zero-weight edges are
        stored explicitly.
    edges : ndarray of shape (m, 2), dtype int64
        Tree edges ``(u, v)`` with ``u < v``, sorted lexicographically;
        ``m = n - n_components``.
    weights : ndarray of shape (m,)
        Weight of each edge in ``edges``.
    """

    tree: sp.csr_array
    edges: np.ndarray
    weights: np.ndarray


def make_spanning_tree(u, v, w, n):
    """:class:`SpanningTree` from an edge list (endpoints in any order)."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((hi, lo))
    lo, hi, w = lo[order], hi[order], w[order]
    return SpanningTree(edges_to_csr(lo, hi, w, n), np.column_stack([lo, hi]), w)


def _dense_prim(D):
    """Exact MST (forest) of a dense complete graph, O(n^2) time, O(n) memory.

    Entries ``D[i, j] = inf`` are non-edges; zeros are zero-weight edges.
    """
    n = D.shape[0]
    in_tree = np.zeros(n, dtype=bool)
    best = np.full(n, np.inf)
    parent = np.full(n, -1, dtype=np.int64)
    u_out, v_out, w_out = [], [], []
    in_tree[0] = True
    row = D[0]
    upd = row < best
    best[upd] = row[upd]
    parent[upd] = 0
    for _ in range(n - 1):
        cand = np.where(in_tree, np.inf, best)
        nxt = int(np.argmin(cand))
        if not np.isfinite(cand[nxt]):
            # New component: restart from the first node not yet reached.
            nxt = int(np.flatnonzero(~in_tree)[0])
        else:
            u_out.append(parent[nxt])
            v_out.append(nxt)
            w_out.append(cand[nxt])
        in_tree[nxt] = True
        row = D[nxt]
        upd = (row < best) & ~in_tree
        best[upd] = row[upd]
        parent[upd] = nxt
    return (np.asarray(u_out, dtype=np.int64), np.asarray(v_out, dtype=np.int64),
            np.asarray(w_out, dtype=np.float64))


def minimum_spanning_tree(graph):
    """Exact minimum spanning tree (forest) of a canonical graph.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        Canonical graph from :func:`skdpgraph.check_graph`.

    Returns
    -------
    SpanningTree
        One tree per connected component. Zero-weight edges are handled
        exactly (scipy's routine would read them as non-edges, so the sparse
        path works on weight ranks, which define the same MSTs).
    """
    n = graph.shape[0]
    if not sp.issparse(graph):
        u, v, w = _dense_prim(graph)
        return make_spanning_tree(u, v, w, n)
    u, v, w = graph_edges(graph)
    key = _nonzero_surrogate(w)
    upper = sp.csr_array((key, (u, v)), shape=(n, n))
    T = _scipy_mst(upper).tocoo()
    # Recover the true weights of the chosen edges.
    lo, hi = np.minimum(T.row, T.col), np.maximum(T.row, T.col)
    pos = np.searchsorted(u * n + v, lo.astype(np.int64) * n + hi)
    return make_spanning_tree(lo, hi, w[pos], n)


def _nonzero_surrogate(w):
    """Weights with the same order as ``w`` and no zero.

    scipy's MST reads a stored zero as a missing edge. The MST depends only
    on the order of the weights, so zeros are moved strictly between the
    negative and the positive weights (or ranks are used when no float fits).
    """
    zero = w == 0
    if not zero.any():
        return w
    positive = w[w > 0]
    if not positive.size:
        stand_in = 1.0
    else:
        stand_in = positive.min() / 2
    if stand_in > 0:
        key = w.copy()
        key[zero] = stand_in
        return key
    key = np.empty(w.size)
    key[np.argsort(w, kind="stable")] = np.arange(1, w.size + 1)
    return key


def is_forest(graph):
    """Whether a canonical sparse graph is a forest (acyclic)."""
    if not sp.issparse(graph):
        return graph.shape[0] == 2  # a complete graph is a tree only on 2 nodes
    n = graph.shape[0]
    m = (graph.nnz) // 2
    n_comp, _ = connected_components(graph, directed=False)
    return m == n - n_comp


def tree_from_graph(graph):
    """The graph itself if it is a forest, else its exact MST."""
    if sp.issparse(graph) and is_forest(graph):
        u, v, w = graph_edges(graph)
        return SpanningTree(graph, np.column_stack([u, v]), w)
    return minimum_spanning_tree(graph)
