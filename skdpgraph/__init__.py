"""skdpgraph: clustering the nodes of a graph under differential privacy."""

__version__ = "0.1.0"

from ._graph import check_graph, from_networkx, to_networkx
from ._tree import SpanningTree, minimum_spanning_tree
from .cluster import DBMSTClu, dbmstclu, dbcvi_score

__all__ = [
    "__version__",
    "check_graph",
    "from_networkx",
    "to_networkx",
    "SpanningTree",
    "minimum_spanning_tree",
    "DBMSTClu",
    "dbmstclu",
    "dbcvi_score",
]
