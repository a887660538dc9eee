"""``python -m skdpgraph``: cluster built-in data sets and report the results.

Runs DBMSTClu on two-moons and concentric circles made on the spot (no
download), prints the clusters found and the adjusted Rand index against the
true labels.
"""

import argparse
import sys

import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from . import __version__
from .cluster import DBMSTClu


def _datasets(n_samples, seed):
    yield "two moons", make_moons(n_samples=n_samples, noise=0.05, random_state=seed)
    yield "circles", make_circles(n_samples=n_samples, noise=0.03, factor=0.4,
                                  random_state=seed)


def _summary(labels):
    sizes = np.bincount(labels)
    shown = ", ".join(str(s) for s in sizes[:8]) + (", ..." if sizes.size > 8 else "")
    return f"{sizes.size} clusters (sizes {shown})"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skdpgraph", description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=200, help="points per data set")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data sets")
    args = parser.parse_args(argv)
    print(f"skdpgraph {__version__}")
    for name, (X, y) in _datasets(args.n_samples, args.seed):
        model = DBMSTClu().fit(X)
        ari = adjusted_rand_score(y, model.labels_)
        print(f"{name:>10} | DBMSTClu | {_summary(model.labels_)} | DBCVI {model.dbcvi_:.3f} "
              f"| ARI {ari:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
