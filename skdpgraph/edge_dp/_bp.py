"""Belief propagation for a block model of a released graph.

The model is either a degree-corrected block model seen through the public
randomized-response channel, or a planted partition fitted to the released
graph directly.
Messages live on the released edges only (two per edge, ``k`` numbers each);
the non-edges enter through a mean-field external field computed from the
node beliefs, as in Decelle, Krzakala, Moore and Zdeborova (2011). Nothing
``n x n`` is formed. Everything reads the released graph and a starting
partition only, so it is post-processing of the release.
"""

import numpy as np
import scipy.sparse as sp

from ..utils import check_adjacency, check_dense_memory, check_int, check_real
from ..utils._docs import fill_doc
from ._flip import _check_flip_probability, _check_sample_rate

__all__ = ["belief_propagation_communities"]


def _fit_degree_corrected(A, lab, k, p, q):
    """Degree-corrected block model of the private graph seen through the flip channel.

    The released pair ``(u, w)`` is an edge with probability
    ``q (p + (1 - 2p) theta_u theta_w omega_rs)``; ``omega`` has one value
    ``omega_c`` inside each community and one ``omega_out`` between them.
    ``theta_u`` is estimated from ``u``'s released edges inside its own
    community only: there the flip noise is ``p`` times the community's
    size instead of ``p n``. The raw estimate is shrunk towards 1 by its
    noise (empirical Bayes, the spread of ``theta`` fitted by moments).
    """
    n = A.shape[0]
    onehot = np.zeros((n, k))
    onehot[np.arange(n), lab] = 1.0
    size = onehot.sum(axis=0)
    own = np.asarray(A @ onehot)[np.arange(n), lab]
    pairs = size * (size - 1.0) / 2.0
    within = np.bincount(lab, weights=own, minlength=k) / 2.0
    omega = (within / np.maximum(pairs, 1.0) / q - p) / (1.0 - 2.0 * p)
    out_pairs = max(n * (n - 1.0) / 2.0 - pairs.sum(), 1.0)
    omega_out = ((A.nnz / 2.0 - within.sum()) / out_pairs / q - p) / (1.0 - 2.0 * p)
    omega_out = float(np.clip(omega_out, 1e-9, 1.0))
    omega = np.maximum(omega, omega_out * (1.0 + 1e-6))
    # Expected own-community edges of a node with theta = 1, the flip noise
    # in them, and their variance.
    signal = q * (1.0 - 2.0 * p) * omega[lab] * np.maximum(size[lab] - 1.0, 0.0)
    excess = own - q * p * (size[lab] - 1.0)
    noise = q * p * (1.0 - q * p) * (size[lab] - 1.0) + signal
    spread = ((excess - signal) ** 2 - noise).sum() / max((signal ** 2).sum(), 1e-300)
    spread = min(max(spread, 0.05), 4.0)
    # A node alone in its community has no signal and keeps theta = 1.
    gain = spread * signal / np.maximum(spread * signal ** 2 + noise, 1e-300)
    theta = 1.0 + gain * (excess - signal)
    theta = np.maximum(theta, 0.1)
    mean = np.bincount(lab, weights=theta, minlength=k) / np.maximum(size, 1.0)
    theta /= mean[lab]
    return theta, omega, omega_out, size


def _edge_index(A):
    """CSR pieces of ``A`` (symmetric, 0/1) and the position of each stored edge's reverse."""
    A = sp.csr_array(A, copy=True)
    A.sum_duplicates()
    A.sort_indices()
    n = A.shape[0]
    indptr, cols = A.indptr, A.indices
    nnz = cols.size
    rows = np.repeat(np.arange(n), np.diff(indptr))
    # The keys u n + w are increasing in CSR order with sorted indices.
    key = rows.astype(np.int64) * n + cols
    rev = np.searchsorted(key, cols.astype(np.int64) * n + rows)
    A = sp.csr_array((np.ones(nnz), cols, indptr), shape=(n, n))
    return A, rows, cols, rev


def _bp(A, labels, n_iter=60, n_outer=3, damping=0.5, tol=1e-4, *, p=0.0, q=1.0,
        degree_corrected=True):
    """BP on a block model fitted to ``A`` (symmetric CSR, 0/1), started from ``labels``."""
    from ._spectral import _fit_block_model

    n = A.shape[0]
    _, lab = np.unique(labels, return_inverse=True)
    k = int(lab.max()) + 1 if n else 0
    if k < 2:
        return lab.astype(np.int64)
    # The messages and the edge terms: two (|E'|, k) arrays.
    check_dense_memory((A.nnz, k), 2, f"Belief propagation with {k} labels on {A.nnz} "
                       "stored released edges", advice="Use the likelihood refinement "
                       "(refine='likelihood', or refine_communities)")
    from ._bp_kernels import edge_terms, update_messages  # numba: compiled on first use

    A, rows, cols, rev = _edge_index(A)
    Q = 0.8 * np.eye(k)[lab] + 0.2 / k
    # M[e] for e = (u, w): the message from w to u; it starts at w's belief.
    M = Q[cols]
    T = np.empty_like(M)
    sums = np.empty((n, k))
    for _ in range(n_outer):
        hard = Q.argmax(axis=1)
        if degree_corrected:
            theta, omega, omega_out, size = _fit_degree_corrected(A, hard, k, p, q)
            d = omega - omega_out
            pair = (q * (1.0 - 2.0 * p)) * (theta[rows] * theta[cols])
            # Edge factor of u in r from neighbour w: sum_s psi^{w->u}_s P(r, s),
            # P(r, s) = q p + pair (omega_out + [r = s] d_r).
            base, noise, ceiling = omega_out, q * p, 1.0 - 1e-12
            # Non-edges as a Poisson term, linear in the beliefs:
            # log(1 - x) ~ -x for the private part x of a pair's probability.
            scale = q * (1.0 - 2.0 * p) / (1.0 - q * p)
        else:
            p_in, p_out, _, size = _fit_block_model(A, np.eye(k)[hard])
            d = p_in - p_out
            pair, base, noise, ceiling = np.ones(rows.size), p_out, 0.0, np.inf
        d = np.ascontiguousarray(d, dtype=np.float64)
        log_prior = np.log(np.maximum(size, 1e-12) / n)
        for _ in range(n_iter):
            edge_terms(A.indptr, M, d, pair, float(base), float(noise), float(ceiling), T, sums)
            if degree_corrected:
                # Field on u in r from all nodes but u and u's neighbours.
                Qt = Q * theta[:, None]
                field = (-scale * theta[:, None] * d[None, :]
                         * (Qt.sum(axis=0)[None, :] - Qt - A @ Qt))
            else:
                # Non-edge term of w for any u: log sum_s q_w,s (1 - P(r, s)).
                Tn = np.log((1.0 - p_out) - d[None, :] * Q)
                field = Tn.sum(axis=0)[None, :] - Tn - A @ Tn
            log_b = log_prior + field + sums
            # Normalised in place (scipy's logsumexp costs more than a sweep
            # on small graphs).
            top = log_b.max(axis=1, keepdims=True)
            top[~np.isfinite(top)] = 0.0
            log_b -= top
            log_b -= np.log(np.exp(log_b).sum(axis=1, keepdims=True))
            Q_new = np.exp(log_b)
            # Message u -> w: u's belief without w's edge factor. The largest
            # belief is at least 1 / k and the factors at most 1, so the
            # messages cannot all underflow.
            update_messages(A.indptr, rev, Q_new, T, float(damping), M)
            Q_new = damping * Q + (1.0 - damping) * Q_new
            delta = np.abs(Q_new - Q).max()
            Q = Q_new
            if delta < tol:
                break
    return np.unique(Q.argmax(axis=1), return_inverse=True)[1].astype(np.int64)


@fill_doc
def belief_propagation_communities(perturbed, labels, *, flip_probability=0.0, sample_rate=1.0,
                                   degree_corrected=True, n_iter=60, n_outer=3, damping=0.5):
    """Refine a partition by belief propagation on a block model of the released graph.

    Fits a block model to the released graph ``A'`` on the current
    partition (one edge density ``omega_c`` inside each community ``c``,
    one ``omega_out`` between communities, community sizes as priors), then
    runs loopy belief propagation (Decelle, Krzakala, Moore and Zdeborova
    2011): a message ``psi^{w->u}`` per released edge and direction, while
    the non-edges, far too many to carry messages, act on every node through
    a mean-field external field built from all node beliefs. The model is
    refitted ``n_outer`` times on the current hard labels.

    With ``degree_corrected=True`` (Karrer and Newman 2011) the private
    graph has an edge ``(u, w)`` with probability ``theta_u theta_w
    omega_rs``, seen through the randomized-response channel: the released
    pair is an edge with probability ``q (p + (1 - 2p) theta_u theta_w
    omega_rs)``, with the public flip probability ``p`` and sample rate
    ``q``. A released edge between two high-degree nodes is then likely a
    private edge and one at a low-degree node likely noise. ``theta_u`` is
    estimated from ``u``'s released edges inside its own community only
    (there the flip noise is ``p`` times the community's size, not ``p
    n``), shrunk towards 1 by its noise; the non-edges enter as a Poisson
    term. With ``degree_corrected=False`` the model is the planted partition
    fitted to the released graph directly (under randomized response the
    released graph is itself one, so ``p`` and ``q`` are not used).

    Unlike :func:`refine_communities` (mean-field EM), a node's message to a
    neighbour excludes what it heard from that neighbour, which keeps
    wrongly started nodes from confirming one another; it gains most where
    the communities are hard to see (see ``docs/edge_dp.md``). It reads only
    the released graph, public parameters and the labels (post-processing:
    free) and is deterministic.

    Time ``O((|E'| + n) k)`` per iteration, memory ``O(|E'| k)`` (a few
    arrays of ``k`` floats per directed released edge); nothing ``n x n`` is
    formed.

    Parameters
    ----------
    perturbed : array-like, sparse matrix or networkx.Graph
        Released graph (see :func:`skdpgraph.utils.check_adjacency`).
    labels : array-like of shape (n,)
        Initial partition (any hashable labels), e.g. the spectral k-means
        labels.
    flip_probability : float in [0, 1/2), default=0.0
        Public flip probability ``p`` of the randomized response that
        released the graph (``0``: the graph is used as it is).
    sample_rate : float in (0, 1], default=1.0
        Public probability ``q`` with which released pairs were kept.
    degree_corrected : bool, default=True
        Degree-corrected block model through the flip channel, or the
        planted partition fitted to the released graph.
    n_iter : int >= 1, default=60
        Maximum number of message-passing sweeps per model fit (each fit
        stops earlier once the beliefs move by less than ``1e-4``).
    n_outer : int >= 1, default=3
        Number of model fits.
    damping : float in [0, 1), default=0.5
        Weight of the old messages and beliefs in each update.

    Returns
    -------
    labels : ndarray of shape (n,), int64
        The community of largest belief of each node, numbered
        ``0..k'-1`` (``k' <= k``).

    Raises
    ------
    skdpgraph.exceptions.DenseMemoryError
        Before allocating, when the messages and edge factors (two
        ``(|E'|, k)`` float arrays) would exceed
        ``skdpgraph.utils.get_config()["max_dense_memory"]``.

    See Also
    --------
    refine_communities : mean-field EM of a planted partition.
    debiased_spectral_clustering : ``refine="bp"`` runs this from 6
        k-means partitions into ``2k`` clusters and combines them.

    References
    ----------
    .. [1] {{decelle}}
    .. [2] {{karrer_newman}}

    Examples
    --------
    Two cliques of 10 nodes joined by one edge, node 9 starting in the wrong
    community:

    >>> import numpy as np
    >>> from skdpgraph.edge_dp import belief_propagation_communities
    >>> A = np.kron(np.eye(2), np.ones((10, 10))) - np.eye(20)
    >>> A[0, 10] = A[10, 0] = 1
    >>> start = [0] * 9 + [1] * 11
    >>> belief_propagation_communities(A, start).tolist() == [0] * 10 + [1] * 10
    True
    """
    A = check_adjacency(perturbed, what="perturbed")
    p = _check_flip_probability(flip_probability)
    q = _check_sample_rate(sample_rate)
    if not isinstance(degree_corrected, (bool, np.bool_)):
        raise TypeError(f"degree_corrected must be a bool; got {degree_corrected!r}.")
    n_iter = check_int(n_iter, "n_iter", 1)
    n_outer = check_int(n_outer, "n_outer", 1)
    damping = check_real(damping, "damping", low=0.0, high=1.0, high_open=True)
    labels = np.asarray(labels)
    if labels.shape != (A.shape[0],):
        raise ValueError(f"labels must have shape ({A.shape[0]},); got {labels.shape}.")
    return _bp(A, labels, n_iter, n_outer, damping, p=p, q=q,
               degree_corrected=bool(degree_corrected))
