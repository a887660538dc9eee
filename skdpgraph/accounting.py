"""Deprecated: use :mod:`skdpgraph.privacy`. Removed in the next release."""

import warnings

from .privacy import (  # noqa: F401
    BudgetAccountant,
    BudgetError,
    PrivacyLeakWarning,
    approx_dp_to_zcdp,
    exponential_mechanism_zcdp,
    gaussian_zcdp,
    pure_to_zcdp,
    zcdp_to_approx_dp,
)

__all__ = ['BudgetAccountant', 'BudgetError', 'PrivacyLeakWarning', 'pure_to_zcdp', 'exponential_mechanism_zcdp', 'gaussian_zcdp', 'zcdp_to_approx_dp', 'approx_dp_to_zcdp']

warnings.warn(
    "skdpgraph.accounting is deprecated; import from skdpgraph.privacy.",
    DeprecationWarning, stacklevel=2)
