"""Library-wide settings: the memory a dense (n x n) path may allocate, and
whether diagnostics computed from the private data are shown; and the check of
work against the memory the process can hold."""

import os
import threading
from contextlib import contextmanager

import numpy as np

from ..exceptions import DataDependentWarning, DenseMemoryError, WorkMemoryError
from ._warnings import warn

#: Entries handled at once by the chunked loops of the library (sparse
#: sampling, exact distances, noise blocks): temporaries stay at a few times
#: this size whatever the input, and each block stays in cache.
CHUNK_SIZE = 1 << 16

_state = threading.local()
_DEFAULTS = {"max_dense_memory": 4 * 2**30}
#: Environment variable giving the default of ``data_dependent_warnings`` in
#: every process, worker processes included ("0", "false", "no", "off": off).
DATA_DEPENDENT_WARNINGS_ENV = "SKDPGRAPH_DATA_DEPENDENT_WARNINGS"
# Process-wide, not per thread: a setting that keeps private diagnostics out
# of published logs must hold in joblib's and Dask's threads too.
_process = {"data_dependent_warnings": None}  # None: from the environment


def _config():
    if not hasattr(_state, "config"):
        _state.config = dict(_DEFAULTS)
    return _state.config


def data_dependent_warnings():
    """Whether diagnostics computed from the private data are computed and shown.

    ``set_config(data_dependent_warnings=...)`` if it was called in this
    process, else the environment variable ``SKDPGRAPH_DATA_DEPENDENT_WARNINGS``
    (off for "0", "false", "no" or "off"), else on.
    """
    value = _process["data_dependent_warnings"]
    if value is None:
        env = os.environ.get(DATA_DEPENDENT_WARNINGS_ENV, "1").strip().lower()
        return env not in ("0", "false", "no", "off")
    return value


def warn_data_dependent(message, category):
    """Emit a :class:`~skdpgraph.exceptions.DataDependentWarning` (if they are on).

    Callers check :func:`data_dependent_warnings` before computing the
    condition, so that a deployment that turns them off does not even
    compute them. The warning points at the user's line (:func:`warn`).
    """
    if not issubclass(category, DataDependentWarning):
        raise TypeError(f"{category.__name__} is not a DataDependentWarning.")
    if data_dependent_warnings():
        warn(message, category)


def get_config():
    """The current settings (a copy).

    ``max_dense_memory`` in bytes (per thread) and ``data_dependent_warnings``
    (per process).

    Returns
    -------
    config : dict
        Keys ``"max_dense_memory"`` (a number of bytes) and
        ``"data_dependent_warnings"`` (a bool), as :func:`set_config`
        describes them; changing the dict changes no setting.
    """
    config = dict(_config())
    config["data_dependent_warnings"] = data_dependent_warnings()
    return config


def set_config(max_dense_memory=None, data_dependent_warnings=None):
    """Change the library-wide settings.

    Parameters
    ----------
    max_dense_memory : int, default=None
        Bytes a dense path may allocate before it refuses with an estimate:
        the ``(n, n)`` distances of a feature matrix turned into its
        complete graph, ``HomogeneousGraph``, an ``EpsilonGraph`` of a
        radius that makes it nearly complete (about 100 bytes an edge), the
        ``(n, k)`` iterates of the noisy power method, and the ``(|E'|, k)``
        messages of belief propagation (``skdpgraph.edge_dp``); default
        4 GiB. For the current thread. ``None`` leaves it as is.
    data_dependent_warnings : bool, default=None
        Whether the diagnostics computed from the private data
        (:class:`~skdpgraph.exceptions.DataDependentWarning` and its
        subclasses: weights that look like counts, equal weights, a
        disconnected graph, weights clipped into their bounds) are computed
        and shown. They are for the data curator: turn them off where logs
        or outputs are published, since whether they fire depends on the
        private data. For the whole process (all threads); worker processes
        take theirs from the environment variable
        ``SKDPGRAPH_DATA_DEPENDENT_WARNINGS`` (``0`` turns them off), which
        is also the default here. ``None`` leaves it as is.
    """
    if max_dense_memory is not None:
        if (isinstance(max_dense_memory, bool)
                or not isinstance(max_dense_memory, (int, float, np.integer, np.floating))
                or not float(max_dense_memory) > 0):
            raise ValueError(f"max_dense_memory must be a positive number of bytes; got "
                             f"{max_dense_memory!r}.")
        _config()["max_dense_memory"] = float(max_dense_memory)
    if data_dependent_warnings is not None:
        if not isinstance(data_dependent_warnings, bool):
            raise TypeError("data_dependent_warnings must be True or False; got "
                            f"{data_dependent_warnings!r}.")
        _process["data_dependent_warnings"] = data_dependent_warnings


@contextmanager
def config_context(**settings):
    """Temporarily change the settings, as :func:`set_config` takes them.

    On exit, every setting is restored to its value on entry, also when the
    block raises.

    Parameters
    ----------
    **settings : dict
        Keyword arguments of :func:`set_config` (``max_dense_memory``,
        ``data_dependent_warnings``); ``None`` or an omitted setting leaves
        it as is.

    Yields
    ------
    None
        The settings hold within the ``with`` block.

    Examples
    --------
    >>> from skdpgraph.utils import config_context, get_config
    >>> with config_context(max_dense_memory=2**20):
    ...     get_config()["max_dense_memory"]
    1048576.0
    """
    old = dict(_config())
    old_process = dict(_process)
    set_config(**settings)
    try:
        yield
    finally:
        _config().update(old)
        _process.update(old_process)


def _bytes(x):
    return f"{x / 2**30:.2f} GiB" if x >= 2**30 else f"{x / 2**20:.1f} MiB"


def check_dense_memory(shape, copies, what, advice=None):
    """Refuse, before allocating, ``copies`` dense float64 arrays of ``shape`` past the limit.

    Parameters
    ----------
    shape : int or (int, int)
        ``(n_rows, n_cols)``, or ``n`` for ``(n, n)``.
    copies : float
        Number of such arrays.
    what : str
        What needs them, for the message.
    advice : str, default=None
        Replaces the default suggestion (a sparse graph instead of
        distances).

    Raises
    ------
    skdpgraph.exceptions.DenseMemoryError
        Past ``get_config()["max_dense_memory"]``.
    """
    n_rows, n_cols = (shape, shape) if isinstance(shape, (int, np.integer)) else shape
    if n_rows < 0 or n_cols < 0 or not copies >= 0:
        raise ValueError(f"check_dense_memory needs counts >= 0; got shape {shape!r} and "
                         f"copies {copies!r}.")
    need = 8.0 * n_rows * n_cols * copies
    limit = _config()["max_dense_memory"]
    if need > limit:
        if advice is None:
            advice = ("These are distances: pass a sparse graph (for example "
                      "skdpgraph.graphs.EpsilonGraph or a k-nearest-neighbours graph) with "
                      "metric='precomputed'")
        raise DenseMemoryError(
            f"{what} needs about {_bytes(need)} for dense ({n_rows}, {n_cols}) arrays, "
            f"above the limit of {_bytes(limit)}. {advice}; or raise the limit with "
            "skdpgraph.utils.set_config(max_dense_memory=...)."
        )


def memory_limit():
    """The most memory this process can hold, in bytes, or None where unknown.

    The smallest of the machine's physical memory and swap, the process's
    soft address-space limit (``ulimit -v``) and its control group's limit
    (``memory.max`` of cgroup v2, as containers set it).
    """
    limits = []
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        limits.append(memory + _swap_bytes())
    except (AttributeError, ValueError, OSError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limits.append(soft)
    except (ImportError, AttributeError, ValueError, OSError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            text = f.read().strip()
        if text.isdigit():
            limits.append(int(text))
    except OSError:
        pass
    limits = [x for x in limits if x > 0]
    return min(limits) if limits else None


def _swap_bytes():
    """The machine's swap space (Linux's ``SwapTotal``; 0 where unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("SwapTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def check_work_memory(n_bytes, what, *, before_charge=True):
    """Refuse work that needs at least ``n_bytes`` where this process cannot hold them.

    For the checks a private estimator makes before its charge, and the
    compiled loops' node arrays: ``n_bytes`` is a lower bound from public
    counts (so nothing that could run is refused), compared with
    :func:`memory_limit`.

    Parameters
    ----------
    n_bytes : float
        A lower bound of the bytes the work allocates.
    what : str
        What needs them, for the message.
    before_charge : bool, default=True
        Whether the message says that nothing was charged (a private fit's
        check before its charge).

    Raises
    ------
    skdpgraph.exceptions.WorkMemoryError
        Where ``n_bytes`` exceeds :func:`memory_limit`.
    """
    limit = memory_limit()
    if limit is not None and n_bytes > limit:
        raise WorkMemoryError(
            f"{what} needs at least {_bytes(n_bytes)}, more than this process can hold "
            f"({_bytes(limit)}: the smallest of the physical memory with swap, the "
            "address-space limit and the control group's limit)."
            + (" Nothing was charged." if before_charge else ""))
