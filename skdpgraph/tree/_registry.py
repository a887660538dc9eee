"""The registry of private tree mechanisms: one signature, explicit capabilities.

Every registered mechanism is a public function with the signature

    func(graph, epsilon=None, *, sensitivity, neighborhood, delta=None, rho=None,
         random_state=None, check_input=True) -> SpanningTree

that validates ``graph`` through :func:`skdpgraph.utils.check_graph` unless
``check_input=False``. What the estimator needs to know of a mechanism is in
its :class:`TreeMechanism` record, never read from its signature or name.
"""

from typing import Callable, NamedTuple, Optional

import numpy as np

from ..privacy import check_neighborhood, normalize_weights, tree_release_noise
from ..utils import check_int, edges_to_csr, n_components as count_components
from ._base import (
    EXACT_LOG_SPREAD,
    MAX_LOG_SPREAD,
    SpanningTree,
    check_exact_log_spread,
    check_tree,
)
from ._exponential import exponential_rate, exponential_tree
from ._input_perturbation import (
    input_perturbation_edge_noise,
    input_perturbation_rate,
    input_perturbation_tree,
)
from ._laplace_mst import laplace_edge_noise, laplace_mst
from ._noisy_max_prim import noisy_max_prim_rate, noisy_max_prim_tree
from ._pamst import pamst, pamst_rate
from ._ust._sampler import ust_delta
from ._weight_release import check_weight_release, release_tree_weights


class TreeMechanism(NamedTuple):
    """A private spanning-tree mechanism usable by ``PrivateMSTClustering``.

    Attributes
    ----------
    func : callable
        The mechanism, with the registry's signature (module docstring).
    releases_weights : bool
        True: it releases the tree with noisy weights already (Laplace-MST);
        the whole budget goes to it. False: it releases only the topology
        (its ``weights`` are the true, private ones) and the estimator spends
        the rest of the budget on Weight-Release.
    zcdp : bool
        It can be calibrated by a zCDP budget ``rho``. Otherwise it is run as
        a pure ``epsilon``-DP mechanism.
    composed_steps : bool
        It composes ``|V| - 1`` exponential-mechanism steps of equal budget
        (PAMST): the estimator reports the epsilon of one step.
    edge_noise : callable or None
        Set for a mechanism that is "independent noise on every edge, then
        the exact minimum spanning forest of the noisy keys": the function
        that draws the keys of any part of the edges, calibrated for the
        whole graph, with the signature
        ``edge_noise(weights, *, n_edges, n_tree_edges, sensitivity,
        neighborhood, epsilon, rho, random_state)``. Such a mechanism runs
        on a distributed edge table exactly (:mod:`skdpgraph.distributed`:
        each partition draws its part). None: the mechanism needs the whole
        graph in one process.
    truncation : callable or None
        Set for a sampler within a total variation ``truncation(n_edges)``
        of its exact law (the exponential mechanism's reductions): an
        ``(epsilon, delta)``-DP release becomes ``(epsilon, delta + (1 +
        e**epsilon) truncation(n_edges))``-DP, the delta the estimator
        charges.
    rate : callable or None
        Set for a sampler of odds ``exp(-c w)``: its inverse temperature
        ``rate(n_tree_edges, *, sensitivity, neighborhood, epsilon, rho)``.
        :func:`check_tree_release` refuses, before the charge, a budget
        whose ``c`` times the width of the public weight bounds passes
        ``1e300``, where the sampler would cap ``c`` from the private spread
        of the weights.
    exact_rate : callable or None
        Set for a sampler whose doubles hold ``c |w|`` (the exponential mechanism's
        log-weights; input perturbation's keys in units of its scale, ``c = 1 / b``),
        with the signature of ``rate``: :func:`check_tree_release` refuses, before the
        charge, a ``c`` times the largest public bound past ``2**32``
        (:data:`~skdpgraph.tree._base.EXACT_LOG_SPREAD`), where they round by more
        than ``2**-20``.
    """

    func: Callable
    releases_weights: bool = False
    zcdp: bool = True
    composed_steps: bool = False
    edge_noise: Optional[Callable] = None
    truncation: Optional[Callable] = None
    rate: Optional[Callable] = None
    exact_rate: Optional[Callable] = None


#: Registered tree mechanisms: ``name -> TreeMechanism``.
TREE_MECHANISMS = {
    # Pinot et al. (UAI 2018): Prim with exponential-mechanism steps.
    "pamst": TreeMechanism(pamst, composed_steps=True, rate=pamst_rate),
    # Sealfon (2016): Laplace noise on every weight, then the exact MST.
    "laplace": TreeMechanism(laplace_mst, releases_weights=True, zcdp=False,
                             edge_noise=laplace_edge_noise),
    # Hladik and Tetek (FORC 2025): the exponential mechanism over all trees.
    "exponential": TreeMechanism(exponential_tree, truncation=ust_delta, rate=exponential_rate,
                                 exact_rate=exponential_rate),
    # Pagh, Retschmeier, Wu and Zhang (2024): one Gumbel perturbation, then MST.
    "input_perturbation": TreeMechanism(input_perturbation_tree,
                                        edge_noise=input_perturbation_edge_noise,
                                        exact_rate=input_perturbation_rate),
    # Pagh and Retschmeier (2024): Prim with Report-Noisy-Max, zCDP.
    "noisy_max_prim": TreeMechanism(noisy_max_prim_tree, rate=noisy_max_prim_rate),
}


#: The library's own mechanisms, whose trees need no check.
_BUILT_IN = frozenset(m.func for m in TREE_MECHANISMS.values())


def register_tree_mechanism(name, func, *, releases_weights=False, zcdp=True,
                            composed_steps=False, edge_noise=None, truncation=None,
                            rate=None):
    """Make a private tree mechanism available as ``tree_mechanism=name``.

    Parameters
    ----------
    name : str
        Key of the mechanism in :data:`TREE_MECHANISMS`; an existing entry
        of that name is replaced.
    func : callable
        A function with the registry's signature (see the module docstring).
    releases_weights, zcdp, composed_steps : bool
        Its capabilities; see :class:`TreeMechanism`.
    edge_noise : callable, default=None
        Its per-edge noise, for a mechanism that runs on a distributed edge
        table; see :class:`TreeMechanism`.
    truncation : callable, default=None
        The total variation of its sampler from its law, a function of the
        number of edges; see :class:`TreeMechanism`.
    rate : callable, default=None
        The inverse temperature of a sampler of odds ``exp(-c w)`` that caps
        ``c`` by the weights' spread (as the library's samplers do): the
        estimator then refuses, before the charge, a ``c`` that the public
        weight bounds would let the cap reach; see :class:`TreeMechanism`.

    Raises
    ------
    TypeError
        If ``name`` is not a str, or ``func``, ``edge_noise``, ``truncation``
        or ``rate`` is not callable (the last three may be None).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str; got {type(name).__name__}.")
    if not callable(func):
        raise TypeError("func must be callable.")
    if edge_noise is not None and not callable(edge_noise):
        raise TypeError("edge_noise must be callable or None.")
    if truncation is not None and not callable(truncation):
        raise TypeError("truncation must be callable or None.")
    if rate is not None and not callable(rate):
        raise TypeError("rate must be callable or None.")
    TREE_MECHANISMS[name] = TreeMechanism(func, bool(releases_weights), bool(zcdp),
                                          bool(composed_steps), edge_noise, truncation, rate)


def get_tree_mechanism(name):
    """The registered :class:`TreeMechanism` called ``name`` (ValueError if none).

    Parameters
    ----------
    name : str
        A key of :data:`TREE_MECHANISMS`.

    Returns
    -------
    TreeMechanism
        The mechanism's record.

    Raises
    ------
    ValueError
        If no mechanism is registered under ``name``.
    """
    try:
        return TREE_MECHANISMS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"tree_mechanism must be one of {sorted(TREE_MECHANISMS)}; got {name!r}."
        ) from None


def choose_tree_mechanism(*, neighborhood="l1", accounting="pure", delta=None, epsilon=None,
                          sensitivity=None, weight_bounds=None, n_nodes=None, n_edges=None,
                          tree_share=0.5):
    """The tree mechanism ``tree_mechanism="auto"`` runs: the measured best, from public inputs.

    The rule reads public parameters only (never a weight), so the choice
    costs no privacy and is the same on neighbouring inputs. It follows the
    utility frontier measured by ``benchmarks/frontier.py``; the figures
    behind each case are in ``docs/private_trees.md``, section 5.

    * ``neighborhood="l1"``: ``"laplace"`` (Laplace-MST). One Laplace draw
      of scale ``mu / epsilon`` per edge beats every topology mechanism:
      the exponential mechanism over trees has inverse temperature
      ``epsilon / (2 mu)`` with half of the budget, PAMST ``|V| - 1`` times
      less.
    * ``neighborhood="linf"`` and ``accounting="zcdp"``:
      ``"input_perturbation"`` (one Gumbel perturbation, then the MST).
      Under linf only the mechanisms composing ``|V| - 1`` steps gain the
      ``sqrt(|V|)`` of zCDP composition, and Gumbel input perturbation
      recovers the clusters at the smallest ``epsilon`` in most measured
      settings.
    * ``neighborhood="linf"`` and ``accounting="pure"``: the smaller noise
      of ``"laplace"`` (every weight with Laplace noise of scale
      ``|E| mu / epsilon``) and ``"input_perturbation"`` (Gumbel steps of
      scale ``2 (|V| - 1) mu / (tree_share epsilon)`` and the Weight-Release),
      compared with :func:`skdpgraph.privacy.tree_release_noise`: with the
      even split Laplace-MST wins on sparse graphs, ``|E| <= 4 (|V| - 1)``,
      input perturbation on denser ones.

    Parameters
    ----------
    neighborhood : {"l1", "linf"}, default="l1"
        Neighbouring weight functions differ by at most ``sensitivity`` in
        total (``"l1"``) or on each edge (``"linf"``).
    accounting : {"pure", "zcdp"}, default="pure"
        How the release's budget is composed (see
        :func:`skdpgraph.privacy.plan_tree_release`).
    delta : float, default=None
        Part of the budget; not needed by the rule (documented for
        completeness: it is public).
    epsilon, sensitivity : float, default=None
        Public; the comparison under linf and pure accounting does not
        depend on them (every scale is proportional to ``mu / epsilon``).
    weight_bounds : (float, float), default=None
        Public; not needed by the rule.
    n_nodes, n_edges : int, default=None
        ``|V|`` and ``|E|`` of the (public) topology; needed under linf with
        pure accounting. Without them ``"input_perturbation"`` is chosen.
    tree_share : float in (0, 1), default=0.5
        Share of the budget of the topology mechanism.

    Returns
    -------
    str
        A key of :data:`TREE_MECHANISMS`.

    Examples
    --------
    >>> from skdpgraph.tree import choose_tree_mechanism
    >>> choose_tree_mechanism(neighborhood="l1")
    'laplace'
    >>> choose_tree_mechanism(neighborhood="linf", accounting="zcdp", delta=1e-6)
    'input_perturbation'
    >>> choose_tree_mechanism(neighborhood="linf", n_nodes=100, n_edges=2309)
    'input_perturbation'
    >>> choose_tree_mechanism(neighborhood="linf", n_nodes=100, n_edges=175)
    'laplace'
    """
    check_neighborhood(neighborhood)
    if accounting not in ("pure", "zcdp"):
        raise ValueError(f"accounting must be 'pure' or 'zcdp'; got {accounting!r}.")
    if n_nodes is not None:
        n_nodes = check_int(n_nodes, "n_nodes", 0)
    if n_edges is not None:
        n_edges = check_int(n_edges, "n_edges", 0)
    if neighborhood == "l1":
        return "laplace"
    if accounting == "zcdp" or n_nodes is None or n_edges is None:
        return "input_perturbation"
    common = dict(sensitivity=1.0 if sensitivity is None else sensitivity,
                  neighborhood=neighborhood, n_tree_edges=max(int(n_nodes) - 1, 1),
                  n_edges=max(int(n_edges), 1), tree_share=tree_share,
                  epsilon=1.0 if epsilon is None else epsilon)
    laplace = tree_release_noise("laplace", **common)
    steps = tree_release_noise("input_perturbation", **common)
    return "laplace" if laplace <= steps * (1 + 1e-12) else "input_perturbation"


def check_tree_release(mechanism, plan, *, sensitivity, neighborhood, n_nodes, n_edges,
                       graph=None, n_components=None, weight_bounds=None):
    """Raise if a release of this plan cannot be made, before anything is charged.

    Dry runs, on one public value each, of the grid releases the fit will make:
    the mechanism's noise on every edge (for one with ``edge_noise``) and
    Weight-Release of the tree's ``k = |V| - components`` weights. The counts
    ``k`` whose release fits (grid in range, noise scale representable) form an
    interval, so ``k = 1`` and ``k = |V| - 1`` passing settles it without the
    components; otherwise they are counted (``n_components``, else on
    ``graph``) and ``k`` itself is checked (with neither, the release checks
    it).

    Parameters
    ----------
    mechanism : TreeMechanism
        The registered mechanism the fit will run.
    plan : skdpgraph.privacy.BudgetPlan
        The budget of the release, from
        :func:`skdpgraph.privacy.plan_tree_release`.
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``sensitivity`` in
        total (``"l1"``) or on each edge (``"linf"``).
    n_nodes, n_edges : int
        ``|V|`` and ``|E|`` (public).
    graph : ndarray or scipy.sparse.csr_array, default=None
        The canonical graph, for its number of components.
    n_components : int or callable, default=None
        The number of connected components (public), or a function of no
        argument that counts them (called only when needed: for a
        distributed table, :func:`skdpgraph.distributed.table_components`).
    weight_bounds : (float, float), default=None
        The public bounds of the weights: a sampler of odds ``exp(-c w)``
        (``mechanism.rate``) whose ``c (high - low)`` passes ``1e300`` is
        refused (its cap would read the private spread). None: not checked.

    Raises
    ------
    ValueError
        If a grid release of the plan falls outside the supported range
        (grid or noise scale not representable).
    """
    budget = {"rho": plan.tree_rho} if plan.tree_rho is not None else {
        "epsilon": plan.tree_epsilon}
    counted = []

    def tree_edges():
        """k = |V| - components, counted once and only when needed (None: unknown)."""
        if not counted:
            c = n_components
            if c is None and graph is not None:
                c = count_components(graph)
            elif callable(c):
                c = c()
            counted.append(None if c is None else n_nodes - int(c))
        return counted[0]

    if mechanism.rate is not None and weight_bounds is not None and n_nodes >= 2 and n_edges:
        # The sampler caps c at 1e300 / (its weights' spread) <= 1e300 / width: never
        # reached (hence never read from the data) when c <= 1e300 / width, exactly as
        # the cap rounds. c is largest at k = 1; otherwise the exact k decides.
        width = float(weight_bounds[1]) - float(weight_bounds[0])
        limit = MAX_LOG_SPREAD / width
        c = mechanism.rate(1, sensitivity=sensitivity, neighborhood=neighborhood, **budget)
        if not c <= limit and (tree_edges() or 1) > 1:
            c = mechanism.rate(tree_edges(), sensitivity=sensitivity,
                               neighborhood=neighborhood, **budget)
        if not c <= limit:
            raise ValueError(
                f"The tree sampler's inverse temperature c = {c:.3g} (from the budget and "
                f"sensitivity={sensitivity!r}) passes {MAX_LOG_SPREAD:g} / {width:.3g}, the "
                "width of the weight bounds: its odds exp(-c w) cannot be represented "
                "(the minimum spanning tree is then released with certainty but for odds "
                "below exp(-1e300)). Lower the tree's budget or raise the sensitivity. "
                "Nothing was charged.")
    if n_nodes >= 2 and n_edges:
        check_sampler_precision(mechanism, plan, sensitivity=sensitivity,
                                neighborhood=neighborhood, weight_bounds=weight_bounds,
                                n_tree_edges=tree_edges, after=" Nothing was charged.")
    if mechanism.edge_noise is not None and n_edges:  # one public value, public draws
        mechanism.edge_noise(np.zeros(1), n_edges=n_edges, n_tree_edges=max(n_nodes - 1, 1),
                             sensitivity=sensitivity, neighborhood=neighborhood,
                             random_state=np.random.default_rng(0), **budget)
    if mechanism.releases_weights or n_nodes < 2 or not n_edges:
        return
    budget = {"rho": plan.weight_rho} if plan.weight_rho is not None else {
        "epsilon": plan.weight_epsilon}
    try:
        for k in {1, n_nodes - 1}:
            check_weight_release(k, sensitivity=sensitivity, neighborhood=neighborhood,
                                 **budget)
    except ValueError:
        k = tree_edges()
        if k:  # None: unknown, the release checks it
            check_weight_release(k, sensitivity=sensitivity, neighborhood=neighborhood,
                                 **budget)


def check_sampler_precision(mechanism, plan, *, sensitivity, neighborhood, weight_bounds,
                            n_tree_edges=None, after=""):
    """Refuse a budget whose sampler's doubles would round its log-odds past ``2**-20``
    (``mechanism.exact_rate`` times the largest public bound past ``2**32``).

    Parameters
    ----------
    mechanism : TreeMechanism
    plan : skdpgraph.privacy.BudgetPlan
    sensitivity, neighborhood
        As for :func:`check_tree_release`.
    weight_bounds : (float, float) or None
        The public bounds (None: nothing to check).
    n_tree_edges : int, callable or None, default=None
        ``|V| - components`` (public), or a function that counts it; None: the largest
        rate, of one tree edge, decides.
    after : str, default=""
        Appended to the message (whether the budget was charged).
    """
    if mechanism.exact_rate is None or weight_bounds is None:
        return
    budget = {"rho": plan.tree_rho} if plan.tree_rho is not None else {
        "epsilon": plan.tree_epsilon}
    magnitude = max(abs(float(weight_bounds[0])), abs(float(weight_bounds[1])))
    # c is largest at k = 1; otherwise the exact k decides.
    c = mechanism.exact_rate(1, sensitivity=sensitivity, neighborhood=neighborhood, **budget)
    if not c * magnitude <= EXACT_LOG_SPREAD and n_tree_edges is not None:
        k = n_tree_edges() if callable(n_tree_edges) else n_tree_edges
        if k is not None and k > 1:
            c = mechanism.exact_rate(k, sensitivity=sensitivity, neighborhood=neighborhood,
                                     **budget)
    check_exact_log_spread(c, magnitude, "The tree release",
                           " The weight bounds are public." + after)


def release_private_tree(graph, mechanism, plan, *, sensitivity, neighborhood,
                         weight_bounds, random_state):
    """Release a weighted spanning tree with a registered mechanism and a budget plan.

    The mechanism releases the topology (and the weights, for one that
    releases them itself); otherwise the tree's weights are released by
    Weight-Release with the rest of the budget. The released weights are then
    mapped into ``(0, 1]`` with the public bounds (post-processing).

    Parameters
    ----------
    graph : ndarray or scipy.sparse.csr_array
        Canonical graph whose weights already lie in ``weight_bounds``.
    mechanism : TreeMechanism
        A registered mechanism (:func:`get_tree_mechanism`).
    plan : skdpgraph.privacy.BudgetPlan
        From :func:`skdpgraph.privacy.plan_tree_release` with the
        mechanism's capabilities.
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``sensitivity`` in
        total (``"l1"``) or on each edge (``"linf"``).
    weight_bounds : (float, float)
        Public bounds of the weights.
    random_state : numpy.random.Generator
        Source of all the noise of the release.

    Returns
    -------
    SpanningTree
        Edges and released weights in ``(0, 1]``.
    """
    tree = mechanism.func(graph, plan.tree_epsilon, rho=plan.tree_rho,
                          sensitivity=sensitivity, neighborhood=neighborhood,
                          random_state=random_state, check_input=False)
    if mechanism.func not in _BUILT_IN:  # a registered function's output is checked
        tree = check_tree(tree, what="the registered mechanism's tree")
    return finish_tree_release(tree, mechanism, plan, sensitivity=sensitivity,
                               neighborhood=neighborhood, weight_bounds=weight_bounds,
                               random_state=random_state)


def finish_tree_release(tree, mechanism, plan, *, sensitivity, neighborhood, weight_bounds,
                        random_state):
    """The released weighted tree from what the tree mechanism returned.

    A mechanism that releases its weights has them normalised into
    ``(0, 1]`` with the public bounds (post-processing); for one that
    releases a topology only, the tree's true weights are released by
    Weight-Release with the rest of the budget. The last step of
    :func:`release_private_tree`, shared with the distributed release.

    Parameters
    ----------
    tree : SpanningTree
        The mechanism's output: released weights, or the true ones.
    mechanism : TreeMechanism
        The mechanism that made ``tree``.
    plan : skdpgraph.privacy.BudgetPlan
        The budget of the release; its Weight-Release part is spent here.
    sensitivity : float
        As for :func:`release_private_tree`.
    neighborhood : {"l1", "linf"}
        As for :func:`release_private_tree`.
    weight_bounds : (float, float)
        As for :func:`release_private_tree`.
    random_state : numpy.random.Generator
        As for :func:`release_private_tree`.

    Returns
    -------
    SpanningTree
        Edges and released weights in ``(0, 1]``.
    """
    if mechanism.releases_weights:
        w = normalize_weights(tree.weights, weight_bounds)
        e = tree.edges
        return SpanningTree(edges_to_csr(e[:, 0], e[:, 1], w, tree.tree.shape[0]), e, w)
    if plan.weight_rho is not None:
        return release_tree_weights(tree, rho=plan.weight_rho, sensitivity=sensitivity,
                                    neighborhood=neighborhood, weight_bounds=weight_bounds,
                                    random_state=random_state, mechanism="gaussian",
                                    check_input=False)
    return release_tree_weights(tree, plan.weight_epsilon, sensitivity=sensitivity,
                                neighborhood=neighborhood, weight_bounds=weight_bounds,
                                random_state=random_state, mechanism="laplace",
                                check_input=False)
