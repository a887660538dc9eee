"""Spanning trees and forests of canonical graphs (exact, non-private).

A spanning tree is returned as a :class:`SpanningTree`: the tree as a
symmetric canonical CSR array plus its edge list. When the graph is
disconnected, the result is a spanning *forest*: one tree per connected
component (the topology is public, so this costs no privacy).
"""

import math
import sys
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..utils import check_graph, edges_to_csr, graph_edges
from ..utils._validation import check_canonical_indices, check_edge_list


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


def make_spanning_tree(u, v, w, n, *, check_input=True):
    """:class:`SpanningTree` from an edge list (endpoints in any order).

    Parameters
    ----------
    u, v : array-like of int
        Endpoints of the edges, in ``[0, n)``.
    w : array-like of float
        Their weights (finite).
    n : int
        Number of nodes.
    check_input : bool, default=True
        Check that the edges form a forest on ``n`` nodes (no edge from a node
        to itself, no repeated pair, no cycle) and that the weights are
        finite; ``False`` skips it for edges known to be valid.

    Returns
    -------
    SpanningTree

    Raises
    ------
    TypeError
        If ``u`` or ``v`` is not 1-D integers, ``n`` not an integer, or ``w``
        not numbers.
    ValueError
        If the edges do not form a forest on ``n`` nodes, the shapes differ or
        a weight is not finite.
    """
    if check_input:
        u, v, n = check_edge_list(u, v, n, forest=True, what="make_spanning_tree")
        w = _check_weights(w, u.shape, "w")
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.argsort(lo * int(n) + hi)
    lo, hi, w = lo[order], hi[order], w[order]
    return SpanningTree(edges_to_csr(lo, hi, w, n), np.column_stack([lo, hi]), w)


def _check_weights(w, shape, what):
    w = np.asarray(w)
    if w.size and w.dtype.kind not in "biuf":
        raise TypeError(f"{what} must hold real numbers; got dtype {w.dtype}.")
    w = w.astype(np.float64, copy=False)
    if w.shape != shape:
        raise ValueError(f"{what} must have the shape of the edges, {shape}; got {w.shape}.")
    if not np.all(np.isfinite(w)):
        # No count: refusals name no value or count of the input (it may be private).
        raise ValueError(f"{what} contains NaN or infinite weights; weights must be finite.")
    return w


def _check_spanning_tree(tree, what):
    """A :class:`SpanningTree` built by hand is checked as :func:`make_spanning_tree`
    builds one: a forest, edges ``u < v`` in lexicographic order, finite weights. Its
    edges and weights define it (its sparse array gives the number of nodes and must
    store ``2 m`` entries). No copy is made of arrays of the canonical types."""
    graph, edges = tree.tree, np.asarray(tree.edges)
    if not sp.issparse(graph) or graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
        raise TypeError(f"{what}.tree must be a square scipy sparse array; got "
                        f"{type(graph).__name__}.")
    n = graph.shape[0]
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(f"{what}.edges must have shape (m, 2); got {edges.shape}.")
    u, v, _ = check_edge_list(edges[:, 0], edges[:, 1], n, forest=True, what=what)
    if np.any(u >= v) or np.any(u[1:] * n + v[1:] <= u[:-1] * n + v[:-1]):
        raise ValueError(f"{what}.edges must list (u, v) with u < v in lexicographic order; "
                         "build the tree with skdpgraph.tree.make_spanning_tree.")
    w = _check_weights(tree.weights, u.shape, f"{what}.weights")
    if graph.nnz != 2 * u.size:
        raise ValueError(f"{what}.tree stores {graph.nnz} entries; a forest of {u.size} "
                         f"edges stores {2 * u.size}. Build the tree with "
                         "skdpgraph.tree.make_spanning_tree.")
    if isinstance(tree.edges, np.ndarray) and edges.dtype == np.int64 and w is tree.weights:
        return tree
    return SpanningTree(graph, edges.astype(np.int64), w)


#: Largest ``c * (w_max - w_min)`` a tree mechanism uses (see :func:`capped_rate`).
MAX_LOG_SPREAD = 1e300

#: Largest log-weight ``c |w|`` the exponential mechanism's sampler takes, and largest
#: key ``|w| / b`` of the Gumbel input perturbation, in units of the noise: doubles of
#: that size round by at most ``2**-20``, so sums and comparisons keep the law's odds to
#: about that. Past it they round by O(1) (at ``2**52``: by 1), and both the law and the
#: privacy loss are lost (measured: a loss of 4.6 at epsilon 2 with weights near 2**52).
EXACT_LOG_SPREAD = 2.0 ** 32


def check_exact_log_spread(scale, magnitude, what, after=""):
    """Refuse ``scale * magnitude > EXACT_LOG_SPREAD`` (``magnitude``: the largest
    ``|w|``, of the data or of the public bounds): the mechanism's doubles could not
    draw its law. The message names the public ``scale`` only."""
    if magnitude > 0 and not scale * magnitude <= EXACT_LOG_SPREAD:
        raise ValueError(
            f"{what}: the inverse temperature {scale:.3g} (from the budget and the "
            "sensitivity) times the largest weight passes 2**32: in double precision the "
            "sampler would round its log-odds by more than 2**-20 and would not draw "
            "its law, nor keep its privacy. Lower the budget, raise the sensitivity, or "
            "subtract a public offset (the lower weight bound) from the weights." + after
        )


def capped_rate(c, w_min, w_max):
    """The inverse temperature ``c`` of ``exp(-c w)`` capped so that
    ``c * (w_max - w_min) <= 1e300``: every log-weight ``-c (w - w_min)`` is finite.

    Only absurd budgets reach the cap (``epsilon / sensitivity`` beyond
    ``1e300 / spread``, or an infinite ``c`` when a scale underflows); it
    changes the odds ``exp(-c (w(e) - w(f)))`` only for weights closer than
    ``~1e-297`` times their spread, and no NaN or infinity can reach a
    sampler.
    """
    spread = w_max - w_min
    if not spread > 0:
        return c if math.isfinite(c) else 1.0  # every weight equal: c does not matter
    # The float maximum as well: for spreads below 1e300 / max, the quotient overflows.
    return min(c, MAX_LOG_SPREAD / spread, sys.float_info.max)


def as_graph(graph, check_input=True, what="graph"):
    """The canonical form of a tree mechanism's input (the library's one gateway).

    Every tree function validates its ``graph`` here with
    :func:`skdpgraph.utils.check_graph`; ``check_input=False`` skips the
    check for a graph that already is canonical (as estimators pass it).
    """
    if not check_input:
        check_canonical_indices(graph)
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
        A :class:`SpanningTree` (checked as :func:`make_spanning_tree` would
        build it: a forest, edges ``u < v`` in lexicographic order, finite
        weights; its edges and weights define it), or a graph
        (anything :func:`skdpgraph.utils.check_graph` accepts) that must be
        a forest.
    what : str, default="tree"
        Name used in error messages.

    Returns
    -------
    SpanningTree

    Raises
    ------
    TypeError, ValueError
        If ``tree`` is not a forest given in one of these forms.
    """
    if isinstance(tree, SpanningTree):
        return _check_spanning_tree(tree, what)
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
