"""Scale-out on Dask through joblib: seeds, fresh secure randomness, the accountant.

A ``LocalCluster`` of two worker processes runs an epsilon sweep of
``PrivateMSTClustering`` through ``joblib.parallel_config(backend="dask")``.
Checked: every task gets its own seed stream (``SeedSequence.spawn``), so no
release is repeated across workers and the sweep reproduces the sequential
one; ``random_state=None`` draws a fresh cryptographically secure generator
in each worker; a ``BudgetAccountant`` shipped to a worker refuses to spend
(``DetachedAccountantError``) instead of losing the spend, and fits paid for
in the client (``prepay``) run there on their tickets.
"""

import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
from joblib import Parallel, delayed, parallel_config  # noqa: E402

from skdpgraph.cluster import PrivateMSTClustering  # noqa: E402
from skdpgraph.datasets import make_homogeneous_moons  # noqa: E402
from skdpgraph.exceptions import DetachedAccountantError
from skdpgraph.privacy import BudgetAccountant, prepay
from skdpgraph.utils import check_random_state  # noqa: E402

EPSILONS = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
GRAPH = make_homogeneous_moons(random_state=0).graph


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, scheduler_port=0)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _release(epsilon, random_state, accountant=None):
    """One private clustering; what it released and where it ran."""
    model = PrivateMSTClustering(epsilon=epsilon, sensitivity=0.1, weight_bounds=(0.0, 1.0),
                                 tree_mechanism="laplace", metric="precomputed",
                                 accountant=accountant, random_state=random_state)
    model.fit(GRAPH)
    return epsilon, model.tree_.data.copy(), model.labels_, os.getpid()


def _sweep(seeds):
    tickets = prepay([(eps, 0.0) for eps in EPSILONS], accountant=BudgetAccountant())
    return [delayed(_release)(eps, np.random.default_rng(seed), ticket)
            for eps, seed, ticket in zip(EPSILONS, seeds, tickets)]


@pytest.mark.slow
def test_epsilon_sweep_per_task_seed_streams(client):
    seeds = np.random.SeedSequence(2024).spawn(len(EPSILONS))
    with parallel_config(backend="dask"):
        remote = Parallel(n_jobs=-1)(_sweep(seeds))
    pids = {r[3] for r in remote}
    assert os.getpid() not in pids  # ran in the worker processes
    assert [r[0] for r in remote] == EPSILONS  # results come back in order
    # No release repeated: every task's released weights are its own.
    weights = [r[1].tobytes() for r in remote]
    assert len(set(weights)) == len(weights)
    # The seeds travelled: the same sweep run here gives the same releases.
    local = Parallel(n_jobs=1)(_sweep(np.random.SeedSequence(2024).spawn(len(EPSILONS))))
    for (_, w_remote, lab_remote, _), (_, w_local, lab_local, _) in zip(remote, local):
        np.testing.assert_array_equal(w_remote, w_local)
        np.testing.assert_array_equal(lab_remote, lab_local)


def _generator_kind(_):
    rng = check_random_state(None)
    return type(rng.bit_generator).__name__, rng.integers(0, 2**63), os.getpid()


@pytest.mark.slow
def test_random_state_none_is_fresh_and_secure_in_each_worker(client):
    with parallel_config(backend="dask"):
        kinds = Parallel(n_jobs=-1)(delayed(_generator_kind)(i) for i in range(8))
        tickets = prepay([(5.0, 0.0)] * 6, accountant=BudgetAccountant())
        releases = Parallel(n_jobs=-1)(delayed(_release)(5.0, None, t) for t in tickets)
    assert {k[0] for k in kinds} <= {"AESCounter", "ChaCha"}
    assert len({k[1] for k in kinds}) == len(kinds)  # no two workers share a stream
    assert os.getpid() not in {k[2] for k in kinds}
    weights = [r[1].tobytes() for r in releases]
    assert len(set(weights)) == len(weights)  # same epsilon, six different releases


def test_accountant_sent_to_workers_refuses_to_spend(client):
    budget = BudgetAccountant(epsilon=10.0)
    with parallel_config(backend="dask"):
        with pytest.raises(DetachedAccountantError):
            Parallel(n_jobs=-1)(delayed(_release)(1.0, 0, budget) for _ in range(2))
    # Nothing was spent anywhere unseen: the budget here is intact and usable.
    assert budget.total() == (0.0, 0.0)
    _release(1.0, 0, budget)
    assert budget.total()[0] == pytest.approx(1.0)
