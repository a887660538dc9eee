"""Weight-Release (UAI 2018, Definition 3.12): noisy weights for a released topology.

The calibration follows the neighbourhood the user chose
(:func:`skdpgraph.privacy.weight_release_noise`); the UAI paper's Theorem 11
uses the ``"l1"`` scale for its ``"linf"`` neighbourhood, which is not
``epsilon``-DP. The noise is drawn on a public grid
(:func:`skdpgraph.privacy.release_laplace`), so the released numbers are safe
in floating point.
"""

import numpy as np
import scipy.sparse as sp

from ..privacy import (
    check_weight_bounds,
    clip_to_bounds,
    data_weight_bounds,
    normalize_weights,
    release_gaussian,
    release_laplace,
    release_sensitivity,
    resolve_budget,
    warn_out_of_bounds,
    weight_release_noise,
)
from ..utils import check_random_state, edges_to_csr, weight_range
from ..utils._config import data_dependent_warnings
from ..utils._docs import fill_doc
from ._base import SpanningTree, check_tree


@fill_doc
def release_tree_weights(tree, epsilon=None, *, sensitivity, neighborhood="l1",
                         weight_bounds=None, random_state=None, mechanism="laplace",
                         delta=None, rho=None, normalize=True, check_input=True):
    """Weight-Release: the weights of a (public) spanning tree, with noise.

    Adds noise to the true weights of the tree's edges, calibrated to the
    neighbourhood (:func:`skdpgraph.privacy.weight_release_noise`), then normalises them with
    public bounds (post-processing). With ``mechanism="laplace"`` the release
    is ``epsilon``-DP; with ``"gaussian"`` it is ``rho``-zCDP (or
    ``(epsilon, delta)``-DP through the zCDP conversion).

    Parameters
    ----------
    tree : SpanningTree or sparse matrix
        The tree whose topology is already released (e.g. by :func:`~skdpgraph.tree.pamst`);
        its weights are the true, private ones.
    epsilon : float, default=None
        Budget of the release (see ``mechanism``).
    {{sensitivity}}
    neighborhood : {"l1", "linf"}, default="l1"
        ``"l1"``: Laplace scale ``mu / epsilon``. ``"linf"``: every one of the
        ``|V| - 1`` weights can move by ``mu`` at once, so the scale is
        ``(|V| - 1) mu / epsilon``. (The UAI paper's Theorem 11 uses
        ``mu / epsilon`` for its linf neighbourhood, which is not
        ``epsilon``-DP.)
    weight_bounds : (float, float), default=None
        Public bounds ``(low, high)`` on the true weights. Weights outside
        them are clipped in (with a warning). ``None``: computed from the
        tree's weights, with a :class:`~skdpgraph.exceptions.PrivacyLeakWarning`.
    {{random_state}}
    mechanism : {"laplace", "gaussian"}, default="laplace"
        Laplace noise (``epsilon``-DP) or Gaussian noise (``rho``-zCDP, or
        ``(epsilon, delta)``-DP through the zCDP conversion).
    delta : float, default=None
        Gaussian with ``epsilon``: the target delta.
    rho : float, default=None
        Gaussian: the zCDP budget (instead of ``epsilon`` and ``delta``).
    normalize : bool, default=True
        True: map into ``(0, 1]`` with :func:`~skdpgraph.privacy.normalize_weights` (clipped
        into the public bounds, divided by ``high``). False: clip the noisy
        weights into the bounds.
    check_input : bool, default=True
        Check ``tree`` with :func:`~skdpgraph.tree.check_tree`; pass False
        only for a :class:`~skdpgraph.tree.SpanningTree` built by the library.

    Returns
    -------
    SpanningTree
        Same topology; ``weights`` and ``tree`` hold the released weights.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import minimum_spanning_tree, release_tree_weights
    >>> D = np.array([[0, .2, .9], [.2, 0, .4], [.9, .4, 0]])
    >>> t = release_tree_weights(minimum_spanning_tree(D), 1e6, sensitivity=0.1,
    ...                          weight_bounds=(0.0, 1.0), random_state=0)
    >>> np.round(t.weights, 3).tolist()
    [0.2, 0.4]
    """
    tree = check_tree(tree) if check_input else tree
    n = tree.tree.shape[0]
    k = tree.weights.size
    # Validates the budget and the calibration before any private value is read.
    weight_release_noise(k, sensitivity, neighborhood, epsilon=epsilon, rho=rho,
                         delta=delta, mechanism=mechanism)
    if weight_bounds is None:
        bounds = data_weight_bounds(tree.weights)
    else:
        bounds = check_weight_bounds(weight_bounds)
    rng = check_random_state(random_state)
    w = clip_to_bounds(tree.weights, bounds)
    if mechanism == "laplace":
        noisy = _release(w, k, sensitivity, neighborhood, epsilon, None, rng)
    else:
        noisy = _release(w, k, sensitivity, neighborhood, None,
                         resolve_budget(epsilon, delta, rho)[1], rng)
    released = normalize_weights(noisy, bounds) if normalize else np.clip(noisy, *bounds)
    e = tree.edges
    return SpanningTree(edges_to_csr(e[:, 0], e[:, 1], released, n), e.copy(), released)


def check_weight_release(n_weights, *, sensitivity, neighborhood="l1", epsilon=None,
                         rho=None):
    """Raise if Weight-Release of ``n_weights`` values cannot be made at this budget.

    The release of one public value (0) on the grid and noise scale of
    ``n_weights`` values, with a throwaway generator (it reads no weight), checks
    that the grid lies in the supported range and that the noise scale and the
    rounding fit, so that a caller can refuse before it charges anything.
    ``epsilon``: the Laplace release; ``rho``: the Gaussian one.
    """
    # Public draws on a public value: nothing released.
    _release(np.zeros(1), n_weights, sensitivity, neighborhood, epsilon, rho,
             np.random.default_rng(0))


def _release(values, k, sensitivity, neighborhood, epsilon, rho, rng):
    """``values`` released on the grid and noise of ``k`` weights: Laplace at
    ``epsilon``, or Gaussian at ``rho`` when it is given."""
    if rho is not None:
        return release_gaussian(values, release_sensitivity(k, sensitivity, neighborhood,
                                                            norm="l2"),
                                rho, rng, n_values=k)
    return release_laplace(values, release_sensitivity(k, sensitivity, neighborhood),
                           epsilon, rng, n_values=k)


def clip_graph_weights(graph, bounds):
    """The canonical graph with its weights clipped into public bounds (a copy if needed).

    Clipping is 1-Lipschitz in every weight, so the guarantee is unchanged;
    the :class:`~skdpgraph.exceptions.DataDependentWarning` that some weight
    lay outside is emitted by :func:`skdpgraph.privacy.warn_out_of_bounds`
    (when those diagnostics are on).
    """
    lo, hi = bounds
    wmin, wmax = weight_range(graph)
    if lo <= wmin and wmax <= hi:
        return graph
    diagnose = data_dependent_warnings()
    if sp.issparse(graph):
        data = graph.data
        if diagnose:
            count = int(np.count_nonzero((data < lo) | (data > hi))) // 2
        out = graph.copy()
        out.data = np.clip(data, lo, hi)  # explicit zeros stay stored
    else:
        n = graph.shape[0]
        if diagnose:
            diag = n if lo > 0 else 0  # the diagonal holds 0s that are not edges
            count = (int(np.count_nonzero(graph < lo)) - diag
                     + int(np.count_nonzero(graph > hi))) // 2
        out = np.clip(graph, lo, hi)
        np.fill_diagonal(out, 0.0)
    if diagnose:
        warn_out_of_bounds(count, bounds)
    return out
