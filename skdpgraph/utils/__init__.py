"""Plumbing every layer may use: the graph input gateway, sparse helpers,
scalar checks and randomness. Imports nothing else of skdpgraph.

The gateway is :func:`check_graph` (weighted graphs of distances) and
:func:`check_adjacency` (unweighted topologies, for the edge-DP route); every
estimator and function of the library validates its graph input with one
of them. What a weight means (a distance, or a similarity to convert) is
said with ``weight_kind`` (:func:`similarity_to_distance`).
"""

from ._config import check_dense_memory, config_context, get_config, set_config
from ._graph import check_adjacency, check_graph
from ._networkx import from_networkx, to_networkx
from ._random import check_random_state, keyed_generator, secure_generator
from ._sparse import (
                      directed_csr,
                      edges_to_csr,
                      graph_edges,
                      index_dtype,
                      mst_edge_indices,
                      n_components,
                      pair_from_index,
                      pair_index,
                      weight_range,
)
from ._validation import check_int, check_positive, check_real
from ._verbose import StageLogger
from ._weights import (
                      SIMILARITY_CONVERSIONS,
                      WEIGHT_KINDS,
                      check_weight_kind,
                      similarity_to_distance,
)

__all__ = [
    "get_config",
    "set_config",
    "config_context",
    "check_dense_memory",
    "check_graph",
    "check_adjacency",
    "from_networkx",
    "to_networkx",
    "edges_to_csr",
    "graph_edges",
    "directed_csr",
    "index_dtype",
    "mst_edge_indices",
    "n_components",
    "weight_range",
    "pair_index",
    "pair_from_index",
    "check_random_state",
    "secure_generator",
    "keyed_generator",
    "check_int",
    "check_real",
    "check_positive",
    "WEIGHT_KINDS",
    "SIMILARITY_CONVERSIONS",
    "check_weight_kind",
    "similarity_to_distance",
    "StageLogger",
]
