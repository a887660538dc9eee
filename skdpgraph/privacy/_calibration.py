"""Calibrations: the one place where a neighbourhood becomes a sensitivity and a
budget becomes a noise scale or a per-step budget.

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

Every mechanism of the library (the tree mechanisms of
:mod:`skdpgraph.tree`, the edge flipping of :mod:`skdpgraph.edge_dp`, the
bounds of :mod:`skdpgraph.metrics`) takes its scale from a function here.
The noise itself is drawn by :mod:`skdpgraph.privacy` 's samplers.
"""

import math
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
from scipy.special import expit

from ..utils import check_int, check_real
from ..utils._docs import fill_doc
from ._accounting import approx_dp_to_zcdp, sqrt_below, zcdp_to_approx_dp
from ._noise import _contexts
from ._validation import (
    check_delta,
    check_epsilon,
    check_neighborhood,
    check_rho,
    check_sensitivity,
)

#: Noise distributions of the input-perturbation tree.
INPUT_NOISES = ("gumbel", "laplace", "gaussian")


def resolve_budget(epsilon=None, delta=None, rho=None, *, pure_only=False, owner="The mechanism"):
    """Turn a user's budget into either a pure ``epsilon`` or a zCDP ``rho``.

    Parameters
    ----------
    epsilon : float, default=None
        Alone: a pure ``epsilon``-DP target. With ``delta``: an
        ``(epsilon, delta)`` target, reached through zCDP
        (``rho = approx_dp_to_zcdp(epsilon, delta)``).
    delta : float, default=None
        In (0, 1); only with ``epsilon``.
    rho : float, default=None
        A zCDP target, instead of ``epsilon``.
    pure_only : bool, default=False
        The mechanism is calibrated by a pure ``epsilon`` only: ``rho`` and
        ``delta`` are refused.
    owner : str
        Name used in the error messages.

    Returns
    -------
    epsilon : float or None
        The pure budget, or None when calibrating through zCDP.
    rho : float or None
        The zCDP budget, or None for a pure calibration.
    """
    if (epsilon is None) == (rho is None):
        raise ValueError(f"{owner} needs exactly one of epsilon (optionally with delta) "
                         "and rho (a zCDP budget).")
    if pure_only and (rho is not None or delta is not None):
        raise ValueError(f"{owner} is calibrated by epsilon (pure DP) only; rho and delta "
                         "must be None.")
    if rho is not None:
        if delta is not None:
            raise ValueError("delta goes with epsilon; a rho target needs no delta.")
        return None, check_rho(rho)
    epsilon = check_epsilon(epsilon)
    if delta is None:
        return epsilon, None
    return None, approx_dp_to_zcdp(epsilon, check_delta(delta))


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
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
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

    Parameters
    ----------
    l1_sensitivity : float
        ``Delta_1``.
    epsilon : float
        Privacy budget (> 0).

    Returns
    -------
    float
        ``Delta_1 / epsilon`` rounded up: ``Delta_1 / b <= epsilon`` exactly,
        so that a mechanism exact for the double ``b`` (the discrete Laplace
        sampler) loses at most ``epsilon``.
    """
    l1_sensitivity = check_real(l1_sensitivity, "l1_sensitivity", low=0.0)
    epsilon = check_epsilon(epsilon)
    b = l1_sensitivity / epsilon
    while b < math.inf and Fraction(b) * Fraction(epsilon) < Fraction(l1_sensitivity):
        b = math.nextafter(b, math.inf)
    return b


def gaussian_sigma(l2_sensitivity, rho):
    """Standard deviation ``Delta_2 / sqrt(2 rho)`` of the rho-zCDP Gaussian mechanism.

    (Bun and Steinke 2016, Proposition 1.6.)

    Parameters
    ----------
    l2_sensitivity : float
        ``Delta_2``.
    rho : float
        The zCDP budget.

    Returns
    -------
    float
        ``Delta_2 / sqrt(2 rho)`` rounded up: ``Delta_2^2 / (2 sigma^2) <=
        rho`` exactly.
    """
    l2_sensitivity = check_real(l2_sensitivity, "l2_sensitivity", low=0.0)
    rho = check_rho(rho)
    sigma = l2_sensitivity / (math.sqrt(2.0) * math.sqrt(rho))  # 2 rho may overflow
    while sigma < math.inf and 2 * Fraction(rho) * Fraction(sigma) ** 2 < Fraction(
            l2_sensitivity) ** 2:
        sigma = math.nextafter(sigma, math.inf)
    return sigma


def pamst_step_epsilon(n_steps, epsilon=None, rho=None):
    """Epsilon of each of ``n_steps`` composed exponential-mechanism steps.

    PAMST, Report-Noisy-Max Prim and the Gumbel input perturbation are all
    ``n_steps = |V| - n_components`` adaptively composed exponential
    mechanisms ``P(e) ~ exp(-eps_step w(e) / (2 mu))``, valid under both
    neighbourhoods (each utility ``-w(e)`` moves by at most ``mu``).

    Parameters
    ----------
    n_steps : int
        Number of steps (public).
    epsilon : float, default=None
        Pure-DP budget of the whole tree: each step gets ``epsilon / n_steps``
        (sequential composition).
    rho : float, default=None
        zCDP budget of the whole tree: an ``eps``-DP exponential mechanism is
        ``eps**2 / 8``-zCDP (Cesar and Rogers 2021), zCDP adds up, so each
        step gets ``sqrt(8 rho / n_steps)``.

    Returns
    -------
    float
    """
    epsilon, rho = resolve_budget(epsilon, None, rho, owner="pamst_step_epsilon")
    n_steps = max(check_int(n_steps, "n_steps", 0), 1)
    if epsilon is not None:
        return _below(epsilon, n_steps)  # n_steps of it never exceed epsilon
    return sqrt_below(8 * Fraction(rho) / n_steps)  # n_steps of step**2 / 8 within rho


def exponential_tree_scale(epsilon, sensitivity, neighborhood, n_tree_edges):
    """Inverse temperature ``c`` of the exponential mechanism over spanning trees.

    Parameters
    ----------
    epsilon : float
        Privacy budget of the release (> 0).
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
    n_tree_edges : int
        Number of edges of a spanning forest, ``|V| - (number of
        components)``; it depends on the public topology only.

    Returns
    -------
    c : float
        ``epsilon / (2 Delta)`` with ``Delta = mu`` (``"l1"``) or
        ``n_tree_edges * mu`` (``"linf"``), the sensitivity of ``w(T)``.
    """
    epsilon = check_epsilon(epsilon)
    n_tree_edges = check_int(n_tree_edges, "n_tree_edges", 0)
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    # Delta exactly (mu, or k mu unrounded) and c rounded down: 2 c Delta <= epsilon.
    delta_u = Fraction(mu) * (max(n_tree_edges, 1) if neighborhood == "linf" else 1)
    return _below(epsilon, 2 * delta_u)


def input_perturbation_scale(noise, *, sensitivity, neighborhood, n_tree_edges,
                             n_edges, epsilon=None, delta=None, rho=None):
    """Noise scale of the input-perturbation tree and the guarantee it gives.

    Parameters
    ----------
    noise : {"gumbel", "laplace", "gaussian"}
        Noise added to every weight: ``"gumbel"`` is ``n_tree_edges``
        composed exponential-mechanism steps; ``"laplace"`` (pure DP) and
        ``"gaussian"`` (zCDP) release all ``n_edges`` weights.
    sensitivity : float
        ``mu`` (> 0).
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
    n_tree_edges : int
        ``|V|`` minus the number of connected components (public).
    n_edges : int
        ``|E|`` (public).
    epsilon, delta, rho : float or None
        Either ``epsilon`` (pure DP; with ``delta`` an ``(epsilon, delta)``
        target reached through zCDP) or ``rho`` (a zCDP target). Laplace
        noise is pure: it needs ``epsilon`` and ignores ``delta``. Gaussian
        noise needs ``delta`` or ``rho``.

    Returns
    -------
    scale : float
        Gumbel scale ``b``, Laplace scale or Gaussian standard deviation.
    rho_spent : float or None
        The zCDP parameter of the release when calibrated through zCDP, else
        ``None`` (pure ``epsilon``-DP).
    """
    if noise not in INPUT_NOISES:
        raise ValueError(f"noise must be one of {INPUT_NOISES}; got {noise!r}.")
    n_tree_edges = check_int(n_tree_edges, "n_tree_edges", 0)
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    if noise == "laplace":
        if rho is not None:
            raise ValueError("Laplace noise is calibrated by epsilon (pure DP), not rho.")
        epsilon, _ = resolve_budget(epsilon, None, None)
        if delta is not None:
            check_delta(delta)
        return laplace_scale(release_sensitivity(n_edges, mu, neighborhood), epsilon), None
    epsilon, rho = resolve_budget(epsilon, delta, rho)
    if noise == "gaussian":
        if rho is None:
            raise ValueError("Gaussian noise needs delta (or a rho target).")
        l2 = release_sensitivity(n_edges, mu, neighborhood, norm="l2")
        return gaussian_sigma(l2, rho), rho
    # k exponential-mechanism steps P(e) ~ exp(-w(e) / b): b = 2 mu / eps_step, rounded
    # up (each step loses 2 mu / b <= eps_step exactly).
    return _above(2 * Fraction(mu), pamst_step_epsilon(n_tree_edges, epsilon, rho)), rho


def noisy_max_prim_scale(*, sensitivity, n_tree_edges, epsilon=None, delta=None,
                         rho=None):
    """Gumbel scale ``b`` of every Report-Noisy-Max step, and the zCDP parameter.

    The calibration is the Gumbel input perturbation's (both are ``k``
    exponential mechanisms with ``P(e) ~ exp(-w(e) / b)``); ``rho`` is None
    for a pure calibration.

    Parameters
    ----------
    sensitivity : float
        ``mu``.
    n_tree_edges : int
        Number of steps, ``|V| - n_components``.
    epsilon, delta, rho : float, default=None
        The budget, as :func:`input_perturbation_scale` takes it.

    Returns
    -------
    (float, float or None)
        ``b`` and ``rho``.
    """
    return input_perturbation_scale(
        "gumbel", sensitivity=sensitivity, neighborhood="linf",
        n_tree_edges=n_tree_edges, n_edges=0, epsilon=epsilon, delta=delta, rho=rho)


def laplace_mst_scale(n_edges, sensitivity, neighborhood, epsilon):
    """Laplace scale of Sealfon's Laplace-MST: every one of the ``|E|`` weights is released.

    ``mu / epsilon`` under ``"l1"`` neighbours, ``|E| mu / epsilon`` under ``"linf"``.

    Parameters
    ----------
    n_edges : int
        ``|E|``.
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
    epsilon : float
        Pure-DP budget (> 0).

    Returns
    -------
    float
    """
    return laplace_scale(release_sensitivity(n_edges, sensitivity, neighborhood), epsilon)


def weight_release_noise(n_released, sensitivity, neighborhood, *, epsilon=None,
                         rho=None, delta=None, mechanism="laplace"):
    """Noise scale of the Weight-Release mechanism.

    Parameters
    ----------
    n_released : int
        Number of released weights (``|V| - n_components`` for a spanning
        forest; public).
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
    epsilon : float, default=None
        Laplace: the pure-DP budget. Gaussian: with ``delta``, an
        ``(epsilon, delta)`` target converted to zCDP.
    rho : float, default=None
        Gaussian only: the zCDP budget (instead of ``epsilon``/``delta``).
    delta : float, default=None
        Gaussian only, with ``epsilon``: the ``delta`` of the target, in
        (0, 1).
    mechanism : {"laplace", "gaussian"}, default="laplace"
        Laplace noise (pure DP) or Gaussian noise (zCDP).

    Returns
    -------
    float
        Laplace scale ``Delta_1 / epsilon`` with ``Delta_1 = mu`` (l1) or
        ``(|V| - 1) mu`` (linf); or Gaussian standard deviation
        ``Delta_2 / sqrt(2 rho)`` with ``Delta_2 = mu`` (l1) or
        ``sqrt(|V| - 1) mu`` (linf).
    """
    if mechanism == "laplace":
        if rho is not None or delta is not None:
            raise ValueError("The Laplace Weight-Release takes epsilon only (pure DP).")
        if epsilon is None:
            raise ValueError("The Laplace Weight-Release needs epsilon.")
        return laplace_scale(release_sensitivity(n_released, sensitivity, neighborhood),
                             epsilon)
    if mechanism == "gaussian":
        if rho is None and (epsilon is None or delta is None):
            raise ValueError("The Gaussian Weight-Release needs rho, or epsilon and delta.")
        if rho is not None and epsilon is not None:
            raise ValueError("Give rho or (epsilon, delta), not both.")
        _, rho = resolve_budget(epsilon, delta, rho)
        l2 = release_sensitivity(n_released, sensitivity, neighborhood, norm="l2")
        return gaussian_sigma(l2, rho)
    raise ValueError(f"mechanism must be 'laplace' or 'gaussian'; got {mechanism!r}.")


def _edge_flip_loss_upper(s):
    """Decimal upper bound of ``ln(2/s - 1)`` for one exact double ``s`` in (0, 1]."""
    _, hi, near = _contexts(40)
    ds = Decimal(s)
    ratio = hi.divide(hi.subtract(2, ds), ds)
    loss = near.ln(ratio)  # correctly rounded: within 10**-39 relative
    return hi.add(loss, hi.multiply(abs(loss), Decimal("1e-38")))


def edge_flip_epsilon(s):
    """Epsilon of randomized response on adjacency bits: ``ln(2/s - 1)``.

    Each bit is kept with probability ``1 - s`` and replaced by a fair coin
    with probability ``s``: it flips with probability ``s / 2``, and two
    graphs differing in one edge give any output with probabilities in ratio
    at most ``(1 - s/2) / (s/2)`` (Muelle et al. 2015, Theorem 1). Works
    elementwise on arrays of values in ``(0, 1]`` (else ``ValueError``).
    Each value is the smallest double at or above the exact ``ln(2/s - 1)``
    of the exact double ``s`` (an enclosure in :mod:`decimal`), so that what
    is charged is never below the true loss.

    Parameters
    ----------
    s : float or array-like of float
        Probability, in ``(0, 1]``, that a bit is replaced by a fair coin.

    Returns
    -------
    epsilon : numpy.float64 or ndarray of float64
        ``ln(2/s - 1)``, rounded up; an array of the shape of ``s`` for
        array input.

    Raises
    ------
    TypeError
        If ``s`` does not hold real numbers.
    ValueError
        If a value of ``s`` is outside ``(0, 1]`` (or NaN).
    """
    def upper(x):
        bound = _edge_flip_loss_upper(float(x))
        value = float(bound)
        return value if Decimal(value) >= bound else float(np.nextafter(value, math.inf))

    arr = np.asarray(s)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"s must be real numbers in (0, 1]; got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if not np.all((arr > 0.0) & (arr <= 1.0)):  # NaN fails too
        raise ValueError(f"s must lie in (0, 1]; got {s!r}.")
    if arr.ndim == 0:
        return np.float64(upper(arr))
    return np.vectorize(upper, otypes=[np.float64])(arr)


def edge_flip_s(epsilon):
    """The ``s`` of edge flipping with privacy loss ``epsilon``: ``2 / (1 + e^epsilon)``.

    The inverse of :func:`edge_flip_epsilon`, rounded up where needed so that
    the exact ``ln(2/s - 1)`` of the returned double is at most ``epsilon``
    (checked on a :mod:`decimal` enclosure): the mechanism never spends more
    than asked.

    Parameters
    ----------
    epsilon : float
        Privacy loss of each released bit (> 0).

    Returns
    -------
    s : float
        Probability, in ``(0, 1]``, that a bit is replaced by a fair coin.

    Raises
    ------
    ValueError
        If ``epsilon`` is not finite and > 0, or so large that ``s / 2``
        underflows to 0.
    """
    epsilon = check_epsilon(epsilon)
    s = float(2.0 * expit(-epsilon))  # 2 / (1 + e^eps) without overflow
    if s == 0.0:  # scipy's expit is 0 from e^eps = inf on; e^-eps is subnormal until ~745
        t = math.exp(-epsilon)
        s = 2.0 * t / (1.0 + t)
    if s == 0.0:
        raise ValueError(
            f"epsilon={epsilon!r} is too large: the flip probability s/2 "
            "underflows to 0 in floating point."
        )
    bound = Decimal(epsilon)
    while s < 1.0 and _edge_flip_loss_upper(s) > bound:
        s = float(np.nextafter(s, 1.0))
    return halving_exactly(s)


def halving_exactly(s):
    """``s``, or the next double above it, whichever ``s / 2`` is exact for.

    A flip probability ``s / 2`` below the smallest normal double is rounded
    (``epsilon`` above about 708.4): the next ``s``, more noise and a smaller
    loss, halves exactly.

    Parameters
    ----------
    s : float in (0, 1]
        Edge-flip parameter.

    Returns
    -------
    float
    """
    if s < 2.0**-1021 and int(s / 2.0**-1074) % 2:
        s = float(np.nextafter(s, 1.0))
    return s


#: Tree mechanisms whose noise :func:`tree_release_noise` knows, by their
#: name in :data:`skdpgraph.tree.TREE_MECHANISMS`.
TREE_NOISE_MECHANISMS = ("laplace", "pamst", "noisy_max_prim", "input_perturbation",
                         "exponential")


def tree_release_noise(mechanism, *, sensitivity, neighborhood, n_tree_edges, n_edges,
                       epsilon=None, rho=None, tree_share=0.5):
    """Largest noise scale, in weight units, of a PTClust release with a tree mechanism.

    A spanning-tree release of ``PrivateMSTClustering`` has one or two noisy
    parts, each with a scale in the units of the weights: the tree (a
    Laplace scale for Laplace-MST; the Gumbel scale ``b`` of the
    exponential-mechanism steps ``P(e) ~ exp(-w(e) / b)``, or ``1 / c`` for
    the exponential mechanism over trees) and, for topology mechanisms, the
    Weight-Release (Laplace scale or Gaussian standard deviation). This
    returns the larger one. It reads public parameters only.

    Parameters
    ----------
    mechanism : {"laplace", "pamst", "noisy_max_prim", "input_perturbation", "exponential"}
        A tree mechanism of :data:`skdpgraph.tree.TREE_MECHANISMS` (the
        Gumbel input perturbation for ``"input_perturbation"``).
    sensitivity : float
        ``mu``.
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
    n_tree_edges : int
        ``|V|`` minus the number of connected components (``|V| - 1`` is a
        public upper bound).
    n_edges : int
        ``|E|``.
    epsilon : float, default=None
        Pure budget of the whole release (sequential composition).
    rho : float, default=None
        zCDP budget of the whole release, instead of ``epsilon``.
        ``"laplace"`` is pure and needs ``epsilon``.
    tree_share : float in (0, 1), default=0.5
        Share of the budget spent on the tree (topology mechanisms).

    Returns
    -------
    float
        The largest of the noise scales.

    Examples
    --------
    >>> from skdpgraph.privacy import tree_release_noise
    >>> tree_release_noise("laplace", sensitivity=0.1, neighborhood="l1",
    ...                    n_tree_edges=99, n_edges=2309, epsilon=1.0)
    0.1
    >>> round(tree_release_noise("pamst", sensitivity=0.1, neighborhood="l1",
    ...                          n_tree_edges=99, n_edges=2309, epsilon=1.0), 1)
    39.6
    """
    if mechanism not in TREE_NOISE_MECHANISMS:
        raise ValueError(f"mechanism must be one of {TREE_NOISE_MECHANISMS}; got {mechanism!r}.")
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    k = max(int(n_tree_edges), 1)
    if mechanism == "laplace":
        if epsilon is None:
            raise ValueError("Laplace-MST is calibrated by epsilon (pure DP).")
        return laplace_mst_scale(max(int(n_edges), 1), mu, neighborhood, epsilon)
    share = check_real(tree_share, "tree_share", low=0.0, high=1.0, low_open=True,
                       high_open=True)
    epsilon, rho = resolve_budget(epsilon, None, rho, owner="tree_release_noise")
    if rho is None:
        tree_eps, tree_rho = share * epsilon, None
        weights = weight_release_noise(k, mu, neighborhood, epsilon=(1 - share) * epsilon)
    else:
        tree_eps, tree_rho = None, share * rho
        weights = weight_release_noise(k, mu, neighborhood, rho=(1 - share) * rho,
                                       mechanism="gaussian")
    if mechanism == "exponential":
        eps_t = tree_eps if tree_rho is None else math.sqrt(8.0 * tree_rho)
        tree = 1.0 / exponential_tree_scale(eps_t, mu, neighborhood, k)
    else:
        step = pamst_step_epsilon(k, tree_eps, tree_rho)
        tree = 2.0 * mu / step if step > 0 else math.inf  # a step budget that underflows
    return max(tree, weights)


#: A release can carry signal when the noise a spanning tree picks up stays
#: within this share of the weight range (see :func:`signal_epsilon`).
SIGNAL_SHARE = 0.2


def selection_spread(n_edges, n_tree_edges):
    """How far below its weight the noisy weight a spanning tree keeps lies, in noise scales.

    A spanning tree of noisy weights keeps, at each node, about the smallest
    of its ``d / 2`` incident noisy weights (``d = 2 |E| / |V|``, the mean
    degree); the smallest of ``m`` draws of a noise of scale ``b`` (Laplace,
    Gumbel) lies about ``b ln(m)`` below the centre. Returns
    ``max(1, ln(d / 2))``, from public sizes only.

    Parameters
    ----------
    n_edges : int
        ``|E|``.
    n_tree_edges : int
        Edges of the spanning tree (``|V| - 1`` for a connected graph).

    Returns
    -------
    float
    """
    degree = 2.0 * max(int(n_edges), 1) / (max(int(n_tree_edges), 1) + 1)
    return max(1.0, math.log(degree / 2.0))


def signal_allowance(mechanism, weight_range, n_edges, n_tree_edges):
    """Largest noise scale with which a tree release can still carry signal.

    Laplace-MST releases the noisy weights of the tree it keeps, and a
    spanning tree keeps at each node about the smallest of its incident noisy
    weights, which then lie about ``b * selection_spread(|E|, |V| - 1)`` below
    their values (``b`` the noise scale): that shift must stay within
    ``SIGNAL_SHARE = 0.2`` of ``weight_range``. The topology mechanisms
    release the tree's weights separately (Weight-Release), and their tree is
    close to a uniformly random one once the noise scale exceeds
    ``weight_range``. Public sizes only.

    Parameters
    ----------
    mechanism : str
        As for :func:`tree_release_noise`.
    weight_range : float
        ``high - low`` of the weight bounds.
    n_edges, n_tree_edges : int
        ``|E|``, and the edges of the spanning tree (``|V| - 1`` for a
        connected graph).

    Returns
    -------
    float
    """
    if mechanism == "laplace":
        return SIGNAL_SHARE * weight_range / selection_spread(n_edges, n_tree_edges)
    return weight_range


def signal_epsilon(mechanism, *, weight_range, sensitivity, neighborhood, n_tree_edges,
                   n_edges, accounting="pure", delta=None, tree_share=0.5):
    """Smallest budget at which a tree release can carry signal, from public parameters.

    Below it the noise of scale ``b`` (:func:`tree_release_noise`: the
    Laplace scale of Laplace-MST; the Gumbel scale of the steps or ``1 / c``
    of the exponential mechanism; the Weight-Release noise) exceeds
    :func:`signal_allowance`: for Laplace-MST, the weights the tree keeps lie
    about ``b * ln(d / 2)`` below their values (``d`` the mean degree) and
    that exceeds a fifth of ``weight_range``; for the topology mechanisms,
    ``b`` exceeds ``weight_range`` and the tree is close to a uniformly random
    one. DBMSTClu's clusters are then about what noise gives (one cluster per
    node, or clusters of no meaning).

    The share was set on measured releases (``docs/private_trees.md``,
    "When the release carries no signal"). It is a necessary condition for a
    useful release, not a sufficient one: whether clusters survive also
    depends on their separation, which is private.

    Every noise scale is proportional to ``1 / epsilon`` under pure
    accounting and to ``1 / sqrt(rho)`` under zCDP, so the threshold is in
    closed form: ``epsilon* = b(1) / allowance``, or
    ``rho* = (b(rho=1) / allowance)**2`` converted to
    ``(epsilon*, delta)``-DP with :func:`zcdp_to_approx_dp`.

    Parameters
    ----------
    mechanism : str
        As for :func:`tree_release_noise`.
    weight_range : float
        ``high - low`` of the weight bounds (> 0).
    sensitivity : float
        ``mu`` (> 0), as for :func:`tree_release_noise`.
    neighborhood : {"l1", "linf"}
        As for :func:`tree_release_noise`.
    n_tree_edges, n_edges : int
        ``|V|`` minus the number of connected components, and ``|E|``
        (public), as for :func:`tree_release_noise`.
    accounting : {"pure", "zcdp"}, default="pure"
        ``"pure"``: the threshold of a release calibrated by a pure
        ``epsilon``; ``"zcdp"``: of a release calibrated through zCDP,
        stated as ``(epsilon, delta)``-DP.
    delta : float, default=None
        Needed with ``accounting="zcdp"`` (except for ``"laplace"``, which
        runs as a pure mechanism).
    tree_share : float in (0, 1), default=0.5
        As for :func:`tree_release_noise`.

    Returns
    -------
    float
        ``epsilon*`` (pure) or the ``epsilon`` of ``(epsilon*, delta)``-DP.

    Examples
    --------
    >>> from skdpgraph.privacy import signal_epsilon
    >>> common = dict(weight_range=1.0, sensitivity=0.1, neighborhood="l1",
    ...               n_tree_edges=99, n_edges=2309)
    >>> round(signal_epsilon("laplace", **common), 2)  # 0.1 x ln(23.1) / 0.2
    1.57
    >>> round(signal_epsilon("pamst", **common), 1)
    39.6
    """
    weight_range = check_real(weight_range, "weight_range", low=0.0, low_open=True)
    kwargs = dict(sensitivity=sensitivity, neighborhood=neighborhood,
                  n_tree_edges=n_tree_edges, n_edges=n_edges, tree_share=tree_share)
    allowed = signal_allowance(mechanism, weight_range, n_edges, n_tree_edges)
    if accounting == "pure" or mechanism == "laplace":
        noise = tree_release_noise(mechanism, epsilon=1.0, **kwargs)
        return noise / allowed if allowed > 0 else math.inf  # a subnormal range: none
    if accounting != "zcdp":
        raise ValueError(f"accounting must be 'pure' or 'zcdp'; got {accounting!r}.")
    delta = check_delta(delta)
    if not allowed > 0:
        return math.inf
    ratio = tree_release_noise(mechanism, rho=1.0, **kwargs) / allowed
    rho = ratio * ratio  # inf past the float maximum (where ** would raise)
    return zcdp_to_approx_dp(rho, delta) if math.isfinite(rho) else math.inf


def randomized_response_probability(epsilon):
    """Flip probability ``p = 1 / (1 + e^epsilon)`` of epsilon-edge-DP randomized response.

    Randomized response on adjacency bits reports each bit truthfully with
    probability ``1 - p`` and flipped with probability ``p``; two graphs
    differing in one edge give any output with probabilities in ratio at most
    ``(1 - p) / p = e^epsilon``. It is edge flipping with ``s = 2 p``
    (:func:`edge_flip_s`, whose rounding it inherits: ``ln((1 - p) / p) <=
    epsilon`` holds exactly). Independent subsampling of the
    released pairs with any probability ``q`` (``P(1 | 1) = (1 - p) q``,
    ``P(1 | 0) = p q``) keeps the same ``epsilon``: the ratio for a released
    1 is unchanged and the one for a released 0,
    ``(1 - p q) / (1 - (1 - p) q)``, is at most ``(1 - p) / p``.

    Parameters
    ----------
    epsilon : float > 0
        Privacy loss of each reported bit.

    Returns
    -------
    p : float in (0, 1/2)

    Examples
    --------
    >>> from skdpgraph.privacy import randomized_response_probability
    >>> round(randomized_response_probability(4.0), 5)
    0.01799
    """
    return edge_flip_s(epsilon) / 2.0  # exact: edge_flip_s returns an s that halves exactly


@fill_doc
def edge_product_sensitivity(iterate):
    """L2 sensitivity of ``A @ X`` when the graph ``A`` changes by one edge.

    Adding or removing the edge ``{i, j}`` changes row ``i`` of ``A X`` by
    ``+-X[j]`` and row ``j`` by ``+-X[i]``, so
    ``||A X - A' X||_F = sqrt(||X[i]||^2 + ||X[j]||^2)``. The largest value
    over pairs is ``sqrt(r_1^2 + r_2^2)`` with ``r_1 >= r_2`` the two largest
    row norms of ``X``; it is at most ``sqrt(2) max_i ||X[i]||`` (the bound of
    Hardt and Price 2014, used by their noisy power method). ``X`` must be
    public (data-independent, or an earlier private release).

    Parameters
    ----------
    iterate : array-like of shape (n, k), n >= 2
        The public matrix ``X`` (finite).

    Returns
    -------
    float

    {{hardt_price_references}}

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.privacy import edge_product_sensitivity
    >>> edge_product_sensitivity(np.array([[3.0, 4.0], [0.0, 1.0], [1.0, 0.0]]))
    5.0990195135927845
    """
    X = np.asarray(iterate, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"iterate must be a 2-D array with at least 2 rows; got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("iterate must be finite.")
    sq = np.einsum("ij,ij->i", X, X)
    top2 = np.partition(sq, sq.size - 2)[-2:]
    return math.sqrt(math.fsum(top2.tolist()))


def noisy_power_budget(n_iter, *, epsilon=None, delta=None, rho=None):
    """zCDP budget of each iteration of the noisy power method.

    The ``n_iter`` Gaussian releases compose in zCDP: each gets
    ``rho / n_iter``.

    Parameters
    ----------
    n_iter : int >= 1
        Number of iterations, one Gaussian release each.
    epsilon, delta : float, default=None
        An ``(epsilon, delta)`` target, converted with
        :func:`~skdpgraph.privacy.approx_dp_to_zcdp` (Canonne, Kamath and
        Steinke 2020). Gaussian noise has no pure guarantee: ``delta`` is
        required with ``epsilon``.
    rho : float, default=None
        A zCDP target instead.

    Returns
    -------
    rho_step : float
    rho_total : float

    Examples
    --------
    >>> from skdpgraph.privacy import noisy_power_budget
    >>> noisy_power_budget(4, rho=0.5)
    (0.125, 0.5)
    """
    n_iter = int(n_iter)
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1; got {n_iter}.")
    if epsilon is not None and delta is None:
        raise ValueError("The noisy power method adds Gaussian noise: give delta with epsilon "
                         "(an (epsilon, delta) target), or rho.")
    _, rho_total = resolve_budget(epsilon, delta, rho, owner="The noisy power method")
    return _below(rho_total, n_iter), rho_total  # n_iter steps within rho_total exactly


def vote_scale(epsilon, weights=None):
    """Inverse temperature of a node's exponential-mechanism vote over its neighbours' labels.

    A node ``v`` chooses one of the labels ``c`` of a public labelling with
    probability proportional to ``exp(eta * u_c)``, where ``u_c = w_c *
    C_c``: ``C_c`` is the number of ``v``'s neighbours that carry label
    ``c`` and ``w_c >= 0`` a public weight. Adding or removing one edge
    ``{v, x}`` changes one count, ``C_label(x)``, by one, so one utility
    moves by at most ``W = max_c w_c`` and always in the same direction
    (monotone utilities). With ``eta = epsilon / W`` the log-ratio of the
    choice's probabilities between neighbouring graphs is ``eta * W`` at
    most for the label whose count moved and at least ``-eta * W`` for the
    others, and the range of the log-ratio over the labels is at most
    ``eta * W = epsilon``: the vote is ``epsilon``-DP and
    ``epsilon``-bounded-range, hence ``epsilon**2 / 8``-zCDP
    (:func:`~skdpgraph.privacy.exponential_mechanism_zcdp`). One edge moves
    the counts of its two endpoints, so one round of votes by every node
    costs two such mechanisms per edge.

    Parameters
    ----------
    epsilon : float > 0
        Guarantee of one vote of one node.
    weights : array-like of float >= 0, default=None
        The public weights ``w_c`` (``None``: all ones).

    Returns
    -------
    eta : float
        ``epsilon / max(weights)``, rounded down where the division rounds
        up, so that ``eta * max(weights) <= epsilon`` exactly.

    Examples
    --------
    >>> from skdpgraph.privacy import vote_scale
    >>> vote_scale(0.5)
    0.5
    >>> vote_scale(0.5, [0.5, 2.0])
    0.25
    """
    epsilon = check_epsilon(epsilon)
    if weights is None:
        return epsilon
    w = np.asarray(weights, dtype=np.float64)
    if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0) or w.max() <= 0:
        raise ValueError("weights must be finite, >= 0 and not all zero.")
    return _below(epsilon, float(w.max()))


def bit_vote_scale(epsilon, mean, direction=None):
    """Inverse temperature of a node's binary vote on its neighbours' centred public bits.

    Every node ``w`` holds public bits ``x_w`` in ``{-1, +1}^r`` whose
    means over the nodes are ``m`` (public). Node ``v`` draws ``+1`` with
    probability ``sigmoid(eta * S_v)``, ``S_v = sum over neighbours w of
    (x_w - m) . b``, for a public direction ``b`` (``e_j`` for the bit
    ``j`` alone). ``S_v = u_+ - u_-`` with ``u_+-`` the sums of the
    positive and negative parts of ``(x_w - m) . b``: a two-outcome
    exponential mechanism with monotone utilities, in which one edge
    ``{v, w}`` raises one utility by ``|(x_w - m) . b| <= W = sum_i |b_i| +
    |m . b|`` (the largest value over ``x_w``, reached at ``x_w = +-sign(b)``).
    With ``eta = epsilon / W`` the vote is ``epsilon``-DP and
    ``epsilon``-bounded-range (as in :func:`vote_scale`).

    Parameters
    ----------
    epsilon : float > 0
        Guarantee of one vote of one node.
    mean : array-like of shape (r,)
        Public means of the bits, in ``[-1, 1]``.
    direction : array-like of shape (r,), default=None
        ``b``; ``None``: ``mean`` is one bit's mean and ``b = 1``.

    Returns
    -------
    eta : float

    Examples
    --------
    >>> from skdpgraph.privacy import bit_vote_scale
    >>> bit_vote_scale(0.3, 0.0)
    0.3
    >>> round(bit_vote_scale(0.3, [0.5, 0.0], [1.0, -0.5]), 4)  # W = 1.5 + 0.5
    0.15
    """
    epsilon = check_epsilon(epsilon)
    m = np.atleast_1d(np.asarray(mean, dtype=np.float64))
    b = np.ones_like(m) if direction is None else np.asarray(direction, dtype=np.float64)
    if b.shape != m.shape or not (np.all(np.isfinite(m)) and np.all(np.isfinite(b))):
        raise ValueError("mean and direction must be finite arrays of the same shape.")
    if np.any(np.abs(m) > 1.0):
        raise ValueError("the means of +-1 bits lie in [-1, 1].")
    # The bound in exact rational arithmetic (r numbers): no rounding below it.
    bound = (sum(abs(Fraction(v)) for v in b.tolist())
             + abs(sum(Fraction(u) * Fraction(v) for u, v in zip(m.tolist(), b.tolist()))))
    if not bound > 0:
        raise ValueError("direction must not be zero.")
    return _below(epsilon, bound)


def step_rate(step_epsilon, sensitivity):
    """Inverse temperature ``c = eps_step / (2 mu)`` of an exponential-mechanism step
    ``P(e) ~ exp(-c w(e))`` whose utility moves by at most ``mu``, rounded down:
    ``2 c mu <= eps_step`` exactly."""
    return _below(step_epsilon, 2 * Fraction(sensitivity))


def rate_of_scale(scale):
    """Inverse temperature ``1 / b`` of odds ``exp(-w / b)``, rounded down (``c b <= 1``
    exactly); ``inf`` for a scale that underflowed to 0, 0 for one that overflowed."""
    if math.isinf(scale):
        return 0.0
    return _below(1.0, scale) if scale > 0 else math.inf


def _above(bound, epsilon):
    """The smallest double ``b`` of about ``bound / epsilon`` with ``b * epsilon >= bound``
    exactly (``bound`` a double or a Fraction; ``inf`` past the largest double)."""
    if math.isinf(epsilon):  # a step of infinite budget: no noise
        return 0.0
    if epsilon == 0.0:  # a step whose budget underflowed: no scale is enough
        return math.inf
    bound = Fraction(bound)
    quotient = bound / Fraction(epsilon)
    b = float(quotient) if quotient <= Fraction(sys.float_info.max) else math.inf
    while b < math.inf and Fraction(b) * Fraction(epsilon) < bound:
        b = math.nextafter(b, math.inf)
    return b


def _below(epsilon, bound):
    """The largest double ``eta`` of about ``epsilon / bound`` with ``eta * bound <= epsilon``
    exactly (``bound`` a double or a Fraction)."""
    if math.isinf(epsilon):  # an infinite budget: an infinite rate (callers cap it)
        return math.inf
    bound = Fraction(bound)
    quotient = Fraction(epsilon) / bound
    eta = float(quotient) if quotient < Fraction(sys.float_info.max) else sys.float_info.max
    while eta > 0.0 and Fraction(eta) * bound > Fraction(epsilon):
        eta = math.nextafter(eta, 0.0)
    return eta
