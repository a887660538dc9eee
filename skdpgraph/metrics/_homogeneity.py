"""Homogeneity conditions of clusters (UAI 2018, Definitions 3.9-3.11).

A tree ``T`` is *homogeneously separable* by an edge ``s`` (Def. 3.9) when
``alpha_T max_T w < w(s)`` with ``alpha_T = max_T w / min_T w``, i.e.
``h(T) = max_T w ** 2 / min_T w < w(s)``. A cluster ``C_i`` is *weakly*
(Def. 3.10) or *strongly* (Def. 3.11) homogeneous when every minimum spanning
tree (weak), or every spanning tree (strong), ``T`` of the graph is
homogeneously separable restricted to the cluster, ``T|C_i``, by each of its
edges leaving ``C_i``. DBMSTClu recovers weakly homogeneous clusters exactly
(Corollary 3.1); the paper's guarantee for its private version assumes strong
homogeneity (Theorem 13).

Both definitions quantify over exponentially many trees. This module decides
them in closed form (derivation in ``docs/homogeneity.md``):

* **strong**: ``C_i`` is strongly homogeneous iff
  ``min_{e in dC_i} w(e) > h_i = M_i ** 2 / m_i`` with ``M_i``, ``m_i`` the
  largest and smallest weights of the edges of the graph inside ``C_i`` and
  ``dC_i`` the edges leaving ``C_i``. (Any two edges inside ``C_i`` and any
  edge leaving it form a forest, which some spanning tree contains.)
  ``alpha_bar_i = M_i / m_i``.
* **weak**: ``C_i`` is weakly homogeneous iff
  ``min_{e in dC_i} w(e) > A_i ** 2 / B_i`` with ``A_i``, ``B_i`` the largest
  and smallest weights of the edges inside ``C_i`` that belong to *some* MST
  ("eligible": ``w(e)`` equals the largest weight on the MST path between its
  ends). Eligible edges of different weights always fit in one MST
  together; equal weights could not, but a tie between an inside and a
  leaving edge always violates the condition anyway.
  ``alpha_underbar_i = A_i / B_i``.

Conventions: ``h = max`` when ``max == min`` (``alpha = 1``, including all
weights 0); ``h = inf`` when ``min = 0 < max`` (never separable); a cluster
whose restriction ``T|C_i`` is empty in every relevant tree, or that has no
edge leaving it, satisfies the condition vacuously.
"""

from typing import NamedTuple

import numpy as np

from ..tree import minimum_spanning_tree
from ..tree._rooted import path_max, root_forest
from ..utils import check_graph, graph_edges
from ..utils._validation import check_node_labels


class HomogeneityResult(NamedTuple):
    """Per-cluster homogeneity report of :func:`check_homogeneity`.

    All arrays have one entry per cluster, in the order of ``clusters``.

    Attributes
    ----------
    clusters : ndarray
        The distinct labels (sorted).
    sizes : ndarray of int
        Number of nodes of each cluster.
    weak : ndarray of bool
        Weak homogeneity (Definition 3.10).
    strong : ndarray of bool
        Strong homogeneity (Definition 3.11).
    alpha_weak : ndarray of float
        ``alpha_underbar_i``: the largest ``alpha_{T|C_i}`` over the minimum
        spanning trees ``T`` (NaN when no MST has an edge inside ``C_i``).
    alpha_strong : ndarray of float
        ``alpha_bar_i = M_i / m_i``: the largest ``alpha_{T|C_i}`` over all
        spanning trees (NaN when ``C_i`` has no internal edge).
    max_intra : ndarray of float
        ``M_i``: largest weight of an edge of the graph inside ``C_i`` (NaN
        if none).
    min_intra : ndarray of float
        ``m_i``: smallest weight of an edge of the graph inside ``C_i`` (NaN
        if none).
    min_inter : ndarray of float
        Smallest weight of an edge leaving ``C_i`` (``inf`` if none).
    strong_threshold : ndarray of float
        ``h_i = alpha_bar_i M_i = M_i ** 2 / m_i`` (with the module's
        conventions); ``C_i`` is strongly homogeneous iff
        ``min_inter > strong_threshold`` (or the condition is vacuous).
    """

    clusters: np.ndarray
    sizes: np.ndarray
    weak: np.ndarray
    strong: np.ndarray
    alpha_weak: np.ndarray
    alpha_strong: np.ndarray
    max_intra: np.ndarray
    min_intra: np.ndarray
    min_inter: np.ndarray
    strong_threshold: np.ndarray

    @property
    def all_weak(self):
        """Whether every cluster is weakly homogeneous."""
        return bool(np.all(self.weak))

    @property
    def all_strong(self):
        """Whether every cluster is strongly homogeneous."""
        return bool(np.all(self.strong))


def _h(big, small):
    """``max ** 2 / min`` with the conventions of the module, elementwise."""
    big = np.asarray(big, dtype=np.float64)
    small = np.asarray(small, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # alpha * max, not max**2 / min: the square over- or underflows at
        # scales the comparison itself does not care about.
        ratio = np.where(small > 0, big * (big / np.where(small > 0, small, 1.0)), np.inf)
    return np.where(big == small, big, ratio)


def _alpha(big, small):
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(small > 0, big / np.where(small > 0, small, 1.0), np.inf)
    out = np.where(big == small, 1.0, ratio)
    return np.where(np.isfinite(big), out, np.nan)


def mst_eligible_edges(graph):
    """Which edges of a graph belong to at least one minimum spanning tree.

    Edge ``{u, v}`` of weight ``w`` is in some MST iff no ``u``-``v`` path
    uses only edges lighter than ``w``, i.e. iff ``w`` equals the largest
    weight on the path between ``u`` and ``v`` in any fixed MST (the path's
    bottleneck is the minimax distance).

    Parameters
    ----------
    graph : array-like or sparse matrix
        Anything :func:`skdpgraph.check_graph` accepts (``"precomputed"``).

    Returns
    -------
    u, v : ndarray of int64
        The edges, ``u < v``, in :func:`skdpgraph.utils.graph_edges` order.
    w : ndarray of float64
    eligible : ndarray of bool

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.metrics import mst_eligible_edges
    >>> D = np.array([[0, 1, 1], [1, 0, 2], [1, 2, 0]], dtype=float)
    >>> mst_eligible_edges(D)[3].tolist()
    [True, True, False]
    """
    G = check_graph(graph, metric="precomputed", what="graph")
    return _eligible(G)


def _eligible(G):
    n = G.shape[0]
    u, v, w = graph_edges(G)
    if u.size == 0:
        return u, v, w, np.zeros(0, dtype=bool)
    forest = minimum_spanning_tree(G, check_input=False)
    bottleneck = path_max(root_forest(forest.edges, forest.weights, n), u, v)
    return u, v, w, w <= bottleneck  # bottleneck <= w always; equality: in some MST


def _group_max(values, groups, k):
    out = np.full(k, -np.inf)
    np.maximum.at(out, groups, values)
    return out


def _group_min(values, groups, k):
    out = np.full(k, np.inf)
    np.minimum.at(out, groups, values)
    return out


def check_homogeneity(graph, labels):
    """Weak and strong homogeneity of each cluster (UAI 2018, Defs. 3.9-3.11).

    Parameters
    ----------
    graph : array-like, sparse matrix or networkx.Graph
        Weighted graph (weights are distances), anything
        :func:`skdpgraph.check_graph` accepts with ``metric="precomputed"``.
        A disconnected graph is read with spanning forests in place of trees.
    labels : array-like of shape (n_nodes,)
        Cluster of each node; every distinct value is a cluster (a noise
        label such as -1 is a cluster like any other: give noise points
        their own labels if they are meant as singletons).

    Returns
    -------
    HomogeneityResult
        Per-cluster flags, the alphas and the weights that decide them.

    Notes
    -----
    *Strong.* ``C_i`` is strongly homogeneous iff every edge leaving it
    weighs more than ``h_i = M_i^2 / m_i`` (largest and smallest weight inside
    ``C_i``): the spanning tree containing the heaviest and the lightest
    inside edge and the lightest leaving edge is the worst case, and such a
    tree exists because those (at most three) edges never close a cycle.

    *Weak.* The same test with ``M_i``, ``m_i`` replaced by the largest and
    smallest weight of the inside edges that belong to some MST. Cost: one
    MST and one bottleneck query per edge, ``O((|V| + |E|) log |V|)``.

    Derivation: ``docs/homogeneity.md``. The tests check both conditions
    against enumeration of all spanning trees of small graphs.

    References
    ----------
    R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
    Clustering under Differential Privacy", UAI 2018, Definitions 3.9-3.11,
    Proposition 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.metrics import check_homogeneity
    >>> D = np.array([[0, .1, .3, .5], [.1, 0, .2, .5], [.3, .2, 0, .5], [.5, .5, .5, 0]])
    >>> r = check_homogeneity(D, [0, 0, 0, 1])
    >>> r.weak.tolist(), r.strong.tolist()
    ([True, True], [False, True])
    >>> round(float(r.alpha_weak[0]), 6), round(float(r.alpha_strong[0]), 6)
    (2.0, 3.0)
    """
    G = check_graph(graph, metric="precomputed", what="graph")
    n = G.shape[0]
    codes = check_node_labels(labels, n)
    clusters = np.unique(np.asarray(labels))
    k = clusters.size
    sizes = np.bincount(codes, minlength=k)

    u, v, w, eligible = _eligible(G)
    cu, cv = codes[u], codes[v]
    intra = cu == cv
    inter = ~intra

    # Strong: over all edges of the graph.
    big_m = _group_max(w[intra], cu[intra], k)
    small_m = _group_min(w[intra], cu[intra], k)
    s_all = np.minimum(_group_min(w[inter], cu[inter], k), _group_min(w[inter], cv[inter], k))
    has_intra = np.isfinite(big_m)
    h_strong = _h(big_m, small_m)
    strong = ~(has_intra & np.isfinite(s_all) & (h_strong >= s_all))

    # Weak: the same worst case over the edges that lie in some MST. The
    # lightest edge leaving C_i is in some MST (cut property), so S_i is the
    # same; ties never rescue a cluster (see docs/homogeneity.md).
    ei = intra & eligible
    big_a = _group_max(w[ei], cu[ei], k)
    small_b = _group_min(w[ei], cu[ei], k)
    weak = ~(np.isfinite(big_a) & np.isfinite(s_all) & (_h(big_a, small_b) >= s_all))

    return HomogeneityResult(
        clusters=clusters,
        sizes=sizes,
        weak=weak,
        strong=strong,
        alpha_weak=_alpha(big_a, small_b),
        alpha_strong=_alpha(big_m, small_m),
        max_intra=np.where(has_intra, big_m, np.nan),
        min_intra=np.where(has_intra, small_m, np.nan),
        min_inter=s_all,
        strong_threshold=np.where(has_intra, h_strong, np.nan),
    )
