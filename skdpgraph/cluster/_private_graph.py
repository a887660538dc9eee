"""PIG: edge-DP graph clustering by perturbing the graph, then clustering it."""

import numpy as np
from sklearn.base import ClusterMixin, clone, is_clusterer
from sklearn.pipeline import Pipeline

from ..edge_dp._flip import DEFAULT_MAX_ADDED_EDGES
from ..edge_dp._perturbation import _BaseEdgeFlip, _resolve_privacy
from ..privacy._accounting import after_charge
from ._base import AdjacencyInputMixin, count_clusters, warn_if_fewer_clusters
from ._scan import SCAN
from ..utils._docs import fill_doc
from ..utils._param_validation import HasMethods, check_parameters


def _check_step_parameters(step):
    """The parameters of a clusterer (or of a step of its Pipeline), checked as its own
    fit checks them first: a wrong one is refused before the budget is spent."""
    constraints = getattr(type(step), "_parameter_constraints", None)
    if constraints is None:
        return
    if any(cls.__module__.startswith("skdpgraph.") for cls in type(step).__mro__):
        # the library's constraints (also of a user's subclass of its clusterers)
        check_parameters(constraints, step.get_params(deep=False), type(step).__name__)
    elif hasattr(step, "_validate_params"):  # scikit-learn's estimators
        step._validate_params()


@fill_doc
class PrivateGraphClustering(AdjacencyInputMixin, ClusterMixin, _BaseEdgeFlip):
    """Edge-differentially private graph clustering: flip edges, then cluster.

    PIG (Muelle et al. 2015): the graph's adjacency is perturbed by edge
    flipping (each pair keeps its bit with probability ``1 - s`` and gets a
    fair coin otherwise; see
    :class:`skdpgraph.edge_dp.EdgeFlipPerturbation`), and a clone of
    ``estimator`` is fitted on the perturbed graph. The labels depend on the
    private graph only through the perturbed one, so they are
    ``epsilon``-differentially private with ``epsilon = ln(2/s - 1)`` for
    neighbouring graphs that differ in one edge, whatever the clusterer.

    The clusterer receives the perturbed graph as a symmetric sparse
    ``csr_array`` of 0/1 (float64, no diagonal). A *perturbation-aware*
    clusterer, one with a ``flip_probability`` parameter (and optionally
    ``sample_rate``) such as
    :class:`~skdpgraph.cluster.DebiasedSpectralClustering`, gets the public
    flip probability ``s / 2`` (and sample rate) set on its clone, so it can
    debias the graph; this is public information and costs nothing. Any
    clusterer taking a precomputed adjacency works: :class:`~skdpgraph.cluster.SCAN`,
    :class:`~skdpgraph.cluster.GraphKMedoids`, scikit-learn's
    ``SpectralClustering(affinity="precomputed")`` (the adjacency as
    affinity), or ``DBSCAN(metric="precomputed", eps=1)`` (edges as
    distance-1 neighbours).

    Weights of the input are ignored (sparse: every stored entry, an explicit
    zero included, is an edge; dense: every nonzero off-diagonal entry). Its
    parameters (here, and the clusterer's) must not be tuned on the private
    graph: that spends privacy beyond ``epsilon``.

    The clusterer's parameters, and the library's clusterers' limits that
    depend on the node count alone (:class:`~skdpgraph.cluster.GraphKMedoids`'s
    ``max_memory``), are checked before the budget is charged. If the
    clusterer fails on the released graph, the release is not lost: the
    exception carries it as ``perturbed_graph`` (clustering it again is
    post-processing and costs nothing).

    Parameters
    ----------
    estimator : estimator object, default=None
        Clusterer with ``fit`` that sets ``labels_``, or a Pipeline ending
        in one (its steps must keep every node); cloned before fitting.
        ``None``: :class:`~skdpgraph.cluster.SCAN` with its defaults.
    epsilon : float > 0, default=1.0
        Privacy loss (diffprivlib's default); then
        ``s = 2 / (1 + e^epsilon)``. Ignored when ``s`` is given.
    s : float in (0, 1], default=None
        Randomisation probability; overrides ``epsilon``, and then
        ``epsilon_spent_ = ln(2/s - 1)``. See
        :func:`skdpgraph.edge_dp.suggest_s` for Muelle et al.'s
        Theorem 2 (computing the density from the private graph spends
        privacy unless it is public).
    {{random_state}}
    {{accountant}}
    sample_rate : float in (0, 1], default=1.0
        Keep each released pair with this probability after flipping (same
        ``epsilon``; see :func:`skdpgraph.edge_dp.flip_edges`).
    max_added_edges : float or None, default=20_000_000
        Refuse, before allocating, a release expected to add more edges than
        this (``q (s/2) n (n - 1) / 2``, public parameters only).
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,)
        Labels from the clusterer fitted on the perturbed graph.
    n_clusters_ : int
        The number of distinct labels that are not negative numbers (noise: ``-1`` in
        :class:`~skdpgraph.cluster.SCAN` and ``DBSCAN``, ``-2`` and ``-3`` in ``HDBSCAN``).
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    perturbed_graph_ : scipy.sparse.csr_array of shape (n, n)
        The perturbed adjacency (itself differentially private).
    epsilon_spent_ : float
        Privacy loss of the fit, ``ln(2/s_ - 1)``.
    s_ : float
        Randomisation probability used.
    n_features_in_ : int
        Number of nodes.

    See Also
    --------
    skdpgraph.edge_dp.EdgeFlipPerturbation : the perturbation alone, for
        pipelines.

    {{muelle_references}}

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import SCAN
    >>> from skdpgraph.cluster import PrivateGraphClustering
    >>> G = nx.karate_club_graph()
    >>> model = PrivateGraphClustering(SCAN(0.5, 3), epsilon=3.0, random_state=0)
    >>> labels = model.fit_predict(G)
    >>> labels.shape, round(model.epsilon_spent_, 2)
    ((34,), 3.0)
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"]), None],
        **_BaseEdgeFlip._parameter_constraints,
        "verbose": ["verbose"],
    }

    def __init__(self, estimator=None, epsilon=1.0, s=None, random_state=None,
                 accountant=None, *, sample_rate=1.0,
                 max_added_edges=DEFAULT_MAX_ADDED_EDGES, verbose=0):
        super().__init__(epsilon, s, random_state, accountant, sample_rate=sample_rate,
                         max_added_edges=max_added_edges)
        self.estimator = estimator
        self.verbose = verbose

    def _fit_adjacency(self, A):
        s, epsilon = _resolve_privacy(self.epsilon, self.s, type(self).__name__)
        # The clusterer is checked before anything is spent.
        estimator = SCAN() if self.estimator is None else clone(self.estimator)
        if not is_clusterer(estimator):
            raise TypeError(
                f"estimator must be a clusterer (a scikit-learn estimator whose "
                f"fit sets labels_); got {type(estimator).__name__}."
            )
        # A Pipeline ending in a clusterer: its last step is the clusterer, checked and
        # given the release's parameters here, and its labels are the fit's.
        final = estimator[-1] if isinstance(estimator, Pipeline) else estimator
        q = float(self.sample_rate)
        params = final.get_params(deep=False)
        if "flip_probability" in params:
            # Public parameters of the release, for a clusterer that debiases.
            if s / 2.0 >= 0.5:
                given = f"s={self.s!r}" if self.s is not None else f"epsilon={self.epsilon!r}"
                raise ValueError(
                    f"{given} makes the flip probability s/2 equal to 1/2 in floating point: "
                    f"the release carries nothing for {type(final).__name__} to debias.")
            public = {"flip_probability": s / 2.0}
            if "sample_rate" in params:
                public["sample_rate"] = q
            elif q != 1.0:
                raise ValueError(
                    f"{type(final).__name__} takes flip_probability but not "
                    f"sample_rate; it cannot debias a release with sample_rate={q}."
                )
            final.set_params(**public)
        for step in (estimator.steps if isinstance(estimator, Pipeline) else [(0, estimator)]):
            _check_step_parameters(step[1])
        k = params.get("n_clusters")
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k > A.shape[0]:
            raise ValueError(f"the estimator's n_clusters={k} exceeds the {A.shape[0]} nodes "
                             "of the graph.")
        if hasattr(final, "_check_graph_size"):  # the library's clusterers: public limits
            final._check_graph_size(A.shape[0])
        perturbed = self._release_flipped(A, s, epsilon)
        # Hand the clusterer its own copy: the released graph stays intact
        # whatever the clusterer does to its input.
        with after_charge(epsilon, 0.0) as kept:  # paid for: not lost with a failure
            kept["perturbed_graph"] = perturbed
            estimator.fit(perturbed.copy())
            if not hasattr(final, "labels_"):
                raise TypeError(
                    f"estimator {type(final).__name__} did not set labels_ in "
                    "fit; PrivateGraphClustering needs a clusterer."
                )
            labels = np.asarray(final.labels_)
            if labels.shape != (A.shape[0],):
                raise ValueError(f"the estimator labelled {labels.shape} nodes; the graph has "
                                 f"{A.shape[0]} (a Pipeline's steps must keep every node).")
            self.estimator_ = estimator
            self.labels_ = labels
            self.n_clusters_ = count_clusters(labels)
            self.perturbed_graph_ = perturbed
            self.epsilon_spent_ = epsilon
            self.s_ = s
            asked = final.get_params(deep=False).get("n_clusters")
            warn_if_fewer_clusters(asked if isinstance(asked, (int, np.integer, str)) else None,
                                   labels)
