"""Library-wide settings: the memory a dense (n x n) path may allocate."""

import threading

import numpy as np
from contextlib import contextmanager

_state = threading.local()
_DEFAULTS = {"max_dense_memory": 4 * 2**30}


def _config():
    if not hasattr(_state, "config"):
        _state.config = dict(_DEFAULTS)
    return _state.config


def get_config():
    """The current settings (a copy): ``max_dense_memory`` in bytes."""
    return dict(_config())


def set_config(max_dense_memory=None):
    """Change the library-wide settings (for the current thread).

    Parameters
    ----------
    max_dense_memory : int, default=None
        Bytes a dense path may allocate before it refuses with an estimate:
        the ``(n, n)`` distances of a feature matrix turned into its
        complete graph, ``HomogeneousGraph``, and the ``(|E'|, k)`` messages
        of belief propagation (``skdpgraph.edge_dp``); default 4 GiB.
        ``None`` leaves it as is.
    """
    if max_dense_memory is not None:
        if isinstance(max_dense_memory, bool) or not float(max_dense_memory) > 0:
            raise ValueError(f"max_dense_memory must be a positive number of bytes; got "
                             f"{max_dense_memory!r}.")
        _config()["max_dense_memory"] = float(max_dense_memory)


@contextmanager
def config_context(**settings):
    """Temporarily change the settings, as :func:`set_config` takes them.

    Examples
    --------
    >>> from skdpgraph.utils import config_context, get_config
    >>> with config_context(max_dense_memory=2**20):
    ...     get_config()["max_dense_memory"]
    1048576.0
    """
    old = get_config()
    set_config(**settings)
    try:
        yield
    finally:
        _config().update(old)


class DenseMemoryError(MemoryError, ValueError):
    """A dense path would allocate more than ``max_dense_memory`` bytes."""


def _bytes(x):
    return f"{x / 2**30:.2f} GiB" if x >= 2**30 else f"{x / 2**20:.1f} MiB"


def check_dense_memory(shape, copies, what, advice=None):
    """Refuse, before allocating, ``copies`` dense float64 arrays of ``shape`` past the limit.

    ``shape`` is ``(n_rows, n_cols)``, or ``n`` for ``(n, n)``. ``advice``
    replaces the default suggestion (a sparse graph instead of distances).
    """
    n_rows, n_cols = (shape, shape) if isinstance(shape, (int, np.integer)) else shape
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
