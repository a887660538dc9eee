"""Edge tables on Dask: the input of the distributed path, and its public topology."""

import math
import sys
from typing import NamedTuple, Optional

import numpy as np

from ..utils._validation import check_int, check_weight_values

#: Default column names of an edge table.
SOURCE, TARGET, WEIGHT = "u", "v", "weight"


def is_dask_frame(X):
    """Whether ``X`` is a ``dask.dataframe.DataFrame`` (never imports dask)."""
    dd = sys.modules.get("dask.dataframe")
    return dd is not None and isinstance(X, dd.DataFrame)


def is_edge_table(X):
    """Whether ``X`` is a distributed edge table: an :class:`EdgeTable` or a Dask DataFrame.

    Cheap and import-free: a program that never imported dask never has one.

    Parameters
    ----------
    X : object
        Any input.

    Returns
    -------
    bool
    """
    return isinstance(X, EdgeTable) or is_dask_frame(X)


class TableTopology(NamedTuple):
    """The public topology of an edge table, counted once.

    Attributes
    ----------
    n_nodes : int
        ``|V|``.
    n_edges : int
        ``|E|``: rows whose two ends differ (self-loops are dropped).
    n_self_loops : int
        Rows whose two ends are the same node (dropped).
    node_ids : pandas.Index or None
        The node ids in node order when they are mapped to ``0..n-1``;
        None when the ids are the node numbers themselves.
    n_partitions : int
        Partitions of the table's frame.
    fingerprint : int
        A 64-bit hash of the multiset of edges (the sum of a hash of each
        pair of node numbers): the release pass computes it again from the
        rows it reads and refuses a table whose rows changed since they
        were counted.
    """

    n_nodes: int
    n_edges: int
    n_self_loops: int
    node_ids: Optional[object]
    n_partitions: int
    fingerprint: int = 0


class EdgeTable:
    """A weighted graph given as a Dask DataFrame of edges, one row per edge.

    The table's topology (which pairs are edges) is public; its weights
    (distances: small = close) are private. Each unordered pair may appear
    on one row only (a graph listed in both directions must keep one of
    them, e.g. the rows with ``u < v``): with two rows for one pair, a
    neighbouring weighting would move two released values and the
    calibration would be wrong, so the validation refuses such tables
    (``check_pairs``). Rows whose two ends are the same node are dropped.

    Nothing is read when the table is made. The first fit (or
    :meth:`topology`) counts the nodes and edges with one pass over the
    table and keeps the result, so later fits on the same ``EdgeTable``
    submit no task before they charge the privacy budget. The pass also
    refuses weights that are NaN, infinite or negative, as the in-memory
    input check does (nothing else about the weights leaves it). Each
    release checks that the rows it reads are the rows counted (their
    number, node numbers and a hash of the pairs) and refuses a table
    whose source changed since: make a new ``EdgeTable`` then.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        The edges.
    source, target, weight : str, default "u", "v", "weight"
        Column names of the two ends and of the weight.
    nodes : None, int, "map" or array-like, default=None
        How node ids become node numbers ``0..n-1`` (once, from the public
        topology):

        * ``None``: integer ids are the node numbers and ``n`` is the
          largest id plus one (a number that is never an end of an edge is
          an isolated node); other ids are mapped as with ``"map"``.
        * an int ``n``: integer ids in ``0..n-1``.
        * ``"map"``: the sorted distinct ids of the ends are the nodes (for
          sparse integer ids such as hashes, or strings).
        * an array of distinct ids: these are the nodes, in this order (ids
          may then have no edge); every end must be one of them.
    check_pairs : bool, default=True
        Verify that no unordered pair is on two rows (one shuffle of the
        pairs, about 8 bytes an edge). Turn off only for a table known to
        list each pair once (e.g. the output of a group-by on ``(u, v)``
        with ``u < v``).

    Attributes
    ----------
    frame, source, target, weight, nodes, check_pairs
        As given.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from skdpgraph.distributed import EdgeTable
    >>> edges = pd.DataFrame({"a": [0, 1, 2], "b": [1, 2, 3], "d": [0.5, 0.1, 0.7]})
    >>> table = EdgeTable(dd.from_pandas(edges, npartitions=2), "a", "b", "d")
    >>> table.topology()[:2]
    (4, 3)
    """

    def __init__(self, frame, source=SOURCE, target=TARGET, weight=WEIGHT, *, nodes=None,
                 check_pairs=True):
        if not is_dask_frame(frame):
            raise TypeError(
                "frame must be a dask.dataframe.DataFrame of edges; got "
                f"{type(frame).__name__}.")
        for name, col in (("source", source), ("target", target), ("weight", weight)):
            if col not in frame.columns:
                raise ValueError(
                    f"{name} column {col!r} is not in the edge table; its columns are "
                    f"{list(frame.columns)}. Name the columns with "
                    "EdgeTable(frame, source=..., target=..., weight=...).")
        if len({source, target, weight}) != 3:
            raise ValueError("source, target and weight must be three different columns.")
        if getattr(frame[weight].dtype, "kind", "O") not in "iuf":
            raise TypeError(f"weight column {weight!r} must be numeric; got dtype "
                            f"{frame[weight].dtype}.")
        if isinstance(nodes, bool) or not (
                nodes is None or isinstance(nodes, (int, np.integer))
                or (isinstance(nodes, str) and nodes == "map")
                or (not isinstance(nodes, str) and np.ndim(nodes) == 1)):
            raise TypeError(f"nodes must be None, an int, 'map' or a 1-D array of ids; got "
                            f"{nodes!r}.")
        self.frame = frame
        self.source = source
        self.target = target
        self.weight = weight
        self.nodes = nodes
        self.check_pairs = bool(check_pairs)
        self._topology = None

    def __repr__(self):
        return (f"EdgeTable({self.frame.npartitions} partitions, source={self.source!r}, "
                f"target={self.target!r}, weight={self.weight!r})")

    @property
    def npartitions(self):
        """Partitions of the frame."""
        return self.frame.npartitions

    @property
    def shape(self):
        """``(n_nodes, n_nodes)``, the shape of the graph's adjacency (counts the topology)."""
        n = self.topology().n_nodes
        return n, n

    def topology(self, verbose=0):
        """Count the table's nodes and edges (once) and check its pairs.

        One pass over the table: the ends give the counts (public, kept on
        the table); the weights are only checked (finite, non-negative).

        Parameters
        ----------
        verbose : int, default=0
            Show Dask's progress bar (first call only).

        Returns
        -------
        TableTopology
        """
        if self._topology is None:
            self._topology = _count_topology(self, verbose)
        return self._topology


def as_edge_table(X):
    """``X`` as an :class:`EdgeTable`: itself, or a Dask DataFrame with columns u, v, weight.

    Parameters
    ----------
    X : EdgeTable or dask.dataframe.DataFrame
        An edge table, or a frame with the default columns ``u``, ``v`` and
        ``weight``.

    Returns
    -------
    EdgeTable
        ``X`` itself, or ``EdgeTable(X)`` with the default options.

    Raises
    ------
    TypeError
        If ``X`` is neither.
    """
    if isinstance(X, EdgeTable):
        return X
    if is_dask_frame(X):
        return EdgeTable(X)
    raise TypeError(f"Expected an EdgeTable or a dask DataFrame; got {type(X).__name__}.")


def read_edge_parquet(path, source=SOURCE, target=TARGET, weight=WEIGHT, *, nodes=None,
                      check_pairs=True, **kwargs):
    """Open Parquet files of edges as one :class:`EdgeTable` (nothing is read yet).

    Parameters
    ----------
    path : str or list of str
        Files, a directory or a glob, anything ``dask.dataframe.read_parquet``
        opens (local paths or remote storage).
    source, target, weight : str
        Column names; only these three columns are read.
    nodes : None, int, "map" or array-like, default=None
        How node ids become node numbers; see :class:`EdgeTable`.
    check_pairs : bool, default=True
        Verify that no unordered pair is on two rows; see :class:`EdgeTable`.
    **kwargs : dict
        Passed to ``dask.dataframe.read_parquet`` (e.g. ``blocksize``,
        ``storage_options``).

    Returns
    -------
    EdgeTable

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> from skdpgraph.distributed import read_edge_parquet
    >>> path = tempfile.mkdtemp() + "/edges.parquet"
    >>> pd.DataFrame({"u": [0, 1], "v": [1, 2], "weight": [0.3, 0.9]}).to_parquet(path)
    >>> read_edge_parquet(path).topology()[:2]
    (3, 2)
    """
    import dask.dataframe as dd

    frame = dd.read_parquet(path, **kwargs)  # lazy: only the columns used are read
    missing = [c for c in (source, target, weight) if c not in frame.columns]
    if missing:
        raise ValueError(f"column(s) {missing} are not in the Parquet files; their columns "
                         f"are {list(frame.columns)}.")
    frame = frame[[source, target, weight]]
    return EdgeTable(frame, source, target, weight, nodes=nodes, check_pairs=check_pairs)


# --------------------------------------------------------------------------
# The topology pass
# --------------------------------------------------------------------------


def _ends(part, source, target):
    for col in (source, target):
        if part[col].isna().any():
            raise ValueError(f"the edge table has rows whose {col!r} end is missing (NaN, "
                             "None or NA): every row must name both ends of its edge.")
    u = part[source].to_numpy()
    v = part[target].to_numpy()
    return u, v


def _integer_ids(dtype):
    import pandas as pd

    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


# An odd constant: multiplying by it is a bijection of the 64-bit words, which
# spreads pair keys evenly over the buckets of the duplicate check.
_SPREAD = np.uint64(0x9E3779B97F4A7C15)
_ID_LIMIT = 2**32


def pair_words(lo, hi):
    """The pairs ``lo < hi`` of node numbers below ``2**32`` as words ``lo * 2**32 + hi``."""
    return (lo.astype(np.uint64) << np.uint64(32)) | hi.astype(np.uint64)


def pairs_fingerprint(words):
    """Sum (mod ``2**64``) of a 64-bit hash of each pair word: a hash of the multiset of
    pairs that partitions add up in any order (splitmix64's finaliser mixes each word)."""
    x = words ^ (words >> np.uint64(30))
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return int(x.sum(dtype=np.uint64))


def _check_weights(part, weight):
    check_weight_values(part[weight].to_numpy(dtype=np.float64, na_value=np.nan),
                        f"the edge table's column {weight!r}")


def _partition_topology(part, source, target, weight, node_ids, n_buckets):
    """One partition's counts, fingerprint and pair words, cut into the check's buckets.

    A pair ``lo < hi`` of node numbers below ``2**32`` is the word
    ``lo * 2**32 + hi``, spread by an odd multiplier (a bijection: equal
    words are equal pairs); the sorted words are cut into ``n_buckets``
    ranges by their leading bits, so equal pairs from any partitions meet
    in one bucket.
    """
    _check_weights(part, weight)
    u, v = _ends(part, source, target)
    if node_ids is not None:
        u, v = node_index(u, node_ids), node_index(v, node_ids)
    # over every row: a node that is only in a self-loop is a node, as with nodes="map"
    low = int(min(u.min(), v.min())) if u.size else 0
    high = int(max(u.max(), v.max())) if u.size else -1
    keep = u != v
    rows, loops = u.size, int(u.size - np.count_nonzero(keep))
    u, v = u[keep], v[keep]
    if low < 0:
        raise ValueError(f"integer node ids must be >= 0; got {low}. Use nodes='map' to "
                         "map any ids to node numbers.")
    if high >= _ID_LIMIT:
        raise ValueError(f"node id {high} is too large to be a node number (ids must be "
                         "below 2**32); use nodes='map' to map the ids to node numbers.")
    words = pair_words(np.minimum(u, v), np.maximum(u, v))
    counts = (rows, loops, low, high, pairs_fingerprint(words))
    if n_buckets == 0:
        return counts, ()
    words *= _SPREAD
    words.sort()
    shift = np.uint64(64 - int(n_buckets).bit_length() + 1)
    bounds = np.searchsorted(words >> shift, np.arange(1, n_buckets, dtype=np.uint64))
    return counts, tuple(np.split(words, bounds))


def _bucket_duplicates(*parts):
    """Number of repeated pairs among the words of one bucket."""
    words = np.sort(np.concatenate([p for p in parts]), kind="stable")
    return int(np.count_nonzero(words[1:] == words[:-1]))


def _ids_of(part, source, target):
    import pandas as pd

    u, v = _ends(part, source, target)
    return pd.unique(np.concatenate([u, v]))


def _distinct(*parts):
    import pandas as pd

    return pd.unique(np.concatenate(parts))


def compute(collections, verbose=0, what="computing"):
    """Compute Dask collections, with Dask's own progress bar when ``verbose``.

    With a distributed client the progress is :func:`distributed.progress`
    (and the client's dashboard); otherwise ``dask.diagnostics.ProgressBar``.
    """
    import dask

    collections = list(collections)
    if not verbose:
        return list(dask.compute(*collections))
    print(f"[skdpgraph.distributed] {what}", file=sys.stderr, flush=True)
    try:
        from distributed import default_client, progress

        client = default_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar():
            return list(dask.compute(*collections))
    futures = client.compute(collections)
    progress(futures)
    print(file=sys.stderr, flush=True)
    return client.gather(futures)


def _count_topology(table, verbose):
    import pandas as pd
    from dask import delayed

    frame = table.frame[[table.source, table.target, table.weight]]
    s_dtype, t_dtype = frame.dtypes[table.source], frame.dtypes[table.target]
    nodes = table.nodes
    integer = _integer_ids(s_dtype) and _integer_ids(t_dtype)
    if isinstance(nodes, str) and nodes != "map":
        raise ValueError(f"nodes must be None, an int, 'map' or an array of ids; got {nodes!r}.")
    given_n = isinstance(nodes, (int, np.integer)) and not isinstance(nodes, bool)
    mapped = not given_n and (nodes is not None or not integer)
    if given_n:
        if not integer:
            raise TypeError("nodes=<int> needs integer node ids; use nodes='map' to map "
                            f"ids of dtype {s_dtype} to node numbers.")
        if nodes < 1:
            raise ValueError(f"nodes must be a positive number of nodes; got {nodes}.")
    parts = frame.to_delayed()
    node_ids = None
    if mapped:
        if nodes is None or isinstance(nodes, str):
            level = [delayed(_ids_of, pure=True)(p, table.source, table.target)
                     for p in parts]
            while len(level) > 1:
                level = [delayed(_distinct, pure=True)(*level[i:i + 8])
                         for i in range(0, len(level), 8)]
            ids, = compute(level, verbose, "edge table: node ids")
            try:
                node_ids = pd.Index(ids).sort_values()
            except TypeError as exc:
                raise TypeError(
                    f"the node ids of the edge table cannot be ordered ({exc}): ids of "
                    "mixed types? Give them one type, e.g. frame[col].astype(str).") from None
        else:
            node_ids = pd.Index(np.asarray(nodes))
            if not node_ids.is_unique:
                raise ValueError("nodes must list distinct ids.")
    # A power of two near 2 sqrt(partitions), at most 64: few and large pieces
    # to move (partitions x buckets of them), each bucket small enough to sort.
    n_buckets = 0 if not table.check_pairs else 1 << min(
        6, int(2 * math.sqrt(len(parts))).bit_length() - 1)
    ids = delayed(node_ids, pure=True, traverse=False)  # one key, shared by the tasks
    tops = [delayed(_partition_topology, pure=True, nout=2)(
        p, table.source, table.target, table.weight, ids, n_buckets) for p in parts]
    counts = [t[0] for t in tops]
    dups = [delayed(_bucket_duplicates, pure=True)(*[t[1][j] for t in tops])
            for j in range(n_buckets)]
    counts, dups = compute([counts, dups], verbose, "edge table: counting nodes and edges")
    rows = sum(c[0] for c in counts)
    loops = sum(c[1] for c in counts)
    fingerprint = sum(c[4] for c in counts) % 2**64
    if sum(dups):
        raise ValueError(
            "Some unordered pairs of the edge table are on more than one row (a graph "
            "listed in both directions?). Keep one row per pair, e.g. the rows with "
            "source < target; two rows for one pair would make the privacy calibration "
            "count one weight as two.")
    if node_ids is not None:
        n = len(node_ids)
    else:
        high = max(c[3] for c in counts)
        if nodes is None:
            n = high + 1
        else:
            n = int(nodes)
            if high >= n:
                raise ValueError(f"node id {high} is out of range for nodes={n} "
                                 f"(ids must lie in 0..{n - 1}).")
    if n < 2:
        raise ValueError(f"The edge table must have at least 2 nodes; got {n}.")
    return TableTopology(n, rows - loops, loops, node_ids, frame.npartitions, fingerprint)


def node_index(part_ids, node_ids):
    """Node numbers of ids through the public mapping (ValueError for an unknown id)."""
    pos = node_ids.get_indexer(part_ids)
    if pos.size and pos.min() < 0:
        bad = part_ids[int(np.flatnonzero(pos < 0)[0])]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(f"node id {bad!r} of the edge table is not in nodes (or not in the "
                         "table when its topology was counted: make a new EdgeTable for a "
                         "changed source).")
    return pos


def labels_series(labels, table, npartitions=1):
    """Labels as a Dask series indexed by the table's node ids.

    Parameters
    ----------
    labels : ndarray of shape (n_nodes,)
        ``labels_`` of an estimator fitted on ``table``.
    table : EdgeTable or dask.dataframe.DataFrame
        The table the estimator was fitted on; its topology gives the node
        ids.
    npartitions : int, default=1
        Partitions of the series, from 1 to the number of nodes.

    Returns
    -------
    dask.dataframe.Series
        Named ``"label"``; its index holds the node ids (the node numbers
        ``0..n-1`` when the ids are those).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> from skdpgraph.distributed import EdgeTable, labels_series
    >>> edges = pd.DataFrame({"u": ["a", "b"], "v": ["b", "c"], "weight": [1.0, 2.0]})
    >>> table = EdgeTable(dd.from_pandas(edges, npartitions=1))
    >>> labels_series(np.array([0, 0, 1]), table).compute().to_dict()
    {'a': 0, 'b': 0, 'c': 1}
    """
    import dask.dataframe as dd
    import pandas as pd

    topo = as_edge_table(table).topology()
    npartitions = check_int(npartitions, "npartitions", 1, topo.n_nodes)
    labels = np.asarray(labels)
    if labels.shape != (topo.n_nodes,):
        raise ValueError(f"labels must have shape ({topo.n_nodes},), one per node of the "
                         f"table; got {labels.shape}.")
    index = pd.RangeIndex(topo.n_nodes) if topo.node_ids is None else topo.node_ids
    series = pd.Series(labels, index=index, name="label")
    return dd.from_pandas(series, npartitions=npartitions)
