"""Every warning and error class of skdpgraph.

The warnings fall into two kinds, by what decides whether they fire:

* **computed from public parameters** (and from what a release has already
  made public): :class:`NoiseDominatesWarning`,
  :class:`FewerClustersWarning`, and the
  :class:`PrivacyLeakWarning` that says a release uses bounds computed from
  the data. Whether they fire reveals nothing private;
* **computed from the private data** (:class:`DataDependentWarning` and its
  subclasses): diagnostics for the data curator -- weights that look like
  counts, weights that are all equal, a graph that falls apart into
  components, weights clipped into their bounds. Whether they fire, and what
  they say, depends on the private data, so they are not covered by any
  privacy guarantee: a deployment whose logs or outputs are published turns
  them all off with ``skdpgraph.utils.set_config(data_dependent_warnings=False)``
  (they are then not even computed). ``docs/privacy.md`` lists each one with
  its condition.
"""

__all__ = [
    "PrivacyLeakWarning",
    "DataDependentWarning",
    "WeightMeaningWarning",
    "ConstantWeightsWarning",
    "DisconnectedGraphWarning",
    "NoiseDominatesWarning",
    "FewerClustersWarning",
    "BudgetError",
    "DetachedAccountantError",
    "DenseMemoryError",
    "WorkMemoryError",
    "InvalidParameterError",
]


class PrivacyLeakWarning(UserWarning):
    """Something is revealed that the privacy guarantee does not cover.

    Emitted, as in diffprivlib, when normalisation bounds are computed from
    the private weights because no public bounds were given (the condition,
    ``weight_bounds=None``, is public; the bounds then released are not
    covered). Its subclass :class:`DataDependentWarning` is every diagnostic
    computed from the private data.
    """


class DataDependentWarning(PrivacyLeakWarning):
    """A diagnostic computed from the private data, for the data curator.

    Whether it fires and what it says depend on the private data, so showing
    it to anyone else is a release the guarantee does not cover. All such
    warnings are subclasses of this one and are raised only while
    ``skdpgraph.utils.get_config()["data_dependent_warnings"]`` is true (the
    default); set it false to turn them off, computation included.
    """


class WeightMeaningWarning(DataDependentWarning):
    """Weights read as distances look like similarities (counts, a kernel), or a dense
    matrix like an adjacency matrix (mostly zeros: edges of distance 0 there).

    The message says why, and how to say what the weights mean:
    ``weight_kind="similarity"`` to convert them, ``weight_kind="distance"``
    to keep them as they are (which silences the warning).
    """


class ConstantWeightsWarning(DataDependentWarning):
    """Every edge of the graph has the same weight: DBMSTClu has nothing to cut on.

    With equal weights every cut of the spanning tree scores alike and
    DBMSTClu returns one cluster per node (equal positive weights) or an
    arbitrary split in two (all weights 0: the first cut already reaches the
    largest index). The fix: give the graph weights
    that mean something, e.g. structural distances
    (:class:`skdpgraph.graphs.StructuralDistance`) for an unweighted graph,
    or cluster it with :class:`~skdpgraph.cluster.SCAN`.
    """


class DisconnectedGraphWarning(DataDependentWarning):
    """The graph built from the data has several connected components.

    The clusterers treat each component separately, so no cluster spans two
    of them. Emitted by the graph builders and by
    :class:`~skdpgraph.cluster.GraphKMedoids` when components are left
    without a medoid.
    """


class NoiseDominatesWarning(UserWarning):
    """A release is so noisy that its output is about what pure noise gives.

    Emitted by :class:`~skdpgraph.cluster.PrivateMSTClustering` from public
    parameters only (the mechanism, ``epsilon``, the sensitivity, the weight
    bounds and the size of the graph; see
    :func:`skdpgraph.privacy.signal_epsilon`); the message gives the
    ``epsilon`` from which the mechanism carries signal.
    """


class FewerClustersWarning(UserWarning):
    """A clusterer given ``n_clusters`` returned fewer clusters.

    Emitted by the edge-DP community detectors of :mod:`skdpgraph.cluster`
    when the labels they return hold fewer than the ``n_clusters`` asked
    for: refinement can empty a community (every node leaves it), and a
    release near the detection limit carries too little signal to keep the
    communities apart. The count is read from the released labels only, so
    the warning is computed from public values: whether it fires adds
    nothing to what the labels show.
    """


class BudgetError(ValueError):
    """Raised when a privacy spend would exceed the accountant's budget."""


class DetachedAccountantError(BudgetError):
    """Raised where a spend could not reach the budget it belongs to.

    By a :class:`~skdpgraph.privacy.BudgetAccountant` restored from a pickle
    (a saved model, or a copy sent to a worker process), whose spends would
    never reach the original; and by the default accountant in a worker
    process that did not set one itself. The fit refuses before it reads
    anything private.
    """


class DenseMemoryError(MemoryError, ValueError):
    """A dense path would allocate more than ``max_dense_memory`` bytes."""


class WorkMemoryError(MemoryError, ValueError):
    """Work whose size follows from public counts cannot fit in this process's memory.

    Raised before a private estimator charges its budget, from a lower bound
    of what the fit needs (bytes per node) against the most this process can
    hold (physical memory, its address-space limit, its control group's
    limit): a fit that would fail for memory is refused with nothing spent.
    """


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter of an estimator is outside what it accepts.

    Raised when ``fit`` starts, before anything is read or released; the
    message names the parameter, the estimator, what is accepted and the
    value given. A ``ValueError`` and a ``TypeError`` at once, as
    scikit-learn's error of the same name, so that code catching either
    keeps working.
    """
