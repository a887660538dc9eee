"""Deprecated: use :mod:`skdpgraph.metrics` and :mod:`skdpgraph.edge_dp`. Removed in the next release."""

import warnings

from .edge_dp import pig_epsilon, pig_expected_density, pig_expected_edges, pig_min_s  # noqa: F401
from .metrics import (  # noqa: F401
    laplace_mst_error_bound,
    order_preservation_probability,
    pamst_error_bound,
    partitioning_topology_probability,
)

__all__ = ['pamst_error_bound', 'laplace_mst_error_bound', 'partitioning_topology_probability', 'order_preservation_probability', 'pig_epsilon', 'pig_min_s', 'pig_expected_edges', 'pig_expected_density']

warnings.warn(
    "skdpgraph.theory is deprecated; import from skdpgraph.metrics and skdpgraph.edge_dp.",
    DeprecationWarning, stacklevel=2)
