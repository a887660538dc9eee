"""How a release made of several mechanisms shares one budget.

PTClust releases a tree topology and then the tree's weights; Laplace-MST
releases a weighted tree in one go. :func:`plan_tree_release` splits a user's
budget between the parts, under pure sequential composition (the paper's) or
under zCDP (Bun and Steinke 2016), and states the guarantee the whole release
then has. :func:`plan_label_propagation` does the same for the rounds of
exponential-mechanism votes and the block-count release of the central
edge-DP label propagation (:mod:`skdpgraph.edge_dp`).
"""

import math
from fractions import Fraction
from typing import NamedTuple, Optional

from ..utils import check_int, check_real
from ._accounting import (approx_dp_to_zcdp, exponential_mechanism_epsilon,
                          exponential_mechanism_zcdp, zcdp_to_approx_dp)
from ._calibration import gaussian_sigma, laplace_scale
from ._noise import MAX_SCALE, MIN_SCALE
from ._validation import check_delta, check_epsilon, check_rho


class BudgetPlan(NamedTuple):
    """A budget split between a tree mechanism and the release of its weights.

    Attributes
    ----------
    tree_epsilon : float or None
        Pure budget of the tree mechanism; None when it is calibrated by
        ``tree_rho``.
    tree_rho : float or None
        zCDP budget of the tree mechanism; None when it is calibrated by
        ``tree_epsilon``.
    weight_epsilon : float or None
        Budget of the Laplace Weight-Release (pure accounting); None under
        zCDP accounting or when the tree mechanism releases its weights
        itself.
    weight_rho : float or None
        Budget of the Gaussian Weight-Release (zCDP accounting); None under
        pure accounting or when the tree mechanism releases its weights
        itself.
    rho : float or None
        zCDP parameter of the whole release under zCDP accounting; None for
        a pure guarantee.
    epsilon_spent : float
        The ``epsilon`` of the ``(epsilon, delta)``-DP guarantee of the
        whole release.
    delta_spent : float
        Its ``delta`` (0.0: a pure guarantee).
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
        tree_eps, weight_eps = _split(eps, share, "epsilon")
        return BudgetPlan(tree_eps, None, weight_eps, None, None, eps, 0.0)
    if accounting != "zcdp":
        raise ValueError(f"accounting must be 'pure' or 'zcdp'; got {accounting!r}.")
    delta = check_delta(delta)
    rho = approx_dp_to_zcdp(eps, delta)
    if releases_weights:
        if zcdp:
            return BudgetPlan(None, rho, None, None, rho, zcdp_to_approx_dp(rho, delta), delta)
        # One pure mechanism: nothing to compose, epsilon-DP as it is.
        return BudgetPlan(eps, None, None, None, None, eps, 0.0)
    tree_rho, weight_rho = _split(rho, share, "rho")
    if zcdp:
        tree_eps = None
    else:
        tree_eps, tree_rho = math.sqrt(2.0 * tree_rho), None
    return BudgetPlan(tree_eps, tree_rho, None, weight_rho, rho,
                      min(eps, zcdp_to_approx_dp(rho, delta)), delta)


class LabelPropagationPlan(NamedTuple):
    """Budget of each part of a central label-propagation release.

    Attributes
    ----------
    bit_epsilon : float
        Guarantee (pure and bounded-range) of each binary vote of one node in
        the bit rounds.
    vote_epsilon : float or None
        The same for each label vote of the refinement rounds (None without
        refinement rounds).
    count_noise : float
        Noise of the block-count release, in edges: the discrete Gaussian
        ``sigma`` under zCDP, the discrete Laplace scale when pure.
    rho : float or None
        zCDP parameter of the whole release (None for a pure plan).
    epsilon_spent : float
        The ``epsilon`` of the ``(epsilon, delta)``-DP guarantee of the
        whole release for graphs that differ in one edge.
    delta_spent : float
        Its ``delta`` (0.0: a pure guarantee).
    """

    bit_epsilon: float
    vote_epsilon: Optional[float]
    count_noise: float
    rho: Optional[float]
    epsilon_spent: float
    delta_spent: float


def plan_label_propagation(epsilon=None, *, delta=None, rho=None, n_bits, n_rounds, n_votes,
                           start_share=0.7, count_share=0.03):
    """Split an edge-DP budget between the rounds of a central label propagation.

    The release (:func:`skdpgraph.edge_dp.private_label_propagation`) has
    three parts, each a function of the private graph and of the earlier
    (public) parts:

    * ``n_rounds`` rounds in which every node draws ``n_bits`` binary votes
      (exponential mechanisms over its neighbours' previous bits,
      :func:`vote_scale`), each ``bit_epsilon``-bounded-range;
    * ``n_votes`` rounds in which every node draws one label by an
      exponential mechanism over its neighbours' labels, each
      ``vote_epsilon``-bounded-range;
    * the block counts (edges inside and between the labels), an integer
      vector in which one edge moves one entry by one (L1 and L2
      sensitivity 1), with discrete Gaussian (zCDP) or discrete Laplace
      (pure) noise.

    An edge ``{u, v}`` enters the votes of ``u`` and of ``v`` only, so each
    round costs two mechanisms per node vote. Under zCDP (``delta`` or
    ``rho`` given) an ``eps``-bounded-range mechanism is ``eps**2 /
    8``-zCDP (Cesar and Rogers 2021) and the parts add up: ``start_share``
    of ``rho`` goes to the bit rounds (``n_rounds * 2 n_bits * bit_epsilon**2
    / 8``), ``count_share`` to the counts (``1 / (2 sigma**2)``) and the rest
    to the label rounds (``n_votes * 2 * vote_epsilon**2 / 8``). Pure
    (``epsilon`` alone): sequential composition of the same parts, ``2
    n_bits n_rounds bit_epsilon + 2 n_votes vote_epsilon + 1 / scale``.

    Parameters
    ----------
    epsilon : float, default=None
        Alone: a pure budget. With ``delta``: an ``(epsilon, delta)`` target,
        reached through zCDP (:func:`approx_dp_to_zcdp`).
    delta : float in (0, 1), default=None
        With ``epsilon``: the ``delta`` of the target. With ``rho``
        (required): the ``delta`` at which the guarantee is reported.
    rho : float, default=None
        A zCDP budget instead of ``epsilon``.
    n_bits, n_rounds : int >= 1
        Binary votes per node and round, and bit rounds.
    n_votes : int >= 0
        Label rounds (0: their share goes to the bit rounds).
    start_share : float in (0, 1), default=0.7
        Share of the budget spent on the bit rounds.
    count_share : float in (0, 1), default=0.03
        Share of the budget spent on the block counts.

    Returns
    -------
    LabelPropagationPlan

    Examples
    --------
    >>> from skdpgraph.privacy import plan_label_propagation
    >>> plan = plan_label_propagation(4.0, delta=1e-6, n_bits=4, n_rounds=6, n_votes=2)
    >>> round(plan.rho, 4), plan.epsilon_spent <= 4.0
    (0.3111, True)
    >>> round(plan.bit_epsilon, 3), round(plan.vote_epsilon, 3)
    (0.191, 0.41)
    >>> pure = plan_label_propagation(4.0, n_bits=4, n_rounds=6, n_votes=2)
    >>> 2 * 4 * 6 * pure.bit_epsilon + 2 * 2 * pure.vote_epsilon + 1 / pure.count_noise <= 4.0
    True
    """
    n_bits = check_int(n_bits, "n_bits", 1)
    n_rounds = check_int(n_rounds, "n_rounds", 1)
    n_votes = check_int(n_votes, "n_votes", 0)
    start_share = check_real(start_share, "start_share", low=0.0, high=1.0, low_open=True,
                             high_open=True)
    count_share = check_real(count_share, "count_share", low=0.0, high=1.0, low_open=True,
                             high_open=True)
    if start_share + count_share >= 1.0 and n_votes > 0:
        raise ValueError(f"start_share + count_share must be < 1 with label rounds; got "
                         f"{start_share} + {count_share}.")
    bit_share = start_share if n_votes > 0 else 1.0 - count_share
    vote_share = 1.0 - start_share - count_share if n_votes > 0 else 0.0
    if rho is None and delta is None:
        epsilon = check_epsilon(epsilon)
        bit_eps = _down(bit_share * epsilon / (2 * n_bits * n_rounds))
        vote_eps = _down(vote_share * epsilon / (2 * n_votes)) if n_votes else None
        # The scale is rounded up so that the three parts never exceed epsilon.
        scale = math.nextafter(laplace_scale(1.0, count_share * epsilon), math.inf)
        _check_count_noise(scale, MAX_SCALE)
        return LabelPropagationPlan(bit_eps, vote_eps, scale, None, epsilon, 0.0)
    if rho is not None:
        if epsilon is not None:
            raise ValueError("Give epsilon (with delta) or rho, not both.")
        rho = check_rho(rho)
        if delta is None:
            raise ValueError("A rho budget is reported as (epsilon, delta)-DP: give delta too.")
        delta = check_delta(delta)
    else:
        rho = approx_dp_to_zcdp(check_epsilon(epsilon), check_delta(delta))
    bit_eps = _down(exponential_mechanism_epsilon(bit_share * rho / (2 * n_bits * n_rounds)))
    vote_eps = (_down(exponential_mechanism_epsilon(vote_share * rho / (2 * n_votes)))
                if n_votes else None)
    # Discrete Gaussian with L2 sensitivity 1: 1 / (2 sigma^2) = count_share * rho.
    sigma = math.nextafter(gaussian_sigma(1.0, count_share * rho), math.inf)
    _check_count_noise(sigma, MAX_SCALE - 1)
    # The parts, each a double rounded up, summed exactly and rounded up: the rho reported,
    # and converted, is never below what is spent.
    def up(rho_part):
        return Fraction(math.nextafter(rho_part, math.inf))

    exact = (2 * n_bits * n_rounds * up(exponential_mechanism_zcdp(bit_eps))
             + (2 * n_votes * up(exponential_mechanism_zcdp(vote_eps)) if n_votes else 0)
             + 1 / (2 * Fraction(sigma) ** 2))
    spent = float(exact)
    if Fraction(spent) < exact:
        spent = math.nextafter(spent, math.inf)
    return LabelPropagationPlan(bit_eps, vote_eps, sigma, spent, zcdp_to_approx_dp(spent, delta),
                                delta)


def _check_count_noise(scale, high):
    """The exact integer samplers' range, checked before anything is charged."""
    if not MIN_SCALE <= scale <= high:
        raise ValueError(
            f"the budget gives the block counts a noise scale of {scale:.3g}, outside the "
            f"range [{MIN_SCALE:.3g}, {high:.3g}] of the exact samplers: choose a budget "
            "closer to 1.")


def _rest(total, part):
    """The largest double ``r`` with ``part + r <= total`` in exact arithmetic: the two
    parts of a split budget never add up past it (``(1 - s) eps`` could, by an ulp)."""
    rest = total - part
    while 0.0 < rest < math.inf and Fraction(part) + Fraction(rest) > Fraction(total):
        rest = math.nextafter(rest, 0.0)
    return rest


def _split(total, share, what):
    """``(share * total, the rest)``, refused where a part rounds to 0 (a budget near
    the smallest double): a mechanism given 0 would refuse later, naming a 0 the user
    never gave."""
    part = share * total
    rest = _rest(total, part)
    if part == 0.0 or rest == 0.0:
        raise ValueError(
            f"{what}={total!r} cannot be split with tree_share={share!r}: a part rounds to 0 "
            f"in floating point. Raise epsilon, or move tree_share towards 1/2."
        )
    return part, rest


def _down(x):
    """``x`` lowered by a few ulps: the parts' rounding never adds up past the budget."""
    for _ in range(4):
        x = math.nextafter(x, 0.0)
    return x
