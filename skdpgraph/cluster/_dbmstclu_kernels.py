"""Compiled DBMSTClu engine (numba): every cluster's best cut, then the greedy replay.

Imported lazily by :func:`skdpgraph.cluster.dbmstclu`. The kernels are plain loops over
typed record arrays allocated by the caller (:func:`cut_sequence`); they draw nothing random.

*Split tree.* Cutting an edge of cluster ``C`` changes ``C``'s term of the index only, so
the best cut of every cluster and the two clusters it makes are found first (depth first,
the smaller side before the larger), and Algorithm 1's greedy order is replayed over that
tree afterwards (:func:`_replay`).

*Positions.* A cluster occupies a range of positions in a heavy-child-first DFS preorder:
the subtree of a candidate is a range, its rest a prefix plus a suffix, and the ancestors of
a node are O(log n) ranges (one per heavy path). A segment tree over blocks of positions
keeps counts, extremes and bounds; cut nodes stay in place as dead positions. The larger
side of a cut stays in place; a smaller subtree side stays in place as its own cluster, a
smaller rest side is rebuilt (re-rooted) above the others. A cluster is rebuilt, rooted at
an end of its heaviest edge, when its searches have cost more than a rebuild.

*Search.* With ``N``, ``D``, ``S`` the cluster's size, dispersion and separation, a
candidate whose rest holds an edge of weight ``D`` and a node with incident cut ``S`` has
value ``r = b + (N - s) g(p)``, ``b = s V_in``, ``g(p) = V(min(p, S), D) <= 0``. Each
position stores an upper bound of ``b`` (``b - s F`` for the edges of weight at least
``theta = min(S, D)``, whose ``g`` is the constant ``F``), clamped at 0: a cut below a node
that leaves its dispersion and smallest cut as they were can only lower ``b`` below that
bound, so only the ancestors whose extremes the cut took are looked at again. Branch and
bound over the segment tree finds the largest value, then the largest rank within the tie
tolerance; leaves are bounded exactly. The other candidates (ancestors of every edge of
weight ``D`` or of every node of cut ``S``) are two root paths, searched range by range
with the rest's dispersion bounded by that of the range's top.
"""

import numpy as np
from numba import njit

BLOCK = 16  # positions per leaf of the segment tree
DEAD, ROOT, HIGH, LOW, LEAF = 0, 1, 2, 3, 4  # position kinds; HIGH/LOW: inner candidates
INF = np.inf

POSITION = np.dtype([("edge", "f8"), ("cut", "f8"), ("bound", "f8"), ("subtree", "i4"),
                     ("rank", "i4"), ("node", "i4"), ("end", "i4"), ("parent", "i4"),
                     ("kind", "i1")], align=True)
SEGMENT = np.dtype([("count", "i4"), ("rank", "i4"), ("subtree", "i4"), ("leaf_rank", "i4"),
                    ("edge", "f8"), ("cut", "f8"), ("leaf", "f8"), ("leaf_next", "f8"),
                    ("high", "f8"), ("low", "f8"), ("low_edge", "f8")], align=True)
NODE = np.dtype([("position", "i4"), ("head", "i4"), ("depth", "i4"), ("parent_edge", "i4"),
                 ("subtree", "i4"), ("heavy", "i4"), ("cut", "f8"), ("inside", "f8"),
                 ("lowest", "f8")], align=True)
FRAME = np.dtype([("lo", "i8"), ("hi", "i8"), ("root", "i8"), ("n", "i8"), ("term", "f8"),
                  ("tol", "f8"), ("forced", "i8"), ("record", "i8"), ("side", "i8"),
                  ("arena", "i8"), ("theta", "f8"), ("fref", "f8"), ("work", "i8"),
                  ("cut", "i8"), ("cut_end", "i8"), ("cut_size", "i8"), ("cut_max", "f8"),
                  ("cut_min", "f8"), ("cut_weight", "f8"), ("cut_parent", "i8")], align=True)
RECORD = np.dtype([("gain", "f8"), ("rank", "i4"), ("child_a", "i4"), ("child_b", "i4")],
                  align=True)
EDGE_AT_LEAST, CUT_AT_MOST, LIVE = 0, 1, 2  # modes of _find


@njit(cache=True)
def _validity(sep, disp):
    """V(sep, disp), as numpy's ``where(disp > 0, (sep - disp) / maximum(sep, disp), 1)``."""
    if disp > 0.0:
        return (sep - disp) / (sep if sep > disp else disp)
    return 1.0


@njit(cache=True)
def _rest_validity(p, sep, disp):
    """Validity of the side of a cut of weight ``p`` whose other edges and cuts are ``disp``, ``sep``."""
    return _validity(min(max(p, 0.0), sep), max(disp, 0.0))


# ----------------------------------------------------------------- segment tree
@njit(cache=True)
def _leaf_merge(top, nxt, rank, top2, nxt2, rank2):
    """Largest leaf edge, the next smaller one and the largest rank of a leaf at the largest,
    of two groups of leaves."""
    if top2 > top:
        return top2, max(nxt2, top), rank2
    if top2 < top:
        return top, max(nxt, top2), rank
    return top, max(nxt, nxt2), max(rank, rank2)


@njit(cache=True)
def _refresh_leaf(pos, seg, leaves, block):
    count, rank, size, leaf_rank = 0, -1, 0, -1
    edge, cut, leaf, leaf_next, high, low, low_edge = -INF, INF, -INF, -INF, -INF, -INF, -INF
    for i in range(block * BLOCK, block * BLOCK + BLOCK):
        x = pos[i]
        if x.kind == DEAD:
            continue
        count += 1
        edge = max(edge, x.edge)
        cut = min(cut, x.cut)
        if x.kind == ROOT:
            continue
        rank = max(rank, x.rank)
        if x.kind == LEAF:
            leaf, leaf_next, leaf_rank = _leaf_merge(leaf, leaf_next, leaf_rank, x.edge, -INF,
                                                     x.rank)
            continue
        size = max(size, x.subtree)
        if x.kind == HIGH:
            high = max(high, x.bound)
        else:
            low = max(low, x.bound)
            low_edge = max(low_edge, x.edge)
    s = seg[leaves + block]
    s.count, s.rank, s.subtree, s.edge, s.cut = count, rank, size, edge, cut
    s.leaf, s.leaf_next, s.leaf_rank = leaf, leaf_next, leaf_rank
    s.high, s.low, s.low_edge = high, low, low_edge


@njit(cache=True)
def _pull(seg, k):
    s, a, b = seg[k], seg[2 * k], seg[2 * k + 1]
    s.count = a.count + b.count
    s.rank, s.subtree = max(a.rank, b.rank), max(a.subtree, b.subtree)
    s.edge, s.cut = max(a.edge, b.edge), min(a.cut, b.cut)
    s.leaf, s.leaf_next, s.leaf_rank = _leaf_merge(a.leaf, a.leaf_next, a.leaf_rank, b.leaf,
                                                   b.leaf_next, b.leaf_rank)
    s.high, s.low, s.low_edge = max(a.high, b.high), max(a.low, b.low), max(a.low_edge, b.low_edge)


@njit(cache=True)
def _touch(pos, seg, leaves, i):
    """Position ``i`` changed: its leaf and the leaf's ancestors."""
    block = i // BLOCK
    _refresh_leaf(pos, seg, leaves, block)
    k = (leaves + block) >> 1
    while k >= 1:
        _pull(seg, k)
        k >>= 1


@njit(cache=True)
def _refresh(pos, seg, leaves, a, b):
    """Positions ``[a, b)`` changed."""
    if b <= a:
        return
    lo, hi = a // BLOCK, (b - 1) // BLOCK
    for block in range(lo, hi + 1):
        _refresh_leaf(pos, seg, leaves, block)
    lo, hi = (leaves + lo) >> 1, (leaves + hi) >> 1
    while lo >= 1:
        for k in range(lo, hi + 1):
            _pull(seg, k)
        lo, hi = lo >> 1, hi >> 1


@njit(cache=True)
def _own(x):
    """(count, edge, cut, bound of ``s V_in``) of one position."""
    if x.kind == DEAD:
        return 0, -INF, INF, -INF
    if x.kind == ROOT:
        return 1, x.edge, x.cut, -INF
    return 1, x.edge, x.cut, 1.0 if x.kind == LEAF else x.bound


@njit(cache=True)
def _merge(s, count, edge, cut, bound):
    return (count + s.count, max(edge, s.edge), min(cut, s.cut),
            max(bound, s.high, s.low, 1.0 if s.leaf > -INF else -INF))


@njit(cache=True)
def _aggregate(pos, seg, leaves, a, b):
    """(live count, largest edge, smallest cut, largest bound of ``s V_in``) over ``[a, b)``."""
    count, edge, cut, bound = 0, -INF, INF, -INF
    if b <= a:
        return count, edge, cut, bound
    ba, bb = a // BLOCK, (b - 1) // BLOCK
    for i in range(a, b if ba == bb else (ba + 1) * BLOCK):
        c, e, q, v = _own(pos[i])
        count, edge, cut, bound = count + c, max(edge, e), min(cut, q), max(bound, v)
    if ba == bb:
        return count, edge, cut, bound
    for i in range(bb * BLOCK, b):
        c, e, q, v = _own(pos[i])
        count, edge, cut, bound = count + c, max(edge, e), min(cut, q), max(bound, v)
    lo, hi = leaves + ba + 1, leaves + bb
    while lo < hi:
        if lo & 1:
            count, edge, cut, bound = _merge(seg[lo], count, edge, cut, bound)
            lo += 1
        if hi & 1:
            hi -= 1
            count, edge, cut, bound = _merge(seg[hi], count, edge, cut, bound)
        lo, hi = lo >> 1, hi >> 1
    return count, edge, cut, bound


@njit(cache=True)
def _matches(x, mode, value):
    if x.kind == DEAD:
        return False
    if mode == EDGE_AT_LEAST:
        return x.edge >= value
    return mode == LIVE or x.cut <= value


@njit(cache=True)
def _segment_matches(s, mode, value):
    if mode == EDGE_AT_LEAST:
        return s.edge >= value
    if mode == CUT_AT_MOST:
        return s.cut <= value
    return s.count > 0


@njit(cache=True)
def _scan(pos, a, b, mode, value, last):
    for t in range(b - a):
        i = b - 1 - t if last else a + t
        if _matches(pos[i], mode, value):
            return i
    return -1


@njit(cache=True)
def _find(pos, seg, leaves, a, b, mode, value, last, buf):
    """First (``last``: last) live position of ``[a, b)`` with edge >= value
    (``EDGE_AT_LEAST``) or cut <= value (``CUT_AT_MOST``); -1 if none."""
    if b <= a:
        return -1
    ba, bb = a // BLOCK, (b - 1) // BLOCK
    if ba == bb:
        return _scan(pos, a, b, mode, value, last)
    j = _scan(pos, bb * BLOCK, b, mode, value, True) if last else \
        _scan(pos, a, (ba + 1) * BLOCK, mode, value, False)
    if j >= 0:
        return j
    n_left = n_right = 0  # the middle blocks' canonical nodes, left ones in order
    lo, hi = leaves + ba + 1, leaves + bb
    while lo < hi:
        if lo & 1:
            buf[n_left] = lo
            n_left += 1
            lo += 1
        if hi & 1:
            hi -= 1
            buf[32 + n_right] = hi
            n_right += 1
        lo, hi = lo >> 1, hi >> 1
    total = n_left + n_right
    for t in range(total):
        at = total - 1 - t if last else t
        k = buf[at] if at < n_left else buf[32 + n_right - 1 - (at - n_left)]
        if _segment_matches(seg[k], mode, value):
            while k < leaves:
                first, second = (2 * k + 1, 2 * k) if last else (2 * k, 2 * k + 1)
                k = first if _segment_matches(seg[first], mode, value) else second
            block = k - leaves
            return _scan(pos, block * BLOCK, block * BLOCK + BLOCK, mode, value, last)
    return _scan(pos, a, (ba + 1) * BLOCK, mode, value, True) if last else \
        _scan(pos, bb * BLOCK, b, mode, value, False)


@njit(cache=True)
def _kill(pos, seg, leaves, a, b):
    """Positions ``[a, b)`` become dead."""
    if b <= a:
        return
    lo, hi = a // BLOCK, (b - 1) // BLOCK
    for block in range(lo, hi + 1):
        if seg[leaves + block].count == 0:
            continue
        for i in range(max(a, block * BLOCK), min(b, block * BLOCK + BLOCK)):
            x = pos[i]
            x.kind, x.edge, x.cut, x.bound, x.rank = DEAD, -INF, INF, -INF, -1
        _refresh_leaf(pos, seg, leaves, block)
    lo, hi = (leaves + lo) >> 1, (leaves + hi) >> 1
    while lo >= 1:
        for k in range(lo, hi + 1):
            _pull(seg, k)
        lo, hi = lo >> 1, hi >> 1


# ------------------------------------------------------------------ tree paths
@njit(cache=True)
def _head(pos, nodes, u, lo, hi):
    """Head of the heavy path of ``u`` within the cluster at ``[lo, hi)`` (its root is at
    ``lo``): the head of the layout, unless that node has left the cluster."""
    h = nodes[u].head
    p = nodes[h].position
    return h if lo <= p < hi and pos[p].node == h and pos[p].kind != DEAD else pos[lo].node


@njit(cache=True)
def _up(pos, nodes, u):
    """Parent of node ``u``."""
    return pos[pos[nodes[u].position].parent].node


@njit(cache=True)
def _lca(pos, nodes, u, v, lo, hi):
    while True:
        hu, hv = _head(pos, nodes, u, lo, hi), _head(pos, nodes, v, lo, hi)
        if hu == hv:
            return u if nodes[u].depth <= nodes[v].depth else v
        if nodes[hu].depth < nodes[hv].depth:
            u, v, hu = v, u, hv
        u = _up(pos, nodes, hu)


@njit(cache=True)
def _path_ranges(pos, nodes, u, top_depth, lo, hi, buf, at):
    """Ancestors-or-self of node ``u`` of depth >= ``top_depth``, as position ranges
    ``[buf[at + 2j], buf[at + 2j + 1]]`` (one per heavy path); returns the end of the list."""
    while nodes[u].depth >= top_depth:
        h = _head(pos, nodes, u, lo, hi)
        p = nodes[u].position
        if nodes[h].depth < top_depth:
            buf[at], buf[at + 1] = p - (nodes[u].depth - top_depth), p
            return at + 2
        buf[at], buf[at + 1] = nodes[h].position, p
        at += 2
        if nodes[h].position == lo:
            break
        u = _up(pos, nodes, h)
    return at


# ------------------------------------------------------------------ clusters
@njit(cache=True)
def _classify(x, s, sv, theta, fref):
    """Store ``s`` and the bound of ``s V_in = sv`` of candidate ``x`` (see the module)."""
    x.subtree = s
    if s == 1:
        x.kind, x.bound = LEAF, 1.0
    elif x.edge >= theta:
        x.kind, x.bound = HIGH, max(sv - s * fref, 0.0)
    else:
        x.kind, x.bound = LOW, max(sv, 0.0)


@njit(cache=True)
def _build(start, base, pos, seg, leaves, nodes, edges, ptr, nbr, eid, weight, is_cut,
           stack, order):
    """Lay out the cluster of node ``start`` (its component of the forest without the
    cut edges) from position ``base``, rooted at an end of its heaviest edge, in
    heavy-child-first preorder; returns (size, theta, F) of its bounds."""
    nodes[start].parent_edge = -1
    stack[0], top, count, heaviest, root = start, 1, 0, -INF, start
    while top:
        top -= 1
        u = stack[top]
        count += 1
        for t in range(ptr[u], ptr[u + 1]):
            e = eid[t]
            if e != nodes[u].parent_edge and not is_cut[e]:
                nodes[nbr[t]].parent_edge = e
                stack[top] = nbr[t]
                top += 1
                if weight[e] > heaviest:
                    heaviest, root = weight[e], u
    nodes[root].parent_edge = -1
    stack[0], top, k = root, 1, 0
    while top:  # preorder from the root, then sizes and heavy children
        top -= 1
        u = stack[top]
        order[k] = u
        k += 1
        nodes[u].subtree, nodes[u].heavy = 1, -1
        for t in range(ptr[u], ptr[u + 1]):
            e = eid[t]
            if e != nodes[u].parent_edge and not is_cut[e]:
                nodes[nbr[t]].parent_edge = e
                stack[top] = nbr[t]
                top += 1
    for k in range(count - 1, 0, -1):
        u = order[k]
        e = nodes[u].parent_edge
        p = edges[e, 0] + edges[e, 1] - u
        nodes[p].subtree += nodes[u].subtree
        h = nodes[p].heavy
        if h < 0 or nodes[u].subtree > nodes[h].subtree:
            nodes[p].heavy = u
    nodes[root].head, nodes[root].depth = root, 0
    stack[0], top, i = root, 1, base
    while top:  # heavy child last on the stack: next in the preorder
        top -= 1
        u = stack[top]
        nu, x = nodes[u], pos[i]
        nu.position = i
        x.node, x.end, x.subtree, x.cut, x.bound = u, i + nu.subtree, nu.subtree, nu.cut, -INF
        e = nu.parent_edge
        if e < 0:
            x.kind, x.edge, x.rank, x.parent = ROOT, -INF, -1, -1
        else:
            x.kind, x.edge, x.rank = LOW, weight[e], e
            x.parent = nodes[edges[e, 0] + edges[e, 1] - u].position
        i += 1
        for t in range(ptr[u], ptr[u + 1]):
            e, v = eid[t], nbr[t]
            if e != nu.parent_edge and not is_cut[e] and v != nu.heavy:
                nodes[v].head, nodes[v].depth = v, nu.depth + 1
                stack[top] = v
                top += 1
        if nu.heavy >= 0:
            nodes[nu.heavy].head, nodes[nu.heavy].depth = nu.head, nu.depth + 1
            stack[top] = nu.heavy
            top += 1
    end = base + count
    D, S = -INF, INF
    for i in range(base, end):
        x = pos[i]
        nodes[x.node].inside, nodes[x.node].lowest = -INF, x.cut
        D, S = max(D, x.edge), min(S, x.cut)
    for i in range(end - 1, base, -1):  # subtree extremes, children before parents
        x = pos[i]
        below, above = nodes[x.node], nodes[pos[x.parent].node]
        above.inside = max(above.inside, x.edge, below.inside)
        above.lowest = min(above.lowest, below.lowest)
    theta = min(S, D)
    fref = _rest_validity(theta, S, D) if D > 0.0 else 0.0
    for i in range(base + 1, end):
        x = pos[i]
        nu = nodes[x.node]
        _classify(x, x.subtree, x.subtree * _rest_validity(x.edge, min(x.cut, nu.lowest), nu.inside),
                  theta, fref)
    _refresh(pos, seg, leaves, base, end)
    return count, theta, fref


@njit(cache=True)
def _inside(pos, seg, leaves, i, theta, fref):
    """``(s, s V_in)`` of the subtree at position ``i``; its stored bound becomes exact."""
    x = pos[i]
    count, d_in, m_in, _ = _aggregate(pos, seg, leaves, i + 1, x.end)
    s = count + 1
    sv = s * _rest_validity(x.edge, min(x.cut, m_in), d_in)
    kind, bound, size = x.kind, x.bound, x.subtree
    _classify(x, s, sv, theta, fref)
    if x.kind != kind or x.bound != bound or x.subtree != size:
        _touch(pos, seg, leaves, i)
    return s, sv


@njit(cache=True)
def _evaluate(pos, seg, leaves, i, f, D, S, chain_d, chain_s):
    """Exact value of the cut above position ``i`` of the cluster of frame ``f``, whose
    largest edge and smallest cut are ``D`` and ``S``: (r, s V_in, (n - s) V_out, s), the
    float expressions of the definition. Unless ``i`` is an ancestor-or-self of position
    ``chain_d`` (the lowest common ancestor of the edges of weight ``D``) or ``chain_s``
    (of the nodes of cut ``S``), its rest holds both and its extremes are ``D`` and ``S``."""
    s, sv = _inside(pos, seg, leaves, i, f.theta, f.fref)
    x = pos[i]
    if i <= chain_d < x.end or i <= chain_s < x.end:
        _, d1, s1, _ = _aggregate(pos, seg, leaves, f.lo, i)
        _, d2, s2, _ = _aggregate(pos, seg, leaves, x.end, f.hi)
        D, S = max(d1, d2), min(s1, s2)
    tb = (f.n - s) * _rest_validity(x.edge, S, D)
    return sv + tb, sv, tb, s


# ------------------------------------------------------------------ search
CHAIN, BISECT, DFS, PATH = 64, 256, 1024, 2048  # areas of the work buffer


@njit(cache=True)
def _leaf_value(p, n, S, D):
    """Exact value of cutting a leaf of edge ``p`` whose rest holds an edge of weight ``D``
    and a node of cut ``S``: the float expression of :func:`_evaluate`."""
    return 1.0 + (n - 1) * _rest_validity(p, S, D)


@njit(cache=True)
def _inner_bound(s, n, S, D, corr, slack):
    """Upper bound of the value of the inner candidates of segment ``s`` whose rest holds an
    edge of weight ``D`` and a node of cut ``S`` (see the module)."""
    if D <= 0.0:
        return float(n) if s.high > -INF or s.low > -INF else -INF  # every value is n
    bound = -INF
    if s.high > -INF:
        bound = s.high + n * _rest_validity(s.edge, S, D) + s.subtree * corr + slack
    if s.low > -INF:
        bound = max(bound, s.low + max(n - s.subtree, 1) * _rest_validity(s.low_edge, S, D)
                    + slack)
    return bound


@njit(cache=True)
def _segment_key(s, phase, best, floor, tol, n, S, D, corr, slack):
    """Phase 0: the segment's upper bound of the value, -inf if it cannot raise the top.
    Phase 1: the largest rank it may hold within ``tol`` of the top, -1 if none above the
    best rank so far; a segment's leaves at its largest leaf edge are all within the
    tolerance when its next smaller leaf edge is not, and then their largest rank is known."""
    inner = _inner_bound(s, n, S, D, corr, slack)
    leaf = _leaf_value(s.leaf, n, S, D) if s.leaf > -INF else -INF
    if phase == 0:
        bound = max(inner, leaf)
        return bound if bound >= floor and bound > best[0] else -INF
    low, key = best[0] - tol, -1
    if inner >= low and s.rank > best[2]:
        key = s.rank
    if leaf >= low:
        if s.leaf_next == -INF or _leaf_value(s.leaf_next, n, S, D) < low:
            key = max(key, s.leaf_rank if s.leaf_rank > best[2] else -1)
        elif s.rank > best[2]:
            key = max(key, s.rank)
    return key


@njit(cache=True)
def _position_bound(x, n, S, D, corr, slack):
    if D <= 0.0:
        return float(n)
    g = _rest_validity(x.edge, S, D)
    if x.kind == LEAF:
        return 1.0 + (n - 1) * g
    if x.kind == HIGH:
        return x.bound + n * g + x.subtree * corr + slack
    return x.bound + max(n - x.subtree, 1) * g + slack


@njit(cache=True)
def _range_bound(pos, seg, leaves, a, b, below_d, lo, hi, n, D, slack):
    """Upper bound of the values of the candidates at positions ``[a, b]`` (consecutive on a
    heavy path, ``a`` on top): their rests hold the rest of ``a``. ``below_d``: all are
    strict ancestors of every edge of weight ``D``, so ``V_in <= V(p, D)``."""
    n_top = _aggregate(pos, seg, leaves, a, pos[a].end)[0]
    n_bottom = _aggregate(pos, seg, leaves, b, pos[b].end)[0]
    _, p_high, _, inside = _aggregate(pos, seg, leaves, a, b + 1)
    if below_d:
        inside = min(inside, n_bottom * (p_high / D - 1.0))
    rest = max(_aggregate(pos, seg, leaves, lo, a)[1],
               _aggregate(pos, seg, leaves, pos[a].end, hi)[1])
    v = _rest_validity(p_high, INF, rest)
    return inside + (n - (n_bottom if v >= 0.0 else n_top)) * v + slack


@njit(cache=True)
def _offer(pos, seg, leaves, f, i, phase, best, D, S, chain_d, chain_s):
    """Evaluate candidate ``i``; phase 0 raises the top value ``best[0]``, phase 1 keeps the
    largest rank within the tolerance of it (``best[1:7]``: position, rank, r, s V_in,
    (n - s) V_out, s)."""
    r, sv, tb, s = _evaluate(pos, seg, leaves, i, f, D, S, chain_d, chain_s)
    f.work += 8
    if phase == 0:
        best[0] = max(best[0], r)
    elif r >= best[0] - f.tol and pos[i].rank > best[2]:
        best[1], best[2], best[3], best[4], best[5], best[6] = i, pos[i].rank, r, sv, tb, s


@njit(cache=True)
def _passes(bound, phase, best, floor, tol):
    if phase == 0:
        return bound >= floor and bound > best[0]
    return bound >= best[0] - tol


@njit(cache=True)
def _search(f, pos, seg, leaves, nodes, work, best):
    """Best cut of the cluster of frame ``f``: its position, or -1 when the cluster is not
    cut (its best gain is below ``-2 tol`` and it is not forced). Candidates below
    ``term - 3 tol`` never matter: they can be neither the cut nor the top of a cut cluster."""
    lo, hi, n = f.lo, f.hi, f.n
    _, D, S, _ = _aggregate(pos, seg, leaves, lo, hi)
    corr = max(0.0, f.fref - _rest_validity(f.theta, S, D)) if D > 0.0 else 0.0
    slack = 1e-11 * n  # rounding of the bounds; far below the tolerance 1e-9 n
    floor = -INF if f.forced else f.term - 3.0 * f.tol
    root = pos[f.root].node
    lca_d = lca_s = root
    if D > 0.0:
        a = _find(pos, seg, leaves, lo, hi, EDGE_AT_LEAST, D, False, work)
        b = _find(pos, seg, leaves, lo, hi, EDGE_AT_LEAST, D, True, work)
        lca_d = _lca(pos, nodes, pos[a].node, pos[b].node, lo, hi)
    if S < INF:
        a = _find(pos, seg, leaves, lo, hi, CUT_AT_MOST, S, False, work)
        b = _find(pos, seg, leaves, lo, hi, CUT_AT_MOST, S, True, work)
        lca_s = _lca(pos, nodes, pos[a].node, pos[b].node, lo, hi)
    chain_d = nodes[lca_d].position if lca_d != root else -1
    chain_s = nodes[lca_s].position if lca_s != root else -1
    top_depth, end = nodes[root].depth + 1, CHAIN
    if lca_d != root and _up(pos, nodes, lca_d) != root:
        end = _path_ranges(pos, nodes, _up(pos, nodes, lca_d), top_depth, lo, hi, work, end)
    end_d = end
    if lca_s != root and lca_s != lca_d:
        stop = nodes[_lca(pos, nodes, lca_s, lca_d, lo, hi)].depth + 1 if lca_d != root else top_depth
        end = _path_ranges(pos, nodes, lca_s, stop, lo, hi, work, end)
    best[0], best[1], best[2] = -INF, -1.0, -1.0
    first_block, last_block = lo // BLOCK, (hi - 1) // BLOCK
    for phase in range(2):
        if phase == 1 and best[0] == -INF:
            return -1
        if lca_d != root:
            _offer(pos, seg, leaves, f, nodes[lca_d].position, phase, best, D, S, chain_d, chain_s)
        for j in range(CHAIN, end, 2):  # the chains, range by range
            sp = BISECT + 2
            work[BISECT], work[BISECT + 1] = work[j], work[j + 1]
            while sp > BISECT:
                sp -= 2
                a, b = work[sp], work[sp + 1]
                f.work += 6
                if b - a < 3 or _passes(_range_bound(pos, seg, leaves, a, b, j < end_d, lo, hi,
                                                     n, D, slack), phase, best, floor, f.tol):
                    if b - a < 3:
                        for c in range(a, b + 1):
                            _offer(pos, seg, leaves, f, c, phase, best, D, S, chain_d, chain_s)
                    else:
                        m = (a + b) // 2
                        work[sp], work[sp + 1], work[sp + 2], work[sp + 3] = a, m, m + 1, b
                        sp += 4
        sp = DFS + 3  # branch and bound over the segment tree
        work[DFS], work[DFS + 1], work[DFS + 2] = 1, 0, leaves
        while sp > DFS:
            sp -= 3
            k, fb, nb = work[sp], work[sp + 1], work[sp + 2]
            if fb > last_block or fb + nb <= first_block or seg[k].rank < 0:
                continue
            key = _segment_key(seg[k], phase, best, floor, f.tol, n, S, D, corr, slack)
            if key == -INF or (phase == 1 and key <= best[2]):
                continue
            f.work += 1
            if nb > 1:
                half = nb // 2
                right = (_segment_key(seg[2 * k + 1], phase, best, floor, f.tol, n, S, D, corr,
                                      slack)
                         > _segment_key(seg[2 * k], phase, best, floor, f.tol, n, S, D, corr,
                                        slack))
                if right:  # explored first: pushed last
                    work[sp], work[sp + 1], work[sp + 2] = 2 * k, fb, half
                    work[sp + 3], work[sp + 4], work[sp + 5] = 2 * k + 1, fb + half, half
                else:
                    work[sp], work[sp + 1], work[sp + 2] = 2 * k + 1, fb + half, half
                    work[sp + 3], work[sp + 4], work[sp + 5] = 2 * k, fb, half
                sp += 6
                continue
            for i in range(max(lo, fb * BLOCK), min(hi, fb * BLOCK + BLOCK)):
                x = pos[i]
                if (x.kind >= HIGH and (phase == 0 or x.rank > best[2])
                        and _passes(_position_bound(x, n, S, D, corr, slack), phase, best,
                                    floor, f.tol)):
                    _offer(pos, seg, leaves, f, i, phase, best, D, S, chain_d, chain_s)
    if not f.forced and best[3] - f.term < -2.0 * f.tol:
        return -1
    return int(best[1])


# ------------------------------------------------------------------ cuts
@njit(cache=True)
def _open(g, lo, hi, n, term, tol, forced, record, side, arena, theta, fref):
    g.lo, g.hi, g.root, g.n, g.term, g.tol, g.forced = lo, hi, lo, n, term, tol, forced
    g.record, g.side, g.arena, g.theta, g.fref, g.work, g.cut = (record, side, arena, theta,
                                                                  fref, 0, -1)


@njit(cache=True)
def _cut(frames, depth, arena_top, i, record, best, pos, seg, leaves, nodes, edges, ptr, nbr,
         eid, weight, is_cut, stack, order):
    """Make the cut above position ``i`` of the top frame's cluster. The larger side stays in
    the frame; the smaller one, if it has two nodes or more, is pushed as a new frame (a
    subtree in place, a rest rebuilt at ``arena_top``). Returns the new depth and arena top."""
    f = frames[depth - 1]
    x = pos[i]
    w, end, up, n, s = x.edge, x.end, x.parent, f.n, int(best[6])
    is_cut[x.rank], f.forced = 1, 0
    y = pos[up]
    nodes[x.node].cut = min(nodes[x.node].cut, w)
    nodes[y.node].cut = min(nodes[y.node].cut, w)
    if 2 * s <= n:
        _, f.cut_max, f.cut_min, _ = _aggregate(pos, seg, leaves, i, end)
        f.cut, f.cut_end, f.cut_size, f.cut_weight, f.cut_parent = i, end, s, w, up
        f.n, f.term, f.record, f.side = n - s, best[5], record, 1
        y.cut = min(y.cut, w)
        _touch(pos, seg, leaves, up)
        x.kind, x.edge, x.cut = ROOT, -INF, min(x.cut, w)
        _touch(pos, seg, leaves, i)
        if s < 2:
            _kill(pos, seg, leaves, i, end)
            return depth, arena_top
        _open(frames[depth], i, end, s, best[4], f.tol, 0, record, 0, -1, f.theta, f.fref)
        return depth + 1, arena_top
    rest = pos[f.root].node
    _kill(pos, seg, leaves, f.lo, i)
    _kill(pos, seg, leaves, end, f.hi)
    x.kind, x.edge, x.cut = ROOT, -INF, min(x.cut, w)
    _touch(pos, seg, leaves, i)
    f.lo, f.hi, f.root, f.n, f.term, f.record, f.side = i, end, i, s, best[4], record, 0
    if n - s < 2:
        return depth, arena_top
    count, theta, fref = _build(rest, arena_top, pos, seg, leaves, nodes, edges, ptr, nbr, eid,
                                weight, is_cut, stack, order)
    _open(frames[depth], arena_top, arena_top + count, count, best[5], f.tol, 0, record, 1,
          arena_top, theta, fref)
    return depth + 1, arena_top + count


@njit(cache=True)
def _holder(pos, seg, leaves, nodes, f, node, mode, value, work):
    """Depth of the lowest ancestor-or-self of ``node`` that still holds an edge >= value
    strictly below it (``EDGE_AT_LEAST``) or a cut <= value (``CUT_AT_MOST``); -1 if none.
    The cut subtree ``[f.cut, f.cut_end)`` is dead."""
    depth = -1
    j = _find(pos, seg, leaves, f.lo, f.cut, mode, value, True, work)
    if j >= 0:
        if pos[j].end > f.cut:  # an ancestor of the cut
            depth = nodes[pos[j].node].depth - (mode == EDGE_AT_LEAST)
        else:
            depth = nodes[_lca(pos, nodes, pos[j].node, node, f.lo, f.hi)].depth
    j = _find(pos, seg, leaves, f.cut_end, f.hi, mode, value, False, work)
    if j >= 0:
        depth = max(depth, nodes[_lca(pos, nodes, pos[j].node, node, f.lo, f.hi)].depth)
    return depth


@njit(cache=True)
def _resume(f, pos, seg, leaves, nodes, work):
    """The subtree cut below ``f.cut_parent`` is done (dead). An ancestor's bound stays valid
    unless the cut took the largest edge below it or its smallest cut: those ancestors (a
    run up from the cut) are evaluated again where ``V(p, L)``, with ``L`` a lower bound of
    their dispersion, may pass the bound; then the cut's parent itself."""
    up = f.cut_parent
    f.cut = -1 if up == f.root else f.cut
    if f.cut < 0:
        return
    root, y = pos[f.root].node, pos[up]
    top = _holder(pos, seg, leaves, nodes, f, y.node, EDGE_AT_LEAST, f.cut_max, work)
    if f.cut_weight > f.cut_min:
        top = min(top, _holder(pos, seg, leaves, nodes, f, y.node, CUT_AT_MOST, f.cut_min, work))
    f.cut = -1
    low = max(_aggregate(pos, seg, leaves, up + 1, y.end)[1], y.edge)
    threshold = (1.0 + f.fref) * low * (1.0 - 1e-9) if low > 0.0 else -INF
    end = _path_ranges(pos, nodes, _up(pos, nodes, y.node), max(top + 1, nodes[root].depth + 1),
                       f.lo, f.hi, work, PATH)
    for j in range(PATH, end, 2):
        a = work[j]
        while True:
            c = _find(pos, seg, leaves, a, work[j + 1] + 1, EDGE_AT_LEAST, threshold, False, work)
            if c < 0:
                break
            _inside(pos, seg, leaves, c, f.theta, f.fref)
            f.work += 8
            a = c + 1
    _inside(pos, seg, leaves, up, f.theta, f.fref)


@njit(cache=True)
def _clusters(n, edges, weight, tie_rtol, pos, seg, leaves, nodes, ptr, nbr, eid, is_cut,
              stack, order, frames, records, components, work, best):
    """Evaluate every cluster of the split tree; returns the numbers of records (cut
    clusters) and components."""
    m = edges.shape[0]
    ptr[:] = 0
    for e in range(m):
        ptr[edges[e, 0] + 1] += 1
        ptr[edges[e, 1] + 1] += 1
    for u in range(n):
        ptr[u + 1] += ptr[u]
        order[u] = ptr[u]
        nodes[u].depth, nodes[u].cut = -1, INF
    for e in range(m):
        for u in (edges[e, 0], edges[e, 1]):
            nbr[order[u]], eid[order[u]] = edges[e, 0] + edges[e, 1] - u, e
            order[u] += 1
    n_records = n_components = 0
    for start in range(n):
        if nodes[start].depth >= 0:
            continue
        count, theta, fref = _build(start, 0, pos, seg, leaves, nodes, edges, ptr, nbr, eid,
                                    weight, is_cut, stack, order)
        components[n_components, 0], components[n_components, 1] = count, -1
        _open(frames[0], 0, count, count, -float(count), tie_rtol * count, 1,
              -1 - n_components, 0, -1, theta, fref)
        depth, arena_top = 1, count
        while depth:
            f = frames[depth - 1]
            if f.cut >= 0:
                _resume(f, pos, seg, leaves, nodes, work)
            if f.n >= 2 and f.work > 4 * (f.hi - f.lo) + 64:  # rebuilt in place
                start_node = pos[f.root].node
                _kill(pos, seg, leaves, f.lo, f.hi)
                count, f.theta, f.fref = _build(start_node, f.lo, pos, seg, leaves, nodes, edges,
                                                ptr, nbr, eid, weight, is_cut, stack, order)
                f.hi, f.root, f.work = f.lo + count, f.lo, 0
            i = _search(f, pos, seg, leaves, nodes, work, best) if f.n >= 2 else -1
            if i < 0:
                _kill(pos, seg, leaves, f.lo, f.hi)
                arena_top = f.arena if f.arena >= 0 else arena_top
                depth -= 1
                continue
            r = records[n_records]
            r.gain, r.rank, r.child_a, r.child_b = best[3] - f.term, pos[i].rank, -1, -1
            if f.record < 0:
                components[-1 - f.record, 1] = n_records
            elif f.side == 0:
                records[f.record].child_a = n_records
            else:
                records[f.record].child_b = n_records
            depth, arena_top = _cut(frames, depth, arena_top, i, n_records, best, pos, seg,
                                    leaves, nodes, edges, ptr, nbr, eid, weight, is_cut, stack,
                                    order)
            n_records += 1
        n_components += 1
    return n_records, n_components


# ------------------------------------------------------------------ replay, labels
@njit(cache=True)
def _better(tree, rank, a, b):
    if a < 0:
        return b
    if b < 0 or rank[a] > rank[b]:
        return a
    return b


@njit(cache=True)
def _set(tree, rank, size, slot, present):
    k = size + slot
    tree[k] = slot if present else -1
    k >>= 1
    while k:
        tree[k] = _better(tree, rank, tree[2 * k], tree[2 * k + 1])
        k >>= 1


@njit(cache=True)
def _replay(records, components, n_components, tie_rtol, order, slot, gain, rank, tree, size,
            held, cuts, path):
    """Algorithm 1's greedy over the split tree, component by component: the cluster of
    largest gain is cut (among gains within ``tol`` of it, the one of largest rank) while the
    index is below 1 - tol and, after the forced first cut, the gain is at least -tol.
    ``order`` sorts the records by gain, ``slot`` inverts it; the segment tree over slots
    keeps the present slot of largest rank. Returns the number of cuts."""
    total = 0.0
    for c in range(n_components):
        total += 1.0 if components[c, 0] == 1 else -float(components[c, 0])
    k = 0
    for c in range(n_components):
        n_c = components[c, 0]
        if n_c < 2:
            continue
        tol = tie_rtol * n_c
        n_held = 1
        held[0] = slot[components[c, 1]]
        _set(tree, rank, size, held[0], True)
        s_comp, first = -float(n_c), True
        while s_comp < n_c - tol and tree[1] >= 0:
            t = 1
            while t < size:  # the present slot of largest gain
                t = 2 * t + 1 if tree[2 * t + 1] >= 0 else 2 * t
            top = gain[t - size]
            if not first and top < -tol:
                break
            lo, hi, pick = np.searchsorted(gain, top - tol) + size, 2 * size, -1
            while lo < hi:
                if lo & 1:
                    pick = _better(tree, rank, pick, tree[lo])
                    lo += 1
                if hi & 1:
                    hi -= 1
                    pick = _better(tree, rank, pick, tree[hi])
                lo, hi = lo >> 1, hi >> 1
            _set(tree, rank, size, pick, False)
            first = False
            r = records[order[pick]]
            s_comp += r.gain
            total += r.gain
            cuts[k], path[k] = r.rank, total
            k += 1
            for child in (r.child_a, r.child_b):
                if child >= 0:
                    held[n_held] = slot[child]
                    n_held += 1
                    _set(tree, rank, size, slot[child], True)
        for j in range(n_held):
            _set(tree, rank, size, held[j], False)
    return k


@njit(cache=True)
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
                parent[a] = parent[parent[a]]
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            parent[max(a, b)] = min(a, b)
    count = 0
    for u in range(n):  # a root is the smallest node of its set: seen before its members
        r = u
        while parent[r] != r:
            r = parent[r]
        if r == u:
            labels[u] = count
            count += 1
        else:
            labels[u] = labels[r]
    return count


def cut_sequence(n, edges, weights, tie_rtol):
    """DBMSTClu's cuts of a forest: (edge indices in the order cut, index after each cut in
    node units, labels). ``edges`` sorted lexicographically, ``u < v``."""
    edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    m = edges.shape[0]
    blocks = max(1, -(-(2 * n + 2 * BLOCK) // BLOCK))
    leaves = 1 << max(0, (blocks - 1).bit_length())
    pos = np.zeros(blocks * BLOCK, dtype=POSITION)
    pos["kind"], pos["edge"], pos["cut"], pos["bound"], pos["rank"] = DEAD, -INF, INF, -INF, -1
    seg = np.zeros(2 * leaves, dtype=SEGMENT)
    seg["rank"], seg["edge"], seg["cut"] = -1, -INF, INF
    seg["leaf_rank"] = -1
    for name in ("leaf", "leaf_next", "high", "low", "low_edge"):
        seg[name] = -INF
    nodes = np.zeros(n, dtype=NODE)
    ptr = np.zeros(n + 1, dtype=np.int64)
    nbr = np.empty(2 * m, dtype=np.int32)
    eid = np.empty(2 * m, dtype=np.int32)
    is_cut = np.zeros(m, dtype=np.uint8)
    stack = np.empty(n, dtype=np.int32)
    order = np.empty(n, dtype=np.int64)
    frames = np.zeros(80, dtype=FRAME)
    records = np.zeros(max(m, 1), dtype=RECORD)
    components = np.zeros((n, 2), dtype=np.int64)
    work = np.zeros(4096, dtype=np.int64)
    best = np.zeros(32)
    n_records, n_components = _clusters(n, edges, weights, tie_rtol, pos, seg, leaves, nodes,
                                        ptr, nbr, eid, is_cut, stack, order, frames, records,
                                        components, work, best)
    del pos, seg, nodes, nbr, eid, stack, frames, ptr
    records = records[:n_records]
    by_gain = np.argsort(records["gain"], kind="stable")
    slot = np.empty(n_records, dtype=np.int64)
    slot[by_gain] = np.arange(n_records)
    size = 1 << max(0, (n_records - 1).bit_length())
    tree = np.full(2 * size, -1, dtype=np.int64)
    cuts = np.empty(m, dtype=np.int64)
    path = np.empty(m, dtype=np.float64)
    held = np.empty(max(n_records, 1), dtype=np.int64)
    k = _replay(records, components, n_components, tie_rtol, by_gain, slot,
                records["gain"][by_gain].copy(), records["rank"][by_gain].astype(np.int64),
                tree, size, held, cuts, path)
    cuts, path = cuts[:k], path[:k]
    labels = np.empty(n, dtype=np.int64)
    _labels(n, edges, cuts, is_cut, order, labels)
    return cuts, path, labels
