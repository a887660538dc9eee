"""Central edge-DP communities by private label propagation.

The curator holds the graph and releases, round after round, one choice per
node made by the exponential mechanism over counts of its neighbours' public
labels. One edge ``{u, v}`` enters the counts of ``u`` and of ``v`` only, by
one, so every choice is a bounded-range mechanism whose noise does not grow
with the number of nodes (:func:`skdpgraph.privacy.vote_scale`); the rounds
compose in zCDP (:func:`skdpgraph.privacy.plan_label_propagation`).

1. **Bit rounds** (the start; :func:`bit_votes`). Each node holds
   ``n_bits`` public bits ``x`` in ``{-1, +1}``, random at first. In each
   round every node redraws each bit ``j`` by a binary exponential
   mechanism: ``P(+1) = sigmoid(eta_j S_vj)`` with ``S_v`` the sum over its
   neighbours of ``(x_w - m) B``, ``m`` the public means of the bits and
   ``B`` the public unit upper-triangular matrix that makes the centred
   bits' columns orthogonal. This is a noisy subspace iteration of the
   centred adjacency with a ``+-1`` iterate: a community's mean bits grow
   by about ``eta lambda / 2`` per round (``lambda`` the community
   eigenvalue, about the in-community degree) from the ``1 / sqrt(community
   size)`` of a random start, until each community holds its own sign
   pattern.
2. **Start groups** (post-processing). The mean of each node's bits over
   the last three rounds is a point of ``[-1, 1]^n_bits``; k-means splits
   the points into ``2k`` groups (at most 64 with ``n_clusters="auto"``,
   and fewer where the count noise would hide the groups' edges).
3. **Block counts** (:func:`release_block_counts`). The edges inside and
   between the groups are released with discrete Gaussian (or Laplace)
   noise; one edge moves one count by one. The eigenvalues of the block
   model fitted to them above ``2 sqrt(mean degree)`` plus the edge of the
   count noise estimate ``k`` (``"auto"``), and groups are merged
   pairwise, each time the pair whose merge costs the least block-model
   log-likelihood, down to ``k`` (post-processing).
4. **Label rounds** (the refinement; :func:`label_votes`). Every node
   redraws its label by an exponential mechanism over the counts of its
   neighbours in each label: ``P(c)`` proportional to ``exp(eta C_c)``.

References
----------
.. [1] M. Hardt and E. Price, "The Noisy Power Method: A Meta Algorithm with
   Applications", NeurIPS 2014.
.. [2] F. McSherry and K. Talwar, "Mechanism Design via Differential
   Privacy", FOCS 2007.
.. [3] M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating:
   Unifying Privacy Loss Composition for Data Analytics", ALT 2021.
.. [4] U. N. Raghavan, R. Albert and S. Kumara, "Near linear time
   algorithm to detect community structures in large-scale networks",
   Phys. Rev. E 76, 036106, 2007.
"""

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans

from ..privacy import (
    bit_vote_scale,
    check_epsilon,
    discrete_gaussian,
    discrete_laplace,
    gaussian_sigma,
    laplace_scale,
    plan_label_propagation,
    resolve_budget,
    standard_gumbel,
    vote_scale,
)
from ..utils import check_adjacency, check_dense_memory, check_int, check_random_state
from ..utils._docs import fill_doc
from ._spectral import _block_counts, _check_n_clusters, _merge_blocks

__all__ = [
    "LabelPropagationResult",
    "private_label_propagation",
    "label_propagation_rounds",
    "label_votes",
    "label_vote_probabilities",
    "bit_votes",
    "bit_vote_probabilities",
    "block_counts",
    "release_block_counts",
]

# Rows per block of the label votes: (block, k) scores stay in cache-sized arrays.
_VOTE_BLOCK = 1 << 15
# Default number of start groups with n_clusters="auto".
_AUTO_GROUPS = 64


class LabelPropagationResult(NamedTuple):
    """Result of :func:`private_label_propagation`.

    Attributes
    ----------
    labels : ndarray of shape (n,), int64
        Community of each node, ``0..n_clusters-1``.
    n_clusters : int
        Number of communities in ``labels`` (the label rounds can empty a
        label, so it may be below the number asked for).
    start_labels : ndarray of shape (n,), int64
        Labels after the merge, before the label rounds.
    embedding : ndarray of shape (n, n_bits)
        Mean of each node's released bits over the last bit rounds.
    block_counts : ndarray of shape (m, m)
        The released edge counts between the ``m`` start groups (inside a
        group on the diagonal), noisy integers.
    block_eigenvalues : ndarray of shape (m,)
        Eigenvalues, decreasing, of the block model fitted to the released
        counts: ``diag(sqrt(s)) P diag(sqrt(s))`` with ``P`` the released
        densities and ``s`` the group sizes.
    bulk_edge : float
        ``2 sqrt(d)`` (``d`` the mean degree read from the released counts:
        the spectral edge of a graph without communities) plus the edge of
        the count noise in the fitted block model; ``"auto"`` counts the
        ``block_eigenvalues`` above it.
    rho : float or None
        zCDP parameter of the whole release (None: pure).
    epsilon : float
        The ``epsilon`` of the ``(epsilon, delta)``-DP guarantee for graphs
        that differ in one edge.
    delta : float
        Its ``delta`` (0: a pure guarantee).
    """

    labels: np.ndarray
    n_clusters: int
    start_labels: np.ndarray
    embedding: np.ndarray
    block_counts: np.ndarray
    block_eigenvalues: np.ndarray
    bulk_edge: float
    rho: object
    epsilon: float
    delta: float


def label_propagation_rounds(n_nodes, n_clusters):
    """Default number of bit rounds and of bits, from public sizes only.

    The bits of a random start are correlated with a community of ``s``
    nodes by about ``1 / sqrt(s)``; each round multiplies that by a gain that
    depends on the budget and the degree. The rounds grow like
    ``log(n / k)`` (eight for ``n / k`` of a few hundred, up to twelve).
    ``ceil(log2 k) + 1`` bits leave room for every community to find its
    own sign pattern; each more bit makes every round's votes noisier
    (the budget of a round is shared by the bits), and near the detection
    limit one bit of room measured better than two.

    Parameters
    ----------
    n_nodes : int
        Number of nodes ``n`` (>= 1, public).
    n_clusters : int or "auto"
        Number of communities ``k``, in ``[1, n_nodes]``; ``"auto"``: sized
        for ``k = 32``.

    Returns
    -------
    n_rounds, n_bits : int
    """
    n_nodes = check_int(n_nodes, "n_nodes", 1)
    if isinstance(n_clusters, str) and n_clusters == "auto":
        k = _AUTO_GROUPS // 2
    else:
        k = check_int(n_clusters, "n_clusters", 1, n_nodes)
    size = max(n_nodes / k, 2.0)
    n_rounds = int(min(max(round(3.0 + 0.9 * math.log(size)), 6), 12))
    # Two communities need one centred bit; more need room against collisions.
    n_bits = int(math.ceil(math.log2(k))) + 1 if k > 2 else 1
    return n_rounds, min(n_bits, 12)


def _neighbour_counts(A, labels, m):
    """``C[v, c]``: the number of neighbours of ``v`` that carry label ``c`` (CSR, (n, m))."""
    n = A.shape[0]
    Z = sp.csr_array((np.ones(n), (np.arange(n), labels)), shape=(n, m))
    return sp.csr_array(A @ Z)


def _votes(A, labels, m, scale, rng):
    """One exponential-mechanism vote per node: ``P(c)`` proportional to ``exp(scale[c] C[v, c])``.

    Gumbel-max with the library's unbounded Gumbel noise
    (:func:`skdpgraph.privacy.standard_gumbel`): the argmax of ``scale[c]
    C[v, c] + G_c`` has exactly the softmax law, and every label keeps a
    positive probability whatever its lag.
    """
    n = A.shape[0]
    C = _neighbour_counts(A, labels, m)
    out = np.empty(n, dtype=np.int64)
    for start in range(0, n, _VOTE_BLOCK):
        stop = min(start + _VOTE_BLOCK, n)
        score = standard_gumbel((stop - start, m), rng)
        score += C[start:stop].toarray() * scale
        out[start:stop] = score.argmax(axis=1)
    return out


def _decorrelation(centred):
    """Unit upper-triangular ``B``: the columns of ``centred @ B`` are Gram-Schmidt orthogonal.

    Column ``j`` of ``centred @ B`` is bit ``j`` minus its projections on the
    earlier (orthogonalised) columns, so the bits are driven towards
    different splits of the communities (a subspace iteration); ``B`` is a
    function of the public bits only.
    """
    r = centred.shape[1]
    gram = centred.T @ centred
    gram += np.eye(r) * (1e-9 * max(np.trace(gram), 1.0) / r)  # collinear columns
    L = np.linalg.cholesky(gram)
    return np.linalg.inv(L.T) * np.diag(L)[None, :]


def _bit_scores(A, x, bit_epsilon):
    """``eta_j S_vj``: the log-odds of each node's vote for ``+1`` on each bit."""
    mean = x.mean(axis=0)
    centred = x - mean
    B = _decorrelation(centred)
    eta = np.array([bit_vote_scale(bit_epsilon, mean, B[:, j]) for j in range(x.shape[1])])
    S = np.asarray(A @ centred) @ B
    S *= eta
    return S


def _bit_draws(A, x, bit_epsilon, rng):
    """One round of bit votes: ``+1`` with probability ``sigmoid(eta_j S_vj)``."""
    S = _bit_scores(A, x, bit_epsilon)
    S *= 0.5
    # Gumbel-max over {-1, +1} with utilities -S/2 and +S/2.
    gumbel = standard_gumbel((2,) + S.shape, rng)
    return np.where(S + gumbel[1] > gumbel[0] - S, 1.0, -1.0)


def _bit_rounds(A, n_bits, n_rounds, bit_epsilon, n_avg, rng):
    """The released bits of every round; returns the mean of the last ``n_avg`` rounds."""
    n = A.shape[0]
    # The public start: independent fair bits.
    x = 2.0 * rng.integers(0, 2, size=(n, n_bits)) - 1.0
    total = np.zeros((n, n_bits))
    for it in range(n_rounds):
        x = _bit_draws(A, x, bit_epsilon, rng)
        if it >= n_rounds - n_avg:
            total += x
    return total / n_avg


def _release_block_counts(A, labels, m, plan, rng):
    """The edge counts between the ``m`` labels, with exact integer noise (sensitivity 1)."""
    sampler = discrete_laplace if plan.rho is None else discrete_gaussian
    return _noisy_counts(_block_counts(A, labels, m), plan.count_noise, sampler, rng)


def _noisy_counts(E, noise, sampler, rng):
    m = E.shape[0]
    iu = np.triu_indices(m)
    released = np.zeros((m, m))
    released[iu] = np.rint(E[iu]).astype(np.int64) + sampler(noise, iu[0].size, rng)
    return released + np.triu(released, 1).T


def _count_noise_std(plan):
    """Standard deviation of the integer noise on each released block count (public)."""
    if plan.rho is None:
        q = math.exp(-1.0 / plan.count_noise)  # discrete Laplace: variance 2q / (1 - q)^2
        return math.sqrt(2.0 * q) / (1.0 - q)
    return plan.count_noise


def _group_cap(n, noise_std):
    """Most start groups whose released counts the noise leaves readable.

    With ``m`` groups of ``n / m`` nodes the count noise adds a random
    matrix of spectral norm about ``2 noise_std m^1.5 / n`` to the fitted
    block model; capping ``m`` at ``(n / (2 noise_std))^(2/3)`` keeps it
    below one edge per node.
    """
    return max(2, int((n / (2.0 * max(noise_std, 1e-12))) ** (2.0 / 3.0)))


def _block_model(E, size, noise_std):
    """Eigenvalues of the block model fitted to released block counts, and the noise edge.

    The edge is ``2 sqrt(d)`` (the spectrum of a graph of mean degree ``d``
    without communities, ``d`` read from the released counts) plus the
    edge of the count noise: ``2`` times the largest row norm of its
    standard deviations in the fitted matrix ``sqrt(s_a s_b) P_ab``.
    """
    size = np.asarray(size, dtype=float)
    E = np.maximum(E, 0.0)
    N = np.outer(size, size)
    np.fill_diagonal(N, size * (size - 1.0) / 2.0)
    N = np.maximum(N, 1.0)
    P = np.minimum(E / N, 1.0)
    root = np.sqrt(size)
    scale = root[:, None] * root[None, :] / N
    vals = np.linalg.eigvalsh(root[:, None] * P * root[None, :])[::-1]
    n = size.sum()
    edges = np.triu(E).sum()
    graph_edge = 2.0 * math.sqrt(max(2.0 * edges / max(n, 1.0), 0.0))
    noise_edge = 2.0 * noise_std * float(np.sqrt((scale**2).sum(axis=1)).max())
    return vals, graph_edge + noise_edge


def _start_groups(embedding, m, n_init, rng):
    """k-means of the nodes' bit means into ``m`` groups (on the distinct points, weighted)."""
    # The means take few values (multiples of 2 / n_avg): one integer key per row.
    levels = np.rint((embedding + 1.0) * 4.5).astype(np.int64)  # at most 10 levels
    keys = levels @ (10 ** np.arange(embedding.shape[1], dtype=np.int64))
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    points = embedding[first]
    m = min(m, points.shape[0])
    if m <= 1:
        return np.zeros(embedding.shape[0], dtype=np.int64), 1
    seed = int(rng.integers(2**31 - 1))
    km = KMeans(n_clusters=m, n_init=n_init, random_state=seed)
    groups = km.fit(points, sample_weight=counts).labels_
    _, groups = np.unique(groups[inverse], return_inverse=True)
    return groups.astype(np.int64), int(groups.max()) + 1


def _label_propagation(A, n_clusters, plan, n_bits, n_rounds, n_votes, n_init, max_clusters,
                       rng):
    n = A.shape[0]
    n_avg = min(3, n_rounds)
    embedding = _bit_rounds(A, n_bits, n_rounds, plan.bit_epsilon, n_avg, rng)
    noise_std = _count_noise_std(plan)
    cap = _group_cap(n, noise_std)
    if n_clusters == "auto":
        m = min(max_clusters, 2 ** n_bits, n, cap)
    else:
        m = min(2 * n_clusters, n_clusters + 24, n, max(n_clusters, cap))
    groups, m = _start_groups(embedding, m, n_init, rng)
    E = _release_block_counts(A, groups, m, plan, rng)
    size = np.bincount(groups, minlength=m)
    vals, edge = _block_model(E, size, noise_std)
    k = max(1, int(np.sum(vals > edge))) if n_clusters == "auto" else n_clusters
    merged = _merge_blocks(np.maximum(E, 0.0), size, k)
    labels = merged[groups]
    k = int(merged.max()) + 1
    start_labels = labels.copy()
    scale = np.full(k, vote_scale(plan.vote_epsilon)) if n_votes else None
    for _ in range(n_votes if k > 1 else 0):
        labels = _votes(A, labels, k, scale, rng)
    _, labels = np.unique(labels, return_inverse=True)
    return LabelPropagationResult(labels.astype(np.int64), int(labels.max()) + 1,
                                  start_labels, embedding, E, vals, edge, plan.rho,
                                  plan.epsilon_spent, plan.delta_spent)


def _plan(n, n_clusters, epsilon, delta, rho, n_bits, n_rounds, n_votes):
    rounds, bits = label_propagation_rounds(n, n_clusters)
    n_rounds = rounds if n_rounds is None else n_rounds
    n_bits = bits if n_bits is None else n_bits
    plan = plan_label_propagation(epsilon if rho is None else None, delta=delta, rho=rho,
                                  n_bits=n_bits, n_rounds=n_rounds, n_votes=n_votes)
    return plan, n_bits, n_rounds


@fill_doc
def private_label_propagation(adjacency, n_clusters=8, *, epsilon=1.0, delta=1e-6, rho=None,
                              n_bits=None, n_rounds=None, n_votes=2, max_clusters=64,
                              n_init=3, random_state=None):
    """Central edge-DP communities: label propagation by exponential-mechanism votes.

    The curator releases only each node's votes, each an exponential
    mechanism over the counts of its neighbours' public labels, and noisy
    counts of the edges between groups; their noise does not grow with the
    number of nodes. The steps: ``n_rounds`` rounds of ``n_bits`` binary
    votes per node (:func:`bit_votes`: a noisy subspace iteration with a
    ``+-1`` iterate, from a random start), k-means of the mean of each
    node's last three rounds of bits into ``2k`` start groups, their
    released block counts (:func:`release_block_counts`, which give ``k``
    with ``n_clusters="auto"`` and the merges down to ``k``), and
    ``n_votes`` rounds of label votes (:func:`label_votes`). Read more in
    ``docs/edge_dp.md`` (central label propagation).

    Privacy, for graphs that differ in one edge: one edge changes one
    neighbour count (or neighbour sum) of each endpoint, so every vote is
    ``eps``-DP and ``eps``-bounded-range with
    :func:`skdpgraph.privacy.vote_scale` (and
    :func:`~skdpgraph.privacy.bit_vote_scale`), and one block count moves
    by one.
    :func:`skdpgraph.privacy.plan_label_propagation` splits the budget
    (70 % to the bit rounds, 3 % to the counts, the rest to the label
    rounds) and composes the parts in zCDP (``delta`` given; reported as
    ``(epsilon, delta)``-DP) or purely (``delta=None``). The labels are
    post-processing of the release.

    Time ``O(n_rounds (|E| + n) n_bits + n_votes (|E| + n k))`` plus k-means
    on at most ``4^n_bits`` distinct points; memory ``O(|E| + n (n_bits +
    k))``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph (see :func:`skdpgraph.utils.check_adjacency`).
    n_clusters : int or "auto", default=8
        Number of communities, public; ``"auto"``: the number of
        eigenvalues of the block model fitted to the released counts above
        ``2 sqrt(d)`` plus the count noise's edge (``d`` the released mean
        degree).
    epsilon : float > 0, default=1.0
        Edge-DP budget of the whole release (see ``delta``).
    delta : float in (0, 1) or None, default=1e-6
        ``(epsilon, delta)``-DP through zCDP; ``None``: pure ``epsilon``-DP
        (sequential composition, much weaker at equal epsilon).
    rho : float > 0, default=None
        A zCDP budget instead of ``epsilon`` (``delta`` then says how it is
        reported).
    n_bits : int in [1, 16], default=None
        Bits per node (``None``: ``ceil(log2 k) + 1``, one for two
        communities, 6 with ``"auto"``).
    n_rounds : int >= 1, default=None
        Bit rounds (``None``: :func:`label_propagation_rounds`).
    n_votes : int >= 0, default=2
        Label rounds.
    max_clusters : int >= 1, default=64
        Most start groups with ``n_clusters="auto"``.
    n_init : int >= 1, default=3
        k-means restarts.
    {{random_state}}

    Returns
    -------
    result : LabelPropagationResult

    References
    ----------
    .. [1] {{hardt_price}}
    .. [2] F. McSherry and K. Talwar, "Mechanism Design via Differential
       Privacy", FOCS 2007.
    .. [3] {{cesar_rogers}}

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from skdpgraph.edge_dp import private_label_propagation
    >>> G = nx.planted_partition_graph(3, 300, 0.15, 0.002, seed=0)
    >>> res = private_label_propagation(G, 3, epsilon=3.0, random_state=0)
    >>> adjusted_rand_score([v // 300 for v in G], res.labels) > 0.9
    True
    """
    A = check_adjacency(adjacency, what="adjacency")
    n = A.shape[0]
    n_clusters = _check_n_clusters(n_clusters, n)
    if n_bits is not None:
        n_bits = check_int(n_bits, "n_bits", 1, 16)
    if n_rounds is not None:
        n_rounds = check_int(n_rounds, "n_rounds", 1)
    n_votes = check_int(n_votes, "n_votes", 0)
    max_clusters = check_int(max_clusters, "max_clusters", 1)
    n_init = check_int(n_init, "n_init", 1)
    plan, n_bits, n_rounds = _plan(n, n_clusters, epsilon, delta, rho, n_bits, n_rounds,
                                   n_votes)
    rng = check_random_state(random_state)
    return _label_propagation(A, n_clusters, plan, n_bits, n_rounds, n_votes, n_init,
                              max_clusters, rng)


def _check_labels(labels, n, n_labels):
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"labels must have shape ({n},); got {labels.shape}.")
    if labels.dtype.kind not in "iu" or (n and labels.min() < 0):
        raise ValueError("labels must be non-negative integers (label numbers).")
    top = int(labels.max()) + 1 if n else 0
    m = top if n_labels is None else check_int(n_labels, "n_labels", 1)
    if m < top:
        raise ValueError(f"n_labels={m} is below the largest label + 1 ({top}).")
    return labels.astype(np.int64), m


def _check_vote(adjacency, labels, n_labels, weights):
    A = check_adjacency(adjacency, what="adjacency")
    labels, m = _check_labels(labels, A.shape[0], n_labels)
    # The (n, n_labels) counts and their log-probabilities, dense.
    check_dense_memory((A.shape[0], m), 3, f"Votes of {A.shape[0]} nodes over {m} labels",
                       advice="Number the labels 0..k-1 with k the labels in use")
    if weights is None:
        weights = np.ones(m)
    else:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (m,):
            raise ValueError(f"weights must have shape ({m},); got {weights.shape}.")
    return A, labels, m, weights


def label_vote_probabilities(adjacency, labels, epsilon, *, n_labels=None, weights=None):
    """The law of one round of label votes (:func:`label_votes`), computed exactly in log space.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph.
    labels : array-like of int >= 0, shape (n,)
        The public labelling the votes count over.
    epsilon : float > 0
        Guarantee of each node's vote.
    n_labels : int, default=None
        Number of labels (``None``: the largest label + 1).
    weights : array-like of float >= 0, shape (n_labels,), default=None
        Public weights ``w_c`` of the counts (``None``: ones).

    Returns
    -------
    ndarray of shape (n, n_labels)
        ``P[v, c]``, proportional to ``exp(eta w_c C[v, c])`` with ``eta =
        vote_scale(epsilon, weights)`` and ``C[v, c]`` the number of
        neighbours of ``v`` with label ``c``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.edge_dp import label_vote_probabilities
    >>> A = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> P = label_vote_probabilities(A, [0, 1, 1], 1.0)
    >>> np.round(P[0], 3)  # two neighbours with label 1
    array([0.119, 0.881])
    """
    A, labels, m, weights = _check_vote(adjacency, labels, n_labels, weights)
    scale = vote_scale(epsilon, weights) * weights
    S = _neighbour_counts(A, labels, m).toarray() * scale
    S -= S.max(axis=1, keepdims=True)
    P = np.exp(S)
    return P / P.sum(axis=1, keepdims=True)


@fill_doc
def label_votes(adjacency, labels, epsilon, *, n_labels=None, weights=None,
                random_state=None):
    """One round of exponential-mechanism label votes: the building block of the central route.

    Every node ``v`` draws a label ``c`` with probability proportional to
    ``exp(eta w_c C[v, c])``, where ``C[v, c]`` counts ``v``'s neighbours
    with the public label ``c`` and ``eta = vote_scale(epsilon, weights)``.
    One edge ``{u, v}`` changes one count of ``u`` and one of ``v`` by one
    (monotone utilities), so each vote is ``epsilon``-DP and
    ``epsilon``-bounded-range, and the round is ``2 epsilon``-edge-DP and
    ``epsilon**2 / 4``-zCDP (:func:`skdpgraph.privacy.vote_scale`). Sampled
    by Gumbel-max with :func:`skdpgraph.privacy.standard_gumbel`; the law is
    :func:`label_vote_probabilities`. Time ``O(|E| + n n_labels)``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph.
    labels : array-like of int >= 0, shape (n,)
        The public labelling the votes count over.
    epsilon : float > 0
        Guarantee of each node's vote.
    n_labels : int, default=None
        Number of labels (``None``: the largest label + 1).
    weights : array-like of float >= 0, shape (n_labels,), default=None
        Public weights ``w_c`` of the counts (``None``: ones).
    {{random_state}}

    Returns
    -------
    ndarray of shape (n,), int64
        The votes.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.edge_dp import label_votes
    >>> G = nx.barbell_graph(30, 0)
    >>> start = [0] * 25 + [1] * 35  # five nodes of the first clique start wrong
    >>> votes = label_votes(G, start, 2.0, random_state=0)
    >>> int((votes[:30] == 0).sum()), int((votes[30:] == 1).sum())
    (30, 30)
    """
    A, labels, m, weights = _check_vote(adjacency, labels, n_labels, weights)
    scale = vote_scale(epsilon, weights) * weights
    return _votes(A, labels, m, scale, check_random_state(random_state))


def _check_bits(adjacency, bits):
    A = check_adjacency(adjacency, what="adjacency")
    x = np.asarray(bits, dtype=np.float64)
    one = x.ndim == 1
    x = x.reshape(x.shape[0], -1) if x.ndim in (1, 2) else x
    if x.ndim != 2 or x.shape[0] != A.shape[0] or x.shape[1] < 1:
        raise ValueError(f"bits must have shape ({A.shape[0]},) or ({A.shape[0]}, r); got "
                         f"{np.shape(bits)}.")
    if not np.all(np.abs(x) == 1.0):
        raise ValueError("bits must be -1 or +1.")
    return A, x, one


def bit_vote_probabilities(adjacency, bits, epsilon):
    """The law of one round of bit votes (:func:`bit_votes`): ``P(+1)`` for every node and bit.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph.
    bits : array-like of -1/+1, shape (n,) or (n, r)
        The public bits the votes read.
    epsilon : float > 0
        Guarantee of each vote.

    Returns
    -------
    ndarray of the shape of ``bits``
        ``sigmoid(eta_j S_vj)``, with ``S_v = sum over neighbours w of (x_w
        - m) B``: ``m`` the bits' means and ``B`` the public unit
        upper-triangular matrix that makes the centred bits' columns
        orthogonal (Gram-Schmidt in column order), ``eta_j =
        bit_vote_scale(epsilon, m, B[:, j])``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.edge_dp import bit_vote_probabilities
    >>> A = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> np.round(bit_vote_probabilities(A, [1, -1, -1], 1.0), 3)
    array([0.269, 0.731, 0.731])
    """
    A, x, one = _check_bits(adjacency, bits)
    P = 1.0 / (1.0 + np.exp(-_bit_scores(A, x, epsilon)))
    return P.ravel() if one else P


@fill_doc
def bit_votes(adjacency, bits, epsilon, *, random_state=None):
    """One round of binary votes on public bits: the start of the central route.

    Each node redraws each of its ``r`` public bits: ``+1`` with probability
    ``sigmoid(eta_j S_vj)`` (:func:`bit_vote_probabilities`), a binary
    exponential mechanism whose score sums its neighbours' centred bits,
    decorrelated by a public Gram-Schmidt of the bits' columns. Repeated,
    this is a noisy subspace iteration of the centred adjacency with a
    ``+-1`` iterate. One edge moves the score of each endpoint by at most
    the bound of :func:`skdpgraph.privacy.bit_vote_scale`, so each vote is
    ``epsilon``-DP and ``epsilon``-bounded-range, and a round is ``2 r
    epsilon``-edge-DP and ``r epsilon**2 / 4``-zCDP. Sampled by Gumbel-max
    with :func:`skdpgraph.privacy.standard_gumbel`. Time ``O((|E| + n) r +
    n r^2)``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph.
    bits : array-like of -1/+1, shape (n,) or (n, r)
        The public bits the votes read.
    epsilon : float > 0
        Guarantee of each vote.
    {{random_state}}

    Returns
    -------
    ndarray of -1/+1 floats, the shape of ``bits``

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from skdpgraph.edge_dp import bit_votes
    >>> G = nx.barbell_graph(30, 0)
    >>> start = np.r_[np.ones(27), -np.ones(33)]  # three nodes of the first clique start wrong
    >>> votes = bit_votes(G, start, 1.0, random_state=0)
    >>> int((votes[:30] == 1).sum()), int((votes[30:] == -1).sum())
    (30, 30)
    """
    A, x, one = _check_bits(adjacency, bits)
    out = _bit_draws(A, x, check_epsilon(epsilon), check_random_state(random_state))
    return out.ravel() if one else out


def block_counts(adjacency, labels, *, n_labels=None):
    """Edges inside each label (diagonal) and between each pair of labels.

    Not private: this is the statistic :func:`release_block_counts` releases.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The graph (see :func:`skdpgraph.utils.check_adjacency`).
    labels : array-like of int >= 0, shape (n,)
        Label of each node.
    n_labels : int, default=None
        Number of labels (``None``: the largest label + 1).

    Returns
    -------
    ndarray of shape (n_labels, n_labels)
        Symmetric; ``E[a, a]`` edges inside ``a``, ``E[a, b]`` edges between
        ``a`` and ``b``. One edge moves exactly one entry of the upper
        triangle by one.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.edge_dp import block_counts
    >>> A = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> block_counts(A, [0, 0, 1])
    array([[1., 1.],
           [1., 0.]])
    """
    A = check_adjacency(adjacency, what="adjacency")
    labels, m = _check_labels(labels, A.shape[0], n_labels)
    return _block_counts(A, labels, m)


@fill_doc
def release_block_counts(adjacency, labels, *, n_labels=None, epsilon=None, rho=None,
                         random_state=None):
    """Release the edge counts between public labels, edge-DP, as exact noisy integers.

    The upper triangle of :func:`block_counts` has L1 and L2 sensitivity 1
    under edge neighbours (one edge, one entry, one unit). Pure
    ``epsilon``-DP with discrete Laplace noise of scale ``1 / epsilon``
    (:func:`skdpgraph.privacy.laplace_scale`), or ``rho``-zCDP with discrete
    Gaussian noise of ``sigma = 1 / sqrt(2 rho)``
    (:func:`skdpgraph.privacy.gaussian_sigma`); integer noise on integer
    counts, so no rounding enters the sensitivity.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        The private graph.
    labels : array-like of int >= 0, shape (n,)
        Public labels.
    n_labels : int, default=None
        Number of labels (``None``: the largest label + 1).
    epsilon : float, default=None
        Pure budget.
    rho : float, default=None
        zCDP budget instead.
    {{random_state}}

    Returns
    -------
    ndarray of shape (n_labels, n_labels)
        Symmetric noisy counts (integers stored as floats; may be negative).

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.edge_dp import release_block_counts
    >>> G = nx.planted_partition_graph(2, 50, 0.5, 0.02, seed=0)
    >>> E = release_block_counts(G, [v // 50 for v in G], epsilon=1.0, random_state=0)
    >>> E.shape, bool(E[0, 0] > 10 * E[0, 1])
    ((2, 2), True)
    """
    A = check_adjacency(adjacency, what="adjacency")
    labels, m = _check_labels(labels, A.shape[0], n_labels)
    epsilon, rho = resolve_budget(epsilon, None, rho, owner="release_block_counts")
    rng = check_random_state(random_state)
    if rho is None:
        return _noisy_counts(_block_counts(A, labels, m), laplace_scale(1.0, epsilon),
                             discrete_laplace, rng)
    return _noisy_counts(_block_counts(A, labels, m), gaussian_sigma(1.0, rho),
                         discrete_gaussian, rng)
