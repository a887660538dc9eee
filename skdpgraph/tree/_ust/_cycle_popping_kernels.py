"""Compiled loops of cycle popping: the successor table and Wilson's walks.

Plain typed loops (numba), imported by :mod:`._cycle_popping` when a draw
needs them. They draw nothing: the uniforms, exponentials and Gumbel
variables they read are drawn by the caller (:mod:`skdpgraph.privacy`'s
samplers and the generator of ``random_state``) and passed in as arrays;
:func:`wilson_walks` returns when one runs out, and resumes where it
stopped once the caller has drawn more.
"""

import numba
import numpy as np

from ...utils._sparse_kernels import _find

#: Status codes of :func:`wilson_walks`.
DONE, STOPPED, NEED_UNIFORMS, NEED_WORDS, NEED_EXPONENTIALS, NEED_GUMBELS = range(6)

#: Fields of the ``state`` array of :func:`wilson_walks`.
WALKER, POSITION, STEPS, UNIFORM, WORD, EXPONENTIAL, GUMBEL = range(7)

#: log(2**64): the light share ``q`` of a row is decided on 64-bit words.
_LOG_TWO_64 = 64.0 * np.log(2.0)


@numba.njit(cache=True)
def renumber_csr(indptr, neighbour, edge, order):
    """The CSR of the same graph with node ``order[r]`` renamed ``r``."""
    n = indptr.size - 1
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[order[r]] = r
    new_indptr = np.empty(n + 1, dtype=np.int64)
    new_indptr[0] = 0
    for r in range(n):
        x = order[r]
        new_indptr[r + 1] = new_indptr[r] + indptr[x + 1] - indptr[x]
    new_neighbour = np.empty(neighbour.size, dtype=np.int64)
    new_edge = np.empty(edge.size, dtype=np.int64)
    for r in range(n):
        x = order[r]
        k = new_indptr[r]
        for j in range(indptr[x], indptr[x + 1]):
            new_neighbour[k] = rank[neighbour[j]]
            new_edge[k] = edge[j]
            k += 1
    return new_indptr, new_neighbour, new_edge


@numba.njit(cache=True)
def successor_table(indptr, log_conductance, log_min_fraction):
    """Per-row cumulative sums for the inverse-CDF draw of a successor.

    Entry ``j`` of row ``x`` (log-conductance ``l_j``) is *light* when
    ``l_j - log_strength[x] < log_min_fraction``: it gets no mass in the
    cumulative sums ``cdf`` (``cdf[j] = cdf[j - 1]``) and is drawn apart,
    with the light entries' share ``q`` of the row. ``q 2**64 = F + f``
    with ``F`` an integer and ``0 <= f < 1``: a draw goes to the light
    entries when a uniform 64-bit word ``W`` is below ``F``, or equals it
    and an exponential variable exceeds ``-log f`` (probability exactly
    ``F / 2**64 + f / 2**64 = q``, whatever its size).

    Returns ``cdf`` (relative to the row's largest conductance), ``light``
    (bool per entry), ``n_light`` (the row's light entries), ``light_floor``
    (``F``, uint64), ``light_log_frac`` (``log f``; ``-inf`` for rows
    without light entries) and ``log_strength`` (log of the row's total,
    ``-inf`` for an empty row).
    """
    n = indptr.size - 1
    cdf = np.empty(log_conductance.size)
    light = np.zeros(log_conductance.size, dtype=np.bool_)
    n_light = np.zeros(n, dtype=np.int64)
    light_floor = np.zeros(n, dtype=np.uint64)
    light_log_frac = np.full(n, -np.inf)
    log_strength = np.full(n, -np.inf)
    for x in range(n):
        a, b = indptr[x], indptr[x + 1]
        if a == b:
            continue
        top = log_conductance[a]
        for j in range(a + 1, b):
            top = max(top, log_conductance[j])
        total = 0.0
        for j in range(a, b):
            cdf[j] = np.exp(log_conductance[j] - top)  # the conductance, for now
            total += cdf[j]
        strength = top + np.log(total)
        log_strength[x] = strength
        acc = 0.0
        light_top = -np.inf
        for j in range(a, b):
            if log_conductance[j] - strength < log_min_fraction:
                light[j] = True
                n_light[x] += 1
                light_top = max(light_top, log_conductance[j])
            else:
                acc += cdf[j]
            cdf[j] = acc
        if n_light[x]:
            light_total = 0.0
            for j in range(a, b):
                if light[j]:
                    light_total += np.exp(log_conductance[j] - light_top)
            # log(q 2**64); q < 1, so q 2**64 < 2**64.
            scaled = light_top + np.log(light_total) - strength + _LOG_TWO_64
            if scaled < 0.0:  # q 2**64 < 1: F = 0 and f = q 2**64, kept in log space
                light_log_frac[x] = scaled
            else:
                whole = np.exp(scaled)
                floor = np.floor(whole)
                light_floor[x] = np.uint64(floor)
                frac = whole - floor  # exact in double precision
                light_log_frac[x] = np.log(frac) if frac > 0.0 else -np.inf
    return cdf, light, n_light, light_floor, light_log_frac, log_strength


@numba.njit(cache=True)
def strongest_node(component_start, log_strength):
    """The node of largest ``log_strength`` in each range of nodes (the first on ties)."""
    best = np.empty(component_start.size - 1, dtype=np.int64)
    for c in range(best.size):
        b = component_start[c]
        for x in range(component_start[c] + 1, component_start[c + 1]):
            if log_strength[x] > log_strength[b]:
                b = x
        best[c] = b
    return best


@numba.njit(cache=True)
def wilson_walks(indptr, neighbour, cdf, light, n_light, light_floor, light_log_frac,
                 log_conductance, walkers, intree, succ, succ_entry, drawn, state,
                 uniforms, words, exponentials, gumbels, budget):
    """Loop-erased random walks from each of ``walkers`` in turn (Wilson's algorithm).

    A step from ``x`` draws its successor with probability proportional to
    the conductances of ``x``'s entries: among the light entries, with
    their share ``q`` of the row (a 64-bit word and, on a tie, an
    exponential: see :func:`successor_table`), by Gumbel-max over their
    log-conductances; otherwise by inverse CDF on a uniform over the
    others. ``succ[x]`` and ``succ_entry[x]`` hold the last successor drawn
    at ``x`` (a later visit overwrites it: the cycle is popped) and
    ``drawn[x]`` counts the draws made at ``x``. Once a walk hits the tree
    (``intree``), its loop-erased path joins it.

    Returns a status: :data:`DONE`; :data:`STOPPED` once more than
    ``budget`` steps were made in all; or :data:`NEED_UNIFORMS`,
    :data:`NEED_WORDS`, :data:`NEED_EXPONENTIALS`, :data:`NEED_GUMBELS` when
    that array has too few unread values left for the next step. ``state``
    (walker, position, steps and the read positions in the four arrays)
    lets the next call resume exactly there: a step that returns reads
    nothing, so the values it looked at are read again by the same step.
    """
    i = state[WALKER]
    x = state[POSITION]
    steps = state[STEPS]
    iu = state[UNIFORM]
    iw = state[WORD]
    ie = state[EXPONENTIAL]
    ig = state[GUMBEL]
    status = DONE
    while i < walkers.size:
        s = walkers[i]
        if x < 0:
            x = s
        while not intree[x]:
            if iu == uniforms.size:
                status = NEED_UNIFORMS
                break
            a, b = indptr[x], indptr[x + 1]
            entry = -1
            used_word = used_exponential = False
            if n_light[x] > 0:
                if iw == words.size:
                    status = NEED_WORDS
                    break
                used_word = True
                to_light = words[iw] < light_floor[x]
                if words[iw] == light_floor[x]:  # probability 2**-64
                    if ie == exponentials.size:
                        status = NEED_EXPONENTIALS
                        break
                    used_exponential = True
                    to_light = exponentials[ie] > -light_log_frac[x]
                if to_light:
                    if gumbels.size - ig < n_light[x]:
                        status = NEED_GUMBELS
                        break
                    best = -np.inf
                    for j in range(a, b):
                        if light[j]:
                            key = log_conductance[j] + gumbels[ig]
                            ig += 1
                            if entry < 0 or key > best:
                                best = key
                                entry = j
            if entry < 0:
                # The first entry whose cumulative sum exceeds the target;
                # light entries add nothing to the sums and are never first.
                target = uniforms[iu] * cdf[b - 1]
                lo, hi = a, b
                while hi - lo > 8:  # bisection, then a scan of a few entries
                    mid = (lo + hi) >> 1
                    if cdf[mid] <= target:
                        lo = mid + 1
                    else:
                        hi = mid
                while lo < hi and cdf[lo] <= target:
                    lo += 1
                if lo == b:  # target rounded up to the total: the last heavy entry
                    lo = b - 1
                    while light[lo]:
                        lo -= 1
                entry = lo
            iu += 1
            iw += used_word
            ie += used_exponential
            y = neighbour[entry]
            succ[x] = y
            succ_entry[x] = entry
            drawn[x] += 1
            steps += 1
            x = y
            if steps > budget:
                status = STOPPED
                break
        if status != DONE:
            break
        # Loop erasure: the path from s along the last successors joins the tree.
        x = s
        while not intree[x]:
            intree[x] = True
            x = succ[x]
        i += 1
        x = -1
    state[WALKER] = i
    state[POSITION] = x
    state[STEPS] = steps
    state[UNIFORM] = iu
    state[WORD] = iw
    state[EXPONENTIAL] = ie
    state[GUMBEL] = ig
    return status


@numba.njit(cache=True)
def trap_groups(n, a, b, log_conductance, top, min_score, max_size):
    """The trap groups of :func:`._cycle_popping.trap_groups`, from the merges.

    ``(a, b, log_conductance)``: the maximum spanning forest's edges in the
    order Kruskal merges them (strongest first); ``top``: each node's
    strongest edge. Returns ``(nodes, ends)``: the groups one after the
    other, group ``g`` ending at ``ends[g]``; in the order in which the
    clusters that hold them were last merged, as the function returns them.
    """
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    best = top.copy()  # strongest inner edge of each cluster, by its root
    member_next = np.full(n, -1, dtype=np.int64)  # each small cluster's nodes, linked
    member_head, member_tail = np.arange(n), np.arange(n)
    group_nodes = np.empty(max(n, 16), dtype=np.int64)  # grown when full
    group_start = np.empty(n, dtype=np.int64)
    group_next = np.full(n, -1, dtype=np.int64)  # the groups found inside a root, linked
    found_head = np.full(n, -1, dtype=np.int64)
    found_tail = np.full(n, -1, dtype=np.int64)
    found_at = np.full(n, -1, dtype=np.int64)
    n_groups = used = 0
    for k in range(a.size):
        ra, rb = _find(parent, a[k]), _find(parent, b[k])
        head = tail = -1  # the groups this merge ends the life of
        for side in range(2):
            r = ra if side == 0 else rb
            if size[r] == 1:
                continue
            first = last = -1
            if size[r] <= max_size and best[r] - log_conductance[k] >= min_score:
                first = last = n_groups  # the cluster itself, its nested groups dropped
                group_start[n_groups], n_groups = used, n_groups + 1
                if used + size[r] > group_nodes.size:
                    group_nodes = np.concatenate((group_nodes, np.empty_like(group_nodes)))
                x = member_head[r]
                while x >= 0:
                    group_nodes[used], used, x = x, used + 1, member_next[x]
            elif found_head[r] >= 0:
                first, last = found_head[r], found_tail[r]
            found_head[r] = -1
            if first >= 0:
                if head < 0:
                    head = first
                else:
                    group_next[tail] = first
                tail = last
        if size[ra] < size[rb]:
            ra, rb = rb, ra
        parent[rb] = ra
        size[ra] += size[rb]
        best[ra] = max(best[ra], best[rb])
        if size[ra] <= max_size:
            member_next[member_tail[ra]] = member_head[rb]
            member_tail[ra] = member_tail[rb]
        if head >= 0:
            found_head[ra], found_tail[ra], found_at[ra] = head, tail, k
    holders = np.flatnonzero(found_head >= 0)
    holders = holders[np.argsort(found_at[holders], kind="mergesort")]
    count = 0
    for r in holders:
        g = found_head[r]
        while g >= 0:
            count, g = count + 1, group_next[g]
    ends = np.empty(count, dtype=np.int64)
    nodes = np.empty(used, dtype=np.int64)
    count = at = 0
    for r in holders:
        g = found_head[r]
        while g >= 0:
            end = group_start[g + 1] if g + 1 < n_groups else used
            for i in range(group_start[g], end):
                nodes[at], at = group_nodes[i], at + 1
            ends[count], count, g = at, count + 1, group_next[g]
    return nodes[:at], ends
