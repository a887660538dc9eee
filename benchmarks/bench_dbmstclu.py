"""DBMSTClu's speed and memory against scipy's minimum_spanning_tree, in one run.

Every time is a ratio to ``scipy.sparse.csgraph.minimum_spanning_tree`` on the same graph
(the floor for any tree-based clusterer: it reads every edge), measured interleaved (MST,
case, MST, case, ...) and summarised by medians, so that the load of a shared machine cancels
out as far as it can. Prints:

* ``dbmstclu`` on noisy released trees: the tree PrivateMSTClustering releases (PAMST
  topology and Laplace weights, epsilon 1, sensitivity 0.1, weights in [0, 1]) from random
  graphs of 10^5, 10^6 and 4 x 10^6 edges (4 per node): thousands to hundreds of thousands
  of cuts; the peak of traced memory (tracemalloc, a separate run) over the bytes of the CSR
  input graph;
* ``dbmstclu`` on clean trees: the exact MST of random graphs (10 edges per node) and of
  10-nearest-neighbour graphs of uniform points, 10^6 and 4 x 10^6 edges;
* ``PrivateMSTClustering`` end to end (validation, release, DBMSTClu) on the random graphs
  of 10^6 and 4 x 10^6 edges: the default tree at sensitivities 0.1 and 0.01, and every
  other tree mechanism at sensitivity 0.1 (tens of thousands of clusters);
* trees of 10^6 nodes whose shape and weights make DBMSTClu cut at every step (weights
  growing away from node 0: the largest edge is cut each time): a path, a V-shaped path
  heavy at both ends (cuts alternate between the ends), a star, a caterpillar whose legs
  grow along the spine and one with random weights, a complete binary tree, a spider of 100
  legs, a broom, 500,000 two-node components. Each against scipy's MST of the same tree,
  and of the same topology with U(0, 1) weights (on pre-sorted weights scipy's sort costs
  almost nothing).

``--baseline DIR`` runs the same trees and graphs with the skdpgraph found in ``DIR`` (for
example another checkout) in a subprocess and prints its ratios beside ("before"); its
shapes run at 10^4 nodes. Targets (docs/dbmstclu.md): noisy trees and
PrivateMSTClustering within 2x the MST, clean trees within 0.5x, the shapes within 5x, peak
memory within 2x the CSR input.

Usage: python benchmarks/bench_dbmstclu.py [--quick] [--repeats 3] [--baseline DIR]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

if "--worker" not in sys.argv:  # measure this checkout, not an installed copy
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree
from sklearn.neighbors import kneighbors_graph

from skdpgraph import PrivateMSTClustering, dbmstclu
from skdpgraph.tree import check_tree, make_spanning_tree
from skdpgraph.tree import minimum_spanning_tree as exact_mst
from skdpgraph.utils import edges_to_csr


def random_graph(m, per_node=4, seed=0):
    """``m`` distinct random edges on ``m // per_node`` nodes, weights in (0, 1)."""
    rng = np.random.default_rng(seed)
    n = m // per_node
    key = rng.integers(0, n * n, size=int(1.3 * m))
    lo, hi = np.minimum(key // n, key % n), np.maximum(key // n, key % n)
    key = np.unique((lo * n + hi)[lo != hi])
    key = rng.permutation(key)[:m]
    return edges_to_csr(key // n, key % n, rng.random(key.size) * 0.999 + 0.001, n)


def knn_graph(m, seed=0):
    """Symmetrised 10-NN distance graph of uniform points of the unit square, about m edges."""
    X = np.random.default_rng(seed).random((int(m / 5.7), 2))
    g = kneighbors_graph(X, 10, mode="distance")
    return g.maximum(g.T).tocsr()


def csr_bytes(g):
    return g.data.nbytes + g.indices.nbytes + g.indptr.nbytes


def released(graph):
    return PrivateMSTClustering(epsilon=1, sensitivity=0.1, weight_bounds=(0, 1),
                                tree_mechanism="pamst", metric="precomputed",
                                random_state=0).fit(graph).tree_


def shapes(n):
    """Trees of ``n`` nodes cut at every step (but the caterpillar with random weights)."""
    rng = np.random.default_rng(0)
    c = np.arange(1, n)
    grow = c.astype(float)
    spine = n // 2
    cat_u = np.concatenate([np.arange(spine - 1), np.arange(n - spine) % spine])
    cat_v = np.concatenate([np.arange(1, spine), np.arange(spine, n)])
    cat_w = np.concatenate([rng.random(spine - 1) * 0.1, 1.0 + np.arange(n - spine)])
    return {
        "path": (c - 1, c, grow),
        "V-shaped path": (c - 1, c, np.abs(c - n / 2) + 1 + 0.5 * (c > n / 2)),
        "star": (np.zeros(n - 1, dtype=np.int64), c, grow),
        "caterpillar, legs growing": (cat_u, cat_v, cat_w),
        "caterpillar, random weights": (cat_u, cat_v, rng.random(n - 1)),
        "complete binary tree": ((c - 1) // 2, c, grow),
        "spider, 100 legs": (np.where(c <= 100, 0, c - 100), c, grow),
        "broom": (np.where(c < n // 2, c - 1, n // 2 - 1), c, grow),
        "two-node components": (np.arange(0, n, 2), np.arange(1, n, 2), rng.random(n // 2)),
    }


def interleaved(fn, graph, repeats):
    """(median time of fn, median MST time, median ratio, last result of fn)."""
    t_fn, t_mst = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        minimum_spanning_tree(graph)
        t_mst.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out = fn()
        t_fn.append(time.perf_counter() - t0)
    return (float(np.median(t_fn)), float(np.median(t_mst)),
            float(np.median(np.divide(t_fn, t_mst))), out)


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(cases, repeats, with_memory):
    """Run every case {name: (kind, graph, tree or None)}; returns {name: result dict}."""
    dbmstclu(make_spanning_tree([0, 1], [1, 2], [1.0, 2.0], 3))  # compile / load the engine
    results = {}
    for name, (kind, graph, extra) in cases.items():
        if kind == "ptclust":
            mechanism, sensitivity = extra
            fn = (lambda g=graph, mech=mechanism, mu=sensitivity: PrivateMSTClustering(
                epsilon=1, sensitivity=mu, weight_bounds=(0, 1), tree_mechanism=mech,
                metric="precomputed", random_state=0).fit(g).n_clusters_)
        else:
            tree = check_tree(extra)
            fn = (lambda tr=tree: dbmstclu(tr))
        t, t_mst, ratio, out = interleaved(fn, graph, repeats)
        res = {"time": t, "mst": t_mst, "ratio": ratio,
               "cuts": int(out) - 1 if kind == "ptclust" else int(out.cut_weights.size)}
        if kind == "noisy" and with_memory:
            res["memory"] = peak_bytes(fn) / csr_bytes(graph)
        if kind == "shape":  # the same topology with random weights as a second reference
            g = graph.copy()
            g.data = np.random.default_rng(1).random(g.data.size)
            g = g.maximum(g.T).tocsr()
            res["ratio_random"] = t / float(np.median([_timed(minimum_spanning_tree, g)
                                                       for _ in range(repeats)]))
        results[name] = res
        print(json.dumps({"progress": name, **res}), file=sys.stderr, flush=True)
    return results


def _timed(fn, *args):
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def build_cases(quick, shape_nodes):
    noisy = [10**5] if quick else [10**5, 10**6, 4 * 10**6]
    big = [10**5] if quick else [10**6, 4 * 10**6]
    cases = {}
    for m in noisy:
        g = random_graph(m)
        cases[f"noisy tree, random graph, {m:.0e} edges"] = ("noisy", g, released(g))
    for m in big:
        g = random_graph(m, per_node=10)
        cases[f"clean tree, random graph, {m:.0e} edges"] = ("clean", g, exact_mst(g))
        g = knn_graph(m)
        cases[f"clean tree, 10-NN graph, {m:.0e} edges"] = ("clean", g, exact_mst(g))
    for m in big:
        g = random_graph(m)
        for mech, mu in (("pamst", 0.1), ("input_perturbation", 0.1), ("exponential", 0.1),
                         ("noisy_max_prim", 0.1), ("auto", 0.1), ("auto", 0.01)):
            cases[f"PrivateMSTClustering {mech}, mu {mu}, {m:.0e} edges"] = ("ptclust", g,
                                                                            (mech, mu))
    for name, (u, v, w) in shapes(shape_nodes).items():
        tree = make_spanning_tree(u, v, w, shape_nodes)
        cases[f"{name}, {shape_nodes:.0e} nodes"] = ("shape", tree.tree, tree)
    return cases


def save(cases, path):
    arrays, kinds = {}, {}
    for j, (name, (kind, graph, extra)) in enumerate(cases.items()):
        kinds[name] = (j, kind, extra if kind == "ptclust" else None)
        g, tr = sp.csr_array(graph), None if kind == "ptclust" else check_tree(extra)
        arrays.update({f"{j}_data": g.data, f"{j}_indices": g.indices, f"{j}_indptr": g.indptr,
                       f"{j}_n": np.array([g.shape[0]])})
        if tr is not None:
            arrays.update({f"{j}_edges": tr.edges, f"{j}_weights": tr.weights})
    np.savez(path, **arrays)
    Path(str(path) + ".json").write_text(json.dumps(kinds))


def load(path):
    arrays, kinds = np.load(path), json.loads(Path(str(path) + ".json").read_text())
    cases = {}
    for name, (j, kind, extra) in kinds.items():
        n = int(arrays[f"{j}_n"][0])
        g = sp.csr_array((arrays[f"{j}_data"], arrays[f"{j}_indices"], arrays[f"{j}_indptr"]),
                         shape=(n, n))
        tree = None if kind == "ptclust" else make_spanning_tree(
            arrays[f"{j}_edges"][:, 0], arrays[f"{j}_edges"][:, 1], arrays[f"{j}_weights"], n)
        cases[name] = (kind, g, tuple(extra) if kind == "ptclust" else tree)
    return cases


def baseline(directory, cases, repeats):
    """The same cases with the skdpgraph of ``directory``, in a subprocess (shapes smaller)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.npz"
        save(cases, path)
        env = dict(os.environ, PYTHONPATH=str(directory))
        proc = subprocess.run([sys.executable, __file__, "--worker", str(path), "--repeats",
                               str(repeats)], capture_output=True, text=True, env=env,
                              check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(results, before, shape_nodes, base_shapes):
    head = f"{'case':<60} | {'time s':>7} | {'MST s':>6} | {'x MST':>6} | {'cuts':>7} | "
    print(head + f"{'peak/CSR':>8} | {'before x MST':>12}")
    for name, r in results.items():
        prior = before.get(name, {}).get("ratio")
        extra = f"{r['memory']:8.2f}" if "memory" in r else (
            f"rnd {r['ratio_random']:4.1f}" if "ratio_random" in r else " " * 8)
        print(f"{name:<60} | {r['time']:7.3f} | {r['mst']:6.3f} | {r['ratio']:6.2f} | "
              f"{r['cuts']:>7} | {extra:>8} | " + (f"{prior:12.2f}" if prior else ""))
    if base_shapes:
        print(f"\nshapes at {base_shapes:.0e} nodes, before (x MST of the same tree):")
        for name, r in before.items():
            if "nodes" in name:
                print(f"  {name:<50} {r['time']:8.3f} s {r['ratio']:9.1f} x  {r['cuts']} cuts")


def main():
    warnings.simplefilter("ignore")  # the releases warn that noise dominates
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 edges and nodes only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help="a directory whose skdpgraph is the 'before'")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(load(args.worker), args.repeats, False)))
        return
    shape_nodes = 10**5 if args.quick else 10**6
    cases = build_cases(args.quick, shape_nodes)
    before = {}
    if args.baseline:
        base_shapes = 10**4
        small = {k: v for k, v in cases.items() if v[0] != "shape"}
        for name, (u, v, w) in shapes(base_shapes).items():
            tree = make_spanning_tree(u, v, w, base_shapes)
            small[f"{name}, {base_shapes:.0e} nodes"] = ("shape", tree.tree, tree)
        before = baseline(args.baseline, small, args.repeats)
    report(measure(cases, args.repeats, True), before, shape_nodes,
           10**4 if args.baseline else None)


if __name__ == "__main__":
    main()
