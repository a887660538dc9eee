"""Pieces shared by the graph clusterers."""


class AdjacencyInputMixin:
    """scikit-learn tags of an estimator whose ``X`` is a graph's adjacency:
    square (pairwise), sparse accepted, non-negative entries."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags


def set_dbmstclu_attributes(estimator, result):
    """Copy a :class:`~skdpgraph.cluster.DBMSTCluResult` onto a
    fitted estimator's attributes (``labels_``, ``n_clusters_``, ``dbcvi_``,
    ``cut_edges_``, ``cut_weights_``, ``dbcvi_path_``)."""
    estimator.labels_ = result.labels
    estimator.n_clusters_ = result.n_clusters
    estimator.dbcvi_ = result.dbcvi
    estimator.cut_edges_ = result.cut_edges
    estimator.cut_weights_ = result.cut_weights
    estimator.dbcvi_path_ = result.dbcvi_path
