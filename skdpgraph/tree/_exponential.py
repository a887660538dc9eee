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

import numpy as np

from ..privacy import (
    exponential_mechanism_epsilon,
    exponential_tree_scale,
    resolve_budget,
)
from ..utils import check_random_state, graph_edges, n_components
from ._base import as_graph, check_exact_log_spread, make_spanning_tree
from ._ust._sampler import UST_METHODS, sample_weighted_ust
from ..utils._docs import fill_doc


@fill_doc
def exponential_tree(graph, epsilon=None, *, sensitivity, neighborhood="l1", delta=None,
                     rho=None, random_state=None, check_input=True, method="auto",
                     max_work=None, reduce=True):
    """Spanning tree drawn by the exponential mechanism over all spanning trees.

    Draws ``T`` with probability proportional to
    ``exp(-epsilon w(T) / (2 Delta))`` among all spanning trees (forests, if
    the public topology is disconnected) of ``graph`` ([HT25]_, Section 5).
    ``Delta`` is the sensitivity of the tree weight ``w(T)``: ``mu`` under
    ``"l1"`` neighbours and ``(|V| - c) mu`` under ``"linf"`` neighbours
    (``c`` the number of connected components).

    Guarantee: ``epsilon``-DP for the chosen neighbourhood, with the topology
    public, up to ``delta_ust = (2 |E| - 1) exp(-50)`` of truncation (see
    Notes; none with ``reduce=False``). As an exponential mechanism it is
    ``epsilon``-bounded-range, hence
    ``epsilon**2 / 8``-zCDP ([CR21]_): given a zCDP budget ``rho`` instead,
    it runs with ``epsilon = sqrt(8 rho)``.

    Parameters
    ----------
    {{graph}}
    epsilon : float, default=None
        Pure-DP budget of the tree topology (> 0).
    {{sensitivity}}
    neighborhood : {"l1", "linf"}, default="l1"
        Sets ``Delta``: ``mu`` under ``"l1"``, ``(|V| - c) mu`` under
        ``"linf"``.
    delta : float, default=None
        With ``epsilon``: an ``(epsilon, delta)`` target, reached through
        zCDP (the mechanism is then run with ``epsilon = sqrt(8 rho)``).
    rho : float, default=None
        A zCDP budget instead of ``epsilon`` (give exactly one).
    {{random_state}}
    {{check_input}}
    method : {"auto", "cycle_popping", "elimination"}, default="auto"
        Exact sampler of the weighted uniform spanning tree with edge
        conductances ``exp(-c w(e))``, ``c = epsilon / (2 Delta)``; see
        "Completion" in the Notes.
    max_work : float, default=None
        Work budget of one cycle-popping run before the exact fallback takes
        over (see :func:`skdpgraph.tree.sample_weighted_ust`); it changes
        the running time only, never the law or the completion.
    reduce : bool, default=True
        Apply the sampler's ``exp(-50)`` reductions (see Notes): faster for
        large ``c``, at the cost of ``delta_ust`` in the guarantee.

    Returns
    -------
    SpanningTree
        The chosen tree with the TRUE weights of its edges in ``weights``.
        Only the topology is private: release weights with
        ``skdpgraph.tree.release_tree_weights`` (which spends its
        own budget).

    Notes
    -----
    Guarantee in floating point. The sampler's reductions (edges whose
    inclusion probability is provably below ``exp(-50)`` dropped; a gap of
    conductances splitting the problem) move the law of the tree by at most
    ``delta_ust = (2 |E| - 1) exp(-50)`` in total variation (about
    ``3.9e-16`` for ``10**6`` edges, ``1.9e-19`` for 500), so the release is
    ``(epsilon, (1 + e**epsilon) delta_ust)``-DP; with ``reduce=False`` there
    is no truncation and it is ``epsilon``-DP up to the resolution of double
    precision. That resolution is absolute in log space: the log-weights
    ``-c w`` are rounded and summed, so they are held to ``c |w| <= 2**32``
    (rounding below ``2**-20``) and larger ones are refused
    (:class:`ValueError`); they are not shifted by the lightest weight, whose
    rounding would tie every log-weight to one private value. No random
    choice gives probability 0 to a tree the exact law allows (apart from
    the documented truncation): every choice is a Gumbel-max with unbounded
    Gumbel tails or an inverse-CDF lookup over
    entries of at least ``2**-20`` of their total, the lighter entries being
    drawn apart with their exact total probability.

    Completion. The draw always completes, whatever the weights; only its
    running time depends on them. The bridges, in every spanning tree, are
    set apart first (exactly, in linear time: a tree costs nothing more).
    Cycle popping (Wilson's algorithm) then runs on the rest; when a run
    exhausts its budget (``max_work``, capped for components of at most
    3,000 nodes at the cost of the elimination), an
    exact fallback takes over without changing the law, because the
    stopping rule depends only on the popped cycles, which are independent
    of the tree. Components of at most 3,000 nodes fall back to the exact
    elimination sampler: worst case ``O(k^3)`` time and ``O(k^2)`` memory
    for ``k`` nodes (in log space when ``c`` times the weight spread
    exceeds about 150), which rules it out for much larger components.
    Larger components instead reduce the groups of nodes where the walk is
    trapped to one node each (exactly, by the same star-mesh transform; the
    groups are found from the conductances) and restart cycle popping,
    handing over to the elimination once the reduced components are small
    enough: this finishes with probability one and exact law. The time is
    near-linear when ``c`` times the spread of weights around each node is
    small (10-NN graphs of points at ``epsilon = 1``, ``mu = 0.01``), but
    grows like ``exp(c * gap)`` when groups of light edges are joined only
    by edges heavier by ``gap``. The reductions make large ``c`` cheap on
    clustered graphs. Measured times and memory are in
    ``docs/private_trees.md``, section 3.

    References
    ----------
    .. [HT25] R. Hladik and J. Tetek, "Near-Universally-Optimal Differentially
       Private Minimum Spanning Trees", FORC 2025, arXiv:2404.15035.
    .. [CR21] {{cesar_rogers}}
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
    c = exponential_rate(1, sensitivity=sensitivity, neighborhood=neighborhood,
                         epsilon=epsilon, rho=rho)  # validates first
    graph = as_graph(graph, check_input)
    rng = check_random_state(random_state)
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    c = exponential_rate(n - n_components(graph), sensitivity=sensitivity,
                         neighborhood=neighborhood, epsilon=epsilon, rho=rho)
    w_min, w_max = (float(w.min()), float(w.max())) if w.size else (0.0, 0.0)
    if w_max > w_min:
        # Not shifted by the lightest weight: its rounding would tie every log-weight to
        # one private value. Each one is -c w, rounded by at most 2**-20.
        check_exact_log_spread(c, max(w_max, -w_min), "exponential_tree")
        log_weights = -c * w
    else:  # every tree equally likely, whatever c
        log_weights = np.zeros(w.size)
    chosen = sample_weighted_ust(u, v, log_weights, n, rng, method=method,
                                 max_work=max_work, reduce=reduce)
    return make_spanning_tree(u[chosen], v[chosen], w[chosen], n, check_input=False)


def exponential_rate(n_tree_edges, *, sensitivity, neighborhood, epsilon=None, rho=None):
    """Inverse temperature ``c`` of the exponential mechanism over the spanning forests of
    ``n_tree_edges`` edges, ``P(T) ~ exp(-c w(T))`` (the registry's ``rate``)."""
    if rho is not None:
        epsilon = exponential_mechanism_epsilon(rho)
    return exponential_tree_scale(epsilon, sensitivity, neighborhood, n_tree_edges)
