"""The utility frontier of the private spanning trees (clustering and MST error).

For each private tree mechanism (``PrivateMSTClustering(tree_mechanism=...)``),
each neighbourhood (``"l1"``, ``"linf"``), each sensitivity ``mu`` in
{0.1, 0.01, 0.001} and each ``epsilon`` on a log grid from 0.1 to 100, on

* the UAI paper's homogeneous moons and circles (100 and 1,000 nodes,
  ``w_min=0.1``, ``w_max=0.3``, weights scaled into (0, 1]),
* an epsilon-graph of scikit-learn's digits (radius 20, weights divided by
  the public radius, so into (0, 1]),

the script fits the estimator ``--runs`` times (different mechanism
randomness, same graph) and records the adjusted Rand index (median and
quartiles) against the non-private output, exact MST + DBMSTClu, which on
the moons and circles is the true labelling (ARI 1). On digits the
non-private output itself only reaches ARI 0.53 against the digit classes
(324 components at radius 20), so no private release can reach 0.9 against
them; the ARI against the true labels is recorded and printed as well.

It prints, per setting, the smallest ``epsilon`` at which the median ARI
reaches 0.9: the first grid point that reaches it, refined by
``REFINE_STEPS`` log-bisections towards the grid point below (a factor
``1.78 ** (1 / 16)``, about 4%, on the full grid), and whether the library's
best mechanism needs at least 10 times less ``epsilon`` than PTClust-PAMST
wherever either reaches 0.9 (where PTClust-PAMST does not reach it on the
grid, it is run at 10 times the best mechanism's threshold and bisected
below that if it reaches it there). It also measures the MST approximation
error ``w(T) - w(MST)`` (true weights; thesis Definition 3.2.1) of each tree
mechanism alone on Erdos-Renyi graphs with U(0, 10) weights divided by 10.

Settings (each with its natural accounting; weights of topology-only trees
are released by the estimator: Laplace under pure accounting, Gaussian under
zCDP; the tree gets half of the budget):

=============================  ================================  ============
label                          tree                              guarantee
=============================  ================================  ============
PTClust-PAMST                  PAMST, eps/(|V|-1) per step       eps-DP
Laplace-MST                    Laplace on every weight           eps-DP
Exponential                    exponential mech. over trees      eps-DP
Exponential (zCDP)             same, rho = eps^2/8               (eps, 1e-6)
Noisy-max Prim (zCDP)          Prim + Report-Noisy-Max           (eps, 1e-6)
Input perturbation (zCDP)      Gumbel noise once, then MST       (eps, 1e-6)
=============================  ================================  ============

(Noisy-max Prim under zCDP has the law of PAMST under zCDP accounting, so
the latter is not listed twice.)

Usage::

    python benchmarks/frontier.py --quick        # 100-node graphs, 7 epsilons (minutes)
    python benchmarks/frontier.py --n-jobs 2     # full grid (about an hour)
    python benchmarks/frontier.py --datasets moons100 digits --runs 5 --n-jobs 2
    python benchmarks/frontier.py --scheduler tcp://HOST:8786   # on a Dask cluster

Progress goes to stderr (a tqdm bar when tqdm is installed, else a line
every tenth of each batch). ``--scheduler ADDRESS`` connects a
``dask.distributed.Client`` and runs every batch of fits through
``joblib.parallel_config(backend="dask")`` (``pip install "skdpgraph[dask]"``);
the results are the same as a local run with the same ``--seed``, since every
fit takes its seed from its position in the grid.

Outputs: the tables on stdout, ``frontier.png`` (median ARI with
quartile bands), ``frontier_mst_error.png`` and ``frontier_results.npz`` in
``--out`` (default: ``benchmarks/output/``, which git ignores: generated
files are not committed).
"""

import argparse
import itertools
import math
import os
import sys
import time
import warnings
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed, parallel_config
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import PrivateMSTClustering, dbmstclu
from skdpgraph.datasets import (
    make_homogeneous_circles,
    make_homogeneous_moons,
    make_weighted_erdos_renyi,
)
from skdpgraph.metrics import mst_approximation_error
from skdpgraph.tree import (
    exponential_tree,
    input_perturbation_tree,
    laplace_mst,
    minimum_spanning_tree,
    noisy_max_prim_tree,
    pamst,
)
from skdpgraph.utils import check_graph

DELTA = 1e-6
TARGET = 0.9
MUS = (0.1, 0.01, 0.001)
NEIGHBORHOODS = ("l1", "linf")
FULL_EPSILONS = tuple(float(f"{x:.3g}") for x in np.logspace(-1, 2, 13))
QUICK_EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
SETTINGS = (
    ("PTClust-PAMST", "pamst", "pure"),
    ("Laplace-MST", "laplace", "pure"),
    ("Exponential", "exponential", "pure"),
    ("Exponential (zCDP)", "exponential", "zcdp"),
    ("Noisy-max Prim (zCDP)", "noisy_max_prim", "zcdp"),
    ("Input perturbation (zCDP)", "input_perturbation", "zcdp"),
)
BASELINE = "PTClust-PAMST"
#: Log-bisection steps refining each threshold between two grid points.
REFINE_STEPS = 4


# ---------------------------------------------------------------------------
# running batches of fits, with progress
# ---------------------------------------------------------------------------

def run_batch(tasks, n_jobs, desc):
    """Run ``delayed`` tasks with joblib (any configured backend), in order,
    showing progress on stderr: a tqdm bar when tqdm is installed, else a
    plain line every tenth of the batch."""
    tasks = list(tasks)
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    try:
        from tqdm.auto import tqdm
    except ImportError:
        out, step = [], max(1, len(tasks) // 10)
        for k, res in enumerate(results, 1):
            out.append(res)
            if k % step == 0 or k == len(tasks):
                print(f"[{desc}] {k}/{len(tasks)} fits", file=sys.stderr, flush=True)
        return out
    return list(tqdm(results, total=len(tasks), desc=desc, file=sys.stderr, leave=False))


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

def load_dataset(name, seed=0):
    """``(graph, labels)`` with weights in (0, 1]."""
    if name.startswith("moons") or name.startswith("circles"):
        maker = make_homogeneous_moons if name.startswith("moons") else make_homogeneous_circles
        n = int(name[5:] if name.startswith("moons") else name[7:])
        data = maker(n, random_state=seed)
        return data.graph, data.labels
    if name == "digits":
        from sklearn.datasets import load_digits

        from skdpgraph.graphs import EpsilonGraph

        X, y = load_digits(return_X_y=True)
        radius = 20.0
        graph = check_graph(EpsilonGraph(radius=radius).fit_transform(X))
        graph.data /= radius  # public normalisation: weights <= radius
        return graph, y
    raise ValueError(f"unknown dataset {name!r}")


class Benchmark(NamedTuple):
    """A graph, its true labels and the non-private PTClust output on it."""

    name: str
    graph: object
    truth: np.ndarray
    reference: np.ndarray  # exact MST + DBMSTClu: what privacy costs is measured against it


def load_benchmark(name, seed=0):
    graph, truth = load_dataset(name, seed)
    reference = dbmstclu(minimum_spanning_tree(graph).tree).labels
    return Benchmark(name, graph, np.asarray(truth), reference)


# ---------------------------------------------------------------------------
# clustering frontier
# ---------------------------------------------------------------------------

def _cell(bench, mech, accounting, nb, mu, eps, runs, seed):
    """ARI of ``runs`` fits against the reference (row 0) and the truth (row 1)."""
    out = np.empty((2, runs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(runs):
            model = PrivateMSTClustering(
                epsilon=eps, sensitivity=mu, neighborhood=nb, weight_bounds=(0.0, 1.0),
                accounting=accounting, delta=DELTA if accounting == "zcdp" else None,
                tree_mechanism=mech, metric="precomputed", random_state=seed + r)
            pred = model.fit_predict(bench.graph)
            out[0, r] = adjusted_rand_score(bench.reference, pred)
            out[1, r] = adjusted_rand_score(bench.truth, pred)
    return out


def clustering_frontier(benches, epsilons, runs, n_jobs, seed):
    """Grid of ARIs: ``{name: array (settings, neighbourhoods, mus, epsilons, 2, runs)}``."""
    ari = {}
    for bench in benches:
        cells = list(itertools.product(range(len(SETTINGS)), NEIGHBORHOODS, MUS, epsilons))
        t0 = time.perf_counter()
        res = run_batch(
            (delayed(_cell)(bench, SETTINGS[s][1], SETTINGS[s][2], nb, mu, eps, runs,
                            seed + 1000 * k)
             for k, (s, nb, mu, eps) in enumerate(cells)), n_jobs, bench.name)
        ari[bench.name] = np.array(res).reshape(len(SETTINGS), len(NEIGHBORHOODS), len(MUS),
                                                len(epsilons), 2, runs)
        print(f"[{bench.name}] {bench.graph.shape[0]} nodes, {bench.graph.nnz // 2} edges; "
              f"non-private PTClust (exact MST + DBMSTClu): ARI "
              f"{adjusted_rand_score(bench.truth, bench.reference):.3f} against the true labels, "
              f"{np.unique(bench.reference).size} clusters; {len(cells) * runs} fits in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    return ari


def _reaches(out):
    return float(np.median(out[0])) >= TARGET


def _bisect(benches, jobs, steps, runs, n_jobs, seed):
    """Log-bisect ``[lo, hi]`` brackets (``lo`` fails, ``hi`` reaches) in parallel.

    ``jobs`` maps a key to ``[name, s, nb, mu, lo, hi]``; the brackets are
    narrowed in place, ``steps`` times, each step one parallel batch.
    """
    for step in range(steps):
        keys = list(jobs)
        mids = [math.sqrt(jobs[k][4] * jobs[k][5]) for k in keys]
        res = run_batch(
            (delayed(_cell)(benches[jobs[k][0]], SETTINGS[jobs[k][1]][1], SETTINGS[jobs[k][1]][2],
                            jobs[k][2], jobs[k][3], mid, runs,
                            seed + 10**7 * (step + 1) + 1000 * t)
             for t, (k, mid) in enumerate(zip(keys, mids))), n_jobs, f"bisection {step + 1}")
        for k, mid, out in zip(keys, mids, res):
            jobs[k][5 if _reaches(out) else 4] = mid


def thresholds(benches, ari, epsilons, runs, n_jobs, seed, steps=REFINE_STEPS):
    """Smallest epsilon whose median ARI (against the reference) reaches the target.

    The first grid point that reaches it is refined by ``steps`` log-bisections
    towards the grid point below (so to a factor ``(eps[i] / eps[i-1]) **
    (2 ** -steps)``). Where PTClust-PAMST does not reach the target on the
    grid but another mechanism does, PTClust-PAMST is run at 10 times the best
    mechanism's threshold and, if it reaches the target there, bisected
    between the end of the grid and that point.

    Returns ``{name: array (settings, neighbourhoods, mus)}``: the threshold,
    ``nan`` where not reached, ``-inf`` where already reached at the first
    grid point (a floor), ``+inf`` for PTClust-PAMST where it does not reach
    the target up to the larger of the grid's end and 10 times the best
    mechanism's threshold.
    """
    out, jobs = {}, {}
    for name, arr in ari.items():
        med = np.median(arr[..., 0, :], axis=-1)
        thr = np.full(med.shape[:3], np.nan)
        for s, i, j in np.ndindex(thr.shape):
            hit = np.flatnonzero(med[s, i, j] >= TARGET)
            if hit.size == 0:
                continue
            if hit[0] == 0:
                thr[s, i, j] = -np.inf
                continue
            thr[s, i, j] = epsilons[hit[0]]
            jobs[(name, s, i, j)] = [name, s, NEIGHBORHOODS[i], MUS[j],
                                     epsilons[hit[0] - 1], epsilons[hit[0]]]
        out[name] = thr
    _bisect(benches, jobs, steps, runs, n_jobs, seed)
    for (name, s, i, j), job in jobs.items():
        out[name][s, i, j] = job[5]

    base = [lab for lab, _, _ in SETTINGS].index(BASELINE)
    beyond = {}
    for name, thr in out.items():
        for i, j in np.ndindex(thr.shape[1:]):
            others = np.delete(thr[:, i, j], base)
            if np.isnan(thr[base, i, j]) and not np.all(np.isnan(others)):
                best = np.nanmin(others)
                best = epsilons[0] if best == -np.inf else best
                if 10.0 * best <= epsilons[-1]:  # the grid already settles it
                    thr[base, i, j] = np.inf
                    continue
                beyond[(name, base, i, j)] = [name, base, NEIGHBORHOODS[i], MUS[j],
                                              epsilons[-1], 10.0 * best]
    if beyond:
        first = run_batch(
            (delayed(_cell)(benches[job[0]], SETTINGS[base][1], SETTINGS[base][2], job[2],
                            job[3], job[5], runs, seed + 9 * 10**8 + 1000 * t)
             for t, job in enumerate(beyond.values())), n_jobs, "PTClust-PAMST beyond the grid")
        for (key, job), res in zip(list(beyond.items()), first):
            if not _reaches(res):
                out[key[0]][key[1:]] = np.inf
                del beyond[key]
        _bisect(benches, beyond, steps + 1, runs, n_jobs, seed + 5 * 10**8)
        for (name, s, i, j), job in beyond.items():
            out[name][s, i, j] = job[5]
    return out


def _fmt(e, floor):
    if np.isnan(e):
        return "-"
    if e == -np.inf:
        return f"<={floor:g}"
    if e == np.inf:
        return ">10x best"
    return f"{e:.3g}"


def report(ari, thr, epsilons, exact):
    """Print the threshold tables and the 10x verdicts; return the verdicts.

    ``exact[name]`` is the ARI of the non-private output against the true labels.
    """
    labels = [s[0] for s in SETTINGS]
    width = max(len(x) for x in labels)
    base = labels.index(BASELINE)
    verdicts = []
    for name, arr in ari.items():
        truth = np.median(arr[..., 1, :], axis=-1).max()
        print(f"\n== {name}: smallest epsilon with median ARI >= {TARGET} against the "
              f"non-private output (grid {epsilons[0]:g}..{epsilons[-1]:g}, refined by "
              f"log-bisection; '-' = not reached). Against the true labels: non-private "
              f"ARI {float(exact[name]):.3f}, best private median ARI {truth:.3f} ==")
        print(" " * (width + 2) + "".join(f"{nb:>5}/{mu:<7}" for nb in NEIGHBORHOODS
                                           for mu in MUS))
        for s, lab in enumerate(labels):
            print(f"{lab:<{width}}  " + "".join(f"{_fmt(e, epsilons[0]):>13}"
                                                for e in thr[name][s].ravel()))
        for i, nb in enumerate(NEIGHBORHOODS):
            for j, mu in enumerate(MUS):
                col = thr[name][:, i, j]
                b = col[base]
                others = {labels[s]: col[s] for s in range(len(labels))
                          if s != base and not np.isnan(col[s])}
                if np.isnan(b) and not others:
                    verdicts.append((name, nb, mu, None, "nothing reaches ARI 0.9"))
                    continue
                pure = {k: v for k, v in others.items() if "zCDP" not in k}
                pure_note = (f" [best pure-DP: {min(pure, key=pure.get)} at eps "
                             f"{_fmt(min(pure.values()), epsilons[0])}]" if pure
                             else " [no pure-DP mechanism reaches it]")
                if not others:
                    verdicts.append((name, nb, mu, 0.0, "only PTClust-PAMST reaches it "
                                     f"(eps {_fmt(b, epsilons[0])}): goal NOT met"))
                    continue
                best_lab = min(others, key=others.get)
                best = others[best_lab]
                if b == -np.inf:
                    verdicts.append((name, nb, mu, None, "PTClust-PAMST reaches it at the grid "
                                     "floor: goal undetermined" + pure_note))
                    continue
                lo = epsilons[0] if best == -np.inf else best
                if b == np.inf:  # not reached up to max(grid end, 10 x best)
                    ratio, rel = max(10.0, epsilons[-1] / lo), ">"
                else:
                    ratio, rel = b / lo, (">=" if best == -np.inf else "=")
                if rel == "=" or ratio >= 10:
                    ok = "goal met" if ratio >= 10 else "goal NOT met"
                else:  # the best mechanism reaches it at the grid floor
                    ok = "goal undetermined (the best mechanism reaches it at the grid floor)"
                if b == np.inf:
                    text = (f"{best_lab} at eps {_fmt(best, epsilons[0])}; PTClust-PAMST "
                            f"not up to eps {ratio * lo:.3g} (ratio > {ratio:.3g}): {ok}")
                else:
                    text = (f"{best_lab} at eps {_fmt(best, epsilons[0])} vs PTClust-PAMST "
                            f"{b:.3g} (ratio {rel} {ratio:.3g}): {ok}")
                verdicts.append((name, nb, mu, ratio, text + pure_note))
    print("\n== 10x goal: best mechanism vs PTClust-PAMST (ratio of the smallest epsilons "
          "reaching the target) ==")
    for name, nb, mu, _, text in verdicts:
        print(f"{name:>12} {nb:>4} mu={mu:<6} {text}")
    return verdicts


def plot_frontier(ari, epsilons, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(ari)
    cols = [(nb, mu) for nb in NEIGHBORHOODS for mu in MUS]
    fig, axes = plt.subplots(len(names), len(cols), figsize=(3.1 * len(cols), 2.6 * len(names)),
                             sharex=True, sharey=True, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for r, name in enumerate(names):
        for c, (nb, mu) in enumerate(cols):
            ax = axes[r, c]
            i, j = NEIGHBORHOODS.index(nb), MUS.index(mu)
            for s, (lab, _, _) in enumerate(SETTINGS):
                a = ari[name][s, i, j, :, 0]
                q1, med, q3 = np.percentile(a, [25, 50, 75], axis=-1)
                ax.plot(epsilons, med, "-o", ms=2.5, lw=1.2, color=colors[s], label=lab)
                ax.fill_between(epsilons, q1, q3, color=colors[s], alpha=0.15, lw=0)
            ax.axhline(TARGET, color="grey", lw=0.6, ls=":")
            ax.set_xscale("log")
            ax.set_ylim(-0.1, 1.05)
            if r == 0:
                ax.set_title(f"{nb}, mu={mu}", fontsize=9)
            if c == 0:
                ax.set_ylabel(f"{name}\nARI", fontsize=9)
            if r == len(names) - 1:
                ax.set_xlabel("epsilon", fontsize=9)
    axes[0, 0].legend(fontsize=6, loc="upper left")
    fig.suptitle("PrivateMSTClustering: median ARI against the non-private output "
                 "(bands: quartiles)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------
# MST approximation error of the trees alone (thesis Table 3.1 setting)
# ---------------------------------------------------------------------------

def _tree(mech, graph, eps, mu, nb, seed):
    rng = np.random.default_rng(seed)
    if mech == "pamst":
        return pamst(graph, eps, sensitivity=mu, neighborhood=nb, random_state=rng)
    if mech == "laplace":
        return laplace_mst(graph, eps, sensitivity=mu, neighborhood=nb, random_state=rng)
    if mech == "exponential":
        return exponential_tree(graph, eps, sensitivity=mu, neighborhood=nb, random_state=rng)
    if mech == "noisy_max_prim":
        return noisy_max_prim_tree(graph, eps, delta=DELTA, sensitivity=mu, neighborhood=nb,
                                   random_state=rng)
    return input_perturbation_tree(graph, eps, delta=DELTA, sensitivity=mu, neighborhood=nb,
                                   random_state=rng)


TREE_SETTINGS = (("PAMST", "pamst"), ("Laplace-MST", "laplace"),
                 ("Exponential", "exponential"),
                 ("Noisy-max Prim (zCDP)", "noisy_max_prim"),
                 ("Input perturbation (zCDP)", "input_perturbation"))


def _err_cell(graph, mech, nb, mu, eps, runs, seed):
    out = np.empty(runs)
    for r in range(runs):
        try:
            out[r] = mst_approximation_error(graph, _tree(mech, graph, eps, mu, nb, seed + r))
        except RuntimeError:  # exponential sampler out of budget
            out[r] = np.nan
    return out


def mst_error_frontier(n_nodes, p, epsilons, runs, n_jobs, seed):
    data = make_weighted_erdos_renyi(n_nodes, p, random_state=seed)
    graph = data.graph.copy()
    graph.data /= 10.0  # public bound of U(0, 10): weights into [0, 1]
    cells = list(itertools.product(range(len(TREE_SETTINGS)), NEIGHBORHOODS, MUS, epsilons))
    t0 = time.perf_counter()
    res = run_batch(
        (delayed(_err_cell)(graph, TREE_SETTINGS[s][1], nb, mu, eps, runs, seed + 100 * k)
         for k, (s, nb, mu, eps) in enumerate(cells)), n_jobs, "MST error")
    arr = np.array(res).reshape(len(TREE_SETTINGS), len(NEIGHBORHOODS), len(MUS),
                                len(epsilons), runs)
    mst_w = float(minimum_spanning_tree(graph).weights.sum())
    print(f"\n== MST approximation error on G({n_nodes}, {p}), U(0,1) weights "
          f"({time.perf_counter() - t0:.0f} s) ==")
    print_mst_error(arr, epsilons, mst_w)
    return arr, mst_w


def print_mst_error(arr, epsilons, mst_w):
    print(f"median w(T) - w(MST) (MST weight {mst_w:.2f}) at epsilon = "
          + ", ".join(f"{e:g}" for e in epsilons))
    for i, nb in enumerate(NEIGHBORHOODS):
        for j, mu in enumerate(MUS):
            print(f"  {nb}, mu={mu}")
            for s, (lab, _) in enumerate(TREE_SETTINGS):
                med = np.nanmedian(arr[s, i, j], axis=-1)
                print(f"    {lab:<27}" + " ".join(f"{x:8.3g}" for x in med))


def plot_mst_error(arr, epsilons, path, mst_w):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = [(nb, mu) for nb in NEIGHBORHOODS for mu in MUS]
    fig, axes = plt.subplots(1, len(cols), figsize=(3.1 * len(cols), 2.8), sharey=True)
    for c, (nb, mu) in enumerate(cols):
        ax = axes[c]
        i, j = NEIGHBORHOODS.index(nb), MUS.index(mu)
        for s, (lab, _) in enumerate(TREE_SETTINGS):
            med = np.nanmedian(arr[s, i, j], axis=-1) / mst_w
            ax.plot(epsilons, np.maximum(med, 1e-6), "-o", ms=2.5, lw=1.2, label=lab)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{nb}, mu={mu}", fontsize=9)
        ax.set_xlabel("epsilon", fontsize=9)
    axes[0].set_ylabel("median (w(T) - w(MST)) / w(MST)", fontsize=8)
    axes[0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="100-node moons and circles, 7 epsilons, small ER graph")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="subset of moons100 circles100 moons1000 circles1000 digits")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-mst-error", action="store_true")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="address of a Dask scheduler (tcp://host:8786): run the grid "
                             "on that cluster through joblib's dask backend")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "output"))
    parser.add_argument("--from-results", metavar="NPZ", default=None,
                        help="re-print the tables and redraw the figures of a saved run")
    args = parser.parse_args(argv)
    if args.scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:
            parser.error('--scheduler needs dask.distributed: pip install "skdpgraph[dask]"')
        try:
            client = Client(args.scheduler, timeout="30s")
        except OSError as exc:
            parser.error(f"--scheduler: cannot reach {args.scheduler!r}: {exc}")
        print(f"running on the Dask cluster at {args.scheduler} "
              f"({len(client.scheduler_info()['workers'])} workers)", file=sys.stderr)
        args.n_jobs = -1
        with parallel_config(backend="dask"):
            return _main(args)
    return _main(args)


def _main(args):
    os.makedirs(args.out, exist_ok=True)
    if args.from_results:
        saved = np.load(args.from_results)
        epsilons = saved["epsilons"]
        ari = {k[4:]: saved[k] for k in saved.files if k.startswith("ari_")}
        thr = {k[4:]: saved[k] for k in saved.files if k.startswith("thr_")}
        exact = {k[6:]: saved[k] for k in saved.files if k.startswith("exact_")}
        report(ari, thr, epsilons, exact)
        plot_frontier(ari, epsilons, os.path.join(args.out, "frontier.png"))
        if "mst_error" in saved.files:
            print_mst_error(saved["mst_error"], epsilons, float(saved["mst_weight"]))
            plot_mst_error(saved["mst_error"], epsilons,
                           os.path.join(args.out, "frontier_mst_error.png"),
                           float(saved["mst_weight"]))
        return
    if args.quick:
        names = args.datasets or ["moons100", "circles100"]
        epsilons = QUICK_EPSILONS
        er = (100, 0.3, 5)
    else:
        names = args.datasets or ["moons100", "circles100", "moons1000", "circles1000", "digits"]
        epsilons = FULL_EPSILONS
        er = (300, 0.3, 10)
    epsilons = np.array(epsilons)
    t0 = time.perf_counter()
    benches = {name: load_benchmark(name, args.seed) for name in names}
    ari = clustering_frontier(benches.values(), epsilons, args.runs, args.n_jobs, args.seed)
    t1 = time.perf_counter()
    thr = thresholds(benches, ari, epsilons, args.runs, args.n_jobs, args.seed)
    print(f"thresholds refined in {time.perf_counter() - t1:.0f} s", flush=True)
    exact = {name: adjusted_rand_score(b.truth, b.reference) for name, b in benches.items()}
    report(ari, thr, epsilons, exact)
    plot_frontier(ari, epsilons, os.path.join(args.out, "frontier.png"))
    saved = {f"ari_{k}": v for k, v in ari.items()}
    saved.update({f"thr_{k}": v for k, v in thr.items()})
    saved.update({f"exact_{k}": np.array(v) for k, v in exact.items()})
    if not args.no_mst_error:
        err, mst_w = mst_error_frontier(er[0], er[1], epsilons, er[2], args.n_jobs, args.seed)
        plot_mst_error(err, epsilons, os.path.join(args.out, "frontier_mst_error.png"), mst_w)
        saved["mst_error"] = err
        saved["mst_weight"] = np.array(mst_w)
    np.savez(os.path.join(args.out, "frontier_results.npz"), epsilons=epsilons,
             mus=np.array(MUS), settings=np.array([s[0] for s in SETTINGS]), **saved)
    print(f"\nfigures and results in {args.out}; total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
