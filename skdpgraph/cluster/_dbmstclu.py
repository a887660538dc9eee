"""DBMSTClu: parameter-free clustering by cutting a minimum spanning tree.

References
----------
.. [1] M. Morvan, K. Vasilopoulos, C. Gouy-Pailler, J. Atif. "DBMSTClu:
   Density-based MST clustering", 2017 (Section 4).
.. [2] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif. "Graph-based
   Clustering under Differential Privacy", UAI 2018, Section 3.2.1,
   Definitions 3.3-3.6 and Algorithm 1.
"""

from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import StrOptions

from ..metrics._scores import dbcvi_from_labels, validity_index
from ..tree import check_tree, tree_from_graph
from ..tree._rooted import range_max, root_forest
from ..utils import check_graph
from ._base import set_dbmstclu_attributes, warn_if_constant_weights

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
    all candidates come from prefix/suffix scans, ``O(|C|)`` numpy work per
    evaluation; subtree aggregates are maintained under cuts with the same
    scans. Total time O(sum over steps of the size of the cluster cut).
    """
    tree = check_tree(tree)
    n, (u, v), w = tree.tree.shape[0], tree.edges.T, tree.weights
    forest = root_forest(tree.edges, w, n)
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
    dbcvi = dbcvi_from_labels(n, u, v, w, labels, int(labels.max()) + 1)
    return DBMSTCluResult(labels, int(labels.max()) + 1, dbcvi, cut_edges,
                          cut_weights, np.asarray(path, dtype=np.float64) / n)


def _segment_reduce(ufunc, a, bounds, identity):
    """``ufunc``-reduction of ``a[bounds[t]:bounds[t + 1]]`` for every ``t``.

    ``bounds`` is non-decreasing with values in ``[0, len(a)]``; empty
    segments give ``identity``. One ``reduceat`` pass: O(len(a)).
    """
    n = a.size
    starts, ends = bounds[:-1], bounds[1:]
    out = np.full(starts.size, identity, dtype=np.float64)
    live = int(np.count_nonzero(starts < n))
    if live:
        idx = bounds[:live + 1] if bounds[live] < n else bounds[:live]
        out[:live] = ufunc.reduceat(a, idx)[:live]
    out[starts == ends] = identity
    return out


def _inside_nested(ufunc, a, lo, hi, mid, identity):
    """Reductions over ``a[lo[t]:hi[t]]`` for nested ranges around ``mid``.

    ``lo`` ascending and ``hi`` descending with ``lo[t] <= mid <= hi[t]``:
    the ranges of a chain of ancestors. O(len(a) + len(lo)).
    """
    left = _segment_reduce(ufunc, a, np.append(lo, mid), identity)
    left = ufunc.accumulate(left[::-1])[::-1]
    right = _segment_reduce(ufunc, a, np.concatenate([[mid], hi[::-1]]), identity)
    right = ufunc.accumulate(right)[::-1]
    return ufunc(left, right)


def _outside_nested(ufunc, a, lo, hi, identity):
    """Reductions over ``a[:lo[t]]`` and ``a[hi[t]:]`` for nested ranges.

    ``lo`` ascending, ``hi`` descending (a chain of ancestors). O(len(a) + len(lo)).
    """
    left = ufunc.accumulate(_segment_reduce(ufunc, a, np.append(0, lo), identity))
    right = _segment_reduce(ufunc, a, np.append(hi[::-1], a.size), identity)
    right = ufunc.accumulate(right[::-1])
    return ufunc(left, right)


def _first_last(mask):
    """First and last True positions of a boolean array with a True."""
    return int(mask.argmax()), mask.size - 1 - int(mask[::-1].argmax())


def _covering(e, alive, first, last):
    """Live candidate positions whose subtree range covers ``[first, last]``."""
    k = np.arange(1, first + 1)
    return k[(e[1:first + 1] > last) & alive[1:first + 1]]


#: Incremental updates between two full evaluations of a cluster, which bounds
#: the drift of the incrementally updated values.
_REFRESH_EVERY = 256


class _Cluster:
    """One cluster and its candidate cuts, over a span of the DFS preorder.

    The cluster's nodes lie in ``arr`` in DFS preorder, root first; nodes cut
    away later stay in place as dead positions (neutral values), so the
    subtree of the node at position ``k`` is the range ``[k, e[k])``. Per
    position: ``p`` the parent-edge weight (``-inf`` at the root and dead
    positions), ``q`` the smallest incident cut weight (``inf`` if none or
    dead), ``s`` the number of live nodes in the subtree, ``d_in`` the
    largest edge weight inside it and ``m_in`` the smallest cut incident to
    its nodes, ``sv`` = ``s`` times the validity index of the subtree (the
    inside part of a cut, from ``d_in`` and ``m_in``), ``vout`` the
    validity index of the rest of the cluster, and ``r`` the value
    ``sv + (n - s) * vout`` of the cut (``-inf`` where no cut is possible).
    """

    __slots__ = ("arr", "p", "q", "s", "e", "d_in", "m_in", "sv", "rank", "alive",
                 "term", "n", "disp", "sep", "vout", "r", "chain", "cd", "vd", "cs", "vs",
                 "best", "since_full")

    def __init__(self, arr, p, q, s, e, d_in, m_in, rank, alive, n, term):
        self.arr, self.p, self.q, self.s, self.e = arr, p, q, s, e
        self.d_in, self.m_in, self.rank, self.alive = d_in, m_in, rank, alive
        self.sv = self._inside(slice(None))
        self.n, self.term = n, term
        self.best = (-np.inf, -1, -1)

    def _chain_disp(self):
        """Candidates whose subtree holds every edge of the cluster's largest
        weight, and the exact largest weight of the rest of the cluster."""
        first, last = _first_last(self.p == self.disp)
        chain = _covering(self.e, self.alive, first, last)
        if not chain.size:
            return chain, np.empty(0)
        return chain, _outside_nested(np.maximum, self.p, chain, self.e[chain], -np.inf)

    def _chain_sep(self):
        """Candidates whose subtree holds every node with the cluster's
        smallest incident cut, and the exact smallest cut of the rest."""
        empty = np.empty(0, dtype=np.int64)
        if not np.isfinite(self.sep):
            return empty, np.empty(0)
        first, last = _first_last(self.q == self.sep)
        if first == 0:  # the root holds one: every candidate's rest has it
            return empty, np.empty(0)
        chain = _covering(self.e, self.alive, first, last)
        if not chain.size:
            return chain, np.empty(0)
        return chain, _outside_nested(np.minimum, self.q, chain, self.e[chain], np.inf)

    def _specials(self):
        """Union of both chains with the exact validity index of their rest."""
        cd, cs = self.cd, self.cs
        if not cs.size:
            chain = cd
        elif not cd.size:
            chain = cs
        else:
            chain = np.union1d(cd, cs)
        if not chain.size:
            return chain, np.empty(0)
        disp = np.full(chain.size, self.disp)
        sep = np.full(chain.size, self.sep)
        if cd.size:
            disp[np.searchsorted(chain, cd)] = self.vd
        if cs.size:
            sep[np.searchsorted(chain, cs)] = self.vs
        return chain, validity_index(np.minimum(self.p[chain], sep), np.maximum(disp, 0.0))

    def _inside(self, idx):
        """``s`` times the validity index of the subtrees at ``idx``."""
        return self.s[idx] * validity_index(
            np.minimum(np.maximum(self.p[idx], 0.0), self.m_in[idx]),
            np.maximum(self.d_in[idx], 0.0))

    def _generic(self, idx):
        """Validity of the rest of the cluster when it holds the cluster's
        largest edge and smallest incident cut (finite everywhere: dead and
        root positions read as weight 0)."""
        return validity_index(np.minimum(np.maximum(self.p[idx], 0.0), self.sep),
                              max(self.disp, 0.0))

    def _values(self, idx):
        return self.sv[idx] + (self.n - self.s[idx]) * self.vout[idx]

    def evaluate(self):
        """All candidate values from scratch: O(span) numpy work.

        For most candidates the rest of the cluster has the cluster's largest
        edge weight D and smallest incident cut M; the exceptions (subtrees
        holding every edge of weight D, or every node with incident cut M)
        form chains of ancestors, handled exactly by :meth:`_specials`.
        """
        self.since_full = 0
        if self.n < 2:
            self.best = (-np.inf, -1, -1)
            self.chain = np.empty(0, dtype=np.int64)
            return
        p = self.p
        self.disp = p.max()
        self.sep = self.q.min()
        self.vout = self._generic(slice(None))
        self.cd, self.vd = self._chain_disp()
        self.cs, self.vs = self._chain_sep()
        self.chain, exact = self._specials()
        self.vout[self.chain] = exact
        self.r = self._values(slice(None))
        self.r[~self.alive] = -np.inf
        self.r[0] = -np.inf

    def select(self, tol):
        """Cache the best cut (gain, tie rank, position); ties by largest rank."""
        if self.n < 2:
            self.best = (-np.inf, -1, -1)
            return
        r = self.r
        top = r.max()
        near = np.flatnonzero(r >= top - tol)
        k = int(near[np.argmax(self.rank[near])])
        self.best = (float(r[k]) - self.term, int(self.rank[k]), k)

    def cut(self, i):
        """Cut the parent edge of the node at position ``i``.

        Returns the new cluster (the subtree, copied out and evaluated from
        scratch) and the exact terms of both sides; ``self`` becomes the rest
        of the cluster, updated in place: only the ancestors of the cut change
        their inside part, and while the cluster's largest edge and smallest
        incident cut stay the same every other value just loses
        ``|A| * vout``.
        """
        s_a = int(self.s[i])
        end = int(self.e[i])
        wv = self.p[i]
        ta = float(self.sv[i])
        tb = float((self.n - s_a) * self.vout[i])
        sl = slice(i, end)
        max_a = max(self.d_in[i], wv)  # heaviest edge leaving with the subtree
        min_a = self.m_in[i]  # smallest cut incident to the subtree so far
        if s_a == 1 and end == i + 1:
            a = _Singleton(self.arr[sl].copy(), ta)
        else:
            a = _Cluster(self.arr[sl].copy(), self.p[sl].copy(), self.q[sl].copy(),
                         self.s[sl].copy(), self.e[sl] - i, self.d_in[sl].copy(),
                         self.m_in[sl].copy(), self.rank[sl].copy(), self.alive[sl].copy(),
                         s_a, ta)
            a.p[0] = -np.inf
            a.q[0] = min(a.q[0], wv)
            a.m_in[0] = min(a.m_in[0], wv)
            a.evaluate()
        # The rest: kill the subtree's positions.
        self.p[sl] = -np.inf
        self.q[sl] = np.inf
        self.alive[sl] = False
        self.r[sl] = -np.inf
        self.n -= s_a
        self.term = tb
        anc = np.flatnonzero(self.e[:i] > i)  # live ancestors (dead ranges end before i)
        self.s[anc] -= s_a
        # An ancestor's largest inside edge changes only if it was the heaviest
        # edge of the subtree and no edge of that weight is left in its range;
        # such ancestors are the deepest ones, recomputed over their window.
        self._refresh(self.d_in, self.p, np.maximum, -np.inf, anc, i,
                      self.d_in[anc] == max_a, 1)
        if np.isfinite(min_a):
            self._refresh(self.m_in, self.q, np.minimum, np.inf, anc, i,
                          self.m_in[anc] == min_a, 0)
        self.m_in[anc] = np.minimum(self.m_in[anc], wv)  # all contain the parent
        self.q[anc[-1]] = min(self.q[anc[-1]], wv)  # the parent gets the new cut edge
        self.sv[anc] = self._inside(anc)
        self.since_full += 1
        if (self.n < 2 or self.p.max() != self.disp or self.q.min() != self.sep
                or self.since_full >= _REFRESH_EVERY):
            self.evaluate()
            return a, ta, tb
        self.r -= s_a * self.vout
        self.r[anc[1:]] = self._values(anc[1:])
        self._update_chains(i, anc[-1], wv, max_a, min_a)
        old = self.chain
        self.chain, exact = self._specials()
        if old.size or self.chain.size:
            gone = np.setdiff1d(old, self.chain)
            if gone.size:
                self.vout[gone] = self._generic(gone)
            self.vout[self.chain] = exact
            touched = np.union1d(gone, self.chain)
            touched = touched[self.alive[touched]]
            self.r[touched] = self._values(touched)
        return a, ta, tb

    def _update_chains(self, i, par, wv, max_a, min_a):
        """Bring both chains up to date after the subtree at ``i`` left.

        A chain is rebuilt when its defining set of positions changed;
        otherwise only members whose rest lost the subtree holding their
        extreme are recomputed, and the new cut at ``par`` lowers the
        separation of members whose rest contains it."""
        if max_a == self.disp:
            self.cd, self.vd = self._chain_disp()
        elif self.cd.size:
            redo = ((i < self.cd) | (i >= self.e[self.cd])) & (self.vd == max_a)
            if redo.any():
                k = self.cd[redo]
                self.vd[redo] = _outside_nested(np.maximum, self.p, k, self.e[k], -np.inf)
        if min_a == self.sep:
            self.cs, self.vs = self._chain_sep()
        elif wv == self.sep:
            # The parent joins the positions of the smallest cut: the members
            # left are those whose subtree holds it, and it holds the subtree
            # that left, so their rest is unchanged.
            keep = (self.cs <= par) & (par < self.e[self.cs])
            self.cs, self.vs = self.cs[keep], self.vs[keep]
        elif self.cs.size:
            cs = self.cs
            redo = ((i < cs) | (i >= self.e[cs])) & (self.vs == min_a)
            if redo.any():
                k = cs[redo]
                self.vs[redo] = _outside_nested(np.minimum, self.q, k, self.e[k], np.inf)
            par_out = (par < cs) | (par >= self.e[cs])
            self.vs[par_out] = np.minimum(self.vs[par_out], wv)

    def _refresh(self, agg, values, ufunc, identity, anc, mid, maybe, offset):
        """Recompute ``agg`` (a subtree maximum or minimum of ``values`` over
        ``[k + offset, e[k])``) for the ancestors ``anc[maybe]``: those whose
        extreme may have left with the subtree. They are the deepest
        ancestors, so their ranges are nested in the first one's window."""
        if not maybe.any():
            return
        todo = anc[maybe]
        lo = int(todo[0])
        window = values[lo:int(self.e[lo])]
        agg[todo] = _inside_nested(ufunc, window, todo - lo + offset, self.e[todo] - lo,
                                   mid - lo, identity)


class _Singleton:
    """A one-node cluster: no candidate cut."""

    __slots__ = ("arr", "alive", "term", "best")

    def __init__(self, arr, term):
        self.arr, self.term = arr, term
        self.alive = np.ones(1, dtype=bool)
        self.best = (-np.inf, -1, -1)

    def select(self, tol):
        pass


class _State:
    """The greedy cutting of every component of a rooted forest."""

    def __init__(self, forest, n):
        self.f = forest
        self.n = n
        self.clusters = []  # node arrays of the finished clusters

    def labels(self):
        """Labels 0..K-1, clusters numbered by their smallest node."""
        sizes = np.array([arr.size for arr in self.clusters])
        first = np.array([arr.min() for arr in self.clusters])
        lab_of_cluster = np.empty(first.size, dtype=np.int64)
        lab_of_cluster[np.argsort(first)] = np.arange(first.size)
        labels = np.empty(self.n, dtype=np.int64)
        labels[np.concatenate(self.clusters)] = np.repeat(lab_of_cluster, sizes)
        return labels

    def _initial_cluster(self, arr):
        f = self.f
        n_c = arr.size
        p = f.parent_weight[arr].copy()
        p[0] = -np.inf
        s = f.size[arr].copy()
        pos = np.arange(n_c)
        d_in = range_max(p, pos + 1, pos + s)
        # The index starts at -1 (Algorithm 1, line 2): term -|C|.
        c = _Cluster(arr, p, np.full(n_c, np.inf), s, pos + s, d_in, np.full(n_c, np.inf),
                     f.parent_rank[arr].copy(), np.ones(n_c, dtype=bool), n_c, -float(n_c))
        c.evaluate()
        return c

    def run_component(self, arr, s_total, cuts, path):
        n_c = arr.size
        tol = TIE_RTOL * n_c
        live = [self._initial_cluster(arr)]
        live[0].select(tol)
        # Best gain and tie rank of every cluster, for a vectorised choice.
        gains = np.full(n_c, -np.inf)
        ranks = np.full(n_c, -1, dtype=np.int64)
        gains[0], ranks[0] = live[0].best[:2]
        s_comp = -float(n_c)
        first = True
        while s_comp < n_c - tol:
            k = len(live)
            best = gains[:k].max()
            if not np.isfinite(best) or (not first and best < -tol):
                break
            cand = np.flatnonzero(gains[:k] >= best - tol)
            c = int(cand[np.argmax(ranks[cand])])
            cluster = live[c]
            pos = cluster.best[2]
            old_term = cluster.term
            cuts.append(int(cluster.arr[pos]))
            a, ta, tb = cluster.cut(pos)
            first = False
            gain = ta + tb - old_term
            s_comp += gain
            s_total += gain
            path.append(s_total)
            live.append(a)
            for idx, cl in ((c, cluster), (k, a)):
                cl.select(tol)
                gains[idx], ranks[idx] = cl.best[:2]
        self.clusters.extend(c.arr[c.alive] for c in live)
        return s_total


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
    weight_kind : {"distance", "similarity"} or None, default=None
        What the weights of a graph (``metric="precomputed"`` or a networkx
        graph) mean. ``"similarity"`` (counts, affinities, a kernel):
        converted into distances with ``1 / w`` (for other conversions use
        :class:`skdpgraph.graphs.SimilarityToDistance` or
        :func:`skdpgraph.from_networkx`). ``"distance"``: used as they are.
        ``None``: used as distances, with a
        :class:`~skdpgraph.utils.WeightMeaningWarning` when they look like
        similarities (see :func:`skdpgraph.check_graph`).

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
    weights. A graph whose edges all have the same weight (an unweighted
    graph) gives one cluster per node, with a
    :class:`~skdpgraph.cluster.ConstantWeightsWarning`: give it structural
    distances first (:class:`skdpgraph.graphs.StructuralDistance`).

    References
    ----------
    Pinot et al., "Graph-based Clustering under Differential Privacy",
    UAI 2018, Section 3.2.1 and Algorithm 1; Morvan et al., "DBMSTClu:
    Density-based MST clustering", 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import DBMSTClu
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> DBMSTClu().fit_predict(X)
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints = {
        "metric": [StrOptions({"precomputed"}), str, callable],
        "metric_params": [dict, None],
        "weight_kind": [StrOptions({"distance", "similarity"}), None],
    }

    def __init__(self, metric="euclidean", metric_params=None, weight_kind=None):
        self.metric = metric
        self.metric_params = metric_params
        self.weight_kind = weight_kind

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
        graph = check_graph(X, self.metric, self.metric_params, weight_kind=self.weight_kind)
        warn_if_constant_weights(graph)
        self.n_features_in_ = _n_features(X, graph)
        tree = tree_from_graph(graph)
        res = dbmstclu(tree)
        self.tree_ = tree.tree
        set_dbmstclu_attributes(self, res)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances
        tags.input_tags.sparse = True
        return tags
