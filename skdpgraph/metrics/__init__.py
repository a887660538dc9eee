"""Scores, the homogeneity conditions and the papers' bounds.

* Scores: :func:`dbcvi_score` (DBMSTClu's index; the clusterer imports it
  from here), :func:`validity_index`, :func:`mst_approximation_error`,
  :func:`clustering_f1_score`.
* Homogeneity (UAI 2018, Definitions 3.9-3.11): :func:`check_homogeneity`,
  :func:`mst_eligible_edges`.
* The papers' bounds, each in its paper and corrected form where they
  differ: :func:`pamst_error_bound`, :func:`laplace_mst_error_bound`,
  :func:`partitioning_topology_probability`,
  :func:`order_preservation_probability`. PIG's maths is in
  :mod:`skdpgraph.edge_dp`.

This package never imports the estimators of :mod:`skdpgraph.cluster`.
"""

from ._bounds import (
                      laplace_mst_error_bound,
                      order_preservation_probability,
                      pamst_error_bound,
                      partitioning_topology_probability,
)
from ._homogeneity import HomogeneityResult, check_homogeneity, mst_eligible_edges
from ._scores import (
                      clustering_f1_score,
                      dbcvi_score,
                      mst_approximation_error,
                      validity_index,
)

__all__ = [
    "dbcvi_score",
    "validity_index",
    "mst_approximation_error",
    "clustering_f1_score",
    "check_homogeneity",
    "HomogeneityResult",
    "mst_eligible_edges",
    "pamst_error_bound",
    "laplace_mst_error_bound",
    "partitioning_topology_probability",
    "order_preservation_probability",
]
