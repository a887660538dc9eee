"""Graph clusterers: thin estimators over functions.

* :class:`DBMSTClu` / :func:`dbmstclu`: parameter-free MST cutting.
* :class:`PrivateMSTClustering` / :func:`private_mst_clustering`: PTClust
  under weight-DP, with any registered private tree
  (:data:`skdpgraph.tree.TREE_MECHANISMS`).
* :class:`SCAN` / :func:`scan`, :class:`GraphKMedoids`: clusterers of
  unweighted graphs, and :class:`PrivateGraphClustering`, the edge-DP route
  (edge flipping, then any of them).
* :class:`DebiasedSpectralClustering` (a clusterer of a released graph that
  uses the public flip probability), :class:`RandomizedResponseSpectralClustering`
  (local edge-DP), :class:`PrivateLabelPropagation` and
  :class:`NoisyPowerClustering` (central edge-DP): the community-detection
  routes of :mod:`skdpgraph.edge_dp`.
"""

# FewerClustersWarning is importable from here, where it is emitted; its
# home (``__all__``) is skdpgraph.exceptions.
from ..exceptions import FewerClustersWarning  # noqa: F401
from ._dbmstclu import DBMSTClu, DBMSTCluResult, dbmstclu
from ._edge_communities import (
    DebiasedSpectralClustering,
    NoisyPowerClustering,
    PrivateLabelPropagation,
    RandomizedResponseSpectralClustering,
)
from ._kmedoids import GraphKMedoids, graph_distances
from ._private_graph import PrivateGraphClustering
from ._private_mst import PrivateMSTClustering, PrivateMSTResult, private_mst_clustering
from ._scan import SCAN, SCANResult, scan, structural_similarity

__all__ = [
    "DBMSTClu",
    "DBMSTCluResult",
    "dbmstclu",
    "PrivateMSTClustering",
    "PrivateMSTResult",
    "private_mst_clustering",
    "SCAN",
    "SCANResult",
    "scan",
    "structural_similarity",
    "GraphKMedoids",
    "graph_distances",
    "PrivateGraphClustering",
    "DebiasedSpectralClustering",
    "RandomizedResponseSpectralClustering",
    "NoisyPowerClustering",
    "PrivateLabelPropagation",
]
