"""Deprecated: use :mod:`skdpgraph.metrics`. Removed in the next release."""

import warnings

from .metrics import HomogeneityResult, check_homogeneity, mst_eligible_edges  # noqa: F401

__all__ = ['HomogeneityResult', 'check_homogeneity', 'mst_eligible_edges']

warnings.warn(
    "skdpgraph.homogeneity is deprecated; import from skdpgraph.metrics.",
    DeprecationWarning, stacklevel=2)
