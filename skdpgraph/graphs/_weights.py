"""Transformers that give a graph's weights a meaning DBMSTClu can use.

* :class:`SimilarityToDistance`: a graph of similarities (counts, a kernel)
  into a graph of distances, by a documented decreasing map.
* :class:`StructuralDistance`: an unweighted graph into a graph of
  structural distances, ``1 - `` the Jaccard or cosine similarity of the
  closed neighbourhoods of the two ends of each edge.

Both take a precomputed graph (a square dense or sparse matrix) and return
the same graph (same edges) with new weights, so they sit in a Pipeline in
front of a clusterer with ``metric="precomputed"``.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import check_adjacency, check_graph, from_networkx, similarity_to_distance
from ..utils._weights import warn_max_from_data
from ..utils._networkx import _is_networkx_graph
from ..utils._docs import fill_doc
from ..utils._graph import _refuse_dask, _stored_entries
from ..utils._neighbours import common_neighbour_counts
from ..utils._param_validation import Interval, StrOptions, fit_context
from ..utils._validation import GraphInputTagsMixin, NodeFeaturesOutMixin, values_withheld

class _GraphWeightTransformer(GraphInputTagsMixin, NodeFeaturesOutMixin, TransformerMixin,
                              BaseEstimator):
    """Square graph in, same graph with new weights out; fitting stores the size."""

    @property
    def _n_features_out(self):
        return self.n_features_in_  # the nodes

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        return tags

    #: Whether transform takes a rectangular block (rows = queries).
    _row_wise = False

    def _validate(self, X, reset, check=True):
        _refuse_dask(X, "X")
        if _is_networkx_graph(X):  # the weights as stored (the transformer says what they
            X = from_networkx(X, weight_kind="distance")  # mean), rows in list(G)'s order
        elif sp.issparse(X):
            X = _stored_entries(X)  # a BSR's padding is not edges
        with values_withheld("X"):  # scikit-learn's messages would quote the input
            X = validate_data(self, X, reset=reset, accept_sparse=["csr", "csc", "coo"],
                              dtype=np.float64, ensure_min_samples=2 if reset else 1)
        values = X.data if sp.issparse(X) else X
        if values.size and values.min() < 0:
            # scikit-learn's wording ("Negative values in data") on purpose.
            raise ValueError(
                f"Negative values in data passed to {type(self).__name__}: graph weights "
                "must be >= 0."
            )
        if (reset or not self._row_wise) and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"X must be a square graph (n_nodes, n_nodes); got shape {X.shape}. "
                f"{type(self).__name__} maps the weights of a graph: build one first "
                "(e.g. with skdpgraph.graphs.EpsilonGraph, or "
                "sklearn.neighbors.kneighbors_graph with both directions: A.maximum(A.T))."
            )
        if reset and check:
            self._check_graph(X)  # an asymmetric graph is refused at fit, not a step later
        return X

    def _check_graph(self, X):
        """Refuse a square input that is not an undirected graph (the subclass's rule)."""
        check_graph(X, metric="precomputed", weight_kind="distance")

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check ``X``; nothing is learnt (the map is fixed by the parameters).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_nodes, n_nodes)
        y : Ignored

        Returns
        -------
        self
        """
        self._validate(X, reset=True)
        return self

    def transform(self, X):
        """The graph ``X`` with converted weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_nodes, n_nodes)

        Returns
        -------
        graph : ndarray or scipy.sparse.csr_array of shape (n_nodes, n_nodes)
        """
        check_is_fitted(self)
        return self._transform(self._validate(X, reset=False))


@fill_doc
class SimilarityToDistance(_GraphWeightTransformer):
    """Turn a graph of similarities into a graph of distances.

    The library's clusterers read weights as distances (small = close).
    Counts, affinities and kernels are similarities (large = close); this
    transformer maps each weight ``s`` with a decreasing map
    (:func:`skdpgraph.utils.similarity_to_distance`):

    * ``"inverse"``: ``1 / s``;
    * ``"max_minus"``: ``max - s``;
    * ``"neg_log"``: ``-log(s / max)``.

    The map is applied entry by entry: a sparse graph keeps its edges (its
    stored entries), a dense matrix is a complete graph of similarities. The
    diagonal (self-similarities) is mapped too and means nothing to the
    clusterers, which ignore it; a zero on the diagonal of a square input
    (counts have them; ``"inverse"`` and ``"neg_log"`` have no distance
    for 0) becomes the distance 0 (a square batch of queries given to
    :meth:`transform` is read as a graph too).
    :meth:`fit` takes a square graph; :meth:`transform` also takes rows of
    similarities to the fitted nodes, ``(n_queries, n_nodes)``.

    **Privacy.** The map is applied entry by entry, so under weight-DP it is
    post-processing of nothing: it changes what the sensitivity means.
    ``"max_minus"`` with a public ``max_similarity`` is 1-Lipschitz and keeps
    a sensitivity stated for the similarities; ``"inverse"`` and
    ``"neg_log"`` are not Lipschitz near 0, so the sensitivity must then be
    stated for the distances. A ``max`` read from the private similarities
    (``max_similarity=None``) leaks and is announced by a
    :class:`~skdpgraph.exceptions.PrivacyLeakWarning`.

    Parameters
    ----------
    conversion : {"inverse", "max_minus", "neg_log"}, default="inverse"
        The decreasing map, as listed above (see
        :func:`skdpgraph.utils.similarity_to_distance`).
    max_similarity : float > 0, default=None
        Public ``max`` of ``"max_minus"`` and ``"neg_log"``; larger
        similarities are clipped to it. ``None``: the largest similarity of
        the graph given to :meth:`fit`, with a ``PrivacyLeakWarning`` (then
        :meth:`transform` maps every batch with it, as a fitted map).

    Attributes
    ----------
    max_similarity_ : float or None
        The ``max`` used: ``max_similarity``, or the one read at fit (1 for
        a graph of zeros); None with ``"inverse"``, which needs none.
    {{n_features_in}}

    See Also
    --------
    skdpgraph.utils.similarity_to_distance : the map.
    skdpgraph.from_networkx : the same with ``weight_kind="similarity"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from sklearn.pipeline import make_pipeline
    >>> from skdpgraph.cluster import DBMSTClu
    >>> from skdpgraph.graphs import SimilarityToDistance
    >>> X = np.array([[0.0], [0.1], [0.2], [3.0], [3.1], [3.3]])
    >>> K = rbf_kernel(X, gamma=0.5)                  # similarities, ones on the diagonal
    >>> model = make_pipeline(SimilarityToDistance(conversion="neg_log", max_similarity=1.0),
    ...                       DBMSTClu(metric="precomputed"))
    >>> model.fit_predict(K)
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints = {
        "conversion": [StrOptions({"inverse", "max_minus", "neg_log"})],
        "max_similarity": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, conversion="inverse", *, max_similarity=None):
        self.conversion = conversion
        self.max_similarity = max_similarity

    _row_wise = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = True  # the largest similarity, when read, is read at fit
        return tags

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check ``X`` and fix the map (reading the largest similarity if none is given).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_nodes, n_nodes)
            The graph of similarities.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : SimilarityToDistance
            The fitted transformer.
        """
        X = self._validate(X, reset=True)
        self.max_similarity_ = None if self.conversion == "inverse" else self.max_similarity
        if self.conversion != "inverse" and self.max_similarity is None:
            warn_max_from_data(self.conversion)
            values = X.data if sp.issparse(X) else X
            top = float(values.max()) if values.size else 0.0
            self.max_similarity_ = top if top > 0 else 1.0
        return self

    def _transform(self, X):
        kw = dict(conversion=self.conversion, max_similarity=self.max_similarity_)
        # A zero on the diagonal of a square input (a self-similarity, which the clusterers
        # ignore; counts have them) has no distance under "inverse" and "neg_log": it maps
        # to 0 rather than being refused (mapped as the largest similarity, then set).
        fill = self.max_similarity_ or 1.0
        square = X.shape[0] == X.shape[1]
        if sp.issparse(X):
            G = sp.csr_array(X, copy=True)
            G.sum_duplicates()
            zero = (np.repeat(np.arange(G.shape[0]), np.diff(G.indptr)) == G.indices) & (
                G.data == 0) & square
            G.data[zero] = fill
            G.data = similarity_to_distance(G.data, **kw)
            G.data[zero] = 0.0
            return G
        X = np.array(X, dtype=np.float64, copy=True)
        zero = np.flatnonzero(np.diag(X) == 0) if square else np.empty(0, dtype=np.int64)
        X[zero, zero] = fill
        D = similarity_to_distance(X, **kw)
        D[zero, zero] = 0.0
        return D


def structural_distance_data(A, similarity="jaccard"):
    """``1 - sim(N[u], N[v])`` for every stored entry of a canonical binary ``A``.

    ``N[u]`` is the closed neighbourhood of ``u``. For adjacent ``u``,
    ``v``: ``|N[u] & N[v]| = c + 2`` with ``c`` their common neighbours
    (:func:`skdpgraph.utils._neighbours.common_neighbour_counts`, the count
    behind SCAN's similarity: each triangle listed once, at most
    ``O(|E| sqrt(|E|))``, or bit rows on dense graphs), ``|N[u]| = deg(u) + 1``.
    Returned aligned with ``A.data``.
    """
    n = A.shape[0]
    deg = np.diff(A.indptr).astype(np.float64)
    common = common_neighbour_counts(A).astype(np.float64)
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    cols = A.indices
    inter = common + 2.0
    du, dv = deg[rows] + 1.0, deg[cols] + 1.0
    if similarity == "jaccard":
        sim = inter / (du + dv - inter)
    else:
        sim = inter / np.sqrt(du * dv)
    return np.clip(1.0 - sim, 0.0, 1.0)


@fill_doc
class StructuralDistance(_GraphWeightTransformer):
    """Weight the edges of an unweighted graph by how little their ends share.

    DBMSTClu cuts a spanning tree by its weights; on an unweighted graph all
    weights are equal and it has nothing to cut on. This transformer gives
    every edge ``{u, v}`` the distance ``1 - sim(N[u], N[v])``, where
    ``N[u] = N(u) + {u}`` is the closed neighbourhood and ``sim`` is

    * ``"jaccard"``: ``|N[u] & N[v]| / |N[u] | N[v]|``, or
    * ``"cosine"``: ``|N[u] & N[v]| / sqrt(|N[u]| |N[v]|)`` (SCAN's
      structural similarity, Xu et al. 2007).

    Edges inside a dense community share many neighbours (small distance);
    bridges between communities share few (distance near 1). Only the stored
    edges get a weight (the output has the input's edges, no new ones), and
    the weights of the input are ignored (every stored entry, an explicit
    zero included, is an edge of a sparse input; every nonzero off-diagonal
    entry of a dense one).

    The common neighbours of the ends of every edge are counted as SCAN
    counts them: each triangle listed once (edges oriented by degree), time
    ``O(|E| sqrt(|E|))`` at worst and memory ``O(|E|)``, or by the AND of
    the ends' rows packed as bits on dense graphs.

    **Privacy.** The distances are a function of the topology alone. Under
    weight-DP the topology is public, so they are public too: the weight-DP
    guarantee then protects nothing (there are no private weights left),
    and using them is free. Under edge-DP, applied to the output of
    :class:`~skdpgraph.edge_dp.EdgeFlipPerturbation`, they are
    post-processing of the release and keep its guarantee; applied to the
    private graph itself they are not private.

    Parameters
    ----------
    similarity : {"jaccard", "cosine"}, default="jaccard"
        The similarity ``sim`` of the closed neighbourhoods, as listed above.

    Attributes
    ----------
    {{n_features_in}}

    See Also
    --------
    skdpgraph.cluster.structural_similarity : SCAN's similarity.
    skdpgraph.cluster.DBMSTClu : the clusterer it prepares graphs for.

    References
    ----------
    X. Xu, N. Yuruk, Z. Feng and T. A. J. Schweiger, "SCAN: a structural
    clustering algorithm for networks", KDD 2007.

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.pipeline import make_pipeline
    >>> from skdpgraph.cluster import DBMSTClu
    >>> from skdpgraph.graphs import StructuralDistance
    >>> G = nx.connected_caveman_graph(3, 5)      # 3 groups of 5, joined in a ring
    >>> A = nx.to_scipy_sparse_array(G, nodelist=range(15))
    >>> StructuralDistance().fit_transform(A)[[1, 0], [2, 14]].round(3)  # inside, between
    array([0.2  , 0.778])
    >>> make_pipeline(StructuralDistance(), DBMSTClu(metric="precomputed")).fit_predict(A)
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    """

    _parameter_constraints = {
        "similarity": [StrOptions({"jaccard", "cosine"})],
    }

    def __init__(self, similarity="jaccard"):
        self.similarity = similarity

    def _check_graph(self, X):
        check_adjacency(X)

    @fit_context(skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit to ``X`` and return its structural distances, checking it once.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_nodes, n_nodes)
            The graph (its stored entries are the edges).
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        graph : scipy.sparse.csr_array of shape (n_nodes, n_nodes)
            The same edges, weighted by ``1 - similarity``.
        """
        # The graph check of fit is the one the map needs: made once, not twice.
        return self._distances(check_adjacency(self._validate(X, reset=True, check=False)))

    def _transform(self, X):
        return self._distances(check_adjacency(X))

    def _distances(self, A):
        d = structural_distance_data(A, self.similarity)
        out = sp.csr_array((d, A.indices.copy(), A.indptr.copy()), shape=A.shape)
        out.has_sorted_indices = True
        return out
