"""DBMSTClu: parameter-free clustering by cutting a minimum spanning tree.

References
----------
.. [1] M. Morvan, K. Vasilopoulos, C. Gouy-Pailler, J. Atif. "DBMSTClu:
   Density-based MST clustering", 2017 (Section 4).
.. [2] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif. "Graph-based
   Clustering under Differential Privacy", UAI 2018, Section 3.2.1,
   Definitions 3.3-3.6 and Algorithm 1.
"""

from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from ..distributed import is_edge_table, table_spanning_forest
from ..metrics._scores import dbcvi_from_labels
from ..tree import check_tree, tree_from_graph
from ..utils import StageLogger
from ..utils._validation import check_canonical_indices
from ..utils._param_validation import fit_context
from ._base import (
    DBMSTCLU_FIELDS,
    GRAPH_INPUT_CONSTRAINTS,
    check_graph_input,
    set_result_attributes,
    warn_if_constant_weights,
)

#: Two DBCVI gains closer than ``TIE_RTOL * n`` are treated as equal (a tie),
#: so that ties in exact arithmetic are broken by the documented rule rather
#: than by floating-point rounding.
TIE_RTOL = 1e-9


class DBMSTCluResult(NamedTuple):
    """Output of :func:`dbmstclu`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        Cluster of each node, ``0..n_clusters-1``, numbered by smallest node.
    n_clusters : int
        Number of clusters.
    dbcvi : float
        Final validity index of the partition.
    cut_edges : ndarray of shape (k, 2)
        The cut tree edges ``(u, v)``, ``u < v``, in the order they were cut.
    cut_weights : ndarray of shape (k,)
        Their weights.
    dbcvi_path : ndarray of shape (k,)
        The index after each cut.
    """

    labels: np.ndarray
    n_clusters: int
    dbcvi: float
    cut_edges: np.ndarray
    cut_weights: np.ndarray
    dbcvi_path: np.ndarray


def dbmstclu(tree, *, check_input=True):
    """Cluster the nodes of a weighted spanning tree (or forest) with DBMSTClu.

    Starting from one cluster and ``DBCVI = -1`` (so the first cut is always
    made), each step evaluates every remaining tree edge as a cut, takes the
    one giving the largest DBCVI (Definition 3.6 of [2]) and makes it if that
    value is ``>=`` the current DBCVI; otherwise, or once ``DBCVI = 1``, it
    stops (Algorithm 1 of [2]).

    Parameters
    ----------
    tree : sparse matrix, or :class:`~skdpgraph.SpanningTree`
        Symmetric weighted forest; weights are distances (>= 0). A
        :class:`~skdpgraph.SpanningTree` may hold negative weights (noisy
        releases such as Laplace-MST's do): they count as 0.
    check_input : bool, default=True
        Check ``tree`` with :func:`~skdpgraph.tree.check_tree`; pass False
        only for a :class:`~skdpgraph.SpanningTree` built by the library.

    Returns
    -------
    DBMSTCluResult

    Notes
    -----
    *Ties.* Among cuts with the same (largest) DBCVI, the one whose edge comes
    last in the lexicographic order of the tree's edges ``(u, v)``, ``u < v``,
    is made: this is Algorithm 1's loop (line 10 keeps the last candidate
    whose value is ``>=`` the running best) over that edge order. Values
    within ``1e-9`` of each other in DBCVI units count as equal (the index
    of the connected component: ``1e-9 * n`` in the sums ``n * DBCVI`` that
    are compared, ``n`` the size of the component). The rule is applied in
    two stages, as the cut is chosen: each cluster's best cut is the last in
    edge order among its cuts within the tolerance of its best value, and
    the cut made is the last in edge order among those clusters' best cuts
    whose values are within the tolerance of the largest. The stages differ
    from one pass over all cuts only for values that differ by less than
    the tolerance without being equal.

    *Zero weights.* A cluster with dispersion 0 (a singleton, or nodes joined
    by zero-weight edges) has validity 1; a cluster with separation 0 and
    positive dispersion has validity -1. The index is never NaN.

    *Forests.* Each connected component is clustered as DBMSTClu clusters it
    alone (its own first cut is always made); components are never merged.
    The reported index is the size-weighted mean of the components' indices,
    each starting at -1 (an isolated node counts as a singleton, index 1);
    for a tree it is exactly the index of [2].

    *Speed.* Cutting an edge of cluster C changes only C's term of the index
    and no cut value in another cluster, so the best cut of every cluster and
    the two clusters it makes are found first, the smaller side of each cut
    before the larger, and the greedy order is replayed over that tree of
    splits. A cluster is laid out in a DFS preorder with heavy children first
    (heavy-light decomposition): a candidate's subtree is a range of
    positions, its rest a prefix plus a suffix, the ancestors of a node
    O(log n) ranges. A segment tree over those positions keeps counts,
    extremes and an upper bound of every candidate's value, and a branch and
    bound over it finds the best cut exactly, ties included. The bounds stay
    valid under a cut below a node that leaves the node's largest edge and
    smallest cut as they were, so a cut makes only the ancestors whose
    extremes it took be evaluated again. The work per cut stays within a few
    microseconds on every shape measured but one: a heavy path peeled one node
    at a time beside a large light part, where it grows about like the square
    root of the cluster's size (see ``docs/dbmstclu.md``). The engine is compiled with numba
    on first use. See ``docs/dbmstclu.md``.
    """
    from ._dbmstclu_kernels import cut_sequence  # numba: imported (and compiled) on first use

    if check_input:
        tree = check_tree(tree)
    else:
        check_canonical_indices(edges=tree.edges, n=tree.tree.shape[0],
                                n_weights=np.shape(tree.weights)[0])
        # The compiled loops mark empty ranges with +-inf: an infinite or NaN weight
        # breaks them, and ended the process.
        if not np.all(np.isfinite(np.asarray(tree.weights, dtype=np.float64))):
            raise ValueError("tree contains NaN or infinite weights; weights must be finite.")
    n, w = tree.tree.shape[0], np.asarray(tree.weights, dtype=np.float64)
    if n == 0:
        raise ValueError("tree has no node: DBMSTClu needs at least one.")
    cuts, path, labels = cut_sequence(n, tree.edges, w, TIE_RTOL)
    cut_edges = tree.edges[cuts].reshape(-1, 2)
    n_clusters = int(labels.max()) + 1
    u, v = tree.edges.T
    dbcvi = dbcvi_from_labels(n, u, v, w, labels, n_clusters)
    # The path sums the gains of the cuts; rounding may leave it a few ulps
    # outside [-1, 1], where the index lies.
    path = np.clip(path / n, -1.0, 1.0)
    return DBMSTCluResult(labels, n_clusters, dbcvi, cut_edges, w[cuts], path)


class DBMSTClu(ClusterMixin, BaseEstimator):
    """Density-based clustering by cutting a minimum spanning tree.

    Builds the graph from ``X`` (see :func:`skdpgraph.check_graph`), takes
    its exact minimum spanning tree (a graph that already is a forest is used
    as is), and cuts it greedily while the DBCVI validity index does not
    decrease (:func:`dbmstclu`). It has no clustering parameter: the number of
    clusters follows from the index. The index of every clustering it
    compares is scale invariant, so the weights need no normalisation (a
    component left whole has separation 1 by the paper's convention, which
    is not; DBMSTClu cuts every component of two nodes or more).

    Parameters
    ----------
    metric : str or callable, default="euclidean"
        ``"precomputed"``: ``X`` is a graph (dense distance matrix = complete
        graph; sparse matrix = its stored entries are the edges). Otherwise
        ``X`` is a feature matrix and the graph is the complete graph of
        pairwise distances (memory O(n^2); for large data pass a sparse
        graph such as :class:`skdpgraph.graphs.EpsilonGraph`'s output).
    metric_params : dict, default=None
        Extra keyword arguments for the metric.
    weight_kind : {"distance", "similarity"} or None, default=None
        What the weights of a graph (``metric="precomputed"`` or a networkx
        graph) mean. ``"similarity"`` (counts, affinities, a kernel):
        converted into distances with ``1 / w`` (for other conversions use
        :class:`skdpgraph.graphs.SimilarityToDistance` or
        :func:`skdpgraph.from_networkx`). ``"distance"``: used as they are.
        ``None``: used as distances, with a
        :class:`~skdpgraph.exceptions.WeightMeaningWarning` when they look like
        similarities (see :func:`skdpgraph.check_graph`).
    verbose : int, default=0
        ``> 0``: print one line per stage of the fit (validation, tree,
        cuts) with its duration to standard error.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster labels ``0..n_clusters_-1``.
    n_clusters_ : int
    dbcvi_ : float
        Final DBCVI.
    tree_ : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The spanning tree (forest) that was cut.
    cut_edges_ : ndarray of shape (n_cuts, 2)
        Cut edges in the order made.
    cut_weights_ : ndarray of shape (n_cuts,)
        Their weights.
    dbcvi_path_ : ndarray of shape (n_cuts,)
        The index after each cut.

    Notes
    -----
    A disconnected graph gives a spanning forest; each component is clustered
    on its own (components are never merged, and each is cut at least once
    if it has two nodes or more). See :func:`dbmstclu` for ties and zero
    weights. A graph whose edges all have the same weight (an unweighted
    graph) gives one cluster per node (all weights 0: a split in two), with a
    :class:`~skdpgraph.exceptions.ConstantWeightsWarning`: give it structural
    distances first (:class:`skdpgraph.graphs.StructuralDistance`).

    The engine is compiled (numba) the first time it runs in an installation
    and loaded from numba's cache afterwards; ``docs/dbmstclu.md`` gives the
    times.

    References
    ----------
    Pinot et al., "Graph-based Clustering under Differential Privacy",
    UAI 2018, Section 3.2.1 and Algorithm 1; Morvan et al., "DBMSTClu:
    Density-based MST clustering", 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import DBMSTClu
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> DBMSTClu().fit_predict(X)
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints = {**GRAPH_INPUT_CONSTRAINTS, "verbose": ["verbose"]}

    def __init__(self, metric="euclidean", metric_params=None, weight_kind=None, verbose=0):
        self.metric = metric
        self.metric_params = metric_params
        self.weight_kind = weight_kind
        self.verbose = verbose

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y=None):
        """Build the tree of ``X`` and cut it.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Features, or a graph with ``metric="precomputed"``.
        y : ignored
            Not used, present for API consistency.

        Returns
        -------
        self : DBMSTClu
        """
        log = StageLogger(self.verbose, "DBMSTClu")
        with log.stage("validation") as note:
            graph, n_features = check_graph_input(self, X)
            note(f"{graph.shape[0]} nodes")
        self.n_features_in_ = n_features
        with log.stage("minimum spanning tree"):
            if is_edge_table(graph):  # the exact forest, computed on the cluster
                tree = table_spanning_forest(graph, verbose=self.verbose)
                warn_if_constant_weights(tree.tree)
            else:
                warn_if_constant_weights(graph)
                tree = tree_from_graph(graph)
        with log.stage("cuts") as note:
            res = dbmstclu(tree, check_input=False)
            note(f"{res.n_clusters} clusters")
        self.tree_ = tree.tree
        set_result_attributes(self, res, DBMSTCLU_FIELDS)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances
        tags.input_tags.sparse = True
        return tags
