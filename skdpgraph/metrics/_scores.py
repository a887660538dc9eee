"""Scores of trees and clusterings.

* :func:`dbcvi_score` -- DBMSTClu's validity index of a partition of a tree
  (``DBMSTClu`` imports it from here).
* :func:`mst_approximation_error` -- excess weight of a spanning tree over
  the minimum spanning tree, with the true weights (thesis, Def. 3.2.1).
* :func:`clustering_f1_score` -- the F1 score Muelle et al. use to compare a
  private clustering with the non-private one.
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.utils import column_or_1d

from ..tree import SpanningTree, check_tree, minimum_spanning_tree
from ..utils import check_graph, graph_edges


def validity_index(separation, dispersion):
    """Validity index V_C of clusters (Definition 3.5 of Pinot et al., UAI 2018), vectorised.

    ``V_C = (SEP - DISP) / max(SEP, DISP)``. A cluster with ``DISP = 0`` (a
    singleton, or a cluster whose internal edges all weigh 0) has
    ``V_C = 1``: this is the authors' convention for singletons, extended
    continuously (for ``DISP = 0 < SEP`` the formula already gives 1), and it
    defines the case ``SEP = DISP = 0``, so the index is never NaN.

    Parameters
    ----------
    separation, dispersion : array-like of float
        ``SEP`` and ``DISP`` of each cluster; negative values (noisy
        releases may hold them) count as 0, as in :func:`~skdpgraph.dbmstclu`.

    Returns
    -------
    ndarray of float
        ``V_C`` of each cluster, in ``[-1, 1]``.
    """
    sep = np.asarray(separation, dtype=np.float64)
    disp = np.asarray(dispersion, dtype=np.float64)
    if sep.shape != disp.shape:
        raise ValueError(f"separation and dispersion must have one value per cluster each; "
                         f"got shapes {sep.shape} and {disp.shape}.")
    if not (np.all(np.isfinite(sep)) and np.all(np.isfinite(disp))):
        raise ValueError("separation and dispersion must be finite.")
    sep, disp = np.maximum(sep, 0.0), np.maximum(disp, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = (sep - disp) / np.maximum(sep, disp)
    return np.where(disp > 0, v, 1.0)


def dbcvi_score(tree, labels):
    """Density-Based Validity Index of a partition of a tree into subtrees.

    ``DBCVI = sum_i |C_i| / N * V_C(C_i)`` (Definition 3.6 of Pinot et al., UAI 2018) with
    ``V_C`` from :func:`validity_index`, ``DISP(C)`` the largest weight of an
    edge inside ``C`` (0 if none; Def. 3.3) and ``SEP(C)`` the smallest
    weight of a cut tree edge incident to ``C`` (Def. 3.4). A cluster with no
    incident cut edge (a whole connected component, the case ``K = 1`` of
    Def. 3.4) has ``SEP = 1``, as in the paper. A partition into singletons
    scores 1, the maximum (every ``DISP`` is 0): what DBMSTClu returns on a
    tree of equal weights, so the index cannot tell such a release from a
    good clustering.

    Parameters
    ----------
    tree : sparse matrix or :class:`~skdpgraph.tree.SpanningTree`
        Weighted spanning tree or forest.
    labels : array-like of shape (n,)
        Cluster labels; every cluster must be a connected subtree.

    Returns
    -------
    score : float in [-1, 1]
    """
    tree = check_tree(tree)
    n, (u, v), w = tree.tree.shape[0], tree.edges.T, tree.weights
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"labels must have shape ({n},); got {labels.shape}.")
    try:
        _, lab = np.unique(labels, return_inverse=True)
    except TypeError:  # e.g. None among strings
        raise TypeError(
            "labels must be of one comparable kind (all numbers or all strings); got "
            f"{sorted({type(x).__name__ for x in labels.ravel().tolist()})}.") from None
    k = int(lab.max()) + 1
    inside = lab[u] == lab[v]
    if np.count_nonzero(inside) != n - k:
        raise ValueError(
            "every cluster must be a connected subtree of the tree: "
            f"{k} clusters on {n} nodes need {n - k} internal tree edges, "
            f"found {int(np.count_nonzero(inside))}."
        )
    return dbcvi_from_labels(n, u, v, w, lab, k)


def dbcvi_from_labels(n, u, v, w, lab, k):
    """DBCVI of labels ``0..k-1`` that partition a forest into subtrees."""
    inside = lab[u] == lab[v]
    disp = np.zeros(k)
    np.maximum.at(disp, lab[u[inside]], w[inside])
    sep = np.full(k, np.inf)
    cu, cv, cw = u[~inside], v[~inside], w[~inside]
    np.minimum.at(sep, lab[cu], cw)
    np.minimum.at(sep, lab[cv], cw)
    sep[np.isinf(sep)] = 1.0
    sizes = np.bincount(lab, minlength=k)
    return math.fsum((sizes * validity_index(sep, disp)).tolist()) / n


def _tree_edges(tree, n):
    """Edge list ``(m, 2)`` of any accepted tree input (weights ignored)."""
    if isinstance(tree, SpanningTree):
        edges = np.asarray(tree.edges, dtype=np.int64).reshape(-1, 2)
        if tree.tree.shape != (n, n):
            raise ValueError(f"tree has {tree.tree.shape[0]} nodes; the graph has {n}.")
        return edges
    if sp.issparse(tree):
        if tree.shape != (n, n):
            raise ValueError(f"tree must have shape ({n}, {n}); got {tree.shape}.")
        coo = sp.coo_array(tree)
        lo = np.minimum(coo.row, coo.col).astype(np.int64)
        hi = np.maximum(coo.row, coo.col).astype(np.int64)
        keep = lo != hi
        pairs = np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0)
        return pairs.reshape(-1, 2)
    edges = np.asarray(tree)
    if edges.ndim != 2 or edges.shape[1] != 2 or edges.dtype.kind not in "iu":
        raise TypeError(
            "tree must be a SpanningTree, a sparse matrix whose stored entries are the "
            "tree edges, or an integer array of edges of shape (m, 2); got "
            f"{type(tree).__name__} with shape {getattr(edges, 'shape', None)}."
        )
    return edges.astype(np.int64)


def mst_approximation_error(graph, tree):
    """Excess weight of a spanning tree over the minimum spanning tree.

    ``Error_G(T') = sum_{e in T'} w(e) - sum_{e in T*} w(e)`` with ``T*`` a
    minimum spanning tree of ``G`` and **the true weights** ``w`` of ``G``
    for both trees (thesis, Definition 3.2.1): the weights stored in ``tree``
    (noisy ones, for a Laplace-MST release) are ignored, only its edges are
    used. For a disconnected graph both are spanning forests.

    Parameters
    ----------
    graph : array-like, sparse matrix or networkx.Graph
        The weighted graph (``metric="precomputed"`` semantics of
        :func:`skdpgraph.check_graph`).
    tree : SpanningTree, sparse matrix or int array of shape (m, 2)
        A spanning tree (forest) of ``graph``: its edges must be edges of
        the graph, acyclic, one tree per connected component.

    Returns
    -------
    error : float
        ``>= 0`` (up to rounding); 0 for any minimum spanning tree.

    References
    ----------
    R. Pinot, master thesis, 2017, Definition 3.2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.metrics import mst_approximation_error
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> mst_approximation_error(D, np.array([[0, 2], [1, 2]]))
    3.0
    """
    G = check_graph(graph, metric="precomputed", what="graph")
    n = G.shape[0]
    edges = _tree_edges(tree, n)
    if edges.size and (edges.min() < 0 or edges.max() >= n):
        raise ValueError(f"tree edges must join nodes 0..{n - 1}.")
    lo, hi = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
    if np.any(lo == hi):
        raise ValueError("tree contains a self-loop.")
    key = lo * n + hi
    if np.unique(key).size != key.size:
        raise ValueError("tree contains the same edge twice.")
    u, v, w = graph_edges(G)
    gkey = u * n + v
    pos = np.searchsorted(gkey, key)
    pos_c = np.minimum(pos, max(gkey.size - 1, 0))
    found = (pos < gkey.size) & (gkey[pos_c] == key) if gkey.size else np.zeros(key.size, bool)
    if not np.all(found):
        k = int(np.flatnonzero(~found)[0])
        raise ValueError(f"tree edge ({lo[k]}, {hi[k]}) is not an edge of the graph.")
    n_comp_g = 1 if not sp.issparse(G) else int(connected_components(G, directed=False)[0])
    m = key.size
    t = sp.csr_array((np.ones(m), (lo, hi)), shape=(n, n))
    n_comp_t = int(connected_components(t, directed=False)[0])
    if n_comp_t != n - m:
        raise ValueError(f"tree is not a forest: its {m} edges contain a cycle.")
    if m != n - n_comp_g:
        raise ValueError(
            f"tree is not spanning: a spanning tree (forest) of this graph has "
            f"{n - n_comp_g} edges, got {m}."
        )
    best = minimum_spanning_tree(G, check_input=False).weights
    return math.fsum(w[pos].tolist()) - math.fsum(best.tolist())


def clustering_f1_score(reference_labels, labels, *, noise_label=-1, method="best_match"):
    """F1 agreement of a clustering with a reference clustering.

    Muelle et al. measure the quality of a private clustering by "the F1
    score" against the non-private clustering of the same graph, without a
    formula. This function defines it precisely.

    ``method="best_match"`` (default; the F-measure of clustering
    evaluation): every reference cluster ``R`` is matched to the cluster
    ``C`` of ``labels`` with the highest ``F1(R, C) = 2 |R & C| / (|R| + |C|)``
    (precision ``|R & C| / |C|``, recall ``|R & C| / |R|``), and the scores
    are averaged with weights ``|R| / sum |R|``.

    ``method="pairwise"``: precision and recall over the pairs of nodes put
    in one cluster: ``F1 = 2 TP / (P_pred + P_ref)`` with ``TP`` the pairs
    together in both, ``P_pred`` and ``P_ref`` the pairs together in each.

    Noise: nodes labelled ``noise_label`` (SCAN's hubs and outliers, say)
    belong to no cluster. A reference node that ``labels`` leaves as noise
    counts as missed (lower recall); a node clustered by ``labels`` but
    noise in the reference lowers the precision of the cluster it is put in
    (with ``"best_match"`` this costs only when that cluster is the best
    match of some reference cluster; with ``"pairwise"`` always). So leaving
    nodes unclustered is penalised, as in Muelle et al.'s discussion of the
    share of clustered nodes.

    Parameters
    ----------
    reference_labels : array-like of shape (n,)
        The reference (non-private) clustering.
    labels : array-like of shape (n,)
        The clustering to score.
    noise_label : scalar or None, default=-1
        Label of unclustered nodes in both arrays; ``None``: no noise label.
    method : {"best_match", "pairwise"}, default="best_match"
        The F-measure of matched clusters, or the F1 over pairs of nodes
        (see above).

    Returns
    -------
    score : float in [0, 1]
        1 for identical partitions of the clustered nodes (up to renaming
        clusters). When the reference has no cluster (``"best_match"``) or no
        pair (``"pairwise"``), the score is 1 if ``labels`` has none either,
        else 0.

    References
    ----------
    Y. Muelle, C. Clifton, K. Boehm, "Privacy-Integrated Graph Clustering
    Through Differential Privacy", EDBT/ICDT Workshops 2015, Section 6.
    B. Larsen, C. Aone, "Fast and effective text mining using linear-time
    document clustering", KDD 1999 (the F-measure).

    Examples
    --------
    >>> from skdpgraph.metrics import clustering_f1_score
    >>> clustering_f1_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> round(clustering_f1_score([0, 0, 0, 1, 1], [0, 0, -1, 1, 1]), 4)  # 3/5 * 0.8 + 2/5
    0.88
    """
    ref = column_or_1d(np.asarray(reference_labels), warn=False)
    lab = column_or_1d(np.asarray(labels), warn=False)
    if ref.size == 0:
        raise ValueError("reference_labels is empty: there is nothing to score.")
    if ref.shape[0] != lab.shape[0]:
        raise ValueError(
            "reference_labels and labels must have the same length; got "
            f"{ref.shape[0]} and {lab.shape[0]}."
        )
    if method not in ("best_match", "pairwise"):
        raise ValueError(f"method must be 'best_match' or 'pairwise'; got {method!r}.")
    ref_in = np.ones(ref.shape, bool) if noise_label is None else ref != noise_label
    lab_in = np.ones(lab.shape, bool) if noise_label is None else lab != noise_label
    _, rc = np.unique(ref[ref_in], return_inverse=True)
    _, lc = np.unique(lab[lab_in], return_inverse=True)
    r_codes = np.full(ref.shape[0], -1, dtype=np.int64)
    l_codes = np.full(lab.shape[0], -1, dtype=np.int64)
    r_codes[ref_in] = rc.ravel()
    l_codes[lab_in] = lc.ravel()
    n_r = int(r_codes.max()) + 1
    n_l = int(l_codes.max()) + 1
    r_size = np.bincount(r_codes[ref_in], minlength=n_r).astype(np.float64)
    l_size = np.bincount(l_codes[lab_in], minlength=n_l).astype(np.float64)
    both = ref_in & lab_in
    pair = r_codes[both] * max(n_l, 1) + l_codes[both]
    keys, counts = np.unique(pair, return_counts=True)
    kr, kl = keys // max(n_l, 1), keys % max(n_l, 1)
    counts = counts.astype(np.float64)
    if method == "pairwise":
        tp = float(np.sum(counts * (counts - 1) / 2))
        p_ref = float(np.sum(r_size * (r_size - 1) / 2))
        p_lab = float(np.sum(l_size * (l_size - 1) / 2))
        if p_ref + p_lab == 0:
            return 1.0
        return 2.0 * tp / (p_ref + p_lab)
    if n_r == 0:
        return 1.0 if n_l == 0 else 0.0
    f1 = 2.0 * counts / (r_size[kr] + l_size[kl])
    best = np.zeros(n_r)
    np.maximum.at(best, kr, f1)
    return float(np.sum(r_size * best) / r_size.sum())
