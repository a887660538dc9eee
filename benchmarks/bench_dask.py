"""One private clustering of a Dask edge table: time, memory, rounds and bytes.

On a ``LocalCluster`` of two worker processes (one thread each, a memory
limit, spilling to disk), edge tables are generated partition by partition
on the workers (never on the client) and kept there (``persist``), then
``PrivateMSTClustering(metric="precomputed").fit(table)`` runs end to end:
the topology pass, the per-partition noise and forests, the reduction, the
tree's weights and DBMSTClu on the client. Two kinds of graph, 10 edges a
node:

* ``random``: every node draws 20 uniform candidates and keeps those above
  it (degree 20 on average, no locality: a partition's edges reach all
  nodes); weights U(0, 1);
* ``band``: node ``i`` is joined to ``i+1..i+10`` (a 10-nearest-neighbour
  graph of points on a line, ordered, so partitions have locality); weights
  are the distances between the points ``x_i = (i + h(i)) / 10``, ``h`` a
  hash in [0, 1).

Printed per size and kind: wall time of the fit (median of ``--repeat``),
the stages, rounds of the reduction and the edges and bytes sent to each,
the peak resident memory of each worker process and the client's peak
during the fit, and, up to ``--in-memory-max`` edges, the same fit of the
same graph as a scipy CSR array in the client (the single-machine path),
timed interleaved with the distributed one, and their ratio.

Run: ``nice -n 10 python benchmarks/bench_dask.py --sizes 1e6 1e7`` (a few
minutes); ``--sizes 1e8`` needs the workers' memory (about 2.4 GB of table
plus the forests) and runs for several minutes.
"""

import argparse
import os
import resource
import statistics
import sys
import threading
import time
import warnings

import numpy as np


def _hash_uniform(i):
    """A hash of integers into [0, 1) (splitmix64), vectorised."""
    z = i.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def make_partition(p, kind, n_nodes, n_parts, seed=0):
    """Partition ``p``: the edges whose smaller end is in the ``p``-th node range."""
    import pandas as pd

    a, b = p * n_nodes // n_parts, (p + 1) * n_nodes // n_parts
    rng = np.random.default_rng([seed, p])
    if kind == "random":
        i = np.repeat(np.arange(a, b, dtype=np.int64), 20)
        j = rng.integers(0, n_nodes, i.size)
        keep = j > i
        pair = np.unique(i[keep] * n_nodes + j[keep])
        u, v = pair // n_nodes, pair % n_nodes
        w = rng.random(u.size)
    else:
        i = np.repeat(np.arange(a, b, dtype=np.int64), 10)
        v = i + np.tile(np.arange(1, 11), b - a)
        keep = v < n_nodes
        u, v = i[keep], v[keep]
        x_u = (u + _hash_uniform(u)) / 10
        x_v = (v + _hash_uniform(v)) / 10
        w = x_v - x_u
    return pd.DataFrame({"u": u, "v": v, "weight": w})


def make_table(kind, n_edges, n_parts, seed=0):
    import dask.dataframe as dd

    n_nodes = int(n_edges) // 10
    meta = make_partition(0, kind, 100, 1).iloc[:0]
    return dd.from_map(make_partition, range(n_parts), kind=kind, n_nodes=n_nodes,
                       n_parts=n_parts, seed=seed, meta=meta, enforce_metadata=False)


class PeakRSS:
    """Largest resident memory of this process while the block runs (sampled)."""

    def __enter__(self):
        import psutil

        self._proc = psutil.Process()
        self.peak = self._proc.memory_info().rss
        self._stop = threading.Event()

        def sample():
            while not self._stop.wait(0.02):
                self.peak = max(self.peak, self._proc.memory_info().rss)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)


def _worker_peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def estimator(args):
    from skdpgraph.cluster import PrivateMSTClustering

    return PrivateMSTClustering(epsilon=args.epsilon, sensitivity=args.sensitivity,
                                weight_bounds=(0.0, 2.0), metric="precomputed",
                                random_state=None, verbose=0)


def fit_distributed(table, args):
    from skdpgraph.distributed import release_table_forest  # noqa: F401 (report below)

    model = estimator(args)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(table)
    return time.perf_counter() - t0, model


def fit_in_memory(graph, args):
    model = estimator(args)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(graph)
    return time.perf_counter() - t0, model


def stages(table, args):
    """Time of each distributed stage, and the reduction's report."""
    from skdpgraph.cluster import dbmstclu
    from skdpgraph.distributed import EdgeTable, release_table_forest
    from skdpgraph.privacy import plan_tree_release
    from skdpgraph.tree import finish_tree_release, get_tree_mechanism

    from distributed import get_task_stream

    fresh = EdgeTable(table.frame, check_pairs=table.check_pairs)
    out = {}
    with get_task_stream() as stream:
        t0 = time.perf_counter()
        topo = fresh.topology()
        out["topology"] = time.perf_counter() - t0
        mech = get_tree_mechanism("laplace")
        plan = plan_tree_release(args.epsilon, releases_weights=True, zcdp=False)
        t0 = time.perf_counter()
        rel = release_table_forest(fresh, mech, plan, sensitivity=args.sensitivity,
                                   neighborhood="l1", weight_bounds=(0.0, 2.0),
                                   split_every=args.split_every)
        out["forest"] = time.perf_counter() - t0
    cpu = {}
    for task in stream.data:
        name = str(task["key"]).split("-")[0].strip("('\"")
        for ss in task["startstops"]:
            if ss["action"] == "compute":
                cpu[name] = cpu.get(name, 0.0) + ss["stop"] - ss["start"]
    out["cpu"] = cpu
    t0 = time.perf_counter()
    tree = finish_tree_release(rel.tree, mech, plan, sensitivity=args.sensitivity,
                               neighborhood="l1", weight_bounds=(0.0, 2.0),
                               random_state=None)
    res = dbmstclu(tree)
    out["client"] = time.perf_counter() - t0
    return out, rel.report, topo, res.n_clusters


def in_memory_graph(table):
    """The same graph as a symmetric CSR array in the client (single-machine path)."""
    from skdpgraph.utils import edges_to_csr

    df = table.frame.compute()
    n = int(max(df.u.max(), df.v.max())) + 1
    return edges_to_csr(df.u.to_numpy(), df.v.to_numpy(), df.weight.to_numpy(), n)


def boruvka_rounds(frame):
    """Rounds of Boruvka on the table's graph, and the edges still between components.

    The alternative to the reduction: each Boruvka round as a group-by-min of
    the edges by component and relabel joins shuffles every edge that still
    joins two components (twice: one join per end) and the label table.
    Simulated here in memory on the same graph, to compare the bytes.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    df = frame.compute()
    u, v, w = df.u.to_numpy(), df.v.to_numpy(), df.weight.to_numpy()
    n = int(max(u.max(), v.max())) + 1
    label = np.arange(n)
    alive = []
    while True:
        a, b = label[u], label[v]
        keep = a != b
        u, v, w, a, b = u[keep], v[keep], w[keep], a[keep], b[keep]
        alive.append(u.size)
        if u.size == 0:
            break
        # Lightest edge of each component: sort by (component, weight).
        comp = np.concatenate([a, b])
        order = np.lexsort((np.concatenate([w, w]), comp))
        first = np.ones(order.size, bool)
        first[1:] = comp[order][1:] != comp[order][:-1]
        chosen = order[first] % u.size
        g = sp.coo_array((np.ones(chosen.size), (a[chosen], b[chosen])), shape=(n, n))
        _, label_of_comp = connected_components(g, directed=False)
        label = label_of_comp[label]
    return alive


def _er_forest(n, m):
    """Edges of a spanning forest of m uniformly random edges on n nodes (Erdos-Renyi).

    ``n`` minus the expected number of components, from the number of tree
    components of each size ``k``, ``n k**(k-2) d**(k-1) exp(-d k) / k!``
    with ``d = 2 m / n`` (the giant component counts once).
    """
    from scipy.special import gammaln

    d = 2.0 * m / n
    k = np.arange(1, 4000)
    log_t = (k - 2) * np.log(k) + (k - 1) * np.log(d) - d * k - gammaln(k + 1)
    return min(m, n - n * float(np.exp(log_t).sum()))


def project(n_edges, workers, *, c_topology, c_partition, c_merge, c_client, locality,
            edges_per_partition=1e6, split_every=4, bandwidth=1.25e9, row_bytes=16):
    """Projected wall time (s) and the largest merge of one fit, from measured costs.

    ``c_*`` are measured CPU seconds per edge (per node for the client); a
    worker is one core as here; ``bandwidth`` is bytes a second into each
    worker. Forests of ``random`` graphs follow :func:`_er_forest` (no
    locality: the worst case); with ``locality`` a partition's forest has one
    edge per node it covers (``m / 10``) and a merge's output is bounded by
    the nodes its partitions cover.
    """
    n = n_edges / 10
    parts = int(np.ceil(n_edges / edges_per_partition))
    per_part = n_edges / parts

    def forest(m):
        return min(m / 10, n) if locality else _er_forest(n, m)

    t = n_edges * c_topology / workers + 8 * n_edges / (workers * bandwidth)
    t += np.ceil(parts / workers) * per_part * c_partition
    tasks, out, covered, biggest = parts, forest(per_part), per_part, 0.0
    while tasks > 1:
        group = min(split_every, tasks)
        tasks = int(np.ceil(tasks / split_every))
        edges_in = group * out
        covered *= group
        biggest = max(biggest, edges_in)
        t += np.ceil(tasks / workers) * edges_in * (c_merge + row_bytes / bandwidth)
        out = min(edges_in, forest(covered))
    t += n * c_client + n * row_bytes / bandwidth
    return t, biggest * row_bytes


def gib(x):
    return f"{x / 2**30:.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7])
    parser.add_argument("--kinds", nargs="+", default=["random", "band"])
    parser.add_argument("--edges-per-partition", type=float, default=1e6)
    parser.add_argument("--min-partitions", type=int, default=8)
    parser.add_argument("--split-every", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--in-memory-max", type=float, default=1e7)
    parser.add_argument("--worker-memory", default="6GiB")
    parser.add_argument("--spill-dir", default="/work/tmp/dask-spill")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--sensitivity", type=float, default=0.01)
    parser.add_argument("--no-check-pairs", action="store_true")
    args = parser.parse_args(argv)

    from distributed import Client, LocalCluster

    from skdpgraph.distributed import EdgeTable

    os.makedirs(args.spill_dir, exist_ok=True)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           memory_limit=args.worker_memory, local_directory=args.spill_dir,
                           dashboard_address=None)
    client = Client(cluster)
    print(f"LocalCluster: 2 workers x 1 thread, memory_limit={args.worker_memory}, "
          f"spill to {args.spill_dir}; split_every={args.split_every}; "
          f"epsilon={args.epsilon}, sensitivity={args.sensitivity} (l1: Laplace-MST)",
          flush=True)
    rows = []
    for size in args.sizes:
        for kind in args.kinds:
            client.restart()
            n_parts = max(args.min_partitions, int(round(size / args.edges_per_partition)))
            t0 = time.perf_counter()
            frame = make_table(kind, size, n_parts).persist()
            from distributed import wait

            wait(frame)
            gen = time.perf_counter() - t0
            table = EdgeTable(frame, check_pairs=not args.no_check_pairs)
            stage, report, topo, n_clusters = stages(table, args)
            print(f"\n{kind} {topo.n_edges:.3g} edges, {topo.n_nodes} nodes, {n_parts} "
                  f"partitions (generated and persisted in {gen:.1f} s)", flush=True)
            cpu = stage.pop("cpu")
            print("  stages: " + ", ".join(f"{k} {v:.2f} s" for k, v in stage.items())
                  + f"; {n_clusters} clusters", flush=True)
            merged = sum(report.edges_in[1:])
            print("  task CPU (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(cpu.items()))
                  + f"; per edge: partition forests "
                  f"{cpu.get('_partition_forest', 0) / topo.n_edges * 1e9:.0f} ns, merges "
                  f"{cpu.get('_merge', 0) / max(merged, 1) * 1e9:.0f} ns per edge in",
                  flush=True)
            print(f"  reduction: {report.rounds} rounds; edges in per level "
                  f"{report.edges_in}; MB sent per round "
                  f"{[round(b / 1e6, 1) for b in report.bytes_moved]}", flush=True)
            if size <= args.in_memory_max:
                alive = boruvka_rounds(frame)
                print(f"  Boruvka instead: {len(alive) - 1} rounds; edges between components "
                      f"at each round {alive}; MB a group-by/join round would shuffle "
                      f"{[round(m * 2 * 16 / 1e6) for m in alive[:-1]]} plus the labels",
                      flush=True)
            graph = in_memory_graph(table) if size <= args.in_memory_max else None
            dist, mem, client_peak = [], [], 0
            for _ in range(args.repeat):
                if graph is not None:
                    mem.append(fit_in_memory(graph, args)[0])
                with PeakRSS() as peak:
                    dist.append(fit_distributed(EdgeTable(frame, check_pairs=table.check_pairs),
                                                args)[0])
                client_peak = max(client_peak, peak.peak)
            del graph
            workers = client.run(_worker_peak)
            row = dict(kind=kind, edges=topo.n_edges, nodes=topo.n_nodes, parts=n_parts,
                       dist=statistics.median(dist),
                       mem=statistics.median(mem) if mem else None,
                       worker_peak=max(workers.values()), client_peak=client_peak,
                       rounds=report.rounds, mb=[round(b / 1e6) for b in report.bytes_moved],
                       stages=stage)
            rows.append(row)
            ratio = f"{row['dist'] / row['mem']:.2f}" if mem else "-"
            print(f"  fit: distributed {dist} s, in memory {mem} s, ratio {ratio}; "
                  f"peak RSS per worker {[gib(x) for x in workers.values()]} GiB, "
                  f"client during fit {gib(client_peak)} GiB", flush=True)
            client.cancel(frame)
            del frame, table
    print("\n| graph | edges | nodes | partitions | fit (s) | in memory (s) | ratio "
          "| rounds | MB sent per round | worker peak (GiB) | client peak (GiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        mem = f"{r['mem']:.1f}" if r["mem"] else "-"
        ratio = f"{r['dist'] / r['mem']:.2f}" if r["mem"] else "-"
        print(f"| {r['kind']} | {r['edges']:.3g} | {r['nodes']:.3g} | {r['parts']} | "
              f"{r['dist']:.1f} | {mem} | {ratio} | {r['rounds']} | {r['mb']} | "
              f"{gib(r['worker_peak'])} | {gib(r['client_peak'])} |")
    client.close()
    cluster.close()
    return rows


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
