"""The constructor parameters of the estimators, checked when ``fit`` starts.

scikit-learn's convention: an estimator stores its constructor arguments
untouched and validates them in ``fit``. Each estimator of the library
declares what each parameter accepts in a class attribute
``_parameter_constraints``, a dict from the parameter's name to a list of
accepted kinds (any one of them suffices):

* ``Interval(Real, low, high, closed=...)`` or ``Interval(Integral, ...)``:
  a number (not a bool) in an interval; ``None`` for an unbounded side.
  ``Real`` takes any ``numbers.Real`` (an int, a numpy float, a
  ``fractions.Fraction``), ``Integral`` any ``numbers.Integral``;
* ``StrOptions({...})``: one of the given strings;
* ``HasMethods([...])``: an object with these methods (an accountant);
* a type (``str``, ``dict``, ``numpy.random.Generator``): its instances;
* ``None``; the builtin ``callable``: any callable;
* the strings ``"boolean"`` (a Python or numpy bool), ``"verbose"`` (an
  int >= 0 or a bool), ``"random_state"`` (what
  :func:`skdpgraph.utils.check_random_state` takes: None, an int >= 0, a
  ``RandomState`` or a ``Generator``) and ``"array-like"`` (anything with a
  length, a shape or ``__array__``, but not a scalar or a string).

A value no kind accepts raises
:class:`~skdpgraph.exceptions.InvalidParameterError` (a ``ValueError`` and a
``TypeError``, as scikit-learn's), whose message names the parameter, the
estimator, what is accepted and the value given. Parameters absent from the
dict are not checked here.

:func:`fit_context` wraps ``fit`` (and ``fit_transform``, ``fit_predict``
where a class defines its own) so that the check runs first.
"""

import functools
import math
from numbers import Integral, Real

import numpy as np
from sklearn import config_context

from ..exceptions import InvalidParameterError

__all__ = ["HasMethods", "Interval", "StrOptions", "check_parameters", "fit_context"]


def _is_number(value, kind):
    return isinstance(value, kind) and not isinstance(value, (bool, np.bool_))


def _bound(value):
    if value is None:
        return "inf"
    if isinstance(value, Integral):
        return str(int(value))
    return f"{float(value):g}"


class Interval:
    """Numbers of ``kind`` (``numbers.Real`` or ``numbers.Integral``) in an interval.

    Parameters
    ----------
    kind : {numbers.Real, numbers.Integral}
    low, high : number or None
        Ends of the interval; ``None`` stands for ``-inf`` and ``inf``.
    closed : {"left", "right", "both", "neither"}
        Which ends belong to the interval (an infinite end too: ``(0,
        inf)`` refuses ``inf``, ``(0, inf]`` takes it).
    """

    def __init__(self, kind, low, high, *, closed):
        if kind not in (Real, Integral):
            raise TypeError(f"kind must be numbers.Real or numbers.Integral; got {kind!r}.")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither'; "
                             f"got {closed!r}.")
        if low is not None and high is not None and not low <= high:
            raise ValueError(f"empty interval: low={low!r} > high={high!r}.")
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value):
        if not _is_number(value, self.kind) or value != value:  # value != value: NaN
            return False
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        if value < low or (value == low and self.closed in ("right", "neither")):
            return False
        return not (value > high or (value == high and self.closed in ("left", "neither")))

    def __str__(self):
        left = "[" if self.closed in ("left", "both") else "("
        right = "]" if self.closed in ("right", "both") else ")"
        low = "-inf" if self.low is None else _bound(self.low)
        what = "an int" if self.kind is Integral else "a float"
        return f"{what} in {left}{low}, {_bound(self.high)}{right}"


class StrOptions:
    """One of a set of strings."""

    def __init__(self, options):
        self.options = frozenset(options)

    def accepts(self, value):
        return isinstance(value, str) and value in self.options

    def __str__(self):
        listed = ", ".join(repr(o) for o in sorted(self.options))
        return listed if len(self.options) == 1 else "one of {" + listed + "}"


class HasMethods:
    """An object with all the given methods."""

    def __init__(self, methods):
        self.methods = tuple([methods] if isinstance(methods, str) else methods)

    def accepts(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self):
        names = [f"{m}()" for m in self.methods]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"an object with the method{'s' if len(names) > 1 else ''} {listed}"


class _Predicate:
    """A kind given by a test (None, callables, instances of a type)."""

    def __init__(self, test, description):
        self.test, self.description = test, description

    def accepts(self, value):
        return self.test(value)

    def __str__(self):
        return self.description


def _is_array_like(value):
    return ((hasattr(value, "__len__") or hasattr(value, "shape")
             or hasattr(value, "__array__")) and not np.isscalar(value))


def _type_name(kind):
    module = kind.__module__
    name = kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
    # numpy's classes live in private modules; their public names are shorter.
    if module.startswith("numpy.random"):
        name = f"numpy.random.{kind.__qualname__}"
    article = "an" if name[0] in "aeiou" else "a"
    return f"{article} {name}"


_BOOLEAN = _Predicate(lambda v: isinstance(v, (bool, np.bool_)), "a bool")


def _kinds(constraint):
    """The primitive kinds a declared constraint stands for."""
    if isinstance(constraint, (Interval, StrOptions, HasMethods, _Predicate)):
        return [constraint]
    if constraint is None:
        return [_Predicate(lambda v: v is None, "None")]
    if constraint is callable:
        return [_Predicate(callable, "a callable")]
    if isinstance(constraint, type):
        return [_Predicate(lambda v: isinstance(v, constraint), _type_name(constraint))]
    if constraint == "boolean":
        return [_BOOLEAN]
    if constraint == "verbose":
        return [Interval(Integral, 0, None, closed="left"), _BOOLEAN]
    if constraint == "random_state":
        return [_Predicate(lambda v: v is None, "None"),
                Interval(Integral, 0, None, closed="left"),
                *_kinds(np.random.RandomState), *_kinds(np.random.Generator)]
    if constraint == "array-like":
        return [_Predicate(_is_array_like, "an array-like")]
    raise ValueError(f"unknown parameter constraint {constraint!r}.")


def _listed(descriptions):
    if len(descriptions) == 1:
        return descriptions[0]
    return ", ".join(descriptions[:-1]) + " or " + descriptions[-1]


def check_parameters(constraints, params, owner):
    """Check ``params`` against ``constraints``; raise on the first value refused.

    Parameters
    ----------
    constraints : dict
        Parameter name -> list of accepted kinds (see the module's docstring).
    params : dict
        Parameter name -> value; names absent from ``constraints`` are not
        checked.
    owner : str
        The estimator's name, for the messages.

    Raises
    ------
    skdpgraph.exceptions.InvalidParameterError
        For the first value that no accepted kind takes.
    """
    for name, value in params.items():
        if name not in constraints:
            continue
        kinds = [k for c in constraints[name] for k in _kinds(c)]
        if any(k.accepts(value) for k in kinds):
            continue
        descriptions = list(dict.fromkeys(str(k) for k in kinds))
        # "None" reads best last: "a float in (0, inf) or None".
        descriptions.sort(key=lambda d: d == "None")
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be {_listed(descriptions)}; "
            f"got {value!r}.")


def fit_context(*, skip_nested_validation):
    """Decorate a ``fit`` method: the estimator's parameters are checked first.

    The check reads ``type(estimator)._parameter_constraints`` and the
    estimator's ``get_params(deep=False)`` (:func:`check_parameters`); it
    runs whatever scikit-learn's configuration says, since the privacy
    parameters must hold before anything is released.

    Parameters
    ----------
    skip_nested_validation : bool
        Whether the scikit-learn estimators that ``fit`` builds and fits
        itself (a ``KMeans``, a ``NearestNeighbors``) skip their own
        parameter validation (``sklearn.config_context(
        skip_parameter_validation=True)``): True where their parameters come
        from the library, False where the user gives the estimator (a
        clusterer to run on a perturbed graph), whose parameters must then be
        checked.
    """

    def decorator(fit_method):
        @functools.wraps(fit_method)
        def wrapper(estimator, *args, **kwargs):
            check_parameters(type(estimator)._parameter_constraints,
                             estimator.get_params(deep=False), type(estimator).__name__)
            if not skip_nested_validation:
                return fit_method(estimator, *args, **kwargs)
            with config_context(skip_parameter_validation=True):
                return fit_method(estimator, *args, **kwargs)

        return wrapper

    return decorator
