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
objects as in their home subpackage): every estimator and transformer, the
functions a first use needs (graph input, accounting, settings) and the
warnings a fit may emit.
"""

__version__ = "0.2.0"

from .cluster import (
                      SCAN,
                      DBMSTClu,
                      DebiasedSpectralClustering,
                      GraphKMedoids,
                      NoisyPowerClustering,
                      PrivateGraphClustering,
                      PrivateLabelPropagation,
                      PrivateMSTClustering,
                      RandomizedResponseSpectralClustering,
                      dbmstclu,
                      private_mst_clustering,
)
from .edge_dp import EdgeFlipPerturbation, flip_edges
from .exceptions import (
                      BudgetError,
                      ConstantWeightsWarning,
                      DataDependentWarning,
                      DisconnectedGraphWarning,
                      FewerClustersWarning,
                      NoiseDominatesWarning,
                      PrivacyLeakWarning,
                      WeightMeaningWarning,
)
from .graphs import EpsilonGraph, HomogeneousGraph, SimilarityToDistance, StructuralDistance
from .metrics import check_homogeneity, dbcvi_score
from .privacy import BudgetAccountant, prepay, prepay_search
from .tree import (
                      SpanningTree,
                      laplace_mst,
                      minimum_spanning_tree,
                      pamst,
                      release_tree_weights,
)
from .utils import (
                      check_adjacency,
                      check_graph,
                      config_context,
                      from_networkx,
                      get_config,
                      set_config,
                      similarity_to_distance,
                      to_networkx,
)

__all__ = [
    "__version__",
    # graph input and settings
    "check_graph",
    "check_adjacency",
    "from_networkx",
    "to_networkx",
    "similarity_to_distance",
    "get_config",
    "set_config",
    "config_context",
    # spanning trees
    "SpanningTree",
    "minimum_spanning_tree",
    "pamst",
    "laplace_mst",
    "release_tree_weights",
    # accounting
    "BudgetAccountant",
    "prepay",
    "prepay_search",
    # weight-DP clustering
    "DBMSTClu",
    "dbmstclu",
    "dbcvi_score",
    "PrivateMSTClustering",
    "private_mst_clustering",
    # edge-DP clustering
    "EdgeFlipPerturbation",
    "flip_edges",
    "PrivateGraphClustering",
    "SCAN",
    "GraphKMedoids",
    "DebiasedSpectralClustering",
    "RandomizedResponseSpectralClustering",
    "NoisyPowerClustering",
    "PrivateLabelPropagation",
    # graph builders and weight transformers
    "EpsilonGraph",
    "HomogeneousGraph",
    "SimilarityToDistance",
    "StructuralDistance",
    "check_homogeneity",
    # warnings and errors
    "PrivacyLeakWarning",
    "DataDependentWarning",
    "WeightMeaningWarning",
    "ConstantWeightsWarning",
    "DisconnectedGraphWarning",
    "NoiseDominatesWarning",
    "FewerClustersWarning",
    "BudgetError",
]
