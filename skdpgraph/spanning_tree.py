"""Deprecated: use :mod:`skdpgraph.tree` and :mod:`skdpgraph.privacy`. Removed in the next release."""

import warnings

from .privacy import normalize_weights, pamst_step_epsilon, weight_release_noise  # noqa: F401
from .tree import (  # noqa: F401
    SpanningTree,
    laplace_mst,
    minimum_spanning_tree,
    pamst,
    release_tree_weights,
)

__all__ = ['SpanningTree', 'minimum_spanning_tree', 'pamst', 'laplace_mst', 'release_tree_weights', 'pamst_step_epsilon', 'weight_release_noise', 'normalize_weights']

warnings.warn(
    "skdpgraph.spanning_tree is deprecated; import from skdpgraph.tree and skdpgraph.privacy.",
    DeprecationWarning, stacklevel=2)
