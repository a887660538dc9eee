"""Speed and memory of DBMSTClu on noisy released trees, measured in one run.

Every time is a ratio to scipy's minimum_spanning_tree on the same graph,
measured interleaved (MST, case, MST, case, ...) and summarised by medians, so
that the load of a shared machine cancels out as far as it can. Prints:

* DBMSTClu on the tree released by PrivateMSTClustering (PAMST topology and
  Laplace weight release, epsilon=1, sensitivity=0.1, weights in [0, 1]) of
  random sparse graphs (average degree 8, uniform weights) of 10^5, 10^6 and
  4 x 10^6 edges: thousands of cuts. Also the peak memory of DBMSTClu
  (tracemalloc, a separate run) over the bytes of the CSR input graph;
* PrivateMSTClustering end to end (``epsilon=1, sensitivity=0.1,
  weight_bounds=(0, 1), tree_mechanism="pamst", metric="precomputed"``) on
  the same graphs;
* the same two on the 10-nearest-neighbour graph of points on a line (four
  Gaussian blobs, 10^5 and 4 x 10^5 points; sensitivity 1): the released
  tree is deep (depth in the thousands) and cut into tens of thousands of
  clusters, so many cuts have thousands of ancestors;
* rooting (``skdpgraph.tree.root_forest``) of a star of 200,000
  leaves and of 500,000 two-node components (quadratic before: 23 s and
  246 s), as ratios to the MST of the same graph;
* trees whose largest edge is cut at every step (distinct weights growing
  towards the leaves: a path, a star, a complete binary tree), at 5,000 and
  20,000 nodes, with the growth exponent of the time (1 is linear, 2
  quadratic). Every cut there changes the cluster's dispersion, and with it
  every candidate's value: a known quadratic case (docs/dbmstclu.md).

Targets (docs/dbmstclu.md): DBMSTClu and PrivateMSTClustering within 2x the
MST at 10^6 and 4 x 10^6 edges, memory at most 3x the CSR input.

Usage: python benchmarks/bench_dbmstclu.py [--quick] [--repeats 3]
"""

import argparse
import time
import tracemalloc
import warnings

import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree
from sklearn.neighbors import kneighbors_graph

from skdpgraph import PrivateMSTClustering, dbmstclu
from skdpgraph.tree import check_tree
from skdpgraph.tree import root_forest
from skdpgraph.utils import edges_to_csr


def random_graph(m, seed=0):
    """``m`` distinct random edges on ``m // 4`` nodes, uniform weights in (0, 1)."""
    rng = np.random.default_rng(seed)
    n = m // 4
    key = np.unique(rng.integers(0, n * n, size=int(1.2 * m)))
    key = rng.permutation(key)
    u, v = key // n, key % n
    keep = u != v
    lo, hi = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(lo * n + hi)[:m]
    lo, hi = key // n, key % n
    return edges_to_csr(lo, hi, rng.random(lo.size) * 0.999 + 0.001, n)


def line_knn_graph(n, seed=0):
    """Symmetrised 10-NN distance graph of ``n`` points on a line (four blobs)."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(3.0 * c, 1.0, n // 4) for c in range(4)])
    g = kneighbors_graph(x[:, None], 10, mode="distance")
    return g.maximum(g.T).tocsr()


def csr_bytes(g):
    return g.data.nbytes + g.indices.nbytes + g.indptr.nbytes


def estimator(sensitivity=0.1):
    return PrivateMSTClustering(epsilon=1, sensitivity=sensitivity, weight_bounds=(0, 1),
                                tree_mechanism="pamst", metric="precomputed", random_state=0)


def ratios(graph, fn, repeats):
    """Median time of ``fn`` over the median MST time, interleaved."""
    t_mst, t_fn = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        minimum_spanning_tree(graph)
        t_mst.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fn()
        t_fn.append(time.perf_counter() - t0)
    return float(np.median(t_fn)), float(np.median(t_mst)), float(np.median(np.divide(t_fn, t_mst)))


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main():
    warnings.simplefilter("ignore")  # the releases warn that noise dominates
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 edges only")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [10**5] if args.quick else [10**5, 10**6, 4 * 10**6]
    points = [10**5] if args.quick else [10**5, 4 * 10**5]
    print(f"{'case':<52} | {'time (s)':>9} | {'MST (s)':>8} | {'ratio':>6} | "
          f"{'cuts':>7} | {'peak/CSR':>8}")
    cases = [(f"noisy tree, {m:.0e} edges", lambda m=m: random_graph(m), 0.1) for m in sizes]
    cases += [(f"deep noisy tree, line 10-NN, {n:.0e} points", lambda n=n: line_knn_graph(n), 1.0)
              for n in points]
    for label, make, sensitivity in cases:
        graph = make()
        tree = check_tree(estimator(sensitivity).fit(graph).tree_)
        res = dbmstclu(tree)
        t, t_mst, r = ratios(graph, lambda: dbmstclu(tree), args.repeats)
        mem = peak_bytes(lambda: dbmstclu(tree)) / csr_bytes(graph)
        print(f"{'DBMSTClu, ' + label:<52} | {t:>9.3f} | {t_mst:>8.3f} | "
              f"{r:>6.2f} | {res.cut_weights.size:>7} | {mem:>8.2f}")
        t, t_mst, r = ratios(graph, lambda: estimator(sensitivity).fit(graph), args.repeats)
        print(f"{'PrivateMSTClustering end to end, ' + label:<52} | {t:>9.3f} | "
              f"{t_mst:>8.3f} | {r:>6.2f} | {'':>7} | {'':>8}")
    for name, n, edges in (
            ("rooting a star of 200,000 leaves", 200_001,
             np.column_stack([np.zeros(200_000, dtype=np.int64), np.arange(1, 200_001)])),
            ("rooting 500,000 two-node components", 10**6,
             np.column_stack([np.arange(0, 10**6, 2), np.arange(1, 10**6, 2)]))):
        w = np.random.default_rng(1).random(len(edges))
        graph = edges_to_csr(edges[:, 0], edges[:, 1], w, n)
        t, t_mst, r = ratios(graph, lambda: root_forest(edges, w, n), args.repeats)
        print(f"{name:<52} | {t:>9.3f} | {t_mst:>8.3f} | {r:>6.2f} | {'':>7} | {'':>8}")
    largest_edge_first(args.quick)


def growing_weight_trees(n):
    """Trees whose weights grow towards the leaves, all distinct."""
    child = np.arange(1, n)
    grow = np.arange(1, n, dtype=np.float64)
    return {"path": edges_to_csr(child - 1, child, grow, n),
            "star": edges_to_csr(np.zeros(n - 1, dtype=np.int64), child, grow, n),
            "binary tree": edges_to_csr((child - 1) // 2, child, grow, n)}


def largest_edge_first(quick):
    sizes = (1_000, 4_000) if quick else (5_000, 20_000)
    print(f"\n{'largest edge cut at every step':<32} | "
          + " | ".join(f"{f'n={n:,} (s)':>14}" for n in sizes) + f" | {'cuts':>7} | {'exponent':>8}")
    times = {}
    for n in sizes:
        for name, tree in growing_weight_trees(n).items():
            t0 = time.perf_counter()
            res = dbmstclu(tree)
            times.setdefault(name, []).append((time.perf_counter() - t0, res.cut_weights.size))
    for name, runs in times.items():
        (t1, _), (t2, cuts) = runs
        slope = np.log(t2 / t1) / np.log(sizes[1] / sizes[0])
        print(f"{'DBMSTClu, ' + name:<32} | " + " | ".join(f"{t:>14.3f}" for t, _ in runs)
              + f" | {cuts:>7} | {slope:>8.2f}")


if __name__ == "__main__":
    main()
