"""Figures of graphs, trees, clusterings and privacy/utility curves.

matplotlib is an optional dependency (``pip install "skdpgraph[plot]"``);
it is imported inside each function, so importing this module never needs
it. Every function draws on ``ax`` (a new figure's axes when ``None``) and
returns the axes, so figures can be composed with :func:`matplotlib.pyplot.subplots`.

Drawing is post-processing: plotting a private release costs no privacy,
but plotting the true graph, its weights or the true labels shows private
data.
"""

import warnings
from collections.abc import Mapping

import numpy as np

from .utils import check_graph, graph_edges
from .utils._networkx import _is_networkx_graph

__all__ = ["plot_graph", "plot_dbcvi_path", "plot_ari_vs_epsilon"]

#: Colour of nodes labelled ``-1`` (unclustered: SCAN's hubs and outliers).
UNCLUSTERED_COLOR = "0.6"


def _pyplot():
    """``matplotlib.pyplot``, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised with matplotlib hidden
        raise ImportError(
            "skdpgraph.plotting needs matplotlib, which is not installed; install it "
            'with pip install "skdpgraph[plot]" (or pip install matplotlib).'
        ) from exc
    return plt


def _axes(ax):
    if ax is None:
        return _pyplot().subplots()[1]
    _pyplot()
    if not hasattr(ax, "add_collection"):
        raise TypeError(f"ax must be a matplotlib Axes; got {type(ax).__name__}.")
    return ax


def _edge_array(edges, n, what):
    """``(k, 2)`` int64 array of node pairs in ``[0, n)``."""
    arr = np.asarray(edges)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{what} must be an array of shape (k, 2) of node pairs; "
                         f"got shape {arr.shape}.")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{what} must hold integer node indices.")
        arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{what} refers to node {int(arr.max() if arr.max() >= n else arr.min())}"
                         f", outside 0..{n - 1}.")
    return arr.astype(np.int64)


def _tree_edges(tree, n):
    """Edges of a SpanningTree, a fitted clusterer's ``tree_`` or any graph."""
    if hasattr(tree, "edges") and hasattr(tree, "tree") and hasattr(tree, "weights"):
        tree = tree.tree  # SpanningTree
    graph = check_graph(tree, metric="precomputed", what="tree")
    if graph.shape[0] != n:
        raise ValueError(f"tree has {graph.shape[0]} nodes but positions has {n} rows.")
    u, v, _ = graph_edges(graph)
    return np.column_stack([u, v])


def _segments(positions, edges):
    return np.stack([positions[edges[:, 0]], positions[edges[:, 1]]], axis=1)


def plot_graph(graph, positions, labels=None, tree=None, cut_edges=None, ax=None, *,
               node_size=18, edge_alpha=0.15, cmap="tab10"):
    """Draw a graph, a spanning tree and a clustering at given node positions.

    Layers, bottom to top: the edges of ``graph`` (thin, translucent), the
    edges of ``tree`` (solid), the ``cut_edges`` (dashed red: the tree edges
    a clusterer removed), and the nodes coloured by ``labels`` (label ``-1``,
    unclustered, in grey).

    Parameters
    ----------
    graph : array-like, sparse matrix, networkx.Graph, SpanningTree or None
        Any graph :func:`skdpgraph.utils.check_graph` accepts with
        ``metric="precomputed"`` (a dense matrix is a complete graph, so
        drawing one is slow beyond a few hundred nodes). ``None`` draws no
        graph edges (for example to show only a tree).
    positions : array-like of shape (n, 2) or dict
        Coordinates of the nodes, in the graph's node order; or, for a
        networkx graph, a dict node -> (x, y) (networkx's layouts).
    labels : array-like of shape (n,), default=None
        Integer cluster labels; ``None`` draws every node in one colour.
    tree : SpanningTree, sparse matrix or array, default=None
        A spanning tree (forest) of the same nodes, for example a fitted
        clusterer's ``tree_`` or a :class:`~skdpgraph.tree.SpanningTree`.
    cut_edges : array-like of shape (k, 2), default=None
        Node pairs to mark as cut, for example a fitted clusterer's
        ``cut_edges_``.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure when ``None``.
    node_size : float, default=18
        Marker area of the nodes, in points squared.
    edge_alpha : float, default=0.15
        Opacity of the graph's edges.
    cmap : str or matplotlib colormap, default="tab10"
        Colours of the clusters.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes, holding one :class:`~matplotlib.collections.LineCollection`
        per edge layer drawn and one scatter collection of the nodes.

    Raises
    ------
    ValueError
        If ``positions`` is not of shape ``(n, 2)`` and finite, if ``labels``
        does not have one integer per node, or if ``tree`` or ``cut_edges``
        do not fit the ``n`` nodes.
    ImportError
        If matplotlib is not installed.

    Examples
    --------
    >>> from skdpgraph.cluster import DBMSTClu
    >>> from skdpgraph.datasets import make_homogeneous_moons
    >>> from skdpgraph.plotting import plot_graph
    >>> data = make_homogeneous_moons(random_state=0)
    >>> model = DBMSTClu(metric="precomputed").fit(data.graph)
    >>> ax = plot_graph(data.graph, data.positions, model.labels_, tree=model.tree_,
    ...                 cut_edges=model.cut_edges_)
    >>> len(ax.collections)  # graph edges, tree edges, cut edges, nodes
    4
    """
    if isinstance(positions, dict):  # networkx's layouts: node -> (x, y)
        if not _is_networkx_graph(graph):
            raise TypeError("positions as a dict (node -> (x, y)) need a networkx graph, "
                            "whose nodes name its keys; otherwise pass an (n, 2) array.")
        missing = [node for node in graph if node not in positions]
        if missing:
            raise ValueError(f"positions has no coordinates for node {missing[0]!r}.")
        positions = [positions[node] for node in graph]
    positions = np.asarray(positions, dtype=np.float64)
    if positions.ndim != 2 or positions.shape[1] != 2:
        raise ValueError(f"positions must have shape (n, 2); got {positions.shape}.")
    if not np.all(np.isfinite(positions)):
        raise ValueError("positions must be finite.")
    n = positions.shape[0]
    if labels is not None:
        labels = np.asarray(labels)
        if labels.shape != (n,):
            raise ValueError(f"labels must have shape ({n},), one per node; got {labels.shape}.")
        if not np.issubdtype(labels.dtype, np.integer):
            if labels.dtype.kind not in "bf" or not np.all(labels == np.round(labels)):
                raise ValueError("labels must be integers (-1 for unclustered nodes).")
            labels = labels.astype(np.int64)
    edge_layers = []
    if graph is not None:
        if hasattr(graph, "edges") and hasattr(graph, "tree") and hasattr(graph, "weights"):
            graph = graph.tree
        canon = check_graph(graph, metric="precomputed", what="graph")
        if canon.shape[0] != n:
            raise ValueError(f"graph has {canon.shape[0]} nodes but positions has {n} rows.")
        u, v, _ = graph_edges(canon)
        edge_layers.append((np.column_stack([u, v]),
                            dict(colors="0.5", linewidths=0.5, alpha=edge_alpha, zorder=1)))
    if tree is not None:
        edge_layers.append((_tree_edges(tree, n), dict(colors="0.15", linewidths=1.2, zorder=2)))
    if cut_edges is not None:
        edge_layers.append((_edge_array(cut_edges, n, "cut_edges"),
                            dict(colors="tab:red", linewidths=1.8, linestyles="--", zorder=3)))

    ax = _axes(ax)
    from matplotlib.collections import LineCollection

    for edges, style in edge_layers:
        ax.add_collection(LineCollection(_segments(positions, edges), **style))
    if labels is None:
        colors = "tab:blue"
    else:
        plt = _pyplot()
        cm = plt.get_cmap(cmap)
        clusters = np.unique(labels[labels >= 0])
        index = np.searchsorted(clusters, labels)
        n_colors = getattr(cm, "N", 256)
        colors = [cm(i % n_colors if n_colors < 256 else i / max(len(clusters) - 1, 1))
                  for i in range(len(clusters))]
        colors = [colors[i] if lab >= 0 else UNCLUSTERED_COLOR
                  for i, lab in zip(index, labels)]
    ax.scatter(positions[:, 0], positions[:, 1], s=node_size, c=colors, zorder=4,
               edgecolors="white", linewidths=0.3)
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def _dbcvi_path(model_or_path):
    if hasattr(model_or_path, "dbcvi_path_"):
        path = model_or_path.dbcvi_path_
    elif hasattr(model_or_path, "dbcvi_path"):
        path = model_or_path.dbcvi_path
    elif hasattr(model_or_path, "fit") and hasattr(model_or_path, "get_params"):
        raise ValueError(f"This {type(model_or_path).__name__} is not fitted: it has no "
                         "dbcvi_path_; call fit first.")
    else:
        path = model_or_path
    try:
        path = np.asarray(path, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("model_or_path must be a fitted DBMSTClu or PrivateMSTClustering, "
                        "a result with dbcvi_path, or a 1-D array of DBCVI values; got "
                        f"{type(model_or_path).__name__}.") from exc
    if path.ndim != 1:
        raise ValueError(f"a DBCVI path is 1-D (one value per cut); got shape {path.shape}.")
    if not np.all(np.isfinite(path)) or np.any(np.abs(path) > 1 + 1e-12):
        raise ValueError("DBCVI values lie in [-1, 1]; the path has values outside.")
    return path


def plot_dbcvi_path(model_or_path, ax=None, *, label=None):
    """Draw the DBCVI after each cut of DBMSTClu.

    The index starts at -1 before the first cut (DBMSTClu's convention, so
    the first cut is always made) and never decreases; the last point is
    the final ``dbcvi_``. A long flat tail means many cuts that barely
    changed the index, typical of noisy released trees.

    Parameters
    ----------
    model_or_path : estimator, result or array-like of shape (n_cuts,)
        A fitted :class:`~skdpgraph.cluster.DBMSTClu` or
        :class:`~skdpgraph.cluster.PrivateMSTClustering` (its
        ``dbcvi_path_``), a :class:`~skdpgraph.cluster.DBMSTCluResult` or
        :class:`~skdpgraph.cluster.PrivateMSTResult` (its ``dbcvi_path``),
        or the path itself.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure when ``None``.
    label : str, default=None
        Legend label of the line.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes, with one line of ``n_cuts + 1`` points.

    Raises
    ------
    ValueError
        For an unfitted estimator, a path that is not 1-D or values outside
        ``[-1, 1]``.
    TypeError
        For anything else.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.cluster import DBMSTClu
    >>> from skdpgraph.plotting import plot_dbcvi_path
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> ax = plot_dbcvi_path(DBMSTClu().fit(X))
    >>> ax.lines[0].get_ydata().tolist()[0]
    -1.0
    """
    path = _dbcvi_path(model_or_path)
    ax = _axes(ax)
    y = np.concatenate([[-1.0], path])
    ax.plot(np.arange(y.size), y, "-o", ms=3, lw=1.2, label=label)
    ax.set_xlabel("number of cuts")
    ax.set_ylabel("DBCVI")
    ax.set_ylim(-1.05, 1.05)
    ax.grid(alpha=0.3)
    if label is not None:
        ax.legend()
    return ax


def _ari_array(epsilons, runs, what):
    try:
        arr = np.asarray(runs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} must be a numeric array of shape (n_epsilons, n_runs).") from exc
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != epsilons.size:
        raise ValueError(f"{what} must have shape (n_epsilons, n_runs) = ({epsilons.size}, "
                         f"n_runs), one row per epsilon; got {np.shape(runs)}.")
    finite = arr[~np.isnan(arr)]
    if np.any(np.abs(finite) > 1 + 1e-12) or np.any(np.isinf(arr)):
        raise ValueError(f"{what}: the adjusted Rand index lies in [-1, 1]; NaN marks a "
                         "missing run.")
    return arr


def plot_ari_vs_epsilon(epsilons, ari_runs, label=None, ax=None, *, color=None,
                        legend="outside"):
    """Median adjusted Rand index against epsilon, with quartile bands.

    Call it once per mechanism on the same axes (or pass a mapping of
    mechanisms) to compare them; the legend is placed outside the axes, on
    the right, so that it never hides a curve.

    Parameters
    ----------
    epsilons : array-like of shape (n_epsilons,)
        Positive privacy budgets, increasing; drawn on a log axis.
    ari_runs : array-like of shape (n_epsilons, n_runs) or mapping
        The ARI of every run (release) at every epsilon; NaN marks a missing
        run and is ignored. A mapping ``{label: array}`` draws one curve per
        entry (``label`` must then be ``None``).
    label : str, default=None
        Legend label of the curve.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure when ``None``.
    color : matplotlib colour, default=None
        Colour of the curve and its band (next in the cycle when ``None``;
        ignored with a mapping).
    legend : {"outside", "inside", None}, default="outside"
        Where to put the legend of the labelled curves.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes, with one median line and one quartile band
        (a :class:`~matplotlib.collections.PolyCollection`) per curve.

    Raises
    ------
    ValueError
        If ``epsilons`` are not positive, finite and increasing, or
        ``ari_runs`` has the wrong shape or values outside ``[-1, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.plotting import plot_ari_vs_epsilon
    >>> eps = [0.1, 1.0, 10.0]
    >>> runs = {"A": [[0.0, 0.1], [0.5, 0.7], [1.0, 1.0]], "B": np.zeros((3, 2))}
    >>> ax = plot_ari_vs_epsilon(eps, runs)
    >>> len(ax.lines), len(ax.collections)
    (2, 2)
    """
    if legend not in ("outside", "inside", None):
        raise ValueError(f"legend must be 'outside', 'inside' or None; got {legend!r}.")
    try:
        eps = np.asarray(epsilons, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("epsilons must be a 1-D array of numbers.") from exc
    if eps.ndim != 1 or eps.size == 0:
        raise ValueError(f"epsilons must be a non-empty 1-D array; got shape {eps.shape}.")
    if not np.all(np.isfinite(eps)) or np.any(eps <= 0) or np.any(np.diff(eps) <= 0):
        raise ValueError("epsilons must be positive, finite and strictly increasing.")
    if isinstance(ari_runs, Mapping):
        if label is not None:
            raise ValueError("give label=None with a mapping: its keys are the labels.")
        curves = [(str(k), _ari_array(eps, v, f"ari_runs[{k!r}]"), None)
                  for k, v in ari_runs.items()]
    else:
        curves = [(label, _ari_array(eps, ari_runs, "ari_runs"), color)]
    ax = _axes(ax)
    for lab, arr, col in curves:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows stay NaN
            q1, med, q3 = np.nanpercentile(arr, [25, 50, 75], axis=1)
        (line,) = ax.plot(eps, med, "-o", ms=3, lw=1.3, color=col, label=lab)
        ax.fill_between(eps, q1, q3, color=line.get_color(), alpha=0.18, lw=0)
    ax.set_xscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("ARI (median, quartile band)")
    ax.set_ylim(-0.1, 1.05)
    ax.grid(alpha=0.3, which="both")
    labelled = [h for h in ax.lines if not h.get_label().startswith("_")]
    if legend is not None and labelled:
        if legend == "outside":
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                      fontsize="small")
        else:
            ax.legend(fontsize="small")
    return ax
