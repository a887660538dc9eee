"""Graph input layer: every accepted graph form -> one canonical form.

Every estimator of the library validates its ``X`` with :func:`check_graph`,
which returns either

* a dense ``(n, n)`` float64 array: a *complete* graph whose entry ``(i, j)``,
  ``i != j``, is the weight of edge ``{i, j}`` (the diagonal is set to 0 and
  carries no meaning), or
* a ``scipy.sparse.csr_array`` of float64: symmetric, sorted indices, no
  duplicates, no diagonal; every stored entry is an edge, and an explicitly
  stored zero is an edge of weight 0.

Weights are distances: small means close. A graph of similarities (large
means close: counts, kernels) is converted by a decreasing map when the
caller says so with ``weight_kind="similarity"`` (see
:func:`skdpgraph.utils.similarity_to_distance`); when the caller says
nothing (``weight_kind=None``) the weights are read as distances and a
:class:`WeightMeaningWarning` is emitted if they look like similarities
(integer counts in a networkx graph, a dense matrix with a dominant positive
diagonal such as an RBF kernel), or a dense matrix of mostly zeros such as an
adjacency matrix. The caller's data is never modified.

:func:`check_adjacency` is the gateway of the edge-DP route: an unweighted
topology, where a dense array is an adjacency matrix (its nonzero entries are
the edges), not a complete graph of distances.
"""

import sys

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances
from sklearn.utils import check_array

from ..exceptions import WeightMeaningWarning
from ._config import CHUNK_SIZE, check_dense_memory, data_dependent_warnings, warn_data_dependent
from ._networkx import _is_networkx_graph, from_networkx
from ._sparse import edges_to_csr, index_dtype
from ._validation import check_n_nodes, check_weight_dtype, check_weight_values, values_withheld
from ._weights import (
    check_weight_kind,
    looks_like_adjacency,
    looks_like_kernel,
    similarity_to_distance,
)

#: Relative tolerance on ``|A - A.T|`` below which a matrix counts as symmetric.
SYMMETRY_RTOL = 1e-8




def dask_input(X):
    """What kind of Dask input ``X`` is, or None (never imports dask).

    ``"a Dask DataFrame"`` (or ``Array``, ``Series``, ...) for a Dask
    collection, ``"an edge table"`` for an object holding one as ``frame``
    (:class:`skdpgraph.distributed.EdgeTable`). A program that never
    imported dask has none.

    Parameters
    ----------
    X : object

    Returns
    -------
    str or None
    """
    dask = sys.modules.get("dask")
    if dask is None:
        return None
    if dask.is_dask_collection(X):
        return f"a Dask {type(X).__name__}"
    if dask.is_dask_collection(getattr(X, "frame", None)):
        return "an edge table"
    return None


def _refuse_dask(X, what):
    """A Dask input where an in-memory graph is needed: refused before anything is computed
    (``np.asarray`` would pull the whole collection into this process)."""
    kind = dask_input(X)
    if kind is None:
        return
    if kind.startswith("a Dask Array"):
        hint = ("compute it first (X.compute()) if it fits in memory; a graph larger than "
                "memory is given as an edge table (skdpgraph.distributed.EdgeTable) to DBMSTClu "
                "or PrivateMSTClustering")
    else:
        hint = ("an edge table is taken by DBMSTClu and PrivateMSTClustering "
                "(metric='precomputed') only; here the graph must be in memory, e.g. "
                "skdpgraph.utils.edges_to_csr of the computed columns")
    raise TypeError(f"{what} is {kind}: {hint}.")


def _asymmetry_error(what):
    """Refusal of an asymmetric weight matrix. Refusals of input name no entry or value of
    it (the input may be private): the message says how to find them."""
    return ValueError(
        f"{what} is not symmetric beyond rounding: some weights A[i, j] and A[j, i] differ "
        "(find them with abs(A - A.T)). "
        "Pass a symmetric matrix: for example A.maximum(A.T) for a k-nearest-neighbours "
        "graph (sklearn.neighbors.kneighbors_graph stores one direction per neighbour), "
        "(A + A.T) / 2 for rounding differences."
    )


def _canonical_dense(D, what):
    """Validate a square dense distance matrix; return a symmetric copy."""
    if D.ndim != 2:
        raise ValueError(
            f"{what} must be 2-D; got an array with {D.ndim} dimension(s). "
            "Reshape your data: a precomputed graph is a square (n, n) matrix."
        )
    if D.shape[0] != D.shape[1]:
        raise ValueError(
            f"{what} with metric='precomputed' must be square; got shape "
            f"{D.shape}." + (
                " An edge list (rows u, v, weight) is a graph once built: "
                "skdpgraph.utils.edges_to_csr(u, v, weight, n_nodes), or a Dask DataFrame "
                "of edges for DBMSTClu and PrivateMSTClustering."
                if D.shape[1] in (2, 3) and D.shape[0] > 3 else "")
        )
    check_n_nodes(D.shape[0])
    G = np.array(D, dtype=np.float64, copy=True)
    np.fill_diagonal(G, 0.0)
    check_weight_values(G, what)
    # max |G - G.T| in blocks of rows: no (n, n) temporary beside the copy (memory).
    n, max_diff = G.shape[0], 0.0
    rows = max(1, CHUNK_SIZE // n)
    for lo in range(0, n, rows):
        part = np.abs(G[lo:lo + rows] - G[:, lo:lo + rows].T)
        max_diff = max(max_diff, float(part.max()))
    del part
    scale = float(G.max())
    if max_diff > SYMMETRY_RTOL * max(scale, np.finfo(float).tiny):
        raise _asymmetry_error(what)
    if max_diff > 0:
        # Halve first: (a + b) / 2 would overflow for weights near the float maximum.
        # Skipped when exactly symmetric, where it could only round subnormal weights.
        G *= 0.5
        G += G.T
    else:
        G += 0.0  # -0.0 -> +0.0: the two triangles agree bit for bit
    return G


def _stored_entries(A):
    """``A``, or for a BSR matrix with blocks larger than 1 x 1, which stores the zeros of
    its blocks as padding that cannot be told from stored zeros, its nonzero entries."""
    if A.format != "bsr" or A.blocksize == (1, 1):
        return A
    coo = sp.coo_array(A)
    keep = coo.data != 0
    return sp.coo_array((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=A.shape)


def _canonical_sparse(A, what, pattern=False):
    """Validate a sparse graph; return the canonical symmetric CSR array (``pattern``: of
    ones, an entry stored more than once being one edge)."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(
            f"{what} with metric='precomputed' must be square; got shape "
            f"{A.shape}."
        )
    n = A.shape[0]
    check_n_nodes(n)
    check_weight_dtype(A.dtype, what)
    A = _stored_entries(A)
    # Every path below builds new arrays: the caller's matrix is untouched.
    if A.format in ("csr", "csc"):
        # Compressed input: a copy (converted in C for CSC), sorted and summed
        # in place below; no COO round trip.
        G = sp.csr_array(A, dtype=np.float64, copy=True)
        data = G.data
        check_weight_values(data, what)
        row = np.repeat(np.arange(n, dtype=G.indices.dtype), np.diff(G.indptr))
        keep = row != G.indices  # self-loops carry no information for clustering
        if not keep.all():
            G = sp.csr_array((data[keep], (row[keep], G.indices[keep])), shape=(n, n))
    else:
        coo = sp.coo_array(A)
        row = np.asarray(coo.row)
        col = np.asarray(coo.col)
        data = np.asarray(coo.data, dtype=np.float64)
        check_weight_values(data, what)
        keep = row != col
        if not keep.all():
            data, row, col = data[keep], row[keep], col[keep]
        # COO -> CSR sums duplicate entries (scipy's convention) and keeps
        # stored zeros.
        G = sp.csr_array((data, (row, col)), shape=(n, n))
        del coo, col
    del data, row, keep  # free the temporaries before the checks below
    G.sum_duplicates()
    if pattern:
        G.data[:] = 1.0
    if not np.all(np.isfinite(G.data)):  # the entries were finite: duplicates summed
        raise ValueError(
            f"{what} has duplicate entries whose weights sum past the largest float "
            "(duplicates are summed, scipy's convention); weights must be finite."
        )
    # int32 indices as soon as they fit: half the index bytes for the checks below.
    dtype = index_dtype(n, G.nnz)
    G.indices = G.indices.astype(dtype, copy=False)
    G.indptr = G.indptr.astype(dtype, copy=False)
    max_diff = _mirror_difference(G, average=False)
    if max_diff < 0:
        _raise_structural_asymmetry(what)
    if G.nnz:
        scale = float(G.data.max())
        if max_diff > SYMMETRY_RTOL * max(scale, np.finfo(float).tiny):
            raise _asymmetry_error(what)
        if max_diff > 0:
            # Each pair becomes 0.5 a + 0.5 b: (a + b) / 2 would overflow near the float
            # maximum. Skipped when exactly symmetric, where it could only round subnormals.
            _mirror_difference(G, average=True)
        else:
            G.data += 0.0  # -0.0 -> +0.0: the two triangles agree bit for bit
    return G


def _mirror_difference(G, average):
    """Largest ``|G[i, j] - G[j, i]|`` over the stored entries of ``G`` (a CSR with sorted
    indices and no diagonal), or -1.0 if an entry is stored without its mirror; with
    ``average``, each pair becomes ``0.5 a + 0.5 b`` in place."""
    if G.nnz >= CHUNK_SIZE:
        # One pass in compiled code, without a transpose: about twice as fast as scipy's
        # transpose on graphs of 10^6 edges, and no copy of the graph.
        from ._sparse_kernels import mirror_difference  # numba: imported when used

        return mirror_difference(G.indptr, G.indices, G.data, average)
    # Small graphs: scipy's transpose (sorted indices once converted to CSR), so that
    # validating them does not import numba.
    T = G.T.tocsr()
    T.sort_indices()
    if not (np.array_equal(G.indptr, T.indptr) and np.array_equal(G.indices, T.indices)):
        return -1.0
    if average:
        G.data *= 0.5
        G.data += 0.5 * T.data
    return float(np.abs(G.data - T.data).max()) if G.nnz else 0.0


def _raise_structural_asymmetry(what):
    """Refuse a pattern with an entry stored without its mirror. Refusals of input name no
    entry or value of it (the input may be private): the message says how to find them."""
    raise ValueError(
        f"{what} is not symmetric: an entry (i, j) is stored without its mirror entry "
        "(j, i) (find them with (A != 0) != (A != 0).T). Store both directions of "
        "every edge: A.maximum(A.T) for a k-nearest-neighbours graph "
        "(sklearn.neighbors.kneighbors_graph stores one direction per neighbour; "
        "A + A.T would double the mutual ones), A + A.T for a triangular matrix."
    )


def check_graph(X, metric="precomputed", metric_params=None, *, what="X", weight_kind=None):
    """Validate any accepted graph input and return its canonical form.

    Parameters
    ----------
    X : array-like, sparse matrix or networkx.Graph
        * ``metric="precomputed"`` and a dense square array: a complete graph;
          ``X[i, j]`` (``i != j``) is the weight of edge ``{i, j}``, the
          diagonal is ignored (but, as every entry, must be a finite number).
        * ``metric="precomputed"`` and a scipy sparse matrix or array (any
          format): stored entries are edges, an explicitly stored zero is an
          edge of weight 0, absent entries are non-edges (a BSR matrix with
          blocks larger than 1 x 1 stores the zeros of its blocks: there a
          zero is not an edge).
        * any other ``metric``: ``X`` is a feature matrix ``(n_samples,
          n_features)`` and the graph is the complete graph of pairwise
          distances under ``metric`` (see
          :func:`sklearn.metrics.pairwise_distances`).
        * a :class:`networkx.Graph` (any ``metric``): converted with
          :func:`from_networkx` using the ``"weight"`` attribute.
    metric : str or callable, default="precomputed"
        ``"precomputed"``: ``X`` is the graph itself. Any other value: a
        metric of :func:`sklearn.metrics.pairwise_distances`, and ``X`` a
        feature matrix.
    metric_params : dict, default=None
        Extra keyword arguments for the metric.
    what : str, default="X"
        Name of the input used in error messages.
    weight_kind : {"distance", "similarity"} or None, default=None
        What the weights of a graph (precomputed array or networkx graph)
        mean. ``"similarity"``: they are converted into distances with
        ``1 / w`` (:func:`similarity_to_distance`; the diagonal of a dense
        matrix is ignored). ``"distance"``: used as they are. ``None``: used
        as distances, with a :class:`WeightMeaningWarning` when they look
        like similarities (integer counts in a networkx graph; a dense
        matrix whose positive diagonal is the largest entry of each row, as
        in a kernel) or a dense matrix like an adjacency matrix (most
        entries off the diagonal 0, each an edge of distance 0). Feature
        matrices (any other ``metric``) give distances and ignore it.

    Returns
    -------
    graph : ndarray of shape (n, n) or scipy.sparse.csr_array
        Dense complete graph or canonical sparse graph (see module docs).

    Raises
    ------
    TypeError
        For string or complex arrays, object arrays that numpy cannot turn
        into numbers, and for Dask collections (they
        would be computed whole; an edge table is taken by the estimators
        that distribute).
    ValueError
        For non-square, asymmetric, negative, NaN or infinite weights, 1-D input, or
        fewer than 2 nodes. Asymmetric is an entry stored without its mirror, or two
        mirror weights that differ by more than ``1e-8`` times the largest weight of
        the graph (rounding: they are then averaged, ``0.5 a + 0.5 b``). The messages
        name no entry, value or count of the input.
    """
    return _check_graph(X, metric, metric_params, what, weight_kind)


def _check_graph(X, metric, metric_params, what, weight_kind, zeros_are_edges=True):
    """:func:`check_graph`; ``zeros_are_edges=False`` for a dense adjacency whose zeros
    the caller drops (no warning that they are read as edges)."""
    check_weight_kind(weight_kind)
    if _is_networkx_graph(X):
        return from_networkx(X, weight_kind=weight_kind)
    _refuse_dask(X, what)
    if metric == "precomputed":
        if sp.issparse(X):
            G = _canonical_sparse(X, what)
            if weight_kind == "similarity":
                G.data = similarity_to_distance(G.data)
            return G
        if isinstance(X, (str, bytes)):
            raise TypeError(f"{what} must be an array or a sparse matrix; got {type(X).__name__}.")
        arr = _as_real_array(X, what)
        if arr.ndim == 2:
            _check_nonempty(arr.shape)
            check_weight_values(arr, what)
        if arr.ndim != 2:
            raise ValueError(
                f"{what} must be 2-D; got an array with {arr.ndim} dimension(s). "
                "Reshape your data: a precomputed graph is a square (n, n) matrix."
            )
        if weight_kind is None and arr.shape[0] == arr.shape[1] and data_dependent_warnings():
            D = np.asarray(arr, dtype=np.float64)  # one float view for both checks
            if looks_like_kernel(D):
                warn_data_dependent(
                    f"{what} looks like a similarity (kernel) matrix, not distances: its "
                    "diagonal is positive and the largest entry of every row, whereas a "
                    "point is at distance 0 from itself. It is read as distances (small = "
                    "close), which reverses every cluster. Pass weight_kind='similarity' "
                    "where the call takes it (DBMSTClu, PrivateMSTClustering, check_graph), "
                    "else convert first with skdpgraph.graphs.SimilarityToDistance; or "
                    "weight_kind='distance' there to silence this warning.",
                    WeightMeaningWarning,
                )
            elif zeros_are_edges and looks_like_adjacency(D):
                warn_data_dependent(
                    f"{what} is a dense matrix most of whose off-diagonal entries are 0; it "
                    "is read as a complete graph of distances, where each 0 is an edge of "
                    "distance 0 (its two nodes as one), not a missing edge. For an adjacency "
                    "matrix (networkx.to_numpy_array) pass a scipy.sparse matrix of its "
                    "edges (scipy.sparse.csr_array(A): entries not stored are not edges) or "
                    "the networkx graph; pass weight_kind='distance' where the call takes it "
                    "to silence this warning.",
                    WeightMeaningWarning,
                )
            del D
        G = _canonical_dense(arr, what)
        if weight_kind == "similarity":
            off = ~np.eye(G.shape[0], dtype=bool)
            G[off] = similarity_to_distance(G[off])
        return G
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{what} must be an array-like; got {type(X).__name__}.")
    if sp.issparse(X):
        X = _sparse_features(X)
    else:
        arr = _as_real_array(X, what)
        if arr.ndim == 1:
            raise ValueError(
                f"Expected a 2-D feature matrix for metric={metric!r}, got a 1-D "
                "array. Reshape your data with X.reshape(-1, 1) for a single "
                "feature or X.reshape(1, -1) for a single sample."
            )
    with values_withheld(what):  # scikit-learn's messages would quote the input
        Xc = check_array(X, accept_sparse=["csr", "csc", "coo"], dtype=np.float64,
                         ensure_min_samples=1, input_name=what)
    check_n_nodes(Xc.shape[0])
    _check_feature_scale(Xc, what)
    # pairwise_distances and its symmetric canonical copy: two (n, n) arrays.
    check_dense_memory(Xc.shape[0], 2, f"The complete graph of the {Xc.shape[0]} rows of {what}")
    try:
        D = pairwise_distances(Xc, metric=metric, **(metric_params or {}))
    except (TypeError, ValueError) as exc:
        if not metric_params:
            raise
        raise type(exc)(f"metric={metric!r} with metric_params={metric_params!r} failed "
                        f"on {what}: {str(exc)[:300]}") from exc
    D = np.array(D, dtype=np.float64)
    np.fill_diagonal(D, 0.0)
    _check_weights_from_metric(D, metric, what)
    np.maximum(D, D.T, out=D)  # exact symmetry despite rounding in metric code
    return D


#: Features whose magnitude leaves this range make float64 distances overflow
#: (squares beyond 1e308) or underflow to 0 (squares below 1e-308).
_FEATURE_RANGE = (1e-150, 1e150)


def _check_feature_scale(X, what):
    values = X.data if sp.issparse(X) else X
    top = float(np.max(np.abs(values))) if values.size else 0.0
    nonzero = np.abs(values[values != 0])
    low = float(nonzero.min()) if nonzero.size else 0.0
    if top > _FEATURE_RANGE[1] or (0 < low and top < _FEATURE_RANGE[0]):
        raise ValueError(
            f"{what} has features of magnitude {'above' if top > 1 else 'below'} "
            f"{_FEATURE_RANGE[1 if top > 1 else 0]:g}: their distances would "
            f"{'overflow' if top > 1 else 'underflow to 0'} in float64. Rescale the "
            f"features into [{_FEATURE_RANGE[0]:g}, {_FEATURE_RANGE[1]:g}] first."
        )


def _check_weights_from_metric(D, metric, what):
    if not np.all(np.isfinite(D)):
        raise ValueError(
            f"metric={metric!r} gave NaN or infinite distances for {what}; distances "
            "must be finite (check the metric, or rescale the features)."
        )
    if D.size and D.min() < 0:
        raise ValueError(
            f"metric={metric!r} gave negative distances for {what}; a metric must return "
            "distances >= 0."
        )


def _not_numbers(exc, what, rule, kind=None):
    """numpy's error converting an object array to floats, in its wording but without the
    entry it names (the input may be private); of type ``kind``, else of numpy's (as
    scikit-learn's: ValueError for a string, TypeError for another object)."""
    cause = ("could not convert string to float" if isinstance(exc, ValueError) else
             "float() argument must be a string or a real number")
    return (kind or type(exc))(f"{what} has non-numeric entries ({cause}); {rule}.")


def _as_real_array(X, what):
    """ndarray view of ``X``; numeric object arrays are converted, others refused."""
    arr = np.asarray(X)
    if arr.dtype.kind in "US":  # as scikit-learn's dtype="numeric" refuses them
        raise TypeError(f"{what} holds strings (dtype {arr.dtype}); weights and features "
                        "must be real numbers: convert them first (X.astype(float)).")
    if arr.dtype.kind == "O":
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError) as exc:  # numpy's message names the entry
            raise _not_numbers(exc, what, "weights and features must be real numbers",
                               TypeError) from None
    check_weight_dtype(arr.dtype, what)
    return arr


def _check_nonempty(shape):
    # scikit-learn's wording, which its estimator checks look for.
    if shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required.")
    if shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 is required.")


def _sparse_features(X):
    """CSR copy of a sparse feature matrix with 32-bit indices when they fit.

    Some of scikit-learn's sparse distance kernels only take 32-bit indices.
    """
    X = sp.csr_matrix(X)
    if X.indices.dtype != np.int32 and max(X.nnz, X.shape[1]) < np.iinfo(np.int32).max:
        X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                          shape=X.shape)
    return X


def _validate_array(X, what):
    """First validation step: numeric, finite, non-empty, 2-D (graphs pass through).

    scikit-learn's ``check_array`` gives the usual messages for object,
    complex, NaN/inf and empty input. Sparse input of any format comes out
    as COO (a new object; the caller's matrix is never modified).
    """
    if _is_networkx_graph(X):
        return X
    _refuse_dask(X, what)
    if sp.issparse(X):
        X = sp.coo_array(_stored_entries(X))
    elif isinstance(X, (list, tuple)):
        X = np.asarray(X)
    if not sp.issparse(X) and np.dtype(getattr(X, "dtype", np.float64)).kind in "USV":
        raise TypeError(f"{what} has non-numeric entries (dtype {X.dtype}); an adjacency "
                        "holds numbers.")
    if not sp.issparse(X) and np.dtype(getattr(X, "dtype", np.float64)).kind == "O":
        try:  # numpy's and scikit-learn's messages would name the entry
            X = np.asarray(X).astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise _not_numbers(exc, what, "an adjacency holds numbers") from None
    with values_withheld(what):  # scikit-learn's messages would quote the input
        return check_array(
            X,
            accept_sparse=["coo"],
            dtype="numeric",
            ensure_all_finite=True,
            ensure_min_samples=1,
            input_name=what,
        )


def _adjacency_from_validated(X, weighted, what, weight_kind=None):
    if _is_networkx_graph(X):
        # Refuses directed graphs and multigraphs (and negative weights, when read);
        # the weights of an unweighted adjacency are not read at all.
        graph = (from_networkx(X, weight_kind=weight_kind) if weighted
                 else from_networkx(X, weight=None, weight_kind="distance"))
    else:
        if X.ndim != 2 or X.shape[0] != X.shape[1]:
            raise ValueError(
                f"{what} must be a square adjacency matrix (n_nodes, n_nodes) of an "
                f"undirected graph; got shape {X.shape}. To cluster feature vectors, "
                "build a graph of them first, for example with "
                "skdpgraph.graphs.EpsilonGraph, or sklearn.neighbors.kneighbors_graph "
                "with both directions of each edge (A.maximum(A.T): k-NN is one-way)."
            )
        values = X.data if sp.issparse(X) else X
        if values.size and values.dtype.kind in "if" and values.min() < 0:
            # scikit-learn's wording ("Negative values in data") on purpose.
            raise ValueError(
                f"Negative values in data passed to {what}. An adjacency matrix holds edge "
                "indicators (or non-negative weights, which are ignored); negative entries "
                "have no meaning."
            )
        nz = None
        if not sp.issparse(X) and X.ndim == 2 and X.shape[0] == X.shape[1]:
            # Zeros are non-edges here: an entry without its mirror is a directed edge,
            # refused as a sparse matrix's would be (however small it is).
            nz = X != 0
            np.fill_diagonal(nz, False)
            if not np.array_equal(nz, nz.T):
                raise ValueError(
                    f"{what} is not symmetric: an entry (i, j) is nonzero where (j, i) is 0 "
                    "(find them with (A != 0) != (A != 0).T). An adjacency matrix stores "
                    "both directions of every edge: "
                    "A.maximum(A.T) for a k-nearest-neighbours graph, A + A.T for a "
                    "triangular matrix.")
        # Unweighted, only the pattern is read: an entry stored twice is one edge, and
        # values that differ between the two directions of an edge are no asymmetry.
        if not weighted and sp.issparse(X):
            graph = _canonical_sparse(X, what, pattern=True)
        elif not weighted:  # the pattern is symmetric (checked above), the values finite
            check_n_nodes(X.shape[0])
            u, v = np.nonzero(np.triu(nz, k=1))
            return edges_to_csr(u, v, np.ones(u.size), X.shape[0])
        else:
            graph = _check_graph(X, "precomputed", None, what, weight_kind,
                                 zeros_are_edges=False)
        if not sp.issparse(graph):
            # The edges are the nonzero entries given (symmetric, checked above): a
            # subnormal weight that halving rounded to 0 stays an edge.
            u, v = np.nonzero(np.triu(nz, k=1))
            graph = edges_to_csr(u, v, graph[u, v], graph.shape[0])
    if weighted:
        return graph
    out = sp.csr_array(
        (np.ones(graph.nnz, dtype=np.float64), graph.indices, graph.indptr),
        shape=graph.shape,
    )
    out.has_sorted_indices = True
    return out


def check_adjacency(X, *, weighted=False, what="X", weight_kind=None):
    """Validate an undirected graph given as an adjacency and return it sparse.

    Parameters
    ----------
    X : array-like, sparse matrix or networkx.Graph
        * sparse (any format): stored entries are edges, an explicitly
          stored zero included (but not the zeros a BSR matrix stores in
          blocks larger than 1 x 1);
        * dense square array: nonzero off-diagonal entries are edges (a
          dense array is an adjacency matrix here, not a complete graph of
          distances as in :func:`skdpgraph.check_graph`; a feature matrix is
          not meaningful and is refused unless square);
        * undirected networkx graph: its edges; row ``i`` is node
          ``list(X.nodes)[i]``.

        The matrix must be square, finite and non-negative, its pattern
        symmetric (with ``weighted=True`` its values too: unweighted, an
        entry stored twice is one edge); the diagonal (self-loops) is
        ignored.
    weighted : bool, default=False
        If False, every edge gets the value 1.0. If True, the edge weights
        are kept (for sparse input an explicitly stored zero stays a
        zero-weight edge; networkx edges without a ``"weight"`` attribute get
        1.0).
    what : str, default="X"
        Name used in error messages.
    weight_kind : {"distance", "similarity"} or None, default=None
        With ``weighted=True``, what the weights mean (see
        :func:`check_graph`); ignored otherwise.

    Returns
    -------
    adjacency : scipy.sparse.csr_array of shape (n, n), float64
        Symmetric, sorted indices, no diagonal; every stored entry is an edge.

    Raises
    ------
    TypeError
        For non-numeric data, and for Dask collections.
    ValueError
        For empty, non-square, asymmetric, negative, NaN or infinite
        entries, directed graphs or multigraphs, or fewer than 2 nodes.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.utils import check_adjacency
    >>> A = check_adjacency(np.array([[0, 2.5, 0], [2.5, 0, 0], [0, 0, 0]]))
    >>> A.toarray()
    array([[0., 1., 0.],
           [1., 0., 0.],
           [0., 0., 0.]])
    """
    return _adjacency_from_validated(_validate_array(X, what), weighted, what, weight_kind)
