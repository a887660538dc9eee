"""Exact samplers of the weighted uniform spanning tree (elimination, cycle popping,
and the reductions that make them fast)."""

from ._sampler import UST_METHODS, UstBudgetError, sample_weighted_ust

__all__ = ["sample_weighted_ust", "UST_METHODS", "UstBudgetError"]
