"""PTClust on the UAI 2018 paper's homogeneous moons and circles (Section 4).
==========================================================================

Setting of the paper: 100-node strongly homogeneous graphs with
``w_min = 0.1`` and ``w_max = 0.3``, weights normalised into ``(0, 1]``
(public bounds ``(0, 1)``), sensitivity ``mu = 0.1`` with l1 neighbours, the
budget split evenly between the tree and its weights. Two private trees are
compared under the same neighbourhood and the same total epsilon:

* ``pamst``: PTClust (PAMST topology + Weight-Release + DBMSTClu);
* ``laplace``: Laplace-MST + DBMSTClu (the thesis's comparison).

For every epsilon in {0.5, 0.7, 1.0, 2.0, 5.0} and every one of 20 seeds (a
new graph and a new release per seed) it prints the median and quartiles of
the adjusted Rand index against the true clusters and of the number of
clusters found, plus the number of tree edges joining the two true clusters
(the exact MST of these graphs has exactly one).

The calibrations are the correct ones (see docs/privacy.md); the numbers are
not tuned to the paper's figures. Run with ``python examples/ptclust_experiment.py``
(about a minute); ``--seeds`` and ``--eps`` change the grid.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import DBMSTClu, PrivateMSTClustering
from skdpgraph.datasets import make_homogeneous_circles, make_homogeneous_moons
from skdpgraph.exceptions import DataDependentWarning, NoiseDominatesWarning, PrivacyLeakWarning

DATASETS = {"moons": make_homogeneous_moons, "circles": make_homogeneous_circles}


def inter_cluster_edges(tree, labels):
    """Number of edges of a sparse tree joining two different true clusters."""
    coo = tree.tocoo()
    upper = coo.row < coo.col
    return int(np.count_nonzero(labels[coo.row[upper]] != labels[coo.col[upper]]))


def run(epsilons, n_seeds, mu=0.1, mechanisms=("pamst", "laplace")):
    """Rows ``(dataset, mechanism, epsilon, ari, n_clusters, inter_edges)``."""
    rows = []
    for name, make in DATASETS.items():
        graphs = [make(random_state=seed) for seed in range(n_seeds)]
        exact = [adjusted_rand_score(g.labels, DBMSTClu(metric="precomputed")
                                     .fit_predict(g.graph)) for g in graphs]
        rows.append((name, "exact (DBMSTClu)", float("inf"), np.array(exact),
                     None, None))
        for mech in mechanisms:
            for eps in epsilons:
                ari, k, inter = [], [], []
                for seed, g in enumerate(graphs):
                    model = PrivateMSTClustering(
                        epsilon=eps, sensitivity=mu, neighborhood="l1",
                        weight_bounds=(0.0, 1.0), tree_mechanism=mech,
                        metric="precomputed", random_state=1000 + seed)
                    labels = model.fit_predict(g.graph)
                    ari.append(adjusted_rand_score(g.labels, labels))
                    k.append(model.n_clusters_)
                    inter.append(inter_cluster_edges(model.tree_, g.labels))
                rows.append((name, mech, eps, np.array(ari), np.array(k), np.array(inter)))
    return rows


def _q(a):
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return f"{med:6.2f} [{q1:5.2f}, {q3:5.2f}]"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--eps", type=float, nargs="+", default=[0.5, 0.7, 1.0, 2.0, 5.0])
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # no leak may pass silently; that noise dominates at small epsilon is the point
        warnings.simplefilter("error", PrivacyLeakWarning)
        warnings.simplefilter("error", DataDependentWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        rows = run(args.eps, args.seeds)
    print(f"{args.seeds} seeds per cell, mu=0.1, l1 neighbours, weight_bounds=(0, 1); "
          "median [quartiles]")
    print(f"{'data':8s} {'mechanism':17s} {'eps':>5s}  {'ARI':22s} {'n_clusters':22s} "
          f"{'inter-cluster tree edges':22s}")
    for name, mech, eps, ari, k, inter in rows:
        ks = _q(k) if k is not None else ""
        ie = _q(inter) if inter is not None else ""
        print(f"{name:8s} {mech:17s} {eps:5.1f}  {_q(ari):22s} {ks:22s} {ie:22s}")
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
