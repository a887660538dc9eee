"""skdpgraph: clustering the nodes of a graph under differential privacy."""

__version__ = "0.1.0"

from ._graph import check_graph, from_networkx, to_networkx
from ._tree import SpanningTree, minimum_spanning_tree
from .accounting import BudgetAccountant, PrivacyLeakWarning
from .cluster import (
    SCAN,
    DBMSTClu,
    GraphKMedoids,
    PrivateGraphClustering,
    PrivateMSTClustering,
    dbcvi_score,
    dbmstclu,
)
from .graphs import DisconnectedGraphWarning, EpsilonGraph, HomogeneousGraph
from .homogeneity import check_homogeneity
from .perturbation import EdgeFlipPerturbation, flip_edges
from .spanning_tree import laplace_mst, pamst, release_tree_weights

__all__ = [
    "__version__",
    "check_graph",
    "from_networkx",
    "to_networkx",
    "SpanningTree",
    "minimum_spanning_tree",
    "pamst",
    "laplace_mst",
    "release_tree_weights",
    "BudgetAccountant",
    "PrivacyLeakWarning",
    "DBMSTClu",
    "dbmstclu",
    "dbcvi_score",
    "PrivateMSTClustering",
    "SCAN",
    "GraphKMedoids",
    "PrivateGraphClustering",
    "EdgeFlipPerturbation",
    "flip_edges",
    "EpsilonGraph",
    "HomogeneousGraph",
    "DisconnectedGraphWarning",
    "check_homogeneity",
]
