"""Reductions of a UST problem that change its law by at most ``exp(-50)`` each.

Two reductions make large inverse temperatures cheap. Each is a documented
truncation: it gives probability 0 to some trees of probability below
``exp(-PRUNE_LOG_BOUND)`` in all, so it moves the law by less than that in
total variation; :func:`truncation_delta` bounds their sum over one call of
:func:`~skdpgraph.tree.sample_weighted_ust`.

* *Pruning* (:func:`prune`): an edge ``e`` outside the maximum-conductance
  spanning forest ``F`` has ``P(e in T) = gamma(e) R_eff(e) <= (k - 1)
  gamma(e) / min_{f on the F-path of e} gamma(f)`` (Kirchhoff's formula and
  Rayleigh monotonicity, [LP16]_ Chapter 4: the ``F``-path alone has
  resistance at most ``(k - 1) / min gamma(f)``), and removing a set ``D``
  of edges changes the law by at most ``P(T meets D) <= sum_{e in D} P(e in
  T)``.
* *Gap split* (:func:`gap_split`): when the sorted conductances have a gap
  of a factor ``exp(g)``, the tree is, up to the same error, made of
  independent USTs of the light components and one UST of the graph of
  components (proof in :func:`gap_split`).

References
----------
.. [LP16] R. Lyons and Y. Peres, "Probability on Trees and Networks",
   Cambridge University Press, 2016.
"""

import math

import numpy as np

from ...utils import mst_edge_indices
from .._rooted import path_max, root_forest

#: Each reduction drops trees of total probability below exp(-PRUNE_LOG_BOUND).
PRUNE_LOG_BOUND = 50.0


def truncation_delta(n_edges):
    """Total-variation bound of the reductions in one UST draw on ``n_edges`` edges.

    One draw makes at most ``n_edges - 1`` gap splits (each splits the edge
    set of its problem into two parts with fewer edges) and prunes each of
    the at most ``n_edges`` resulting problems once; each reduction moves
    the law by less than ``exp(-PRUNE_LOG_BOUND)``, and errors of successive
    approximations add up in total variation. Hence at most
    ``(2 n_edges - 1) exp(-50)``, about ``3.9e-16`` for ``10**6`` edges.

    Parameters
    ----------
    n_edges : int

    Returns
    -------
    float
    """
    return max(2 * int(n_edges) - 1, 0) * math.exp(-PRUNE_LOG_BOUND)


def _max_spanning_tree_mask(u, v, logc, n):
    """Boolean mask of a maximum-log-conductance spanning forest."""
    mask = np.zeros(u.size, dtype=bool)
    mask[mst_edge_indices(u, v, -logc, n)] = True
    return mask


def prune(u, v, logc, n):
    """Mask of the edges to keep; the others are in the UST with probability < exp(-50).

    An edge ``e`` outside the maximum-conductance spanning forest is in the
    UST with probability at most ``(n - 1) gamma(e) / min_{f on its forest
    path} gamma(f)``; an edge is dropped when that bound is below
    ``exp(-PRUNE_LOG_BOUND) / m``, so the dropped ones sum to less than
    ``exp(-PRUNE_LOG_BOUND)``.
    """
    m = u.size
    keep = np.ones(m, dtype=bool)
    if m == 0:
        return keep
    threshold = PRUNE_LOG_BOUND + math.log(m) + math.log(max(n - 1, 1))
    if float(logc.max() - logc.min()) <= threshold:
        return keep  # no edge can be improbable enough
    in_tree = _max_spanning_tree_mask(u, v, logc, n)
    out = np.flatnonzero(~in_tree)
    if out.size == 0:
        return keep
    # min logc on the path = -max(-logc) on it.
    ti = np.flatnonzero(in_tree)
    forest = root_forest(np.column_stack([u[ti], v[ti]]), -logc[ti], n)
    path_min = -path_max(forest, u[out], v[out])
    keep[out[logc[out] - path_min < -threshold]] = False
    return keep


def gap_split(logc):
    """Threshold splitting the edges into light and heavy ones, or None.

    *Claim.* Let the light edges ``H`` (log-conductance above the threshold)
    and the heavy ones differ by a factor ``exp(g)`` at least, and let ``A``
    be the event that the tree restricted to ``H`` spans every component of
    ``H``. Given ``A`` the tree is made of independent USTs of the
    components of ``H`` and a UST of the graph whose nodes are those
    components and whose edges are the heavy edges between them (parallel
    ones merged, then one picked in proportion to its conductance): the law
    factorises. And ``P(not A) <= q = m_light m_heavy exp(-g)``: a tree
    outside ``A`` becomes, by swapping one of its heavy edges for a light
    edge that joins two of its pieces inside a component of ``H``, a tree
    ``exp(g)`` times more probable, and at most ``m_light m_heavy`` trees
    map to the same one. Sampling given ``A`` moves the law by ``P(not
    A)`` in total variation.

    A split is made at the largest gap with ``g > PRUNE_LOG_BOUND +
    log(2 m_light m_heavy)``, so ``P(not A) < exp(-PRUNE_LOG_BOUND) / 2``.
    On graphs whose clusters are separated by a gap in weights (the
    homogeneous graphs of the UAI paper) this splits a large ``c`` problem
    into one small problem per cluster.
    """
    m = logc.size
    if m < 2:
        return None
    if float(logc.max() - logc.min()) <= PRUNE_LOG_BOUND + math.log(2.0 * (m - 1)):
        return None  # no gap can reach the smallest need: skip the sort
    x = np.sort(-logc)  # light (large conductance) first
    gaps = np.diff(x)
    i = np.arange(1, m)
    need = PRUNE_LOG_BOUND + np.log(2.0 * i) + np.log(m - i.astype(np.float64))
    ok = np.flatnonzero(gaps > need)
    if ok.size == 0:
        return None
    best = ok[np.argmax(gaps[ok])]
    return -0.5 * (x[best] + x[best + 1])  # light: logc > threshold
