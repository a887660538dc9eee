"""Scaling of the estimators, as ratios to scipy on the same graph, in one run.

Every case is a named entry of ``CASES``: a graph family, a list of sizes and
one function per competitor. For each (case, size) a fresh subprocess builds
the graph, then times the estimator, the competitor if any and
``scipy.sparse.csgraph.minimum_spanning_tree`` of the same graph interleaved
(``--repeat`` rounds, order rotated, medians; rounds stop early past a time
budget), then measures the peak traced memory of each (tracemalloc: numpy's
and Python's allocations, not those made inside compiled extensions with
their own allocator, such as the Rust internals of ``kmedoids``), one run
each. Ratios are printed, and the fitted log-log slope of time against edges
per case. Absolute times move with the load of the machine; ratios measured
in one run barely do.

The MST reference reads every edge: it is the floor for any graph
algorithm. For an unweighted graph it runs on the same topology with
U(0, 1) weights: with all weights equal scipy's MST sorts nothing and costs
a small fraction of that.

Cases (add more by appending to ``CASES``: a setup building the inputs, and
one callable per competitor):

* ``kmedoids``: ``GraphKMedoids`` (defaults, ``n_clusters = n / 100``) on a
  planted partition with 100-node blocks and 10 edges per node, against
  ``scipy.sparse.csgraph.shortest_path`` plus ``kmedoids.fasterpam`` by hand
  (random init, one thread, as the estimator);
* ``kmedoids_build``: the same with ``init="build"`` (PAM's greedy start);
* ``noisy_max_prim``: ``noisy_max_prim_tree`` on a random connected graph,
  10 edges per node, U(0, 1) weights;
* ``edge_flip``: ``EdgeFlipPerturbation(epsilon=4)`` of the planted
  partition; edges and the MST reference are those of the released graph,
  and the note gives the peak bytes per released edge;
* ``scan_flip_eps{2,4,6}``: ``SCAN()`` on the released graph of the planted
  partition flipped at that epsilon (its degree grows like ``n / (1 +
  e^epsilon)``);
* ``scan_sparse``: ``SCAN()`` on a random connected graph, 5 edges per node;
* ``<estimator>_knn`` and ``<estimator>_random``, for every graph estimator
  and tree mechanism (``dbmstclu``, ``ptclust``, ``exponential``, ``pamst``,
  ``laplace_mst``, ``input_pert``, ``nmp``, ``scan``, ``structural``,
  ``sim_to_dist``): 10-NN graphs of random points (distances) and random
  connected graphs (10 edges per node, U(0, 1) weights), 10^4 to 4 x 10^6
  edges; the private ones at epsilon 1 and mu 0.01;
* ``kmedoids_knn``, ``edge_flip_knn``, ``pig_scan_knn``, ``rr_spectral_knn``
  (up to 2 x 10^4 nodes: their cost grows with n^2 by design),
  ``noisy_power_knn`` and ``epsilon_graph`` (uniform points).

Run: ``python benchmarks/bench_scaling.py`` (about 15 minutes on 2 cores),
``--quick`` (about 2 minutes), ``--case NAME`` for some cases only.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
if (_ROOT / "skdpgraph").is_dir():  # measure this checkout, not an installed copy
    sys.path.insert(0, str(_ROOT))

import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree, shortest_path

from sklearn.neighbors import kneighbors_graph

from skdpgraph.cluster import (
    SCAN,
    DBMSTClu,
    GraphKMedoids,
    NoisyPowerClustering,
    PrivateGraphClustering,
    PrivateMSTClustering,
    RandomizedResponseSpectralClustering,
)
from skdpgraph.edge_dp import EdgeFlipPerturbation
from skdpgraph.graphs import EpsilonGraph, SimilarityToDistance, StructuralDistance
from skdpgraph.tree import (
    exponential_tree,
    input_perturbation_tree,
    laplace_mst,
    noisy_max_prim_tree,
    pamst,
)
from skdpgraph.utils import edges_to_csr, graph_edges

# ---------------------------------------------------------------------------
# Graph families
# ---------------------------------------------------------------------------


def planted_partition(n, degree=10, block=100, frac_in=0.8, seed=0):
    """Unweighted planted partition: ``n / block`` blocks, about ``degree * n / 2`` edges.

    A fraction ``frac_in`` of the edges joins two nodes of one block, the
    rest two nodes of different blocks (uniform, repeats removed).
    """
    rng = np.random.default_rng(seed)
    m = n * degree // 2
    n_blocks = max(n // block, 1)
    m_in = int(m * frac_in)
    b = rng.integers(0, n_blocks, m_in)
    i = rng.integers(0, block, m_in)
    j = rng.integers(0, block - 1, m_in)
    j += j >= i
    u = np.concatenate([b * block + i, rng.integers(0, n, m - m_in)])
    v = np.concatenate([b * block + j, rng.integers(0, n, m - m_in)])
    keep = (u != v) & (u < n) & (v < n)
    lo, hi = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(lo * n + hi)
    A = edges_to_csr(key // n, key % n, np.ones(key.size), n)
    return A, np.arange(n) // block


def random_connected_graph(n, m, seed=0):
    """A random recursive tree plus uniform extra edges, ``m`` edges, U(0, 1) weights."""
    rng = np.random.default_rng(seed)
    child = np.arange(1, n)
    parent = (rng.random(n - 1) * child).astype(np.int64)
    tree = parent * n + child
    u = rng.integers(0, n, int(m * 1.2) + 16)
    v = rng.integers(0, n, u.size)
    keep = u != v
    extra = np.unique(np.minimum(u[keep], v[keep]) * n + np.maximum(u[keep], v[keep]))
    extra = np.setdiff1d(extra, tree, assume_unique=True)
    extra = rng.permutation(extra)[: max(m - (n - 1), 0)]
    key = np.concatenate([tree, extra])
    return edges_to_csr(key // n, key % n, rng.random(key.size), n)


def knn_graph(n, k=10, seed=0):
    """The 10-nearest-neighbour graph of ``n`` uniform points of the unit square.

    Symmetrised (an edge where either point is among the other's ``k``
    nearest), Euclidean distances as weights: about ``5.7 n`` edges.
    """
    X = np.random.default_rng(seed).random((n, 2))
    A = kneighbors_graph(X, k, mode="distance")
    return A.maximum(A.T).tocsr()


def with_random_weights(A, seed=1):
    """The topology of ``A`` with U(0, 1) weights (the MST reference's input)."""
    u, v, _ = graph_edges(A)
    return edges_to_csr(u, v, np.random.default_rng(seed).random(u.size), A.shape[0])


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass
class Case:
    """A named benchmark case.

    ``setup(size)`` returns a dict with at least ``"mst_graph"`` (the graph
    of the MST reference) and ``"edges"`` (the edge count used for the
    slope); ``run(ctx)`` is the estimator, ``competitor`` an optional
    ``(label, callable)``; ``note(ctx, out, peak)`` an optional remark.
    """

    name: str
    title: str
    sizes: list
    quick: list
    setup: callable
    run: callable
    competitor: tuple = None
    note: callable = None
    size_label: str = "nodes"
    extra: dict = field(default_factory=dict)


_BY_HAND = "scipy shortest_path + kmedoids.fasterpam (random init, 1 thread)"


def _kmedoids_setup(n):
    A, _ = planted_partition(n)
    return {"graph": A, "k": max(n // 100, 2), "mst_graph": with_random_weights(A),
            "edges": A.nnz // 2}


# The seed GraphKMedoids(random_state=0) hands to kmedoids: both runs then
# start from the same medoids, and the ratio is that of the distance step.
_KMEDOIDS_SEED = int(np.random.default_rng(0).integers(2**31 - 1))


def _kmedoids_by_hand(ctx):
    import kmedoids

    D = shortest_path(ctx["graph"], method="D", directed=False, unweighted=True)
    return kmedoids.fasterpam(D, ctx["k"], init="random", random_state=_KMEDOIDS_SEED,
                              max_iter=300, n_cpu=1)


def _kmedoids_note(ctx, out, peak):
    ref = ctx.get("competitor_out")
    if ref is None:
        return f"k={ctx['k']}"
    return f"k={ctx['k']}, loss/by-hand {out.inertia_ / float(ref.loss):.4f}"


def _flip_setup(n, epsilon=4.0):
    A, _ = planted_partition(n)
    P = EdgeFlipPerturbation(epsilon=epsilon, random_state=0).fit_transform(A)
    return {"graph": A, "released": P, "mst_graph": with_random_weights(P),
            "edges": P.nnz // 2}


def _flip_note(ctx, out, peak):
    m = out.nnz // 2
    return f"{m} released, {peak / m:.0f} B/released edge"


def _nmp_setup(n):
    G = random_connected_graph(n, 10 * n)
    return {"graph": G, "mst_graph": G, "edges": G.nnz // 2}


def _scan_flip_setup(epsilon):
    def setup(n):
        ctx = _flip_setup(n, epsilon)
        ctx["graph"] = ctx.pop("released")
        return ctx
    return setup


def _scan_sparse_setup(n):
    G = random_connected_graph(n, 5 * n)
    G.data[:] = 1.0
    return {"graph": G, "mst_graph": with_random_weights(G), "edges": G.nnz // 2}


def _scan_note(ctx, out, peak):
    G = ctx["graph"]
    return f"mean degree {G.nnz / G.shape[0]:.0f}, {out.n_clusters_} clusters"


# Two families for every estimator, from 10^4 to 4 x 10^6 edges: 10-NN
# graphs of random points (weights: distances) and random connected graphs
# with 10 edges per node (weights: U(0, 1)).
_FAMILIES = {
    "knn": (knn_graph, [1750, 17500, 175000, 700000], [1750, 17500]),
    "random": (lambda n: random_connected_graph(n, 10 * n), [1000, 10000, 100000, 400000],
               [1000, 10000]),
}


def _weighted_setup(family):
    def setup(n):
        G = _FAMILIES[family][0](n)
        return {"graph": G, "mst_graph": G, "edges": G.nnz // 2}
    return setup


def _topology_setup(family):
    def setup(n):
        G = _FAMILIES[family][0](n)
        T = G.copy()
        T.data[:] = 1.0
        return {"graph": T, "mst_graph": G, "edges": G.nnz // 2}
    return setup


def _points_setup(n):
    # EpsilonGraph of uniform points with radius sqrt(6 / (pi n)): about 3 n edges.
    X = np.random.default_rng(0).random((n, 2))
    radius = float(np.sqrt(6.0 / (np.pi * n)))
    G = EpsilonGraph(radius=radius).fit_transform(X)
    return {"graph": G, "X": X, "radius": radius, "mst_graph": G, "edges": G.nnz // 2}


# Budget and public bounds of the private estimators: epsilon 1, mu 0.01
# (the exponential mechanism's goal case), weights within (0, 1.5).
_EPS, _MU, _BOUNDS = 1.0, 0.01, (0.0, 1.5)

# name -> (title, run, setup kind, sizes or None for the family's, quick or None)
_PER_FAMILY = {
    "dbmstclu": ("DBMSTClu(metric='precomputed')",
                 lambda c: DBMSTClu(metric="precomputed").fit(c["graph"]), "weighted"),
    "ptclust": ("PrivateMSTClustering(epsilon=1, sensitivity=0.01), defaults",
                lambda c: PrivateMSTClustering(epsilon=_EPS, sensitivity=_MU,
                                               weight_bounds=_BOUNDS, metric="precomputed",
                                               random_state=0).fit(c["graph"]), "weighted"),
    "exponential": ("exponential_tree(epsilon=1, mu=0.01, l1)",
                    lambda c: exponential_tree(c["graph"], _EPS, sensitivity=_MU,
                                               random_state=0), "weighted"),
    "pamst": ("pamst(epsilon=1, mu=0.01)",
              lambda c: pamst(c["graph"], _EPS, sensitivity=_MU, random_state=0), "weighted"),
    "laplace_mst": ("laplace_mst(epsilon=1, mu=0.01)",
                    lambda c: laplace_mst(c["graph"], _EPS, sensitivity=_MU, random_state=0),
                    "weighted"),
    "input_pert": ("input_perturbation_tree(epsilon=1, delta=1e-6, mu=0.01)",
                   lambda c: input_perturbation_tree(c["graph"], _EPS, delta=1e-6,
                                                     sensitivity=_MU, random_state=0),
                   "weighted"),
    "nmp": ("noisy_max_prim_tree(epsilon=1, delta=1e-6, mu=0.01)",
            lambda c: noisy_max_prim_tree(c["graph"], _EPS, delta=1e-6, sensitivity=_MU,
                                          random_state=0), "weighted"),
    "scan": ("SCAN() on the topology", lambda c: SCAN().fit(c["graph"]), "topology"),
    "structural": ("StructuralDistance() on the topology",
                   lambda c: StructuralDistance().fit_transform(c["graph"]), "topology"),
    "sim_to_dist": ("SimilarityToDistance() of the weights",
                    lambda c: SimilarityToDistance().fit_transform(c["graph"]), "weighted"),
}

# Estimators whose cost is not linear in the input by design: the dense
# n x n distances of GraphKMedoids (refused beyond max_memory) and the
# releases of the edge-DP routes (about n^2 / (2 (1 + e^epsilon)) released
# edges for randomized response): 10-NN graphs up to 10^4 or 2 x 10^4 nodes.
_SMALL = [1750, 4000, 10000]


def _edge_dp_cases():
    topo = _topology_setup("knn")
    return [
        Case("kmedoids_knn", "GraphKMedoids(n_clusters=10) on the 10-NN topology",
             sizes=_SMALL, quick=_SMALL[:2], setup=topo,
             run=lambda c: GraphKMedoids(10, random_state=0).fit(c["graph"])),
        Case("edge_flip_knn", "EdgeFlipPerturbation(epsilon=4) of the 10-NN topology",
             sizes=_SMALL + [20000], quick=_SMALL[:2], setup=topo,
             run=lambda c: EdgeFlipPerturbation(epsilon=4.0, random_state=1).fit_transform(
                 c["graph"])),
        Case("pig_scan_knn", "PrivateGraphClustering(SCAN(), epsilon=4), 10-NN topology",
             sizes=_SMALL + [20000], quick=_SMALL[:2], setup=topo,
             run=lambda c: PrivateGraphClustering(SCAN(), epsilon=4.0,
                                                  random_state=1).fit(c["graph"])),
        Case("rr_spectral_knn",
             "RandomizedResponseSpectralClustering(n_clusters=10, epsilon=4), 10-NN topology",
             sizes=_SMALL + [20000], quick=_SMALL[:2], setup=topo,
             run=lambda c: RandomizedResponseSpectralClustering(
                 n_clusters=10, epsilon=4.0, random_state=1).fit(c["graph"])),
        Case("noisy_power_knn", "NoisyPowerClustering(n_clusters=10, epsilon=4), 10-NN topology",
             sizes=[1750, 17500, 175000, 700000], quick=[1750, 17500], setup=topo,
             run=lambda c: NoisyPowerClustering(n_clusters=10, epsilon=4.0,
                                                random_state=1).fit(c["graph"])),
        Case("epsilon_graph", "EpsilonGraph of uniform points (about 3 n edges)",
             sizes=[3300, 33000, 330000, 1300000], quick=[3300, 33000], setup=_points_setup,
             run=lambda c: EpsilonGraph(radius=c["radius"]).fit_transform(c["X"])),
    ]


def _family_cases():
    cases = []
    for name, (title, run, kind) in _PER_FAMILY.items():
        for family, (_, sizes, quick) in _FAMILIES.items():
            setup = (_weighted_setup if kind == "weighted" else _topology_setup)(family)
            label = "10-NN graph of random points" if family == "knn" else (
                "random connected graph, 10 edges/node")
            cases.append(Case(f"{name}_{family}", f"{title}, {label}", sizes=sizes,
                              quick=quick, setup=setup, run=run))
    return cases


CASES = [
    Case("kmedoids", "GraphKMedoids (default init), planted partition, k = n/100",
         sizes=[1000, 2000, 4000, 10000], quick=[500, 1000, 2000],
         setup=_kmedoids_setup,
         run=lambda c: GraphKMedoids(c["k"], random_state=0).fit(c["graph"]),
         competitor=(_BY_HAND, _kmedoids_by_hand), note=_kmedoids_note),
    Case("kmedoids_build", "GraphKMedoids(init='build'), the former default",
         sizes=[1000, 2000, 4000], quick=[500, 1000],
         setup=_kmedoids_setup,
         run=lambda c: GraphKMedoids(c["k"], init="build", random_state=0).fit(c["graph"]),
         competitor=(_BY_HAND, _kmedoids_by_hand), note=_kmedoids_note),
    Case("noisy_max_prim", "noisy_max_prim_tree, random connected graph, 10 edges/node",
         sizes=[1000, 4000, 16000, 64000, 256000, 400000], quick=[1000, 4000, 16000, 64000],
         setup=_nmp_setup,
         run=lambda c: noisy_max_prim_tree(c["graph"], 1.0, sensitivity=0.01,
                                           random_state=0)),
    Case("edge_flip", "EdgeFlipPerturbation(epsilon=4), planted partition",
         sizes=[1000, 2500, 5000, 10000, 20000], quick=[1000, 2500, 5000],
         setup=_flip_setup,
         run=lambda c: EdgeFlipPerturbation(epsilon=4.0, random_state=1).fit_transform(
             c["graph"]),
         note=_flip_note),
    Case("scan_flip_eps2", "SCAN() on the planted partition flipped at epsilon 2",
         sizes=[1000, 2000, 4000, 8000], quick=[1000, 2000],
         setup=_scan_flip_setup(2.0), run=lambda c: SCAN().fit(c["graph"]), note=_scan_note),
    Case("scan_flip_eps4", "SCAN() on the planted partition flipped at epsilon 4",
         sizes=[1000, 2500, 5000, 10000, 20000], quick=[1000, 2500, 5000],
         setup=_scan_flip_setup(4.0), run=lambda c: SCAN().fit(c["graph"]), note=_scan_note),
    Case("scan_flip_eps6", "SCAN() on the planted partition flipped at epsilon 6",
         sizes=[2000, 5000, 20000, 50000], quick=[2000, 5000],
         setup=_scan_flip_setup(6.0), run=lambda c: SCAN().fit(c["graph"]), note=_scan_note),
    Case("scan_sparse", "SCAN() on a random connected graph, 5 edges/node",
         sizes=[2000, 20000, 200000, 800000], quick=[2000, 20000, 200000],
         setup=_scan_sparse_setup, run=lambda c: SCAN().fit(c["graph"]), note=_scan_note),
] + _family_cases() + _edge_dp_cases()
_BY_NAME = {case.name: case for case in CASES}

# ---------------------------------------------------------------------------
# Measurement (one subprocess per case and size)
# ---------------------------------------------------------------------------


def _peak(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        return tracemalloc.get_traced_memory()[1] - base, out
    finally:
        tracemalloc.stop()


def worker(name, size, repeat, budget):
    case = _BY_NAME[name]
    ctx = case.setup(size)
    G = ctx["graph"]
    fns = {"estimator": lambda: case.run(ctx),
           "mst": lambda: minimum_spanning_tree(ctx["mst_graph"])}
    if case.competitor is not None:
        fns["competitor"] = lambda: case.competitor[1](ctx)
    names = list(fns)
    times = {k: [] for k in names}
    outs = {}
    t_start = time.perf_counter()
    for r in range(repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            t0 = time.perf_counter()
            outs[k] = fns[k]()
            times[k].append(time.perf_counter() - t0)
        if time.perf_counter() - t_start > budget:
            break
    peaks = {k: _peak(fns[k])[0] for k in names}
    ctx["competitor_out"] = outs.get("competitor")
    note = case.note(ctx, outs["estimator"], peaks["estimator"]) if case.note else ""
    return {
        "case": name, "size": size, "nodes": int(G.shape[0]), "edges": int(ctx["edges"]),
        "time": {k: float(np.median(v)) for k, v in times.items()},
        "rounds": len(times["estimator"]), "peak": peaks, "note": note,
    }


def _run_worker(name, size, repeat, budget):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(_ROOT), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, str(size),
           "--repeat", str(repeat), "--budget", str(budget)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        return {"case": name, "size": size, "error": proc.stderr.strip().splitlines()[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _slope(edges, times):
    if len(edges) < 2:
        return float("nan")
    return float(np.polyfit(np.log(edges), np.log(times), 1)[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--case", action="append", choices=sorted(_BY_NAME),
                        help="run only this case (repeatable)")
    parser.add_argument("--size", action="append", type=int,
                        help="run this size instead of the case's list (repeatable)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds after which a size stops starting new rounds")
    parser.add_argument("--worker", nargs=2, metavar=("CASE", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), args.repeat,
                                args.budget)))
        return

    cases = [_BY_NAME[c] for c in args.case] if args.case else CASES
    header = (f"{'case':<16}{'nodes':>8}{'edges':>10}{'time s':>9}{'x MST':>8}"
              f"{'x comp':>8}{'peak MiB':>10}{'mem x MST':>10}{'mem x comp':>11}  note")
    print("Ratios to scipy minimum_spanning_tree of the same graph (x MST) and to the "
          "competitor (x comp); medians of interleaved rounds, peaks by tracemalloc.")
    slopes = []
    for case in cases:
        print(f"\n== {case.name}: {case.title}")
        if case.competitor:
            print(f"   competitor: {case.competitor[0]}")
        print(header)
        rows = []
        for size in args.size or (case.quick if args.quick else case.sizes):
            res = _run_worker(case.name, size, args.repeat, args.budget)
            if "error" in res:
                print(f"{case.name:<16}{size:>8}  failed: {res['error']}")
                continue
            t, p = res["time"], res["peak"]
            comp_t = f"{t['estimator'] / t['competitor']:8.2f}" if "competitor" in t else " " * 8
            comp_p = (f"{p['estimator'] / max(p['competitor'], 1):11.2f}"
                      if "competitor" in p else " " * 11)
            rounds = "" if res["rounds"] == args.repeat else f" ({res['rounds']} rounds)"
            print(f"{case.name:<16}{res['nodes']:>8}{res['edges']:>10}{t['estimator']:9.3f}"
                  f"{t['estimator'] / t['mst']:8.2f}{comp_t}{p['estimator'] / 2**20:10.1f}"
                  f"{p['estimator'] / max(p['mst'], 1):10.2f}{comp_p}  {res['note']}{rounds}",
                  flush=True)
            rows.append(res)
        if rows:
            edges = [r["edges"] for r in rows]
            s_est = _slope(edges, [r["time"]["estimator"] for r in rows])
            s_mst = _slope(edges, [r["time"]["mst"] for r in rows])
            line = f"   log-log slope of time vs edges: {s_est:.2f} (scipy MST {s_mst:.2f}"
            if case.competitor:
                s_comp = _slope(edges, [r["time"]["competitor"] for r in rows])
                line += f", competitor {s_comp:.2f}"
            print(line + ")")
            slopes.append((case.name, s_est, s_mst))
    print("\n== slopes (time vs edges): " + ", ".join(
        f"{name} {s:.2f} (MST {sm:.2f})" for name, s, sm in slopes))


if __name__ == "__main__":
    main()
