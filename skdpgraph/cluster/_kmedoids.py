"""Graph k-medoids: k-medoids on shortest-path distances.

The k-medoids search itself is delegated to the ``kmedoids`` package
(FasterPAM, Schubert and Rousseeuw), an optional dependency:
``pip install skdpgraph[kmedoids]``.
"""

import math
from numbers import Integral, Real

import numpy as np
from scipy.sparse.csgraph import connected_components, shortest_path
from sklearn.base import BaseEstimator, ClusterMixin

from ..exceptions import DisconnectedGraphWarning
from ..utils import check_adjacency, check_random_state
from ..utils._config import warn_data_dependent
from ..utils._docs import fill_doc
from ..utils._param_validation import Interval, StrOptions
from ._base import AdjacencyInputMixin


def _import_kmedoids():
    try:
        import kmedoids
    except ImportError as exc:
        raise ImportError(
            "GraphKMedoids needs the optional dependency 'kmedoids' (FasterPAM). "
            "Install it with `pip install skdpgraph[kmedoids]` "
            "(or `pip install kmedoids`)."
        ) from exc
    return kmedoids


def graph_distances(adjacency, *, weighted=False):
    """All-pairs shortest-path distances of an undirected graph.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        See :func:`skdpgraph.utils.check_adjacency`.
    weighted : bool, default=False
        False: hop counts (every edge has length 1). True: the stored
        weights are edge lengths (distances; an explicitly stored zero is
        a zero-length edge).

    Returns
    -------
    distances : ndarray of shape (n, n), float64
        ``inf`` between nodes of different connected components.
    """
    A = check_adjacency(adjacency, weighted=weighted, what="adjacency")
    # Symmetric (both directions stored): directed search, same distances.
    return shortest_path(A, method="D", directed=True, unweighted=not weighted)


def _covering_start(component, k, seed):
    """``k`` random distinct nodes, one in each of the ``k`` largest components first."""
    rng = np.random.default_rng(seed)
    covered = np.argsort(-np.bincount(component), kind="stable")[:k]
    perm = rng.permutation(component.size)
    first = np.unique(component[perm], return_index=True)[1]  # a uniform node of each
    picks = perm[first][covered]
    rest = rng.choice(np.setdiff1d(perm, picks), size=k - picks.size, replace=False)
    return np.sort(np.concatenate([picks, rest]).astype(np.int64))


# Rows of distances computed per call of scipy's shortest_path: the float64
# block is at most this many bytes (memory control; the calls cost O(|E|) each).
_BLOCK_BYTES = 1 << 26


def _distance_dtype(n, weighted):
    """int32 for hop counts while ``n * n`` (a bound on the sentinel) fits, else float64."""
    return np.dtype(np.float64) if weighted or n * n >= 2**31 else np.dtype(np.int32)


def _block_rows(n):
    """Rows per shortest_path call: at most ``_BLOCK_BYTES`` and a 16th of the
    matrix (the float64 block stays small next to an int32 matrix)."""
    return max(1, min(_BLOCK_BYTES // (8 * n), n // 16))


def _distance_bytes(n, weighted):
    """Bytes allocated for the distances of ``n`` nodes: the matrix and one block."""
    return n * n * _distance_dtype(n, weighted).itemsize + _block_rows(n) * n * 9


def _dense_distances(A, weighted):
    """All-pairs shortest-path distances as a dense matrix, block of rows by block.

    Hop counts are stored as int32 (exact, half the memory of float64; the
    ``kmedoids`` package accumulates them in int64). Pairs in different
    components get ``n * d_max + 1`` with ``d_max`` the largest finite
    distance (see :class:`GraphKMedoids`).
    """
    n = A.shape[0]
    dtype = _distance_dtype(n, weighted)
    D = np.empty((n, n), dtype=dtype)
    step = _block_rows(n)
    d_max, disconnected = 0.0, False
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        # A is symmetric (both directions stored): the directed search gives
        # the same distances without scipy's extra pass over the transpose.
        block = shortest_path(A, method="D", directed=True, unweighted=not weighted,
                              indices=np.arange(lo, hi))
        inf = np.isinf(block)
        if inf.any():
            disconnected = True
            block[inf] = -1.0  # sentinel, replaced below (distances are >= 0)
        d_max = max(d_max, float(block.max()))
        D[lo:hi] = block
        del block, inf
    if disconnected:
        far = dtype.type(n * d_max + 1.0)
        for lo in range(0, n, step):
            rows = D[lo:lo + step]
            rows[rows < 0] = far
    return D, disconnected


@fill_doc
class GraphKMedoids(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """k-medoids clustering of the nodes of a graph on shortest-path distances.

    Graph k-medoids as evaluated by Muelle et al. for PIG: the distance
    between two nodes is the length of a shortest path between them (hop
    count by default), and k-medoids picks ``n_clusters`` nodes (medoids)
    minimising the sum of distances of the nodes to their nearest medoid.
    The search uses the ``kmedoids`` package (FasterPAM or PAM), an optional
    dependency: ``pip install skdpgraph[kmedoids]``.

    Disconnected graphs: a distance between components (infinite) is
    replaced by ``n * d_max + 1`` where ``d_max`` is the largest finite
    distance. That exceeds any possible sum of finite distances, so the
    objective first covers as many nodes as possible with medoids (every
    component gets one when ``n_clusters`` is at least the number of
    components, the largest components first otherwise) and then minimises
    the finite distances. Nodes left in a component without a medoid get
    label -1 and a warning is emitted.

    The input is the adjacency of an undirected graph (sparse: every stored
    entry, an explicit zero included, is an edge; dense: every nonzero
    off-diagonal entry; networkx graphs are accepted).

    Scale: the distances form a dense ``n x n`` matrix, 4 bytes per pair
    for hop counts (int32) and 8 for weighted lengths, so memory is
    ``O(n^2)`` and time ``O(n |E| log n)`` for the distances plus FasterPAM's
    ``O(n^2)`` per iteration: graphs of about ``10^4`` nodes (0.4 GB of hop
    counts) are the practical limit (measured times in ``docs/edge_dp.md``).
    Before allocating, the memory is estimated from ``n`` alone and a graph
    needing more than ``max_memory`` is refused with a ``ValueError`` giving
    the estimate.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of medoids.
    weighted : bool, default=False
        False: hop-count distances (the weights are ignored, as in an
        unweighted graph). True: edge weights are lengths (distances).
    method : {"fasterpam", "pam", "alternating"}, default="fasterpam"
        k-medoids algorithm of the ``kmedoids`` package.
    init : {"random", "build"}, default="random"
        Initial medoids: uniformly at random (the ``kmedoids`` package's
        default), or PAM's greedy BUILD (deterministic, ``O(n^2 k)`` time).
        With FasterPAM, random starts reach about the same objective in less
        time (``docs/edge_dp.md``).
    max_iter : int, default=300
        Maximum number of iterations of the k-medoids search.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the random initialisation and FasterPAM's visiting order.
        ``None`` draws fresh OS entropy.
    max_memory : float or None, default=2048
        Largest memory, in MiB, the distance matrix may take (with one block
        of temporaries): about ``4 n^2`` bytes for hop counts and ``8 n^2``
        for weighted lengths, so 2048 MiB admits 22,700 nodes (16,000
        weighted). A larger graph raises ``ValueError`` before anything is
        allocated. ``None``: no limit.
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,), int64
        Cluster ``j`` is the set of nodes closest to ``medoid_indices_[j]``
        (ties: the lower ``j``); -1 for nodes that no medoid can reach.
    medoid_indices_ : ndarray of shape (n_clusters,), int64
        The medoids, in increasing order.
    inertia_ : float
        Sum of the finite shortest-path distances of the nodes to their
        medoid (a node labelled -1 counts 0: compare the inertias of fits
        that leave the same nodes out).
    n_iter_ : int
        Iterations run by the k-medoids search.
    n_components_ : int
        Number of connected components of the graph.
    n_features_in_ : int
        Number of nodes.

    See Also
    --------
    skdpgraph.cluster.PrivateGraphClustering : graph k-medoids on an edge-DP
        perturbed graph (PIG-k-medoids).

    References
    ----------
    .. [1] M. J. Rattigan, M. Maier and D. Jensen, "Graph clustering with
       network structure indices", ICML 2007.
    .. [2] E. Schubert and P. J. Rousseeuw, "Fast and eager k-medoids
       clustering: O(k) runtime improvement of the PAM, CLARA, and CLARANS
       algorithms", Information Systems 101, 2021.
    .. [3] {{muelle}}

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import GraphKMedoids
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(5, 0), nodelist=range(10))
    >>> GraphKMedoids(n_clusters=2, random_state=0).fit(A).labels_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "weighted": ["boolean"],
        "method": [StrOptions({"fasterpam", "pam", "alternating"})],
        "init": [StrOptions({"random", "build"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
        "max_memory": [Interval(Real, 0, None, closed="neither"), None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        weighted=False,
        method="fasterpam",
        # FasterPAM from random medoids reaches about BUILD's objective in
        # less time at every size measured (docs/edge_dp.md), and BUILD's
        # O(n^2 k) grows fastest: random everywhere, no size rule.
        init="random",
        max_iter=300,
        random_state=None,
        max_memory=2048,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.weighted = weighted
        self.method = method
        self.init = init
        self.max_iter = max_iter
        self.random_state = random_state
        self.max_memory = max_memory
        self.verbose = verbose

    def _weighted_input(self):
        return self.weighted

    def _check_graph_size(self, n):
        """Refuse ``n`` nodes whose distance matrix passes ``max_memory`` (public: ``n``
        alone, so a private fit checks it before it spends)."""
        needed = _distance_bytes(n, self.weighted)
        if self.max_memory is not None and needed > self.max_memory * 2**20:
            kind = "weighted lengths, 8" if self.weighted else "hop counts, 4"
            raise ValueError(
                f"GraphKMedoids needs the dense n x n matrix of shortest-path "
                f"distances ({kind} bytes per pair): {n} nodes need about "
                f"{needed / 2**20:,.0f} MiB, more than max_memory="
                f"{self.max_memory} MiB. Raise the limit, e.g. "
                f"GraphKMedoids(..., max_memory={math.ceil(needed / 2**20)}), or "
                "set max_memory=None; the time grows like n^2 per FasterPAM "
                "iteration too."
            )

    def _fit_adjacency(self, A):
        kmedoids = _import_kmedoids()
        n = A.shape[0]
        k = int(self.n_clusters)
        if k > n:
            raise ValueError(
                f"n_clusters={k} is larger than the number of nodes ({n})."
            )
        self._check_graph_size(n)
        n_components, component = connected_components(A, directed=False)
        self.n_components_ = int(n_components)
        D, disconnected = _dense_distances(A, self.weighted)

        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        if self.method == "fasterpam":
            res = kmedoids.fasterpam(
                D, k, max_iter=self.max_iter, init=self.init, random_state=seed, n_cpu=1
            )
        elif self.method == "pam":
            res = kmedoids.pam(D, k, max_iter=self.max_iter, init=self.init, random_state=seed)
        else:
            # A local search that keeps each medoid in its component: on a disconnected
            # graph with random starts it starts from one medoid in each of the largest
            # components (as the objective's optimum has), so that no component it could
            # cover is left without one.
            start = (_covering_start(component, k, seed)
                     if disconnected and self.init == "random" else k)
            res = kmedoids.alternating(  # a given start takes no seed
                D, start, max_iter=self.max_iter, init=self.init,
                random_state=seed if isinstance(start, int) else None
            )

        medoids = np.sort(np.asarray(res.medoids, dtype=np.int64))
        # Relabel from the distances (do not depend on the solver's tie rule):
        # nearest medoid, ties to the lower index, and each medoid in its own
        # cluster even when another medoid is at distance 0.
        to_medoid = D[:, medoids]
        del D
        labels = np.argmin(to_medoid, axis=1).astype(np.int64)
        labels[medoids] = np.arange(k)
        dist = to_medoid[np.arange(n), labels].astype(np.float64)
        if disconnected:
            unreached = component != component[medoids[labels]]
            if unreached.any():
                labels[unreached] = -1
                dist = np.where(unreached, 0.0, dist)
                warn_data_dependent(
                    f"The graph has {self.n_components_} connected components "
                    f"but n_clusters={k}: {int(unreached.sum())} node(s) in "
                    "components without a medoid get label -1.",
                    DisconnectedGraphWarning,
                )
        self.labels_ = labels
        self.medoid_indices_ = medoids
        self.inertia_ = float(dist.sum())
        self.n_iter_ = int(res.n_iter)
