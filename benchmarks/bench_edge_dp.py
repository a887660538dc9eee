"""Speed of the edge-DP route: edge-flip perturbation and SCAN.

Targets (measured in one run on this machine, printed as ratios):

* perturbing a 4,039-node, 88,234-edge graph (the size of the Facebook ego
  network used by Muelle et al.) at s = 0.03 in under 0.5 s;
* SCAN on a graph with 10^5 edges in under 1 s.

No registry package ships the Facebook ego network for offline use, so a
generated graph of exactly that size stands in (Holme-Kim power-law graph
with triadic closure, heavy-tailed degrees like a social network).

Run: ``python benchmarks/bench_edge_dp.py``
"""

import argparse
import time

import networkx as nx
import numpy as np
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import SCAN
from skdpgraph.edge_dp import flip_edges
from skdpgraph.utils import check_adjacency, edges_to_csr, pair_from_index


def _timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), float(np.min(times)), out


def facebook_sized_graph(seed=0, n=4039, m=88_234):
    """Power-law graph with clustering, exactly ``n`` nodes and ``m`` edges."""
    rng = np.random.default_rng(seed)
    G = nx.powerlaw_cluster_graph(n, 22, 0.8, seed=seed)
    while G.number_of_edges() < m:  # top up with random edges
        u, v = rng.integers(n, size=2)
        if u != v:
            G.add_edge(int(u), int(v))
    edges = list(G.edges)
    if len(edges) > m:
        drop = rng.choice(len(edges), len(edges) - m, replace=False)
        G.remove_edges_from([edges[i] for i in drop])
    return nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")


def planted_partition(seed=0, n_blocks=100, block=100, m=100_000, frac_in=0.8):
    """Sparse planted partition with exactly ``m`` edges, ``frac_in`` of them inside blocks."""
    rng = np.random.default_rng(seed)
    n = n_blocks * block
    per_block = int(m * frac_in) // n_blocks
    pairs = block * (block - 1) // 2
    keys = [np.sort(rng.choice(pairs, per_block, replace=False)) for _ in range(n_blocks)]
    u_parts, v_parts = [], []
    for c, k in enumerate(keys):
        u, v = pair_from_index(k, block)
        u_parts.append(u + c * block)
        v_parts.append(v + c * block)
    u, v = np.concatenate(u_parts), np.concatenate(v_parts)
    inner = set((u * n + v).tolist())
    need = m - len(inner)
    extra = set()
    while len(extra) < need:
        a, b = rng.integers(n, size=2)
        if a // block != b // block:
            extra.add(min(a, b) * n + max(a, b))
    key = np.sort(np.fromiter(inner | extra, dtype=np.int64))
    A = edges_to_csr(key // n, key % n, np.ones(key.size), n)
    return A, np.arange(n) // block


def dense_algorithm_1(A, s, rng):
    """Algorithm 1 as written: one uniform per pair of the n x n upper triangle."""
    n = A.shape[0]
    iu, ju = np.triu_indices(n, 1)
    bits = np.asarray(A[iu, ju]).ravel() != 0
    bits ^= rng.random(iu.size) < s / 2
    return sp.csr_array((np.ones(int(bits.sum())), (iu[bits], ju[bits])), shape=(n, n))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)

    print("== edge-flip perturbation (PIG_pert), s = 0.03 ==")
    A = facebook_sized_graph()
    n, m = A.shape[0], A.nnz // 2
    print(f"graph: {n} nodes, {m} edges (density {m / (n * (n - 1) / 2):.4%})")
    rng = np.random.default_rng(0)
    t_total, t_min, P = _timed(lambda: flip_edges(A, 0.03, random_state=rng), args.repeat)
    _, t_valid, B = _timed(lambda: check_adjacency(A), args.repeat)
    _, t_sample, _ = _timed(lambda: flip_edges(B, 0.03, random_state=rng), args.repeat)
    t_dense, _, _ = _timed(lambda: dense_algorithm_1(A, 0.03, rng), 3)
    print(f"perturbed graph: {P.nnz // 2} edges")
    print(f"flip_edges (median of {args.repeat}):   {t_total:.3f} s  (min {t_min:.3f} s)")
    print(f"  validation (min):              {t_valid:.3f} s")
    print(f"  on the validated graph (min):  {t_sample:.3f} s")
    print(f"dense Algorithm 1 (n x n pairs): {t_dense:.3f} s")
    print(f"ratio to the 0.5 s target:       {t_total / 0.5:.2f}  "
          f"({'met' if t_total < 0.5 else 'MISSED'})")
    print(f"speed-up over the dense version: {t_dense / t_total:.1f}x")

    # Scaling: 200,000 nodes (2e10 pairs; the dense matrix would take 40 GB).
    big_n = 200_000
    big = planted_partition(seed=1, n_blocks=2_000, block=100, m=1_000_000)[0]
    assert big.shape[0] == big_n
    t_big, _, Pb = _timed(lambda: flip_edges(big, 1e-5, random_state=rng), 3)
    _, t_big_valid, Bb = _timed(lambda: check_adjacency(big), 3)
    _, t_big_sample, _ = _timed(lambda: flip_edges(Bb, 1e-5, random_state=rng), 3)
    size_ratio = (big.nnz + Pb.nnz) / (A.nnz + P.nnz)
    print(f"{big_n} nodes (2e10 pairs), {big.nnz // 2} edges, s = 1e-5: {t_big:.3f} s, "
          f"{Pb.nnz // 2} edges out ({size_ratio:.1f}x the edges of the run above)")
    print(f"  validation (min):              {t_big_valid:.3f} s "
          f"({t_big_valid / t_valid:.1f}x the time above)")
    print(f"  on the validated graph (min):  {t_big_sample:.3f} s "
          f"({t_big_sample / t_sample:.1f}x the time above)")

    print()
    print("== SCAN on 10^5 edges ==")
    G, y = planted_partition()
    print(f"planted partition: {G.shape[0]} nodes, {G.nnz // 2} edges, 100 blocks")
    model = SCAN(similarity_threshold=0.2, min_neighbors=5)
    t_scan, t_scan_min, model = _timed(lambda: model.fit(G), args.repeat)
    clustered = model.labels_ >= 0
    print(f"SCAN(0.2, 5) (median of {args.repeat}): {t_scan:.3f} s  (min {t_scan_min:.3f} s); "
          f"{model.n_clusters_} clusters, {clustered.mean():.1%} clustered, "
          f"ARI on clustered {adjusted_rand_score(y[clustered], model.labels_[clustered]):.3f}")
    print(f"ratio to the 1 s target:         {t_scan / 1.0:.2f}  "
          f"({'met' if t_scan < 1.0 else 'MISSED'})")
    t_fb, _, fb = _timed(lambda: SCAN(0.3, 5).fit(A), args.repeat)
    print(f"SCAN(0.3, 5) on the {m}-edge power-law graph: {t_fb:.3f} s "
          f"({fb.n_clusters_} clusters)")
    t_pfb, _, pfb = _timed(lambda: SCAN(0.3, 5).fit(P), args.repeat)
    print(f"SCAN(0.3, 5) on its perturbed version ({P.nnz // 2} edges): {t_pfb:.3f} s")


if __name__ == "__main__":
    main()
