"""skdpgraph: clustering the nodes of a graph under differential privacy.

Every public name has one home, a subpackage, where it is documented:

* :mod:`skdpgraph.utils` -- the graph input gateway and plumbing;
* :mod:`skdpgraph.privacy` -- calibrations, accounting, floating-point-safe noise;
* :mod:`skdpgraph.tree` -- spanning trees, exact and private;
* :mod:`skdpgraph.edge_dp` -- edge flipping, PIG's maths, community detection under edge-DP;
* :mod:`skdpgraph.graphs` -- graph builders;
* :mod:`skdpgraph.cluster` -- the clusterers;
* :mod:`skdpgraph.metrics` -- scores, homogeneity, the papers' bounds;
* :mod:`skdpgraph.datasets` -- the papers' data;
* :mod:`skdpgraph.exceptions` -- every warning and error class.

The names below are re-exported here for convenience (they are the same
objects as in their home subpackage).
"""

__version__ = "0.2.0"

from .cluster import (
                      SCAN,
                      DBMSTClu,
                      GraphKMedoids,
                      PrivateGraphClustering,
                      PrivateMSTClustering,
                      dbmstclu,
)
from .edge_dp import EdgeFlipPerturbation, flip_edges
from .exceptions import DisconnectedGraphWarning, PrivacyLeakWarning
from .graphs import EpsilonGraph, HomogeneousGraph
from .metrics import check_homogeneity, dbcvi_score
from .privacy import BudgetAccountant
from .tree import (
                      SpanningTree,
                      laplace_mst,
                      minimum_spanning_tree,
                      pamst,
                      release_tree_weights,
)
from .utils import check_graph, from_networkx, to_networkx

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
