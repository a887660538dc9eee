"""Public weight bounds: checking, clipping, normalising, and what leaks without them.

The Weight-Release normalisation ``(w + tau) / p`` of the UAI paper must not
be computed from the private weights: ``tau`` and ``p`` come from public
``weight_bounds``. Without them the library reads the bounds from the data
and says so with a :class:`PrivacyLeakWarning` (diffprivlib's convention).
"""

import math

import numpy as np

from ..exceptions import DataDependentWarning, PrivacyLeakWarning
from ..utils._config import data_dependent_warnings, warn_data_dependent
from ..utils._validation import check_distance_range
from ..utils._warnings import warn


def check_weight_bounds(weight_bounds):
    """Public weight bounds ``(low, high)`` as floats, ``0 <= low < high``, finite.

    Parameters
    ----------
    weight_bounds : (float, float)
        Public bounds of the weights (distances).

    Returns
    -------
    low, high : float

    Raises
    ------
    TypeError
        If ``weight_bounds`` is not iterable.
    ValueError
        If it is not two numbers, or they are not finite with
        ``0 <= low < high``.
    """
    return check_distance_range(weight_bounds, "weight_bounds")


def data_weight_bounds(weights, *, warn_leak=True):
    """Bounds read from private weights, coarsened, with a PrivacyLeakWarning.

    The bounds are ``(0, 2**ceil(log2(max w)))``: the smallest power of two
    at or above the largest weight (1 when every weight is 0). They reveal
    the order of magnitude of the largest weight, which the privacy guarantee
    does not cover (hence the warning), but never the exact minimum or
    maximum, so a fitted model that stores them publishes no private weight.

    Parameters
    ----------
    weights : array-like of float
        The private weights (or their largest).
    warn_leak : bool, default=True
        Give the :class:`PrivacyLeakWarning`; False where the caller gave it
        already (it depends on public facts only, so it can come before the
        budget is charged: :func:`warn_bounds_from_data`).

    Returns
    -------
    (float, float)
    """
    weights = np.asarray(weights, dtype=np.float64)
    if warn_leak:
        warn_bounds_from_data()
    top = float(weights.max()) if weights.size else 0.0
    if not top > 0:
        return 0.0, 1.0
    exponent = math.frexp(top)[1]  # top <= 2**exponent, the smallest such power
    if top == 2.0 ** (exponent - 1):
        exponent -= 1
    if exponent > 1023:  # 2**1024 is not a double: the largest one bounds every weight
        return 0.0, float(np.finfo(np.float64).max)
    return 0.0, math.ldexp(1.0, exponent)


def warn_bounds_from_data():
    """The :class:`PrivacyLeakWarning` of :func:`data_weight_bounds`."""
    warn(
        "weight_bounds were not given, so they are computed from the private "
        "weights (0 and the power of two at or above their maximum). This leaks "
        "the order of magnitude of the largest weight, which the privacy "
        "guarantee does not cover. Pass public bounds, e.g. "
        "weight_bounds=(0.0, 1.0), for a true guarantee.",
        PrivacyLeakWarning,
    )


def clip_to_bounds(weights, bounds):
    """Clip private weights into public bounds, warning when any lay outside.

    Clipping is 1-Lipschitz in every weight, so neighbouring weight functions
    stay neighbours under both neighbourhoods: the guarantee is unchanged.
    The warning itself depends on the private weights (it says that some
    weight left the bounds), hence it is a
    :class:`~skdpgraph.exceptions.DataDependentWarning`, shown only while
    those diagnostics are on.

    Parameters
    ----------
    weights : array-like of float
        The private weights.
    bounds : (float, float)
        Public ``(low, high)``.

    Returns
    -------
    ndarray of float64
        The weights clipped into ``[low, high]``, of the shape of ``weights``.
    """
    lo, hi = bounds
    weights = np.asarray(weights, dtype=np.float64)
    if data_dependent_warnings():
        outside = int(np.count_nonzero((weights < lo) | (weights > hi)))
        if outside:
            warn_out_of_bounds(outside, bounds)
    return np.clip(weights, lo, hi)


def warn_out_of_bounds(count, bounds):
    """The :class:`~skdpgraph.exceptions.DataDependentWarning` of :func:`clip_to_bounds`.

    Parameters
    ----------
    count : int
        Number of weights that were outside.
    bounds : (float, float)
        The public bounds they were clipped into.

    Warns
    -----
    skdpgraph.exceptions.DataDependentWarning
        Only while data-dependent warnings are on
        (:func:`skdpgraph.utils.set_config`).
    """
    warn_data_dependent(
        f"{count} weight(s) lie outside weight_bounds=({bounds[0]:g}, {bounds[1]:g}) "
        "and were clipped into them (this keeps the privacy guarantee; the "
        "warning itself reveals that some weight was out of bounds).",
        DataDependentWarning,
    )


def normalize_weights(weights, weight_bounds):
    """Map released weights into ``(0, 1]`` with public bounds (post-processing).

    ``w' = clip(w, low, high) / high``: the released weights are clipped
    into the public bounds, where the true weights lie, and divided by
    ``high``; the Weight-Release normalisation ``(w + tau) / p`` of the UAI
    paper with ``tau = 0`` and ``p = high`` (the paper asks ``tau >= 0``).
    DBMSTClu is scale invariant but not shift invariant, so without noise
    the clustering is DBMSTClu's on the true weights whatever the bounds
    (positive weights: the floor below makes a weight 0 the smallest double).
    The result is then clipped into ``[tiny, 1]``, ``tiny`` the smallest
    positive normal double, so that every weight is a positive distance as
    DBMSTClu's definitions assume. Reading only public numbers and released
    values, this is post-processing and costs no privacy.

    Parameters
    ----------
    weights : array-like of float
        Released weights.
    weight_bounds : (float, float)
        Public ``(low, high)``.

    Returns
    -------
    ndarray of float64
    """
    lo, hi = check_weight_bounds(weight_bounds)
    with np.errstate(over="ignore"):  # a subnormal high: inf, clipped below
        out = np.clip(np.asarray(weights, dtype=np.float64), lo, hi) / hi
    return np.clip(out, np.finfo(np.float64).tiny, 1.0)
