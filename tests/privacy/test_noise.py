"""Exact discrete noise and grid releases (skdpgraph.privacy).

Statistical tests are seeded; thresholds sit at the 1e-7 upper quantile (or
six standard deviations), so a correct sampler fails with probability well
below 1e-6 across the file.
"""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from skdpgraph.privacy import (
    MAX_SCALE,
    GridRelease,
    discrete_gaussian,
    discrete_laplace,
    grid_for,
    release_gaussian,
    release_laplace,
)

ALPHA = 1e-7

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _laplace_cdf(k, scale):
    """P(K <= k) for the discrete Laplace law, k an integer array."""
    k = np.asarray(k, dtype=np.float64)
    log1pq = math.log1p(math.exp(-1.0 / scale))
    neg = np.exp(np.minimum(k, 0) / scale - log1pq)  # q**-k / (1 + q), k < 0
    pos = -np.expm1(-(np.maximum(k, 0) + 1) / scale - log1pq)  # 1 - q**(k+1)/(1+q)
    return np.where(k < 0, neg, pos)


def _gaussian_cdf(k, sigma):
    """P(K <= k) for the discrete Gaussian law."""
    k = np.asarray(k, dtype=np.float64)
    if sigma <= 100:
        support = np.arange(-int(40 * sigma) - 10, int(40 * sigma) + 11)
        logp = -(support**2) / (2 * sigma**2)
        cdf = np.cumsum(np.exp(logp - logsumexp(logp)))
        pos = np.clip(np.searchsorted(support, k, side="right") - 1, 0, None)
        return np.where(k < support[0], 0.0, cdf[pos])
    # sum_k exp(-k^2/2s^2) equals the integral up to a relative exp(-2 pi^2 s^2);
    # the midpoint rule is then accurate to O(1/sigma^2) per bin.
    return stats.norm.cdf((k + 0.5) / sigma)


def _moments(log_weight, half_width, var_large, kurt):
    """(Var K, Var K^2) of a symmetric integer law with the given log-weights.

    Summed exactly when the support is small; otherwise the continuous limit
    (variance ``var_large``, kurtosis ``kurt``), accurate to O(1/scale^2).
    """
    if half_width > 1e5:
        return var_large, (kurt - 1) * var_large**2
    x = np.arange(-int(half_width) - 10, int(half_width) + 11, dtype=np.float64)
    lw = log_weight(x)
    p = np.exp(lw - logsumexp(lw))
    var = float(np.sum(p * x**2))
    return var, float(np.sum(p * x**4)) - var**2


def _chi2_fit(sample, cdf, ppf, n_bins=60):
    """Chi-square goodness of fit on integer bins pooled to expected >= 5.

    The bin edges are fixed in advance from an approximate quantile
    function ``ppf`` (a continuous law of the same shape).
    """
    n = sample.size
    edges = np.unique(
        np.round(ppf(np.linspace(1e-4, 1 - 1e-4, n_bins))).astype(np.int64)
    )
    # bins: (-inf, e0], (e0, e1], ..., (e_last, inf)
    c = np.concatenate([[0.0], cdf(edges), [1.0]])
    expected = np.diff(c) * n
    observed = np.bincount(
        np.searchsorted(edges, sample, side="left"), minlength=edges.size + 1
    )
    pooled_e, pooled_o, acc_e, acc_o = [], [], 0.0, 0
    for e, o in zip(expected, observed):
        acc_e += e
        acc_o += o
        if acc_e >= 5:
            pooled_e.append(acc_e)
            pooled_o.append(acc_o)
            acc_e, acc_o = 0.0, 0
    pooled_e[-1] += acc_e
    pooled_o[-1] += acc_o
    pooled_e, pooled_o = np.array(pooled_e), np.array(pooled_o)
    stat = np.sum((pooled_o - pooled_e) ** 2 / pooled_e)
    df = pooled_e.size - 1
    assert df >= 1
    return stat, stats.chi2.isf(ALPHA, df)


# PCG64 is k -> a k + c on 128 bits, and outputs rotr(hi ^ lo, hi >> 58) of
# the *new* state: choosing that state fixes the next 64-bit word exactly.
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341
_PCG_INV = pow(_PCG_MULT, -1, 1 << 128)


def _generator_with_next_word(word, seed):
    """A numpy Generator (public API only) whose next 64-bit word is ``word``.

    The words after it are the PCG64 stream from a state that depends on
    ``seed``: different seeds give independent-looking continuations.
    """
    inc = 0xDA3E39CB94B95BDB5ACB2A2BD5ED3BB3 | 1
    hi = (seed * 0x9E3779B97F4A7C15) & ((1 << 58) - 1)  # top 6 bits 0: no rotation
    new_state = (hi << 64) | (hi ^ word)
    state = ((new_state - inc) * _PCG_INV) % (1 << 128)
    bg = np.random.PCG64()
    bg.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": 0,
        "uinteger": 0,
    }
    gen = np.random.Generator(bg)
    probe = np.random.Generator(np.random.PCG64())
    probe.bit_generator.state = bg.state
    assert int(probe.bit_generator.random_raw()) == word
    return gen


# --------------------------------------------------------------------------
# Laws
# --------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.3, 1.0, 7.5, 1000.0, 7.0e4, 1.5e9])
def test_discrete_laplace_law(scale):
    rng = np.random.default_rng(20260501)
    k = discrete_laplace(scale, 200_000, rng)
    assert k.dtype == np.int64 and k.shape == (200_000,)
    stat, threshold = _chi2_fit(
        k, lambda e: _laplace_cdf(e, scale), lambda u: stats.laplace.ppf(u, scale=scale)
    )
    assert stat < threshold, (stat, threshold)

    q = math.exp(-1.0 / scale)
    var = 2 * q / math.expm1(-1.0 / scale) ** 2
    _, var_sq = _moments(
        lambda x: -np.abs(x) / scale, 60 * scale, var_large=var, kurt=6
    )
    n = k.size
    assert abs(k.mean()) < 6 * math.sqrt(var / n)
    assert abs(np.mean(k.astype(np.float64) ** 2) - var) < 6 * math.sqrt(var_sq / n)
    # P(K = 0) and symmetry of the signs.
    p0 = (1 - q) / (1 + q)
    assert abs(np.mean(k == 0) - p0) < 6 * math.sqrt(p0 * (1 - p0) / n) + 1e-12
    pos, neg = np.sum(k > 0), np.sum(k < 0)
    if pos + neg:
        assert stats.binomtest(int(pos), int(pos + neg)).pvalue > ALPHA


@pytest.mark.parametrize("sigma", [0.5, 2.0, 30.0, 1.0e6])
def test_discrete_gaussian_law(sigma):
    rng = np.random.default_rng(20260502)
    k = discrete_gaussian(sigma, 200_000, rng)
    assert k.dtype == np.int64 and k.shape == (200_000,)
    stat, threshold = _chi2_fit(
        k, lambda e: _gaussian_cdf(e, sigma), lambda u: stats.norm.ppf(u, scale=sigma)
    )
    assert stat < threshold, (stat, threshold)

    # Var = sigma^2 up to a relative exp(-2 pi^2 sigma^2) for large sigma.
    var, var_sq = _moments(
        lambda x: -(x**2) / (2 * sigma**2), 40 * sigma, var_large=sigma**2, kurt=3
    )
    n = k.size
    assert abs(k.mean()) < 6 * math.sqrt(var / n)
    assert abs(np.mean(k.astype(np.float64) ** 2) - var) < 6 * math.sqrt(var_sq / n)
    pos, neg = np.sum(k > 0), np.sum(k < 0)
    assert stats.binomtest(int(pos), int(pos + neg)).pvalue > ALPHA


def test_samplers_shapes_and_reproducibility():
    a = discrete_laplace(3.0, (4, 5), np.random.default_rng(1))
    b = discrete_laplace(3.0, (4, 5), np.random.default_rng(1))
    assert a.shape == (4, 5) and np.array_equal(a, b)
    g = discrete_gaussian(3.0, (2, 3), np.random.default_rng(2))
    assert g.shape == (2, 3) and g.dtype == np.int64
    assert discrete_laplace(1.0, 0, np.random.default_rng(0)).shape == (0,)
    assert discrete_gaussian(1.0, 0, np.random.default_rng(0)).shape == (0,)


# --------------------------------------------------------------------------
# The exact path: words the float computation cannot decide
# --------------------------------------------------------------------------


@pytest.mark.slow
def test_zero_word_reaches_the_untruncated_tail():
    """The 64-bit word 0 means V < 2**-63: |K| >= 44 at scale 1.

    A float inversion on a 53-bit uniform can never exceed 37 there, and
    one that maps the zero word to 0 or to the smallest double truncates the
    tail. Given V < 2**-63, P(|K| >= k) = min(1, 2 q**k / (1 + q) / 2**-63)
    exactly (the refinement bits are fresh): the conditional law is tested.
    """
    q = math.exp(-1.0)

    def tail(k):
        return min(1.0, 2 * q**k / (1 + q) * 2.0**63)

    draws = np.array(
        [
            discrete_laplace(1.0, 1, _generator_with_next_word(0, s))[0]
            for s in range(1, 1501)
        ]
    )
    assert draws.min() >= 44  # sign bit is the word's lowest bit: 0, positive
    ks = [44, 45, 46, 47]
    expected = (
        np.array([tail(k) - tail(k + 1) for k in ks[:-1]] + [tail(ks[-1])]) * draws.size
    )
    observed = np.array(
        [np.sum(draws == k) for k in ks[:-1]] + [np.sum(draws >= ks[-1])]
    )
    assert expected.min() >= 5
    stat = np.sum((observed - expected) ** 2 / expected)
    assert stat < stats.chi2.isf(ALPHA, len(ks) - 1)

    # Lowest bit 1: same magnitude law, negative sign.
    neg = discrete_laplace(1.0, 1, _generator_with_next_word(1, 7))[0]
    assert neg <= -44


def test_small_word_decided_exactly():
    # word = 2**31: V in [2**30, 2**30 + 1) / 2**63, a cell whose image
    # y = ln(2q/(1+q)) - ln V lies inside (22, 23): |K| = 23, sign from bit 0.
    ln_v = -33 * math.log(2)
    y = math.log(2) - 1 - math.log1p(math.exp(-1)) - ln_v
    assert 22.01 < y < 22.99
    assert discrete_laplace(1.0, 1, _generator_with_next_word(1 << 31, 3))[0] == 23
    assert (
        discrete_laplace(1.0, 1, _generator_with_next_word((1 << 31) | 1, 3))[0] == -23
    )


def test_zero_word_two_stage_scale():
    # Large scales split |K| - 1 = R + m H; the zero word still reaches the tail.
    scale = 1.0e6
    k = discrete_laplace(scale, 1, _generator_with_next_word(0, 11))[0]
    assert k >= 43 * scale


def test_seeded_streams_unchanged():
    """A seed gives the same draws from one version to the next.

    Pinned outputs of the fast path (one and two stages, the Gaussian's
    rejection) and of the exact path (zero words, settled with decimal), so
    that a refactoring of the sampler cannot change a seeded release.
    """
    assert discrete_laplace(3.0, 8, np.random.default_rng(0)).tolist() == [
        -1, -4, 10, -12, -1, 0, -1, -1
    ]
    assert discrete_laplace(1e6, 6, np.random.default_rng(1)).tolist() == [
        -670328, 52497, -1937806, 49377, -1169431, 856369
    ]
    assert discrete_gaussian(3.0, 8, np.random.default_rng(2)).tolist() == [
        -4, 4, 1, -7, -2, -5, -4, -1
    ]
    exact_one_stage = [
        int(discrete_laplace(1.0, 1, _generator_with_next_word(0, s))[0]) for s in range(1, 9)
    ]
    assert exact_one_stage == [45, 44, 44, 45, 48, 44, 45, 44]
    exact_two_stage = [
        int(discrete_laplace(1e6, 1, _generator_with_next_word(0, s))[0]) for s in range(1, 5)
    ]
    assert exact_two_stage == [44857241, 44079751, 44560941, 44839041]


def test_no_truncation_large_sample():
    # Extreme but reachable values appear with the right frequency.
    rng = np.random.default_rng(99)
    k = discrete_laplace(0.5, 2_000_000, rng)
    q = math.exp(-2.0)
    for level in (4, 5):
        p = 2 * q**level / (1 + q)
        count = int(np.sum(np.abs(k) >= level))
        assert stats.binomtest(count, k.size, p).pvalue > ALPHA


# --------------------------------------------------------------------------
# The floating-point attack (Mironov 2012), reproduced
# --------------------------------------------------------------------------

_LOG = np.frompyfunc(math.log, 1, 1)  # the C library log numpy's sampler uses


def _numpy_laplace_branch(k, upper):
    """numpy's Generator.laplace(0, 1) for U = k * 2**-53 (C code, step by step)."""
    u = k.astype(np.float64) * 2.0**-53
    if upper:  # U >= 0.5: loc - scale * log(2.0 - U - U)
        return 0.0 - _LOG((2.0 - u) - u).astype(np.float64)
    return 0.0 + _LOG(u + u).astype(np.float64)  # 0 < U < 0.5


def _emulate_numpy_laplace(words):
    k = (words >> np.uint64(11)).astype(np.int64)
    assert np.all(k > 0)  # U == 0 would be redrawn
    out = np.empty(k.size)
    up = k >= 1 << 52
    out[up] = _numpy_laplace_branch(k[up], True)
    out[~up] = _numpy_laplace_branch(k[~up], False)
    return out


def _producible(y, w):
    """For each double y: can fl(w + numpy_laplace(0, 1)) equal y exactly?

    fl(w + L(U)) is non-decreasing in U on each branch, so a binary search
    over the 2**52 values of U per branch is a proof either way.
    """
    found = np.zeros(y.size, dtype=bool)
    for upper, (first, last) in (
        (True, (1 << 52, (1 << 53) - 1)),
        (False, (1, (1 << 52) - 1)),
    ):
        lo = np.full(y.size, first, dtype=np.int64)
        hi = np.full(y.size, last + 1, dtype=np.int64)  # smallest k with f(k) >= y
        while np.any(lo < hi):
            active = lo < hi
            mid = (lo + hi) // 2
            f = w + _numpy_laplace_branch(mid[active], upper)
            below = f < y[active]
            lo[active] = np.where(below, mid[active] + 1, lo[active])
            hi[active] = np.where(below, hi[active], mid[active])
        ok = lo <= last
        f = np.full(y.size, np.nan)
        f[ok] = w + _numpy_laplace_branch(lo[ok], upper)
        found |= f == y
    return found


def _loss_lower_bound(count_a, n_a, count_b, n_b, level=0.05):
    """Lower confidence bound on ln(P_a(S) / P_b(S)) from counts (Clopper-Pearson).

    One-sided level/2 each, hence joint coverage at least 1 - level.
    """
    if count_a == 0:
        return -math.inf
    p_a_lo = stats.beta.ppf(level / 2, count_a, n_a - count_a + 1)
    p_b_hi = (
        1.0
        if count_b == n_b
        else stats.beta.ppf(1 - level / 2, count_b + 1, n_b - count_b)
    )
    return math.log(p_a_lo / p_b_hi)


def test_numpy_laplace_emulation_is_bit_exact():
    words = np.random.Generator(np.random.PCG64(2012)).bit_generator.random_raw(20_000)
    expected = np.random.Generator(np.random.PCG64(2012)).laplace(0.0, 1.0, 20_000)
    assert np.array_equal(
        _emulate_numpy_laplace(words).view(np.int64), expected.view(np.int64)
    )


def test_floating_point_attack_numpy_vs_grid():
    w, w_other, epsilon = 0.3, 0.7, 1.0  # one weight in (0, 1): sensitivity 1
    n = 10_000

    # Plain float noise: outputs that w' = 0.7 cannot produce at all.
    y = w + np.random.default_rng(1).laplace(0.0, 1.0 / epsilon, n)
    y_other = w_other + np.random.default_rng(2).laplace(0.0, 1.0 / epsilon, n)
    impossible = ~_producible(y, w_other)
    # Sanity: the search finds every output of an input under that input.
    assert _producible(y_other[:2000], w_other).all()
    assert _producible(y[:2000], w).all()
    count = int(impossible.sum())
    numpy_bound = _loss_lower_bound(count, n, 0, n)
    print(
        f"\nnumpy Laplace: {count}/{n} outputs under w=0.3 are impossible under w'=0.7; "
        f"95% lower bound on the privacy loss: {numpy_bound:.2f} (epsilon = {epsilon}; "
        "the event has probability 0 under w', so the true loss is infinite)"
    )
    assert count > n // 10
    assert numpy_bound > 5 * epsilon

    # Grid release: one value per release (k = 1). n independent releases in
    # one call: n copies with l1_sensitivity n and epsilon n give every
    # coordinate the grid and scale of a single release.
    single = release_laplace(
        [w], 1.0, epsilon, np.random.default_rng(0), full_output=True
    )
    m = 200_000
    ra = release_laplace(
        np.full(m, w), float(m), m * epsilon, np.random.default_rng(3), full_output=True
    )
    rb = release_laplace(
        np.full(m, w_other),
        float(m),
        m * epsilon,
        np.random.default_rng(4),
        full_output=True,
    )
    assert ra.grid == rb.grid == single.grid == 2.0**-10
    assert ra.scale == rb.scale == single.scale == 1025.0
    steps_a, steps_b = ra.values / ra.grid, rb.values / rb.grid
    # Every output is a multiple of the public grid under both inputs; the
    # discrete Laplace has full support, so the support is the whole grid.
    assert np.array_equal(steps_a, np.round(steps_a))
    assert np.array_equal(steps_b, np.round(steps_b))

    # Empirical loss on bins of 128 grid steps that both inputs populate well.
    bins = np.arange(-6.0, 7.0, 0.125)
    ca, _ = np.histogram(ra.values, bins)
    cb, _ = np.histogram(rb.values, bins)
    keep = (ca >= 1000) & (cb >= 1000)
    assert keep.sum() >= 20
    ratio = np.abs(np.log(ca[keep] / cb[keep]))
    slack = 6 * np.sqrt(1 / ca[keep] + 1 / cb[keep])
    assert np.all(ratio <= epsilon + slack)
    # Bonferroni over both directions of every bin: a simultaneous 95% bound.
    level = 0.05 / (2 * keep.sum())
    grid_bound = max(
        max(_loss_lower_bound(a, m, b, m, level), _loss_lower_bound(b, m, a, m, level))
        for a, b in zip(ca[keep], cb[keep])
    )
    exact = (round(w_other / ra.grid) - round(w / ra.grid)) / ra.scale
    print(
        f"grid release: all outputs multiples of {ra.grid}; max |log ratio| over "
        f"{keep.sum()} bins: {ratio.max():.3f}; 95% lower bound on the loss: "
        f"{grid_bound:.3f}; exact worst-case loss for this pair: {exact:.3f} "
        f"<= epsilon = {epsilon}"
    )
    assert grid_bound <= epsilon


# --------------------------------------------------------------------------
# Releases
# --------------------------------------------------------------------------


def test_release_laplace_grid_and_scale():
    values = np.array([0.1, 2.5, -3.7, 1e-9])
    before = values.copy()
    r = release_laplace(values, 2.0, 0.5, np.random.default_rng(0), full_output=True)
    assert isinstance(r, GridRelease)
    assert np.array_equal(values, before)
    assert (
        r.grid
        == grid_for(2.0, values)
        == 2.0 ** math.floor(math.log2(2.0 / (1024 * 4)))
    )
    assert r.scale >= (2.0 / r.grid + 4) / 0.5
    assert r.scale == (2.0 / r.grid + 4) / 0.5  # exact here
    assert r.values.dtype == np.float64 and r.values.shape == (4,)
    assert np.array_equal(r.values / r.grid, np.round(r.values / r.grid))
    plain = release_laplace(values, 2.0, 0.5, np.random.default_rng(0))
    assert np.array_equal(plain, r.values)


def test_release_gaussian_grid_and_sigma():
    values = [0.25, -0.5, 3.0]
    r = release_gaussian(values, 1.0, 0.1, np.random.default_rng(0), full_output=True)
    assert r.grid == 2.0**-12
    delta = 1.0 / r.grid + math.sqrt(3)
    assert r.scale >= delta / math.sqrt(0.2)
    assert r.scale <= delta / math.sqrt(0.2) * (1 + 1e-12)
    assert np.array_equal(r.values / r.grid, np.round(r.values / r.grid))


def test_release_accuracy():
    # The rounding costs little: the error is the noise, with the expected spread.
    rng = np.random.default_rng(5)
    values = rng.uniform(-10, 10, 50_000)
    out = release_laplace(values, 50_000.0, 50_000.0, rng)  # scale ~1 per coordinate
    err = out - values
    assert abs(err.std() - math.sqrt(2)) < 0.05
    out = release_gaussian(values, 1.0, 0.5, rng)
    assert (
        abs((out - values).std() / (1 + math.sqrt(50_000) * grid_for(1.0, values)) - 1)
        < 0.05
    )


def test_grid_honoured_and_validated():
    values = np.array([0.3, 0.7])
    r = release_laplace(
        values, 1.0, 1.0, np.random.default_rng(0), grid=0.25, full_output=True
    )
    assert r.grid == 0.25 and r.scale == (4 + 2) / 1.0
    assert np.all(np.mod(r.values, 0.25) == 0)
    r = release_gaussian(
        values, 1.0, 1.0, np.random.default_rng(0), grid=2.0**-3, full_output=True
    )
    assert r.grid == 0.125
    for bad in (0.3, 3.0, -0.25, 0.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            release_laplace(values, 1.0, 1.0, np.random.default_rng(0), grid=bad)


def test_grid_never_depends_on_the_values():
    # The grid is a function of the sensitivity and the number of values:
    # huge values change neither the grid nor the support (multiples of it).
    small, large = np.array([0.5, 1.0]), np.array([2.0**60, 1e300])
    g = grid_for(1.0, 2)
    assert g == grid_for(1.0, small) == grid_for(1.0, large) == 2.0**-11
    for values in (small, large):
        r = release_laplace(values, 1.0, 1.0, np.random.default_rng(0), full_output=True)
        assert r.grid == g
        assert np.all(np.isfinite(r.values))
        assert np.array_equal(r.values / g, np.round(r.values / g))
    # A value too large for a fine grid is clipped at grid * 2**1000 (a public
    # bound), never an error that depends on the data.
    out = release_laplace([1e300], 1.0, 1.0, np.random.default_rng(0), grid=2.0**-20)
    assert abs(out[0]) <= 2.0**980 * 1.01


def test_default_grid_coarsened_for_huge_noise():
    r = release_laplace([0.0], 1.0, 1e-15, np.random.default_rng(0), full_output=True)
    assert r.scale <= MAX_SCALE
    with pytest.raises(ValueError, match="coarser grid"):
        release_laplace([0.0], 1.0, 1e-15, np.random.default_rng(0), grid=2.0**-10)


@pytest.mark.parametrize("func", [release_laplace, release_gaussian])
def test_release_validation(func):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        func([0.0, np.nan], 1.0, 1.0, rng)
    with pytest.raises(ValueError):
        func([0.0, np.inf], 1.0, 1.0, rng)
    with pytest.raises(ValueError):
        func([[0.0]], 1.0, 1.0, rng)
    with pytest.raises(TypeError):
        func(["a"], 1.0, 1.0, rng)
    with pytest.raises(TypeError):
        func([1 + 2j], 1.0, 1.0, rng)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            func([0.0], bad, 1.0, rng)
        with pytest.raises(ValueError):
            func([0.0], 1.0, bad, rng)
    with pytest.raises(TypeError):
        func([0.0], 1.0, "1", rng)
    with pytest.raises(TypeError):
        func([0.0], 1.0, 1.0, 0)
    with pytest.raises(TypeError):
        func([0.0], 1.0, 1.0, np.random.RandomState(0))
    assert func([], 1.0, 1.0, rng).shape == (0,)


def test_inputs_not_modified():
    values = np.array([1.0, 2.0, 3.0])
    ro = values.copy()
    ro.flags.writeable = False
    release_laplace(ro, 1.0, 1.0, np.random.default_rng(0))
    release_gaussian(ro, 1.0, 1.0, np.random.default_rng(0))
    assert np.array_equal(ro, values)
    ints = np.array([1, 2, 3])
    out = release_laplace(ints, 1.0, 1.0, np.random.default_rng(0))
    assert out.dtype == np.float64 and ints.dtype.kind == "i"


@pytest.mark.parametrize("sampler", [discrete_laplace, discrete_gaussian])
def test_sampler_validation(sampler):
    rng = np.random.default_rng(0)
    for bad in (0.0, -1.0, math.inf, math.nan, 2.0**-50, 2.0**60):
        with pytest.raises(ValueError):
            sampler(bad, 3, rng)
    for bad in (True, "1", None):
        with pytest.raises(TypeError):
            sampler(bad, 3, rng)
    with pytest.raises(ValueError):
        sampler(1.0, -1, rng)
    with pytest.raises(ValueError):
        sampler(1.0, (2, -1), rng)
    with pytest.raises(TypeError):
        sampler(1.0, 2.5, rng)
    with pytest.raises(TypeError):
        sampler(1.0, 3, 0)
    with pytest.raises(TypeError):
        sampler(1.0, 3, np.random.RandomState(0))


def test_coarse_grids_round_without_overflow():
    from skdpgraph.privacy import release_laplace

    # Grid 2**28: its clipping bound, 2**1028, is capped at 2**1023.
    out = release_laplace(np.array([0.0, 3e9, 1.7e308]), 2.0**40, 1.0,
                          np.random.default_rng(0), full_output=True)
    assert out.grid == 2.0**28 and np.all(np.isfinite(out.values))
    assert np.all(out.values % out.grid == 0)


def test_budgets_at_the_ends_of_the_doubles_refuse_or_release_cleanly():
    # A noise scale past the largest double is a scale too large (a clear ValueError),
    # not an OverflowError from the exact arithmetic; a huge rho gives the least noise.
    rng = np.random.default_rng(0)
    for epsilon in (5e-324, 1e-310):
        with pytest.raises(ValueError, match="coarsest grid cannot hold it"):
            release_laplace([0.0, 1.0], 1.0, epsilon, rng)
    for rho in (1.7976931348623157e308, 1e308):
        r = release_gaussian([0.0, 1.0], 1.0, rho, rng, full_output=True)
        assert 0 < r.scale < 1e-6
        np.testing.assert_array_equal(r.values, [0.0, 1.0])
