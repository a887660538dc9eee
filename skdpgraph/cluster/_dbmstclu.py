"""DBMSTClu: parameter-free clustering by cutting a minimum spanning tree.

References
----------
.. [1] M. Morvan, K. Vasilopoulos, C. Gouy-Pailler, J. Atif. "DBMSTClu:
   Density-based MST clustering", 2017 (Section 4).
.. [2] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif. "Graph-based
   Clustering under Differential Privacy", UAI 2018, Section 3.2.1,
   Definitions 3.3-3.6 and Algorithm 1.
"""

import heapq
import math
from array import array
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from ..distributed import is_edge_table, table_spanning_forest
from ..metrics._scores import dbcvi_from_labels
from ..tree import check_tree, tree_from_graph
from ..tree._rooted import root_forest
from ..utils import StageLogger
from ..utils._param_validation import fit_context
from ._base import (
    DBMSTCLU_FIELDS,
    GRAPH_INPUT_CONSTRAINTS,
    check_graph_input,
    set_result_attributes,
    warn_if_constant_weights,
)

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
    within ``1e-9 * n`` of each other count as equal (``n``: the size of the
    connected component). The rule is applied in two stages, as the cut is
    chosen: each cluster's best cut is the last in edge order among its cuts
    within ``1e-9 * n`` of its best value, and the cut made is the last in
    edge order among those clusters' best cuts whose values are within
    ``1e-9 * n`` of the largest. The stages differ from one pass over all
    cuts only for values that differ by less than ``1e-9 * n`` without being
    equal.

    *Zero weights.* A cluster with dispersion 0 (a singleton, or nodes joined
    by zero-weight edges) has validity 1; a cluster with separation 0 and
    positive dispersion has validity -1. The index is never NaN.

    *Forests.* Each connected component is clustered as DBMSTClu clusters it
    alone (its own first cut is always made); components are never merged.
    The reported index is the size-weighted mean of the components' indices,
    each starting at -1 (an isolated node counts as a singleton, index 1);
    for a tree it is exactly the index of [2].

    *Speed.* Cutting an edge of cluster C changes only C's term of the index
    and no cut value in another cluster, so the greedy order does not decide
    what a cluster does: the best cut of every cluster, and the two clusters
    it makes, are found first (the tree of all splits whose gain is not
    negative), and the greedy order is replayed over that tree with a heap.
    Small clusters are evaluated many at a time with whole-array operations
    (a DFS preorder makes every candidate's side a range, or a prefix plus a
    suffix). A large cluster is evaluated once and then updated: a cut
    changes the values of the ancestors of the cut edge only, and, while the
    cluster's largest edge and smallest incident cut stay the same, the
    other values are constant (cuts whose edge is at least the separation)
    or only grow as the cluster shrinks (lighter cuts, bounded until the
    cluster has lost an eighth of its nodes); a heap of the best values and
    per-node counts of the subtree extremes keep each cut at
    O(depth + size of the smaller side) whole-array work and O(log n) Python
    steps (the ancestors of a cut are slices of a heavy-path decomposition,
    and those whose extremes change are recomputed together as nested
    ranges). The smaller side of each cut is moved out, the larger stays in
    place. See ``docs/dbmstclu.md``.
    """
    tree = check_tree(tree)
    n, (u, v), w = tree.tree.shape[0], tree.edges.T, tree.weights
    forest = root_forest(tree.edges, w, n)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        cut_nodes, path = _run(forest, n)
    k = cut_nodes.size
    parents = forest.parent[cut_nodes]
    cut_edges = np.column_stack([np.minimum(parents, cut_nodes),
                                 np.maximum(parents, cut_nodes)]).reshape(k, 2)
    cut_weights = forest.parent_weight[cut_nodes]
    labels = _labels(forest, n, cut_nodes)
    n_clusters = int(labels.max()) + 1 if n else 0
    dbcvi = dbcvi_from_labels(n, u, v, w, labels, n_clusters)
    # The path sums the gains of the cuts; rounding may leave it a few ulps
    # outside [-1, 1], where the index lies.
    path = np.clip(np.asarray(path, dtype=np.float64) / n, -1.0, 1.0)
    return DBMSTCluResult(labels, n_clusters, dbcvi, cut_edges, cut_weights, path)


def _labels(forest, n, cut_nodes):
    """Connected components of the forest without the cut edges, numbered by
    their smallest node.

    Each component root and each cut node heads a cluster whose nodes are
    its subtree, a range of the preorder, less the ranges of the heads
    below it. The ranges are laminar, so a position belongs to the range of
    largest start among those at its nesting level that start before it.
    """
    heads = np.concatenate([forest.order[forest.comp_start[:-1]],
                            np.asarray(cut_nodes, dtype=np.int64)])
    start = forest.tin[heads]
    level = np.cumsum(np.bincount(start, minlength=n + 1)
                      - np.bincount(start + forest.size[heads], minlength=n + 1))[:n]
    key = level[start] * (n + 1) + start
    order = np.argsort(key)
    at = np.searchsorted(key[order], level * (n + 1) + np.arange(n), side="right") - 1
    lab = np.empty(n, dtype=np.int64)
    lab[forest.order] = order[at]
    k = heads.size
    first = np.full(k, n, dtype=np.int64)
    np.minimum.at(first, lab, np.arange(n, dtype=np.int64))
    renum = np.empty(k, dtype=np.int64)
    renum[np.argsort(first)] = np.arange(k)
    return renum[lab]


#: Clusters of at most this many nodes are evaluated in batches with
#: whole-array operations; larger ones by an incremental :class:`_Engine`.
_SMALL = 128
#: Block size of the block extremes of :class:`_Blocks`.
_BS = 64
#: Candidate cuts kept in an engine's heap after each refill.
_HEAP = 1024
#: Ancestors whose subtree extreme is recomputed one by one (more: at once,
#: as nested ranges, with whole-array operations).
_NESTED = 4
#: Changed values admitted at once above which they skip the heap (and are
#: evaluated with whole-array operations at each choice instead).
_BULK = 32
#: Test hook: when positive, an engine re-evaluates its cluster from scratch
#: every ``_REFRESH_EVERY`` cuts (1: every cut, the slow reference path).
_REFRESH_EVERY = 0


def _vi(sep, disp):
    """:func:`validity_index` without its error-state guard (set by the caller)."""
    return np.where(disp > 0, (sep - disp) / np.maximum(sep, disp), 1.0)


def _range_reduce(ufunc, vals, lo, hi, identity):
    """``ufunc``-reduction of ``vals[lo[k]:hi[k]]`` for many ranges.

    Blocks of 32 with in-block prefix and suffix scans plus a sparse table
    over the block extremes: O(len(vals) + len(lo) log) time and
    O(len(vals)) memory (a full sparse table would need log n copies).
    """
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    out = np.full(lo.shape, identity, dtype=np.float64)
    L = vals.size
    if not L or not lo.size:
        return out
    bs = 32
    nb = -(-L // bs)
    padded = np.full(nb * bs, identity, dtype=np.float64)
    padded[:L] = vals
    blocks = padded.reshape(nb, bs)
    pre = ufunc.accumulate(blocks, axis=1).ravel()
    suf = ufunc.accumulate(blocks[:, ::-1], axis=1)[:, ::-1].ravel()
    ok = hi > lo
    bl = lo // bs
    br = (hi - 1) // bs
    same = ok & (bl == br)
    if same.any():
        a, b = lo[same], hi[same]
        acc = padded[a]  # ranges within one block: scanned, the live ones only
        act = np.flatnonzero(b - a > 1)
        t = 1
        while act.size:
            pos = a[act] + t
            acc[act] = ufunc(acc[act], padded[pos])
            act = act[pos + 1 < b[act]]
            t += 1
        out[same] = acc
    diff = ok & (bl < br)
    if diff.any():
        a, b = lo[diff], hi[diff]
        res = ufunc(suf[a], pre[b - 1])
        mb_lo, mb_hi = bl[diff] + 1, br[diff]  # whole blocks in between
        inner = mb_hi > mb_lo
        if inner.any():
            table = [pre.reshape(nb, bs)[:, -1]]
            span = 1
            length = mb_hi[inner] - mb_lo[inner]
            while 2 * span <= int(length.max()):
                prev = table[-1]
                table.append(ufunc(prev[:-span], prev[span:]))
                span *= 2
            lv = np.zeros(length.size, dtype=np.int64)
            for level in range(1, len(table)):
                lv[length >= (1 << level)] = level
            part = np.full(length.size, identity, dtype=np.float64)
            for level in np.unique(lv):
                sel = lv == level
                t = table[level]
                x, y = mb_lo[inner][sel], mb_hi[inner][sel] - (1 << level)
                part[sel] = ufunc(t[x], t[y])
            res[inner] = ufunc(res[inner], part)
        out[diff] = res
    return out


def _count_equal(vals, lo, hi, target):
    """Number of ``c`` in ``[lo[k], hi[k])`` with ``vals[c] == target[k]``."""
    L = vals.size
    uniq, inv = np.unique(vals, return_inverse=True)
    keys = np.sort(inv.astype(np.int64) * (L + 1) + np.arange(L))
    t = np.minimum(np.searchsorted(uniq, target), uniq.size - 1)
    found = uniq[t] == target
    base = t * (L + 1)
    cnt = np.searchsorted(keys, base + hi) - np.searchsorted(keys, base + lo)
    return np.where(found & (hi > lo), cnt, 0)


def _heavy_paths(par, size):
    """Heavy-path decomposition of a tree given in DFS preorder (root at 0,
    ``par[0] = -1``): the nodes grouped by path, top-down (``hp``), each
    node's index there (``at``) and the index of its path's head (``top``).
    The ancestors of a node on its path are ``hp[top[node]:at[node]]``; a
    root path crosses O(log n) paths. ``top`` and ``at`` are int32 where
    they fit (``hp``, sliced into index arrays, stays intp)."""
    L = par.size
    dt = np.int32 if L < 2**31 - 1 else np.int64
    ar = np.arange(L, dtype=dt)
    head = ar.copy()
    if L > 1:
        key = size[1:] * (L + 1)
        key += ar[1:]
        best = np.zeros(L, dtype=np.int64)
        np.maximum.at(best, par[1:], key)  # the largest child of each parent
        del key
        heavy = (best[best > 0] % (L + 1)).astype(dt)
        del best
        head[heavy] = par[heavy]
        while True:  # pointer jumping up the heavy edges
            nxt = head[head]
            if np.array_equal(nxt, head):
                break
            head = nxt
    hp = np.argsort(head, kind="stable")  # preorder within a path is top-down; intp
    at = np.empty(L, dtype=dt)
    at[hp] = ar
    return at[head], hp, at


class _Blocks:
    """Extremes (and how often they occur) of blocks of ``_BS`` entries of a
    mutable array, for range queries in O(range / _BS + _BS). Blocks changed
    by :meth:`touch` are recomputed together at the next query."""

    __slots__ = ("vals", "ufunc", "identity", "ext", "cnt", "is_max", "dirty")

    def __init__(self, vals, is_max):
        self.vals = vals  # length a multiple of _BS, shared with the owner
        self.is_max = is_max
        self.ufunc = np.maximum if is_max else np.minimum
        self.identity = -np.inf if is_max else np.inf
        nb = vals.size // _BS
        self.ext = np.empty(nb)
        self.cnt = np.empty(nb, dtype=np.int64)
        self.dirty = []
        self._recompute(np.arange(nb))

    def touch(self, a, b):
        """The values in ``[a, b)`` changed."""
        ba, bb = a // _BS, (b - 1) // _BS + 1
        if bb - ba == 1:
            self.dirty.append(ba)
        else:
            self.dirty.extend(range(ba, bb))

    def _recompute(self, blocks):
        blk = self.vals.reshape(-1, _BS)[blocks]
        ext = blk.max(axis=1) if self.is_max else blk.min(axis=1)
        self.ext[blocks] = ext
        self.cnt[blocks] = (blk == ext[:, None]).sum(axis=1)

    def _sync(self):
        dirty = self.dirty
        if dirty:
            if len(dirty) <= 4:
                vals, ext, cnt = self.vals, self.ext, self.cnt
                for blk in set(dirty):
                    seg = vals[blk * _BS:(blk + 1) * _BS]
                    x = seg.max() if self.is_max else seg.min()
                    ext[blk] = x
                    cnt[blk] = np.count_nonzero(seg == x)
            else:
                self._recompute(np.unique(np.array(dirty, dtype=np.int64)))
            self.dirty = []

    def query(self, a, b):
        """(extreme, count) over ``[a, b)``; the count is 0 if it is the identity."""
        if b <= a:
            return self.identity, 0
        ba, bb = -(-a // _BS), b // _BS
        if bb <= ba:
            seg = self.vals[a:b]
            x = seg.max() if self.is_max else seg.min()
            return x, (int(np.count_nonzero(seg == x)) if x != self.identity else 0)
        self._sync()
        parts = [self.vals[a:ba * _BS], self.vals[bb * _BS:b]]
        mid = self.ext[ba:bb]
        x = mid.max() if self.is_max else mid.min()
        for seg in parts:
            if seg.size:
                y = seg.max() if self.is_max else seg.min()
                x = self.ufunc(x, y)
        if x == self.identity:
            return x, 0
        c = int(self.cnt[ba:bb][mid == x].sum())
        for seg in parts:
            c += int(np.count_nonzero(seg == x))
        return x, c

    def query_many(self, a, b):
        """:meth:`query` over many ranges ``[a[k], b[k])`` at once."""
        self._sync()
        vals, uf, ident = self.vals, self.ufunc, self.identity
        k = a.size
        ext = np.full(k, ident)
        cnt = np.zeros(k, dtype=np.int64)
        ba, bb = -(-a // _BS), b // _BS
        whole = bb > ba
        last = vals.size - 1
        short = np.flatnonzero(~whole & (b > a))  # under two blocks: scanned
        if short.size:
            aa, ln = a[short], b[short] - a[short]
            cols = np.arange(int(ln.max()))
            rows = np.where(cols < ln[:, None],
                            vals[np.minimum(aa[:, None] + cols, last)], ident)
            x = uf.reduce(rows, axis=1)
            ext[short] = x
            cnt[short] = np.count_nonzero(rows == x[:, None], axis=1)
        big = np.flatnonzero(whole)
        if big.size:
            aa, bz, lb, rb = a[big], b[big], ba[big], bb[big]
            cols = np.arange(_BS)
            left = np.where(cols < (lb * _BS - aa)[:, None],
                            vals[np.minimum(aa[:, None] + cols, last)], ident)
            right = np.where(cols < (bz - rb * _BS)[:, None],
                             vals[np.minimum((rb * _BS)[:, None] + cols, last)], ident)
            nblk = rb - lb
            blk = _gather(lb, rb)
            mid = self.ext[blk]
            x = uf(uf(uf.reduce(left, axis=1), uf.reduce(right, axis=1)),
                   uf.reduceat(mid, np.cumsum(nblk) - nblk))
            rep = np.repeat(np.arange(big.size), nblk)
            c_mid = np.bincount(rep, weights=np.where(mid == x[rep], self.cnt[blk], 0),
                                minlength=big.size).astype(np.int64)
            ext[big] = x
            cnt[big] = (np.count_nonzero(left == x[:, None], axis=1)
                        + np.count_nonzero(right == x[:, None], axis=1) + c_mid)
        cnt[ext == ident] = 0
        return ext, cnt

    def query_nested(self, a, b):
        """:meth:`query` over nested ranges, each ``[a[k], b[k])`` holding the
        previous one: each ring (the range less the previous) is queried once,
        and the extremes and their counts accumulate outwards."""
        k = a.size
        ra = np.empty(k, dtype=np.int64)  # ring k: [a[k], ra[k]) and [rb[k], b[k])
        ra[0] = b[0]
        ra[1:] = a[:-1]
        rb = np.empty(k, dtype=np.int64)
        rb[0] = b[0]
        rb[1:] = b[:-1]
        x1, c1 = self.query_many(a, ra)
        x2, c2 = self.query_many(rb, b)
        ring = self.ufunc(x1, x2)
        rc = np.where(x1 == ring, c1, 0) + np.where(x2 == ring, c2, 0)
        run = self.ufunc.accumulate(ring)
        # count of the running extreme: the rings since it was last raised
        # that attain it
        total = np.cumsum(np.where(ring == run, rc, 0))
        start = np.ones(k, dtype=bool)
        start[1:] = run[1:] != run[:-1]
        first = np.maximum.accumulate(np.where(start, np.arange(k), 0))
        cnt = total - np.where(first > 0, total[first - 1], 0)
        cnt[run == self.identity] = 0
        return run, cnt

    def first_last(self, x, a, b):
        """First and last positions in ``[a, b)`` holding ``x`` (which occurs)."""
        self._sync()
        ba, bb = a // _BS, (b - 1) // _BS + 1
        hit = np.flatnonzero(self.ext[ba:bb] == x) + ba
        lo_blk, hi_blk = int(hit[0]), int(hit[-1])
        seg = self.vals[lo_blk * _BS:(lo_blk + 1) * _BS]
        first = lo_blk * _BS + int(np.argmax(seg == x))
        seg = self.vals[hi_blk * _BS:(hi_blk + 1) * _BS]
        last = hi_blk * _BS + _BS - 1 - int(np.argmax(seg[::-1] == x))
        return first, last


class _Context:
    """The rooted forest, the incident-cut minima of all nodes and the
    records of every cluster (its index term; once evaluated its best cut,
    the terms of the two sides and, if expanded, their ids)."""

    def __init__(self, forest, n):
        self.n = n
        self.tin = forest.tin
        self.tout = forest.tin + forest.size
        self.parent = forest.parent
        self.pw = forest.parent_weight
        self.prank = forest.parent_rank
        self.qn = np.full(n, np.inf)  # smallest cut edge incident to each node
        self.pos_of = np.zeros(n, dtype=np.int64)  # scratch
        # Records in typed arrays (8 bytes each; Python lists of numbers took
        # five times as much, the peak of memory with 10^5 cuts and more).
        self.c_term = array("d")  # creation: the index term of each cluster id
        # evaluation: best cut, gain, the two sides' terms and ids
        self.e_id, self.e_rank, self.e_cut = array("q"), array("q"), array("q")
        self.e_a, self.e_b = array("q"), array("q")
        self.e_gain, self.e_ta, self.e_tb = array("d"), array("d"), array("d")
        self.pending = []  # small clusters awaiting a batch: (nodes, id, tol, forced)
        self.engines = []

    def new(self, term):
        self.c_term.append(term)
        return len(self.c_term) - 1

    def record(self, cid, gain, rank, cut, ta, tb, a, b):
        self.e_id.append(cid)
        self.e_gain.append(gain)
        self.e_rank.append(rank)
        self.e_cut.append(cut)
        self.e_ta.append(ta)
        self.e_tb.append(tb)
        self.e_a.append(a)
        self.e_b.append(b)

    def submit(self, nodes, cid, tol, forced=False):
        """Queue a new cluster (nodes in preorder) for evaluation."""
        if nodes.size < 2:
            return
        if nodes.size <= _SMALL:
            self.pending.append((nodes, cid, tol, forced))
        else:
            self.engines.append((nodes, cid, tol, forced))

    def cut_update(self, node, w):
        """A cut edge (parent(node), node) of weight w: incident minima."""
        qn = self.qn
        if w < qn[node]:
            qn[node] = w
        par = self.parent[node]
        if w < qn[par]:
            qn[par] = w


def _run(forest, n):
    """Evaluate every cluster of the split tree, then replay the greedy."""
    ctx = _Context(forest, n)
    starts = forest.comp_start
    comp_sizes = np.diff(starts)
    roots = []
    for c in range(starts.size - 1):
        size = int(comp_sizes[c])
        cid = ctx.new(-float(size))  # the index starts at -1: term -|C|
        roots.append((cid, size))
        ctx.submit(forest.order[starts[c]:starts[c + 1]], cid, TIE_RTOL * size, forced=True)
    while ctx.engines or ctx.pending:
        while ctx.engines:
            nodes, cid, tol, forced = ctx.engines.pop()
            _Engine(ctx, nodes, cid, tol, forced).run()
        if ctx.pending:
            batch, ctx.pending = ctx.pending, []
            _run_batches(ctx, batch)
    return _replay(ctx, roots, comp_sizes)


def _replay(ctx, roots, comp_sizes):
    """Algorithm 1's greedy over the evaluated split tree, component by component."""
    R = len(ctx.c_term)
    ids = np.frombuffer(ctx.e_id, dtype=np.int64)

    def by_id(records, fill):
        out = np.full(R, fill, dtype=np.float64 if records.typecode == "d" else np.int64)
        out[ids] = np.frombuffer(records, dtype=out.dtype)
        return array(records.typecode, out.tobytes())

    gain, rank, cut = by_id(ctx.e_gain, -np.inf), by_id(ctx.e_rank, -1), by_id(ctx.e_cut, -1)
    ta, tb = by_id(ctx.e_ta, 0.0), by_id(ctx.e_tb, 0.0)
    ca, cb = by_id(ctx.e_a, -1), by_id(ctx.e_b, -1)
    term = ctx.c_term
    cuts, path = array("q"), array("d")
    # Sum of |C| V_C over all components: -|c| for a component not yet cut
    # (its index starts at -1), +1 for an isolated node (a singleton).
    s_total = float(np.sum(np.where(comp_sizes == 1, 1.0, -comp_sizes)))
    for cid, n_c in roots:
        if n_c < 2:
            continue
        tol = TIE_RTOL * n_c
        heap = _TieHeap()
        heap.push(gain[cid], rank[cid], cid)
        s_comp = -float(n_c)
        first = True
        while s_comp < n_c - tol and heap:
            best = heap.top()
            if not np.isfinite(best) or (not first and best < -tol):
                break
            c = heap.pop(tol)
            first = False
            g = ta[c] + tb[c] - term[c]
            s_comp += g
            s_total += g
            cuts.append(cut[c])
            path.append(s_total)
            for child in (ca[c], cb[c]):
                if child >= 0 and gain[child] > -np.inf:
                    heap.push(gain[child], rank[child], child)
    return np.frombuffer(cuts, dtype=np.int64), np.frombuffer(path, dtype=np.float64)


class _TieHeap:
    """Max-heap of items by value; :meth:`pop` returns, among the items whose
    value is within ``tol`` of the largest, the one of largest rank. Items of
    one exact value share a group, so that many exact ties cost O(log) each."""

    __slots__ = ("vals", "groups")

    def __init__(self):
        self.vals = []  # heap of -value, one per group
        self.groups = {}  # value -> heap of (-rank, item)

    def __bool__(self):
        return bool(self.vals)

    def push(self, value, rank, item):
        g = self.groups.get(value)
        if g is None:
            self.groups[value] = [(-rank, item)]
            heapq.heappush(self.vals, -value)
        else:
            heapq.heappush(g, (-rank, item))

    def top(self):
        return -self.vals[0]

    def pop(self, tol):
        vals, groups = self.vals, self.groups
        floor = -vals[0] - tol
        seen = []
        best_v, best_r = None, None
        while vals and -vals[0] >= floor:
            v = -heapq.heappop(vals)
            seen.append(v)
            r = groups[v][0][0]
            if best_r is None or r < best_r:
                best_v, best_r = v, r
        g = groups[best_v]
        item = heapq.heappop(g)[1]
        for v in seen:
            if groups[v]:
                heapq.heappush(vals, -v)
            else:
                del groups[v]
        return item


def _gather(lo, hi):
    """Concatenation of ``arange(lo[k], hi[k])`` over ``k``."""
    lens = hi - lo
    total = int(lens.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    off = np.cumsum(lens) - lens
    return np.repeat(lo - off, lens) + np.arange(total)


def _run_batches(ctx, batch):
    """Evaluate small clusters many at a time, generation by generation."""
    nodes = np.concatenate([b[0] for b in batch])
    sizes = np.array([b[0].size for b in batch], dtype=np.int64)
    ids = np.array([b[1] for b in batch], dtype=np.int64)
    tols = np.array([b[2] for b in batch])
    forced = np.array([b[3] for b in batch], dtype=bool)
    terms = np.array([ctx.c_term[b[1]] for b in batch], dtype=np.float64)
    while ids.size:
        nodes, sizes, ids, tols, forced, terms = _batch_step(ctx, nodes, sizes, ids, tols,
                                                             forced, terms)


def _batch_step(ctx, nodes, sizes, ids, tols, forced, terms):
    """Best cut of each cluster (segments of ``nodes``, each in preorder) and
    the next generation: the two sides of every cut that may be made."""
    n = ctx.n
    K, L = ids.size, nodes.size
    starts = np.zeros(K + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    st, en = starts[:-1], starts[1:]
    seg = np.repeat(np.arange(K), sizes)
    pos = np.arange(L)
    p = ctx.pw[nodes]
    p[st] = -np.inf
    q = ctx.qn[nodes]
    base = seg * (n + 1)
    e = np.searchsorted(base + ctx.tin[nodes], base + ctx.tout[nodes])
    s = e - pos
    N = sizes[seg]
    d_in = _range_reduce(np.maximum, p, pos + 1, e, -np.inf)
    m_in = _range_reduce(np.minimum, q, pos, e, np.inf)
    disp = np.maximum.reduceat(p, st)
    sep = np.minimum.reduceat(q, st)
    dseg, sseg = disp[seg], sep[seg]
    vout = _vi(np.minimum(np.maximum(p, 0.0), sseg), np.maximum(dseg, 0.0))
    root = np.zeros(L, dtype=bool)
    root[st] = True
    # Candidates whose subtree holds every edge of the largest weight, or
    # every node with the smallest incident cut: the rest is computed exactly.
    isd = p == dseg
    fd = np.minimum.reduceat(np.where(isd, pos, L), st)[seg]
    ld = np.maximum.reduceat(np.where(isd, pos, -1), st)[seg]
    memd = ~root & (pos <= fd) & (e > ld)
    iss = (q == sseg) & np.isfinite(sseg)
    fs = np.minimum.reduceat(np.where(iss, pos, L), st)
    ls = np.maximum.reduceat(np.where(iss, pos, -1), st)
    ok = (fs < en) & (fs > st)
    mems = ~root & ok[seg] & (pos <= fs[seg]) & (e > ls[seg])
    mem = memd | mems
    if mem.any():
        j = np.flatnonzero(mem)
        sj = seg[j]
        dr = disp[sj]
        md = memd[j]
        if md.any():
            jj = j[md]
            dr[md] = np.maximum(_range_reduce(np.maximum, p, st[sj[md]], jj, -np.inf),
                                _range_reduce(np.maximum, p, e[jj], en[sj[md]], -np.inf))
        sr = sep[sj]
        ms = mems[j]
        if ms.any():
            jj = j[ms]
            sr[ms] = np.minimum(_range_reduce(np.minimum, q, st[sj[ms]], jj, np.inf),
                                _range_reduce(np.minimum, q, e[jj], en[sj[ms]], np.inf))
        vout[j] = _vi(np.minimum(p[j], sr), np.maximum(dr, 0.0))
    sv = s * _vi(np.minimum(np.maximum(p, 0.0), m_in), np.maximum(d_in, 0.0))
    r = sv + (N - s) * vout
    r[st] = -np.inf
    top = np.maximum.reduceat(r, st)
    near = r >= (top - tols)[seg]
    rk = np.where(near, ctx.prank[nodes], -1)
    brank = np.maximum.reduceat(rk, st)
    k = np.flatnonzero(near & (rk == brank[seg]))
    gain = r[k] - terms
    # Expanded: every cluster the greedy may cut (a gain within the tie
    # tolerance of the stopping threshold -tol may still be picked).
    expand = forced | (gain >= -2 * tols)
    sa = s[k]
    ta = sv[k]
    tb = (sizes - sa) * vout[k]
    # Records: children for the expanded clusters.
    R0 = len(ctx.c_term)
    n_exp = int(expand.sum())
    ida = np.full(K, -1, dtype=np.int64)
    idb = np.full(K, -1, dtype=np.int64)
    ida[expand] = R0 + 2 * np.arange(n_exp)
    idb[expand] = R0 + 2 * np.arange(n_exp) + 1
    new_terms = np.empty(2 * n_exp)
    new_terms[0::2] = ta[expand]
    new_terms[1::2] = tb[expand]
    for records, values in ((ctx.c_term, new_terms), (ctx.e_id, ids), (ctx.e_gain, gain),
                            (ctx.e_rank, ctx.prank[nodes[k]]), (ctx.e_cut, nodes[k]),
                            (ctx.e_ta, ta), (ctx.e_tb, tb), (ctx.e_a, ida), (ctx.e_b, idb)):
        dtype = np.float64 if records.typecode == "d" else np.int64
        records.frombytes(np.ascontiguousarray(values, dtype=dtype).tobytes())
    # Incident minima of the cut edges' endpoints.
    kx = k[expand]
    xs = nodes[kx]
    wx = p[kx]
    qn = ctx.qn
    qn[xs] = np.minimum(qn[xs], wx)
    ps = ctx.parent[xs]
    qn[ps] = np.minimum(qn[ps], wx)
    # Next generation: side A = [k, e_k), side B = [start, k) + [e_k, end).
    sa_x, sb_x = sa[expand], sizes[expand] - sa[expand]
    ex = e[kx]
    sx, nx = st[expand], en[expand]
    keep_a, keep_b = sa_x >= 2, sb_x >= 2
    lo = np.concatenate([kx[keep_a], sx[keep_b], ex[keep_b]])
    hi = np.concatenate([ex[keep_a], kx[keep_b], nx[keep_b]])
    # order: all A sides, then each B side as its two ranges in a row
    na, nb = int(keep_a.sum()), int(keep_b.sum())
    order = np.concatenate([np.arange(na), na + np.column_stack(
        [np.arange(nb), nb + np.arange(nb)]).ravel()]).astype(np.int64)
    idx = _gather(lo[order], hi[order])
    next_sizes = np.concatenate([sa_x[keep_a], sb_x[keep_b]])
    next_ids = np.concatenate([ida[expand][keep_a], idb[expand][keep_b]])
    next_tols = np.concatenate([tols[expand][keep_a], tols[expand][keep_b]])
    next_terms = np.concatenate([ta[expand][keep_a], tb[expand][keep_b]])
    return (nodes[idx], next_sizes, next_ids, next_tols,
            np.zeros(next_ids.size, dtype=bool), next_terms)


class _Engine:
    """Incremental DBMSTClu on one large cluster, following its larger side.

    Arrays over the cluster's DFS preorder (positions; the current cluster is
    the span ``[lo, hi)``, root at ``lo``; nodes cut away stay in place as dead
    positions with neutral values): ``p`` parent-edge weight, ``q`` smallest
    incident cut, ``par`` parent position, ``e`` subtree end, ``s`` live
    subtree size, ``d_in`` / ``cnt_d`` largest weight strictly inside the
    subtree and how many edges have it, ``m_in`` / ``cnt_m`` smallest incident
    cut over the subtree and how many nodes have it, ``vin`` the subtree's
    validity (the inside part of a cut is ``s vin``) and ``vout`` the
    validity of the rest of the cluster.

    With ``D``, ``S`` the cluster's dispersion and separation and
    ``F = V(S, D)`` its validity, the value of a cut less the cluster's
    current term is ``b - N c`` with ``b = s vin - s vout`` and
    ``c = F - vout >= 0`` for every candidate whose rest keeps an edge of
    weight ``D`` and a node with incident cut ``S`` (the others, ancestors
    of all such edges or nodes, form two chains and are evaluated exactly at
    each step). ``c = 0`` exactly when the candidate's edge weighs at least
    ``S``: those values are constant until an ancestor's subtree changes, and
    sit in a heap. The values with ``c > 0`` grow as ``N`` falls; they are
    bounded over a window of ``N`` and only those whose bound reaches the
    heap's threshold ``theta`` are evaluated at each step.
    """

    def __init__(self, ctx, nodes, cid, tol, forced):
        self.ctx = ctx
        L = nodes.size
        Lp = -(-L // _BS) * _BS
        self.L = L
        self.node = nodes
        ar = np.arange(L, dtype=np.int64)
        p = np.full(Lp, -np.inf)
        p[:L] = ctx.pw[nodes]
        p[0] = -np.inf
        q = np.full(Lp, np.inf)
        q[:L] = ctx.qn[nodes]
        e = np.searchsorted(ctx.tin[nodes], ctx.tout[nodes]).astype(np.int64)
        ctx.pos_of[nodes] = ar
        par = ctx.pos_of[ctx.parent[nodes]]
        par[0] = -1
        self.p, self.q, self.e, self.par = p, q, e, par
        self.s = e - ar
        self.d_in = _range_reduce(np.maximum, p[:L], ar + 1, e, -np.inf)
        self.cnt_d = _count_equal(p[:L], ar + 1, e, self.d_in)
        self.m_in = _range_reduce(np.minimum, q[:L], ar, e, np.inf)
        # Counted where finite only (an infinite minimum counts 0, as in
        # _Blocks.query): a cluster with no incident cut yet costs nothing.
        fin = np.isfinite(self.m_in)
        self.cnt_m = np.zeros(L, dtype=np.int64)
        if fin.any():
            self.cnt_m[fin] = _count_equal(q[:L], ar[fin], e[fin], self.m_in[fin])
        self.alive = np.zeros(Lp, dtype=bool)
        self.alive[:L] = True
        self.rank = ctx.prank[nodes]
        self.vin = _vi(np.minimum(np.maximum(p[:L], 0.0), self.m_in),
                       np.maximum(self.d_in, 0.0))  # validity of each subtree
        self.vout = np.zeros(L)
        self.b = np.zeros(L)
        self.c = np.zeros(L)
        self.ver = np.zeros(L, dtype=np.int64)
        self.inchain = np.zeros(L, dtype=bool)
        self.pb = _Blocks(p, True)
        self.qb = _Blocks(q, False)
        self.top, self.hp, self.hp_at = _heavy_paths(par, self.s)
        self.lo, self.hi, self.N = 0, L, L
        self.cid, self.tol, self.forced = cid, tol, forced
        self.term = ctx.c_term[cid]
        self.D = self.S = self.F = None
        self.chain = np.empty(0, dtype=np.int64)
        self.vals, self.groups = [], {}
        self.dyn = np.empty(0, dtype=np.int64)
        self.in_dyn = np.zeros(L, dtype=bool)  # dyn holds each position once
        self.theta = -np.inf
        self.n_lo = 0
        self.since_full = 0
        self.nz_d = self.nz_s = 0
        self.root_s = False
        self.dinfo = self.sinfo = None

    # ----------------------------------------------------------- evaluation
    def _full(self):
        """Evaluate the cluster from its (maintained) subtree aggregates."""
        lo, hi = self.lo, self.hi
        self.since_full = 0
        D, S = float(self.d_in[lo]), float(self.m_in[lo])
        self.D, self.S = D, S
        idx = lo + np.flatnonzero(self.alive[lo:hi])
        idx = idx[1:]
        vg = _vi(np.minimum(np.maximum(self.p[idx], 0.0), S), max(D, 0.0))
        self.vout[idx] = vg
        self.inchain[lo:hi] = False
        self.chain = np.empty(0, dtype=np.int64)
        self.ver[idx] += 1
        if np.isfinite(S):
            self.F = float(_vi(S, max(D, 0.0)))
            self.c[idx] = self.F - vg
            si = self.s[idx]
            self.b[idx] = si * self.vin[idx] - si * vg
            del si
        del idx, vg  # not held through the refill (the engine's peak of memory)
        self._root_state()
        self._chains()
        if np.isfinite(S) and not _REFRESH_EVERY:
            self._refill(_HEAP)

    def _hd(self, t):
        """Edges of weight D in the subtree of t, with t's own edge."""
        if not self.alive[t]:
            return 0
        return ((int(self.cnt_d[t]) if self.d_in[t] == self.D else 0)
                + (1 if self.p[t] == self.D else 0))

    def _hs(self, t):
        return bool(self.alive[t] and self.m_in[t] == self.S)

    def _root_state(self):
        """How many children of the root hold edges of weight D / nodes with
        incident cut S (a chain exists when only one does)."""
        lo, hi = self.lo, self.hi
        # _hd and _hs of every child, whole-array over the span: a root with
        # many children (a star whose largest edge is cut at every step) made
        # a loop over them quadratic.
        kids = lo + 1 + np.flatnonzero(self.par[lo + 1:hi] == lo)
        kids = kids[self.alive[kids]]
        held_d = (self.p[kids] == self.D) | ((self.d_in[kids] == self.D) & (self.cnt_d[kids] > 0))
        self.nz_d = int(np.count_nonzero(held_d))
        self.nz_s = int(np.count_nonzero(self.m_in[kids] == self.S))
        self.root_s = bool(self.q[lo] == self.S)

    def _lca_path(self, first, last):
        """Positions from the deepest common ancestor-or-self of ``first`` and
        ``last`` up to the root's child (empty if that ancestor is the root)."""
        if first == self.lo:
            return np.empty(0, dtype=np.int64)
        path = np.concatenate([[first], self._ancestors(first)])  # up to the root
        return path[int(np.argmax(self.e[path] > last)):-1]

    def _chains(self):
        """Recompute both chains and their exact rest validity."""
        lo, hi = self.lo, self.hi
        D, S = self.D, self.S
        cd = cs = np.empty(0, dtype=np.int64)  # members top-down (ascending)
        self.dinfo = self.sinfo = None
        if self.nz_d == 1:
            f, l = self.pb.first_last(D, lo, hi)
            cd = self._lca_path(f, l)[::-1]
            self.dinfo = self._chain_info(f, l, cd, self.p, np.maximum, -np.inf)
        if np.isfinite(S) and self.nz_s == 1 and not self.root_s:
            f, l = self.qb.first_last(S, lo, hi)
            cs = self._lca_path(f, l)[::-1]
            self.sinfo = self._chain_info(f, l, cs, self.q, np.minimum, np.inf)
        old = self.chain
        if not cs.size:
            new = np.ascontiguousarray(cd)
        elif not cd.size:
            new = np.ascontiguousarray(cs)
        else:  # two sorted root paths: a merge, not a hashed union
            new = np.concatenate([cd, cs])
            new.sort(kind="stable")
            new = new[np.concatenate([[True], new[1:] != new[:-1]])]
        if old.size:
            if new.size:
                at = np.minimum(np.searchsorted(new, old), new.size - 1)
                gone = old[new[at] != old]
            else:
                gone = old
            gone = gone[self.alive[gone] & (gone != lo)]
            self.inchain[old] = False
            if gone.size:
                self._generic(gone)
        self.chain = new
        if not new.size:
            return
        self.inchain[new] = True
        # rest dispersion and separation of the members, aligned with the chain
        self.ch_disp = np.full(new.size, D)
        self.ch_sep = np.full(new.size, S)
        if cd.size:
            info = self.dinfo
            info.append(np.searchsorted(new, info[4]))
            self.ch_disp[info[7]] = info[6]
        if cs.size:
            info = self.sinfo
            info.append(np.searchsorted(new, info[4]))
            self.ch_sep[info[7]] = info[6]
        self.vout[new] = _vi(np.minimum(self.p[new], self.ch_sep),
                             np.maximum(self.ch_disp, 0.0))

    def _chain_info(self, f, g, path, vals, uf, ident):
        """A chain: ``[f, g, l, path, path array, pieces, prefix]``, ``path``
        the members top-down (``l`` last). Piece ``j`` is the part of the
        cluster below ``path[j - 1]`` (the root for ``j = 0``) and not below
        ``path[j]``; the rest of ``path[j]`` is pieces ``0..j``, so its
        extreme is the prefix extreme of the pieces."""
        lo, hi = self.lo, self.hi
        arr = np.array(path, dtype=np.int64)
        k = arr.size
        ends = self.e[arr]
        left = np.empty(k, dtype=np.int64)
        left[0] = lo
        left[1:] = arr[:-1]
        pieces = uf.reduceat(vals[:path[-1]], left)  # [path[j-1], path[j]), never empty
        # [ends[j], ends[j-1]) with ends[-1] = hi, ascending from the bottom
        b = ends[::-1]
        start = int(b[0])
        if start < hi:
            seg = vals[start:hi]
            idx = b - start
            nxt = np.empty(k, dtype=np.int64)
            nxt[:-1] = idx[1:]
            nxt[-1] = hi - start
            n_in = int(np.searchsorted(idx, seg.size))  # the others start at hi
            right = np.full(k, ident)
            right[:n_in] = uf.reduceat(seg, idx[:n_in])
            right[idx == nxt] = ident
            pieces = uf(pieces, right[::-1])
        pref = uf.accumulate(pieces)
        return [f, g, int(arr[-1]), arr.tolist(), arr, pieces, pref]

    def _chain_piece(self, info, x):
        """Index of the piece of a chain holding ``x`` (not below its bottom)."""
        path, e = info[3], self.e
        a, b = 0, len(path)
        while a < b:  # members above x form a prefix of the path
            m = (a + b) // 2
            y = path[m]
            if y < x < e[y]:
                a = m + 1
            else:
                b = m
        return a

    def _piece_extreme(self, info, j, blocks):
        path, e = info[3], self.e
        top = path[j - 1] if j else self.lo
        end = int(e[top]) if j else self.hi
        bot = path[j]
        x1 = blocks.query(top, bot)[0]
        x2 = blocks.query(int(e[bot]), end)[0]
        return x1 if (x1 >= x2 if blocks.is_max else x1 <= x2) else x2

    def _chain_cut(self, info, j, value, is_max):
        """Piece ``j`` of a chain now has extreme ``value``: new rests below."""
        pieces, pref = info[5], info[6]
        pieces[j] = value
        uf = np.maximum if is_max else np.minimum
        if j:
            pref[j:] = uf(pref[j - 1], uf.accumulate(pieces[j:]))
        else:
            pref[:] = uf.accumulate(pieces)
        at = info[7][j:]
        if is_max:
            self.ch_disp[at] = pref[j:]
        else:
            self.ch_sep[at] = pref[j:]
        mem = info[4][j:]
        self.vout[mem] = _vi(np.minimum(self.p[mem], self.ch_sep[at]),
                             np.maximum(self.ch_disp[at], 0.0))

    def _chains_update(self, x, ex, y0, w, max_a, min_a):
        """Update the chains after the cut of ``[x, ex)`` (new cut of weight w
        at ``y0``; ``max_a``, ``min_a``: the largest edge and smallest incident
        cut it removed). Returns False when a chain must be recomputed.

        A chain is the path from the root down to the lowest common ancestor
        ``l`` of the edges of weight D (nodes with incident cut S), first and
        last in preorder at ``f`` and ``g``. A cut that keeps ``f`` and ``g``
        keeps the path; inside the subtree of ``l`` it changes no member's
        rest, outside it changes one piece."""
        e = self.e
        want_d = self.nz_d == 1
        want_s = math.isfinite(self.S) and self.nz_s == 1 and not self.root_s
        dinfo, sinfo = self.dinfo, self.sinfo
        if want_d != (dinfo is not None) or want_s != (sinfo is not None):
            return False
        if dinfo is not None:
            f, g = dinfo[0], dinfo[1]
            if (x <= f < ex or x <= g < ex) and not self._chain_ends(dinfo, x, self.pb, self.D):
                return False
        if sinfo is not None:
            f, g = sinfo[0], sinfo[1]
            if x <= f < ex or x <= g < ex:
                if not self._chain_ends(sinfo, x, self.qb, self.S):
                    return False
                f, g = sinfo[0], sinfo[1]
            l = sinfo[2]
            if w == self.S:  # y0 joins the nodes with incident cut S
                if not (l <= y0 < e[l]):
                    return False
                sinfo[0], sinfo[1] = min(f, y0), max(g, y0)
        if dinfo is not None:
            self._piece_update(dinfo, x, max_a, self.pb, None)
        if sinfo is not None:
            self._piece_update(sinfo, x, min_a, self.qb, w)
        return True

    def _chain_ends(self, info, x, blocks, value):
        """The cut of ``x``, inside the subtree of the chain's bottom ``l``,
        removed its first or last extreme: find the new ones. True if the
        chain is unchanged (their lowest common ancestor is still ``l``):
        peeling leaves in rank order often removes the last one each time."""
        l = info[2]
        if not l < x < self.e[l]:
            return False
        f, g = blocks.first_last(value, self.lo, self.hi)
        path = self._lca_path(f, g)
        if not path.size or path.item(0) != l:
            return False
        info[0], info[1] = f, g
        return True

    def _piece_update(self, info, x, removed, values, new_cut):
        """Update the chain piece holding ``x`` (if outside the subtree of its
        ``l``) after a cut that removed ``removed`` and, on the S chain, made a
        new cut of weight ``new_cut`` (None on the D chain)."""
        l = info[2]
        if l < x < self.e[l]:
            return
        j = self._chain_piece(info, x)
        old = info[5][j]
        if removed == old:
            new = self._piece_extreme(info, j, values)
        elif new_cut is not None and new_cut < old:
            new = new_cut
        else:
            new = old
        if new != old:
            self._chain_cut(info, j, new, new_cut is None)

    def _generic(self, idx):
        """Back to the generic values (rest keeps D and S) for ``idx``."""
        vg = _vi(np.minimum(np.maximum(self.p[idx], 0.0), self.S), max(self.D, 0.0))
        self.vout[idx] = vg
        if self.F is not None and math.isfinite(self.S):
            self.c[idx] = self.F - vg
            si = self.s[idx]
            self.b[idx] = si * self.vin[idx] - si * vg
            self.ver[idx] += 1
            self._admit(idx)

    def _candidates(self):
        lo, hi = self.lo, self.hi
        idx = np.flatnonzero(self.alive[lo:hi])
        idx += lo
        idx = idx[1:]
        return idx[~self.inchain[idx]] if self.chain.size else idx

    def _refill(self, m):
        """Threshold theta and the visible candidates: the heap holds the
        ``m`` best constant values, ``dyn`` the growing ones that may reach
        theta while ``N >= n_lo``. Any theta is exact (a select that finds
        its best within ``tol`` of theta refills). When many bounds tie at
        the ``m``-th, theta is put just above them, which keeps them out;
        when the best values tie (many equal cuts), it is put ``2 tol``
        below the best, which lets the select proceed."""
        idx = self._candidates()
        N = self.N
        self.n_lo = max(N - max(64, N // 8), 0)
        c, b = self.c[idx], self.b[idx]
        key = c * self.n_lo  # few whole-array temporaries: the root's refill
        np.subtract(b, key, out=key)  # is the engine's peak of memory
        if idx.size > m:
            theta = float(np.partition(key, idx.size - m)[idx.size - m])
            if np.count_nonzero(key >= theta) > 2 * m:
                theta = math.nextafter(theta, math.inf)
            cur = c * N
            np.subtract(b, cur, out=cur)
            self.theta = min(theta, float(cur.max()) - 2 * self.tol)
            del cur
        else:
            self.theta = -np.inf
        self.vals, self.groups = [], {}
        sel = idx[(c == 0) & (b >= self.theta)]
        self._push(sel)
        self._set_dyn(idx[(c > 0) & (key >= self.theta)])

    def _rebound(self):
        """A new window of ``N``: the growing values that may reach theta in it.
        Theta was the ``m``-th best bound when set; as ``N`` falls, more
        bounds pass it (values far below the best, growing by ``c`` per
        node): when they are many, theta is raised by a refill."""
        idx = self._candidates()
        N = self.N
        self.n_lo = max(N - max(64, N // 8), 0)
        c, b = self.c[idx], self.b[idx]
        dyn = idx[(c > 0) & (b - self.n_lo * c >= self.theta)]
        old = self.dyn
        old = old[self.c[old] == 0]  # constant values admitted without the heap
        if old.size:
            dyn = np.concatenate([dyn, old])
        if dyn.size > 2 * _HEAP:
            self._refill(_HEAP)
        else:
            self._set_dyn(dyn)

    def _set_dyn(self, dyn):
        self.in_dyn[self.dyn] = False
        self.in_dyn[dyn] = True
        self.dyn = dyn

    def _add_dyn(self, idx):
        new = idx[~self.in_dyn[idx]]
        if new.size:
            self.in_dyn[new] = True
            self.dyn = np.concatenate([self.dyn, new])

    def _push(self, idx):
        groups, vals = self.groups, self.vals
        for v, r, i, ver in zip(self.b[idx].tolist(), self.rank[idx].tolist(), idx.tolist(),
                                self.ver[idx].tolist()):
            g = groups.get(v)
            if g is None:
                groups[v] = [(-r, i, ver)]
                heapq.heappush(vals, -v)
            else:
                heapq.heappush(g, (-r, i, ver))

    def _admit(self, idx, b=None):
        """Make the changed candidates ``idx`` (values ``b``) visible if they
        may reach theta."""
        if b is None:
            b = self.b[idx]
        c = self.c[idx]
        ok = b - self.n_lo * c >= self.theta  # the two tests below pass only here
        if not ok.any():
            return
        idx, b, c = idx[ok], b[ok], c[ok]
        if self.chain.size:
            out = ~self.inchain[idx]
            idx, b, c = idx[out], b[out], c[out]
        h = c == 0
        if idx.size > _BULK:  # many (ancestors of a cut in a deep tree): no heap
            self._add_dyn(idx)
            return
        if h.any():
            self._push(idx[h])
        if not h.all():
            self._add_dyn(idx[~h])

    def _clean(self, g):
        alive, ver, inchain, lo = self.alive, self.ver, self.inchain, self.lo
        while g:
            _, i, v = g[0]
            if alive[i] and ver[i] == v and not inchain[i] and i != lo:
                return True
            heapq.heappop(g)
        return False

    def _select_direct(self):
        """Best cut by evaluating every candidate (the slow path)."""
        lo, hi = self.lo, self.hi
        idx = lo + np.flatnonzero(self.alive[lo:hi])
        idx = idx[1:]
        si = self.s[idx]
        r = si * self.vin[idx] + (self.N - si) * self.vout[idx]
        top = r.max()
        near = np.flatnonzero(r >= top - self.tol)
        j = near[np.argmax(self.rank[idx[near]])]
        return int(idx[j])

    def _select(self):
        if self.N < self.n_lo:
            self._rebound()
        N, tol = self.N, self.tol
        m = _HEAP
        while True:
            vals, groups = self.vals, self.groups
            best = -np.inf
            while vals:
                v = -vals[0]
                if self._clean(groups[v]):
                    best = v
                    break
                heapq.heappop(vals)
                del groups[v]
            dyn = self.dyn
            if dyn.size:
                keep = self.alive[dyn] & ~self.inchain[dyn] & (dyn != self.lo)
                if not keep.all():
                    self.in_dyn[dyn[~keep]] = False
                    dyn = dyn[keep]
                self.dyn = dyn
                kd = self.b[dyn] - N * self.c[dyn]
                if kd.size:
                    best = max(best, float(kd.max()))
            ch = self.chain
            if ch.size:
                sc = self.s[ch]
                kc = sc * self.vin[ch] + (N - sc) * self.vout[ch] - N * self.F
                best = max(best, float(kc.max()))
            if best - tol >= self.theta or self.theta == -np.inf:
                break
            m *= 4
            self._refill(m)
        floor = best - tol
        pick, pick_rank = -1, -1
        seen = []
        while vals and -vals[0] >= floor:
            v = -heapq.heappop(vals)
            g = groups[v]
            if not self._clean(g):
                del groups[v]
                continue
            seen.append(v)
            r = -g[0][0]
            if r > pick_rank:
                pick, pick_rank = g[0][1], r
        for v in seen:
            heapq.heappush(vals, -v)
        for arr, keys in ((dyn, kd if dyn.size else None), (ch, kc if ch.size else None)):
            if keys is None:
                continue
            m = np.flatnonzero(keys >= floor)
            if m.size:
                j = m[np.argmax(self.rank[arr[m]])]
                if self.rank[arr[j]] > pick_rank:
                    pick, pick_rank = int(arr[j]), int(self.rank[arr[j]])
        return pick

    # ----------------------------------------------------------------- run
    def run(self):
        ctx = self.ctx
        cid = self.cid
        while self.N >= 2:
            if self.D is None:
                self._full()
            direct = not math.isfinite(self.S) or _REFRESH_EVERY
            x = self._select_direct() if direct else self._select()
            N, s_x = self.N, int(self.s[x])
            sv_x = self.s[x] * self.vin[x]
            r = float(sv_x + (N - s_x) * self.vout[x])
            gain = r - self.term
            ta = float(sv_x)
            tb = float((N - s_x) * self.vout[x])
            node_x = int(self.node[x])
            if gain < -2 * self.tol and not self.forced:
                ctx.record(cid, gain, int(self.rank[x]), node_x, ta, tb, -1, -1)
                return
            self.forced = False
            ida = ctx.new(ta)
            idb = ctx.new(tb)
            ctx.record(cid, gain, int(self.rank[x]), node_x, ta, tb, ida, idb)
            if s_x <= N - s_x:
                piece = self._cut_subtree(x)
                ctx.cut_update(node_x, float(self.ctx.pw[node_x]))
                ctx.submit(piece, ida, self.tol)
                cid, self.term = idb, tb
            else:
                piece = self._cut_rest(x)
                ctx.cut_update(node_x, float(self.ctx.pw[node_x]))
                ctx.submit(piece, idb, self.tol)
                cid, self.term = ida, ta
            self.cid = cid
            if self.N < 2:
                return
            self.since_full += 1
            if (self.d_in[self.lo] != self.D or self.m_in[self.lo] != self.S
                    or _REFRESH_EVERY):
                self._full()

    def _kill(self, a, b):
        if b <= a:
            return
        self.alive[a:b] = False
        self.p[a:b] = -np.inf
        self.q[a:b] = np.inf
        self.pb.touch(a, b)
        self.qb.touch(a, b)

    def _ancestors(self, x):
        """Ancestors of ``x`` in the cluster, bottom-up (parent first, root last):
        a slice of a heavy path per light edge on the way up."""
        par, top, hp, at = self.par, self.top, self.hp, self.hp_at
        lo = self.lo
        t_lo = top.item(lo)
        y = par.item(x)
        segs = []
        while True:
            t = top.item(y)
            if t == t_lo:
                segs.append(hp[at.item(lo):at.item(y) + 1][::-1])
                break
            segs.append(hp[t:at.item(y) + 1][::-1])
            y = par.item(hp.item(t))
        return segs[0] if len(segs) == 1 else np.concatenate(segs)

    def _cut_subtree(self, x):
        """Cut the parent edge of ``x`` and move its subtree out (the smaller side)."""
        p, q, e = self.p, self.q, self.e
        d_in, cnt_d, m_in, cnt_m = self.d_in, self.cnt_d, self.m_in, self.cnt_m
        ex = e.item(x)
        k = self.s.item(x)
        w = p.item(x)
        dx = d_in.item(x)
        if dx > w:
            max_a, ca = dx, cnt_d.item(x)
        elif dx == w:
            max_a, ca = w, cnt_d.item(x) + 1
        else:
            max_a, ca = w, 1
        min_a = m_in.item(x)
        cm = cnt_m.item(x)
        A = self._ancestors(x)
        top = A.item(-2) if A.size >= 2 else x
        track = self.F is not None
        if track:
            hd0, hs0 = self._hd(top), self._hs(top)
        if ex - x == k:
            piece = self.node[x:ex]
        else:
            piece = self.node[x:ex][self.alive[x:ex]]
        self._kill(x, ex)
        self.N -= k
        sA = self.s[A] - k
        self.s[A] = sA
        changed = []  # ancestors whose inside validity changes
        # Largest inside weight: only ancestors holding it lose edges of it;
        # those left with none (the lowest ones) are recomputed.
        if ca:
            m = A[d_in[A] == max_a]
            if m.size:
                cnt = cnt_d[m] - ca
                cnt_d[m] = cnt
                if not cnt[0]:  # counts grow upwards: the zeros come first
                    z = m[cnt == 0]
                    if z.size <= _NESTED:
                        pb = self.pb
                        for y in z.tolist():
                            d_in[y], cnt_d[y] = pb.query(y + 1, e.item(y))
                    else:  # nested subtrees: one whole-array pass
                        d_in[z], cnt_d[z] = self.pb.query_nested(z + 1, e[z])
                    changed.append(z)
        # Smallest incident cut: the same, then the new cut at the parent.
        if min_a < np.inf and cm:
            m = A[m_in[A] == min_a]
            if m.size:
                cnt = cnt_m[m] - cm
                cnt_m[m] = cnt
                if not cnt[0]:
                    z = m[cnt == 0]
                    if w < min_a:
                        # The rest of their subtrees is >= min_a > w: the new
                        # cut below is their smallest, counted once there.
                        m_in[z], cnt_m[z] = w, 0
                    elif z.size <= _NESTED:
                        qb = self.qb
                        for y in z.tolist():
                            m_in[y], cnt_m[y] = qb.query(y, e.item(y))
                    else:
                        m_in[z], cnt_m[z] = self.qb.query_nested(z, e[z])
                    changed.append(z)
        y0 = A.item(0)
        if w < q.item(y0):
            q[y0] = w
            self.qb.touch(y0, y0 + 1)
            mA = m_in[A]
            lt = A[w < mA]
            if lt.size:
                m_in[lt] = w
                cnt_m[lt] = 1
                changed.append(lt)
            eq = A[w == mA]
            if eq.size:
                cnt_m[eq] += 1
        vin = self.vin
        if changed:
            y = changed[0] if len(changed) == 1 else np.concatenate(changed)
            if y.size <= 8:
                for y in y.tolist():
                    sep = p.item(y)
                    sep = sep if sep > 0.0 else 0.0
                    mi = m_in.item(y)
                    sep = mi if mi < sep else sep
                    disp = d_in.item(y)
                    vin[y] = (sep - disp) / (sep if sep > disp else disp) if disp > 0 else 1.0
            else:
                vin[y] = _vi(np.minimum(np.maximum(p[y], 0.0), m_in[y]), d_in[y])
        svA = sA * vin[A]
        lo = self.lo
        if (not track or self.N < 2 or d_in.item(lo) != self.D or m_in.item(lo) != self.S
                or _REFRESH_EVERY):
            return piece
        # Same D and S: update the ancestors' values and the chains.
        G = A[:-1]
        if G.size:
            bG = svA[:-1] - sA[:-1] * self.vout[G]
            self.b[G] = bG
            self.ver[G] += 1
        hd1, hs1 = self._hd(top), self._hs(top)
        self.nz_d += (hd1 > 0) - (hd0 > 0)
        self.nz_s += hs1 - hs0
        if y0 == lo and w == self.S:
            self.root_s = True
        if not self._chains_update(x, ex, y0, w, max_a, min_a):
            self._chains()
        if G.size:
            self._admit(G, bG)
        return piece

    def _cut_rest(self, x):
        """Cut the parent edge of ``x`` and keep its subtree (the larger side):
        the rest of the cluster moves out and ``x`` becomes the root."""
        lo, hi = self.lo, self.hi
        alive, node = self.alive, self.node
        ex = int(self.e[x])
        k = int(self.s[x])
        w = float(self.p[x])
        piece = np.concatenate([node[lo:x][alive[lo:x]], node[ex:hi][alive[ex:hi]]])
        self._kill(lo, x)
        self._kill(ex, hi)
        self.lo, self.hi = x, ex
        self.par[x] = -1
        self.p[x] = -np.inf
        self.pb.touch(x, x + 1)
        if w < self.q[x]:
            self.q[x] = w
            self.qb.touch(x, x + 1)
            if w < self.m_in[x]:
                self.m_in[x], self.cnt_m[x] = w, 1
            elif w == self.m_in[x]:
                self.cnt_m[x] += 1
        self.N = k
        self.ver[x] += 1
        if (self.F is None or k < 2 or self.d_in[x] != self.D or self.m_in[x] != self.S
                or _REFRESH_EVERY):
            return piece
        self._root_state()
        self._chains()
        return piece


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
    verbose : int, default=0
        ``> 0``: print one line per stage of the fit (validation, tree,
        cuts) with its duration to standard error.

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

    _parameter_constraints = {**GRAPH_INPUT_CONSTRAINTS, "verbose": ["verbose"]}

    def __init__(self, metric="euclidean", metric_params=None, weight_kind=None, verbose=0):
        self.metric = metric
        self.metric_params = metric_params
        self.weight_kind = weight_kind
        self.verbose = verbose

    @fit_context(skip_nested_validation=True)
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
        log = StageLogger(self.verbose, "DBMSTClu")
        with log.stage("validation") as note:
            graph, n_features = check_graph_input(self, X)
            note(f"{graph.shape[0]} nodes")
        self.n_features_in_ = n_features
        with log.stage("minimum spanning tree"):
            if is_edge_table(graph):  # the exact forest, computed on the cluster
                tree = table_spanning_forest(graph, verbose=self.verbose)
                warn_if_constant_weights(tree.tree)
            else:
                warn_if_constant_weights(graph)
                tree = tree_from_graph(graph)
        with log.stage("cuts") as note:
            res = dbmstclu(tree)
            note(f"{res.n_clusters} clusters")
        self.tree_ = tree.tree
        set_result_attributes(self, res, DBMSTCLU_FIELDS)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances
        tags.input_tags.sparse = True
        return tags
