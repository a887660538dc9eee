"""Does the budget split ``tree_share`` move the linf frontier?

The study quoted in ``docs/private_trees.md`` (section 4): on the 100-node
homogeneous moons, ``neighborhood="linf"``, ``sensitivity=0.01``, zCDP
accounting with ``delta=1e-6``, the smallest ``epsilon`` (on a grid of 17
values from 3 to 300) at which the median ARI of 20 fits against the
non-private output (exact MST + DBMSTClu) reaches 0.9, for the input
perturbation tree and for PTClust-PAMST, at shares 0.3 / 0.5 / 0.7 / 0.9 of
the budget spent on the tree.

Run: ``python benchmarks/frontier_tree_share.py [--n-jobs 2]`` (a few
minutes on 2 cores).
"""

import argparse
import itertools
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import PrivateMSTClustering
from frontier import DELTA, TARGET, load_benchmark

SHARES = (0.3, 0.5, 0.7, 0.9)
SETTINGS = (("input perturbation (zCDP)", "input_perturbation", "zcdp"),
            ("PTClust-PAMST", "pamst", "pure"))
EPSILONS = tuple(float(f"{x:.3g}") for x in np.logspace(np.log10(3), np.log10(300), 17))


def median_ari(bench, mechanism, accounting, share, eps, runs, seed):
    aris = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(runs):
            model = PrivateMSTClustering(
                epsilon=eps, sensitivity=0.01, neighborhood="linf", weight_bounds=(0.0, 1.0),
                accounting=accounting, delta=DELTA if accounting == "zcdp" else None,
                tree_share=share, tree_mechanism=mechanism, metric="precomputed",
                random_state=seed + r)
            aris.append(adjusted_rand_score(bench.reference, model.fit_predict(bench.graph)))
    return float(np.median(aris))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    bench = load_benchmark("moons100", args.seed)
    cells = list(itertools.product(SETTINGS, SHARES, EPSILONS))
    medians = Parallel(n_jobs=args.n_jobs)(
        delayed(median_ari)(bench, mech, acc, share, eps, args.runs, args.seed)
        for (_, mech, acc), share, eps in cells)
    found = {}
    for ((name, _, _), share, eps), med in zip(cells, medians):
        if med >= TARGET and (name, share) not in found:
            found[name, share] = eps
    print(f"moons100, linf, mu = 0.01, delta = {DELTA:g}; smallest epsilon on the grid "
          f"{EPSILONS[0]:g}..{EPSILONS[-1]:g} with median ARI >= {TARGET} ({args.runs} fits)")
    print(f"{'mechanism':<28}" + "".join(f"share {s:<7g}" for s in SHARES))
    for name, _, _ in SETTINGS:
        row = "".join(f"{found.get((name, s), float('nan')):<13.3g}" for s in SHARES)
        print(f"{name:<28}{row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
