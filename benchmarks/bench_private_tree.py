"""Speed and memory of the private spanning trees and of PrivateMSTClustering.

Everything is measured in one run, on the same machine, as ratios:

1. PAMST on a random connected sparse graph with 10^6 edges, against
   ``scipy.sparse.csgraph.minimum_spanning_tree`` on the same symmetric graph
   (target: ratio <= 1);
2. PrivateMSTClustering end to end on that graph (metric="precomputed",
   validation included), against the same MST time (target: <= 2), with the
   time of each stage;
3. a dense precomputed input of 5,000 points (PAMST, Laplace-MST, the
   estimator) against the exact dense MST;
4. memory of PAMST on sparse input: tracemalloc peak per edge at two sizes
   (linear memory: the two figures agree);
5. PAMST with a huge ``c (w_max - w_min)`` (restarts and the sequential
   fallback), for information.

Run: ``python benchmarks/bench_private_tree.py`` (about a minute).
"""

import time
import tracemalloc
import warnings

import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst
from sklearn.metrics import pairwise_distances

from skdpgraph.cluster import PrivateMSTClustering, dbmstclu
from skdpgraph.exceptions import NoiseDominatesWarning
from skdpgraph.tree import (
    laplace_mst,
    minimum_spanning_tree,
    pamst,
    release_tree_weights,
)
from skdpgraph.utils import check_graph, edges_to_csr


def random_connected_graph(n_nodes, n_edges, seed=0):
    """A random recursive tree plus uniform random extra edges; U(0, 1) weights."""
    rng = np.random.default_rng(seed)
    child = np.arange(1, n_nodes)
    parent = (rng.random(n_nodes - 1) * child).astype(np.int64)
    tree_keys = parent * n_nodes + child  # parent < child
    u = rng.integers(0, n_nodes, int(n_edges * 1.2))
    v = rng.integers(0, n_nodes, u.size)
    keep = u != v
    extra = np.unique(np.minimum(u[keep], v[keep]) * n_nodes + np.maximum(u[keep], v[keep]))
    extra = np.setdiff1d(extra, tree_keys, assume_unique=True)
    extra = rng.permutation(extra)[: n_edges - (n_nodes - 1)]
    key = np.concatenate([tree_keys, extra])
    return edges_to_csr(key // n_nodes, key % n_nodes, rng.random(key.size), n_nodes)


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def peak_bytes(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main():
    print("== sparse graph, 10^6 edges ==")
    G = random_connected_graph(100_000, 1_000_000)
    m = G.nnz // 2
    print(f"nodes {G.shape[0]}, edges {m}")
    t_mst, _ = best_of(lambda: scipy_mst(G))
    t_pamst, _ = best_of(lambda: pamst(G, 1.0, sensitivity=0.1, random_state=0,
                                       check_input=False))
    print(f"scipy minimum_spanning_tree      {t_mst:7.3f} s")
    print(f"pamst (eps=1, mu=0.1)            {t_pamst:7.3f} s   ratio {t_pamst / t_mst:.2f}"
          "  (target <= 1)")
    t_pamst_v, _ = best_of(lambda: pamst(G, 1.0, sensitivity=0.1, random_state=0))
    print(f"pamst with input validation      {t_pamst_v:7.3f} s   ratio {t_pamst_v / t_mst:.2f}")

    # Two privacy regimes: mu = 0.1 makes the released weights mostly noise
    # (Laplace scale 0.2 on weights in (0, 1)), so DBMSTClu splits off tens of
    # thousands of clusters; mu = 1e-3 gives a tree close to the MST.
    for mu in (1e-3, 0.1):
        model = PrivateMSTClustering(epsilon=1.0, sensitivity=mu, weight_bounds=(0.0, 1.0),
                                     metric="precomputed", random_state=0)
        t_est, fitted = best_of(lambda: model.fit(G), repeat=2)
        t_check, graph = best_of(lambda: check_graph(G, metric="precomputed"))
        t_tree, tree = best_of(lambda: pamst(graph, 0.5, sensitivity=mu, random_state=0,
                                             check_input=False))
        t_rel, rel = best_of(lambda: release_tree_weights(
            tree, 0.5, sensitivity=mu, weight_bounds=(0.0, 1.0), random_state=0))
        t_clu, res = best_of(lambda: dbmstclu(rel.tree), repeat=1)
        print(f"PrivateMSTClustering mu={mu:<6g}  {t_est:7.3f} s   ratio {t_est / t_mst:.2f}"
              f"  (target <= 2; {fitted.n_clusters_} clusters)")
        print(f"  stages: check_graph {t_check:.3f} s, pamst {t_tree:.3f} s, weight "
              f"release {t_rel:.3f} s, dbmstclu {t_clu:.3f} s; without dbmstclu "
              f"ratio {(t_check + t_tree + t_rel) / t_mst:.2f}")

    print("\n== dense precomputed input, 5,000 points ==")
    rng = np.random.default_rng(1)
    D = pairwise_distances(rng.random((5000, 2)))
    t_dmst, _ = best_of(lambda: minimum_spanning_tree(D), repeat=2)
    t_dp, _ = best_of(lambda: pamst(D, 1.0, sensitivity=0.1, random_state=0,
                                    check_input=False), repeat=2)
    t_dl, _ = best_of(lambda: laplace_mst(D, 1.0, sensitivity=0.1, random_state=0,
                                          check_input=False), repeat=2)
    dmodel = PrivateMSTClustering(epsilon=1.0, sensitivity=0.1, weight_bounds=(0.0, 2.0),
                                  metric="precomputed", random_state=0)
    t_de, _ = best_of(lambda: dmodel.fit(D), repeat=2)
    print(f"exact dense MST (Prim)           {t_dmst:7.3f} s")
    print(f"pamst dense                      {t_dp:7.3f} s   ratio {t_dp / t_dmst:.2f}")
    print(f"laplace_mst dense                {t_dl:7.3f} s   ratio {t_dl / t_dmst:.2f}")
    print(f"PrivateMSTClustering dense       {t_de:7.3f} s   ratio {t_de / t_dmst:.2f}")

    print("\n== memory of pamst on sparse input (tracemalloc peak) ==")
    for n_nodes, n_edges in ((25_000, 250_000), (100_000, 1_000_000)):
        H = random_connected_graph(n_nodes, n_edges, seed=2)
        k = H.nnz // 2
        peak = peak_bytes(lambda: pamst(H, 1.0, sensitivity=0.1, random_state=0,
                                        check_input=False))
        print(f"|V|={n_nodes:>7d} |E|={k:>8d}  peak {peak / 2**20:7.1f} MiB  "
              f"{peak / (k + n_nodes):6.1f} bytes per (|V| + |E|)")

    print("\n== huge c (w_max - w_min): restarts and sequential fallback ==")
    H = random_connected_graph(20_000, 200_000, seed=3)
    t_h_mst, _ = best_of(lambda: scipy_mst(H), repeat=1)
    for c in (1.0, 30.0, 300.0):
        eps = c * 2 * 0.1 * (H.shape[0] - 1)
        t_h, _ = best_of(lambda: pamst(H, eps, sensitivity=0.1, random_state=0,
                                       check_input=False), repeat=1)
        print(f"c = {c:6.1f}: pamst {t_h:7.3f} s   ratio to scipy MST {t_h / t_h_mst:6.1f}")


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The mu = 0.1 regime is noise by design (see main), and says so.
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        main()
