"""
Epsilon sweeps, repeated releases and GridSearchCV on a Dask cluster
====================================================================

This script is shown, not run, by the documentation build (it starts a
cluster). Run it with ``python examples/dask_epsilon_sweep.py`` (a local
cluster of two worker processes) or ``python examples/dask_epsilon_sweep.py
--scheduler tcp://HOST:8786`` (an existing cluster); it needs
``pip install "skdpgraph[dask]"``. See :doc:`/scale_out` for the rules
it follows:

* every task gets its own seed stream, spawned from one
  :class:`numpy.random.SeedSequence`, so no two tasks repeat a release and
  the study is reproducible (and therefore *not* a private release: for a
  real release pass ``random_state=None``, which draws a fresh
  cryptographically secure generator in each worker);
* a :class:`~skdpgraph.privacy.BudgetAccountant` stays in the client: a copy
  sent to a worker refuses to spend, and so does the default accountant in a
  worker, so the client pays for the releases it asks for before sending
  them (:func:`~skdpgraph.privacy.prepay` for a sweep,
  :func:`~skdpgraph.privacy.prepay_search` for a grid search), and each fit
  takes its single-use ticket along.
"""

import argparse
import time

import numpy as np
from joblib import Parallel, delayed, parallel_config
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import PrivateMSTClustering
from skdpgraph.datasets import make_homogeneous_moons
from skdpgraph.privacy import BudgetAccountant, prepay, prepay_search

EPSILONS = [0.1, 0.3, 1.0, 3.0, 10.0]
RUNS = 10


def release(graph, epsilon, seed, ticket):
    """One release: its labels (seed: a SeedSequence, or None for a real release)."""
    rng = None if seed is None else np.random.default_rng(seed)
    return PrivateMSTClustering(epsilon=epsilon, sensitivity=0.01, weight_bounds=(0.0, 1.0),
                                tree_mechanism="laplace", metric="precomputed",
                                random_state=rng, accountant=ticket).fit_predict(graph)


def main(argv=None):
    parser = argparse.ArgumentParser(description="epsilon sweep on a Dask cluster")
    parser.add_argument("--scheduler", default=None, help="address of a Dask scheduler")
    args = parser.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    cluster = None
    if args.scheduler is None:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=":0")
    client = Client(args.scheduler or cluster)
    data = make_homogeneous_moons(random_state=0)

    # 1. A study of the trade-off (fixed seeds, ground truth): one task per
    #    (epsilon, run), each with its own child SeedSequence.
    tasks = [(eps, run) for eps in EPSILONS for run in range(RUNS)]
    seeds = np.random.SeedSequence(12345).spawn(len(tasks))
    study = BudgetAccountant()  # unlimited: a study on data with ground truth
    tickets = prepay([(eps, 0.0) for eps, _ in tasks], accountant=study)
    t0 = time.perf_counter()
    with parallel_config(backend="dask"):
        labels = Parallel(n_jobs=-1)(delayed(release)(data.graph, eps, seed, ticket)
                                     for (eps, _), seed, ticket in zip(tasks, seeds, tickets))
    ari = np.array([adjusted_rand_score(data.labels, lab) for lab in labels])
    ari = ari.reshape(len(EPSILONS), RUNS)
    print(f"{len(tasks)} releases in {time.perf_counter() - t0:.1f} s")
    for eps, row in zip(EPSILONS, ari):
        print(f"  epsilon {eps:5g}: median ARI {np.median(row):.2f}")

    # 2. Repeated real releases under one budget: the client charges them
    #    all before sending the work; each worker fit takes its ticket.
    budget = BudgetAccountant(epsilon=3.0)
    n_releases, eps = 3, 1.0
    tickets = prepay([(eps, 0.0)] * n_releases, accountant=budget)
    with parallel_config(backend="dask"):
        releases = Parallel(n_jobs=-1)(delayed(release)(data.graph, eps, None, ticket)
                                       for ticket in tickets)
    print(f"{len(releases)} real releases; budget spent {budget.total()}")

    # 3. GridSearchCV over epsilon (on data with ground truth: a study, not a
    #    release). Every fit spends privacy: prepay_search charges them all
    #    (candidates x folds + the refit) in the client first.
    from sklearn.model_selection import GridSearchCV

    def ari_scorer(estimator, X, y):
        return adjusted_rand_score(y, estimator.fit_predict(X))

    search = GridSearchCV(
        PrivateMSTClustering(sensitivity=0.01, weight_bounds=(0.0, 1.0),
                             tree_mechanism="laplace", metric="precomputed", random_state=0),
        {"epsilon": EPSILONS}, scoring=ari_scorer, cv=[(np.arange(100), np.arange(100))],
        n_jobs=-1, error_score="raise")
    search = prepay_search(search, data.graph, data.labels, accountant=study)
    with parallel_config(backend="dask"):
        search.fit(data.graph, data.labels)
    scores = ", ".join(f"{e:g}: {s:.2f}" for e, s in
                       zip(EPSILONS, search.cv_results_["mean_test_score"]))
    print(f"GridSearchCV ARI by epsilon: {scores}; best {search.best_params_['epsilon']}")
    print(f"spent on the study: {study.total()}")
    client.close()
    if cluster is not None:
        cluster.close()


if __name__ == "__main__":
    main()
