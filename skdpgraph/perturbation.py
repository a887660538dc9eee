"""Edge-differentially private graph perturbation (PIG, Muelle et al. 2015).

The topology of an unweighted graph is private. Every unordered pair of nodes
keeps its adjacency bit with probability ``1 - s`` and is replaced by a fair
coin with probability ``s`` (Algorithm 1 of [1]_, ``PIG_pert``): the bit is
flipped with probability ``s / 2``, independently over pairs. For two graphs
that differ in one edge, the probability of any output differs by a factor of
at most ``(1 - s/2) / (s/2) = 2/s - 1``, so the release is
``epsilon``-edge-differentially private with ``epsilon = ln(2/s - 1)``
([1]_, Theorem 1). Any clustering computed from the perturbed graph alone is
post-processing and has the same guarantee.

Adjacency semantics (:func:`check_adjacency`): weights are ignored.

* sparse matrix or array: every stored entry, an explicitly stored zero
  included, is an edge (scikit-learn's convention for precomputed sparse
  graphs, and the library's);
* dense square array: the nonzero off-diagonal entries are the edges. This is
  *not* :func:`skdpgraph.check_graph`'s reading of a dense array (a complete
  graph of distances): a complete graph has no private topology;
* networkx graph: its edges (directed graphs and multigraphs are refused).

References
----------
.. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
   Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015.
"""

import math
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_array, check_is_fitted

from ._graph import (
    _is_networkx_graph,
    check_graph,
    check_random_state_or_entropy,
    from_networkx,
)
from .mechanisms import laplace_noise, laplace_scale
from .theory import pig_epsilon, pig_min_s

__all__ = [
    "EdgeFlipPerturbation",
    "check_adjacency",
    "dp_density",
    "flip_edges",
    "graph_density",
    "pig_epsilon",
    "pig_s_from_epsilon",
    "suggest_s",
]

# The "dense" sampler costs O(n_pairs); the sparse one O(|E| + edges added)
# with a larger constant (sorting). The dense one is used while n_pairs is at
# most this many times the expected output size, where it is also linear.
_DENSE_FACTOR = 8


# --------------------------------------------------------------------------
# Privacy parameter: s <-> epsilon (Theorem 1) and the choice of s (Theorem 2).
# Theorems 3-4 (expected edges and density) are in skdpgraph.theory.
# --------------------------------------------------------------------------


def _check_s(s):
    if isinstance(s, bool) or not isinstance(s, Real):
        raise TypeError(f"s must be a real number in (0, 1]; got {type(s).__name__}.")
    s = float(s)
    if not (0.0 < s <= 1.0):  # also rejects NaN
        raise ValueError(
            f"s must be in (0, 1] (s = 0 would release the graph unperturbed, "
            f"i.e. epsilon = inf); got s={s!r}."
        )
    return s


def _check_epsilon(epsilon):
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(
            f"epsilon must be a positive real number; got {type(epsilon).__name__}."
        )
    epsilon = float(epsilon)
    if not (0.0 < epsilon < math.inf):
        raise ValueError(f"epsilon must be positive and finite; got epsilon={epsilon!r}.")
    return epsilon


def pig_s_from_epsilon(epsilon):
    """Edge-flip parameter ``s = 2 / (1 + e^epsilon)`` giving ``epsilon``-edge-DP.

    The inverse of :func:`skdpgraph.theory.pig_epsilon` (re-exported here as
    ``pig_epsilon``). The returned float is rounded up if needed so that
    ``pig_epsilon(s) <= epsilon`` holds in floating point: the mechanism
    never spends more than asked.

    Parameters
    ----------
    epsilon : float > 0

    Returns
    -------
    s : float in (0, 1)

    Examples
    --------
    >>> from skdpgraph.perturbation import pig_s_from_epsilon
    >>> round(pig_s_from_epsilon(1.0), 4)
    0.5379
    """
    epsilon = _check_epsilon(epsilon)
    s = float(2.0 * expit(-epsilon))  # 2 / (1 + e^eps) without overflow
    if s == 0.0:
        raise ValueError(
            f"epsilon={epsilon!r} is too large: the flip probability s/2 "
            "underflows to 0 in floating point."
        )
    while s < 1.0 and pig_epsilon(s) > epsilon:
        s = float(np.nextafter(s, 1.0))
    return s


def suggest_s(density):
    """Smallest ``s`` whose perturbation doubles the expected density (Theorem 2).

    Muelle et al. choose ``s`` so that ``(1 - s) d + s/2 >= 2 d``, i.e.
    ``s >= 2 d / (1 - 2 d)``: then an edge of the perturbed graph is at least
    as likely to be fake as real. Valid for densities up to 25 % (``s = 1``).

    Computing ``density`` from the private graph leaks it (the edge count is
    itself private). Use a public density, or :func:`dp_density` and add its
    epsilon to the budget. Same formula as :func:`skdpgraph.theory.pig_min_s`,
    which also accepts ``d = 0``; here a density of 0 is refused because
    ``s = 0`` is no perturbation.

    Parameters
    ----------
    density : float or array-like of float in (0, 0.25]
        Edge density ``|E| / (n (n - 1) / 2)``.

    Returns
    -------
    s : float or ndarray

    References
    ----------
    .. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015,
       Theorem 2.

    Examples
    --------
    >>> from skdpgraph.perturbation import suggest_s
    >>> round(suggest_s(0.0108), 4)  # the Facebook ego network of the paper
    0.0221
    """
    d = np.asarray(density, dtype=np.float64)
    if not np.all((d > 0.0) & (d <= 0.25)):
        raise ValueError(
            "density must be in (0, 0.25] for Theorem 2 (at 25% it already "
            "gives s = 1; at 0 it gives s = 0, no perturbation at all); got "
            f"{density!r}."
        )
    return pig_min_s(d)


# --------------------------------------------------------------------------
# Adjacency validation
# --------------------------------------------------------------------------


def _validate_array(X, what):
    """First validation step: numeric, finite, non-empty, 2-D (graphs pass through).

    scikit-learn's ``check_array`` gives the usual messages for object,
    complex, NaN/inf and empty input. Sparse input of any format comes out
    as COO (a new object; the caller's matrix is never modified).
    """
    if _is_networkx_graph(X):
        return X
    if sp.issparse(X):
        X = sp.coo_array(X)
    return check_array(
        X,
        accept_sparse=["coo"],
        dtype="numeric",
        ensure_all_finite=True,
        ensure_min_samples=1,
        input_name=what,
    )


def _adjacency_from_validated(X, weighted, what):
    if _is_networkx_graph(X):
        graph = from_networkx(X)  # refuses directed graphs and multigraphs
    else:
        values = X.data if sp.issparse(X) else X
        if values.size and values.dtype.kind in "if" and values.min() < 0:
            # scikit-learn's wording ("Negative values in data") on purpose.
            raise ValueError(
                f"Negative values in data passed to {what}: the smallest entry "
                f"is {values.min():g}. An adjacency matrix holds edge indicators "
                "(or non-negative weights, which are ignored); negative entries "
                "have no meaning."
            )
        graph = check_graph(X, metric="precomputed", what=what)
        if not sp.issparse(graph):
            # check_graph symmetrised the array; its nonzero pattern is symmetric.
            u, v = np.nonzero(np.triu(graph, k=1))
            graph = _symmetric_csr(u, v, graph.shape[0], graph[u, v])
    if weighted:
        return graph
    out = sp.csr_array(
        (np.ones(graph.nnz, dtype=np.float64), graph.indices, graph.indptr),
        shape=graph.shape,
    )
    out.has_sorted_indices = True
    return out


def check_adjacency(X, *, weighted=False, what="X"):
    """Validate an undirected graph given as an adjacency and return it sparse.

    Parameters
    ----------
    X : array-like, sparse matrix or networkx.Graph
        * sparse (any format): stored entries are edges, an explicitly
          stored zero included;
        * dense square array: nonzero off-diagonal entries are edges (a
          dense array is an adjacency matrix here, not a complete graph of
          distances as in :func:`skdpgraph.check_graph`; a feature matrix is
          not meaningful and is refused unless square);
        * undirected networkx graph: its edges; row ``i`` is node
          ``list(X.nodes)[i]``.

        The matrix must be square, symmetric, finite and non-negative; the
        diagonal (self-loops) is ignored.
    weighted : bool, default=False
        If False, every edge gets the value 1.0. If True, the edge weights
        are kept (for sparse input an explicitly stored zero stays a
        zero-weight edge; networkx edges without a ``"weight"`` attribute get
        1.0).
    what : str, default="X"
        Name used in error messages.

    Returns
    -------
    adjacency : scipy.sparse.csr_array of shape (n, n), float64
        Symmetric, sorted indices, no diagonal; every stored entry is an edge.

    Raises
    ------
    TypeError
        For non-numeric data.
    ValueError
        For empty, non-square, asymmetric, negative, NaN or infinite
        entries, directed graphs or multigraphs, or fewer than 2 nodes.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.perturbation import check_adjacency
    >>> A = check_adjacency(np.array([[0, 2.5, 0], [2.5, 0, 0], [0, 0, 0]]))
    >>> A.toarray()
    array([[0., 1., 0.],
           [1., 0., 0.],
           [0., 0., 0.]])
    """
    return _adjacency_from_validated(_validate_array(X, what), weighted, what)


def _symmetric_csr(u, v, n, data=None):
    """Canonical symmetric CSR from edges ``u < v`` sorted lexicographically.

    Linear time: in row ``r`` the lower-triangle columns (all ``< r``) come
    before the upper-triangle ones (all ``> r``), so each half only needs its
    own order, and the upper half is already sorted.
    """
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    if data is None:
        data = np.ones(u.size, dtype=np.float64)
    data = np.asarray(data, dtype=np.float64)
    m = u.size
    n_lower = np.bincount(v, minlength=n)  # entries (v, u), u < v, in row v
    n_upper = np.bincount(u, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_lower + n_upper, out=indptr[1:])
    indices = np.empty(2 * m, dtype=np.int64)
    values = np.empty(2 * m, dtype=np.float64)
    # Upper half: row u, after the row's lower entries, in the given order.
    start_u = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_upper, out=start_u[1:])
    pos = indptr[u] + n_lower[u] + (np.arange(m) - start_u[u])
    indices[pos] = v
    values[pos] = data
    # Lower half: row v, sorted by (v, u); u is already ascending, so a
    # stable sort by v suffices.
    order = np.argsort(v, kind="stable")
    vl, ul = v[order], u[order]
    start_l = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_lower, out=start_l[1:])
    pos = indptr[vl] + (np.arange(m) - start_l[vl])
    indices[pos] = ul
    values[pos] = data[order]
    idx_dtype = np.int32 if max(n, 2 * m) < np.iinfo(np.int32).max else np.int64
    out = sp.csr_array(
        (values, indices.astype(idx_dtype), indptr.astype(idx_dtype)), shape=(n, n)
    )
    out.has_sorted_indices = True
    return out


def graph_density(adjacency):
    """Edge density ``|E| / (n (n - 1) / 2)`` of a graph (see :func:`check_adjacency`).

    This is a function of the private topology: releasing it (or anything
    computed from it, such as ``suggest_s(graph_density(A))``) is not covered
    by the edge-flip guarantee. See :func:`dp_density`.
    """
    A = check_adjacency(adjacency, what="adjacency")
    n = A.shape[0]
    return (A.nnz / 2) / (n * (n - 1) / 2)


def dp_density(adjacency, epsilon, *, random_state=None):
    """Edge density released with the Laplace mechanism (``epsilon``-edge-DP).

    Neighbouring graphs differ in one edge, so the edge count has
    sensitivity 1: ``(|E| + Laplace(1/epsilon)) / (n (n - 1) / 2)``, clipped
    to ``[0, 1]`` (post-processing). Use it to pick ``s`` with
    :func:`suggest_s` when the density is not public; the total privacy loss
    is then ``epsilon + pig_epsilon(s)`` (sequential composition).

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        See :func:`check_adjacency`.
    epsilon : float > 0
    random_state : None, int, numpy.random.Generator or RandomState
        ``None`` draws fresh OS entropy. A fixed seed makes the release
        reproducible and therefore not private against anyone who knows it.

    Returns
    -------
    density : float in [0, 1]
    """
    epsilon = _check_epsilon(epsilon)
    A = check_adjacency(adjacency, what="adjacency")
    rng = check_random_state_or_entropy(random_state)
    n = A.shape[0]
    n_pairs = n * (n - 1) / 2
    noisy = A.nnz / 2 + float(laplace_noise(laplace_scale(1.0, epsilon), None, rng))
    return float(np.clip(noisy / n_pairs, 0.0, 1.0))


# --------------------------------------------------------------------------
# The sampler
# --------------------------------------------------------------------------


def _pair_index(u, v, n):
    """Index of pair ``u < v`` in the row-major order of the strict upper triangle."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    return u * (2 * n - u - 1) // 2 + (v - u - 1)


def _pair_from_index(k, n):
    """Inverse of :func:`_pair_index` (exact in int64, float only for a guess)."""
    k = np.asarray(k, dtype=np.int64)
    b = 2.0 * n - 1.0
    disc = np.maximum(b * b - 8.0 * k.astype(np.float64), 0.0)
    u = np.floor((b - np.sqrt(disc)) / 2.0).astype(np.int64)
    np.clip(u, 0, n - 2, out=u)

    def first(r):  # index of the first pair of row r
        return r * (2 * n - r - 1) // 2

    # The float guess can be off by a little for huge n: fix it in integers.
    while True:
        low = first(u) > k
        high = (u < n - 2) & (first(u + 1) <= k)
        if not (low.any() or high.any()):
            break
        u = u - low + high
    v = k - first(u) + u + 1
    return u, v


def _sample_new_pairs(edge_keys, n_pairs, k, rng):
    """``k`` distinct pair indices drawn uniformly among the non-edges.

    Pair indices are drawn i.i.d. uniformly from ``[0, n_pairs)``; existing
    edges and repeats are rejected. Given its size, the set of distinct
    non-edges seen so far is a uniform random subset (the draws are
    exchangeable and the stopping rule only looks at the size), so a uniform
    ``k``-subset of it is a uniform ``k``-subset of the non-edges.
    """
    if k == 0:
        return np.empty(0, dtype=np.int64)
    m = edge_keys.size
    n_free = n_pairs - m
    accepted = np.empty(0, dtype=np.int64)
    while accepted.size < k:
        deficit = k - accepted.size
        left = n_free - accepted.size
        # Draws expected to hit `deficit` new non-edges (coupon collector).
        frac = min(deficit / left, 1.0 - 0.5 / left)
        n_draw = int(math.ceil(-math.log1p(-frac) * n_pairs * 1.05)) + 64
        cand = rng.integers(0, n_pairs, size=n_draw, dtype=np.int64)
        if accepted.size:
            cand = np.concatenate([accepted, cand])
        cand.sort()  # sorted queries make the membership test cache-friendly
        if m:
            pos = np.searchsorted(edge_keys, cand)
            np.minimum(pos, m - 1, out=pos)
            cand = cand[edge_keys[pos] != cand]
        keep = np.empty(cand.size, dtype=bool)
        keep[:1] = True
        np.not_equal(cand[1:], cand[:-1], out=keep[1:])
        accepted = cand[keep]
    if accepted.size > k:
        accepted = np.sort(rng.choice(accepted, size=k, replace=False))
    return accepted


def _flip_pair_keys(edge_keys, n_pairs, p, rng, method="auto"):
    """Flip every pair's bit with probability ``p``; return the new edge keys (sorted).

    ``edge_keys`` are the sorted pair indices of the edges. ``method="dense"``
    draws one uniform per pair (O(n_pairs)); ``"sparse"`` keeps each edge with
    probability ``1 - p``, draws the number of added non-edges from
    ``Binomial(n_pairs - |E|, p)`` and their positions uniformly among the
    non-edges (O(|E| + edges added)). Both sample the same law exactly.
    """
    m = edge_keys.size
    if method == "auto":
        expected = m + (n_pairs - m) * p
        method = "dense" if n_pairs <= _DENSE_FACTOR * expected + 4096 else "sparse"
    if method == "dense":
        bits = np.zeros(n_pairs, dtype=bool)
        bits[edge_keys] = True
        bits ^= rng.random(n_pairs) < p
        return np.flatnonzero(bits).astype(np.int64, copy=False)
    kept = edge_keys[rng.random(m) >= p]
    n_added = int(rng.binomial(n_pairs - m, p))
    added = _sample_new_pairs(edge_keys, n_pairs, n_added, rng)
    out = np.concatenate([kept, added])
    out.sort()
    return out


def _flip_canonical(A, s, rng):
    """Edge flipping on a canonical binary adjacency (no validation)."""
    n = A.shape[0]
    if n >= 2**31:
        raise ValueError(f"Graphs with {n} >= 2**31 nodes are not supported.")
    coo = A.tocoo()
    upper = coo.row < coo.col
    u = coo.row[upper].astype(np.int64)
    v = coo.col[upper].astype(np.int64)
    keys = np.sort(_pair_index(u, v, n))
    new_keys = _flip_pair_keys(keys, n * (n - 1) // 2, s / 2.0, rng)
    nu, nv = _pair_from_index(new_keys, n)
    return _symmetric_csr(nu, nv, n)


def flip_edges(adjacency, s, random_state=None):
    """Perturb a graph by edge flipping (PIG_pert, Algorithm 1 of Muelle et al.).

    Every unordered pair of distinct nodes keeps its adjacency bit with
    probability ``1 - s`` and gets a fair coin with probability ``s``; so
    each bit flips independently with probability ``s / 2``. The output is
    ``pig_epsilon(s) = ln(2/s - 1)``-differentially private for neighbouring
    graphs that differ in one edge.

    The sampler never builds the ``n x n`` matrix for sparse graphs: existing
    edges survive with probability ``1 - s/2``; the number of added edges is
    ``Binomial(n (n - 1) / 2 - |E|, s/2)`` and their positions are drawn
    uniformly among the non-edges (int64 pair indices, rejecting edges and
    repeats). Time and memory are ``O(|E| + edges added)``; when those are
    within a small factor of ``n (n - 1) / 2`` a direct per-pair draw is used.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        Undirected graph; weights are ignored (see :func:`check_adjacency`:
        for sparse input every stored entry, an explicit zero included, is an
        edge; for dense input every nonzero off-diagonal entry).
    s : float in (0, 1]
        Randomisation probability. See :func:`pig_s_from_epsilon` and
        :func:`suggest_s`.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        ``None`` draws fresh OS entropy. A fixed seed makes the release
        reproducible and therefore not private against anyone who knows it.

    Returns
    -------
    perturbed : scipy.sparse.csr_array of shape (n, n)
        Symmetric 0/1 adjacency (float64 ones, sorted indices, no diagonal).

    References
    ----------
    .. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015,
       Algorithm 1 and Theorem 1.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.perturbation import flip_edges, pig_epsilon
    >>> G = nx.karate_club_graph()
    >>> P = flip_edges(G, s=0.1, random_state=0)
    >>> P.shape, round(pig_epsilon(0.1), 3)
    ((34, 34), 2.944)
    """
    s = _check_s(s)
    A = check_adjacency(adjacency, what="adjacency")
    rng = check_random_state_or_entropy(random_state)
    return _flip_canonical(A, s, rng)


# --------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------


def _resolve_privacy(epsilon, s, owner):
    """``(s, epsilon)`` from exactly one of them."""
    if (epsilon is None) == (s is None):
        got = "both" if epsilon is not None else "neither"
        raise ValueError(
            f"{owner} needs exactly one of epsilon and s (epsilon = "
            f"ln(2/s - 1)); got {got}."
        )
    if s is not None:
        s = _check_s(s)
        return s, pig_epsilon(s)
    epsilon = _check_epsilon(epsilon)
    return pig_s_from_epsilon(epsilon), epsilon


def _check_n_nodes_consistent(estimator, X):
    """``X`` (after :func:`_validate_array`) must have ``n_features_in_`` columns."""
    n = X.number_of_nodes() if _is_networkx_graph(X) else X.shape[1]
    if n != estimator.n_features_in_:
        raise ValueError(
            f"X has {n} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input: it was fitted on "
            f"a graph with {estimator.n_features_in_} nodes."
        )


def _privacy_parameter_constraints():
    return {
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "s": [Interval(Real, 0, 1, closed="right"), None],
        "random_state": ["random_state", np.random.Generator],
        "accountant": [HasMethods(["check", "spend"]), None],
    }


class EdgeFlipPerturbation(TransformerMixin, BaseEstimator):
    """Edge-DP perturbation of a graph's adjacency by edge flipping (PIG_pert).

    Each pair of distinct nodes keeps its adjacency bit with probability
    ``1 - s`` and gets a fair coin with probability ``s`` (Muelle et al.,
    Algorithm 1). Each call to :meth:`transform` (or :meth:`fit_transform`)
    is one release, ``epsilon``-differentially private with
    ``epsilon = ln(2/s - 1)`` for neighbouring graphs that differ in one edge
    (their Theorem 1); whatever is computed from the output alone (a
    clustering, say) is covered by the same guarantee.

    Give exactly one of ``epsilon`` and ``s``. Weights are ignored: for
    sparse input every stored entry, an explicitly stored zero included, is
    an edge; for a dense array every nonzero off-diagonal entry is an edge (a
    dense array is read as an adjacency matrix, not as a complete graph of
    distances; a square feature-like array is thus taken by its nonzero
    pattern, and a non-square one is refused).

    Parameters
    ----------
    epsilon : float > 0, default=None
        Privacy loss per release; then ``s = 2 / (1 + e^epsilon)``.
    s : float in (0, 1], default=None
        Randomisation probability; then ``epsilon = ln(2/s - 1)``. To pick it
        from a density with Theorem 2, see :func:`suggest_s` (a density
        computed from the private graph spends privacy; see
        :func:`dp_density`).
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        ``None`` draws fresh OS entropy for every release. A fixed seed makes
        the release reproducible and therefore not private against anyone
        who knows the seed.
    accountant : object with ``check`` and ``spend``, default=None
        A budget accountant such as
        :class:`skdpgraph.accounting.BudgetAccountant` or diffprivlib's; each
        release first calls ``check(epsilon_, 0.0)`` and then
        ``spend(epsilon_, 0.0)``. ``None``: no accounting. scikit-learn's
        ``clone`` copies parameters; a ``BudgetAccountant`` copies to itself,
        so clones share its budget (not across ``n_jobs`` processes).

    Attributes
    ----------
    epsilon_ : float
        Privacy loss of one release.
    s_ : float
        Randomisation probability used; each bit flips with probability
        ``s_ / 2``.
    n_features_in_ : int
        Number of nodes of the graph seen in :meth:`fit`.

    See Also
    --------
    flip_edges : the function doing the work.
    skdpgraph.cluster.PrivateGraphClustering : perturbation then clustering.

    References
    ----------
    .. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.perturbation import EdgeFlipPerturbation
    >>> G = nx.les_miserables_graph()
    >>> pert = EdgeFlipPerturbation(epsilon=3.0, random_state=0)
    >>> P = pert.fit_transform(G)
    >>> P.shape, round(pert.s_, 4)
    ((77, 77), 0.0949)
    """

    _parameter_constraints = _privacy_parameter_constraints()

    def __init__(self, epsilon=None, s=None, random_state=None, accountant=None):
        self.epsilon = epsilon
        self.s = s
        self.random_state = random_state
        self.accountant = accountant

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    def _fit(self, X):
        self.s_, self.epsilon_ = _resolve_privacy(
            self.epsilon, self.s, type(self).__name__
        )
        A = check_adjacency(X)
        self.n_features_in_ = A.shape[0]
        return A

    def _release(self, A):
        if self.accountant is not None:
            self.accountant.check(self.epsilon_, 0.0)
        out = _flip_canonical(A, self.s_, check_random_state_or_entropy(self.random_state))
        if self.accountant is not None:
            self.accountant.spend(self.epsilon_, 0.0)
        return out

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Validate the parameters and the graph; nothing is released.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph (see :func:`check_adjacency`).
        y : Ignored

        Returns
        -------
        self : EdgeFlipPerturbation
        """
        self._fit(X)
        return self

    def transform(self, X):
        """Release a perturbed copy of ``X`` (one ``epsilon_``-DP release).

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph with ``n_features_in_`` nodes.

        Returns
        -------
        perturbed : scipy.sparse.csr_array of shape (n, n)
            Symmetric 0/1 adjacency (float64), no diagonal.
        """
        check_is_fitted(self)
        X = _validate_array(X, "X")
        _check_n_nodes_consistent(self, X)
        return self._release(_adjacency_from_validated(X, False, "X"))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit and release one perturbed copy of ``X`` (validated once).

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
        y : Ignored

        Returns
        -------
        perturbed : scipy.sparse.csr_array of shape (n, n)
        """
        return self._release(self._fit(X))
