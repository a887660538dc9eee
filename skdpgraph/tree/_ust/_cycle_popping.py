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

import numpy as np

from ...privacy._samplers import random_words, standard_exponential
from ...utils import mst_edge_indices
from ...utils._sparse import component_labels
from ._common import group_argmax, gumbel, pair_order, unwind_eliminations
from ._elimination import elimination_by_component

#: Neighbours below this fraction of their row's total are drawn apart from
#: the inverse-CDF lookup, which on 53-bit uniforms could never pick them.
_CDF_MIN_FRACTION = 2.0 ** -20

#: Trap elimination: most nodes a stopped run marks as trapped per round,
#: and largest neighbourhood a node may have to be eliminated.
MAX_TRAP_NODES = 500
_MAX_TRAP_DEGREE = 400

#: Trap groups (:func:`trap_groups`): at most this many nodes, holding the
#: walk for about ``exp(score)`` crossings of their inner edges, the scores
#: tried in turn until some node can be eliminated.
_TRAP_SIZE = 8
_TRAP_SCORES = (6.0, 4.5, 3.0)


def cycle_popping(u, v, logc, n, rng, max_work, csr=None):
    """Exact UST (forest) by Wilson's algorithm, under a budget.

    Returns ``(edges, trapped)``. ``edges`` holds the indices (into
    ``u, v``) of the tree's edges, or is None when more than ``max_work``
    successors were drawn; ``trapped`` then holds the nodes popped most
    often, most frequent first.

    Loop-erased random walks from each node in turn ([W96]_) draw one
    successor per step, with probability proportional to the conductances
    of the node's edges (compiled loops, :func:`._cycle_popping_kernels.
    wilson_walks`). A walk drawing fresh successors at each visit reads, in
    the stacks formulation of the module docstring, the next entry of the
    node's stack, so the steps made by a completed run are ``n - n_roots``
    plus the total length of the popped cycles, a function of the popped
    cycles only: the stopping rule "more than ``max_work`` steps" is
    independent of the tree (see the module docstring). The work is
    Wilson's mean hitting time, one draw per step.

    Every successor draw is an inverse-CDF lookup on a 53-bit uniform over
    the node's neighbours that have at least ``2**-20`` of its total; the
    lighter ones, which such a lookup could never pick (their cell absorbed
    by rounding, or their ``exp`` underflowing), are drawn apart: the draw
    goes to them with their exact total probability ``q``, decided by a
    uniform 64-bit word ``W`` against ``q 2**64 = F + f`` (``W < F``, or
    ``W = F`` and ``E > -log f`` with ``E ~ Exp(1)`` of unbounded tail),
    and among them by Gumbel-max in log space.

    ``csr``, if given, is ``symmetric_csr(u, v, n)``, already built by the
    caller.
    """
    from ...utils._sparse_kernels import breadth_first_order, symmetric_csr
    from ._cycle_popping_kernels import (
        renumber_csr,
        strongest_node,
        successor_table,
    )

    indptr, neighbour, edge = symmetric_csr(u, v, n) if csr is None else csr
    # Walkers start in breadth-first order, each component from its smallest
    # node, rooted at its node of largest total conductance (any root and any
    # order give the same law; a well-connected root shortens the walks).
    order, component_start = breadth_first_order(indptr, neighbour)
    # The walks jump between neighbours: where numbering the nodes in that
    # order brings neighbours closer in memory (graphs of points in random
    # order), the graph is renamed so; where it does not (random graphs, or
    # already local numberings) the renaming would cost more than it saves.
    # Either way the walks draw the same successors: the same tree.
    renamed = _breadth_first_is_closer(u, v, order)
    if renamed:
        indptr, neighbour, edge = renumber_csr(indptr, neighbour, edge, order)
    sequence = np.arange(n) if renamed else order  # the walkers' names, in that order
    log_conductance = np.ascontiguousarray(logc, dtype=np.float64)[edge]
    table = successor_table(indptr, log_conductance, math.log(_CDF_MIN_FRACTION))
    roots = sequence[strongest_node(component_start, table[-1][sequence])]
    is_root = np.zeros(n, dtype=bool)
    is_root[roots] = True
    walkers = sequence[~is_root[sequence]]
    entry, drawn = _wilson(indptr, neighbour, log_conductance, table, walkers, is_root,
                           rng, max_work)
    if entry is None:
        pops = np.maximum(drawn - 1, 0)
        hot = np.flatnonzero(pops >= max(2, pops.max() // 10))
        hot = hot[np.argsort(-pops[hot], kind="stable")]
        return None, order[hot] if renamed else hot
    return edge[entry[walkers]], None


#: Edges sampled to compare two numberings' locality, and the factor by which
#: the breadth-first one must bring an edge's ends closer to be used.
_LOCALITY_SAMPLE = 4096
_LOCALITY_GAIN = 4.0


def _breadth_first_is_closer(u, v, order):
    """Whether the breadth-first numbering ``order`` brings neighbours closer.

    Compares the median distance between the numbers of an edge's ends, on
    a fixed sample of the edges (the topology only), under both numberings.
    """
    if u.size == 0:
        return False
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    sample = np.linspace(0, u.size - 1, min(u.size, _LOCALITY_SAMPLE)).astype(np.int64)
    a, b = u[sample].astype(np.int64), v[sample].astype(np.int64)
    given = np.median(np.abs(a - b))
    breadth_first = np.median(np.abs(rank[a] - rank[b]))
    return bool(_LOCALITY_GAIN * breadth_first < given)


#: Random values drawn per block for the walks: the first block of uniforms
#: holds a few per walker, that of words, exponentials and Gumbel variables
#: a few dozen; each next block is twice the last, up to the largest, which
#: is a few values per entry of the graph (memory stays linear in its size)
#: and at least 2**16, at most 2**22.
_DRAWS_PER_WALKER = 4
_FIRST_BLOCK = 64
_BLOCK_PER_ENTRY = 4
_MIN_MAX_BLOCK = 1 << 16
_MAX_MAX_BLOCK = 1 << 22


def _wilson(indptr, neighbour, log_conductance, table, walkers, is_root, rng, max_work):
    """Wilson's walks: ``(succ_entry, None)``, or ``(None, drawn)`` out of budget.

    ``succ_entry[x]`` is the entry (of the symmetric CSR) of the edge from
    each walker to its parent; ``drawn[x]`` the number of successors drawn
    at ``x`` when the budget ran out. The kernel reads uniforms, 64-bit
    words, exponentials and Gumbel variables drawn here in blocks; when one
    runs out it returns, and the block is replaced by a fresh one (the
    values it read are never read again and the unread ones it left were
    not looked at, so every step reads values independent of everything
    before).
    """
    from ._cycle_popping_kernels import (
        DONE,
        EXPONENTIAL,
        GUMBEL,
        NEED_EXPONENTIALS,
        NEED_UNIFORMS,
        NEED_WORDS,
        POSITION,
        STEPS,
        STOPPED,
        UNIFORM,
        WORD,
        wilson_walks,
    )

    cdf, light, n_light, light_floor, light_log_frac, _ = table
    n = is_root.size
    intree = is_root.copy()
    succ = np.arange(n, dtype=np.int64)
    succ_entry = np.full(n, -1, dtype=np.int64)
    drawn = np.zeros(n, dtype=np.int64)
    state = np.zeros(7, dtype=np.int64)
    state[POSITION] = -1
    budget = float(max_work)
    largest = min(max(_BLOCK_PER_ENTRY * neighbour.size, _MIN_MAX_BLOCK), _MAX_MAX_BLOCK)

    def block(previous, first):
        # One uniform (and at most one word) a step: no more than the steps
        # left in the budget.
        left = budget - float(state[STEPS]) + 1.0
        size = 2 * previous if previous else first
        return max(int(min(size, largest, left)), 1)

    uniforms = rng.random(block(0, _DRAWS_PER_WALKER * walkers.size))
    words = random_words(block(0, _FIRST_BLOCK), rng) if n_light.any() else np.empty(
        0, dtype=np.uint64)
    exponentials = gumbels = np.empty(0)
    while True:
        status = wilson_walks(indptr, neighbour, cdf, light, n_light, light_floor,
                              light_log_frac, log_conductance, walkers, intree, succ,
                              succ_entry, drawn, state, uniforms, words, exponentials,
                              gumbels, budget)
        if status == DONE:
            return succ_entry, None
        if status == STOPPED:
            return None, drawn
        if status == NEED_UNIFORMS:
            uniforms = rng.random(block(uniforms.size, 0))
            state[UNIFORM] = 0
        elif status == NEED_WORDS:
            words = random_words(block(words.size, _FIRST_BLOCK), rng)
            state[WORD] = 0
        elif status == NEED_EXPONENTIALS:
            size = min(2 * exponentials.size or _FIRST_BLOCK, largest)
            exponentials = standard_exponential(size, rng)
            state[EXPONENTIAL] = 0
        else:
            size = min(2 * gumbels.size or _FIRST_BLOCK, largest)
            gumbels = gumbel(max(size, int(n_light.max())), rng)
            state[GUMBEL] = 0


def trap_groups(merges, n, min_score, max_size):
    """Groups of nodes that hold a random walk, from the conductances alone.

    The clusters of the single-linkage hierarchy of the conductances
    (Kruskal's merges, strongest edge first: ``merges`` from
    :func:`_merges`) with at most ``max_size`` nodes whose strongest inner
    edge outweighs their strongest boundary edge, the one that merges them
    next, by a factor ``exp(min_score)`` or more: a walk that enters one
    crosses its inner edges about that many times before it leaves. Of
    nested such clusters only the largest is returned.

    Returns ``(nodes, ends)``: the groups one after the other, group ``g``
    ending at ``ends[g]`` (compiled loop:
    :func:`._cycle_popping_kernels.trap_groups`).
    """
    from ._cycle_popping_kernels import trap_groups as groups_of_merges

    return groups_of_merges(n, *merges, float(min_score), int(max_size))


def _merges(u, v, logc, n):
    """Kruskal's merges of the single-linkage hierarchy: ``(a, b, logc)`` of the
    maximum spanning forest's edges, strongest first, and each node's strongest edge."""
    top = np.full(n, -np.inf)
    np.maximum.at(top, u, logc)
    np.maximum.at(top, v, logc)
    ti = mst_edge_indices(u, v, -logc, n)
    ti = ti[np.argsort(-logc[ti], kind="stable")]
    return (np.ascontiguousarray(u[ti], dtype=np.int64),
            np.ascontiguousarray(v[ti], dtype=np.int64),
            np.ascontiguousarray(logc[ti], dtype=np.float64), top)


def _trap_nodes(u, v, n, score, merges):
    """Nodes to eliminate: every trap group but its node of largest degree."""
    nodes, ends = trap_groups(merges, n, score, _TRAP_SIZE)
    if not ends.size:
        return np.empty(0, dtype=np.int64)
    deg = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
    gid = np.repeat(np.arange(ends.size), np.diff(ends, prepend=0))
    keep = group_argmax(gid, deg[nodes].astype(np.float64))
    mask = np.ones(nodes.size, dtype=bool)
    mask[keep] = False
    return nodes[mask]


class _Eliminations:
    """The eliminated (trapped) nodes in order, with their records (the star-mesh
    transforms of :mod:`._star_mesh_kernels`), for the unwinding."""

    def __init__(self, n):
        self.n = n
        self.rounds = []  # (x, ptr, keys, values, log_degree) of each call of eliminate

    def eliminate(self, cu, cv, cl, stuck):
        """Eliminate the nodes ``stuck`` from the graph ``(cu, cv, cl)``; new graph.

        Nodes go in order of smallest current neighbourhood; once the
        smallest exceeds :data:`_MAX_TRAP_DEGREE` the rest stay (the mesh of
        a hub would be too large). Returns None if no node was eliminated.
        """
        from ._star_mesh_kernels import merged, star_mesh

        n = self.n
        in_s = np.zeros(n, dtype=bool)
        in_s[stuck] = True
        inc = in_s[cu] | in_s[cv]
        count, *record, ea, eb, ew = star_mesh(
            n, cu[inc], cv[inc], np.ascontiguousarray(cl[inc], dtype=np.float64),
            np.asarray(stuck, dtype=np.int64), _MAX_TRAP_DEGREE)
        if not count:
            return None
        self.rounds.append(record)
        keep = ~inc  # the new graph: the edges away from the trapped nodes, and the mesh
        return merged(n, cu[keep], cv[keep], np.ascontiguousarray(cl[keep], dtype=np.float64),
                      ea, eb, ew)

    def records(self):
        """The records of every round as one: ``(x, ptr, keys, values, log_degree)``."""
        if not self.rounds:  # every round stopped before a node could go
            none = np.zeros(0, dtype=np.int64)
            return none, np.zeros(1, dtype=np.int64), none, np.zeros(0), np.zeros(0)
        xs, ptrs, keys, values, log_degree = zip(*self.rounds)
        starts = np.cumsum([0] + [p[-1] for p in ptrs[:-1]])
        ptr = np.concatenate([[0]] + [p[1:] + s for p, s in zip(ptrs, starts)])
        return (np.concatenate(xs), ptr, np.concatenate(keys), np.concatenate(values),
                np.concatenate(log_degree))


def ust_with_trap_elimination(u, v, logc, n, rng, max_work, max_elimination_nodes,
                              csr=None):
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

    Returns the indices of the chosen edges. ``csr``, if given, is
    ``symmetric_csr(u, v, n)``, for the first run.
    """
    rec = None  # the eliminations, once there are any
    cu, cv, cl = u, v, logc
    budget = max_work
    while True:
        picked, trapped = cycle_popping(cu, cv, cl, n, rng, budget,
                                        csr if rec is None else None)
        if picked is not None:
            if rec is None:  # nothing eliminated: the edges of the graph itself
                return picked
            eu, ev = cu[picked], cv[picked]
            break
        if rec is None:  # the star-mesh transforms take the edges as (min, max), sorted
            rec = _Eliminations(n)
            order = pair_order(u, v, n)[1]
            cu, cv, cl = np.minimum(u, v)[order], np.maximum(u, v)[order], logc[order]
        reduced, merges = None, _merges(cu, cv, cl, n)
        for score in _TRAP_SCORES:
            stuck = _trap_nodes(cu, cv, n, score, merges)
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
        ncomp, labels = component_labels(cu, cv, n)
        if np.bincount(labels).max() <= max_elimination_nodes:
            picked = elimination_by_component(cu, cv, cl, n, rng, labels, ncomp)
            eu, ev = cu[picked], cv[picked]
            break
    return unwind_eliminations(n, eu, ev, rec.records(), u, v, logc, rng)
