"""Warnings that point at the user's line.

A warning is most useful where the user can act on it: at the line of their
own code that called the library, not at the library's inner line that
noticed the problem. :func:`warn` finds that line by walking up the call
stack past the frames of skdpgraph itself and of the libraries that may sit
between the user and skdpgraph (scikit-learn's Pipeline and model selection,
and joblib under them), so the count of frames in between never has to be
maintained by hand.
"""

import inspect
import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: Libraries whose frames stand between the user's code and skdpgraph.
_PASS_THROUGH = ("sklearn", "joblib")


def _internal_prefixes():
    prefixes = [_PACKAGE_DIR]
    for name in _PASS_THROUGH:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            prefixes.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(prefixes)


def user_stacklevel():
    """The ``stacklevel`` that makes the caller's warning point at the user's line.

    For ``warnings.warn(..., stacklevel=user_stacklevel())`` called in a
    function of skdpgraph: the number of frames from that function up to
    the first frame outside skdpgraph, scikit-learn and joblib (the
    outermost frame when there is none).
    """
    prefixes = _internal_prefixes()
    frame = inspect.currentframe().f_back  # the function that will warn
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(prefixes):
        if frame.f_back is None:
            break
        frame = frame.f_back
        level += 1
    return level


def warn(message, category):
    """``warnings.warn`` pointing at the user's line (:func:`user_stacklevel`)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())
