"""Budget accountant and zCDP conversions against hand-computed values."""

import math
import pickle

import numpy as np
import pytest

from skdpgraph.exceptions import BudgetError, PrivacyLeakWarning
from skdpgraph.privacy import (
    BudgetAccountant,
    approx_dp_to_zcdp,
    exponential_mechanism_zcdp,
    gaussian_sigma,
    gaussian_zcdp,
    pure_to_zcdp,
    zcdp_to_approx_dp,
)


def test_zcdp_of_mechanisms_hand_computed():
    assert pure_to_zcdp(1.0) == 0.5            # eps^2 / 2
    assert pure_to_zcdp(0.2) == pytest.approx(0.02)
    assert exponential_mechanism_zcdp(1.0) == 0.125  # eps^2 / 8
    assert exponential_mechanism_zcdp(0.4) == pytest.approx(0.02)
    assert gaussian_zcdp(2.0, 4.0) == 0.125    # D^2 / (2 sigma^2) = 4 / 32
    assert gaussian_sigma(2.0, 0.125) == pytest.approx(4.0)
    assert gaussian_zcdp(0.0, 1.0) == 0.0


def test_bun_steinke_conversion_hand_computed():
    # rho + 2 sqrt(rho ln(1/delta)): 0.5 + 2 sqrt(0.5 * 11.512925465) = 5.298525912
    assert zcdp_to_approx_dp(0.5, 1e-5, method="bun_steinke") == pytest.approx(5.298525912, abs=1e-8)
    # 0.01 + 2 sqrt(0.01 * ln(1e6)) = 0.01 + 2 * 0.3716922 = 0.7533845
    assert zcdp_to_approx_dp(0.01, 1e-6, method="bun_steinke") == pytest.approx(0.7533845, abs=1e-6)
    # inverse: (sqrt(ln(1e6) + 1) - sqrt(ln(1e6)))^2 = (3.849093 - 3.716922)^2 = 0.0174689
    assert approx_dp_to_zcdp(1.0, 1e-6, method="bun_steinke") == pytest.approx(0.0174689, abs=1e-6)


def _cks_brute(rho, delta):
    # Canonne-Kamath-Steinke 2020, Prop. 12, minimised on a fine grid.
    alpha = 1 + np.logspace(-6, 7, 400001)
    eps = alpha * rho + (np.log(1 / delta) + (alpha - 1) * np.log1p(-1 / alpha)
                         - np.log(alpha)) / (alpha - 1)
    return eps.min()


@pytest.mark.parametrize("rho, delta", [(0.5, 1e-5), (0.01, 1e-6), (2.0, 1e-9), (1e-5, 1e-3)])
def test_cks_conversion(rho, delta):
    eps = zcdp_to_approx_dp(rho, delta)
    assert eps <= zcdp_to_approx_dp(rho, delta, method="bun_steinke")
    assert eps == pytest.approx(_cks_brute(rho, delta), rel=1e-6, abs=1e-9)


def test_cks_is_below_its_value_at_a_fixed_order_hand_computed():
    # Every Renyi order gives a valid epsilon and the conversion takes the
    # smallest: at alpha = 2 the bound is 2 rho + ln(1/delta) - 2 ln 2.
    at_two = 0.2 + math.log(1e5) - 2 * math.log(2)
    assert zcdp_to_approx_dp(0.1, 1e-5) <= at_two
    assert zcdp_to_approx_dp(0.1, 1e-5) < zcdp_to_approx_dp(0.1, 1e-5, method="bun_steinke")


@pytest.mark.parametrize("method", ["cks", "bun_steinke"])
@pytest.mark.parametrize("eps, delta", [(0.1, 1e-6), (1.0, 1e-6), (5.0, 1e-9), (20.0, 1e-3)])
def test_inverse_conversion_is_largest_valid_rho(method, eps, delta):
    rho = approx_dp_to_zcdp(eps, delta, method=method)
    assert zcdp_to_approx_dp(rho, delta, method=method) <= eps
    assert zcdp_to_approx_dp(rho * (1 + 1e-6), delta, method=method) > eps


def test_conversion_edge_cases_and_errors():
    assert zcdp_to_approx_dp(0.0, 1e-6) == 0.0
    assert zcdp_to_approx_dp(math.inf, 1e-6) == math.inf
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="delta"):
            zcdp_to_approx_dp(0.1, bad)
    with pytest.raises(ValueError, match="rho"):
        zcdp_to_approx_dp(-1.0, 1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        approx_dp_to_zcdp(0.0, 1e-6)
    with pytest.raises(ValueError, match="method"):
        zcdp_to_approx_dp(0.1, 1e-6, method="rdp")
    with pytest.raises(TypeError):
        pure_to_zcdp("1")


def test_zcdp_composition_of_ptclust_hand_computed():
    # 99 PAMST steps of eps_s each and a Gaussian release with rho_w:
    # rho = 99 eps_s^2 / 8 + rho_w; with rho_total = 0.0174689 split evenly,
    # eps_s = sqrt(8 * 0.00873445 / 99) = 0.0265681.
    rho = approx_dp_to_zcdp(1.0, 1e-6, method="bun_steinke")
    eps_s = math.sqrt(8 * (rho / 2) / 99)
    assert eps_s == pytest.approx(0.0265681, abs=1e-6)
    total = 99 * exponential_mechanism_zcdp(eps_s) + rho / 2
    assert total == pytest.approx(rho)
    assert zcdp_to_approx_dp(total, 1e-6, method="bun_steinke") == pytest.approx(1.0)
    # Pure composition would give each step 0.5 / 99 = 0.00505: 5 times less.
    assert eps_s > 5 * 0.5 / 99


def test_budget_accountant():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    assert acc.remaining() == (1.0, 1e-5)
    acc.spend(0.1, 0).spend(0.2, 1e-6)
    assert acc.total() == (pytest.approx(0.3), pytest.approx(1e-6))
    assert acc.spent_budget == [(0.1, 0.0), (0.2, 1e-6)]
    assert acc.remaining(2)[0] == pytest.approx(0.35)
    assert acc.check(0.7, 9e-6)  # exactly the rest: allowed
    with pytest.raises(BudgetError, match="not permissible"):
        acc.check(0.71, 0)
    with pytest.raises(BudgetError):
        acc.spend(0.1, 1e-5)
    assert acc.total()[0] == pytest.approx(0.3)  # a refused spend is not recorded
    assert issubclass(BudgetError, ValueError)
    # Float sums: ten spends of 0.1 fit a budget of 1.0.
    acc = BudgetAccountant(1.0, 0.0)
    for _ in range(10):
        acc.spend(0.1, 0.0)
    assert acc.remaining() == (0.0, 0.0)
    assert "BudgetAccountant" in repr(acc)


def test_budget_accountant_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        BudgetAccountant(-1.0)
    with pytest.raises(ValueError, match="delta"):
        BudgetAccountant(1.0, 1.5)
    acc = BudgetAccountant()
    with pytest.raises(ValueError, match="epsilon"):
        acc.spend(math.nan, 0.0)
    with pytest.raises(TypeError):
        acc.spend("0.1", 0.0)
    with pytest.raises(ValueError, match="k"):
        acc.remaining(0)
    assert BudgetAccountant(spent_budget=[(0.5, 0.0)]).total() == (0.5, 0.0)


def test_privacy_leak_warning_is_a_user_warning():
    assert issubclass(PrivacyLeakWarning, UserWarning)


def test_clones_share_the_budget():
    import copy

    import numpy as np
    from sklearn.base import clone

    from skdpgraph import PrivateMSTClustering

    acc = BudgetAccountant(epsilon=1.5)
    assert copy.copy(acc) is acc and copy.deepcopy(acc) is acc
    model = PrivateMSTClustering(epsilon=1.0, sensitivity=0.1, weight_bounds=(0.0, 10.0),
                                 accountant=acc, random_state=0)
    X = np.random.default_rng(0).random((12, 2))
    clone(model).fit(X)
    assert acc.total()[0] == pytest.approx(1.0)
    with pytest.raises(BudgetError):
        clone(model).fit(X)  # a second clone would overspend the shared budget


@pytest.mark.slow
def test_slack_uses_advanced_composition():
    import math

    acc = BudgetAccountant(epsilon=2.0, delta=1e-6, slack=1e-7)
    for _ in range(400):
        acc.spend(0.01, 0.0)
    e, k, s = 0.01, 400, 1e-7
    expected = k * e * math.expm1(e) / (math.exp(e) + 1) + math.sqrt(2 * math.log(1 / s) * k * e * e)
    assert acc.total() == (pytest.approx(expected), pytest.approx(1e-7))
    eps_left, _ = acc.remaining()
    acc.spend(eps_left, 0.0)  # exactly what remains fits
    with pytest.raises(BudgetError):
        acc.spend(1e-3, 0.0)
    with pytest.raises(ValueError, match="slack"):
        BudgetAccountant(epsilon=1.0, delta=1e-6, slack=1e-3)


def test_default_accountant_and_context_manager():
    from skdpgraph.cluster import PrivateMSTClustering

    X = np.random.default_rng(0).random((20, 2))
    model = PrivateMSTClustering(epsilon=0.5, weight_bounds=(0, 2), tree_mechanism="laplace",
                                 random_state=0)
    with BudgetAccountant(epsilon=1.0) as acc:
        assert BudgetAccountant.load_default() is acc
        model.fit(X)
        model.fit(X)
        with pytest.raises(BudgetError):
            model.fit(X)
    assert acc.total() == (1.0, 0.0)
    assert BudgetAccountant.load_default() is not acc  # restored
    assert BudgetAccountant.pop_default() is not acc


def test_an_accountant_without_check_and_spend_is_a_type_error():
    from skdpgraph.privacy import charge

    for bad in ("x", 1.0, object()):
        with pytest.raises(TypeError, match="accountant"):
            charge(bad, 1.0, 0.0)


def _fsum_total(spends, slack):
    """The composition of BudgetAccountant's docstring, re-added from every spend."""
    eps = math.fsum(e for e, _ in spends)
    if not slack:
        return eps, min(1.0, math.fsum(d for _, d in spends))
    delta = min(1.0, 1.0 - (1.0 - slack) * math.prod(1.0 - d for _, d in spends))
    if not spends:
        return 0.0, delta
    advanced = (math.fsum(e * math.expm1(e) / (math.exp(e) + 1.0) if e < 700 else e
                          for e, _ in spends)
                + math.sqrt(2.0 * math.log(1.0 / slack) * math.fsum(e * e for e, _ in spends)))
    return min(eps, advanced), delta


def test_running_totals_equal_the_sums_of_every_spend():
    rng = np.random.default_rng(0)
    kinds = [lambda: rng.random(), lambda: rng.random() * 1e-12, lambda: rng.random() * 50,
             lambda: 1e-300, lambda: 0.0, lambda: 800.0]
    for _ in range(200):
        spends = [(float(kinds[rng.integers(6)]()),
                   float(rng.random() * 1e-6 if rng.random() < 0.5 else 0.0))
                  for _ in range(rng.integers(0, 30))]
        slack = float(rng.choice([0.0, 1e-7, 1e-3]))
        accountant = BudgetAccountant(slack=slack)
        for spend in spends:
            accountant.spend(*spend)
            # each check adds the new spend to the running sums, exactly
        assert accountant.total() == _fsum_total(spends, slack)
        assert BudgetAccountant(slack=slack, spent_budget=spends).total() == accountant.total()
        assert accountant.total(spends[:3]) == _fsum_total(spends[:3], slack)


def test_sums_past_the_largest_double_are_infinite_and_k_may_be_huge():
    accountant = BudgetAccountant().spend(1e308, 0).spend(1e308, 0)
    assert accountant.total() == (math.inf, 0.0)
    accountant = BudgetAccountant().spend(1e154, 0).spend(1e154, 0)  # e**2 past the max
    accountant.spend(1.4e154, 0).spend(math.inf, 0)
    assert accountant.total() == (math.inf, 0.0)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(BudgetAccountant(2.0).spend(1.0, 0), protocol))
        assert restored.total() == (1.0, 0.0)
    budget = BudgetAccountant(epsilon=1.0, delta=1e-3, slack=1e-4)
    epsilon, delta = budget.remaining(10**18)  # no list of 10**18 spends is built
    assert 0 < epsilon < 1e-8 and 0 <= delta < 1e-18
    with pytest.raises(ValueError, match="positive integer"):
        budget.remaining(True)
    with pytest.raises(ValueError, match="at most 2"):
        budget.remaining(2**64)
    # k spends of the share returned fit the budget (delta included).
    budget = BudgetAccountant(epsilon=1.0, delta=1e-3, slack=1e-4).spend(0.1, 1e-5)
    epsilon, delta = budget.remaining(3)
    for _ in range(3):
        budget.spend(epsilon, delta)


def test_an_accountant_pickled_without_running_sums_loads():
    accountant = BudgetAccountant(epsilon=5.0).spend(1.0, 0).spend(0.5, 0)
    state = accountant.__getstate__()
    del state["_ledger"]  # as pickled by an earlier version
    restored = BudgetAccountant.__new__(BudgetAccountant)
    restored.__setstate__(state)
    assert restored.total() == (1.5, 0.0) and restored.spent_budget == [(1.0, 0), (0.5, 0)]


def _cks_infimum(rho, delta):
    """The exact infimum over Renyi orders of the CKS conversion (60-digit decimals)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        r, L = Decimal(rho), -Decimal(delta).ln()

        def f(t):  # alpha = 1 + e^t
            a = t.exp()
            return (1 + a) * r + (L + a * (1 - 1 / (1 + a)).ln() - (1 + a).ln()) / a

        ts = [Decimal(x) / 4 for x in range(-120, 121)]
        k = min(range(len(ts)), key=lambda i: f(ts[i]))
        lo, hi = ts[max(k - 1, 0)], ts[min(k + 1, len(ts) - 1)]
        for _ in range(90):
            m1, m2 = lo + (hi - lo) * Decimal("0.381966"), lo + (hi - lo) * Decimal("0.618034")
            lo, hi = (lo, m2) if f(m1) < f(m2) else (m1, hi)
        return min(f((lo + hi) / 2), r + 2 * (r * L).sqrt())


def test_the_zcdp_conversion_holds_in_exact_arithmetic():
    # Its float evaluation fell below the exact infimum by up to 1.7e-13 relative in 356 of
    # 1,500 random cases, and by 1e-11 at delta near 1 (1 - 1/alpha near alpha = 1); the
    # returned epsilon now bounds it.
    from decimal import Decimal

    rng = np.random.default_rng(7)
    cases = [(13.309348880234873, 0.9999999410775846), (0.5, 1e-5), (4.0, 1e-12)]
    for _ in range(24):
        rho = float(10 ** rng.uniform(-12, 4))
        delta = (float(10 ** rng.uniform(-15, -0.01)) if rng.random() < 0.6
                 else float(1 - 10 ** rng.uniform(-12, -0.5)))
        cases.append((rho, delta))
    for rho, delta in cases:
        exact = _cks_infimum(rho, delta)
        if exact > 0:
            assert Decimal(zcdp_to_approx_dp(rho, delta)) >= exact, (rho, delta)


def test_an_epsilon_whose_rho_passes_the_largest_double_is_refused():
    assert approx_dp_to_zcdp(1e308, 1e-6) <= 1e308
    assert zcdp_to_approx_dp(approx_dp_to_zcdp(1.7e308, 1e-6), 1e-6) <= 1.7e308
    with pytest.raises(ValueError, match="too large to be converted to zCDP"):
        approx_dp_to_zcdp(1.7976931348623157e308, 1e-6)
