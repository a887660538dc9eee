"""Deprecated: use :mod:`skdpgraph.edge_dp` and :mod:`skdpgraph.utils`. Removed in the next release."""

import warnings

from .edge_dp import (  # noqa: F401
    EdgeFlipPerturbation,
    dp_density,
    flip_edges,
    graph_density,
    pig_epsilon,
    pig_s_from_epsilon,
    suggest_s,
)
from .utils import check_adjacency  # noqa: F401

__all__ = ['EdgeFlipPerturbation', 'dp_density', 'flip_edges', 'graph_density', 'pig_epsilon', 'pig_s_from_epsilon', 'suggest_s', 'check_adjacency']

warnings.warn(
    "skdpgraph.perturbation is deprecated; import from skdpgraph.edge_dp and skdpgraph.utils.",
    DeprecationWarning, stacklevel=2)
