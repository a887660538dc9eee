"""Input perturbation: noise on every weight once, then an exact MST.

Three noise distributions, with different guarantees:

``"gumbel"`` (default; the input perturbation of Pagh, Retschmeier, Wu and Zhang)
    ``w'(e) = w(e) - b G(e)`` with i.i.d. standard Gumbel ``G(e)``; release
    the topology of the MST of ``w'``. The noise is far too small to make
    ``w'`` itself private (it does not grow with ``|E|``), yet the MST
    topology is: Kruskal's algorithm on ``w'`` visits the edges in
    increasing ``w'``, and the increasing order of ``w - b G`` is the
    Plackett-Luce order with weights ``exp(-w / b)`` (the Gumbel-max trick
    applied repeatedly). Given the edges accepted so far, the next accepted
    edge is the first remaining edge in that order that closes no cycle,
    and the Plackett-Luce order restricted to those edges is again
    Plackett-Luce, so it is drawn with probability
    ``exp(-w(e) / b) / sum_{f valid} exp(-w(f) / b)``: an exponential
    mechanism over the edges that keep the forest acyclic. The MST topology
    is therefore a post-processing of ``k = |V| - (components)`` adaptively
    chosen exponential mechanisms, each ``eps0 = 2 mu / b``-DP and
    ``eps0``-bounded range (every weight moves by at most ``mu``, so each
    log-probability by at most ``2 mu / b``), hence ``eps0**2 / 8``-zCDP
    (Cesar and Rogers 2021). In total: pure ``k eps0``-DP, or
    ``k eps0**2 / 8 = k mu**2 / (2 b**2)``-zCDP, which converts to
    ``(epsilon, delta)``-DP. For a target ``rho`` the scale is
    ``b = mu sqrt(k / (2 rho))``: noise of order ``mu sqrt(|V|)``, which is
    what makes the error of the released tree ``O~(|V|^1.5 mu)`` instead of
    the ``O~(|V|^2 mu)`` of perturbing for a private weight vector
    (Pagh et al., 2024). The true weights are returned: the noisy weights are
    not private.

``"laplace"`` (Sealfon's baseline)
    Laplace noise calibrated to release the whole weight vector: scale
    ``mu / epsilon`` (``"l1"``) or ``|E| mu / epsilon`` (``"linf"``); pure
    ``epsilon``-DP; the noisy weights of the tree are released too.

``"gaussian"``
    Gaussian noise calibrated to release the whole weight vector under
    zCDP: L2 sensitivity ``mu`` (``"l1"``) or ``sqrt(|E|) mu`` (``"linf"``),
    ``sigma = Delta_2 / sqrt(2 rho)``; the noisy tree weights are released.

The calibrations hold under both neighbourhoods. For ``"gumbel"`` the
``"linf"`` analysis is used for ``"l1"`` too (an ``l1`` neighbour is an
``linf`` neighbour with the same ``mu``); under ``"l1"`` the exponential
mechanism over trees or Laplace input perturbation is usually the better
choice.
"""

import functools
import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as _scipy_mst

from ._graph import check_random_state_or_entropy
from ._tree import _dense_prim, make_spanning_tree
from .accounting import approx_dp_to_zcdp
from .mechanisms import check_epsilon, check_neighborhood, check_sensitivity

__all__ = ["input_perturbation_tree", "input_perturbation_scale", "INPUT_NOISES"]

#: Noise distributions of :func:`input_perturbation_tree`.
INPUT_NOISES = ("gumbel", "laplace", "gaussian")


@functools.lru_cache(maxsize=256)
def _rho_for(epsilon, delta):
    """``approx_dp_to_zcdp`` (a numerical inversion), cached: it is a pure function."""
    return approx_dp_to_zcdp(epsilon, delta)


def _check_delta(delta):
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in the open interval (0, 1); got {delta!r}.")
    return delta


def _check_rho(rho):
    rho = float(rho)
    if not (rho > 0.0 and math.isfinite(rho)):
        raise ValueError(f"rho must be a positive finite number; got {rho!r}.")
    return rho


def input_perturbation_scale(noise, *, sensitivity, neighborhood, n_tree_edges,
                             n_edges, epsilon=None, delta=None, rho=None):
    """Noise scale of :func:`input_perturbation_tree` and the guarantee it gives.

    Parameters
    ----------
    noise : {"gumbel", "laplace", "gaussian"}
    sensitivity : float
        ``mu`` (> 0).
    neighborhood : {"l1", "linf"}
    n_tree_edges : int
        ``|V|`` minus the number of connected components (public).
    n_edges : int
        ``|E|`` (public).
    epsilon, delta, rho : float or None
        Either ``epsilon`` (pure DP; with ``delta`` an ``(epsilon, delta)``
        target reached through zCDP) or ``rho`` (a zCDP target). Laplace
        noise is pure: it needs ``epsilon`` and ignores ``delta``. Gaussian
        noise needs ``delta`` or ``rho``.

    Returns
    -------
    scale : float
        Gumbel scale ``b``, Laplace scale or Gaussian standard deviation.
    rho_spent : float or None
        The zCDP parameter of the release when calibrated through zCDP, else
        ``None`` (pure ``epsilon``-DP).
    """
    if noise not in INPUT_NOISES:
        raise ValueError(f"noise must be one of {INPUT_NOISES}; got {noise!r}.")
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    if (epsilon is None) == (rho is None):
        raise ValueError("Give exactly one of epsilon (optionally with delta) and rho.")
    if rho is not None:
        if delta is not None:
            raise ValueError("delta goes with epsilon; a rho target needs no delta.")
        rho = _check_rho(rho)
        if noise == "laplace":
            raise ValueError("Laplace noise is calibrated by epsilon (pure DP), not rho.")
    else:
        epsilon = check_epsilon(epsilon)
        if delta is not None:
            delta = _check_delta(delta)
            if noise != "laplace":
                rho = _rho_for(epsilon, delta)
        elif noise == "gaussian":
            raise ValueError("Gaussian noise needs delta (or a rho target).")
    k = max(int(n_tree_edges), 1)
    if noise == "gumbel":
        if rho is None:
            return 2.0 * k * mu / epsilon, None  # k steps, each (2 mu / b)-DP
        return mu * math.sqrt(k / (2.0 * rho)), rho  # k * mu^2 / (2 b^2) = rho
    if noise == "laplace":
        l1 = mu if neighborhood == "l1" else int(n_edges) * mu
        return l1 / epsilon, None
    l2 = mu if neighborhood == "l1" else math.sqrt(int(n_edges)) * mu
    return l2 / math.sqrt(2.0 * rho), rho


def _edges_of(graph):
    """``(u, v, w)`` of a canonical sparse graph, u < v, lexicographic, in O(m)."""
    coo = graph.tocoo()  # CSR order: rows ascending, columns sorted
    keep = coo.row < coo.col
    return (coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64),
            np.asarray(coo.data[keep], dtype=np.float64))


def _sparse_mst_indices(u, v, key, n):
    """Indices of the MST edges of ``(u, v)`` (lexicographic) under any real ``key``."""
    m = u.size
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    # scipy reads zeros as non-edges and only the order of keys matters: map
    # to strictly positive ranks (ties have probability zero for continuous
    # noise).
    rank = np.empty(m)
    rank[np.argsort(key, kind="stable")] = np.arange(1, m + 1)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(u, minlength=n), out=indptr[1:])
    A = sp.csr_array((rank, v, indptr), shape=(n, n))
    T = _scipy_mst(A).tocoo()
    by_rank = np.empty(m, dtype=np.int64)
    by_rank[rank.astype(np.int64) - 1] = np.arange(m)
    return by_rank[np.rint(T.data).astype(np.int64) - 1]


def input_perturbation_tree(graph, epsilon=None, *, sensitivity, neighborhood="linf",
                            delta=None, rho=None, random_state=None, noise="gumbel"):
    """MST of the weights perturbed once with noise (input perturbation).

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        Canonical graph (:func:`skdpgraph.check_graph`); weights are
        distances.
    epsilon : float, default=None
        Privacy budget. Alone: pure ``epsilon``-DP. With ``delta``:
        ``(epsilon, delta)``-DP, reached through zCDP (``"gumbel"`` and
        ``"gaussian"``).
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}, default="linf"
    delta : float, default=None
        In (0, 1).
    rho : float, default=None
        A zCDP target instead of ``epsilon`` (``"gumbel"``, ``"gaussian"``).
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws fresh OS entropy. A fixed seed makes the release
        reproducible, hence not private against anyone who knows the seed.
    noise : {"gumbel", "laplace", "gaussian"}, default="gumbel"
        See the module documentation for the calibration of each.

    Returns
    -------
    SpanningTree
        ``"gumbel"``: the chosen topology with the TRUE weights (the noise
        does not make weights private; release them with
        ``skdpgraph.spanning_tree.release_tree_weights``). ``"laplace"`` and
        ``"gaussian"``: the released noisy weights of the tree edges (private
        as post-processing; they may be negative, and clipping them is free).

    Notes
    -----
    Guarantees (topology public), with ``k = |V| - (components)``:

    ========  ====================  ===========================================
    noise     scale                 guarantee
    ========  ====================  ===========================================
    gumbel    ``2 k mu / epsilon``  ``epsilon``-DP (``delta`` and ``rho`` None)
    gumbel    ``mu sqrt(k/(2 rho))``  ``rho``-zCDP (``rho`` from
                                    ``(epsilon, delta)`` if given so)
    laplace   ``mu/eps`` or         ``epsilon``-DP (``"l1"`` / ``"linf"``)
              ``|E| mu/eps``
    gaussian  ``mu/sqrt(2 rho)`` or ``rho``-zCDP (``"l1"`` / ``"linf"``)
              ``sqrt(|E|) mu/sqrt(2 rho)``
    ========  ====================  ===========================================

    Running time: one noise draw per edge and one exact MST (scipy's
    Kruskal on the sparse graph, ``O(|V|^2)`` Prim on dense input).

    References
    ----------
    .. [PRWZ24] R. Pagh, L. Retschmeier, H. Wu and H. Zhang, "Optimal Bounds
       for Private Minimum Spanning Trees via Input Perturbation",
       arXiv:2412.10130.
    .. [S16] A. Sealfon, "Shortest Paths and Distances with Differential
       Privacy", PODS 2016.
    .. [CR21] M. Cesar and R. Rogers, "Bounding, Concentrating, and
       Truncating: Unifying Privacy Loss Composition for Data Analytics",
       ALT 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph._input_perturbation import input_perturbation_tree
    >>> D = np.array([[0, 1, 9], [1, 0, 2], [9, 2, 0]], dtype=float)
    >>> T = input_perturbation_tree(D, 1.0, delta=1e-6, sensitivity=0.01,
    ...                             random_state=0)
    >>> T.edges.tolist(), T.weights.tolist()
    ([[0, 1], [1, 2]], [1.0, 2.0])
    """
    rng = check_random_state_or_entropy(random_state)
    n = graph.shape[0]
    dense = not sp.issparse(graph)
    if dense:
        iu, iv = np.triu_indices(n, k=1)
        u, v, w = iu.astype(np.int64), iv.astype(np.int64), graph[iu, iv]
        n_comp = 1
    else:
        u, v, w = _edges_of(graph)
        n_comp = int(connected_components(graph, directed=False)[0])
    scale, _ = input_perturbation_scale(
        noise, sensitivity=sensitivity, neighborhood=neighborhood,
        n_tree_edges=n - n_comp, n_edges=u.size, epsilon=epsilon, delta=delta,
        rho=rho)
    if noise == "gumbel":
        noisy = w - scale * rng.gumbel(size=u.size)
    elif noise == "laplace":
        noisy = w + rng.laplace(0.0, scale, size=u.size)
    else:
        noisy = w + rng.normal(0.0, scale, size=u.size)
    if dense:
        M = np.zeros((n, n))
        M[u, v] = noisy
        M[v, u] = noisy
        tu, tv, tw = _dense_prim(M)
        if noise == "gumbel":
            tw = graph[tu, tv]
        return make_spanning_tree(tu, tv, tw, n)
    idx = _sparse_mst_indices(u, v, noisy, n)
    released = w[idx] if noise == "gumbel" else noisy[idx]
    return make_spanning_tree(u[idx], v[idx], released, n)
