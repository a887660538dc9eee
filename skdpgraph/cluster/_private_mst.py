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

import inspect
import math
from numbers import Integral, Real
from typing import Callable, NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.metrics import pairwise_distances_argmin
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import _check_feature_names, check_is_fitted, validate_data

from .._exponential_tree import exponential_tree
from .._graph import _is_networkx_graph, check_graph, check_random_state_or_entropy
from .._input_perturbation import input_perturbation_tree
from .._noisy_max_prim import noisy_max_prim_tree
from ..accounting import approx_dp_to_zcdp, zcdp_to_approx_dp
from ..spanning_tree import (SpanningTree, _check_bounds, _offdiag_range, warn_out_of_bounds,
                             data_weight_bounds, edges_to_csr, laplace_mst,
                             normalize_weights, pamst, release_tree_weights)
from ._base import set_dbmstclu_attributes
from ._dbmstclu import _n_features, dbmstclu

__all__ = ["PrivateMSTClustering", "TREE_MECHANISMS", "TreeMechanism",
           "register_tree_mechanism"]


class TreeMechanism(NamedTuple):
    """A private spanning-tree mechanism usable by :class:`PrivateMSTClustering`.

    Attributes
    ----------
    func : callable
        ``func(graph, epsilon=None, *, sensitivity, neighborhood,
        random_state, [rho=None], [check_input=True]) -> SpanningTree``.
    kind : {"topology", "weights"}
        ``"topology"``: releases only the tree's edges (its ``weights`` are the
        true, private ones); the estimator then spends the rest of the budget
        on Weight-Release. ``"weights"``: releases the tree with noisy
        weights already (e.g. Laplace-MST); the whole budget goes to it.
    """

    func: Callable
    kind: str


#: Registered tree mechanisms: ``name -> TreeMechanism(func, kind)``.
TREE_MECHANISMS = {
    "pamst": TreeMechanism(pamst, "topology"),
    "laplace": TreeMechanism(laplace_mst, "weights"),
    # Hladik and Tetek (FORC 2025): the exponential mechanism over all trees.
    "exponential": TreeMechanism(exponential_tree, "topology"),
    # Pagh, Retschmeier, Wu and Zhang (2024): one Gumbel perturbation, then MST.
    "input_perturbation": TreeMechanism(input_perturbation_tree, "topology"),
    # Pagh and Retschmeier (2024): Prim with Report-Noisy-Max, zCDP.
    "noisy_max_prim": TreeMechanism(noisy_max_prim_tree, "topology"),
}


def register_tree_mechanism(name, func, kind):
    """Make a private tree mechanism available as ``tree_mechanism=name``.

    Parameters
    ----------
    name : str
    func : callable
        See :class:`TreeMechanism`. If it accepts a ``rho`` keyword it is
        given a zCDP budget under ``accounting="zcdp"``.
    kind : {"topology", "weights"}
    """
    if kind not in ("topology", "weights"):
        raise ValueError(f"kind must be 'topology' or 'weights'; got {kind!r}.")
    if not callable(func):
        raise TypeError("func must be callable.")
    TREE_MECHANISMS[name] = TreeMechanism(func, kind)


def _accepts(func, name):
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False


def _weight_range(graph):
    """Smallest and largest edge weight (dense: off-diagonal, no n x n copy)."""
    if sp.issparse(graph):
        if graph.data.size == 0:
            return 0.0, 1.0
        return float(graph.data.min()), float(graph.data.max())
    return _offdiag_range(graph)


def _clip_graph(graph, bounds):
    """The graph with its weights clipped into public bounds (a copy if needed)."""
    lo, hi = bounds
    wmin, wmax = _weight_range(graph)
    if lo <= wmin and wmax <= hi:
        return graph
    if sp.issparse(graph):
        data = graph.data
        count = int(np.count_nonzero((data < lo) | (data > hi))) // 2
        out = graph.copy()
        out.data = np.clip(data, lo, hi)  # explicit zeros stay stored
    else:
        n = graph.shape[0]
        diag = n if lo > 0 else 0  # the diagonal holds 0s that are not edges
        count = (int(np.count_nonzero(graph < lo)) - diag
                 + int(np.count_nonzero(graph > hi))) // 2
        out = np.clip(graph, lo, hi)
        np.fill_diagonal(out, 0.0)
    warn_out_of_bounds(count, bounds, stacklevel=5)
    return out


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
    ``(epsilon_spent_, delta)``-DP, ``epsilon_spent_ <= epsilon``. The
    topology (which pairs are edges, hence the connected components) is
    not protected. :meth:`predict` reads the training data (it finds the
    nearest training node), so its output is not covered by the guarantee.

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
        :class:`~skdpgraph.accounting.PrivacyLeakWarning` (clipping keeps
        the guarantee; the warning itself depends on the data). They set the
        normalisation ``w' = (w + tau) / p`` of the released weights with
        ``tau = -low`` and ``p = high - low``, followed by clipping into
        ``(0, 1]`` (post-processing). ``None``: the bounds are computed from
        the private weights, with a ``PrivacyLeakWarning``: the guarantee
        then does not hold exactly.
    accounting : {"pure", "zcdp"}, default="pure"
        ``"pure"``: the paper's sequential composition; the tree's
        ``|V| - n_components`` exponential-mechanism steps get
        ``tree_share * epsilon / (|V| - n_components)`` each and the weights
        Laplace noise with ``(1 - tree_share) * epsilon``. ``"zcdp"``: the
        target ``(epsilon, delta)`` becomes a zCDP budget
        ``rho`` (:func:`~skdpgraph.accounting.approx_dp_to_zcdp`); each
        ``eps``-DP exponential-mechanism step costs ``eps**2 / 8`` (Cesar and
        Rogers 2021), so steps get ``sqrt(8 tree_share rho / (|V| - n_c))``,
        and the weights get Gaussian noise of L2 sensitivity ``mu`` (l1) or
        ``sqrt(|V| - 1) mu`` (linf) with the remaining ``rho``. A mechanism
        that releases weights itself runs on the whole budget: with ``rho``
        if it takes one, else as a pure ``epsilon``-DP mechanism (then
        ``delta_spent_ = 0``).
    delta : float in (0, 1), default=None
        Required with ``accounting="zcdp"``; must be None with ``"pure"``.
    accountant : object with ``check`` and ``spend``, default=None
        A budget accountant (e.g. :class:`skdpgraph.accounting.BudgetAccountant`
        or diffprivlib's): ``check(epsilon_spent, delta_spent)`` is called
        before the release and ``spend`` after it. :func:`sklearn.base.clone`
        (used by GridSearchCV) copies it; a ``BudgetAccountant`` copies to
        itself, so clones share its budget (not across ``n_jobs`` processes).
    tree_mechanism : str, default="pamst"
        A key of ``TREE_MECHANISMS``: ``"pamst"`` (PTClust, [1]_),
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
        distances.
    metric_params : dict, default=None
        Extra keyword arguments for the metric.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        ``None`` draws fresh OS entropy, as a private release needs. A fixed
        seed makes the release reproducible, hence not private against
        anyone who knows the seed.

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
        Bounds used (given, or read from the data).
    epsilon_spent_ : float
        Epsilon of the guarantee of this fit.
    delta_spent_ : float
        Delta of the guarantee (0 under pure accounting).
    rho_spent_ : float or None
        zCDP parameter of the release under ``accounting="zcdp"``.
    step_epsilon_ : float or None
        Epsilon of each PAMST step (topology mechanisms that use steps).
    n_features_in_ : int

    See Also
    --------
    skdpgraph.cluster.DBMSTClu : the non-private clusterer.
    skdpgraph.spanning_tree.pamst, skdpgraph.spanning_tree.laplace_mst,
    skdpgraph.spanning_tree.release_tree_weights : the mechanisms.

    Notes
    -----
    Honest calibration makes PAMST's trees nearly uniformly random at the
    paper's settings (each of the ``|V| - 1`` steps gets ``epsilon / 2 /
    (|V| - 1)``); Laplace-MST is far more useful there. Choosing ``epsilon``
    (or anything) by cross-validation on the private data spends privacy.
    A disconnected graph gives one tree per component; each component is
    clustered on its own, so clusters never span components.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster._private_mst import PrivateMSTClustering
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> model = PrivateMSTClustering(epsilon=50.0, sensitivity=0.01,
    ...                              weight_bounds=(0.0, 6.0),
    ...                              tree_mechanism="laplace", random_state=0)
    >>> model.fit_predict(X)
    array([0, 0, 0, 1, 1, 1])
    >>> model.epsilon_spent_
    50.0
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
        "metric": [StrOptions({"precomputed"}), str, callable],
        "metric_params": [dict, None],
        "random_state": [None, Interval(Integral, 0, None, closed="left"),
                         np.random.RandomState, np.random.Generator],
    }

    def __init__(self, epsilon=1.0, sensitivity=1.0, neighborhood="l1", tree_share=0.5,
                 weight_bounds=None, accounting="pure", delta=None, accountant=None,
                 tree_mechanism="pamst", metric="euclidean", metric_params=None,
                 random_state=None):
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
        self.random_state = random_state

    def _check_params(self):
        if self.tree_mechanism not in TREE_MECHANISMS:
            raise ValueError(
                f"tree_mechanism must be one of {sorted(TREE_MECHANISMS)}; got "
                f"{self.tree_mechanism!r}."
            )
        if self.accounting == "zcdp" and self.delta is None:
            raise ValueError("accounting='zcdp' needs delta, a number in (0, 1).")
        if self.accounting == "pure" and self.delta is not None:
            raise ValueError(
                "delta is only used with accounting='zcdp'; with accounting='pure' "
                f"the guarantee is epsilon-DP and delta must be None (got {self.delta!r})."
            )
        if self.weight_bounds is not None:
            return _check_bounds(self.weight_bounds)
        return None

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release a private tree of ``X``'s graph and cluster it.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Features, or a graph with ``metric="precomputed"``
            (see :func:`skdpgraph.check_graph`).
        y : ignored

        Returns
        -------
        self : PrivateMSTClustering
        """
        bounds = self._check_params()
        graph = check_graph(X, self.metric, self.metric_params)
        _check_feature_names(self, X, reset=True)
        self.n_features_in_ = _n_features(X, graph)
        if bounds is None:
            bounds = data_weight_bounds(np.array(_weight_range(graph)), stacklevel=4)
        else:
            graph = _clip_graph(graph, bounds)
        mech = TREE_MECHANISMS[self.tree_mechanism]
        plan = self._budget_plan(mech)
        if self.accountant is not None:
            self.accountant.check(plan["epsilon_spent"], plan["delta_spent"])
        rng = check_random_state_or_entropy(self.random_state)
        released, step_eps = self._release(graph, mech, plan, bounds, rng)
        res = dbmstclu(released.tree)
        if self.accountant is not None:
            self.accountant.spend(plan["epsilon_spent"], plan["delta_spent"])

        if self.metric != "precomputed" and not _is_networkx_graph(X):
            self._fit_X = check_array(X, accept_sparse="csr", dtype=np.float64, copy=True)
        else:
            self._fit_X = None
        self.tree_ = released.tree
        self.tree_edges_ = released.edges
        set_dbmstclu_attributes(self, res)
        self.weight_bounds_ = bounds
        self.epsilon_spent_ = plan["epsilon_spent"]
        self.delta_spent_ = plan["delta_spent"]
        self.rho_spent_ = plan["rho"]
        self.step_epsilon_ = step_eps
        return self

    def _budget_plan(self, mech):
        """How the budget is split, and the guarantee it yields."""
        eps = float(self.epsilon)
        share = float(self.tree_share)
        accepts_rho = _accepts(mech.func, "rho")
        if self.accounting == "pure":
            if mech.kind == "weights":
                return dict(tree_eps=eps, tree_rho=None, weight_eps=None, weight_rho=None,
                            rho=None, epsilon_spent=eps, delta_spent=0.0)
            return dict(tree_eps=share * eps, tree_rho=None, weight_eps=(1 - share) * eps,
                        weight_rho=None, rho=None, epsilon_spent=eps, delta_spent=0.0)
        delta = float(self.delta)
        rho = approx_dp_to_zcdp(eps, delta)
        if mech.kind == "weights":
            if accepts_rho:
                return dict(tree_eps=None, tree_rho=rho, weight_eps=None, weight_rho=None,
                            rho=rho, epsilon_spent=zcdp_to_approx_dp(rho, delta),
                            delta_spent=delta)
            # One pure mechanism: nothing to compose, epsilon-DP as it is.
            return dict(tree_eps=eps, tree_rho=None, weight_eps=None, weight_rho=None,
                        rho=None, epsilon_spent=eps, delta_spent=0.0)
        tree_rho = share * rho
        weight_rho = rho - tree_rho
        if accepts_rho:
            tree = dict(tree_eps=None, tree_rho=tree_rho)
        else:
            # A pure eps-DP mechanism is eps^2/2-zCDP (Bun and Steinke 2016).
            tree = dict(tree_eps=math.sqrt(2.0 * tree_rho), tree_rho=None)
        return dict(**tree, weight_eps=None, weight_rho=weight_rho, rho=rho,
                    epsilon_spent=min(eps, zcdp_to_approx_dp(rho, delta)),
                    delta_spent=delta)

    def _release(self, graph, mech, plan, bounds, rng):
        kwargs = dict(sensitivity=self.sensitivity, neighborhood=self.neighborhood,
                      random_state=rng)
        if _accepts(mech.func, "check_input"):
            kwargs["check_input"] = False
        if plan["tree_rho"] is not None:
            kwargs["rho"] = plan["tree_rho"]
            tree = mech.func(graph, **kwargs)
        else:
            tree = mech.func(graph, plan["tree_eps"], **kwargs)
        n_steps = tree.weights.size
        step_eps = None
        if mech.func is pamst and n_steps:
            step_eps = (plan["tree_eps"] / n_steps if plan["tree_eps"] is not None
                        else math.sqrt(8.0 * plan["tree_rho"] / n_steps))
        if mech.kind == "weights":
            w = normalize_weights(tree.weights, bounds)
            e = tree.edges
            return SpanningTree(edges_to_csr(e[:, 0], e[:, 1], w, graph.shape[0]), e, w), step_eps
        if plan["weight_rho"] is not None:
            released = release_tree_weights(
                tree, sensitivity=self.sensitivity, neighborhood=self.neighborhood,
                weight_bounds=bounds, random_state=rng, mechanism="gaussian",
                rho=plan["weight_rho"])
        else:
            released = release_tree_weights(
                tree, plan["weight_eps"], sensitivity=self.sensitivity,
                neighborhood=self.neighborhood, weight_bounds=bounds, random_state=rng,
                mechanism="laplace")
        return released, step_eps

    def predict(self, X):
        """Label new points with the cluster of their nearest training node.

        Not a private release: the nearest node is found with the training
        data, which the guarantee of :meth:`fit` does not extend to.

        Parameters
        ----------
        X : array-like or sparse matrix
            ``metric="precomputed"``: distances ``(n_queries, n_train)`` to
            the training nodes (sparse: stored entries only; every row needs
            one). Otherwise features ``(n_queries, n_features)``.

        Returns
        -------
        labels : ndarray of shape (n_queries,)
        """
        check_is_fitted(self)
        n_train = self.labels_.shape[0]
        if self.metric == "precomputed":
            return self.labels_[_nearest_precomputed(X, n_train)]
        if self._fit_X is None:
            raise ValueError(
                "This model was fitted on a networkx graph, so it has no training "
                "features; pass distances to the training nodes with "
                "metric='precomputed'."
            )
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        nearest = pairwise_distances_argmin(X, self._fit_X, metric=self.metric,
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


def _nearest_precomputed(X, n_train):
    """Index of the nearest training node of each row of a distance matrix."""
    if sp.issparse(X):
        X = sp.csr_array(X)
        if X.ndim != 2 or X.shape[1] != n_train:
            raise ValueError(_shape_message(X.shape, n_train))
        data = np.asarray(X.data, dtype=np.float64)
        if not np.all(np.isfinite(data)) or (data.size and data.min() < 0):
            raise ValueError("distances must be finite and non-negative.")
        counts = np.diff(X.indptr)
        if np.any(counts == 0):
            raise ValueError(
                f"row {int(np.flatnonzero(counts == 0)[0])} of X stores no distance; "
                "every query needs at least one distance to a training node."
            )
        row = np.repeat(np.arange(X.shape[0]), counts)
        # Sort by (row, distance, column): the first entry of each row wins.
        order = np.lexsort((X.indices, data, row))
        return np.asarray(X.indices[order][X.indptr[:-1]], dtype=np.int64)
    X = check_array(X, dtype=np.float64, input_name="X")
    if X.shape[1] != n_train:
        raise ValueError(_shape_message(X.shape, n_train))
    if X.size and X.min() < 0:
        raise ValueError("distances must be non-negative.")
    return np.argmin(X, axis=1)
