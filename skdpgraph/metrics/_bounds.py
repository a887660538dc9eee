"""The papers' utility and privacy bounds, as plain functions.

Every function states the privacy neighbourhood and the calibration its
bound assumes. The library's calibrations (see the design notes, section 4)
are:

* PAMST step: ``P(e) ~ exp(-eps_step * w(e) / (2 mu))`` with
  ``eps_step = epsilon / (|V| - 1)``; valid under both ``"l1"`` and ``"linf"``
  neighbours with sensitivity ``mu``. The thesis writes the same law with the
  utility ``-|w(e) - min w|`` and ``Delta u``; ``Delta u`` plays the role of
  ``mu``. Its Table 3.1 uses ``Delta u = 1 / |E|``.
* Laplace noise on all ``|E|`` weights (Sealfon's baseline): scale
  ``mu / epsilon`` under ``"l1"`` neighbours, ``|E| mu / epsilon`` under
  ``"linf"``. The thesis uses scale ``1 / epsilon`` (``"l1"``, ``mu = 1``).

Two statements of the papers are not valid bounds as printed; each function
offers the paper's form (``form="paper"``, for comparison) and a corrected
form (the default), and the tests exhibit graphs on which the paper's form
fails:

* Theorem 13 of the UAI paper (PAMST returns a partitioning topology): its
  proof bounds the utility gap of a wrong edge by ``alpha max w - min w``
  over the whole cluster, but the cheapest edge of the current cut can be
  heavier than the cluster's lightest edge. See
  :func:`partitioning_topology_probability`.
* Theorem 4.2.1 of the thesis (Laplace noise preserves a block order of the
  weights): the union bound counts ``|E_i| + |E_{i+1}| - 1`` pairs where
  ``|E_i| |E_{i+1}|`` can misorder. See :func:`order_preservation_probability`.

References
----------
.. [1] R. Pinot, "Minimum spanning tree release under differential privacy
   constraints", master thesis, 2017.
.. [2] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
   Clustering under Differential Privacy", UAI 2018.
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.special import gammaln, logsumexp

from ..privacy import check_neighborhood, laplace_mst_scale
from ..tree import minimum_spanning_tree
from ..utils import check_graph, check_int, check_positive, check_real, edges_to_csr, graph_edges
from ..utils._validation import check_node_labels
from ._homogeneity import check_homogeneity

# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------

def _gamma(gamma):
    return check_real(gamma, "gamma (the failure probability)", low=0.0, high=1.0,
                      low_open=True)


def _form(form):
    if form not in ("corrected", "paper"):
        raise ValueError(f"form must be 'corrected' or 'paper'; got {form!r}.")
    return form


# ---------------------------------------------------------------------------
# approximation error of private spanning trees
# ---------------------------------------------------------------------------

def pamst_error_bound(n_nodes, epsilon, *, sensitivity, gamma=0.05, range_sizes=None):
    """High-probability bound on the MST approximation error of PAMST.

    With probability at least ``1 - gamma`` the tree ``T`` released by PAMST
    satisfies ``Error_G(T) = w(T) - w(T*) < B`` (thesis, Definition 3.2.1,
    true weights) where

    ``B = 2 mu (|V| - 1) / epsilon * ((|V| - 1) ln((|V| - 1) / gamma) + L)``

    with ``L = sum_i ln |R_i|`` over the cuts ``R_i`` PAMST drew from
    (Theorem 3.4.2 of the thesis, ``range_sizes`` given) or its worst case
    ``L = 2 ln((|V| - 1)!)`` (Corollary 3.4.1, ``range_sizes=None``; from
    ``|R_i| <= i (|V| - i)``). The theorem bounds ``w(T) - w*`` with
    ``w* = sum_i min_{R_i} w``, and ``w* <= w(T*)`` (Proposition 3.4.1).

    Parameters
    ----------
    n_nodes : int
        ``|V| >= 2``; the graph must be connected.
    epsilon : float
        Privacy budget of the whole tree, split evenly over the ``|V| - 1``
        steps (pure sequential composition).
    sensitivity : float
        ``mu``: the calibration assumed is the library's,
        ``P(e) ~ exp(-(epsilon / (|V| - 1)) w(e) / (2 mu))``. It is
        ``epsilon``-DP under both the ``"l1"`` and the ``"linf"``
        neighbourhood with sensitivity ``mu``, so the bound does not depend
        on the neighbourhood. The thesis's Corollary 3.4.1 is the case
        ``sensitivity = 1 / |E|`` (its ``Delta u`` for weights normalised so
        that they change by at most ``1 / |E|`` each).
    gamma : float in (0, 1], default=0.05
        Failure probability.
    range_sizes : array-like of shape (n_nodes - 1,), default=None
        Sizes ``|R_i|`` of the cuts of one run (Theorem 3.4.2); the bound then
        holds with probability ``1 - gamma`` for that run's ranges.
        ``None`` uses the worst case of Corollary 3.4.1.

    Returns
    -------
    bound : float

    Notes
    -----
    The proof applies the exponential mechanism's accuracy bound
    ``P[u_i <= OPT_i - (2 mu / eps_step)(ln |R_i| + t)] <= e^{-t}`` to every
    step and a union bound with ``t = ln((|V| - 1) / gamma)``.

    References
    ----------
    Pinot, thesis, Theorem 3.4.2, Proposition 3.4.1 and Corollary 3.4.1.

    Examples
    --------
    >>> from skdpgraph.metrics import pamst_error_bound
    >>> round(pamst_error_bound(3, 1.0, sensitivity=1.0, gamma=0.5), 4)  # 4 (2 ln 4 + 2 ln 2)
    16.6355
    """
    n = check_int(n_nodes, "n_nodes", 2)
    epsilon = check_positive(epsilon, "epsilon")
    mu = check_positive(sensitivity, "sensitivity")
    gamma = _gamma(gamma)
    k = n - 1
    if range_sizes is None:
        log_ranges = 2.0 * float(gammaln(n))  # 2 ln((|V| - 1)!)
    else:
        sizes = np.asarray(range_sizes, dtype=np.float64)
        if sizes.shape != (k,):
            raise ValueError(
                f"range_sizes must have one entry per PAMST step, shape ({k},); "
                f"got {sizes.shape}."
            )
        if not np.all(np.isfinite(sizes)) or np.any(sizes < 1):
            raise ValueError("range_sizes must be finite and >= 1 (every cut is non-empty).")
        log_ranges = float(np.log(sizes).sum())
    return 2.0 * mu * k / epsilon * (k * math.log(k / gamma) + log_ranges)


def laplace_mst_error_bound(n_nodes, n_edges, epsilon, *, sensitivity, neighborhood="l1",
                            gamma=0.05):
    """High-probability bound on the MST approximation error of Laplace-MST.

    Laplace-MST adds i.i.d. Laplace noise of scale ``b`` to all ``|E|``
    weights and releases the exact MST ``T'`` of the noisy graph. With
    probability at least ``1 - gamma``

    ``Error_G(T') = w(T') - w(T*) < 2 (|V| - 1) b ln(|E| / gamma)``

    (thesis, Theorem 3.2.1, after Sealfon 2016): with that probability every
    noise is below ``b ln(|E| / gamma)`` in absolute value, and then
    ``w(T') <= w'(T') + (|V|-1) B <= w'(T*) + (|V|-1) B <= w(T*) + 2 (|V|-1) B``.

    Parameters
    ----------
    n_nodes : int
        ``|V| >= 2``.
    n_edges : int
        ``|E| >= |V| - 1`` (connected graph).
    epsilon : float
        Pure-DP budget of the release (> 0).
    sensitivity : float
        ``mu`` of the neighbourhood.
    neighborhood : {"l1", "linf"}, default="l1"
        The calibration assumed is the library's epsilon-DP one:
        ``b = mu / epsilon`` under ``"l1"`` neighbours and
        ``b = |E| mu / epsilon`` under ``"linf"``. The thesis's statement is
        ``"l1"`` with ``mu = 1`` (scale ``1 / epsilon``); note that this same
        scale is also the exact calibration for ``"linf"`` neighbours with
        ``mu = 1 / |E|``.
    gamma : float in (0, 1], default=0.05
        Failure probability: the bound holds with probability at least
        ``1 - gamma``.

    Returns
    -------
    bound : float

    References
    ----------
    Pinot, thesis, Theorem 3.2.1; A. Sealfon, "Shortest paths and distances
    with differential privacy", PODS 2016.

    Examples
    --------
    >>> import math
    >>> from skdpgraph.metrics import laplace_mst_error_bound
    >>> b = laplace_mst_error_bound(10, 20, 1.0, sensitivity=1.0, gamma=0.1)
    >>> math.isclose(b, 18 * math.log(200))
    True
    """
    n = check_int(n_nodes, "n_nodes", 2)
    m = check_int(n_edges, "n_edges", 1)
    if m < n - 1:
        raise ValueError(
            f"A connected graph on {n} nodes has at least {n - 1} edges; got n_edges={m}."
        )
    if m > n * (n - 1) // 2:
        raise ValueError(f"A simple graph on {n} nodes has at most {n * (n - 1) // 2} edges; "
                         f"got n_edges={m}.")
    epsilon = check_positive(epsilon, "epsilon")
    mu = check_positive(sensitivity, "sensitivity")
    gamma = _gamma(gamma)
    b = laplace_mst_scale(m, mu, neighborhood, epsilon)
    return 2.0 * (n - 1) * b * math.log(m / gamma)


# ---------------------------------------------------------------------------
# Theorem 13 of the UAI paper
# ---------------------------------------------------------------------------


def partitioning_topology_probability(graph, labels, epsilon, *, sensitivity, form="corrected"):
    """Lower bound on the probability that PAMST's tree partitions the clusters.

    A spanning tree has a *partitioning topology* when every cluster induces
    a connected subtree, so that cutting its ``K - 1`` inter-cluster edges
    gives back the clusters (UAI paper, Definition 3.8; read literally,
    "exactly one tree edge between every pair of clusters" cannot hold for
    ``K >= 3``, so this is the reading used throughout).

    ``form="corrected"`` (default) returns

    ``1 - sum_i (|C_i| - 1) sum_{e in dC_i} exp(-c (w(e) - beta_i))``

    where ``dC_i`` are the inter-cluster edges with an endpoint in ``C_i``,
    ``beta_i`` is the largest weight of a minimum spanning tree of the
    subgraph induced by ``C_i`` and ``c = epsilon / (2 mu (|V| - 1))``.
    Proof: a cluster ends up disconnected in the tree exactly when one of its
    nodes other than the first one reached joins through an inter-cluster
    edge. Whenever the tree holds part of ``C_i``, the cut contains an
    intra-cluster edge of weight ``<= beta_i`` (an edge of the cluster's MST
    crosses it), so the exponential mechanism picks an inter-cluster edge
    into ``C_i`` at most ``r_i = sum_{e in dC_i} exp(-c (w(e) - beta_i))``
    times as often as an intra-cluster edge into ``C_i``. Summing over the
    steps, ``P(bad entry into C_i) <= r_i E[#good entries] <= r_i (|C_i| - 1)``.
    No homogeneity is assumed; under strong homogeneity every
    ``w(e) - beta_i > (alpha_i - 1) max_{C_i} w >= 0``.

    ``form="paper"`` returns the printed statement (supplementary material,
    proof of Theorem 13, with its sign slip ``t = ... + ln|R_k|`` undone, which
    gives the printed final line):

    ``1 - sum_i (|C_i| - 1) |E| exp(-c (alpha_i max_{C_i} w - min_{C_i} w))``

    with ``alpha_i = max_{C_i} w / min_{C_i} w``. It assumes strongly
    homogeneous clusters (a ``ValueError`` otherwise) and is **not a valid
    bound in general**: its proof lower-bounds the utility gap using the
    cluster's lightest edge, but the cheapest edge of the current cut can be
    much heavier; the tests show a graph where it exceeds the exact
    probability.

    Parameters
    ----------
    graph : array-like or sparse matrix
        Connected weighted graph (anything :func:`skdpgraph.check_graph`
        accepts with ``metric="precomputed"``).
    labels : array-like of shape (n_nodes,)
        True clusters.
    epsilon : float
        Budget of the whole tree, split evenly over the ``|V| - 1`` steps.
    sensitivity : float
        ``mu``; the calibration assumed is the library's
        ``P(e) ~ exp(-eps_step w(e) / (2 mu))``, valid for ``"l1"`` and
        ``"linf"`` neighbours alike. The paper's ``Delta u`` is this ``mu``.
    form : {"corrected", "paper"}, default="corrected"
        The valid bound, or the printed statement (see above).

    Returns
    -------
    probability : float in [0, 1]
        The lower bound, clipped at 0 (a vacuous bound returns 0). With
        ``form="corrected"``, 0 is also returned, exactly, when some cluster
        induces a disconnected subgraph: no spanning tree can then partition.

    References
    ----------
    Pinot et al., UAI 2018, Definition 3.8, Theorem 13 and its proof.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.metrics import partitioning_topology_probability
    >>> D = np.array([[0, 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]], float)
    >>> p = partitioning_topology_probability(D, [0, 0, 1, 1], 3.0, sensitivity=1.0)
    >>> round(p, 4)  # 1 - 8 exp(-(3 / 6) * (9 - 1))
    0.8535
    """
    G = check_graph(graph, metric="precomputed", what="graph")
    n = G.shape[0]
    codes = check_node_labels(labels, n)
    epsilon = check_positive(epsilon, "epsilon")
    mu = check_positive(sensitivity, "sensitivity")
    form = _form(form)
    if sp.issparse(G):
        n_comp, _ = connected_components(G, directed=False)
        if n_comp > 1:
            raise ValueError(
                f"graph has {n_comp} connected components; the bound is stated for a "
                "connected graph (PAMST runs on each component separately)."
            )
    u, v, w = graph_edges(G)
    k = int(codes.max()) + 1
    sizes = np.bincount(codes, minlength=k)
    cu, cv = codes[u], codes[v]
    intra = cu == cv
    c = epsilon / (2.0 * mu * (n - 1))
    if form == "paper":
        return _partitioning_paper(G, codes, u.size, c)
    # beta_i: largest weight of the MST of each cluster's induced subgraph.
    forest = minimum_spanning_tree(edges_to_csr(u[intra], v[intra], w[intra], n),
                                   check_input=False)
    fc = codes[forest.edges[:, 0]]
    if np.any(np.bincount(fc, minlength=k) != sizes - 1):
        return 0.0  # some cluster is disconnected: no spanning tree partitions
    beta = np.full(k, -np.inf)
    np.maximum.at(beta, fc, forest.weights)
    # log of each term (|C_i| - 1) exp(-c (w(e) - beta_i)), both endpoints' clusters.
    iu, iv, iw = cu[~intra], cv[~intra], w[~intra]
    owners = np.concatenate([iu, iv])
    ws = np.concatenate([iw, iw])
    mult = sizes[owners] - 1
    keep = mult > 0
    if not keep.any():
        return 1.0
    log_terms = np.log(mult[keep]) - c * (ws[keep] - beta[owners[keep]])
    log_fail = float(logsumexp(log_terms))
    if log_fail >= 0.0:
        return 0.0
    return float(-np.expm1(log_fail))


def _partitioning_paper(G, labels, n_edges, c):
    """The bound as printed in the UAI paper (Theorem 13)."""
    report = check_homogeneity(G, labels)
    if not report.all_strong:
        bad = report.clusters[~report.strong].tolist()
        raise ValueError(
            "form='paper' states Theorem 13, which assumes strongly homogeneous "
            f"clusters; cluster(s) {bad} are not (see "
            "skdpgraph.metrics.check_homogeneity)."
        )
    mult = report.sizes - 1
    has = ~np.isnan(report.max_intra)
    # A cluster of >= 2 nodes without internal edges makes the bound vacuous.
    if np.any((mult > 0) & ~has):
        return 0.0
    sel = (mult > 0) & has
    # alpha_bar_i max w - min w = h_i - m_i (inf when m_i = 0 < M_i)
    gap = report.strong_threshold[sel] - report.min_intra[sel]
    with np.errstate(over="ignore"):
        total = float(np.sum(mult[sel] * n_edges * np.exp(-c * gap)))
    return float(min(1.0, max(0.0, 1.0 - total)))


# ---------------------------------------------------------------------------
# Theorem 4.2.1 of the thesis
# ---------------------------------------------------------------------------

def _laplace_diff_tail(x):
    """P(Y1 - Y2 >= x b) for i.i.d. Laplace(b), x >= 0: e^{-x} (1/2 + x/4)."""
    return np.exp(-x) * (0.5 + 0.25 * x)


def _split_bound(n_a, n_b, t, b):
    """Union bound through a threshold: P(max Y_a >= s) + P(min Y_b <= s - t).

    Misordering needs ``Y_a - Y_b >= t`` for some pair, hence ``Y_a >= s`` or
    ``Y_b <= -(t - s)`` for any ``s``; each one-sided Laplace tail is
    ``exp(-x / b) / 2``. The best ``s`` in ``[0, t]`` balances the two sums.
    """
    s = 0.5 * t + 0.5 * b * np.log(n_a / n_b)
    s = np.clip(s, 0.0, t)
    return 0.5 * (n_a * np.exp(-s / b) + n_b * np.exp(-(t - s) / b))


def _block_extremes(blocks):
    """Smallest and largest weight and size of each block, checked.

    A numeric array of 1 or 2 dimensions is read at once (its rows, or its
    numbers, are the blocks), without a Python loop over them.
    """
    if isinstance(blocks, np.ndarray) and blocks.dtype != object and blocks.ndim in (1, 2):
        arr = blocks.astype(np.float64, copy=False).reshape(blocks.shape[0], -1)
        if arr.shape[1] == 0 and arr.shape[0]:
            raise ValueError("block 0 is empty; every block needs at least one weight.")
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            raise ValueError(f"block {int(np.flatnonzero(bad)[0])} contains NaN or infinite "
                             "weights.")
        return (arr.min(axis=1, initial=np.inf), arr.max(axis=1, initial=-np.inf),
                np.full(arr.shape[0], float(arr.shape[1])))
    low, high, counts = [], [], []
    for i, block in enumerate(blocks):
        arr = np.asarray(block, dtype=np.float64).ravel()
        if arr.size == 0:
            raise ValueError(f"block {i} is empty; every block needs at least one weight.")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"block {i} contains NaN or infinite weights.")
        low.append(arr.min())
        high.append(arr.max())
        counts.append(arr.size)
    return np.array(low), np.array(high), np.array(counts, dtype=np.float64)


def order_preservation_probability(blocks, epsilon, *, sensitivity, neighborhood="l1",
                                   n_edges=None, form="corrected"):
    """Lower bound on the probability that Laplace noise keeps a block order.

    Given blocks of edges ``E_1, ..., E_K`` whose true weights are ordered
    (every weight of ``E_i`` is below every weight of ``E_{i+1}``), the
    Laplace mechanism of Laplace-MST adds i.i.d. Laplace noise of scale ``b``
    to every weight. The order survives when ``max_{E_i} w' < min_{E_{i+1}} w'``
    for every ``i`` (adjacent blocks suffice: the order is transitive).

    ``form="corrected"`` (default) returns
    ``1 - sum_i min(P_pairs(i), P_split(i))`` with ``t_i = min E_{i+1} - max E_i``,
    ``P_pairs(i) = |E_i| |E_{i+1}| e^{-t_i/b} (1/2 + t_i / (4b))`` (union bound
    over the pairs that can swap; ``Y_1 - Y_2`` of two Laplace variables has
    the tail ``e^{-x}(1/2 + x/4)`` at ``x b``) and
    ``P_split(i) = (|E_i| e^{-s/b} + |E_{i+1}| e^{-(t_i - s)/b}) / 2``
    (some noise of ``E_i`` above ``s`` or some noise of ``E_{i+1}`` below
    ``s - t_i``; ``s`` in ``[0, t_i]`` chosen to minimise it).

    ``form="paper"`` returns Theorem 4.2.1 of the thesis as printed,
    ``1 - sum_i e^{-t_i/b} (1/2 + t_i/(4b)) (|E_i| + |E_{i+1}| - 1)``. It is
    **not a valid bound**: its union bound runs over ``|E_i| + |E_{i+1}| - 1``
    pairs, as if only consecutive weights in sorted order could swap, while
    any of the ``|E_i| |E_{i+1}|`` pairs can (the tests show two blocks of
    100 edges where it fails).

    Parameters
    ----------
    blocks : sequence of array-like, or ndarray of 1 or 2 dimensions
        The true weights of each block, ``K >= 2`` non-empty blocks with
        ``max(blocks[i]) < min(blocks[i + 1])``; the rows of a 2-D array
        (the numbers of a 1-D array) are blocks of equal size.
    epsilon : float
        Pure-DP budget of the release (> 0).
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}, default="l1"
        The calibration assumed is the library's epsilon-DP release of all
        ``|E|`` weights: ``b = mu / epsilon`` under ``"l1"`` neighbours and
        ``b = |E| mu / epsilon`` under ``"linf"``. The thesis states the
        theorem for scale ``1 / epsilon`` (``"l1"``, ``mu = 1``).
    n_edges : int, default=None
        ``|E|`` of the graph whose weights are released (only used under
        ``"linf"``); ``None`` takes the total size of the blocks.
    form : {"corrected", "paper"}, default="corrected"
        The valid bound, or the thesis's statement as printed (see above).

    Returns
    -------
    probability : float in [0, 1]
        Clipped at 0.

    References
    ----------
    Pinot, thesis, Theorem 4.2.1 and Appendix A.3.

    Examples
    --------
    >>> from skdpgraph.metrics import order_preservation_probability
    >>> p = order_preservation_probability([[1.0], [11.0]], 1.0, sensitivity=1.0)
    >>> round(p, 6)  # 1 - e^{-10} (1/2 + 10/4)
    0.999864
    """
    epsilon = check_positive(epsilon, "epsilon")
    mu = check_positive(sensitivity, "sensitivity")
    neighborhood = check_neighborhood(neighborhood)
    form = _form(form)
    low, high, counts = _block_extremes(blocks)
    if low.size < 2:
        raise ValueError(f"Need at least 2 blocks of edges; got {low.size}.")
    gaps = low[1:] - high[:-1]
    if np.any(gaps <= 0):
        i = int(np.flatnonzero(gaps <= 0)[0])
        raise ValueError(
            f"blocks must be ordered: max(blocks[{i}]) = {high[i]:g} is not below "
            f"min(blocks[{i + 1}]) = {low[i + 1]:g}."
        )
    total_edges = int(counts.sum())
    if n_edges is None:
        n_edges = total_edges
    n_edges = check_int(n_edges, "n_edges", total_edges)
    b = laplace_mst_scale(n_edges, mu, neighborhood, epsilon)
    na, nb = counts[:-1], counts[1:]
    x = gaps / b
    if form == "paper":
        fail = _laplace_diff_tail(x) * (na + nb - 1.0)
    else:
        fail = np.minimum(na * nb * _laplace_diff_tail(x), _split_bound(na, nb, gaps, b))
    return float(min(1.0, max(0.0, 1.0 - fail.sum())))


# ---------------------------------------------------------------------------
# PIG (Muelle et al.)
# ---------------------------------------------------------------------------
