"""Pieces shared by the graph clusterers."""


import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import VALID_METRICS
from sklearn.utils.validation import validate_data

from ..distributed import as_edge_table, is_edge_table
from ..exceptions import ConstantWeightsWarning, FewerClustersWarning
from ..utils import StageLogger, check_adjacency, check_graph
from ..utils._config import data_dependent_warnings, warn_data_dependent
from ..utils._param_validation import StrOptions, fit_context
from ..utils._validation import GraphInputTagsMixin
from ..utils._warnings import warn


class AdjacencyInputMixin(GraphInputTagsMixin):
    """An estimator whose ``X`` is a graph's adjacency: the one ``fit``.

    ``fit`` validates ``X`` with :func:`skdpgraph.utils.check_adjacency`
    (weighted when ``_weighted_input()`` says so), hands the canonical
    adjacency to the estimator's ``_fit_adjacency`` and records
    ``n_features_in_`` once that succeeded. The tags say: square (pairwise),
    sparse accepted, non-negative entries.
    """

    def _weighted_input(self):
        return False

    @fit_context(skip_nested_validation=False)
    def fit(self, X, y=None):
        """Cluster the nodes of the graph ``X``.

        Parameters
        ----------
        X : array-like, sparse matrix or networkx.Graph
            Adjacency of an undirected graph (see
            :func:`skdpgraph.utils.check_adjacency`); for a private
            estimator, the private graph.
        y : Ignored

        Returns
        -------
        self
        """
        log = StageLogger(getattr(self, "verbose", 0), type(self).__name__)
        with log.stage("validation") as note:
            A = check_adjacency(X, weighted=self._weighted_input())
            note(f"{A.shape[0]} nodes")  # the number of edges is private under edge-DP
        with log.stage("fit") as note:
            self._fit_adjacency(A)
            if log.verbose > 0:
                labels = np.asarray(self.labels_)
                note(f"{np.unique(labels[labels != -1]).size} clusters")
        self.n_features_in_ = A.shape[0]
        return self



#: The metrics sklearn.metrics.pairwise_distances takes (check_graph calls it): the
#: neighbours' public list, and pairwise's own where this scikit-learn has it.
try:
    from sklearn.metrics.pairwise import _VALID_METRICS
except ImportError:  # pragma: no cover - a scikit-learn without the private name
    _VALID_METRICS = ()
_PAIRWISE_METRICS = set(VALID_METRICS["brute"]) | set(_VALID_METRICS) | {"precomputed"}

#: Constraints of the parameters that say how ``X`` becomes a graph of distances
#: (:func:`skdpgraph.utils.check_graph`), for the clusterers that take features.
GRAPH_INPUT_CONSTRAINTS = {
    "metric": [StrOptions(_PAIRWISE_METRICS), callable],
    "metric_params": [dict, None],
    "weight_kind": [StrOptions({"distance", "similarity"}), None],
}


def check_graph_input(estimator, X):
    """``X`` as a canonical graph of distances, and the ``n_features_in_`` it gives.

    The graph is :func:`skdpgraph.utils.check_graph` of ``X`` with the
    estimator's ``metric``, ``metric_params`` and ``weight_kind``;
    ``n_features_in_`` is the number of columns of the array given to fit
    (the node count for a networkx graph). Once ``X`` is accepted, the
    estimator records the column names of a DataFrame in
    ``feature_names_in_`` (and forgets those of an earlier fit), as
    scikit-learn's estimators do.
    """
    if is_edge_table(X):
        table, n_nodes = check_edge_table(X, estimator.metric, estimator.weight_kind,
                                          getattr(estimator, "verbose", 0))
        # An edge table's columns are not features: only the names of an
        # earlier fit are forgotten.
        validate_data(estimator, table, skip_check_array=True, ensure_2d=False, reset=True)
        return table, n_nodes
    graph = check_graph(X, estimator.metric, estimator.metric_params,
                        weight_kind=estimator.weight_kind)
    # Feature names only (ensure_2d=False skips the column count, which a
    # networkx graph does not have): X itself is checked above.
    validate_data(estimator, X, skip_check_array=True, ensure_2d=False, reset=True)
    return graph, _n_features(X, graph)


def check_edge_table(X, metric="precomputed", weight_kind=None, verbose=0):
    """A distributed edge table (Dask DataFrame or :class:`~skdpgraph.distributed.EdgeTable`)
    as a validated ``EdgeTable``, and its node count (the ``n_features_in_``).

    The one place where the clusterers hand a Dask input to
    :mod:`skdpgraph.distributed`: its public topology is counted here, once
    per table.
    """
    if metric != "precomputed":
        raise ValueError(
            "An edge table is a graph: fit it with metric='precomputed' "
            f"(got metric={metric!r}).")
    if weight_kind not in (None, "distance"):
        raise ValueError(
            "The weights of an edge table are read as distances; convert similarities "
            "in the table first (e.g. frame.assign(weight=1 / frame.weight)).")
    table = as_edge_table(X)
    return table, table.topology(verbose).n_nodes


def _n_features(X, graph):
    """Columns of the array given to fit (the node count for a networkx graph)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    if isinstance(X, (list, tuple)):
        return int(np.asarray(X).shape[1])
    return int(graph.shape[0])


#: The fields of a DBMSTClu result that become fitted attributes.
DBMSTCLU_FIELDS = ("labels", "n_clusters", "dbcvi", "cut_edges", "cut_weights", "dbcvi_path")


def set_result_attributes(estimator, result, fields=None):
    """Set ``estimator.<field>_`` from a function's result tuple, for ``fields``
    (all of the tuple's fields by default): the estimators stay thin over the
    functions and name their attributes after the results'."""
    for name in result._fields if fields is None else fields:
        setattr(estimator, name + "_", getattr(result, name))


def count_clusters(labels):
    """Number of distinct labels that name a cluster: negative numbers are noise (-1, as
    scikit-learn's DBSCAN; -2 and -3 as its HDBSCAN), labels that are not numbers (of a
    user's clusterer) all count."""
    labels = np.asarray(labels)
    return int(np.unique(labels[labels >= 0] if labels.dtype.kind in "biuf" else labels).size)


def warn_if_fewer_clusters(n_asked, labels):
    """Emit a :class:`~skdpgraph.exceptions.FewerClustersWarning` when ``labels`` are too few.

    Parameters
    ----------
    n_asked : int, str or None
        The ``n_clusters`` the estimator was given; a string (``"auto"``)
        asks for no count, and nothing is checked; None (a clusterer
        without a count, such as SCAN) asks for at least one cluster.
    labels : array-like
        The released labels, counted by :func:`count_clusters`.
    """
    found = count_clusters(labels)
    if n_asked is None:
        if found == 0 and labels.size:
            warn("the labels hold no cluster: every node is noise (-1) to the clusterer on "
                 "the released graph. Density-based clusterers (SCAN, DBSCAN) rarely find "
                 "cores in a randomized-response release; a spectral clusterer that "
                 "debiases it (skdpgraph.cluster.DebiasedSpectralClustering) or a larger "
                 "epsilon may.", FewerClustersWarning)
        return
    if isinstance(n_asked, str) or found >= int(n_asked):
        return
    warn(
        f"n_clusters={int(n_asked)} was asked for but the labels hold {found} cluster"
        f"{'s' if found != 1 else ''}: the release carries too little signal to keep "
        "more communities apart (or the refinement emptied some). A larger epsilon, "
        "or n_clusters='auto', says how many the release supports.",
        FewerClustersWarning,
    )


def warn_if_constant_weights(graph, weight_range=None):
    """Emit a :class:`ConstantWeightsWarning` when all edge weights are equal.

    ``graph`` is canonical (:func:`skdpgraph.utils.check_graph`): a dense
    complete graph (off-diagonal entries) or a sparse one (stored entries);
    or ``None`` with ``weight_range=(n_edges, low, high)`` for an edge table
    whose weights were read elsewhere.
    """
    if not data_dependent_warnings():
        return
    if weight_range is not None:
        n_edges, low, high = weight_range
    else:
        if sp.issparse(graph):
            w = graph.data
        else:
            w = graph[~np.eye(graph.shape[0], dtype=bool)]
        n_edges = w.size // 2
        low, high = (w.min(), w.max()) if w.size else (0.0, 0.0)
    if n_edges < 2 or low != high:  # one edge: nothing to compare
        return
    warn_data_dependent(  # the value itself is not shown: it may be private
        f"All {n_edges} edge weights of the graph are equal: DBMSTClu has no signal to "
        "cut on (on the exact weights it returns one cluster per node if they are positive, "
        "an arbitrary split in two if they are all 0). For an unweighted "
        "graph use structural distances, make_pipeline(StructuralDistance(), "
        "<clusterer>(metric='precomputed')) with skdpgraph.graphs.StructuralDistance, "
        "or cluster it with skdpgraph.cluster.SCAN.",
        ConstantWeightsWarning,
    )
