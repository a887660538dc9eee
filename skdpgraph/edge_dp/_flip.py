"""Edge-differentially private graph perturbation (PIG, Muelle et al. 2015).

The topology of an unweighted graph is private. Every unordered pair of nodes
keeps its adjacency bit with probability ``1 - s`` and is replaced by a fair
coin with probability ``s`` (Algorithm 1 of [1]_, ``PIG_pert``): the bit is
flipped with probability ``s / 2``, independently over pairs. For two graphs
that differ in one edge, the probability of any output differs by a factor of
at most ``(1 - s/2) / (s/2) = 2/s - 1``, so the release is
``epsilon``-edge-differentially private with ``epsilon = ln(2/s - 1)``
([1]_, Theorem 1). Any clustering computed from the perturbed graph alone is
post-processing and has the same guarantee.

On a real computer: the release is a set of pairs, not numbers, so the
floating-point attack on ``w + noise`` does not apply; what matters is the
probabilities that are actually realised. Every coin is exact
(:func:`skdpgraph.privacy.randomized_response_rates`): an edge is kept by
comparing uniform 64-bit words with a dyadic probability just below
``(1 - p) q``, and the added non-edges are the marks of an exact Bernoulli
process whose rate is just above ``p q`` (``p = s / 2``, ``q`` the sample
rate; ``s`` is rounded up so that ``ln((1 - p) / p) <= epsilon`` holds
exactly). Both roundings can only lower the privacy loss, at every rate.

Adjacency semantics (:func:`check_adjacency`): weights are ignored.

* sparse matrix or array: every stored entry, an explicitly stored zero
  included, is an edge (scikit-learn's convention for precomputed sparse
  graphs, and the library's);
* dense square array: the nonzero off-diagonal entries are the edges. This is
  *not* :func:`skdpgraph.check_graph`'s reading of a dense array (a complete
  graph of distances): a complete graph has no private topology;
* networkx graph: its edges (directed graphs and multigraphs are refused).

References
----------
.. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
   Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015.
"""

import math

import numpy as np
import scipy.sparse as sp

from ..privacy import (
    bernoulli_process,
    bernoulli_words,
    randomized_response_rates,
)
from ..utils import check_adjacency, check_int, check_random_state, check_real, index_dtype
from ..utils._config import CHUNK_SIZE, check_work_memory
from ..utils._docs import fill_doc
from ..utils._sparse import pair_index
from ._pig import check_s, pig_epsilon


def _first_pair(r, n):
    """Index of the first pair ``(r, r + 1)`` of row ``r`` (see :func:`pair_index`)."""
    return r * (2 * n - r - 1) // 2


def _row_chunks(indptr, chunk=None):
    """``(r0, r1)`` ranges of rows holding about ``chunk`` entries each (at least one row)."""
    chunk = CHUNK_SIZE if chunk is None else chunk
    n = indptr.size - 1
    r0 = 0
    while r0 < n:
        r1 = int(np.searchsorted(indptr, indptr[r0] + chunk, side="right")) - 1
        r1 = min(max(r1, r0 + 1), n)
        yield r0, r1
        r0 = r1


def _upper_pair_keys(A):
    """Sorted pair indices of the edges of a canonical symmetric CSR ``A``.

    Row by row (sorted indices), the entries above the diagonal come in
    increasing pair index: no sort, and chunked temporaries.
    """
    n = A.shape[0]
    keys = np.empty(A.nnz // 2, dtype=np.int64)
    deg = np.diff(A.indptr)
    filled = 0
    for r0, r1 in _row_chunks(A.indptr):
        lo, hi = A.indptr[r0], A.indptr[r1]
        u = np.repeat(np.arange(r0, r1, dtype=np.int64), deg[r0:r1])
        v = A.indices[lo:hi]
        upper = v > u
        u = u[upper]
        k = pair_index(u, v[upper], n)
        keys[filled:filled + k.size] = k
        filled += k.size
    return keys


def flip_pair_keys(edge_keys, n_pairs, p, random_state, *, sample_rate=1.0):
    """Edge flipping on pair indices: the sampler behind :func:`flip_edges`.

    Pairs are numbered ``0 .. n_pairs - 1`` (for a graph of ``n`` nodes, the
    row-major strict upper triangle: :func:`skdpgraph.utils.pair_index`).
    Every pair's bit is flipped with probability ``p`` and each released pair
    is then kept with probability ``sample_rate``, independently: an edge is
    released with probability ``(1 - p) q`` and a non-edge with probability
    ``p q`` (``q = sample_rate``). This is the randomized response of
    :func:`flip_edges` (``p = s / 2``) without any graph structure, for
    inputs given directly as pair indices.

    The coins are exact (:func:`skdpgraph.privacy.randomized_response_rates`):
    each edge compares uniform 64-bit words with a dyadic probability just
    below ``(1 - p) q``, and the released non-edges are the marks, off the
    edges, of an exact Bernoulli process over all pairs whose rate is just
    above ``p q``, visited by exact geometric gaps. Both roundings can only
    lower the privacy loss, which is therefore at most ``ln((1 - p) / p)``
    at every rate; the work is ``O(|E| + pairs released)``. At ``p = 1/2``
    the graph is not read: every pair is released at one rate.

    Parameters
    ----------
    edge_keys : ndarray of int64
        Sorted, distinct pair indices of the edges.
    n_pairs : int
        Number of pairs.
    p : float in [0, 1/2]
        Flip probability.
    random_state : numpy.random.Generator
        Source of the coins.
    sample_rate : float in (0, 1], default=1.0
        Probability ``q`` that a released pair is kept.

    Returns
    -------
    ndarray of int64
        The released pair indices, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.edge_dp import flip_pair_keys
    >>> keys = np.array([0, 3, 5])
    >>> flip_pair_keys(keys, 6, 0.0, np.random.default_rng(0)).tolist()
    [0, 3, 5]
    """
    p = check_real(p, "p", low=0.0, high=0.5)
    sample_rate = _check_sample_rate(sample_rate)
    rates = randomized_response_rates(p, sample_rate)
    rng = random_state
    if p == 0.5:
        return bernoulli_process(n_pairs, rates.mark_scale, rates.thin, rng)
    edge_keys = np.asarray(edge_keys, dtype=np.int64)
    m = edge_keys.size
    keep = np.empty(m, dtype=bool)
    for lo in range(0, m, CHUNK_SIZE):
        hi = min(lo + CHUNK_SIZE, m)
        keep[lo:hi] = bernoulli_words(rates.keep, hi - lo, rng)
    kept = edge_keys[keep]
    del keep
    if rates.mark_scale is None:
        return kept
    added = bernoulli_process(n_pairs, rates.mark_scale, rates.thin, rng)
    if m:
        on_edge = np.empty(added.size, dtype=bool)
        for lo in range(0, added.size, CHUNK_SIZE):
            part = added[lo:lo + CHUNK_SIZE]
            pos = np.searchsorted(edge_keys, part)
            np.minimum(pos, m - 1, out=pos)
            np.equal(edge_keys[pos], part, out=on_edge[lo:lo + CHUNK_SIZE])
        added = added[~on_edge]
        del on_edge
    out = np.concatenate([kept, added])
    del kept, added
    out.sort(kind="stable")  # two sorted runs: one merge
    return out


def _split_pair_keys(keys, n):
    """Rows and columns of sorted pair keys: ``(key_start, cols)``.

    ``key_start[r]:key_start[r + 1]`` are the keys of the pairs ``(r, v)``,
    ``v > r``; ``cols`` their ``v``, in the index dtype of the output.
    """
    first = np.arange(n + 1, dtype=np.int64)
    first *= 2 * n - 1 - first
    first //= 2  # _first_pair of every row, in place
    key_start = np.searchsorted(keys, first)
    del first
    cols = np.empty(keys.size, dtype=index_dtype(n, 2 * keys.size))
    for r0, r1 in _row_chunks(key_start):
        lo, hi = key_start[r0], key_start[r1]
        u = np.repeat(np.arange(r0, r1, dtype=np.int64), np.diff(key_start[r0:r1 + 1]))
        cols[lo:hi] = keys[lo:hi] - _first_pair(u, n) + u + 1
    return key_start, cols


def _copy_rows(dst, src, src_start, shift):
    """``dst[i + shift[r]] = src[i]`` for the entries ``i`` of every row ``r`` of ``src``."""
    for r0, r1 in _row_chunks(src_start):
        lo, hi = src_start[r0], src_start[r1]
        pos = np.repeat(np.asarray(shift[r0:r1], dtype=np.int64),
                        np.diff(src_start[r0:r1 + 1]))
        pos += np.arange(lo, hi)
        dst[pos] = src[lo:hi]


def _symmetric_csr(key_start, cols, n):
    """Canonical symmetric 0/1 CSR from the upper triangle, built in sorted order.

    Row ``r`` is its lower part (the ``u < r`` with ``(u, r)`` an edge, from
    scipy's linear-time transposition of the upper triangle) followed by its
    upper part (``cols``); no COO, no sort. Peak memory: the output (int32
    indices and float64 ones, 24 bytes per edge when int32 fits) once the
    upper triangle and its transpose are freed, about 18 bytes per edge
    before.
    """
    m = cols.size
    idx = cols.dtype
    upper = sp.csr_array((np.ones(m, dtype=bool), cols, key_start.astype(idx)), shape=(n, n))
    lower = upper.T.tocsr()  # CSC of the upper triangle: rows in increasing order
    del upper
    # Row r starts after the lower and upper parts of the rows before it.
    indptr = np.add(lower.indptr, key_start, dtype=idx, casting="same_kind")
    indices = np.empty(2 * m, dtype=idx)
    # Lower part of row r at indptr[r] = lower.indptr[r] + key_start[r]; its
    # upper part right after, at lower.indptr[r + 1] + key_start[r].
    _copy_rows(indices, lower.indices, lower.indptr, key_start)
    _copy_rows(indices, cols, key_start, lower.indptr[1:])
    del lower
    out = sp.csr_array((np.ones(2 * m), indices, indptr), shape=(n, n))
    out.has_sorted_indices = True
    return out


#: Default limit on the expected number of edges randomized response adds.
DEFAULT_MAX_ADDED_EDGES = 20_000_000


def expected_added_edges(n_nodes, s, sample_rate=1.0):
    """Public bound on the expected number of edges edge flipping adds.

    Each of the ``n (n - 1) / 2`` pairs that is not an edge becomes one with
    probability ``q s / 2`` (``q = sample_rate``), so the expected number of
    added edges is at most ``q (s / 2) n (n - 1) / 2``, about
    ``q n^2 / (2 (1 + e^epsilon))``. Only public parameters enter: this is
    the number checked against ``max_added_edges`` before anything is
    allocated (the actual count also depends on the private ``|E|``, which
    must not decide whether a release happens).

    Parameters
    ----------
    n_nodes : int >= 2
        Number of nodes ``n`` (public).
    s : float in (0, 1]
        Randomisation probability (each bit flips with probability ``s / 2``).
    sample_rate : float in (0, 1], default=1.0
        Probability ``q`` that a released pair is kept.

    Returns
    -------
    float
        ``q (s / 2) n (n - 1) / 2``.

    Examples
    --------
    >>> from skdpgraph.edge_dp import expected_added_edges, pig_s_from_epsilon
    >>> round(expected_added_edges(100_000, pig_s_from_epsilon(4.0)))
    89930150
    """
    n = check_int(n_nodes, "n_nodes", 2)
    s = check_s(s)
    q = _check_sample_rate(sample_rate)
    return q * (s / 2.0) * (n * (n - 1) / 2.0)


def _check_sample_rate(sample_rate):
    return check_real(sample_rate, "sample_rate", low=0.0, high=1.0, low_open=True)


def _check_flip_probability(flip_probability):
    return check_real(flip_probability, "flip_probability", low=0.0, high=0.5, high_open=True)


def _check_max_added_edges(max_added_edges):
    if max_added_edges is None:
        return None
    return check_real(max_added_edges, "max_added_edges", low=0.0, allow_inf=True)


def _check_release_size(n, s, sample_rate, max_added_edges):
    """Refuse, from public parameters only, a release that cannot be made (too many nodes)
    or would add too many edges."""
    if n >= 2**31:
        raise ValueError(f"Graphs with {n} >= 2**31 nodes are not supported.")
    expected = expected_added_edges(n, s, sample_rate)
    if max_added_edges is not None and expected > max_added_edges:
        epsilon = float(pig_epsilon(s))
        q_fit = max_added_edges / expected * sample_rate
        raise ValueError(
            f"Randomized response on {n} nodes at epsilon={epsilon:.4g} "
            f"(flip probability {s / 2:.4g}) with sample_rate={sample_rate:g} would add "
            f"about {expected:,.0f} edges, above max_added_edges={max_added_edges:,.0f}. "
            f"Use sample_rate <= {q_fit:.3g} (still epsilon-edge-DP), a larger "
            "epsilon, or raise max_added_edges."
        )
    # Whatever max_added_edges says, a release the process cannot hold (24 bytes a
    # released edge; the count concentrates within a few standard deviations) fails.
    check_work_memory(24.0 * max(expected - 6.0 * math.sqrt(expected), 0.0),
                      f"Randomized response on {n} nodes, about {expected:,.0f} added edges,")


def _flip_canonical(A, s, rng, sample_rate=1.0, max_added_edges=None):
    """Edge flipping (then subsampling) on a canonical binary adjacency (no validation).

    Memory: the input's upper edge keys (8 bytes per input edge), then the
    released keys (8 bytes per released edge) and the output (24 bytes per
    released edge); all other temporaries are chunked, so the peak stays
    near 30 bytes per released edge (``benchmarks/bench_edge_dp.py``
    measures it).
    """
    n = A.shape[0]
    _check_release_size(n, s, sample_rate, max_added_edges)
    keys = _upper_pair_keys(A)
    new_keys = flip_pair_keys(keys, n * (n - 1) // 2, s / 2.0, rng, sample_rate=sample_rate)
    del keys
    key_start, cols = _split_pair_keys(new_keys, n)
    del new_keys
    return _symmetric_csr(key_start, cols, n)


@fill_doc
def flip_edges(adjacency, s, random_state=None, *, sample_rate=1.0,
               max_added_edges=DEFAULT_MAX_ADDED_EDGES):
    """Perturb a graph by edge flipping (PIG_pert, Algorithm 1 of Muelle et al.).

    Every unordered pair of distinct nodes keeps its adjacency bit with
    probability ``1 - s`` and gets a fair coin with probability ``s``; so
    each bit flips independently with probability ``s / 2``. The output is
    ``pig_epsilon(s) = ln(2/s - 1)``-differentially private for neighbouring
    graphs that differ in one edge.

    The sampler never builds the ``n x n`` matrix: existing edges survive
    with probability ``1 - s/2``, decided one by one; the added edges are the
    marks of a Bernoulli process of rate ``s/2`` over the int64 pair indices,
    off the edges, reached by exact geometric gaps
    (:func:`flip_pair_keys`). Time and memory are ``O(|E| + edges added)``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        Undirected graph; weights are ignored (see :func:`check_adjacency`:
        for sparse input every stored entry, an explicit zero included, is an
        edge; for dense input every nonzero off-diagonal entry).
    s : float in (0, 1]
        Randomisation probability. See :func:`pig_s_from_epsilon` and
        :func:`suggest_s`.
    {{random_state}}
    sample_rate : float in (0, 1], default=1.0
        ``q``: each pair of the flipped graph is then kept independently with
        probability ``q`` (an edge is released with probability
        ``(1 - s/2) q``, a non-edge with probability ``(s/2) q``), sampled
        directly in ``O(|E| + q (s/2) n^2 / 2)``. The guarantee is the same
        ``epsilon``; the expected released graph is
        ``q ((1 - s) A + (s/2) (J - I))``.
    max_added_edges : float or None, default=20_000_000
        Refuse (``ValueError``, with the number) when the expected number of
        added edges, ``q (s/2) n (n - 1) / 2`` (:func:`expected_added_edges`,
        public parameters only), exceeds this; checked before anything is
        allocated. ``None`` disables the check, not the refusal of a release
        that cannot fit in the process's memory (24 bytes a released edge;
        :class:`~skdpgraph.exceptions.WorkMemoryError`).

    Returns
    -------
    perturbed : scipy.sparse.csr_array of shape (n, n)
        Symmetric 0/1 adjacency (float64 ones, sorted indices, no diagonal).

    References
    ----------
    .. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015,
       Algorithm 1 and Theorem 1.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.edge_dp import flip_edges, pig_epsilon
    >>> G = nx.karate_club_graph()
    >>> P = flip_edges(G, s=0.1, random_state=0)
    >>> P.shape, round(pig_epsilon(0.1), 3)
    ((34, 34), 2.944)
    """
    s = check_s(s)
    sample_rate = _check_sample_rate(sample_rate)
    max_added_edges = _check_max_added_edges(max_added_edges)
    A = check_adjacency(adjacency, what="adjacency")
    rng = check_random_state(random_state)
    return _flip_canonical(A, s, rng, sample_rate, max_added_edges)
