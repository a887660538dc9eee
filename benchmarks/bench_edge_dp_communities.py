"""Edge-DP community detection: ARI of every route against planted communities.

Graphs (planted communities known):

* LFR graphs (``skdpgraph.datasets.make_lfr_graph``; networkx's generator)
  with 1,000 nodes, average degree 10, degree exponent 3, community-size
  exponent 1.5, communities of 30-100 nodes (about 19), maximum degree 50,
  mixing 0.1 to 0.4; and 10,000 nodes at mixing 0.1 (about 184
  communities; epsilon 4-8 and one seed, as a release below epsilon 4 has
  millions of edges and no signal at that community size);
* stochastic block models (networkx): 1,000 nodes in 4 blocks
  (p_in = 0.1, p_out = 0.01) and 10,000 nodes in 5 blocks (p_in = 0.02,
  p_out = 0.001);
* scale (full run only): a 100,000-node planted partition (10 blocks,
  average degree 50, mixing 0.1), randomized response with subsampling.

Routes, at epsilon 1..8 (edge-DP, neighbours differ in one edge):

* ``pig+scan``: edge flipping then SCAN(0.5, 3) (Muelle et al.), pure eps;
* ``pig+kmedoids``: edge flipping then k-medoids on hop distances (dense
  n x n distances: 1,000 nodes only), pure eps;
* ``rr+spectral``: randomized response, debiased spectral clustering with
  the public k, k-means labels before refinement;
  ``rr+spectral+likelihood``: the same fit after the free likelihood
  refinement (mean-field EM of a planted partition); ``rr+default``:
  ``RandomizedResponseSpectralClustering(k, epsilon=eps)`` as it comes,
  whose refinement is degree-corrected belief propagation through the flip
  channel from over-segmented k-means starts, combined by consensus, where
  that is cheap (the 1,000-node LFR graphs from epsilon 3, the small SBM at
  every epsilon) and the
  likelihood refinement elsewhere; ``rr+auto-k``: the same with k
  estimated from the released spectrum; all pure eps;
* ``noisy-power``: the central noisy power method (Hardt and Price), k
  given, 8 iterations, (eps, 1e-6)-DP through zCDP;
* ``lp``: the central label propagation (``PrivateLabelPropagation``), k
  given, (eps, 1e-6)-DP through zCDP; ``lp+auto-k``: the same with k
  estimated from its released block counts;

beside non-private Louvain (networkx) and non-private adjacency spectral
clustering (k given). ``rr+default`` and ``rr+auto-k`` run on the
1,000-node graphs only (above, the default is the likelihood row). Cells
are median ARI over the seeds; times are median seconds per fit. SCAN is skipped ("-") where the flipped graph would exceed
3 million edges (its masked product A @ A grows with the square of the
degree), k-medoids above 1,000 nodes.

``--goals``: the graphs of issue 28 (stochastic block models with 20 blocks
of degree 20 at 20,000 and 200,000 nodes, LFR graphs of 1,000 and 3,000
nodes, the karate club), 3 graphs x 3 releases per cell, graphs from seeds
1000 and up (the tests use none of them). ``--frontier``: the smallest
epsilon (on a grid) at which each route reaches a median ARI of 0.9 on
block models of 10 blocks (degree 20 and 50, mixing 0.1) from 1,000 to
1,000,000 nodes, beside the epsilon at which the randomized-response
release crosses the Kesten-Stigum threshold; ``--figure`` draws it from
the saved results. ``--scale-central``: the label propagation on a
1,000,000-node graph with 10,000,000 edges (time and peak memory).

``--oracle``: belief propagation on the randomized-response release of the
3,000-node LFR graph (epsilon 3 and 4) and of three 1,000-node LFR graphs
(epsilon 3) started from the planted communities (the local route's ceiling).

Run: ``python benchmarks/bench_edge_dp_communities.py [--quick | --small-only | --large-only |
--goals | --frontier | --figure | --scale-central | --oracle] [--seeds N]``; ``--help``
lists the options that select graphs, epsilons, sizes and routes.
"""

import argparse
import json
import math
import pathlib
import resource
import time

import warnings

import networkx as nx
import numpy as np
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import (
    SCAN,
    DebiasedSpectralClustering,
    GraphKMedoids,
    NoisyPowerClustering,
    PrivateGraphClustering,
    PrivateLabelPropagation,
    RandomizedResponseSpectralClustering,
)
from skdpgraph.datasets import make_lfr_graph
from skdpgraph.edge_dp import (
    belief_propagation_communities,
    expected_added_edges,
    flip_edges,
    pig_s_from_epsilon,
)
from skdpgraph.privacy import randomized_response_probability
from skdpgraph.utils import check_adjacency, edges_to_csr

ROUTES = ["pig+scan", "pig+kmedoids", "rr+spectral", "rr+spectral+likelihood", "rr+default",
          "rr+auto-k", "noisy-power", "lp", "lp+auto-k"]
OUTPUT = pathlib.Path(__file__).resolve().parent / "output"


def lfr(n, mu, seed):
    d = make_lfr_graph(n, average_degree=10, mu=mu, tau1=3, tau2=1.5, min_community=30,
                       max_community=100, max_degree=50, random_state=seed)
    return d.graph, d.labels


def sbm(sizes, p_in, p_out, seed):
    k = len(sizes)
    probs = [[p_in if i == j else p_out for j in range(k)] for i in range(k)]
    G = nx.stochastic_block_model(sizes, probs, seed=seed, sparse=True)
    return check_adjacency(G), np.repeat(np.arange(k), sizes)


def planted_partition(n_blocks, block, degree, mix, seed):
    """Vectorised planted partition: ``degree (1 - mix)`` expected edges inside a node's block."""
    rng = np.random.default_rng(seed)
    n = n_blocks * block
    m_in = int(n * degree * (1 - mix) / 2)
    m_out = int(n * degree * mix / 2)
    b = rng.integers(n_blocks, size=m_in)
    u = b * block + rng.integers(block, size=m_in)
    v = b * block + rng.integers(block, size=m_in)
    u2, v2 = rng.integers(n, size=m_out), rng.integers(n, size=m_out)
    u, v = np.concatenate([u, u2]), np.concatenate([v, v2])
    keep = u != v
    key = np.unique(np.minimum(u, v)[keep] * n + np.maximum(u, v)[keep])  # a pair drawn twice
    A = edges_to_csr(key // n, key % n, np.ones(key.size), n)  # is one edge
    return check_adjacency(A), np.repeat(np.arange(n_blocks), block)


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run_routes(A, y, eps, seed, routes):
    n = A.shape[0]
    k = int(np.unique(y).size)
    out = {}
    s = pig_s_from_epsilon(eps)
    if "pig+scan" in routes:
        if n * (n - 1) / 2 * s / 2 + A.nnz / 2 <= 3e6:
            m, t = _timed(lambda: PrivateGraphClustering(SCAN(0.5, 3), epsilon=eps,
                                                         random_state=seed).fit(A))
            out["pig+scan"] = (adjusted_rand_score(y, m.labels_), t)
    if "pig+kmedoids" in routes and n <= 1000:
        m, t = _timed(lambda: PrivateGraphClustering(GraphKMedoids(k, random_state=seed),
                                                     epsilon=eps, random_state=seed).fit(A))
        out["pig+kmedoids"] = (adjusted_rand_score(y, m.labels_), t)
    if "rr+spectral" in routes:
        n_init = 10 if k < 50 else 2
        m, t = _timed(lambda: RandomizedResponseSpectralClustering(
            k, epsilon=eps, n_init=n_init, refine="likelihood", random_state=seed).fit(A))
        out["rr+spectral"] = (adjusted_rand_score(y, m.spectral_labels_), t)
        out["rr+spectral+likelihood"] = (adjusted_rand_score(y, m.labels_), t)
    if "rr+default" in routes:
        m, t = _timed(lambda: RandomizedResponseSpectralClustering(
            k, epsilon=eps, n_init=10 if k < 50 else 2, random_state=seed).fit(A))
        out["rr+default"] = (adjusted_rand_score(y, m.labels_), t)
    if "rr+auto-k" in routes:
        m, t = _timed(lambda: RandomizedResponseSpectralClustering(
            epsilon=eps, n_init=10 if k < 50 else 2, random_state=seed).fit(A))
        out["rr+auto-k"] = (adjusted_rand_score(y, m.labels_), t)
    if "noisy-power" in routes:
        m, t = _timed(lambda: NoisyPowerClustering(k, epsilon=eps, delta=1e-6,
                                                   n_init=10 if k < 50 else 2,
                                                   random_state=seed).fit(A))
        out["noisy-power"] = (adjusted_rand_score(y, m.labels_), t)
    if "lp" in routes:
        m, t = _timed(lambda: PrivateLabelPropagation(k, epsilon=eps, random_state=seed).fit(A))
        out["lp"] = (adjusted_rand_score(y, m.labels_), t)
    if "lp+auto-k" in routes:
        m, t = _timed(lambda: PrivateLabelPropagation("auto", epsilon=eps,
                                                      random_state=seed).fit(A))
        out["lp+auto-k"] = (adjusted_rand_score(y, m.labels_), t)
    return out


def baselines(A, y, seed):
    k = int(np.unique(y).size)
    G = nx.from_scipy_sparse_array(A)
    comms, t_l = _timed(lambda: nx.community.louvain_communities(G, seed=seed))
    lab = np.empty(A.shape[0], dtype=np.int64)
    for i, c in enumerate(comms):
        lab[list(c)] = i
    m, t_s = _timed(lambda: DebiasedSpectralClustering(k, refine=False, n_init=10 if k < 50 else 2,
                                                       random_state=seed).fit(A))
    return {"louvain": (adjusted_rand_score(y, lab), t_l),
            "spectral": (adjusted_rand_score(y, m.labels_), t_s)}


def table(name, make, epsilons, seeds, routes):
    cells = {}
    base = []
    for seed in seeds:
        A, y = make(seed)
        base.append(baselines(A, y, seed))
        for eps in epsilons:
            for r, v in run_routes(A, y, eps, seed, routes).items():
                cells.setdefault((r, eps), []).append(v)
    n = A.shape[0]
    print(f"\n## {name}: n={n}, |E|~{A.nnz // 2}, k~{np.unique(y).size}, "
          f"{len(seeds)} seed(s); median ARI (median seconds)")
    for b in ("louvain", "spectral"):
        ari = np.median([x[b][0] for x in base])
        t = np.median([x[b][1] for x in base])
        print(f"non-private {b:<12} ARI {ari:5.2f} ({t:.2f} s)")
    print("| route | " + " | ".join(f"eps={e:g}" for e in epsilons) + " |")
    print("|---|" + "---|" * len(epsilons))
    for r in ROUTES:
        if r not in routes and not (r == "rr+spectral+likelihood" and "rr+spectral" in routes):
            continue
        row = []
        for e in epsilons:
            v = cells.get((r, e))
            if not v:
                row.append("-")
            else:
                row.append(f"{np.median([a for a, _ in v]):.2f} ({np.median([t for _, t in v]):.1f}s)")
        print(f"| {r} | " + " | ".join(row) + " |", flush=True)


def scale_run(epsilon, sample_rate, seed=0):
    A, y = planted_partition(10, 10_000, 50, 0.1, seed)
    n = A.shape[0]
    added = expected_added_edges(n, pig_s_from_epsilon(epsilon), sample_rate)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    m, t = _timed(lambda: RandomizedResponseSpectralClustering(
        10, epsilon=epsilon, sample_rate=sample_rate, random_state=seed).fit(A))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"scale: n={n}, |E|={A.nnz // 2}, eps={epsilon}, q={sample_rate}: expected added "
          f"{added:,.0f}, released {m.released_graph_.nnz // 2:,} edges; "
          f"ARI {adjusted_rand_score(y, m.labels_):.2f}, {t:.1f} s, peak RSS "
          f"{max(rss, rss0) / 1024:.0f} MB", flush=True)
    m, t = _timed(lambda: NoisyPowerClustering(10, epsilon=epsilon, random_state=seed).fit(A))
    print(f"scale: noisy-power eps={epsilon}: ARI {adjusted_rand_score(y, m.labels_):.2f}, "
          f"{t:.1f} s", flush=True)


def _quiet_fit(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit()


def _goal_cell(route, A, y, eps, seed, max_added):
    """ARI and seconds of one fit, or the reason it was not run."""
    k = int(np.unique(y).size)
    if route == "rr":
        added = expected_added_edges(A.shape[0], pig_s_from_epsilon(eps))
        if added > max_added:
            return None, f"{added:.1e} added edges"
        make = lambda: RandomizedResponseSpectralClustering(  # noqa: E731
            k, epsilon=eps, max_added_edges=max_added, n_init=10 if k < 50 else 2,
            random_state=seed)
    else:
        make = lambda: PrivateLabelPropagation(k, epsilon=eps, random_state=seed)  # noqa: E731
    m, t = _timed(lambda: _quiet_fit(lambda: make().fit(A)))
    return (adjusted_rand_score(y, m.labels_), t), None


def karate():
    G = nx.karate_club_graph()
    return check_adjacency(G), np.array([G.nodes[v]["club"] == "Officer" for v in G], int)


#: The graphs of issue 28: name, generator of seed, epsilons, routes.
GOALS = [
    ("SBM 20 x 1,000, degree 20, mixing 0.1",
     lambda s: planted_partition(20, 1000, 20, 0.1, s), [4, 6, 7, 8]),
    ("SBM 20 x 10,000, degree 20, mixing 0.1",
     lambda s: planted_partition(20, 10_000, 20, 0.1, s), [4, 6, 8, 10]),
    ("LFR 3,000, degree 10, mixing 0.1", lambda s: lfr(3000, 0.1, s), [3, 4]),
    ("LFR 1,000, degree 10, mixing 0.1", lambda s: lfr(1000, 0.1, s), [3, 4]),
    ("karate club (two factions)", lambda s: karate(), [4]),
]


def goals(n_graphs=3, n_releases=3, max_added=2e7, only=None, epsilons_of=None,
          routes=("rr", "lp")):
    """Median ARI over graphs x releases on the target graphs (graph seeds 1000+).

    Randomized-response releases above ``max_added`` expected added edges
    (the library's default limit) are not run. ``only``: run the graphs whose
    name contains this string; ``epsilons_of``: epsilons in place of each
    graph's own.
    """
    for name, make, epsilons in GOALS:
        if only is not None and only not in name:
            continue
        epsilons = epsilons_of or epsilons
        cells = {}
        for g in range(n_graphs):
            A, y = make(1000 + g)
            for eps in epsilons:
                for route in routes:
                    for r in range(n_releases):
                        res, why = _goal_cell(route, A, y, eps, 100 * g + r, max_added)
                        cells.setdefault((route, eps), []).append(res if why is None else why)
                        if why is None:
                            print(f"  {name[:24]}, graph {g}, {route}, eps={eps:g}, release {r}: "
                                  f"ARI {res[0]:.3f} ({res[1]:.1f} s)", flush=True)
        print(f"\n## {name}: n={A.shape[0]}, |E|~{A.nnz // 2}, k={np.unique(y).size}; median "
              f"ARI over {n_graphs} graph(s) x {n_releases} releases (median seconds)")
        print("| route | " + " | ".join(f"eps={e:g}" for e in epsilons) + " |")
        print("|---|" + "---|" * len(epsilons))
        for route in routes:
            row = []
            for e in epsilons:
                v = cells[(route, e)]
                if isinstance(v[0], str):
                    row.append(f"- ({v[0]})")
                else:
                    a = [x[0] for x in v]
                    row.append(f"{np.median(a):.2f} ({np.median([x[1] for x in v]):.1f}s)")
            print(f"| {route} | " + " | ".join(row) + " |", flush=True)


def oracle(cases=((3000, (3, 4), 1, 2), (1000, (3,), 3, 2))):
    """The local route's ceiling: belief propagation on the randomized-response
    release started from the planted communities (LFR graphs, mixing 0.1), for each
    (nodes, epsilons, graphs, releases per graph) of ``cases``."""
    for n, epsilons, n_graphs, n_releases in cases:
        for eps in epsilons:
            aris = []
            for g in range(n_graphs):
                A, y = lfr(n, 0.1, 1000 + g)
                p = randomized_response_probability(eps)
                for r in range(n_releases):
                    released = flip_edges(A, 2 * p, random_state=100 * g + r)
                    lab = _quiet_fit(lambda: belief_propagation_communities(
                        released, y, flip_probability=p))
                    aris.append(adjusted_rand_score(y, lab))
                    print(f"  graph {g}, release {r}: ARI {aris[-1]:.3f}", flush=True)
            print(f"LFR {n:,}, eps={eps}: belief propagation from the planted communities, "
                  f"median ARI {np.median(aris):.2f} (range {min(aris):.2f}-{max(aris):.2f}, "
                  f"{len(aris)} releases)", flush=True)


def ks_epsilon(n, k, d_in, d_out):
    """Smallest epsilon at which the randomized-response release of a symmetric block
    model (k blocks, in- and out-degrees d_in, d_out) is above the Kesten-Stigum threshold.

    The release is again a block model, ``c' = n (c (1 - 2p) / n + p)``;
    detectable by efficient methods iff ``(c_in' - c_out')^2 > k (c_in' + (k - 1) c_out')``.
    """
    s = n / k
    p_in, p_out = d_in / max(s - 1, 1), d_out / max(n - s, 1)

    def snr(eps):
        p = randomized_response_probability(eps)
        c_in, c_out = n * (p_in * (1 - 2 * p) + p), n * (p_out * (1 - 2 * p) + p)
        return (c_in - c_out) ** 2 / (k * (c_in + (k - 1) * c_out))

    lo, hi = 0.01, 40.0
    if snr(hi) <= 1:
        return math.inf
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if snr(mid) <= 1 else (lo, mid)
    return hi


FRONTIER_FAMILIES = [("10 blocks, degree 20", 10, 20), ("10 blocks, degree 50", 10, 50)]
FRONTIER_SIZES = [1_000, 10_000, 100_000, 1_000_000]
FRONTIER_EPS = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 10, 12]


FRONTIER_ROUTES = ("rr", "lp", "noisy-power")


def frontier(n_graphs=2, max_added=2e7, target=0.9, sizes=None, routes=FRONTIER_ROUTES,
             degrees=None):
    """Smallest epsilon of the grid at which each route's median ARI reaches ``target``.

    The randomized-response threshold does not fall as the graph grows (more
    fake edges per node), so its scan at the next size starts from the
    previous size's threshold; the central routes' scans start at the bottom
    of the grid at every size. Randomized-response releases above
    ``max_added`` expected added edges (the library's default limit) are not
    run. Results are saved per (family, size, route): a run of some sizes or
    routes keeps what earlier runs measured for the others.
    """
    saved = OUTPUT / "edge_dp_frontier.json"
    sizes = sizes or FRONTIER_SIZES
    results = json.loads(saved.read_text()) if saved.exists() else []
    for family, k, degree in FRONTIER_FAMILIES:
        if degrees is not None and degree not in degrees:
            continue
        start = 0
        for r in sorted((r for r in results if r["family"] == family and r["n"] < min(sizes)),
                        key=lambda r: r["n"]):
            if r.get("rr") is not None:
                start = FRONTIER_EPS.index(r["rr"])
        for n in sizes:
            graphs = [planted_partition(k, n // k, degree, 0.1, 2000 + g) for g in range(n_graphs)]
            d_in, d_out = degree * 0.9, degree * 0.1
            row = next((r for r in results if r["family"] == family and r["n"] == n), None)
            if row is None:
                row = {"family": family, "n": n, "k": k, "degree": degree}
                results.append(row)
            row["ks_rr"] = ks_epsilon(n, k, d_in, d_out)
            for route in routes:
                found, path = None, []
                for i in range(start if route == "rr" else 0, len(FRONTIER_EPS)):
                    eps = FRONTIER_EPS[i]
                    if route == "rr" and expected_added_edges(n, pig_s_from_epsilon(eps)) > max_added:
                        path.append((eps, None, None))
                        continue
                    aris, times = [], []
                    for g, (A, y) in enumerate(graphs):
                        if route == "noisy-power":
                            make = lambda: NoisyPowerClustering(  # noqa: E731
                                k, epsilon=eps, delta=1e-6, random_state=g)
                            m, t = _timed(lambda: _quiet_fit(lambda: make().fit(A)))
                            res = (adjusted_rand_score(y, m.labels_), t)
                        else:
                            res, _ = _goal_cell(route, A, y, eps, g, max_added)
                        aris.append(res[0])
                        times.append(res[1])
                    path.append((eps, float(np.median(aris)), float(np.median(times))))
                    if np.median(aris) >= target:
                        found = eps
                        if route == "rr":
                            start = i
                        break
                else:
                    if route == "rr":
                        start = len(FRONTIER_EPS)
                row[route] = found
                row[route + "_path"] = path
                print(f"{family}, n={n}: {route} reaches {target} at eps={found} "
                      f"(path {[(e, None if a is None else round(a, 2)) for e, a, _ in path]}); "
                      f"RR release at the KS line from eps={row['ks_rr']:.2f}", flush=True)
                OUTPUT.mkdir(exist_ok=True)
                saved.write_text(json.dumps(results, indent=1))
            del graphs
    results.sort(key=lambda r: (r["family"], r["n"]))
    print_frontier(results)
    return results


def print_frontier(results):
    print("\n| graph | n | randomized response | label propagation | noisy power | "
          "RR release at the KS line |")
    print("|---|---|---|---|---|---|")

    def cell(r, route):
        if route + "_path" not in r:
            return "not measured"
        if r[route] is not None:
            skipped = [e for e, a, _ in r[route + "_path"] if a is None]
            return f"{r[route]:g}" + (f" (eps <= {max(skipped):g} not run: release above "
                                      "2e7 edges)" if skipped else "")
        if r[route + "_path"] and all(a is None for _, a, _ in r[route + "_path"]):
            return "not run (release above 2e7 edges)"
        return "> 12"

    for r in sorted(results, key=lambda r: (r["family"], r["n"])):
        print(f"| {r['family']} | {r['n']:,} | {cell(r, 'rr')} | {cell(r, 'lp')} | "
              f"{cell(r, 'noisy-power')} | {r['ks_rr']:.1f} |")


def figure():
    """Draw the measured frontier and the Kesten-Stigum line from the saved results."""
    import matplotlib.pyplot as plt

    results = json.loads((OUTPUT / "edge_dp_frontier.json").read_text())
    print_frontier(results)
    fig, axes = plt.subplots(1, len(FRONTIER_FAMILIES), figsize=(11, 4), sharey=True)
    for ax, (family, k, degree) in zip(np.atleast_1d(axes), FRONTIER_FAMILIES):
        rows = sorted((r for r in results if r["family"] == family), key=lambda r: r["n"])
        ns = np.array([r["n"] for r in rows])
        grid = np.logspace(3, 6, 60)
        ax.plot(grid, [ks_epsilon(n, k, 0.9 * degree, 0.1 * degree) for n in grid], "k--",
                label="RR release at the Kesten-Stigum threshold")
        for route, style in (("rr", "o-"), ("lp", "s-"), ("noisy-power", "^:")):
            eps = np.array([np.nan if r.get(route) is None else r[route] for r in rows], float)
            ax.plot(ns, eps, style, label={"rr": "randomized response (measured)",
                                           "lp": "label propagation (measured)",
                                           "noisy-power": "noisy power (measured)"}[route])
        ax.set_xscale("log")
        ax.set_xlabel("nodes")
        ax.set_title(f"{family}, mixing 0.1")
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("smallest epsilon with median ARI >= 0.9")
    np.atleast_1d(axes)[0].legend(fontsize=8)
    fig.tight_layout()
    out = OUTPUT / "edge_dp_frontier.png"
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def scale_central(epsilon=8.0):
    """PrivateLabelPropagation on 10^6 nodes and 10^7 edges: seconds and peak memory."""
    t0 = time.perf_counter()
    A, y = planted_partition(10, 100_000, 20, 0.1, 3000)
    print(f"graph: {A.shape[0]:,} nodes, {A.nnz // 2:,} edges ({time.perf_counter() - t0:.1f} s)")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    m, t = _timed(lambda: _quiet_fit(lambda: PrivateLabelPropagation(
        10, epsilon=epsilon, random_state=0).fit(A)))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"label propagation, eps={epsilon}: ARI {adjusted_rand_score(y, m.labels_):.2f}, "
          f"{t:.1f} s; peak RSS {rss / 1024:.0f} MB (after the graph: {rss0 / 1024:.0f} MB)",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="LFR 1,000 (mixing 0.1) and the "
                    "small SBM, epsilon 2, 3, 4, 6, 8, 2 seeds")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--large-only", action="store_true",
                    help="only the 10,000-node LFR graph and the 100,000-node scale run")
    ap.add_argument("--small-only", action="store_true",
                    help="only the 1,000-node graphs (LFR mixing 0.1-0.4 and the small SBM)")
    ap.add_argument("--goals", action="store_true", help="the graphs of issue 28")
    ap.add_argument("--only", default=None, help="--goals: graphs whose name contains this")
    ap.add_argument("--eps", type=float, nargs="+", default=None,
                    help="--goals: these epsilons for every graph")
    ap.add_argument("--graphs", type=int, default=3, help="--goals: graphs per cell")
    ap.add_argument("--releases", type=int, default=3, help="--goals: releases per graph")
    ap.add_argument("--routes", nargs="+", default=["rr", "lp"], choices=["rr", "lp"],
                    help="--goals: routes")
    ap.add_argument("--frontier", action="store_true",
                    help="smallest epsilon reaching ARI 0.9, 10^3 to 10^6 nodes")
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help="--frontier: these graph sizes (default 10^3 to 10^6)")
    ap.add_argument("--frontier-routes", nargs="+", default=list(FRONTIER_ROUTES),
                    choices=list(FRONTIER_ROUTES), help="--frontier: these routes")
    ap.add_argument("--degrees", type=int, nargs="+", default=None,
                    help="--frontier: the families of these degrees only")
    ap.add_argument("--frontier-graphs", type=int, default=2,
                    help="--frontier: graphs per cell")
    ap.add_argument("--figure", action="store_true", help="draw the saved frontier")
    ap.add_argument("--oracle", action="store_true", help="belief propagation on the "
                    "randomized-response release from the planted communities")
    ap.add_argument("--scale-central", action="store_true",
                    help="label propagation on 10^6 nodes, 10^7 edges")
    ap.add_argument("--table-routes", nargs="+", default=None, choices=ROUTES,
                    help="the tables: these routes only")
    ap.add_argument("--mixings", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.4],
                    help="the tables: LFR graphs of these mixings")
    ap.add_argument("--no-sbm", action="store_true", help="the tables: no SBM 4 x 250")
    args = ap.parse_args()
    if args.goals:
        goals(args.graphs, args.releases, only=args.only, epsilons_of=args.eps,
              routes=tuple(args.routes))
        return
    if args.frontier:
        frontier(args.frontier_graphs, sizes=args.sizes, routes=tuple(args.frontier_routes),
                 degrees=args.degrees)
        return
    if args.oracle:
        oracle()
        return
    if args.figure:
        figure()
        return
    if args.scale_central:
        scale_central()
        return
    if args.large_only:
        large_only()
        return
    all_routes = set(args.table_routes or ROUTES)
    if args.quick:
        seeds = list(range(args.seeds or 2))
        eps = [2, 3, 4, 6, 8]
        table("LFR mixing 0.1", lambda s: lfr(1000, 0.1, s), eps, seeds, all_routes)
        table("SBM 4 x 250", lambda s: sbm([250] * 4, 0.1, 0.01, s), eps, seeds, all_routes)
        return
    seeds = list(range(args.seeds or 3))
    eps = [1, 2, 3, 4, 5, 6, 7, 8]
    for mu in args.mixings:
        table(f"LFR mixing {mu:g}", lambda s, mu=mu: lfr(1000, mu, s), eps, seeds, all_routes)
    if not args.no_sbm:
        table("SBM 4 x 250", lambda s: sbm([250] * 4, 0.1, 0.01, s), eps, seeds, all_routes)
    if args.small_only:
        return
    # On the 10,000-node releases below the default refinement is the
    # likelihood one (belief propagation would hold 2k floats per released
    # edge: several GB), which the rr+spectral+likelihood row shows.
    big = all_routes - {"rr+auto-k", "rr+default"}
    table("SBM 5 x 2000", lambda s: sbm([2000] * 5, 0.02, 0.001, s), eps, seeds[:2], big)
    # About 184 communities: below epsilon 4 the release has 10^6-10^7 edges
    # and 184 eigenvectors of it carry no signal (n p >> community degree).
    table("LFR 10,000 mixing 0.1", lambda s: lfr(10_000, 0.1, s), [4, 5, 6, 8], seeds[:1],
          big)
    scale_run(6.0, 1.0)
    scale_run(6.0, 0.25)


def large_only():
    table("LFR 10,000 mixing 0.1", lambda s: lfr(10_000, 0.1, s), [4, 5, 6, 8], [0],
          set(ROUTES) - {"rr+auto-k", "rr+default"})
    scale_run(6.0, 1.0)
    scale_run(6.0, 0.25)


if __name__ == "__main__":
    main()
