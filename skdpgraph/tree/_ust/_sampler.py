"""The weighted-UST sampler: reductions, the bridges set apart, then an exact engine.

A weighted uniform spanning tree (UST) of a graph with edge conductances
``gamma(e) > 0`` is a random spanning tree ``T`` with ``P(T) = prod_{e in T}
gamma(e) / Z``. With ``gamma(e) = exp(-c w(e))`` it is the exponential
mechanism over spanning trees (:func:`skdpgraph.tree.exponential_tree`).
"""

import numpy as np

from ...utils import check_int, check_positive, check_random_state
from ...utils._sparse import component_labels
from ...utils._validation import check_edge_list
from ._common import group_argmax, group_logsumexp, gumbel
from ._cycle_popping import cycle_popping, ust_with_trap_elimination
from ._elimination import elimination_by_component
from ._reductions import gap_split, prune, truncation_delta

#: Engines accepted by :func:`sample_weighted_ust`.
UST_METHODS = ("auto", "cycle_popping", "elimination")

#: Largest component (nodes) that the elimination engine takes over.
MAX_ELIMINATION_NODES = 3000

#: Default budget of cycle-popping work, in successor draws per node and edge.
DEFAULT_DRAW_FACTOR = 200

#: Cycle-popping draws that take the time of one elimination flop (tens of
#: nanoseconds against 0.2 ns, measured), used by "auto" to give cycle
#: popping the time the elimination would need.
_DRAWS_PER_FLOP = 8e-3


def ust_delta(n_edges, reduce=True):
    """Total-variation distance between :func:`sample_weighted_ust` and the exact UST.

    Bounds the truncations of the sampler, which are its only departures
    from the exact law besides the resolution of double precision (see
    :func:`sample_weighted_ust`, "Exactness"): ``(2 n_edges - 1) exp(-50)``
    with the reductions, 0 without. A mechanism that is ``epsilon``-DP with
    the exact sampler is ``(epsilon, (1 + exp(epsilon)) ust_delta)``-DP with
    this one.

    Parameters
    ----------
    n_edges : int
        Number of edges of the graph (public).
    reduce : bool, default=True
        As passed to :func:`sample_weighted_ust`.

    Returns
    -------
    float
        ``3.9e-16`` for ``10**6`` edges; ``1.9e-19`` for ``500`` edges.
    """
    n_edges = check_int(n_edges, "n_edges", 0)
    return truncation_delta(n_edges) if reduce else 0.0


def sample_weighted_ust(u, v, log_conductance, n, random_state, *, method="auto",
                        max_work=None, reduce=True,
                        max_elimination_nodes=MAX_ELIMINATION_NODES):
    """Sample a weighted uniform spanning forest (one UST per connected component).

    Conductances are given in log space, so any spread is representable.

    Parameters
    ----------
    u, v : ndarray of int, shape (m,)
        Edge endpoints in ``[0, n)``, ``u != v``, each unordered pair at
        most once.
    log_conductance : ndarray of shape (m,)
        Finite ``log gamma(e)``; only differences matter.
    n : int
        Number of nodes.
    random_state : int, numpy.random.Generator or None
        See :func:`skdpgraph.utils.check_random_state`.
    method : {"auto", "cycle_popping", "elimination"}, default="auto"
        ``"elimination"``: Gaussian elimination of the weighted Laplacian
        (star-mesh transform) then unwinding, ``O(k^3)`` time and ``O(k^2)``
        memory per connected component of ``k`` nodes whatever the
        conductances. ``"cycle_popping"``: Wilson's algorithm, expected time
        Wilson's mean hitting time (near-linear on well-mixing graphs,
        ``exp(c * gap)`` on clustered ones); when a run exceeds
        ``max_work`` it hands over to the fallback below. ``"auto"``: cycle
        popping with ``max_work`` capped at the elimination's cost, so its
        cost is at most about twice the cheaper engine's. Both stop and
        hand over without changing the law (the stopping rule depends on
        the popped cycles only, which are independent of the tree).
    max_work : float, default=None
        Work budget of a cycle-popping run, in successor draws (steps of
        Wilson's walks, tens of nanoseconds each), ``200 (n + m)`` by
        default; ``inf``: cycle popping never hands over.
        Only the running time depends on it, never the law or the success
        of a draw.
    reduce : bool, default=True
        Apply the reductions (pruning of edges and the gap split, each
        moving the law by less than ``exp(-50)``): much faster when
        conductances are very unequal. ``False`` samples without any
        truncation.
    max_elimination_nodes : int, default=3000
        Largest component handed to the elimination fallback.

    Returns
    -------
    chosen : ndarray of bool, shape (m,)
        Mask of the edges of the sampled forest (``n - n_components`` edges).

    Raises
    ------
    TypeError
        If ``u`` or ``v`` is not a 1-D array of integers, ``n`` or
        ``max_elimination_nodes`` not an integer, ``reduce`` not a bool, or
        ``random_state`` of another type.
    ValueError
        If an endpoint is outside ``[0, n)``, an edge joins a node to
        itself, an unordered pair repeats, the arrays' shapes differ, a
        log-conductance is not finite, ``max_work`` is neither a positive
        number nor ``inf``, or ``max_elimination_nodes`` is below 1.

    Notes
    -----
    *Bridges, exactly.* Every spanning forest holds every bridge (an edge
    whose removal disconnects its component), and its restriction to each
    component of the graph without the bridges is a spanning tree of that
    component; the probability of a forest is a product over its edges, so
    the UST is exactly the bridges together with independent USTs of those
    components. The bridges are found in linear time (Tarjan's low-links,
    one depth-first search) and set apart before the engines run, whatever
    ``reduce`` (after the pruning, which may leave more of them; in each
    part of a gap split); nodes left without edges cost nothing. On a tree
    nothing is drawn, where Wilson's walks would take quadratic time (tens
    of seconds on a path of 30,000 nodes); on graphs without bridges the
    search costs about a tenth of the draw (0.03 s on a 10-NN graph of
    ``10**5`` points).

    *Fallback and cost; no failure.* The sampler never gives up. When a
    cycle-popping run exhausts its budget and every component (after the
    reductions) has at most ``max_elimination_nodes`` nodes, the
    elimination sampler draws the tree: worst case ``O(k^3)`` time and
    ``O(k^2)`` memory for a component of ``k`` nodes (at 3,000 nodes: two
    ``k x k`` float64 arrays, 144 MB, and seconds in float64 or about two
    minutes in log space; at 10,000 nodes it would be 1.6 GB and 37 times
    longer, which is why larger components do not use it). Larger
    components run cycle popping with trap elimination: after a stopped
    run, the groups of at most 8 nodes that hold the walk (found from the
    conductances: their strongest inner edge outweighs their strongest way
    out by a factor ``exp(6)``, else ``exp(4.5)`` or ``exp(3)``; else the
    nodes the run kept popping) are reduced to one node each, exactly, by
    the star-mesh transform, and cycle popping restarts on the Schur
    complement; the budget doubles only when no such node has at most 400
    neighbours, and the elimination sampler takes over once every
    component of the Schur complement has at most
    ``max_elimination_nodes`` nodes. This always finishes, with
    probability one, and memory does not grow with the budget, but the
    expected time has no polynomial bound when ``c`` times the weight gaps
    between groups of nodes is large: it is Wilson's mean hitting time on
    the reduced graph, and the Schur complement fills in. Running time,
    unlike the output and its success, depends on the conductances.

    *Exactness.* Cycle popping, elimination and trap elimination are exact
    in exact arithmetic. The reductions (``reduce=True``) give probability
    0 to trees of total probability below ``exp(-50)`` each, at most
    ``2 m - 1`` of them per draw: total variation ``<= ust_delta(m)``. In
    floating point: every random choice is a Gumbel-max over
    log-conductances with unbounded Gumbel tails
    (:func:`skdpgraph.privacy.standard_gumbel`) or an inverse-CDF lookup on
    a 53-bit uniform over entries of at least ``2**-20`` of their total (the
    lighter ones drawn apart, with their exact total probability decided by
    an exponential variable of unbounded tail), so no tree of positive
    probability gets probability 0 (with ``reduce=False``); the probabilities
    themselves are computed with sums and products of positive numbers, with
    relative rounding errors of order ``k 2**-53`` for a component of ``k``
    nodes (in log space: absolute errors of ``k 2**-53`` times the largest
    log-conductance, which :func:`~skdpgraph.tree.exponential_tree` holds to
    ``2**32``); a cell of a lookup, at least ``2**-20`` of its row of ``d``
    entries, is realised within a relative ``(d + 1) 2**-33``.

    References
    ----------
    .. [W96] D. B. Wilson, "Generating random spanning trees more quickly
       than the cover time", STOC 1996.
    .. [PW98] J. G. Propp and D. B. Wilson, "How to get a perfectly random
       sample from a generic Markov chain and generate a random spanning
       tree of a directed graph", J. Algorithms 27 (1998).
    .. [LP16] R. Lyons and Y. Peres, "Probability on Trees and Networks",
       Cambridge University Press, 2016, Chapter 4.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import sample_weighted_ust
    >>> u, v = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> mask = sample_weighted_ust(u, v, np.zeros(3), 3, np.random.default_rng(0))
    >>> int(mask.sum())
    2
    """
    if method not in UST_METHODS:
        raise ValueError(f"method must be one of {UST_METHODS}; got {method!r}.")
    u, v, logc, n = _check_edges(u, v, log_conductance, n)
    if max_work is not None:
        max_work = check_positive(max_work, "max_work", allow_inf=True)
    if not isinstance(reduce, (bool, np.bool_)):
        raise TypeError(f"reduce must be a bool; got {type(reduce).__name__}.")
    max_elimination_nodes = check_int(max_elimination_nodes, "max_elimination_nodes", 1)
    rng = check_random_state(random_state)
    m = u.size
    chosen = np.zeros(m, dtype=bool)
    if m == 0:
        return chosen
    if max_work is None:
        max_work = DEFAULT_DRAW_FACTOR * float(n + m)
    config = (method, max_work, bool(reduce), max_elimination_nodes)
    chosen[_sample(u, v, logc, n, rng, config)] = True
    return chosen


def _check_edges(u, v, log_conductance, n):
    """``(u, v, log_conductance, n)`` as int64, int64 and float64 arrays and an int, checked:
    the compiled loops index with the endpoints."""
    u, v, n = check_edge_list(u, v, n, what="sample_weighted_ust", node_bytes=32.0)
    u, v = np.array(u), np.array(v)  # the sampler's own copies: the caller's stay intact
    logc = np.asarray(log_conductance, dtype=np.float64)
    if logc.shape != u.shape:
        raise ValueError(f"log_conductance must have the shape of u and v, {u.shape}; got "
                         f"{logc.shape}.")
    if not np.all(np.isfinite(logc)):
        raise ValueError("log_conductance must be finite.")
    return u, v, logc, n


def _sample(u, v, logc, n, rng, config):
    """Edge indices of a UST (forest) of ``(u, v, logc)`` on ``n`` nodes."""
    if config[2]:  # reduce
        thr = gap_split(logc)
        if thr is not None:
            return _sample_split(u, v, logc, n, rng, config, thr)
        keep = np.flatnonzero(prune(u, v, logc, n))
    else:
        keep = np.arange(u.size)
    # After the pruning, which can only add bridges: the engines see the rest.
    bridges, keep, u, v, n, csr = _set_bridges_apart(u[keep], v[keep], n, keep)
    if not keep.size:
        return bridges
    picked = keep[_sample_bridgeless(u, v, logc[keep], n, rng, config, csr)]
    return np.concatenate([bridges, picked]) if bridges.size else picked


def _set_bridges_apart(u, v, n, index):
    """The bridges of the graph ``(u, v)`` on ``n`` nodes, and the graph without them.

    Every spanning forest holds every bridge, and its restriction to a
    component of the graph without the bridges is a spanning tree of that
    component; the weight of a forest is a product over its edges, so the
    UST is exactly the bridges plus independent USTs of those components.
    On trees and tree-like graphs this saves Wilson's walks their
    quadratic time (on a path of ``k`` nodes they take of the order of
    ``k**2`` steps).

    Returns ``(bridges, rest, u, v, k, csr)``: ``index`` of the bridges and
    of the other edges, those other edges on their ``k`` nodes, renamed
    ``0 .. k - 1`` in increasing order (the nodes they leave alone would
    each be a component of one node, which costs nothing but would be
    walked over by every engine), and, when that graph is the one given,
    its :func:`symmetric_csr`, for cycle popping (else None).
    """
    from ...utils._sparse_kernels import bridge_mask, symmetric_csr

    csr = symmetric_csr(u, v, n)
    bridge = bridge_mask(*csr, u.size)
    if bridge.any():
        u, v, csr = u[~bridge], v[~bridge], None
        bridges, index = index[bridge], index[~bridge]
    else:
        bridges = index[:0]
    used = np.zeros(n, dtype=bool)
    used[u] = True
    used[v] = True
    k = int(np.count_nonzero(used))
    if k < n:
        name = np.cumsum(used) - 1  # increasing: orders and ties are kept
        u, v, csr = name[u], name[v], None
    return bridges, index, u, v, k, csr


def _sample_bridgeless(u, v, kl, n, rng, config, csr=None):
    """Edge indices of a UST of ``(u, v, kl)``: the engines, on a graph without bridges
    (``csr``: its symmetric CSR, if already built)."""
    method, max_work, _, max_elim = config
    ncomp, lab = component_labels(u, v, n)
    sizes = np.bincount(lab, minlength=ncomp)
    if method == "elimination":
        return elimination_by_component(u, v, kl, n, rng, lab, ncomp)
    if sizes.max() > max_elim:
        return ust_with_trap_elimination(u, v, kl, n, rng, max_work, max_elim, csr)
    budget = max_work
    if method == "auto":
        elim_cost = float(np.sum(sizes.astype(np.float64) ** 3)) / 3.0
        budget = min(max_work, max(_DRAWS_PER_FLOP * elim_cost, float(n + u.size)))
    picked, _ = cycle_popping(u, v, kl, n, rng, budget, csr)
    if picked is None:  # out of budget: the exact fallback (the law is unchanged)
        return elimination_by_component(u, v, kl, n, rng, lab, ncomp)
    return picked


def _sample_split(u, v, logc, n, rng, config, thr):
    """Light edges' USTs, then a UST of the graph of their components (:func:`gap_split`)."""
    li = np.flatnonzero(logc > thr)
    picked = [li[_sample(u[li], v[li], logc[li], n, rng, config)]]
    ncomp, lab = component_labels(u[li], v[li], n)
    hi = np.flatnonzero((logc <= thr) & (lab[u] != lab[v]))
    if hi.size:
        a, b = lab[u[hi]], lab[v[hi]]
        codes = np.minimum(a, b) * ncomp + np.maximum(a, b)
        uniq, inv = np.unique(codes, return_inverse=True)
        merged = group_logsumexp(inv, logc[hi], uniq.size)
        groups = _sample(uniq // ncomp, uniq % ncomp, merged, ncomp, rng, config)
        # One heavy edge per chosen pair of components, by conductance.
        sel = np.flatnonzero(np.isin(inv, groups))
        pick = group_argmax(inv[sel], logc[hi][sel] + gumbel(sel.size, rng))
        picked.append(hi[sel[pick]])
    return np.concatenate(picked)
