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
into ``rho`` by :func:`skdpgraph.privacy.approx_dp_to_zcdp`. With pure
composition (no ``delta``), ``b = 2 k mu / epsilon``, which is PAMST.

Sampling. The law is PAMST's with ``c = 1 / b``, so the samplers are
PAMST's (:func:`~skdpgraph.tree.pamst`): on a dense (complete) graph each step
draws the new node ``y`` with probability ``~ exp(S(y))``, ``S(y) = log
sum_{x in tree} exp(-w(x, y) / b)``, then its tree end, in ``O(|V|)`` per step
and ``O(|V|^2)`` in all, in log space (Pagh and Retschmeier's dense-graph
bound); on a sparse graph the race of exponential clocks samples the same
law in ``O(|E| log |V|)`` time and ``O(|V| + |E|)`` memory, whatever its size.
"""

from ..privacy import check_neighborhood, noisy_max_prim_scale
from ..privacy._calibration import rate_of_scale
from ..utils import check_random_state
from ._base import as_graph
from ._pamst import _components, exponential_prim
from ..utils._docs import fill_doc


@fill_doc
def noisy_max_prim_tree(graph, epsilon=None, *, sensitivity, neighborhood="linf",
                        delta=None, rho=None, random_state=None, check_input=True):
    """Private spanning tree by Prim's algorithm with Report-Noisy-Max steps.

    Parameters
    ----------
    {{graph}}
    epsilon : float, default=None
        Alone: pure ``epsilon``-DP by basic composition of the steps (this is
        PAMST). With ``delta``: ``(epsilon, delta)``-DP through zCDP.
    {{sensitivity}}
    neighborhood : {"l1", "linf"}, default="linf"
        The calibration is valid for both (it is the ``"linf"`` one).
    delta : float, default=None
        In (0, 1).
    rho : float, default=None
        A zCDP target instead of ``epsilon``.
    {{random_state}}
    {{check_input}}

    Returns
    -------
    SpanningTree
        The chosen topology with the TRUE weights of its edges (not private;
        release them with ``skdpgraph.tree.release_tree_weights``).

    Notes
    -----
    Guarantee, with ``k = |V| - (components)`` and Gumbel scale ``b`` per
    step: ``k mu**2 / (2 b**2)``-zCDP and ``2 k mu / b``-DP. Given
    ``(epsilon, delta)``: ``rho = approx_dp_to_zcdp(epsilon, delta)`` and
    ``b = mu sqrt(k / (2 rho))``, so the per-step budget shrinks like
    ``1 / sqrt(k)``, not ``1 / k`` as in PAMST with pure composition.

    With ``rho`` (or ``(epsilon, delta)``) this is the law of
    :func:`~skdpgraph.tree.pamst` called with the same ``rho``: PAMST
    under zCDP accounting. Time ``O(|V|^2)`` on dense input, ``O(|E| log |V|)``
    on sparse graphs; memory linear in the input.

    References
    ----------
    .. [PR24] R. Pagh and L. Retschmeier, "Faster Private Minimum Spanning
       Trees", arXiv:2408.06997.
    .. [CR21] {{cesar_rogers}}

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import noisy_max_prim_tree
    >>> D = np.array([[0, 1, 9], [1, 0, 2], [9, 2, 0]], dtype=float)
    >>> T = noisy_max_prim_tree(D, 1.0, delta=1e-6, sensitivity=0.01,
    ...                         random_state=0)
    >>> T.edges.tolist()
    [[0, 1], [1, 2]]
    """
    check_neighborhood(neighborhood)
    noisy_max_prim_scale(sensitivity=sensitivity, n_tree_edges=1, epsilon=epsilon,
                         delta=delta, rho=rho)  # validates before the data is read
    graph = as_graph(graph, check_input)
    rng = check_random_state(random_state)
    components = _components(graph)
    b, _ = noisy_max_prim_scale(sensitivity=sensitivity,
                                n_tree_edges=graph.shape[0] - components[0],
                                epsilon=epsilon, delta=delta, rho=rho)
    # A scale that underflows to 0 (absurd budgets) is an infinite rate, capped there.
    return exponential_prim(graph, rate_of_scale(b), rng, components=components)


def noisy_max_prim_rate(n_tree_edges, *, sensitivity, neighborhood, epsilon=None, rho=None):
    """Inverse temperature ``1 / b`` of the Report-Noisy-Max steps on a forest of
    ``n_tree_edges`` edges (the registry's ``rate``)."""
    b, _ = noisy_max_prim_scale(sensitivity=sensitivity, n_tree_edges=n_tree_edges,
                                epsilon=epsilon, rho=rho)
    return rate_of_scale(b)
