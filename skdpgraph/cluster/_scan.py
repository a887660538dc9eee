"""SCAN: structural clustering of the nodes of an unweighted graph (Xu et al. 2007)."""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from ..utils import check_adjacency
from ..utils._docs import fill_doc
from ..utils._neighbours import common_neighbour_counts
from ..utils._param_validation import Interval
from ..utils._sparse import component_labels
from ._base import AdjacencyInputMixin, set_result_attributes

#: Values of ``SCAN.node_kind_``.
NODE_KINDS = ("core", "border", "hub", "outlier")

class SCANResult(NamedTuple):
    """Result of :func:`scan`.

    Attributes
    ----------
    labels : ndarray of shape (n,), int64
        Cluster of each node, ``0..n_clusters-1``, or -1 for hubs and
        outliers. Clusters are numbered by their smallest node index.
    node_kind : ndarray of shape (n,), str
        ``"core"``, ``"border"`` (clustered, not a core), ``"hub"``
        (unclustered, with neighbours in two or more clusters) or
        ``"outlier"`` (unclustered, neighbours in at most one cluster).
    core_sample_indices : ndarray of int64
        Indices of the cores, increasing.
    n_clusters : int
        Number of clusters (hubs and outliers are in none).
    """

    labels: np.ndarray
    node_kind: np.ndarray
    core_sample_indices: np.ndarray
    n_clusters: int


def _similarity_data(A):
    """Structural similarity of every stored entry of a canonical binary ``A``."""
    deg = np.diff(A.indptr).astype(np.float64)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    cols = A.indices
    # Closed neighbourhoods of adjacent u, v share N(u) & N(v) plus u and v.
    common = common_neighbour_counts(A) + 2.0
    return rows, cols, common / np.sqrt((deg[rows] + 1.0) * (deg[cols] + 1.0))


def structural_similarity(adjacency):
    """Structural similarity of the endpoints of every edge (Xu et al. 2007).

    ``sigma(u, v) = |N[u] & N[v]| / sqrt(|N[u]| |N[v]|)`` where
    ``N[u] = N(u) + {u}`` is the closed neighbourhood. The common
    neighbours of all edges are counted at once by listing each triangle
    once (edges oriented by degree), in ``O(|E| sqrt(|E|))`` time at worst
    and linear memory, without forming ``A @ A``; on dense graphs, by the
    popcount of the AND of the endpoints' rows packed as bitsets, when that
    is estimated faster (``n**2 / 8`` bytes, at most the size of the graph).

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        Undirected graph; weights are ignored (see
        :func:`skdpgraph.utils.check_adjacency`).

    Returns
    -------
    similarity : scipy.sparse.csr_array of shape (n, n)
        Symmetric, with ``sigma(u, v) > 0`` stored at every edge and nothing
        else stored.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import structural_similarity
    >>> path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> structural_similarity(path).toarray().round(3)
    array([[0.   , 0.816, 0.   ],
           [0.816, 0.   , 0.816],
           [0.   , 0.816, 0.   ]])
    """
    A = check_adjacency(adjacency, what="adjacency")
    _, _, sim = _similarity_data(A)
    out = sp.csr_array((sim, A.indices, A.indptr), shape=A.shape)
    out.has_sorted_indices = True
    return out


def _check_scan_params(similarity_threshold, min_neighbors):
    if isinstance(similarity_threshold, bool) or not isinstance(similarity_threshold, Real):
        raise TypeError("similarity_threshold must be a real number in (0, 1].")
    if not 0.0 < similarity_threshold <= 1.0:
        raise ValueError(
            f"similarity_threshold must be in (0, 1]; got {similarity_threshold!r}."
        )
    if isinstance(min_neighbors, bool) or not isinstance(min_neighbors, Integral):
        raise TypeError("min_neighbors must be an integer >= 1.")
    if min_neighbors < 1:
        raise ValueError(f"min_neighbors must be >= 1; got {min_neighbors!r}.")


def _scan_canonical(A, similarity_threshold, min_neighbors):
    n = A.shape[0]
    rows, cols, sim = _similarity_data(A)
    similar = sim >= similarity_threshold
    # |N_eps(v)| counts v itself (sigma(v, v) = 1).
    eps_size = 1 + np.bincount(rows[similar], minlength=n)
    is_core = eps_size >= min_neighbors

    # Clusters: connected components of the cores under core-core eps-edges.
    cc = similar & is_core[rows] & is_core[cols]
    _, comp = component_labels(rows[cc], cols[cc], n)
    labels = np.full(n, -1, dtype=np.int64)
    cores = np.flatnonzero(is_core)
    labels[cores] = comp[cores]

    # Borders: non-cores in the eps-neighbourhood of a core. A border within
    # reach of several clusters goes to its most similar core (ties: the
    # core with the smallest index), which makes the result independent of
    # any visiting order.
    bc = similar & ~is_core[rows] & is_core[cols]
    b_node, b_core, b_sim = rows[bc], cols[bc], sim[bc]
    order = np.lexsort((b_core, -b_sim, b_node))
    b_node, b_core = b_node[order], b_core[order]
    head = np.ones(b_node.size, dtype=bool)
    head[1:] = b_node[1:] != b_node[:-1]
    labels[b_node[head]] = labels[b_core[head]]

    # Number the clusters 0, 1, ... by their smallest node.
    member = np.flatnonzero(labels >= 0)
    _, first, inverse = np.unique(labels[member], return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    labels[member] = rank[inverse]
    n_clusters = int(first.size)

    kind = np.full(n, "outlier", dtype="<U7")
    kind[is_core] = "core"
    kind[(labels >= 0) & ~is_core] = "border"
    # Hubs: unclustered nodes adjacent to two or more clusters.
    un = (labels[rows] < 0) & (labels[cols] >= 0)
    pairs = np.unique(rows[un] * (n_clusters + 1) + labels[cols[un]])
    n_adjacent = np.bincount(pairs // (n_clusters + 1), minlength=n)
    kind[(labels < 0) & (n_adjacent >= 2)] = "hub"
    return SCANResult(labels, kind, cores.astype(np.int64), n_clusters)


def scan(adjacency, *, similarity_threshold=0.7, min_neighbors=2):
    """SCAN structural clustering of an unweighted graph (Xu et al. 2007).

    With closed neighbourhoods ``N[v] = N(v) + {v}`` and the structural
    similarity ``sigma(u, v) = |N[u] & N[v]| / sqrt(|N[u]| |N[v]|)``:

    * the ``similarity_threshold``-neighbourhood of ``v`` is
      ``{w in N[v] : sigma(v, w) >= similarity_threshold}`` (it contains
      ``v``);
    * ``v`` is a *core* if that neighbourhood has at least ``min_neighbors``
      nodes, ``v`` included;
    * clusters are the connected components of the cores linked by
      similar edges (structure-reachability), together with the non-core
      nodes similar to one of their cores (*borders*). A border similar to
      cores of several clusters joins the cluster of its most similar core
      (ties: smallest core index); Xu et al. leave this to the visiting order;
    * unclustered nodes are *hubs* if their neighbours belong to two or more
      clusters, *outliers* otherwise.

    The similarities of all edges come from one listing of the triangles
    (edges oriented by degree, each triangle found once), in
    ``O(|E| sqrt(|E|))`` time at worst and linear memory, or on dense graphs
    (such as those released by edge flipping) from the rows packed as
    bitsets, ``n / 64`` word operations per edge, whichever is estimated
    faster; everything else is linear in ``|V| + |E|``.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        Undirected graph; weights are ignored (sparse: every stored entry,
        an explicit zero included, is an edge; dense: every nonzero
        off-diagonal entry).
    similarity_threshold : float in (0, 1], default=0.7
        Xu et al.'s epsilon (not a privacy parameter).
    min_neighbors : int >= 1, default=2
        Xu et al.'s mu.

    Returns
    -------
    result : SCANResult
        ``labels``, ``node_kind``, ``core_sample_indices``, ``n_clusters``.

    References
    ----------
    .. [1] X. Xu, N. Yuruk, Z. Feng and T. A. J. Schweiger, "SCAN: A
       Structural Clustering Algorithm for Networks", KDD 2007,
       Definitions 1-8.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import scan
    >>> G = nx.barbell_graph(5, 1)  # two 5-cliques joined through node 5
    >>> A = nx.to_scipy_sparse_array(G, nodelist=range(11))
    >>> res = scan(A, similarity_threshold=0.7, min_neighbors=3)
    >>> res.labels
    array([ 0,  0,  0,  0,  0, -1,  1,  1,  1,  1,  1])
    >>> str(res.node_kind[5])
    'hub'
    """
    _check_scan_params(similarity_threshold, min_neighbors)
    A = check_adjacency(adjacency, what="adjacency")
    return _scan_canonical(A, float(similarity_threshold), int(min_neighbors))


@fill_doc
class SCAN(AdjacencyInputMixin, ClusterMixin, BaseEstimator):
    """SCAN structural graph clustering (Xu et al. 2007), with hubs and outliers.

    Read more in :func:`scan`. The input is the adjacency of an undirected
    graph; weights are ignored (sparse: every stored entry, an explicitly
    stored zero included, is an edge; dense: every nonzero off-diagonal
    entry is an edge, so a square array is taken by its nonzero pattern;
    networkx graphs are accepted).

    Parameters
    ----------
    similarity_threshold : float in (0, 1], default=0.7
        Minimum structural similarity of two adjacent nodes for them to be
        in each other's neighbourhood (Xu et al.'s epsilon; unrelated to a
        privacy epsilon).
    min_neighbors : int >= 1, default=2
        Minimum size of a core's similar neighbourhood, the node itself
        included (Xu et al.'s mu).
    {{verbose}}

    Attributes
    ----------
    labels_ : ndarray of shape (n,), int64
        Cluster of each node, -1 for hubs and outliers.
    node_kind_ : ndarray of shape (n,), str
        ``"core"``, ``"border"``, ``"hub"`` or ``"outlier"``.
    core_sample_indices_ : ndarray of int64
        Indices of the cores.
    n_clusters_ : int
    n_features_in_ : int
        Number of nodes.

    See Also
    --------
    skdpgraph.cluster.PrivateGraphClustering : SCAN on an edge-DP perturbed
        graph (PIG-SCAN).

    References
    ----------
    .. [1] X. Xu, N. Yuruk, Z. Feng and T. A. J. Schweiger, "SCAN: A
       Structural Clustering Algorithm for Networks", KDD 2007.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.cluster import SCAN
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(5, 1), nodelist=range(11))
    >>> model = SCAN(similarity_threshold=0.7, min_neighbors=3).fit(A)
    >>> model.labels_
    array([ 0,  0,  0,  0,  0, -1,  1,  1,  1,  1,  1])
    >>> model.n_clusters_
    2
    """

    _parameter_constraints = {
        "similarity_threshold": [Interval(Real, 0, 1, closed="right")],
        "min_neighbors": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __init__(self, similarity_threshold=0.7, min_neighbors=2, verbose=0):
        self.similarity_threshold = similarity_threshold
        self.min_neighbors = min_neighbors
        self.verbose = verbose

    def _fit_adjacency(self, A):
        res = _scan_canonical(A, float(self.similarity_threshold), int(self.min_neighbors))
        set_result_attributes(self, res)
