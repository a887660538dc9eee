"""Compiled loops (numba) of the elimination sampler (:mod:`._elimination`).

Gaussian elimination of a weighted Laplacian by star-mesh transforms, in
place on a ``k x k`` matrix of conductances: in log space (any spread), or
in float64 for the sparse order (the dense float64 order is blocked into
matrix products in :mod:`._elimination`). Imported inside the functions
that need them, so that ``import skdpgraph`` does not import numba.

Every function records, for the ``t``-th eliminated node, its
log-conductances to the nodes still present in ``R[t]`` (``-inf``
elsewhere) and the log of its total conductance in ``logd[t]``.
"""

import numba
import numpy as np

#: log(x + y) is taken as max(x, y) when the other term is below this
#: fraction (e**-50, far below the 2**-53 resolution of the larger).
_NEGLIGIBLE = -50.0


@numba.njit(cache=True, inline="always")
def _logaddexp(x, y):
    if x < y:
        x, y = y, x
    if y == -np.inf or y - x < _NEGLIGIBLE:
        return x
    return x + np.log1p(np.exp(y - x))


@numba.njit(cache=True)
def _log_total(row, nb, count):
    """``log(sum(exp(row[nb[:count]])))``."""
    top = -np.inf
    for i in range(count):
        top = max(top, row[nb[i]])
    total = 0.0
    for i in range(count):
        total += np.exp(row[nb[i]] - top)
    return top + np.log(total)


@numba.njit(cache=True)
def log_dense(L, R, logd):
    """Eliminate nodes ``0, 1, ..., k - 2`` in that order, in log space.

    ``L`` holds log-conductances (``-inf``: no edge); only its upper
    triangle is read and updated: eliminating ``t`` adds
    ``L[t, a] + L[t, b] - logd[t]`` to ``L[a, b]`` for ``t < a < b``.
    """
    k = L.shape[0]
    nb = np.empty(k, dtype=np.int64)
    for t in range(k - 1):
        count = 0
        for a in range(t + 1, k):
            if L[t, a] > -np.inf:
                nb[count] = a
                count += 1
        ld = _log_total(L[t], nb, count)
        logd[t] = ld
        for i in range(count):
            R[t, nb[i]] = L[t, nb[i]]
        for i in range(count):
            a = nb[i]
            ra = L[t, a] - ld
            row = L[a]
            for j in range(i + 1, count):
                b = nb[j]
                row[b] = _logaddexp(row[b], ra + L[t, b])


@numba.njit(cache=True)
def _least_degree(alive, deg):
    best = -1
    for x in range(alive.size):
        if alive[x] and (best < 0 or deg[x] < deg[best]):
            best = x
    return best


@numba.njit(cache=True)
def log_sparse(L, deg, R, logd, order):
    """Eliminate all nodes but one, each time one of least current degree, in log space.

    ``L`` is symmetric (``-inf``: no edge); ``deg`` the nodes' degrees,
    updated with the fill-in. ``order`` receives the eliminated nodes and,
    last, the one left.
    """
    k = L.shape[0]
    alive = np.ones(k, dtype=np.bool_)
    nb = np.empty(k, dtype=np.int64)
    for t in range(k - 1):
        x = _least_degree(alive, deg)
        order[t] = x
        alive[x] = False
        count = 0
        for a in range(k):
            if alive[a] and L[x, a] > -np.inf:
                nb[count] = a
                count += 1
        ld = _log_total(L[x], nb, count)
        logd[t] = ld
        for i in range(count):
            a = nb[i]
            R[t, a] = L[x, a]
        for i in range(count):
            a = nb[i]
            ra = L[x, a] - ld
            for j in range(i + 1, count):
                b = nb[j]
                if L[a, b] == -np.inf:  # fill-in
                    deg[a] += 1
                    deg[b] += 1
                value = _logaddexp(L[a, b], ra + L[x, b])
                L[a, b] = value
                L[b, a] = value
            deg[a] -= 1  # the edge to x
            L[a, x] = -np.inf
            L[x, a] = -np.inf
    order[k - 1] = _least_degree(alive, deg)


@numba.njit(cache=True)
def linear_sparse(L, deg, R, logd, order, top, floor):
    """As :func:`log_sparse` on conductances scaled by ``exp(-top)``, in float64.

    Returns False, leaving the work unfinished, as soon as a row's smallest
    conductance squared falls below ``floor`` times its total (a product
    of two conductances could underflow): the caller then starts over in
    log space.
    """
    k = L.shape[0]
    alive = np.ones(k, dtype=np.bool_)
    nb = np.empty(k, dtype=np.int64)
    for t in range(k - 1):
        x = _least_degree(alive, deg)
        order[t] = x
        alive[x] = False
        count = 0
        d = 0.0
        smallest = np.inf
        for a in range(k):
            if alive[a] and L[x, a] != 0.0:
                nb[count] = a
                count += 1
                d += L[x, a]
                smallest = min(smallest, L[x, a])
        if smallest * smallest < floor * d:
            return False
        logd[t] = np.log(d) + top
        for i in range(count):
            a = nb[i]
            R[t, a] = np.log(L[x, a]) + top
        for i in range(count):
            a = nb[i]
            ra = L[x, a] / d
            for j in range(i + 1, count):
                b = nb[j]
                if L[a, b] == 0.0:  # fill-in
                    deg[a] += 1
                    deg[b] += 1
                value = L[a, b] + ra * L[x, b]
                L[a, b] = value
                L[b, a] = value
            deg[a] -= 1
            L[a, x] = 0.0
            L[x, a] = 0.0
    order[k - 1] = _least_degree(alive, deg)
    return True
