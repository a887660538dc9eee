"""Prim's algorithm with Report-Noisy-Max steps (Pagh and Retschmeier).

From a uniformly random root, ``k = |V| - (components)`` times: among the
edges leaving the current tree, report the one minimising ``w(e) - b G(e)``
with fresh i.i.d. standard Gumbel ``G``. Report-Noisy-Max with Gumbel noise
is exactly the exponential mechanism ``P(e) ~ exp(-w(e) / b)`` (the
Gumbel-max trick), so each step is ``eps0 = 2 mu / b``-DP and
``eps0``-bounded range, hence ``eps0**2 / 8``-zCDP (Cesar and Rogers 2021),
under ``"linf"`` neighbours (each log-probability moves by at most
``2 mu / b``) and therefore under ``"l1"`` neighbours too. The ``k`` steps
compose to ``k mu**2 / (2 b**2)``-zCDP: for a target ``rho`` the scale is
``b = mu sqrt(k / (2 rho))``, and a user's ``(epsilon, delta)`` is turned
into ``rho`` by :func:`skdpgraph.accounting.approx_dp_to_zcdp`. With pure
composition (no ``delta``), ``b = 2 k mu / epsilon``, which is PAMST.

Sampling. Each step is drawn without listing the cut: for every node ``y``
outside the tree keep ``S(y) = log sum_{x in tree} exp(-w(x, y) / b)``; draw
``y`` with probability ``~ exp(S(y))``, then its tree end ``x`` with
probability ``~ exp(-w(x, y) / b)``; this is the exponential mechanism over
the cut. Adding ``y`` updates ``S`` with one ``logaddexp`` per node: ``O(|V|)``
per step and ``O(|V|^2)`` in all, in log space, so no spread of weights
overflows (Pagh and Retschmeier's dense-graph bound).
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ._graph import check_random_state_or_entropy
from ._input_perturbation import input_perturbation_scale
from ._tree import make_spanning_tree
from .mechanisms import check_neighborhood

__all__ = ["noisy_max_prim_tree", "noisy_max_prim_scale"]

#: Sparse graphs with more nodes than this are not densified.
MAX_DENSE_NODES = 6000


def noisy_max_prim_scale(*, sensitivity, n_tree_edges, epsilon=None, delta=None,
                         rho=None):
    """Gumbel scale ``b`` of every step, and the zCDP parameter (or None if pure).

    See :func:`noisy_max_prim_tree`; the calibration is the same as for the
    Gumbel input perturbation (both are ``k`` exponential mechanisms with
    ``P(e) ~ exp(-w(e) / b)``).
    """
    return input_perturbation_scale(
        "gumbel", sensitivity=sensitivity, neighborhood="linf",
        n_tree_edges=n_tree_edges, n_edges=0, epsilon=epsilon, delta=delta, rho=rho)


def _dense_log_conductance(graph, b):
    """``-w / b`` as a dense matrix, ``-inf`` for non-edges and the diagonal."""
    n = graph.shape[0]
    if sp.issparse(graph):
        G = np.full((n, n), -np.inf)
        coo = graph.tocoo()
        G[coo.row, coo.col] = -np.asarray(coo.data, dtype=np.float64) / b
    else:
        G = -np.asarray(graph, dtype=np.float64) / b
        np.fill_diagonal(G, -np.inf)
    return G


def _prim_exponential(G, rng):
    """Prim with one exponential-mechanism step per edge; ``G`` log-weights.

    Returns the chosen edges ``(x, y)``. Components are started at a
    uniformly random node not yet reached (uniform within each component).
    """
    n = G.shape[0]
    in_tree = np.zeros(n, dtype=bool)
    S = np.full(n, -np.inf)  # log of the cut weight reaching each outside node
    xs, ys = [], []
    r = int(rng.integers(n))
    in_tree[r] = True
    np.logaddexp(S, G[r], out=S)
    S[r] = -np.inf
    for _ in range(n - 1):
        keys = S + rng.gumbel(size=n)
        keys[in_tree] = -np.inf
        y = int(np.argmax(keys))
        if not np.isfinite(S[y]):
            # Empty cut: this component is done; root the next one.
            rest = np.flatnonzero(~in_tree)
            y = int(rest[rng.integers(rest.size)])
        else:
            col = np.where(in_tree, G[y], -np.inf)  # G is symmetric: a row, not a column
            x = int(np.argmax(col + rng.gumbel(size=n)))
            xs.append(x)
            ys.append(y)
        in_tree[y] = True
        np.logaddexp(S, G[y], out=S)
        S[in_tree] = -np.inf
    return np.asarray(xs, dtype=np.int64), np.asarray(ys, dtype=np.int64)


def noisy_max_prim_tree(graph, epsilon=None, *, sensitivity, neighborhood="linf",
                        delta=None, rho=None, random_state=None):
    """Private spanning tree by Prim's algorithm with Report-Noisy-Max steps.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        Canonical graph (:func:`skdpgraph.check_graph`); weights are
        distances. Sparse graphs of up to 6,000 nodes are densified
        (``O(|V|^2)`` memory); larger ones are sampled by
        :func:`skdpgraph.spanning_tree.pamst`, whose race of exponential
        clocks has the same law in ``O(|E| log |V|)``.
    epsilon : float, default=None
        Alone: pure ``epsilon``-DP by basic composition of the steps (this is
        PAMST). With ``delta``: ``(epsilon, delta)``-DP through zCDP.
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}, default="linf"
        The calibration is valid for both (it is the ``"linf"`` one).
    delta : float, default=None
        In (0, 1).
    rho : float, default=None
        A zCDP target instead of ``epsilon``.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws fresh OS entropy. A fixed seed makes the release
        reproducible, hence not private against anyone who knows the seed.

    Returns
    -------
    SpanningTree
        The chosen topology with the TRUE weights of its edges (not private;
        release them with ``skdpgraph.spanning_tree.release_tree_weights``).

    Notes
    -----
    Guarantee, with ``k = |V| - (components)`` and Gumbel scale ``b`` per
    step: ``k mu**2 / (2 b**2)``-zCDP and ``2 k mu / b``-DP. Given
    ``(epsilon, delta)``: ``rho = approx_dp_to_zcdp(epsilon, delta)`` and
    ``b = mu sqrt(k / (2 rho))``, so the per-step budget shrinks like
    ``1 / sqrt(k)``, not ``1 / k`` as in PAMST with pure composition.

    With ``rho`` (or ``(epsilon, delta)``) this is the law of
    :func:`skdpgraph.spanning_tree.pamst` called with the same ``rho``: PAMST
    under zCDP accounting. Time ``O(|V|^2)``, memory ``O(|V|^2)`` (dense
    input and sparse graphs up to 6,000 nodes).

    References
    ----------
    .. [PR24] R. Pagh and L. Retschmeier, "Faster Private Minimum Spanning
       Trees", arXiv:2408.06997.
    .. [CR21] M. Cesar and R. Rogers, "Bounding, Concentrating, and
       Truncating: Unifying Privacy Loss Composition for Data Analytics",
       ALT 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph._noisy_max_prim import noisy_max_prim_tree
    >>> D = np.array([[0, 1, 9], [1, 0, 2], [9, 2, 0]], dtype=float)
    >>> T = noisy_max_prim_tree(D, 1.0, delta=1e-6, sensitivity=0.01,
    ...                         random_state=0)
    >>> T.edges.tolist()
    [[0, 1], [1, 2]]
    """
    check_neighborhood(neighborhood)
    rng = check_random_state_or_entropy(random_state)
    n = graph.shape[0]
    n_comp = int(connected_components(graph, directed=False)[0]) if sp.issparse(graph) else 1
    b, rho_used = noisy_max_prim_scale(sensitivity=sensitivity, n_tree_edges=n - n_comp,
                                       epsilon=epsilon, delta=delta, rho=rho)
    if sp.issparse(graph) and n > MAX_DENSE_NODES:
        # Same law as PAMST with these per-step budgets; its race of
        # exponential clocks samples it in O(|E| log |V|) without densifying.
        from .spanning_tree import pamst

        if rho_used is not None:
            return pamst(graph, sensitivity=sensitivity, neighborhood=neighborhood,
                         rho=rho_used, random_state=rng, check_input=False)
        return pamst(graph, epsilon, sensitivity=sensitivity, neighborhood=neighborhood,
                     random_state=rng, check_input=False)
    G = _dense_log_conductance(graph, b)
    x, y = _prim_exponential(G, rng)
    if sp.issparse(graph):
        w = np.asarray(graph[x, y], dtype=np.float64).ravel() if x.size else np.zeros(0)
    else:
        w = graph[x, y]
    return make_spanning_tree(x, y, w, n)
