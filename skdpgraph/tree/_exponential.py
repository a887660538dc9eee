"""The exponential mechanism over all spanning trees (Hladik and Tetek).

The candidates are the spanning trees ``T`` of the public topology, scored by
their private weight ``w(T)``; the mechanism draws

    P(T) ~ exp(-epsilon w(T) / (2 Delta)),

where ``Delta`` bounds how much ``w(T)`` can change between neighbouring
weight functions: ``mu`` under ``"l1"`` neighbours (the changes of all edges
sum to at most ``mu``) and ``(|V| - 1) mu`` under ``"linf"`` (each of the
tree's ``|V| - 1`` edges may move by ``mu``). Since ``exp(-c w(T)) =
prod_{e in T} exp(-c w(e))``, this is the weighted uniform spanning tree with
edge conductances ``exp(-c w(e))``, ``c = epsilon / (2 Delta)``, sampled
exactly by :func:`skdpgraph.tree.sample_weighted_ust`.

Compared with PAMST, which spends ``epsilon / (|V| - 1)`` on each of its
``|V| - 1`` steps, the whole budget scores whole trees: under ``"l1"`` the
tree law is ``|V| - 1`` times sharper (``c = epsilon / (2 mu)`` against
``epsilon / (2 (|V| - 1) mu)`` per PAMST step).
"""

from ..privacy import (
    exponential_mechanism_epsilon,
    exponential_tree_scale,
    resolve_budget,
)
from ..utils import check_random_state, graph_edges, n_components
from ._base import as_graph, make_spanning_tree
from ._ust import UST_METHODS, sample_weighted_ust


def exponential_tree(graph, epsilon=None, *, sensitivity, neighborhood="l1", delta=None,
                     rho=None, random_state=None, check_input=True, method="auto",
                     max_work=None):
    """Spanning tree drawn by the exponential mechanism over all spanning trees.

    Draws ``T`` with probability proportional to
    ``exp(-epsilon w(T) / (2 Delta))`` among all spanning trees (forests, if
    the public topology is disconnected) of ``graph`` ([HT25]_, Section 5).
    ``Delta`` is the sensitivity of the tree weight ``w(T)``: ``mu`` under
    ``"l1"`` neighbours and ``(|V| - c) mu`` under ``"linf"`` neighbours
    (``c`` the number of connected components).

    Guarantee: ``epsilon``-DP for the chosen neighbourhood, with the topology
    public. As an exponential mechanism it is ``epsilon``-bounded-range, hence
    ``epsilon**2 / 8``-zCDP ([CR21]_): given a zCDP budget ``rho`` instead,
    it runs with ``epsilon = sqrt(8 rho)``.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        Canonical graph (:func:`skdpgraph.check_graph`); weights are
        distances.
    epsilon : float, default=None
        Pure-DP budget of the tree topology (> 0).
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}, default="l1"
    delta : float, default=None
        With ``epsilon``: an ``(epsilon, delta)`` target, reached through
        zCDP (the mechanism is then run with ``epsilon = sqrt(8 rho)``).
    rho : float, default=None
        A zCDP budget instead of ``epsilon`` (give exactly one).
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws fresh OS entropy. A fixed seed makes the release
        reproducible, hence not private against anyone who knows the seed.
    check_input : bool, default=True
        Validate ``graph`` with :func:`skdpgraph.utils.check_graph`.
    method : {"auto", "cycle_popping", "elimination"}, default="auto"
        Exact sampler of the weighted uniform spanning tree with edge
        conductances ``exp(-c w(e))``, ``c = epsilon / (2 Delta)``; see
        "Running time".
    max_work : float, default=None
        Budget of the cycle-popping sampler (see
        :func:`skdpgraph.tree.sample_weighted_ust`).

    Returns
    -------
    SpanningTree
        The chosen tree with the TRUE weights of its edges in ``weights``.
        Only the topology is private: release weights with
        ``skdpgraph.tree.release_tree_weights`` (which spends its
        own budget).

    Raises
    ------
    skdpgraph.tree.UstBudgetError
        When a connected component has more than 3,000 nodes and cycle
        popping keeps exceeding ``max_work`` (a large ``c`` on a graph with
        many groups of light edges; see Notes).

    Notes
    -----
    Running time. Components of at most 3,000 nodes: cycle popping (Wilson's
    algorithm) is tried with a budget equal to the cost of the exact
    elimination sampler, which then runs if the budget is exhausted; the
    cost is therefore at most about twice ``O(k^3)`` for a component of ``k``
    nodes whatever ``epsilon``: under a second for 1,000 nodes in float64;
    when ``c`` times the weight spread is a few hundred the log-space path
    is needed, about 5 s at 1,000 nodes and, growing like ``k^3``, about two
    minutes at 3,000. Usually it is far less (cycle popping finishes, or the
    reductions below leave small problems). Larger components:
    cycle popping, whose expected time is Wilson's mean hitting time of the
    random walk with transition probabilities ``~ exp(-c w)``. That is
    near-linear when ``c`` times the spread of weights around each node is
    small, but grows like ``exp(c * gap)`` when groups of light edges are
    joined only by edges heavier by ``gap``: the walk is trapped in the
    groups. When a run exhausts ``max_work`` (by default ``50 (|V| + |E|)``
    draw operations, several seconds on a 10^6-edge graph), the nodes it
    kept popping are eliminated exactly (Schur complement) and it restarts,
    at most 4 times; then :class:`~skdpgraph.tree.UstBudgetError` is raised.
    So the time is bounded by about five budgets; on a random graph with
    10^6 edges and U(0, 1) weights, ``c = 50`` takes about 6 s (24 times
    scipy's MST) and ``c >= 70`` runs out of budget. Edges whose inclusion
    probability is provably below ``exp(-50)`` are dropped first, and a gap
    of conductances splits the problem into independent parts (each step
    changes the law by less than ``2e-22`` in total variation), which makes
    large ``c`` cheap on clustered graphs.

    Exactness. All samplers are exact in exact arithmetic. In floating
    point every random choice is exact up to the ``2**-53`` resolution of
    double-precision uniforms, as for every sampler of the library.

    References
    ----------
    .. [HT25] R. Hladik and J. Tetek, "Near-Universally-Optimal Differentially
       Private Minimum Spanning Trees", FORC 2025, arXiv:2404.15035.
    .. [CR21] M. Cesar and R. Rogers, "Bounding, Concentrating, and
       Truncating: Unifying Privacy Loss Composition for Data Analytics",
       ALT 2021.
    .. [W96] D. B. Wilson, "Generating random spanning trees more quickly
       than the cover time", STOC 1996.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import exponential_tree
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> T = exponential_tree(D, epsilon=50.0, sensitivity=0.1, random_state=0)
    >>> T.edges.tolist(), T.weights.tolist()
    ([[0, 1], [1, 2]], [1.0, 2.0])
    """
    if method not in UST_METHODS:
        raise ValueError(f"method must be one of {UST_METHODS}; got {method!r}.")
    epsilon, rho = resolve_budget(epsilon, delta, rho, owner="exponential_tree")
    if rho is not None:
        epsilon = exponential_mechanism_epsilon(rho)
    c = exponential_tree_scale(epsilon, sensitivity, neighborhood, 1)  # validates first
    graph = as_graph(graph, check_input)
    rng = check_random_state(random_state)
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    c = exponential_tree_scale(epsilon, sensitivity, neighborhood, n - n_components(graph))
    chosen = sample_weighted_ust(u, v, -c * w, n, rng, method=method,
                                 max_work=max_work)
    return make_spanning_tree(u[chosen], v[chosen], w[chosen], n)
