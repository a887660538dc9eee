"""Common neighbours of the two ends of every edge, counted in compiled loops.

One place for the count behind SCAN's structural similarity
(:mod:`skdpgraph.cluster`) and :class:`skdpgraph.graphs.StructuralDistance`.
"""

import numpy as np

# Relative cost of the two common-neighbour searches (see
# common_neighbour_counts): one lookup of the triangle search takes about
# as long as this many 64-bit words of the bitset search (ANDed and
# counted), and each oriented edge of the bitset search costs this many
# words on top of its row.
_LOOKUP_WORDS = 6.0
_EDGE_WORDS = 4.0


def _triangle_counts(A, orientation):
    """``|N(u) & N(v)|`` for every stored entry of ``A``, by listing triangles."""
    from ._neighbour_kernels import triangle_counts

    return triangle_counts(A.indptr, A.indices, *orientation)


def _bitset_counts(A, orientation):
    """``|N(u) & N(v)|`` for every stored entry of ``A``, by AND and popcount of bit rows."""
    from ._neighbour_kernels import bitset_counts

    return bitset_counts(A.indptr, A.indices, *orientation)


def common_neighbour_counts(A, method=None):
    """``|N(u) & N(v)|`` for every stored entry of a binary symmetric CSR ``A``.

    Returned aligned with ``A.data`` (int64). The count of an edge is its
    number of triangles. Edges are oriented from lower to higher rank, the
    rank ordering nodes by degree (ties by index), so that no node has more
    than ``sqrt(2 |E|)`` out-neighbours; each oriented edge is counted once,
    and its mirror gets the same count. Two searches, both compiled loops
    (:mod:`._neighbour_kernels`):

    * ``"triangles"``: each triangle is found once (the forward algorithm
      of Chiba and Nishizeki, as in Schank and Wagner 2005), one lookup
      in an array of marks per pair (``u -> v``, ``v -> w``), that is
      ``sum_v indeg(v) outdeg(v)`` lookups, at most ``|E| sqrt(2 |E|)``;
      the masked product ``(A @ A) * A`` would build all
      ``sum_v deg(v)**2`` entries of ``A @ A``;
    * ``"bitset"``: the rows of ``A`` packed as bits, and for every edge
      the AND of its endpoints' rows counted, ``ceil(n / 64)`` words per
      edge; in dense graphs (mean degree a sizeable fraction of ``n``, such
      as those released by edge flipping) that is fewer operations than
      the lookups.

    ``method=None`` takes the bitset when it is estimated faster and its
    ``n**2 / 8`` bytes are no more than ``A`` takes; both give the same
    counts.
    """
    from ._neighbour_kernels import orient

    n = A.shape[0]
    if A.nnz == 0:
        return np.zeros(0, dtype=np.int64)
    orientation = orient(A.indptr, A.indices)
    if method is None:
        out_indptr, out_node, _ = orientation
        out_deg = np.diff(out_indptr)
        in_deg = np.bincount(out_node, minlength=n)
        lookups = float(np.dot(in_deg, out_deg))
        n_words = -(-n // 64)
        bitset_work = out_node.size * (n_words + _EDGE_WORDS)
        held = A.data.nbytes + A.indices.nbytes + A.indptr.nbytes
        method = ("bitset" if bitset_work < _LOOKUP_WORDS * lookups
                  and 8 * n * n_words <= held else "triangles")
    if method == "bitset":
        return _bitset_counts(A, orientation)
    return _triangle_counts(A, orientation)
