"""Speed of DBMSTClu, measured in one run.

Prints, for make_blobs data of 10^4 and 10^5 points in the plane:

* the time of DBMSTClu on the exact Euclidean MST (the MST comes from the
  Delaunay triangulation, which contains it; its time is printed apart);
* the time on a tree that splits off many singletons: the same MST with
  Laplace noise added to its weights, clipped into [1e-3, 1] as a private
  weight release does;
* the ratios to scikit-learn's single-linkage AgglomerativeClustering and to
  HDBSCAN on the same points.

Target: under 1 s on the MST of 10^5 points, also with many singletons.

Usage: python benchmarks/bench_dbmstclu.py [--sizes 10000 100000] [--linkage-max 20000]
"""

import argparse
import time

import numpy as np
from scipy.spatial import Delaunay
from sklearn.cluster import HDBSCAN, AgglomerativeClustering
from sklearn.datasets import make_blobs

from skdpgraph import dbmstclu
from skdpgraph.tree import make_spanning_tree, minimum_spanning_tree
from skdpgraph.utils import edges_to_csr


def euclidean_mst(X):
    """Exact Euclidean MST of points in the plane (it lies in the Delaunay graph)."""
    simplices = Delaunay(X).simplices
    e = np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [0, 2]]])
    e = np.unique(np.sort(e, axis=1), axis=0)
    w = np.linalg.norm(X[e[:, 0]] - X[e[:, 1]], axis=1)
    return minimum_spanning_tree(edges_to_csr(e[:, 0], e[:, 1], w, len(X)))


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--linkage-max", type=int, default=20_000,
                        help="largest n for single linkage (O(n^2) time)")
    parser.add_argument("--noise", type=float, default=0.02,
                        help="Laplace scale for the noisy tree, relative to the clip bound")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'n':>7} | {'case':<26} | {'time (s)':>9} | {'clusters':>8} | {'singletons':>10}")
    for n in args.sizes:
        X, _ = make_blobs(n_samples=n, centers=5, random_state=0)
        t_mst, T = timed(euclidean_mst, X)
        t_clean, res = timed(dbmstclu, T)
        print(f"{n:>7} | {'exact MST (Delaunay)':<26} | {t_mst:>9.3f} | {'':>8} | {'':>10}")
        print(f"{n:>7} | {'DBMSTClu on the MST':<26} | {t_clean:>9.3f} | {res.n_clusters:>8} | "
              f"{int((np.bincount(res.labels) == 1).sum()):>10}")
        # A private weight release: normalise by a public bound, add noise, clip.
        bound = 0.1
        noisy = np.clip(T.weights / bound + rng.laplace(scale=args.noise, size=T.weights.size),
                        1e-3, 1.0)
        Tn = make_spanning_tree(T.edges[:, 0], T.edges[:, 1], noisy, n)
        t_noisy, resn = timed(dbmstclu, Tn)
        print(f"{n:>7} | {'DBMSTClu, noisy clipped':<26} | {t_noisy:>9.3f} | {resn.n_clusters:>8} | "
              f"{int((np.bincount(resn.labels) == 1).sum()):>10}")
        t_hdb, _ = timed(HDBSCAN().fit, X)
        print(f"{n:>7} | {'HDBSCAN':<26} | {t_hdb:>9.3f} | {'':>8} | {'':>10}")
        if n <= args.linkage_max:
            t_link, _ = timed(AgglomerativeClustering(n_clusters=5, linkage="single").fit, X)
            print(f"{n:>7} | {'single linkage':<26} | {t_link:>9.3f} | {'':>8} | {'':>10}")
            link = f"{t_clean / t_link:.3f}"
        else:
            link = "skipped (O(n^2))"
        print(f"{n:>7} | ratios: DBMSTClu / HDBSCAN = {t_clean / t_hdb:.3f}, "
              f"DBMSTClu / single linkage = {link}, "
              f"(MST + DBMSTClu) / HDBSCAN = {(t_mst + t_clean) / t_hdb:.3f}")
        target = "met" if max(t_clean, t_noisy) < 1.0 else "MISSED"
        print(f"{n:>7} | target < 1 s on the tree (clean and noisy): {target}")


if __name__ == "__main__":
    main()
