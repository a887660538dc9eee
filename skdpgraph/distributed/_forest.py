"""The exact minimum spanning forest of an edge table, by a tree reduction of forests.

Why it is exact: with every edge ordered by ``(key, u, v)`` (a strict total
order, ``u < v`` the global node numbers) the minimum spanning forest is
unique, and an edge that is not in the minimum spanning forest of some
subgraph holding it is not in the forest of the whole graph (it is the
largest edge of a cycle of that subgraph: the cycle property). So each
partition keeps only its own forest, and forests are merged, ``split_every``
at a time, by taking the forest of their union, until one is left: that is
the forest of the whole table, whatever the partitioning.

Every forest holds at most ``n - 1`` edges, so a merge never holds more
than ``split_every (n - 1)`` edges; partitions with locality (nodes whose
edges fall in one partition) shrink to about one edge per node at once.
"""

import hashlib
import math
import warnings
from typing import NamedTuple, Optional

import numpy as np

from ..privacy import warn_out_of_bounds
from ..tree import make_spanning_tree
from ..utils import check_random_state, keyed_generator
from ..utils._config import check_work_memory, data_dependent_warnings
from ..utils._docs import fill_doc
from ..utils._validation import check_int, check_weight_values
from ._table import (_ends, as_edge_table, compute, node_index, pair_words,
                     pairs_fingerprint)


class EdgeForest(NamedTuple):
    """A spanning forest of part of an edge table, sorted by ``(key, lo, hi)``.

    Attributes
    ----------
    lo : ndarray of int
        Node number of the smaller end of each edge.
    hi : ndarray of int
        Node number of the larger end, ``lo < hi``.
    key : ndarray of float64
        The order of the edges (noisy weight, or the weight).
    weight : ndarray of float64 or None
        The edges' true weights when they travel with the keys.
    low : float
        Smallest weight read (before clipping), over the partitions merged
        so far; ``inf`` where data-dependent warnings are off (not
        computed).
    high : float
        Largest weight read (before clipping), over the same; ``-inf`` where
        data-dependent warnings are off.
    n_clipped : int
        Weights that were clipped into the bounds (0 where data-dependent
        warnings are off).
    sizes : tuple of (level, rows)
        The number of edges each task of the reduction returned, by level
        (0: the partitions' own forests).
    n_rows : int
        Edges read (rows whose ends differ), over the partitions merged so far.
    fingerprint : int
        Their pairs' hash (:attr:`TableTopology.fingerprint`), over the same.
    """

    lo: np.ndarray
    hi: np.ndarray
    key: np.ndarray
    weight: Optional[np.ndarray]
    low: float
    high: float
    n_clipped: int
    sizes: tuple
    n_rows: int = 0
    fingerprint: int = 0


class ForestReport(NamedTuple):
    """How the distributed forest was computed: public sizes only.

    Attributes
    ----------
    n_partitions : int
        Partitions of the table (the tasks of level 0).
    split_every : int
        Forests merged by each task of the reduction.
    rounds : int
        Levels of the reduction above the partitions (merges in sequence).
    edges_in : list of int
        Edges read by each level: the table's ``|E|`` for level 0, then the
        edges of the forests sent to the merges of each round.
    bytes_moved : list of int
        Bytes of the forests sent to the merges of each round (an upper
        bound on what crosses the network: a merge may run where its input
        is).
    passes : int
        Passes over the table (2 when the input perturbation's calibration
        needed the number of components, which the first pass counted).
    """

    n_partitions: int
    split_every: int
    rounds: int
    edges_in: list
    bytes_moved: list
    passes: int = 1


def _id_dtype(n):
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


def _order(key, lo, hi, runs=False):
    """Positions sorted by ``(key, lo, hi)``; ``runs``: the input is sorted runs."""
    order = np.argsort(key, kind="stable" if runs else None)
    sk = key[order]
    eq = sk[1:] == sk[:-1]
    if eq.any():
        # Ties (rare with continuous noise): the tied positions in (key, lo, hi)
        # order. Sorting them together keeps each run of equal keys in place.
        tied = np.zeros(key.size, dtype=bool)
        tied[1:] |= eq
        tied[:-1] |= eq
        at = np.flatnonzero(tied)
        sub = order[at]
        order[at] = sub[np.lexsort((hi[sub], lo[sub], sk[at]))]
    return order


def _forest(lo, hi, key, weight, n_nodes, runs=False):
    """The minimum spanning forest of an edge list, sorted by ``(key, lo, hi)``."""
    import pandas as pd

    from ..utils._sparse_kernels import kruskal_keep

    m = lo.size
    if m == 0:
        return lo, hi, key, weight
    order = _order(key, lo, hi, runs)
    lo, hi, key = lo[order], hi[order], key[order]
    weight = None if weight is None else weight[order]
    if n_nodes <= 8 * m:
        # Few nodes for the edges: union-find over the node numbers themselves.
        keep = kruskal_keep(lo, hi, np.arange(n_nodes, dtype=lo.dtype), 0)[0]
    else:
        codes, uniques = pd.factorize(np.concatenate([lo, hi]))
        codes = codes.astype(lo.dtype, copy=False)
        keep = kruskal_keep(codes[:m], codes[m:], np.arange(len(uniques), dtype=codes.dtype),
                            0)[0]
    return lo[keep], hi[keep], key[keep], None if weight is None else weight[keep]


class _Spec(NamedTuple):
    """What a partition task needs (shipped in the task graph; no private value)."""

    source: str
    target: str
    weight: str
    n_nodes: int
    node_ids: Optional[object]
    bounds: Optional[tuple]
    edge_noise: Optional[object]
    noise_kwargs: dict
    keep_weights: bool
    n_edges: int  # the counted |E|: no partition holds more
    diagnostics: bool  # the client's data_dependent_warnings()
    topology_only: bool = False  # keys from the pairs: a forest of the topology alone


def _changed(what):
    return ValueError(f"the edge table changed since its topology was counted ({what}); "
                      "make a new EdgeTable of the changed source. Nothing was released.")


def _partition_forest(part, spec, key):
    """Level 0: the forest of one partition (its noise drawn with its own key).

    Its rows are checked against the counted topology before anything is
    drawn: node numbers in range, at most ``|E|`` edges (their number and
    fingerprint go back for the client's check of the whole table).
    """
    u, v = _ends(part, spec.source, spec.target)  # refuses missing ends
    w = part[spec.weight].to_numpy(dtype=np.float64, copy=True, na_value=np.nan)
    if spec.node_ids is not None:
        u, v = node_index(u, spec.node_ids), node_index(v, spec.node_ids)
    elif u.dtype.kind not in "iu" or v.dtype.kind not in "iu":
        raise _changed(f"node ids of dtype {u.dtype} / {v.dtype}, counted as integers")
    elif u.size and not (min(u.min(), v.min()) >= 0 and max(u.max(), v.max()) < spec.n_nodes):
        raise _changed(f"a node id outside 0..{spec.n_nodes - 1}")
    keep = u != v
    u, v, w = u[keep], v[keep], w[keep]
    if u.size > spec.n_edges:
        raise _changed(f"a partition holds {u.size} edges, the table held {spec.n_edges}")
    dtype = _id_dtype(spec.n_nodes)
    lo = np.minimum(u, v).astype(dtype, copy=False)
    hi = np.maximum(u, v).astype(dtype, copy=False)
    fingerprint = pairs_fingerprint(pair_words(lo, hi))
    check_weight_values(w, f"the edge table's column {spec.weight!r}")  # a changed source
    # What the data-dependent warnings read, computed only where the client has them on.
    low, high, n_clipped = math.inf, -math.inf, 0
    if spec.diagnostics and w.size:
        low, high = float(w.min()), float(w.max())
        if spec.bounds is not None:
            n_clipped = int(np.count_nonzero((w < spec.bounds[0]) | (w > spec.bounds[1])))
    if spec.bounds is not None:
        np.clip(w, *spec.bounds, out=w)
    if spec.topology_only:
        # Any order gives a forest of |V| - components edges; the pair's number
        # is one without ties (below 2**53: n < 9.4e7; past it, ties are sorted
        # apart by the pairs anyway).
        k = lo.astype(np.float64) * spec.n_nodes + hi
    elif spec.edge_noise is None:
        k = w
    else:
        k = np.asarray(spec.edge_noise(w, random_state=keyed_generator(key),
                                       **spec.noise_kwargs), dtype=np.float64)
    n_rows = lo.size
    lo, hi, k, w = _forest(lo, hi, k, w if spec.keep_weights else None, spec.n_nodes)
    return EdgeForest(lo, hi, k, w, low, high, n_clipped, ((0, lo.size),), n_rows, fingerprint)


def _merge(level, n_nodes, *forests):
    """A merge of the reduction: the forest of the union of ``forests``."""
    def cat(field):
        return np.concatenate([getattr(f, field) for f in forests])

    weight = None if forests[0].weight is None else cat("weight")
    lo, hi, key, weight = _forest(cat("lo"), cat("hi"), cat("key"), weight, n_nodes, runs=True)
    sizes = sum((f.sizes for f in forests), ()) + ((level, lo.size),)
    return EdgeForest(lo, hi, key, weight, min(f.low for f in forests),
                      max(f.high for f in forests), sum(f.n_clipped for f in forests), sizes,
                      sum(f.n_rows for f in forests),
                      sum(f.fingerprint for f in forests) % 2**64)


def partition_keys(random_state, n_partitions):
    """One secret 32-byte key per partition, derived from one secret seed.

    The seed is 256 bits drawn from ``random_state``
    (:func:`skdpgraph.utils.check_random_state`: a fresh cryptographically
    secure generator for ``None``); the key of partition ``i`` is
    BLAKE2b(seed, ``i``) keyed by the seed, so keys are distinct and
    independent (a pseudo-random function of the index), and no two
    partitions share a stream. Each partition task gets its own key only; a
    task that is run again (after a worker is lost) draws the same noise.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        Source of the seed (:func:`skdpgraph.utils.check_random_state`).
    n_partitions : int
        Number of keys.

    Returns
    -------
    list of bytes
        ``n_partitions`` keys of 32 bytes, for
        :func:`skdpgraph.utils.keyed_generator`.
    """
    n_partitions = check_int(n_partitions, "n_partitions", 0)
    check_work_memory(100.0 * n_partitions, f"A list of {n_partitions} partition keys")
    rng = check_random_state(random_state)
    seed = rng.bit_generator.random_raw(4).astype("<u8").tobytes()
    return [hashlib.blake2b(i.to_bytes(8, "little"), key=seed, digest_size=32).digest()
            for i in range(n_partitions)]


def _reduce(table, topology, spec, keys, split_every, verbose, what):
    from dask import delayed

    n_nodes = spec.n_nodes
    parts = table.frame.to_delayed()
    spec = delayed(spec, pure=True, traverse=False)  # one key, shared by the tasks
    level = [delayed(_partition_forest, pure=True)(p, spec, k) for p, k in zip(parts, keys)]
    depth = 0
    while len(level) > 1:
        depth += 1
        level = [delayed(_merge, pure=True)(depth, n_nodes, *level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    forest = compute(level, verbose, what)[0]
    if forest.n_rows != topology.n_edges or forest.fingerprint != topology.fingerprint:
        raise _changed(f"{forest.n_rows} edges read, {topology.n_edges} counted"
                       if forest.n_rows != topology.n_edges else "other pairs")
    return forest


def _report(forest, n_parts, split_every, n_edges, row_bytes, passes):
    levels = max(level for level, _ in forest.sizes)
    edges_in = [n_edges]
    for level in range(1, levels + 1):
        edges_in.append(sum(rows for lvl, rows in forest.sizes if lvl == level - 1))
    return ForestReport(n_parts, split_every, levels, edges_in,
                        [rows * row_bytes for rows in edges_in[1:]], passes)


def _check_split_every(split_every):
    if isinstance(split_every, bool) or not isinstance(split_every, (int, np.integer)) \
            or split_every < 2:
        raise ValueError(f"split_every must be an int >= 2; got {split_every!r}.")
    return int(split_every)


def _noiseless_forest(table, split_every, verbose, topology_only, what):
    """The table's topology and the forest of its true weights (or of its pairs alone)."""
    table = as_edge_table(table)
    split_every = _check_split_every(split_every)
    topo = table.topology(verbose)
    spec = _Spec(table.source, table.target, table.weight, topo.n_nodes, topo.node_ids, None,
                 None, {}, False, topo.n_edges, False, topology_only)
    return topo, _reduce(table, topo, spec, [None] * topo.n_partitions, split_every, verbose,
                         what)


@fill_doc
def table_spanning_forest(table, *, split_every=4, verbose=0, return_report=False):
    """The exact minimum spanning forest of a distributed edge table.

    Not private: the forest of the table's true weights (what
    :class:`skdpgraph.cluster.DBMSTClu` cuts). Each partition's forest is
    computed where the partition is, and the forests are merged by a tree
    reduction; only the forest (``n - components`` edges) comes back.

    Parameters
    ----------
    {{edge_table}}
    {{split_every}}
    {{dask_verbose}}
    return_report : bool, default=False
        Also return the :class:`ForestReport`.

    Returns
    -------
    SpanningTree
        Ties between equal weights are broken by the node numbers
        ``(u, v)``, ``u < v``, so the forest does not depend on the
        partitioning.
    report : ForestReport
        Only with ``return_report=True``.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from skdpgraph.distributed import table_spanning_forest
    >>> edges = pd.DataFrame({"u": [0, 1, 0], "v": [1, 2, 2], "weight": [1.0, 2.0, 3.0]})
    >>> table_spanning_forest(dd.from_pandas(edges, npartitions=2)).edges.tolist()
    [[0, 1], [1, 2]]
    """
    topo, forest = _noiseless_forest(table, split_every, verbose, False,
                                     "minimum spanning forest")
    tree = make_spanning_tree(forest.lo, forest.hi, forest.key, topo.n_nodes, check_input=False)
    if not return_report:
        return tree
    row_bytes = 2 * forest.lo.itemsize + 8
    return tree, _report(forest, topo.n_partitions, split_every, topo.n_edges, row_bytes, 1)


@fill_doc
def table_components(table, *, split_every=4, verbose=0):
    """Number of connected components of a distributed edge table's graph.

    Public (the topology is): a spanning forest of the pairs alone, by the
    reduction of :func:`table_spanning_forest` with keys computed from the
    pairs, has ``|V| - components`` edges; no weight enters it. One pass
    over the table.

    Parameters
    ----------
    {{edge_table}}
    {{split_every}}
    {{dask_verbose}}

    Returns
    -------
    int

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from skdpgraph.distributed import EdgeTable, table_components
    >>> edges = pd.DataFrame({"u": [0, 2], "v": [1, 3], "weight": [1.0, 2.0]})
    >>> table_components(EdgeTable(dd.from_pandas(edges, npartitions=2), nodes=5))
    3
    """
    topo, forest = _noiseless_forest(table, split_every, verbose, True, "connected components")
    return topo.n_nodes - int(forest.lo.size)


class TableRelease(NamedTuple):
    """A tree released from an edge table, before its weights are finished.

    Attributes
    ----------
    tree : SpanningTree
        The released topology with the mechanism's weights: released noisy
        weights (a mechanism that releases them) or the true weights
        (clipped into the bounds) for the Weight-Release that follows.
    low : float
        Smallest weight of the table (private: for the curator's warnings
        only, never part of the release; ``inf`` where data-dependent
        warnings are off).
    high : float
        Largest weight of the table (private, as ``low``; ``-inf`` where
        data-dependent warnings are off).
    report : ForestReport
        How the forest was computed (public sizes only).
    """

    tree: object
    low: float
    high: float
    report: ForestReport


@fill_doc
def release_table_forest(table, mechanism, plan, *, sensitivity, neighborhood, weight_bounds,
                         random_state=None, split_every=4, verbose=0):
    """The private tree of a distributed edge table: per-partition noise, an exact forest.

    For a mechanism that is "independent noise on every edge, then the exact
    minimum spanning forest" (a :class:`~skdpgraph.tree.TreeMechanism` with
    ``edge_noise``: Laplace-MST and input perturbation). Each partition
    draws the noise of its edges with its own key (:func:`partition_keys`),
    calibrated for the whole table's ``|E|`` and ``|V|`` exactly as the
    in-memory mechanism is; the forest of the noisy keys is then computed
    exactly (:func:`table_spanning_forest`'s reduction), so the release has
    the law of the in-memory one. The caller charges the budget first.

    The Gumbel input perturbation is calibrated by the number of forest
    edges, ``|V|`` minus the components of the (public) topology. It is
    first run with ``|V| - 1`` (a connected graph); if its forest has fewer
    edges the topology has more components, and it is run again with that
    count and the same keys (the first forest is never released; its size
    depends on the topology alone).

    Parameters
    ----------
    {{edge_table}}
    mechanism : TreeMechanism
        A registered mechanism with ``edge_noise``
        (:func:`skdpgraph.tree.get_tree_mechanism`).
    plan : skdpgraph.privacy.BudgetPlan
        The budget; its tree part calibrates the noise of every edge.
    sensitivity : float
        ``mu`` of the neighbourhood (> 0).
    neighborhood : {"l1", "linf"}
        Neighbouring weight functions differ by at most ``mu`` in total
        (``"l1"``) or on each edge (``"linf"``).
    weight_bounds : (float, float)
        Public bounds; weights are clipped into them.
    random_state : None, int or numpy.random.Generator
        Source of the partitions' keys (:func:`partition_keys`).
    {{split_every}}
    {{dask_verbose}}

    Returns
    -------
    TableRelease
    """
    table = as_edge_table(table)
    split_every = _check_split_every(split_every)
    topo = table.topology(verbose)
    n = topo.n_nodes
    keys = partition_keys(random_state, topo.n_partitions)
    n_tree_edges = n - 1
    passes = 0
    while True:
        passes += 1
        kwargs = dict(n_edges=max(topo.n_edges, 1), n_tree_edges=n_tree_edges,
                      sensitivity=sensitivity, neighborhood=neighborhood)
        if plan.tree_rho is not None:
            kwargs["rho"] = plan.tree_rho
        else:
            kwargs["epsilon"] = plan.tree_epsilon
        spec = _Spec(table.source, table.target, table.weight, n, topo.node_ids,
                     tuple(weight_bounds), mechanism.edge_noise, kwargs,
                     not mechanism.releases_weights, topo.n_edges, data_dependent_warnings())
        forest = _reduce(table, topo, spec, keys, split_every, verbose,
                         "private tree: noise and minimum spanning forest")
        if mechanism.releases_weights or forest.lo.size >= n_tree_edges:
            break
        n_tree_edges = forest.lo.size  # public: |V| - components
    if forest.n_clipped:
        warn_out_of_bounds(forest.n_clipped, tuple(weight_bounds))
    w = forest.key if mechanism.releases_weights else forest.weight
    tree = make_spanning_tree(forest.lo, forest.hi, w, n, check_input=False)
    row_bytes = 2 * forest.lo.itemsize + 8 * (1 if mechanism.releases_weights else 2)
    report = _report(forest, topo.n_partitions, split_every, topo.n_edges, row_bytes, passes)
    return TableRelease(tree, forest.low, forest.high, report)


@fill_doc
def table_weight_max(table, verbose=0):
    """Largest weight of the table's edges (private: for data-derived bounds, with their
    warning); rows from a node to itself are not edges and are not read.

    Parameters
    ----------
    {{edge_table}}
    verbose : int, default=0
        ``> 0``: report the computation's progress.

    Returns
    -------
    float
    """
    table = as_edge_table(table)
    frame = table.frame
    edges = frame[frame[table.source] != frame[table.target]]
    top, = compute([edges[table.weight].max()], verbose, "largest weight")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(top)
