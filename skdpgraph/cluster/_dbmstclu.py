"""DBMSTClu: parameter-free clustering by cutting a minimum spanning tree.

References
----------
.. [1] M. Morvan, K. Vasilopoulos, C. Gouy-Pailler, J. Atif. "DBMSTClu:
   Density-based MST clustering", 2017 (Section 4).
.. [2] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif. "Graph-based
   Clustering under Differential Privacy", UAI 2018, Section 3.2.1,
   Definitions 3.3-3.6 and Algorithm 1.
"""

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import StrOptions

from .._graph import check_graph, graph_edges
from .._rooted import range_max, root_forest
from .._tree import SpanningTree, tree_from_graph

__all__ = ["DBMSTClu", "DBMSTCluResult", "dbmstclu", "dbcvi_score", "validity_index"]

#: Two DBCVI gains closer than ``TIE_RTOL * n`` are treated as equal (a tie),
#: so that ties in exact arithmetic are broken by the documented rule rather
#: than by floating-point rounding.
TIE_RTOL = 1e-9


class DBMSTCluResult(NamedTuple):
    """Output of :func:`dbmstclu`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        Cluster of each node, ``0..n_clusters-1``, numbered by smallest node.
    n_clusters : int
    dbcvi : float
        Final validity index of the partition.
    cut_edges : ndarray of shape (k, 2)
        The cut tree edges ``(u, v)``, ``u < v``, in the order they were cut.
    cut_weights : ndarray of shape (k,)
        Their weights.
    dbcvi_path : ndarray of shape (k,)
        The index after each cut.
    """

    labels: np.ndarray
    n_clusters: int
    dbcvi: float
    cut_edges: np.ndarray
    cut_weights: np.ndarray
    dbcvi_path: np.ndarray


def validity_index(separation, dispersion):
    """Validity index V_C of clusters (Definition 3.5 of [2]), vectorised.

    ``V_C = (SEP - DISP) / max(SEP, DISP)``. A cluster with ``DISP = 0`` (a
    singleton, or a cluster whose internal edges all weigh 0) has
    ``V_C = 1``: this is the authors' convention for singletons, extended
    continuously (for ``DISP = 0 < SEP`` the formula already gives 1), and it
    defines the case ``SEP = DISP = 0``, so the index is never NaN.
    """
    sep = np.asarray(separation, dtype=np.float64)
    disp = np.asarray(dispersion, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = (sep - disp) / np.maximum(sep, disp)
    return np.where(disp > 0, v, 1.0)


def _check_tree(tree):
    """Canonical sparse forest from any tree input."""
    if isinstance(tree, SpanningTree):
        return tree.tree
    graph = check_graph(tree, metric="precomputed", what="tree")
    if not sp.issparse(graph):
        if graph.shape[0] != 2:
            raise ValueError(
                "tree must be a spanning tree or forest; a dense matrix is a "
                "complete graph, which is a tree only for 2 nodes. Pass a sparse "
                "tree (for example skdpgraph.minimum_spanning_tree(X).tree)."
            )
        return tree_from_graph(graph).tree
    m = graph.nnz // 2
    n_comp, _ = connected_components(graph, directed=False)
    if m != graph.shape[0] - n_comp:
        raise ValueError(
            f"tree must be a forest (acyclic): it has {m} edges on "
            f"{graph.shape[0]} nodes in {n_comp} component(s), so it contains "
            f"{m - graph.shape[0] + n_comp} cycle(s)."
        )
    return graph


def dbmstclu(tree):
    """Cluster the nodes of a weighted spanning tree (or forest) with DBMSTClu.

    Starting from one cluster and ``DBCVI = -1`` (so the first cut is always
    made), each step evaluates every remaining tree edge as a cut, takes the
    one giving the largest DBCVI (Definition 3.6 of [2]) and makes it if that
    value is ``>=`` the current DBCVI; otherwise, or once ``DBCVI = 1``, it
    stops (Algorithm 1 of [2]).

    Parameters
    ----------
    tree : sparse matrix, or :class:`~skdpgraph.SpanningTree`
        Symmetric weighted forest; weights are distances (>= 0).

    Returns
    -------
    DBMSTCluResult

    Notes
    -----
    *Ties.* Among cuts with the same (largest) DBCVI, the one whose edge comes
    last in the lexicographic order of the tree's edges ``(u, v)``, ``u < v``,
    is made: this is Algorithm 1's loop (line 10 keeps the last candidate
    whose value is ``>=`` the running best) over that edge order. Values
    within ``1e-9 * n`` of each other count as equal.

    *Zero weights.* A cluster with dispersion 0 (a singleton, or nodes joined
    by zero-weight edges) has validity 1; a cluster with separation 0 and
    positive dispersion has validity -1. The index is never NaN.

    *Forests.* Each connected component is clustered as DBMSTClu clusters it
    alone (its own first cut is always made); components are never merged.
    The reported index is the size-weighted mean of the components' indices,
    each starting at -1 (an isolated node counts as a singleton, index 1);
    for a tree it is exactly the index of [2].

    *Speed.* Cutting an edge of cluster C changes only C's term of the index
    and no cut value in another cluster, so each cluster's best cut is
    cached and only the two new clusters are re-evaluated. A cluster keeps
    its nodes in a DFS preorder: a candidate cut splits it into a contiguous
    range and a prefix plus suffix, so sizes, dispersions and separations of
    all candidates come from prefix/suffix scans, O(|C|) numpy work per
    evaluation; subtree aggregates are maintained under cuts with the same
    scans. Total time O(sum over steps of the size of the cluster cut).
    """
    T = _check_tree(tree)
    n = T.shape[0]
    u, v, w = graph_edges(T)
    forest = root_forest(np.column_stack([u, v]), w, n)
    state = _State(forest, n)
    cuts, path = [], []
    starts = forest.comp_start
    comp_sizes = np.diff(starts)
    # Sum of |C| V_C over all components: -|c| for a component not yet cut
    # (its index starts at -1), +1 for an isolated node (a singleton).
    s_total = float(np.sum(np.where(comp_sizes == 1, 1.0, -comp_sizes)))
    for c in range(starts.size - 1):
        comp = forest.order[starts[c]:starts[c + 1]]
        if comp.size < 2:
            state.clusters.append(comp)
            continue
        s_total = state.run_component(comp, s_total, cuts, path)
    labels = state.labels()
    k = len(cuts)
    cut_nodes = np.asarray(cuts, dtype=np.int64)
    parents = forest.parent[cut_nodes]
    cut_edges = np.column_stack([np.minimum(parents, cut_nodes),
                                 np.maximum(parents, cut_nodes)]).reshape(k, 2)
    cut_weights = forest.parent_weight[cut_nodes]
    dbcvi = dbcvi_score(T, labels)
    return DBMSTCluResult(labels, int(labels.max()) + 1, dbcvi, cut_edges,
                          cut_weights, np.asarray(path, dtype=np.float64) / n)


class _State:
    """Clusters and cached subtree aggregates during the greedy cutting."""

    def __init__(self, forest, n):
        self.f = forest
        self.n = n
        pw = forest.parent_weight
        self.pw = pw
        self.rank = forest.parent_rank
        self.sz = forest.size.copy()
        # dsub[v]: largest edge weight strictly inside v's subtree (-inf: none).
        pw_pre = pw[forest.order]
        tin = forest.tin
        self.dsub = range_max(pw_pre, tin + 1, tin + self.sz)
        # msub[v]: smallest weight of a cut edge incident to v's subtree.
        self.msub = np.full(n, np.inf)
        self.ic = np.full(n, np.inf)  # smallest cut edge incident to each node
        self.clusters = []  # node arrays of the finished clusters
        self.tol = 0.0

    def labels(self):
        """Labels 0..K-1, clusters numbered by their smallest node."""
        sizes = np.array([arr.size for arr in self.clusters])
        first = np.array([arr.min() for arr in self.clusters])
        lab_of_cluster = np.empty(first.size, dtype=np.int64)
        lab_of_cluster[np.argsort(first)] = np.arange(first.size)
        labels = np.empty(self.n, dtype=np.int64)
        labels[np.concatenate(self.clusters)] = np.repeat(lab_of_cluster, sizes)
        return labels

    def _evaluate(self, arr, term):
        """Best cut of one cluster: (gain, rank, position, term_a, term_b)."""
        n = arr.size
        if n < 2:
            return -np.inf, -1, -1, 0.0, 0.0
        p = self.pw[arr]
        p[0] = -np.inf  # the root's parent edge is not inside the cluster
        q = self.ic[arr]
        nodes = arr[1:]
        i = np.arange(1, n)
        s = self.sz[nodes]
        j = i + s
        wv = p[1:]
        pre_max = np.maximum.accumulate(p)
        suf_max = np.append(np.maximum.accumulate(p[::-1])[::-1], -np.inf)
        pre_min = np.minimum.accumulate(q)
        suf_min = np.append(np.minimum.accumulate(q[::-1])[::-1], np.inf)
        disp_a = np.maximum(self.dsub[nodes], 0.0)
        sep_a = np.minimum(wv, self.msub[nodes])
        disp_b = np.maximum(np.maximum(pre_max[i - 1], suf_max[j]), 0.0)
        sep_b = np.minimum(wv, np.minimum(pre_min[i - 1], suf_min[j]))
        ta = s * validity_index(sep_a, disp_a)
        tb = (n - s) * validity_index(sep_b, disp_b)
        gain = ta + tb - term
        best = gain.max()
        near = np.flatnonzero(gain >= best - self.tol)
        k = near[np.argmax(self.rank[nodes[near]])]
        return best, int(self.rank[nodes[k]]), int(k + 1), float(ta[k]), float(tb[k])

    def run_component(self, arr, s_total, cuts, path):
        n_c = arr.size
        self.tol = TIE_RTOL * n_c
        clusters = [arr]
        terms = [-float(n_c)]  # DBCVI starts at -1 (Algorithm 1, line 2)
        evals = [self._evaluate(arr, terms[0])]
        gains = [evals[0][0]]
        ranks = [evals[0][1]]
        s_comp = -float(n_c)
        first = True
        while s_comp < n_c - self.tol:
            g = np.asarray(gains)
            best = g.max()
            if not np.isfinite(best) or (not first and best < -self.tol):
                break
            cand = np.flatnonzero(g >= best - self.tol)
            c = int(cand[np.argmax(np.asarray(ranks)[cand])])
            gain, _, pos, ta, tb = evals[c]
            a_arr, b_arr = self._cut(clusters[c], pos)
            first = False
            s_comp += gain
            s_total += gain
            cuts.append(int(clusters[c][pos]))
            path.append(s_total)
            clusters[c] = b_arr
            terms[c] = tb
            clusters.append(a_arr)
            terms.append(ta)
            for idx in (c, len(clusters) - 1):
                ev = self._evaluate(clusters[idx], terms[idx])
                if idx < len(evals):
                    evals[idx], gains[idx], ranks[idx] = ev, ev[0], ev[1]
                else:
                    evals.append(ev)
                    gains.append(ev[0])
                    ranks.append(ev[1])
        self.clusters.extend(clusters)
        return s_total

    def _cut(self, arr, i):
        """Cut the parent edge of ``arr[i]``; update aggregates; return (A, B)."""
        v = arr[i]
        s_a = int(self.sz[v])
        j = i + s_a
        wv = self.pw[v]
        par = self.f.parent[v]
        self.ic[v] = min(self.ic[v], wv)
        self.ic[par] = min(self.ic[par], wv)
        a_arr = arr[i:j]
        b_arr = np.concatenate([arr[:i], arr[j:]])
        # Ancestors of v in B: their preorder range covers position i.
        k = np.arange(i)
        anc = k[k + self.sz[arr[:i]] > i]
        self.sz[arr[anc]] -= s_a
        pb = self.pw[b_arr]
        pb[0] = -np.inf
        qb = self.ic[b_arr]
        end = anc + self.sz[b_arr[anc]]  # exclusive end in B's preorder
        # Part before the junction i: suffix scans of pb/qb over [0, i).
        back_max = np.append(np.maximum.accumulate(pb[:i][::-1])[::-1], -np.inf)
        back_min = np.minimum.accumulate(qb[:i][::-1])[::-1]
        # Part from the junction on: prefix scans over [i, len(B)).
        fwd_max = np.maximum.accumulate(pb[i:])
        fwd_min = np.minimum.accumulate(qb[i:])
        has_tail = end > i
        tail = np.where(has_tail, end - 1 - i, 0)
        if fwd_max.size:
            tail_max = np.where(has_tail, fwd_max[tail], -np.inf)
            tail_min = np.where(has_tail, fwd_min[tail], np.inf)
        else:
            tail_max = np.full(anc.size, -np.inf)
            tail_min = np.full(anc.size, np.inf)
        nodes = b_arr[anc]
        self.dsub[nodes] = np.maximum(back_max[anc + 1], tail_max)
        self.msub[nodes] = np.minimum(back_min[anc], tail_min)
        return a_arr, b_arr


def dbcvi_score(tree, labels):
    """Density-Based Validity Index of a partition of a tree into subtrees.

    ``DBCVI = sum_i |C_i| / N * V_C(C_i)`` (Definition 3.6 of [2]) with
    ``V_C`` from :func:`validity_index`, ``DISP(C)`` the largest weight of an
    edge inside ``C`` (0 if none; Def. 3.3) and ``SEP(C)`` the smallest
    weight of a cut tree edge incident to ``C`` (Def. 3.4). A cluster with no
    incident cut edge (a whole connected component, the case ``K = 1`` of
    Def. 3.4) has ``SEP = 1``, as in the paper.

    Parameters
    ----------
    tree : sparse matrix or :class:`~skdpgraph.SpanningTree`
        Weighted spanning tree or forest.
    labels : array-like of shape (n,)
        Cluster labels; every cluster must be a connected subtree.

    Returns
    -------
    score : float in [-1, 1]
    """
    T = _check_tree(tree)
    n = T.shape[0]
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"labels must have shape ({n},); got {labels.shape}.")
    _, lab = np.unique(labels, return_inverse=True)
    k = int(lab.max()) + 1
    u, v, w = graph_edges(T)
    inside = lab[u] == lab[v]
    if np.count_nonzero(inside) != n - k:
        raise ValueError(
            "every cluster must be a connected subtree of the tree: "
            f"{k} clusters on {n} nodes need {n - k} internal tree edges, "
            f"found {int(np.count_nonzero(inside))}."
        )
    disp = np.zeros(k)
    np.maximum.at(disp, lab[u[inside]], w[inside])
    sep = np.full(k, np.inf)
    cu, cv, cw = u[~inside], v[~inside], w[~inside]
    np.minimum.at(sep, lab[cu], cw)
    np.minimum.at(sep, lab[cv], cw)
    sep[np.isinf(sep)] = 1.0
    sizes = np.bincount(lab, minlength=k)
    return math.fsum((sizes * validity_index(sep, disp)).tolist()) / n


def _n_features(X, graph):
    """Columns of the array given to fit (the node count for a networkx graph)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    if isinstance(X, (list, tuple)):
        return int(np.asarray(X).shape[1])
    return int(graph.shape[0])


class DBMSTClu(ClusterMixin, BaseEstimator):
    """Density-based clustering by cutting a minimum spanning tree.

    Builds the graph from ``X`` (see :func:`skdpgraph.check_graph`), takes
    its exact minimum spanning tree (a graph that already is a forest is used
    as is), and cuts it greedily while the DBCVI validity index does not
    decrease (:func:`dbmstclu`). It has no clustering parameter: the number of
    clusters follows from the index. The index is scale invariant, so the
    weights need no normalisation.

    Parameters
    ----------
    metric : str or callable, default="euclidean"
        ``"precomputed"``: ``X`` is a graph (dense distance matrix = complete
        graph; sparse matrix = its stored entries are the edges). Otherwise
        ``X`` is a feature matrix and the graph is the complete graph of
        pairwise distances (memory O(n^2); for large data pass a sparse
        graph such as :class:`skdpgraph.graphs.EpsilonGraph`'s output).
    metric_params : dict, default=None
        Extra keyword arguments for the metric.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster labels ``0..n_clusters_-1``.
    n_clusters_ : int
    dbcvi_ : float
        Final DBCVI.
    tree_ : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The spanning tree (forest) that was cut.
    cut_edges_ : ndarray of shape (n_cuts, 2)
        Cut edges in the order made.
    cut_weights_ : ndarray of shape (n_cuts,)
        Their weights.
    dbcvi_path_ : ndarray of shape (n_cuts,)
        The index after each cut.

    Notes
    -----
    A disconnected graph gives a spanning forest; each component is clustered
    on its own (components are never merged, and each is cut at least once
    if it has two nodes or more). See :func:`dbmstclu` for ties and zero
    weights.

    References
    ----------
    Pinot et al., "Graph-based Clustering under Differential Privacy",
    UAI 2018, Section 3.2.1 and Algorithm 1; Morvan et al., "DBMSTClu:
    Density-based MST clustering", 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph import DBMSTClu
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> DBMSTClu().fit_predict(X)
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints = {
        "metric": [StrOptions({"precomputed"}), str, callable],
        "metric_params": [dict, None],
    }

    def __init__(self, metric="euclidean", metric_params=None):
        self.metric = metric
        self.metric_params = metric_params

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Build the tree of ``X`` and cut it.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Features, or a graph with ``metric="precomputed"``.
        y : ignored

        Returns
        -------
        self : DBMSTClu
        """
        graph = check_graph(X, self.metric, self.metric_params)
        self.n_features_in_ = _n_features(X, graph)
        tree = tree_from_graph(graph)
        res = dbmstclu(tree.tree)
        self.tree_ = tree.tree
        self.labels_ = res.labels
        self.n_clusters_ = res.n_clusters
        self.dbcvi_ = res.dbcvi
        self.cut_edges_ = res.cut_edges
        self.cut_weights_ = res.cut_weights
        self.dbcvi_path_ = res.dbcvi_path
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances
        tags.input_tags.sparse = True
        return tags
