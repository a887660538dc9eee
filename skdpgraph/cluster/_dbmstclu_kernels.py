"""Compiled DBMSTClu engine (numba): every cluster's best cut, then the greedy replay.

Imported by :func:`skdpgraph.cluster.dbmstclu` when it runs. Plain loops over arrays that
:func:`cut_sequence` allocates; nothing random.

*Split tree.* Cutting an edge of cluster ``C`` changes only ``C``'s term of the index, so
the best cut of every cluster and the two clusters it makes are found first, depth first
with the smaller side of each cut before the larger (at most ``log2 n`` frames), and
Algorithm 1's greedy order is replayed over that tree (:func:`_replay`).

*Layout.* A cluster occupies positions in a DFS preorder with heavy children first: the
subtree of a candidate is a range, its rest a prefix and a suffix, the ancestors of a node
O(log n) ranges (one per heavy path). A segment tree over blocks of positions keeps counts,
extremes and bounds. Cut nodes stay in place as dead positions; a smaller subtree side stays
in place as a cluster of its own, a smaller rest is laid out again, rooted at an end of its
heaviest edge, above the other frames.

*Search.* With ``N``, ``D``, ``S`` the cluster's size, dispersion and separation, a
candidate whose rest holds an edge of weight ``D`` and a node of cut ``S`` has the value
``r = s V_in + (N - s) g(p)``, ``g(p) = V(min(p, S), D)``. Each position stores an upper
bound of ``s V_in`` (``s V_in - s F`` for the HIGH edges, of weight at least
``theta = min(S, D)``, whose ``g`` is the constant ``F``), clamped at 0: a cut below a node
that leaves its largest edge and smallest cut as they were cannot raise its ``s V_in`` above
it, so only the ancestors whose extremes the cut took are evaluated again. Branch and bound
over the segment tree finds the largest value, then the largest rank within the tolerance
(a second pass only if the first set aside a bound within the tolerance or evaluated more
candidates than it keeps, from the segments the first set aside within it); leaves, and
every candidate when ``F = 0``, are bounded exactly, so that thousands of exact ties cost
O(log n). The other candidates, ancestors of every edge of weight ``D`` or of every node of
cut ``S``, are bounded as root paths. The bounds are stored again at the current ``theta``
and ``F`` once those are stable and the searches have cost a pass.
"""

import numpy as np
from numba import njit

from ..utils._sparse_kernels import breadth_first_order, symmetric_csr

BLOCK = 16  # positions per leaf of the segment tree
DEAD, ROOT, HIGH, LOW, LEAF = 0, 1, 2, 3, 4  # kinds of positions; HIGH, LOW: inner nodes
# Constants passed to kernels are numpy scalars: Python int and bool literals would make
# numba compile a kernel once per value.
FIND_EDGE, FIND_CUT, FIND_LIVE = np.int64(0), np.int64(1), np.int64(2)  # _find: edge >=
FIRST, LAST, NO, YES = np.int64(0), np.int64(1), np.bool_(False), np.bool_(True)  # value,
ZERO, NONE = np.int64(0), np.int64(-1)  # cut <= value, any
INF = np.inf
CHAIN, BISECT, DFS, PATH, FIND, ASIDE = (np.int64(k) for k in (64, 256, 1024, 2048, 3000, 3200))
ASIDES = 48  # segments of the branch and bound set aside within the tolerance, kept for phase 1
FEW = 16  # clusters waiting in the replay that are scanned rather than kept in its tree
RENAME = 1 << 19  # nodes from which a forest is renamed in breadth-first order first
KEYS, CACHE, CACHED = 64, 256, 48  # of the float buffer: search stack keys, evaluations
EVALUATED, PRUNED = 8, 9  # of the float buffer: phase 0's evaluations, largest bound set aside
ASIDE_KEYS = 10  # of the float buffer: the bounds of the segments set aside

POSITION = np.dtype([("bound", "f8"), ("subtree", "i4"), ("rank", "i4"), ("node", "i4"),
                     ("end", "i4"), ("parent", "i4")])
QUERY = np.dtype([("count", "i4"), ("edge", "f8"), ("cut", "f8")], align=True)
SEARCH = np.dtype([("rank", "i4"), ("subtree", "i4"), ("leaf_rank", "i4"), ("high_rank", "i4"),
                   ("leaf", "f8"), ("leaf_next", "f8"), ("high", "f8"), ("high_next", "f8"),
                   ("low", "f8"), ("low_edge", "f8")], align=True)
NODE = np.dtype([("position", "i4"), ("head", "i4"), ("depth", "i4"), ("parent_edge", "i4"),
                 ("subtree", "i4"), ("heavy", "i4"), ("cut", "f8")], align=True)
FRAME = np.dtype([("lo", "i8"), ("hi", "i8"), ("n", "i8"), ("term", "f8"), ("tol", "f8"),
                  ("forced", "i8"), ("record", "i8"), ("side", "i8"), ("arena", "i8"),
                  ("theta", "f8"), ("fref", "f8"), ("work", "i8"), ("last_d", "f8"),
                  ("last_s", "f8"), ("stable", "i8"), ("cut", "i8"), ("cut_end", "i8"),
                  ("cut_max", "f8"), ("cut_min", "f8"), ("cut_weight", "f8"),
                  ("cut_parent", "i8")], align=True)
RECORD = np.dtype([("gain", "f8"), ("rank", "i4"), ("child_a", "i4"), ("child_b", "i4")])


def _kernel(**options):
    """``njit(cache=True)`` without numba's reference counting (NRT): the arrays come from
    :func:`cut_sequence` and no kernel allocates or returns one, while the atomic reference
    updates on each call that takes arrays would double the time per cut."""
    return njit(cache=True, _nrt=False, **options)


@_kernel()
def _validity(sep, disp):
    """V(sep, disp), as numpy's ``where(disp > 0, (sep - disp) / maximum(sep, disp), 1)``."""
    return (sep - disp) / max(sep, disp) if disp > 0.0 else 1.0


@_kernel()
def _side(p, sep, disp):
    """Validity of a side of a cut of weight ``p`` whose smallest cut and largest edge
    (``-inf`` if none) are ``sep`` and ``disp``."""
    return _validity(min(max(p, 0.0), sep), max(disp, 0.0))


# --------------------------------------------------------------------- segment tree
# t = (edge, cut, kind, pos, query, search, leaves): per position the weight of the edge to
# the parent, the smallest cut at the node, its kind and the other fields; per segment of
# the tree (leaves: blocks) its count and extremes (query) and the search's aggregates.
@_kernel()
def _top(top, nxt, rank, top2, nxt2, rank2):
    """(largest value, next smaller value, largest rank at the largest) of two groups."""
    if top2 > top:
        return top2, max(nxt2, top), rank2
    if top2 < top:
        return top, max(nxt, top2), rank
    return top, max(nxt, nxt2), max(rank, rank2)


@_kernel()
def _refresh_leaf(edge, cut, kind, pos, query, search, leaves, block):
    q, s = query[leaves + block], search[leaves + block]
    q.count, q.edge, q.cut, s.rank, s.subtree, s.low, s.low_edge = 0, -INF, INF, -1, 0, -INF, -INF
    s.leaf, s.leaf_next, s.leaf_rank, s.high, s.high_next, s.high_rank = -INF, -INF, -1, -INF, \
        -INF, -1
    for i in range(block * BLOCK, block * BLOCK + BLOCK):
        if kind[i] != DEAD:
            q.count, q.edge, q.cut = q.count + 1, max(q.edge, edge[i]), min(q.cut, cut[i])
        if kind[i] <= ROOT:
            continue
        x = pos[i]
        s.rank = max(s.rank, x.rank)
        if kind[i] == LEAF:
            s.leaf, s.leaf_next, s.leaf_rank = _top(s.leaf, s.leaf_next, s.leaf_rank, edge[i],
                                                    -INF, x.rank)
        elif kind[i] == HIGH:
            s.high, s.high_next, s.high_rank = _top(s.high, s.high_next, s.high_rank, x.bound,
                                                    -INF, x.rank)
        else:
            s.low, s.low_edge = max(s.low, x.bound), max(s.low_edge, edge[i])
        if kind[i] != LEAF:
            s.subtree = max(s.subtree, x.subtree)


@_kernel()
def _pull(query, search, k, full):
    """Recompute segment ``k`` from its children (``full``: else its count only); returns
    0 if it did not change, 1 if its count alone did, 2 otherwise."""
    qa, qb, q = query[2 * k], query[2 * k + 1], query[k]
    count = qa.count + qb.count
    if not full:
        changed, q.count = count != q.count, count
        return 1 if changed else 0
    sa, sb, s = search[2 * k], search[2 * k + 1], search[k]
    edge, cut = max(qa.edge, qb.edge), min(qa.cut, qb.cut)
    rank, size = max(sa.rank, sb.rank), max(sa.subtree, sb.subtree)
    leaf, leaf_next, leaf_rank = _top(sa.leaf, sa.leaf_next, sa.leaf_rank, sb.leaf,
                                      sb.leaf_next, sb.leaf_rank)
    high, high_next, high_rank = _top(sa.high, sa.high_next, sa.high_rank, sb.high,
                                      sb.high_next, sb.high_rank)
    low, low_edge = max(sa.low, sb.low), max(sa.low_edge, sb.low_edge)
    if (edge == q.edge and cut == q.cut and rank == s.rank and size == s.subtree
            and leaf == s.leaf and leaf_next == s.leaf_next and leaf_rank == s.leaf_rank
            and high == s.high and high_next == s.high_next and high_rank == s.high_rank
            and low == s.low and low_edge == s.low_edge):
        changed, q.count = count != q.count, count
        return 1 if changed else 0
    q.count, q.edge, q.cut, s.rank, s.subtree, s.low, s.low_edge = (count, edge, cut, rank, size,
                                                                  low, low_edge)
    s.leaf, s.leaf_next, s.leaf_rank, s.high, s.high_next, s.high_rank = (
        leaf, leaf_next, leaf_rank, high, high_next, high_rank)
    return 2


@_kernel()
def _refresh(t, a, b):
    """Positions ``[a, b)`` changed: their leaves, then the ancestors, level by level while
    any changes (only the counts once nothing else does)."""
    edge, cut, kind, pos, query, search, leaves = t
    if b <= a:
        return
    lo, hi = a // BLOCK, (b - 1) // BLOCK
    for block in range(lo, hi + 1):
        _refresh_leaf(edge, cut, kind, pos, query, search, leaves, block)
    lo, hi, changed = (leaves + lo) >> 1, (leaves + hi) >> 1, 2
    while lo >= 1 and changed:
        level = 0
        for k in range(lo, hi + 1):
            level = max(level, _pull(query, search, k, changed == 2))
        lo, hi, changed = lo >> 1, hi >> 1, level


@_kernel()
def _refresh_pair(t, i, j):
    """Positions ``i`` and ``j`` changed: their leaves, then the two paths up together."""
    edge, cut, kind, pos, query, search, leaves = t
    _refresh_leaf(edge, cut, kind, pos, query, search, leaves, i // BLOCK)
    if j // BLOCK != i // BLOCK:
        _refresh_leaf(edge, cut, kind, pos, query, search, leaves, j // BLOCK)
    ki, kj, changed = (leaves + i // BLOCK) >> 1, (leaves + j // BLOCK) >> 1, 2
    while ki >= 1 and changed:
        level = _pull(query, search, ki, changed == 2)
        if kj != ki:
            level = max(level, _pull(query, search, kj, changed == 2))
        ki, kj, changed = ki >> 1, kj >> 1, level


@_kernel()
def _kill(t, a, b, buf):
    """The live positions of ``[a, b)`` become dead (dead stretches are skipped)."""
    edge, cut, kind = t[0], t[1], t[2]
    i = _find(t, a, b, FIND_LIVE, 0.0, FIRST, buf)
    while i >= 0:
        end = min(b, i - i % BLOCK + BLOCK)
        for j in range(i, end):
            edge[j], cut[j], kind[j] = -INF, INF, DEAD
        _refresh(t, i, end)
        i = _find(t, end, b, FIND_LIVE, 0.0, FIRST, buf)


@_kernel()
def _aggregate(t, a, b, with_bound):
    """(live count, largest edge, smallest cut) over positions ``[a, b)``, and with
    ``with_bound`` the largest stored bound of ``s V_in`` (1 for a leaf)."""
    edge, cut, kind, pos, query, search, leaves = t
    count, e, c, v = 0, -INF, INF, -INF
    if b <= a:
        return count, e, c, v
    ba, bb = a // BLOCK, (b - 1) // BLOCK
    for part in range(2):  # the partial blocks at both ends, then whole blocks
        for i in range(a, b if ba == bb else ba * BLOCK + BLOCK) if part == 0 else \
                range(b if ba == bb else bb * BLOCK, b):
            if kind[i] != DEAD:
                count, e, c = count + 1, max(e, edge[i]), min(c, cut[i])
                if with_bound and kind[i] != ROOT:
                    v = max(v, 1.0 if kind[i] == LEAF else pos[i].bound)
    lo, hi = leaves + ba + 1, leaves + bb
    while lo < hi:
        for k in (lo if lo & 1 else 0, hi - 1 if hi & 1 else 0):
            if k:
                count, e, c = count + query[k].count, max(e, query[k].edge), min(c, query[k].cut)
                if with_bound:
                    v = max(v, search[k].high, search[k].low, 1.0 if search[k].leaf > -INF else v)
        lo, hi = (lo + 1) >> 1, hi >> 1
    return count, e, c, v


@_kernel()
def _matches(edge, cut, kind, query, k, i, mode, value):
    """Segment ``k`` (``i < 0``) or position ``i`` holds a live position of the mode."""
    if i < 0:
        return query[k].count > 0 if mode == FIND_LIVE else \
            query[k].edge >= value if mode == FIND_EDGE else query[k].cut <= value
    return kind[i] != DEAD and (mode == FIND_LIVE or (edge[i] >= value if mode == FIND_EDGE
                                                      else cut[i] <= value))


@_kernel()
def _find(t, a, b, mode, value, last, buf):
    """First (``last``: last) live position of ``[a, b)`` with edge >= value (``FIND_EDGE``),
    cut <= value (``FIND_CUT``) or any (``FIND_LIVE``); -1 if none."""
    edge, cut, kind, query, leaves = t[0], t[1], t[2], t[4], t[6]
    if b <= a:
        return -1
    ba, bb, n_left, n_right = a // BLOCK, (b - 1) // BLOCK, 0, 0
    lo, hi = leaves + ba + 1, leaves + bb  # the whole blocks between, as segments left to
    while lo < hi:  # right: buf[FIND:FIND + n_left], then buf[FIND + 32:] in reverse
        if lo & 1:
            buf[FIND + n_left], n_left, lo = lo, n_left + 1, lo + 1
        if hi & 1:
            hi -= 1
            buf[FIND + 32 + n_right], n_right = hi, n_right + 1
        lo, hi = lo >> 1, hi >> 1
    total = n_left + n_right + 2  # the partial blocks first and last
    for j in range(total):
        at = total - 1 - j if last else j
        if at == 0 or at == total - 1:
            lo, hi = (a, min(b, ba * BLOCK + BLOCK)) if at == 0 else (max(a, bb * BLOCK), b)
            if ba == bb and at == total - 1:
                continue
        else:
            k = buf[FIND + at - 1] if at <= n_left else buf[FIND + 32 + n_right - at + n_left]
            if not _matches(edge, cut, kind, query, k, NONE, mode, value):
                continue
            while k < leaves:
                first = 2 * k + 1 if last else 2 * k
                k = first if _matches(edge, cut, kind, query, first, NONE, mode, value) else \
                    4 * k + 1 - first
            lo, hi = (k - leaves) * BLOCK, (k - leaves + 1) * BLOCK
        for i in range(hi - 1, lo - 1, -1) if last else range(lo, hi):
            if _matches(edge, cut, kind, query, ZERO, i, mode, value):
                return i
    return -1


@_kernel()
def _cover(lo, hi, leaves):
    """(the lowest segment over positions ``[lo, hi)``, its number of blocks)."""
    first_block, last_block, span = lo // BLOCK, (hi - 1) // BLOCK, 1
    while first_block // span != last_block // span:
        span *= 2
    return (leaves + first_block) // span, span


# --------------------------------------------------------------------- tree paths
@_kernel()
def _head(pos, kind, nodes, u, lo, hi):
    """Head of the heavy path of node ``u`` within the cluster at ``[lo, hi)`` (root at
    ``lo``): the head of the layout, unless that node has left the cluster."""
    h = nodes[u].head
    p = nodes[h].position
    return h if lo <= p < hi and kind[p] != DEAD and pos[p].node == h else pos[lo].node


@_kernel()
def _up(pos, nodes, u):
    return pos[pos[nodes[u].position].parent].node


@_kernel()
def _lca(t, nodes, u, v, lo, hi):
    while True:
        hu, hv = _head(t[3], t[2], nodes, u, lo, hi), _head(t[3], t[2], nodes, v, lo, hi)
        if hu == hv:
            return u if nodes[u].depth <= nodes[v].depth else v
        if nodes[hu].depth < nodes[hv].depth:
            u, v, hu = v, u, hv
        u = _up(t[3], nodes, hu)


@_kernel()
def _path_ranges(t, nodes, u, top_depth, lo, hi, buf, at):
    """The ancestors-or-self of node ``u`` of depth >= ``top_depth``, bottom-up, as position
    ranges ``[buf[j], buf[j + 1]]`` (one per heavy path) from ``buf[at]``; returns the end."""
    while nodes[u].depth >= top_depth:
        h, p = _head(t[3], t[2], nodes, u, lo, hi), nodes[u].position
        buf[at], buf[at + 1] = max(nodes[h].position, p - nodes[u].depth + top_depth), p
        at += 2
        if nodes[h].depth <= top_depth or nodes[h].position == lo:
            break
        u = _up(t[3], nodes, h)
    return at


# --------------------------------------------------------------------- clusters
@_kernel()
def _store(edge, kind, pos, i, s, sv, theta, fref):
    """Store the subtree size ``s`` and the bound of ``s V_in = sv`` at candidate ``i``."""
    pos[i].subtree = s
    if s == 1:
        kind[i], pos[i].bound = LEAF, 1.0
    elif edge[i] >= theta:
        kind[i], pos[i].bound = HIGH, max(sv - s * fref, 0.0)
    else:
        kind[i], pos[i].bound = LOW, max(sv, 0.0)


@_kernel()
def _layout(t, start, base, nodes, edges, ptr, eid, weight, is_cut, scratch):
    """Lay out the cluster of node ``start`` (its component of the forest without the cut
    edges) from position ``base``, rooted at an end of its heaviest edge, heavy children
    first; returns (size, theta, F) of its bounds. ``scratch``: (stack, order, lowest),
    where ``lowest`` shares the memory of the other two."""
    edge, cut, kind, pos = t[0], t[1], t[2], t[3]
    stack, order, lowest = scratch
    root, heaviest = start, -INF
    nodes[start].parent_edge, stack[0], top, count = -1, start, 1, 0
    while top:  # parents, sizes and heavy children from ``start``; the heaviest edge
        top -= 1
        u = stack[top]
        order[count], count, nodes[u].subtree, nodes[u].heavy = u, count + 1, 1, -1
        for j in range(ptr[u], ptr[u + 1]):
            e = eid[j]
            if e != nodes[u].parent_edge and not is_cut[e]:
                v = edges[e, 0] + edges[e, 1] - u
                nodes[v].parent_edge, stack[top], top = e, v, top + 1
                if weight[e] > heaviest:
                    heaviest, root = weight[e], u
    for k in range(count - 1, 0, -1):
        u = order[k]
        p = edges[nodes[u].parent_edge, 0] + edges[nodes[u].parent_edge, 1] - u
        nodes[p].subtree += nodes[u].subtree
        if nodes[p].heavy < 0 or nodes[u].subtree > nodes[nodes[p].heavy].subtree:
            nodes[p].heavy = u
    # Rooted at ``root`` instead: only the path from it to ``start`` turns over (parents,
    # sizes), and the heavy child of a node on it is its first child of largest size.
    u, e, size = root, nodes[root].parent_edge, nodes[root].subtree
    nodes[root].parent_edge, nodes[root].subtree = -1, count
    while e >= 0:
        p = edges[e, 0] + edges[e, 1] - u
        e_up, size_p = nodes[p].parent_edge, nodes[p].subtree
        nodes[p].parent_edge, nodes[p].subtree = e, count - size
        u, e, size = p, e_up, size_p
    u = start
    while True:
        nodes[u].heavy = -1
        for j in range(ptr[u], ptr[u + 1]):
            e = eid[j]
            v = edges[e, 0] + edges[e, 1] - u
            if e != nodes[u].parent_edge and not is_cut[e] and (
                    nodes[u].heavy < 0 or nodes[v].subtree > nodes[nodes[u].heavy].subtree):
                nodes[u].heavy = v
        if u == root:
            break
        u = edges[nodes[u].parent_edge, 0] + edges[nodes[u].parent_edge, 1] - u
    nodes[root].head, nodes[root].depth, stack[0], top, i = root, 0, root, 1, base
    while top:  # the heavy child is pushed last: next in the preorder
        top -= 1
        u = stack[top]
        nu, x, e = nodes[u], pos[i], nodes[u].parent_edge
        nu.position, x.node, x.end, x.subtree, cut[i] = i, u, i + nu.subtree, nu.subtree, nu.cut
        if e < 0:
            edge[i], kind[i], x.rank, x.parent = -INF, ROOT, -1, -1
        else:
            edge[i], kind[i], x.rank = weight[e], LOW, e
            x.parent = nodes[edges[e, 0] + edges[e, 1] - u].position
        i += 1
        for j in range(ptr[u], ptr[u + 1]):
            c = eid[j]
            v = edges[c, 0] + edges[c, 1] - u
            if c != e and not is_cut[c] and v != nu.heavy:
                nodes[v].head, nodes[v].depth, stack[top], top = v, nu.depth + 1, v, top + 1
        if nu.heavy >= 0:
            nodes[nu.heavy].head, nodes[nu.heavy].depth = nu.head, nu.depth + 1
            stack[top], top = nu.heavy, top + 1
    D, S = -INF, INF
    for i in range(base, base + count):
        D, S = max(D, edge[i]), min(S, cut[i])
    theta = min(S, D)
    fref = _side(theta, S, D) if D > 0.0 else 0.0
    _restore(t, base, base + count, lowest, theta, fref)
    return count, theta, fref


@_kernel()
def _restore(t, lo, hi, lowest, theta, fref):
    """Store every bound of the cluster at ``[lo, hi)`` exactly, at ``theta`` and ``F``, from
    its layout (children after parents). Until then each position's bound and size hold the
    largest edge and the live count below it; ``lowest`` (scratch, by position - lo) the
    smallest cut."""
    edge, cut, kind, pos = t[0], t[1], t[2], t[3]
    for i in range(lo, hi):
        pos[i].bound, pos[i].subtree, lowest[i - lo] = -INF, 1, cut[i]
    for i in range(hi - 1, lo, -1):
        if kind[i] != DEAD:
            below, up = pos[i], pos[i].parent
            pos[up].bound = max(pos[up].bound, edge[i], below.bound)
            pos[up].subtree += below.subtree
            lowest[up - lo] = min(lowest[up - lo], lowest[i - lo])
    for i in range(lo + 1, hi):
        if kind[i] != DEAD:
            s = np.int64(pos[i].subtree)
            _store(edge, kind, pos, i, s,
                   s * _side(edge[i], min(cut[i], lowest[i - lo]), pos[i].bound), theta, fref)
    _refresh(t, lo, hi)


@_kernel()
def _inside(t, i, theta, fref):
    """``(s, s V_in)`` of the subtree at position ``i``; the bound stored there becomes exact."""
    edge, cut, kind, pos = t[0], t[1], t[2], t[3]
    count, d_in, m_in, _ = _aggregate(t, i + 1, np.int64(pos[i].end), NO)
    s = count + 1
    sv = s * _side(edge[i], min(cut[i], m_in), d_in)
    old = (kind[i], pos[i].bound, pos[i].subtree)
    _store(edge, kind, pos, i, s, sv, theta, fref)
    if (kind[i], pos[i].bound, pos[i].subtree) != old:
        _refresh_pair(t, i, i)
    return s, sv


@_kernel()
def _evaluate(t, i, f, D, S, chain_d, chain_s):
    """Exact value of the cut above position ``i`` of the cluster of frame ``f``, of largest
    edge and smallest cut ``D`` and ``S``: (r, s V_in, (n - s) V_out, s), the float
    expressions of the definition. Unless ``i`` is an ancestor-or-self of position ``chain_d``
    (the lowest common ancestor of the edges of weight ``D``) or ``chain_s`` (of the nodes of
    cut ``S``), its rest holds both, and its extremes are ``D`` and ``S``."""
    s, sv = _inside(t, i, f.theta, f.fref)
    end = np.int64(t[3][i].end)
    if i <= chain_d < end or i <= chain_s < end:
        _, d1, s1, _ = _aggregate(t, f.lo, i, NO)
        _, d2, s2, _ = _aggregate(t, end, f.hi, NO)
        D, S = max(d1, d2), min(s1, s2)
    tb = (f.n - s) * _side(t[0][i], S, D)
    return sv + tb, sv, tb, s


# --------------------------------------------------------------------- search
@_kernel()
def _key(edge, kind, pos, query, search, k, i, phase, best, tol, n, S, D, corr, slack, exact):
    """Of segment ``k`` (``i < 0``) or position ``i``. Phase 0: an upper bound of the value.
    Phase 1: the largest rank it may hold within ``tol`` of the top, -1 if none above the best
    rank ``best[2]``. Leaves, and HIGH
    candidates when ``exact``, have exact values that grow with their key (edge, bound): those
    at a segment's largest key are all within the tolerance when those at its next smaller key
    are not, and then their largest rank is known."""
    if i >= 0:  # a position as a segment of one
        x, what = pos[i], kind[i]
        rank = leaf_rank = high_rank = x.rank
        size, leaf_next, high_next, top_edge, low_edge = x.subtree, -INF, -INF, edge[i], edge[i]
        leaf = edge[i] if what == LEAF else -INF
        high, low = (x.bound if what == HIGH else -INF), (x.bound if what == LOW else -INF)
    else:
        s, top_edge = search[k], query[k].edge
        rank, size, leaf, leaf_next, leaf_rank = s.rank, s.subtree, s.leaf, s.leaf_next, s.leaf_rank
        high, high_next, high_rank, low, low_edge = s.high, s.high_next, s.high_rank, s.low, \
            s.low_edge
    if D <= 0.0:  # every value is n
        return float(n) if phase == 0 else float(rank)
    g = _side(top_edge, S, D)
    leaf_value = 1.0 + (n - 1) * _side(leaf, S, D) if leaf > -INF else -INF
    high_value = high + n * g + size * corr + (0.0 if exact else slack) if high > -INF else -INF
    low_value = low + max(n - size, 1) * _side(low_edge, S, D) + slack if low > -INF else -INF
    if phase == 0:
        return max(leaf_value, high_value, low_value)
    cutoff, key = best[0] - tol, -1
    if low_value >= cutoff and rank > best[2]:
        key = rank
    if leaf_value >= cutoff:
        if leaf_next == -INF or 1.0 + (n - 1) * _side(leaf_next, S, D) < cutoff:
            key = max(key, leaf_rank if leaf_rank > best[2] else -1)
        elif rank > best[2]:
            key = max(key, rank)
    if high_value >= cutoff:
        if exact and (high_next == -INF or high_next + n * g + size * corr < cutoff):
            key = max(key, high_rank if high_rank > best[2] else -1)
        elif rank > best[2]:
            key = max(key, rank)
    return key


@_kernel()
def _range_bound(t, ranges, first, end, lo, hi, n, D, slack):
    """Upper bound of the values of the strict ancestors of every edge of weight ``D`` at the
    position ranges ``ranges[first:end]`` (pairs, bottom-up; each consecutive on a heavy path,
    top first). Their ``V_in <= V(p, D)``; the rest of the top holds all of the others' rests
    but its own edge, so below the top ``V_out <= V(p, max(D_rest(top), p_top))``."""
    edge, pos = t[0], t[3]
    top, bottom, p_high, inside = ranges[end - 2], ranges[first + 1], -INF, -INF
    for j in range(first, end, 2):
        a = ranges[j] + (1 if j == end - 2 else 0)  # the top alone, below
        if a <= ranges[j + 1]:
            _, e, _, v = _aggregate(t, a, ranges[j + 1] + 1, YES)
            p_high, inside = max(p_high, e), max(inside, v)
    n_top = _aggregate(t, top, np.int64(pos[top].end), NO)[0]
    n_bottom = _aggregate(t, bottom, np.int64(pos[bottom].end), NO)[0]
    rest = max(_aggregate(t, lo, top, NO)[1], _aggregate(t, np.int64(pos[top].end), hi, NO)[1])
    bound = n_top * (edge[top] / D - 1.0) + (n - n_top) * _side(edge[top], INF, rest)
    if p_high > -INF:
        inside = min(inside, n_bottom * (p_high / D - 1.0))
        v = _side(p_high, INF, max(rest, edge[top]))
        bound = max(bound, inside + (n - (n_bottom if v >= 0.0 else n_top)) * v)
    return bound + slack


@_kernel()
def _offer(t, f, i, phase, best, D, S, chain_d, chain_s):
    """Evaluate candidate ``i``: phase 0 raises the top ``best[0]``, phase 1 keeps the largest
    rank within the tolerance of it (``best[1:7]``: position, rank, r, s V_in,
    (n - s) V_out, s). Phase 0's values are kept for phase 1 (``best[CACHE:]``, the first
    ``CACHED``; ``best[7]`` of them, ``best[EVALUATED]`` in all)."""
    at = -1
    for j in range(int(best[7])):
        at = CACHE + 5 * j if best[CACHE + 5 * j] == i else at
    if at >= 0:
        r, sv, tb, s = best[at + 1], best[at + 2], best[at + 3], best[at + 4]
    else:
        r, sv, tb, s = _evaluate(t, i, f, D, S, chain_d, chain_s)
        f.work += 8
        best[EVALUATED] += 1.0 if phase == 0 else 0.0
        if phase == 0 and best[7] < CACHED:
            at = CACHE + 5 * int(best[7])
            best[at], best[at + 1], best[at + 2], best[at + 3], best[at + 4] = i, r, sv, tb, s
            best[7] += 1
    if phase == 0:
        best[0] = max(best[0], r)
    elif r >= best[0] - f.tol and t[3][i].rank > best[2]:
        best[1], best[2], best[3], best[4], best[5], best[6] = i, t[3][i].rank, r, sv, tb, s


@_kernel()
def _passes(bound, phase, best, floor, tol):
    """Whether a bound lets its candidates matter; phase 0 keeps the largest it sets aside."""
    if phase == 1:
        return bound >= best[0] - tol
    if bound >= floor and bound > best[0]:
        return True
    best[PRUNED] = max(best[PRUNED], bound)
    return False


@_kernel()
def _set_aside(work, best, bound, tol, k, fb, nb):
    """Phase 0 of the branch and bound does not explore segment ``k`` (``k < 0``: position
    ``fb``) of bound ``bound``: kept for phase 1 if it is within the tolerance of the top
    (while there is room; else counted as any bound set aside)."""
    if bound >= best[0] - tol and work[ASIDE] < ASIDES:
        at = ASIDE + 1 + 3 * work[ASIDE]
        work[at], work[at + 1], work[at + 2] = k, fb, nb
        best[ASIDE_KEYS + work[ASIDE]], work[ASIDE] = bound, work[ASIDE] + 1
    else:
        best[PRUNED] = max(best[PRUNED], bound)


@_kernel()
def _search(t, f, nodes, work, best):
    """Best cut of the cluster of frame ``f``: its position, or -1 if the cluster is not cut
    (best gain below ``-2 tol``, not forced). Candidates below ``term - 3 tol`` never matter:
    they can be neither the cut nor the top of a cut cluster."""
    edge, _, kind, pos, query, search, leaves = t
    lo, hi, n = f.lo, f.hi, f.n
    _, D, S, _ = _aggregate(t, lo, hi, NO)
    f.stable, f.last_d, f.last_s = f.stable + 1 if D == f.last_d and S == f.last_s else 0, D, S
    corr = max(0.0, f.fref - _side(f.theta, S, D)) if D > 0.0 else 0.0
    slack = 1e-11 * n  # rounding of the bounds; far below the tolerance 1e-9 n
    # F = 0 (S >= D) and bounds stored at F = 0: a HIGH candidate's value is its bound.
    exact = f.fref == 0.0 and D > 0.0 and _side(min(S, D), S, D) == 0.0
    floor, root = -INF if f.forced else f.term - 3.0 * f.tol, pos[lo].node
    lca_d = lca_s = root  # the chains: ancestors of every edge of weight D / node of cut S
    if D > 0.0:
        lca_d = _lca(t, nodes, pos[_find(t, lo, hi, FIND_EDGE, D, FIRST, work)].node,
                     pos[_find(t, lo, hi, FIND_EDGE, D, LAST, work)].node, lo, hi)
    if S < D:  # else no edge exceeds S: an S-chain member has the generic value
        lca_s = _lca(t, nodes, pos[_find(t, lo, hi, FIND_CUT, S, FIRST, work)].node,
                     pos[_find(t, lo, hi, FIND_CUT, S, LAST, work)].node, lo, hi)
    chain_d = nodes[lca_d].position if lca_d != root else -1
    chain_s = nodes[lca_s].position if lca_s != root else -1
    top_depth, end_d = nodes[root].depth + 1, CHAIN
    if lca_d != root and _up(pos, nodes, lca_d) != root:
        end_d = _path_ranges(t, nodes, _up(pos, nodes, lca_d), top_depth, lo, hi, work, CHAIN)
    end = end_d
    if lca_s != root and lca_s != lca_d:
        stop = nodes[_lca(t, nodes, lca_s, lca_d, lo, hi)].depth + 1 if lca_d != root else top_depth
        end = _path_ranges(t, nodes, lca_s, stop, lo, hi, work, end_d)
    best[0], best[1], best[2], best[7], best[EVALUATED], best[PRUNED] = -INF, -1.0, -1.0, 0.0, \
        0.0, -INF
    work[ASIDE] = 0
    k0, span = _cover(lo, hi, leaves)
    first_block, last_block, chain_bound = lo // BLOCK, (hi - 1) // BLOCK, INF
    for phase in range(2):
        if phase == 1 and best[0] == -INF:
            return -1
        if phase == 1 and not f.forced and best[0] - f.term < -2.0 * f.tol:
            return -1  # no candidate within the tolerance of the top is a cut
        seeded = DFS
        if phase == 1 and best[PRUNED] < best[0] - f.tol and best[EVALUATED] == best[7]:
            for j in range(int(best[7])):  # phase 0 evaluated every candidate within the
                _offer(t, f, np.int64(best[CACHE + 5 * j]), phase, best, D, S, chain_d,
                       chain_s)  # tolerance and kept them all but those it set aside
            for j in range(work[ASIDE]):
                at = ASIDE + 1 + 3 * j
                k, fb, nb = work[at], work[at + 1], work[at + 2]
                if best[ASIDE_KEYS + j] < best[0] - f.tol:
                    continue
                key = _key(edge, kind, pos, query, search, k if k >= 0 else ZERO,
                           NONE if k >= 0 else fb, phase, best, f.tol, n, S, D, corr, slack,
                           exact)
                if k < 0 and key > best[2]:
                    _offer(t, f, fb, phase, best, D, S, chain_d, chain_s)
                elif k >= 0:
                    work[seeded], work[seeded + 1], work[seeded + 2] = k, fb, nb
                    best[KEYS + (seeded - DFS) // 3], seeded = key, seeded + 3
            if seeded == DFS:
                break
        if lca_d != root and seeded == DFS:
            _offer(t, f, chain_d, phase, best, D, S, chain_d, chain_s)
        # the D-chain: all its ranges at once (the same bound in both phases), then range by
        if phase == 0 and end_d > CHAIN:  # range, bisected
            chain_bound = _range_bound(t, work, CHAIN, end_d, lo, hi, n, D, slack)
        whole = seeded == DFS and end_d > CHAIN and _passes(chain_bound, phase, best, floor, f.tol)
        for j in range(CHAIN, end_d if whole else CHAIN, 2):
            work[BISECT], work[BISECT + 1], sp = work[j], work[j + 1], BISECT + 2
            while sp > BISECT:
                sp -= 2
                a, b = work[sp], work[sp + 1]
                f.work += 6
                if b - a < 3:
                    for c in range(a, b + 1):
                        _offer(t, f, c, phase, best, D, S, chain_d, chain_s)
                elif _passes(_range_bound(t, work, sp, sp + 2, lo, hi, n, D, slack), phase, best,
                             floor, f.tol):
                    m = (a + b) // 2
                    work[sp], work[sp + 1], work[sp + 2], work[sp + 3], sp = a, m, m + 1, b, sp + 4
        for j in range(end_d, end if seeded == DFS else end_d, 2):  # the S-chain: members
            c = _find(t, work[j], work[j + 1] + 1, FIND_EDGE, S, FIRST, work)  # with an edge
            while c >= 0:  # <= S have the generic value; for the others V_out <= V(p, D)
                v = _side(edge[c], INF, D)
                bound = 1.0 + (n - 1) * v if kind[c] == LEAF else \
                    pos[c].bound + max(n - pos[c].subtree, 1) * v + slack
                if edge[c] > S and _passes(bound, phase, best, floor, f.tol):
                    _offer(t, f, c, phase, best, D, S, chain_d, chain_s)
                c = _find(t, c + 1, work[j + 1] + 1, FIND_EDGE, S, FIRST, work)
        # branch and bound over the segment tree, from the lowest segment over the cluster
        # (phase 1 after a phase 0 that left only segments set aside: from those)
        sp = seeded
        if seeded == DFS:
            sp = DFS + 3
            work[DFS], work[DFS + 1], work[DFS + 2] = k0, first_block - first_block % span, span
            best[KEYS] = _key(edge, kind, pos, query, search, k0, NONE, phase, best, f.tol, n,
                              S, D, corr, slack, exact)
        while sp > DFS:
            sp -= 3
            k, fb, nb, key = work[sp], work[sp + 1], work[sp + 2], best[KEYS + (sp - DFS) // 3]
            if fb > last_block or fb + nb <= first_block or search[k].rank < 0:
                continue
            if not (key >= floor and key > best[0] if phase == 0 else key > best[2]):
                if phase == 0:  # the key when pushed is still a bound
                    _set_aside(work, best, key, f.tol, k, fb, nb)
                continue
            f.work += 1
            if nb > 1:
                nb //= 2
                right = _key(edge, kind, pos, query, search, 2 * k + 1, NONE, phase, best,
                             f.tol, n, S, D, corr, slack, exact)
                left = _key(edge, kind, pos, query, search, 2 * k, NONE, phase, best, f.tol,
                            n, S, D, corr, slack, exact)
                first = 2 * k + 1 if right > left else 2 * k  # explored first: pushed last
                for child in (4 * k + 1 - first, first):
                    work[sp], work[sp + 1], work[sp + 2] = child, fb + nb * (child & 1), nb
                    best[KEYS + (sp - DFS) // 3], sp = right if child & 1 else left, sp + 3
                continue
            for i in range(max(lo, fb * BLOCK), min(hi, fb * BLOCK + BLOCK)):
                if kind[i] >= HIGH:
                    key = _key(edge, kind, pos, query, search, ZERO, i, phase, best, f.tol, n,
                               S, D, corr, slack, exact)
                    if key >= floor and key > best[0] if phase == 0 else key > best[2]:
                        _offer(t, f, i, phase, best, D, S, chain_d, chain_s)
                    elif phase == 0:
                        _set_aside(work, best, key, f.tol, NONE, i, ZERO)
    return -1 if not f.forced and best[3] - f.term < -2.0 * f.tol else int(best[1])


# --------------------------------------------------------------------- cuts
@_kernel()
def _open(g, lo, hi, n, term, tol, forced, record, side, arena, theta, fref):
    g.lo, g.hi, g.n, g.term, g.tol, g.forced, g.record, g.side = (lo, hi, n, term, tol, forced,
                                                                  record, side)
    g.arena, g.theta, g.fref, g.work, g.cut = arena, theta, fref, 0, -1
    g.last_d, g.last_s, g.stable = -INF, -INF, 0


@_kernel()
def _cut(t, frames, depth, arena, i, record, best, nodes, edges, ptr, eid, weight, is_cut,
         scratch, work):
    """Make the cut above position ``i`` of the top frame's cluster. The larger side stays in
    the frame; the smaller one, if it has two nodes or more, is pushed as a new frame: a
    subtree in place, a rest laid out again at ``arena``. Returns the new depth and arena."""
    edge, cut, kind, pos = t[0], t[1], t[2], t[3]
    f = frames[depth - 1]
    w, end, up, n, s = edge[i], np.int64(pos[i].end), np.int64(pos[i].parent), f.n, int(best[6])
    is_cut[pos[i].rank], f.forced = 1, 0
    nodes[pos[i].node].cut = min(nodes[pos[i].node].cut, w)
    nodes[pos[up].node].cut = min(nodes[pos[up].node].cut, w)
    if 2 * s <= n:  # the subtree: its ancestors are looked at again once it is done
        _, f.cut_max, f.cut_min, _ = _aggregate(t, i, end, NO)
        f.cut, f.cut_end, f.cut_weight, f.cut_parent = i, end, w, up
        f.n, f.term, f.record, f.side = n - s, best[5], record, 1
        cut[up] = min(cut[up], w)
        if s < 2:  # a leaf: done
            edge[i], cut[i], kind[i] = -INF, INF, DEAD
            _refresh_pair(t, up, i)
            return depth, arena
        edge[i], cut[i], kind[i] = -INF, min(cut[i], w), ROOT
        _refresh_pair(t, up, i)
        _open(frames[depth], i, end, np.int64(s), best[4], f.tol, ZERO, record, ZERO, NONE, f.theta,
              f.fref)
        return depth + 1, arena
    # the rest: laid out again above, from its root node
    rest, lo, hi = np.int64(pos[f.lo].node), f.lo, f.hi
    edge[i], cut[i], kind[i] = -INF, min(cut[i], w), ROOT
    if n - s == 1:  # the old root alone
        edge[lo], cut[lo], kind[lo] = -INF, INF, DEAD
        _refresh_pair(t, lo, i)
    else:
        _kill(t, lo, i, work)
        _kill(t, end, hi, work)
        _refresh_pair(t, i, i)
    f.lo, f.hi, f.n, f.term, f.record, f.side = i, end, s, best[4], record, 0
    if n - s < 2:
        return depth, arena
    count, theta, fref = _layout(t, rest, arena, nodes, edges, ptr, eid, weight, is_cut,
                                 scratch)
    _open(frames[depth], arena, arena + count, count, best[5], f.tol, ZERO, record, LAST, arena,
          theta, fref)
    return depth + 1, arena + count


@_kernel()
def _resume(t, f, nodes, work):
    """The subtree cut below ``f.cut_parent`` is done (dead). An ancestor's bound stays valid
    unless the cut took the largest edge below it or its smallest cut; those ancestors (a run
    up from the cut, below the lowest one holding an edge >= the largest removed, strictly
    below it, and a cut <= the smallest removed) are evaluated again where ``V(p, L)``, with
    ``L`` a lower bound of their dispersion, may pass the bound; then the cut's parent."""
    pos, up, top = t[3], f.cut_parent, -1
    if up != f.lo:
        node, cover = pos[up].node, t[4][_cover(f.lo, f.hi, t[6])[0]]
        for mode in range(FIND_EDGE, FIND_CUT + 1 if f.cut_weight > f.cut_min else FIND_CUT):
            value, depth = f.cut_max if mode == FIND_EDGE else f.cut_min, -1
            if mode == FIND_CUT and top < 0:
                break  # the run goes up to the root whatever the cuts
            if cover.edge >= value if mode == FIND_EDGE else cover.cut <= value:  # else none
                j = _find(t, f.lo, f.cut, mode, value, LAST, work)
                if j >= 0 and pos[j].end > f.cut:  # an ancestor of the cut
                    depth = nodes[pos[j].node].depth - (1 if mode == FIND_EDGE else 0)
                elif j >= 0:
                    depth = nodes[_lca(t, nodes, pos[j].node, node, f.lo, f.hi)].depth
                j = _find(t, f.cut_end, f.hi, mode, value, FIRST, work)
                if j >= 0:
                    depth = max(depth, nodes[_lca(t, nodes, pos[j].node, node, f.lo, f.hi)].depth)
            top = depth if mode == FIND_EDGE else min(top, depth)
        low = max(_aggregate(t, up + 1, np.int64(pos[up].end), NO)[1], t[0][up])
        threshold = (1.0 + f.fref) * low * (1.0 - 1e-9) if low > 0.0 else -INF
        end = _path_ranges(t, nodes, _up(pos, nodes, node),
                           max(top + 1, nodes[pos[f.lo].node].depth + 1), f.lo, f.hi, work, PATH)
        for j in range(PATH, end, 2):
            c = _find(t, work[j], work[j + 1] + 1, FIND_EDGE, threshold, FIRST, work)
            while c >= 0:
                _inside(t, c, f.theta, f.fref)
                f.work += 8
                c = _find(t, c + 1, work[j + 1] + 1, FIND_EDGE, threshold, FIRST, work)
        _inside(t, up, f.theta, f.fref)
    f.cut = -1


@_kernel()
def _clusters(t, n, edges, weight, tie_rtol, nodes, ptr, eid, is_cut, scratch, frames,
              records, components, work, best):
    """Evaluate every cluster of the split tree; returns the numbers of records (clusters that
    are cut) and of components."""
    order, lowest = scratch[1], scratch[2]
    ptr[:] = 0
    for e in range(edges.shape[0]):
        ptr[edges[e, 0] + 1], ptr[edges[e, 1] + 1] = ptr[edges[e, 0] + 1] + 1, \
            ptr[edges[e, 1] + 1] + 1
    for u in range(n):
        ptr[u + 1] += ptr[u]
        order[u], nodes[u].depth, nodes[u].cut = ptr[u], -1, INF
    for e in range(edges.shape[0]):
        for u in (edges[e, 0], edges[e, 1]):
            eid[order[u]], order[u] = e, order[u] + 1
    n_records = n_components = ZERO
    for start in range(n):  # components by smallest node, laid out at 0 one after the other
        if nodes[start].depth >= 0:
            continue
        e = eid[ptr[start]] if ptr[start + 1] - ptr[start] == 1 else -1
        other = edges[e, 0] + edges[e, 1] - start if e >= 0 else -1
        if ptr[start + 1] == ptr[start] or (other >= 0 and ptr[other + 1] - ptr[other] == 1):
            # an isolated node, or two nodes: their one cut has value 1 * 1 + 1 * 1
            components[n_components, 0] = 1 if other < 0 else 2
            components[n_components, 1] = -1 if other < 0 else n_records
            nodes[start].depth, n_components = 0, n_components + 1
            if other >= 0:
                r = records[n_records]
                r.gain, r.rank, r.child_a, r.child_b = 2.0 - (-2.0), eid[ptr[start]], -1, -1
                nodes[other].depth, n_records = 0, n_records + 1
            continue
        count, theta, fref = _layout(t, start, ZERO, nodes, edges, ptr, eid, weight, is_cut,
                                     scratch)
        components[n_components, 0], components[n_components, 1] = count, -1
        _open(frames[0], ZERO, count, count, -float(count), tie_rtol * count, LAST,
              -1 - n_components, ZERO, NONE, theta, fref)
        depth, arena = LAST, count
        while depth:
            f = frames[depth - 1]
            if f.cut >= 0:
                _resume(t, f, nodes, work)
            if f.n >= 2 and f.work > f.hi - f.lo + 64 and f.stable >= 4:
                _, D, S, _ = _aggregate(t, f.lo, f.hi, NO)  # theta and F no longer change:
                theta = min(S, D)  # the bounds are stored again at them
                fref = _side(theta, S, D) if D > 0.0 else 0.0
                if theta != f.theta or fref != f.fref:
                    _restore(t, f.lo, f.hi, lowest, theta, fref)
                    f.theta, f.fref = theta, fref
                f.work = 0
            i = _search(t, f, nodes, work, best) if f.n >= 2 else -1
            if i < 0:
                _kill(t, f.lo, f.hi, work)
                arena, depth = f.arena if f.arena >= 0 else arena, depth - 1
                continue
            r = records[n_records]
            r.gain, r.rank, r.child_a, r.child_b = best[3] - f.term, t[3][i].rank, -1, -1
            if f.record < 0:
                components[-1 - f.record, 1] = n_records
            elif f.side == 0:
                records[f.record].child_a = n_records
            else:
                records[f.record].child_b = n_records
            depth, arena = _cut(t, frames, depth, arena, i, n_records, best, nodes, edges, ptr,
                                eid, weight, is_cut, scratch, work)
            n_records += 1
        n_components += 1
    return n_records, n_components


# --------------------------------------------------------------------- replay, labels
@_kernel()
def _better(rank, a, b):
    return b if a < 0 or (b >= 0 and rank[b] > rank[a]) else a


@_kernel()
def _set(tree, rank, slot, present):
    k = tree.size // 2 + slot
    tree[k] = slot if present else -1
    while k > 1:
        k >>= 1
        tree[k] = _better(rank, tree[2 * k], tree[2 * k + 1])


@_kernel()
def _replay(records, components, n_components, tie_rtol, order, slot, gain, rank, tree, held,
            few, cuts, path):
    """Algorithm 1's greedy over the split tree, component by component: the cluster of
    largest gain is cut (among gains within ``tol`` of it, the one of largest rank) while the
    index is below 1 - tol and, after the forced first cut, the gain is at least -tol. The
    records sorted by gain (``order``, inverse ``slot``) are the leaves of a segment tree that
    keeps the present slot of largest rank, once more than ``FEW`` clusters wait at a time
    (until then they are scanned). Returns the number of cuts."""
    size, total, k = tree.size // 2, 0.0, 0
    for c in range(n_components):
        total += 1.0 if components[c, 0] == 1 else -float(components[c, 0])
    for c in range(n_components):
        n_c = components[c, 0]
        if n_c < 2:
            continue
        tol, s_comp, first, n_held = tie_rtol * n_c, -float(n_c), True, 0
        few[0], n_few = slot[components[c, 1]], 1
        while s_comp < n_c - tol and (n_few > 0 if n_held == 0 else tree[1] >= 0):
            if n_held == 0:  # scanned: the largest gain, then the largest rank within tol
                top = -INF
                for j in range(n_few):
                    top = max(top, gain[few[j]])
                if not first and top < -tol:
                    break
                at = -1
                for j in range(n_few):
                    if gain[few[j]] >= top - tol and (at < 0 or rank[few[j]] > rank[few[at]]):
                        at = j
                pick, few[at], n_few = few[at], few[n_few - 1], n_few - 1
            else:
                j = 1
                while j < size:  # the present slot of largest gain
                    j = 2 * j + 1 if tree[2 * j + 1] >= 0 else 2 * j
                if not first and gain[j - size] < -tol:
                    break
                lo, hi, pick = np.searchsorted(gain, gain[j - size] - tol) + size, 2 * size, NONE
                while lo < hi:
                    if lo & 1:
                        pick, lo = _better(rank, pick, tree[lo]), lo + 1
                    if hi & 1:
                        hi -= 1
                        pick = _better(rank, pick, tree[hi])
                    lo, hi = lo >> 1, hi >> 1
                _set(tree, rank, pick, NO)
            r, first = records[order[pick]], False
            s_comp, total = s_comp + r.gain, total + r.gain
            cuts[k], path[k], k = r.rank, total, k + 1
            for child in (r.child_a, r.child_b):
                if child < 0:
                    continue
                if n_held == 0 and n_few < FEW:
                    few[n_few], n_few = slot[child], n_few + 1
                    continue
                if n_held == 0:  # too many to scan: into the tree
                    for j in range(n_few):
                        held[j] = few[j]
                        _set(tree, rank, few[j], YES)
                    n_held, n_few = n_few, 0
                held[n_held], n_held = slot[child], n_held + 1
                _set(tree, rank, slot[child], YES)
        for j in range(n_held):
            _set(tree, rank, held[j], NO)
    return k


@_kernel()
def _labels(n, edges, cuts, is_cut, parent, labels):
    """Components of the forest without the cut edges, numbered by smallest node."""
    is_cut[:] = 0
    for e in cuts:
        is_cut[e] = 1
    for u in range(n):
        parent[u] = u
    for e in range(edges.shape[0]):
        if not is_cut[e]:
            a, b = edges[e, 0], edges[e, 1]
            while parent[a] != a:
                parent[a] = a = parent[parent[a]]
            while parent[b] != b:
                parent[b] = b = parent[parent[b]]
            parent[max(a, b)] = min(a, b)  # a set's root is its smallest node
    count = 0
    for u in range(n):
        r = u
        while parent[r] != r:
            r = parent[r]
        labels[u], count = (count, count + 1) if r == u else (labels[r], count)


def cut_sequence(n, edges, weights, tie_rtol):
    """DBMSTClu on a forest: (indices of the cut edges in the order cut, the index after each
    cut in node units, labels). ``edges`` sorted lexicographically, ``u < v``."""
    edges = original = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.size and weights.min() < 0.0:  # negative (noisy) weights count as 0,
        weights = np.maximum(weights, 0.0)  # also where a cut makes one a separation
    # numba compiles every kernel again for read-only arrays (a memory-mapped tree)
    if not edges.flags.writeable:
        edges = original = edges.copy()
    if not weights.flags.writeable:
        weights = weights.copy()
    m = edges.shape[0]
    if n >= RENAME:
        # Beyond the caches, nodes numbered in breadth-first order (each component from its
        # smallest node, in that order; the edges keep their numbers and order) keep the
        # neighbours of the engine's walks close in memory: the same work on the same numbers
        # of edges, 5-25 % faster on trees of 10^6 nodes. int32: the memory stays under 2x the CSR.
        indptr, neighbour = symmetric_csr(edges[:, 0], edges[:, 1], n)[:2]
        order = breadth_first_order(indptr, neighbour)[0]
        del indptr, neighbour  # freed before the engine's arrays: not in the peak
        renamed = np.empty(n, dtype=np.int32)
        renamed[order] = np.arange(n, dtype=np.int32)
        del order
        edges = renamed[edges]
        del renamed
    blocks = -(-(2 * n + 2 * BLOCK) // BLOCK)  # the frames above a component take at most n
    leaves = 1 << (blocks - 1).bit_length()
    t = (np.full(blocks * BLOCK, -INF), np.full(blocks * BLOCK, INF),
         np.zeros(blocks * BLOCK, dtype=np.int8), np.zeros(blocks * BLOCK, dtype=POSITION),
         np.zeros(2 * leaves, dtype=QUERY), np.zeros(2 * leaves, dtype=SEARCH), leaves)
    t[4]["edge"], t[4]["cut"] = -INF, INF
    for name in ("rank", "leaf_rank", "high_rank", "leaf", "leaf_next", "high", "high_next",
                 "low", "low_edge"):
        t[5][name] = -1 if "rank" in name else -INF
    nodes = np.zeros(n, dtype=NODE)
    ptr = np.empty(n + 1, dtype=np.int32 if 2 * m < 2**31 else np.int64)
    eid = np.empty(2 * m, dtype=np.int32)  # the edges at each node, by node
    is_cut, lowest = np.zeros(m, np.uint8), np.empty(n)  # stack and order share lowest's memory
    stack = lowest.view(np.int32)[:n]
    order = lowest.view(np.int32)[n:] if ptr.dtype == np.int32 else np.empty(n, np.int64)
    frames = np.zeros(80, dtype=FRAME)  # a frame's cluster is at most half the one below
    records = np.zeros(max(m, 1), dtype=RECORD)
    components = np.zeros((n - m, 2), dtype=np.int64)  # a forest has n - m components
    work, best = np.zeros(4096, dtype=np.int64), np.zeros(512)
    n_records, n_components = _clusters(t, n, edges, weights, tie_rtol, nodes, ptr, eid,
                                        is_cut, (stack, order, lowest), frames, records,
                                        components, work, best)
    del t, nodes, eid, stack, ptr
    records = records[:n_records]
    by_gain = np.argsort(records["gain"], kind="stable")
    slot = np.empty(n_records, dtype=np.int64)
    slot[by_gain] = np.arange(n_records)
    cuts, path, labels = np.empty(m, dtype=np.int64), np.empty(m), np.empty(n, dtype=np.int64)
    k = _replay(records, components, n_components, tie_rtol, by_gain, slot,
                records["gain"][by_gain], records["rank"][by_gain].astype(np.int64),
                np.full(2 << max(n_records - 1, 0).bit_length(), -1, dtype=np.int64),
                np.empty(max(n_records, 1), dtype=np.int64), np.empty(FEW, dtype=np.int64), cuts,
                path)
    _labels(n, original, cuts[:k], is_cut, order, labels)
    return cuts[:k], path[:k], labels
