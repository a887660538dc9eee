"""Exact UST sampling by elimination (star-mesh transform, Schur complements).

Eliminating node ``x`` of a graph with conductances ``gamma`` adds
conductance ``gamma(x, a) gamma(x, b) / d(x)`` between each pair of its
neighbours (``d(x)`` its total conductance): the Schur complement of the
weighted Laplacian. The UST restricted to the edges that do not touch ``x``
has the law of the UST of the Schur complement restricted to the inherited
copies of those edges (the UST is a determinantal process whose kernel, the
transfer-current matrix, the Schur complement leaves unchanged on these
edges [BP93]_), and given those edges ``x`` joins each component they leave
with one edge, chosen in proportion to its conductance. Unwinding the
eliminations from the last node back to the first therefore samples the UST
exactly.

Every quantity is a sum or product of positive numbers (no cancellation).
The work is done in float64 when no product can underflow and in log space
otherwise, so the cost, ``O(k^3)`` time and ``O(k^2)`` memory for a
component of ``k`` nodes (less time for sparse ones), does not depend on the
conductances, and every random choice is a Gumbel-max over log-conductances
with unbounded Gumbel tails (no choice of positive probability is lost).

References
----------
.. [BP93] R. Burton and R. Pemantle, "Local characteristics, entropy and
   limit theorems for spanning trees and domino tilings via transfer-
   impedances", Ann. Probab. 21 (1993).
"""

import math

import numpy as np

from ._common import gumbel, unwind_eliminations

#: Smallest product allowed in the float64 elimination (guards underflow and
#: loss of precision in subnormals); below it the log-space path is used.
_LINEAR_FLOOR = 1e-280

#: Largest spread of log-conductances for which the float64 elimination is
#: tried first (products of a few conductances stay far above the floor).
_LINEAR_MAX_SPREAD = 150.0

#: Nodes per block of the dense float64 elimination (one GEMM per block);
#: small components use blocks of ``k // 4`` nodes (at least 2).
_BLOCK = 96


def _log_matrix(u, v, logc, k):
    L = np.full((k, k), -np.inf)
    L[u, v] = L[v, u] = logc
    return L


def _linear_matrix(u, v, logc, k, top):
    L = np.zeros((k, k))
    L[u, v] = L[v, u] = np.exp(logc - top)
    return L


def _eliminate(u, v, logc, k, log_space, dense):
    """Eliminate all nodes but one of a connected component.

    Dense graphs are eliminated in index order (the trailing block is full
    anyway); in float64, in blocks of ``_BLOCK`` nodes: a node's update is
    applied at once to the rows of its own block and, for the rows after
    the block, deferred to one matrix product per block. Sparse graphs take
    the node of least current degree and update its neighbourhood only.
    Everything but the blocked products is a compiled loop
    (:mod:`._elimination_kernels`), in place on a ``k x k`` matrix.

    Returns ``(order, R, logd)``, or None when float64 would underflow.
    ``R[t, y]`` is the log-conductance between the ``t``-th eliminated node
    and node ``y`` when it is eliminated (``-inf`` if none or ``y`` is gone);
    ``logd[t]`` the log of its total conductance then. ``order[-1]`` is the
    last node left (the root of the unwinding).
    """
    from ._elimination_kernels import linear_sparse, log_dense, log_sparse

    R = np.full((k - 1, k), -np.inf)
    logd = np.empty(k - 1)
    order = np.arange(k, dtype=np.int64)
    top = float(logc.max())
    if not dense:
        deg = np.bincount(u, minlength=k) + np.bincount(v, minlength=k)
        if log_space:
            log_sparse(_log_matrix(u, v, logc, k), deg, R, logd, order)
        elif not linear_sparse(_linear_matrix(u, v, logc, k, top), deg, R, logd, order, top,
                               _LINEAR_FLOOR):
            return None
        return order, R, logd
    if log_space:
        log_dense(_log_matrix(u, v, logc, k), R, logd)
        return order, R, logd
    L = _linear_matrix(u, v, logc, k, top)
    d = np.empty(k - 1)
    block = max(2, min(_BLOCK, k // 4))
    for s in range(0, k - 1, block):
        e = min(s + block, k - 1)
        for t in range(s, e):
            vals = L[t, t + 1:]
            d[t] = vals.sum()
            pos = vals[vals > 0.0]
            if pos.min() ** 2 < _LINEAR_FLOOR * d[t]:
                return None  # a product could underflow
            logd[t] = math.log(d[t]) + top
            with np.errstate(divide="ignore"):
                R[t, t + 1:] = np.log(vals) + top
            # Rows of this block now; the rows after it at the block's end.
            L[t + 1:e, t + 1:] += np.multiply.outer(vals[:e - t - 1] / d[t], vals)
        if e < k:
            X = L[s:e, e:]
            L[e:, e:] += X.T @ (X / d[s:e, None])
    return order, R, logd


def ust_by_elimination(u, v, logc, k, rng):
    """Exact UST of a connected graph on ``k`` nodes; returns chosen edge indices."""
    m = u.size
    if k == 1:
        return np.zeros(0, dtype=np.int64)
    if k == 2:
        return np.array([int(np.argmax(logc + gumbel(m, rng)))])
    dense = 2 * m >= 0.25 * k * (k - 1)
    res = None
    if float(logc.max() - logc.min()) < _LINEAR_MAX_SPREAD:
        res = _eliminate(u, v, logc, k, False, dense)
    if res is None:
        res = _eliminate(u, v, logc, k, True, dense)
    return _unwind(*res, u, v, logc, k, rng)


def _unwind(order, R, logd, u, v, logc, k, rng):
    """Grow the tree from the root back through the eliminations."""
    present = R > -np.inf  # row t: the neighbours of the t-th node when it went
    ptr = np.concatenate([[0], np.cumsum(np.count_nonzero(present, axis=1))])
    records = (order[:-1], ptr, np.nonzero(present)[1].astype(np.int64), R[present], logd)
    root = np.zeros(0, dtype=np.int64)  # the last node, alone: its tree has no edge
    idx = unwind_eliminations(k, root, root, records, u, v, logc, rng)
    if idx.size != k - 1:  # pragma: no cover - exact arithmetic guarantees it
        raise RuntimeError("elimination sampler produced a non-tree; please report.")
    return idx


def elimination_by_component(u, v, logc, n, rng, lab, ncomp):
    """Edge indices of an exact UST of each connected component (labels ``lab``)."""
    chosen = []
    sizes = np.bincount(lab, minlength=ncomp)
    edge_comp = lab[u]
    order = np.argsort(edge_comp, kind="stable")
    bounds = np.searchsorted(edge_comp[order], np.arange(ncomp + 1))
    local = np.empty(n, dtype=np.int64)
    for c in np.flatnonzero(sizes >= 2):
        eidx = order[bounds[c]:bounds[c + 1]]
        nodes = np.flatnonzero(lab == c)
        local[nodes] = np.arange(nodes.size)
        picked = ust_by_elimination(local[u[eidx]], local[v[eidx]], logc[eidx],
                                    int(sizes[c]), rng)
        chosen.append(eidx[picked])
    return np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)
