"""Graph clusterers."""

from ._dbmstclu import DBMSTClu, dbcvi_score, dbmstclu
from ._kmedoids import GraphKMedoids, graph_distances
from ._private_graph import PrivateGraphClustering
from ._private_mst import TREE_MECHANISMS, PrivateMSTClustering, register_tree_mechanism
from ._scan import SCAN, scan, structural_similarity

__all__ = [
    "DBMSTClu",
    "dbmstclu",
    "dbcvi_score",
    "SCAN",
    "scan",
    "structural_similarity",
    "GraphKMedoids",
    "graph_distances",
    "PrivateGraphClustering",
    "PrivateMSTClustering",
    "register_tree_mechanism",
    "TREE_MECHANISMS",
]
