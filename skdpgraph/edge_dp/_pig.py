"""The maths of PIG (Muelle et al. 2015): ``s`` and epsilon, the choice of ``s``,
the expected size of the perturbed graph, and a private density.

The calibration itself (``epsilon = ln(2/s - 1)`` and its inverse) lives in
:mod:`skdpgraph.privacy` (:func:`~skdpgraph.privacy.edge_flip_epsilon`,
:func:`~skdpgraph.privacy.edge_flip_s`); these are its PIG-named, validated
forms.

References
----------
.. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
   Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015.
"""

import numpy as np

from ..privacy import (check_epsilon, edge_flip_epsilon, edge_flip_s, halving_exactly,
                       release_laplace)
from ..utils import check_adjacency, check_int, check_random_state, check_real
from ..utils._docs import fill_doc


def _as_float_array(value, name):
    arr = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    return arr


def _scalar_or_array(arr):
    return float(arr) if arr.ndim == 0 else arr


def _check_s_values(s):
    s = _as_float_array(s, "s")
    if np.any((s <= 0) | (s > 1)):
        raise ValueError(f"s (the randomisation probability) must be in (0, 1]; got {s!r}.")
    return s


def pig_epsilon(s):
    """Privacy loss of PIG's edge flipping: ``epsilon = ln(2/s - 1)``.

    Each adjacency bit keeps its value with probability ``1 - s/2`` and flips
    with probability ``s/2``; two graphs differing in one edge give any
    output with probabilities in ratio at most ``(1 - s/2) / (s/2) = 2/s - 1``
    (Muelle et al., Theorem 1). Neighbourhood: edge-level (one edge added or
    removed), topology private, unweighted graph.

    Parameters
    ----------
    s : float or array-like in (0, 1]
        Randomisation probability (each bit flips with probability ``s / 2``).

    Returns
    -------
    epsilon : float or ndarray
        ``0`` at ``s = 1`` (the output is independent of the input).

    Examples
    --------
    >>> from skdpgraph.edge_dp import pig_epsilon
    >>> round(pig_epsilon(0.027), 3)  # Muelle et al., synthetic graph
    4.291
    """
    s = _check_s_values(s)
    return _scalar_or_array(edge_flip_epsilon(s))


def pig_min_s(density):
    """PIG's choice of ``s``: ``s = 2d / (1 - 2d)`` (Muelle et al., Theorem 2).

    The smallest ``s`` for which the expected density of the perturbed graph
    is at least twice the original density ``d``:
    ``(1 - s) d + s/2 >= 2d``. It is at most 1 only for ``d <= 1/4``.

    Parameters
    ----------
    density : float or array-like in [0, 0.25]
        ``|E| / (|V| (|V| - 1) / 2)``. Computing it from a private graph
        spends privacy; it is treated here as public.

    Returns
    -------
    s : float or ndarray

    Examples
    --------
    >>> from skdpgraph.edge_dp import pig_min_s
    >>> round(pig_min_s(0.0129), 4)
    0.0265
    """
    d = _as_float_array(density, "density")
    if np.any((d < 0) | (d > 0.25)):
        raise ValueError(
            "density must be in [0, 0.25]: Theorem 2 of Muelle et al. gives s = 2d/(1-2d), "
            f"which exceeds 1 above d = 1/4; got {density!r}."
        )
    return _scalar_or_array(2.0 * d / (1.0 - 2.0 * d))


def pig_expected_edges(n_nodes, n_edges, s):
    """Expected number of edges after PIG's perturbation (Muelle et al., Theorem 3).

    ``E|E_P| = (1 - s/2) m + (n(n-1)/2 - m) s/2 = (1 - s) m + n (n - 1) s / 4``:
    each of the ``m`` edges survives with probability ``1 - s/2`` and each of
    the other pairs becomes an edge with probability ``s/2``.

    Parameters
    ----------
    n_nodes : int
        ``n`` (>= 2).
    n_edges : int
        ``m``, at most ``n (n - 1) / 2``.
    s : float or array-like in (0, 1]
        Randomisation probability.

    Returns
    -------
    expected_edges : float or ndarray

    Examples
    --------
    >>> from skdpgraph.edge_dp import pig_expected_edges
    >>> pig_expected_edges(4, 2, 0.5)
    2.5
    """
    n = check_int(n_nodes, "n_nodes", 2)
    m = check_int(n_edges, "n_edges", 0)
    if m > n * (n - 1) // 2:
        raise ValueError(f"n_edges={m} exceeds the {n * (n - 1) // 2} pairs of {n} nodes.")
    s = _check_s_values(s)
    return _scalar_or_array((1.0 - s) * m + n * (n - 1) * s / 4.0)


def pig_expected_density(density, s):
    """Expected density after PIG's perturbation (Muelle et al., Theorem 4).

    ``E d_P = (1 - s) d + s / 2``.

    Parameters
    ----------
    density : float or array-like in [0, 1]
        Density ``d`` of the original graph, ``|E| / (n (n - 1) / 2)``.
    s : float or array-like in (0, 1]
        Randomisation probability.

    Returns
    -------
    expected_density : float or ndarray

    Examples
    --------
    >>> from skdpgraph.edge_dp import pig_expected_density
    >>> round(pig_expected_density(0.1, 0.2), 6)
    0.18
    """
    d = _as_float_array(density, "density")
    if np.any((d < 0) | (d > 1)):
        raise ValueError(f"density must be in [0, 1]; got {density!r}.")
    s = _check_s_values(s)
    return _scalar_or_array((1.0 - s) * d + s / 2.0)


def check_s(s):
    """The edge-flip parameter ``s`` as a float in (0, 1] (``s = 0`` is no perturbation),
    whose half is exact (:func:`skdpgraph.privacy.halving_exactly`: a subnormal one is rounded
    up to the next double)."""
    return halving_exactly(check_real(s, "s (the randomisation probability)", low=0.0,
                                      high=1.0, low_open=True))


def pig_s_from_epsilon(epsilon):
    """Edge-flip parameter ``s = 2 / (1 + e^epsilon)`` giving ``epsilon``-edge-DP.

    The inverse of :func:`pig_epsilon`. The returned float is rounded up if needed so that
    ``pig_epsilon(s) <= epsilon`` holds in floating point: the mechanism
    never spends more than asked.

    Parameters
    ----------
    epsilon : float > 0
        Edge-DP privacy loss of the flipping.

    Returns
    -------
    s : float in (0, 1]
        1 where ``epsilon`` is so small that ``2 / (1 + e^epsilon)`` rounds
        to 1 (every bit a fair coin).

    Examples
    --------
    >>> from skdpgraph.edge_dp import pig_s_from_epsilon
    >>> round(pig_s_from_epsilon(1.0), 4)
    0.5379
    """
    return edge_flip_s(epsilon)


def suggest_s(density):
    """Smallest ``s`` whose perturbation doubles the expected density (Theorem 2).

    Muelle et al. choose ``s`` so that ``(1 - s) d + s/2 >= 2 d``, i.e.
    ``s >= 2 d / (1 - 2 d)``: then an edge of the perturbed graph is at least
    as likely to be fake as real. Valid for densities up to 25 % (``s = 1``).

    Computing ``density`` from the private graph leaks it (the edge count is
    itself private). Use a public density, or :func:`dp_density` and add its
    epsilon to the budget. Same formula as :func:`skdpgraph.edge_dp.pig_min_s`,
    which also accepts ``d = 0``; here a density of 0 is refused because
    ``s = 0`` is no perturbation.

    Parameters
    ----------
    density : float or array-like of float in (0, 0.25]
        Edge density ``|E| / (n (n - 1) / 2)``.

    Returns
    -------
    s : float or ndarray

    References
    ----------
    .. [1] Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph
       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015,
       Theorem 2.

    Examples
    --------
    >>> from skdpgraph.edge_dp import suggest_s
    >>> round(suggest_s(0.0108), 4)  # the Facebook ego network of the paper
    0.0221
    """
    d = np.asarray(density, dtype=np.float64)
    if not np.all((d > 0.0) & (d <= 0.25)):
        raise ValueError(
            "density must be in (0, 0.25] for Theorem 2 (at 25% it already "
            "gives s = 1; at 0 it gives s = 0, no perturbation at all); got "
            f"{density!r}."
        )
    return pig_min_s(d)


def graph_density(adjacency):
    """Edge density ``|E| / (n (n - 1) / 2)`` of a graph.

    The graph is anything :func:`skdpgraph.utils.check_adjacency` accepts.

    This is a function of the private topology: releasing it (or anything
    computed from it, such as ``suggest_s(graph_density(A))``) is not covered
    by the edge-flip guarantee. See :func:`dp_density`.

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        See :func:`skdpgraph.utils.check_adjacency`.

    Returns
    -------
    density : float in [0, 1]
    """
    A = check_adjacency(adjacency, what="adjacency")
    n = A.shape[0]
    return (A.nnz / 2) / (n * (n - 1) / 2)


@fill_doc
def dp_density(adjacency, epsilon, *, random_state=None):
    """Edge density released with the Laplace mechanism (``epsilon``-edge-DP).

    Neighbouring graphs differ in one edge, so the edge count has
    sensitivity 1: ``(|E| + Laplace(1/epsilon)) / (n (n - 1) / 2)``, clipped
    to ``[0, 1]`` (post-processing). Use it to pick ``s`` with
    :func:`suggest_s` when the density is not public; the total privacy loss
    is then ``epsilon + pig_epsilon(s)`` (sequential composition).

    Parameters
    ----------
    adjacency : array-like, sparse matrix or networkx.Graph
        See :func:`skdpgraph.utils.check_adjacency`.
    epsilon : float > 0
        Privacy budget of the release (edge-DP).
    {{random_state}}

    Returns
    -------
    density : float in [0, 1]
    """
    epsilon = check_epsilon(epsilon)
    A = check_adjacency(adjacency, what="adjacency")
    rng = check_random_state(random_state)
    n = A.shape[0]
    n_pairs = n * (n - 1) / 2
    # The edge count has sensitivity 1 (one edge more or less).
    noisy = float(release_laplace(np.array([A.nnz / 2]), 1.0, epsilon, rng)[0])
    return float(np.clip(noisy / n_pairs, 0.0, 1.0))
