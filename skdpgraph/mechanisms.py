"""Basic differentially private mechanisms and their calibrations.

Samplers (Laplace, Gaussian, exponential mechanism) and the functions that
turn a privacy budget and a sensitivity into a noise scale. Every calibration
of the library goes through here, so that it is written once.

Neighbouring weight functions (weight-DP, topology public), with the user's
sensitivity ``mu``:

* ``"l1"``: ``sum_e |w(e) - w'(e)| <= mu`` (Sealfon 2016; Pinot's thesis,
  Definition 2.2.1);
* ``"linf"``: ``max_e |w(e) - w'(e)| <= mu`` (Pinot et al. UAI 2018,
  Definition 2.1; thesis Definition 3.3.1).

Releasing ``k`` weights then has L1 sensitivity ``mu`` under ``"l1"`` but
``k * mu`` under ``"linf"`` (every released weight can move by ``mu`` at
once), and L2 sensitivity ``mu`` under ``"l1"`` and ``sqrt(k) * mu`` under
``"linf"`` (:func:`release_sensitivity`).

A note on floating point: the samplers use numpy's double-precision
generators. As for every textbook implementation, the guarantee is proved for
exact real-valued noise; floating-point artefacts (Mironov, "On significance
of the least significant bits for differential privacy", CCS 2012) are not
mitigated here.
"""

import math
from numbers import Real

import numpy as np

from .accounting import gaussian_sigma_for_zcdp

__all__ = [
    "NEIGHBORHOODS",
    "check_epsilon",
    "check_sensitivity",
    "check_neighborhood",
    "release_sensitivity",
    "laplace_scale",
    "gaussian_sigma",
    "laplace_noise",
    "gaussian_noise",
    "exponential_mechanism",
    "exponential_mechanism_log_probabilities",
]

#: The two neighbourhoods of weight-DP.
NEIGHBORHOODS = ("l1", "linf")


def check_neighborhood(neighborhood):
    """Validate a neighbourhood name; return it."""
    if neighborhood not in NEIGHBORHOODS:
        raise ValueError(
            f"neighborhood must be one of {NEIGHBORHOODS}; got {neighborhood!r}. "
            "'l1': the weights of neighbouring graphs differ by at most "
            "`sensitivity` in total; 'linf': each weight differs by at most "
            "`sensitivity`."
        )
    return neighborhood


def _check_real(value, name, *, positive=True, finite=True):
    if not isinstance(value, Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number; got {type(value).__name__}.")
    value = float(value)
    if math.isnan(value) or (finite and math.isinf(value)):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}.")
    return value


def check_epsilon(epsilon, name="epsilon"):
    """``epsilon`` as a float; ValueError unless finite and > 0."""
    return _check_real(epsilon, name)


def check_sensitivity(sensitivity):
    """``sensitivity`` as a float; ValueError unless finite and > 0."""
    return _check_real(sensitivity, "sensitivity")


def release_sensitivity(n_values, sensitivity, neighborhood, norm="l1"):
    """Sensitivity of releasing ``n_values`` weights of a weighted graph.

    Parameters
    ----------
    n_values : int
        Number of released weights (``|V| - 1`` for a spanning tree, ``|E|``
        for the whole graph). It depends on the public topology only.
    sensitivity : float
        ``mu`` of the neighbourhood.
    neighborhood : {"l1", "linf"}
    norm : {"l1", "l2"}, default="l1"
        Norm of the sensitivity: L1 calibrates Laplace noise, L2 Gaussian
        noise.

    Returns
    -------
    float
        ``l1`` neighbours: ``mu`` for both norms (a vector whose entries sum
        to at most ``mu`` in absolute value has L2 norm at most ``mu``).
        ``linf`` neighbours: ``n_values * mu`` (L1) or ``sqrt(n_values) * mu``
        (L2).

    Notes
    -----
    Under ``"linf"`` the UAI paper's Theorem 11 calibrates the tree-weight
    release with ``mu`` alone; that is the ``"l1"`` value, and it
    under-noises by a factor ``|V| - 1``.
    """
    sensitivity = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm must be 'l1' or 'l2'; got {norm!r}.")
    n_values = int(n_values)
    if n_values < 0:
        raise ValueError(f"n_values must be >= 0; got {n_values}.")
    if neighborhood == "l1":
        return sensitivity
    return sensitivity * (n_values if norm == "l1" else math.sqrt(n_values))


def laplace_scale(l1_sensitivity, epsilon):
    """Scale ``b = Delta_1 / epsilon`` of the epsilon-DP Laplace mechanism.

    Adding i.i.d. ``Laplace(0, b)`` noise to each coordinate of a query with
    L1 sensitivity ``Delta_1`` is ``epsilon``-DP (Dwork, McSherry, Nissim and
    Smith 2006): the density ratio at any output is at most
    ``exp(||f(w) - f(w')||_1 / b)``.
    """
    l1_sensitivity = _check_real(l1_sensitivity, "l1_sensitivity", positive=False)
    if l1_sensitivity < 0:
        raise ValueError(f"l1_sensitivity must be >= 0; got {l1_sensitivity!r}.")
    return l1_sensitivity / check_epsilon(epsilon)


def gaussian_sigma(l2_sensitivity, rho):
    """Standard deviation ``Delta_2 / sqrt(2 rho)`` of the rho-zCDP Gaussian mechanism.

    (Bun and Steinke 2016, Proposition 1.6.)
    """
    return gaussian_sigma_for_zcdp(l2_sensitivity, rho)


def laplace_noise(scale, size, random_state):
    """i.i.d. ``Laplace(0, scale)`` samples from a ``numpy.random.Generator``."""
    return random_state.laplace(0.0, scale, size=size)


def gaussian_noise(sigma, size, random_state):
    """i.i.d. ``N(0, sigma**2)`` samples from a ``numpy.random.Generator``."""
    return random_state.normal(0.0, sigma, size=size)


def exponential_mechanism_log_probabilities(utilities, epsilon, sensitivity):
    """Log-probabilities of the exponential mechanism.

    ``P(r) = exp(epsilon u(r) / (2 Delta u)) / sum_r' exp(epsilon u(r') / (2 Delta u))``
    (McSherry and Talwar 2007), computed in log space so that any spread of
    utilities is safe.

    Parameters
    ----------
    utilities : array-like of shape (k,)
        Utility of each candidate (larger is better).
    epsilon : float
    sensitivity : float
        Sensitivity ``Delta u`` of the utility.

    Returns
    -------
    ndarray of shape (k,)
    """
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 1 or u.size == 0:
        raise ValueError("utilities must be a non-empty 1-D array.")
    if not np.all(np.isfinite(u)):
        raise ValueError("utilities must be finite.")
    z = (check_epsilon(epsilon) / (2.0 * check_sensitivity(sensitivity))) * (u - u.max())
    return z - np.log(np.sum(np.exp(z)))


def exponential_mechanism(utilities, epsilon, sensitivity, random_state):
    """Draw one candidate index with the exponential mechanism.

    ``epsilon``-DP when ``sensitivity`` bounds the change of every utility
    between neighbours. Sampled by the Gumbel-max trick on the log-weights
    ``epsilon u / (2 Delta u)``: ``argmax(log-weight + Gumbel)`` has exactly
    the mechanism's distribution, with no exponentiation, so no overflow.

    Parameters
    ----------
    utilities : array-like of shape (k,)
    epsilon : float
    sensitivity : float
    random_state : numpy.random.Generator

    Returns
    -------
    int
    """
    logp = exponential_mechanism_log_probabilities(utilities, epsilon, sensitivity)
    return int(np.argmax(logp + random_state.gumbel(size=logp.size)))
