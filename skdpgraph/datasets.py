"""Synthetic graphs of the papers' experiments ([1]_, [2]_, [3]_, [4]_).

Every generator returns a :class:`sklearn.utils.Bunch` with

* ``graph``: the canonical sparse graph (:class:`scipy.sparse.csr_array`,
  symmetric, no diagonal, weights are distances; see
  :func:`skdpgraph.check_graph`),
* ``labels``: the true cluster of each node (``None`` when the model has no
  clusters),
* ``positions``: ``(n, 2)`` coordinates for plotting when the data has
  coordinates, else ``None``,

plus generator-specific fields. ``random_state=None`` draws fresh OS
entropy; an int or a :class:`numpy.random.Generator` makes the output
reproducible.

References
----------
.. [1] R. Pinot, A. Morvan, F. Yger, C. Gouy-Pailler, J. Atif, "Graph-based
   Clustering under Differential Privacy", UAI 2018, Section 4.
.. [2] R. Pinot, "Minimum spanning tree release under differential privacy
   constraints", master thesis, 2017, Section 3.6 and Table 3.1.
.. [3] Y. Muelle, C. Clifton, K. Boehm, "Privacy-Integrated Graph Clustering
   Through Differential Privacy", EDBT/ICDT Workshops, 2015, Section 6.
.. [4] A. Lancichinetti, S. Fortunato, F. Radicchi, "Benchmark graphs for
   testing community detection algorithms", Phys. Rev. E 78, 2008.
"""

import warnings

import numpy as np
from scipy.sparse.csgraph import connected_components
from sklearn.datasets import make_circles, make_moons
from sklearn.utils import Bunch

from .exceptions import DisconnectedGraphWarning
from .graphs import HomogeneousGraph
from .utils import (
    check_int,
    check_random_state,
    check_real,
    edges_to_csr,
    from_networkx,
)
from .utils._sparse import MAX_PAIR_NODES, pair_from_index
from .utils._validation import check_distance_range

__all__ = [
    "make_homogeneous_moons",
    "make_homogeneous_circles",
    "make_weighted_erdos_renyi",
    "make_lfr_graph",
]


def _seed(rng):
    """A 32-bit seed for generators that take a legacy seed (sklearn, networkx)."""
    return int(rng.integers(0, 2**32 - 1))


# ---------------------------------------------------------------------------
# the UAI paper's homogeneous moons and circles
# ---------------------------------------------------------------------------

def _clusters_connected(graph, labels):
    """Whether every cluster induces a connected subgraph (and the graph too)."""
    if connected_components(graph, directed=False)[0] != 1:
        return False
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        sub = graph[idx][:, idx]
        if connected_components(sub, directed=False)[0] != 1:
            return False
    return True


def _homogeneous(sampler, n_samples, w_min, w_max, max_tries, random_state, name):
    n_samples = check_int(n_samples, "n_samples", 4)
    w_min = check_real(w_min, "w_min", low=0.0, high=1.0, low_open=True)
    w_max = check_real(w_max, "w_max", low=0.0, high=1.0, low_open=True)
    if not w_min < w_max:
        raise ValueError(f"w_min must be smaller than w_max; got w_min={w_min}, w_max={w_max}.")
    max_tries = check_int(max_tries, "max_tries", 1)
    rng = check_random_state(random_state)
    for attempt in range(1, max_tries + 1):
        X, y = sampler(_seed(rng))
        builder = HomogeneousGraph(w_min=w_min, w_max=w_max)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisconnectedGraphWarning)
            graph = builder.fit_transform(X, y)
        if _clusters_connected(graph, y):
            return Bunch(graph=graph, labels=y.astype(np.int64), positions=X,
                         scale=builder.scale_, n_tries=attempt)
    raise RuntimeError(
        f"{name}: no sample out of {max_tries} gave a graph in which every cluster is "
        "connected; lower the noise, raise n_samples or widen [w_min, w_max]."
    )


def make_homogeneous_moons(n_samples=100, *, noise=0.05, w_min=0.1, w_max=0.3,
                           max_tries=100, random_state=None):
    """Two noisy moons as a strongly homogeneous graph (UAI 2018, Section 4).

    Points from :func:`sklearn.datasets.make_moons`; the graph is the
    complete graph of Euclidean distances trimmed by
    :class:`~skdpgraph.graphs.HomogeneousGraph` with the true labels: edges
    inside a moon are kept when their length is in ``[w_min, w_max]``, edges
    between the moons when it exceeds ``w_max ** 2 / w_min``; the kept
    weights are divided by the largest one, into ``(0, 1]``. Both moons are
    then strongly homogeneous clusters (Definition 3.11).

    The point cloud is redrawn (from the same random generator) until each
    moon induces a connected subgraph, at most ``max_tries`` times (with the
    defaults about 1% of the draws are redrawn). The paper's graphs are
    connected, and a cluster that is not connected cannot be recovered by
    any tree clustering. Few points rarely connect a moon with edges in
    ``[w_min, w_max]``: with the defaults (measured over seeds 0-9), 30
    points succeeded for 2 seeds of 10, 20 or fewer for none (a
    ``RuntimeError``), 50 and more for all.

    Parameters
    ----------
    n_samples : int, default=100
        Number of nodes (the paper uses 100).
    noise : float, default=0.05
        Standard deviation of the Gaussian noise on the points (the paper
        says "noisy"; it does not give the value).
    w_min, w_max : float in (0, 1], default=0.1, 0.3
        The paper's values.
    max_tries : int, default=100
        Most draws of the point cloud before a ``RuntimeError``.
    random_state : None, int or numpy.random.Generator, default=None
        ``None``: fresh OS entropy; an int or a generator makes the output
        reproducible.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``graph`` (csr_array (n, n)), ``labels`` (int64 (n,)), ``positions``
        ((n, 2) coordinates), ``scale`` (the divisor of the distances) and
        ``n_tries`` (draws used).

    Examples
    --------
    >>> from skdpgraph.datasets import make_homogeneous_moons
    >>> data = make_homogeneous_moons(random_state=0)
    >>> data.graph.shape, data.labels.shape, data.positions.shape
    ((100, 100), (100,), (100, 2))
    >>> float(data.graph.max()) <= 1.0
    True
    """
    noise = check_real(noise, "noise", low=0.0)

    def sampler(seed):
        return make_moons(n_samples, noise=noise, random_state=seed)

    return _homogeneous(sampler, n_samples, w_min, w_max, max_tries, random_state,
                        "make_homogeneous_moons")


def make_homogeneous_circles(n_samples=100, *, noise=0.05, factor=0.5, w_min=0.1,
                             w_max=0.3, max_tries=100, random_state=None):
    """Two noisy concentric circles as a strongly homogeneous graph.

    As :func:`make_homogeneous_moons`, with the points of
    :func:`sklearn.datasets.make_circles` (UAI 2018, Section 4, Figure 1).
    With the defaults about 10% of the draws are redrawn because a circle
    is not connected; the circles are longer than the moons, so they need
    more points: 50 or fewer failed for every seed 0-9 (a ``RuntimeError``),
    100 succeeded for all.

    Parameters
    ----------
    n_samples : int, default=100
        Number of nodes.
    noise : float, default=0.05
        Standard deviation of the Gaussian noise on the points.
    factor : float in (0, 1), default=0.5
        Radius of the inner circle relative to the outer one.
    w_min, w_max : float in (0, 1], default=0.1, 0.3
        Lengths kept inside a circle, as in :func:`make_homogeneous_moons`.
    max_tries : int, default=100
        Most draws of the point cloud before a ``RuntimeError``.
    random_state : None, int or numpy.random.Generator, default=None
        ``None``: fresh OS entropy; an int or a generator makes the output
        reproducible.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``graph``, ``labels``, ``positions``, ``scale``, ``n_tries``.

    Examples
    --------
    >>> from skdpgraph.datasets import make_homogeneous_circles
    >>> data = make_homogeneous_circles(random_state=0)
    >>> sorted(set(data.labels.tolist()))
    [0, 1]
    """
    noise = check_real(noise, "noise", low=0.0)
    factor = check_real(factor, "factor", low=0.0, high=1.0, low_open=True, high_open=True)

    def sampler(seed):
        return make_circles(n_samples, noise=noise, factor=factor, random_state=seed)

    return _homogeneous(sampler, n_samples, w_min, w_max, max_tries, random_state,
                        "make_homogeneous_circles")


# ---------------------------------------------------------------------------
# weighted Erdos-Renyi graphs (thesis, Table 3.1)
# ---------------------------------------------------------------------------

#: Up to this many pairs, draw one uniform per pair (fast, O(pairs) memory).
_DENSE_PAIRS = 1 << 22


def _sample_er(n, p, lo, hi, rng):
    n_pairs = n * (n - 1) // 2
    if n_pairs <= _DENSE_PAIRS:
        k = np.flatnonzero(rng.random(n_pairs) < p)
    else:
        m = int(rng.binomial(n_pairs, p))
        k = np.sort(rng.choice(n_pairs, size=m, replace=False))
    u, v = pair_from_index(k.astype(np.int64), n)
    w = rng.uniform(lo, hi, size=k.size)
    return edges_to_csr(u, v, w, n)


def make_weighted_erdos_renyi(n_nodes, p, *, weight_range=(0.0, 10.0), ensure_connected=True,
                              max_tries=100, random_state=None):
    """Erdos-Renyi graph ``G(n, p)`` with i.i.d. uniform weights.

    Each of the ``n (n - 1) / 2`` pairs is an edge with probability ``p``,
    independently, and each edge gets a weight drawn from
    ``U(weight_range)``: the graphs of the thesis's Table 3.1
    (``weight_range=(0, 10)``).

    Parameters
    ----------
    n_nodes : int in [2, 2**31]
        Number of nodes ``n``.
    p : float in [0, 1]
        Probability that a pair is an edge.
    weight_range : (float, float), default=(0.0, 10.0)
        ``(low, high)``, ``0 <= low < high``; weights are distances.
    ensure_connected : bool, default=True
        Spanning trees (and Table 3.1's error) need a connected graph. When
        True the graph is redrawn until it is connected, at most
        ``max_tries`` times, then a ``RuntimeError`` is raised: the output
        then follows ``G(n, p)`` *conditioned on connectivity* (for the
        thesis's sizes, n in the hundreds and ``p >= 0.1``, a disconnected
        draw has probability below ``n (1 - p)^(n - 1)``, negligible). When
        False the first draw is returned as is, possibly disconnected; the
        library's spanning-tree functions then return spanning forests.
    max_tries : int, default=100
        Most draws with ``ensure_connected=True``.
    random_state : None, int or numpy.random.Generator, default=None
        ``None``: fresh OS entropy; an int or a generator makes the output
        reproducible.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``graph`` (csr_array (n, n)), ``labels`` (``None``: the model has no
        clusters), ``positions`` (``None``), ``n_components`` and ``n_tries``.

    Examples
    --------
    >>> from skdpgraph.datasets import make_weighted_erdos_renyi
    >>> data = make_weighted_erdos_renyi(50, 0.3, random_state=0)
    >>> data.graph.shape, data.n_components
    ((50, 50), 1)
    """
    n = check_int(n_nodes, "n_nodes", 2, MAX_PAIR_NODES)  # pairs numbered in int64
    p = check_real(p, "p", low=0.0, high=1.0)
    lo, hi = check_distance_range(weight_range, "weight_range")
    max_tries = check_int(max_tries, "max_tries", 1)
    rng = check_random_state(random_state)
    for attempt in range(1, max_tries + 1):
        graph = _sample_er(n, p, lo, hi, rng)
        n_comp = int(connected_components(graph, directed=False)[0])
        if n_comp == 1 or not ensure_connected:
            return Bunch(graph=graph, labels=None, positions=None, n_components=n_comp,
                         n_tries=attempt)
    raise RuntimeError(
        f"make_weighted_erdos_renyi: {max_tries} draws of G({n}, {p}) were all "
        "disconnected; raise p (connectivity needs p well above ln(n)/n) or pass "
        "ensure_connected=False."
    )


# ---------------------------------------------------------------------------
# LFR benchmark (Muelle et al.'s synthetic graphs)
# ---------------------------------------------------------------------------

def make_lfr_graph(n_nodes=506, *, tau1=2.5, tau2=1.5, mu=0.1, average_degree=None,
                   min_degree=3, max_degree=25, min_community=5, max_community=35,
                   max_iters=500, max_tries=20, random_state=None):
    """LFR benchmark graph with planted communities (networkx's generator).

    Muelle et al. evaluate PIG on synthetic graphs of 506 nodes whose degrees
    and community sizes both follow power laws [4], with 40 communities and
    densities from 1% to 2.5% (1.29% for their main graph). They do not give
    the exponents or the mixing parameter; the defaults (degree exponent
    2.5, community-size exponent 1.5, each node with 10% of its edges
    outside its community, degrees 3..25, communities of 5..35 nodes) give
    about 40 communities and a density of about 1.25%.

    networkx's generator can fail to converge
    (:class:`networkx.ExceededMaxIterations`). Seeds policy: attempt ``k``
    uses a 32-bit seed drawn from ``random_state``'s generator; on
    non-convergence the next seed is drawn, at most ``max_tries`` attempts,
    then a ``RuntimeError`` is raised. The output is thus a deterministic
    function of ``random_state``, and ``seed`` records the seed that
    succeeded (``networkx.LFR_benchmark_graph(..., seed=seed)`` reproduces
    the graph, with its self-loops, which ``graph`` leaves out: about 8% of
    networkx's edges with the defaults, so the degrees realised are a little
    below those of networkx's graph).

    Parameters
    ----------
    n_nodes : int, default=506
        Number of nodes (Muelle et al.'s graphs have 506).
    tau1 : float > 1, default=2.5
        Power-law exponent of the degrees.
    tau2 : float > 1, default=1.5
        Power-law exponent of the community sizes.
    mu : float in [0, 1], default=0.1
        Fraction of each node's edges that leave its community.
    average_degree : float in [1, max_degree], default=None
        Give either ``average_degree`` or ``min_degree`` (networkx's rule);
        when ``average_degree`` is given, ``min_degree`` is ignored.
    min_degree, max_degree : int, default=3, 25
        Smallest and largest degree.
    min_community, max_community : int, default=5, 35
        Smallest and largest community size.
    max_iters : int, default=500
        networkx's iteration limit per attempt.
    max_tries : int, default=20
        Most attempts (seeds) before a ``RuntimeError``.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the attempts' seeds; ``None``: fresh OS entropy.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``graph`` (csr_array (n, n), unweighted: every edge has weight 1.0),
        ``labels`` (community of each node, numbered by smallest node),
        ``positions`` (``None``), ``seed`` and ``n_tries``. The graph may be
        disconnected (LFR does not guarantee connectivity).

    Examples
    --------
    >>> from skdpgraph.datasets import make_lfr_graph
    >>> data = make_lfr_graph(random_state=0)
    >>> data.graph.shape
    (506, 506)
    """
    import networkx as nx

    n = check_int(n_nodes, "n_nodes", 2)
    tau1 = check_real(tau1, "tau1", low=1.0, low_open=True)
    tau2 = check_real(tau2, "tau2", low=1.0, low_open=True)
    mu = check_real(mu, "mu", low=0.0, high=1.0)
    max_tries = check_int(max_tries, "max_tries", 1)
    max_degree = check_int(max_degree, "max_degree", 1, n - 1)
    if average_degree is not None:
        # Degrees are integers from 1 to max_degree: so is their mean.
        average_degree = check_real(average_degree, "average_degree", low=1.0,
                                    high=max_degree)
        min_degree = None
    else:
        min_degree = check_int(min_degree, "min_degree", 1, max_degree)
    max_community = check_int(max_community, "max_community", 1, n)
    min_community = check_int(min_community, "min_community", 1, max_community)
    # networkx puts a node of degree d in a community of more than round((1 - mu) d)
    # nodes; where even the smallest degree fits none, every attempt would fail.
    inside = round((1.0 - mu) * (1 if min_degree is None else min_degree))
    if inside >= max_community:
        raise ValueError(
            f"no node fits in a community: a node of degree {min_degree or 1} has "
            f"{inside} neighbours in its community (mu={mu}), which then needs more than "
            f"{inside} nodes, but max_community={max_community}. Raise max_community or "
            "mu, or lower min_degree.")
    max_iters = check_int(max_iters, "max_iters", 1)
    rng = check_random_state(random_state)
    last = None
    for attempt in range(1, max_tries + 1):
        seed = _seed(rng)
        try:
            G = nx.LFR_benchmark_graph(
                n, tau1, tau2, mu, average_degree=average_degree, min_degree=min_degree,
                max_degree=max_degree, min_community=min_community,
                max_community=max_community, max_iters=max_iters, seed=seed,
            )
        except nx.ExceededMaxIterations as exc:
            last = exc
            continue
        except nx.NetworkXError as exc:
            raise ValueError(f"networkx rejected the LFR parameters: {exc}") from None
        nodes = list(range(n))
        graph = from_networkx(G, weight=None, nodelist=nodes)
        # Every node belongs to exactly one community (a set of nodes).
        first = np.array([min(G.nodes[v]["community"]) for v in nodes])
        _, labels = np.unique(first, return_inverse=True)
        return Bunch(graph=graph, labels=labels.astype(np.int64), positions=None,
                     seed=seed, n_tries=attempt)
    raise RuntimeError(
        f"make_lfr_graph: networkx's LFR generator did not converge in {max_tries} "
        f"attempts (last error: {last}); relax the degree or community-size bounds."
    )
