"""Laplace-MST (Sealfon 2016): noise on every weight, then the exact MST."""

import scipy.sparse as sp

from ..privacy import (
    check_neighborhood,
    check_sensitivity,
    release_laplace,
    release_sensitivity,
    resolve_budget,
)
from ..utils import check_random_state, graph_edges
from ._base import as_graph, make_spanning_tree
from ._mst import edge_list_mst
from ..utils._docs import fill_doc


@fill_doc
def laplace_mst(graph, epsilon=None, *, sensitivity, neighborhood="l1", delta=None, rho=None,
                random_state=None, check_input=True):
    """Laplace-MST: noise on every weight, then the exact MST (Sealfon 2016).

    Adds i.i.d. Laplace noise to every edge weight and releases the minimum
    spanning tree of the noisy graph with its noisy weights (post-processing
    of the noisy graph). The noise scale is ``mu / epsilon`` under ``"l1"``
    neighbours and ``|E| mu / epsilon`` under ``"linf"`` (all ``|E|`` weights
    may move by ``mu`` at once), which makes the release ``epsilon``-DP.

    Parameters
    ----------
    {{graph}}
    epsilon : float
        Pure-DP budget (> 0).
    {{sensitivity}}
    neighborhood : {"l1", "linf"}, default="l1"
        ``"l1"``: Laplace scale ``mu / epsilon``. ``"linf"``: every one of the
        ``|E|`` weights can move by ``mu`` at once, so the scale is
        ``|E| mu / epsilon``.
    delta, rho : None
        Laplace-MST is calibrated by a pure ``epsilon`` only; these exist so
        that every tree mechanism has the same signature, and must be None.
    {{random_state}}
    {{check_input}}

    Returns
    -------
    SpanningTree
        The MST of the noisy graph; ``weights`` are the released noisy
        weights (they can be negative; normalise them with
        :func:`~skdpgraph.privacy.normalize_weights` before clustering). Its error should be
        measured with the true weights (thesis, Definition 3.2.1).

    Notes
    -----
    The noisy weights are released on a public grid with exact discrete
    Laplace noise (:func:`skdpgraph.privacy.release_laplace`), so the
    guarantee also holds in floating point. For a dense (complete) graph all
    ``n (n - 1) / 2`` noisy weights are drawn at once (one vector, half the
    size of the input) and Prim's algorithm reads them row by row.

    References
    ----------
    A. Sealfon, "Shortest paths and distances with differential privacy",
    PODS 2016. R. Pinot, master thesis, 2017, Section 3.2 and Theorem 3.2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.tree import laplace_mst
    >>> D = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)
    >>> laplace_mst(D, 1e6, sensitivity=1.0, random_state=0).edges.tolist()
    [[0, 1], [1, 2]]
    """
    epsilon, _ = resolve_budget(epsilon, delta, rho, pure_only=True, owner="laplace_mst")
    mu = check_sensitivity(sensitivity)
    check_neighborhood(neighborhood)
    graph = as_graph(graph, check_input)
    rng = check_random_state(random_state)
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    noisy = laplace_edge_noise(w, n_edges=w.size, sensitivity=mu, neighborhood=neighborhood,
                               epsilon=epsilon, random_state=rng)
    idx = edge_list_mst(u, v, noisy, n, dense=not sp.issparse(graph))
    return make_spanning_tree(u[idx], v[idx], noisy[idx], n, check_input=False)


def laplace_edge_noise(weights, *, n_edges, sensitivity, neighborhood, epsilon,
                       random_state, **_):
    """The noisy weights of Laplace-MST for some of a graph's ``n_edges`` edges.

    The calibration is that of releasing all ``n_edges`` weights at once
    (grid and scale of :func:`skdpgraph.privacy.release_laplace` for
    ``n_edges`` values); ``weights`` may be any part of them, so parts
    released separately with independent generators (the partitions of a
    distributed edge table) together make exactly the release of
    :func:`laplace_mst`. The noisy weights are released values: they are
    both the keys of the minimum spanning tree and the weights it returns.

    Parameters
    ----------
    weights : ndarray of shape (m,)
        True weights, already clipped into the public bounds.
    n_edges : int
        ``|E|`` of the whole graph (public), ``>= m``.
    sensitivity, neighborhood, epsilon
        As for :func:`laplace_mst`.
    random_state : numpy.random.Generator

    Returns
    -------
    ndarray of shape (m,)
    """
    return release_laplace(weights, release_sensitivity(n_edges, sensitivity, neighborhood),
                           epsilon, random_state, n_values=int(n_edges))
