"""Sparse-graph helpers shared by every layer: building, reading, scipy workarounds.

A canonical sparse graph (see :func:`skdpgraph.utils.check_graph`) is a
symmetric ``scipy.sparse.csr_array`` of float64 with sorted indices, no
diagonal, and every stored entry an edge (an explicitly stored zero is an
edge of weight 0).
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as _scipy_mst

_INT32_MAX = np.iinfo(np.int32).max


def index_dtype(*sizes):
    """int32 when every size fits (scipy's compiled kernels prefer it), else int64."""
    return np.int32 if max(sizes, default=0) < _INT32_MAX else np.int64


def edges_to_csr(u, v, w, n):
    """Symmetric canonical CSR array from an undirected edge list, in linear time.

    Parameters
    ----------
    u, v : array-like of int, shape (m,)
        Endpoints of the edges, in any order; each unordered pair at most
        once, ``u != v``.
    w : array-like of float, shape (m,)
        Edge weights (zeros are kept as zero-weight edges).
    n : int
        Number of nodes.

    Returns
    -------
    graph : scipy.sparse.csr_array of shape (n, n)
    """
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    n = int(n)
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = lo * n + hi
    if key.size > 1 and np.any(key[1:] < key[:-1]):
        order = np.argsort(key, kind="stable")
        lo, hi, w = lo[order], hi[order], w[order]
    m = lo.size
    # In row r the lower-triangle columns (all < r) come before the upper ones
    # (all > r): with the edges sorted by (lo, hi) each half needs only its own
    # order, and the upper half already has it.
    n_lower = np.bincount(hi, minlength=n)
    n_upper = np.bincount(lo, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_lower + n_upper, out=indptr[1:])
    indices = np.empty(2 * m, dtype=np.int64)
    values = np.empty(2 * m, dtype=np.float64)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_upper, out=start[1:])
    pos = indptr[lo] + n_lower[lo] + (np.arange(m) - start[lo])
    indices[pos] = hi
    values[pos] = w
    order = np.argsort(hi, kind="stable")  # lower half: rows hi, columns lo ascending
    hl, ll = hi[order], lo[order]
    np.cumsum(n_lower, out=start[1:])
    pos = indptr[hl] + (np.arange(m) - start[hl])
    indices[pos] = ll
    values[pos] = w[order]
    dtype = index_dtype(n, 2 * m)
    G = sp.csr_array((values, indices.astype(dtype), indptr.astype(dtype)), shape=(n, n))
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
    Edges are ordered lexicographically by ``(u, v)``; ``u`` and ``v`` are
    int64 and ``w`` float64.
    """
    if sp.issparse(graph):
        G = graph.tocsr()
        if not G.has_sorted_indices:
            G = G.copy()
            G.sort_indices()
        # Row-major order of a CSR with sorted indices is lexicographic.
        # Compared in the stored index dtype, widened after the selection:
        # half the memory traffic for int32 indices.
        row = np.repeat(np.arange(G.shape[0], dtype=G.indices.dtype), np.diff(G.indptr))
        keep = row < G.indices
        return (row[keep].astype(np.int64), G.indices[keep].astype(np.int64),
                np.asarray(G.data[keep], dtype=np.float64))
    u, v = np.triu_indices(graph.shape[0], k=1)
    return u.astype(np.int64), v.astype(np.int64), graph[u, v].astype(np.float64)


def n_components(graph):
    """Number of connected components (1 for a dense, complete graph)."""
    if not sp.issparse(graph):
        return 1
    # Strong components of a symmetric graph are its components; scipy finds
    # them without building the transpose.
    return int(connected_components(graph, directed=True, connection="strong")[0])


def weight_range(graph):
    """Smallest and largest edge weight of a canonical graph.

    Dense input: the off-diagonal entries, block by block (no ``n x n`` mask).
    A graph with no edge gives ``(0.0, 1.0)``.
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

    scipy's minimum spanning tree reads a stored zero (and only ever sees
    the order of the weights), so the keys are replaced by their ranks
    ``1..m``, ties broken by edge index; the forest is the same as for the
    keys themselves. This is the library's one workaround of scipy's
    stored-zero convention.

    Parameters
    ----------
    u, v : ndarray of int, shape (m,)
        Edge endpoints, ``u != v``, each unordered pair at most once.
    key : ndarray of float, shape (m,)
    n : int

    Returns
    -------
    idx : ndarray of int64
        Positions in ``u, v`` of the forest's edges.
    """
    m = u.size
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    key = np.asarray(key, dtype=np.float64)
    if key.min() > 0:
        # No zero to hide: scipy works on the keys themselves, and the chosen
        # edges are found back by their (u, v) position.
        T = _scipy_mst(directed_csr(u, v, key, n)).tocoo()
        pair = u * n + v
        order = None if np.all(pair[1:] > pair[:-1]) else np.argsort(pair)
        sorted_pair = pair if order is None else pair[order]
        pos = np.searchsorted(sorted_pair, T.row.astype(np.int64) * n + T.col)
        return np.sort(pos if order is None else order[pos])
    # Ties by edge index: an unstable sort, then the (usually few) runs of
    # equal keys put in index order (a stable sort of everything is ~3x slower).
    order = np.argsort(key)
    sorted_key = key[order]
    eq = sorted_key[1:] == sorted_key[:-1]
    if eq.any():
        tied = np.zeros(m, dtype=bool)
        tied[1:] |= eq
        tied[:-1] |= eq
        at = np.flatnonzero(tied)
        order[at] = order[at][np.lexsort((order[at], sorted_key[at]))]
    del sorted_key, eq
    rank = np.empty(m, dtype=np.float64)
    rank[order] = np.arange(1, m + 1)
    T = _scipy_mst(directed_csr(u, v, rank, n))
    return np.sort(order[np.rint(T.data).astype(np.int64) - 1])


def pair_index(u, v, n):
    """Index of pair ``u < v`` in the row-major order of the strict upper triangle.

    Parameters
    ----------
    u, v : int or array-like of int
        The pairs, ``u < v``.
    n : int
        Number of nodes.

    Returns
    -------
    int or ndarray of int64
    """
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
        Number of nodes.

    Returns
    -------
    u, v : int or ndarray of int64
    """
    k = np.asarray(k, dtype=np.int64)
    b = 2.0 * n - 1.0
    disc = np.maximum(b * b - 8.0 * k.astype(np.float64), 0.0)
    u = np.floor((b - np.sqrt(disc)) / 2.0).astype(np.int64)
    np.clip(u, 0, n - 2, out=u)

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
