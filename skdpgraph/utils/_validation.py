"""Scalar parameter checks, written once for every layer.

Each check returns the value converted (``float`` or ``int``) and raises a
``TypeError`` for a wrong type or a ``ValueError`` naming the parameter and
the accepted range. Booleans are not numbers here. Any ``numbers.Real``
(``fractions.Fraction`` and numpy scalars included) is accepted and
converted; ``decimal.Decimal`` is not a ``numbers.Real`` and is refused.
"""

import math
import re
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassNamePrefixFeaturesOutMixin

from ._config import check_work_memory


def _interval(low, high, low_open, high_open):
    left = "(" if low_open else "["
    right = ")" if high_open else "]"
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return f"{left}{lo}, {hi}{right}"


def check_real(value, name, *, low=None, high=None, low_open=False, high_open=False,
               allow_inf=False):
    """``value`` as a float in the given interval.

    Parameters
    ----------
    value : object
        The value to check: a ``numbers.Real`` other than a bool.
    name : str
        Parameter name used in the messages.
    low, high : float or None
        Bounds of the accepted interval (None: unbounded).
    low_open, high_open : bool, default=False
        Whether the bound itself is excluded.
    allow_inf : bool, default=False
        Accept infinite values (within the bounds).

    Returns
    -------
    float
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number; got {type(value).__name__}.")
    try:
        out = float(value)
    except (OverflowError, ValueError):
        raise ValueError(f"{name} must be a finite number; got {value!r}.") from None
    if (math.isnan(out) or (math.isinf(out) and not allow_inf)) and low is None and high is None:
        raise ValueError(f"{name} must be finite; got {value!r}.")
    bad_low = math.isnan(out) or (math.isinf(out) and not allow_inf)
    bad_low |= low is not None and (out < low or (low_open and out == low))
    bad_high = high is not None and (out > high or (high_open and out == high))
    if bad_low or bad_high:
        finite = "finite and " if not allow_inf else ""
        if low == 0 and low_open and high is None:
            raise ValueError(f"{name} must be {finite}> 0; got {value!r}.")
        if low == 0 and not low_open and high is None:
            raise ValueError(f"{name} must be {finite}>= 0; got {value!r}.")
        raise ValueError(
            f"{name} must be in {_interval(low, high, low_open, high_open)}; got {value!r}."
        )
    return out


def check_positive(value, name, *, allow_zero=False, allow_inf=False, low=None, high=None):
    """``value`` as a float ``> 0`` (``>= 0`` with ``allow_zero``), finite unless
    ``allow_inf``, and within ``[low, high]`` when those are given.

    The one checker of positive scalars (scales, budgets, sensitivities):
    :func:`check_real` with the lower bound at 0.

    Parameters
    ----------
    value : object
        The value to check: a ``numbers.Real`` other than a bool.
    name : str
        Parameter name used in the messages.
    allow_zero, allow_inf : bool, default=False
        Accept 0, and infinity.
    low, high : float, default=None
        Further bounds (None: none).

    Returns
    -------
    float
    """
    value = check_real(value, name, low=0.0, low_open=not allow_zero, allow_inf=allow_inf)
    if (low is not None and value < low) or (high is not None and value > high):
        return check_real(value, name, low=low, high=high, allow_inf=allow_inf)
    return value


def check_int(value, name, minimum=None, maximum=None):
    """``value`` as an int in ``[minimum, maximum]``.

    Parameters
    ----------
    value : object
        The value to check: a ``numbers.Integral`` other than a bool.
    name : str
        Parameter name used in the messages.
    minimum, maximum : int or None, default=None
        Bounds (None: unbounded).

    Returns
    -------
    int
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__}.")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}; got {value}.")
    return value


def check_distance_range(value, name):
    """A pair ``(low, high)`` of finite floats with ``0 <= low < high``.

    Used for public weight bounds and weight ranges (weights are distances).
    """
    message = f"{name} must be a pair (low, high) of numbers; got {value!r}."
    try:
        items = list(value)
    except TypeError:
        raise TypeError(message) from None
    try:
        lo, hi = (float(x) for x in items)
    except (TypeError, ValueError):
        raise ValueError(message) from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    if lo >= hi:
        raise ValueError(
            f"{name} must satisfy low < high; got low={lo!r}, high={hi!r} "
            "(inverted or empty bounds)."
        )
    if lo < 0:
        raise ValueError(f"{name} low must be >= 0 (weights are distances); got {lo!r}.")
    return lo, hi


def check_node_labels(labels, n):
    """Codes ``0..k-1`` of one label per node (a 1-D array of length ``n``)."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            f"labels must be a 1-D array with one label per node, shape ({n},); "
            f"got shape {labels.shape}."
        )
    _, codes = np.unique(labels, return_inverse=True)
    return codes.ravel().astype(np.int64)


class GraphInputTagsMixin:
    """scikit-learn tags of an estimator whose ``X`` is a square graph.

    Square (pairwise), sparse accepted, non-negative entries; a transformer
    of such graphs returns float64.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        if tags.transformer_tags is not None:
            tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


class NodeFeaturesOutMixin(ClassNamePrefixFeaturesOutMixin):
    """``get_feature_names_out`` of a transformer whose output columns are nodes.

    The columns of a graph are its nodes (the fitted samples for a graph built
    from points), named as scikit-learn names a neighbours graph's columns
    (``"epsilongraph0"``, ...); having the method also makes ``set_output``
    available, as for :class:`sklearn.neighbors.KNeighborsTransformer`.
    Subclasses define ``_n_features_out``, raising ``AttributeError`` before fit.
    """


def check_n_nodes(n):
    """At least two nodes (a graph of fewer has nothing to cluster)."""
    if n < 2:
        raise ValueError(
            f"A graph needs at least 2 nodes; got {n} (n_samples={n}: one node a sample)."
        )


#: Values that ``float`` converts but that are no weights: text, complex numbers (their
#: imaginary part would be dropped) and dates.
NOT_WEIGHTS = (str, bytes, np.complexfloating, complex, np.datetime64, np.timedelta64)


def check_weight_dtype(dtype, what):
    """Reject dtypes that cannot hold weights (strings, objects, complex, dates)."""
    if dtype.kind == "c":
        # scikit-learn's wording, which its estimator checks look for.
        raise ValueError(f"Complex data not supported: {what} has dtype {dtype}.")
    if dtype.kind in "OUSVMm":
        raise TypeError(
            f"{what} has dtype {dtype}; graph weights must be real numbers "
            "(bool, integer or float)."
        )


def check_weight_values(values, what):
    """Finite, non-negative weights (distances). The message names neither a value nor a
    count of them: the weights may be private."""
    if values.size == 0:
        return
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"{what} contains NaN or infinite weights; weights must be finite."
        )
    if values.min() < 0:
        raise ValueError(
            f"Negative values in data: {what} contains negative weights; weights are "
            "distances and must be >= 0."
        )


def check_canonical_indices(graph=None, *, edges=None, n=None, n_weights=None):
    """The checks ``check_input=False`` keeps: what compiled loops index with.

    Skipping validation is for a graph (or a tree's edge list) that already
    is canonical; a wrong one should give a wrong answer or an error, never
    a read or write outside an array (a crash of the process). So the
    structure is checked in any case, in vectorised O(size) work: for a
    graph, a 2-D square dense array or a CSR array whose row pointers run
    from 0, never decrease and end within its indices, and whose column
    indices lie in ``[0, n)``; for ``edges``, an ``(m, 2)`` array of integers
    in ``[0, n)`` with ``n_weights == m``.

    Raises
    ------
    TypeError, ValueError
        Naming what is not canonical.
    """
    hint = " (check_input=False is for canonical input only)"
    if graph is not None:
        if sp.issparse(graph):
            if graph.format != "csr":
                raise TypeError(f"a {graph.format.upper()} graph is not canonical: the "
                                f"canonical form is a CSR array{hint}.")
            n_rows, n_cols = graph.shape
            ptr, idx = graph.indptr, graph.indices
            if (n_rows != n_cols or ptr.shape != (n_rows + 1,) or ptr[0] != 0
                    or ptr[-1] > min(idx.size, graph.data.size)
                    or (n_rows and np.any(ptr[1:] < ptr[:-1]))):
                raise ValueError(f"the CSR graph's shape or row pointers are not "
                                 f"consistent{hint}.")
            used = idx[:ptr[-1]]
            if used.size and (used.min() < 0 or used.max() >= n_cols):
                raise ValueError(f"the CSR graph has a column index outside 0..{n_cols - 1}"
                                 f"{hint}.")
        elif not (isinstance(graph, np.ndarray) and graph.ndim == 2
                  and graph.shape[0] == graph.shape[1]):
            raise TypeError(f"a graph of type {type(graph).__name__} is not canonical: the "
                            f"canonical form is a square ndarray or a CSR array{hint}.")
    if edges is not None:
        edges = np.asarray(edges)
        if edges.ndim != 2 or edges.shape[1] != 2 or (edges.size and edges.dtype.kind
                                                        not in "iu"):
            raise ValueError(f"edges must be an (m, 2) array of node numbers{hint}.")
        if n_weights is not None and n_weights != edges.shape[0]:
            raise ValueError(f"{edges.shape[0]} edges and {n_weights} weights{hint}.")
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise ValueError(f"an edge has a node outside 0..{n - 1}{hint}.")


#: The most nodes whose pair keys ``min(u, v) * n + max(u, v)`` fit in int64.
_MAX_KEYED_NODES = math.isqrt(np.iinfo(np.int64).max)


def check_node_count(n, what, node_bytes):
    """Refuse a node count whose pair keys ``min(u, v) * n + max(u, v)`` overflow int64
    (past 3,037,000,499 nodes) or whose per-node arrays
    (``node_bytes`` a node, a lower bound) this process cannot hold.

    The compiled loops allocate their node arrays at once; without this a
    count such as ``2**31`` is numba's "Allocation failed" or the process
    killed by the system.
    """
    if n > _MAX_KEYED_NODES:
        raise ValueError(f"{what}: at most {_MAX_KEYED_NODES} nodes (a pair of nodes is "
                         f"keyed min(u, v) * n + max(u, v) in int64); got n={n}.")
    check_work_memory(node_bytes * float(n), f"{what} on {n} nodes", before_charge=False)


def check_edge_list(u, v, n, *, forest=False, what="An edge list", node_bytes=16.0):
    """``(u, v, n)`` as two int64 arrays and an int, checked before compiled loops
    index with them.

    ``n`` is an integer >= 0; ``u`` and ``v`` are 1-D integer arrays of one
    shape whose endpoints lie in ``[0, n)``, with no edge from a node to itself
    and each unordered pair at most once; with ``forest=True`` the edges also
    form no cycle. Edges may come in any order and orientation. Raises
    ``TypeError`` for a wrong type and ``ValueError`` naming the problem;
    :func:`check_node_count` with ``what`` and ``node_bytes`` (the caller's
    per-node memory) refuses node counts that cannot be worked on.
    The arrays returned may be views of the arrays given.
    """
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise TypeError(f"n must be an integer; got {n!r}.")
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be non-negative; got {n}.")
    check_node_count(n, what, node_bytes)
    arrays = []
    for name, x in (("u", u), ("v", v)):
        x = np.asarray(x)
        if x.ndim != 1 or (x.size and x.dtype.kind not in "iu"):
            raise TypeError(f"{name} must be a 1-D array of integers; got dtype {x.dtype} "
                            f"and shape {x.shape}.")
        arrays.append(x.astype(np.int64, copy=False))
    u, v = arrays
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same shape (m,); got {u.shape} and "
                         f"{v.shape}.")
    if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise ValueError(f"edge endpoints must be in [0, n) = [0, {n}).")
    if np.any(u == v):
        raise ValueError("an edge joins a node to itself (u == v).")
    codes = np.minimum(u, v)
    codes *= n
    codes += np.maximum(u, v)
    if np.any(codes[1:] <= codes[:-1]):  # not sorted: sort to look for repeats
        codes = np.sort(codes)
        if np.any(codes[1:] == codes[:-1]):
            raise ValueError("each unordered pair {u, v} must appear at most once.")
    if forest and u.size:
        from ._sparse import component_labels  # numba: imported when used

        n_comp = component_labels(u, v, n)[0]
        if u.size != n - n_comp:
            raise ValueError(
                f"the edges must form a forest (no cycle): {u.size} edges on {n} nodes in "
                f"{n_comp} component(s) contain {u.size - n + n_comp} cycle(s).")
    return u, v, n


#: The entry a conversion of numpy's failed on, quoted after a colon.
_QUOTED_ENTRY = re.compile(r"((?:could not convert|invalid literal for)[^:]*): .*")


def _without_values(message):
    """``message`` without what it quotes of the input: the entry of a failed conversion,
    and the array scikit-learn prints on the lines after the first (all of them but its
    advice to reshape)."""
    first, *rest = message.split("\n")
    first = _QUOTED_ENTRY.sub(r"\1", first).rstrip(":").rstrip()
    return "\n".join([first] + [line for line in rest if line.startswith("Reshape")])


@contextmanager
def values_withheld(what):
    """Re-raise the ``ValueError`` and ``TypeError`` of scikit-learn's and numpy's input
    checks inside the block without the entries or arrays they quote (the input may be
    private): in their wording, prefixed with ``what``, and without the original in the
    traceback."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        message = str(exc)
        clean = _without_values(message)
        if clean == message:
            raise
        clean = f"{what}: {clean}"
        try:
            withheld = type(exc)(clean)
        except Exception:  # a subclass whose constructor takes more than a message
            withheld = (ValueError if isinstance(exc, ValueError) else TypeError)(clean)
        raise withheld from None
