"""Graph-building transformers: epsilon-graphs and homogeneous graphs.

Both follow scikit-learn's convention for neighbour-graph transformers
(:class:`sklearn.neighbors.RadiusNeighborsTransformer`): :meth:`fit` stores
the points, :meth:`transform` returns the sparse graph of distances *from
the rows of its X to the fitted points*. On the fitted points themselves
(``fit_transform(X)``, which a :class:`~sklearn.pipeline.Pipeline` calls in
``fit`` and ``fit_predict``) this is the square, symmetric graph of ``X``,
which the clusterers accept with ``metric="precomputed"``::

    make_pipeline(EpsilonGraph(radius=0.3), DBMSTClu(metric="precomputed"))

On new points, ``transform(X_new)`` gives the rectangular graph from
``X_new`` to the fitted points; to build the graph *of* new points, call
``fit_transform(X_new)`` (or refit the pipeline). Each row of ``transform``
depends only on its own point and the fitted points, so transforming in
batches or in another order gives the same rows.

**Privacy.** These transformers are not private. Under weight-DP (the
library's model for :class:`~skdpgraph.cluster.PrivateMSTClustering`, PAMST
and Laplace-MST) the topology is public and only the weights are protected.
A graph whose edges are chosen by thresholding distances computed from
private data has a topology that depends on that data: which pairs are
within ``radius``, or inside the homogeneity band, is revealed by the edge
set, and the weight-DP guarantee of whatever is run on the graph does not
cover it. Use them on public coordinates, or accept that the topology leaks.
"""

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import column_or_1d
from sklearn.utils.validation import check_is_fitted, validate_data

from ..exceptions import DenseMemoryError, DisconnectedGraphWarning
from ..utils import check_dense_memory, check_graph, directed_csr, from_networkx, n_components
from ..utils._config import CHUNK_SIZE, _bytes, get_config, warn_data_dependent
from ..utils._graph import _check_feature_scale, _refuse_dask, _stored_entries
from ..utils._networkx import _is_networkx_graph
from ..utils._param_validation import Interval, StrOptions, fit_context
from ..utils._validation import NodeFeaturesOutMixin, values_withheld

#: Metrics whose distances this module recomputes exactly and symmetrically
#: (``d(a, b) == d(b, a)`` bit for bit) from the coordinates.
EXACT_METRICS = frozenset({
    "euclidean", "l2", "sqeuclidean", "manhattan", "cityblock", "l1",
    "chebyshev", "minkowski", "cosine",
})
#: Metrics scikit-learn's neighbour search accepts with sparse features.
_SPARSE_METRICS = frozenset({"euclidean", "l2", "manhattan", "cityblock", "l1", "cosine"})


# ---------------------------------------------------------------------------
# exact, symmetric distances
# ---------------------------------------------------------------------------

def _canonical_metric(metric, p):
    """(kind, p) for the exact formulas: kind in euclid, sq, l1, linf, lp, cos."""
    if callable(metric):
        return "callable", None
    if metric == "minkowski":
        p = 2.0 if p is None else float(p)
        if p == 1:
            return "l1", None
        if p == 2:
            return "euclid", None
        if math.isinf(p):
            return "linf", None
        return "lp", p
    return {
        "euclidean": "euclid", "l2": "euclid", "sqeuclidean": "sq",
        "manhattan": "l1", "cityblock": "l1", "l1": "l1",
        "chebyshev": "linf", "cosine": "cos",
    }[metric], None


def _metric_p(metric, p, metric_params):
    """The Minkowski power in force, and a check of ``metric_params``.

    The exact formulas know one parameter, the Minkowski ``p``; as in
    scikit-learn, ``metric_params["p"]`` overrides the ``p`` argument.
    """
    params = dict(metric_params or {})
    if callable(metric) or metric == "precomputed":
        return p
    if metric == "minkowski":
        p = params.pop("p", p)
        if isinstance(p, bool) or not isinstance(p, Real) or not p >= 1:
            raise ValueError(f"The Minkowski power p must be a number >= 1; got {p!r}.")
    if params:
        raise ValueError(
            f"metric_params {sorted(params)} are not supported with metric={metric!r}; "
            "only 'p' (for 'minkowski') is, or pass a callable metric."
        )
    return p


def _reduce_dense(A, B, kind, p):
    """Distances between the rows of equally shaped dense ``A`` and ``B``.

    Every formula is a reduction over the last axis of a function of
    ``A - B`` that is even in its argument (or, for cosine, of ``A * B``),
    so ``d(a, b)`` and ``d(b, a)`` are computed bit for bit alike.
    """
    if kind == "cos":
        na = np.sqrt((A * A).sum(axis=-1))
        nb = np.sqrt((B * B).sum(axis=-1))
        dot = (A * B).sum(axis=-1)
        denom = na * nb
        with np.errstate(divide="ignore", invalid="ignore"):
            sim = np.where(denom > 0, dot / np.where(denom > 0, denom, 1.0), 0.0)
        return np.clip(1.0 - sim, 0.0, 2.0)
    diff = A - B
    if kind in ("euclid", "sq"):
        s = (diff * diff).sum(axis=-1)
        return np.sqrt(s) if kind == "euclid" else s
    diff = np.abs(diff)
    if kind == "l1":
        return diff.sum(axis=-1)
    if kind == "linf":
        return diff.max(axis=-1, initial=0.0)
    return (diff ** p).sum(axis=-1) ** (1.0 / p)


def _reduce_sparse(A, B, kind, p):
    """As :func:`_reduce_dense` for CSR rows (canonical: sorted, no duplicates)."""
    if kind == "cos":
        na = np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel())
        nb = np.sqrt(np.asarray(B.multiply(B).sum(axis=1)).ravel())
        dot = np.asarray(A.multiply(B).sum(axis=1)).ravel()
        denom = na * nb
        with np.errstate(divide="ignore", invalid="ignore"):
            sim = np.where(denom > 0, dot / np.where(denom > 0, denom, 1.0), 0.0)
        return np.clip(1.0 - sim, 0.0, 2.0)
    diff = sp.csr_array(A - B)
    diff.sum_duplicates()
    if kind in ("euclid", "sq"):
        s = np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
        return np.sqrt(s) if kind == "euclid" else s
    diff = abs(diff)
    if kind == "l1":
        return np.asarray(diff.sum(axis=1)).ravel()
    if kind == "linf":
        m = diff.max(axis=1)
        return np.asarray(m.toarray() if sp.issparse(m) else m, dtype=np.float64).ravel()
    return np.asarray(diff.power(p).sum(axis=1)).ravel() ** (1.0 / p)


def _paired_distances(X, rows, Y, cols, metric, p, metric_params):
    """``d(X[rows[k]], Y[cols[k]])`` for every k, exact and symmetric."""
    kind, p = _canonical_metric(metric, p)
    out = np.empty(rows.size, dtype=np.float64)
    if kind == "callable":
        params = metric_params or {}
        Xd = X.toarray() if sp.issparse(X) else X
        Yd = Y.toarray() if sp.issparse(Y) else Y
        for k in range(rows.size):  # a Python metric costs a call per pair anyway
            out[k] = metric(Xd[rows[k]], Yd[cols[k]], **params)
        return out
    reduce = _reduce_sparse if sp.issparse(X) else _reduce_dense
    for start in range(0, rows.size, CHUNK_SIZE):
        sl = slice(start, start + CHUNK_SIZE)
        out[sl] = reduce(X[rows[sl]], Y[cols[sl]], kind, p)
    return out


def _pairwise_distances(X, Y, metric, p, metric_params):
    """Full ``(len(X), len(Y))`` matrix of exact, symmetric distances."""
    n_q, n_f = X.shape[0], Y.shape[0]
    D = np.empty((n_q, n_f), dtype=np.float64)
    step = max(1, CHUNK_SIZE // max(n_f, 1))
    cols = np.arange(n_f)
    for start in range(0, n_q, step):
        stop = min(n_q, start + step)
        rows = np.repeat(np.arange(start, stop), n_f)
        D[start:stop] = _paired_distances(X, rows, Y, np.tile(cols, stop - start),
                                          metric, p, metric_params).reshape(stop - start, n_f)
    return D


def _canonical_sparse_features(X):
    """CSR copy with sorted, summed entries and 32-bit indices when they fit.

    scikit-learn's sparse Manhattan kernel only takes 32-bit indices.
    """
    X = sp.csr_array(X, copy=True)
    X.sum_duplicates()
    if max(X.nnz, X.shape[1]) < np.iinfo(np.int32).max:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def _n_components(G):
    if G.shape[0] != G.shape[1]:
        return None
    return n_components(G)


def _max_row_norm(X):
    """The largest Euclidean norm of a row of ``X`` (dense or sparse); 0 without rows."""
    if X.shape[0] == 0:
        return 0.0
    squares = X.multiply(X).sum(axis=1) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
    return float(np.sqrt(np.max(squares)))


def _precomputed_distances(X, square):
    """The distances a precomputed matrix gives, as the clusterers read them: a BSR's
    padding dropped and duplicate entries summed (scipy's convention); with ``square``
    (the fitted points) its canonical graph (:func:`skdpgraph.check_graph`: checked, and
    symmetric bit for bit) with the matrix's own diagonal, stored where it was. A new
    array: the caller's is not modified."""
    if sp.issparse(X):
        X = sp.csr_array(_stored_entries(X), copy=True)
        X.sum_duplicates()
    if not square:
        return X
    G = check_graph(X, metric="precomputed")  # no diagonal
    if not sp.issparse(X):
        X = np.asarray(X)
        np.fill_diagonal(G, np.diagonal(X))  # checked finite; negatives refused below
        return G
    diagonal = sp.coo_array(X)
    diagonal = diagonal.row[diagonal.row == diagonal.col]
    G = sp.coo_array(G)
    rows = np.concatenate([G.row, diagonal]).astype(np.int64)
    cols = np.concatenate([G.col, diagonal]).astype(np.int64)
    values = np.concatenate([G.data, X.diagonal()[diagonal]])
    return directed_csr(rows, cols, values, X.shape[0])


def _check_nonnegative(X, what="X"):
    values = X.data if sp.issparse(X) else X
    if values.size and values.min() < 0:
        raise ValueError(
            f"Negative values in data passed to {what}: with metric='precomputed' it "
            "must hold distances >= 0."
        )


def _check_precomputed(X, candidate, what="X"):
    """Non-negative distances; returns the (row, col, value) triplets of the stored entries
    (every entry of a dense matrix) for which ``candidate(values)`` holds. A dense matrix
    is filtered before its indices are made: a boolean per entry, not two integers."""
    _check_nonnegative(X, what)
    if sp.issparse(X):
        coo = sp.coo_array(X)
        rows, cols, vals = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
        keep = candidate(vals)
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    else:
        keep = candidate(X)
        rows, cols = np.nonzero(keep)
        vals = X[keep]
    return rows, cols, np.asarray(vals, dtype=np.float64)


#: Points per radius query of EpsilonGraph, and the memory an edge takes on its way
#: to the graph (neighbour lists, rows, columns, distances, the CSR), for its limit.
_QUERY_ROWS = 1 << 12
_BYTES_PER_EDGE = 96


class _GraphTransformer(NodeFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared validation for the graph transformers."""

    @property
    def _n_features_out(self):
        return self._n_fit  # the output's columns: the fitted samples

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    def _validate_X(self, X, reset, accept_sparse):
        _refuse_dask(X, "X")
        if _is_networkx_graph(X):
            if self.metric != "precomputed":
                raise TypeError(
                    f"X is a networkx graph; {type(self).__name__} with "
                    f"metric={self.metric!r} builds a graph from points. Pass the "
                    "graph with metric='precomputed' (its weights are distances)."
                )
            X = from_networkx(X)
        if self.metric == "precomputed":
            canonical = _precomputed_distances(X, square=reset)
        with values_withheld("X"):  # scikit-learn's messages would quote the input
            # The caller's matrix: its shape, column names and the usual checks.
            X = validate_data(self, X, reset=reset, accept_sparse=accept_sparse,
                              dtype=np.float64, ensure_min_samples=2 if reset else 1)
        if self.metric == "precomputed" and (reset or sp.issparse(canonical)):
            X = canonical.astype(np.float64, copy=False)  # the distances it gives
        if self.metric != "precomputed":
            _check_feature_scale(X, "X")  # as check_graph: distances that overflow are refused
        return X


class EpsilonGraph(_GraphTransformer):
    """Epsilon-graph: edges between points closer than ``radius``.

    The graph of the thesis's clustering experiment (Section 4.3): node ``i``
    is the ``i``-th sample, and ``{i, j}`` is an edge, weighted by the
    distance ``d(x_i, x_j)``, when ``d(x_i, x_j) <= radius``. Candidate pairs
    come from scikit-learn's radius-neighbours search
    (:class:`sklearn.neighbors.NearestNeighbors`); their distances are then
    recomputed with a formula that gives ``d(a, b)`` and ``d(b, a)`` bit for
    bit alike, so the graph of the fitted points is exactly symmetric (the
    search's own distances, computed with the dot-product trick, are not).

    Parameters
    ----------
    radius : float > 0, default=1.0
        Largest distance of an edge (inclusive). The name differs from the
        privacy ``epsilon`` on purpose.
    metric : str or callable, default="euclidean"
        One of ``"euclidean"``, ``"l2"``, ``"sqeuclidean"``, ``"manhattan"``,
        ``"cityblock"``, ``"l1"``, ``"chebyshev"``, ``"minkowski"``,
        ``"cosine"``, a callable ``metric(a, b) -> float`` (assumed
        symmetric), or ``"precomputed"``: ``X`` is then a distance matrix,
        square in :meth:`fit` and ``(n_queries, n_fitted)`` in
        :meth:`transform`, dense or sparse (stored entries, explicit zeros
        included, are the candidate pairs).
    p : float >= 1, default=2
        Power of the Minkowski metric.
    metric_params : dict, default=None
        Keyword arguments of a callable metric; for ``"minkowski"`` only
        ``{"p": ...}`` (which overrides ``p``).
    algorithm : {"auto", "ball_tree", "kd_tree", "brute"}, default="auto"
        Neighbour-search algorithm (see
        :class:`~sklearn.neighbors.NearestNeighbors`).
    leaf_size : int, default=30
        Leaf size of the ball tree or k-d tree (see
        :class:`~sklearn.neighbors.NearestNeighbors`).
    n_jobs : int, default=None
        Parallel jobs of the neighbour search.

    Attributes
    ----------
    nn_ : sklearn.neighbors.NearestNeighbors or None
        The fitted neighbour search (None with ``metric="precomputed"``:
        the given distances are read directly).
    n_components_ : int
        Number of connected components of the graph of the fitted points
        (isolated points count as components). The clusterers handle each
        component separately; a :class:`~skdpgraph.exceptions.DisconnectedGraphWarning` (with the
        count and the fix) is emitted in :meth:`fit` when it is above 1.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Notes
    -----
    Zero distances (duplicate points) are stored explicitly: they are edges
    of weight 0 (scikit-learn's convention for precomputed sparse graphs).
    Each fitted point's distance to itself is stored too, on the diagonal
    of the square graph, as in
    :class:`~sklearn.neighbors.RadiusNeighborsTransformer` (for points and
    dense precomputed input; a sparse or networkx precomputed graph keeps
    the entries it stores, its diagonal only if stored; with
    ``metric="cosine"`` a point of zeros is at distance 1 from every point,
    itself included, scikit-learn's convention); consumers of a
    precomputed graph ignore the diagonal (no self-loops), so
    :func:`skdpgraph.check_graph` gives the canonical graph. Memory and time
    are those of the radius search, O(n + number of edges).

    **Privacy.** This transformer is not private, and the topology it builds
    is not covered by weight differential privacy: the edge set is chosen by
    comparing distances computed from ``X`` with ``radius``, so if those
    distances are private, which pairs are edges reveals information about
    them. The weight-DP guarantees of
    :class:`~skdpgraph.cluster.PrivateMSTClustering` and
    :mod:`skdpgraph.tree` protect the weights of a graph whose
    topology is public: build the graph from public information, or accept
    that its topology leaks.

    See Also
    --------
    HomogeneousGraph : the UAI paper's trimmed complete graph.
    sklearn.neighbors.RadiusNeighborsTransformer : the same search, not
        symmetrised.

    References
    ----------
    R. Pinot, "Minimum spanning tree release under differential privacy
    constraints", master thesis, 2017, Section 4.3.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.exceptions import DisconnectedGraphWarning
    >>> from skdpgraph.graphs import EpsilonGraph
    >>> X = np.array([[0.0], [0.5], [0.5], [3.0], [3.5]])
    >>> G = EpsilonGraph(radius=1.0).fit_transform(X[:3])
    >>> G.toarray()
    array([[0. , 0.5, 0.5],
           [0.5, 0. , 0. ],
           [0.5, 0. , 0. ]])
    >>> G[[1], [2]]  # duplicates: an explicitly stored zero-weight edge
    array([0.])
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     EpsilonGraph(radius=1.0).fit(X).n_components_
    2
    >>> caught[0].category.__name__
    'DisconnectedGraphWarning'

    """

    _parameter_constraints = {
        "radius": [Interval(Real, 0, None, closed="neither")],
        "metric": [StrOptions(set(EXACT_METRICS) | {"precomputed"}), callable],
        "p": [Interval(Real, 1, None, closed="left")],
        "metric_params": [dict, None],
        "algorithm": [StrOptions({"auto", "ball_tree", "kd_tree", "brute"})],
        # the neighbour trees read it as a C ssize_t
        "leaf_size": [Interval(Integral, 1, np.iinfo(np.intp).max, closed="both")],
        "n_jobs": [Integral, None],
    }

    def __init__(self, radius=1.0, *, metric="euclidean", p=2, metric_params=None,
                 algorithm="auto", leaf_size=30, n_jobs=None):
        self.radius = radius
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _fit(self, X):
        X = self._validate_X(X, reset=True, accept_sparse="csr")
        self._p = _metric_p(self.metric, self.p, self.metric_params)
        if sp.issparse(X) and self.metric != "precomputed":
            if callable(self.metric) or self.metric not in _SPARSE_METRICS:
                raise TypeError(
                    "EpsilonGraph accepts sparse feature matrices only with a "
                    f"metric in {sorted(_SPARSE_METRICS)}; got {self.metric!r}."
                )
            X = _canonical_sparse_features(X)
        if self.metric == "precomputed":
            _check_nonnegative(X)
        if self.metric == "precomputed":
            # Distances are given: the radius search reads them directly.
            self.nn_ = None
            self._fit_X = X
            self._fit_scale = 0.0
            self._n_fit = X.shape[0]
            return X
        self.nn_ = NearestNeighbors(
            radius=self.radius, algorithm=self.algorithm, leaf_size=self.leaf_size,
            metric=self.metric, p=self._p if self.metric == "minkowski" else 2,
            metric_params=self.metric_params if callable(self.metric) else None,
            n_jobs=self.n_jobs,
        ).fit(X)
        self._fit_X = X
        self._fit_scale = _max_row_norm(X)
        # The ball tree's bounds round relative to the data's extent about its centre
        # (the only search that reads it: computed for it alone).
        self._fit_center = self._fit_extent = None
        if getattr(self.nn_, "_fit_method", None) == "ball_tree" and not sp.issparse(X):
            self._fit_center = X.mean(axis=0)
            self._fit_extent = _max_row_norm(X - self._fit_center)
        self._n_fit = X.shape[0]
        return X

    def _query_radius(self, X):
        """A radius whose search surely returns every pair within ``radius``.

        The brute-force search computes Euclidean and cosine distances with
        the dot-product trick, whose error in the squared distance is about
        ``n_features * eps * (|x|^2 + |y|^2)``; the trees compute them from
        coordinate differences, within a relative ``n_features * eps``. The
        candidates are then filtered with exact distances, so a generous
        margin costs nothing but a few extra candidates.
        """
        r = float(self.radius)
        if self.metric == "precomputed" or callable(self.metric):
            return r * (1.0 + 1e-12)
        kind, _ = _canonical_metric(self.metric, self._p)
        d = X.shape[1]
        tol = 64.0 * (d + 2) * np.finfo(np.float64).eps
        method = getattr(self.nn_, "_fit_method", "brute")
        if kind == "euclid" and method == "kd_tree":
            # The k-d tree bounds with coordinates and computes distances from their
            # differences, exact to a relative tol: no error that grows with the norms
            # (points far from the origin made every pair a candidate).
            return r * (1.0 + tol) * (1.0 + 1e-12)
        if (kind == "euclid" and method == "ball_tree" and self._fit_center is not None
                and not sp.issparse(X)):
            # The ball tree's centroids and radii round relative to the data's extent
            # about its centre, not to its distance from the origin.
            scale = max(self._fit_extent, _max_row_norm(X - self._fit_center))
        else:
            scale = max(self._fit_scale, _max_row_norm(X))
        if kind == "euclid":
            return math.sqrt(r * r + tol * 2.0 * scale * scale) * (1.0 + 1e-12)
        if kind == "sq":
            return r + tol * 2.0 * scale * scale
        if kind == "cos":
            return r + tol
        return r * (1.0 + tol) + tol * scale

    def _graph(self, X):
        n_q, n_f = X.shape[0], self._fit_X.shape[0]
        r = float(self.radius)
        if self.metric == "precomputed":
            rows, cols, d = _check_precomputed(X, candidate=lambda d: d <= r)
            return directed_csr(rows, cols, d, (n_q, n_f))
        if sp.issparse(X):
            X = _canonical_sparse_features(X)
        radius, ind, found = self._query_radius(X), [], 0
        limit = get_config()["max_dense_memory"]
        # In blocks small enough that even a complete block stays within the limit:
        # refused before it fills memory.
        rows = max(1, min(_QUERY_ROWS, int(limit // (_BYTES_PER_EDGE * max(n_f, 1)))))
        for start in range(0, n_q, rows):
            block = self.nn_.radius_neighbors(X[start:start + rows], radius=radius,
                                              return_distance=False)
            ind.extend(block)
            found += sum(len(a) for a in block)
            if found * _BYTES_PER_EDGE > limit:
                # No count of pairs: refusals name no value or count of the input.
                raise DenseMemoryError(
                    f"The epsilon-graph of {n_q} points at radius={r:g} has more candidate "
                    f"pairs than fit, as it is built, within the limit of {_bytes(limit)}. "
                    "Lower radius (the longest edge of "
                    "the points' minimum spanning tree is the smallest radius that "
                    "connects them); or raise the limit with "
                    "skdpgraph.utils.set_config(max_dense_memory=...).")
        lens = np.fromiter((len(a) for a in ind), dtype=np.int64, count=n_q)
        rows = np.repeat(np.arange(n_q, dtype=np.int64), lens)
        cols = (np.concatenate(ind).astype(np.int64) if lens.sum()
                else np.zeros(0, dtype=np.int64))
        d = _paired_distances(X, rows, self._fit_X, cols, self.metric, self._p,
                              self.metric_params)
        keep = d <= r
        return directed_csr(rows[keep], cols[keep], d[keep], (n_q, n_f))

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Store the points and index them for radius queries.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Points, or a square distance matrix with ``metric="precomputed"``.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : EpsilonGraph
        """
        self._fit_graph(X)
        return self

    def _fit_graph(self, X):
        """Fit and build the graph of the fitted points; a refusal (input, memory)
        leaves the estimator as it was."""
        before = dict(self.__dict__)
        try:
            X = self._fit(X)
            G = self._graph(X)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
        self.n_components_ = _n_components(G)
        self._warn_disconnected()
        return G

    def _warn_disconnected(self):
        if self.n_components_ is not None and self.n_components_ > 1:
            warn_data_dependent(
                f"The epsilon-graph (radius={self.radius:g}) has {self.n_components_} "
                "connected components: the clusterers treat each component separately, "
                f"so the clustering will have at least {self.n_components_} clusters. "
                "Increase radius (the longest edge of the minimum spanning tree of the "
                "points is the smallest radius that connects them), or build a k-nearest-"
                "neighbours graph instead.",
                DisconnectedGraphWarning,
            )

    def transform(self, X):
        """Graph of distances from the rows of ``X`` to the fitted points.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features)
            Query points (``(n_queries, n_fitted)`` distances with
            ``metric="precomputed"``).

        Returns
        -------
        graph : scipy.sparse.csr_array of shape (n_queries, n_fitted)
            Entry ``(i, j)`` is ``d(X[i], fitted[j])`` when it is at most
            ``radius``; zero distances are stored explicitly. For the fitted
            points themselves the matrix is square and exactly symmetric.
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False, accept_sparse="csr")
        return self._graph(X)

    @fit_context(skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit and return the epsilon-graph of ``X`` (one radius search).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Points, or a square distance matrix with ``metric="precomputed"``.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        graph : scipy.sparse.csr_array of shape (n_samples, n_samples)
            Symmetric; zero distances stored explicitly (the diagonal of
            points and dense input included, see Notes).
        """
        return self._fit_graph(X)


class HomogeneousGraph(_GraphTransformer):
    """The UAI paper's homogeneous graph: a complete graph trimmed by weight.

    Starting from the complete graph of distances, keep edge ``{i, j}`` of
    weight ``d = d(x_i, x_j)`` when

    * ``w_min <= d <= w_max`` and ``i``, ``j`` have the same label, or
    * ``d > w_max ** 2 / w_min`` and ``i``, ``j`` have different labels,

    and drop every other edge (UAI 2018, Section 4). With ``y`` in
    :meth:`fit` this is the paper's benchmark construction: every cluster is
    then strongly homogeneous (Definition 3.11; inside weights span at most
    a factor ``w_max / w_min`` and every leaving edge is heavier than
    ``w_max ** 2 / w_min``). Without labels, both kinds of edges are kept
    whatever the labels would be: the graph keeps the distances in
    ``[w_min, w_max]`` and above ``w_max ** 2 / w_min`` and drops the
    ambiguous band ``(w_max, w_max ** 2 / w_min]`` and the distances below
    ``w_min`` (duplicates included).

    The weights are then divided by ``scale_``, the largest weight kept in
    the graph of the fitted points, so that graph has weights in ``(0, 1]``
    (the paper normalises into ``(0, 1]``; dividing by one constant keeps
    every weight ratio, hence the homogeneity of every cluster and the
    output of DBMSTClu, which is scale invariant).

    Parameters
    ----------
    w_min : float in (0, 1], default=0.1
        Smallest kept distance inside a cluster, in the units of the
        metric. Both bounds lie in ``(0, 1]`` as in the paper, whose weights
        are normalised into ``(0, 1]``: rescale ``X`` (or the precomputed
        distances) so that the band of interest lies there.
    w_max : float in (0, 1], default=0.3
        Largest kept distance inside a cluster; ``w_min < w_max``.
    metric : str or callable, default="euclidean"
        As for :class:`EpsilonGraph` (``"precomputed"``: ``X`` holds
        distances; for a sparse matrix only the stored entries are candidate
        edges).
    p : float >= 1, default=2
        Power of the Minkowski metric.
    metric_params : dict, default=None
        Keyword arguments of a callable metric; for ``"minkowski"`` only
        ``{"p": ...}`` (which overrides ``p``).

    Attributes
    ----------
    scale_ : float
        Divisor of the weights (1.0 if the fitted graph has no edge).
    n_components_ : int
        Connected components of the graph of the fitted points. A
        :class:`~skdpgraph.exceptions.DisconnectedGraphWarning` is emitted in :meth:`fit` when it
        is above 1.
    classes_ : ndarray or None
        The labels seen in :meth:`fit` (``None`` without ``y``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Notes
    -----
    On features the construction is dense: every pair of points is a
    candidate, about ``48 n_queries n_fitted`` bytes (5 GB at 10,000 points).
    Past ``skdpgraph.utils.get_config()["max_dense_memory"]`` (4 GiB by
    default) it refuses with an estimate before allocating; a sparse
    precomputed graph avoids the dense path.

    Fitting labels each fitted point with its ``y``. :meth:`transform`
    labels a query point with the label of the fitted points it coincides
    with (distance exactly 0); a point that coincides with none, or with
    fitted points of different labels, is unlabelled and its edges follow
    the rule without labels. So ``fit(X, y).transform(X) ==
    fit_transform(X, y)`` on features and dense distances without
    duplicates of conflicting labels; a sparse graph or a networkx graph
    stores no zero self-distance, so its queries are labelled only through
    stored zeros.

    The graph is built from the full ``(n_queries, n_fitted)`` distance
    matrix: O(n^2) time and memory, like the paper's complete graph. It has
    O(n^2) edges in general (most pairs of distinct clusters are far apart).

    **Privacy.** This transformer is not private, and the topology it builds
    is not covered by weight differential privacy: the edge set is chosen by
    comparing distances computed from ``X`` with ``w_min`` and ``w_max``
    (and, with ``y``, by the labels), so if those distances or labels are
    private, which pairs are edges reveals information about them. The
    weight-DP guarantees of :class:`~skdpgraph.cluster.PrivateMSTClustering`
    and :mod:`skdpgraph.tree` protect the weights of a graph whose
    topology is public; this construction is a benchmark, not a private
    release.

    See Also
    --------
    skdpgraph.metrics.check_homogeneity : which clusters are homogeneous.
    skdpgraph.datasets.make_homogeneous_moons : the paper's moons graph.

    References
    ----------
    R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
    Clustering under Differential Privacy", UAI 2018, Section 4 and
    Definitions 3.9-3.11.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.graphs import HomogeneousGraph
    >>> X = np.array([[0.0], [0.2], [0.4], [1.5]])
    >>> G = HomogeneousGraph(w_min=0.1, w_max=0.3).fit_transform(X, [0, 0, 0, 1])
    >>> G.toarray().round(3)  # kept: .2, .2 inside; 1.5, 1.3, 1.1 leaving; / 1.5
    array([[0.   , 0.133, 0.   , 1.   ],
           [0.133, 0.   , 0.133, 0.867],
           [0.   , 0.133, 0.   , 0.733],
           [1.   , 0.867, 0.733, 0.   ]])
    """

    _parameter_constraints = {
        "w_min": [Interval(Real, 0, 1, closed="right")],
        "w_max": [Interval(Real, 0, 1, closed="right")],
        "metric": [StrOptions(set(EXACT_METRICS) | {"precomputed"}), callable],
        "p": [Interval(Real, 1, None, closed="left")],
        "metric_params": [dict, None],
    }

    def __init__(self, w_min=0.1, w_max=0.3, *, metric="euclidean", p=2, metric_params=None):
        self.w_min = w_min
        self.w_max = w_max
        self.metric = metric
        self.p = p
        self.metric_params = metric_params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.metric == "precomputed"
        return tags

    def _validate_X(self, X, reset, accept_sparse):
        if self.metric != "precomputed" and sp.issparse(X):
            raise TypeError(
                "HomogeneousGraph builds the complete graph of the points and does not "
                "accept sparse feature matrices; pass a dense array, or a sparse "
                "distance graph with metric='precomputed'."
            )
        return super()._validate_X(X, reset, accept_sparse)

    def _distances(self, X):
        """(rows, cols, d) of every candidate pair from ``X`` to the fitted points."""
        if self.metric == "precomputed":
            # Only pairs that may be kept (in the band, or beyond w_max**2 / w_min), and
            # zero distances (a query coinciding with a fitted point takes its label).
            w_min, w_max = float(self.w_min), float(self.w_max)
            return _check_precomputed(X, candidate=lambda d: (
                (d >= w_min) & (d <= w_max)) | (d > w_max * w_max / w_min) | (d == 0))
        # The distances, their pair indices (two int64 arrays) and the
        # candidate selection: about six dense arrays of this shape.
        check_dense_memory((X.shape[0], self._fit_X.shape[0]), 6,
                           "HomogeneousGraph on features")
        D = _pairwise_distances(X, self._fit_X, self.metric, self._p, self.metric_params)
        rows, cols = np.indices(D.shape).reshape(2, -1)
        return rows, cols, D.ravel()

    def _query_labels(self, n_q, rows, cols, d):
        """Labels of the query points by coincidence with fitted points (-1: none)."""
        if self._labels is None:
            return None
        zero = d == 0
        lab = self._labels[cols[zero]]
        lo = np.full(n_q, np.iinfo(np.int64).max)
        hi = np.full(n_q, -1)
        np.minimum.at(lo, rows[zero], lab)
        np.maximum.at(hi, rows[zero], lab)
        return np.where(lo == hi, hi, -1)

    def _graph(self, X, scale):
        n_q, n_f = X.shape[0], self._n_fit
        rows, cols, d = self._distances(X)
        w_min, w_max = float(self.w_min), float(self.w_max)
        low = (d >= w_min) & (d <= w_max)
        high = d > w_max * w_max / w_min
        # Fitting: the rows are the fitted points, whose labels are y (a sparse graph
        # stores no zero self-distance to find them by); queries: by coincidence.
        qlab = self._labels if scale is None else self._query_labels(n_q, rows, cols, d)
        if qlab is None:
            keep = low | high
        else:
            a, b = qlab[rows], self._labels[cols]
            labelled = (a >= 0) & (b >= 0)
            same = a == b
            keep = np.where(labelled, np.where(same, low, high), low | high)
        if scale is None:  # fitting: the diagonal pairs a point with itself
            keep &= rows != cols
        rows, cols, d = rows[keep], cols[keep], d[keep]
        if scale is None:
            scale = float(d.max()) if d.size else 1.0
        return directed_csr(rows, cols, d / scale, (n_q, n_f)), scale

    def _fit_graph(self, X, y):
        """Fit and build the graph of the fitted points; a refusal (input, labels, memory)
        leaves the estimator as it was."""
        before = dict(self.__dict__)
        try:
            return self._fit_and_build(X, y)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    def _fit_and_build(self, X, y):
        if not float(self.w_min) < float(self.w_max):
            raise ValueError(
                f"w_min must be smaller than w_max; got w_min={self.w_min!r}, "
                f"w_max={self.w_max!r}."
            )
        X = self._validate_X(X, reset=True, accept_sparse="csr")
        self._p = _metric_p(self.metric, self.p, self.metric_params)
        n = X.shape[0]
        if y is None:
            self.classes_ = None
            self._labels = None
        else:
            y = column_or_1d(y, warn=True)
            if y.shape[0] != n:
                raise ValueError(
                    f"y must hold one label per sample: X has {n} samples, y has "
                    f"{y.shape[0]} labels."
                )
            if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
                raise ValueError("y contains NaN or infinite labels.")
            try:
                self.classes_, codes = np.unique(y, return_inverse=True)
            except TypeError:  # e.g. None among strings
                raise TypeError("y must hold labels of one comparable kind (all numbers or "
                                "all strings).") from None
            self._labels = codes.ravel().astype(np.int64)
        self._fit_X = X if self.metric != "precomputed" else None
        self._n_fit = n
        G, self.scale_ = self._graph(X, None)
        self.n_components_ = _n_components(G)
        if self.n_components_ > 1:
            warn_data_dependent(
                f"The homogeneous graph has {self.n_components_} connected components "
                f"(w_min={self.w_min}, w_max={self.w_max}); the clusterers treat each "
                "component separately, so no cluster will span two of them. To connect "
                "it, widen the band (a larger w_max keeps longer edges inside clusters) "
                "or rescale X so that the distances of interest lie in (w_min, w_max).",
                DisconnectedGraphWarning,
            )
        return G

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Store the points (and labels) and the scale of their graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points, or a square distance matrix (dense or sparse) with
            ``metric="precomputed"``.
        y : array-like of shape (n_samples,), default=None
            Cluster labels for the benchmark construction.

        Returns
        -------
        self : HomogeneousGraph
        """
        self._fit_graph(X, y)
        return self

    def transform(self, X):
        """Trimmed graph from the rows of ``X`` to the fitted points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points (``(n_queries, n_fitted)`` distances with
            ``metric="precomputed"``).

        Returns
        -------
        graph : scipy.sparse.csr_array of shape (n_queries, n_fitted)
            Kept distances divided by ``scale_`` (new points may get weights
            above 1). Symmetric, in ``(0, 1]`` and without diagonal for the
            fitted points.
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False, accept_sparse="csr")
        return self._graph(X, self.scale_)[0]

    @fit_context(skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit and return the homogeneous graph of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points, or a square distance matrix (dense or sparse) with
            ``metric="precomputed"``.
        y : array-like of shape (n_samples,), default=None
            Cluster labels for the benchmark construction.

        Returns
        -------
        graph : scipy.sparse.csr_array of shape (n_samples, n_samples)
            Symmetric, weights in ``(0, 1]``, no diagonal.
        """
        return self._fit_graph(X, y)
