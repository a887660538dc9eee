"""Privacy accounting: a pure-composition budget accountant and zCDP helpers.

Two ways of adding up privacy losses are used by the library:

* **pure composition** (the papers' choice): the epsilons (and deltas) of the
  mechanisms run on the same data add up. :class:`BudgetAccountant` keeps such a
  running total and refuses to overspend.
* **zero-concentrated DP** (zCDP, Bun and Steinke 2016): each mechanism is
  ``rho``-zCDP for some ``rho``; the rhos add up, and the total converts to an
  ``(epsilon, delta)`` guarantee at the end. For many small steps (PAMST makes
  ``|V| - 1`` of them) the per-step budget then shrinks like ``1/sqrt(|V|)``
  instead of ``1/|V|``.

Any object with diffprivlib-style ``check(epsilon, delta)`` and
``spend(epsilon, delta)`` methods can stand in for :class:`BudgetAccountant`
(duck typing), so one budget can be shared with other libraries.

References
----------
.. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds", TCC 2016 (Prop. 1.3: pure
   eps-DP is eps^2/2-zCDP; Prop. 1.6: the Gaussian mechanism; Lemma 2.3 / Prop.
   1.7: composition; Prop. 1.3 / Lemma 3.5: conversion to (eps, delta)-DP).
.. [CR21] M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating:
   Unifying Privacy Loss Composition for Data Analytics", ALT 2021 (the
   eps-DP exponential mechanism is eps^2/8-zCDP).
.. [CKS20] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020 (Prop. 12 / Cor. 13: a tighter
   zCDP -> (eps, delta)-DP conversion).
"""

import functools
import math
import multiprocessing
import os
import sys
import threading
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
from scipy.optimize import minimize_scalar

from ..exceptions import BudgetError, DetachedAccountantError
from ..utils import check_positive, check_real

#: Relative slack allowed when a spend lands exactly on the budget
#: (sums of floats such as 0.1 + 0.2 must not overspend 0.3).
_BUDGET_RTOL = 1e-12


def _in_worker_process():
    """True in a process started by multiprocessing, joblib's loky or a Dask nanny, or
    in a task of a Dask worker with no scheduler in its process (a cluster of threads
    runs its workers in the caller's process, beside the scheduler)."""
    if multiprocessing.parent_process() is not None:
        return True
    distributed = sys.modules.get("distributed")  # imported only where Dask is used
    if distributed is None:
        return False
    try:
        distributed.get_worker()
    except ValueError:  # not in a Dask task
        return False
    return not len(getattr(distributed.Scheduler, "_instances", ()))


# The open ``with`` blocks, in the order entered: (process id, thread id, accountant).
_BLOCKS = []
_BLOCKS_LOCK = threading.Lock()


def _new_lock_in_child():
    # A lock another thread held at the fork would be held for ever in the child.
    global _BLOCKS_LOCK
    _BLOCKS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def _check_eps_delta(epsilon, delta, *, allow_inf=True):
    return (check_real(epsilon, "epsilon", low=0.0, allow_inf=allow_inf),
            check_real(delta, "delta", low=0.0, high=1.0))


def _terms(epsilon, delta):
    """The four numbers a spend adds to the totals: epsilon, delta, and advanced
    composition's ``eps (e^eps - 1) / (e^eps + 1)`` and ``eps**2``."""
    e = epsilon
    return e, delta, (e * math.expm1(e) / (math.exp(e) + 1.0) if e < 700 else e), e * e


class _Ledger:
    """Exact running sums of the spends' terms, and the product of their ``1 - delta``.

    Each float term is added exactly (a :class:`fractions.Fraction`; an infinite
    one makes its sum infinite), so that a sum read as a float is the correctly
    rounded sum of all the terms, the value :func:`math.fsum` gives, in O(1) per
    spend whatever their number; the product is the running one, in the order
    of the spends (as :func:`math.prod` of them).
    """

    def __init__(self, spends=()):
        self.sums, self.keep, self.count = [Fraction(0)] * 4, 1.0, 0
        for epsilon, delta in spends:
            self.add(epsilon, delta)

    def add(self, epsilon, delta, times=1):
        # A float sum is infinite already (and stays so); an infinite term makes it so.
        self.sums = [s if isinstance(s, float) else t if not math.isfinite(t)
                     else s + times * Fraction(t)
                     for s, t in zip(self.sums, _terms(epsilon, delta))]
        self.keep *= 1.0 - delta if times == 1 else (1.0 - delta) ** times
        self.count += times
        return self

    def copy(self):
        other = _Ledger()
        other.sums, other.keep, other.count = list(self.sums), self.keep, self.count
        return other

    def total(self, slack):
        """``(epsilon, delta)`` of the spends, under ``slack`` (see BudgetAccountant)."""
        eps = _as_float(self.sums[0])
        if not slack:
            return eps, min(1.0, _as_float(self.sums[1]))
        delta = min(1.0, 1.0 - (1.0 - slack) * self.keep)
        if not self.count:
            return 0.0, delta
        advanced = (_as_float(self.sums[2])
                    + math.sqrt(2.0 * math.log(1.0 / slack) * _as_float(self.sums[3])))
        return min(eps, advanced), delta


def _as_float(x):
    """A sum as the nearest double (inf past the largest one)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


def _check_spends(spent_budget):
    if spent_budget is None:
        return []
    try:
        spends = [tuple(item) for item in spent_budget]
    except TypeError:
        raise TypeError(
            "spent_budget must be a list of (epsilon, delta) pairs; got "
            f"{type(spent_budget).__name__}."
        ) from None
    for item in spends:
        if len(item) != 2:
            raise ValueError(
                f"spent_budget must be a list of (epsilon, delta) pairs; got an entry {item!r}."
            )
    return spends


class BudgetAccountant:
    """Privacy budget under sequential composition, basic or advanced.

    With ``slack=0`` spends add up: ``k`` releases that are
    ``(epsilon_i, delta_i)``-DP are together ``(sum epsilon_i, sum
    delta_i)``-DP. With ``slack > 0`` the advanced composition theorem for
    heterogeneous mechanisms (Kairouz, Oh and Viswanath 2017, Theorem 3.5)
    bounds the total epsilon by ``min(sum eps_i, sum eps_i (e^eps_i - 1) /
    (e^eps_i + 1) + sqrt(2 ln(1/slack) sum eps_i**2))`` at the price of
    ``slack`` more delta: the total delta is ``1 - (1 - slack) prod(1 -
    delta_i)``. The interface follows diffprivlib's ``BudgetAccountant``
    (``check``, ``spend``, ``remaining``, ``total``, ``spent_budget``, a
    default accountant, use as a context manager), so either can be passed
    where the other is expected.

    The estimators spend on the accountant they are given, or, with
    ``accountant=None``, on the default accountant (:meth:`load_default`;
    an unlimited one unless :meth:`set_default` or a ``with`` block sets
    another). A ``with`` block is the default of the thread that opens it
    (the innermost, if nested), and of the threads that have none of their
    own (the workers of joblib's threading backend, a Dask cluster of
    threads) while blocks of one thread only are open; while several
    threads have blocks open, a fit in a thread without one of its own
    refuses rather than guess whose budget it spends.

    One rule holds in every process and backend: a spend is recorded on the
    budget it belongs to before anything is released, or the fit refuses
    before it reads anything private. Copies (``copy.copy``,
    ``copy.deepcopy``, hence scikit-learn's ``clone``) return the accountant
    itself, so every clone of an estimator spends against the one budget,
    and :meth:`spend` is thread-safe (threads, such as joblib's threading
    backend, share it; Dask pickles the arguments of its tasks even on a
    cluster of threads, whose workers share the default accountant instead).
    A pickled
    copy -- what worker processes receive under GridSearchCV or joblib with
    ``n_jobs > 1``, or a Dask cluster of processes -- cannot report back: it
    is *detached* and refuses every :meth:`check` and :meth:`spend` with a
    :class:`DetachedAccountantError`; so does the default accountant in a
    worker process (the caller's default does not travel there). To run
    private fits in worker processes, pay for them on the client first with
    :func:`prepay_search`, or use ``n_jobs=1`` or the threading backend.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon budget.
    delta : float, default=1.0
        Total delta budget, in [0, 1].
    slack : float, default=0.0
        Delta spent on advanced composition, in ``[0, delta]``; 0 gives basic
        composition.
    spent_budget : list of (float, float), default=None
        Spends already made against this budget.

    Examples
    --------
    >>> from skdpgraph.privacy import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0, delta=0.0)
    >>> acc.spend(0.25, 0).spend(0.5, 0).remaining()
    (0.25, 0.0)
    >>> acc.check(0.5, 0)  # doctest: +ELLIPSIS +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    BudgetError: Privacy spend of (0.5, 0.0) not permissible; ...

    Many small spends compose better with some slack:

    >>> adv = BudgetAccountant(epsilon=2.0, delta=1e-6, slack=1e-7)
    >>> for _ in range(400):
    ...     _ = adv.spend(0.01, 0)
    >>> round(adv.total()[0], 3)  # 400 x 0.01 = 4 under basic composition
    1.156
    """

    _default = None
    _default_pid = None

    def __init__(self, epsilon=float("inf"), delta=1.0, slack=0.0, spent_budget=None):
        self.epsilon, self.delta = _check_eps_delta(epsilon, delta)
        self.slack = check_real(slack, "slack", low=0.0, high=self.delta)
        self._spent = []
        self._ledger = _Ledger()
        self._lock = threading.Lock()
        self._detached = False
        self._pid = os.getpid()  # a copy inherited by a forked process cannot report back
        for spend in _check_spends(spent_budget):
            self.spend(*spend)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_lock"]
        # Whoever unpickles this holds a copy: its spends would be lost.
        state["_detached"] = True
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()
        if "_ledger" not in state:  # pickled before the ledger existed
            self._ledger = _Ledger(self._spent)

    def _refuse_if_detached(self):
        if self._detached:
            raise DetachedAccountantError(
                "This BudgetAccountant was restored from a pickle: a saved model that "
                "was reloaded, or a copy sent to a worker process (GridSearchCV or "
                "joblib with n_jobs > 1, a Dask worker). Its spends would never reach "
                "the original budget, so it refuses them. To refit a reloaded model, "
                "give it a live accountant: model.set_params(accountant=budget) (or "
                "accountant=None for the default). To run private fits in worker "
                "processes, pay for them on the client first with "
                "skdpgraph.privacy.prepay_search, or use n_jobs=1 or the threading "
                "backend (threads share the accountant)."
            )
        if getattr(self, "_pid", os.getpid()) != os.getpid():
            raise DetachedAccountantError(
                "This BudgetAccountant was made in another process and reached this one "
                "by a fork (os.fork, multiprocessing's fork start method): its spends here "
                "would never reach the original budget, so it refuses them. Pay for fits "
                "in other processes on the caller first (skdpgraph.privacy.prepay)."
            )

    def __copy__(self):
        # A budget is shared state: scikit-learn's ``clone`` (GridSearchCV,
        # cross_val_score) copies parameters, and a copied accountant would
        # let every clone spend the whole budget again unseen.
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        slack = f", slack={self.slack!r}" if self.slack else ""
        return (f"BudgetAccountant(epsilon={self.epsilon!r}, delta={self.delta!r}{slack}, "
                f"spent={self.total()})")

    def __enter__(self):
        with _BLOCKS_LOCK:
            _BLOCKS.append((os.getpid(), threading.get_ident(), self))
        return self

    def __exit__(self, *exc):
        here = (os.getpid(), threading.get_ident())
        with _BLOCKS_LOCK:  # this thread's innermost block of self (any, if none)
            mine = [k for k, b in enumerate(_BLOCKS) if b[2] is self]
            ours = [k for k in mine if _BLOCKS[k][:2] == here]
            if ours or mine:
                del _BLOCKS[(ours or mine)[-1]]

    def set_default(self):
        """Make this the default accountant (of estimators given none, outside ``with``
        blocks).

        Returns
        -------
        self
        """
        BudgetAccountant._default = self
        BudgetAccountant._default_pid = os.getpid()
        return self

    @staticmethod
    def load_default(accountant=None):
        """``accountant`` if given, else the default one.

        The default is the accountant of the open ``with`` block (see the
        class docstring), else the one :meth:`set_default` set in this
        process; if none was, an unlimited one is created -- except in a
        worker process (started by multiprocessing, joblib's loky, a Dask
        nanny, or a Dask worker's task) or a process forked from one that had
        a default, where the caller's default is out of reach and spends made
        there would go unseen: there a :class:`DetachedAccountantError` is
        raised instead, before anything private is read.
        """
        if accountant is not None:
            if not (callable(getattr(accountant, "check", None))
                    and callable(getattr(accountant, "spend", None))):
                raise TypeError(
                    "accountant must be None or have check(epsilon, delta) and "
                    f"spend(epsilon, delta) methods (a BudgetAccountant); got "
                    f"{type(accountant).__name__}.")
            return accountant
        pid, thread = os.getpid(), threading.get_ident()
        every = list(_BLOCKS)  # a copy (atomic): no lock to inherit held across a fork
        blocks = [b for b in every if b[0] == pid]
        inherited = len(blocks) < len(every)
        if blocks:
            mine = [acc for _, t, acc in blocks if t == thread]
            if mine:
                return mine[-1]
            if len({t for _, t, _ in blocks}) > 1:
                raise BudgetError(
                    "Several threads have a 'with BudgetAccountant(...)' block open, and "
                    "this fit runs in a thread with none of its own: whose budget it "
                    "spends is unknown, so it refuses. Pass accountant= explicitly."
                )
            return blocks[-1][2]
        if BudgetAccountant._default_pid != pid:
            # None set here. A forked child inherits the parent's default (or
            # blocks) as objects, not its ledger: refused as in a worker.
            inherited = inherited or BudgetAccountant._default_pid is not None
            if inherited or _in_worker_process():
                raise DetachedAccountantError(
                    "A private fit in a worker process (GridSearchCV or joblib with "
                    "n_jobs > 1, multiprocessing, a Dask worker, a forked process) was "
                    "given no accountant: the caller's default accountant does not travel to "
                    "other processes, and spends made here would go unseen, so the fit "
                    "refuses. Pay for the fits on the client first with "
                    "skdpgraph.privacy.prepay_search(search, X), use n_jobs=1 or the "
                    "threading backend (with joblib.parallel_config(backend='threading'): "
                    "...), or set an accountant in this process."
                )
            BudgetAccountant._default = BudgetAccountant()
            BudgetAccountant._default_pid = os.getpid()
        return BudgetAccountant._default

    @staticmethod
    def pop_default():
        """Remove and return the default accountant that :meth:`set_default` set (an
        unlimited one if none was); open ``with`` blocks are left as they are."""
        default = (BudgetAccountant._default if BudgetAccountant._default_pid == os.getpid()
                   else BudgetAccountant())
        BudgetAccountant._default = None
        BudgetAccountant._default_pid = None
        return default

    @property
    def spent_budget(self):
        """List of the ``(epsilon, delta)`` spends so far (a copy)."""
        return list(self._spent)

    def total(self, spent_budget=None, slack=None):
        """Total ``(epsilon, delta)`` spent (see the class docstring).

        Parameters
        ----------
        spent_budget : list of (float, float), default=None
            Spends to add up; this accountant's own by default.
        slack : float, default=None
            The slack of the composition; this accountant's by default.

        Returns
        -------
        epsilon, delta : float
            The composed total.
        """
        ledger = self._snapshot() if spent_budget is None else _Ledger(spent_budget)
        return ledger.total(self.slack if slack is None else slack)

    def _snapshot(self):
        """The running sums as they are between two spends."""
        with self._lock:
            return self._ledger.copy()

    def remaining(self, k=1):
        """Budget left for each of ``k`` further equal spends.

        A guide: each spend is checked when it is made.

        Parameters
        ----------
        k : int, default=1
            Number of equal spends, in ``[1, 2**63]``.

        Returns
        -------
        epsilon, delta : float
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 2**63:
            raise ValueError(f"k must be a positive integer, at most 2**63; got {k!r}.")
        return self._remaining(self._snapshot(), int(k))

    def _remaining(self, ledger, k):
        eps, dlt = ledger.total(self.slack)
        if not self.slack:
            return (max(0.0, self.epsilon - eps) / k, max(0.0, self.delta - dlt) / k)
        # With slack the total is not additive: the largest equal spend whose
        # k copies fit, by bisection on a monotone function.
        delta_each = 0.0
        if self.delta < 1.0:
            keep = ledger.keep * (1.0 - self.slack)
            ratio = max(0.0, (1.0 - self.delta) / keep) if keep > 0 else 1.0
            # (1 - d)**k >= ratio: q = 1 - d, the smallest double with q**k >= ratio
            # (then 1 - d is q exactly), from log(ratio) / k without cancellation.
            if 0.0 < ratio < 1.0:
                q = math.exp(math.log(ratio) / k)
                while q < 1.0 and q ** k < ratio:
                    q = math.nextafter(q, 2.0)
                delta_each = 1.0 - q
            else:
                delta_each = 1.0 if ratio == 0.0 else 0.0

        def fits(e):
            total = ledger.copy().add(e, delta_each, times=k).total(self.slack)[0]
            return total <= self.epsilon * (1 + _BUDGET_RTOL)

        if math.isinf(self.epsilon):
            return math.inf, delta_each
        # k spends of e total at least e min(k, sqrt(2 k ln(1/slack))) under either
        # composition: the answer lies below epsilon over that factor.
        factor = min(k, math.sqrt(2.0 * k * math.log(1.0 / self.slack)))
        lo, hi = 0.0, max(self.epsilon * (1 + 2 * _BUDGET_RTOL) / max(factor, 1.0), 1e-300)
        if not fits(lo):
            return 0.0, delta_each
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        return lo, delta_each

    def check(self, epsilon, delta):
        """Raise :class:`BudgetError` if spending ``(epsilon, delta)`` overspends.

        Parameters
        ----------
        epsilon, delta : float
            The spend.

        Returns
        -------
        True
        """
        epsilon, delta = _check_eps_delta(epsilon, delta)
        self._refuse_if_detached()
        return self._check(self._snapshot(), epsilon, delta)

    def _check(self, ledger, epsilon, delta):
        eps, dlt = ledger.copy().add(epsilon, delta).total(self.slack)
        over_eps = eps > self.epsilon * (1 + _BUDGET_RTOL)
        over_dlt = dlt > self.delta * (1 + _BUDGET_RTOL)
        if over_eps or over_dlt:
            # With slack, the remainder bisects over the composition: only for the message.
            epsilon_left, delta_left = self._remaining(ledger, 1)
            raise BudgetError(
                f"Privacy spend of ({epsilon!r}, {delta!r}) not permissible; "
                f"only ({epsilon_left!r}, {delta_left!r}) of the budget "
                f"({self.epsilon!r}, {self.delta!r}) remains."
            )
        return True

    def spend(self, epsilon, delta):
        """Record a spend of ``(epsilon, delta)`` after checking it fits.

        Parameters
        ----------
        epsilon, delta : float
            The spend.

        Returns
        -------
        self
        """
        epsilon, delta = _check_eps_delta(epsilon, delta)
        with self._lock:  # check and record as one step
            self._refuse_if_detached()
            self._check(self._ledger, epsilon, delta)
            self._spent.append((epsilon, delta))
            self._ledger.add(epsilon, delta)
        return self


def charge(accountant, epsilon, delta):
    """Charge a release to ``accountant`` before it reads private data.

    Calls ``accountant.check(epsilon, delta)`` then
    ``accountant.spend(epsilon, delta)`` (diffprivlib's interface, duck
    typed); ``None`` means the default accountant
    (:meth:`BudgetAccountant.load_default`). A release that fails afterwards
    has still spent its budget, so a failure can never hide a spend.

    Parameters
    ----------
    accountant : object with ``check`` and ``spend``, or None
        The accountant to charge (a :class:`BudgetAccountant`, diffprivlib's,
        or any object with their ``check``/``spend`` methods); ``None``: the
        default accountant.
    epsilon, delta : float
        The spend.

    Raises
    ------
    skdpgraph.exceptions.BudgetError
        If the spend does not fit in the accountant's budget (nothing is
        spent).
    TypeError
        If ``accountant`` has no ``check`` or ``spend`` method.
    skdpgraph.exceptions.DetachedAccountantError
        If ``accountant`` is None in a worker process, where the caller's
        default accountant is out of reach.
    """
    accountant = BudgetAccountant.load_default(accountant)
    accountant.check(epsilon, delta)
    accountant.spend(epsilon, delta)


@contextmanager
def after_charge(epsilon, delta):
    """The steps of a fit after its charge: an exception they raise says that the budget
    was spent (an exception note), and carries as attributes the releases the body put
    in the yielded dict (name: value), which can be used again at no privacy cost."""
    kept = {}
    try:
        yield kept
    except Exception as exc:
        for name, value in kept.items():
            setattr(exc, name, value)
        if hasattr(exc, "add_note"):
            exc.add_note(
                f"skdpgraph: the budget of this fit (epsilon {epsilon:g}, delta {delta:g}) was "
                "charged before it failed; " + (
                    "the release is kept on this exception as "
                    + ", ".join(f".{name}" for name in kept)
                    + ": using it again costs no privacy." if kept else "nothing was released."))
        raise


# ---------------------------------------------------------------------------
# zCDP
# ---------------------------------------------------------------------------

def pure_to_zcdp(epsilon):
    """zCDP parameter of a pure ``epsilon``-DP mechanism: ``epsilon**2 / 2``.

    Any ``epsilon``-DP mechanism is ``(epsilon**2 / 2)``-zCDP ([BS16],
    Proposition 1.4).

    Parameters
    ----------
    epsilon : float
        Pure-DP parameter (>= 0; ``inf`` is accepted).

    Returns
    -------
    rho : float
        ``epsilon**2 / 2``.
    """
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    return 0.5 * epsilon * epsilon


def exponential_mechanism_zcdp(epsilon):
    """zCDP parameter of an ``epsilon``-DP exponential mechanism: ``epsilon**2 / 8``.

    The exponential mechanism ``P(r) ~ exp(epsilon * u(r) / (2 * Delta u))`` is
    ``epsilon``-DP and, being ``epsilon``-bounded range, ``(epsilon**2 / 8)``-zCDP
    ([CR21], Lemma 3.2), four times less than the generic ``epsilon**2 / 2``.

    Parameters
    ----------
    epsilon : float
        Pure-DP parameter of the exponential mechanism (>= 0; ``inf`` is
        accepted).

    Returns
    -------
    rho : float
        ``epsilon**2 / 8``.
    """
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    return 0.125 * epsilon * epsilon


def exponential_mechanism_epsilon(rho):
    """Epsilon of an exponential mechanism that is ``rho``-zCDP: ``sqrt(8 rho)``.

    The inverse of :func:`exponential_mechanism_zcdp`.

    Parameters
    ----------
    rho : float
        zCDP parameter of the mechanism (finite and > 0).

    Returns
    -------
    epsilon : float
        ``sqrt(8 rho)``, rounded down: ``epsilon**2 / 8 <= rho`` exactly.
    """
    return sqrt_below(8 * Fraction(check_positive(rho, "rho")))


def sqrt_below(q):
    """The largest double ``x`` with ``x**2 <= q`` exactly (``q`` a Fraction >= 0): the
    integer square root of ``q`` scaled by ``4**k`` is within ``2**-k`` of the root, which is
    53 bits and more for any ``q`` the doubles can express, subnormal or past their largest
    (where ``math.sqrt(8.0 * rho)`` overflows or loses its bits)."""
    q = Fraction(q)
    if q <= 0:
        return 0.0
    k = max(0, 1100 - (q.numerator.bit_length() - q.denominator.bit_length()) // 2)
    root = Fraction(math.isqrt(q.numerator * 4**k // q.denominator), 2**k)
    x = float(root) if root < Fraction(sys.float_info.max) else sys.float_info.max
    while x > 0.0 and Fraction(x) ** 2 > q:
        x = math.nextafter(x, 0.0)
    while x < sys.float_info.max and Fraction(math.nextafter(x, math.inf)) ** 2 <= q:
        x = math.nextafter(x, math.inf)
    return x


def gaussian_zcdp(l2_sensitivity, sigma):
    """zCDP parameter of the Gaussian mechanism: ``D**2 / (2 sigma**2)``.

    Adding ``N(0, sigma**2 I)`` to a query of L2 sensitivity ``D`` is
    ``D**2 / (2 sigma**2)``-zCDP ([BS16], Proposition 1.6).

    Parameters
    ----------
    l2_sensitivity : float
        ``D``.
    sigma : float
        Standard deviation of the noise.

    Returns
    -------
    float
    """
    l2_sensitivity = check_positive(l2_sensitivity, "l2_sensitivity", allow_zero=True)
    sigma = check_positive(sigma, "sigma", allow_inf=True)
    ratio = l2_sensitivity / sigma if sigma < math.inf else 0.0
    if ratio > 1e154:  # its square overflows: no privacy to speak of
        return math.inf
    return 0.5 * ratio * ratio


#: Relative margin of a conversion's float evaluation (about 256 ulps).
_ROUND_UP = 1.0 + 2.0**-44


def _cks_epsilon_at(am1, rho, log_inv_delta):
    """Epsilon of rho-zCDP at Renyi order ``alpha = 1 + am1 > 1`` ([CKS20], Prop. 12).

    ``alpha*rho + (log(1/delta) + (alpha-1) log(1-1/alpha) - log(alpha)) / (alpha-1)``;
    every order alpha > 1 gives a valid epsilon, the infimum the tightest. Written in
    ``am1`` (``log(1 - 1/alpha) = log(am1) - log1p(am1)``): near alpha = 1 the float
    ``1 - 1/alpha`` would lose the digits the division by ``am1`` magnifies.
    """
    log1p_am1 = math.log1p(am1)
    # log(1 - 1/alpha): from am1 near alpha = 1, by log1p of -1/alpha far from it
    log_ratio = math.log(am1) - log1p_am1 if am1 < 1.0 else math.log1p(-1.0 / (1.0 + am1))
    return (1.0 + am1) * rho + (log_inv_delta + am1 * log_ratio - log1p_am1) / am1


def _cks_epsilon(rho, log_inv_delta):
    # Minimise over t = log(alpha - 1): a coarse grid brackets the optimum,
    # bounded Brent refines it. Any alpha gives a valid (upper) epsilon, so a
    # slightly imperfect minimisation only costs tightness, never validity.
    def f(t):
        return _cks_epsilon_at(math.exp(t), rho, log_inv_delta)

    grid = np.linspace(-12.0, 25.0, 75)
    vals = [f(t) for t in grid]
    k = int(np.argmin(vals))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    best = vals[k]
    if hi > lo:
        res = minimize_scalar(f, bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-10})
        if res.success and res.fun < best:
            best = float(res.fun)
    return best


def zcdp_to_approx_dp(rho, delta, *, method="cks"):
    """Epsilon such that a ``rho``-zCDP mechanism is ``(epsilon, delta)``-DP.

    Parameters
    ----------
    rho : float
        zCDP parameter, >= 0.
    delta : float
        Target delta, in (0, 1).
    method : {"cks", "bun_steinke"}, default="cks"
        ``"bun_steinke"``: ``rho + 2 sqrt(rho ln(1/delta))`` ([BS16],
        Proposition 1.3). ``"cks"``: the conversion of [CKS20] (Proposition
        12, through Renyi DP of every order ``alpha > 1``), minimised
        numerically over ``alpha``; it is never larger than Bun–Steinke's and
        any order gives a valid guarantee, so numerical imprecision only costs
        tightness.

    Returns
    -------
    epsilon : float
        Non-negative; 0 when ``rho`` is 0.

    Examples
    --------
    >>> from skdpgraph.privacy import zcdp_to_approx_dp
    >>> round(zcdp_to_approx_dp(0.5, 1e-5, method="bun_steinke"), 4)
    5.2985
    >>> zcdp_to_approx_dp(0.5, 1e-5) < 5.2985
    True
    """
    rho = check_positive(rho, "rho", allow_zero=True, allow_inf=True)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    if method not in ("cks", "bun_steinke"):
        raise ValueError(f"method must be 'cks' or 'bun_steinke'; got {method!r}.")
    if rho == 0.0:
        return 0.0
    if math.isinf(rho):
        return math.inf
    # log1p near delta = 1, where log(delta) loses the digits the conversion needs
    log_inv_delta = -math.log(delta) if delta < 0.5 else -math.log1p(-(1.0 - delta))
    bs = rho + 2.0 * math.sqrt(rho * log_inv_delta)
    if method == "cks":
        bs = max(0.0, min(bs, _cks_epsilon(rho, log_inv_delta)))
    # Rounded up past the float evaluation's error (a few ulps of its terms), so that the
    # epsilon reported, and the rho whose conversion is within a target, hold exactly.
    return bs * _ROUND_UP


def approx_dp_to_zcdp(epsilon, delta, *, method="cks"):
    """Largest ``rho`` whose :func:`zcdp_to_approx_dp` conversion is <= ``epsilon``.

    A ``rho``-zCDP mechanism with this ``rho`` (or less) is
    ``(epsilon, delta)``-DP. Used to turn a user's ``(epsilon, delta)`` target
    into a zCDP budget that is then split between mechanisms.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    method : {"cks", "bun_steinke"}, default="cks"
        Conversion to invert (see :func:`zcdp_to_approx_dp`). For
        ``"bun_steinke"`` the inverse is closed-form,
        ``(sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))**2``; for ``"cks"``
        it is found by bisection, returning the lower end of the final bracket
        so that the conversion of the result never exceeds ``epsilon``.

    Returns
    -------
    rho : float

    Examples
    --------
    >>> from skdpgraph.privacy import approx_dp_to_zcdp, zcdp_to_approx_dp
    >>> rho = approx_dp_to_zcdp(1.0, 1e-6)
    >>> zcdp_to_approx_dp(rho, 1e-6) <= 1.0
    True
    """
    epsilon = check_positive(epsilon, "epsilon", allow_inf=True)
    delta = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    if method not in ("cks", "bun_steinke"):
        raise ValueError(f"method must be 'cks' or 'bun_steinke'; got {method!r}.")
    if math.isinf(epsilon):
        return math.inf
    return _zcdp_inverse(float(epsilon), float(delta), method)


@functools.lru_cache(maxsize=256)
def _zcdp_inverse(epsilon, delta, method):
    """:func:`approx_dp_to_zcdp` on checked floats, cached: a pure function that
    costs about a hundred conversions, and every zCDP fit asks it again."""
    log_inv_delta = -math.log(delta)
    # (sqrt(a + eps) - sqrt(a))**2 without cancellation for tiny eps.
    root = epsilon / (math.sqrt(log_inv_delta + epsilon) + math.sqrt(log_inv_delta))
    rho_bs = root * root
    if math.isinf(rho_bs):
        raise ValueError(
            f"epsilon={epsilon!r} is too large to be converted to zCDP in floating point "
            "(rho would exceed the largest double); use a smaller epsilon."
        )
    # Guard against rounding in the closed form: step down, by steps that
    # double, until it converts (a few iterations at most).
    step = 2.0**-52
    while rho_bs > 0 and zcdp_to_approx_dp(rho_bs, delta, method="bun_steinke") > epsilon:
        rho_bs *= 1.0 - step
        step = min(2.0 * step, 0.5)
    if method == "bun_steinke":
        return rho_bs
    # CKS is tighter, so its inverse is >= rho_bs: bracket then bisect.
    top = np.finfo(float).max
    lo, hi = rho_bs, min(max(rho_bs, 1e-300) * 2.0, top)
    while hi < top and zcdp_to_approx_dp(hi, delta) <= epsilon:
        lo, hi = hi, min(hi * 2.0, top)
    for _ in range(200):
        mid = lo + 0.5 * (hi - lo)
        if zcdp_to_approx_dp(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return lo
