"""SCAN: structural clustering of the nodes of an unweighted graph (Xu et al. 2007)."""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin

from ..utils import check_adjacency
from ..utils._docs import fill_doc
from ..utils._param_validation import Interval
from ._base import AdjacencyInputMixin, set_result_attributes

#: Values of ``SCAN.node_kind_``.
NODE_KINDS = ("core", "border", "hub", "outlier")

# Memory control of the triangle search, per block of nodes: at most this many
# neighbour-list entries gathered, at most this many bytes of membership
# table, and at most this many sorted keys searched (a cache-sized array).
_BLOCK_NNZ = 1 << 22
_BLOCK_TABLE = 1 << 23
_BLOCK_KEYS = 1 << 16
# The bitset search, for dense graphs: at most this many bytes of bitset rows
# gathered per step (a cache-sized array), at most this many booleans of
# adjacency unpacked per step while packing the bitset.
_BITSET_STEP = 1 << 18
_BITSET_PACK = 1 << 22
_bitwise_count = getattr(np, "bitwise_count", None)  # numpy >= 2
# Time of one lookup of the triangle search in 64-bit words of the bitset
# search (gathered, ANDed, counted and summed), measured between 3 and 15
# (the low end in the dense graphs where the choice matters), about half
# that without np.bitwise_count; and the fixed cost of one edge of the
# bitset search, in words.
_LOOKUP_WORDS = 5.0 if _bitwise_count is not None else 2.5
_EDGE_WORDS = 4.0


class SCANResult(NamedTuple):
    """Result of :func:`scan`.

    Attributes
    ----------
    labels : ndarray of shape (n,), int64
        Cluster of each node, ``0..n_clusters-1``, or -1 for hubs and
        outliers. Clusters are numbered by their smallest node index.
    node_kind : ndarray of shape (n,), str
        ``"core"``, ``"border"`` (clustered, not a core), ``"hub"``
        (unclustered, with neighbours in two or more clusters) or
        ``"outlier"`` (unclustered, neighbours in at most one cluster).
    core_sample_indices : ndarray of int64
        Indices of the cores, increasing.
    n_clusters : int
    """

    labels: np.ndarray
    node_kind: np.ndarray
    core_sample_indices: np.ndarray
    n_clusters: int


def _transpose_positions(A):
    """Position in ``A.data`` of the mirror ``(j, i)`` of each stored entry ``(i, j)``.

    ``A`` is a symmetric CSR with sorted indices; scipy's linear-time
    CSR -> CSC conversion of the entry numbers gives the permutation.
    """
    dtype = np.int32 if A.nnz < np.iinfo(np.int32).max else np.int64
    ids = sp.csr_array((np.arange(A.nnz, dtype=dtype), A.indices, A.indptr), shape=A.shape)
    return ids.tocsc().data


def _block_end(start, indptr, gathered, row_cost, entry_cost, budget):
    """End (exclusive) of the block of nodes starting at ``start``.

    The largest ``stop`` such that the entries gathered for the block's
    oriented edges, ``gathered[indptr[stop]] - gathered[indptr[start]]``,
    stay within ``_BLOCK_NNZ`` and ``row_cost * (stop - start) +
    entry_cost * (indptr[stop] - indptr[start])`` within ``budget``; at
    least one node. Both are nondecreasing in ``stop``: bisection.
    """
    n = indptr.size - 1
    g0, e0 = gathered[indptr[start]], indptr[start]

    def fits(stop):
        e = indptr[stop]
        return (gathered[e] - g0 <= _BLOCK_NNZ
                and row_cost * (stop - start) + entry_cost * (e - e0) <= budget)

    if fits(n):
        return n
    lo, hi = start + 1, n  # the first stop that does not fit is in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid + 1
        else:
            hi = mid
    return max(lo - 1, start + 1)


def _orient(A):
    """Edges of a symmetric CSR ``A`` oriented from lower to higher rank.

    The rank orders nodes by degree, ties by index. Returns ``pos`` (the
    stored entries ``(u, v)`` with ``u -> v``, increasing), ``head`` (``u``,
    nondecreasing), ``tail`` (``v``, increasing within each ``u``) and the
    out-degrees.
    """
    n = A.shape[0]
    deg = np.diff(A.indptr)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(deg, kind="stable")] = np.arange(n)
    rows = np.repeat(np.arange(n, dtype=A.indices.dtype), deg)
    pos = np.flatnonzero(rank[rows] < rank[A.indices])
    del rank
    head = rows[pos]
    del rows
    return pos, head, A.indices[pos], np.bincount(head, minlength=n)


def _bitset_rows(A, n_words):
    """The rows of a binary CSR ``A`` as bitsets: ``(n, n_words)`` uint64.

    Packed ``_BITSET_PACK`` booleans at a time.
    """
    n = A.shape[0]
    bits = np.zeros((n, 8 * n_words), dtype=np.uint8)
    step = max(1, _BITSET_PACK // (64 * n_words))
    for start in range(0, n, step):
        stop = min(start + step, n)
        dense = np.zeros((stop - start, 64 * n_words), dtype=bool)
        row = np.repeat(np.arange(stop - start), np.diff(A.indptr[start:stop + 1]))
        dense[row, A.indices[A.indptr[start]:A.indptr[stop]]] = True
        bits[start:stop] = np.packbits(dense, axis=1)
    return bits.view(np.uint64)


_M1, _M2, _M4, _H01 = (np.uint64(c) for c in (
    0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101))


def _popcount(x, out, scratch):
    """Set bits of each word of the uint64 array ``x`` into ``out`` (uint8).

    ``np.bitwise_count`` where numpy provides it; otherwise the classic
    bit-parallel sums, computed in place in ``x`` with ``scratch``.
    """
    if _bitwise_count is not None:
        return _bitwise_count(x, out=out)
    np.right_shift(x, 1, out=scratch)
    scratch &= _M1
    x -= scratch  # 2-bit sums
    np.right_shift(x, 2, out=scratch)
    scratch &= _M2
    x &= _M2
    x += scratch  # 4-bit sums
    np.right_shift(x, 4, out=scratch)
    x += scratch
    x &= _M4  # byte sums
    x *= _H01  # total in the top byte
    x >>= np.uint64(56)
    out[...] = x
    return out


def _bitset_counts(A, head, tail):
    """``|N(u) & N(v)|`` for the edges ``head -> tail``: AND and popcount of bitset rows.

    Work: ``ceil(n / 64)`` words per edge, gathered ``_BITSET_STEP``
    bytes of rows at a time; memory: the bitset, ``n**2 / 8`` bytes.
    """
    n = A.shape[0]
    n_words = -(-n // 64)
    bits = _bitset_rows(A, n_words)
    step = max(1, _BITSET_STEP // (8 * n_words))
    x = np.empty((step, n_words), dtype=np.uint64)
    y = np.empty_like(x)
    ones = np.empty((step, n_words), dtype=np.uint8)
    sum_dtype = np.uint16 if n < 2**16 else np.int64  # a count is below n
    count = np.empty(head.size, dtype=np.int64)
    for start in range(0, head.size, step):
        stop = min(start + step, head.size)
        k = stop - start
        np.take(bits, head[start:stop], axis=0, out=x[:k])
        np.take(bits, tail[start:stop], axis=0, out=y[:k])
        np.bitwise_and(x[:k], y[:k], out=x[:k])
        _popcount(x[:k], ones[:k], y[:k])
        count[start:stop] = ones[:k].sum(axis=1, dtype=sum_dtype)
    return count


def _triangle_counts(A, head, tail, out_deg):
    """``|N(u) & N(v)|`` for the oriented edges ``head -> tail``, by listing triangles.

    For each oriented edge ``u -> v`` the out-neighbours ``w`` of ``v`` are
    looked up among the out-neighbours of ``u``; each hit, the triangle
    ``{u, v, w}``, is credited to its three edges. Nodes are processed in
    blocks gathering at most ``_BLOCK_NNZ`` entries. A block whose nodes'
    rows over all nodes fit in ``_BLOCK_TABLE`` bytes, and are not much
    larger than the number of lookups (dense-ish graphs), uses a boolean
    membership table; otherwise (sparse graphs) the lookups are binary
    searches among the block's ``_BLOCK_KEYS`` sorted edge keys at most.
    """
    n = A.shape[0]
    m = head.size
    lptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(out_deg, out=lptr[1:])
    # Out-neighbour lists as a CSR (structure only) for gathering rows.
    L = sp.csr_array((np.ones(m, dtype=bool), tail, lptr), shape=(n, n))
    L.has_sorted_indices = True
    # gathered[i]: entries gathered for the oriented edges before edge i.
    gathered = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(out_deg[tail], out=gathered[1:])

    count = np.zeros(m, dtype=np.int64)
    pending, n_pending = [], 0  # credits to edges v -> w, added in batches
    start = 0
    while start < n:
        stop = _block_end(start, lptr, gathered, n, 0, _BLOCK_TABLE)
        table = (gathered[lptr[stop]] - gathered[lptr[start]]) * 8 >= (stop - start) * n
        if not table:
            stop = _block_end(start, lptr, gathered, 0, 1, _BLOCK_KEYS)
        a, b = int(lptr[start]), int(lptr[stop])
        if a == b:
            start = stop
            continue
        # Key of u -> w: (u - start) * n + w, increasing in CSR order; int32
        # when it fits (always for a table, at most _BLOCK_TABLE entries).
        key_dtype = np.int32 if (stop - start) * n < 2**31 else np.int64
        local = (head[a:b] - start).astype(key_dtype) * key_dtype(n)
        keys = local + tail[a:b].astype(key_dtype, copy=False)
        # For each oriented edge u -> v of the block, the out-neighbours w of v.
        G = L[tail[a:b]]
        probe = np.repeat(local, np.diff(G.indptr))
        probe += G.indices
        if table:
            member = np.zeros((stop - start) * n, dtype=bool)
            member[keys] = True
            hit = np.flatnonzero(member[probe])
            del member
            slot = np.empty((stop - start) * n, dtype=np.int32)  # read at keys only
            slot[keys] = np.arange(b - a, dtype=np.int32)
            u_to_w = slot[probe[hit]]
            del slot
        else:
            found = np.searchsorted(keys, probe)
            np.minimum(found, b - a - 1, out=found)
            hit = np.flatnonzero(keys[found] == probe)
            u_to_w = found[hit]
        del probe
        if hit.size:
            # hit is increasing, so the hits of edge e (u -> v) are a run.
            per_edge = np.diff(np.searchsorted(hit, G.indptr))
            edge = np.repeat(np.arange(b - a), per_edge)
            # The triangle's three oriented edges: u -> v and u -> w (in the
            # block), v -> w (the gathered entry, anywhere).
            count[a:b] += per_edge
            count[a:b] += np.bincount(u_to_w, minlength=b - a)
            pending.append(lptr[tail[a + edge]] + (hit - G.indptr[edge]))
            n_pending += hit.size
            if n_pending >= m:
                count += np.bincount(np.concatenate(pending), minlength=m)
                pending, n_pending = [], 0
        start = stop
    if pending:
        count += np.bincount(np.concatenate(pending), minlength=m)
    return count


def _common_neighbour_counts(A, method=None):
    """``|N(u) & N(v)|`` for every stored entry of a binary symmetric CSR ``A``.

    Returned aligned with ``A.data`` (int64). The count of an edge is its
    number of triangles. Edges are oriented from lower to higher rank, the
    rank ordering nodes by degree (ties by index), so that no node has more
    than ``sqrt(2 |E|)`` out-neighbours; each oriented edge is counted once,
    and its mirror gets the same count. Two searches:

    * ``"triangles"``: each triangle is found once (the forward algorithm
      of Chiba and Nishizeki, as in Schank and Wagner 2005), one lookup
      per pair (``u -> v``, ``v -> w``), that is ``sum_v indeg(v)
      outdeg(v)`` lookups, at most ``|E| sqrt(2 |E|)``; the masked product
      ``(A @ A) * A`` would build all ``sum_v deg(v)**2`` entries of
      ``A @ A``;
    * ``"bitset"``: the rows of ``A`` packed as bits, and for every edge
      the AND of its endpoints' rows counted, ``ceil(n / 64)`` words per
      edge; in dense graphs (mean degree a sizeable fraction of ``n``, such
      as those released by edge flipping) that is several times fewer, and
      cheaper, operations than the lookups.

    ``method=None`` takes the bitset when it is estimated faster and its
    ``n**2 / 8`` bytes are no more than ``A`` takes; both give the same
    counts.
    """
    n = A.shape[0]
    out = np.zeros(A.nnz, dtype=np.int64)
    if A.nnz == 0:
        return out
    pos, head, tail, out_deg = _orient(A)
    if method is None:
        n_words = -(-n // 64)
        lookups = float(np.dot(np.bincount(tail, minlength=n), out_deg))
        bitset_work = head.size * (n_words + _EDGE_WORDS)
        held = A.data.nbytes + A.indices.nbytes + A.indptr.nbytes
        method = ("bitset" if bitset_work < _LOOKUP_WORDS * lookups
                  and 8 * n * n_words <= held else "triangles")
    if method == "bitset":
        count = _bitset_counts(A, head, tail)
    else:
        count = _triangle_counts(A, head, tail, out_deg)
    del head, tail, out_deg
    out[pos] = count
    out[_transpose_positions(A)[pos]] = count
    return out


def _similarity_data(A):
    """Structural similarity of every stored entry of a canonical binary ``A``."""
    deg = np.diff(A.indptr).astype(np.float64)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    cols = A.indices
    # Closed neighbourhoods of adjacent u, v share N(u) & N(v) plus u and v.
    common = _common_neighbour_counts(A) + 2.0
    return rows, cols, common / np.sqrt((deg[rows] + 1.0) * (deg[cols] + 1.0))


def structural_similarity(adjacency):
    """Structural similarity of the endpoints of every edge (Xu et al. 2007).

    ``sigma(u, v) = |N[u] & N[v]| / sqrt(|N[u]| |N[v]|)`` where
    ``N[u] = N(u) + {u}`` is the closed neighbourhood. The common
    neighbours of all edges are counted at once by listing each triangle
    once (edges oriented by degree), in ``O(|E| sqrt(|E|))`` time at worst
    and linear memory, without forming ``A @ A``; on dense graphs, by the
    popcount of the AND of the endpoints' rows packed as bitsets, when that
    is estimated faster (``n**2 / 8`` bytes, at most the size of the graph).

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        Undirected graph; weights are ignored (see
        :func:`skdpgraph.utils.check_adjacency`).

    Returns
    -------
    similarity : scipy.sparse.csr_array of shape (n, n)
        Symmetric, with ``sigma(u, v) > 0`` stored at every edge and nothing
        else stored.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import structural_similarity
    >>> path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> structural_similarity(path).toarray().round(3)
    array([[0.   , 0.816, 0.   ],
           [0.816, 0.   , 0.816],
           [0.   , 0.816, 0.   ]])
    """
    A = check_adjacency(adjacency, what="adjacency")
    _, _, sim = _similarity_data(A)
    out = sp.csr_array((sim, A.indices, A.indptr), shape=A.shape)
    out.has_sorted_indices = True
    return out


def _check_scan_params(similarity_threshold, min_neighbors):
    if isinstance(similarity_threshold, bool) or not isinstance(similarity_threshold, Real):
        raise TypeError("similarity_threshold must be a real number in (0, 1].")
    if not 0.0 < similarity_threshold <= 1.0:
        raise ValueError(
            f"similarity_threshold must be in (0, 1]; got {similarity_threshold!r}."
        )
    if isinstance(min_neighbors, bool) or not isinstance(min_neighbors, Integral):
        raise TypeError("min_neighbors must be an integer >= 1.")
    if min_neighbors < 1:
        raise ValueError(f"min_neighbors must be >= 1; got {min_neighbors!r}.")


def _scan_canonical(A, similarity_threshold, min_neighbors):
    n = A.shape[0]
    rows, cols, sim = _similarity_data(A)
    similar = sim >= similarity_threshold
    # |N_eps(v)| counts v itself (sigma(v, v) = 1).
    eps_size = 1 + np.bincount(rows[similar], minlength=n)
    is_core = eps_size >= min_neighbors

    # Clusters: connected components of the cores under core-core eps-edges.
    cc = similar & is_core[rows] & is_core[cols]
    core_graph = sp.csr_array(
        (np.ones(int(cc.sum())), (rows[cc], cols[cc])), shape=(n, n)
    )
    _, comp = connected_components(core_graph, directed=False)
    labels = np.full(n, -1, dtype=np.int64)
    cores = np.flatnonzero(is_core)
    labels[cores] = comp[cores]

    # Borders: non-cores in the eps-neighbourhood of a core. A border within
    # reach of several clusters goes to its most similar core (ties: the
    # core with the smallest index), which makes the result independent of
    # any visiting order.
    bc = similar & ~is_core[rows] & is_core[cols]
    b_node, b_core, b_sim = rows[bc], cols[bc], sim[bc]
    order = np.lexsort((b_core, -b_sim, b_node))
    b_node, b_core = b_node[order], b_core[order]
    head = np.ones(b_node.size, dtype=bool)
    head[1:] = b_node[1:] != b_node[:-1]
    labels[b_node[head]] = labels[b_core[head]]

    # Number the clusters 0, 1, ... by their smallest node.
    member = np.flatnonzero(labels >= 0)
    _, first, inverse = np.unique(labels[member], return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    labels[member] = rank[inverse]
    n_clusters = int(first.size)

    kind = np.full(n, "outlier", dtype="<U7")
    kind[is_core] = "core"
    kind[(labels >= 0) & ~is_core] = "border"
    # Hubs: unclustered nodes adjacent to two or more clusters.
    un = (labels[rows] < 0) & (labels[cols] >= 0)
    pairs = np.unique(rows[un] * (n_clusters + 1) + labels[cols[un]])
    n_adjacent = np.bincount(pairs // (n_clusters + 1), minlength=n)
    kind[(labels < 0) & (n_adjacent >= 2)] = "hub"
    return SCANResult(labels, kind, cores.astype(np.int64), n_clusters)


def scan(adjacency, *, similarity_threshold=0.7, min_neighbors=2):
    """SCAN structural clustering of an unweighted graph (Xu et al. 2007).

    With closed neighbourhoods ``N[v] = N(v) + {v}`` and the structural
    similarity ``sigma(u, v) = |N[u] & N[v]| / sqrt(|N[u]| |N[v]|)``:

    * the ``similarity_threshold``-neighbourhood of ``v`` is
      ``{w in N[v] : sigma(v, w) >= similarity_threshold}`` (it contains
      ``v``);
    * ``v`` is a *core* if that neighbourhood has at least ``min_neighbors``
      nodes, ``v`` included;
    * clusters are the connected components of the cores linked by
      similar edges (structure-reachability), together with the non-core
      nodes similar to one of their cores (*borders*). A border similar to
      cores of several clusters joins the cluster of its most similar core
      (ties: smallest core index); Xu et al. leave this to the visiting order;
    * unclustered nodes are *hubs* if their neighbours belong to two or more
      clusters, *outliers* otherwise.

    The similarities of all edges come from one listing of the triangles
    (edges oriented by degree, each triangle found once), in
    ``O(|E| sqrt(|E|))`` time at worst and linear memory, or on dense graphs
    (such as those released by edge flipping) from the rows packed as
    bitsets, ``n / 64`` word operations per edge, whichever is estimated
    faster; everything else is linear in ``|V| + |E|``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        Undirected graph; weights are ignored (sparse: every stored entry,
        an explicit zero included, is an edge; dense: every nonzero
        off-diagonal entry).
    similarity_threshold : float in (0, 1], default=0.7
        Xu et al.'s epsilon (not a privacy parameter).
    min_neighbors : int >= 1, default=2
        Xu et al.'s mu.

    Returns
    -------
    result : SCANResult
        ``labels``, ``node_kind``, ``core_sample_indices``, ``n_clusters``.

    References
    ----------
    .. [1] X. Xu, N. Yuruk, Z. Feng and T. A. J. Schweiger, "SCAN: A
       Structural Clustering Algorithm for Networks", KDD 2007,
       Definitions 1-8.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import scan
    >>> G = nx.barbell_graph(5, 1)  # two 5-cliques joined through node 5
    >>> A = nx.to_scipy_sparse_array(G, nodelist=range(11))
    >>> res = scan(A, similarity_threshold=0.7, min_neighbors=3)
    >>> res.labels
    array([ 0,  0,  0,  0,  0, -1,  1,  1,  1,  1,  1])
    >>> str(res.node_kind[5])
    'hub'
    """
    _check_scan_params(similarity_threshold, min_neighbors)
    A = check_adjacency(adjacency, what="adjacency")
    return _scan_canonical(A, float(similarity_threshold), int(min_neighbors))


@fill_doc
class SCAN(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """SCAN structural graph clustering (Xu et al. 2007), with hubs and outliers.

    Read more in :func:`scan`. The input is the adjacency of an undirected
    graph; weights are ignored (sparse: every stored entry, an explicitly
    stored zero included, is an edge; dense: every nonzero off-diagonal
    entry is an edge, so a square array is taken by its nonzero pattern;
    networkx graphs are accepted).

    Parameters
    ----------
    similarity_threshold : float in (0, 1], default=0.7
        Minimum structural similarity of two adjacent nodes for them to be
        in each other's neighbourhood (Xu et al.'s epsilon; unrelated to a
        privacy epsilon).
    min_neighbors : int >= 1, default=2
        Minimum size of a core's similar neighbourhood, the node itself
        included (Xu et al.'s mu).
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,), int64
        Cluster of each node, -1 for hubs and outliers.
    node_kind_ : ndarray of shape (n,), str
        ``"core"``, ``"border"``, ``"hub"`` or ``"outlier"``.
    core_sample_indices_ : ndarray of int64
        Indices of the cores.
    n_clusters_ : int
    n_features_in_ : int
        Number of nodes.

    See Also
    --------
    skdpgraph.cluster.PrivateGraphClustering : SCAN on an edge-DP perturbed
        graph (PIG-SCAN).

    References
    ----------
    .. [1] X. Xu, N. Yuruk, Z. Feng and T. A. J. Schweiger, "SCAN: A
       Structural Clustering Algorithm for Networks", KDD 2007.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import SCAN
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(5, 1), nodelist=range(11))
    >>> model = SCAN(similarity_threshold=0.7, min_neighbors=3).fit(A)
    >>> model.labels_
    array([ 0,  0,  0,  0,  0, -1,  1,  1,  1,  1,  1])
    >>> model.n_clusters_
    2
    """

    _parameter_constraints = {
        "similarity_threshold": [Interval(Real, 0, 1, closed="right")],
        "min_neighbors": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __init__(self, similarity_threshold=0.7, min_neighbors=2, verbose=0):
        self.similarity_threshold = similarity_threshold
        self.min_neighbors = min_neighbors
        self.verbose = verbose

    def _fit_adjacency(self, A):
        res = _scan_canonical(A, float(self.similarity_threshold), int(self.min_neighbors))
        set_result_attributes(self, res)
