"""Exact UST sampling by Wilson's algorithm, with trap elimination.

Every non-root node has a stack of i.i.d. successor draws, with probability
proportional to the conductances of its edges; while the graph of the top
arrows has cycles, a cycle is popped (its nodes move to their next draw).
The tree left when no cycle remains is a UST, and the result does not
depend on the order in which cycles are popped ([W96]_, [PW98]_). Wilson's
loop-erased random walks pop them one walk at a time; the expected work is
his mean hitting time: small on well-mixing graphs, growing like
``exp(c * gap)`` when light clusters are joined by edges heavier by ``gap``
(the walk is trapped inside clusters).

*Stopping is exact.* By Wilson's theorem the collection of popped
(coloured) cycles is independent of the final tree. A completed run reads
``n - n_roots`` draws plus the total length of the popped cycles, and the
count only grows, so the rule "stop once more than ``max_work`` draws were
read" stops exactly the runs whose popped cycles are too long: it is
independent of the tree the run would have produced, and restarting, or
switching to another exact sampler, leaves the output law exactly the UST.

References
----------
.. [W96] D. B. Wilson, "Generating random spanning trees more quickly than
   the cover time", STOC 1996.
.. [PW98] J. G. Propp and D. B. Wilson, "How to get a perfectly random
   sample from a generic Markov chain and generate a random spanning tree of
   a directed graph", J. Algorithms 27 (1998).
"""

import math
from array import array

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, reverse_cuthill_mckee

from ...privacy._samplers import standard_exponential
from ...utils import mst_edge_indices
from ._common import (
    GumbelStream,
    components,
    edge_lookup,
    group_argmax,
    group_logsumexp,
    gumbel,
    logsumexp,
)
from ._elimination import elimination_by_component

#: Neighbours below this fraction of their row's total are drawn apart from
#: the inverse-CDF lookup, which on 53-bit uniforms could never pick them.
_CDF_MIN_FRACTION = 2.0 ** -40

#: Trap elimination: most nodes a stopped run marks as trapped per round,
#: and largest neighbourhood a node may have to be eliminated.
MAX_TRAP_NODES = 500
_MAX_TRAP_DEGREE = 400

#: Trap groups (:func:`trap_groups`): at most this many nodes, holding the
#: walk for about ``exp(score)`` crossings of their inner edges, the scores
#: tried in turn until some node can be eliminated.
_TRAP_SIZE = 8
_TRAP_SCORES = (6.0, 4.5, 3.0)


class _SuccessorSampler:
    """Draws a random neighbour of many nodes at once, P(y | x) ~ gamma(x, y).

    Rows are grouped by degree into padded 2-D blocks (widths powers of two,
    so memory stays below twice the number of directed edges) holding each
    row's own cumulative sums; a draw is a vectorised inverse-CDF lookup on
    a 53-bit uniform. Such a lookup would give probability 0 to a neighbour
    with less than about ``2**-53`` of the row's total (its cell absorbed by
    rounding, or its ``exp`` underflowing). So the *light* neighbours, those
    below ``2**-40`` of the total, are left out of the cumulative sums and
    drawn separately: the draw goes to them with their exact total
    probability ``q``, decided by ``E > -log q`` with ``E ~ Exp(1)`` of
    unbounded tail, and among them by Gumbel-max in log space. The cost is
    one exponential draw per row with light neighbours; the light branch
    itself (probability below ``deg 2**-40``) is essentially never taken.
    """

    def __init__(self, u, v, logc, n):
        # Both directions, sorted by (source, target): scipy's CSR build is a
        # linear counting sort, several times faster than a lexsort.
        both = np.concatenate([logc, logc])
        rows, cols = np.concatenate([u, v]), np.concatenate([v, u])
        sym = sp.csr_array((both, (rows, cols)), shape=(n, n))
        if sym.nnz != both.size:  # a log-conductance of 0 dropped: carry positions
            sym = sp.csr_array((np.arange(1, both.size + 1), (rows, cols)), shape=(n, n))
            sym.data = both[sym.data - 1]
        sym.sort_indices()
        indptr = sym.indptr.astype(np.int64)
        deg = np.diff(indptr)
        src = np.repeat(np.arange(n, dtype=np.int64), deg)
        dst = sym.indices.astype(np.int64)
        lc = sym.data
        rowmax = np.full(n, -np.inf)
        nonempty = deg > 0
        rowmax[nonempty] = np.maximum.reduceat(lc, indptr[:-1][nonempty])
        p = np.exp(lc - rowmax[src])
        with np.errstate(divide="ignore"):
            self.log_strength = np.where(
                deg > 0, rowmax + np.log(np.bincount(src, weights=p, minlength=n)), -np.inf)
        light = lc - self.log_strength[src] < np.log(_CDF_MIN_FRACTION)
        self.log_light = np.full(n, -np.inf)  # log of the light neighbours' share
        if light.any():
            rows = np.unique(src[light])
            self.log_light[rows] = group_logsumexp(
                np.searchsorted(rows, src[light]), lc[light], rows.size
            ) - self.log_strength[rows]
        p[light] = 0.0
        width_class = np.zeros(n, dtype=np.int64)
        pos = deg > 0
        width_class[pos] = np.ceil(np.log2(deg[pos])).astype(np.int64)
        self.width_class = width_class
        self.row_in_block = np.zeros(n, dtype=np.int64)
        self.blocks = {}
        for wc in np.unique(width_class[pos]):
            nodes = np.flatnonzero(pos & (width_class == wc))
            width = 1 << int(wc)
            d = deg[nodes]
            col = np.arange(width)
            valid = col[None, :] < d[:, None]
            flat = indptr[nodes][:, None] + np.minimum(col[None, :], d[:, None] - 1)
            cs = np.cumsum(np.where(valid, p[flat], 0.0), axis=1)
            cdf = np.where(valid, cs, np.inf)
            nbr = np.where(valid, dst[flat], 0)
            # Log-conductances of the light neighbours, for the blocks having some.
            is_light = valid & light[flat]
            log_light = np.where(is_light, lc[flat], -np.inf) if is_light.any() else None
            self.row_in_block[nodes] = np.arange(nodes.size)
            self.blocks[int(wc)] = (cdf, nbr, cs[np.arange(nodes.size), d - 1], log_light)
        # Per-node lookups of draw_many as Python objects: no numpy scalars.
        self._wc, self._row = width_class.tolist(), self.row_in_block.tolist()
        self._has_light = set(np.flatnonzero(self.log_light > -np.inf).tolist())

    def draw(self, nodes, rng):
        """One successor for each node of ``nodes``."""
        out = np.empty(nodes.size, dtype=np.int64)
        # Rows going to their light neighbours: probability q, Exp(1) > -log q.
        to_light = np.zeros(nodes.size, dtype=bool)
        has = np.flatnonzero(self.log_light[nodes] > -np.inf)
        if has.size:
            e = standard_exponential(has.size, rng)
            to_light[has[e > -self.log_light[nodes[has]]]] = True
        wcs = self.width_class[nodes]
        for wc in np.unique(wcs):
            sel = np.flatnonzero(wcs == wc)
            cdf, nbr, total, log_light = self.blocks[int(wc)]
            rows = self.row_in_block[nodes[sel]]
            target = rng.random(sel.size) * total[rows]
            idx = np.count_nonzero(cdf[rows] <= target[:, None], axis=1)
            go = np.flatnonzero(to_light[sel])
            if go.size:
                lw = log_light[rows[go]]
                idx[go] = np.argmax(lw + gumbel(lw.shape, rng), axis=1)
            out[sel] = nbr[rows, idx]
        return out

    def draw_many(self, x, size, rng):
        """``size`` i.i.d. successors of the one node ``x`` (the law of :meth:`draw`)."""
        if x in self._has_light:
            return self.draw(np.full(size, x, dtype=np.int64), rng)
        cdf, nbr, total, _ = self.blocks[self._wc[x]]
        row = self._row[x]
        # searchsorted(side="right") counts the entries <= target, as draw() does.
        return nbr[row][cdf[row].searchsorted(rng.random(size) * total[row], side="right")]


def cycle_popping(u, v, logc, n, rng, max_work, labels=None):
    """Exact UST (forest) by Wilson's algorithm on pre-drawn stacks, under a budget.

    Returns ``(succ, roots, trapped)``. ``succ[x]`` is the parent of ``x``
    in the tree oriented towards the root of its component (``succ[root] =
    root``), or ``succ`` is None when the number of successor draws exceeded
    ``max_work``; ``trapped`` then holds the nodes popped most often, most
    frequent first.

    Every node gets a stack of i.i.d. successor draws, drawn in bulk and
    refilled (doubling) when used up; loop-erased random walks from each
    node in turn read them ([W96]_). The draws a completed run reads are
    ``n - n_roots`` plus the total length of the popped cycles, a function
    of the popped cycles only, so the stopping rule "more than ``max_work``
    draws" is independent of the tree (see the module docstring). The work
    is Wilson's mean hitting time, one draw per step of the walk: the walk
    is a plain Python loop, because a vectorised round of cycle popping
    costs a pass over every node not yet joined to a root, and on graphs
    that mix slowly (geometric k-nearest-neighbour graphs) thousands of
    rounds each pop a few hundred nodes among a hundred thousand waiting.
    """
    pattern = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    if labels is None:
        _, labels = connected_components(pattern, directed=False)
    # The walks jump between neighbours: numbering the nodes in reverse
    # Cuthill-McKee order keeps neighbours close in memory, which halves the
    # cost of a step on large graphs (measured). Renaming changes no law.
    order = reverse_cuthill_mckee(pattern, symmetric_mode=False).astype(np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    sampler = _SuccessorSampler(rank[u], rank[v], logc, n)
    # Root each component at its node of largest total conductance (any root
    # gives the same law; a well-connected one shortens the walks).
    roots = group_argmax(labels[order], sampler.log_strength)
    succ, drawn = _wilson(sampler, n, roots, rng, max_work)
    if succ is None:
        pops = np.maximum(drawn - 1, 0)
        hot = np.flatnonzero(pops >= max(2, pops.max() // 10))
        return None, order[roots], order[hot[np.argsort(-pops[hot], kind="stable")]]
    out = np.empty(n, dtype=np.int64)
    out[order] = order[succ]
    return out, order[roots], None


#: Successors drawn ahead for every node (its stack), before any refill,
#: and most drawn for one node at a time.
_STACK_DEPTH = 4
_MAX_REFILL = 1 << 16


def _wilson(sampler, n, roots, rng, max_work):
    """Loop-erased random walks on pre-drawn stacks: ``(succ, None)`` or ``(None, drawn)``.

    ``drawn[x]`` is the number of successors of ``x`` read when the budget
    ran out. A node's stack is refilled by doubling, at most
    :data:`_MAX_REFILL` draws at a time, and the draws already read are
    dropped whenever they fill most of the buffer, so memory stays
    proportional to ``n`` plus the unread draws, whatever the budget.
    """
    is_root = np.zeros(n, dtype=bool)
    is_root[roots] = True
    walkers = np.flatnonzero(~is_root)
    depth = _STACK_DEPTH
    stack = array("q", sampler.draw(np.repeat(walkers, depth), rng).tobytes())
    start = np.zeros(n, dtype=np.int64)
    start[walkers] = depth * np.arange(walkers.size)
    filled = np.where(is_root, 0, depth)  # successors given to each node so far
    ptr = array("q", start.tobytes())
    end = array("q", (start + filled).tobytes())
    filled = filled.tolist()
    intree = bytearray(is_root.tobytes())
    nxt = array("q", np.arange(n, dtype=np.int64).tobytes())
    budget = float(max_work)
    limit = 2 * len(stack) + 8 * n  # buffer size that triggers a compaction
    steps = 0
    for s in walkers.tolist():
        x = s
        while not intree[x]:
            p = ptr[x]
            if p == end[x]:
                if steps > budget:
                    break
                if len(stack) > limit:
                    stack, ptr, end = _compact(stack, ptr, end)
                    limit = max(limit, 2 * len(stack))
                size = min(filled[x], _MAX_REFILL)  # the node's stack doubles
                filled[x] += size
                p = len(stack)
                stack.frombytes(sampler.draw_many(x, size, rng).tobytes())
                end[x] = p + size
            ptr[x] = p + 1
            y = nxt[x] = stack[p]
            x = y
            steps += 1
        if steps > budget:
            left = np.frombuffer(end, dtype=np.int64) - np.frombuffer(ptr, dtype=np.int64)
            return None, np.asarray(filled, dtype=np.int64) - left
        x = s
        while not intree[x]:
            intree[x] = 1
            x = nxt[x]
    return np.frombuffer(nxt, dtype=np.int64).copy(), None


def _compact(stack, ptr, end):
    """The unread draws ``stack[ptr[x]:end[x]]`` of every node, moved together."""
    lo = np.frombuffer(ptr, dtype=np.int64)
    lens = np.frombuffer(end, dtype=np.int64) - lo
    new_lo = np.cumsum(lens) - lens
    idx = np.repeat(lo - new_lo, lens) + np.arange(int(lens.sum()))
    kept = np.frombuffer(stack, dtype=np.int64)[idx]
    return (array("q", kept.tobytes()), array("q", new_lo.tobytes()),
            array("q", (new_lo + lens).tobytes()))


def successor_edges(u, v, n, succ, roots):
    """Indices of the edges ``(x, succ[x])`` for all non-root ``x``."""
    nonroot = np.ones(n, dtype=bool)
    nonroot[roots] = False
    x = np.flatnonzero(nonroot)
    return edge_lookup(u, v, n)(x, succ[x])


def _logaddexp(a, b):
    """``log(exp(a) + exp(b))`` of two finite floats."""
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a))


def trap_groups(u, v, logc, n, min_score, max_size):
    """Groups of nodes that hold a random walk, from the conductances alone.

    The clusters of the single-linkage hierarchy of the conductances
    (Kruskal's merges, strongest edge first) with at most ``max_size``
    nodes whose strongest inner edge outweighs their strongest boundary
    edge, the one that merges them next, by a factor ``exp(min_score)`` or
    more: a walk that enters one crosses its inner edges about that many
    times before it leaves. Of nested such clusters only the largest is
    returned.

    Returns
    -------
    list of list of int
    """
    top = np.full(n, -np.inf)
    np.maximum.at(top, u, logc)
    np.maximum.at(top, v, logc)
    ti = mst_edge_indices(u, v, -logc, n)
    ti = ti[np.argsort(-logc[ti], kind="stable")]
    parent = list(range(n))
    size = [1] * n
    best = top.tolist()  # strongest inner edge of each cluster (by its root)
    members = {}  # root -> its nodes, while at most max_size
    found = {}  # root -> the largest traps inside it
    for a, b, lg in zip(u[ti].tolist(), v[ti].tolist(), logc[ti].tolist()):
        while parent[a] != a:
            parent[a] = a = parent[parent[a]]
        while parent[b] != b:
            parent[b] = b = parent[parent[b]]
        groups = []
        for r in (a, b):  # each side ends its life at this merge
            if size[r] == 1:
                continue
            if size[r] <= max_size and best[r] - lg >= min_score:
                groups.append(members[r])
                found.pop(r, None)
            else:
                groups.extend(found.pop(r, ()))
        if size[a] < size[b]:
            a, b = b, a
        parent[b] = a
        size[a] += size[b]
        best[a] = max(best[a], best[b])
        if size[a] <= max_size:
            members[a] = members.pop(a, [a]) + members.pop(b, [b])
        else:
            members.pop(a, None)
            members.pop(b, None)
        if groups:
            found[a] = groups
    return [g for gs in found.values() for g in gs]


def _trap_nodes(u, v, logc, n, score):
    """Nodes to eliminate: every trap group but its node of largest degree."""
    groups = trap_groups(u, v, logc, n, score, _TRAP_SIZE)
    if not groups:
        return np.empty(0, dtype=np.int64)
    deg = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
    lens = np.array([len(g) for g in groups])
    nodes = np.fromiter((x for g in groups for x in g), dtype=np.int64, count=int(lens.sum()))
    gid = np.repeat(np.arange(lens.size), lens)
    keep = group_argmax(gid, deg[nodes].astype(np.float64))
    mask = np.ones(nodes.size, dtype=bool)
    mask[keep] = False
    return nodes[mask]


class _Eliminations:
    """Record of eliminated (trapped) nodes, star-mesh in log space, for unwinding."""

    def __init__(self, u, v, logc, n):
        self.n = n
        self.edge_of = edge_lookup(u, v, n)
        self.logc0 = logc
        self.x, self.row, self.logd = [], [], []
        self.member = {}  # node -> levels at which it neighboured the eliminated node

    def original(self, a, b):
        """Index and log-conductance of the original edge {a, b} (or -1, -inf)."""
        idx = int(self.edge_of(np.array([a]), np.array([b]))[0])
        return idx, (float(self.logc0[idx]) if idx >= 0 else -np.inf)

    def source(self, a, b, level, noise):
        """Where the conductance of {a, b} at ``level`` comes from: -1 original, t mesh."""
        common = set(self.member.get(a, ())) & set(self.member.get(b, ()))
        common = [t for t in common if t < level]
        if not common:
            return -1
        parts = [self.original(a, b)[1]]
        parts += [self.row[t][a] + self.row[t][b] - self.logd[t] for t in common]
        k = int(np.argmax(np.array(parts) + noise.take(len(parts))))
        return -1 if k == 0 else common[k - 1]

    def eliminate(self, cu, cv, cl, stuck):
        """Eliminate the nodes ``stuck`` from the graph ``(cu, cv, cl)``; new graph.

        Nodes go in order of smallest current neighbourhood; once the
        smallest exceeds :data:`_MAX_TRAP_DEGREE` the rest stay (the mesh of
        a hub would be too large). Returns None if no node was eliminated.
        """
        n = self.n
        in_s = np.zeros(n, dtype=bool)
        in_s[stuck] = True
        inc = in_s[cu] | in_s[cv]
        adj = {}
        for a, b, w in zip(cu[inc].tolist(), cv[inc].tolist(), cl[inc].tolist()):
            adj.setdefault(a, {})[b] = w
            adj.setdefault(b, {})[a] = w
        remaining = set(int(x) for x in stuck)
        done = 0
        while remaining:
            x = min(remaining, key=lambda y: len(adj.get(y, ())))
            if len(adj.get(x, ())) > _MAX_TRAP_DEGREE:
                break
            remaining.discard(x)
            done += 1
            nbrs = adj.pop(x, {})
            keys = list(nbrs)
            vals = np.array([nbrs[y] for y in keys])
            ld = logsumexp(vals) if keys else -np.inf
            t = len(self.x)
            self.x.append(x)
            self.row.append(dict(nbrs))
            self.logd.append(ld)
            for y in keys:
                self.member.setdefault(y, []).append(t)
                del adj[y][x]
            if len(keys) > 1:
                mesh = (vals[:, None] + (vals - ld)[None, :]).tolist()
                for i, a in enumerate(keys):
                    row_a, mesh_i = adj[a], mesh[i]
                    for j in range(i + 1, len(keys)):
                        b = keys[j]
                        old = row_a.get(b)
                        val = mesh_i[j] if old is None else _logaddexp(old, mesh_i[j])
                        row_a[b] = val
                        adj[b][a] = val
        if not done:
            return None
        # New graph: old edges away from the trapped nodes, plus the mesh.
        keep = ~inc
        mesh_edges = [(a, b, w) for a, row in adj.items() for b, w in row.items() if a < b]
        ku, kv, kl = cu[keep], cv[keep], cl[keep]
        if not mesh_edges:
            return ku, kv, kl
        mu_, mv_, ml_ = (np.array(z) for z in zip(*mesh_edges))
        codes = np.concatenate([ku, mu_]) * n + np.concatenate([kv, mv_])
        uniq, inv = np.unique(codes, return_inverse=True)
        return uniq // n, uniq % n, group_logsumexp(inv, np.concatenate([kl, ml_]), uniq.size)


def ust_with_trap_elimination(u, v, logc, n, rng, max_work, labels,
                              max_elimination_nodes):
    """Cycle popping that always finishes: traps are eliminated, budgets doubled.

    Cycle popping stalls when a small group of nodes is joined to the rest
    only by edges much lighter than its own (a trap): the walk stays inside
    for ``exp(c * gap)`` steps and the same cycles are popped again and
    again. Each time a run exhausts its budget, the traps of the current
    graph (:func:`trap_groups`, found from the conductances; else the nodes
    the run popped most often) are eliminated by the star-mesh transform,
    all but the node of largest degree of each group, and cycle popping
    restarts from scratch on the Schur complement; the budget doubles only
    when nothing could be eliminated (every candidate has more than
    :data:`_MAX_TRAP_DEGREE` neighbours). Once every component of the
    Schur complement has at most ``max_elimination_nodes`` nodes, the
    elimination sampler draws its tree instead. The eliminations are
    unwound at the end. Which nodes are eliminated, and when the
    elimination sampler takes over, may depend on the stopped runs: the
    elimination is exact for any choice, and every restart or hand-over is
    exact (the stopping rule depends on the popped cycles only), so the
    result is an exact UST. There is no failure: every round eliminates a
    node or doubles the budget, and a run terminates with probability one.

    Returns the indices of the chosen edges.
    """
    rec = _Eliminations(u, v, logc, n)
    cu, cv, cl = u, v, logc
    budget = max_work
    while True:
        succ, _, trapped = cycle_popping(cu, cv, cl, n, rng, budget, labels=labels)
        if succ is not None:
            eu = np.flatnonzero(succ != np.arange(n))
            ev = succ[eu]
            break
        reduced = None
        for score in _TRAP_SCORES:
            stuck = _trap_nodes(cu, cv, cl, n, score)
            if stuck.size:
                reduced = rec.eliminate(cu, cv, cl, stuck)
                if reduced is not None:
                    break
        if reduced is None and trapped.size:
            reduced = rec.eliminate(cu, cv, cl, trapped[:MAX_TRAP_NODES])
        if reduced is None:
            budget *= 2.0
            continue
        cu, cv, cl = reduced
        ncomp, labels = connected_components(
            sp.csr_array((np.ones(cu.size), (cu, cv)), shape=(n, n)), directed=False)
        if np.bincount(labels).max() <= max_elimination_nodes:
            picked = elimination_by_component(cu, cv, cl, n, rng, labels, ncomp)
            eu, ev = cu[picked], cv[picked]
            break
    return _unwind_traps(rec, eu, ev, n, rng)


def _unwind_traps(rec, tu, tv, n, rng):
    """Edges of the UST of the original graph from a UST ``(tu, tv)`` of its Schur complement."""
    eu = list(tu.tolist())
    ev = list(tv.tolist())
    live = [True] * len(eu)
    bucket = {}
    n_levels = len(rec.x)
    noise = GumbelStream(rng)
    # Only an edge between two neighbours of eliminated nodes can come from a mesh.
    near = np.zeros(n, dtype=bool)
    near[np.fromiter(rec.member, dtype=np.int64, count=len(rec.member))] = True
    for i in np.flatnonzero(near[tu] & near[tv]).tolist():
        s = rec.source(eu[i], ev[i], n_levels, noise)
        if s >= 0:
            bucket.setdefault(s, []).append(i)
    for t in range(n_levels - 1, -1, -1):
        x = rec.x[t]
        keys = np.array(list(rec.row[t]), dtype=np.int64)
        if keys.size == 0:
            continue  # an isolated node (its own component)
        vals = np.array([rec.row[t][y] for y in keys.tolist()])
        removed = bucket.pop(t, [])
        g = vals + noise.take(vals.size)
        if removed:
            for i in removed:
                live[i] = False
            idx = np.flatnonzero(np.array(live))
            lab = components(np.array(eu)[idx], np.array(ev)[idx], n)
            chosen = keys[group_argmax(lab[keys], g)]
        else:
            chosen = keys[[int(np.argmax(g))]]
        for a in chosen.tolist():
            eu.append(x)
            ev.append(a)
            live.append(True)
            s = rec.source(x, a, t, noise)
            if s >= 0:
                bucket.setdefault(s, []).append(len(eu) - 1)
    keep = np.flatnonzero(np.array(live, dtype=bool))
    idx = rec.edge_of(np.array(eu, dtype=np.int64)[keep], np.array(ev, dtype=np.int64)[keep])
    if np.any(idx < 0):  # pragma: no cover - exact arithmetic guarantees it
        raise RuntimeError("trap elimination produced a non-edge; please report.")
    return idx
