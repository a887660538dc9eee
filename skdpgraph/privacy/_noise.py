"""Exact discrete noise and releases on a public grid.

Why
---
``w + rng.laplace(0, b)`` is differentially private for real numbers, not
for doubles: the set of doubles it can return depends on ``w``, and an
observer who emulates the sampler can tell inputs apart from a single output
(Mironov 2012). Here a value is instead rounded to a public grid of step
``gamma`` (a power of two), integer noise drawn *exactly* from the discrete
Laplace or discrete Gaussian law is added in grid units, and ``gamma * (m +
K)`` is returned. Every output is an exact multiple of ``gamma`` whatever the
input, and the rounding is paid for in the sensitivity (one grid step per
coordinate), so the guarantee is proved for the numbers actually computed.

Samplers
--------
:func:`discrete_laplace` draws ``K`` with ``P(K = k)`` proportional to
``q**|k|``, ``q = exp(-1/scale)``, by inversion. With ``T(1) = 2q/(1+q)``,
``|K| = 0`` with probability ``1 - T(1)`` and otherwise ``|K| = 1 + G``, with
``G`` geometric of ratio ``q``; a sign bit makes ``K`` symmetric. A uniform
``V`` decides both at once: ``|K| >= 1 + h`` exactly when ``V < T(1) q**h``,
that is when ``y = scale * (ln(T(1)) - ln V) > h``.

For large scales ``y`` is large and a double cannot locate it to within
one integer cheaply, so ``G`` is split as ``G = R + m H`` (``m`` a power of
two near ``8.6 sqrt(scale)``): ``H`` is geometric of ratio ``q**m`` (the
inversion above with ``scale / m`` in place of ``scale``) and ``R``,
independent, is ``G`` truncated to ``{0, ..., m-1}``, drawn by inversion
from a second uniform ``W``: ``R >= r`` exactly when ``z = -scale *
log1p(-W (1 - q**m)) > r``. Both ``y`` and ``z`` then stay below about
``44 sqrt(scale)``. One uniform per stage and no rejection is what makes
the sampler as fast as numpy's float Laplace (see
``benchmarks/bench_noise.py``).

:func:`discrete_gaussian` is Algorithm 3 of Canonne, Kamath and Steinke
(2020): draw ``Y`` from the discrete Laplace law of scale ``t`` and accept it
with probability ``exp(-(|Y| - sigma**2/t)**2 / (2 sigma**2))``, in
vectorised rounds over the candidates still needed. Accepted draws follow
the discrete Gaussian law for *every* ``t > 0`` (the product of the two
weights is ``exp(-y**2 / (2 sigma**2))`` times a constant); CKS take ``t =
floor(sigma) + 1`` because their Bernoulli sampler needs an integer ``t``.
The discrete Laplace sampler here takes any double, so ``t >= sigma`` is
chosen to maximise the acceptance rate (0.61 instead of 0.52 at ``sigma =
0.5``, 0.76 for large ``sigma``), which only changes the speed.

Exactness
---------
Each uniform is a 64-bit word ``j``: ``V`` is a real number in the cell
``[j, j + 1) / 2**n``, of which only the first ``n`` bits have been drawn.
The outcome is a step function of ``V`` whose steps (the thresholds) are
transcendental numbers. The float computation of ``y`` (or ``z``, or
``exp(-gamma)``) comes with a rigorous error bound that also covers the
width of the cell; a draw whose computed value is farther than that bound
from every threshold is decided, and the float result *is* the exact
result. The other draws (about one in 10**7 for the scales used in
practice, and always a word whose cell is too wide to locate, such as
``j = 0``) are settled by an exact path: the thresholds bounding the cell
are enclosed in intervals with Python's :mod:`decimal` (``exp`` is correctly
rounded at any precision; ``+ - * /`` are rounded outwards with
``ROUND_FLOOR``/``ROUND_CEILING``), and while the cell straddles a threshold
or the enclosure is too wide, 64 more random bits refine the cell and the
precision grows with it. Thresholds are irrational, so this ends with
probability one, after one round in expectation. Nothing is truncated: a
``V`` arbitrarily close to 0 gives an arbitrarily large ``|K|``, so the law
is the discrete law for the exact double ``scale``/``sigma`` (the only
limit is the ``int64`` output: ``|K| > 2**62``, of probability below
``exp(-2**12)`` at the largest allowed scale, raises ``OverflowError``
whatever the data).

The float error bound, ``_REL = 2**-44`` relative to the magnitudes of the
terms, allows 256 ulps where the operations lose a few: the conversions and
arithmetic are correctly rounded, the ``log``/``log1p``/``exp`` loops numpy
dispatches to (libm or its SIMD versions) are accurate to a few ulps, and
the cell term is bounded separately. The exact path never relies on floats.

References
----------
.. [1] I. Mironov, "On significance of the least significant bits for
   differential privacy", ACM CCS 2012.
.. [2] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
   differential privacy", NeurIPS 2020 (arXiv:2004.00010).
"""

import functools
import math
import operator
from decimal import (
    MAX_EMAX,
    MIN_EMIN,
    ROUND_CEILING,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Context,
    Decimal,
)
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..utils import check_positive
from ..utils._config import CHUNK_SIZE
from ..utils._docs import doc_template

#: Smallest ``scale``/``sigma`` accepted by the samplers (in grid units).
MIN_SCALE = 2.0**-40
#: Largest ``scale``/``sigma`` accepted by the samplers (in grid units).
MAX_SCALE = 2.0**50

# Relative error budget of the float fast path (256 ulps; see module notes).
_REL = 2.0**-44
# Stage-1 words below this go to the exact path: their cell is too wide
# relative to V for a cheap bound (probability 2**-23 per draw).
_SMALL_WORD = 1 << 40
# Absolute error bound on the float exp(-gamma) of the discrete Gaussian, plus
# the half-width of a 2**-53 cell of U (derivation in _gaussian_flat's notes).
_GAUSS_MARGIN = 8 * _REL + 2.0**-54 + 2.0**-1000
# Scales above this use the two-stage split G = R + m H.
_SPLIT = 2.0**16
_U64_MAX = (1 << 64) - 1
_LN2 = math.log(2.0)
_MAX_ABS = 1 << 62
# Grids allowed, so that gamma * (integer below 2**63) is exact in float64.
_MIN_GRID_EXP, _MAX_GRID_EXP = -1000, 900


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _check_generator(random_state):
    if not isinstance(random_state, np.random.Generator):
        raise TypeError(
            "random_state must be a numpy.random.Generator "
            f"(e.g. numpy.random.default_rng(seed)); got {type(random_state).__name__}."
        )
    return random_state


def _check_size(size):
    try:
        shape = (operator.index(size),)
    except TypeError:
        try:
            shape = tuple(operator.index(s) for s in size)
        except TypeError:
            raise TypeError(
                f"size must be an int or a tuple of ints; got {size!r}."
            ) from None
    if any(s < 0 for s in shape):
        raise ValueError(f"size must be non-negative; got {size!r}.")
    return shape


# --------------------------------------------------------------------------
# Exact comparisons with decimal interval arithmetic
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _contexts(prec):
    kw = {"prec": prec, "Emin": MIN_EMIN, "Emax": MAX_EMAX}
    return (
        Context(rounding=ROUND_FLOOR, **kw),
        Context(rounding=ROUND_CEILING, **kw),
        Context(rounding=ROUND_HALF_EVEN, **kw),
    )


def _precision(n_bits, magnitude):
    """Digits for enclosures sharper than a 2**-n_bits cell.

    ``magnitude`` bounds the arguments of ``exp``: their relative rounding
    error is amplified by that much in the result.
    """
    extra = 0 if magnitude < 1 else int(math.log10(magnitude)) + 1
    return 30 + (n_bits * 3) // 10 + extra


def _div_iv(num, den, prec):
    """Enclosure of ``num / den`` (Decimals, exact operands)."""
    lo, hi, _ = _contexts(prec)
    return lo.divide(num, den), hi.divide(num, den)


def _exp_neg_iv(a_lo, a_hi, prec):
    """Enclosure of ``exp(-a)`` for ``a`` in ``[a_lo, a_hi]``."""
    lo, hi, near = _contexts(prec)
    # Decimal.exp is correctly rounded: relative error <= 10**(1-prec) / 2.
    tol = Decimal(1).scaleb(1 - prec)
    e_lo = near.exp(a_hi.copy_negate())
    e_hi = near.exp(a_lo.copy_negate())
    return lo.multiply(e_lo, lo.subtract(1, tol)), hi.multiply(e_hi, hi.add(1, tol))


def _cell_vs(j, n_bits, t_lo, t_hi, prec):
    """Compare the cell ``[j, j+1) / 2**n_bits`` with a threshold in ``[t_lo, t_hi]``.

    Returns -1 if every point of the cell is below the threshold, +1 if every
    point is at or above it, 0 if undecided.
    """
    lo, hi, _ = _contexts(prec)
    scale = Decimal(1 << n_bits)
    if j + 1 <= lo.multiply(t_lo, scale):
        return -1
    if j >= hi.multiply(t_hi, scale):
        return 1
    return 0


def _next_word(rng):
    return int(rng.integers(0, _U64_MAX, dtype=np.uint64, endpoint=True))


def _settle(j, n_bits, rng, decide):
    """Refine the cell of a uniform with fresh random bits until ``decide`` answers."""
    while True:
        out = decide(j, n_bits)
        if out is not None:
            return out
        j = (j << 64) | _next_word(rng)
        n_bits += 64


def _locate(j, n_bits, i, precision, threshold, last=None):
    """The outcome ``i`` of a step function of ``V``, for ``V`` in cell ``j``.

    The outcome is ``i`` where ``T(i + 1) <= V < T(i)``, for thresholds ``T``
    decreasing from ``T(0) = 1`` (to ``T(last + 1) = 0``; ``last=None``: no
    largest outcome). ``threshold(k, prec)`` encloses ``T(k)`` (``None``: not
    at this precision) and ``precision(i)`` gives the digits for the guess
    ``i``. Starting from the float guess, ``i`` moves by one while the whole
    cell lies beyond one of its thresholds, at most four times; ``None`` when
    the cell straddles a threshold or is not located by then (refine it).
    """

    def side(k, prec):
        t = threshold(k, prec)
        return None if t is None else _cell_vs(j, n_bits, *t, prec)

    for _ in range(4):
        prec = precision(i)
        # V < T(i) must hold on the whole cell.
        up = -1 if i == 0 else side(i, prec)
        if up is None:
            return None
        if up == 1:
            i -= 1
            continue
        down = 1 if i == last else side(i + 1, prec)
        if down is None:
            return None
        if down == -1:
            i += 1
            continue
        return i if (up == -1 and down == 1) else None
    return None


# --------------------------------------------------------------------------
# Discrete Laplace
# --------------------------------------------------------------------------


class _LaplaceParams:
    """Constants of the discrete Laplace sampler for one exact double scale."""

    def __init__(self, scale):
        self.s = scale
        if scale <= _SPLIT:
            self.m = 1
        else:
            # Balances the two stages' error margins (see module notes).
            self.m = 1 << round(0.5 * math.log2(74.0 * scale))
        self.k1 = scale / self.m  # exact: m is a power of two
        _, _, near = _contexts(60)
        ds = Decimal(scale)
        inv = near.divide(1, ds)
        q = near.exp(inv.copy_negate())
        # c = ln(2q / (1 + q)) = ln 2 - 1/s - ln(1 + q)
        c = near.subtract(near.subtract(near.ln(2), inv), near.ln(near.add(1, q)))
        self.c = float(c)
        a0 = near.multiply(Decimal(self.k1), near.add(c, near.multiply(63, near.ln(2))))
        self.a0 = float(a0)
        ymax = abs(self.a0) + 44.0 * self.k1
        self.margin1 = self.k1 * 2.0**-40 + _REL * (
            44.0 * self.k1 + abs(self.a0) + ymax
        )
        if self.m > 1:
            # a = 1 - q**m
            a = near.subtract(1, near.exp(near.divide(-self.m, ds)))
            self.a = float(a)
            self.neg_a53 = -self.a * 2.0**-53
            # |dz/dW| <= s a / (1 - a); W is known to 2**-53 in the fast path.
            cell = 2.0**-53 * scale * self.a / (1.0 - self.a)
            self.margin2 = _REL * (self.m + 1.0) + 1.01 * cell
        self.ds = ds

    # -- exact thresholds ------------------------------------------------
    def stage1_threshold(self, i, prec):
        """Enclosure of ``T(i) = 2 q**(1 + m (i-1)) / (1 + q)``, ``i >= 1``."""
        lo, hi, _ = _contexts(prec)
        e1 = _exp_neg_iv(*_div_iv(Decimal(1 + self.m * (i - 1)), self.ds, prec), prec)
        e2 = _exp_neg_iv(*_div_iv(Decimal(1), self.ds, prec), prec)
        d_lo, d_hi = lo.add(1, e2[0]), hi.add(1, e2[1])
        return (
            lo.divide(lo.multiply(2, e1[0]), d_hi),
            hi.divide(hi.multiply(2, e1[1]), d_lo),
        )

    def stage2_threshold(self, r, prec):
        """Enclosure of ``S(r) = (q**r - q**m) / (1 - q**m)``, ``1 <= r <= m-1``."""
        lo, hi, _ = _contexts(prec)
        x = _exp_neg_iv(*_div_iv(Decimal(r), self.ds, prec), prec)
        e = _exp_neg_iv(*_div_iv(Decimal(self.m - r), self.ds, prec), prec)
        f = _exp_neg_iv(*_div_iv(Decimal(self.m), self.ds, prec), prec)
        num_lo, num_hi = lo.subtract(1, e[1]), hi.subtract(1, e[0])
        den_lo, den_hi = lo.subtract(1, f[1]), hi.subtract(1, f[0])
        if num_lo <= 0 or den_lo <= 0:
            return None
        # S(r) = q**r (1 - q**(m-r)) / (1 - q**m): no cancellation near r = m.
        return (
            lo.divide(lo.multiply(x[0], num_lo), den_hi),
            hi.divide(hi.multiply(x[1], num_hi), den_lo),
        )

    # -- exact path ------------------------------------------------------
    def exact_stage1(self, j, n_bits, rng):
        """Index ``i`` (0: ``K = 0``; else ``H = i - 1``) for ``V`` in cell ``j``."""

        def decide(j, n):
            ln_v = math.log(2 * j + 1) - (n + 1) * _LN2
            y = self.k1 * (self.c - ln_v)
            i = 0 if y <= 0 else math.ceil(y)
            return _locate(
                j, n, i, lambda i: _precision(n, (1 + self.m * i) / self.s),
                self.stage1_threshold,
            )

        return _settle(j, n_bits, rng, decide)

    def exact_stage2(self, j, n_bits, rng):
        """``R`` in ``[0, m-1]`` for ``V2 = 1 - W`` in cell ``j``."""
        m = self.m

        def decide(j, n):
            w = ((1 << (n + 1)) - 2 * j - 1) / (1 << (n + 1))
            z = -self.s * math.log1p(-w * self.a)
            r = min(max(math.ceil(z) - 1, 0), m - 1)
            prec = _precision(n, m / self.s)
            return _locate(j, n, r, lambda r: prec, self.stage2_threshold, last=m - 1)

        return _settle(j, n_bits, rng, decide)


@functools.lru_cache(maxsize=64)
def _laplace_params(scale):
    return _LaplaceParams(scale)


def _words(rng, n):
    # Full-range integers map to next_uint64 for every bit generator.
    return rng.integers(0, _U64_MAX, size=n, dtype=np.uint64, endpoint=True)


def _laplace_block(p, rng, out, signed=True):
    """Fill the 1-D int64 array ``out`` with exact discrete Laplace draws.

    With ``signed=False``, ``out`` receives ``|K|`` and the sign mask is
    returned instead.
    """
    n = out.size
    w = _words(rng, n)
    negative = (w & np.uint64(1)).astype(bool)
    j = (w >> np.uint64(1)).view(np.int64)  # V in [j, j+1) / 2**63
    y = j.astype(np.float64)
    np.maximum(y, 1.0, out=y)  # j = 0 is sent to the exact path below
    np.log(y, out=y)
    y *= -p.k1
    y += p.a0  # y = k1 (c - ln V)
    dist = np.rint(y)
    dist -= y
    np.abs(dist, out=dist)
    flag1 = dist <= p.margin1
    flag1 |= j < _SMALL_WORD
    np.ceil(y, out=y)
    np.maximum(y, 0.0, out=y)
    index = y.astype(np.int64)
    for k in np.flatnonzero(flag1):
        i = p.exact_stage1(int(j[k]), 63, rng)
        if i > _MAX_ABS // p.m:
            raise OverflowError(
                "discrete Laplace draw beyond 2**62 in absolute value "
                "(probability below exp(-4096) at any allowed scale)."
            )
        index[k] = i

    if p.m == 1:
        magnitude = index
    else:
        w2 = _words(rng, n)
        z = (w2 >> np.uint64(11)).view(np.int64).astype(np.float64)
        z *= p.neg_a53
        np.log1p(z, out=z)
        z *= -p.s  # z = -s log1p(-W a), W in [w2, w2+1) / 2**64
        np.rint(z, out=dist)
        dist -= z
        np.abs(dist, out=dist)
        flag2 = dist <= p.margin2
        np.ceil(z, out=z)
        z -= 1.0
        np.clip(z, 0.0, p.m - 1.0, out=z)
        rest = z.astype(np.int64)
        flag2 &= index > 0
        for k in np.flatnonzero(flag2):
            # V2 = 1 - W lies in [2**64 - 1 - w2, 2**64 - w2) / 2**64.
            rest[k] = p.exact_stage2(_U64_MAX - int(w2[k]), 64, rng)
        # |K| = 1 + R + m (i - 1) for i >= 1, else 0.
        magnitude = index - 1
        magnitude *= p.m
        magnitude += rest
        magnitude += 1
        magnitude *= index > 0
    if not signed:
        out[...] = magnitude
        return negative
    np.negative(magnitude, out=out)
    np.copyto(out, magnitude, where=~negative)
    return None


def _laplace_flat(scale, n, rng):
    p = _laplace_params(scale)
    out = np.empty(n, dtype=np.int64)
    for start in range(0, n, CHUNK_SIZE):
        _laplace_block(p, rng, out[start : start + CHUNK_SIZE])
    return out


# The reference of both samplers and both releases (indented for ``.. [n] ``).
_CKS = (
    'C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian\n'
    '       for differential privacy", NeurIPS 2020.'
)

# Docstring outline of the two samplers: each fills in its law.
_SAMPLER_DOC = """Exact draws from the discrete {law} law.

    Parameters
    ----------
    {parameter}
    size : int or tuple of ints
        Output shape.
    random_state : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int64, shape ``size``
        {draws}

    Notes
    -----
    {notes}

    References
    ----------
    .. [1] {cks}

    Examples
    --------
    >>> import numpy as np
    >>> k = {name}({example}, np.random.default_rng(0))
    >>> k.dtype, k.shape
    (dtype('int64'), {shape})
    """


def _sample(flat_sampler, parameter, size, random_state):
    """Validate ``size`` and ``random_state``, then draw that many with ``flat_sampler``."""
    shape = _check_size(size)
    rng = _check_generator(random_state)
    return flat_sampler(parameter, math.prod(shape), rng).reshape(shape)


@doc_template(
    _SAMPLER_DOC,
    law="Laplace",
    parameter="""\
scale : float
    Positive finite scale ``b`` (in grid units), in
    ``[MIN_SCALE, MAX_SCALE]``.""",
    draws="""\
Independent draws with ``P(K = k) = (1-q)/(1+q) q**|k|`` and
``q = exp(-1/b)``.""",
    notes="""\
The law is exactly the discrete Laplace law for the exact double
``scale``: no tail truncation (every integer up to ``2**62`` in absolute
value has positive probability; beyond, an ``OverflowError`` whose
probability is below ``exp(-4096)``) and no failure that depends on
anything but the random bits. Draws whose float computation is not
provably decided are settled exactly with :mod:`decimal` (see the module
docstring). Adding ``K`` to an integer query with L1 sensitivity
``Delta`` is ``Delta / b``-differentially private.""",
    cks=_CKS,
    example="2.0, 5",
    shape="(5,)",
)
def discrete_laplace(scale, size, random_state):
    scale = check_positive(scale, "scale", low=MIN_SCALE, high=MAX_SCALE)
    return _sample(_laplace_flat, scale, size, random_state)


# --------------------------------------------------------------------------
# Discrete Gaussian
# --------------------------------------------------------------------------


def _exact_accept(y_abs, sigma, t, j, n_bits, rng):
    """Bernoulli(exp(-gamma)) for the uniform in cell ``j``, exactly."""
    fs, ft = Fraction(sigma), Fraction(t)
    gamma = (y_abs * ft - fs * fs) ** 2 / (2 * fs * fs * ft * ft)
    num, den = Decimal(gamma.numerator), Decimal(gamma.denominator)

    def decide(j, n):
        prec = _precision(n, float(gamma))
        e = _exp_neg_iv(*_div_iv(num, den, prec), prec)
        c = _cell_vs(j, n, *e, prec)
        return None if c == 0 else c == -1

    return _settle(j, n_bits, rng, decide)


def _acceptance_rate(sigma, t):
    """Float estimate of the acceptance rate of the rejection step."""
    q = math.exp(-1.0 / t)
    y = np.arange(0, int(60 * max(t, sigma)) + 10, dtype=np.float64)
    p = np.exp(-y / t) * (1 - q) / (1 + q)
    p[1:] *= 2
    return float(
        np.sum(p * np.exp(-((y - sigma * sigma / t) ** 2) / (2 * sigma * sigma)))
    )


@functools.lru_cache(maxsize=64)
def _proposal(sigma):
    """Proposal scale ``t >= sigma`` and its acceptance rate.

    Any ``t > 0`` gives the exact law; ``t >= sigma`` keeps the float error
    bound below valid. For large sigma, ``t = sigma`` is optimal to within
    1e-4 in rate (about 0.76); for small sigma a slightly larger ``t`` is
    much better (0.61 instead of 0.52 at sigma = 0.5, CKS's ``floor(sigma)
    + 1``). Only the speed depends on this choice.
    """
    if sigma > 50:
        return sigma, 0.76
    candidates = [sigma + 0.01 * i for i in range(151)]
    rates = [_acceptance_rate(sigma, t) for t in candidates]
    best = max(range(len(rates)), key=rates.__getitem__)
    return candidates[best], rates[best]


def _gaussian_flat(sigma, n, rng):
    # Float acceptance test, error bound: with d = |Y| - sigma^2/t and
    # g = d^2 / (2 sigma^2), the rounding of sigma^2/t, |Y| and d costs at most
    # 2**-51 (sigma^2/t + |d|) on d, hence at most 2**-50 (1 + 3 g) on g (as
    # (sigma^2/t)^2 / (2 sigma^2) <= 1/2 because t >= sigma); exp(-g) thus moves
    # by at most 2**-49 (1 + 3 g) exp(-g) + 4 ulps <= 2**-47 absolutely, since
    # g exp(-g) <= 1/e (and by less than 2**-1000 once g > 700). _GAUSS_MARGIN
    # is 64 times that bound, plus the half-width of U's 2**-53 cell.
    t, rate = _proposal(sigma)
    p = _laplace_params(t)
    center = sigma * sigma / t
    inv = 1.0 / (2.0 * sigma * sigma)
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        need = n - filled
        batch = min(CHUNK_SIZE, int(need / rate * 1.02) + 16)
        y = np.empty(batch, dtype=np.int64)
        negative = _laplace_block(p, rng, y, signed=False)  # y = |Y|
        g = y.astype(np.float64)
        g -= center
        g *= g
        g *= -inv  # -gamma = -(|Y| - sigma^2/t)^2 / (2 sigma^2)
        np.exp(g, out=g)
        u = _words(rng, batch)
        uf = (u >> np.uint64(11)).view(np.int64).astype(np.float64)
        uf *= 2.0**-53
        uf += 2.0**-54  # U lies within 2**-54 of uf (its 2**-53 cell's centre)
        uf -= g
        accept = uf < 0.0
        np.abs(uf, out=uf)
        flag = uf <= _GAUSS_MARGIN
        for k in np.flatnonzero(flag):
            accept[k] = _exact_accept(int(y[k]), sigma, t, int(u[k]), 64, rng)
        got = y[accept][:need]
        sign = negative[accept][:need]
        np.negative(got, out=got, where=sign)
        out[filled : filled + got.size] = got
        filled += got.size
    return out


@doc_template(
    _SAMPLER_DOC,
    law="Gaussian",
    parameter="""\
sigma : float
    Positive finite parameter (in grid units), in
    ``[MIN_SCALE, MAX_SCALE - 1]``.""",
    draws="""\
Independent draws with ``P(K = k)`` proportional to
``exp(-k**2 / (2 sigma**2))``.""",
    notes="""\
Algorithm 3 of Canonne, Kamath and Steinke (2020): rejection from the
exact discrete Laplace law of a scale ``t >= sigma`` (chosen for the
acceptance rate; any ``t > 0`` gives the same law), accepting
with probability ``exp(-(|Y| - sigma**2/t)**2 / (2 sigma**2))``. The
acceptance is decided by a 64-bit uniform against a float
``exp(-gamma)`` with a rigorous error bound; undecided comparisons are
settled exactly (``gamma`` is rational, ``exp`` is enclosed with
:mod:`decimal`). The law is therefore exactly the discrete Gaussian for
the exact double ``sigma``, with no truncated tail. Adding independent
draws to an integer vector query with L2 sensitivity ``Delta`` is
``Delta**2 / (2 sigma**2)``-zCDP ([1]_, Theorem 14).""",
    cks=_CKS,
    example="3.0, (2, 3)",
    shape="(2, 3)",
)
def discrete_gaussian(sigma, size, random_state):
    sigma = check_positive(sigma, "sigma", low=MIN_SCALE, high=MAX_SCALE - 1)
    return _sample(_gaussian_flat, sigma, size, random_state)


# --------------------------------------------------------------------------
# Releases on a public grid
# --------------------------------------------------------------------------


class GridRelease(NamedTuple):
    """Output of a grid release with the parameters needed to report it.

    Attributes
    ----------
    values : numpy.ndarray
        Released values, exact multiples of ``grid``.
    grid : float
        Grid step (a power of two).
    scale : float
        Noise parameter in grid units (Laplace scale ``b`` or Gaussian
        ``sigma``); ``grid * scale`` is the same in the units of the values.
    """

    values: np.ndarray
    grid: float
    scale: float


def _check_values(values):
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"values must be real numbers; got dtype {arr.dtype}.")
    if arr.ndim != 1:
        raise ValueError(f"values must be a 1-D array; got shape {arr.shape}.")
    # Never written to: every later step makes new arrays.
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite.")
    return arr


def _grid_exponent(sensitivity, k):
    # floor(log2(sensitivity / (1024 k))): a function of public numbers only.
    _, e = math.frexp(sensitivity / (1024.0 * max(k, 1)))
    return e - 1


def _check_grid_exponent(exponent, sensitivity=None, k=None):
    if not _MIN_GRID_EXP <= exponent <= _MAX_GRID_EXP:
        need = "" if sensitivity is None else (
            f"a sensitivity of {sensitivity:.3g} over {k} value(s) needs a ")
        raise ValueError(
            f"{need}grid 2**{exponent}, outside [2**{_MIN_GRID_EXP}, 2**{_MAX_GRID_EXP}]"
            + ("" if sensitivity is None else
               ": express the weights (and the sensitivity) in units closer to 1.")
        )
    return exponent


def grid_for(sensitivity, n_values):
    """Default public grid for releasing ``n_values`` numbers with a given sensitivity.

    Parameters
    ----------
    sensitivity : float
        Positive finite sensitivity of the released vector (L1 or L2).
    n_values : int or array_like
        The number ``k`` of released values (or the values themselves, of
        which only the count is used).

    Returns
    -------
    float
        ``2**floor(log2(sensitivity / (1024 k)))``: rounding to it costs at
        most about 0.1 % of the sensitivity. It depends on public numbers
        only, never on the values. The releases coarsen it further only when
        the noise would exceed ``MAX_SCALE`` steps (a function of the
        sensitivity, ``k`` and the budget, all public).

    Examples
    --------
    >>> grid_for(1.0, 2) == 2.0**-11
    True
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    k = n_values if isinstance(n_values, (int, np.integer)) else np.size(n_values)
    k = int(k)
    return math.ldexp(1.0, _check_grid_exponent(_grid_exponent(sensitivity, k), sensitivity, k))


def _user_grid(grid):
    grid = check_positive(grid, "grid")
    mant, e = math.frexp(grid)
    if mant != 0.5:
        raise ValueError(f"grid must be a power of two; got {grid!r}.")
    return _check_grid_exponent(e - 1)


def _grid_points(block, gamma):
    """``round(block / gamma)`` as exact integer-valued doubles, in place.

    Values are first clipped to ``+-min(gamma * 2**1000, 2**1023)`` (a public bound; clipping
    is 1-Lipschitz, so the sensitivity is unchanged) so that the quotient
    never overflows; division by a power of two is then exact, and rint moves
    each value by at most half a step (accounted for in the sensitivity).
    """
    # gamma * 2**1000, capped at 2**1023 for coarse grids (the quotient then stays
    # below 2**1000 all the same).
    limit = math.ldexp(1.0, min(math.frexp(gamma)[1] - 1 + 1000, 1023))
    np.clip(block, -limit, limit, out=block)
    np.multiply(block, 1.0 / gamma, out=block)
    np.rint(block, out=block)
    return block


def _add_exact(m, noise):
    """``fl(m + noise)`` for integer-valued doubles ``m`` and int64 ``noise``.

    The float result is the correctly rounded exact integer sum, so it is a
    function of the integer release alone (post-processing): in int64 where
    that is exact, in Python integers for the (astronomically rare) rest.
    """
    small = np.abs(m) < 2.0**62
    out = np.empty_like(m)
    total = m[small].astype(np.int64) + noise[small]  # |.| < 2**62 + 2**62
    out[small] = total  # int64 -> float64 rounds to nearest
    for i in np.flatnonzero(~small):
        out[i] = float(int(m[i]) + int(noise[i]))
    return out


def _round_up(x):
    """Smallest double >= the exact rational ``x`` (``inf`` past the largest double)."""
    try:
        f = float(x)
    except OverflowError:
        return math.inf
    if Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def _check_n_values(n_values, size):
    """The length of the whole released vector (``size`` by default)."""
    if n_values is None:
        return size
    if isinstance(n_values, bool) or not isinstance(n_values, (int, np.integer)):
        raise TypeError(f"n_values must be an int; got {type(n_values).__name__}.")
    if n_values < size:
        raise ValueError(
            f"n_values ({int(n_values)}) must be at least the number of values ({size})."
        )
    return int(n_values)


def _release(
    values, sensitivity, random_state, grid, noise_scale, sampler, full_output,
    n_values=None,
):
    values = _check_values(values)
    rng = _check_generator(random_state)
    k = _check_n_values(n_values, values.size)
    if grid is None:
        exponent = _check_grid_exponent(_grid_exponent(sensitivity, k), sensitivity, k)
        fixed = False
    else:
        exponent = _user_grid(grid)
        fixed = True
    while True:
        scale = max(noise_scale(exponent, k), MIN_SCALE)
        if scale <= MAX_SCALE - 1:
            break
        if fixed or exponent >= _MAX_GRID_EXP:
            raise ValueError(
                f"noise scale {scale:.3g} grid steps exceeds {MAX_SCALE - 1:.3g}: "
                + ("use a coarser grid or a larger privacy budget." if fixed else
                   "even the coarsest grid cannot hold it; use a larger privacy budget "
                   "(epsilon or rho).")
            )
        exponent += 1  # a coarser grid, fewer steps of noise
    gamma = math.ldexp(1.0, exponent)
    out = np.empty(values.size, dtype=np.float64)
    for start in range(0, values.size, CHUNK_SIZE):
        block = out[start : start + CHUNK_SIZE]
        np.copyto(block, values[start : start + CHUNK_SIZE])
        m = _grid_points(block, gamma)
        block[:] = _add_exact(m, sampler(scale, block.size, rng))
        block *= gamma
    if full_output:
        return GridRelease(out, gamma, scale)
    return out


# Docstring outline of the two releases: each fills in its noise and budget.
_RELEASE_DOC = """{summary}

    Parameters
    ----------
    values : array_like of shape (k,)
        Finite real values; not modified.
    {parameters}
    random_state : numpy.random.Generator
        Source of randomness.
    grid : float, optional
        Grid step, a positive power of two. Default: :func:`grid_for`
        (``2**floor(log2({sensitivity} / (1024 k)))``), coarsened if the
        noise would exceed ``MAX_SCALE`` steps; never a function of the
        values.
    full_output : bool, default False
        Return a :class:`GridRelease` with the grid and {scale_name}.
    n_values : int, optional
        Length ``k`` of the whole vector that ``values`` is a part of, when
        the parts are released separately with independent noise (each
        partition of a distributed edge table): the grid and the noise are
        calibrated for all ``k`` values, exactly as one release of the whole
        vector would be. Default: ``len(values)``.

    Returns
    -------
    numpy.ndarray of float64, shape (k,), or GridRelease
        ``grid * (round(values / grid) + K)`` with ``K`` i.i.d. discrete
        {noise}

    Notes
    -----
    {notes}

    References
    ----------
    .. [1] I. Mironov, "On significance of the least significant bits for
       differential privacy", ACM CCS 2012.
    .. [2] {cks}

    Examples
    --------
    >>> import numpy as np
    >>> r = {name}([0.3, 0.7], 1.0, {budget_value}, np.random.default_rng(0),
    ...     full_output=True)
    {check}
    >>> bool(np.all(r.values / r.grid == np.round(r.values / r.grid)))
    True
    """


@doc_template(
    _RELEASE_DOC,
    summary="Release values with discrete Laplace noise on a public grid (pure DP).",
    parameters="""\
l1_sensitivity : float
    Bound on ``sum_i |values_i - values'_i|`` between neighbours.
epsilon : float
    Privacy parameter, positive and finite.""",
    sensitivity="l1_sensitivity",
    scale_name="the noise scale",
    noise="""\
Laplace of scale ``b = (l1_sensitivity / grid + k) / epsilon``
(rounded up to a double), in grid units.""",
    notes="""\
Rounding to the nearest grid point moves each coordinate by at most half
a step, so the rounded integer vector has L1 sensitivity at most
``l1_sensitivity / grid + k``; with exact discrete Laplace noise of scale
``b`` at least that over ``epsilon`` the integer release is exactly
``epsilon``-DP, and the float output is a post-processing of it. Every
output is a multiple of ``grid`` whatever the input, unlike
``values + rng.laplace(...)`` whose set of possible doubles depends on
the input (Mironov 2012). The default grid costs at most about 0.1 % of
the sensitivity in extra noise.""",
    cks=_CKS,
    budget_value="1.0",
    check="""\
>>> r.grid == 2.0**-11, r.scale  # (1 / 2**-11 + 2) / 1
(True, 2050.0)""",
)
def release_laplace(
    values, l1_sensitivity, epsilon, random_state, *, grid=None, full_output=False,
    n_values=None,
):
    l1_sensitivity = check_positive(l1_sensitivity, "l1_sensitivity")
    epsilon = check_positive(epsilon, "epsilon")

    def noise_scale(exponent, k):
        steps = Fraction(l1_sensitivity) / Fraction(2) ** exponent + k
        return _round_up(steps / Fraction(epsilon))

    return _release(
        values,
        l1_sensitivity,
        random_state,
        grid,
        noise_scale,
        _laplace_flat,
        full_output,
        n_values,
    )


def _gaussian_sigma(l2, k, rho, exponent):
    """A double sigma >= (l2 / grid + sqrt(k)) / sqrt(2 rho), checked exactly: the float
    estimate, raised by ulps until it passes (at most an ulp above the smallest such)."""
    a = Fraction(l2) / Fraction(2) ** exponent
    r2 = 2 * Fraction(rho)
    two_rho = 2.0 * float(rho)  # exact unless it passes the largest double
    root = math.sqrt(two_rho) if two_rho < math.inf else math.sqrt(2.0) * math.sqrt(float(rho))
    sigma = (float(a) + math.sqrt(k)) / root

    def enough(s):
        # s sqrt(2 rho) >= a + sqrt(k)  <=>  2 rho s^2 - a^2 - k >= 2 a sqrt(k)
        lhs = r2 * Fraction(s) ** 2 - a * a - k
        return lhs >= 0 and lhs * lhs >= 4 * a * a * k

    while not enough(sigma):
        sigma = math.nextafter(sigma, math.inf)
    return sigma


@doc_template(
    _RELEASE_DOC,
    summary="Release values with discrete Gaussian noise on a public grid (zCDP).",
    parameters="""\
l2_sensitivity : float
    Bound on the Euclidean distance between neighbouring ``values``.
rho : float
    zCDP parameter, positive and finite.""",
    sensitivity="l2_sensitivity",
    scale_name="``sigma``",
    noise="""\
Gaussian of parameter ``sigma = (l2_sensitivity / grid + sqrt(k)) /
sqrt(2 rho)`` (rounded up to a double), in grid units.""",
    notes="""\
Rounding moves each coordinate by at most half a step, so the rounded
integer vector has L2 sensitivity at most ``Delta = l2_sensitivity /
grid + sqrt(k)``. Independent discrete Gaussian noise of parameter
``sigma`` makes it ``Delta**2 / (2 sigma**2)``-zCDP ([2]_, Theorem 14),
hence exactly ``rho``-zCDP; the float output is a post-processing of the
integer release and every output is a multiple of ``grid`` whatever the
input.""",
    cks=_CKS,
    budget_value="0.5",
    check="""\
>>> r.grid == 2.0**-11
True""",
)
def release_gaussian(
    values, l2_sensitivity, rho, random_state, *, grid=None, full_output=False,
    n_values=None,
):
    l2_sensitivity = check_positive(l2_sensitivity, "l2_sensitivity")
    rho = check_positive(rho, "rho")

    def noise_scale(exponent, k):
        return _gaussian_sigma(l2_sensitivity, k, rho, exponent)

    return _release(
        values,
        l2_sensitivity,
        random_state,
        grid,
        noise_scale,
        _gaussian_flat,
        full_output,
        n_values,
    )
