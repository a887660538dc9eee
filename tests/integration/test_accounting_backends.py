"""One accounting rule in every process and backend.

A private fit either spends on the caller's budget before it releases
anything, or refuses before it reads anything private: with an explicit
accountant, with the default one, in threads, in loky, multiprocessing and
Dask worker processes; and a search or a sweep whose fits were paid for on
the client (prepay_search, prepay) runs anywhere, once.
"""

import os
import pickle
import threading
import warnings

import numpy as np
import pytest
from joblib import Parallel, delayed, parallel_config
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, pairwise_distances
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, cross_validate
from sklearn.pipeline import make_pipeline

from skdpgraph import BudgetAccountant, EpsilonGraph, PrivateMSTClustering
from skdpgraph.cluster import private_mst_clustering
from skdpgraph.exceptions import BudgetError, DetachedAccountantError
from skdpgraph.privacy import PrepaidBudget, prepay, prepay_search

X, Y = make_blobs(60, centers=3, cluster_std=0.5, random_state=0)
D = pairwise_distances(X)
GRID = {"epsilon": [0.5, 1.0, 2.0]}
PROCESS_BACKENDS = ["loky", "multiprocessing"]


def _model(**kw):
    params = dict(sensitivity=0.5, weight_bounds=(0.0, 20.0), tree_mechanism="laplace",
                  random_state=0)
    params.update(kw)
    return PrivateMSTClustering(**params)


def _ari(estimator, X_, y_):
    return adjusted_rand_score(y_, estimator[-1].labels_ if hasattr(estimator, "steps")
                               else estimator.labels_)


def _search(n_jobs=2, **kw):
    # Fit and score on all the points (clusterers label what they fit).
    return GridSearchCV(_model(**kw), GRID, cv=[(np.arange(60), np.arange(60))] * 3,
                        scoring=_ari, n_jobs=n_jobs, error_score="raise")


def _release(epsilon, accountant=None):
    res = private_mst_clustering(D, epsilon, sensitivity=0.5, weight_bounds=(0.0, 20.0),
                                 tree_mechanism="laplace", accountant=accountant,
                                 random_state=0)
    return res.epsilon_spent, os.getpid()


@pytest.mark.slow
@pytest.mark.parametrize("backend", PROCESS_BACKENDS)
def test_default_accountant_refuses_in_worker_processes(backend):
    # Before: 9 fits in workers spent 10.5 unseen against a budget of 3.
    with BudgetAccountant(epsilon=3.0) as budget:
        with parallel_config(backend=backend), pytest.raises(DetachedAccountantError,
                                                             match="prepay_search"):
            _search().fit(X, Y)
        assert budget.total() == (0.0, 0.0)
        with parallel_config(backend=backend), pytest.raises(DetachedAccountantError):
            Parallel(n_jobs=2)(delayed(_release)(1.0) for _ in range(2))
    assert budget.total() == (0.0, 0.0)


@pytest.mark.slow
@pytest.mark.parametrize("backend", PROCESS_BACKENDS)
def test_unlimited_default_refuses_in_worker_processes_too(backend):
    # No budget set: the caller's default is unlimited, but a spend in a
    # worker would still be missing from its ledger.
    BudgetAccountant.pop_default()
    with parallel_config(backend=backend), pytest.raises(DetachedAccountantError):
        Parallel(n_jobs=2)(delayed(_release)(1.0) for _ in range(2))
    assert BudgetAccountant.load_default().total() == (0.0, 0.0)


def _fits_with_own_default(epsilon):
    with BudgetAccountant(epsilon=1.0) as here:
        _release(epsilon)
        return here.total()


@pytest.mark.slow
def test_a_worker_may_set_its_own_default():
    with parallel_config(backend="loky"):
        totals = Parallel(n_jobs=2)(delayed(_fits_with_own_default)(0.5) for _ in range(2))
    assert totals == [(0.5, 0.0)] * 2


def _in_a_fork(fit, block=None):
    """What ``fit`` did in a forked child: b"released", b"refused" or b"error"."""
    read, write = os.pipe()
    with block if block is not None else warnings.catch_warnings():
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child)
            outcome = b"error"
            try:
                fit()
                outcome = b"released"
            except (DetachedAccountantError, BudgetError):
                outcome = b"refused"
            finally:
                os.write(write, outcome)
                os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as pipe:
        return pipe.read()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_an_accountant_or_a_ticket_a_fork_inherits_refuses():
    # Before: a forked child spent on its copy of an explicit accountant, unseen.
    budget = BudgetAccountant(epsilon=1.0)
    assert _in_a_fork(lambda: _release(0.8, budget)) == b"refused"
    [ticket] = prepay([(0.8, 0.0)], accountant=budget)
    assert _in_a_fork(lambda: _release(0.8, ticket)) == b"refused"
    travelled = pickle.loads(pickle.dumps(ticket))  # loaded, then forked: every child
    assert _in_a_fork(lambda: _release(0.8, travelled)) == b"refused"  # would hold it
    # nor a copy the child makes of it (a pickle round trip made it a fresh ticket)
    assert _in_a_fork(lambda: _release(0.8, pickle.loads(pickle.dumps(ticket)))) == b"refused"
    sent = pickle.dumps(ticket)  # what a task takes along, loaded in its process
    assert _in_a_fork(lambda: _release(0.8, pickle.loads(sent))) == b"released"
    assert budget.total() == (0.8, 0.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
@pytest.mark.parametrize("how", ["with", "set_default", "unlimited"])
def test_a_forked_child_refuses_the_default_it_inherits(how):
    # Before: a child of os.fork (not multiprocessing) made a fresh unlimited default.
    budget = BudgetAccountant(epsilon=1.0)
    if how == "set_default":
        previous = BudgetAccountant.pop_default()
        budget.set_default()
    elif how == "unlimited":
        previous = BudgetAccountant.pop_default()
        BudgetAccountant.load_default()
    assert _in_a_fork(lambda: _release(5.0), budget if how == "with" else None) == b"refused"
    assert budget.total() == (0.0, 0.0)
    if how != "with":
        BudgetAccountant.pop_default()
        previous.set_default()


def test_with_blocks_are_the_default_of_their_own_thread():
    # Before: the default was one per process, so one thread's block charged another's
    # fits, and a block closing in one thread left the other's fits on an unlimited one.
    entered, other_in, left = threading.Event(), threading.Event(), threading.Event()
    totals, errors = {}, []

    def first():
        try:
            with BudgetAccountant(epsilon=10.0) as mine:
                entered.set()
                assert other_in.wait(30)
                _release(2.0)
                totals["first"] = mine
        finally:
            left.set()

    def second():
        assert entered.wait(30)
        with BudgetAccountant(epsilon=1.0) as mine:
            other_in.set()
            assert left.wait(30)
            _release(1.0)
            try:
                _release(1.0)
            except BudgetError as exc:
                errors.append(exc)
            totals["second"] = mine

    threads = [threading.Thread(target=f) for f in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert set(totals) == {"first", "second"}  # both threads ran to the end
    assert totals["first"].total() == (2.0, 0.0) and totals["second"].total() == (1.0, 0.0)
    assert len(errors) == 1
    # Nested blocks of one accountant, and a thread without a block of its own while
    # two threads have blocks open: it refuses.
    budget = BudgetAccountant(epsilon=3.0)
    with budget, budget:
        _release(1.0)
    assert budget.total() == (1.0, 0.0) and BudgetAccountant.load_default() is not budget
    go, done = threading.Event(), threading.Event()

    def holder():
        with BudgetAccountant(epsilon=1.0):
            go.set()
            done.wait(60)

    t = threading.Thread(target=holder)
    t.start()
    assert go.wait(30)
    try:
        with BudgetAccountant(epsilon=1.0):
            outcome = []
            worker = threading.Thread(target=lambda: outcome.append(
                pytest.raises(BudgetError, _release, 1.0)))
            worker.start()
            worker.join()
    finally:
        done.set()
        t.join()
    assert "Several threads" in str(outcome[0].value)
    # pop_default removes what set_default set, not an open block.
    previous = BudgetAccountant.pop_default()
    mine = BudgetAccountant(epsilon=5.0).set_default()
    with BudgetAccountant(epsilon=1.0):
        assert BudgetAccountant.pop_default() is mine
    mine.set_default()
    with BudgetAccountant(epsilon=1.0) as block:
        assert BudgetAccountant.load_default() is block
    assert BudgetAccountant.load_default() is mine
    BudgetAccountant.pop_default()
    previous.set_default()


@pytest.mark.slow
def test_a_dask_worker_without_nanny_refuses_the_default():
    # Before: a worker started with --no-nanny was not seen as a worker process, and its
    # fits spent on a fresh unlimited ledger of its own.
    distributed = pytest.importorskip("distributed")
    import subprocess
    import sys

    cluster = distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                               cluster.scheduler.address, "--no-nanny", "--nthreads", "1",
                               "--no-dashboard"], stderr=subprocess.DEVNULL)
    try:
        client.wait_for_workers(1, timeout=60)
        with BudgetAccountant(epsilon=1.0) as budget:
            with pytest.raises(DetachedAccountantError):  # a task the worker can import
                client.submit(private_mst_clustering, D, 2.0, sensitivity=0.5,
                              weight_bounds=(0.0, 20.0), pure=False).result(timeout=120)
        assert budget.total() == (0.0, 0.0)
    finally:
        client.close()
        worker.terminate()  # before the scheduler goes: a worker without it may linger
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        cluster.close()


@pytest.mark.parametrize("backend", ["threading", "sequential"])
def test_threads_spend_on_the_callers_budget_and_a_limited_one_refuses(backend):
    with BudgetAccountant(epsilon=100.0) as budget, parallel_config(backend=backend):
        search = _search().fit(X, Y)
    assert budget.total()[0] == pytest.approx(3 * 3.5 + search.best_params_["epsilon"])
    assert len(budget.spent_budget) == 10
    # A budget of 3 pays for some fits; the others refuse (their scores are
    # NaN) and so does the refit once nothing is left. Every fit has ended
    # when fit returns (error_score=nan), so no spend lands elsewhere later.
    with BudgetAccountant(epsilon=3.0) as budget, parallel_config(backend=backend):
        search = _search().set_params(error_score=np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                search.fit(X, Y)
            except BudgetError:
                pass  # the refit
    scores = search.cv_results_["split0_test_score"], search.cv_results_["split1_test_score"]
    assert budget.total()[0] <= 3.0
    assert np.isnan(np.r_[scores]).any()
    paid = np.isfinite(np.r_[[search.cv_results_[f"split{k}_test_score"] for k in range(3)]])
    fits = sum(budget.spent_budget[i][0] for i in range(len(budget.spent_budget)))
    assert fits == pytest.approx(budget.total()[0])
    assert paid.sum() <= len(budget.spent_budget) <= paid.sum() + 1  # + the refit


@pytest.mark.slow
@pytest.mark.parametrize("backend", PROCESS_BACKENDS + ["threading"])
def test_prepaid_search_runs_in_any_backend_and_charges_on_the_client(backend):
    budget = BudgetAccountant(epsilon=12.5)
    search = prepay_search(_search(), X, Y, accountant=budget)
    # All nine fits and the refit (at the largest epsilon) charged before any runs.
    assert budget.total() == (12.5, 0.0)
    assert len(budget.spent_budget) == 10
    with parallel_config(backend=backend):
        search.fit(X, Y)
    assert budget.total() == (12.5, 0.0)  # nothing more, nothing unseen
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_estimator_.epsilon_spent_ == search.best_params_["epsilon"]
    with parallel_config(backend=backend), pytest.raises(BudgetError, match="runs once"):
        search.fit(X, Y)


def test_prepaid_search_that_does_not_fit_the_budget_spends_nothing():
    budget = BudgetAccountant(epsilon=12.0)
    budget.spend(1.0, 0.0)
    with pytest.raises(BudgetError, match="Nothing was spent"):
        prepay_search(_search(), X, Y, accountant=budget)
    assert budget.total() == (1.0, 0.0)


def test_prepaid_search_uses_the_default_or_the_estimators_accountant():
    with BudgetAccountant(epsilon=20.0) as default:
        prepay_search(_search(), X, Y)
        assert default.total() == (12.5, 0.0)
        own = BudgetAccountant(epsilon=20.0)
        prepay_search(_search(accountant=own), X, Y)
        assert own.total() == (12.5, 0.0) and default.total() == (12.5, 0.0)


def test_prepaid_pipeline_and_randomized_search():
    budget = BudgetAccountant()
    pipe = make_pipeline(EpsilonGraph(radius=3.0),
                         _model(metric="precomputed", weight_bounds=(0.0, 3.0)))
    search = GridSearchCV(pipe, {"privatemstclustering__epsilon": [1.0, 4.0]},
                          cv=[(np.arange(60), np.arange(60))] * 2, scoring=_ari,
                          error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepay_search(search, X, Y, accountant=budget).fit(X, Y)
    assert budget.total() == (2 * 5.0 + 4.0, 0.0)
    random = RandomizedSearchCV(_model(), {"epsilon": [1.0, 2.0, 3.0]}, n_iter=2,
                                cv=[(np.arange(60), np.arange(60))], scoring=_ari,
                                random_state=None)
    with pytest.raises(ValueError, match="integer random_state"):
        prepay_search(random, X, Y, accountant=budget)
    random.set_params(random_state=np.int64(0))  # any integer
    before = budget.total()[0]
    fitted = prepay_search(random, X, Y, accountant=budget).fit(X, Y)
    charged = budget.total()[0] - before
    assert charged == pytest.approx(sum(fitted.cv_results_["param_epsilon"].data)
                                    + max(fitted.cv_results_["param_epsilon"].data))


def test_prepay_search_refuses_what_it_cannot_plan():
    two_private = make_pipeline(_model(), _model())
    with pytest.raises(ValueError, match="exactly one private step"):
        prepay_search(GridSearchCV(two_private, {}), X, Y)
    with pytest.raises(TypeError, match="GridSearchCV or a RandomizedSearchCV"):
        prepay_search(_model(), X, Y)


@pytest.mark.slow
def test_tickets_pay_once_and_travel_once():
    budget = BudgetAccountant(epsilon=3.0)
    tickets = prepay([(1.0, 0.0), (2.0, 0.0)], accountant=budget)
    assert budget.total() == (3.0, 0.0)
    with parallel_config(backend="loky"):
        spent = Parallel(n_jobs=2)(delayed(_release)(eps, t) for eps, t in zip([1.0, 2.0],
                                                                                 tickets))
    assert [s[0] for s in spent] == [1.0, 2.0]
    assert os.getpid() not in {s[1] for s in spent}
    ticket = prepay([(1.0, 0.0)], accountant=BudgetAccountant())[0]
    with pytest.raises(BudgetError, match="exceeds"):
        _release(2.0, ticket)
    _release(1.0, ticket)
    with pytest.raises(BudgetError, match="has been used"):
        _release(1.0, ticket)
    with pytest.raises(BudgetError, match="Nothing was spent"):
        prepay([(2.0, 0.0), (2.0, 0.0)], accountant=BudgetAccountant(epsilon=3.0))
    root = PrepaidBudget((1.0, 0.0), 1)
    with pytest.raises(BudgetError, match="spends nothing"):
        root.spend(1.0, 0.0)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_ticket_pays_for_no_copy_of_its_fit(n_jobs):
    # A search clones its estimator for each fit: one ticket would otherwise pay for
    # all of them (in worker processes each pickled clone was a fresh ticket).
    budget = BudgetAccountant(epsilon=100.0)
    [ticket] = prepay([(2.0, 0.0)], accountant=budget)
    with pytest.raises(BudgetError, match="copy of a prepaid ticket"):
        _search(n_jobs=n_jobs, accountant=ticket).fit(X, Y)
    assert repr(clone(_model(accountant=ticket)).accountant).endswith("copy)")
    _model(accountant=ticket).fit(X)  # the ticket itself still pays, once
    assert budget.total() == (2.0, 0.0)


def test_a_prepaid_search_pays_for_what_was_charged_and_no_more():
    budget = BudgetAccountant(epsilon=100.0)
    search = prepay_search(_search(n_jobs=1), X, Y, accountant=budget)
    assert budget.total() == (12.5, 0.0)
    # Its tickets pay the amounts charged, candidate by candidate: dearer candidates
    # set afterwards refuse.
    dearer = search.set_params(param_grid={"epsilon": [2.0, 2.0, 2.0]})
    with pytest.raises(BudgetError, match="exceeds"):
        dearer.fit(X, Y)
    # A copy of the search (nested cross-validation) draws on the same tickets: its
    # fits share one, which pays for one fit.
    with pytest.raises(BudgetError, match="copy of a prepaid ticket"):
        cross_validate(search, X, Y, cv=[(np.arange(60), np.arange(60))] * 3,
                       scoring=lambda est, X_, y_: 0.0, error_score="raise")
    assert budget.total() == (12.5, 0.0)


def test_a_prepaid_search_loaded_from_a_pickle_runs_once_in_all():
    # Its root came back with a full count of tickets: three loads of one search ran
    # 15 fits on the 5 paid for. Loaded in this process it is the live root.
    budget = BudgetAccountant(epsilon=100.0)
    search = prepay_search(_search(n_jobs=1), X, Y, accountant=budget)
    saved = pickle.dumps(search)
    pickle.loads(saved).fit(X, Y)
    for copy in (search, pickle.loads(saved), pickle.loads(pickle.dumps(search))):
        with pytest.raises(BudgetError, match="runs once"):
            copy.fit(X, Y)
    assert budget.total() == (12.5, 0.0)


_RELOADED_SEARCH = """
import pickle, sys
sys.path.insert(0, sys.argv[3])  # the scorer of the search, in this module
from skdpgraph.exceptions import BudgetError
search = pickle.load(open(sys.argv[1], "rb"))
try:
    search.fit(*pickle.load(open(sys.argv[2], "rb")))
except BudgetError as exc:
    print("refused" if "loaded from a pickle in another process" in str(exc) else exc)
"""


@pytest.mark.slow
def test_a_prepaid_search_loaded_in_another_process_makes_no_ticket(tmp_path):
    import subprocess
    import sys

    search = prepay_search(_search(n_jobs=1), X, Y, accountant=BudgetAccountant())
    (tmp_path / "search.pkl").write_bytes(pickle.dumps(search))
    (tmp_path / "data.pkl").write_bytes(pickle.dumps((X, Y)))
    out = subprocess.run([sys.executable, "-c", _RELOADED_SEARCH, str(tmp_path / "search.pkl"),
                          str(tmp_path / "data.pkl"), os.path.dirname(__file__)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "refused", out.stdout + out.stderr[-2000:]


def test_a_saved_prepaid_search_reloaded_in_its_process_counts_on_its_tickets():
    # Once the original was collected, a reload refused every fit already paid for.
    import gc

    budget = BudgetAccountant(epsilon=100.0)
    saved = pickle.dumps(prepay_search(_search(n_jobs=1), X, Y, accountant=budget))
    gc.collect()
    pickle.loads(saved).fit(X, Y)
    with pytest.raises(BudgetError, match="runs once"):
        pickle.loads(saved).fit(X, Y)
    assert budget.total() == (12.5, 0.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_fork_of_a_process_that_paid_makes_no_ticket():
    budget = BudgetAccountant(epsilon=100.0)
    search = prepay_search(_search(n_jobs=1), X, Y, accountant=budget)

    def fit():
        try:
            search.fit(X, Y)
        except BudgetError as exc:
            if "inherited by a fork" not in str(exc):
                raise RuntimeError(str(exc)) from exc  # b"error"
            raise

    assert _in_a_fork(fit) == b"refused"
    search.fit(X, Y)  # the process that paid still runs it, once
    assert budget.total() == (12.5, 0.0)


def test_copies_of_a_ticket_loaded_in_one_process_pay_for_one_fit():
    budget = BudgetAccountant(epsilon=100.0)
    [ticket] = prepay([(1.0, 0.0)], accountant=budget)
    saved = pickle.dumps(_model(epsilon=1.0, accountant=ticket))
    pickle.loads(saved).fit(X)
    for copy in (pickle.loads(saved), pickle.loads(pickle.dumps(_model(accountant=ticket)))):
        with pytest.raises(BudgetError, match="another copy of it"):
            copy.fit(X)
    with pytest.raises(BudgetError, match="another copy of it"):
        _model(epsilon=1.0, accountant=ticket).fit(X)  # the original, after a copy paid
    assert budget.total() == (1.0, 0.0)


def test_reloaded_model_says_how_to_refit():
    budget = BudgetAccountant(epsilon=5.0)
    model = pickle.loads(pickle.dumps(_model(epsilon=1.0, accountant=budget).fit(X)))
    with pytest.raises(DetachedAccountantError, match=r"set_params\(accountant="):
        model.fit(X)
    model.set_params(accountant=budget).fit(X)
    assert budget.total() == (2.0, 0.0)


def _dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    return cluster, distributed.Client(cluster)


@pytest.mark.slow
def test_dask_workers_refuse_the_default_and_run_a_prepaid_search():
    cluster, client = _dask_client()
    try:
        with BudgetAccountant(epsilon=3.0) as budget, parallel_config(backend="dask"):
            with pytest.raises(DetachedAccountantError):
                _search(n_jobs=-1).fit(X, Y)
            assert budget.total() == (0.0, 0.0)
        budget = BudgetAccountant(epsilon=12.5)
        search = prepay_search(_search(n_jobs=-1), X, Y, accountant=budget)
        with parallel_config(backend="dask"):
            search.fit(X, Y)
        assert budget.total() == (12.5, 0.0)
        assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    finally:
        client.close()
        cluster.close()
