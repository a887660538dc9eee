"""Progress of long work, scikit-learn style: ``verbose=0`` is silent."""

import sys
import time
from contextlib import contextmanager


class StageLogger:
    """Print one line per stage of a fit, with its duration, when ``verbose > 0``.

    Lines go to standard error as ``[Owner] stage: 0.123 s`` (and any detail
    the stage reports), so they never mix with a program's output.

    Parameters
    ----------
    verbose : int or bool
        Nothing is printed unless it is ``> 0``.
    owner : str
        Name at the start of each line (the estimator's).

    Examples
    --------
    >>> from skdpgraph.utils import StageLogger
    >>> log = StageLogger(0, "Model")
    >>> with log.stage("validation") as note:
    ...     note("3 nodes")
    """

    def __init__(self, verbose, owner):
        self.verbose = int(verbose or 0)
        self.owner = owner

    @contextmanager
    def stage(self, name):
        """Time the ``with`` block as stage ``name``; it receives ``note(text)``.

        Parameters
        ----------
        name : str
            The stage, as printed.

        Yields
        ------
        note : callable
            ``note(text)`` adds a detail to the stage's line.
        """
        details = []
        t0 = time.perf_counter()
        yield details.append
        if self.verbose > 0:
            extra = f" ({', '.join(details)})" if details else ""
            print(f"[{self.owner}] {name}: {time.perf_counter() - t0:.3f} s{extra}",
                  file=sys.stderr, flush=True)
