"""Compiled loops of the star-mesh transforms of trap elimination, and of the
unwinding of any sequence of eliminations.

Plain typed loops (numba), imported when cycle popping has stalled
(:mod:`._cycle_popping`) or the elimination sampler has eliminated
(:mod:`._elimination`). They draw nothing: the Gumbel variables of the
unwinding are drawn by the caller and passed in as an array; :func:`unwind`
says when it runs out, and the caller calls it again with the same draws
and more after them.

*Elimination records.* The ``t``-th eliminated node ``x[t]`` had, when it
went, the neighbours ``keys[ptr[t]:ptr[t + 1]]`` with log-conductances
``values[ptr[t]:ptr[t + 1]]`` and the total ``log_degree[t]``; the mesh it
left joined every two of them ``a, b`` by ``values(a) + values(b) -
log_degree[t]`` (in log space, added to what joined them before).
"""

import math

import numba
import numpy as np

@numba.njit(cache=True, inline="always")
def _logaddexp(a, b):
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a))


@numba.njit(cache=True)
def _moved(neighbour, value, start, length, room, end, p):
    """Node ``p``'s list is full: its live entries (in order) move to the end
    ``end`` of the pool, with as much room again; returns the pool and its end."""
    live = 0
    for e in range(start[p], start[p] + length[p]):
        live += neighbour[e] >= 0
    size = max(2 * live, 4)
    while end + size > neighbour.size:
        neighbour = np.concatenate((neighbour, np.empty_like(neighbour)))
        value = np.concatenate((value, np.empty_like(value)))
    at = end
    for e in range(start[p], start[p] + length[p]):
        if neighbour[e] >= 0:
            neighbour[at], value[at], at = neighbour[e], value[e], at + 1
    start[p], length[p], room[p] = end, live, size
    return neighbour, value, end + size


@numba.njit(cache=True)
def _sift_down(heap, size):
    i, key = 0, heap[0]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] >= key:
            break
        heap[i], i = heap[c], c
    heap[i] = key


@numba.njit(cache=True)
def _push(heap, size, key):
    i = size
    while i > 0 and heap[(i - 1) >> 1] > key:
        heap[i], i = heap[(i - 1) >> 1], (i - 1) >> 1
    heap[i] = key
    return size + 1


@numba.njit(cache=True)
def star_mesh(n, a, b, w, stuck, max_degree):
    """Eliminate the nodes ``stuck`` from the graph of the edges ``(a, b, w)``.

    ``(a, b, w)`` are the distinct edges at stuck nodes (log-conductances
    ``w``; the other edges of the graph are not touched). Nodes go in order
    of smallest current neighbourhood, smallest number on ties; once the
    smallest has more than ``max_degree`` neighbours the others stay.

    Each node keeps its neighbours in the order they joined it (a mesh
    entry joins at the end, one that exists keeps its place), in a block of
    a pool, left as a gap (-1) where a neighbour went, and moved to the end
    of the pool with twice the room when full. Eliminating ``x`` reads the
    list of each of its ``d`` neighbours once: it finds there the entry of
    ``x`` (removed) and those of the mesh pairs that exist (added to); the
    other pairs join both lists. No table of pairs: ``O(d^2)`` plus the
    neighbours' lists, read in order.

    Returns ``(count, x, ptr, keys, values, log_degree, ea, eb, ew)``: the
    number of nodes eliminated and their records (module docstring), and
    the edges ``ea < eb`` left between the nodes that stay (those of the
    input not at an eliminated node, and the mesh).
    """
    degree = np.zeros(n, dtype=np.int64)  # live entries
    for k in range(a.size):
        degree[a[k]] += 1
        degree[b[k]] += 1
    start = np.zeros(n, dtype=np.int64)
    length = np.zeros(n, dtype=np.int64)  # entries used, gaps included
    room = np.empty(n, dtype=np.int64)
    end = 0
    for p in range(n):
        room[p] = 2 * degree[p] if degree[p] else 0
        start[p], end = end, end + room[p]
    neighbour, value = np.empty(max(2 * end, 16), dtype=np.int64), np.empty(max(2 * end, 16))
    for k in range(a.size):
        for p, q in ((a[k], b[k]), (b[k], a[k])):
            neighbour[start[p] + length[p]], value[start[p] + length[p]] = q, w[k]
            length[p] += 1
    remaining = np.zeros(n, dtype=np.bool_)
    gone = np.zeros(n, dtype=np.bool_)
    heap = np.empty(stuck.size + 1, dtype=np.int64)
    size = 0
    for x in stuck:
        if not remaining[x]:
            remaining[x] = True
            size = _push(heap, size, degree[x] * n + x)
    mark = np.full(n, -1, dtype=np.int64)  # a neighbour's place in the list of x
    found = np.zeros((max_degree + 1) * (max_degree + 1), dtype=np.bool_)
    xs = np.empty(stuck.size, dtype=np.int64)
    ptr = np.zeros(stuck.size + 1, dtype=np.int64)
    log_degree = np.empty(stuck.size)
    keys = np.empty(64, dtype=np.int64)
    values = np.empty(64)
    count = 0
    while size:
        key = heap[0]
        size -= 1
        if size:
            heap[0] = heap[size]
            _sift_down(heap, size)
        x, d = key % n, key // n
        if not remaining[x] or d != degree[x]:
            continue  # stale: the node went, or its neighbourhood changed
        if d > max_degree:
            break
        remaining[x], gone[x] = False, True
        first = ptr[count]
        while keys.size < first + d:
            keys, values = np.concatenate((keys, keys)), np.concatenate((values, values))
        j = first
        for e in range(start[x], start[x] + length[x]):
            if neighbour[e] >= 0:
                keys[j], values[j], j = neighbour[e], value[e], j + 1
        top = -np.inf
        for i in range(first, j):
            top = max(top, values[i])
        total = 0.0
        for i in range(first, j):
            total += math.exp(values[i] - top)
        ld = top + math.log(total) if j > first else -np.inf
        xs[count], log_degree[count], ptr[count + 1] = x, ld, j
        count += 1
        for i in range(first, j):
            mark[keys[i]] = i - first
        found[:d * d] = False
        for i in range(first, j):  # x leaves each list; the existing pairs grow
            p = keys[i]
            for e in range(start[p], start[p] + length[p]):
                q = neighbour[e]
                if q == x:
                    neighbour[e], degree[p] = -1, degree[p] - 1
                elif q >= 0 and mark[q] >= 0:
                    lo, hi = min(i - first, mark[q]), max(i - first, mark[q])
                    found[lo * d + hi] = True
                    value[e] = _logaddexp(value[e], values[first + lo] + (values[first + hi] - ld))
        for i in range(first, j):  # the new pairs, in order
            for jj in range(i + 1, j):
                if found[(i - first) * d + jj - first]:
                    continue
                mesh = values[i] + (values[jj] - ld)
                for p, q in ((keys[i], keys[jj]), (keys[jj], keys[i])):
                    if length[p] == room[p]:
                        neighbour, value, end = _moved(neighbour, value, start, length, room,
                                                       end, p)
                    neighbour[start[p] + length[p]], value[start[p] + length[p]] = q, mesh
                    length[p], degree[p] = length[p] + 1, degree[p] + 1
        for i in range(first, j):
            mark[keys[i]] = -1
            if remaining[keys[i]]:
                if size == heap.size:
                    heap = np.concatenate((heap, heap))
                size = _push(heap, size, degree[keys[i]] * n + keys[i])
    at = np.zeros(n + 1, dtype=np.int64)  # the edges left, by (ea, eb): counted by ea,
    for p in range(n):  # then listed from each eb in increasing order
        for e in range(start[p], start[p] + length[p] if not gone[p] else start[p]):
            at[p + 1] += neighbour[e] > p
        at[p + 1] += at[p]
    ea, eb, ew = np.empty(at[n], dtype=np.int64), np.empty(at[n], dtype=np.int64), np.empty(at[n])
    for q in range(n):
        for e in range(start[q], start[q] + length[q] if not gone[q] else start[q]):
            p = neighbour[e]
            if 0 <= p < q:
                ea[at[p]], eb[at[p]], ew[at[p]], at[p] = p, q, value[e], at[p] + 1
    return (count, xs[:count], ptr[:count + 1], keys[:ptr[count]], values[:ptr[count]],
            log_degree[:count], ea, eb, ew)


@numba.njit(cache=True)
def merged(n, ku, kv, kl, ea, eb, ew):
    """The union of two edge lists sorted by ``(u, v)`` with distinct edges each,
    sorted; an edge of both gets the log of the sum of its conductances."""
    u = np.empty(ku.size + ea.size, dtype=np.int64)
    v = np.empty_like(u)
    w = np.empty(u.size)
    i = j = m = 0
    while i < ku.size or j < ea.size:
        a = ku[i] * n + kv[i] if i < ku.size else -1
        b = ea[j] * n + eb[j] if j < ea.size else -1
        if b < 0 or (0 <= a < b):
            u[m], v[m], w[m], i = ku[i], kv[i], kl[i], i + 1
        elif a < 0 or b < a:
            u[m], v[m], w[m], j = ea[j], eb[j], ew[j], j + 1
        else:
            u[m], v[m], w[m], i, j = ku[i], kv[i], _logaddexp(kl[i], ew[j]), i + 1, j + 1
        m += 1
    return u[:m], v[:m], w[:m]


@numba.njit(cache=True)
def _original(codes, code_logc, code):
    """Log-conductance of the original edge of ``code`` (``-inf`` if none)."""
    i = np.searchsorted(codes, code)
    return code_logc[i] if i < codes.size and codes[i] == code else -np.inf


@numba.njit(cache=True)
def _source(p, q, level, n, member_ptr, member_level, member_value, log_degree, codes,
            code_logc, noise, at):
    """Where the conductance of the edge ``{p, q}`` at ``level`` comes from: ``(-1,
    at)`` for the original edge, ``(t, at)`` for the mesh of elimination ``t``,
    drawn in proportion to the parts by Gumbel-max; ``at`` is the next unused
    draw of ``noise``, -1 if it ran out. No draw if no mesh is involved."""
    i, i_end = member_ptr[p], member_ptr[p + 1]
    j, j_end = member_ptr[q], member_ptr[q + 1]
    best, source, first = -np.inf, -2, True
    while i < i_end and j < j_end:  # the levels below ``level`` where both neighboured
        if member_level[i] >= level or member_level[j] >= level:
            break
        if member_level[i] != member_level[j]:
            if member_level[i] < member_level[j]:
                i += 1
            else:
                j += 1
            continue
        if first:  # the original edge is the first part
            if at + 1 > noise.size:
                return -1, -1
            best = _original(codes, code_logc, min(p, q) * n + max(p, q)) + noise[at]
            source, at, first = -1, at + 1, False
        if at + 1 > noise.size:
            return -1, -1
        t = member_level[i]
        part = member_value[i] + member_value[j] - log_degree[t] + noise[at]
        if part > best:
            best, source = part, t
        i, j, at = i + 1, j + 1, at + 1
    return (-1 if first else source), at


@numba.njit(cache=True)
def _split(p, q, eu, ev, live, slot_head, slot_next, seen, search, queues, label, fresh):
    """The live forest has just lost the edge ``{p, q}``: the side of ``p`` or of
    ``q`` with fewer nodes, found by a breadth-first search from both in turn
    (its cost is that of the smaller side), gets the label ``fresh``."""
    qa, qb = queues[0], queues[1]
    qa[0], qb[0], seen[p], seen[q] = p, q, search, search + 1
    head_a, end_a, head_b, end_b = 0, 1, 0, 1
    while head_a < end_a and head_b < end_b:
        for side in range(2):
            queue, mark = (qa, search) if side == 0 else (qb, search + 1)
            u = queue[head_a if side == 0 else head_b]
            s = slot_head[u]
            end = end_a if side == 0 else end_b
            while s >= 0:
                e = s >> 1
                if live[e]:
                    v = eu[e] + ev[e] - u
                    if seen[v] != mark:
                        seen[v], queue[end], end = mark, v, end + 1
                s = slot_next[s]
            if side == 0:
                head_a, end_a = head_a + 1, end
            else:
                head_b, end_b = head_b + 1, end
    queue, end = (qa, end_a) if head_a == end_a else (qb, end_b)
    for i in range(end):
        label[queue[i]] = fresh


@numba.njit(cache=True)
def unwind(n, tu, tv, xs, ptr, keys, values, log_degree, codes, code_logc, noise):
    """A UST of the original graph from a UST ``(tu, tv)`` of its Schur complement.

    The eliminations are undone last first. The tree edges that a mesh put
    in were each given a source (the original edge or one mesh, drawn in
    proportion to their conductances); undoing elimination ``t`` removes
    the edges from its mesh, which splits the tree into parts that each
    hold a neighbour of ``x[t]``, and joins ``x[t]`` to one neighbour in
    each part, drawn in proportion to its conductance (Gumbel-max). The
    parts are found by :func:`_split`, one removed edge at a time.

    ``codes``: the original edges as ``min * n + max``, sorted, with their
    log-conductances ``code_logc``. Returns ``(at, eu, ev)``: the number of
    Gumbel draws read and the tree's edges; ``at`` is -1 if ``noise`` ran
    out (then call again with more draws after the same ones).
    """
    levels = xs.size
    member_ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(keys.size):
        member_ptr[keys[i] + 1] += 1
    for u in range(n):
        member_ptr[u + 1] += member_ptr[u]
    fill = member_ptr[:-1].copy()
    member_level = np.empty(keys.size, dtype=np.int64)
    member_value = np.empty(keys.size)
    for t in range(levels):  # each node's levels in increasing order
        for i in range(ptr[t], ptr[t + 1]):
            y = keys[i]
            member_level[fill[y]], member_value[fill[y]], fill[y] = t, values[i], fill[y] + 1
    capacity = tu.size + keys.size
    eu, ev = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64)
    live = np.zeros(capacity, dtype=np.bool_)
    bucket_head, bucket_next = np.full(levels, -1, dtype=np.int64), np.full(capacity, -1,
                                                                             dtype=np.int64)
    slot_head, slot_next = np.full(n, -1, dtype=np.int64), np.empty(2 * capacity, dtype=np.int64)
    at = 0
    for k in range(tu.size):
        eu[k], ev[k], live[k] = tu[k], tv[k], True
        for s in (2 * k, 2 * k + 1):
            u = eu[k] if s == 2 * k else ev[k]
            slot_next[s], slot_head[u] = slot_head[u], s
        if member_ptr[tu[k] + 1] > member_ptr[tu[k]] and member_ptr[tv[k] + 1] > member_ptr[tv[k]]:
            source, at = _source(tu[k], tv[k], levels, n, member_ptr, member_level, member_value,
                                 log_degree, codes, code_logc, noise, at)
            if at < 0:
                return -1, eu[:0], ev[:0]
            if source >= 0:
                bucket_next[k], bucket_head[source] = bucket_head[source], k
    k = tu.size
    seen = np.zeros(n, dtype=np.int64)
    label = np.full(n, -1, dtype=np.int64)
    queues = np.empty((2, n), dtype=np.int64)
    widest = 1
    for t in range(levels):
        widest = max(widest, ptr[t + 1] - ptr[t])
    best, best_at = np.empty(widest + 1), np.empty(widest + 1, dtype=np.int64)
    search, fresh = 1, 0
    for t in range(levels - 1, -1, -1):
        lo, hi, x = ptr[t], ptr[t + 1], xs[t]
        if hi == lo:
            continue  # an isolated node: its own component
        if at + hi - lo > noise.size:
            return -1, eu[:0], ev[:0]
        rest, parts, e = fresh, 1, bucket_head[t]  # labels below ``rest``: the rest
        while e >= 0:
            live[e] = False
            _split(eu[e], ev[e], eu, ev, live, slot_head, slot_next, seen, search, queues,
                   label, fresh)
            search, fresh, parts, e = search + 2, fresh + 1, parts + 1, bucket_next[e]
        best[:parts], best_at[:parts] = -np.inf, -1
        for i in range(lo, hi):
            group = label[keys[i]] - rest + 1 if label[keys[i]] >= rest else 0
            g = values[i] + noise[at + i - lo]
            if best_at[group] < 0 or g > best[group]:
                best[group], best_at[group] = g, i
        at += hi - lo
        for group in range(parts):
            if best_at[group] < 0:  # every part holds an end of a removed edge, a neighbour
                raise RuntimeError("a part of the tree holds no neighbour; please report.")
            a = keys[best_at[group]]
            eu[k], ev[k], live[k] = x, a, True
            for s in (2 * k, 2 * k + 1):
                u = eu[k] if s == 2 * k else ev[k]
                slot_next[s], slot_head[u] = slot_head[u], s
            source, at = _source(x, a, t, n, member_ptr, member_level, member_value, log_degree,
                                 codes, code_logc, noise, at)
            if at < 0:
                return -1, eu[:0], ev[:0]
            if source >= 0:
                bucket_next[k], bucket_head[source] = bucket_head[source], k
            k += 1
    keep = np.flatnonzero(live[:k])
    return at, eu[keep], ev[keep]
