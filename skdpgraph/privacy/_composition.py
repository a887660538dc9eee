"""How a release made of several mechanisms shares one budget.

PTClust releases a tree topology and then the tree's weights; Laplace-MST
releases a weighted tree in one go. :func:`plan_tree_release` splits a user's
budget between the parts, under pure sequential composition (the paper's) or
under zCDP (Bun and Steinke 2016), and states the guarantee the whole release
then has.
"""

import math
from typing import NamedTuple, Optional

from ._accounting import approx_dp_to_zcdp, zcdp_to_approx_dp
from ._validation import check_delta, check_epsilon


class BudgetPlan(NamedTuple):
    """A budget split between a tree mechanism and the release of its weights.

    Attributes
    ----------
    tree_epsilon, tree_rho : float or None
        Budget of the tree mechanism: a pure epsilon, or a zCDP rho (one of
        them is None).
    weight_epsilon, weight_rho : float or None
        Budget of the Weight-Release (Laplace with ``weight_epsilon``,
        Gaussian with ``weight_rho``); both None when the tree mechanism
        releases its weights itself.
    rho : float or None
        zCDP parameter of the whole release under zCDP accounting.
    epsilon_spent, delta_spent : float
        The ``(epsilon, delta)``-DP guarantee of the whole release.
    """

    tree_epsilon: Optional[float]
    tree_rho: Optional[float]
    weight_epsilon: Optional[float]
    weight_rho: Optional[float]
    rho: Optional[float]
    epsilon_spent: float
    delta_spent: float


def plan_tree_release(epsilon, *, accounting="pure", delta=None, tree_share=0.5,
                      releases_weights=False, zcdp=True):
    """Split a budget between a private tree and the release of its weights.

    Parameters
    ----------
    epsilon : float
        The user's budget.
    accounting : {"pure", "zcdp"}, default="pure"
        ``"pure"``: sequential composition; the tree gets
        ``tree_share * epsilon`` and the weights the rest. ``"zcdp"``: the
        target ``(epsilon, delta)`` becomes ``rho =
        approx_dp_to_zcdp(epsilon, delta)``; the tree gets ``tree_share *
        rho`` and the Gaussian Weight-Release the rest; zCDP adds up and
        converts back to ``(epsilon_spent, delta)``-DP, ``epsilon_spent <=
        epsilon``.
    delta : float, default=None
        Required with ``accounting="zcdp"``.
    tree_share : float in (0, 1), default=0.5
        Share of the budget (of ``epsilon`` or of ``rho``) spent on the tree.
    releases_weights : bool, default=False
        The tree mechanism releases noisy weights itself (Laplace-MST): it
        gets the whole budget and no Weight-Release follows.
    zcdp : bool, default=True
        The tree mechanism can be calibrated by a zCDP ``rho``. Otherwise,
        under zCDP accounting, it runs as a pure ``epsilon``-DP mechanism:
        alone with the whole ``epsilon`` (then the guarantee is pure), or as
        the topology part with ``epsilon = sqrt(2 tree_rho)`` (a pure
        ``eps``-DP mechanism is ``eps**2 / 2``-zCDP).

    Returns
    -------
    BudgetPlan
    """
    eps = check_epsilon(epsilon)
    share = float(tree_share)
    if accounting == "pure":
        if releases_weights:
            return BudgetPlan(eps, None, None, None, None, eps, 0.0)
        return BudgetPlan(share * eps, None, (1 - share) * eps, None, None, eps, 0.0)
    if accounting != "zcdp":
        raise ValueError(f"accounting must be 'pure' or 'zcdp'; got {accounting!r}.")
    delta = check_delta(delta)
    rho = approx_dp_to_zcdp(eps, delta)
    if releases_weights:
        if zcdp:
            return BudgetPlan(None, rho, None, None, rho, zcdp_to_approx_dp(rho, delta), delta)
        # One pure mechanism: nothing to compose, epsilon-DP as it is.
        return BudgetPlan(eps, None, None, None, None, eps, 0.0)
    tree_rho = share * rho
    weight_rho = rho - tree_rho
    if zcdp:
        tree_eps = None
    else:
        tree_eps, tree_rho = math.sqrt(2.0 * tree_rho), None
    return BudgetPlan(tree_eps, tree_rho, None, weight_rho, rho,
                      min(eps, zcdp_to_approx_dp(rho, delta)), delta)
