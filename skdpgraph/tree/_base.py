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

from ..utils import check_graph, edges_to_csr, graph_edges


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
    """:class:`SpanningTree` from an edge list (endpoints in any order).

    Parameters
    ----------
    u, v : array-like of int
        Endpoints of the edges.
    w : array-like of float
        Their weights.
    n : int
        Number of nodes.

    Returns
    -------
    SpanningTree
    """
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.argsort(lo * int(n) + hi)
    lo, hi, w = lo[order], hi[order], w[order]
    return SpanningTree(edges_to_csr(lo, hi, w, n), np.column_stack([lo, hi]), w)


def as_graph(graph, check_input=True, what="graph"):
    """The canonical form of a tree mechanism's input (the library's one gateway).

    Every tree function validates its ``graph`` here with
    :func:`skdpgraph.utils.check_graph`; ``check_input=False`` skips the
    check for a graph that already is canonical (as estimators pass it).
    """
    if not check_input:
        return graph
    return check_graph(graph, metric="precomputed", what=what)


def is_forest(graph):
    """Whether a canonical sparse graph is a forest (acyclic)."""
    if not sp.issparse(graph):
        return graph.shape[0] == 2  # a complete graph is a tree only on 2 nodes
    n = graph.shape[0]
    m = (graph.nnz) // 2
    if m > max(n - 1, 0):  # a forest has at most n - 1 edges
        return False
    n_comp, _ = connected_components(graph, directed=False)
    return m == n - n_comp


def check_tree(tree, what="tree"):
    """A weighted forest given in any accepted form, as a :class:`SpanningTree`.

    Parameters
    ----------
    tree : SpanningTree, sparse matrix or array-like
        A :class:`SpanningTree` (used as is), or a graph (anything
        :func:`skdpgraph.utils.check_graph` accepts) that must be a forest.
    what : str, default="tree"
        Name used in error messages.

    Returns
    -------
    SpanningTree
    """
    if isinstance(tree, SpanningTree):  # canonical by construction
        return tree
    graph = check_graph(tree, metric="precomputed", what=what)
    if not sp.issparse(graph):
        if graph.shape[0] != 2:
            raise ValueError(
                f"{what} must be a spanning tree or forest; a dense matrix is a "
                "complete graph, which is a tree only for 2 nodes. Pass a sparse "
                "tree (for example skdpgraph.minimum_spanning_tree(X).tree)."
            )
        return make_spanning_tree([0], [1], [graph[0, 1]], 2)
    n = graph.shape[0]
    m = graph.nnz // 2
    n_comp, _ = connected_components(graph, directed=False)
    if m != n - n_comp:
        raise ValueError(
            f"{what} must be a forest (acyclic): it has {m} edges on "
            f"{n} nodes in {n_comp} component(s), so it contains "
            f"{m - n + n_comp} cycle(s)."
        )
    u, v, w = graph_edges(graph)
    return SpanningTree(graph, np.column_stack([u, v]), w)
