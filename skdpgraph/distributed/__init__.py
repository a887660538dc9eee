"""One private clustering of a graph larger than one process, on Dask.

The graph is an edge table, a ``dask.dataframe.DataFrame`` with one row per
edge (two ends and a weight), possibly opened from Parquet files
(:func:`read_edge_parquet`). :class:`skdpgraph.cluster.PrivateMSTClustering`
and :class:`skdpgraph.cluster.DBMSTClu` fit it as they fit an in-memory
graph; this subpackage does the distributed part:

* :class:`EdgeTable`: the table, its column names and how node ids become
  node numbers (once, from the public topology), with one pass over the ends
  that counts ``|V|`` and ``|E|`` and checks that every pair is listed once.
* :func:`release_table_forest`: the private tree of the mechanisms that are
  "noise on every edge, then the exact minimum spanning forest"
  (Laplace-MST, input perturbation; every choice of
  ``tree_mechanism="auto"``): each partition draws its noise with its own
  key (:func:`partition_keys`), calibrated for the whole table, and the
  forest is computed exactly by merging the partitions' forests in a tree
  reduction (:func:`table_spanning_forest`); only the ``n - 1`` edges of the
  tree come back to the client, where DBMSTClu cuts them.
* :func:`table_components`: the number of connected components of the
  (public) topology, one pass; :class:`skdpgraph.cluster.PrivateMSTClustering`
  counts them before the charge where the range of its release depends on
  them.
* :func:`labels_series`: the labels as a Dask series indexed by node id.

Importing this module does not import dask; its functions do.
"""

from ._forest import (
    EdgeForest,
    ForestReport,
    TableRelease,
    partition_keys,
    release_table_forest,
    table_components,
    table_spanning_forest,
    table_weight_max,
)
from ._table import (
    EdgeTable,
    TableTopology,
    as_edge_table,
    is_edge_table,
    labels_series,
    read_edge_parquet,
)

__all__ = [
    "EdgeTable",
    "TableTopology",
    "as_edge_table",
    "is_edge_table",
    "read_edge_parquet",
    "labels_series",
    "EdgeForest",
    "ForestReport",
    "TableRelease",
    "partition_keys",
    "release_table_forest",
    "table_spanning_forest",
    "table_components",
    "table_weight_max",
]
