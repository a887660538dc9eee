"""Speed of every private tree mechanism, as a ratio to scipy's exact MST.

One run, one machine, everything as ratios to
``scipy.sparse.csgraph.minimum_spanning_tree`` on the same graph:

1. a random connected sparse graph with 10^6 edges (10^5 nodes, U(0, 1)
   weights): PAMST, Laplace-MST, input perturbation (Gumbel, Laplace,
   Gaussian), noisy-max Prim, and the exponential mechanism over trees at
   several inverse temperatures ``c = epsilon / (2 Delta)``;
2. the exponential mechanism on clustered graphs of 1,000 nodes (the
   homogeneous moons, 2.4e5 edges, and a complete graph), where its exact
   elimination sampler runs: time against ``c``.

The exponential mechanism is the only one whose cost depends on the
privacy parameters: cycle popping (Wilson's algorithm) takes Wilson's mean
hitting time, near-linear while ``c`` times the weight gaps around a node is
small and growing like ``exp(c * gap)`` beyond; on a component of more than
3,000 nodes the groups of nodes that trap the walk are reduced exactly and
it restarts (it always finishes), on smaller ones the elimination sampler
takes over, ``O(k^3)`` whatever ``c``.

The first call of a compiled kernel in a process loads it (about a second
for all of them, numba's import included; see ``docs/private_trees.md``): a
warm-up call on a small graph is made first, so the times below are those
of a process that has already sampled once.

Run: ``python benchmarks/bench_tree_mechanisms.py`` (a few minutes);
``--before PATH`` first runs the same measurements with the ``skdpgraph``
package of another checkout (``PATH/skdpgraph``), in a subprocess.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np
from bench_private_tree import best_of, random_connected_graph  # the same graph
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

from skdpgraph.datasets import make_homogeneous_moons
from skdpgraph.tree import (
    exponential_tree,
    input_perturbation_tree,
    laplace_mst,
    noisy_max_prim_tree,
    pamst,
)
from skdpgraph.utils import check_graph

MU = 0.01


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, True


def main():
    exponential_tree(random_connected_graph(1000, 5000), 1.0, sensitivity=MU, random_state=0)
    print("== 1. sparse graph, 10^6 edges ==")
    G = random_connected_graph(100_000, 1_000_000)
    print(f"nodes {G.shape[0]}, edges {G.nnz // 2}, weights U(0, 1), mu = {MU}")
    t_mst, _ = best_of(lambda: scipy_mst(G))
    print(f"{'scipy minimum_spanning_tree':<52}{t_mst:8.3f} s   ratio 1")
    runs = [
        ("pamst, eps=1, l1 (pure)",
         lambda: pamst(G, 1.0, sensitivity=MU, random_state=0, check_input=False)),
        ("laplace_mst, eps=1, l1",
         lambda: laplace_mst(G, 1.0, sensitivity=MU, random_state=0, check_input=False)),
        ("input perturbation gumbel, (1, 1e-6), linf",
         lambda: input_perturbation_tree(G, 1.0, delta=1e-6, sensitivity=MU, random_state=0)),
        ("input perturbation laplace, eps=1, l1",
         lambda: input_perturbation_tree(G, 1.0, sensitivity=MU, neighborhood="l1",
                                         noise="laplace", random_state=0)),
        ("input perturbation gaussian, (1, 1e-6), linf",
         lambda: input_perturbation_tree(G, 1.0, delta=1e-6, sensitivity=MU,
                                         noise="gaussian", random_state=0)),
        ("noisy-max Prim, (1, 1e-6), linf",
         lambda: noisy_max_prim_tree(G, 1.0, delta=1e-6, sensitivity=MU, random_state=0)),
    ]
    for label, fn in runs:
        t, _ = best_of(fn)
        print(f"{label:<52}{t:8.3f} s   ratio {t / t_mst:6.1f}")
    print("exponential mechanism over trees, l1 (c = eps / (2 mu)):")
    for c in (1.0, 10.0, 25.0, 40.0, 50.0, 70.0):
        eps = 2 * MU * c
        t, ok = timed(lambda: exponential_tree(G, eps, sensitivity=MU, random_state=0))
        status = f"ratio {t / t_mst:6.1f}"
        print(f"  {'c = %g (eps = %g)' % (c, eps):<50}{t:8.3f} s   {status}")

    print("\n== 2. exponential mechanism on clustered 1,000-node graphs ==")
    for label, graph in (
            ("homogeneous moons", make_homogeneous_moons(1000, random_state=0).graph),
            ("complete graph of 2 blobs", check_graph(np.concatenate([
                np.random.default_rng(0).normal(0, 0.1, (500, 2)),
                np.random.default_rng(1).normal(1, 0.1, (500, 2))]), metric="euclidean"))):
        sp_graph = graph if hasattr(graph, "nnz") else None
        t_ref, _ = best_of(lambda: scipy_mst(sp_graph if sp_graph is not None else graph))
        m = graph.nnz // 2 if sp_graph is not None else 1000 * 999 // 2
        print(f"{label}: {m} edges; scipy MST {t_ref:.3f} s")
        for c in (1.0, 10.0, 30.0, 100.0, 300.0, 1e3, 1e4, 1e6):
            eps = 2 * MU * c
            t, ok = timed(lambda: exponential_tree(graph, eps, sensitivity=MU, random_state=0))
            print(f"  c = {c:<10g}{t:8.3f} s   ratio {t / t_ref:7.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="PATH",
                        help="first measure the skdpgraph package of the checkout at PATH")
    args = parser.parse_args()
    if args.before:
        import skdpgraph

        print(f"######## before: {args.before}", flush=True)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([args.before, env.get("PYTHONPATH", "")])
        subprocess.run([sys.executable, __file__], env=env, check=True)
        print(f"\n######## after: {os.path.dirname(skdpgraph.__file__)}", flush=True)
    main()
