"""Pieces shared by the graph clusterers."""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import StrOptions

from ..utils import StageLogger, check_adjacency, check_graph
from ..utils._validation import GraphInputTagsMixin, RealParametersMixin


class AdjacencyInputMixin(GraphInputTagsMixin, RealParametersMixin):
    """An estimator whose ``X`` is a graph's adjacency: the one ``fit``.

    ``fit`` validates ``X`` with :func:`skdpgraph.utils.check_adjacency`
    (weighted when ``_weighted_input()`` says so), hands the canonical
    adjacency to the estimator's ``_fit_adjacency`` and records
    ``n_features_in_`` once that succeeded. The tags say: square (pairwise),
    sparse accepted, non-negative entries.
    """

    def _weighted_input(self):
        return False

    @_fit_context(prefer_skip_nested_validation=False)
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
            note(f"{A.shape[0]} nodes, {A.nnz // 2} edges")
        with log.stage("fit") as note:
            self._fit_adjacency(A)
            if log.verbose > 0:
                labels = np.asarray(self.labels_)
                note(f"{np.unique(labels[labels != -1]).size} clusters")
        self.n_features_in_ = A.shape[0]
        return self



#: Constraints of the parameters that say how ``X`` becomes a graph of distances
#: (:func:`skdpgraph.utils.check_graph`), for the clusterers that take features.
GRAPH_INPUT_CONSTRAINTS = {
    "metric": [StrOptions({"precomputed"}), str, callable],
    "metric_params": [dict, None],
    "weight_kind": [StrOptions({"distance", "similarity"}), None],
}


def check_graph_input(estimator, X):
    """``X`` as a canonical graph of distances, and the ``n_features_in_`` it gives.

    The graph is :func:`skdpgraph.utils.check_graph` of ``X`` with the
    estimator's ``metric``, ``metric_params`` and ``weight_kind``;
    ``n_features_in_`` is the number of columns of the array given to fit
    (the node count for a networkx graph).
    """
    graph = check_graph(X, estimator.metric, estimator.metric_params,
                        weight_kind=estimator.weight_kind)
    return graph, _n_features(X, graph)


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


class FewerClustersWarning(UserWarning):
    """A clusterer given ``n_clusters`` returned fewer clusters.

    Refinement can empty a community (every node leaves it), and a release
    near the detection limit often carries too little signal to keep the
    communities apart. The count is read from the returned labels, so the
    warning is public (it adds nothing to what the labels show).
    """


def warn_if_fewer_clusters(n_asked, labels, stacklevel=3):
    """Emit a :class:`FewerClustersWarning` when ``labels`` hold fewer than ``n_asked`` clusters."""
    labels = np.asarray(labels)
    found = int(np.unique(labels[labels >= 0]).size)
    if isinstance(n_asked, str) or found >= int(n_asked):
        return
    warnings.warn(
        f"n_clusters={int(n_asked)} was asked for but the labels hold {found} cluster"
        f"{'s' if found != 1 else ''}: the release carries too little signal to keep "
        "more communities apart (or the refinement emptied some). A larger epsilon, "
        "or n_clusters='auto', says how many the release supports.",
        FewerClustersWarning, stacklevel=stacklevel,
    )


class ConstantWeightsWarning(UserWarning):
    """Every edge of the graph has the same weight: DBMSTClu has nothing to cut on.

    With equal weights every cut of the spanning tree scores alike and
    DBMSTClu returns one cluster per node. The fix: give the graph weights
    that mean something, e.g. structural distances
    (:class:`skdpgraph.graphs.StructuralDistance`) for an unweighted graph,
    or cluster it with :class:`~skdpgraph.cluster.SCAN`.
    """


def warn_if_constant_weights(graph, stacklevel=3):
    """Emit a :class:`ConstantWeightsWarning` when all edge weights are equal.

    ``graph`` is canonical (:func:`skdpgraph.utils.check_graph`): a dense
    complete graph (off-diagonal entries) or a sparse one (stored entries).
    """
    if sp.issparse(graph):
        w = graph.data
    else:
        w = graph[~np.eye(graph.shape[0], dtype=bool)]
    if w.size < 2 or w.min() != w.max():
        return
    warnings.warn(
        f"All {w.size // 2} edge weights of the graph are equal ({w[0]:g}): DBMSTClu "
        "has no signal to cut on and returns one cluster per node. For an unweighted "
        "graph use structural distances, make_pipeline(StructuralDistance(), "
        "<clusterer>(metric='precomputed')) with skdpgraph.graphs.StructuralDistance, "
        "or cluster it with skdpgraph.cluster.SCAN.",
        ConstantWeightsWarning, stacklevel=stacklevel,
    )
