"""Small array helpers shared by the UST engines."""

import numpy as np

from ...privacy._samplers import standard_gumbel


def gumbel(size, rng):
    """Gumbel noise with unbounded tails: no Gumbel-max choice has probability 0."""
    return standard_gumbel(size, rng)


def group_logsumexp(groups, values, n_groups):
    """``logsumexp`` of ``values`` within each group."""
    top = np.full(n_groups, -np.inf)
    np.maximum.at(top, groups, values)
    s = np.bincount(groups, weights=np.exp(values - top[groups]), minlength=n_groups)
    return top + np.log(s)


def group_argmax(groups, keys):
    """Index of the largest ``keys`` entry of each group (one index per group)."""
    order = np.lexsort((-keys, groups))
    g = groups[order]
    first = np.ones(g.size, dtype=bool)
    first[1:] = g[1:] != g[:-1]
    return order[first]


def pair_order(u, v, n):
    """``(codes, order)``: the edges' codes ``min(u, v) n + max(u, v)`` and the order
    that sorts them (no sort where they already are: the edges of a canonical graph)."""
    codes = np.minimum(u, v) * n + np.maximum(u, v)
    if codes.size > 1 and np.any(codes[1:] <= codes[:-1]):
        return codes, np.argsort(codes, kind="stable")
    return codes, np.arange(codes.size)


def unwind_eliminations(n, tu, tv, records, u, v, logc, rng):
    """Edge indices (into ``u, v``) of a UST of the graph ``(u, v, logc)`` on ``n``
    nodes, from a UST ``(tu, tv)`` of the Schur complement its eliminations left.

    ``records`` = ``(x, ptr, keys, values, log_degree)``, the eliminations in
    order (:mod:`._star_mesh_kernels`); the unwinding is
    :func:`._star_mesh_kernels.unwind`.
    """
    from ._star_mesh_kernels import unwind

    codes, by_code = pair_order(u, v, n)
    codes, code_logc = codes[by_code], np.ascontiguousarray(logc[by_code], dtype=np.float64)
    # One draw per neighbour of each level, and the sources' draws: measured 1.2 to 2.8
    # per neighbour; when they run out, the kernel runs again with more.
    noise = gumbel(3 * records[2].size + 2 * tu.size + 64, rng)
    while True:
        at, eu, ev = unwind(n, np.asarray(tu, dtype=np.int64), np.asarray(tv, dtype=np.int64),
                            *records, codes, code_logc, noise)
        if at >= 0:
            break
        noise = np.concatenate([noise, gumbel(noise.size, rng)])  # the same draws, and more
    wanted = np.minimum(eu, ev) * n + np.maximum(eu, ev)
    at = np.minimum(np.searchsorted(codes, wanted), max(codes.size - 1, 0))
    if wanted.size and np.any(codes[at] != wanted):  # pragma: no cover - exact arithmetic
        raise RuntimeError("an elimination was unwound into a non-edge; please report.")
    return by_code[at]
