"""Community detection on a randomized-response graph that uses the public flip probability.

Randomized response (edge flipping with flip probability ``p``, optionally
followed by independent subsampling of the released pairs with probability
``q``) releases a graph ``A'`` whose expectation is known up to the private
adjacency ``A``:

    E[A'] = q ((1 - 2p) A + p (J - I)),

so ``M = (A' / q - p (J - I)) / (1 - 2p)`` is an unbiased estimate of ``A``
(Hehir, Slavkovic and Niu 2022). ``M`` is dense, but it is a sparse matrix
minus a rank-one term plus a multiple of the identity: products ``M X`` cost
``O(|E'| k + n k)`` and the top eigenvectors come from ``eigsh`` on a
:class:`scipy.sparse.linalg.LinearOperator`; nothing ``n x n`` is formed.

Everything here reads the released graph and public parameters only, so it
is post-processing: the labels keep the release's guarantee.

References
----------
.. [1] J. Hehir, A. Slavkovic and X. Niu, "Consistent spectral clustering of
   network block models under local differential privacy", Journal of
   Privacy and Confidentiality 12(2), 2022.
.. [2] T. Qin and K. Rohe, "Regularized spectral clustering under the
   degree-corrected stochastic blockmodel", NeurIPS 2013.
"""

import math
from numbers import Integral
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from scipy.special import softmax
from sklearn.cluster import KMeans

from ..utils import check_adjacency, check_int, check_random_state, check_real, get_config
from ..utils._docs import fill_doc
from ._bp import _bp
from ._flip import _check_flip_probability, _check_sample_rate

__all__ = [
    "DebiasedSpectralResult",
    "debiased_adjacency",
    "debiased_spectral_clustering",
    "refine_communities",
]

# Below this many nodes the operator is applied to the identity and solved
# densely (ARPACK needs k < n - 1; the cost is negligible at this size).
_DENSE_MAX_NODES = 64


class DebiasedSpectralResult(NamedTuple):
    """Result of :func:`debiased_spectral_clustering`.

    Attributes
    ----------
    labels : ndarray of shape (n,), int64
        Community of each node, ``0..n_clusters-1``.
    n_clusters : int
        Number of communities in ``labels`` (refinement can empty a
        community, so it may be below the number asked for).
    spectral_labels : ndarray of shape (n,), int64
        k-means labels of the embedding, before refinement.
    embedding : ndarray of shape (n, k)
        Top eigenvectors of the (regularised) debiased operator.
    eigenvalues : ndarray of shape (m,)
        Largest eigenvalues of the debiased adjacency, decreasing (``m >=
        k``; with ``n_clusters="auto"``, every one computed).
    bulk_edge : float
        Estimated edge of the noise bulk of the debiased adjacency,
        ``2 sqrt(n r (1 - r)) / (q (1 - 2p))`` with ``r`` the released
        density; ``n_clusters="auto"`` counts the eigenvalues above it.
    """

    labels: np.ndarray
    n_clusters: int
    spectral_labels: np.ndarray
    embedding: np.ndarray
    eigenvalues: np.ndarray
    bulk_edge: float


def _operator(A, p, q, scale=None):
    """``D M D`` as a LinearOperator, ``M = (A/q - p (J - I)) / (1 - 2p)``, ``D = diag(scale)``."""
    n = A.shape[0]
    c = 1.0 - 2.0 * p
    if not math.isfinite(1.0 / q):
        raise ValueError(
            f"sample_rate={q!r} is too small to debias in floating point (1 / sample_rate "
            "overflows)."
        )

    def matmat(X):
        X = np.asarray(X, dtype=np.float64)
        flat = X.ndim == 1
        X = X.reshape(n, -1)
        if scale is not None:
            X = X * scale[:, None]
        Y = (A @ X) / q
        Y -= p * X.sum(axis=0, keepdims=True)
        Y += p * X
        Y /= c
        if scale is not None:
            Y *= scale[:, None]
        return Y.ravel() if flat else Y

    return LinearOperator((n, n), matvec=matmat, matmat=matmat, rmatvec=matmat,
                          rmatmat=matmat, dtype=np.float64)


def debiased_adjacency(perturbed, flip_probability, *, sample_rate=1.0):
    """The debiased adjacency ``(A'/q - p (J - I)) / (1 - 2p)`` as a LinearOperator.

    Its expectation over the randomized response is the private adjacency
    ``A`` (Hehir, Slavkovic and Niu 2022). Products cost ``O(|E'| k + n k)``;
    the dense ``n x n`` matrix is never formed.

    Parameters
    ----------
    perturbed : array-like, sparse matrix or networkx.Graph
        The released graph ``A'`` (see :func:`skdpgraph.utils.check_adjacency`).
    flip_probability : float in [0, 1/2)
        ``p``, public: each bit was flipped with this probability (``s / 2``
        of edge flipping, ``1 / (1 + e^epsilon)`` at ``epsilon``).
    sample_rate : float in (0, 1], default=1.0
        ``q``, public: the probability with which each released pair was
        kept after flipping.

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.edge_dp import debiased_adjacency
    >>> M = debiased_adjacency(np.array([[0, 1], [1, 0]]), 0.25)
    >>> M @ np.eye(2)
    array([[0. , 1.5],
           [1.5, 0. ]])
    """
    p = _check_flip_probability(flip_probability)
    q = _check_sample_rate(sample_rate)
    A = check_adjacency(perturbed, what="perturbed")
    return _operator(A, p, q)


# ARPACK's restarts are capped so that a spectrum whose top eigenvalues cluster
# (a path, a cycle or a grid, where they are ~10/n^2 apart, or many nearly equal
# eigenvalues of small trees) cannot hold a fit for minutes. A restart costs about
# n ncv^2 operations (the basis rotation and reorthogonalisation; ncv = max(2m + 1,
# 20) Lanczos vectors): at most _ARPACK_WORK of them, and between
# _ARPACK_MIN_RESTARTS and _ARPACK_MAX_RESTARTS restarts. The releases measured in
# docs/edge_dp.md took at most 24 restarts (the 10,000-node block model at epsilon
# 2, whose cap is 100) and 9 on the 10,000-node LFR graph with k = 184 (cap 15), so
# the cap does not touch them.
_ARPACK_WORK = 2e9
_ARPACK_MIN_RESTARTS = 15
_ARPACK_MAX_RESTARTS = 100
# The block Krylov fallback: blocks of m + _KRYLOV_EXTRA vectors, at most
# _KRYLOV_DEPTH products per block, and its basis and their images (two arrays of
# the basis's size; one block at least, of m + 8 columns) within _KRYLOV_MEMORY bytes.
_KRYLOV_EXTRA = 8
_KRYLOV_DEPTH = 12
_KRYLOV_MEMORY = 2**30


def _arpack_restarts(n, m):
    """ARPACK's restart cap for ``m`` eigenpairs of an ``n``-node operator (its default ``ncv``)."""
    ncv = min(n, max(2 * m + 1, 20))
    return int(np.clip(_ARPACK_WORK / (n * ncv * ncv), _ARPACK_MIN_RESTARTS,
                       _ARPACK_MAX_RESTARTS))


def _orthonormal(W, floor):
    """An orthonormal basis of the columns of ``W`` without its directions of
    weight below ``floor`` (Gram-matrix orthonormalisation: matrix products only,
    faster than Householder QR on tall blocks)."""
    s, U = eigh(W.T @ W)
    keep = s > floor * floor
    return (W @ U[:, keep]) / np.sqrt(s[keep])


def _block_krylov_eigs(op, m, rng, start=None):
    """Approximate largest ``m`` eigenpairs from a block Krylov space of fixed size.

    Rayleigh-Ritz on ``[X, M X, ..., M^d X]`` (each block orthogonalised twice
    against the earlier ones) from a random block ``X`` of ``m + 8`` vectors
    whose first columns are ``start`` (eigenvectors already converged), with
    ``d <= 12`` as deep as keeps the basis and its images within about 1 GiB
    (but ``d >= 1``: past 1.4 million nodes for ``m = 16`` they take more).
    It cannot fail and its cost is
    fixed: ``(d + 1) (m + 8)`` products and ``O(n ((d + 1) (m + 8))^2)``
    arithmetic. A block method finds repeated eigenvalues that single-vector
    Lanczos needs many restarts for, and where eigenvalues cluster it returns
    vectors of the cluster's span, which is what clustering can use of it.
    """
    n = op.shape[0]
    b = min(m + _KRYLOV_EXTRA, n)
    depth = int(min(_KRYLOV_DEPTH, max(1, _KRYLOV_MEMORY // (16 * n * b) - 1)))
    X = rng.standard_normal((n, b))
    if start is not None and start.shape[1]:
        X[:, :min(start.shape[1], b)] = start[:, :b]
    blocks, images = [_orthonormal(_orthonormal(X, 1e-8), 0.5)], []
    for j in range(depth + 1):
        W = np.asarray(op @ blocks[-1])
        images.append(W)
        if j == depth or sum(B.shape[1] for B in blocks) >= n:
            break
        # Orthogonalised against the basis and orthonormalised, twice: what is
        # left below 1e-8 of the image, then below half of a unit vector, is
        # rounding (the space is invariant in those directions).
        floor = 1e-8 * max(np.linalg.norm(W, axis=0).max(initial=0.0), 1e-300)
        for f in (floor, 0.5):
            for B in blocks:
                W = W - B @ (B.T @ W)
            W = _orthonormal(W, f)
        if not W.shape[1]:
            break  # the space is invariant: its Ritz pairs are exact
        blocks.append(W)
    # Block by block: no copy of the basis or of its images is made.
    ends = np.cumsum([0] + [B.shape[1] for B in blocks])
    H = np.empty((ends[-1], ends[-1]))
    for i, B in enumerate(blocks):
        for j, W in enumerate(images):
            H[ends[i]:ends[i + 1], ends[j]:ends[j + 1]] = B.T @ W
    del images
    H = (H + H.T) / 2.0
    w, U = eigh(H)
    w, U = w[::-1][:m], U[:, ::-1][:, :m]
    vectors = np.zeros((n, U.shape[1]))
    for i, B in enumerate(blocks):
        vectors += B @ U[ends[i]:ends[i + 1]]
    return w, vectors


def _top_eigs(op, m, rng):
    """Largest ``m`` eigenpairs (decreasing) of a symmetric operator.

    ARPACK (``eigsh``, tolerance ``1e-8``) with its restarts capped (about
    ``2e9 / (n ncv^2)``, between 15 and 100); where it does not converge
    within the cap, its converged pairs start a fixed-size block Krylov
    Rayleigh-Ritz (:func:`_block_krylov_eigs`): approximate top vectors
    where the spectrum clusters, at a bounded cost.
    """
    n = op.shape[0]
    if n <= _DENSE_MAX_NODES or m >= n - 1:
        if n > _DENSE_MAX_NODES:
            raise ValueError(
                f"{m} eigenvectors of a {n}-node graph: at most {n - 2} can be "
                "computed without forming the dense matrix."
            )
        vals, vecs = eigh(op @ np.eye(n))
        vals, vecs = vals[::-1][:m], vecs[:, ::-1][:, :m]
        return vals, vecs
    v0 = rng.standard_normal(n)
    if not np.any(op @ v0):
        # The zero operator (no edge, and no flip to debias): every vector is an
        # eigenvector of eigenvalue 0, where ARPACK would stop at a zero Krylov vector.
        return np.zeros(m), np.eye(n, m)
    try:
        vals, vecs = eigsh(op, k=m, which="LA", v0=v0, tol=1e-8,
                           maxiter=_arpack_restarts(n, m))
    except ArpackNoConvergence as exc:
        vals, vecs = _block_krylov_eigs(op, m, rng, exc.eigenvectors)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order]


# Null releases drawn to place the noise edge of a small release.
_NULL_DRAWS = 200


def _bulk_edge(A, p, q, rng=None):
    """Edge of the noise bulk of the debiased adjacency of a release without communities.

    Above ``_DENSE_MAX_NODES`` nodes: the semicircle edge ``2 sqrt(n r (1 - r)) / (q
    (1 - 2p))`` of a release of density ``r``. On smaller graphs that edge is too
    high (the second eigenvalue of a 32-node Erdos-Renyi graph lies well below it),
    so it is the mean plus three standard deviations of the second eigenvalue over
    null releases: Chung-Lu graphs (no communities) whose expected degrees are the
    released ones. It reads public quantities and the post-processing randomness
    only.
    """
    n = A.shape[0]
    r = A.nnz / (n * (n - 1.0))
    if n > _DENSE_MAX_NODES or rng is None:
        return 2.0 * np.sqrt(n * r * (1.0 - r)) / (q * (1.0 - 2.0 * p))
    degree = np.asarray(A.sum(axis=1)).ravel()
    P = np.minimum(np.outer(degree, degree) / max(degree.sum(), 1.0), 1.0)
    np.fill_diagonal(P, 0.0)
    for _ in range(20):  # match the expected degrees despite the missing diagonal
        expected = P.sum(axis=1)
        fix = np.where(expected > 0, degree / np.maximum(expected, 1e-12), 1.0)
        P = np.minimum(P * np.sqrt(np.outer(fix, fix)), 1.0)
    iu = np.triu_indices(n, 1)
    J = np.ones((n, n)) - np.eye(n)
    # All null releases at once (n <= _DENSE_MAX_NODES: at most 6.6 MB), the
    # same draws in the same order as one release at a time.
    B = np.zeros((_NULL_DRAWS, n, n))
    B[:, iu[0], iu[1]] = rng.random((_NULL_DRAWS, iu[0].size)) < P[iu]
    B += B.transpose(0, 2, 1)
    second = np.linalg.eigvalsh((B / q - p * J) / (1.0 - 2.0 * p))[:, -2]
    return float(second.mean() + 3.0 * second.std())


def _fit_block_model(A, Q):
    """Planted-partition fit: within-community densities, background density."""
    n = A.shape[0]
    size = Q.sum(axis=0)
    AQ = np.asarray(A @ Q)
    within = np.einsum("ij,ij->j", Q, AQ) / 2.0
    pairs = (size * size - np.einsum("ij,ij->j", Q, Q)) / 2.0
    p_in = within / np.maximum(pairs, 1e-300)
    out_pairs = n * (n - 1) / 2.0 - pairs.sum()
    p_out = (A.nnz / 2.0 - within.sum()) / max(out_pairs, 1.0)
    p_out = float(np.clip(p_out, 1e-12, 1.0 - 1e-9))
    p_in = np.clip(p_in, p_out * (1.0 + 1e-6), 1.0 - 1e-9)
    return p_in, p_out, AQ, size


def _refine(A, labels, n_iter, damping=0.5, tol=1e-4):
    """Mean-field EM for a planted partition on the released graph."""
    n = A.shape[0]
    _, lab = np.unique(labels, return_inverse=True)
    k = int(lab.max()) + 1
    if k < 2:
        return lab.astype(np.int64)
    Q = np.zeros((n, k))
    Q[np.arange(n), lab] = 1.0
    for _ in range(n_iter):
        p_in, p_out, AQ, size = _fit_block_model(A, Q)
        # log-likelihood of v in c: edges to c weigh log(p_in/p_out), non-edges
        # log((1-p_in)/(1-p_out)); the rest does not depend on c.
        w_non = np.log1p(-p_in) - np.log1p(-p_out)
        w_edge = np.log(p_in) - np.log(p_out) - w_non
        S = AQ * w_edge + (size[None, :] - Q) * w_non + np.log(np.maximum(size, 1e-12) / n)
        new = damping * Q + (1.0 - damping) * softmax(S, axis=1)
        delta = np.abs(new - Q).max()
        Q = new
        if delta < tol:
            break
    return np.unique(Q.argmax(axis=1), return_inverse=True)[1].astype(np.int64)


def refine_communities(perturbed, labels, *, n_iter=30):
    """Refine a partition by maximising a block-model likelihood of the released graph.

    Fits a planted-partition model to the released graph ``A'`` (one edge
    density inside each community, one between communities) and updates soft
    memberships by mean-field EM: node ``v``'s score for community ``c`` is
    its log-likelihood there, ``e'(v, c) log(a_c / b) + (|c| - e'(v, c))
    log((1 - a_c) / (1 - b))`` plus ``log(|c| / n)``, where ``e'(v, c)`` is
    its number of released edges into ``c``. Under randomized response
    ``a_c = p + (1 - 2p) a_c^true`` (times ``q``), so this is a debiased,
    size-aware form of "join the community with the most edges"; the model
    is fitted on the released graph, so ``p`` and ``q`` need not be given.
    It reads only the released graph and the labels (post-processing: free).

    Cost per iteration ``O(|E'| k + n k)``; memory ``O(n k)``.

    Parameters
    ----------
    perturbed : array-like, sparse matrix or networkx.Graph
        Released graph.
    labels : array-like of shape (n,)
        Initial partition (any hashable labels).
    n_iter : int >= 0, default=30
        Maximum number of EM iterations (it stops earlier once the
        memberships move by less than ``1e-4``).

    Returns
    -------
    labels : ndarray of shape (n,), int64
        Refined partition, numbered ``0..k'-1`` (``k' <= k``).

    References
    ----------
    .. [1] P. W. Holland, K. B. Laskey and S. Leinhardt, "Stochastic
       blockmodels: first steps", Social Networks 5, 1983.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.edge_dp import refine_communities
    >>> G = nx.planted_partition_graph(2, 10, 0.9, 0.05, seed=1)
    >>> refine_communities(G, [0] * 9 + [1] * 11).tolist() == [0] * 10 + [1] * 10
    True
    """
    A = check_adjacency(perturbed, what="perturbed")
    n_iter = check_int(n_iter, "n_iter", 0)
    labels = np.asarray(labels)
    if labels.shape != (A.shape[0],):
        raise ValueError(f"labels must have shape ({A.shape[0]},); got {labels.shape}.")
    return _refine(A, labels, n_iter)


def _check_n_clusters(n_clusters, n):
    if isinstance(n_clusters, str):
        if n_clusters != "auto":
            raise ValueError(
                f"n_clusters must be a positive integer or 'auto'; got {n_clusters!r}.")
        return "auto"
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, Integral):
        raise TypeError(f"n_clusters must be a positive integer or 'auto'; got {n_clusters!r}.")
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters={n_clusters} must be in [1, n_nodes={n}].")
    return int(n_clusters)


def _check_regularization(regularization):
    if regularization is None or regularization == "auto":
        return regularization
    if isinstance(regularization, str):
        raise ValueError(
            f"regularization must be None, 'auto' or a float >= 0; got {regularization!r}.")
    return check_real(regularization, "regularization", low=0.0)


_REFINE_OPTIONS = ("auto", "likelihood", "bp")
# ``refine="auto"`` runs belief propagation while its messages (2k floats per
# stored released edge, a few arrays of them) stay below this many numbers,
# and the likelihood refinement above.
_BP_MAX_MESSAGES = 4e6
# Belief propagation starts: k-means runs over 2k clusters of the embedding.
_BP_STARTS = 6


def _check_refine(refine):
    """``refine`` as ``"auto"``, ``"likelihood"``, ``"bp"`` or ``None`` (no refinement)."""
    if isinstance(refine, (bool, np.bool_)):
        return "auto" if refine else None
    if isinstance(refine, str) and refine in _REFINE_OPTIONS:
        return refine
    raise ValueError(
        f"refine must be True, False, 'auto', 'likelihood' or 'bp'; got {refine!r}."
    )


def _consensus(runs):
    """Majority label of each node after matching every run's labels to the first run's."""
    ref = np.unique(runs[0], return_inverse=True)[1]
    k = int(ref.max()) + 1
    n = ref.size
    votes = np.zeros((n, k))
    votes[np.arange(n), ref] = 1.0
    for run in runs[1:]:
        lab = np.unique(run, return_inverse=True)[1]
        table = np.zeros((int(lab.max()) + 1, k))
        np.add.at(table, (lab, ref), 1.0)
        r, c = linear_sum_assignment(table, maximize=True)
        match = np.full(table.shape[0], -1)
        match[r] = c
        hit = match[lab] >= 0
        votes[np.flatnonzero(hit), match[lab[hit]]] += 1.0
    return votes.argmax(axis=1)


def _block_loglik(e, N):
    """Bernoulli log-likelihood of blocks with ``e`` edges among ``N`` pairs, at their MLE."""
    e = np.asarray(e, dtype=float)
    N = np.asarray(N, dtype=float)
    rho = e / np.maximum(N, 1.0)
    out = np.zeros_like(rho)
    inside = (rho > 0) & (rho < 1)
    r = rho[inside]
    out[inside] = N[inside] * (r * np.log(r) + (1.0 - r) * np.log1p(-r))
    return out


def _block_counts(A, labels, m):
    """Edges inside each label (diagonal) and between each pair of labels (off-diagonal)."""
    n = labels.size
    Z = sp.csr_array((np.ones(n), (np.arange(n), labels)), shape=(n, m))
    E = (Z.T @ A @ Z).toarray()
    np.fill_diagonal(E, np.diag(E) / 2.0)
    return E


def _merge_blocks(E, size, k):
    """Merge labels pairwise until at most ``k`` remain, each time the pair
    whose merge costs the least block-model log-likelihood (one Bernoulli
    density per block of label pairs).

    ``E`` holds the edge counts between labels (edges inside a label on the
    diagonal) and ``size`` the label sizes; returns the new label of each
    old one, numbered ``0..k'-1``.
    """
    E = np.array(E, dtype=float)
    size = np.asarray(size, dtype=float).copy()
    m = size.size
    groups = np.arange(m)
    while size.size > k:
        m = size.size
        N = np.outer(size, size)
        np.fill_diagonal(N, size * (size - 1.0) / 2.0)
        L = _block_loglik(E, N)
        # Merging a and b joins blocks (a, a), (b, b), (a, b) into one, and
        # (a, c) with (b, c) for every other c.
        gain = (_block_loglik(np.diag(E)[:, None] + np.diag(E)[None, :] + E,
                              np.diag(N)[:, None] + np.diag(N)[None, :] + N)
                - np.diag(L)[:, None] - np.diag(L)[None, :] - L)
        idx = np.arange(m)
        for a in range(m):
            cross = _block_loglik(E[a] + E, N[a] + N) - L[a] - L
            cross[:, a] = 0.0
            cross[idx, idx] = 0.0
            gain[a] += cross.sum(axis=1)
        np.fill_diagonal(gain, -np.inf)
        a, b = sorted(np.unravel_index(np.argmax(gain), gain.shape))
        # Row and column b join a; then b is removed.
        inside = E[a, a] + E[b, b] + E[a, b]
        E[a] += E[b]
        E[:, a] += E[:, b]
        E[a, a] = inside
        keep = np.arange(m) != b
        E = E[np.ix_(keep, keep)]
        size[a] += size[b]
        size = size[keep]
        groups = np.where(groups == b, a, groups)
        groups = np.where(groups > b, groups - 1, groups)
    return groups


def _merge_to(A, labels, k):
    """Merge ``labels`` down to at most ``k`` by :func:`_merge_blocks` on their block counts."""
    _, lab = np.unique(labels, return_inverse=True)
    m = int(lab.max()) + 1
    if m <= k:
        return lab
    size = np.bincount(lab, minlength=m)
    return _merge_blocks(_block_counts(A, lab, m), size, k)[lab]


def _bp_refine(A, X, k, p, q, n_init, rng):
    """Degree-corrected BP from over-segmented k-means starts, combined by consensus.

    BP empties the labels it does not need, so starting from ``2k`` clusters
    lets a community that k-means split or merged find a label of its own;
    the runs are matched and voted, merged back to at most ``k`` labels, and
    BP runs once more from the vote.
    """
    n = A.shape[0]
    # 2k clusters, at most k + 24 so that the merges back to k stay cheap.
    starts = min(2 * k, k + 24, n)
    runs = [_bp(A, _kmeans(X, starts, n_init if i == 0 else 1, rng), n_iter=30, n_outer=2, p=p, q=q)
            for i in range(_BP_STARTS)]
    vote = _merge_to(A, _consensus(runs), k)
    return _bp(A, vote, p=p, q=q)


def _kmeans(X, k, n_init, rng):
    if k == 1:
        return np.zeros(X.shape[0], dtype=np.int64)
    seed = int(rng.integers(2**31 - 1))
    km = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(X)
    return km.labels_.astype(np.int64)


def _resolve_refine(refine, A, k, signal):
    """``refine="auto"``: belief propagation where the release shows signal and its messages fit.

    The signal is public: the number of eigenvalues of the debiased
    adjacency above the noise edge. With at most one (the trivial one) the
    release shows no community to the spectrum, and belief propagation,
    which costs seconds there, found none in the
    measurements (``docs/edge_dp.md``): the likelihood EM runs instead.
    """
    if refine != "auto":
        return refine
    messages = A.nnz * 2.0 * k
    fits = 8.0 * 2 * messages <= get_config()["max_dense_memory"]
    return "bp" if signal >= 2 and messages <= _BP_MAX_MESSAGES and fits else "likelihood"


def _forest_nodes(A):
    """Nodes of the components of ``A`` without a cycle (trees, isolated edges and nodes)."""
    _, comp = connected_components(A, directed=False)
    size = np.bincount(comp)
    edges = np.bincount(comp, weights=np.diff(A.indptr)) / 2.0
    return (edges <= size - 1)[comp]


def _spectral_canonical(A, p, q, n_clusters, regularization, refine, max_clusters,
                        n_init, rng):
    n = A.shape[0]
    M = _operator(A, p, q)
    # Without released edges M is -p (J - I) / (1 - 2p), whose eigenvalue
    # p / (1 - 2p) (every vector orthogonal to the ones) shows no structure:
    # the edge is never below it.
    edge = max(float(_bulk_edge(A, p, q, rng)), p / (1.0 - 2.0 * p))
    cap = n - 2 if n > _DENSE_MAX_NODES else n
    if n_clusters == "auto":
        top = min(max_clusters, cap)
        m = min(16, top)
        # Eigenvectors that live on released components without a cycle (what
        # a sparse release is made of: isolated edges, paths, small stars, whose
        # eigenvalues 1, sqrt(2), sqrt(d) pass the edge 2 sqrt(n r) once the
        # released degree n r is below 1/4) are not communities.
        forest = _forest_nodes(A) if n > _DENSE_MAX_NODES else np.zeros(n, dtype=bool)
        while True:
            vals, vecs = _top_eigs(M, m, rng)
            supported = np.einsum("ij,ij->j", vecs[forest], vecs[forest]) < 0.5
            if vals[-1] > edge and not supported[-1] and m < top:
                # The tree-like components' eigenvalues fill the top of the
                # spectrum and may hide communities below them: the count is
                # made on the rest of the release alone (none: one community).
                if np.count_nonzero(~forest) >= 3:
                    return _without_forest(A, p, q, forest, regularization, refine,
                                           max_clusters, n_init, rng)
                break
            if vals[-1] <= edge or m >= top:
                break
            m = min(2 * m, top)
        signal = int(np.sum((vals > edge) & supported))
        k = max(1, signal)
        refine = _resolve_refine(refine, A, min(2 * k, top), signal)
        if refine == "bp" and k > 1 and n > _DENSE_MAX_NODES:
            # Near the detection limit the spectrum shows about half of the
            # communities; belief propagation empties the labels it does not
            # need, so it starts from twice the count (measured on the
            # 1,000-node LFR graphs: the true number of communities comes
            # back from epsilon 4, where the count alone misses a sixth).
            # On graphs of a few dozen nodes it keeps spurious small labels.
            k = min(2 * k, top)
            if k > vals.size:
                vals, vecs = _top_eigs(M, k, rng)
    else:
        k = n_clusters
        vals, vecs = _top_eigs(M, min(k, cap), rng)
        refine = _resolve_refine(refine, A, k, int(np.sum(vals > edge)))
    if regularization is not None:
        degree = (np.asarray(A.sum(axis=1)).ravel() / q - p * (n - 1)) / (1.0 - 2.0 * p)
        degree = np.maximum(degree, 0.0)
        tau = degree.mean() if regularization == "auto" else regularization
        scale = 1.0 / np.sqrt(degree + max(tau, 1e-12))
        _, V = _top_eigs(_operator(A, p, q, scale), min(k, cap), rng)
    else:
        V = vecs[:, :k]
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    X = V / np.where(norms > 0, norms, 1.0)
    spectral = _kmeans(X, k, n_init, rng)
    if refine is None or k < 2:
        labels = spectral
    elif refine == "bp":
        labels = _bp_refine(A, X, k, p, q, n_init, rng)
    else:
        labels = _refine(A, spectral, 30)
    _, labels = np.unique(labels, return_inverse=True)
    return DebiasedSpectralResult(labels.astype(np.int64), int(labels.max()) + 1,
                                  spectral, V, vals, edge)


def _without_forest(A, p, q, forest, regularization, refine, max_clusters, n_init, rng):
    """``n_clusters="auto"`` on the components of the release that have a cycle.

    The nodes of tree-like components (``forest``) form one more cluster of
    their own; their rows of the embedding are 0.
    """
    n = A.shape[0]
    rest = np.flatnonzero(~forest)
    sub = _spectral_canonical(A[rest][:, rest], p, q, "auto", regularization, refine,
                              max_clusters, n_init, rng)
    labels = np.full(n, sub.n_clusters, dtype=np.int64)
    labels[rest] = sub.labels
    spectral = np.full(n, int(sub.spectral_labels.max()) + 1, dtype=np.int64)
    spectral[rest] = sub.spectral_labels
    V = np.zeros((n, sub.embedding.shape[1]))
    V[rest] = sub.embedding
    return DebiasedSpectralResult(labels, sub.n_clusters + 1, spectral, V, sub.eigenvalues,
                                  sub.bulk_edge)


@fill_doc
def debiased_spectral_clustering(perturbed, flip_probability, *, n_clusters="auto",
                                 sample_rate=1.0, regularization=None, refine=True,
                                 max_clusters=256, n_init=10, random_state=None):
    """Spectral clustering of a randomized-response graph, debiased with the flip probability.

    1. The debiased adjacency ``M = (A'/q - p (J - I)) / (1 - 2p)``
       (:func:`debiased_adjacency`), optionally regularised for sparse
       graphs as ``D^-1/2 M D^-1/2`` with ``D = diag(max(M 1, 0) + tau)``
       (Qin and Rohe 2013);
    2. its top ``k`` eigenvectors (largest eigenvalues, ``eigsh`` on the
       implicit operator), rows scaled to unit norm, clustered by k-means
       (Hehir, Slavkovic and Niu 2022);
    3. optionally a refinement on the released graph: belief propagation on
       a degree-corrected block model seen through the flip channel
       (:func:`belief_propagation_communities`), run from ``6`` k-means
       partitions of the embedding into ``2k`` clusters (belief propagation
       empties the labels it does not need, so a community that k-means
       split or merged with another can find a label of its own; at most
       ``k + 24`` clusters); the results are matched to the first run's
       labels (a label the first run emptied is not recovered), each node
       takes its majority label, labels are merged pairwise until at most
       ``k`` remain (each time the pair whose merge costs the least
       block-model log-likelihood of the released graph), and belief
       propagation runs once more from there.
       Or the mean-field EM of a planted-partition likelihood
       (:func:`refine_communities`), much cheaper and weaker.

    The number of communities is either given (public) or, with
    ``n_clusters="auto"``, estimated from the released spectrum: the number
    of eigenvalues of ``M`` above the estimated edge of its noise bulk,
    ``2 sqrt(n r (1 - r)) / (q (1 - 2p))`` with ``r`` the released density
    (on graphs of at most 64 nodes, where that edge is too high, the mean
    plus three standard deviations of the second eigenvalue of 200 null
    releases drawn from the released degrees). Near the detection limit the
    weakest communities sink into the bulk, so where belief propagation
    refines (graphs above 64 nodes) it starts from twice that count and
    empties the labels it does not need. The edge is asymptotic: on a graph
    of a few thousand nodes the top of the bulk can pass it by a fraction of
    a percent, and those eigenvalues count too (a 4,800-node graph of 2
    blocks, degree 29, gave 5 to 7 clusters at epsilon 8, and 5 without
    noise): give ``n_clusters`` when it is known. The edge is never below
    ``p / (1 - 2p)``, the eigenvalue of ``M`` for a release without edges
    (which is one community). Above 64 nodes, an eigenvalue whose
    eigenvector puts half its weight or more on released components
    without a cycle (isolated edges, paths, small stars: what a release of
    mean degree below 1/4, whose edge ``2 sqrt(n r)`` lies under the
    eigenvalue 1 of one isolated edge, is made of) is not counted. Where
    one comes before the last eigenvalue computed above the edge (it may
    hide communities below it), ``"auto"`` is run again on the components
    of the release that have a cycle alone, and the nodes of the
    tree-like components form one more cluster; with no such component,
    there is one community. So a release of a few noise edges without a
    cycle gives one community, not one per edge. Everything reads only the released
    graph and public parameters, so it is post-processing: free, and
    covered by the release's guarantee.

    Time ``O((|E'| + n) k)`` per Lanczos, EM and belief-propagation
    iteration, memory ``O(|E'| + n k)`` (``O(|E'| k)`` with belief
    propagation); nothing ``n x n`` is formed (graphs of at most 64 nodes
    are solved densely). The Lanczos restarts are capped: where the top
    eigenvalues cluster (a path or a cycle, whose top eigenvalues are
    ``~ 10 / n^2`` apart, a grid, a hub whose released noise edges form
    many small trees), ARPACK stops after ``2e9 / (n ncv^2)`` restarts
    (``ncv = max(2m + 1, 20)`` Lanczos vectors; at least 15, at most 100) and a block Krylov
    Rayleigh-Ritz of fixed size (blocks of ``m + 8`` vectors, at most 12
    products, about 1 GiB at most) completes the pairs it converged: approximate
    eigenvectors spanning the cluster's top, at a bounded cost (a
    10,000-node path in seconds, where ARPACK at tolerance ``1e-8`` took
    minutes). The releases measured in ``docs/edge_dp.md`` converge within
    25 restarts, so they are unchanged.

    Parameters
    ----------
    perturbed : array-like, sparse matrix or networkx.Graph
        The released graph (see :func:`skdpgraph.utils.check_adjacency`).
    flip_probability : float in [0, 1/2)
        Public flip probability ``p`` of the randomized response
        (``1 / (1 + e^epsilon)``; ``s / 2`` of edge flipping). ``0`` gives
        plain (non-private) adjacency spectral clustering.
    n_clusters : int or "auto", default="auto"
        Number of communities: public, or estimated from the released
        spectrum.
    sample_rate : float in (0, 1], default=1.0
        Public probability ``q`` with which released pairs were kept.
    regularization : None, "auto" or float >= 0, default=None
        ``None``: the debiased adjacency. A float ``tau`` (``"auto"``: the
        mean debiased degree) gives the regularised normalised form.
    refine : bool, "auto", "likelihood" or "bp", default=True
        Refinement of the k-means labels: ``"bp"``, the belief propagation
        of step 3; ``"likelihood"``, :func:`refine_communities`; ``"auto"``
        (what ``True`` runs), ``"bp"`` where the spectrum shows signal (two
        or more eigenvalues of ``M`` above the noise edge: where it shows
        none, belief propagation found nothing in the measurements and cost
        seconds) and its messages (``2k`` numbers per stored released edge)
        stay below 4 million and within
        ``skdpgraph.utils.get_config()["max_dense_memory"]``, and
        ``"likelihood"`` otherwise; ``False``, none.
    max_clusters : int >= 1, default=256
        Largest number of eigenvalues computed with ``n_clusters="auto"``.
    n_init : int >= 1, default=10
        k-means restarts.
    random_state : None, int or numpy.random.Generator, default=None
        Randomness of the Lanczos start vector and k-means (not of any
        release).

    Returns
    -------
    result : DebiasedSpectralResult
        ``labels``, ``n_clusters``, ``spectral_labels``, ``embedding``,
        ``eigenvalues``, ``bulk_edge``.

    References
    ----------
    .. [1] J. Hehir, A. Slavkovic and X. Niu, "Consistent spectral clustering
       of network block models under local differential privacy", Journal
       of Privacy and Confidentiality 12(2), 2022.
    .. [2] T. Qin and K. Rohe, "Regularized spectral clustering under the
       degree-corrected stochastic blockmodel", NeurIPS 2013.
    .. [3] {{decelle}}
    .. [4] {{karrer_newman}}

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from skdpgraph.edge_dp import flip_edges, debiased_spectral_clustering
    >>> from skdpgraph.privacy import randomized_response_probability
    >>> G = nx.planted_partition_graph(3, 60, 0.3, 0.02, seed=0)
    >>> truth = [v // 60 for v in range(180)]
    >>> p = randomized_response_probability(3.0)
    >>> released = flip_edges(G, 2 * p, random_state=0)
    >>> res = debiased_spectral_clustering(released, p, n_clusters=3, random_state=0)
    >>> adjusted_rand_score(truth, res.labels) > 0.9
    True
    """
    p = _check_flip_probability(flip_probability)
    q = _check_sample_rate(sample_rate)
    A = check_adjacency(perturbed, what="perturbed")
    n_clusters = _check_n_clusters(n_clusters, A.shape[0])
    regularization = _check_regularization(regularization)
    max_clusters = check_int(max_clusters, "max_clusters", 1)
    n_init = check_int(n_init, "n_init", 1)
    refine = _check_refine(refine)
    rng = check_random_state(random_state)
    return _spectral_canonical(A, p, q, n_clusters, regularization, refine,
                               max_clusters, n_init, rng)
