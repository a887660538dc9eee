"""PrivateMSTClustering: PTClust, DBMSTClu on a differentially private tree.

References
----------
.. [1] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
   Clustering under Differential Privacy", UAI 2018, Section 3.3
   (Algorithm 3, PTClust; Definition 3.12, Weight-Release).
.. [2] R. Pinot, "Minimum spanning tree release under differential privacy
   constraints", master thesis, 2017 (PAMST, Chapter 3; the Laplace baseline,
   Section 3.2).
"""

import math
from functools import partial
from numbers import Integral, Real
from typing import NamedTuple, Optional

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.metrics import pairwise_distances_argmin
from sklearn.utils import check_array
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ..distributed import (is_edge_table, release_table_forest, table_components,
                           table_weight_max)
from ..exceptions import NoiseDominatesWarning, PrivacyLeakWarning
from ..privacy import (
    TREE_NOISE_MECHANISMS,
    BudgetAccountant,
    approx_dp_to_zcdp,
    charge,
    check_epsilon,
    check_sensitivity,
    check_weight_bounds,
    data_weight_bounds,
    pamst_step_epsilon,
    plan_tree_release,
    selection_spread,
    signal_epsilon,
    tree_release_noise,
)
from ..privacy._accounting import after_charge
from ..privacy._bounds import warn_bounds_from_data
from ..tree import (
    TREE_MECHANISMS,
    check_tree_release,
    choose_tree_mechanism,
    finish_tree_release,
    get_tree_mechanism,
    make_spanning_tree,
    release_private_tree,
)
from ..tree._registry import check_sampler_precision
from ..tree._weight_release import clip_graph_weights
from ..utils import (StageLogger, check_graph, check_int, check_random_state, check_real,
                     n_components, weight_range)
from ..utils._config import check_work_memory
from ..utils._docs import fill_doc
from ..utils._graph import _stored_entries
from ..utils._networkx import _is_networkx_graph
from ..utils._param_validation import HasMethods, Interval, StrOptions, fit_context
from ..utils._validation import values_withheld
from ..utils._warnings import warn
from ._base import (
    DBMSTCLU_FIELDS,
    GRAPH_INPUT_CONSTRAINTS,
    check_edge_table,
    check_graph_input,
    set_result_attributes,
    warn_if_constant_weights,
)
from ._dbmstclu import dbmstclu

# A lower bound of the release's and DBMSTClu's work per node (measured: about 145
# bytes a node on a graph of one edge), checked before the charge.
_NODE_BYTES = 96


class PrivateMSTResult(NamedTuple):
    """Result of :func:`private_mst_clustering`: the release and its guarantee.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        Cluster of each node, ``0..n_clusters-1`` (DBMSTClu on ``tree``).
    n_clusters : int
        Number of clusters.
    dbcvi : float
        Final validity index of the partition of ``tree``.
    tree : SpanningTree
        The released weighted spanning tree (forest), weights in ``(0, 1]``.
    cut_edges : ndarray of shape (k, 2)
        The cut edges of ``tree``, ``(u, v)`` with ``u < v``, in the order
        they were cut.
    cut_weights : ndarray of shape (k,)
        Their released weights.
    dbcvi_path : ndarray of shape (k,)
        The index after each cut.
    weight_bounds : (float, float)
        The public bounds used (given, or coarse bounds read from the data).
    epsilon_spent : float
        The ``epsilon`` of the ``(epsilon, delta)``-DP guarantee of the
        release.
    delta_spent : float
        Its ``delta`` (0.0: a pure guarantee).
    rho_spent : float or None
        Its zCDP parameter under zCDP accounting.
    step_epsilon : float or None
        Epsilon of each step of a mechanism that composes steps (PAMST).
    tree_mechanism : str
        The tree mechanism that ran (the choice of ``"auto"``, or the one
        asked for).
    """

    labels: np.ndarray
    n_clusters: int
    dbcvi: float
    tree: object
    cut_edges: np.ndarray
    cut_weights: np.ndarray
    dbcvi_path: np.ndarray
    weight_bounds: tuple
    epsilon_spent: float
    delta_spent: float
    rho_spent: Optional[float]
    step_epsilon: Optional[float]
    tree_mechanism: str = "auto"


@fill_doc
def private_mst_clustering(graph, epsilon=1.0, *, sensitivity=1.0, neighborhood="l1",
                           tree_share=0.5, weight_bounds=None, accounting="pure", delta=None,
                           accountant=None, tree_mechanism="auto", random_state=None,
                           verbose=0, check_input=True):
    """PTClust: DBMSTClu on a spanning tree released under weight-DP.

    The function form of :class:`PrivateMSTClustering` (which documents the
    parameters and the guarantee), on a graph: anything
    :func:`skdpgraph.utils.check_graph` accepts with ``metric="precomputed"``,
    or a distributed edge table (a Dask DataFrame or
    :class:`skdpgraph.distributed.EdgeTable`).
    ``check_input=False`` skips that validation, for a graph that already
    is canonical (as the estimator passes it).

    The budget is checked against ``accountant`` and spent on it before any
    private value is read, so a release that fails later has still spent it;
    a release that cannot be made at these public parameters (a grid or a
    noise scale out of range, :func:`skdpgraph.tree.check_tree_release`) is
    refused before, with nothing spent.

    Parameters
    ----------
    {{graph}}
    epsilon : float, default=1.0
        Total budget of the release.
    sensitivity : float, default=1.0
        ``mu`` of the neighbourhood.
    neighborhood : {"l1", "linf"}, default="l1"
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``); see
        :class:`PrivateMSTClustering` for the calibrations.
    tree_share : float in (0, 1), default=0.5
        Share of the budget spent on the tree's topology.
    weight_bounds : (float, float), default=None
        Public bounds of the weights; ``None`` reads coarse bounds from the
        data, with a :class:`~skdpgraph.exceptions.PrivacyLeakWarning`.
    accounting : {"pure", "zcdp"}, default="pure"
        Sequential composition of pure budgets, or zCDP composition of an
        ``(epsilon, delta)`` target; see :class:`PrivateMSTClustering`.
    delta : float in (0, 1), default=None
        Required with ``accounting="zcdp"``.
    {{accountant}}
    tree_mechanism : str, default="auto"
        A key of :data:`skdpgraph.tree.TREE_MECHANISMS`, or ``"auto"``.
    {{random_state}}
    {{verbose}}
    {{check_input}}

    Returns
    -------
    PrivateMSTResult

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import private_mst_clustering
    >>> D = np.abs(np.subtract.outer([0.0, 0.1, 0.2, 5.0, 5.1, 5.3],
    ...                              [0.0, 0.1, 0.2, 5.0, 5.1, 5.3]))
    >>> res = private_mst_clustering(D, 50.0, sensitivity=0.01, weight_bounds=(0.0, 6.0),
    ...                              random_state=0)
    >>> res.labels, res.epsilon_spent, res.tree_mechanism
    (array([0, 0, 0, 1, 1, 1]), 50.0, 'laplace')
    """
    if tree_mechanism != "auto":
        get_tree_mechanism(tree_mechanism)  # refuse an unknown name before anything else
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    tree_share = check_real(tree_share, "tree_share", low=0.0, high=1.0, low_open=True,
                            high_open=True)
    verbose = check_int(int(verbose) if isinstance(verbose, bool) else verbose, "verbose", 0)
    if accountant is not None:
        BudgetAccountant.load_default(accountant)  # checks its type before any work
    if accounting == "zcdp" and delta is None:
        raise ValueError("accounting='zcdp' needs delta, a number in (0, 1).")
    if accounting == "pure" and delta is not None:
        raise ValueError(
            "delta is only used with accounting='zcdp'; with accounting='pure' "
            f"the guarantee is epsilon-DP and delta must be None (got {delta!r})."
        )
    bounds = None if weight_bounds is None else check_weight_bounds(weight_bounds)
    log = StageLogger(verbose, "PrivateMSTClustering")
    distributed = is_edge_table(graph)
    with log.stage("validation") as note:
        if distributed:
            graph, n_nodes = check_edge_table(graph, verbose=verbose)
            n_edges = graph.topology().n_edges
            note(f"{n_nodes} nodes, {n_edges} edges, {graph.npartitions} partitions")
        else:
            if check_input:
                graph = check_graph(graph, metric="precomputed", what="graph")
            note(f"{graph.shape[0]} nodes")
            # |V| and |E| are public (the topology is), so is the choice.
            n_nodes = graph.shape[0]
            n_edges = graph.nnz // 2 if sp.issparse(graph) else n_nodes * (n_nodes - 1) // 2
    if tree_mechanism == "auto":
        tree_mechanism = choose_tree_mechanism(
            neighborhood=neighborhood, accounting=accounting, delta=delta, epsilon=epsilon,
            sensitivity=sensitivity, weight_bounds=bounds, n_nodes=n_nodes,
            n_edges=n_edges, tree_share=tree_share)
    mechanism = get_tree_mechanism(tree_mechanism)
    if distributed and mechanism.edge_noise is None:
        able = sorted(k for k, m in TREE_MECHANISMS.items() if m.edge_noise is not None)
        raise ValueError(
            f"tree_mechanism={tree_mechanism!r} needs the whole graph in one process and "
            f"cannot run on a distributed edge table; the mechanisms that can are {able} "
            "(and 'auto', which chooses among them).")
    plan = plan_tree_release(epsilon, accounting=accounting, delta=delta,
                             tree_share=tree_share,
                             releases_weights=mechanism.releases_weights,
                             zcdp=mechanism.zcdp)
    if mechanism.truncation is not None and n_edges:
        extra = _truncation_delta(mechanism, tree_mechanism, plan.epsilon_spent, n_nodes,
                                  n_edges)
        plan = plan._replace(delta_spent=min(1.0, plan.delta_spent + extra))
    # A fit that cannot hold its per-node work fails for memory: refused before the charge.
    check_work_memory(_NODE_BYTES * n_nodes, f"PrivateMSTClustering on {n_nodes} nodes")
    check_tree_release(mechanism, plan, sensitivity=sensitivity, neighborhood=neighborhood,
                       n_nodes=n_nodes, n_edges=n_edges,
                       graph=None if distributed else graph,
                       n_components=partial(table_components, graph, verbose=verbose)
                       if distributed else None, weight_bounds=bounds)
    rng = check_random_state(random_state)
    if bounds is not None:
        _warn_if_noise_dominates(tree_mechanism, epsilon, bounds, sensitivity=sensitivity,
                                 neighborhood=neighborhood, n_nodes=n_nodes, n_edges=n_edges,
                                 accounting=accounting, delta=delta, tree_share=tree_share)
    if bounds is None and n_edges:
        warn_bounds_from_data()  # public facts: before the charge
    charge(accountant, plan.epsilon_spent, plan.delta_spent)
    with after_charge(plan.epsilon_spent, plan.delta_spent) as kept:  # a failure: spent
        if distributed:
            if bounds is None:
                bounds = data_weight_bounds(np.array([table_weight_max(graph, verbose)]),
                                            warn_leak=False)
                # On the published bounds, not the exact private extremes (k = 1: the
                # largest rate; counting the table's components again is a pass).
                check_sampler_precision(mechanism, plan, sensitivity=sensitivity,
                                        neighborhood=neighborhood, weight_bounds=bounds)
                _warn_if_noise_dominates(tree_mechanism, epsilon, bounds, sensitivity=sensitivity,
                                         neighborhood=neighborhood, n_nodes=n_nodes,
                                         n_edges=n_edges, accounting=accounting, delta=delta,
                                         tree_share=tree_share)
            with log.stage(f"release ({tree_mechanism}, distributed)") as note:
                out = release_table_forest(graph, mechanism, plan, sensitivity=sensitivity,
                                           neighborhood=neighborhood, weight_bounds=bounds,
                                           random_state=rng, verbose=verbose)
                warn_if_constant_weights(None, weight_range=(n_edges, out.low, out.high))
                released = finish_tree_release(out.tree, mechanism, plan,
                                               sensitivity=sensitivity, neighborhood=neighborhood,
                                               weight_bounds=bounds, random_state=rng)
                note(f"epsilon {plan.epsilon_spent:g}, delta {plan.delta_spent:g}, "
                     f"{out.report.rounds} rounds")
        elif n_edges == 0:
            # No edge, nothing private to release (and no weight for a calibration of
            # sensitivity |E| mu or (|V| - c) mu to act on): every node is a cluster.
            released = make_spanning_tree([], [], [], n_nodes, check_input=False)
        else:
            warn_if_constant_weights(graph)
            if bounds is None:
                bounds = data_weight_bounds(np.array(weight_range(graph)), warn_leak=False)
                # On the published bounds, not the exact private extremes: whether it
                # refuses is a function of what is published.
                check_sampler_precision(
                    mechanism, plan, sensitivity=sensitivity, neighborhood=neighborhood,
                    weight_bounds=bounds,
                    n_tree_edges=lambda: n_nodes - n_components(graph))
                _warn_if_noise_dominates(tree_mechanism, epsilon, bounds, sensitivity=sensitivity,
                                         neighborhood=neighborhood, n_nodes=n_nodes,
                                         n_edges=n_edges, accounting=accounting, delta=delta,
                                         tree_share=tree_share)
            graph = clip_graph_weights(graph, bounds)
            with log.stage(f"release ({tree_mechanism})") as note:
                released = release_private_tree(graph, mechanism, plan, sensitivity=sensitivity,
                                                neighborhood=neighborhood, weight_bounds=bounds,
                                                random_state=rng)
                note(f"epsilon {plan.epsilon_spent:g}, delta {plan.delta_spent:g}")
        kept["tree"] = released
        with log.stage("DBMSTClu") as note:
            res = dbmstclu(released, check_input=False)
            note(f"{res.n_clusters} clusters")
    n_steps = released.weights.size
    step_eps = None
    if mechanism.composed_steps and n_steps:
        step_eps = pamst_step_epsilon(n_steps, plan.tree_epsilon, plan.tree_rho)
    return PrivateMSTResult(res.labels, res.n_clusters, res.dbcvi, released, res.cut_edges,
                            res.cut_weights, res.dbcvi_path, bounds, plan.epsilon_spent,
                            plan.delta_spent, plan.rho, step_eps, tree_mechanism)


def _truncation_delta(mechanism, name, epsilon, n_nodes, n_edges):
    """The delta a sampler within total variation ``t`` of its law adds: the release
    is then ``(epsilon, delta + (1 + e^epsilon) t)``-DP (capped at 1, also where
    ``e^epsilon`` overflows). A :class:`PrivacyLeakWarning` from ``1 / |V|`` on,
    before the charge: it reads epsilon and ``|E|`` only."""
    extra = (1.0 + math.exp(min(epsilon, 700.0))) * mechanism.truncation(n_edges)
    if extra * max(n_nodes, 1) >= 1.0:
        warn(f"At epsilon={epsilon:g} the truncation of the {name!r} sampler adds "
             f"delta={min(extra, 1.0):.3g} on {n_edges} edges, not below 1/|V| = "
             f"1/{n_nodes}{' (no guarantee at all)' if extra >= 1.0 else ''}: a release "
             "may then reveal individual edges. Lower epsilon or use another "
             "tree_mechanism.", PrivacyLeakWarning)
    return min(extra, 1.0)


def _warn_if_noise_dominates(mechanism, epsilon, bounds, *, sensitivity, neighborhood,
                             n_nodes, n_edges, accounting, delta, tree_share):
    """:class:`NoiseDominatesWarning` below :func:`skdpgraph.privacy.signal_epsilon`.

    Reads public parameters only (with data-derived bounds, the coarse bounds
    that are released in ``weight_bounds_`` and announced by the
    PrivacyLeakWarning).
    """
    if mechanism not in TREE_NOISE_MECHANISMS:
        return
    width = bounds[1] - bounds[0]
    kwargs = dict(sensitivity=sensitivity, neighborhood=neighborhood,
                  n_tree_edges=max(n_nodes - 1, 1), n_edges=max(n_edges, 1),
                  tree_share=tree_share)
    threshold = signal_epsilon(mechanism, weight_range=width, accounting=accounting,
                               delta=delta, **kwargs)
    if epsilon >= threshold:
        return
    if accounting == "zcdp" and mechanism != "laplace":
        scale = tree_release_noise(mechanism, rho=approx_dp_to_zcdp(epsilon, delta), **kwargs)
    else:
        scale = tree_release_noise(mechanism, epsilon=epsilon, **kwargs)
    bounds_text = f"the width {width:.3g} of the weight bounds ({bounds[0]:g}, {bounds[1]:g})"
    if mechanism == "laplace":
        shift = scale * selection_spread(kwargs["n_edges"], kwargs["n_tree_edges"])
        why = (f"a spanning tree keeps at each node about the smallest of its noisy weights, "
               f"which then lie about {shift:.3g} below their values, more than a fifth of "
               f"{bounds_text}")
    else:
        why = f"more than {bounds_text}, so the tree is close to a uniformly random one"
    warn(
        f"At epsilon={epsilon:g} the {mechanism!r} tree release adds noise of scale "
        f"{scale:.3g} (in weight units); {why}: the clustering is about what noise "
        "gives. This "
        f"mechanism can carry signal from epsilon = {threshold:.3g} "
        f"(sensitivity={sensitivity:g}, neighborhood={neighborhood!r}, "
        f"{n_nodes} nodes, {n_edges} edges; public parameters only). Raise epsilon, "
        "check that sensitivity is not larger than needed, or use "
        "tree_mechanism='auto' (see skdpgraph.tree.choose_tree_mechanism).",
        NoiseDominatesWarning,
    )


@fill_doc
class PrivateMSTClustering(ClusterMixin, BaseEstimator):
    """PTClust: DBMSTClu on a spanning tree released under weight-DP.

    The graph's topology is public and its weights (distances) are private.
    The estimator releases a spanning tree with a private mechanism
    (``tree_mechanism``), releases its weights with noise when the mechanism
    gives only a topology (Weight-Release), normalises them with public
    bounds, and clusters the released tree with DBMSTClu (Algorithm 3 of
    [1]_). Everything after the releases is post-processing.

    **Guarantee.** With ``accounting="pure"`` the labels, ``tree_`` and every
    fitted attribute are ``epsilon``-DP with respect to the weights, for
    neighbouring weight functions as set by ``neighborhood`` and
    ``sensitivity``; with ``accounting="zcdp"`` they are
    ``(epsilon_spent_, delta)``-DP, ``epsilon_spent_ <= epsilon``. With
    ``tree_mechanism="exponential"``, whose sampler is within a total
    variation ``ust_delta(|E|)`` of its law, ``delta_spent_`` also holds
    ``(1 + e**epsilon) ust_delta(|E|)`` (capped at 1), which is charged. The
    topology (which pairs are edges, hence the connected components) is
    not protected.

    **On a real computer.** Every released number (Weight-Release,
    Laplace-MST) is drawn on a public grid with exact discrete noise
    (:func:`skdpgraph.privacy.release_laplace`), so floating point does not
    weaken the guarantee; the budget is spent on ``accountant`` before any
    private value is read; and the fitted object holds only released values
    and public inputs (``weight_bounds_`` are the public bounds, or, without
    them, the coarse power-of-two bounds that the :class:`PrivacyLeakWarning`
    announces). ``random_state=None`` draws from a cryptographically secure
    generator. :meth:`predict` on features needs the training data, which is
    kept only with ``keep_training_data=True``: the fitted model then holds
    the raw data and is no longer a private release.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget (finite, > 0).
    sensitivity : float, default=1.0
        ``mu``: neighbouring weight functions differ by at most ``mu`` in
        total (``"l1"``) or on each edge (``"linf"``).
    neighborhood : {"l1", "linf"}, default="l1"
        Calibrations (each release ``eps``-DP): PAMST steps
        ``P(e) ~ exp(-eps_step w(e) / (2 mu))`` under both; Weight-Release
        Laplace scale ``mu / eps_w`` (l1) or ``(|V|-1) mu / eps_w`` (linf; the
        UAI paper's ``mu / eps_w`` is wrong here); Laplace-MST scale
        ``mu / eps`` (l1) or ``|E| mu / eps`` (linf).
    tree_share : float in (0, 1), default=0.5
        Share of the budget (of ``epsilon`` under pure accounting, of the
        zCDP ``rho`` under zCDP accounting) spent on the tree topology; the
        rest goes to Weight-Release. The paper splits evenly. Ignored by
        mechanisms that release weights themselves (``"laplace"``).
    weight_bounds : (float, float), default=None
        Public bounds ``(low, high)``, ``0 <= low < high``, on the weights.
        Weights outside are clipped into them with a
        :class:`~skdpgraph.exceptions.PrivacyLeakWarning` (clipping keeps
        the guarantee; the warning itself depends on the data). The released
        weights are clipped into them and divided by ``high`` (the paper's
        normalisation ``w' = (w + tau) / p`` with ``tau = 0``, ``p = high``;
        post-processing): without noise the clustering is DBMSTClu's on the
        true (positive) weights, whatever the bounds. ``None``: the bounds are
        ``(0, 2**ceil(log2(max w)))``, read from the private weights, with a
        ``PrivacyLeakWarning``: the guarantee then does not cover the order
        of magnitude of the largest weight.
    accounting : {"pure", "zcdp"}, default="pure"
        ``"pure"``: the paper's sequential composition; the tree's
        ``|V| - n_components`` exponential-mechanism steps get
        ``tree_share * epsilon / (|V| - n_components)`` each and the weights
        Laplace noise with ``(1 - tree_share) * epsilon``. ``"zcdp"``: the
        target ``(epsilon, delta)`` becomes a zCDP budget
        ``rho`` (:func:`~skdpgraph.privacy.approx_dp_to_zcdp`); each
        ``eps``-DP exponential-mechanism step costs ``eps**2 / 8`` (Cesar and
        Rogers 2021), so steps get ``sqrt(8 tree_share rho / (|V| - n_c))``,
        and the weights get Gaussian noise of L2 sensitivity ``mu`` (l1) or
        ``sqrt(|V| - 1) mu`` (linf) with the remaining ``rho``. A mechanism
        that releases weights itself runs on the whole budget: with ``rho``
        if it takes one, else as a pure ``epsilon``-DP mechanism (then
        ``delta_spent_ = 0``).
    delta : float in (0, 1), default=None
        Required with ``accounting="zcdp"``; must be None with ``"pure"``.
    {{accountant}}
    tree_mechanism : str, default="auto"
        ``"auto"``: the mechanism that the library's measured frontier finds
        best for the public setting, chosen by
        :func:`skdpgraph.tree.choose_tree_mechanism` from public parameters
        only (so the choice costs no privacy): ``"laplace"`` under
        ``"l1"``; under ``"linf"``, ``"input_perturbation"`` with zCDP
        accounting, and with pure accounting whichever of
        ``"input_perturbation"`` and ``"laplace"`` adds less noise
        (Laplace-MST when ``|E| <= 4 (|V| - 1)``). The choice is in
        ``tree_mechanism_``. Otherwise
        a key of :data:`skdpgraph.tree.TREE_MECHANISMS`: ``"pamst"`` (PTClust, [1]_),
        ``"laplace"`` (Laplace-MST then DBMSTClu, the thesis's comparison),
        ``"exponential"`` (the exponential mechanism over all spanning trees,
        Hladik and Tetek 2025), ``"input_perturbation"`` (one Gumbel
        perturbation of all weights, then the exact MST; Pagh, Retschmeier,
        Wu and Zhang 2024) or ``"noisy_max_prim"`` (Prim with
        Report-Noisy-Max; Pagh and Retschmeier 2024). The last three release
        a topology, whose weights are then released as for PAMST; see
        ``docs/private_trees.md`` for each guarantee and running time.
    metric : str or callable, default="euclidean"
        ``"precomputed"``: ``X`` is a graph (dense distance matrix = complete
        graph; sparse matrix = its stored entries are the edges). Otherwise
        ``X`` holds features and the graph is the complete graph of their
        distances: dense, about ``16 n**2`` bytes (1.6 GB at 10,000 points);
        past ``skdpgraph.utils.get_config()["max_dense_memory"]`` (4 GiB by
        default) the fit refuses with an estimate before allocating.
    metric_params : dict, default=None
        Extra keyword arguments for the metric.
    weight_kind : {"distance", "similarity"} or None, default=None
        What the weights of a graph (``metric="precomputed"`` or a networkx
        graph) mean; ``"similarity"`` converts them with ``1 / w``, and
        ``None`` reads them as distances with a warning when they look like
        similarities (see :class:`~skdpgraph.cluster.DBMSTClu`).
        ``sensitivity`` and ``weight_bounds`` are about the distances after
        the conversion; ``1 / w`` is not Lipschitz, so for private
        similarities with a known sensitivity prefer
        :class:`skdpgraph.graphs.SimilarityToDistance` with
        ``conversion="max_minus"`` and a public ``max_similarity``, which
        keeps the sensitivity.
    keep_training_data : bool, default=False
        Keep the training features in ``training_data_`` so that
        :meth:`predict` can find the nearest training node of new points.
        The fitted model then holds the raw data: it is NOT a private
        release. Off by default.
    {{random_state}}
    verbose : int, default=0
        ``> 0``: print one line per stage of the fit (validation, release,
        DBMSTClu) with its duration to standard error.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster labels ``0..n_clusters_-1``.
    n_clusters_ : int
    dbcvi_ : float
        DBCVI of the partition on the released tree.
    tree_ : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The released weighted spanning tree (forest), weights in ``(0, 1]``.
    tree_edges_ : ndarray of shape (n_samples - n_components, 2)
        Its edges ``(u, v)``, ``u < v``.
    cut_edges_ : ndarray of shape (n_cuts, 2)
        Tree edges cut by DBMSTClu, in order.
    dbcvi_path_ : ndarray of shape (n_cuts,)
        DBCVI after each cut.
    weight_bounds_ : (float, float)
        Bounds used: the public ones given, or coarse ones read from the data
        (see ``weight_bounds``).
    epsilon_spent_ : float
        Epsilon of the guarantee of this fit.
    delta_spent_ : float
        Delta of the guarantee (0 under pure accounting but for the
        exponential mechanism's truncation, see above).
    rho_spent_ : float or None
        zCDP parameter of the release under ``accounting="zcdp"``.
    step_epsilon_ : float or None
        Epsilon of each PAMST step (topology mechanisms that use steps).
    tree_mechanism_ : str
        The tree mechanism that ran: the choice of ``tree_mechanism="auto"``
        or the one given.
    n_features_in_ : int
    training_data_ : ndarray or sparse matrix
        Only with ``keep_training_data=True`` (and features as input).

    See Also
    --------
    skdpgraph.cluster.DBMSTClu : the non-private clusterer.
    private_mst_clustering : the function form.
    skdpgraph.tree.pamst, skdpgraph.tree.laplace_mst,
    skdpgraph.tree.release_tree_weights : the mechanisms.

    Notes
    -----
    Honest calibration makes PAMST's trees nearly uniformly random at the
    paper's settings (each of the ``|V| - 1`` steps gets ``epsilon / 2 /
    (|V| - 1)``); Laplace-MST is far more useful there, hence
    ``tree_mechanism="auto"``. When the noise of the chosen mechanism at
    ``epsilon`` moves the weights a spanning tree keeps by more than a fifth
    of the width of the weight bounds, a
    :class:`~skdpgraph.exceptions.NoiseDominatesWarning` gives the ``epsilon``
    from which it carries signal (:func:`skdpgraph.privacy.signal_epsilon`,
    public parameters only). A graph whose weights are all equal gets a
    :class:`~skdpgraph.exceptions.ConstantWeightsWarning` (this one reads the
    weights: it tells the curator, and is not part of the release). Choosing ``epsilon``
    (or anything) by cross-validation on the private data spends privacy.
    A disconnected graph gives one tree per component; each component is
    clustered on its own, so clusters never span components.

    **Graphs larger than one process.** ``X`` may be a Dask edge table
    (:class:`skdpgraph.distributed.EdgeTable`, or a Dask DataFrame with
    columns ``u``, ``v``, ``weight``; ``metric="precomputed"``). The
    mechanisms that are noise on every edge followed by an exact minimum
    spanning tree (``"laplace"``, ``"input_perturbation"``, hence every
    choice of ``"auto"``) then run on the cluster: each partition draws its
    noise with its own key, calibrated for the whole table, and only the
    released tree (``n - 1`` edges) comes back to be cut here. The others
    refuse such input. The budget is charged here, before any task computes
    with a weight (the passes before it only check them). See
    ``docs/scale_out.md``.

    References
    ----------
    .. [1] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
       Clustering under Differential Privacy", UAI 2018, Section 3.3
       (Algorithm 3, PTClust; Definition 3.12, Weight-Release).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import PrivateMSTClustering
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> model = PrivateMSTClustering(epsilon=50.0, sensitivity=0.01,
    ...                              weight_bounds=(0.0, 6.0), random_state=0)
    >>> model.fit_predict(X)
    array([0, 0, 0, 1, 1, 1])
    >>> model.epsilon_spent_, model.tree_mechanism_
    (50.0, 'laplace')
    """

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, math.inf, closed="neither")],
        "sensitivity": [Interval(Real, 0, math.inf, closed="neither")],
        "neighborhood": [StrOptions({"l1", "linf"})],
        "tree_share": [Interval(Real, 0, 1, closed="neither")],
        "weight_bounds": ["array-like", None],
        "accounting": [StrOptions({"pure", "zcdp"})],
        "delta": [Interval(Real, 0, 1, closed="neither"), None],
        "accountant": [HasMethods(["check", "spend"]), None],
        "tree_mechanism": [str],
        **GRAPH_INPUT_CONSTRAINTS,
        "keep_training_data": ["boolean"],
        "verbose": ["verbose"],
        "random_state": [None, Interval(Integral, 0, None, closed="left"),
                         np.random.RandomState, np.random.Generator],
    }

    def __init__(self, epsilon=1.0, sensitivity=1.0, neighborhood="l1", tree_share=0.5,
                 weight_bounds=None, accounting="pure", delta=None, accountant=None,
                 tree_mechanism="auto", metric="euclidean", metric_params=None,
                 weight_kind=None, keep_training_data=False, random_state=None, verbose=0):
        self.epsilon = epsilon
        self.sensitivity = sensitivity
        self.neighborhood = neighborhood
        self.tree_share = tree_share
        self.weight_bounds = weight_bounds
        self.accounting = accounting
        self.delta = delta
        self.accountant = accountant
        self.tree_mechanism = tree_mechanism
        self.metric = metric
        self.metric_params = metric_params
        self.weight_kind = weight_kind
        self.keep_training_data = keep_training_data
        self.random_state = random_state
        self.verbose = verbose

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release a private tree of ``X``'s graph and cluster it.

        Parameters
        ----------
        X : array-like, sparse matrix, networkx.Graph or edge table
            Features, or a graph with ``metric="precomputed"``
            (see :func:`skdpgraph.check_graph`), or a distributed edge table
            (a Dask DataFrame or :class:`skdpgraph.distributed.EdgeTable`,
            with ``metric="precomputed"``; see the notes).
        y : ignored
            Not used, present for API consistency.

        Returns
        -------
        self : PrivateMSTClustering
        """
        # A refused or failed fit leaves the estimator as it was (the input check
        # sets the input attributes first).
        inputs = ("n_features_in_", "feature_names_in_")
        before = {name: vars(self)[name] for name in inputs if name in vars(self)}
        try:
            graph, n_features = check_graph_input(self, X)
            self.n_features_in_ = n_features
            res = private_mst_clustering(
                graph, self.epsilon, sensitivity=self.sensitivity,
                neighborhood=self.neighborhood, tree_share=self.tree_share,
                weight_bounds=self.weight_bounds, accounting=self.accounting,
                delta=self.delta, accountant=self.accountant,
                tree_mechanism=self.tree_mechanism, random_state=self.random_state,
                verbose=self.verbose, check_input=False)
        except BaseException:
            for name in inputs:
                vars(self).pop(name, None)
            vars(self).update(before)
            raise
        if self.keep_training_data and self.metric != "precomputed" and not _is_networkx_graph(X):
            self.training_data_ = check_array(X, accept_sparse="csr", dtype=np.float64,
                                              copy=True)
        self.tree_ = res.tree.tree
        self.tree_edges_ = res.tree.edges
        set_result_attributes(self, res, DBMSTCLU_FIELDS + (
            "weight_bounds", "epsilon_spent", "delta_spent", "rho_spent", "step_epsilon",
            "tree_mechanism"))
        return self

    def _can_predict(self):
        # Features need the kept training data; distances to the training
        # nodes (metric="precomputed") need nothing private.
        return self.metric == "precomputed" or self.keep_training_data

    @available_if(_can_predict)
    def predict(self, X):
        """Label new points with the cluster of their nearest training node.

        Not a private release: the nearest node is found with the training
        data, which the guarantee of :meth:`fit` does not extend to. Only
        available with ``metric="precomputed"`` (queries give their
        distances to the training nodes) or ``keep_training_data=True``.

        Parameters
        ----------
        X : array-like or sparse matrix
            ``metric="precomputed"``: distances ``(n_queries, n_train)`` to
            the training nodes, or similarities with
            ``weight_kind="similarity"`` (the most similar node is the
            nearest; sparse: stored entries only; every row needs one).
            Otherwise features ``(n_queries, n_features)``.

        Returns
        -------
        labels : ndarray of shape (n_queries,)
        """
        check_is_fitted(self)
        n_train = self.labels_.shape[0]
        if _is_networkx_graph(X):
            raise TypeError(
                "predict takes queries, not a graph: distances (n_queries, "
                f"{n_train}) to the training nodes with metric='precomputed', or features; "
                "the labels of the fitted graph's nodes are labels_."
            )
        if self.metric == "precomputed":
            return self.labels_[_nearest_precomputed(X, n_train,
                                                     self.weight_kind == "similarity")]
        if not hasattr(self, "training_data_"):
            raise ValueError(
                "This model was fitted on a networkx graph, so it has no training "
                "features; pass distances to the training nodes with "
                "metric='precomputed'."
            )
        with values_withheld("X"):  # scikit-learn's messages would quote the input
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        nearest = pairwise_distances_argmin(X, self.training_data_, metric=self.metric,
                                            metric_kwargs=self.metric_params or {})
        return self.labels_[nearest]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"
        tags.input_tags.sparse = True
        return tags


def _shape_message(shape, n_train):
    return (f"X has {shape[1]} features, but PrivateMSTClustering is expecting "
            f"{n_train} features as input: with metric='precomputed', X holds the "
            f"distances (n_queries, {n_train}) to the training nodes; got shape {shape}.")


def _nearest_precomputed(X, n_train, similarity=False):
    """Index of the nearest training node of each row of a distance matrix (the most
    similar one, of a similarity matrix: the conversions reverse the order)."""
    what = "similarities" if similarity else "distances"
    if sp.issparse(X):
        if X.ndim != 2 or X.shape[1] != n_train:
            raise ValueError(_shape_message(X.shape, n_train))
        X = sp.csr_array(_stored_entries(X), dtype=np.float64, copy=True)
        X.sum_duplicates()  # duplicate entries add up, as in fit (scipy's convention)
        data = X.data
        if not np.all(np.isfinite(data)) or (data.size and data.min() < 0):
            raise ValueError(f"{what} must be finite and non-negative.")
        if similarity:
            data = -data
        counts = np.diff(X.indptr)
        if np.any(counts == 0):
            raise ValueError(
                f"a row of X stores no value; every query needs at least one of its {what} "
                "to the training nodes."
            )
        row = np.repeat(np.arange(X.shape[0]), counts)
        # Sort by (row, distance, column): the first entry of each row wins.
        order = np.lexsort((X.indices, data, row))
        return np.asarray(X.indices[order][X.indptr[:-1]], dtype=np.int64)
    with values_withheld("X"):
        X = check_array(X, dtype=np.float64, input_name="X")
    if X.shape[1] != n_train:
        raise ValueError(_shape_message(X.shape, n_train))
    if X.size and X.min() < 0:
        raise ValueError(f"{what} must be non-negative.")
    return np.argmax(X, axis=1) if similarity else np.argmin(X, axis=1)
