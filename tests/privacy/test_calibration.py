"""Mechanism-level calibrations: sensitivities, noise scales, density-ratio audits."""

import math

import numpy as np
import pytest
from scipy import stats

from skdpgraph.privacy import (
    approx_dp_to_zcdp,
    gaussian_sigma,
    laplace_scale,
    normalize_weights,
    release_sensitivity,
    weight_release_noise,
)
from skdpgraph.tree import make_spanning_tree, release_tree_weights

ALPHA = 1e-6  # false-failure rate of each statistical test


def laplace_log_density(y, center, scale):
    return np.sum(-np.abs(y - center) / scale - np.log(2 * scale), axis=-1)


def gaussian_log_density(y, center, sigma):
    return np.sum(-0.5 * ((y - center) / sigma) ** 2, axis=-1)


def test_scales_round_up_exactly():
    # A sampler exact for the double scale loses Delta / b (Laplace) and Delta^2 / (2 sigma^2)
    # (Gaussian): never more than the budget, in exact arithmetic; at most one step above.
    from fractions import Fraction

    rng = np.random.default_rng(11)
    budgets = np.concatenate([[3.0, 0.1, 1 / 3, 7.0], 10.0 ** rng.uniform(-4, 4, 500)])
    for delta in (1.0, 0.3, 2.0 ** 0.5):
        for budget in budgets.tolist():
            b = laplace_scale(delta, budget)
            assert Fraction(delta) / Fraction(b) <= Fraction(budget)
            assert Fraction(delta) / Fraction(math.nextafter(b, 0.0)) > Fraction(budget)
            sigma = gaussian_sigma(delta, budget)
            assert Fraction(delta) ** 2 / (2 * Fraction(sigma) ** 2) <= Fraction(budget)
            naive = delta / math.sqrt(2.0 * budget)
            assert sigma <= math.nextafter(math.nextafter(naive, math.inf), math.inf)
    assert laplace_scale(1.0, 3.0) > 1 / 3  # 1 / 3 rounded to nearest is below
    for budget in (1e308, 1.7976931348623157e308, 5e-324):  # 2 rho overflows; sqrt(rho) tiny
        sigma = gaussian_sigma(1.0, budget)
        assert 0.0 < sigma < math.inf
        assert 1 / (2 * Fraction(sigma) ** 2) <= Fraction(budget)


@pytest.mark.parametrize("k", [1, 7, 99])
def test_release_sensitivity_values(k):
    mu = 0.3
    assert release_sensitivity(k, mu, "l1") == mu
    assert release_sensitivity(k, mu, "l1", norm="l2") == mu
    assert release_sensitivity(k, mu, "linf") == pytest.approx(k * mu)
    assert release_sensitivity(k, mu, "linf", norm="l2") == pytest.approx(math.sqrt(k) * mu)


def test_scales():
    assert laplace_scale(0.5, 2.0) == 0.25
    assert gaussian_sigma(2.0, 0.5) == pytest.approx(2.0)  # 2 / sqrt(2 * 0.5)
    assert weight_release_noise(99, 0.1, "l1", epsilon=0.5) == pytest.approx(0.2)
    assert weight_release_noise(99, 0.1, "linf", epsilon=0.5) == pytest.approx(19.8)
    assert weight_release_noise(99, 0.1, "linf", rho=0.5, mechanism="gaussian") \
        == pytest.approx(math.sqrt(99) * 0.1)
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    assert weight_release_noise(4, 0.1, "l1", epsilon=1.0, delta=1e-6,
                                mechanism="gaussian") == pytest.approx(0.1 / math.sqrt(2 * rho))


# ---------------------------------------------------------------------------
# Weight-Release audits through density ratios (exact, analytic)
# ---------------------------------------------------------------------------

def _worst_neighbours(w, mu, neighborhood):
    """Neighbouring tree weights that maximise the Laplace/Gaussian loss."""
    if neighborhood == "l1":
        d = np.zeros_like(w)
        d[0] = mu
        return w + d
    return w + mu  # every released weight moves by mu


def _worst_log_ratio_laplace(w, w2, scale):
    # sup_y log p(y | w) / p(y | w2) = ||w - w2||_1 / scale, attained for y
    # beyond both centres on every coordinate, e.g. y = min(w, w2) - 1.
    y = np.minimum(w, w2) - 1.0
    return laplace_log_density(y, w, scale) - laplace_log_density(y, w2, scale)


@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_weight_release_laplace_density_ratio_is_epsilon(neighborhood):
    rng = np.random.default_rng(0)
    k, mu, eps = 99, 0.1, 0.5  # a 100-node tree, as in the paper's experiment
    w = rng.random(k)
    scale = weight_release_noise(k, mu, neighborhood, epsilon=eps)
    w2 = _worst_neighbours(w, mu, neighborhood)
    ratio = _worst_log_ratio_laplace(w, w2, scale)
    assert ratio == pytest.approx(eps, rel=1e-9)  # tight, and never above
    # Any output: the log ratio is bounded by eps (triangle inequality).
    ys = w + rng.laplace(0, scale * 3, size=(2000, k))
    lr = laplace_log_density(ys, w, scale) - laplace_log_density(ys, w2, scale)
    assert np.all(np.abs(lr) <= eps + 1e-9)


def test_paper_linf_weight_release_calibration_violates_epsilon():
    # UAI 2018, Theorem 11: scale mu / eps claimed eps-DP for linf neighbours.
    # Every one of the |V| - 1 weights can move by mu at once, so the privacy
    # loss reaches (|V| - 1) eps.
    rng = np.random.default_rng(1)
    k, mu, eps = 99, 0.1, 0.5
    w = rng.random(k)
    paper_scale = mu / eps
    w2 = _worst_neighbours(w, mu, "linf")
    ratio = _worst_log_ratio_laplace(w, w2, paper_scale)
    assert ratio == pytest.approx(k * eps)
    assert ratio > eps
    # The library refuses that scale under linf: it uses k times more noise.
    assert weight_release_noise(k, mu, "linf", epsilon=eps) == pytest.approx(k * paper_scale)
    # Under l1 the paper's scale is the right one.
    assert weight_release_noise(k, mu, "l1", epsilon=eps) == pytest.approx(paper_scale)


@pytest.mark.parametrize("neighborhood", ["l1", "linf"])
def test_weight_release_gaussian_privacy_loss_is_rho_zcdp(neighborhood):
    # Gaussian: the privacy loss at y is Gaussian with mean rho_eff and
    # variance 2 rho_eff, rho_eff = ||w - w'||_2^2 / (2 sigma^2) <= rho.
    k, mu, rho = 99, 0.1, 0.05
    rng = np.random.default_rng(2)
    w = rng.random(k)
    sigma = weight_release_noise(k, mu, neighborhood, rho=rho, mechanism="gaussian")
    w2 = _worst_neighbours(w, mu, neighborhood)
    rho_eff = np.sum((w - w2) ** 2) / (2 * sigma ** 2)
    assert rho_eff == pytest.approx(rho, rel=1e-9)
    ys = w + sigma * rng.standard_normal((100000, k))
    loss = gaussian_log_density(ys, w, sigma) - gaussian_log_density(ys, w2, sigma)
    # Mean of 1e5 draws: 6 standard errors (false failure < 1e-8).
    assert abs(loss.mean() - rho) < 6 * math.sqrt(2 * rho / 1e5)


@pytest.mark.parametrize("mechanism, neighborhood", [("laplace", "l1"), ("laplace", "linf"),
                                                     ("gaussian", "l1"), ("gaussian", "linf")])
def test_release_tree_weights_uses_the_calibrated_scale(mechanism, neighborhood):
    # The sampler really adds noise of the calibrated scale: release weights
    # with wide bounds (clipping has probability < 1e-100) and normalize=False,
    # then test noise / scale against the standard law (KS, alpha = 1e-6).
    n = 9
    u = np.arange(n - 1)
    w = np.full(n - 1, 500.0)
    tree = make_spanning_tree(u, u + 1, w, n)
    budget = dict(epsilon=0.8) if mechanism == "laplace" else dict(rho=0.3)
    scale = weight_release_noise(n - 1, 2.0, neighborhood, mechanism=mechanism, **budget)
    gen = np.random.default_rng(3)
    noise = np.concatenate([
        release_tree_weights(tree, sensitivity=2.0, neighborhood=neighborhood,
                             weight_bounds=(0.0, 1000.0), random_state=gen,
                             mechanism=mechanism, normalize=False, **budget).weights - 500.0
        for _ in range(300)])
    law = stats.laplace if mechanism == "laplace" else stats.norm
    assert stats.kstest(noise / scale, law.cdf).pvalue > ALPHA


def test_laplace_mst_release_density_ratio():
    # Laplace-MST releases the whole noisy graph (the MST is post-processing):
    # its density ratio for worst-case neighbours equals eps under both
    # neighbourhoods with the library's scales, and |E| eps under linf with
    # the l1 scale.
    rng = np.random.default_rng(4)
    m, mu, eps = 30, 0.2, 1.0
    w = rng.random(m)
    for nb, scale in (("l1", mu / eps), ("linf", m * mu / eps)):
        assert laplace_scale(release_sensitivity(m, mu, nb), eps) == pytest.approx(scale)
        ratio = _worst_log_ratio_laplace(w, _worst_neighbours(w, mu, nb), scale)
        assert ratio == pytest.approx(eps)
    wrong = _worst_log_ratio_laplace(w, _worst_neighbours(w, mu, "linf"), mu / eps)
    assert wrong == pytest.approx(m * eps)


def test_release_sensitivity_bad_input():
    with pytest.raises(ValueError, match="neighborhood"):
        release_sensitivity(3, 1.0, "l2")
    with pytest.raises(ValueError, match="norm"):
        release_sensitivity(3, 1.0, "l1", norm="linf")
    with pytest.raises(ValueError, match="sensitivity"):
        release_sensitivity(3, 0.0, "l1")
    with pytest.raises(ValueError, match="n_values"):
        release_sensitivity(-1, 1.0, "l1")


def test_edge_flip_epsilon_checks_s():
    from skdpgraph.privacy import edge_flip_epsilon

    assert edge_flip_epsilon(1.0) == 0.0
    assert edge_flip_epsilon(0.5) >= math.log(3.0)
    for s in (0, 2, 1.5, np.nan, -0.1, np.array([0.5, 0.0])):
        with pytest.raises(ValueError, match=r"\(0, 1\]"):
            edge_flip_epsilon(s)
    for s in (None, "a"):
        with pytest.raises(TypeError):
            edge_flip_epsilon(s)


def test_a_grid_out_of_range_names_the_sensitivity():
    from skdpgraph.privacy import release_laplace

    with pytest.raises(ValueError, match="sensitivity of 1e-300"):
        release_laplace(np.zeros(3), 1e-300, 1.0, np.random.default_rng(0))


def test_normalize_weights_clips_into_the_bounds_and_divides_by_high():
    w = np.array([-3.0, 0.0, 1.0, 2.5, 8.0, 20.0])
    out = normalize_weights(w, (1.0, 8.0))
    np.testing.assert_array_equal(out, np.clip(w, 1.0, 8.0) / 8.0)
    tiny = np.finfo(np.float64).tiny
    np.testing.assert_array_equal(normalize_weights(w, (0.0, 4.0)),
                                  np.clip(np.clip(w, 0.0, 4.0) / 4.0, tiny, 1.0))
    # a subnormal upper bound: no overflow warning, every weight at most 1
    sub = normalize_weights(np.array([0.0, 5e-324, 1.0]), (0.0, 5e-324))
    np.testing.assert_array_equal(sub, [tiny, 1.0, 1.0])



def test_randomized_response_probability_halves_exactly_where_it_is_subnormal():
    # From epsilon of about 708.4, s / 2 is subnormal: an s whose half was rounded gave a
    # loss ln((1 - p) / p) above epsilon (by up to 4e-16, in 378 of 4,000 epsilons).
    from decimal import Decimal, localcontext
    from fractions import Fraction

    from skdpgraph.privacy import edge_flip_s, randomized_response_probability

    # Past 709.78 e^epsilon overflows (scipy's expit is 0) while e^-epsilon is subnormal
    # until about 745: released there too, refused beyond.
    for epsilon in np.concatenate([np.linspace(708.0, 709.78, 400),
                                   np.linspace(709.79, 744.0, 100)]):
        p = randomized_response_probability(float(epsilon))
        assert Fraction(p) * 2 == Fraction(edge_flip_s(float(epsilon)))
        with localcontext() as ctx:
            ctx.prec = 60
            exact = Decimal(Fraction(p).numerator) / Decimal(Fraction(p).denominator)
            assert ((1 - exact) / exact).ln() <= Decimal(float(epsilon))
    with pytest.raises(ValueError, match="underflows to 0"):
        edge_flip_s(746.0)


def test_noisy_power_steps_and_label_propagation_parts_stay_within_their_rho():
    # In exact arithmetic: n_iter steps of rho_step within the total (5 x 0.1 > 0.5 in
    # floats), and the plan's rho at least the exact sum of its parts.
    from fractions import Fraction

    from skdpgraph.privacy import noisy_power_budget, plan_label_propagation

    rng = np.random.default_rng(3)
    for n_iter, rho in zip(rng.integers(1, 60, 500), rng.random(500) * 3):
        step, total = noisy_power_budget(int(n_iter), rho=float(rho))
        assert int(n_iter) * Fraction(step) <= Fraction(total)
    assert noisy_power_budget(5, rho=0.5)[0] < 0.1
    for eps in (0.5, 1.0, 4.0, 8.0):
        for bits, rounds, votes in ((1, 6, 2), (4, 8, 2), (6, 12, 0), (16, 12, 10)):
            plan = plan_label_propagation(eps, delta=1e-6, n_bits=bits, n_rounds=rounds,
                                          n_votes=votes)
            # exact parts: eps**2 / 8 per bounded-range vote, 1 / (2 sigma**2) for the counts
            parts = (2 * bits * rounds * Fraction(plan.bit_epsilon) ** 2 / 8
                     + (2 * votes * Fraction(plan.vote_epsilon) ** 2 / 8 if votes else 0)
                     + 1 / (2 * Fraction(plan.count_noise) ** 2))
            assert Fraction(plan.rho) >= parts and plan.epsilon_spent <= eps


def test_negative_counts_are_refused_by_name():
    from skdpgraph.privacy import (PrepaidBudget, exponential_tree_scale,
                                   input_perturbation_scale, noisy_max_prim_scale,
                                   pamst_step_epsilon)

    with pytest.raises(ValueError, match="n_steps must be >= 0"):
        pamst_step_epsilon(-1, 1.0)
    with pytest.raises(ValueError, match="n_tree_edges must be >= 0"):
        exponential_tree_scale(1.0, 1.0, "l1", -1)
    with pytest.raises(ValueError, match="n_tree_edges must be >= 0"):
        input_perturbation_scale("gumbel", sensitivity=1.0, neighborhood="l1",
                                 n_tree_edges=-1, n_edges=3, epsilon=1.0)
    with pytest.raises(ValueError, match="n_tree_edges must be >= 0"):
        noisy_max_prim_scale(sensitivity=1.0, n_tree_edges=-1, epsilon=1.0)
    with pytest.raises(ValueError, match="n_tickets must be >= 0"):
        PrepaidBudget((1.0, 0.0), n_tickets=-1)
    with pytest.raises(TypeError, match="n_steps must be an integer"):
        pamst_step_epsilon(2.5, 1.0)
    # 0 steps (a graph without edges) is one step, as before
    assert pamst_step_epsilon(0, 1.0) == pamst_step_epsilon(1, 1.0) == 1.0


def test_zcdp_budgets_turn_into_steps_within_rho_exactly_at_every_scale():
    # sqrt(8 rho) rounded to nearest passed rho by one ulp in about 13 % of budgets; 8 rho
    # overflowed past 2.2e307 (a Gumbel scale of 0: no noise); a subnormal rho hung.
    from fractions import Fraction

    from skdpgraph.privacy import (exponential_mechanism_epsilon, exponential_tree_scale,
                                   pamst_step_epsilon)

    rng = np.random.default_rng(7)
    for rho in [5e-324, 1e-310, 3e307, 1.7976931348623157e308,
                *(10 ** rng.uniform(-12, 6, size=300))]:
        rho = float(rho)
        eps = exponential_mechanism_epsilon(rho)
        assert Fraction(eps) ** 2 <= 8 * Fraction(rho) < Fraction(math.nextafter(eps, math.inf)) ** 2
        for k in (1, 3, 1000):
            step = pamst_step_epsilon(k, rho=rho)
            assert 0 < step < math.inf and k * Fraction(step) ** 2 <= 8 * Fraction(rho)
    # the exponential mechanism's c from rho: (2 c mu)**2 / 8 was 9.7e-24 above rho here
    rho, mu = 1.8092610363432121e-06, 285.5059421904599
    c = exponential_tree_scale(exponential_mechanism_epsilon(rho), mu, "l1", 1)
    assert (2 * Fraction(c) * Fraction(mu)) ** 2 / 8 <= Fraction(rho)
