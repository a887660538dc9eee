"""``python -m skdpgraph``: cluster built-in data and report the results.

1. DBMSTClu on two moons and concentric circles (point clouds made on the
   spot, complete Euclidean graphs).
2. The UAI 2018 experiment's graphs (homogeneous moons and circles, 100
   nodes, weights in (0, 1]): DBMSTClu, then PrivateMSTClustering with its
   default ``tree_mechanism="auto"`` (the mechanism it chose in brackets;
   see ``skdpgraph.tree.choose_tree_mechanism``) and with each registered
   tree mechanism, at a few privacy budgets, with weight-DP under l1
   neighbours (sensitivity 0.1, as in the paper). Each private row is the
   median over a few releases.

Every line prints the number of clusters found and the adjusted Rand index
(ARI) against the true labels. The releases use fixed seeds so that the demo
is reproducible; a real release uses ``random_state=None``.
"""

import argparse
import sys
import warnings

import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from . import __version__
from .cluster import DBMSTClu, PrivateMSTClustering
from .datasets import make_homogeneous_circles, make_homogeneous_moons
from .tree import TREE_MECHANISMS


def _point_clouds(n_samples, seed):
    yield "two moons", make_moons(n_samples=n_samples, noise=0.05, random_state=seed)
    yield "circles", make_circles(n_samples=n_samples, noise=0.03, factor=0.4,
                                  random_state=seed)


def _summary(labels):
    sizes = np.bincount(labels)
    shown = ", ".join(str(s) for s in np.sort(sizes)[::-1][:4])
    return f"{sizes.size:>3} clusters (largest {shown}{', ...' if sizes.size > 4 else ''})"


def _private_rows(name, data, epsilons, n_runs, seed):
    mechanisms = ["auto"] + sorted(TREE_MECHANISMS)
    for mechanism in mechanisms:
        for eps in epsilons:
            aris, ks = [], []
            for run in range(n_runs):
                model = PrivateMSTClustering(
                    epsilon=eps, sensitivity=0.1, neighborhood="l1",
                    weight_bounds=(0.0, 1.0), tree_mechanism=mechanism,
                    metric="precomputed", random_state=seed + run)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # e.g. delta notes of (eps, delta) trees
                    try:
                        labels = model.fit_predict(data.graph)
                    except (TypeError, ValueError) as exc:  # mechanism needs other settings
                        print(f"{name:>10} | {mechanism:<18} | eps {eps:>5g} | skipped: {exc}")
                        break
                aris.append(adjusted_rand_score(data.labels, labels))
                ks.append(model.n_clusters_)
            else:
                shown = (mechanism if mechanism != "auto"
                         else f"auto ({model.tree_mechanism_})")
                print(f"{name:>10} | {shown:<18} | eps {eps:>5g} | "
                      f"median {np.median(ks):>5.1f} clusters | median ARI {np.median(aris) + 0.0:.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skdpgraph",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=200, help="points per point cloud")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and releases")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 5.0, 20.0])
    parser.add_argument("--runs", type=int, default=5, help="releases per private row")
    args = parser.parse_args(argv)
    print(f"skdpgraph {__version__}")
    print("\n1. DBMSTClu on point clouds (complete Euclidean graph)")
    for name, (X, y) in _point_clouds(args.n_samples, args.seed):
        model = DBMSTClu().fit(X)
        print(f"{name:>10} | DBMSTClu | {_summary(model.labels_)} | DBCVI {model.dbcvi_:.3f} "
              f"| ARI {adjusted_rand_score(y, model.labels_):.3f}")
    print("\n2. The UAI 2018 graphs: weight-DP, l1 neighbours, sensitivity 0.1, "
          "weights in (0, 1]")
    for name, make in (("moons", make_homogeneous_moons), ("circles", make_homogeneous_circles)):
        data = make(random_state=args.seed)
        model = DBMSTClu(metric="precomputed").fit(data.graph)
        print(f"{name:>10} | {'DBMSTClu (exact)':<18} | {'':>9} | {_summary(model.labels_)} | "
              f"ARI {adjusted_rand_score(data.labels, model.labels_):.3f}")
        _private_rows(name, data, args.epsilons, args.runs, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
