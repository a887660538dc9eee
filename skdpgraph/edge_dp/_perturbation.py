"""The edge-flip estimators' plumbing: privacy parameters, the release, the transformer.

:class:`EdgeFlipPerturbation` and the base of
:class:`skdpgraph.cluster.PrivateGraphClustering` share one way of turning
``epsilon`` or ``s`` into a release, charging the accountant before the
private adjacency is read; the sampling itself is :func:`flip_edges`
(``_flip.py``).
"""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..privacy import charge, check_epsilon
from ..privacy._accounting import after_charge
from ..utils import check_adjacency, check_random_state
from ..utils._docs import fill_doc
from ..utils._graph import _adjacency_from_validated, _validate_array
from ..utils._networkx import _is_networkx_graph
from ..utils._param_validation import HasMethods, Interval, fit_context
from ..utils._validation import GraphInputTagsMixin, NodeFeaturesOutMixin
from ._flip import DEFAULT_MAX_ADDED_EDGES, _check_release_size, _flip_canonical
from ._pig import check_s, pig_epsilon, pig_s_from_epsilon


def _resolve_privacy(epsilon, s, owner):
    """``(s, epsilon)``: ``s`` when given (it overrides ``epsilon``), else from ``epsilon``."""
    if epsilon is None and s is None:
        raise ValueError(
            f"{owner} needs epsilon (default 1.0) or s (epsilon = ln(2/s - 1)); "
            "got neither."
        )
    if s is not None:
        s = check_s(s)
        return s, pig_epsilon(s)
    epsilon = check_epsilon(epsilon)
    return pig_s_from_epsilon(epsilon), epsilon


def _check_n_nodes_consistent(estimator, X):
    """``X`` (after :func:`_validate_array`) must have ``n_features_in_`` columns."""
    n = X.number_of_nodes() if _is_networkx_graph(X) else X.shape[1]
    if n != estimator.n_features_in_:
        raise ValueError(
            f"X has {n} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input: it was fitted on "
            f"a graph with {estimator.n_features_in_} nodes."
        )


def _privacy_parameter_constraints():
    return {
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "s": [Interval(Real, 0, 1, closed="right"), None],
        "random_state": ["random_state", np.random.Generator],
        "accountant": [HasMethods(["check", "spend"]), None],
        "sample_rate": [Interval(Real, 0, 1, closed="right")],
        "max_added_edges": [Interval(Real, 0, None, closed="both"), None],
    }


def _flip_release(estimator, A, s, epsilon, rng):
    """One edge-flip release of ``A`` under ``estimator``'s public parameters.

    The refusals that only read public parameters (``sample_rate``,
    ``max_added_edges``) come first, then ``estimator.accountant`` is charged
    ``epsilon``, then the private adjacency is read.
    """
    q = float(estimator.sample_rate)
    _check_release_size(A.shape[0], s, q, estimator.max_added_edges)
    charge(estimator.accountant, epsilon, 0.0)
    with after_charge(epsilon, 0.0):
        return _flip_canonical(A, s, rng, q, estimator.max_added_edges)


class _BaseEdgeFlip(BaseEstimator):
    """The parameters of an edge-flip release (``epsilon`` or ``s``, ...).

    Shared by :class:`EdgeFlipPerturbation` and
    :class:`skdpgraph.cluster.PrivateGraphClustering`, which make the same
    release; :meth:`_release_flipped` makes it.
    """

    _parameter_constraints = _privacy_parameter_constraints()

    def __init__(self, epsilon=1.0, s=None, random_state=None, accountant=None, *,
                 sample_rate=1.0, max_added_edges=DEFAULT_MAX_ADDED_EDGES):
        self.epsilon = epsilon
        self.s = s
        self.random_state = random_state
        self.accountant = accountant
        self.sample_rate = sample_rate
        self.max_added_edges = max_added_edges

    def _release_flipped(self, A, s, epsilon):
        """One release of ``A`` flipped with ``s``, charged ``epsilon``."""
        return _flip_release(self, A, s, epsilon, check_random_state(self.random_state))


@fill_doc
class EdgeFlipPerturbation(GraphInputTagsMixin, NodeFeaturesOutMixin, TransformerMixin,
                           _BaseEdgeFlip):
    """Edge-DP perturbation of a graph's adjacency by edge flipping (PIG_pert).

    Each pair of distinct nodes keeps its adjacency bit with probability
    ``1 - s`` and gets a fair coin with probability ``s`` (Muelle et al.,
    Algorithm 1). Each call to :meth:`transform` (or :meth:`fit_transform`)
    is one release, ``epsilon``-differentially private with
    ``epsilon = ln(2/s - 1)`` for neighbouring graphs that differ in one edge
    (their Theorem 1); whatever is computed from the output alone (a
    clustering, say) is covered by the same guarantee.

    The budget is ``epsilon`` (default 1.0, diffprivlib's default), or
    ``s`` when it is given: ``s`` then overrides ``epsilon`` and
    ``epsilon_ = ln(2/s - 1)``. Weights are ignored: for
    sparse input every stored entry, an explicitly stored zero included, is
    an edge; for a dense array every nonzero off-diagonal entry is an edge (a
    dense array is read as an adjacency matrix, not as a complete graph of
    distances; a square feature-like array is thus taken by its nonzero
    pattern, and a non-square one is refused).

    Parameters
    ----------
    epsilon : float > 0, default=1.0
        Privacy loss per release; then ``s = 2 / (1 + e^epsilon)``. Ignored
        when ``s`` is given.
    s : float in (0, 1], default=None
        Randomisation probability; overrides ``epsilon``, and then
        ``epsilon_ = ln(2/s - 1)``. To pick it
        from a density with Theorem 2, see :func:`suggest_s` (a density
        computed from the private graph spends privacy; see
        :func:`dp_density`).
    {{random_state}}
    {{accountant}}
    sample_rate : float in (0, 1], default=1.0
        Keep each released pair with this probability (same ``epsilon``;
        see :func:`flip_edges`).
    max_added_edges : float or None, default=20_000_000
        Refuse releases expected to add more edges than this (computed from
        public parameters before allocating; see :func:`flip_edges`).

    Attributes
    ----------
    epsilon_ : float
        Privacy loss of one release.
    s_ : float
        Randomisation probability used; each bit flips with probability
        ``s_ / 2``.
    {{n_features_in}}

    See Also
    --------
    flip_edges : the function doing the work.
    skdpgraph.cluster.PrivateGraphClustering : perturbation then clustering.

    {{muelle_references}}

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.edge_dp import EdgeFlipPerturbation
    >>> G = nx.les_miserables_graph()
    >>> pert = EdgeFlipPerturbation(epsilon=3.0, random_state=0)
    >>> P = pert.fit_transform(G)
    >>> P.shape, round(pert.s_, 4)
    ((77, 77), 0.0949)
    """

    def _fit(self, X):
        self.s_, self.epsilon_ = _resolve_privacy(self.epsilon, self.s, type(self).__name__)
        A = check_adjacency(X)
        self.n_features_in_ = A.shape[0]
        return A

    @property
    def _n_features_out(self):
        return self.n_features_in_  # the nodes

    def _release(self, A):
        """One release of the validated adjacency ``A`` (one charge)."""
        return self._release_flipped(A, self.s_, self.epsilon_)

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Validate the parameters and the graph; nothing is released.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph (see :func:`check_adjacency`).
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : EdgeFlipPerturbation
        """
        self._fit(X)
        return self

    def transform(self, X):
        """Release a perturbed copy of ``X`` (one ``epsilon_``-DP release).

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph with ``n_features_in_`` nodes.

        Returns
        -------
        perturbed : scipy.sparse.csr_array of shape (n, n)
            Symmetric 0/1 adjacency (float64), no diagonal.
        """
        check_is_fitted(self)
        X = _validate_array(X, "X")
        _check_n_nodes_consistent(self, X)
        return self._release(_adjacency_from_validated(X, False, "X"))

    @fit_context(skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit and release one perturbed copy of ``X`` (validated once).

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph (see :func:`check_adjacency`).
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        perturbed : scipy.sparse.csr_array of shape (n, n)
        """
        return self._release(self._fit(X))
