"""Continuous noise for selection mechanisms, with unbounded tails.

The Gumbel and exponential noise here never leaves the library as a number:
it only decides which candidate wins (Report-Noisy-Max, the input-
perturbation tree, the Gumbel-max choices of the spanning-tree samplers, the
clock race of PAMST), so its floating-point support does not reveal the
input the way ``w + Laplace`` does. What floating point can change is the
law of the winner, and a sampler built on 53-bit uniforms changes it badly
in the tails: numpy's ``gumbel`` is ``-log(-log(U))`` with ``U`` a multiple
of ``2**-53``, so it never exceeds ``log(2**53) = 36.7``, and a candidate
behind the leader by more than about 40 in log-weight can never win,
although the exact law gives it a positive probability. Under a
neighbouring input the gap may shrink below 40 and the candidate becomes
possible: an output impossible under one input and possible under its
neighbour breaks pure differential privacy.

The samplers below draw ``E ~ Exp(1)`` as ``-log(U)`` from 64-bit words with
*both* tails resolved: one bit chooses ``U < 1/2`` or ``U > 1/2``, the other
63 bits give the distance ``x`` of ``U`` to the nearer end of ``(0, 1)``,
and ``E = -log(x)`` or ``E = -log1p(-x)``. When the leading 11 of those 63
bits are zero (probability ``2**-11``), ``x`` is refined with a further word,
recursively (at most 18 words, beyond which ``x`` underflows), so ``x``
carries at least 52 significant random bits at every scale: ``E`` is unbounded
above (``U`` near 0) and resolved down to ``2**-1074`` (``U`` near 1), hence the
Gumbel variable ``-log(E)`` is unbounded in both directions within the double
range. The cost is one word and two logarithms per draw, about numpy's.
"""

import numpy as np


_TWO_M64 = 2.0 ** -64
_LOW_BITS = np.uint64(2 ** 63 - 1)
_REFINE_BELOW = 2 ** 52  # fewer than 52 significant bits left: refine
_SHIFT_63, _SHIFT_59, _SIXTEEN = np.uint64(63), np.uint64(59), np.uint64(16)
_DBL_MAX = np.finfo(np.float64).max
_TINY = np.nextafter(0.0, 1.0)
_HALF = np.uint64(2 ** 63)
_MAX_DEPTH = 18  # 2**(-64 * 18) is below the smallest double


def _fine_tail(random_state, size, depth=1):
    """Uniform draws on ``(0, 1)`` with 52 significant bits down to ``2**-1074``."""
    w = random_state.bit_generator.random_raw(size)
    x = (w.astype(np.float64) + 0.5) * _TWO_M64
    small = np.flatnonzero(w < np.uint64(_REFINE_BELOW))
    if small.size and depth < _MAX_DEPTH:
        # w < 2**52 is exact in float64: append the next word's bits below it.
        x[small] = (w[small].astype(np.float64)
                    + _fine_tail(random_state, small.size, depth + 1)) * _TWO_M64
    return x


def random_words(size, random_state):
    """i.i.d. uniform 64-bit words (uint64): the generator's raw output.

    A comparison ``W < k`` with an integer ``k`` is an event of probability
    exactly ``k / 2**64``; the UST's successor draws decide with it, in
    compiled loops, whether a draw goes to a node's light neighbours.

    Parameters
    ----------
    size : int
    random_state : numpy.random.Generator

    Returns
    -------
    ndarray of uint64, shape (size,)
    """
    return np.asarray(random_state.bit_generator.random_raw(size), dtype=np.uint64)


def standard_exponential(size, random_state):
    """i.i.d. standard exponential draws with unbounded, resolved tails.

    ``E = -log(U)``: the upper tail (``U`` near 0) is unbounded up to the
    double range and the lower tail (``U`` near 1) reaches ``2**-1074``,
    both at a relative resolution of ``2**-50`` or better (see the module
    docstring). Unlike numpy's samplers, every interval of positive length
    inside ``(5e-324, 744)`` has positive probability, and the law of every
    draw is exact up to that resolution.

    Parameters
    ----------
    size : int
        Number of draws.
    random_state : numpy.random.Generator
        Only its ``bit_generator.random_raw`` is used (64-bit words).

    Returns
    -------
    ndarray of float64, shape (size,)
    """
    w = random_state.bit_generator.random_raw(size)
    low = (w & _LOW_BITS).view(np.int64)
    x = (low + 0.5) * _TWO_M64  # distance of U to its nearer end, in (0, 1/2)
    if low.min(initial=_REFINE_BELOW) < _REFINE_BELOW:  # rare: refine small x
        small = np.flatnonzero(low < _REFINE_BELOW)
        xs = (low[small] + _fine_tail(random_state, small.size)) * _TWO_M64
        # An underflow to 0 stays for U = 1 - x (E = 0, a Gumbel beyond any
        # double); for U = x it is held at the smallest double (E = 744.4).
        x[small] = np.where(w[small] >= _HALF, xs, np.maximum(xs, _TINY))
    # U = 1 - x (E small) when the top bit is set, else U = x; branch-free.
    top = (w >> _SHIFT_63).view(np.int64)
    e = np.abs(top - x)
    np.log(e, out=e)
    np.negative(e, out=e)
    # -log(1 - x) has relative error up to 2**-54 / x: recompute for x < 1/16.
    fine = (w >> _SHIFT_59) == _SIXTEEN
    if fine.any():
        e[fine] = -np.log1p(-x[fine])
    return e


def standard_gumbel(size, random_state):
    """i.i.d. standard Gumbel draws ``-log(E)``, ``E ~ Exp(1)``, with unbounded tails.

    Built on :func:`standard_exponential`: resolved up to ``744`` (beyond,
    ``E`` underflows and the draw is the largest double, with probability
    about ``exp(-744)``) and down to ``-log(744.4) = -6.6`` (the largest double
    ``-log(x)``; ``P(G < -6.6) = exp(-744)``), where numpy's sampler is
    confined to ``[-3.6, 36.7]``. The upper tail is the one that matters: a
    candidate of a Gumbel-max choice wins with positive probability whatever
    its lag, as in the exact law.

    Parameters
    ----------
    size : int or tuple of int
        Number of draws, or shape of the output.
    random_state : numpy.random.Generator
        As for :func:`standard_exponential`.

    Returns
    -------
    ndarray of float64
        Of shape ``size`` (``(size,)`` for an int).
    """
    if isinstance(size, (int, np.integer)):
        e = standard_exponential(int(size), random_state)
    else:
        e = standard_exponential(int(np.prod(size)), random_state).reshape(size)
    with np.errstate(divide="ignore"):
        np.log(e, out=e)
    np.negative(e, out=e)
    # E == 0 (underflow) gives +inf: the largest double instead, so that
    # -inf + G stays -inf (an impossible candidate never wins) and no NaN.
    return np.minimum(e, _DBL_MAX, out=e)
