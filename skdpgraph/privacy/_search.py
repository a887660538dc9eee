"""Private fits in worker processes: pay on the client, then dispatch.

A private fit spends on an accountant that lives in the caller's process; a
fit sent to a worker process (GridSearchCV or joblib with ``n_jobs > 1``, a
Dask cluster) cannot reach it, so it refuses
(:class:`~skdpgraph.exceptions.DetachedAccountantError`). :func:`prepay_search`
makes such a search possible under a budget: it lists the fits the search
will make (candidates x folds, plus the refit), charges every one of them to
the caller's accountant on the client before anything is dispatched, and
hands the search single-use tickets (:class:`PrepaidBudget`) that let each of
those fits, and no other, proceed wherever it runs.
"""

import numbers
import os
import secrets
import threading
import warnings

from sklearn.base import clone, is_classifier
from sklearn.utils import indexable
from sklearn.model_selection import (
    GridSearchCV,
    ParameterGrid,
    ParameterSampler,
    RandomizedSearchCV,
    check_cv,
)

from ..exceptions import BudgetError
from ..utils import check_int
from ..utils._graph import dask_input
from ._accounting import BudgetAccountant, _check_eps_delta

# Relative slack of a spend against the prepaid amount (float sums).
_RTOL = 1e-12

# Per process: the tickets each prepaid search made, by its root's key (every copy
# of the root loaded here counts on it; a process without the key makes none), and
# the keys of the tickets spent that were ever pickled (two loaded copies of one
# ticket pay for one fit). A fork starts a new generation: what it inherits from
# its parent, made or loaded before, neither makes nor spends a ticket.
_ISSUED = {}
_SPENT_KEYS = set()
_PROCESS = {"generation": 0, "lock": threading.Lock()}


def _after_fork():
    _PROCESS["generation"] += 1
    _PROCESS["lock"] = threading.Lock()  # a lock held by a thread at the fork stays held


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


class _Recorded(Exception):
    """Raised by :class:`_CostRecorder` to stop a fit at its first charge."""

    def __init__(self, epsilon, delta):
        super().__init__(epsilon, delta)
        self.cost = (epsilon, delta)


class _CostRecorder:
    """An accountant that records the first spend asked of it and stops the fit.

    Every estimator of the library charges its accountant before it reads
    anything private, so the fit stops there having read public inputs only.
    """

    def check(self, epsilon, delta):
        raise _Recorded(*_check_eps_delta(epsilon, delta))

    def spend(self, epsilon, delta):
        raise _Recorded(*_check_eps_delta(epsilon, delta))


class PrepaidBudget:
    """A ticket for one private fit whose spend was charged in advance.

    Made by :func:`prepay` (one ticket per task) and :func:`prepay_search`;
    pass it as a fit's ``accountant``. A ticket pays for one spend of at most
    ``per_fit``, in whatever process the fit runs, and refuses a second spend.
    A copy made by ``copy``/``deepcopy`` -- hence by scikit-learn's ``clone``,
    which a search or a cross-validation makes for each of its fits -- is not
    a ticket: it refuses to spend (for a search, :func:`prepay_search` gives
    each fit its own). A pickled ticket travels with its task; pickling it
    into two tasks would make two tickets, so give each task its own
    (:func:`prepay` makes one per fit).

    A ticket pickled and loaded twice in one process pays for one fit there;
    loaded in two processes, each copy could pay (no process can see the
    other's spends), which is why each task needs its own.

    A prepaid search holds a *root* instead (``n_tickets`` given), which
    spends nothing: a copy of the root (the search's unfitted base copy of
    its estimator) is a *delegate*, which spends nothing either, and each
    copy of a delegate (one per fit) is a fresh ticket, at most ``n_tickets``
    of them, made only by the root object in the process that paid; the
    ``i``-th pays for at most the ``i``-th spend charged (``amounts``), so
    that the fits together never spend more than was charged whatever their
    order. A root pickled and loaded again in the process that paid draws on
    the same count of tickets (also once the original is gone); loaded in
    another process (a saved search reloaded, a search sent to a worker) or
    inherited by a fork, it makes no ticket.

    Parameters
    ----------
    per_fit : (float, float)
        Largest ``(epsilon, delta)`` the fit may spend.
    n_tickets : int, default=None
        For a root: the number of tickets its delegates may make.
    amounts : list of (float, float), default=None
        For a root: the spend charged for each of its tickets, in the order
        they are made (default: ``per_fit`` for each).
    """

    def __init__(self, per_fit, n_tickets=None, amounts=None):
        self.per_fit = _check_eps_delta(*per_fit)
        self.n_tickets = None if n_tickets is None else check_int(n_tickets, "n_tickets", 0)
        if amounts is not None:
            amounts = [_check_eps_delta(*amount) for amount in amounts]
            if self.n_tickets is None or len(amounts) != self.n_tickets:
                raise ValueError("amounts needs n_tickets, one amount for each ticket.")
        self.amounts = amounts
        self._root = None  # for a delegate: its root
        self._spent = False
        self._copied = False  # a copy of a ticket, which pays for nothing
        self._pickled = False  # a ticket that was: copies of it may be loaded here
        self._pid = os.getpid()
        self._generation = _PROCESS["generation"]
        self._key = secrets.token_hex(16)
        if self.n_tickets is not None:
            _ISSUED[self._key] = 0

    def _is_ticket(self):
        return self.n_tickets is None and self._root is None

    def _detached(self):
        """A root that makes no ticket here: made in another process (loaded from a
        pickle) or inherited by a fork."""
        return (self._key not in _ISSUED or self._pid != os.getpid()
                or self._generation != _PROCESS["generation"])

    def __getstate__(self):
        # Roots and delegates may travel along (a search's callbacks hold the
        # search and its base copy); a root loaded in the process that made it
        # counts on its tickets there, elsewhere it makes none. A used ticket
        # travels used.
        self._pickled = True
        state = self.__dict__.copy()
        if self.n_tickets is None and self._generation != _PROCESS["generation"]:
            state["_copied"] = True  # a ticket a fork inherited: its copies pay nothing
        return state

    def __setstate__(self, state):
        state.setdefault("_copied", False)  # tickets pickled by earlier versions
        state.setdefault("amounts", None)
        state.setdefault("_key", None)
        self.__dict__.update(state)
        self._pickled = True
        if self.n_tickets is None:
            self._generation = _PROCESS["generation"]  # pickled to here: its one task

    def __repr__(self):
        if self.n_tickets is not None:
            kind = f"root of {self.n_tickets} tickets" + (
                ", detached" if self._detached() else "")
        elif self._root is not None:
            kind = "delegate"
        else:
            kind = "used" if self._spent else "copy" if self._copied else "unused"
        return f"PrepaidBudget(per_fit={self.per_fit!r}, {kind})"

    def _copy(self):
        if self._is_ticket():
            # One fit per ticket: a search clones its estimator for each fit.
            copy = PrepaidBudget(self.per_fit)
            copy._copied = True
            return copy
        if self.n_tickets is not None:
            delegate = PrepaidBudget(self.per_fit)
            delegate._root = self
            return delegate
        root = self._root
        if root._detached():
            raise BudgetError(
                "A prepaid search's tickets are made in the process that paid for them; "
                "this search was loaded from a pickle in another process (a saved "
                "search, or one sent to a worker) or inherited by a fork. Prepay the "
                "search where it runs.")
        with _PROCESS["lock"]:
            issued = _ISSUED[root._key]
            if issued >= root.n_tickets:
                raise BudgetError(
                    f"All {root.n_tickets} prepaid fits of this search have been "
                    "dispatched: a search prepaid with skdpgraph.privacy.prepay_search "
                    "runs once; prepay it again to run it again."
                )
            _ISSUED[root._key] = issued + 1
        return PrepaidBudget(self.per_fit if root.amounts is None else root.amounts[issued])

    def __copy__(self):
        return self._copy()

    def __deepcopy__(self, memo):
        return self._copy()

    def check(self, epsilon, delta):
        """Raise :class:`BudgetError` unless this ticket can pay for the spend.

        Parameters
        ----------
        epsilon, delta : float
            The spend.

        Returns
        -------
        True
        """
        epsilon, delta = _check_eps_delta(epsilon, delta)
        if not self._is_ticket():
            raise BudgetError("The estimator of a prepaid search spends nothing; the "
                              "copies the search fits do.")
        if self._spent:
            raise BudgetError("This prepaid ticket has been used: it pays for one fit.")
        if self._generation != _PROCESS["generation"]:
            raise BudgetError(
                "This prepaid ticket reached this process by a fork (os.fork, "
                "multiprocessing's fork start method), not with its task: every forked "
                "process would hold it. Pass it to its task (pickled), one ticket a task."
            )
        if self._copied:
            raise BudgetError(
                "This is a copy of a prepaid ticket (copy, deepcopy or scikit-learn's "
                "clone, which a search or a cross-validation makes for each fit, and a "
                "Pipeline with memory for its steps): a ticket "
                "pays for one fit, its copies for none. Give each fit its own ticket "
                "(skdpgraph.privacy.prepay), or prepay a search with "
                "skdpgraph.privacy.prepay_search."
            )
        eps_max, delta_max = self.per_fit
        if epsilon > eps_max * (1 + _RTOL) or delta > delta_max * (1 + _RTOL):
            raise BudgetError(
                f"A spend of ({epsilon!r}, {delta!r}) exceeds the ({eps_max!r}, "
                f"{delta_max!r}) prepaid for this fit."
            )
        return True

    def spend(self, epsilon, delta):
        """Use the ticket for its fit's spend.

        Parameters
        ----------
        epsilon, delta : float
            The spend.

        Returns
        -------
        self
        """
        self.check(epsilon, delta)  # before the lock: a fork's copy refuses here
        with _PROCESS["lock"]:
            self.check(epsilon, delta)
            if self._key is not None and self._key in _SPENT_KEYS:
                raise BudgetError(
                    "This prepaid ticket has been used: another copy of it (pickled and "
                    "loaded again in this process) paid for its one fit.")
            self._spent = True
            if self._pickled and self._key is not None:
                _SPENT_KEYS.add(self._key)
        return self


def _charge_all(accountant, spends):
    """Charge every spend, or none if the whole list does not fit a BudgetAccountant."""
    accountant = BudgetAccountant.load_default(accountant)
    spends = [_check_eps_delta(*spend) for spend in spends]
    if isinstance(accountant, BudgetAccountant):
        before = accountant.total()
        eps, dlt = accountant.total(accountant.spent_budget + spends)
        if eps > accountant.epsilon * (1 + _RTOL) or dlt > accountant.delta * (1 + _RTOL):
            raise BudgetError(
                f"{len(spends)} private fits would bring the spend from {before!r} to "
                f"({eps:.6g}, {dlt:.6g}), beyond the budget ({accountant.epsilon!r}, "
                f"{accountant.delta!r}). Nothing was spent."
            )
    for eps, dlt in spends:
        accountant.check(eps, dlt)
        accountant.spend(eps, dlt)


def prepay(spends, accountant=None):
    """Charge a list of fits on the client; return one ticket for each.

    For a sweep of private fits run in worker processes (joblib with
    ``n_jobs > 1``, Dask): each task gets its own ticket as its
    ``accountant`` (one ticket, one task: a ticket sent to two processes
    would pay twice), and the spends are on the caller's budget before
    anything is dispatched. For a GridSearchCV or RandomizedSearchCV, see
    :func:`prepay_search`.

    Parameters
    ----------
    spends : list of (float, float)
        The ``(epsilon, delta)`` of each fit.
    accountant : BudgetAccountant or duck-typed accountant, default=None
        Where to charge (default: this process's default accountant). A
        :class:`BudgetAccountant` is charged all or nothing.

    Returns
    -------
    list of PrepaidBudget

    Examples
    --------
    >>> from skdpgraph.privacy import BudgetAccountant, prepay
    >>> budget = BudgetAccountant(epsilon=4.0)
    >>> tickets = prepay([(1.0, 0.0), (2.0, 0.0)], accountant=budget)
    >>> budget.total(), tickets[0]
    ((3.0, 0.0), PrepaidBudget(per_fit=(1.0, 0.0), unused))
    """
    spends = [tuple(spend) for spend in spends]
    for spend in spends:
        if len(spend) != 2:
            raise ValueError(f"each spend must be a pair (epsilon, delta); got {spend!r}.")
    _charge_all(accountant, spends)
    return [PrepaidBudget(spend) for spend in spends]


def _accountant_paths(estimator):
    return sorted(name for name in estimator.get_params(deep=True)
                  if name == "accountant" or name.endswith("__accountant"))


def _fit_cost(estimator, path, X, y):
    """``(epsilon, delta)`` a fit of ``estimator`` charges, read from its charge."""
    probe = clone(estimator).set_params(**{path: _CostRecorder()})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the real fits warn
            probe.fit(X, y)
    except _Recorded as rec:
        return rec.cost
    return 0.0, 0.0  # fitted without charging anything: not private


def _candidates(search):
    if isinstance(search, GridSearchCV):
        return list(ParameterGrid(search.param_grid)), True
    if isinstance(search, RandomizedSearchCV):
        fixed = isinstance(search.random_state, numbers.Integral)
        return list(ParameterSampler(search.param_distributions, search.n_iter,
                                     random_state=search.random_state)), fixed
    raise TypeError(
        "prepay_search takes a GridSearchCV or a RandomizedSearchCV, whose fits are known "
        f"before they run; got {type(search).__name__}."
    )


def _check_searchable(X, y, groups):
    """Refuse, before the charge, data the search cannot split: it would fail at its first
    step, after every fit was paid for."""
    kind = dask_input(X)
    if kind is not None:  # indexing it by rows would read it whole, if it could be done
        raise TypeError(
            f"prepay_search: X is {kind}, which a search cannot split into folds; fit the "
            "estimator on it directly, or search on an in-memory graph. Nothing was charged.")
    try:
        indexable(X, y, groups)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"prepay_search: the search cannot index X, y and groups ({exc}). "
                        "Nothing was charged.") from exc


def prepay_search(search, X, y=None, *, groups=None, accountant=None):
    """Charge every fit of a search on the client, then let it run anywhere.

    A private estimator spends on its accountant before it reads private
    data, and an accountant lives in one process, so a search that fits in
    worker processes (``n_jobs > 1`` with the loky or multiprocessing
    backend, or on Dask) refuses there. This function lists the fits the
    search will make -- every candidate on every fold of ``search.cv``, and
    the refit, charged at the largest cost of a candidate -- reads what each
    one will spend from the estimator's own charge (its fit is stopped there,
    before it reads anything private), and charges them all to the
    accountant, before anything is dispatched: if the budget cannot pay for
    all of them, :class:`BudgetError` is raised and nothing is spent. It
    returns a copy of the search whose fits run on tickets
    (:class:`PrepaidBudget`), one per fit, good wherever the fit runs.

    Choosing a parameter by cross-validation on private data spends privacy
    on every fit: this is for studying the utility of a setting on data with
    ground truth, not for tuning a release on the data it releases.

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV
        Its estimator (or one step of its Pipeline) is a private estimator
        with an ``accountant`` parameter. A RandomizedSearchCV whose sampled
        candidates differ in cost needs an integer ``random_state``, so that
        the candidates charged are the ones it will fit.
    X : array-like, sparse matrix or networkx.Graph
        The input ``search.fit`` will be given (for the number of folds, and
        for the public size of the graph, which some costs depend on).
    y : array-like of shape (n_samples,), default=None
        The ``y`` ``search.fit`` will be given (e.g. reference labels for
        the scorer).
    groups : array-like of shape (n_samples,), default=None
        The ``groups`` ``search.fit`` will be given, for a group-aware
        splitter in ``search.cv``.
    accountant : BudgetAccountant or duck-typed accountant, default=None
        Where to charge; default: the estimator's own accountant if it has
        one, else the default accountant of this process.

    Returns
    -------
    search : a copy of ``search``
        Fit it with ``X, y``. It runs once.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skdpgraph import BudgetAccountant, PrivateMSTClustering
    >>> from skdpgraph.privacy import prepay_search
    >>> X = np.r_[np.random.default_rng(0).normal(0, .1, (10, 2)), [[5, 5], [5, 5.1]]]
    >>> y = np.r_[[0] * 10, [1, 1]]
    >>> def ari(estimator, X, y):  # a clusterer is scored on the labels it released
    ...     return adjusted_rand_score(y, estimator.labels_)
    >>> budget = BudgetAccountant(epsilon=20.0)
    >>> est = PrivateMSTClustering(sensitivity=0.1, weight_bounds=(0, 8), random_state=0)
    >>> folds = [(np.arange(12), np.arange(12))] * 2
    >>> search = prepay_search(GridSearchCV(est, {"epsilon": [1.0, 2.0]}, cv=folds,
    ...                                     scoring=ari, n_jobs=2),
    ...                        X, y, accountant=budget)
    >>> budget.total()  # (1 + 2) x 2 folds + the refit at 2
    (8.0, 0.0)
    >>> search.fit(X, y).cv_results_["mean_test_score"].round(2)
    array([0.96, 0.96])
    """
    candidates, fixed = _candidates(search)
    estimator = search.estimator
    paths = _accountant_paths(estimator)
    if len(paths) != 1:
        raise ValueError(
            "prepay_search needs an estimator with exactly one private step (one "
            f"'accountant' parameter); found {len(paths) or 'none'}"
            + (f": {paths}." if paths else ".")
        )
    path = paths[0]
    if accountant is None:
        accountant = estimator.get_params()[path]
    _check_searchable(X, y, groups)
    costs = [_fit_cost(clone(estimator).set_params(**params), path, X, y)
             for params in candidates]
    if not fixed and len(set(costs)) > 1:
        raise ValueError(
            "The candidates of this RandomizedSearchCV differ in privacy cost and its "
            "random_state is not an integer, so the candidates it will fit are not "
            "known in advance: give it an integer random_state."
        )
    cv = check_cv(search.cv, y, classifier=is_classifier(estimator))
    n_splits = cv.get_n_splits(X, y, groups)
    spends = [cost for cost in costs for _ in range(n_splits)]
    per_fit = (max(e for e, _ in costs), max(d for _, d in costs))
    if search.refit:
        spends.append(per_fit)
    _charge_all(accountant, spends)
    prepaid = clone(search)
    # The search's base copy of its estimator gets a delegate, and each of
    # the copies it fits a ticket: one for each fit charged, of its amount (the
    # search fits candidate by candidate, fold by fold, then refits; in any other
    # order a fit dearer than its ticket refuses).
    ticket = PrepaidBudget(per_fit, len(spends), amounts=spends)
    prepaid.set_params(**{f"estimator__{path}": ticket})
    return prepaid
