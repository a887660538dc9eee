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
* ``kmedoids_build``: the same with ``init="build"`` (the former default);
* ``noisy_max_prim``: ``noisy_max_prim_tree`` on a random connected graph,
  10 edges per node, U(0, 1) weights;
* ``edge_flip``: ``EdgeFlipPerturbation(epsilon=4)`` of the planted
  partition; edges and the MST reference are those of the released graph,
  and the note gives the peak bytes per released edge;
* ``scan_flip_eps{2,4,6}``: ``SCAN()`` on the released graph of the planted
  partition flipped at that epsilon (its degree grows like ``n / (1 +
  e^epsilon)``);
* ``scan_sparse``: ``SCAN()`` on a random connected graph, 5 edges per node.

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

from skdpgraph.cluster import SCAN, GraphKMedoids
from skdpgraph.edge_dp import EdgeFlipPerturbation
from skdpgraph.tree import noisy_max_prim_tree
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
]
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
