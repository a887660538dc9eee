"""Compiled loops (numba) of the common-neighbour counts (:mod:`._neighbours`).

Imported by :mod:`._neighbours` inside the functions that need them, so that
``import skdpgraph`` does not import numba. Every function takes the
``indptr, indices`` of a binary symmetric CSR with sorted indices and no
diagonal.
"""

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic


@intrinsic
def _popcount(typingctx, word):
    """Set bits of a 64-bit word (LLVM's ctpop: one instruction where the CPU has it)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@numba.njit(cache=True)
def orient(indptr, indices):
    """Edges oriented from lower to higher rank, the rank ordering nodes by degree.

    Ties of degree go by node index. Returns ``(out_indptr, out_node,
    out_entry)``: the oriented edges leaving ``u`` go to the nodes
    ``out_node[out_indptr[u]:out_indptr[u + 1]]`` (increasing) and are the
    stored entries ``out_entry[...]`` (positions in ``indices``); no node
    has more than ``sqrt(2 |E|)`` of them.
    """
    n = indptr.size - 1
    out_indptr = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        du = indptr[u + 1] - indptr[u]
        count = 0
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            dw = indptr[w + 1] - indptr[w]
            if du < dw or (du == dw and u < w):
                count += 1
        out_indptr[u + 1] = out_indptr[u] + count
    out_node = np.empty(out_indptr[n], dtype=indices.dtype)
    out_entry = np.empty(out_indptr[n], dtype=np.int64)
    for u in range(n):
        du = indptr[u + 1] - indptr[u]
        k = out_indptr[u]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            dw = indptr[w + 1] - indptr[w]
            if du < dw or (du == dw and u < w):
                out_node[k] = w
                out_entry[k] = j
                k += 1
    return out_indptr, out_node, out_entry


@numba.njit(cache=True)
def _symmetrise(indptr, indices, count):
    """Give both entries of every edge the sum of their two counts.

    The counts sit on one entry of each edge (its oriented one). Row
    ``w``'s entries below ``w`` are the mirrors of ``(u, w)`` for ``u < w``
    in increasing ``u``, so one pointer per row finds every mirror.
    """
    n = indptr.size - 1
    next_mirror = indptr[:n].copy()
    for u in range(n):
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if w > u:
                m = next_mirror[w]
                next_mirror[w] += 1
                total = count[j] + count[m]
                count[j] = total
                count[m] = total


@numba.njit(cache=True)
def triangle_counts(indptr, indices, out_indptr, out_node, out_entry):
    """``|N(u) & N(w)|`` for every stored entry ``(u, w)``, by listing triangles.

    For each node ``u`` the heads of its oriented edges are marked with
    the edge's entry; for each oriented edge ``u -> v`` and each oriented
    edge ``v -> w``, a marked ``w`` closes the triangle ``{u, v, w}``,
    which is credited to its three edges (each triangle is found once, from
    its lowest-ranked node). Work: ``sum_v indeg(v) outdeg(v)`` lookups,
    at most ``|E| sqrt(2 |E|)``; memory: one array of ``n`` entries.
    """
    n = indptr.size - 1
    count = np.zeros(indices.size, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    for u in range(n):
        a, b = out_indptr[u], out_indptr[u + 1]
        for k in range(a, b):
            mark[out_node[k]] = out_entry[k]
        for k in range(a, b):
            v = out_node[k]
            found = 0
            for kk in range(out_indptr[v], out_indptr[v + 1]):
                uw = mark[out_node[kk]]
                if uw >= 0:
                    found += 1
                    count[out_entry[kk]] += 1
                    count[uw] += 1
            count[out_entry[k]] += found
        for k in range(a, b):
            mark[out_node[k]] = -1
    _symmetrise(indptr, indices, count)
    return count


@numba.njit(cache=True)
def bitset_counts(indptr, indices, out_indptr, out_node, out_entry):
    """``|N(u) & N(w)|`` for every stored entry ``(u, w)``: AND and popcount of bit rows.

    The rows packed as bitsets (``ceil(n / 64)`` words each, ``n**2 / 8``
    bytes in all); for every oriented edge the popcount of the AND of its
    ends' rows, read word by word.
    """
    n = indptr.size - 1
    n_words = (n + 63) // 64
    bits = np.zeros((n, n_words), dtype=np.uint64)
    one = np.uint64(1)
    for u in range(n):
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            bits[u, w >> 6] |= one << np.uint64(w & 63)
    count = np.zeros(indices.size, dtype=np.int64)
    for u in range(n):
        row_u = bits[u]
        for k in range(out_indptr[u], out_indptr[u + 1]):
            row_w = bits[out_node[k]]
            total = np.uint64(0)
            for t in range(n_words):
                total += _popcount(row_u[t] & row_w[t])
            count[out_entry[k]] = np.int64(total)
    _symmetrise(indptr, indices, count)
    return count
