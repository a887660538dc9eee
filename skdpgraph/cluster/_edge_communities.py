"""Edge-DP community detection estimators: thin wrappers over :mod:`skdpgraph.edge_dp`.

* :class:`DebiasedSpectralClustering`: a clusterer of an already released
  randomized-response graph that uses the public flip probability
  (post-processing; no privacy of its own). Inside
  :class:`~skdpgraph.cluster.PrivateGraphClustering` it receives the flip
  probability automatically.
* :class:`RandomizedResponseSpectralClustering`: randomized response
  (optionally subsampled) then debiased spectral clustering; pure
  ``epsilon``-edge-DP, local.
* :class:`PrivateLabelPropagation`: label propagation by exponential-mechanism
  votes (central); noise that does not grow with the number of nodes;
  ``(epsilon, delta)``-edge-DP through zCDP, or pure.
* :class:`NoisyPowerClustering`: the noisy power method (central);
  ``rho``-zCDP, reported as ``(epsilon, delta)``-edge-DP.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from ..edge_dp._flip import DEFAULT_MAX_ADDED_EDGES
from ..edge_dp._label_propagation import _label_propagation, _plan
from ..edge_dp._perturbation import _flip_release
from ..edge_dp._power import _noisy_power, check_power_release
from ..edge_dp._spectral import _check_n_clusters, _check_refine, _kmeans, _spectral_canonical
from ..privacy import (
    charge,
    noisy_power_budget,
    randomized_response_probability,
    zcdp_to_approx_dp,
)
from ..privacy._accounting import after_charge
from ..utils import StageLogger, check_random_state
from ..utils._config import check_work_memory
from ..utils._docs import fill_doc
from ..utils._param_validation import HasMethods, Interval, StrOptions
from ._base import AdjacencyInputMixin, set_result_attributes, warn_if_fewer_clusters

# A lower bound of label propagation's work per node (measured: about 130 bytes a
# node on a graph of one edge), checked before the charge.
_LABEL_PROPAGATION_NODE_BYTES = 96

__all__ = [
    "DebiasedSpectralClustering",
    "RandomizedResponseSpectralClustering",
    "NoisyPowerClustering",
    "PrivateLabelPropagation",
]

_SPECTRAL_CONSTRAINTS = {
    "n_clusters": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
    "regularization": [None, StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
    "refine": ["boolean", StrOptions({"auto", "likelihood", "bp"})],
    "max_clusters": [Interval(Integral, 1, None, closed="left")],
    "n_init": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state", np.random.Generator],
}


#: The fields of a spectral result that become fitted attributes.
_SPECTRAL_FIELDS = ("labels", "n_clusters", "spectral_labels", "embedding", "eigenvalues",
                    "bulk_edge")


@fill_doc
class DebiasedSpectralClustering(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """Spectral clustering of a released randomized-response graph, debiased.

    Read more in :func:`skdpgraph.edge_dp.debiased_spectral_clustering`.
    ``X`` is the *released* graph; with its public ``flip_probability`` ``p``
    (and ``sample_rate`` ``q``), the debiased adjacency
    ``(A'/q - p (J - I)) / (1 - 2p)`` is clustered spectrally without being
    formed, then refined by a block model of the released graph.
    It reads nothing private: it is post-processing of the release and keeps
    its guarantee. Inside :class:`~skdpgraph.cluster.PrivateGraphClustering`
    (or after :class:`~skdpgraph.edge_dp.EdgeFlipPerturbation`, giving
    ``flip_probability=s_/2`` by hand) it completes the edge-DP route. With
    ``flip_probability=0`` it is plain adjacency spectral clustering.

    Parameters
    ----------
    n_clusters : int or "auto", default="auto"
        Number of communities, public; ``"auto"`` estimates it from the
        released spectrum (eigenvalues above the estimated noise bulk; free).
    flip_probability : float in [0, 1/2), default=0.0
        Public flip probability of the release.
    sample_rate : float in (0, 1], default=1.0
        Public probability with which released pairs were kept.
    regularization : None, "auto" or float >= 0, default=None
        Degree regularisation of the operator (``tau``; ``"auto"``: the mean
        debiased degree).
    refine : bool, "auto", "likelihood" or "bp", default=True
        Refinement of the k-means labels on the released graph:
        ``"bp"``, degree-corrected belief propagation through the flip
        channel from several over-segmented k-means starts, combined by
        consensus (:func:`~skdpgraph.edge_dp.debiased_spectral_clustering`);
        ``"likelihood"``, mean-field EM of a planted-partition likelihood
        (:func:`~skdpgraph.edge_dp.refine_communities`), much cheaper;
        ``"auto"`` (what ``True`` runs), ``"bp"`` where the released
        spectrum shows signal (two or more eigenvalues above the noise edge)
        and its messages stay below 4 million numbers (about a 1,000-node
        graph released at ``epsilon >= 3`` with 20 communities), and
        ``"likelihood"`` otherwise; ``False``, none.
    max_clusters : int, default=256
        Cap of ``"auto"``.
    n_init : int, default=10
        k-means restarts.
    random_state : None, int or numpy.random.Generator, default=None
        Randomness of the eigensolver start and of k-means.
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,)
    n_clusters_ : int
    spectral_labels_ : ndarray of shape (n,)
        Labels before refinement.
    embedding_ : ndarray of shape (n, k)
    eigenvalues_ : ndarray
        Largest eigenvalues of the debiased adjacency.
    bulk_edge_ : float
        Estimated edge of the noise bulk.
    n_features_in_ : int

    References
    ----------
    .. [1] J. Hehir, A. Slavkovic and X. Niu, "Consistent spectral clustering
       of network block models under local differential privacy", Journal
       of Privacy and Confidentiality 12(2), 2022.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import DebiasedSpectralClustering, PrivateGraphClustering
    >>> G = nx.planted_partition_graph(3, 60, 0.3, 0.02, seed=0)
    >>> model = PrivateGraphClustering(DebiasedSpectralClustering(3, random_state=0),
    ...                                epsilon=3.0, random_state=0).fit(G)
    >>> round(model.estimator_.flip_probability, 4), model.estimator_.n_clusters_
    (0.0474, 3)
    """

    _parameter_constraints = {
        **_SPECTRAL_CONSTRAINTS,
        "flip_probability": [Interval(Real, 0, 0.5, closed="left")],
        "sample_rate": [Interval(Real, 0, 1, closed="right")],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters="auto", *, flip_probability=0.0, sample_rate=1.0,
                 regularization=None, refine=True, max_clusters=256, n_init=10,
                 random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.flip_probability = flip_probability
        self.sample_rate = sample_rate
        self.regularization = regularization
        self.refine = refine
        self.max_clusters = max_clusters
        self.n_init = n_init
        self.random_state = random_state
        self.verbose = verbose

    def _fit_adjacency(self, A):
        n = A.shape[0]
        k = _check_n_clusters(self.n_clusters, n)
        res = _spectral_canonical(A, float(self.flip_probability), float(self.sample_rate), k,
                                  self.regularization, _check_refine(self.refine),
                                  int(self.max_clusters), int(self.n_init),
                                  check_random_state(self.random_state))
        set_result_attributes(self, res, _SPECTRAL_FIELDS)
        warn_if_fewer_clusters(k, self.labels_)


@fill_doc
class RandomizedResponseSpectralClustering(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """Edge-DP communities: randomized response, then debiased spectral clustering.

    Each pair's adjacency bit is flipped with the public probability
    ``p = 1 / (1 + e^epsilon)`` (edge flipping with ``s = 2p``), and each
    released pair is then kept with probability ``sample_rate`` ``q``
    (``P(1 | edge) = (1 - p) q``, ``P(1 | non-edge) = p q``, sampled
    directly in ``O(|E| + p q n^2 / 2)``). The release is pure
    ``epsilon``-edge-DP (neighbouring graphs differ in one edge) for every
    ``q``; the expected number of added edges, ``q p n (n - 1) / 2``, is
    computed from public parameters and refused above ``max_added_edges``
    before anything is allocated. The released graph is then clustered by
    :func:`skdpgraph.edge_dp.debiased_spectral_clustering` (post-processing,
    free). Randomized response is a *local* mechanism: the released graph
    itself is private and can be published.

    Parameters
    ----------
    n_clusters : int or "auto", default="auto"
        Public number of communities, or ``"auto"``: estimated from the
        released spectrum (post-processing, free).
    epsilon : float > 0, default=1.0
        Privacy loss of the fit.
    sample_rate : float in (0, 1], default=1.0
        ``q``; smaller values shrink the release (and the signal) at the same
        ``epsilon``.
    max_added_edges : float or None, default=20_000_000
        Limit on the expected number of added edges (``None``: none but the
        process's memory; see :func:`~skdpgraph.edge_dp.flip_edges`).
    regularization : None, "auto" or float >= 0, default=None
        Degree regularisation of the operator, as in
        :class:`DebiasedSpectralClustering`.
    refine : bool, "auto", "likelihood" or "bp", default=True
        Refinement of the k-means labels on the released graph, as in
        :class:`DebiasedSpectralClustering`.
    max_clusters : int, default=256
        Cap of ``"auto"``.
    n_init : int, default=10
        k-means restarts.
    {{random_state}}
    {{accountant}}
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,)
    n_clusters_ : int
    released_graph_ : scipy.sparse.csr_array of shape (n, n)
        The randomized-response graph (itself ``epsilon``-edge-DP).
    flip_probability_ : float
    epsilon_spent_ : float
    spectral_labels_, embedding_, eigenvalues_, bulk_edge_
        As in :class:`DebiasedSpectralClustering`.
    n_features_in_ : int

    See Also
    --------
    NoisyPowerClustering : the central alternative.
    skdpgraph.cluster.PrivateGraphClustering : flipping then any clusterer.

    References
    ----------
    .. [1] J. Hehir, A. Slavkovic and X. Niu, "Consistent spectral clustering
       of network block models under local differential privacy", Journal
       of Privacy and Confidentiality 12(2), 2022.
    .. [2] S. L. Warner, "Randomized response", JASA 60, 1965.

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from skdpgraph.cluster import RandomizedResponseSpectralClustering
    >>> G = nx.planted_partition_graph(3, 60, 0.3, 0.02, seed=0)
    >>> model = RandomizedResponseSpectralClustering(3, epsilon=3.0, random_state=0).fit(G)
    >>> adjusted_rand_score([v // 60 for v in G], model.labels_) > 0.9
    True
    """

    _parameter_constraints = {
        **_SPECTRAL_CONSTRAINTS,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "sample_rate": [Interval(Real, 0, 1, closed="right")],
        "max_added_edges": [Interval(Real, 0, None, closed="both"), None],
        "accountant": [HasMethods(["check", "spend"]), None],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters="auto", *, epsilon=1.0, sample_rate=1.0,
                 max_added_edges=DEFAULT_MAX_ADDED_EDGES, regularization=None, refine=True,
                 max_clusters=256, n_init=10, random_state=None, accountant=None,
                 verbose=0):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.sample_rate = sample_rate
        self.max_added_edges = max_added_edges
        self.regularization = regularization
        self.refine = refine
        self.max_clusters = max_clusters
        self.n_init = n_init
        self.random_state = random_state
        self.accountant = accountant
        self.verbose = verbose

    def _fit_adjacency(self, A):
        p = randomized_response_probability(self.epsilon)
        if p >= 0.5:  # checked before the budget is charged
            raise ValueError(
                f"epsilon={self.epsilon!r} is too small: the flip probability rounds to 1/2 "
                "in floating point, where the release carries nothing to debias.")
        q = float(self.sample_rate)
        n = A.shape[0]
        k = _check_n_clusters(self.n_clusters, n)
        rng = check_random_state(self.random_state)
        log = StageLogger(self.verbose, type(self).__name__)
        with log.stage("randomized response") as note:
            released = _flip_release(self, A, 2.0 * p, float(self.epsilon), rng)
            note(f"{released.nnz // 2} released edges")
        del A  # nothing below reads the private graph
        with after_charge(float(self.epsilon), 0.0) as kept:
            kept["released_graph"] = released
            with log.stage("debiased spectral clustering") as note:
                res = _spectral_canonical(released, p, q, k, self.regularization,
                                          _check_refine(self.refine), int(self.max_clusters),
                                          int(self.n_init), rng)
                note(f"{res.n_clusters} clusters")
            set_result_attributes(self, res, _SPECTRAL_FIELDS)
            self.released_graph_ = released
            self.flip_probability_ = p
            self.epsilon_spent_ = float(self.epsilon)
            warn_if_fewer_clusters(k, self.labels_)


@fill_doc
class NoisyPowerClustering(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """Central edge-DP spectral clustering by the noisy power method (Hardt and Price 2014).

    Read more in :func:`skdpgraph.edge_dp.noisy_power_method`. ``n_iter``
    releases of ``A X + G`` on ``n x n_clusters`` iterates, each with
    discrete Gaussian noise calibrated to the one-edge L2 sensitivity
    ``sqrt(r_1^2 + r_2^2) <= sqrt(2) max_i ||X[i]||`` of the public previous
    iterate; ``rho``-zCDP in total, reported and charged as
    ``(epsilon, delta)``-edge-DP. Then k-means on the row-normalised released
    eigenvectors (post-processing). The noise is on ``n x k`` numbers, not on
    ``n^2`` bits; it pays off on large graphs with few, well separated
    communities (see ``docs/edge_dp.md``).

    Parameters
    ----------
    n_clusters : int, default=8
        Public number of communities (and eigenvectors).
    epsilon : float > 0, default=1.0
        The ``epsilon`` of the ``(epsilon, delta)``-edge-DP target, reached
        through zCDP (ignored with ``rho``).
    delta : float in (0, 1), default=1e-6
        The ``delta`` of the target, or of the charge with ``rho``.
    rho : float > 0, default=None
        A zCDP budget instead of ``epsilon`` (the charge is then
        ``(zcdp_to_approx_dp(rho, delta), delta)``).
    n_iter : int, default=8
        Noisy iterations; each gets ``rho / n_iter``.
    n_init : int, default=10
        k-means restarts.
    {{random_state}}
    {{accountant}}
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,)
        Labels ``0..n_clusters_-1`` (k-means on the row-normalised embedding).
    n_clusters_ : int
        The number of labels (k-means can leave a cluster empty: at most
        ``n_clusters``).
    embedding_ : ndarray of shape (n, n_clusters)
        The released (orthonormalised) last iterate.
    eigenvalues_ : ndarray of shape (n_clusters,)
        Estimates from the releases.
    rho_spent_ : float
    epsilon_spent_ : float
        ``epsilon`` of the ``(epsilon, delta)`` guarantee.
    delta_spent_ : float
    n_features_in_ : int

    {{hardt_price_references}}

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import NoisyPowerClustering
    >>> G = nx.planted_partition_graph(2, 100, 0.5, 0.02, seed=0)
    >>> model = NoisyPowerClustering(2, epsilon=4.0, random_state=0).fit(G)
    >>> model.labels_.shape, round(model.rho_spent_, 4)
    ((200,), 0.3111)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "rho": [Interval(Real, 0, None, closed="neither"), None],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
        "accountant": [HasMethods(["check", "spend"]), None],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters=8, *, epsilon=1.0, delta=1e-6, rho=None, n_iter=8,
                 n_init=10, random_state=None, accountant=None, verbose=0):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.rho = rho
        self.n_iter = n_iter
        self.n_init = n_init
        self.random_state = random_state
        self.accountant = accountant
        self.verbose = verbose

    def _fit_adjacency(self, A):
        delta = float(self.delta)
        if self.rho is not None:
            rho_step, rho = noisy_power_budget(self.n_iter, rho=self.rho)
            epsilon = zcdp_to_approx_dp(rho, delta)
        else:
            rho_step, rho = noisy_power_budget(self.n_iter, epsilon=self.epsilon, delta=delta)
            epsilon = float(self.epsilon)
        n = A.shape[0]
        k = _check_n_clusters(self.n_clusters, n)
        rng = check_random_state(self.random_state)
        check_power_release(n, k, rho_step, rng, int(self.n_iter))
        charge(self.accountant, epsilon, delta)
        log = StageLogger(self.verbose, type(self).__name__)
        with after_charge(epsilon, delta) as kept:
            with log.stage(f"noisy power method ({int(self.n_iter)} iterations)"):
                Xr, eig, _, _ = _noisy_power(A, k, rho_step, int(self.n_iter), rng)
            del A
            kept["embedding"] = Xr
            with log.stage("k-means"):
                norms = np.linalg.norm(Xr, axis=1, keepdims=True)
                labels = _kmeans(Xr / np.where(norms > 0, norms, 1.0), k, int(self.n_init),
                                 rng)
            self.labels_ = np.unique(labels, return_inverse=True)[1].astype(np.int64,
                                                                            copy=False)
            self.n_clusters_ = int(self.labels_.max()) + 1 if self.labels_.size else 0
            self.embedding_ = Xr
            self.eigenvalues_ = eig
            self.rho_spent_ = rho
            self.epsilon_spent_ = epsilon
            self.delta_spent_ = delta
            warn_if_fewer_clusters(k, self.labels_)


#: The fields of a label-propagation result that become fitted attributes.
_LABEL_PROPAGATION_FIELDS = ("labels", "n_clusters", "start_labels", "embedding",
                             "block_counts", "block_eigenvalues", "bulk_edge")


@fill_doc
class PrivateLabelPropagation(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """Central edge-DP communities: label propagation by exponential-mechanism votes.

    Read more in :func:`skdpgraph.edge_dp.private_label_propagation`. The
    curator holds the graph and releases only votes: in ``n_rounds``
    rounds every node redraws ``n_bits`` bits, each by an exponential
    mechanism over the counts of its neighbours with either bit (a noisy
    power iteration with a ``+-1`` iterate); k-means of the nodes' last bits
    gives start groups, whose released edge counts (discrete Gaussian
    noise) give the merges down to ``n_clusters`` (or ``k`` itself:
    eigenvalues of the fitted block model above ``2 sqrt(mean degree)``);
    then ``n_votes`` rounds in which every node redraws its label by an
    exponential mechanism over its neighbours' labels. One edge moves one
    count of each endpoint by one, so the noise of each vote does not grow
    with the graph (unlike randomized response, whose released rows carry
    ``p (n - 1)`` fake edges); the budget is composed in zCDP and reported
    as ``(epsilon, delta)``-edge-DP, or purely with ``delta=None``.

    Parameters
    ----------
    n_clusters : int or "auto", default=8
        Public number of communities, or ``"auto"`` (estimated from the
        released block counts of the start groups, before the label rounds
        that repair them: it needs a larger budget than a known count; at
        epsilon 4 it returned one cluster on a 400-node graph of 4 blocks
        where ``n_clusters=4`` reached ARI 0.99, and the right count from
        epsilon 8).
    epsilon : float > 0, default=1.0
        Edge-DP budget of the fit: with ``delta``, an ``(epsilon, delta)``
        target reached through zCDP (ignored with ``rho``).
    delta : float in (0, 1) or None, default=1e-6
        ``None``: pure ``epsilon``-DP (much weaker at equal epsilon).
    rho : float > 0, default=None
        A zCDP budget instead of ``epsilon`` (charged as
        ``(zcdp_to_approx_dp(rho, delta), delta)``).
    n_bits, n_rounds : int or None, default=None
        Bits per node and bit rounds (``None``:
        :func:`skdpgraph.edge_dp.label_propagation_rounds`).
    n_votes : int >= 0, default=2
        Label rounds.
    max_clusters : int, default=64
        Most start groups with ``n_clusters="auto"``.
    n_init : int, default=3
        k-means restarts.
    {{random_state}}
    {{accountant}}
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,)
    n_clusters_ : int
    start_labels_ : ndarray of shape (n,)
        Labels after the merge, before the label rounds.
    embedding_ : ndarray of shape (n, n_bits)
        Mean of each node's released bits over the last bit rounds.
    block_counts_ : ndarray
        The released edge counts between the start groups.
    block_eigenvalues_ : ndarray
        Eigenvalues of the block model fitted to them.
    bulk_edge_ : float
        ``2 sqrt(d)`` with ``d`` the released mean degree.
    epsilon_spent_, delta_spent_ : float
        The ``(epsilon, delta)``-DP guarantee (``delta_spent_ = 0``: pure).
    rho_spent_ : float or None
        zCDP parameter (None when pure).
    n_features_in_ : int

    See Also
    --------
    RandomizedResponseSpectralClustering : the local route, better on small
        graphs (see ``docs/edge_dp.md``, "which route at which size").

    References
    ----------
    .. [1] {{hardt_price}}
    .. [2] {{cesar_rogers}}

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from skdpgraph.cluster import PrivateLabelPropagation
    >>> G = nx.planted_partition_graph(3, 300, 0.15, 0.002, seed=0)
    >>> model = PrivateLabelPropagation(3, epsilon=3.0, random_state=0).fit(G)
    >>> adjusted_rand_score([v // 300 for v in G], model.labels_) > 0.9
    True
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither"), None],
        "rho": [Interval(Real, 0, None, closed="neither"), None],
        "n_bits": [Interval(Integral, 1, 16, closed="both"), None],
        "n_rounds": [Interval(Integral, 1, None, closed="left"), None],
        "n_votes": [Interval(Integral, 0, None, closed="left")],
        "max_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
        "accountant": [HasMethods(["check", "spend"]), None],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters=8, *, epsilon=1.0, delta=1e-6, rho=None, n_bits=None,
                 n_rounds=None, n_votes=2, max_clusters=64, n_init=3, random_state=None,
                 accountant=None, verbose=0):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.rho = rho
        self.n_bits = n_bits
        self.n_rounds = n_rounds
        self.n_votes = n_votes
        self.max_clusters = max_clusters
        self.n_init = n_init
        self.random_state = random_state
        self.accountant = accountant
        self.verbose = verbose

    def _fit_adjacency(self, A):
        n = A.shape[0]
        k = _check_n_clusters(self.n_clusters, n)
        if self.rho is not None and self.delta is None:
            raise ValueError("rho needs delta: the zCDP budget is reported as (epsilon, delta).")
        plan, n_bits, n_rounds = _plan(n, k, float(self.epsilon), self.delta, self.rho,
                                       self.n_bits, self.n_rounds, int(self.n_votes))
        rng = check_random_state(self.random_state)
        check_work_memory(_LABEL_PROPAGATION_NODE_BYTES * n,
                          f"{type(self).__name__} on {n} nodes")
        charge(self.accountant, plan.epsilon_spent, plan.delta_spent)
        log = StageLogger(self.verbose, type(self).__name__)
        with after_charge(plan.epsilon_spent, plan.delta_spent):
            with log.stage(f"label propagation ({n_rounds} bit rounds of {n_bits} bits, "
                           f"{int(self.n_votes)} label rounds)") as note:
                res = _label_propagation(A, k, plan, n_bits, n_rounds, int(self.n_votes),
                                         int(self.n_init), int(self.max_clusters), rng)
                note(f"{res.n_clusters} clusters")
            del A
            set_result_attributes(self, res, _LABEL_PROPAGATION_FIELDS)
            self.epsilon_spent_ = plan.epsilon_spent
            self.delta_spent_ = plan.delta_spent
            self.rho_spent_ = plan.rho
            warn_if_fewer_clusters(k, self.labels_)
