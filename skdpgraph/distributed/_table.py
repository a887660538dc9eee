"""Edge tables on Dask: the input of the distributed path, and its public topology."""

import sys
from typing import NamedTuple, Optional

import numpy as np

#: Default column names of an edge table.
SOURCE, TARGET, WEIGHT = "u", "v", "weight"


def is_dask_frame(X):
    """Whether ``X`` is a ``dask.dataframe.DataFrame`` (never imports dask)."""
    dd = sys.modules.get("dask.dataframe")
    return dd is not None and isinstance(X, dd.DataFrame)


def is_edge_table(X):
    """Whether ``X`` is a distributed edge table: an :class:`EdgeTable` or a Dask DataFrame.

    Cheap and import-free: a program that never imported dask never has one.
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
    node_ids : pandas.Index or None
        The node ids in node order when they are mapped to ``0..n-1``;
        None when the ids are the node numbers themselves.
    n_partitions : int
    """

    n_nodes: int
    n_edges: int
    n_self_loops: int
    node_ids: Optional[object]
    n_partitions: int


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
    ``source`` and ``target`` columns (never the weights) and keeps the
    result, so later fits on the same ``EdgeTable`` submit no task before
    they charge the privacy budget.

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
        if frame[weight].dtype.kind not in "biuf":
            raise TypeError(f"weight column {weight!r} must be numeric; got dtype "
                            f"{frame[weight].dtype}.")
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

        Reads the ``source`` and ``target`` columns only; the result is
        public and kept on the table.

        Returns
        -------
        TableTopology
        """
        if self._topology is None:
            self._topology = _count_topology(self, verbose)
        return self._topology


def as_edge_table(X):
    """``X`` as an :class:`EdgeTable`: itself, or a Dask DataFrame with columns u, v, weight."""
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
    nodes, check_pairs
        See :class:`EdgeTable`.
    **kwargs
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

    frame = dd.read_parquet(path, columns=[source, target, weight], **kwargs)
    return EdgeTable(frame, source, target, weight, nodes=nodes, check_pairs=check_pairs)


# --------------------------------------------------------------------------
# The topology pass
# --------------------------------------------------------------------------


def _ends(part, source, target):
    u = part[source].to_numpy()
    v = part[target].to_numpy()
    return u, v


def _integer_ids(dtype):
    return np.dtype(dtype).kind in "iu"


def _partition_counts(part, source, target, integer):
    import pandas as pd

    u, v = _ends(part, source, target)
    loops = int(np.count_nonzero(u == v))
    if integer and u.size:
        low = int(min(u.min(), v.min()))
        high = int(max(u.max(), v.max()))
    else:
        low, high = 0, -1
    return pd.DataFrame({"rows": [u.size], "loops": [loops], "low": [low], "high": [high]})


def _partition_pairs(part, source, target):
    import pandas as pd

    u, v = _ends(part, source, target)
    keep = u != v
    u, v = u[keep], v[keep]
    swap = v < u
    return pd.DataFrame({"lo": np.where(swap, v, u), "hi": np.where(swap, u, v)})


def _duplicates(part):
    import pandas as pd

    return pd.DataFrame({"duplicates": [int(part.duplicated().sum())]})


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
    import dask.dataframe as dd
    import pandas as pd

    frame = table.frame[[table.source, table.target]]
    s_dtype, t_dtype = frame.dtypes[table.source], frame.dtypes[table.target]
    nodes = table.nodes
    integer = _integer_ids(s_dtype) and _integer_ids(t_dtype)
    mapped = isinstance(nodes, str) or (nodes is None and not integer) or (
        nodes is not None and not isinstance(nodes, (int, np.integer)))
    if isinstance(nodes, str) and nodes != "map":
        raise ValueError(f"nodes must be None, an int, 'map' or an array of ids; got {nodes!r}.")
    if isinstance(nodes, (int, np.integer)) and not isinstance(nodes, bool):
        if not integer:
            raise TypeError("nodes=<int> needs integer node ids; use nodes='map' to map "
                            f"ids of dtype {s_dtype} to node numbers.")
        if nodes < 1:
            raise ValueError(f"nodes must be a positive number of nodes; got {nodes}.")
    meta = pd.DataFrame({"rows": [0], "loops": [0], "low": [0], "high": [0]}).iloc[:0]
    counts = frame.map_partitions(_partition_counts, table.source, table.target,
                                  integer and not mapped, meta=meta)
    wanted = [counts]
    if table.check_pairs:
        pairs = frame.map_partitions(_partition_pairs, table.source, table.target)
        dups = pairs.shuffle(on=["lo", "hi"]).map_partitions(
            _duplicates, meta=pd.DataFrame({"duplicates": [0]}).iloc[:0])
        wanted.append(dups)
    if mapped and (nodes is None or isinstance(nodes, str)):
        ends = dd.concat([frame[table.source].rename("id"), frame[table.target].rename("id")])
        wanted.append(ends.drop_duplicates())
    results = compute(wanted, verbose, "edge table: counting nodes and edges")
    counts = results[0]
    rows, loops = int(counts["rows"].sum()), int(counts["loops"].sum())
    if table.check_pairs and int(results[1]["duplicates"].sum()):
        raise ValueError(
            f"{int(results[1]['duplicates'].sum())} unordered pair(s) of the edge table are "
            "on more than one row (a graph listed in both directions?). Keep one row per "
            "pair, e.g. the rows with source < target; two rows for one pair would make "
            "the privacy calibration count one weight as two.")
    node_ids = None
    if not mapped:
        ok = counts[counts["rows"] > 0]
        low = int(ok["low"].min()) if len(ok) else 0
        high = int(ok["high"].max()) if len(ok) else -1
        if low < 0:
            raise ValueError(f"integer node ids must be >= 0; got {low}. Use nodes='map' to "
                             "map any ids to node numbers.")
        if nodes is None:
            n = high + 1
        else:
            n = int(nodes)
            if high >= n:
                raise ValueError(f"node id {high} is out of range for nodes={n} "
                                 f"(ids must lie in 0..{n - 1}).")
    else:
        if nodes is None or isinstance(nodes, str):
            ids = pd.Index(results[-1]).sort_values()
        else:
            ids = pd.Index(np.asarray(nodes))
            if not ids.is_unique:
                raise ValueError("nodes must list distinct ids.")
        node_ids, n = ids, len(ids)
    if n < 2:
        raise ValueError(f"The edge table must have at least 2 nodes; got {n}.")
    return TableTopology(n, rows - loops, loops, node_ids, frame.npartitions)


def node_index(part_ids, node_ids):
    """Node numbers of ids through the public mapping (ValueError for an unknown id)."""
    pos = node_ids.get_indexer(part_ids)
    if pos.size and pos.min() < 0:
        bad = part_ids[int(np.flatnonzero(pos < 0)[0])]
        raise ValueError(f"node id {bad!r} of the edge table is not in nodes.")
    return pos


def labels_series(labels, table, npartitions=1):
    """Labels as a Dask series indexed by the table's node ids.

    Parameters
    ----------
    labels : ndarray of shape (n_nodes,)
        ``labels_`` of an estimator fitted on ``table``.
    table : EdgeTable
    npartitions : int, default=1

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
    labels = np.asarray(labels)
    if labels.shape != (topo.n_nodes,):
        raise ValueError(f"labels must have shape ({topo.n_nodes},), one per node of the "
                         f"table; got {labels.shape}.")
    index = pd.RangeIndex(topo.n_nodes) if topo.node_ids is None else topo.node_ids
    series = pd.Series(labels, index=index, name="label")
    return dd.from_pandas(series, npartitions=npartitions)
