"""python -m skdpgraph: cluster built-in data, without and with privacy, and explain the results.

1. DBMSTClu on two moons and concentric circles (point clouds made on the
   spot, complete graphs of Euclidean distances), without privacy.
2. The UAI 2018 experiment's graphs (homogeneous moons and circles, weights
   in (0, 1]; Pinot et al., UAI 2018, Section 4): DBMSTClu without privacy,
   then PrivateMSTClustering with every registered tree mechanism at a few
   privacy budgets, under weight-DP with l1 (or linf) neighbours and
   sensitivity 0.1, as in the paper. Each private cell is the median over a
   few releases; the mechanism that the default tree_mechanism="auto" picks
   is marked.
3. A summary computed from the run's own numbers: which mechanism reaches a
   median ARI of 0.9 at the smallest budget on each data set, and what
   privacy costs at each budget.

Every term the output uses is explained in one sentence where it first
appears. --n-samples sets the size of every data set (the paper's graphs
have 100 nodes). The releases use fixed seeds so that the run repeats; a
real release uses random_state=None. --output FILE.png draws the median ARI
against epsilon of every mechanism (needs matplotlib, the plot extra).
Progress goes to stderr, as a tqdm bar when tqdm is installed (the progress
extra), else as plain lines.
"""

import argparse
import math
import os
import sys
import textwrap
import warnings

import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from . import __version__
from .cluster import DBMSTClu, PrivateMSTClustering
from .datasets import make_homogeneous_circles, make_homogeneous_moons
from .tree import TREE_MECHANISMS

#: The private releases: the UAI paper's sensitivity and weight range.
SENSITIVITY = 0.1
WEIGHT_BOUNDS = (0.0, 1.0)
#: A median ARI from which the clusters count as recovered (as in docs/private_trees.md).
RECOVERED = 0.9
#: Below this many points the UAI circles graph is often not connected inside each circle.
MIN_SAMPLES = 60

_WIDTH = 92

_MECHANISMS = {
    "laplace": "Laplace noise on every weight, then the exact minimum spanning tree "
               "(Sealfon 2016)",
    "exponential": "a random spanning tree, light trees more likely "
                   "(exponential mechanism over all trees)",
    "input_perturbation": "one random perturbation of all weights, then the exact "
                          "minimum spanning tree",
    "noisy_max_prim": "Prim's algorithm with a noisy choice of each next edge "
                      "(report-noisy-max; under pure accounting its law is PAMST's, so its "
                      "row is pamst's)",
    "pamst": "Prim's algorithm with a random choice of each next edge "
             "(PTClust, the UAI 2018 paper)",
}


def _say(text, indent=2, hang=2):
    print(textwrap.fill(text, _WIDTH, initial_indent=" " * indent,
                        subsequent_indent=" " * (indent + hang), break_on_hyphens=False))


def _heading(text):
    print()
    _say(text, indent=0, hang=3)


def _terms(pairs):
    """Print one plain sentence per term, the terms in a column."""
    width = max(len(term) for term, _ in pairs) + 2
    for term, sentence in pairs:
        print(textwrap.fill(sentence, _WIDTH, initial_indent=f"  {term:<{width}}",
                            subsequent_indent=" " * (width + 2), break_on_hyphens=False))


class _Progress:
    """Progress on stderr: a tqdm bar when tqdm is installed, else plain lines."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done = total, desc, 0
        try:
            from tqdm.auto import tqdm
        except ImportError:
            self.bar = None
        else:
            self.bar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False)

    def step(self, what):
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(what, refresh=False)
            self.bar.update(1)
        else:
            print(f"[{self.desc} {self.done}/{self.total}] {what}", file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _largest(labels, k=3):
    sizes = np.sort(np.bincount(labels))[::-1]
    return ", ".join(str(int(s)) for s in sizes[:k]) + (", ..." if sizes.size > k else "")


def _median_count(counts):
    """The median of integer counts as an integer: the lower middle value for an even N."""
    counts = np.sort(np.asarray(counts, dtype=np.int64))
    return int(counts[(counts.size - 1) // 2])


# ---------------------------------------------------------------------------
# section 1: DBMSTClu on point clouds
# ---------------------------------------------------------------------------

def _point_clouds(n_samples, seed, datasets):
    if "moons" in datasets:
        yield "moons", make_moons(n_samples=n_samples, noise=0.05, random_state=seed)
    if "circles" in datasets:
        yield "circles", make_circles(n_samples=n_samples, noise=0.03, factor=0.4,
                                      random_state=seed)


def _section_point_clouds(n_samples, seed, datasets):
    _heading(f"1. DBMSTClu on point clouds: {n_samples} points each, complete graph of "
             "Euclidean distances, no privacy")
    _terms([
        ("DBMSTClu", "cuts the minimum spanning tree of the graph as long as DBCVI rises; "
                     "it needs no number of clusters."),
        ("DBCVI", "DBMSTClu's own score of a clustering, computed from the graph alone (no "
                  "labels): from -1 to 1, higher for clusters that are dense inside and far "
                  "apart."),
        ("ARI", "adjusted Rand index against the true labels: 1 means the true clusters, "
                "about 0 is no better than chance (for example everything in one cluster, or one "
                "point cut off from the rest)."),
    ])
    print()
    rows = [("data", "clusters", "sizes, largest first", "DBCVI", "ARI")]
    for name, (X, y) in _point_clouds(n_samples, seed, datasets):
        model = DBMSTClu().fit(X)
        rows.append((name, str(model.n_clusters_), _largest(model.labels_),
                     f"{model.dbcvi_:.3f}", f"{adjusted_rand_score(y, model.labels_):.3f}"))
    for name, k, sizes, dbcvi, ari in rows:
        print(f"  {name:<10}{k:>8}  {sizes:<22}{dbcvi:>6}{ari:>8}")


# ---------------------------------------------------------------------------
# section 2: the UAI 2018 graphs, every tree mechanism
# ---------------------------------------------------------------------------

def _releases(data, mechanism, epsilons, n_runs, seed, neighborhood, progress):
    """ARIs and cluster counts, shape (n_epsilons, n_runs), or the reason it cannot run."""
    aris = np.full((len(epsilons), n_runs), np.nan)
    counts = np.zeros((len(epsilons), n_runs), dtype=np.int64)
    for i, eps in enumerate(epsilons):
        for run in range(n_runs):
            model = PrivateMSTClustering(
                epsilon=eps, sensitivity=SENSITIVITY, neighborhood=neighborhood,
                weight_bounds=WEIGHT_BOUNDS, tree_mechanism=mechanism,
                metric="precomputed", random_state=seed + run)
            with warnings.catch_warnings():
                # The warnings say what the tables show (e.g. that noise dominates).
                warnings.simplefilter("ignore")
                try:
                    labels = model.fit_predict(data.graph)
                except (TypeError, ValueError) as exc:  # a mechanism that needs other settings
                    for _ in range(len(epsilons) - i):
                        progress.step(f"{mechanism}, skipped")
                    return None, None, str(exc)
            aris[i, run] = adjusted_rand_score(data.labels, labels) + 0.0
            counts[i, run] = model.n_clusters_
        progress.step(f"{mechanism}, eps {eps:g}")
    return aris, counts, None


def _auto_choice(data, epsilon, seed, neighborhood):
    """The mechanism ``tree_mechanism="auto"`` runs on ``data`` (from public settings only)."""
    model = PrivateMSTClustering(epsilon=epsilon, sensitivity=SENSITIVITY,
                                 neighborhood=neighborhood, weight_bounds=WEIGHT_BOUNDS,
                                 metric="precomputed", random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(data.graph)
    return model.tree_mechanism_


def _uai_graphs(datasets, n_samples, seed):
    makers = {"moons": make_homogeneous_moons, "circles": make_homogeneous_circles}
    return {name: makers[name](n_samples, random_state=seed) for name in datasets}


def _ari(value):
    """An ARI with three decimals, never "-0.000"."""
    return f"{round(float(value), 3) + 0.0:.3f}"


def _factor(epsilon):
    """e^epsilon, readable at any size."""
    if epsilon < 50:
        return f"{math.exp(epsilon):.3g}"
    return f"about 10^{epsilon / math.log(10):.0f}"


def _print_table(mechanisms, auto, runs, epsilons):
    """One row per mechanism, one column per epsilon: median ARI (median clusters),
    the decimal points aligned."""
    label_width = max(len(m) for m in mechanisms) + len(" (auto)")
    cells = {}
    for m in mechanisms:
        aris, counts, skipped = runs[m]
        if skipped is None:
            cells[m] = [(_ari(np.median(a)), f"({_median_count(c)})")
                        for a, c in zip(aris, counts)]
    heads = [f"epsilon {e:g}" for e in epsilons]
    count_width = max([len(k) for row in cells.values() for _, k in row], default=3)
    width = max(max(len(h) for h in heads) + 2, 9 + count_width)
    print(f"  {'mechanism':<{label_width}}" + "".join(f"{h:>{width}}" for h in heads))
    for m in mechanisms:
        label = f"{m} (auto)" if m == auto else m
        if m not in cells:
            print(f"  {label:<{label_width}}  skipped: {runs[m][2]}")
            continue
        row = "".join(f"{a:>{width - 1 - count_width}} {k:<{count_width}}" for a, k in cells[m])
        print(f"  {label:<{label_width}}{row}".rstrip())


def _section_private(graphs, epsilons, n_runs, seed, neighborhood):
    """Print the tables of section 2; return the results the summary and figure use."""
    n_nodes = next(iter(graphs.values())).graph.shape[0]
    other = "linf" if neighborhood == "l1" else "l1"
    _heading(f"2. PrivateMSTClustering on the UAI 2018 graphs: {n_nodes} nodes each, weights "
             f"in (0, 1], weight-DP with {neighborhood} neighbours, sensitivity {SENSITIVITY:g}")
    seeds = f"seed {seed}" if n_runs == 1 else f"seeds {seed} to {seed + n_runs - 1}"
    shown = epsilons if len(epsilons) <= 4 else [epsilons[0], epsilons[-1]]
    factors = _join([f"{_factor(e)} at epsilon {e:g}" for e in shown])
    neighbours = {
        "l1": ("two sets of weights on the same edges are neighbours when their differences "
               "add up to at most the sensitivity (l1: for example one person who adds a "
               "little to a few weights; linf, much stronger, lets every weight move at once)."),
        "linf": ("two sets of weights on the same edges are neighbours when no weight "
                 "differs by more than the sensitivity (linf: every weight may move at once, "
                 f"which needs far more noise than {other}, where the differences add up to at "
                 "most the sensitivity)."),
    }[neighborhood]
    _terms([
        ("weight-DP", "weight differential privacy: the graph's edges are public, its weights "
                      "(distances) are private, and the output is random in a way that hardly "
                      "changes between neighbouring weights, so it says little about what one "
                      "person contributed."),
        ("neighbours", neighbours),
        ("sensitivity", f"that largest difference, here {SENSITIVITY:g} on weights in (0, 1]: "
                        "what one protected person can change, fixed from public knowledge "
                        "before looking at the data."),
        ("epsilon", f"the privacy budget: on neighbouring weights the probability of any "
                    f"output differs by at most a factor e^epsilon ({factors}); smaller is "
                    f"more private and noisier."),
        ("mechanism", "how PrivateMSTClustering draws its spanning tree privately before "
                      "DBMSTClu cuts it; the default, tree_mechanism=\"auto\", picks one from "
                      "the public settings alone (marked (auto) in the tables)."),
        ("release", f"one private run; its output is random, so each cell is the median of "
                    f"{n_runs} release{'s' if n_runs > 1 else ''} ({seeds}; a real release "
                    "uses random_state=None)"
                    + ("; of an even number of cluster counts, the lower middle one."
                       if n_runs % 2 == 0 else ".")),
    ])
    described = [m for m in sorted(TREE_MECHANISMS) if m in _MECHANISMS]
    if described:
        print("\n  The mechanisms:")
        _terms([(m, _MECHANISMS[m] + ".") for m in described])

    results = {}
    mechanisms = sorted(TREE_MECHANISMS)
    for name, data in graphs.items():
        exact = DBMSTClu(metric="precomputed").fit(data.graph)
        auto = _auto_choice(data, epsilons[0], seed, neighborhood)
        progress = _Progress(len(mechanisms) * len(epsilons), name)
        runs = {m: _releases(data, m, epsilons, n_runs, seed, neighborhood, progress)
                for m in mechanisms}
        progress.close()
        exact_ari = adjusted_rand_score(data.labels, exact.labels_) + 0.0
        results[name] = dict(exact_ari=exact_ari, auto=auto, runs=runs,
                             n_nodes=data.graph.shape[0], n_edges=data.graph.nnz // 2)
        print()
        _say(f"{name}: {data.graph.shape[0]} nodes, {data.graph.nnz // 2} edges. DBMSTClu "
             f"without privacy: {exact.n_clusters_} clusters, ARI {_ari(exact_ari)}. Each cell: "
             f"median ARI (median number of clusters) of {n_runs} "
             f"release{'s' if n_runs > 1 else ''}.")
        _print_table(mechanisms, auto, runs, epsilons)
    return results


# ---------------------------------------------------------------------------
# section 3: the summary, computed from the run
# ---------------------------------------------------------------------------

def _reach(medians, epsilons):
    """The smallest epsilon whose median ARI is >= RECOVERED and stays so above, or None."""
    ok = np.asarray(medians) >= RECOVERED
    if not ok[-1]:
        return None
    first = len(ok) - np.argmin(ok[::-1]) if not ok.all() else 0
    return epsilons[first]


def _ranking(result, epsilons):
    """Mechanisms best first: smallest epsilon reaching RECOVERED, then highest mean median ARI."""
    keys = {}
    for m, (aris, _, skipped) in result["runs"].items():
        if skipped is not None:
            continue
        medians = np.median(aris, axis=1)
        reach = _reach(medians, epsilons)
        keys[m] = (math.inf if reach is None else reach, -float(np.mean(medians)), reach,
                   medians)
    return sorted(keys.items(), key=lambda item: (item[1][0], item[1][1], item[0]))


def _join(names):
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _summary_lines(results, epsilons):
    """The closing summary, one string per line, from the results of section 2."""
    lines = []
    exact = [f"ARI {_ari(r['exact_ari'])} on {name}" for name, r in results.items()]
    lines.append(f"Without privacy DBMSTClu gets {_join(exact)}.")
    winners, reaches = {}, {}
    for name, result in results.items():
        ranking = _ranking(result, epsilons)
        if not ranking:
            lines.append(f"{name}: no mechanism could run with these settings.")
            continue
        reaches[name] = {m: key[2] for m, key in ranking}
        reach = ranking[0][1][2]
        if reach is not None:
            best_key = ranking[0][1][:2]
            best = [m for m, key in ranking if key[:2] == best_key]
            winners[name] = best
            text = (f"{name}: {_join(best)} {'wins' if len(best) == 1 else 'tie'}, "
                    f"recovering the clusters from epsilon {reach:g}")
            same = [m for m, key in ranking if m not in best and key[2] == reach]
            if same:
                text += f" ({_join(same)} too, with lower median ARIs on average)"
            later = [(m, key[2]) for m, key in ranking
                     if key[2] is not None and key[2] > reach]
            if later:
                text += "; then " + ", ".join(f"{m} from {r:g}" for m, r in later)
            never = [m for m, key in ranking if key[2] is None]
            if never:
                text += f"; {_join(never)} not by epsilon {epsilons[-1]:g}"
        else:
            winners[name] = []
            text = (f"{name}: no mechanism recovers the clusters by epsilon {epsilons[-1]:g}: "
                    "with these settings the noise that the guarantee needs swamps the weights")
        lines.append(text + ".")
        best_at = []
        for i, eps in enumerate(epsilons):
            top = max(_ari(key[3][i]) for _, key in ranking)
            tied = [m for m, key in ranking if _ari(key[3][i]) == top]
            best_at.append(f"{top} at epsilon {eps:g} ({_join(tied)})")
        lines.append(f"{name}: what privacy costs: the best median ARI is {_join(best_at)}, "
                     f"against {_ari(result['exact_ari'])} without privacy.")
    if winners:
        autos = sorted({results[name]["auto"] for name in winners})
        text = (f"The default tree_mechanism=\"auto\" picks {_join(autos)} here, from the "
                "public settings alone")
        won = [name for name, best in winners.items() if best]
        if not won:
            text += "; no mechanism recovers the clusters at these budgets"
        elif all(results[name]["auto"] in winners[name] for name in won):
            text += f"; it wins on {_join(won)}"
        else:
            parts = []
            for name in won:
                auto = results[name]["auto"]
                part = f"on {name} it {'wins' if auto in winners[name] else 'does not win'}"
                reach = reaches[name].get(auto)
                if auto in winners[name]:
                    pass
                elif reach is None:
                    part += f" and does not recover the clusters by epsilon {epsilons[-1]:g}"
                elif reach == reaches[name][winners[name][0]]:
                    part += " but recovers the clusters from the same epsilon"
                else:
                    part += f" and recovers the clusters from epsilon {reach:g}"
                parts.append(part)
            text += "; " + "; ".join(parts)
        lines.append(text + ".")
    return lines


# ---------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))


def _write_figure(path, results, epsilons, neighborhood, n_runs):
    """Median ARI against epsilon per mechanism; markers, line styles and small offsets
    keep every curve visible where several coincide."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    eps = np.asarray(epsilons, dtype=float)
    mechanisms = sorted(TREE_MECHANISMS)
    n = len(mechanisms)
    # Sideways: a fraction of the smallest gap between budgets (log scale), so the
    # groups of markers never overlap; vertically: a small stagger, said on the axis.
    gap = np.min(np.diff(np.log10(eps))) if eps.size > 1 else 1.0
    dx = min(0.025, 0.6 * gap / max(n - 1, 1))
    dy = 0.02
    legend_width = 2.0  # inches, right of the panels
    width = 4.6 * len(results) + legend_width
    fig, axes = plt.subplots(1, len(results), figsize=(width, 4.4), squeeze=False,
                             sharey=True)
    for ax, (name, result) in zip(axes[0], results.items()):
        for k, m in enumerate(mechanisms):
            aris, _, skipped = result["runs"][m]
            if skipped is not None:
                continue
            shift = k - (n - 1) / 2
            q1, med, q3 = np.percentile(aris, [25, 50, 75], axis=1)
            x = eps * 10 ** (dx * shift)
            label = f"{m} (auto)" if m == result["auto"] else m
            ax.errorbar(x, med + dy * shift, yerr=[med - q1, q3 - med],
                        marker=_MARKERS[k % len(_MARKERS)], ms=6, mfc="none", mew=1.5,
                        ls=_STYLES[k % len(_STYLES)], lw=1.6, capsize=2.5, label=label,
                        color=f"C{k}")
        ax.set_xscale("log")
        ax.set_xticks(eps)
        ax.set_xticklabels([f"{e:g}" for e in eps])
        ax.minorticks_off()
        ax.set_xlim(eps[0] / 10 ** (0.15 + dx * n / 2), eps[-1] * 10 ** (0.15 + dx * n / 2))
        ax.set_ylim(-0.15, 1.15)
        ax.grid(alpha=0.3)
        ax.set_xlabel("epsilon (privacy budget)")
        ax.set_title(f"{name}: {result['n_nodes']} nodes, {neighborhood}, sensitivity "
                     f"{SENSITIVITY:g}\nwithout privacy: ARI {_ari(result['exact_ari'])}",
                     fontsize="medium")
    axes[0, 0].set_ylabel(f"ARI, median of {n_runs} release{'s' if n_runs > 1 else ''} "
                          "(bars: quartiles)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize="small", frameon=False,
               title="tree mechanism", title_fontsize="small")
    note = (f"Each curve is shifted by up to {dy * (n - 1) / 2:.2f} vertically and a little "
            "sideways so that none hides another.")
    fig.text(0.01, 0.015, textwrap.fill(note, int(width * 13)), fontsize="small",
             color="0.3", va="bottom")
    fig.tight_layout(rect=(0, 0.07, 1 - legend_width / width, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------

def _seed(text):
    """``text`` as a seed (an integer >= 0), or an argparse error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0; got {text!r}")
    return value


def _positive(kind, text):
    """``text`` as a positive ``kind`` (float: finite), or an argparse error."""
    what = "an integer" if kind is int else "a number"
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
    if kind is int and value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1; got {text!r}")
    if kind is float and not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0; got {text!r}")
    return value


def _positive_float(text):
    return _positive(float, text)


def _positive_int(text):
    return _positive(int, text)


_DESCRIPTION = """\
Cluster built-in data with DBMSTClu, without and with differential privacy,
and print how well each method recovers the true clusters.

1. DBMSTClu on two moons and two concentric circles (point clouds), no privacy.
2. The UAI 2018 paper's moons and circles graphs: DBMSTClu without privacy,
   then PrivateMSTClustering with every private tree mechanism at a few
   privacy budgets (epsilon); each private result is the median of a few
   releases.
3. A summary: which mechanism recovers the clusters at the smallest budget.

Every term the output uses (weight-DP, neighbours, sensitivity, epsilon,
DBCVI, ARI) is explained in one sentence where it first appears."""

_EPILOG = """\
The releases use fixed seeds (--seed) so that the run repeats; a real
release uses random_state=None. The figure (--output) needs matplotlib:
pip install "skdpgraph[plot]"."""


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skdpgraph", description=_DESCRIPTION,
                                     epilog=_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-samples", type=_positive_int, default=100,
                        help=f"points (nodes) in every data set, at least {MIN_SAMPLES} "
                             "(default 100, the size of the paper's graphs)")
    parser.add_argument("--seed", type=_seed, default=0,
                        help="seed of the data and of the first release (default 0)")
    parser.add_argument("--epsilons", type=_positive_float, nargs="+", default=[1.0, 5.0, 20.0],
                        metavar="EPS", help="privacy budgets (default 1 5 20)")
    parser.add_argument("--runs", type=_positive_int, default=5,
                        help="releases per private result, of which the median is shown "
                             "(default 5)")
    parser.add_argument("--dataset", choices=("moons", "circles", "both"), default="both",
                        help="data to cluster (default both)")
    parser.add_argument("--neighborhood", choices=("l1", "linf"), default="l1",
                        help="which weights count as neighbours for the privacy guarantee: "
                             "l1, differences adding up to the sensitivity, or linf, every "
                             "weight moving by up to it (default l1)")
    parser.add_argument("--output", metavar="PNG", default=None,
                        help="write a figure of the median ARI against epsilon to this "
                             "PNG file")
    args = parser.parse_args(argv)
    if args.n_samples < MIN_SAMPLES:
        parser.error(f"argument --n-samples: must be at least {MIN_SAMPLES} (smaller UAI "
                     f"graphs are rarely connected inside each cluster); got {args.n_samples}")
    epsilons = sorted(set(args.epsilons))
    if args.output is not None:
        if not args.output.lower().endswith(".png"):
            parser.error(f"argument --output: the figure is a PNG file; got {args.output!r}")
        folder = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(folder):
            parser.error(f"argument --output: folder {folder!r} does not exist")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error('argument --output needs matplotlib: pip install "skdpgraph[plot]"')
    datasets = ("moons", "circles") if args.dataset == "both" else (args.dataset,)
    try:
        graphs = _uai_graphs(datasets, args.n_samples, args.seed)
    except RuntimeError as exc:
        parser.error(f"{exc} Try another --seed or a larger --n-samples.")

    print(f"skdpgraph {__version__}: clustering the nodes of a graph under differential "
          "privacy")
    _section_point_clouds(args.n_samples, args.seed, datasets)
    results = _section_private(graphs, epsilons, args.runs, args.seed, args.neighborhood)
    _heading(f"3. Summary, computed from the tables above (reaching a median ARI of "
             f"{RECOVERED} counts as recovering the clusters)")
    for line in _summary_lines(results, epsilons):
        _say(line)
    if args.output is not None:
        _write_figure(args.output, results, epsilons, args.neighborhood, args.runs)
        print(f"\nfigure written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
