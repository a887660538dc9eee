"""Central edge-DP spectral clustering: the noisy power method (Hardt and Price 2014).

A curator who holds the whole graph need not randomise its ``n^2`` bits. The
noisy power method releases ``n x k`` iterates instead: from a public random
orthonormal ``X_0``, each iteration releases ``Y_l = A X_{l-1} + G_l`` with
Gaussian noise and sets ``X_l = orth(Y_l + c_l X_{l-1})``, with ``c_l`` minus
the most negative Rayleigh quotient released so far, or 0 (post-processing:
it damps the pull of large negative eigenvalues). One edge ``{i, j}`` changes
``A X`` in rows ``i`` and ``j`` only, by ``X[j]`` and ``X[i]``: the L2
sensitivity is ``sqrt(||X[i]||^2 + ||X[j]||^2) <= sqrt(2) max_i ||X[i]||``
(:func:`skdpgraph.privacy.edge_product_sensitivity`), computed from the
public previous iterate. Each release is ``rho / L``-zCDP (discrete Gaussian
on a public grid, :func:`skdpgraph.privacy.release_gaussian`), so the ``L``
iterations are ``rho``-zCDP together, hence ``(epsilon, delta)``-DP for
neighbouring graphs that differ in one edge. Clustering the released
``X_L`` is post-processing.

References
----------
.. [1] M. Hardt and E. Price, "The Noisy Power Method: A Meta Algorithm with
   Applications", NeurIPS 2014.
.. [2] M. Bun and T. Steinke, "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds", TCC 2016.
"""

import math
from typing import NamedTuple

import numpy as np

from ..privacy import (
    edge_product_sensitivity,
    noisy_power_budget,
    release_gaussian,
)
from ..utils import check_adjacency, check_dense_memory, check_int, check_random_state
from ._spectral import _check_n_clusters, _kmeans
from ..utils._docs import fill_doc

__all__ = ["NoisyPowerResult", "noisy_power_method"]


class NoisyPowerResult(NamedTuple):
    """Result of :func:`noisy_power_method`.

    Attributes
    ----------
    labels : ndarray of shape (n,), int64, or None
        k-means labels of the row-normalised released embedding (``None``
        when ``cluster=False``).
    embedding : ndarray of shape (n, k)
        The orthonormalised last released iterate ``X_L``.
    eigenvalues : ndarray of shape (k,)
        Rayleigh-quotient estimates ``diag(X_{L-1}^T Y_L)`` computed from the
        releases (post-processing).
    rho : float
        zCDP parameter of the whole release.
    sensitivities : ndarray of shape (n_iter,)
        L2 sensitivity used at each iteration (from the public iterate).
    noise_scales : ndarray of shape (n_iter,)
        Standard-deviation parameter of the discrete Gaussian noise added at
        each iteration, in the units of ``A X``.
    """

    labels: np.ndarray
    embedding: np.ndarray
    eigenvalues: np.ndarray
    rho: float
    sensitivities: np.ndarray
    noise_scales: np.ndarray


def _orth(Y):
    Q, R = np.linalg.qr(Y)
    # Fix the signs so the output is a function of Y alone.
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def check_power_release(n, k, rho_step, rng, n_iter=1):
    """Raise before anything is charged if a step's release cannot be made: an empty
    release at the largest step sensitivity, ``sqrt(2)`` (rows of norm at most 1),
    checks its grid and noise scale; it reads no value and draws nothing. The
    ``(n, k)`` iterates (about six at a time) and the per-iteration records must fit
    in ``max_dense_memory``."""
    check_dense_memory((n, k), 6, f"The noisy power method's ({n}, {k}) iterates",
                       advice="Ask for fewer clusters")
    check_dense_memory((n_iter, 1), 2, f"The records of n_iter={n_iter} iterations",
                       advice="Use fewer iterations (each gets rho / n_iter)")
    release_gaussian(np.zeros(0), math.sqrt(2.0), rho_step, rng, n_values=n * k)


def _noisy_power(A, k, rho_step, n_iter, rng):
    n = A.shape[0]
    X = _orth(rng.standard_normal((n, k)))  # public: independent of the graph
    sens = np.empty(n_iter)
    scales = np.empty(n_iter)
    X_prev = X
    Y = None
    shift = 0.0
    for it in range(n_iter):
        sens[it] = edge_product_sensitivity(X)
        # The default grid depends on the sensitivity and the count only.
        out = release_gaussian((A @ X).ravel(), sens[it], rho_step, rng, full_output=True)
        scales[it] = out.scale * out.grid
        Y = out.values.reshape(n, k)
        # Power iteration converges by magnitude: a large negative eigenvalue (a
        # bipartite-like part of the graph) holds a column for many iterations. Iterating
        # on A + shift I, shift minus the most negative Rayleigh quotient released so far
        # (or 0), damps it (post-processing of the releases).
        shift = max(shift, -float(np.einsum("ij,ij->j", X, Y).min()))
        X_prev, X = X, _orth(Y + shift * X)
    eig = np.einsum("ij,ij->j", X_prev, Y)
    return X, eig, sens, scales


@fill_doc
def noisy_power_method(adjacency, n_components, *, epsilon=1.0, delta=1e-6, rho=None,
                       n_iter=8, cluster=True, n_init=10, random_state=None):
    """Private top eigenvectors of a graph's adjacency by the noisy power method.

    Central edge-DP (Hardt and Price 2014): ``n_iter`` releases of
    ``A X + G`` on ``n x n_components`` iterates, each with discrete Gaussian
    noise calibrated to the L2 sensitivity ``sqrt(r_1^2 + r_2^2) <=
    sqrt(2) max_i ||X[i]||`` of one edge change (``r_1, r_2`` the two largest
    row norms of the public previous iterate) and ``rho / n_iter``-zCDP each.
    The next iterate is ``orth(Y + c X)``, with ``c`` minus the most negative
    Rayleigh quotient released so far, or 0 (post-processing): power
    iteration converges by magnitude, and a large negative eigenvalue (the
    karate club has -4.49 beside 4.98) otherwise holds a column of the
    iterate for many iterations in place of a community's eigenvector.
    The whole release is ``rho``-zCDP, i.e. ``(epsilon, delta)``-DP for
    graphs that differ in one edge when ``rho`` comes from ``(epsilon,
    delta)`` (:func:`skdpgraph.privacy.noisy_power_budget`). The labels (k-means
    on the row-normalised released iterate) are post-processing.

    Time ``O(n_iter (|E| k + n k^2))``, memory ``O(|E| + n k)``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph (see :func:`skdpgraph.utils.check_adjacency`).
    n_components : int
        ``k``, the number of eigenvectors (and of clusters); public.
    epsilon : float > 0, default=1.0
        The ``epsilon`` of the ``(epsilon, delta)`` target (edge-DP).
    delta : float in (0, 1), default=1e-6
        The ``delta`` of the target; ``(epsilon, delta)`` is converted to
        zCDP with :func:`skdpgraph.privacy.approx_dp_to_zcdp`.
    rho : float > 0, default=None
        A zCDP target instead (then ``epsilon`` and ``delta`` are ignored).
    n_iter : int >= 1, default=8
        Number of noisy iterations ``L``; each gets ``rho / L``.
    cluster : bool, default=True
        Also run k-means with ``k`` clusters on the released embedding.
    n_init : int, default=10
        k-means restarts.
    {{random_state}}

    Returns
    -------
    result : NoisyPowerResult

    References
    ----------
    .. [1] M. Hardt and E. Price, "The Noisy Power Method: A Meta Algorithm
       with Applications", NeurIPS 2014, Algorithm 1 and Section 4.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.edge_dp import noisy_power_method
    >>> G = nx.planted_partition_graph(2, 100, 0.5, 0.02, seed=0)
    >>> res = noisy_power_method(G, 2, epsilon=4.0, delta=1e-6, random_state=0)
    >>> res.embedding.shape, round(res.rho, 4)
    ((200, 2), 0.3111)
    """
    A = check_adjacency(adjacency, what="adjacency")
    n = A.shape[0]
    k = _check_n_clusters(check_int(n_components, "n_components", 1), n)
    n_iter = check_int(n_iter, "n_iter", 1)
    n_init = check_int(n_init, "n_init", 1)
    if rho is not None:
        rho_step, rho_total = noisy_power_budget(n_iter, rho=rho)
    else:
        rho_step, rho_total = noisy_power_budget(n_iter, epsilon=epsilon, delta=delta)
    rng = check_random_state(random_state)
    check_power_release(n, k, rho_step, rng, n_iter)
    X, eig, sens, scales = _noisy_power(A, k, rho_step, n_iter, rng)
    labels = None
    if cluster:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        labels = _kmeans(X / np.where(norms > 0, norms, 1.0), k, n_init, rng)
    return NoisyPowerResult(labels, X, eig, rho_total, sens, scales)
