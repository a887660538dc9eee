"""What a weight means: distances, similarities, and the conversions between them.

The library's graphs hold *distances* (small = close). Many graphs people have
hold *similarities* instead (large = close): interaction or co-occurrence
counts in networkx graphs, kernel matrices such as scikit-learn's
``rbf_kernel``. Reading a similarity as a distance turns every cluster inside
out, silently. :func:`similarity_to_distance` converts with one of the usual
decreasing maps, and :func:`check_weight_kind` names the meaning explicitly.
"""

import math

import numpy as np

from ..exceptions import DataDependentWarning, PrivacyLeakWarning, WeightMeaningWarning
from ._config import data_dependent_warnings, warn_data_dependent
from ._warnings import warn

#: Values of ``weight_kind`` (``None``: distances, with a warning when the
#: weights look like counts or a kernel).
WEIGHT_KINDS = ("distance", "similarity")

#: Conversions of a similarity ``s`` into a distance: ``1 / s``, ``max - s``
#: and ``-log(s / max)``.
SIMILARITY_CONVERSIONS = ("inverse", "max_minus", "neg_log")


def check_weight_kind(weight_kind):
    """``weight_kind`` checked: None, ``"distance"`` or ``"similarity"``.

    Parameters
    ----------
    weight_kind : {"distance", "similarity"} or None
        What the weights of a graph mean (see :func:`check_graph`).

    Returns
    -------
    weight_kind : {"distance", "similarity"} or None
        ``weight_kind`` itself.

    Raises
    ------
    ValueError
        For any other value.
    """
    if weight_kind is not None and weight_kind not in WEIGHT_KINDS:
        raise ValueError(
            f"weight_kind must be 'distance', 'similarity' or None; got {weight_kind!r}."
        )
    return weight_kind


def warn_max_from_data(conversion):
    """The :class:`~skdpgraph.exceptions.PrivacyLeakWarning` of a largest similarity read
    from the data (``max_similarity=None``).

    Parameters
    ----------
    conversion : str
        The map that needs the largest similarity.
    """
    warn(
        f"conversion={conversion!r} needs the largest similarity; it is read from "
        "the data. Under weight-DP this leaks the largest private weight, which "
        "the guarantee does not cover: pass a public max_similarity (e.g. the "
        "largest possible count).",
        PrivacyLeakWarning,
    )


def similarity_to_distance(similarities, conversion="inverse", *, max_similarity=None):
    """Distances from similarities by a decreasing (order-reversing) map.

    Parameters
    ----------
    similarities : array-like of float
        Non-negative similarities (larger = closer).
    conversion : {"inverse", "max_minus", "neg_log"}, default="inverse"
        * ``"inverse"``: ``d = 1 / s``. Needs ``s > 0``; needs no maximum, and
          multiplying every similarity by a constant divides every distance
          by it (DBMSTClu, being scale invariant, is then unaffected by the
          unit of the similarities).
        * ``"max_minus"``: ``d = max - s``. 1-Lipschitz: a change of ``mu``
          in a similarity moves the distance by ``mu``, so a weight-DP
          ``sensitivity`` stated for the similarities holds for the distances
          unchanged (with a public ``max``).
        * ``"neg_log"``: ``d = -log(s / max)`` (``s = max`` gives 0). Needs
          ``s > 0``; ratios of similarities become differences of distances.

        ``"inverse"`` and ``"neg_log"`` are not Lipschitz near ``s = 0``
        (slopes ``1 / s**2`` and ``1 / s``): under weight-DP the sensitivity
        must then be stated for the converted distances.
    max_similarity : float, default=None
        ``max`` of ``"max_minus"`` and ``"neg_log"``. Give a public bound
        (e.g. the largest possible count): similarities above it are clipped
        to it with a :class:`~skdpgraph.exceptions.PrivacyLeakWarning` (clipping
        keeps a weight-DP guarantee; the warning reveals that a similarity
        was out of bounds). ``None``: the largest similarity is read from the
        data, with a ``PrivacyLeakWarning``: under weight-DP the maximum of
        the private weights is not covered by the guarantee.

    Returns
    -------
    distances : ndarray of float64
        Same shape; non-negative, in the reverse order of the similarities.

    Raises
    ------
    ValueError
        For negative or non-finite similarities, a zero similarity with
        ``"inverse"`` or ``"neg_log"`` (no finite distance: drop the edge or
        use ``"max_minus"``), or an unknown conversion. With ``"inverse"``, a
        similarity below ``1 / float max`` (about ``5.6e-309``) becomes the
        largest float.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgraph.utils import similarity_to_distance
    >>> similarity_to_distance([1.0, 2.0, 4.0])
    array([1.  , 0.5 , 0.25])
    >>> similarity_to_distance([1.0, 2.0, 4.0], "max_minus", max_similarity=4.0)
    array([3., 2., 0.])
    >>> similarity_to_distance([1.0, 2.0, 4.0], "neg_log", max_similarity=4.0).round(3)
    array([1.386, 0.693, 0.   ])
    """
    if conversion not in SIMILARITY_CONVERSIONS:
        raise ValueError(
            f"conversion must be one of {SIMILARITY_CONVERSIONS}; got {conversion!r}."
        )
    given = np.asarray(similarities)
    if given.dtype.kind in "cUSVMm":  # complex would lose its imaginary part
        raise TypeError(f"similarities must be real numbers; got dtype {given.dtype}.")
    s = np.array(given, dtype=np.float64, copy=True)
    if s.size and not np.all(np.isfinite(s)):
        raise ValueError("similarities must be finite.")
    if s.size and s.min() < 0:
        raise ValueError(
            "similarities must be >= 0 (some are negative). Shift them by a public "
            "constant first."
        )
    if conversion in ("inverse", "neg_log") and s.size and s.min() == 0:
        raise ValueError(
            "some similarities are 0, which have no "
            f"finite distance under conversion={conversion!r}: drop those edges, or "
            "convert with conversion='max_minus' (skdpgraph.from_networkx, "
            "skdpgraph.graphs.SimilarityToDistance or skdpgraph.similarity_to_distance) "
            "and pass the distances."
        )
    if conversion == "inverse":
        # Below 1 / float max (about 5.6e-309) the inverse overflows: the largest float
        # instead, so that no positive similarity is refused (a refusal that a private
        # value decides); weight bounds then clip it as any other distance.
        with np.errstate(over="ignore"):
            d = 1.0 / s
        return np.minimum(d, np.finfo(np.float64).max, out=d)
    if max_similarity is None:
        warn_max_from_data(conversion)
        top = float(s.max()) if s.size else 1.0
    else:
        top = float(max_similarity)
        if not (math.isfinite(top) and top > 0):
            raise ValueError(f"max_similarity must be finite and > 0; got {max_similarity!r}.")
        if data_dependent_warnings():
            above = int(np.count_nonzero(s > top))
            if above:
                warn_data_dependent(
                    f"{above} similarity(ies) exceed max_similarity={top:g} and were "
                    "clipped to it (this keeps a weight-DP guarantee; the warning itself "
                    "reveals that some similarity was out of bounds).",
                    DataDependentWarning,
                )
        np.minimum(s, top, out=s)
    if conversion == "max_minus":
        return top - s
    return np.maximum(np.log(top) - np.log(s), 0.0)


def looks_like_counts(weights):
    """True when weights are integers >= 1, not all equal (counts, most likely)."""
    w = np.asarray(weights, dtype=np.float64)
    return bool(w.size and w.min() >= 1 and w.max() > w.min()
                and np.all(w == np.round(w)))


def warn_counts(weights, attribute):
    warn_data_dependent(  # the values themselves are not shown: they may be private
        f"The {attribute!r} edge attribute holds integers >= 1, which look like counts "
        "(interactions, co-occurrences): counts "
        "are similarities (larger = closer) but are read here as distances (smaller = "
        "closer). Convert them into distances with weight_kind='similarity' (1/w by "
        "default) where the call takes it (DBMSTClu, PrivateMSTClustering, "
        "check_graph, from_networkx), else first with skdpgraph.from_networkx(G, "
        "weight_kind='similarity'); or pass weight_kind='distance' there if they are "
        "distances (this silences the warning).",
        WeightMeaningWarning,
    )


def looks_like_adjacency(D):
    """True for a dense square matrix of three nodes or more, most of whose off-diagonal
    entries are 0 (``networkx.to_numpy_array`` of a sparse graph): distances between
    distinct points are rarely 0, missing edges of an adjacency matrix always are."""
    n = D.shape[0]
    if n < 3:
        return False
    off_zeros = np.count_nonzero(D == 0) - np.count_nonzero(np.diagonal(D) == 0)
    return bool(off_zeros > (n * (n - 1)) // 2)


def looks_like_kernel(D):
    """True for a dense square matrix whose positive diagonal dominates each row.

    A distance matrix has a zero diagonal; a similarity (kernel) matrix such
    as an RBF kernel has each point most similar to itself.
    """
    n = D.shape[0]
    diag = np.diagonal(D)
    if n < 2 or not np.all(diag > 0):
        return False
    off = np.where(np.eye(n, dtype=bool), -np.inf, D)
    return bool(np.all(diag >= off.max(axis=1)))
