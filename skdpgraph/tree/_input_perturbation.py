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

import numpy as np
import scipy.sparse as sp

from ..privacy import (
    input_perturbation_scale,
    release_gaussian,
    release_laplace,
    release_sensitivity,
    standard_gumbel,
)
from ..utils import check_random_state, graph_edges, n_components
from ..privacy._calibration import rate_of_scale
from ._base import as_graph, check_exact_log_spread, make_spanning_tree
from ._mst import edge_list_mst
from ..utils._docs import fill_doc


@fill_doc
def input_perturbation_tree(graph, epsilon=None, *, sensitivity, neighborhood="linf",
                            delta=None, rho=None, random_state=None, check_input=True,
                            noise="gumbel"):
    """MST of the weights perturbed once with noise (input perturbation).

    Parameters
    ----------
    {{graph}}
    epsilon : float, default=None
        Privacy budget. Alone: pure ``epsilon``-DP. With ``delta``:
        ``(epsilon, delta)``-DP, reached through zCDP (``"gumbel"`` and
        ``"gaussian"``).
    {{sensitivity}}
    neighborhood : {"l1", "linf"}, default="linf"
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``). The Gumbel calibration is
        the same under both; Laplace and Gaussian noise cover the ``|E|``
        weights (sensitivity ``|E| mu``, or ``sqrt(|E|) mu`` in L2, under
        ``"linf"``).
    delta : float, default=None
        In (0, 1).
    rho : float, default=None
        A zCDP target instead of ``epsilon`` (``"gumbel"``, ``"gaussian"``).
    {{random_state}}
    {{check_input}}
    noise : {"gumbel", "laplace", "gaussian"}, default="gumbel"
        See the module documentation for the calibration of each.

    Returns
    -------
    SpanningTree
        ``"gumbel"``: the chosen topology with the TRUE weights (the noise
        does not make weights private; release them with
        ``skdpgraph.tree.release_tree_weights``). ``"laplace"`` and
        ``"gaussian"``: the released noisy weights of the tree edges (private
        as post-processing; they may be negative, and clipping them is free).

    Notes
    -----
    Guarantees (topology public), with ``k = |V| - (components)``:

    ========  ==============================  ===========================================
    noise     scale                           guarantee
    ========  ==============================  ===========================================
    gumbel    ``2 k mu / epsilon``            ``epsilon``-DP (``delta`` and ``rho`` None)
    gumbel    ``mu sqrt(k/(2 rho))``          ``rho``-zCDP (``rho`` from
                                              ``(epsilon, delta)`` if given so)
    laplace   ``mu/eps`` or                   ``epsilon``-DP (``"l1"`` / ``"linf"``)
              ``|E| mu/eps``
    gaussian  ``mu/sqrt(2 rho)`` or           ``rho``-zCDP (``"l1"`` / ``"linf"``)
              ``sqrt(|E|) mu/sqrt(2 rho)``
    ========  ==============================  ===========================================

    Running time: one noise draw per edge and one exact MST (scipy's
    Kruskal on the sparse graph, ``O(|V|^2)`` Prim on dense input).

    References
    ----------
    .. [PRWZ24] R. Pagh, L. Retschmeier, H. Wu and H. Zhang, "Optimal Bounds
       for Private Minimum Spanning Trees via Input Perturbation",
       arXiv:2412.10130.
    .. [S16] A. Sealfon, "Shortest Paths and Distances with Differential
       Privacy", PODS 2016.
    .. [CR21] {{cesar_rogers}}

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import input_perturbation_tree
    >>> D = np.array([[0, 1, 9], [1, 0, 2], [9, 2, 0]], dtype=float)
    >>> T = input_perturbation_tree(D, 1.0, delta=1e-6, sensitivity=0.01,
    ...                             random_state=0)
    >>> T.edges.tolist(), T.weights.tolist()
    ([[0, 1], [1, 2]], [1.0, 2.0])
    """
    # The calibration is checked before any private value is read.
    input_perturbation_scale(noise, sensitivity=sensitivity, neighborhood=neighborhood,
                             n_tree_edges=1, n_edges=1, epsilon=epsilon, delta=delta,
                             rho=rho)
    graph = as_graph(graph, check_input)
    rng = check_random_state(random_state)
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    if u.size == 0:  # nothing to release: the empty forest
        return make_spanning_tree(u, v, w, n, check_input=False)
    noisy = input_perturbation_edge_noise(
        w, n_edges=u.size, n_tree_edges=n - n_components(graph), sensitivity=sensitivity,
        neighborhood=neighborhood, epsilon=epsilon, delta=delta, rho=rho, random_state=rng,
        noise=noise)
    idx = edge_list_mst(u, v, noisy, n, dense=not sp.issparse(graph))
    released = w[idx] if noise == "gumbel" else noisy[idx]
    return make_spanning_tree(u[idx], v[idx], released, n, check_input=False)


def input_perturbation_edge_noise(weights, *, n_edges, n_tree_edges, sensitivity,
                                  neighborhood, epsilon=None, delta=None, rho=None,
                                  random_state, noise="gumbel"):
    """The perturbed weights (the MST's keys) of some of a graph's ``n_edges`` edges.

    Calibrated for the whole graph (``n_edges`` weights, a forest of
    ``n_tree_edges`` edges; both public), so that parts perturbed separately
    with independent generators (the partitions of a distributed edge
    table) make exactly the perturbation of :func:`input_perturbation_tree`.

    Parameters
    ----------
    weights : ndarray of shape (m,)
        True weights, already clipped into the public bounds.
    n_edges : int
        ``|E|`` (public), ``>= m``.
    n_tree_edges : int
        ``|V|`` minus the number of connected components (public).
    sensitivity, neighborhood, epsilon, delta, rho, noise
        As for :func:`input_perturbation_tree`.
    random_state : numpy.random.Generator

    Returns
    -------
    ndarray of shape (m,)
        ``"gumbel"``: keys only (not private values; the tree's true weights
        are released afterwards). ``"laplace"``, ``"gaussian"``: released
        noisy weights.
    """
    scale, rho_used = input_perturbation_scale(
        noise, sensitivity=sensitivity, neighborhood=neighborhood,
        n_tree_edges=n_tree_edges, n_edges=n_edges, epsilon=epsilon, delta=delta, rho=rho)
    m = np.asarray(weights).size
    if noise == "gumbel":
        if scale > 0:  # keys w - b G round at ulp(w): within 2**-20 of b, or refused
            check_exact_log_spread(rate_of_scale(scale),
                                   float(np.max(np.abs(weights), initial=0)),
                                   "input perturbation")
        # Absurd scales may overflow a key to +-inf: still an edge, ordered as the MST
        # of the keys orders it (keys only, never released).
        with np.errstate(over="ignore"):
            return weights - scale * standard_gumbel(m, random_state)
    if noise == "laplace":
        return release_laplace(weights, release_sensitivity(n_edges, sensitivity, neighborhood),
                               epsilon, random_state, n_values=int(n_edges))
    return release_gaussian(
        weights, release_sensitivity(n_edges, sensitivity, neighborhood, norm="l2"), rho_used,
        random_state, n_values=int(n_edges))


def input_perturbation_rate(n_tree_edges, *, sensitivity, neighborhood, epsilon=None,
                            rho=None):
    """``1 / b`` of the Gumbel input perturbation on a forest of ``n_tree_edges`` edges (the
    registry's ``exact_rate``)."""
    scale, _ = input_perturbation_scale("gumbel", sensitivity=sensitivity,
                                        neighborhood=neighborhood, n_tree_edges=n_tree_edges,
                                        n_edges=max(n_tree_edges, 1), epsilon=epsilon,
                                        rho=rho)
    return rate_of_scale(scale)
