"""Spanning trees of weighted graphs: exact, and under weight differential privacy.

Privacy model (weight-DP): the topology ``G = (V, E)`` is public, the weights
``w`` (distances) are private. Neighbouring weight functions differ by at most
``sensitivity = mu`` in total (``neighborhood="l1"``) or on every edge
(``"linf"``); see :mod:`skdpgraph.mechanisms`.

* :func:`minimum_spanning_tree` -- the exact MST (not private).
* :func:`pamst` -- PAMST (Pinot's thesis, Algorithm 1; UAI 2018, Algorithm 2):
  a Prim-like walk choosing each edge with the exponential mechanism. Releases
  a *topology*; the weights it returns are the true (non-private) ones.
* :func:`laplace_mst` -- the Laplace baseline (Sealfon 2016): Laplace noise on
  every weight, then the exact MST of the noisy graph. Releases a weighted tree.
* :func:`release_tree_weights` -- the Weight-Release mechanism (UAI 2018,
  Definition 3.12), calibrated for the neighbourhood actually used.

All functions take a canonical graph (:func:`skdpgraph.check_graph`); a
disconnected graph gives one tree per connected component (a spanning
forest). Randomness comes from ``random_state``: ``None`` draws fresh OS
entropy; a fixed seed makes a release reproducible, hence not private against
anyone who knows the seed.
"""

import math
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra

from ._graph import check_graph, check_random_state_or_entropy, edges_to_csr, graph_edges
from ._tree import SpanningTree, make_spanning_tree, minimum_spanning_tree
from .accounting import PrivacyLeakWarning, approx_dp_to_zcdp
from .mechanisms import (check_epsilon, check_neighborhood, check_sensitivity,
                         gaussian_sigma, laplace_scale, release_sensitivity)

__all__ = [
    "SpanningTree",
    "minimum_spanning_tree",
    "pamst",
    "pamst_step_epsilon",
    "laplace_mst",
    "release_tree_weights",
    "weight_release_noise",
    "normalize_weights",
]

#: Phases of the sparse sampler only accept ring times ``T(u) + L(e)`` for
#: which ``T(u) <= exp(_LOG_RATIO) * exp(s(e))``: the float rounding of such a
#: sum is then below ``2**-53 * exp(18) ~ 7e-9`` of the edge's clock scale.
_LOG_RATIO = 18.0
#: Clocks longer than ``exp(_LOG_HORIZON)`` cannot ring within a phase.
_LOG_HORIZON = 600.0
#: Edges lighter than the phase's lightest cut edge by more than this margin
#: (in units of ``c * w``) are left out of the phase; nodes touching them stop it.
_LOG_LIGHT = _LOG_RATIO + 60.0
#: A phase reaching fewer than (its edges / this) nodes hands over to the
#: sequential sampler (a phase costs O(|E|), a sequential step O(deg log |V|)).
#: 0 disables the hand-over.
_MIN_PHASE_YIELD = 256
#: Largest ``c * (w_max - w_min)`` used (see :func:`_cap_rate`).
_MAX_LOG_SPREAD = 1e300


def _as_graph(graph, check_input):
    if not check_input:
        return graph
    return check_graph(graph, metric="precomputed", what="graph")


def _check_budget(epsilon, rho):
    if (epsilon is None) == (rho is None):
        raise ValueError("Give exactly one of epsilon (pure DP) and rho (zCDP).")
    if epsilon is not None:
        return check_epsilon(epsilon), None
    return None, check_epsilon(rho, "rho")


def pamst_step_epsilon(n_steps, epsilon=None, rho=None):
    """Epsilon of each exponential-mechanism step of PAMST.

    Parameters
    ----------
    n_steps : int
        Number of steps, ``|V| - n_components`` (public).
    epsilon : float, default=None
        Pure-DP budget of the whole tree: each step gets ``epsilon / n_steps``
        (sequential composition).
    rho : float, default=None
        zCDP budget of the whole tree: an ``eps``-DP exponential mechanism is
        ``eps**2 / 8``-zCDP (Cesar and Rogers 2021), zCDP adds up, so each
        step gets ``sqrt(8 rho / n_steps)``.

    Returns
    -------
    float
    """
    epsilon, rho = _check_budget(epsilon, rho)
    n_steps = max(int(n_steps), 1)
    if epsilon is not None:
        return epsilon / n_steps
    return math.sqrt(8.0 * rho / n_steps)


# ---------------------------------------------------------------------------
# PAMST
# ---------------------------------------------------------------------------

def pamst(graph, epsilon=None, *, sensitivity, neighborhood="l1", rho=None,
          random_state=None, check_input=True):
    """Private Approximation of a Minimum Spanning Tree (PAMST).

    From a uniformly random root (one per connected component), grows a tree
    ``|V| - 1`` times by the exponential mechanism over the current cut: edge
    ``e`` is added with probability proportional to
    ``exp(-eps_step * w(e) / (2 mu))``. The utility ``-w(e)`` has sensitivity
    ``mu`` under both neighbourhoods (one weight changes by at most ``mu``),
    so each step is ``eps_step``-DP; the steps compose to the budget given.
    (The paper's utility ``-|w(e) - min w|`` induces the same distribution but
    has sensitivity ``2 mu``; the tight form halves the noise.)

    Parameters
    ----------
    graph : ndarray of shape (n, n) or sparse matrix
        Canonical graph (:func:`skdpgraph.check_graph`); weights are distances.
    epsilon : float, default=None
        Pure-DP budget of the whole tree, split evenly over the steps. The
        released topology is ``epsilon``-DP under both neighbourhoods.
    sensitivity : float
        ``mu``, the neighbourhood's bound on weight changes.
    neighborhood : {"l1", "linf"}, default="l1"
        Checked for consistency with the other mechanisms; the calibration of
        PAMST is the same under both.
    rho : float, default=None
        Instead of ``epsilon``: a zCDP budget; the tree is then ``rho``-zCDP
        (see :func:`pamst_step_epsilon`).
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws fresh OS entropy. A fixed seed makes the output
        reproducible, hence not private against anyone who knows the seed.
    check_input : bool, default=True
        Validate ``graph`` with :func:`skdpgraph.check_graph`; pass False only
        for a graph that already is canonical.

    Returns
    -------
    SpanningTree
        The released topology (a spanning forest for a disconnected graph).
        ``weights`` holds the TRUE weights of the chosen edges: they are not
        private; release them with :func:`release_tree_weights`.

    Notes
    -----
    *Sparse graphs: the race of exponential clocks, O(|E| log |V|).* Give each
    edge a length ``L(e) = X(e) exp(s(e))``, ``X(e) ~ Exp(1)`` i.i.d.,
    ``s(e) = c (w(e) - min w)``, ``c = eps_step / (2 mu)``, and run Dijkstra
    from the roots (scipy's C implementation). Edge ``(u, v)`` "rings" at time
    ``T(u) + L(e)`` once ``u`` is reached. At any moment the residual times of
    the cut edges are independent exponentials of rates ``exp(-s(e))``
    (memorylessness), so the next edge to ring is ``e`` with probability
    ``exp(-s(e)) / sum_cut exp(-s)`` -- one exponential-mechanism draw -- and
    the ring times are Dijkstra's settling times: the shortest-path tree has
    exactly PAMST's distribution. Subtracting ``min w`` multiplies all lengths
    by one constant, which changes no shortest-path tree.

    *Any spread of weights.* ``c (w_max - w_min)`` may exceed the double range
    (``exp`` overflows beyond 709), and a short clock added to a large time
    loses its low-order digits (``T + L == T`` once ``L`` is below the
    rounding of ``T``), which would silently bias the tree. Both are handled
    exactly by restarting the race: the clocks are memoryless at stopping
    times, so at any stopping time the unrung clocks of the cut may be
    replaced by fresh ones. The sampler runs in phases. A phase restarts all
    cut clocks at time 0 from the nodes reached so far; measures ``s`` from
    the lightest cut edge of each component, so that this edge rings by time
    ``X <= 40`` and every phase reaches a node; works with
    ``log L = log X + s`` (order-preserving, never overflows); leaves out
    edges with ``log L > 600`` (they cannot ring before the phase's horizon
    ``exp(600)``, which is Dijkstra's ``limit``) and edges lighter than the
    lightest cut edge by more than 78 in ``s``; and, in each component, keeps
    the nodes reached up to the first one ``u`` whose time exceeds
    ``exp(18) exp(min s over its edges)`` or that touches a left-out edge
    (a stopping time). Everything kept is exactly what the race on all
    edges does, and every sum ``T(u) + L`` it compared is accurate to
    ``2**-53 e^18 ~ 7e-9`` of the clock scale of the new edges. When
    ``c (w_max - w_min)`` is moderate (PAMST's per-step budgets are small,
    so this is the usual case) there is a single phase. When phases become
    unproductive (each reaches few nodes for its O(|E|) cost; this happens
    only for huge ``c (w_max - w_min)``, where PAMST is close to the exact
    MST), the sampler finishes with the sequential exponential mechanism
    over log-space block sums (:func:`_pamst_sequential`), exact by
    definition, with a Python-level loop over the nodes.
    Absurd budgets with ``c (w_max - w_min) > 1e300`` are capped there,
    which only alters the odds of weights closer than ``1e-297`` times
    their spread and keeps every number finite: no NaN or infinity can
    reach the tree.

    *Dense (complete) graphs: O(|V|^2) time, O(|V|) extra memory.* The
    sequential exponential mechanism itself, vectorised: for every node ``v``
    outside the tree keep ``a(v) = log sum_{u in tree} exp(-s(u, v))``
    (updated with ``logaddexp`` when a node joins; no overflow, no
    accumulated time), draw the next node with probability proportional to
    ``exp(a(v))`` and its parent with probability proportional to
    ``exp(-s(u, v))``. The product is exactly ``exp(-s(e)) / sum_cut exp(-s)``.
    This departs from the clock race (one clock per edge drawn when its first
    endpoint joins) because it is the definition itself, with no floating-point
    sums of times at all, at the same O(|V|^2) cost.

    Only floating-point rounding separates the samplers from the exact law:
    the uniform variates are multiples of ``2**-53`` and normalising
    probabilities rounds to double precision.

    References
    ----------
    R. Pinot, "Minimum spanning tree release under differential privacy
    constraints", master thesis, 2017, Algorithm 1 and Theorem 3.4.2.
    R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
    Clustering under Differential Privacy", UAI 2018, Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.spanning_tree import pamst
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> t = pamst(D, epsilon=100.0, sensitivity=1.0, random_state=0)
    >>> t.edges.tolist()
    [[0, 1], [1, 2]]
    """
    epsilon, rho = _check_budget(epsilon, rho)
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    graph = _as_graph(graph, check_input)
    rng = check_random_state_or_entropy(random_state)
    n = graph.shape[0]
    if sp.issparse(graph):
        # Strong components of a symmetric graph are its components; scipy
        # finds them without building the transpose.
        n_comp, comp = connected_components(graph, directed=True, connection="strong")
    else:
        n_comp, comp = 1, None
    n_steps = n - n_comp
    if n_steps == 0:
        return make_spanning_tree([], [], [], n)
    c = _cap_rate(pamst_step_epsilon(n_steps, epsilon, rho) / (2.0 * mu), graph)
    if not sp.issparse(graph):
        u, v = _pamst_dense(graph, c, rng)
        return _tree_from_pairs(u, v, graph[u, v], n)
    parent, child = _pamst_sparse(graph, c, n_comp, comp, rng)
    weights = np.asarray(graph[parent, child], dtype=np.float64).ravel()
    return _tree_from_pairs(parent, child, weights, n)


def _cap_rate(c, graph):
    """``c`` capped so that ``c * (w_max - w_min) <= 1e300`` (finite everywhere).

    Only absurd budgets reach the cap (``epsilon / sensitivity`` beyond
    ``1e300 / spread``); it changes the odds ``exp(-c (w(e) - w(f)))`` only
    for weights closer than ``~1e-297`` times their spread, and keeps every
    log-weight finite, so no NaN or infinity can reach the sampler.
    """
    if sp.issparse(graph):
        if graph.data.size == 0:
            return c
        spread = float(graph.data.max() - graph.data.min())
    else:
        lo, hi = _offdiag_range(graph)
        spread = hi - lo
    if spread > 0 and c * spread > _MAX_LOG_SPREAD:
        return _MAX_LOG_SPREAD / spread
    return c


def _random_roots(comp, n_comp, rng):
    """One uniformly random node per connected component."""
    order = np.argsort(comp, kind="stable")
    counts = np.bincount(comp, minlength=n_comp)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pick = starts + np.minimum((rng.random(n_comp) * counts).astype(np.int64), counts - 1)
    return order[pick]


def _upper_edges(graph):
    """Rows, columns and weights of the entries above the diagonal (row-sorted)."""
    n = graph.shape[0]
    indptr = np.asarray(graph.indptr)
    indices = np.asarray(graph.indices)
    row = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(indptr))
    upper = indices > row
    return row[upper], indices[upper], np.asarray(graph.data, dtype=np.float64)[upper]


def _csr_from_rows(row, col, data, n):
    """CSR array from row-sorted triplets (no sorting; explicit zeros kept)."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n), out=indptr[1:])
    return sp.csr_array((data, col, indptr.astype(col.dtype, copy=False)), shape=(n, n))


def _tree_from_pairs(a, b, w, n):
    """:class:`SpanningTree` from parent/child pairs (one sort of int64 keys)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.argsort(lo * n + hi)
    lo, hi, w = lo[order], hi[order], np.asarray(w, dtype=np.float64)[order]
    return SpanningTree(edges_to_csr(lo, hi, w, n), np.column_stack([lo, hi]), w)


def _component_min(values, labels, n_labels):
    if n_labels == 1:
        return np.array([values.min() if values.size else np.inf])
    out = np.full(n_labels, np.inf)
    np.minimum.at(out, labels, values)
    return out


def _pamst_sparse(graph, c, n_comp, comp, rng):
    """Parent and child arrays of a PAMST forest of a canonical sparse graph.

    Runs restarts of the clock race (:func:`_pamst_phase`) while they are
    productive; when a phase reaches fewer nodes than its O(|E|) cost is
    worth (huge ``c (w_max - w_min)``: every descent into a much lighter
    region stops a phase), finishes with the exact sequential sampler
    :func:`_pamst_sequential`.
    """
    n = graph.shape[0]
    row, col, w = _upper_edges(graph)
    roots = _random_roots(comp, n_comp, rng)
    # Per-component shift: a constant factor on one component's lengths.
    s = w - _component_min(w, comp[row], n_comp)[comp[row]]
    s *= c
    settled = np.zeros(n, dtype=bool)
    settled[roots] = True
    pred = np.full(n, -1, dtype=np.int64)
    n_settled = roots.size
    while n_settled < n:
        reached, n_active = _pamst_phase(row, col, s, comp, n_comp, settled, pred, rng)
        n_settled += reached
        if (n_settled < n and _MIN_PHASE_YIELD
                and reached < max(n_active // _MIN_PHASE_YIELD, 1)):
            _pamst_sequential(graph, c, settled, pred, rng)
            break
    child = np.flatnonzero(pred >= 0)
    return pred[child], child


def _pamst_phase(row, col, s, comp, n_comp, settled, pred, rng):
    """One restart of the clock race; updates ``settled`` and ``pred`` in place.

    Returns the number of nodes reached in the phase (always >= 1) and the
    number of edges it worked on.
    """
    n = settled.size
    in_u, in_v = settled[row], settled[col]
    active = ~(in_u & in_v)
    if not active.all():
        row, col, s = row[active], col[active], s[active]
        in_u, in_v = in_u[active], in_v[active]
    cut = in_u != in_v
    # The lightest cut edge of each component sets the phase's scale (a per-
    # component constant factor on the lengths: no tree changes), so that it
    # rings at a time <= X ~ Exp(1): every phase reaches a node.
    sigma = _component_min(s[cut], comp[row[cut]], n_comp)
    t = s - (sigma[comp[row]] if n_comp > 1 else sigma[0])
    x = rng.standard_exponential(t.size)
    t_min, t_max = float(t.min()), float(t.max())
    light = None
    if t_min >= -_LOG_LIGHT and t_max <= _LOG_HORIZON - 50.0:
        # Common case: no clock can overflow or be left out.
        lengths = _csr_from_rows(row, col, x * np.exp(t), n)
    else:
        with np.errstate(divide="ignore"):
            log_len = np.log(x) + t
        light = t < -_LOG_LIGHT
        keep = (log_len <= _LOG_HORIZON) & ~light
        lengths = _csr_from_rows(row[keep], col[keep], np.exp(log_len[keep]), n)
    sources = np.flatnonzero(settled)
    dist, p, _ = dijkstra(lengths, directed=False, indices=sources, min_only=True,
                          return_predecessors=True, limit=math.exp(_LOG_HORIZON))
    new = np.isfinite(dist) & ~settled
    # Stopping rule: the first reached node u whose edges are short compared
    # with its time T(u) (their ring times T(u) + L would lose precision), or
    # that touches a left-out light edge, ends the phase -- in its own
    # component (components are independent races). Every node has an edge
    # with t >= t_min, so nothing stops while T(u) <= exp(t_min + 18).
    d_max = float(dist[new].max()) if new.any() else 0.0
    if (light is not None and light.any()) or (
            d_max > 0 and math.log(d_max) > t_min + _LOG_RATIO):
        m = np.full(n, np.inf)
        np.minimum.at(m, row, t)
        np.minimum.at(m, col, t)
        with np.errstate(divide="ignore"):
            stop = new & (np.log(dist) > m + _LOG_RATIO)
        if stop.any():
            tau = np.full(n_comp, np.inf)
            np.minimum.at(tau, comp[stop], dist[stop])
            tau = tau[comp]
            # Keep what rang before the stop, and the stopping node itself;
            # a node tied with it at exactly tau got its time by absorption
            # (tau + L == tau in floating point) through it: not kept.
            first = stop & (dist == tau)
            first[first] &= dist[p[first]] < tau[first]
            new &= (dist < tau) | first
    pred[new] = p[new]
    settled |= new
    return int(np.count_nonzero(new)), int(t.size)


def _pamst_sequential(graph, c, settled, pred, rng):
    """Finish a PAMST forest with the sequential exponential mechanism.

    Exact by definition, for any spread of weights: for every node ``v``
    outside the tree keep ``a(v) = log sum_{u in tree, u ~ v} exp(-c w(u, v))``;
    each step draws ``v`` with probability ``exp(a(v)) / sum exp(a)``, then
    its parent ``u`` with probability ``exp(-c w(u, v)) / exp(a(v))``:
    together, edge ``(u, v)`` of the cut with probability proportional to
    ``exp(-c w(u, v))``. The ``a(v)`` live in blocks of ``B ~ sqrt(|V|)``
    nodes with a log-sum per block, so a draw (a block, then a node in it)
    and an update (the blocks of the new node's neighbours) are a few
    vectorised operations. All in log space: no overflow, no sums of times.
    It is the fallback for huge ``c (w_max - w_min)``, not the fast path:
    O((|V| + |E|) sqrt(|V|)) work with a Python-level loop over the nodes.
    """
    n = graph.shape[0]
    indptr = np.asarray(graph.indptr, dtype=np.int64)
    indices = np.asarray(graph.indices, dtype=np.int64)
    data = np.asarray(graph.data, dtype=np.float64)
    neg_s = -c * (data - data.min())
    width = max(16, int(math.isqrt(n)))
    n_blocks = -(-n // width)
    leaves = np.full(n_blocks * width, -np.inf)
    grid = leaves.reshape(n_blocks, width)  # a view: block b is grid[b]
    row = np.repeat(np.arange(n), np.diff(indptr))
    frontier = settled[row] & ~settled[indices]
    np.logaddexp.at(leaves, indices[frontier], neg_s[frontier])
    blocks = _block_logsumexp(grid)
    remaining = n - int(np.count_nonzero(settled))
    for step in range(remaining):
        if step % 4096 == 0:
            uni = rng.random((min(4096, remaining - step), 3))
        r = uni[step % 4096]
        b = _sample_log_weights(blocks, r[0])
        v = b * width + _sample_log_weights(grid[b], r[1])
        lo, hi = indptr[v], indptr[v + 1]
        nbrs, ls = indices[lo:hi], neg_s[lo:hi]
        inside = settled[nbrs]
        pred[v] = nbrs[inside][_sample_log_weights(ls[inside], r[2])]
        settled[v] = True
        out = ~inside
        leaves[v] = -np.inf
        touched = nbrs[out]
        leaves[touched] = np.logaddexp(leaves[touched], ls[out])
        changed = np.unique(np.append(touched // width, b))
        blocks[changed] = _block_logsumexp(grid[changed])


def _block_logsumexp(grid):
    """Row-wise log-sum-exp of a 2-D array; rows of -inf give -inf."""
    top = grid.max(axis=1)
    top[~np.isfinite(top)] = 0.0
    with np.errstate(divide="ignore"):
        return top + np.log(np.exp(grid - top[:, None]).sum(axis=1))


def _pamst_dense(D, c, rng):
    """Sequential exponential mechanism on a complete graph, O(n^2) time.

    Returns the parent and child of each tree edge.
    """
    n = D.shape[0]
    root = int(rng.integers(n))
    wmin, wmax = _offdiag_range(D)
    rest = np.delete(np.arange(n), root)  # nodes outside the tree
    tree = np.empty(n, dtype=np.int64)
    tree[0] = root
    parents = np.empty(n - 1, dtype=np.int64)
    children = np.empty(n - 1, dtype=np.int64)
    uniforms = rng.random((n - 1, 2))
    # Linear space when every exp(-c (w - w_min)) lies in [e^-600, 1] (sums
    # of at most n such terms neither overflow nor lose small terms below
    # double precision); log space (logaddexp) otherwise.
    linear = c * (wmax - wmin) <= 600.0
    a = -c * (D[root, rest] - wmin)
    if linear:
        np.exp(a, out=a)
    for k in range(n - 1):
        # Next node v with probability A(v) / sum A, A(v) = sum_tree exp(-s(u, v)).
        j = _sample_weights(a, uniforms[k, 0]) if linear else _sample_log_weights(
            a, uniforms[k, 0])
        v = int(rest[j])
        # Its parent u in the tree with probability exp(-s(u, v)) / A(v).
        settled = tree[:k + 1]
        i = _sample_log_weights(-c * (D[v, settled] - wmin), uniforms[k, 1])
        parents[k], children[k] = settled[i], v
        tree[k + 1] = v
        last = rest.size - 1
        rest[j], a[j] = rest[last], a[last]
        rest, a = rest[:last], a[:last]
        if rest.size:
            row = D[v, rest]
            row -= wmin
            row *= -c
            if linear:
                a += np.exp(row, out=row)
            else:
                np.logaddexp(a, row, out=a)
    return parents, children


def _offdiag_range(D):
    """Smallest and largest off-diagonal entries, block by block (no n x n mask)."""
    lo, hi = np.inf, -np.inf
    for start in range(0, D.shape[0], 1024):
        block = D[start:start + 1024].copy()
        idx = np.arange(block.shape[0])
        block[idx, start + idx] = np.inf
        lo = min(lo, float(block.min()))
        block[idx, start + idx] = -np.inf
        hi = max(hi, float(block.max()))
    return lo, hi


def _sample_weights(weights, u):
    """Index drawn with probability proportional to ``weights`` (inverse CDF)."""
    cdf = np.cumsum(weights)
    return min(int(np.searchsorted(cdf, u * cdf[-1], side="right")), weights.size - 1)


def _sample_log_weights(logw, u):
    """Index drawn with probability proportional to ``exp(logw)`` (inverse CDF)."""
    if logw.size == 1:
        return 0
    p = np.exp(logw - logw.max())
    cdf = np.cumsum(p)
    return min(int(np.searchsorted(cdf, u * cdf[-1], side="right")), logw.size - 1)


# ---------------------------------------------------------------------------
# Laplace-MST (Sealfon)
# ---------------------------------------------------------------------------

def laplace_mst(graph, epsilon, *, sensitivity, neighborhood="l1", random_state=None,
                check_input=True):
    """Laplace-MST: noise on every weight, then the exact MST (Sealfon 2016).

    Adds i.i.d. Laplace noise to every edge weight and releases the minimum
    spanning tree of the noisy graph with its noisy weights (post-processing
    of the noisy graph). The noise scale is ``mu / epsilon`` under ``"l1"``
    neighbours and ``|E| mu / epsilon`` under ``"linf"`` (all ``|E|`` weights
    may move by ``mu`` at once), which makes the release ``epsilon``-DP.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or sparse matrix
        Canonical graph; weights are distances.
    epsilon : float
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}, default="l1"
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws fresh OS entropy; a fixed seed makes the release
        reproducible, hence not private against anyone who knows the seed.
    check_input : bool, default=True

    Returns
    -------
    SpanningTree
        The MST of the noisy graph; ``weights`` are the released noisy
        weights (they can be negative; normalise them with
        :func:`normalize_weights` before clustering). Its error should be
        measured with the true weights (thesis, Definition 3.2.1).

    Notes
    -----
    For a dense (complete) graph the noise of each edge is drawn when Prim's
    algorithm first looks at it (when its first endpoint joins the tree);
    every edge is looked at exactly once, so this is the exact MST of the
    noisy graph with O(n) extra memory instead of an n x n noise matrix.

    References
    ----------
    A. Sealfon, "Shortest paths and distances with differential privacy",
    PODS 2016. R. Pinot, master thesis, 2017, Section 3.2 and Theorem 3.2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.spanning_tree import laplace_mst
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> laplace_mst(D, 1e6, sensitivity=1.0, random_state=0).edges.tolist()
    [[0, 1], [1, 2]]
    """
    epsilon = check_epsilon(epsilon)
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    graph = _as_graph(graph, check_input)
    rng = check_random_state_or_entropy(random_state)
    n = graph.shape[0]
    if sp.issparse(graph):
        u, v, w = graph_edges(graph)
        scale = laplace_scale(release_sensitivity(w.size, mu, neighborhood), epsilon)
        noisy = w + rng.laplace(0.0, scale, size=w.size)
        return minimum_spanning_tree(edges_to_csr(u, v, noisy, n))
    scale = laplace_scale(release_sensitivity(n * (n - 1) // 2, mu, neighborhood), epsilon)
    u, v, w = _dense_prim_noisy(graph, scale, rng)
    return make_spanning_tree(u, v, w, n)


def _dense_prim_noisy(D, scale, rng):
    """Exact MST of ``D + Laplace noise`` (noise drawn lazily), O(n^2) time."""
    n = D.shape[0]
    rest = np.arange(1, n)
    best = D[0, rest] + rng.laplace(0.0, scale, size=n - 1)
    parent = np.zeros(n - 1, dtype=np.int64)
    us = np.empty(n - 1, dtype=np.int64)
    vs = np.empty(n - 1, dtype=np.int64)
    ws = np.empty(n - 1)
    for k in range(n - 1):
        j = int(np.argmin(best))
        us[k], vs[k], ws[k] = parent[j], rest[j], best[j]
        v = int(rest[j])
        last = rest.size - 1
        rest[j], best[j], parent[j] = rest[last], best[last], parent[last]
        rest, best, parent = rest[:last], best[:last], parent[:last]
        if rest.size:
            key = D[v, rest] + rng.laplace(0.0, scale, size=rest.size)
            upd = key < best
            best[upd] = key[upd]
            parent[upd] = v
    return us, vs, ws


# ---------------------------------------------------------------------------
# Weight-Release
# ---------------------------------------------------------------------------

def _check_bounds(weight_bounds):
    try:
        lo, hi = (float(b) for b in weight_bounds)
    except (TypeError, ValueError):
        raise ValueError(
            f"weight_bounds must be a pair (low, high) of numbers; got {weight_bounds!r}."
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"weight_bounds must be finite; got {weight_bounds!r}.")
    if lo >= hi:
        raise ValueError(
            f"weight_bounds must satisfy low < high; got low={lo!r}, high={hi!r} "
            "(inverted or empty bounds)."
        )
    if lo < 0:
        raise ValueError(
            f"weight_bounds low must be >= 0 (weights are distances); got {lo!r}."
        )
    return lo, hi


def data_weight_bounds(weights, stacklevel=3):
    """Bounds ``(min, max)`` read from private weights, with a PrivacyLeakWarning."""
    weights = np.asarray(weights, dtype=np.float64)
    warnings.warn(
        "weight_bounds were not given, so they are computed from the private "
        "weights (their minimum and maximum). This leaks information that the "
        "privacy guarantee does not cover. Pass public bounds, e.g. "
        "weight_bounds=(0.0, 1.0), for a true guarantee.",
        PrivacyLeakWarning, stacklevel=stacklevel,
    )
    if weights.size == 0:
        return 0.0, 1.0
    lo, hi = float(weights.min()), float(weights.max())
    if hi <= lo:
        hi = lo + max(abs(lo), 1.0)
    return lo, hi


def clip_to_bounds(weights, bounds, stacklevel=3):
    """Clip private weights into public bounds, warning when any lay outside.

    Clipping is 1-Lipschitz in every weight, so neighbouring weight functions
    stay neighbours under both neighbourhoods: the guarantee is unchanged.
    The warning itself depends on the private weights (it says that some
    weight left the bounds), hence it is a :class:`PrivacyLeakWarning`.
    """
    lo, hi = bounds
    weights = np.asarray(weights, dtype=np.float64)
    outside = int(np.count_nonzero((weights < lo) | (weights > hi)))
    if outside:
        warn_out_of_bounds(outside, bounds, stacklevel + 1)
        return np.clip(weights, lo, hi)
    return weights


def warn_out_of_bounds(count, bounds, stacklevel=3):
    """The :class:`PrivacyLeakWarning` of :func:`clip_to_bounds`."""
    warnings.warn(
        f"{count} weight(s) lie outside weight_bounds=({bounds[0]:g}, {bounds[1]:g}) "
        "and were clipped into them (this keeps the privacy guarantee; the "
        "warning itself reveals that some weight was out of bounds).",
        PrivacyLeakWarning, stacklevel=stacklevel,
    )


def normalize_weights(weights, weight_bounds):
    """Map released weights into ``(0, 1]`` with public bounds (post-processing).

    ``w' = (w - low) / (high - low)``, the Weight-Release normalisation
    ``(w + tau) / p`` with ``tau = -low`` and ``p = high - low`` derived from
    the public ``weight_bounds`` only, then clipped into
    ``[tiny, 1]`` where ``tiny`` is the smallest positive normal double, so
    that every weight is a positive distance as DBMSTClu's definitions
    assume. Reading only public numbers and released values, this is
    post-processing and costs no privacy.
    """
    lo, hi = _check_bounds(weight_bounds)
    out = (np.asarray(weights, dtype=np.float64) - lo) / (hi - lo)
    return np.clip(out, np.finfo(np.float64).tiny, 1.0)


def weight_release_noise(n_released, sensitivity, neighborhood, *, epsilon=None,
                         rho=None, delta=None, mechanism="laplace"):
    """Noise scale of the Weight-Release mechanism.

    Parameters
    ----------
    n_released : int
        Number of released weights (``|V| - n_components`` for a spanning
        forest; public).
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}
    epsilon : float, default=None
        Laplace: the pure-DP budget. Gaussian: with ``delta``, an
        ``(epsilon, delta)`` target converted to zCDP.
    rho : float, default=None
        Gaussian only: the zCDP budget (instead of ``epsilon``/``delta``).
    delta : float, default=None
    mechanism : {"laplace", "gaussian"}, default="laplace"

    Returns
    -------
    float
        Laplace scale ``Delta_1 / epsilon`` with ``Delta_1 = mu`` (l1) or
        ``(|V| - 1) mu`` (linf); or Gaussian standard deviation
        ``Delta_2 / sqrt(2 rho)`` with ``Delta_2 = mu`` (l1) or
        ``sqrt(|V| - 1) mu`` (linf).
    """
    if mechanism == "laplace":
        if rho is not None or delta is not None:
            raise ValueError("The Laplace Weight-Release takes epsilon only (pure DP).")
        if epsilon is None:
            raise ValueError("The Laplace Weight-Release needs epsilon.")
        return laplace_scale(release_sensitivity(n_released, sensitivity, neighborhood),
                             epsilon)
    if mechanism == "gaussian":
        if rho is None:
            if epsilon is None or delta is None:
                raise ValueError("The Gaussian Weight-Release needs rho, or epsilon and delta.")
            rho = approx_dp_to_zcdp(check_epsilon(epsilon), delta)
        elif epsilon is not None:
            raise ValueError("Give rho or (epsilon, delta), not both.")
        l2 = release_sensitivity(n_released, sensitivity, neighborhood, norm="l2")
        return gaussian_sigma(l2, check_epsilon(rho, "rho"))
    raise ValueError(f"mechanism must be 'laplace' or 'gaussian'; got {mechanism!r}.")


def release_tree_weights(tree, epsilon=None, *, sensitivity, neighborhood="l1",
                         weight_bounds=None, random_state=None, mechanism="laplace",
                         delta=None, rho=None, normalize=True):
    """Weight-Release: the weights of a (public) spanning tree, with noise.

    Adds noise to the true weights of the tree's edges, calibrated to the
    neighbourhood (:func:`weight_release_noise`), then normalises them with
    public bounds (post-processing). With ``mechanism="laplace"`` the release
    is ``epsilon``-DP; with ``"gaussian"`` it is ``rho``-zCDP (or
    ``(epsilon, delta)``-DP through the zCDP conversion).

    Parameters
    ----------
    tree : SpanningTree or sparse matrix
        The tree whose topology is already released (e.g. by :func:`pamst`);
        its weights are the true, private ones.
    epsilon : float, default=None
        Budget of the release (see ``mechanism``).
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}, default="l1"
        ``"l1"``: Laplace scale ``mu / epsilon``. ``"linf"``: every one of the
        ``|V| - 1`` weights can move by ``mu`` at once, so the scale is
        ``(|V| - 1) mu / epsilon``. (The UAI paper's Theorem 11 uses
        ``mu / epsilon`` for its linf neighbourhood, which is not
        ``epsilon``-DP.)
    weight_bounds : (float, float), default=None
        Public bounds ``(low, high)`` on the true weights. Weights outside
        them are clipped in (with a warning). ``None``: computed from the
        tree's weights, with a :class:`~skdpgraph.accounting.PrivacyLeakWarning`.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws fresh OS entropy; a fixed seed makes the release
        reproducible, hence not private against anyone who knows the seed.
    mechanism : {"laplace", "gaussian"}, default="laplace"
    delta : float, default=None
        Gaussian with ``epsilon``: the target delta.
    rho : float, default=None
        Gaussian: the zCDP budget (instead of ``epsilon`` and ``delta``).
    normalize : bool, default=True
        True: map into ``(0, 1]`` with :func:`normalize_weights` (the paper's
        ``tau`` and ``p`` from the public bounds). False: clip the noisy
        weights into the bounds.

    Returns
    -------
    SpanningTree
        Same topology; ``weights`` and ``tree`` hold the released weights.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.spanning_tree import minimum_spanning_tree, release_tree_weights
    >>> D = np.array([[0, .2, .9], [.2, 0, .4], [.9, .4, 0]])
    >>> t = release_tree_weights(minimum_spanning_tree(D), 1e6, sensitivity=0.1,
    ...                          weight_bounds=(0.0, 1.0), random_state=0)
    >>> np.round(t.weights, 3).tolist()
    [0.2, 0.4]
    """
    if not isinstance(tree, SpanningTree):
        g = check_graph(tree, metric="precomputed", what="tree")
        u, v, w = graph_edges(g)
        tree = SpanningTree(edges_to_csr(u, v, w, g.shape[0]), np.column_stack([u, v]), w)
    n = tree.tree.shape[0]
    k = tree.weights.size
    scale = weight_release_noise(k, sensitivity, neighborhood, epsilon=epsilon, rho=rho,
                                 delta=delta, mechanism=mechanism)
    if weight_bounds is None:
        bounds = data_weight_bounds(tree.weights)
    else:
        bounds = _check_bounds(weight_bounds)
    rng = check_random_state_or_entropy(random_state)
    w = clip_to_bounds(tree.weights, bounds)
    if mechanism == "laplace":
        noisy = w + rng.laplace(0.0, scale, size=k)
    else:
        noisy = w + rng.normal(0.0, scale, size=k)
    released = normalize_weights(noisy, bounds) if normalize else np.clip(noisy, *bounds)
    e = tree.edges
    return SpanningTree(edges_to_csr(e[:, 0], e[:, 1], released, n), e.copy(), released)
