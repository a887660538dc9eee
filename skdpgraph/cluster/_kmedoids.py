"""Graph k-medoids: k-medoids on shortest-path distances.

The k-medoids search itself is delegated to the ``kmedoids`` package
(FasterPAM, Schubert and Rousseeuw), an optional dependency:
``pip install skdpgraph[kmedoids]``.
"""

import warnings
from numbers import Integral

import numpy as np
from scipy.sparse.csgraph import connected_components, shortest_path
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from ..utils import check_adjacency, check_random_state
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
    return shortest_path(A, method="D", directed=False, unweighted=not weighted)


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
    off-diagonal entry; networkx graphs are accepted). The distance matrix
    is dense: memory is ``O(n^2)``.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of medoids.
    weighted : bool, default=False
        False: hop-count distances (the weights are ignored, as in an
        unweighted graph). True: edge weights are lengths (distances).
    method : {"fasterpam", "pam", "alternating"}, default="fasterpam"
        k-medoids algorithm of the ``kmedoids`` package.
    init : {"build", "random"}, default="build"
        Initial medoids: PAM's greedy BUILD (deterministic) or uniformly at
        random.
    max_iter : int, default=300
        Maximum number of iterations of the k-medoids search.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the random initialisation and FasterPAM's visiting order.
        ``None`` draws fresh OS entropy.

    Attributes
    ----------
    labels_ : ndarray of shape (n,), int64
        Cluster ``j`` is the set of nodes closest to ``medoid_indices_[j]``
        (ties: the lower ``j``); -1 for nodes that no medoid can reach.
    medoid_indices_ : ndarray of shape (n_clusters,), int64
        The medoids, in increasing order.
    inertia_ : float
        Sum of the finite shortest-path distances of the nodes to their
        medoid.
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
    .. [3] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015.

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
        "init": [StrOptions({"build", "random"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        weighted=False,
        method="fasterpam",
        init="build",
        max_iter=300,
        random_state=None,
    ):
        self.n_clusters = n_clusters
        self.weighted = weighted
        self.method = method
        self.init = init
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the nodes of the graph ``X``.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph.
        y : Ignored

        Returns
        -------
        self : GraphKMedoids
        """
        kmedoids = _import_kmedoids()
        A = check_adjacency(X, weighted=self.weighted)
        n = A.shape[0]
        k = int(self.n_clusters)
        if k > n:
            raise ValueError(
                f"n_clusters={k} is larger than the number of nodes ({n})."
            )
        self.n_features_in_ = n
        self.n_components_ = int(connected_components(A, directed=False)[0])
        D = shortest_path(A, method="D", directed=False, unweighted=not self.weighted)
        finite = np.isfinite(D)
        disconnected = not finite.all()
        if disconnected:
            d_max = float(D[finite].max())
            D[~finite] = n * d_max + 1.0

        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        if self.method == "fasterpam":
            res = kmedoids.fasterpam(
                D, k, max_iter=self.max_iter, init=self.init, random_state=seed, n_cpu=1
            )
        elif self.method == "pam":
            res = kmedoids.pam(D, k, max_iter=self.max_iter, init=self.init, random_state=seed)
        else:
            res = kmedoids.alternating(
                D, k, max_iter=self.max_iter, init=self.init, random_state=seed
            )

        medoids = np.sort(np.asarray(res.medoids, dtype=np.int64))
        # Relabel from the distances (do not depend on the solver's tie rule):
        # nearest medoid, ties to the lower index, and each medoid in its own
        # cluster even when another medoid is at distance 0.
        to_medoid = D[:, medoids]
        labels = np.argmin(to_medoid, axis=1).astype(np.int64)
        labels[medoids] = np.arange(k)
        dist = to_medoid[np.arange(n), labels]
        if disconnected:
            unreached = ~finite[np.arange(n), medoids[labels]]
            if unreached.any():
                labels[unreached] = -1
                dist = np.where(unreached, 0.0, dist)
                warnings.warn(
                    f"The graph has {self.n_components_} connected components "
                    f"but n_clusters={k}: {int(unreached.sum())} node(s) in "
                    "components without a medoid get label -1.",
                    UserWarning,
                    stacklevel=3,
                )
        self.labels_ = labels
        self.medoid_indices_ = medoids
        self.inertia_ = float(dist.sum())
        self.n_iter_ = int(res.n_iter)
        return self
