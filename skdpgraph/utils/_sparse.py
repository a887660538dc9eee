"""Sparse-graph helpers shared by every layer: building, reading, scipy workarounds.

A canonical sparse graph (see :func:`skdpgraph.utils.check_graph`) is a
symmetric ``scipy.sparse.csr_array`` of float64 with sorted indices, no
diagonal, and every stored entry an edge (an explicitly stored zero is an
edge of weight 0).
"""

import numpy as np
import scipy.sparse as sp

from ._validation import (
    NOT_WEIGHTS,
    check_int,
    check_node_count,
    check_weight_dtype,
    values_withheld,
)

_INT32_MAX = np.iinfo(np.int32).max


def index_dtype(*sizes):
    """int32 when every size fits (scipy's compiled kernels prefer it), else int64.

    Parameters
    ----------
    *sizes : int
        Largest values the indices must hold (numbers of nodes, of stored
        entries).

    Returns
    -------
    type
        ``numpy.int32`` when every size is below ``2**31 - 1`` (or no size
        is given), else ``numpy.int64``.
    """
    return np.int32 if max(sizes, default=0) < _INT32_MAX else np.int64


def _as_endpoints(x, name, what):
    """Node numbers as int64: integers, or floats of integer value (a table read from
    a file); fractional or other values are refused, not truncated."""
    given = np.asarray(x)
    if given.size and given.dtype.kind not in "iuf":
        raise TypeError(f"{what}: {name} must hold node numbers (integers); got dtype "
                        f"{given.dtype}.")
    if given.dtype.kind == "f" and not (np.all(np.isfinite(given))
                                        and np.array_equal(given, np.floor(given))):
        raise ValueError(f"{what}: {name} must hold node numbers (integers); it holds "
                         "fractional or non-finite values.")
    return given.astype(np.int64)


def _check_endpoints(u, v, n, what, node_bytes):
    """Endpoints in ``0..n-1`` (the compiled loops below index with them unchecked), and a
    node count whose arrays (``node_bytes`` a node) this process can hold."""
    check_node_count(n, what, node_bytes)
    if u.shape != v.shape or u.ndim != 1:
        raise ValueError(f"{what}: u and v must be 1-D arrays of the same length; got shapes "
                         f"{u.shape} and {v.shape}.")
    if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise ValueError(f"{what}: every endpoint must be a node number in 0..{n - 1}; some "
                         "are not.")


def edges_to_csr(u, v, w, n):
    """Symmetric canonical CSR array from an undirected edge list, in linear time.

    Parameters
    ----------
    u, v : array-like of int, shape (m,)
        Endpoints of the edges, in any order; each unordered pair at most
        once, ``u != v``.
    w : array-like of float, shape (m,)
        Edge weights, finite (zeros are kept as zero-weight edges).
    n : int
        Number of nodes.

    Returns
    -------
    graph : scipy.sparse.csr_array of shape (n, n)

    Raises
    ------
    TypeError, ValueError
        For endpoints that are not node numbers in ``0..n-1``, a self-loop,
        an unordered pair listed twice (both directions of an edge: its
        weight would count twice), or a weight that is not finite.
    """
    from ._sparse_kernels import symmetric_csr

    u = _as_endpoints(u, "u", "edges_to_csr")
    v = _as_endpoints(v, "v", "edges_to_csr")
    w = np.asarray(w)
    if w.dtype.kind != "O":  # an object array of numbers converts below
        check_weight_dtype(w.dtype, "edges_to_csr: w")
    elif any(isinstance(x, NOT_WEIGHTS) for x in w.flat):  # numpy would read them
        raise TypeError("edges_to_csr: w holds text, complex numbers or dates; weights "
                        "must be real numbers.")
    with values_withheld("edges_to_csr: w"):  # numpy's message would quote the entry
        w = w.astype(np.float64)
    n = check_int(n, "n", 0)
    _check_endpoints(u, v, n, "edges_to_csr", 16.0)  # node offsets, twice
    if w.shape != u.shape:
        raise ValueError(f"edges_to_csr: w must have one weight per edge ({u.size}); got "
                         f"shape {w.shape}.")
    if not np.all(np.isfinite(w)):
        # Refusals name no value or count of the input (it may be private).
        raise ValueError("edges_to_csr: w holds NaN or infinite weights.")
    if np.any(u == v):
        raise ValueError("edges_to_csr: some edges join a node to itself (u == v); drop "
                         "them.")
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = lo * n + hi
    if key.size > 1 and np.any(key[1:] < key[:-1]):
        order = np.argsort(key, kind="stable")
        lo, hi, w, key = lo[order], hi[order], w[order], key[order]
    if key.size > 1 and np.any(key[1:] == key[:-1]):
        # Stored twice, a pair's weight would count twice (a table listing both
        # directions doubles every weight, and the privacy calibration with it).
        raise ValueError(
            "edges_to_csr: some unordered pairs are listed more than once (e.g. both (u, v) "
            "and (v, u)); list each edge once, "
            "for example the rows with u < v of a table that holds both directions.")
    # A counting sort by node in edge order: with the edges sorted by (lo, hi),
    # row r gets its lower columns (edges (c, r), c < r) first, in increasing c,
    # then its upper ones in increasing order; so the indices come out sorted.
    indptr, indices, edge = symmetric_csr(lo, hi, n)
    dtype = index_dtype(n, 2 * lo.size)
    G = sp.csr_array((w[edge], indices.astype(dtype), indptr.astype(dtype)), shape=(n, n))
    G.has_sorted_indices = True
    return G


def directed_csr(row, col, data, shape):
    """CSR array from ``(row, col, data)`` triplets; explicitly stored zeros are kept.

    Parameters
    ----------
    row, col : ndarray of int
        Entry positions, each at most once; already sorted by ``(row, col)``
        is the fast path (no sort).
    data : ndarray
        Entry values, one per ``(row, col)``; their dtype is kept.
    shape : int or (int, int)
        ``n`` for a square ``(n, n)`` matrix.

    Returns
    -------
    scipy.sparse.csr_array with sorted indices
    """
    n_rows, n_cols = (shape, shape) if np.ndim(shape) == 0 else shape
    row = np.asarray(row)
    col = np.asarray(col)
    data = np.asarray(data)
    key = row.astype(np.int64) * n_cols + col
    if key.size > 1 and np.any(key[1:] <= key[:-1]):
        order = np.argsort(key, kind="stable")
        row, col, data = row[order], col[order], data[order]
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n_rows), out=indptr[1:])
    dtype = index_dtype(n_cols, row.size)
    G = sp.csr_array((data, col.astype(dtype, copy=False), indptr.astype(dtype)),
                     shape=(n_rows, n_cols))
    G.has_sorted_indices = True
    return G


def graph_edges(graph):
    """Undirected edge list ``(u, v, w)`` with ``u < v`` of a canonical graph.

    For a dense (complete) graph this lists all ``n (n - 1) / 2`` pairs.
    Edges are ordered lexicographically by ``(u, v)``.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy sparse matrix
        A canonical graph (:func:`check_graph`): a dense complete graph, or
        a symmetric sparse graph whose stored entries are its edges.

    Returns
    -------
    u, v : ndarray of int64 of shape (m,)
        Endpoints of the ``m`` edges, ``u < v``.
    w : ndarray of float64 of shape (m,)
        Their weights (an entry stored more than once: the sum, scipy's reading).

    Raises
    ------
    TypeError
        For anything but an ndarray or a scipy sparse matrix.
    """
    if not (sp.issparse(graph) or isinstance(graph, np.ndarray)):
        raise TypeError(f"graph_edges takes a canonical graph (an ndarray or a scipy sparse "
                        f"matrix, as check_graph returns); got {type(graph).__name__}.")
    if sp.issparse(graph):
        G = graph.tocsr()
        if not G.has_canonical_format:  # sorted, each entry once (summed, as scipy reads it)
            G = G.copy()
            G.sum_duplicates()
        # Row-major order of a CSR with sorted indices is lexicographic.
        # Compared in the stored index dtype, widened after the selection:
        # half the memory traffic for int32 indices.
        row = np.repeat(np.arange(G.shape[0], dtype=G.indices.dtype), np.diff(G.indptr))
        keep = row < G.indices
        return (row[keep].astype(np.int64), G.indices[keep].astype(np.int64),
                np.asarray(G.data[keep], dtype=np.float64))
    u, v = np.triu_indices(graph.shape[0], k=1)
    with values_withheld("graph"):  # numpy's message would quote the entry
        w = graph[u, v].astype(np.float64)
    return u.astype(np.int64), v.astype(np.int64), w


def n_components(graph):
    """Number of connected components (1 for a dense, complete graph).

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy sparse matrix
        A canonical graph (:func:`check_graph`).

    Returns
    -------
    int
        Number of connected components; an isolated node is one.
    """
    if not sp.issparse(graph):
        return 1
    from ._sparse_kernels import csr_components

    G = graph.tocsr()
    return int(csr_components(G.indptr, G.indices)[0])


def component_labels(u, v, n):
    """``(n_components, labels)`` of the graph with edges ``(u, v)`` on ``n`` nodes.

    Labels number the components by their smallest node, as scipy's
    ``connected_components`` does; union-find in linear time, no matrix.
    """
    from ._sparse_kernels import edge_components

    return edge_components(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                           int(n))


def weight_range(graph):
    """Smallest and largest edge weight of a canonical graph.

    Dense input: the off-diagonal entries, block by block (no ``n x n`` mask).
    A graph with no edge gives ``(0.0, 1.0)``.

    Parameters
    ----------
    graph : ndarray of shape (n, n) or scipy sparse matrix
        A canonical graph (:func:`check_graph`).

    Returns
    -------
    low, high : float
        The smallest and the largest weight.
    """
    if sp.issparse(graph):
        if graph.data.size == 0:
            return 0.0, 1.0
        return float(graph.data.min()), float(graph.data.max())
    lo, hi = np.inf, -np.inf
    for start in range(0, graph.shape[0], 1024):
        block = graph[start:start + 1024].copy()
        idx = np.arange(block.shape[0])
        block[idx, start + idx] = np.inf
        lo = min(lo, float(block.min()))
        block[idx, start + idx] = -np.inf
        hi = max(hi, float(block.max()))
    return lo, hi


def mst_edge_indices(u, v, key, n):
    """Indices of the edges of a minimum spanning forest under any real ``key``.

    Kruskal's algorithm over the edges sorted by ``(key, edge index)``: ties
    are broken by edge index, keys may be zero or negative (scipy's routine
    reads a stored zero as a missing edge), and the forest is the unique one
    of that order. As in filter-Kruskal [OSS09]_, only the lightest edges
    are sorted first (about 1.5 per tree left, all those of the key at the
    cut), the greedy runs over them, the edges whose ends are already
    joined are dropped, and so on with the rest: every dropped edge is one
    the greedy would refuse, so the forest is the same. The greedy is a
    compiled union-find loop over the endpoints in key order; at 4x10^6
    edges it takes 0.23-0.32 s against 2.0 s for scipy's routine.

    Parameters
    ----------
    u, v : ndarray of int, shape (m,)
        Edge endpoints, ``u != v``, each unordered pair at most once;
        ``n < 2**31``.
    key : ndarray of float, shape (m,)
        The order of the edges (any real values, ties broken by edge index).
    n : int
        Number of nodes.

    Returns
    -------
    idx : ndarray of int64
        Positions in ``u, v`` of the forest's edges, increasing.

    References
    ----------
    .. [OSS09] V. Osipov, P. Sanders and J. Singler, "The filter-Kruskal
       minimum spanning tree algorithm", ALENEX 2009.
    """
    from ._sparse_kernels import joined_apart, kruskal_keep

    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    key = np.asarray(key, dtype=np.float64)
    n = check_int(n, "n", 0)
    if n > _INT32_MAX:
        raise ValueError(f"mst_edge_indices handles graphs of at most {_INT32_MAX} nodes, got {n}.")
    _check_endpoints(u, v, n, "mst_edge_indices", 4.0)  # int32 union-find
    if key.shape != u.shape:
        raise ValueError(f"mst_edge_indices: key must have one value per edge ({u.size}); got "
                         f"shape {key.shape}.")
    # int32 endpoints (n fits): the greedy reads half the memory.
    a, b = u.astype(np.int32), v.astype(np.int32)
    parent = np.arange(n, dtype=np.int32)
    rest, joined, kept = None, 0, [np.zeros(0, dtype=np.int64)]  # rest None: every edge
    while joined < n - 1 and (rest is None or rest.size):
        trees = n - joined
        if (u.size if rest is None else rest.size) > _FILTER_RATIO * trees:
            keys = key if rest is None else key[rest]
            cut = int(_FILTER_BATCH * trees)
            light = keys <= np.partition(keys, cut)[cut]
            batch, heavy = np.flatnonzero(light), np.flatnonzero(~light)
            if rest is not None:
                batch, heavy = rest[batch], rest[heavy]
            rest = heavy
            del keys, light, heavy
        else:
            batch = np.arange(u.size) if rest is None else rest
            rest = batch[:0]
        batch = _by_key_then_index(batch, key)
        keep, joined = kruskal_keep(a[batch], b[batch], parent, joined)
        kept.append(batch[keep])
        if rest.size and joined < n - 1:
            rest = rest[joined_apart(a[rest], b[rest], parent)]
    return np.sort(np.concatenate(kept))


#: Filter-Kruskal: edges sorted at a time, per tree left, once more than
#: ``_FILTER_RATIO`` per tree are left (1.5: 0.21-0.28 s at 4x10^6 edges,
#: against 0.30-0.32 s with 1 and 0.24-0.35 s with 2).
_FILTER_BATCH = 1.5
_FILTER_RATIO = 3.0


def _by_key_then_index(idx, key):
    """``idx`` (increasing) sorted by ``(key, index)``."""
    # An unstable sort, then the (usually few) runs of equal keys put in index
    # order: a stable sort of everything is ~3x slower.
    order = np.argsort(key[idx])
    sorted_key = key[idx[order]]
    eq = sorted_key[1:] == sorted_key[:-1]
    if eq.any():
        tied = np.zeros(idx.size, dtype=bool)
        tied[1:] |= eq
        tied[:-1] |= eq
        at = np.flatnonzero(tied)
        order[at] = order[at][np.lexsort((order[at], sorted_key[at]))]
    return idx[order]


#: Most nodes whose pair indices (and the products that compute them) fit in int64.
MAX_PAIR_NODES = 2**31


def _check_pair_nodes(n):
    from ._validation import check_int  # _validation imports this module

    return check_int(n, "n", minimum=2, maximum=MAX_PAIR_NODES)


def pair_index(u, v, n):
    """Index of pair ``u < v`` in the row-major order of the strict upper triangle.

    Parameters
    ----------
    u, v : int or array-like of int
        The pairs, ``u < v``.
    n : int
        Number of nodes, 2 to ``2**31`` (the indices and their products stay in
        int64).

    Returns
    -------
    int or ndarray of int64
    """
    n = _check_pair_nodes(n)
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    return u * (2 * n - u - 1) // 2 + (v - u - 1)


def pair_from_index(k, n):
    """Inverse of :func:`pair_index` (exact in int64, float only for a guess).

    Parameters
    ----------
    k : int or array-like of int
        Pair indices.
    n : int
        Number of nodes, 2 to ``2**31``.

    Returns
    -------
    u, v : int or ndarray of int64
    """
    n = _check_pair_nodes(n)
    k = np.asarray(k, dtype=np.int64)
    if k.size and (k.min() < 0 or k.max() >= n * (n - 1) // 2):
        raise ValueError(f"pair indices of {n} nodes are in [0, {n * (n - 1) // 2}); got "
                         f"some in [{int(k.min())}, {int(k.max())}].")
    b = 2.0 * n - 1.0
    disc = np.maximum(b * b - 8.0 * k.astype(np.float64), 0.0)
    u = np.clip(np.floor((b - np.sqrt(disc)) / 2.0).astype(np.int64), 0, n - 2)

    def first(r):  # index of the first pair of row r
        return r * (2 * n - r - 1) // 2

    # The float guess can be off by a little for huge n: fix it in integers.
    while True:
        low = first(u) > k
        high = (u < n - 2) & (first(u + 1) <= k)
        if not (low.any() or high.any()):
            break
        u = u - low + high
    v = k - first(u) + u + 1
    return u, v
