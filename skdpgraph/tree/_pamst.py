"""PAMST: Prim's algorithm with exponential-mechanism steps, sampled exactly.

Privacy model (weight-DP): the topology ``G = (V, E)`` is public, the weights
``w`` (distances) are private. The samplers here are shared by
:func:`pamst` and :func:`~skdpgraph.tree.noisy_max_prim_tree`, which draw the
same law (``|V| - 1`` composed exponential mechanisms over the current cut).
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from ..privacy import (
    check_neighborhood,
    check_sensitivity,
    pamst_step_epsilon,
    resolve_budget,
    standard_gumbel,
)
from ..privacy._calibration import step_rate
from ..privacy._samplers import standard_exponential
from ..utils import (
    check_random_state,
    directed_csr,
    graph_edges,
    index_dtype,
    weight_range,
)
from ._base import as_graph, capped_rate, make_spanning_tree
from ..utils._docs import fill_doc

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
_MIN_PHASE_YIELD = 256


# ---------------------------------------------------------------------------
# PAMST
# ---------------------------------------------------------------------------

@fill_doc
def pamst(graph, epsilon=None, *, sensitivity, neighborhood="l1", delta=None, rho=None,
          random_state=None, check_input=True, method="auto"):
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
    {{graph}}
    epsilon : float, default=None
        Pure-DP budget of the whole tree, split evenly over the steps. The
        released topology is ``epsilon``-DP under both neighbourhoods.
    {{sensitivity}}
    neighborhood : {"l1", "linf"}, default="l1"
        Checked for consistency with the other mechanisms; the calibration of
        PAMST is the same under both.
    delta : float, default=None
        With ``epsilon``: an ``(epsilon, delta)``-DP target, reached through
        zCDP (``rho = approx_dp_to_zcdp(epsilon, delta)``).
    rho : float, default=None
        Instead of ``epsilon``: a zCDP budget; the tree is then ``rho``-zCDP
        (see :func:`skdpgraph.privacy.pamst_step_epsilon`).
    {{random_state}}
    {{check_input}}
    method : {"auto", "race", "sequential"}, default="auto"
        Sampler of a sparse graph (all three draw the same law; see Notes):
        ``"race"``, restarts of the race of exponential clocks only;
        ``"sequential"``, the sequential exponential mechanism from the
        roots (``O((|V| + |E|) sqrt(|V|))`` with a Python-level loop); ``"auto"``,
        the race, handing over to the sequential sampler when phases become
        unproductive. Dense graphs have one sampler.

    Returns
    -------
    SpanningTree
        The released topology (a spanning forest for a disconnected graph).
        ``weights`` holds the TRUE weights of the chosen edges: they are not
        private; release them with :func:`~skdpgraph.tree.release_tree_weights`.

    Notes
    -----
    *Sparse graphs: the race of exponential clocks,* ``O(|E| log |V|)``. Give each
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
    unproductive (each reaches few nodes for its ``O(|E|)`` cost; this happens
    only for huge ``c (w_max - w_min)``, where PAMST is close to the exact
    MST), the sampler finishes with the sequential exponential mechanism
    over log-space block sums (:func:`_pamst_sequential`), exact by
    definition, with a Python-level loop over the nodes.
    Absurd budgets with ``c (w_max - w_min) > 1e300`` are capped there,
    which only alters the odds of weights closer than ``1e-297`` times
    their spread and keeps every number finite: no NaN or infinity can
    reach the tree.

    *Dense (complete) graphs:* ``O(|V|^2)`` *time,* ``O(|V|)`` *extra memory.* The
    sequential exponential mechanism itself, vectorised: for every node ``v``
    outside the tree keep ``a(v) = log sum_{u in tree} exp(-s(u, v))``
    (updated with ``logaddexp`` when a node joins; no overflow, no
    accumulated time), draw the next node with probability proportional to
    ``exp(a(v))`` and its parent with probability proportional to
    ``exp(-s(u, v))``. The product is exactly ``exp(-s(e)) / sum_cut exp(-s)``.
    This departs from the clock race (one clock per edge drawn when its first
    endpoint joins) because it is the definition itself, with no floating-point
    sums of times at all, at the same ``O(|V|^2)`` cost.

    *No probability underflows to zero.* The clocks ``X(e)`` come from
    :func:`skdpgraph.privacy.standard_gumbel`'s exponential, whose tails are
    unbounded (numpy's stop near 44 and near ``2**-53``, so that an edge
    heavier by more than about 40 in ``s`` could never ring first). A
    draw proportional to weights uses an inverse-CDF lookup on a 53-bit
    uniform only when every weight has at least ``2**-20`` of the total (so
    every cell spans at least ``2**33`` steps of the uniform); otherwise, and whenever
    ``exp`` could underflow, it is a Gumbel-max over the log-weights with
    unbounded Gumbel tails. Every tree of positive probability therefore
    keeps a positive probability. What remains is the resolution of double
    precision: uniforms on a ``2**-53`` grid and rounding of order
    ``|V| 2**-53`` of the total in the cumulative sums, so that a weight of
    a fraction ``f >= 2**-20`` of the total is drawn within a relative
    ``(|V| + 1) 2**-53 / f <= (|V| + 1) 2**-33`` of its probability, and the
    restarts' ``7e-9`` relative accuracy of ring times stated above; there
    is no truncation.

    References
    ----------
    R. Pinot, "Minimum spanning tree release under differential privacy
    constraints", master thesis, 2017, Algorithm 1 and Theorem 3.4.2.
    R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
    Clustering under Differential Privacy", UAI 2018, Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import pamst
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> t = pamst(D, epsilon=100.0, sensitivity=1.0, random_state=0)
    >>> t.edges.tolist()
    [[0, 1], [1, 2]]
    """
    epsilon, rho = resolve_budget(epsilon, delta, rho, owner="pamst")
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    _check_method(method)
    graph = as_graph(graph, check_input)
    rng = check_random_state(random_state)
    components = _components(graph)
    c = pamst_rate(graph.shape[0] - components[0], sensitivity=mu, neighborhood=neighborhood,
                   epsilon=epsilon, rho=rho)
    return exponential_prim(graph, c, rng, method=method, components=components)


def pamst_rate(n_tree_edges, *, sensitivity, neighborhood, epsilon=None, rho=None):
    """Inverse temperature ``c = eps_step / (2 mu)`` of PAMST's steps ``P(e) ~ exp(-c w(e))``
    on a forest of ``n_tree_edges`` edges (the registry's ``rate``)."""
    return step_rate(pamst_step_epsilon(n_tree_edges, epsilon, rho), sensitivity)


#: Samplers of :func:`exponential_prim` on sparse graphs.
PRIM_METHODS = ("auto", "race", "sequential")


def _check_method(method):
    if method not in PRIM_METHODS:
        raise ValueError(f"method must be one of {PRIM_METHODS}; got {method!r}.")


def _components(graph):
    """``(n_components, labels)`` of a canonical graph (labels ``None`` if dense),
    numbered by smallest node."""
    if not sp.issparse(graph):
        return 1, None
    from ..utils._sparse_kernels import csr_components  # numba: imported when used

    return csr_components(graph.indptr, graph.indices)


def exponential_prim(graph, c, random_state, method="auto", components=None):
    """Prim's algorithm whose every step is the exponential mechanism, exactly.

    From a uniformly random root in each connected component, ``|V| - 1``
    times: add edge ``e`` of the current cut with probability proportional to
    ``exp(-c w(e))``. This is the law of :func:`pamst` (with ``c = eps_step /
    (2 mu)``) and of Report-Noisy-Max Prim (with ``c = 1 / b``).

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        Canonical graph.
    c : float
        Inverse temperature (> 0).
    random_state : numpy.random.Generator
    method : {"auto", "race", "sequential"}, default="auto"
        Sampler of a sparse graph; see :func:`pamst`.
    components : tuple, default=None
        ``(n_components, labels)`` of ``graph`` if the caller has them
        (computed otherwise).

    Returns
    -------
    SpanningTree
        The drawn forest with the TRUE weights of its edges.
    """
    _check_method(method)
    rng = random_state
    n = graph.shape[0]
    n_comp, comp = _components(graph) if components is None else components
    if n - n_comp == 0:
        return make_spanning_tree([], [], [], n, check_input=False)
    c = capped_rate(c, *weight_range(graph))
    if not sp.issparse(graph):
        u, v = _pamst_dense(graph, c, rng)
        return make_spanning_tree(u, v, graph[u, v], n, check_input=False)
    parent, child = _pamst_sparse(graph, c, n_comp, comp, rng, method)
    weights = np.asarray(graph[parent, child], dtype=np.float64).ravel()
    return make_spanning_tree(parent, child, weights, n, check_input=False)


def _random_roots(comp, n_comp, rng):
    """One uniformly random node per connected component."""
    order = np.argsort(comp, kind="stable")
    counts = np.bincount(comp, minlength=n_comp)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pick = starts + np.minimum((rng.random(n_comp) * counts).astype(np.int64), counts - 1)
    return order[pick]


def _component_min(values, labels, n_labels):
    if n_labels == 1:
        return np.array([values.min() if values.size else np.inf])
    out = np.full(n_labels, np.inf)
    np.minimum.at(out, labels, values)
    return out


def _pamst_sparse(graph, c, n_comp, comp, rng, method):
    """Parent and child arrays of a PAMST forest of a canonical sparse graph.

    Runs restarts of the clock race (:func:`_pamst_phase`) while they are
    productive; when a phase reaches fewer nodes than its O(|E|) cost is
    worth (huge ``c (w_max - w_min)``: every descent into a much lighter
    region stops a phase), finishes with the exact sequential sampler
    :func:`_pamst_sequential`.
    """
    n = graph.shape[0]
    row, col, w = graph_edges(graph)
    col = col.astype(index_dtype(n, col.size))  # scipy's kernels take 32-bit indices
    roots = _random_roots(comp, n_comp, rng)
    # Per-component shift: a constant factor on one component's lengths.
    s = w - _component_min(w, comp[row], n_comp)[comp[row]]
    s *= c
    settled = np.zeros(n, dtype=bool)
    settled[roots] = True
    pred = np.full(n, -1, dtype=np.int64)
    n_settled = roots.size
    if method == "sequential" and n_settled < n:
        _pamst_sequential(graph, c, settled, pred, rng)
    while n_settled < n and method != "sequential":
        reached, n_active = _pamst_phase(row, col, s, comp, n_comp, settled, pred, rng)
        n_settled += reached
        if (n_settled < n and method == "auto"
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
    x = standard_exponential(t.size, rng)  # unbounded tails: every order possible
    t_min, t_max = float(t.min()), float(t.max())
    light = None
    if t_min >= -_LOG_LIGHT and t_max <= _LOG_HORIZON - 50.0:
        # Common case: no clock can overflow or be left out.
        lengths = directed_csr(row, col, x * np.exp(t), n)
    else:
        with np.errstate(divide="ignore"):
            log_len = np.log(x) + t
        light = t < -_LOG_LIGHT
        keep = (log_len <= _LOG_HORIZON) & ~light
        lengths = directed_csr(row[keep], col[keep], np.exp(log_len[keep]), n)
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
        b = _sample_log_weights(blocks, r[0], rng)
        v = b * width + _sample_log_weights(grid[b], r[1], rng)
        lo, hi = indptr[v], indptr[v + 1]
        nbrs, ls = indices[lo:hi], neg_s[lo:hi]
        inside = settled[nbrs]
        pred[v] = nbrs[inside][_sample_log_weights(ls[inside], r[2], rng)]
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
    wmin, wmax = weight_range(D)
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
        j = _sample_weights(a, uniforms[k, 0], rng) if linear else _sample_log_weights(
            a, uniforms[k, 0], rng)
        v = int(rest[j])
        # Its parent u in the tree with probability exp(-s(u, v)) / A(v).
        settled = tree[:k + 1]
        i = _sample_log_weights(-c * (D[v, settled] - wmin), uniforms[k, 1], rng)
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


#: Inverse-CDF sampling is used only when every weight has at least this
#: fraction of the total: its cell then spans at least ``2**33`` steps of
#: the uniform (a relative error of at most ``2**-33``). Otherwise a light
#: entry could get probability 0 (its cell
#: absorbed by rounding, or ``exp`` underflowing), and the draw is a
#: Gumbel-max in log space with unbounded Gumbel tails instead.
_CDF_MIN_FRACTION = 2.0 ** -20


def _sample_weights(weights, u, rng):
    """Index drawn with probability proportional to ``weights`` (>= 0, some > 0)."""
    cdf = np.cumsum(weights)
    if np.min(weights, where=weights > 0, initial=np.inf) < _CDF_MIN_FRACTION * cdf[-1]:
        with np.errstate(divide="ignore"):
            return _gumbel_argmax(np.log(weights), rng)
    return min(int(np.searchsorted(cdf, u * cdf[-1], side="right")), weights.size - 1)


def _sample_log_weights(logw, u, rng):
    """Index drawn with probability proportional to ``exp(logw)``, any spread."""
    if logw.size == 1:
        return 0
    top = logw.max()
    low = np.min(logw, where=logw > -np.inf, initial=np.inf)
    if low - top < math.log(_CDF_MIN_FRACTION / logw.size):
        return _gumbel_argmax(logw, rng)
    p = np.exp(logw - top)
    cdf = np.cumsum(p)
    return min(int(np.searchsorted(cdf, u * cdf[-1], side="right")), logw.size - 1)


def _gumbel_argmax(logw, rng):
    """Gumbel-max draw; exact in log space, no entry of finite ``logw`` impossible.

    Entries ``-inf`` never win (the Gumbel noise is finite).
    """
    return int(np.argmax(logw + standard_gumbel(logw.size, rng)))
