"""Compiled sweeps (numba) of the belief propagation in :mod:`._bp`.

Imported by :func:`._bp._bp` when it runs, so that ``import skdpgraph`` does
not import numba. Messages and edge terms are ``(|E'|, k)`` arrays in the CSR
order of the released graph; one pass over them per half-sweep replaces a
dozen temporary arrays of that size. Nothing random.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def edge_terms(indptr, messages, d, pair, base, noise, ceiling, terms, sums):
    """Edge factors and their log-sums per node.

    ``terms[e, r] = min((messages[e, r] d[r] + base) pair[e] + noise, ceiling)``
    for the stored edge ``e = (u, w)``: the probability of ``u``'s released
    edge to ``w`` when ``u`` is in community ``r``, averaged over ``w``'s
    message. ``sums[u, r]`` is the sum of ``log terms[e, r]`` over ``u``'s
    edges.
    """
    k = d.shape[0]
    # Logs of products of factors rather than sums of logs: one log per run
    # of factors instead of one per factor (a log costs several times the
    # rest of the loop). A run ends where its product would leave the normal
    # range; every factor is at most 1.
    product = np.ones(k)
    for u in range(indptr.shape[0] - 1):
        for r in range(k):
            sums[u, r] = 0.0
            product[r] = 1.0
        for e in range(indptr[u], indptr[u + 1]):
            for r in range(k):
                t = min((messages[e, r] * d[r] + base) * pair[e] + noise, ceiling)
                terms[e, r] = t
                x = product[r] * t
                if x < 1e-280:  # also 0 and subnormal: the two logs taken apart
                    sums[u, r] += np.log(product[r]) + np.log(t)
                    x = 1.0
                product[r] = x
        for r in range(k):
            sums[u, r] += np.log(product[r])


@njit(cache=True)
def update_messages(indptr, reverse, beliefs, terms, damping, messages):
    """Damped messages ``u -> w`` from ``u``'s beliefs without ``w``'s factor.

    The message of the edge ``(u, w)`` is ``beliefs[u] / terms[e]``
    normalised, written at the reverse position ``reverse[e] = (w, u)``
    where ``w`` reads it. ``terms`` is overwritten. Every term was computed
    before this pass, so the order of the updates does not matter.
    """
    k = beliefs.shape[1]
    keep = 1.0 - damping
    for u in range(indptr.shape[0] - 1):
        for e in range(indptr[u], indptr[u + 1]):
            total = 0.0
            for r in range(k):
                x = beliefs[u, r] / terms[e, r]
                terms[e, r] = x
                total += x
            f = reverse[e]
            for r in range(k):
                messages[f, r] = damping * messages[f, r] + keep * (terms[e, r] / total)
