"""Exact sampling of weighted uniform spanning trees (forests).

A weighted uniform spanning tree (UST) of a graph with edge conductances
``gamma(e) > 0`` is a random spanning tree ``T`` with
``P(T) = prod_{e in T} gamma(e) / Z``. With ``gamma(e) = exp(-c w(e))`` it is
the exponential mechanism over spanning trees
(:func:`skdpgraph.tree.exponential_tree`). Conductances are given
in log space (``log_conductance``), so that any spread is representable; on a
disconnected graph the sampler returns one independent UST per connected
component (a uniform spanning forest of the components).

Two exact engines, chosen by :func:`sample_weighted_ust`:

``"cycle_popping"``
    Wilson's algorithm in its cycle-popping form (Wilson 1996; Propp and
    Wilson 1998): every non-root node draws a successor with probability
    proportional to the conductances of its edges; while the successor graph
    has cycles, the nodes on the cycles draw again. The tree left when no
    cycle remains is a UST, and the result does not depend on the order in
    which cycles are popped, so all cycles present are popped at once, one
    vectorised round at a time. Expected work is Wilson's mean hitting time,
    which is small on well-mixing graphs but grows like ``exp(c * gap)`` when
    light clusters are joined by edges heavier by ``gap``: the walk is then
    trapped inside clusters. It is therefore run under a budget of draws.

``"elimination"``
    Gaussian elimination of the weighted Laplacian, one node at a time, with
    the star-mesh (Schur complement) transform: eliminating ``x`` adds
    conductance ``gamma(x, a) gamma(x, b) / d(x)`` between each pair of its
    neighbours (``d(x)`` its total conductance). The UST restricted to the
    edges that do not touch ``x`` has the law of the UST of the Schur
    complement restricted to the inherited copies of those edges (the UST is
    a determinantal process whose kernel, the transfer-current matrix, is
    unchanged on these edges by the Schur complement), and given those edges
    ``x`` joins each component they leave with one edge, chosen in
    proportion to its conductance. Unwinding the eliminations from the last
    node back to the first therefore samples the UST exactly. Every quantity
    is a sum or product of positive numbers (no cancellation); the work is
    done in float64 when no product can underflow and in log space
    otherwise, so the running time, ``O(k^3)`` for a dense component of
    ``k`` nodes (less for sparse ones), does not depend on the conductances.

Two reductions run first, each changing the law by less than
``exp(-PRUNE_LOG_BOUND)`` (about ``2e-22``) in total variation, far below the
``2**-53`` resolution of the floating-point draws:

* *gap split* (:func:`_sample`): when the sorted conductances have a gap of
  a factor ``exp(g)`` large enough, the tree is, up to that error, made of
  independent USTs of the light components and one UST of the graph of
  components (proof in :func:`_sample`); on graphs whose clusters are
  separated by a gap in weights this breaks a sharp problem into one small
  problem per cluster;
* *pruning* (:func:`_prune`): an edge ``e`` outside the maximum-conductance
  spanning tree has ``P(e in T) = gamma(e) R_eff(e) <= (k - 1) gamma(e) /
  min_{f on the tree path} gamma(f)`` (Kirchhoff; Rayleigh monotonicity), and
  removing a set ``D`` of edges changes the law by at most
  ``sum_{e in D} P(e in T)``. When conductances are very unequal this
  removes almost every edge outside the tree.

``"auto"`` runs cycle popping under a budget equal to the elimination's cost
(when every component has at most :data:`MAX_ELIMINATION_NODES` nodes) and
falls back to the elimination; the budget counts draws and rounds, which are
functions of the popped cycles only, and by Wilson's theorem the popped
cycles are independent of the tree, so stopping and restarting with another
exact sampler leaves the law exact. Larger components run cycle popping
under ``max_work`` and raise :class:`UstBudgetError` when it runs out.

References
----------
.. [W96] D. B. Wilson, "Generating random spanning trees more quickly than
   the cover time", STOC 1996.
.. [PW98] J. G. Propp and D. B. Wilson, "How to get a perfectly random
   sample from a generic Markov chain and generate a random spanning tree of
   a directed graph", J. Algorithms 27 (1998).
.. [BP93] R. Burton and R. Pemantle, "Local characteristics, entropy and
   limit theorems for spanning trees and domino tilings via transfer-
   impedances", Ann. Probab. 21 (1993) (the transfer-current theorem).
.. [L16] R. Lyons and Y. Peres, "Probability on Trees and Networks",
   Cambridge University Press, 2016, Chapter 4 (Kirchhoff's formula
   ``P(e in T) = gamma(e) R_eff(e)``).
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as _scipy_mst

#: Engines accepted by :func:`sample_weighted_ust`.
UST_METHODS = ("auto", "cycle_popping", "elimination")

#: Pruned edges have total inclusion probability below exp(-PRUNE_LOG_BOUND).
PRUNE_LOG_BOUND = 50.0

#: Largest component (nodes) handed to the dense elimination engine by "auto".
MAX_ELIMINATION_NODES = 3000

#: Default budget of cycle-popping work, as a multiple of (nodes + edges).
DEFAULT_DRAW_FACTOR = 50

#: Work units charged per cycle-popping round (its fixed overhead).
_ROUND_COST = 300

#: Relative cost of one elimination flop and one cycle-popping draw, used by
#: "auto" to give cycle popping the time the elimination would need.
_DRAWS_PER_FLOP = 0.02

#: Smallest product allowed in the float64 elimination (guards underflow and
#: loss of precision in subnormals); below it the log-space path is used.
_LINEAR_FLOOR = 1e-280

#: Largest spread of log-conductances for which the float64 elimination is
#: tried first (products of a few conductances stay far above the floor).
_LINEAR_MAX_SPREAD = 150.0


class UstBudgetError(RuntimeError):
    """Cycle popping exceeded its budget of draws and no fallback applies.

    ``trapped`` holds the nodes popped most often when it stopped (the
    cycles the walk kept closing), most frequent first.
    """

    def __init__(self, message, trapped=None):
        super().__init__(message)
        self.trapped = trapped


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _logsumexp(x):
    """``log(sum(exp(x)))`` of a non-empty 1-D array (scipy's is slow here)."""
    top = x.max()
    return float(top + np.log(np.exp(x - top).sum()))


def _components(eu, ev, k):
    """Connected-component labels of the graph with edges ``(eu, ev)`` on ``k`` nodes."""
    if eu.size < 48:
        # Few edges: a small union-find beats building a sparse matrix.
        parent = list(range(k))
        for a, b in zip(eu.tolist(), ev.tolist()):
            while parent[a] != a:
                a = parent[a]
            while parent[b] != b:
                b = parent[b]
            if a != b:
                parent[a] = b
        lab = np.arange(k)
        for x in set(eu.tolist()) | set(ev.tolist()):
            r = x
            while parent[r] != r:
                r = parent[r]
            lab[x] = r
        return lab
    order = np.argsort(eu, kind="stable")
    indptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(eu, minlength=k), out=indptr[1:])
    A = sp.csr_array((np.ones(eu.size), ev[order], indptr), shape=(k, k))
    return connected_components(A, directed=True, connection="weak")[1]


def _group_argmax(groups, keys):
    """Index of the largest ``keys`` entry of each group (one index per group)."""
    order = np.lexsort((-keys, groups))
    g = groups[order]
    first = np.ones(g.size, dtype=bool)
    first[1:] = g[1:] != g[:-1]
    return order[first]


def _max_spanning_tree_mask(u, v, logc, n):
    """Boolean mask of a maximum-log-conductance spanning forest."""
    m = u.size
    mask = np.zeros(m, dtype=bool)
    if m == 0:
        return mask
    # scipy reads zero entries as non-edges: use the ranks 1..m as weights
    # (ties broken by edge index, as any MST algorithm may).
    order = np.lexsort((np.arange(m), -logc))
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    T = _scipy_mst(sp.csr_array(((rank + 1).astype(np.float64), (u, v)), shape=(n, n)))
    mask[order[np.rint(T.data).astype(np.int64) - 1]] = True
    return mask


def _tree_path_min(tu, tv, tval, n, qu, qv):
    """Minimum of ``tval`` over the forest path between ``qu[i]`` and ``qv[i]``.

    Vectorised binary lifting on the forest with edges ``(tu, tv)`` and edge
    values ``tval``; both ends of every query must lie in one tree (a query
    with equal ends gets ``inf``).
    """
    # One BFS from a virtual root n joined to one node of every tree.
    _, lab = connected_components(
        sp.csr_array((np.ones(tu.size), (tu, tv)), shape=(n, n)), directed=False)
    roots = np.unique(lab, return_index=True)[1]
    au = np.concatenate([tu, np.full(roots.size, n)])
    av = np.concatenate([tv, roots])
    A = sp.csr_array((np.ones(au.size), (au, av)), shape=(n + 1, n + 1))
    _, pred = breadth_first_order(A, n, directed=False, return_predecessors=True)
    parent = np.asarray(pred, dtype=np.int64)
    parent[n] = n
    # Value of each node's edge to its parent.
    codes = np.minimum(tu, tv) * (n + 1) + np.maximum(tu, tv)
    sorter = np.argsort(codes)
    up_val = np.full(n + 1, np.inf)
    child = np.flatnonzero(parent[:n] != n)
    par = parent[child]
    c_codes = np.minimum(child, par) * (n + 1) + np.maximum(child, par)
    up_val[child] = tval[sorter[np.searchsorted(codes, c_codes, sorter=sorter)]]
    # Depths by pointer jumping (list ranking): O(n log depth).
    depth = (parent != np.arange(n + 1)).astype(np.int64)
    depth[parent == n] = 1
    depth[n] = 0
    p = parent.copy()
    while np.any(p != n):
        depth = depth + depth[p]
        p = p[p]
    levels = max(1, int(depth.max()).bit_length())
    up = [parent]
    mn = [up_val]
    for _ in range(1, levels):
        p = up[-1]
        up.append(p[p])
        mn.append(np.minimum(mn[-1], mn[-1][p]))
    a = np.asarray(qu, dtype=np.int64).copy()
    b = np.asarray(qv, dtype=np.int64).copy()
    swap = depth[a] < depth[b]
    a[swap], b[swap] = b[swap], a[swap].copy()
    res = np.full(a.size, np.inf)
    diff = depth[a] - depth[b]
    for j in range(levels):
        sel = np.flatnonzero((diff >> j) & 1)
        res[sel] = np.minimum(res[sel], mn[j][a[sel]])
        a[sel] = up[j][a[sel]]
    for j in range(levels - 1, -1, -1):
        sel = np.flatnonzero(up[j][a] != up[j][b])
        res[sel] = np.minimum(res[sel], np.minimum(mn[j][a[sel]], mn[j][b[sel]]))
        a[sel] = up[j][a[sel]]
        b[sel] = up[j][b[sel]]
    sel = np.flatnonzero(a != b)
    res[sel] = np.minimum(res[sel], np.minimum(mn[0][a[sel]], mn[0][b[sel]]))
    return res


def _prune(u, v, logc, n):
    """Edges that may be dropped with a negligible change of the UST law.

    Returns a boolean mask of the edges to keep. An edge ``e`` outside the
    maximum-conductance spanning forest ``F`` is in the UST with probability
    at most ``(n - 1) gamma(e) / min_{f on the F-path of e} gamma(f)``; the
    dropped edges have these bounds summing to below
    ``exp(-PRUNE_LOG_BOUND)``, which bounds the total-variation change.
    """
    m = u.size
    keep = np.ones(m, dtype=bool)
    if m == 0:
        return keep
    threshold = PRUNE_LOG_BOUND + math.log(m) + math.log(max(n - 1, 1))
    if float(logc.max() - logc.min()) <= threshold:
        return keep  # no edge can be improbable enough
    in_tree = _max_spanning_tree_mask(u, v, logc, n)
    out = np.flatnonzero(~in_tree)
    if out.size == 0:
        return keep
    path_min = _tree_path_min(u[in_tree], v[in_tree], logc[in_tree], n, u[out], v[out])
    keep[out[logc[out] - path_min < -threshold]] = False
    return keep


# ---------------------------------------------------------------------------
# engine 1: elimination (star-mesh / Schur complement), one component
# ---------------------------------------------------------------------------

def _eliminate(u, v, logc, k, log_space, dense=None):
    """Eliminate nodes ``0..k-2`` of a connected component; node order chosen here.

    Returns ``(order, R, logd)`` or ``None`` when ``log_space`` is False and a
    product would underflow. ``R[t, y]`` is the log-conductance between the
    ``t``-th eliminated node and node ``y`` at the moment of its elimination
    (``-inf`` if none or if ``y`` was eliminated earlier); ``logd[t]`` is the
    log of its total conductance then. The last node of ``order`` is the root.
    """
    m = u.size
    if dense is None:
        dense = 2 * m >= 0.25 * k * (k - 1)
    top = float(logc.max())
    if log_space:
        L = np.full((k, k), -np.inf)
        L[u, v] = logc
        L[v, u] = logc
        empty = -np.inf
    else:
        L = np.zeros((k, k))
        g = np.exp(logc - top)
        L[u, v] = g
        L[v, u] = g
        empty = 0.0
    R = np.full((k - 1, k), -np.inf)
    logd = np.empty(k - 1)
    order = np.empty(k, dtype=np.int64)
    alive = np.ones(k, dtype=bool)
    if dense and not log_space:
        return _eliminate_dense_linear(L, R, logd, order, top, k)
    if dense:
        # Complete-ish graph: eliminate in index order on contiguous blocks.
        for t in range(k - 1):
            row = L[t, t + 1:]
            nbm = row != empty
            order[t] = t
            alive[t] = False
            if log_space:
                lv = row
                ld = _logsumexp(lv[nbm])
                R[t, t + 1:] = lv
                logd[t] = ld
                blk = L[t + 1:, t + 1:]
                np.logaddexp(blk, lv[:, None] + (lv - ld)[None, :], out=blk)
                blk[np.diag_indices_from(blk)] = -np.inf
            else:
                vals = row[nbm]
                d = vals.sum()
                if vals.size and vals.min() ** 2 < _LINEAR_FLOOR * d:
                    return None
                with np.errstate(divide="ignore"):
                    R[t, t + 1:] = np.log(row) + top
                logd[t] = math.log(d) + top
                blk = L[t + 1:, t + 1:]
                blk += np.multiply.outer(row, row / d)
                blk[np.diag_indices_from(blk)] = 0.0
        order[k - 1] = k - 1
        return order, R, logd
    # Sparse: minimum-degree order, updates restricted to the neighbourhood.
    deg = np.zeros(k, dtype=np.int64)
    np.add.at(deg, u, 1)
    np.add.at(deg, v, 1)
    big = np.iinfo(np.int64).max
    for t in range(k - 1):
        x = int(np.argmin(np.where(alive, deg, big)))
        order[t] = x
        alive[x] = False
        row = L[x]
        nb = np.flatnonzero((row != empty) & alive)
        vals = row[nb]
        if log_space:
            ld = _logsumexp(vals)
            R[t, nb] = vals
            logd[t] = ld
            if nb.size > 1:
                ix = np.ix_(nb, nb)
                sub = L[ix]
                fill = np.isneginf(sub)
                sub = np.logaddexp(sub, vals[:, None] + (vals - ld)[None, :])
                np.fill_diagonal(sub, -np.inf)
                L[ix] = sub
                deg[nb] += fill.sum(axis=1) - 2  # -1 own diagonal, -1 lost x
            else:
                deg[nb] -= 1
        else:
            d = vals.sum()
            if vals.min() ** 2 < _LINEAR_FLOOR * d:
                return None
            R[t, nb] = np.log(vals) + top
            logd[t] = math.log(d) + top
            if nb.size > 1:
                ix = np.ix_(nb, nb)
                sub = L[ix]
                fill = sub == 0.0
                sub += np.multiply.outer(vals, vals / d)
                np.fill_diagonal(sub, 0.0)
                L[ix] = sub
                deg[nb] += fill.sum(axis=1) - 2
            else:
                deg[nb] -= 1
        L[x, :] = empty
        L[:, x] = empty
    order[k - 1] = int(np.flatnonzero(alive)[0])
    return order, R, logd


def _eliminate_dense_linear(L, R, logd, order, top, k, block=96):
    """Blocked float64 elimination in index order (most work in one GEMM per block).

    Within a block of ``b`` nodes the eliminations are applied one at a time
    to the block's own rows only; the trailing rows then receive all ``b``
    star-mesh updates at once, ``X^T diag(1/d) X``, a product of
    non-negative matrices, so no cancellation can occur.
    """
    for s in range(0, k - 1, block):
        e = min(s + block, k - 1)
        for t in range(s, e):
            row = L[t, t + 1:]
            d = row.sum()
            pos = row[row > 0.0]
            if pos.min() ** 2 < _LINEAR_FLOOR * d:
                return None
            with np.errstate(divide="ignore"):
                R[t, t + 1:] = np.log(row) + top
            logd[t] = math.log(d) + top
            order[t] = t
            if t + 1 < e:
                L[t + 1:e, t + 1:] += np.multiply.outer(row[:e - t - 1] / d, row)
        if e < k:
            X = L[s:e, e:]
            dd = np.exp(logd[s:e] - top)
            L[e:, e:] += X.T @ (X / dd[:, None])
            L[np.arange(e, k), np.arange(e, k)] = 0.0
        # Rows of the block are final; clear the diagonal entries they touched.
        L[np.arange(s, e), np.arange(s, e)] = 0.0
    order[k - 1] = k - 1
    return order, R, logd


def _ust_by_elimination(u, v, logc, k, rng, *, _force=None):
    """Exact UST of a connected graph on ``k`` nodes; returns chosen edge indices.

    ``_force`` (tests only): ``(log_space, dense)`` to pin the code path.
    """
    m = u.size
    if k == 1:
        return np.zeros(0, dtype=np.int64)
    if k == 2:
        return np.array([int(np.argmax(logc + rng.gumbel(size=m)))])
    spread = float(logc.max() - logc.min())
    res = None
    if _force is not None:
        res = _eliminate(u, v, logc, k, log_space=_force[0], dense=_force[1])
    elif spread < _LINEAR_MAX_SPREAD:
        res = _eliminate(u, v, logc, k, log_space=False)
    if res is None:
        res = _eliminate(u, v, logc, k, log_space=True)
    order, R, logd = res
    codes = u * k + v
    sorter = np.argsort(codes)

    def original(x, a):
        lo, hi = np.minimum(x, a), np.maximum(x, a)
        c = lo * k + hi
        pos = np.searchsorted(codes, c, sorter=sorter)
        pos = np.minimum(pos, m - 1)
        idx = sorter[pos]
        found = codes[idx] == c
        return np.where(found, logc[idx], -np.inf), idx

    # Unwind: grow the tree from the root back through the eliminations.
    eu = np.empty(k - 1, dtype=np.int64)
    ev = np.empty(k - 1, dtype=np.int64)
    live = np.zeros(k - 1, dtype=bool)
    n_edges = 0
    bucket = [[] for _ in range(k - 1)]
    for t in range(k - 2, -1, -1):
        x = order[t]
        lvals = R[t]
        nbr = np.flatnonzero(lvals > -np.inf)
        lv = lvals[nbr]
        removed = bucket[t]
        if removed:
            live[removed] = False
            le = np.flatnonzero(live[:n_edges])
            lab = _components(eu[le], ev[le], k)
            chosen = nbr[_group_argmax(lab[nbr], lv + rng.gumbel(size=nbr.size))]
        else:
            chosen = nbr[[int(np.argmax(lv + rng.gumbel(size=nbr.size)))]]
        # Where does each new edge's conductance come from: the original
        # edge, or the mesh added by an earlier elimination j < t?
        orig, _ = original(np.full(chosen.size, x), chosen)
        parts = np.vstack([orig[None, :],
                           R[:t, x][:, None] + R[:t][:, chosen] - logd[:t, None]])
        src = np.argmax(parts + rng.gumbel(size=parts.shape), axis=0) - 1
        r = chosen.size
        if n_edges + r > eu.size:  # mesh edges come and go: grow the arrays
            grow = max(eu.size, r)
            eu = np.concatenate([eu, np.empty(grow, dtype=np.int64)])
            ev = np.concatenate([ev, np.empty(grow, dtype=np.int64)])
            live = np.concatenate([live, np.zeros(grow, dtype=bool)])
        ids = np.arange(n_edges, n_edges + r)
        eu[ids] = x
        ev[ids] = chosen
        live[ids] = True
        n_edges += r
        for e, s in zip(ids.tolist(), src.tolist()):
            if s >= 0:
                bucket[s].append(e)
    le = np.flatnonzero(live[:n_edges])
    if le.size != k - 1:  # pragma: no cover - exact arithmetic guarantees it
        raise RuntimeError("elimination sampler lost an edge; please report.")
    found, idx = original(eu[le], ev[le])
    if not np.all(np.isfinite(found)):  # pragma: no cover
        raise RuntimeError("elimination sampler produced a non-edge; please report.")
    return idx


# ---------------------------------------------------------------------------
# engine 2: cycle popping (Wilson's algorithm), all components at once
# ---------------------------------------------------------------------------

class _SuccessorSampler:
    """Draws a random neighbour of many nodes at once, P(y | x) ~ gamma(x, y).

    Rows are grouped by degree into padded 2-D blocks (widths powers of two,
    so memory stays below twice the number of directed edges) holding each
    row's own cumulative sums; a draw is a vectorised inverse-CDF lookup.
    Each row is normalised by its own largest conductance, so nothing
    overflows; a conductance below ``exp(-745)`` times its row's largest
    underflows to probability 0 (an error far below the ``2**-53``
    resolution of the uniform draws).
    """

    def __init__(self, u, v, logc, n):
        src = np.concatenate([u, v])
        dst = np.concatenate([v, u])
        lc = np.concatenate([logc, logc])
        order = np.lexsort((dst, src))
        src, dst, lc = src[order], dst[order], lc[order]
        deg = np.bincount(src, minlength=n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(deg, out=indptr[1:])
        rowmax = np.full(n, -np.inf)
        np.maximum.at(rowmax, src, lc)
        p = np.exp(lc - rowmax[src])
        with np.errstate(divide="ignore"):
            self.log_strength = np.where(
                deg > 0, rowmax + np.log(np.bincount(src, weights=p, minlength=n)), -np.inf)
        width_class = np.zeros(n, dtype=np.int64)
        pos = deg > 0
        width_class[pos] = np.ceil(np.log2(deg[pos])).astype(np.int64)
        self.width_class = width_class
        self.row_in_block = np.zeros(n, dtype=np.int64)
        self.blocks = {}
        for wc in np.unique(width_class[pos]):
            nodes = np.flatnonzero(pos & (width_class == wc))
            width = 1 << int(wc)
            cdf = np.full((nodes.size, width), np.inf)
            nbr = np.zeros((nodes.size, width), dtype=np.int64)
            d = deg[nodes]
            col = np.arange(width)
            valid = col[None, :] < d[:, None]
            flat = indptr[nodes][:, None] + np.minimum(col[None, :], d[:, None] - 1)
            vals = np.where(valid, p[flat], 0.0)
            cs = np.cumsum(vals, axis=1)
            cdf[valid] = cs[valid]
            nbr[valid] = dst[flat][valid]
            total = cs[np.arange(nodes.size), d - 1]
            self.row_in_block[nodes] = np.arange(nodes.size)
            self.blocks[int(wc)] = (cdf, nbr, total, d)
        self.deg = deg

    def draw(self, nodes, rng):
        """One successor for each node of ``nodes``; also returns the work done."""
        out = np.empty(nodes.size, dtype=np.int64)
        work = 0
        wcs = self.width_class[nodes]
        for wc in np.unique(wcs):
            sel = np.flatnonzero(wcs == wc)
            cdf, nbr, total, _ = self.blocks[int(wc)]
            rows = self.row_in_block[nodes[sel]]
            target = rng.random(sel.size) * total[rows]
            idx = np.count_nonzero(cdf[rows] <= target[:, None], axis=1)
            out[sel] = nbr[rows, idx]
            work += sel.size * cdf.shape[1]
        return out, work


def _ust_by_cycle_popping(u, v, logc, n, rng, max_work, labels=None):
    """Exact UST (forest) by vectorised cycle popping; returns ``(succ, roots)``.

    ``succ[x]`` is the parent of ``x`` in the tree oriented towards the root
    of its component (``succ[root] = root``). Raises :class:`UstBudgetError`
    when the work exceeds ``max_work``: the number of successor draws
    weighted by the width of the drawn rows, plus ``_ROUND_COST`` per round.

    The budget must depend on the popped cycles only: by Wilson's theorem
    the collection of popped (coloured) cycles is independent of the final
    tree, and so is the sequence of rounds (a cycle present in a round is
    made of arrows that will be popped, so which cycles each round pops is
    determined by the popped collection). Stopping on this budget and
    falling back to another exact sampler therefore leaves the output law
    exactly the UST; counting the pointer jumps as well would not (they
    depend on the tree). A round costs ``O(a log a)`` for the ``a`` nodes
    not yet joined to a root, plus a fixed overhead.
    """
    sampler = _SuccessorSampler(u, v, logc, n)
    if labels is None:
        _, labels = connected_components(
            sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n)), directed=False)
    lab = labels
    # Root each component at its node of largest total conductance (any root
    # gives the same law; a well-connected one shortens the walks).
    roots = _group_argmax(lab, sampler.log_strength)
    frozen = np.zeros(n, dtype=bool)
    frozen[roots] = True
    succ = np.arange(n, dtype=np.int64)
    active = np.flatnonzero(~frozen)
    succ[active], work = sampler.draw(active, rng)
    ident = np.arange(n, dtype=np.int64)
    pops = np.zeros(n, dtype=np.int64)
    while active.size:
        jump = np.where(frozen, ident, succ)
        for _ in range(int(active.size).bit_length() + 1):
            jump[active] = jump[jump[active]]
        reached = frozen[jump[active]]
        frozen[active[reached]] = True
        active = active[~reached]
        if active.size == 0:
            break
        # Nodes on cycles: after >= |active| steps every walk is on its cycle.
        cyc = np.unique(jump[active])
        succ[cyc], w = sampler.draw(cyc, rng)
        pops[cyc] += 1
        work += w + _ROUND_COST
        if work > max_work:
            # The nodes popped far more often than the others are the traps.
            hot = np.flatnonzero(pops >= max(2, pops.max() // 10))
            hot = hot[np.argsort(-pops[hot], kind="stable")]
            raise UstBudgetError(
                f"cycle popping stopped after {work:.3g} work units "
                f"(budget {max_work:.3g}) with {active.size} nodes not yet in the tree.",
                trapped=hot)
    return succ, roots


# ---------------------------------------------------------------------------
# engine 3: cycle popping with the trapped nodes eliminated
# ---------------------------------------------------------------------------

#: Largest set of trapped nodes handed to the trap elimination.
MAX_TRAP_NODES = 500

#: Largest neighbourhood met while eliminating trapped nodes.
_MAX_TRAP_DEGREE = 400

#: Rounds of trap elimination before giving up.
MAX_TRAP_ROUNDS = 4


class _Eliminations:
    """Record of eliminated nodes (star-mesh), for unwinding."""

    def __init__(self, u, v, logc, n):
        self.n = n
        self.codes = u * n + v
        self.sorter = np.argsort(self.codes)
        self.logc0 = logc
        self.x, self.row, self.logd = [], [], []
        self.member = {}  # node -> levels at which it neighboured the eliminated node

    def original(self, a, b):
        """Index and log-conductance of the original edge {a, b} (or -1, -inf)."""
        lo, hi = min(a, b), max(a, b)
        code = lo * self.n + hi
        pos = int(np.searchsorted(self.codes, code, sorter=self.sorter))
        if pos < self.codes.size and self.codes[self.sorter[pos]] == code:
            idx = int(self.sorter[pos])
            return idx, float(self.logc0[idx])
        return -1, -np.inf

    def source(self, a, b, level, rng):
        """Where the conductance of {a, b} at ``level`` comes from: -1 original, t mesh."""
        common = set(self.member.get(a, ())) & set(self.member.get(b, ()))
        common = [t for t in common if t < level]
        if not common:
            return -1
        parts = [self.original(a, b)[1]]
        parts += [self.row[t][a] + self.row[t][b] - self.logd[t] for t in common]
        k = int(np.argmax(np.array(parts) + rng.gumbel(size=len(parts))))
        return -1 if k == 0 else common[k - 1]

    def eliminate(self, cu, cv, cl, stuck):
        """Eliminate the nodes ``stuck`` from the graph ``(cu, cv, cl)``; new graph."""
        n = self.n
        in_s = np.zeros(n, dtype=bool)
        in_s[stuck] = True
        inc = in_s[cu] | in_s[cv]
        adj = {}
        for a, b, w in zip(cu[inc].tolist(), cv[inc].tolist(), cl[inc].tolist()):
            adj.setdefault(a, {})[b] = w
            adj.setdefault(b, {})[a] = w
        remaining = set(int(x) for x in stuck)
        while remaining:
            x = min(remaining, key=lambda y: len(adj.get(y, ())))
            remaining.discard(x)
            nbrs = adj.pop(x, {})
            if len(nbrs) > _MAX_TRAP_DEGREE:
                return None
            keys = list(nbrs)
            vals = np.array([nbrs[y] for y in keys])
            ld = _logsumexp(vals)
            t = len(self.x)
            self.x.append(x)
            self.row.append(dict(nbrs))
            self.logd.append(ld)
            for y in keys:
                self.member.setdefault(y, []).append(t)
                del adj[y][x]
            mesh = vals[:, None] + (vals - ld)[None, :]
            for i in range(len(keys)):
                a = keys[i]
                row_a = adj[a]
                for j in range(i + 1, len(keys)):
                    b = keys[j]
                    val = np.logaddexp(row_a.get(b, -np.inf), mesh[i, j])
                    row_a[b] = val
                    adj[b][a] = val
        # New graph: old edges away from the trapped nodes, plus the mesh.
        keep = ~inc
        mu_, mv_, ml_ = [], [], []
        for a, row in adj.items():
            for b, w in row.items():
                if a < b:
                    mu_.append(a)
                    mv_.append(b)
                    ml_.append(w)
        ku, kv, kl = cu[keep], cv[keep], cl[keep]
        if not mu_:
            return ku, kv, kl
        mu_, mv_, ml_ = np.array(mu_), np.array(mv_), np.array(ml_)
        au = np.concatenate([ku, mu_])
        av = np.concatenate([kv, mv_])
        al = np.concatenate([kl, ml_])
        codes = au * n + av
        uniq, inv = np.unique(codes, return_inverse=True)
        return uniq // n, uniq % n, _group_logsumexp(inv, al, uniq.size)


def _ust_with_trap_elimination(u, v, logc, n, rng, max_work, labels):
    """Cycle popping; when it stalls on a few trapped nodes, eliminate them.

    Cycle popping stalls when a small group of nodes is joined to the rest
    only by edges much lighter than its own (a trap): the walk stays inside
    for ``exp(c * gap)`` steps and the same cycles are popped again and
    again. When the budget runs out, the nodes popped most often (at most
    :data:`MAX_TRAP_NODES`) are eliminated by the star-mesh transform (as in
    the elimination engine), cycle popping is run again, from scratch, on
    the Schur complement, and the eliminations are unwound at the end. Which
    nodes are eliminated may depend on the failed run: the elimination is
    exact for any choice, and every restart is exact (the stopping rule
    depends on the popped cycles only, which are independent of the tree),
    so the result is an exact UST.
    """
    rec = _Eliminations(u, v, logc, n)
    cu, cv, cl = u, v, logc
    for attempt in range(MAX_TRAP_ROUNDS + 1):
        try:
            succ, _ = _ust_by_cycle_popping(cu, cv, cl, n, rng, max_work,
                                            labels=labels if attempt == 0 else None)
            break
        except UstBudgetError as exc:
            if attempt == MAX_TRAP_ROUNDS or exc.trapped.size == 0:
                raise
            reduced = rec.eliminate(cu, cv, cl, exc.trapped[:MAX_TRAP_NODES])
            if reduced is None:
                raise
            cu, cv, cl = reduced
    nonroot = np.flatnonzero(succ != np.arange(n))
    eu = list(nonroot.tolist())
    ev = list(succ[nonroot].tolist())
    live = [True] * len(eu)
    bucket = {}
    n_levels = len(rec.x)
    for i, (a, b) in enumerate(zip(eu, ev)):
        s = rec.source(a, b, n_levels, rng)
        if s >= 0:
            bucket.setdefault(s, []).append(i)
    for t in range(n_levels - 1, -1, -1):
        x = rec.x[t]
        keys = np.array(list(rec.row[t]))
        vals = np.array([rec.row[t][y] for y in keys.tolist()])
        removed = bucket.pop(t, [])
        g = vals + rng.gumbel(size=vals.size)
        if removed:
            for i in removed:
                live[i] = False
            idx = np.flatnonzero(np.array(live))
            lab = _components(np.array(eu)[idx], np.array(ev)[idx], n)
            chosen = keys[_group_argmax(lab[keys], g)]
        else:
            chosen = keys[[int(np.argmax(g))]]
        for a in chosen.tolist():
            eu.append(x)
            ev.append(a)
            live.append(True)
            s = rec.source(x, a, t, rng)
            if s >= 0:
                bucket.setdefault(s, []).append(len(eu) - 1)
    out = []
    for a, b, ok in zip(eu, ev, live):
        if ok:
            idx, _ = rec.original(a, b)
            if idx < 0:  # pragma: no cover - exact arithmetic guarantees it
                raise RuntimeError("trap elimination produced a non-edge; please report.")
            out.append(idx)
    return np.array(out, dtype=np.int64)


# ---------------------------------------------------------------------------
# dispatcher
# ---------------------------------------------------------------------------

def _edge_index_of_successors(u, v, n, succ, roots):
    """Indices of the edges ``(x, succ[x])`` for all non-root ``x``."""
    nonroot = np.ones(n, dtype=bool)
    nonroot[roots] = False
    x = np.flatnonzero(nonroot)
    y = succ[x]
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    codes = u * n + v
    sorter = np.argsort(codes)
    return sorter[np.searchsorted(codes, lo * n + hi, sorter=sorter)]


def _elimination_by_component(u, v, logc, n, rng, lab, ncomp):
    chosen = []
    sizes = np.bincount(lab, minlength=ncomp)
    edge_comp = lab[u]
    order = np.argsort(edge_comp, kind="stable")
    bounds = np.searchsorted(edge_comp[order], np.arange(ncomp + 1))
    local = np.empty(n, dtype=np.int64)
    for c in np.flatnonzero(sizes >= 2):
        eidx = order[bounds[c]:bounds[c + 1]]
        nodes = np.flatnonzero(lab == c)
        local[nodes] = np.arange(nodes.size)
        picked = _ust_by_elimination(local[u[eidx]], local[v[eidx]], logc[eidx],
                                     int(sizes[c]), rng)
        chosen.append(eidx[picked])
    return np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)


def sample_weighted_ust(u, v, log_conductance, n, random_state, *, method="auto",
                        max_work=None):
    """Sample a weighted uniform spanning forest exactly.

    Parameters
    ----------
    u, v : ndarray of int, shape (m,)
        Edge endpoints, ``u < v``, each unordered pair at most once.
    log_conductance : ndarray of shape (m,)
        Finite ``log gamma(e)``; only differences matter.
    n : int
        Number of nodes.
    random_state : numpy.random.Generator
    method : {"auto", "cycle_popping", "elimination"}, default="auto"
        ``"elimination"``: exact, ``O(k^3)`` time and ``O(k^2)`` memory per
        connected component of ``k`` nodes whatever the conductances.
        ``"cycle_popping"``: exact, expected time Wilson's mean hitting time
        (fast on well-mixing graphs, ``exp(c * gap)`` on clustered ones),
        stopped with :class:`UstBudgetError` after ``max_work``.
        ``"auto"``: cycle popping under a budget equal to the elimination's
        cost when every component has at most :data:`MAX_ELIMINATION_NODES`
        nodes, then elimination; so its cost is at most about twice the
        cheaper engine's. Larger components get cycle popping with
        ``max_work`` and an error if it runs out.
    max_work : float, default=None
        Budget of cycle popping in work units (one unit is about one
        comparison in a successor draw or one pointer jump);
        ``DEFAULT_DRAW_FACTOR * (n + m)`` by default.

    Returns
    -------
    chosen : ndarray of bool, shape (m,)
        Mask of the edges of the sampled forest (``n - n_components`` edges).

    Raises
    ------
    UstBudgetError
        If cycle popping runs out of budget with no exact fallback left.
    """
    if method not in UST_METHODS:
        raise ValueError(f"method must be one of {UST_METHODS}; got {method!r}.")
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    logc = np.asarray(log_conductance, dtype=np.float64)
    m = u.size
    chosen = np.zeros(m, dtype=bool)
    if m == 0:
        return chosen
    if not np.all(np.isfinite(logc)):
        raise ValueError("log_conductance must be finite.")
    if max_work is None:
        max_work = DEFAULT_DRAW_FACTOR * float(n + m)
    chosen[_sample(u, v, logc, n, random_state, method, max_work)] = True
    return chosen


def _gap_split(logc):
    """Threshold splitting the edges into light and heavy ones, or None.

    A split is made at a gap ``g`` in the sorted log-conductances with
    ``g > PRUNE_LOG_BOUND + log(2 m_light m_heavy)``: see :func:`_sample`.
    """
    m = logc.size
    if m < 2:
        return None
    x = np.sort(-logc)  # light (large conductance) first
    gaps = np.diff(x)
    i = np.arange(1, m)
    need = PRUNE_LOG_BOUND + np.log(2.0 * i) + np.log(m - i.astype(np.float64))
    ok = np.flatnonzero(gaps > need)
    if ok.size == 0:
        return None
    best = ok[np.argmax(gaps[ok])]
    return -0.5 * (x[best] + x[best + 1])  # light: logc > threshold


def _group_logsumexp(groups, values, n_groups):
    top = np.full(n_groups, -np.inf)
    np.maximum.at(top, groups, values)
    s = np.bincount(groups, weights=np.exp(values - top[groups]), minlength=n_groups)
    return top + np.log(s)


def _sample(u, v, logc, n, rng, method, max_work):
    """Edge indices of an exact UST (forest) of ``(u, v, logc)`` on ``n`` nodes.

    *Gap split.* Let the light edges ``H`` (conductance above a threshold)
    and the heavy ones differ by a factor ``exp(g)``, and let ``A`` be the
    event that the tree restricted to ``H`` spans every component of ``H``.
    Given ``A`` the tree is made of independent USTs of the components of
    ``H`` and a UST of the graph whose nodes are those components and whose
    edges are the heavy edges between them (parallel ones merged, then one
    picked in proportion to its conductance): the law factorises. And
    ``P(not A) <= q / (1 - q)`` with ``q = m_light m_heavy exp(-g)``: a tree
    outside ``A`` becomes, by swapping one of its heavy edges for a light
    edge that joins two of its pieces inside a component of ``H``, a tree
    with one heavy edge fewer and ``exp(g)`` times more probable, and at most
    ``m_light m_heavy`` trees map to the same one. With the threshold of
    :func:`_gap_split` sampling given ``A`` changes the law by less than
    ``exp(-PRUNE_LOG_BOUND)`` in total variation. On graphs whose clusters
    are separated by a gap in weights (the homogeneous graphs of the UAI
    paper) this splits a large ``c`` problem into one small problem per
    cluster.
    """
    m = u.size
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    thr = _gap_split(logc)
    if thr is not None:
        li = np.flatnonzero(logc > thr)
        picked = [li[_sample(u[li], v[li], logc[li], n, rng, method, max_work)]]
        ncomp, lab = connected_components(
            sp.csr_array((np.ones(li.size), (u[li], v[li])), shape=(n, n)), directed=False)
        hi = np.flatnonzero((logc <= thr) & (lab[u] != lab[v]))
        if hi.size:
            a, b = lab[u[hi]], lab[v[hi]]
            codes = np.minimum(a, b) * ncomp + np.maximum(a, b)
            uniq, inv = np.unique(codes, return_inverse=True)
            merged = _group_logsumexp(inv, logc[hi], uniq.size)
            groups = _sample(uniq // ncomp, uniq % ncomp, merged, ncomp, rng, method,
                             max_work)
            member = np.isin(inv, groups)
            sel = np.flatnonzero(member)
            pick = _group_argmax(inv[sel], logc[hi][sel] + rng.gumbel(size=sel.size))
            picked.append(hi[sel[pick]])
        return np.concatenate(picked)
    keep = np.flatnonzero(_prune(u, v, logc, n))
    ku, kv, kl = u[keep], v[keep], logc[keep]
    ncomp, lab = connected_components(
        sp.csr_array((np.ones(ku.size), (ku, kv)), shape=(n, n)), directed=False)
    sizes = np.bincount(lab, minlength=ncomp)
    if method == "auto":
        if sizes.max() <= MAX_ELIMINATION_NODES:
            elim_cost = float(np.sum(sizes.astype(np.float64) ** 3)) / 3.0
            budget = min(max_work, max(_DRAWS_PER_FLOP * elim_cost, 10.0 * (n + ku.size)))
            try:
                succ, roots = _ust_by_cycle_popping(ku, kv, kl, n, rng, budget,
                                                   labels=lab)
            except UstBudgetError:
                picked = _elimination_by_component(ku, kv, kl, n, rng, lab, ncomp)
            else:
                picked = _edge_index_of_successors(ku, kv, n, succ, roots)
        else:
            picked = _ust_with_trap_elimination(ku, kv, kl, n, rng, max_work, lab)
    elif method == "cycle_popping":
        succ, roots = _ust_by_cycle_popping(ku, kv, kl, n, rng, max_work,
                                            labels=lab)
        picked = _edge_index_of_successors(ku, kv, n, succ, roots)
    else:
        picked = _elimination_by_component(ku, kv, kl, n, rng, lab, ncomp)
    return keep[picked]
