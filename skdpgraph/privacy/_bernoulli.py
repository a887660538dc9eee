"""Exact independent coin flips for randomized response, at any rate.

Randomized response on adjacency bits, followed by independent subsampling
of the released pairs at rate ``q``, releases every edge with probability
``a = (1 - p) q`` and every non-edge with probability ``b = p q``; its
privacy loss is ``max(ln(a / b), ln((1 - b) / (1 - a))) = ln((1 - p) / p)``
when ``p <= 1/2``. On a computer the probabilities that are actually
realised are what counts. Comparing a 53-bit uniform with the rounded floats
``(1 - p) q`` and ``p q`` realises both rounded up to the ``2**-53`` grid,
which moves the ratio ``a / b`` when ``p q`` is a few grid steps: at
``epsilon = 1`` the loss is 1.0000001 at ``q = 1e-9`` and 1.0025 at
``q = 3.3e-14``.

Here both probabilities are realised exactly and rounded, by construction,
in the direction that can only shrink the privacy loss: the edge probability
down to ``a' = A / 2**64`` (a released edge is a 64-bit word below the
integer ``A``: an exact comparison), the non-edge probability up to
``b' = (1 - exp(-1/s)) t``, the rate of a Bernoulli process whose gaps are
drawn from the exact geometric law of ratio ``exp(-1/s)``
(:func:`~skdpgraph.privacy.discrete_laplace`'s sampler), thinned by an exact
dyadic coin ``t = T / 2**64`` only when the rate is below what a geometric of
scale :data:`~skdpgraph.privacy.MAX_SCALE` reaches (``b < 8.9e-16``). With
``a' <= a`` and ``b' >= b``, both ratios are at most the nominal ones, so
the loss is at most ``ln((1 - p) / p)`` for every ``p`` in ``(0, 1/2]`` and
every ``q`` in ``(0, 1]``: :func:`randomized_response_loss` encloses it
rigorously. The relative change of each probability is below ``2**-50``.

The process visits only the marked positions, so a release costs
``O(|E| + n_pairs b)`` whatever ``b``; no binomial sampler (whose float
implementations truncate tails) is involved.
"""

import functools
import math
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..utils import check_int, check_real
from ..utils._config import CHUNK_SIZE, check_work_memory
from ._noise import MAX_SCALE, _contexts, _div_iv, _exp_neg_iv, _laplace_block, _laplace_params

_U64_MAX = (1 << 64) - 1
# Digits of the decimal enclosures: far below the 2**-64 resolution of the words.
_PREC = 60


class RandomizedResponseRates(NamedTuple):
    """The exactly realised probabilities of subsampled randomized response.

    Attributes
    ----------
    keep : tuple of int
        ``(A, bits)``: an edge is released with probability ``A / 2**bits``
        (:func:`bernoulli_words`).
    mark_scale : float or None
        Non-edges are released at the marks of a Bernoulli process of rate
        ``1 - exp(-1 / mark_scale)`` per pair (``None``: never) ...
    thin : tuple of int
        ... each mark kept with probability ``T / 2**bits`` for ``(T, bits)``.
    """

    keep: tuple
    mark_scale: float
    thin: tuple


def _dyadic(x, up):
    """``(A, bits)`` with ``A / 2**bits`` within ``2**-60`` of ``x`` (relative), on its side.

    ``bits`` is a multiple of 64, the fewest that give that precision;
    ``up`` rounds up, else down. ``x`` is a non-negative Fraction at most 1.
    """
    if x == 0:
        return 0, 64
    bits = 64
    while x * (1 << bits) < (1 << 60):
        bits += 64
    scaled = x * (1 << bits)
    return (math.ceil(scaled) if up else math.floor(scaled)), bits


def _exp_neg_inv(scale, prec=_PREC):
    """Enclosure ``(lo, hi)`` of ``exp(-1 / scale)`` (Decimals)."""
    return _exp_neg_iv(*_div_iv(Decimal(1), Decimal(scale), prec), prec)


def _dyadic_interval(word):
    lo_ctx, hi_ctx, _ = _contexts(_PREC)
    num, bits = Decimal(word[0]), Decimal(1 << word[1])
    return lo_ctx.divide(num, bits), hi_ctx.divide(num, bits)


def _rate_interval(rates):
    """Enclosure ``(lo, hi)`` of the realised non-edge probability ``b'`` (Decimals)."""
    if rates.mark_scale is None:
        return Decimal(0), Decimal(0)
    lo_ctx, hi_ctx, _ = _contexts(_PREC)
    e_lo, e_hi = _exp_neg_inv(rates.mark_scale)
    t_lo, t_hi = _dyadic_interval(rates.thin)
    return (lo_ctx.multiply(lo_ctx.subtract(1, e_hi), t_lo),
            hi_ctx.multiply(hi_ctx.subtract(1, e_lo), t_hi))


def _rate_lo(scale):
    lo_ctx, _, _ = _contexts(_PREC)
    return lo_ctx.subtract(1, _exp_neg_inv(scale)[1])


def _mark_scale_for(b):
    """``(scale, thin)`` whose realised rate is at least ``b`` and close to it.

    The largest double ``scale`` with ``1 - exp(-1/scale) >= b`` (checked on
    rigorous enclosures), or, for rates below that of ``MAX_SCALE``, that
    scale and a dyadic thinning (:func:`_dyadic`, rounded up) that brings the
    rate down to ``b`` or just above.
    """
    lo_ctx, hi_ctx, _ = _contexts(_PREC)
    b_hi = hi_ctx.divide(Decimal(b.numerator), Decimal(b.denominator))
    floor_rate = _rate_lo(MAX_SCALE)
    if b_hi < floor_rate:
        # thin = b / floor_rate rounded up, on an enclosure of floor_rate.
        ratio = Fraction(hi_ctx.divide(b_hi, floor_rate))
        thin = _dyadic(min(ratio, Fraction(1)), up=True)
        return MAX_SCALE, thin
    scale = min(-1.0 / math.log1p(-float(b)), MAX_SCALE)
    while _rate_lo(scale) < b_hi:  # step towards larger rates until proved
        scale = float(np.nextafter(scale, 0.0))
    for _ in range(64):  # then to the closest rate still proved >= b
        up = float(np.nextafter(scale, math.inf))
        if up > MAX_SCALE or _rate_lo(up) < b_hi:
            break
        scale = up
    return scale, (1, 0)


def randomized_response_rates(flip_probability, sample_rate=1.0):
    """Realisable probabilities of subsampled randomized response, rounded safely.

    The nominal law releases an edge with probability ``a = (1 - p) q`` and
    a non-edge with probability ``b = p q`` (``p`` the flip probability,
    ``q`` the sample rate, both exact doubles). The realised ``a'`` is a
    dyadic rational just below ``a`` (relative error below ``2**-60``) and the
    realised ``b'`` a rate of the exact Bernoulli process
    (:func:`bernoulli_process`) just above ``b`` (below ``2**-50``). The
    ratios ``a'/b'`` and ``(1 - b')/(1 - a')`` are then at most
    ``(1 - p)/p``, and ``b'/a'`` at most ``1 + 2**-49``: the privacy loss is
    at most ``ln((1 - p) / p)`` whenever ``p < 1/2`` (see
    :func:`randomized_response_loss`; at ``p = 1/2`` it is below ``2**-49``).

    Parameters
    ----------
    flip_probability : float in [0, 1/2]
        ``p``.
    sample_rate : float in (0, 1], default=1.0
        ``q``.

    Returns
    -------
    RandomizedResponseRates

    Examples
    --------
    >>> import math
    >>> from skdpgraph.privacy import randomized_response_rates, randomized_response_loss
    >>> rates = randomized_response_rates(0.25, 1e-9)
    >>> randomized_response_loss(rates) <= math.log(3)
    True
    """
    p = check_real(flip_probability, "flip_probability", low=0.0, high=0.5)
    q = check_real(sample_rate, "sample_rate", low=0.0, high=1.0, low_open=True)
    return _rates(p, q)


@functools.lru_cache(maxsize=64)
def _rates(p, q):
    """:func:`randomized_response_rates` for checked doubles (a pure function, cached)."""
    fp, fq = Fraction(p), Fraction(q)
    a, b = (1 - fp) * fq, fp * fq
    keep = _dyadic(a, up=False)
    if b == 0:
        return RandomizedResponseRates(keep, None, (0, 64))
    scale, thin = _mark_scale_for(b)
    rates = RandomizedResponseRates(keep, scale, thin)
    if p < 0.5:
        # b'/a' (a released non-edge) must stay within (1 - p)/p; it is above 1
        # by at most 2**-49, so this only fails within about 2**-51 of p = 1/2.
        lo_ctx, hi_ctx, _ = _contexts(_PREC)
        a_lo = _dyadic_interval(keep)[0]
        nominal_lo = lo_ctx.divide(Decimal(fp.denominator - fp.numerator),
                                   Decimal(fp.numerator))
        if a_lo <= 0 or hi_ctx.divide(_rate_interval(rates)[1], a_lo) > nominal_lo:
            raise ValueError(
                f"flip probability {p!r} is too close to 1/2 to be realised with a "
                "privacy loss of at most ln((1 - p) / p); use p = 1/2 (s = 1)."
            )
    return rates


def randomized_response_loss(rates):
    """Rigorous upper bound of the privacy loss of the realised rates.

    ``max(|ln(a' / b')|, |ln((1 - b') / (1 - a'))|)`` for the realised edge
    and non-edge probabilities ``a'`` and ``b'``
    (:class:`RandomizedResponseRates`), computed on decimal enclosures and
    rounded up to a double: the largest log-ratio of the probabilities of
    any released set under two graphs that differ in one edge.

    Parameters
    ----------
    rates : RandomizedResponseRates
        The realised probabilities (:func:`randomized_response_rates`).

    Returns
    -------
    float
        ``inf`` when one probability is 0 and the other is not.
    """
    lo_ctx, hi_ctx, _ = _contexts(_PREC)
    a = _dyadic_interval(rates.keep)
    b = _rate_interval(rates)
    worst = Decimal(0)
    for num_hi, den_lo in ((a[1], b[0]), (b[1], a[0]),
                           (hi_ctx.subtract(1, b[0]), lo_ctx.subtract(1, a[1])),
                           (hi_ctx.subtract(1, a[0]), lo_ctx.subtract(1, b[1]))):
        if num_hi == 0:
            continue
        if den_lo <= 0:
            return math.inf
        ratio = hi_ctx.divide(num_hi, den_lo)
        if ratio > 1:
            worst = max(worst, hi_ctx.ln(ratio))
    loss = float(worst)
    return loss if Decimal(loss) >= worst else float(np.nextafter(loss, math.inf))


def bernoulli_words(probability, size, random_state):
    """Independent exact coins of a dyadic probability ``A / 2**bits``.

    A coin compares a uniform ``bits``-bit integer with ``A``, one 64-bit word
    at a time: the next word is drawn only where the leading words are equal
    to ``A``'s (probability ``2**-64`` per word).

    Parameters
    ----------
    probability : tuple of int
        ``(A, bits)``, ``0 <= A <= 2**bits``, ``bits`` a multiple of 64 (or
        ``(1, 0)``: always).
    size : int
        Number of coins.
    random_state : numpy.random.Generator
        Source of the uniform 64-bit words.

    Returns
    -------
    ndarray of bool, shape (size,)
    """
    numerator, bits = probability
    if numerator >= (1 << bits):
        return np.ones(size, dtype=bool)
    if numerator <= 0:
        return np.zeros(size, dtype=bool)
    out = np.zeros(size, dtype=bool)
    tied = np.arange(size)
    for shift in range(bits - 64, -1, -64):
        digit = np.uint64((numerator >> shift) & _U64_MAX)
        words = random_state.integers(0, _U64_MAX, size=tied.size, dtype=np.uint64,
                                      endpoint=True)
        out[tied[words < digit]] = True
        tied = tied[words == digit]
        if not tied.size:
            break
    # Words equal to A's in every place: the uniform is A / 2**bits or above.
    return out


def bernoulli_process(n, scale, thin, random_state):
    """Sorted positions in ``[0, n)`` marked independently with one probability.

    Every position is marked independently with probability
    ``(1 - exp(-1 / scale)) * T / 2**bits``, exactly: the gaps between
    marks are exact geometric draws of ratio ``exp(-1 / scale)`` (the
    magnitudes of :func:`~skdpgraph.privacy.discrete_laplace`, less one, given
    that they are not 0), each mark then kept by an exact dyadic coin. The
    work is proportional to the number of marks, not to ``n``.

    Parameters
    ----------
    n : int
        Number of positions (up to ``2**62``).
    scale : float
        Geometric scale, in ``[MIN_SCALE, MAX_SCALE]``.
    thin : tuple of int
        ``(T, bits)``, the thinning coin of :func:`bernoulli_words`.
    random_state : numpy.random.Generator
        Source of the geometric gaps and of the thinning coins.

    Returns
    -------
    ndarray of int64
    """
    n = check_int(n, "n", 0, 2**62)
    params = _laplace_params(float(scale))
    rate = -math.expm1(-1.0 / scale)
    # The marks themselves: about n * rate of them before thinning, 8 bytes each.
    mean = n * rate
    check_work_memory(8.0 * max(mean - 6.0 * math.sqrt(mean), 0.0),
                      f"A Bernoulli process of rate {rate:.3g} on {n} positions")
    out = []
    position = -1  # the last mark so far
    while position < n - 1:
        left = n - 1 - position  # positions after the last mark
        mean = left * rate
        block = int(min(mean + 4.0 * math.sqrt(mean) + 64.0, 16 * CHUNK_SIZE))
        magnitude = np.empty(block, dtype=np.int64)
        _laplace_block(params, random_state, magnitude, signed=False)
        # Given K != 0, |K| = 1 + G with G geometric of ratio exp(-1/scale):
        # the next mark lies |K| positions after the last one.
        gaps = magnitude[magnitude > 0]
        del magnitude
        # Capping the gaps at `left + 1` changes no mark inside, and keeps
        # the partial sums up to the first one past the end below 2**63.
        np.minimum(gaps, left + 1, out=gaps)
        steps = np.cumsum(gaps)
        past = np.flatnonzero(steps > left)
        if past.size:
            out.append(steps[:past[0]] + position)
            break
        if steps.size:
            out.append(steps + position)
            position += int(steps[-1])
    marks = np.concatenate(out) if out else np.empty(0, dtype=np.int64)
    if thin[0] < (1 << thin[1]):
        marks = marks[bernoulli_words(thin, marks.size, random_state)]
    return marks
