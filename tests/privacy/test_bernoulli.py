"""Randomized response at any sample rate: exact coins, loss at most epsilon.

The realised probabilities of an edge and of a non-edge being released are
checked in exact arithmetic (fractions, and decimal enclosures of the
exponential in the geometric rate) against the nominal ``(1 - p) q`` and
``p q``; the loss they give is at most ``epsilon`` at every rate; the float
comparison they replace is shown to exceed it; and the samplers are checked
against their laws.
"""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from skdpgraph.edge_dp import flip_pair_keys
from skdpgraph.privacy import (
    bernoulli_process,
    bernoulli_words,
    edge_flip_s,
    randomized_response_loss,
    randomized_response_rates,
)

EPSILONS = [0.05, 1.0, 4.0, 10.0, 30.0]
RATES = [1.0, 1e-3, 1e-9, 3.3e-14, 1e-20, 1e-300]


def _exp_bounds(x, digits=80):
    """Rigorous (lo, hi) Fractions around exp(x) for a Fraction x (Taylor + remainder)."""
    getcontext().prec = digits
    # exp(-y) for y > 0: alternating series, bracketed by consecutive partial sums.
    y = -x
    assert y > 0
    term, total, k = Fraction(1), Fraction(1), 0
    lo = hi = None
    while True:
        k += 1
        term = -term * y / k
        new = total + term
        lo, hi = (min(total, new), max(total, new))
        total = new
        if abs(term) < Fraction(1, 10**60) * abs(total):
            return lo, hi


def _realised(rates):
    """Exact a' (Fraction) and an enclosure (lo, hi) of b' (Fractions)."""
    a = Fraction(rates.keep[0], 1 << rates.keep[1])
    if rates.mark_scale is None:
        return a, (Fraction(0), Fraction(0))
    inv = 1 / Fraction(rates.mark_scale)
    e_lo, e_hi = _exp_bounds(-inv)
    t = Fraction(rates.thin[0], 1 << rates.thin[1])
    return a, ((1 - e_hi) * t, (1 - e_lo) * t)


@pytest.mark.parametrize("q", RATES)
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_realised_probabilities_round_in_the_safe_direction(epsilon, q):
    p = edge_flip_s(epsilon) / 2.0
    fp, fq = Fraction(p), Fraction(q)
    # s is chosen so that the nominal loss is at most epsilon, exactly (60 digits).
    getcontext().prec = 60
    nominal_loss = (Decimal((1 - fp).numerator) / Decimal((1 - fp).denominator)
                    / (Decimal(fp.numerator) / Decimal(fp.denominator))).ln()
    assert nominal_loss <= Decimal(epsilon) + Decimal("1e-50")
    rates = randomized_response_rates(p, q)
    a, (b_lo, b_hi) = _realised(rates)
    assert a <= (1 - fp) * fq and a >= (1 - fp) * fq * (1 - Fraction(1, 2**59))
    assert b_lo >= fp * fq and b_hi <= fp * fq * (1 + Fraction(1, 2**48))
    # Hence both likelihood ratios are within the nominal one.
    nominal = (1 - fp) / fp
    assert a / b_lo <= nominal
    assert (1 - b_lo) / (1 - a) <= nominal
    assert b_hi / a <= nominal
    loss = randomized_response_loss(rates)
    assert loss <= epsilon
    assert loss >= epsilon * (1 - 1e-9) - 1e-12  # and it is tight


def _float_comparison_loss(p, q):
    """Exact loss of the comparison ``U < fl((1-p) q)`` / ``U < fl(p q)``, U on 2**-53."""
    def realised(x):  # P(U < x) for U uniform on the grid k / 2**53
        return Fraction(math.ceil(Fraction(x) * 2**53), 2**53)

    a, b = realised((1.0 - p) * q), realised(p * q)
    return max(math.log(a / b), math.log((1 - b) / (1 - a)))


def test_the_float_comparison_exceeds_epsilon_where_the_exact_coins_do_not():
    p = edge_flip_s(1.0) / 2.0
    assert _float_comparison_loss(p, 1e-9) > 1.0 + 1e-8
    assert _float_comparison_loss(p, 3.3e-14) > 1.001
    for q in (1e-9, 3.3e-14):
        assert randomized_response_loss(randomized_response_rates(p, q)) <= 1.0


def test_p_near_one_half_is_refused_or_exact():
    rates = randomized_response_rates(0.5, 0.3)
    assert randomized_response_loss(rates) < 1e-15
    assert randomized_response_loss(randomized_response_rates(0.5 - 2**-40, 1.0)) <= \
        math.log((0.5 + 2**-40) / (0.5 - 2**-40)) * (1 + 1e-9)
    with pytest.raises(ValueError, match="flip_probability"):
        randomized_response_rates(0.6)


class _Words:
    """A stand-in generator that returns given 64-bit words, in order."""

    def __init__(self, words):
        self.words = list(words)

    def integers(self, low, high, size, dtype, endpoint):
        out = np.array(self.words[:size], dtype=np.uint64)
        del self.words[:size]
        return out


def test_multiword_coins_compare_word_by_word():
    A = (5 << 64) | 7  # probability A / 2**128
    # First words: below 5 (True), above 5 (False), equal (go on: next word 6 < 7
    # True, next word 7 == 7 -> the uniform is A / 2**128 or more: False).
    rng = _Words([4, 6, 5, 5, 6, 7])
    got = bernoulli_words((A, 128), 4, rng)
    assert got.tolist() == [True, False, True, False]
    assert bernoulli_words((0, 64), 3, rng).tolist() == [False] * 3
    assert bernoulli_words((1, 0), 2, rng).tolist() == [True, True]


def test_bernoulli_process_law():
    # Gaps between marks are geometric: chi-square on the gap counts; the
    # count of marks in n positions is Binomial(n, rate). Thresholds at 1e-7.
    rng = np.random.default_rng(3)
    scale = 1.0 / -math.log1p(-0.2)  # rate 0.2
    marks = bernoulli_process(200_000, scale, (1, 0), rng)
    assert np.all(np.diff(marks) > 0) and marks[0] >= 0 and marks[-1] < 200_000
    lo, hi = stats.binom.ppf([5e-8, 1 - 5e-8], 200_000, 0.2)
    assert lo <= marks.size <= hi
    gaps = np.diff(marks) - 1
    k = np.arange(12)
    expected = gaps.size * 0.2 * 0.8 ** k
    observed = np.bincount(np.minimum(gaps, 12), minlength=13)
    expected = np.r_[expected, gaps.size * 0.8**12]
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    assert chi2 < stats.chi2.isf(1e-7, df=12), chi2


def test_thinned_process_at_tiny_rates():
    # Rate 1e-17 over 2**60 positions: 11.5 marks expected (Poisson bounds at 1e-7).
    rates = randomized_response_rates(0.25, 4e-17)
    assert rates.thin[0] < (1 << rates.thin[1])  # the thinning path
    rng = np.random.default_rng(11)
    counts = [bernoulli_process(2**60, rates.mark_scale, rates.thin, rng).size
              for _ in range(20)]
    mean = 2**60 * 1e-17 * 20
    lo, hi = stats.poisson.ppf([5e-8, 1 - 5e-8], mean)
    assert lo <= sum(counts) <= hi


@pytest.mark.slow
def test_subsampled_flip_law_on_all_outputs():
    # 4 nodes (6 pairs), p = 0.3, q = 0.5: chi-square over the 64 outputs (the
    # smallest expected count is 20,000 x 0.15**3 x 0.65**3 = 18.5)
    # against the exact product law; threshold chi2.isf(1e-8, 63).
    rng = np.random.default_rng(8)
    n_pairs, p, q, draws = 6, 0.3, 0.5, 20_000
    edge_keys = np.array([0, 3, 5], dtype=np.int64)
    a, b = (1 - p) * q, p * q
    is_edge = np.isin(np.arange(n_pairs), edge_keys)
    law = np.empty(64)
    for code in range(64):
        out = (code >> np.arange(n_pairs)) & 1
        prob = np.where(is_edge, np.where(out, a, 1 - a), np.where(out, b, 1 - b))
        law[code] = prob.prod()
    counts = np.zeros(64)
    weights = 1 << np.arange(n_pairs)
    for _ in range(draws):
        counts[int(weights[flip_pair_keys(edge_keys, n_pairs, p, rng,
                                          sample_rate=q)].sum())] += 1
    expected = draws * law
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    assert chi2 < stats.chi2.isf(1e-8, df=63), chi2


def test_bernoulli_process_refuses_counts_out_of_range():
    from skdpgraph.exceptions import WorkMemoryError
    from skdpgraph.privacy import bernoulli_process

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n must be >= 0"):
        bernoulli_process(-1, 1.0, (1, 0), rng)
    with pytest.raises(ValueError, match="n must be <= "):
        bernoulli_process(2**62 + 1, 1.0, (1, 0), rng)
    # about 7e14 marks of 8 bytes: no process holds them; refused before drawing
    with pytest.raises(WorkMemoryError, match="Bernoulli process"):
        bernoulli_process(2**50, 1.0, (1, 0), rng)
    assert bernoulli_process(0, 1.0, (1, 0), rng).size == 0
