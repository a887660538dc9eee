"""Belief propagation for a planted partition on a released graph.

Messages live on the released edges only (two per edge, ``k`` numbers each);
the non-edges enter through a mean-field external field computed from the
node beliefs, as in Decelle, Krzakala, Moore and Zdeborova (2011). Nothing
``n x n`` is formed. Everything reads the released graph and a starting
partition only, so it is post-processing of the release.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from ..utils import check_adjacency, check_int, check_real
from ..utils._docs import fill_doc

__all__ = ["belief_propagation_communities"]


def _normalise_log(L):
    return np.exp(L - logsumexp(L, axis=1, keepdims=True))


def _bp(A, labels, n_iter=60, n_outer=3, damping=0.5, tol=1e-4):
    """BP on the planted partition fitted to ``A`` (symmetric CSR, 0/1), started from ``labels``."""
    from ._spectral import _fit_block_model

    n = A.shape[0]
    _, lab = np.unique(labels, return_inverse=True)
    k = int(lab.max()) + 1 if n else 0
    if k < 2:
        return lab.astype(np.int64)
    A = sp.csr_array(A, copy=True)
    A.sum_duplicates()
    A.sort_indices()
    indptr, cols = A.indptr, A.indices
    nnz = cols.size
    rows = np.repeat(np.arange(n), np.diff(indptr))
    # Position of the reverse edge (w, u) of every stored edge (u, w): the
    # keys u n + w are increasing in CSR order with sorted indices.
    key = rows.astype(np.int64) * n + cols
    rev = np.searchsorted(key, cols.astype(np.int64) * n + rows)
    # Sums over each node's edges (empty rows included) as one sparse product.
    gather = sp.csr_array((np.ones(nnz), np.arange(nnz), indptr), shape=(n, nnz))
    A = sp.csr_array((np.ones(nnz), cols, indptr), shape=(n, n))
    onehot = np.eye(k)[lab]
    Q = 0.8 * onehot + 0.2 / k
    # M[e] for e = (u, w): the message from w to u; it starts at w's belief.
    M = Q[cols]
    for _ in range(n_outer):
        hard = np.eye(k)[Q.argmax(axis=1)]
        p_in, p_out, _, size = _fit_block_model(A, hard)
        d = p_in - p_out
        log_prior = np.log(np.maximum(size, 1e-12) / n)
        for _ in range(n_iter):
            # Edge term of u in r from neighbour w: log sum_s psi^{w->u}_s P(r, s)
            # (P(r, s) = a_r if r == s, else b).
            T = M * d[None, :]
            T += p_out
            np.log(T, out=T)
            # Non-edge term of w for any u: log sum_s q_w,s (1 - P(r, s)); the
            # field sums it over every node but u and u's neighbours.
            Tn = np.log((1.0 - p_out) - d[None, :] * Q)
            field = Tn.sum(axis=0)[None, :] - Tn - A @ Tn
            log_b = log_prior + field + gather @ T
            Q_new = _normalise_log(log_b)
            # Message u -> w: u's belief without w's edge term, computed at
            # (u, w) then moved to the reverse position (w, u).
            L = log_b[rows]
            L -= T
            del T
            L -= L.max(axis=1, keepdims=True)
            np.exp(L, out=L)
            L /= L.sum(axis=1, keepdims=True)
            M *= damping
            M += (1.0 - damping) * L[rev]
            del L
            Q_new = damping * Q + (1.0 - damping) * Q_new
            delta = np.abs(Q_new - Q).max()
            Q = Q_new
            if delta < tol:
                break
    return np.unique(Q.argmax(axis=1), return_inverse=True)[1].astype(np.int64)


@fill_doc
def belief_propagation_communities(perturbed, labels, *, n_iter=60, n_outer=3, damping=0.5):
    """Refine a partition by belief propagation on a planted-partition model of the released graph.

    Fits a planted-partition model to the released graph ``A'`` (one edge
    density ``a_c`` inside each community ``c``, one density ``b`` between
    communities, community sizes as priors) on the current partition, then
    runs loopy belief propagation (Decelle, Krzakala, Moore and Zdeborova
    2011): a message ``psi^{w->u}`` per released edge and direction, while
    the non-edges, far too many to carry messages, act on every node through
    a mean-field external field built from all node beliefs. Under
    randomized response the released graph is itself a planted partition
    with ``a_c = q (p + (1 - 2p) a_c^true)`` and ``b = q (p + (1 - 2p)
    b^true)``, so fitting on the released graph accounts for the public flip
    probability ``p`` and sample rate ``q`` without being given them. The
    model is refitted ``n_outer`` times on the current hard labels.

    Unlike :func:`refine_communities` (mean-field EM), a node's message to a
    neighbour excludes what it heard from that neighbour, which keeps
    wrongly started nodes from confirming one another; started from the
    k-means labels of the spectral embedding it gains most where the
    communities are hard to see (see ``docs/edge_dp.md``). It reads only the
    released graph and the labels (post-processing: free) and is
    deterministic.

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

    See Also
    --------
    refine_communities : mean-field EM on the same model.
    debiased_spectral_clustering : ``refine="bp"`` runs this on its k-means
        labels.

    {{decelle_references}}

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
    n_iter = check_int(n_iter, "n_iter", 1)
    n_outer = check_int(n_outer, "n_outer", 1)
    damping = check_real(damping, "damping", low=0.0, high=1.0, high_open=True)
    labels = np.asarray(labels)
    if labels.shape != (A.shape[0],):
        raise ValueError(f"labels must have shape ({A.shape[0]},); got {labels.shape}.")
    return _bp(A, labels, n_iter, n_outer, damping)
