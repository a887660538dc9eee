"""Deprecated: use :mod:`skdpgraph.privacy`. Removed in the next release."""

import warnings

from .privacy import (  # noqa: F401
    NEIGHBORHOODS,
    check_epsilon,
    check_neighborhood,
    check_sensitivity,
    gaussian_sigma,
    laplace_scale,
    release_sensitivity,
)

__all__ = ['NEIGHBORHOODS', 'check_epsilon', 'check_sensitivity', 'check_neighborhood', 'release_sensitivity', 'laplace_scale', 'gaussian_sigma']

warnings.warn(
    "skdpgraph.mechanisms is deprecated; import from skdpgraph.privacy.",
    DeprecationWarning, stacklevel=2)
