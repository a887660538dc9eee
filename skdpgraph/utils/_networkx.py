"""networkx graphs in and out: the one place the library reads or builds them.

networkx is imported only when one of its graphs is given or asked for, so
``import skdpgraph`` does not import it.
"""

import sys

import numpy as np

from ._config import data_dependent_warnings
from ._sparse import edges_to_csr, graph_edges
from ._validation import NOT_WEIGHTS, check_n_nodes, check_weight_values
from ._weights import (
    SIMILARITY_CONVERSIONS,
    check_weight_kind,
    looks_like_counts,
    similarity_to_distance,
    warn_counts,
)


def _is_networkx_graph(X):
    nx = sys.modules.get("networkx")  # not imported: X cannot be one of its graphs
    return nx is not None and isinstance(X, nx.Graph)


def from_networkx(G, weight="weight", nodelist=None, default=1.0, *, weight_kind=None,
                  conversion="inverse", max_similarity=None):
    """Canonical sparse graph of distances from a networkx graph.

    Parameters
    ----------
    G : networkx.Graph
        Undirected graph. Directed graphs and multigraphs are refused.
    weight : str or None, default="weight"
        Edge attribute holding the weight. ``None`` gives every edge the
        weight ``default``.
    nodelist : list, default=None
        Node order of the rows; ``list(G.nodes)`` by default.
    default : float, default=1.0
        Weight of edges without the attribute (before any conversion).
    weight_kind : {"distance", "similarity"} or None, default=None
        What the attribute means. ``"distance"``: small = close, used as
        is. ``"similarity"``: large = close (counts, affinities), converted
        into distances with ``conversion``. ``None`` (the default, kept for
        backward compatibility): read as distances, with a
        :class:`WeightMeaningWarning` when the values look like counts
        (integers >= 1, not all equal), as networkx's own weighted examples
        (karate club interaction counts, Les Miserables co-occurrences) are.
    conversion : {"inverse", "max_minus", "neg_log"}, default="inverse"
        Similarity-to-distance map (:func:`similarity_to_distance`):
        ``1 / w``, ``max - w`` or ``-log(w / max)``.
    max_similarity : float, default=None
        Public ``max`` of ``"max_minus"`` and ``"neg_log"``; ``None`` reads
        it from the weights with a
        :class:`~skdpgraph.exceptions.PrivacyLeakWarning`.

    Returns
    -------
    graph : scipy.sparse.csr_array of shape (n, n)
        Row ``i`` is node ``nodelist[i]``. Self-loops are dropped; a weight of
        0 is kept as a zero-weight edge.

    Examples
    --------
    >>> import networkx as nx
    >>> from skdpgraph.utils import from_networkx
    >>> G = nx.Graph([("a", "b", {"weight": 4}), ("b", "c", {"weight": 1})])
    >>> from_networkx(G, weight_kind="similarity").toarray()
    array([[0.  , 0.25, 0.  ],
           [0.25, 0.  , 1.  ],
           [0.  , 1.  , 0.  ]])
    """
    import networkx as nx

    if not isinstance(G, nx.Graph):
        raise TypeError(f"from_networkx expects a networkx.Graph; got {type(G).__name__}.")
    if conversion not in SIMILARITY_CONVERSIONS:  # checked whatever weight_kind says
        raise ValueError(
            f"conversion must be one of {SIMILARITY_CONVERSIONS}; got {conversion!r}.")
    if G.is_directed():
        raise ValueError(
            "The graph is directed; graph clustering here needs an undirected "
            "graph (use G.to_undirected() after deciding how to merge weights)."
        )
    if G.is_multigraph():
        raise ValueError(
            "Multigraphs are not supported; collapse parallel edges first "
            "(for example nx.Graph(G) keeps one of them)."
        )
    nodes = list(G.nodes) if nodelist is None else list(nodelist)
    index = {node: k for k, node in enumerate(nodes)}
    if len(index) != len(nodes):
        raise ValueError("nodelist contains duplicate nodes.")
    if len(nodes) != G.number_of_nodes():
        raise ValueError("nodelist must contain every node of G exactly once.")
    if nodelist is not None:
        missing = [node for node in nodes if node not in G]
        if missing:
            missing = missing[0]
            raise ValueError(f"nodelist holds {missing!r}, which is not a node of G; it "
                             "must contain every node of G exactly once.")
    check_n_nodes(len(nodes))
    m = G.number_of_edges()
    u = np.empty(m, dtype=np.int64)
    v = np.empty(m, dtype=np.int64)
    w = np.empty(m, dtype=np.float64)
    k = 0
    for a, b, d in G.edges(data=weight, default=default):
        if a == b:
            continue
        try:
            u[k], v[k] = index[a], index[b]
        except KeyError as exc:
            raise ValueError(f"node {exc.args[0]!r} of G is not in nodelist.") from None
        if weight is None:
            w[k] = default
        else:
            try:
                if isinstance(d, NOT_WEIGHTS):  # float() would read or truncate them
                    raise TypeError
                w[k] = float(d)
            except (TypeError, ValueError):  # the edge and its value are not named
                raise TypeError(
                    f"an edge of the graph has a non-numeric {weight!r} attribute; weights "
                    "must be real numbers."
                ) from None
        k += 1
    u, v, w = u[:k], v[:k], w[:k]
    check_weight_values(w, "the graph")
    check_weight_kind(weight_kind)
    if weight_kind == "similarity":
        w = similarity_to_distance(w, conversion, max_similarity=max_similarity)
    elif (weight_kind is None and weight is not None and data_dependent_warnings()
          and looks_like_counts(w)):
        warn_counts(w, weight)
    return edges_to_csr(u, v, w, len(nodes))


def to_networkx(graph, labels=None, label_attr="label"):
    """networkx graph from a canonical graph (or anything :func:`check_graph` accepts).

    Parameters
    ----------
    graph : ndarray or sparse matrix
        Precomputed graph.
    labels : array-like of shape (n,), default=None
        Optional node labels, stored as node attribute ``label_attr``.
    label_attr : str, default="label"
        Name of the node attribute that holds ``labels`` (unused without
        ``labels``).

    Returns
    -------
    G : networkx.Graph
        Nodes ``0..n-1``; edge weights in the ``"weight"`` attribute.
    """
    import networkx as nx

    from ._graph import check_graph  # the gateway, which itself reads networkx graphs

    graph = check_graph(graph, metric="precomputed", what="graph")
    n = graph.shape[0]
    u, v, w = graph_edges(graph)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
    if labels is not None:
        labels = np.asarray(labels)
        if labels.shape != (n,):
            raise ValueError(f"labels must have shape ({n},); got {labels.shape}.")
        nx.set_node_attributes(G, dict(enumerate(labels.tolist())), label_attr)
    return G
