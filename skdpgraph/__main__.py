"""``python -m skdpgraph``: cluster built-in data and report the results.

1. DBMSTClu on two moons and concentric circles (point clouds made on the
   spot, complete Euclidean graphs).
2. The UAI 2018 experiment's graphs (homogeneous moons and circles, 100
   nodes, weights in (0, 1]): DBMSTClu, then PrivateMSTClustering with its
   default ``tree_mechanism="auto"`` (the mechanism it chose in brackets;
   see ``skdpgraph.tree.choose_tree_mechanism``) and with each registered
   tree mechanism, at a few privacy budgets, with weight-DP under l1
   neighbours (sensitivity 0.1, as in the paper). Each private row is the
   median over a few releases.

Every line prints the number of clusters found and the adjusted Rand index
(ARI) against the true labels. The releases use fixed seeds so that the demo
is reproducible; a real release uses ``random_state=None``.

Options choose the data (``--dataset``), the budgets (``--epsilons``), the
neighbourhood (``--neighborhood``) and the number of releases (``--runs``);
``--output FILE.png`` draws the median ARI against epsilon of every
mechanism (needs matplotlib, the ``plot`` extra). Progress goes to stderr,
as a tqdm bar when tqdm is installed (the ``progress`` extra), else as
plain lines.
"""

import argparse
import math
import sys
import warnings

import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from . import __version__
from .cluster import DBMSTClu, PrivateMSTClustering
from .datasets import make_homogeneous_circles, make_homogeneous_moons
from .tree import TREE_MECHANISMS


def _point_clouds(n_samples, seed, datasets):
    if "moons" in datasets:
        yield "two moons", make_moons(n_samples=n_samples, noise=0.05, random_state=seed)
    if "circles" in datasets:
        yield "circles", make_circles(n_samples=n_samples, noise=0.03, factor=0.4,
                                      random_state=seed)


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


def _summary(labels):
    sizes = np.bincount(labels)
    shown = ", ".join(str(s) for s in np.sort(sizes)[::-1][:4])
    return f"{sizes.size:>3} clusters (largest {shown}{', ...' if sizes.size > 4 else ''})"


def _private_rows(name, data, epsilons, n_runs, seed, neighborhood="l1"):
    """Print one row per (mechanism, epsilon); return ``{mechanism: ARIs (eps, runs)}``."""
    mechanisms = ["auto"] + sorted(TREE_MECHANISMS)
    out = {}
    progress = _Progress(len(mechanisms) * len(epsilons), name)
    for mechanism in mechanisms:
        out[mechanism] = np.full((len(epsilons), n_runs), np.nan)
        for i, eps in enumerate(epsilons):
            aris, ks = [], []
            for run in range(n_runs):
                model = PrivateMSTClustering(
                    epsilon=eps, sensitivity=0.1, neighborhood=neighborhood,
                    weight_bounds=(0.0, 1.0), tree_mechanism=mechanism,
                    metric="precomputed", random_state=seed + run)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # e.g. delta notes of (eps, delta) trees
                    try:
                        labels = model.fit_predict(data.graph)
                    except (TypeError, ValueError) as exc:  # mechanism needs other settings
                        print(f"{name:>10} | {mechanism:<18} | eps {eps:>5g} | skipped: {exc}")
                        break
                aris.append(adjusted_rand_score(data.labels, labels))
                ks.append(model.n_clusters_)
            else:
                out[mechanism][i] = aris
                shown = (mechanism if mechanism != "auto"
                         else f"auto ({model.tree_mechanism_})")
                print(f"{name:>10} | {shown:<18} | eps {eps:>5g} | "
                      f"median {np.median(ks):>5.1f} clusters | median ARI {np.median(aris) + 0.0:.3f}")
            progress.step(f"{mechanism}, eps {eps:g}")
    progress.close()
    return out


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


def _write_figure(path, curves, epsilons, neighborhood):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import plot_ari_vs_epsilon

    fig, axes = plt.subplots(1, len(curves), figsize=(5.2 * len(curves) + 2.4, 4.0),
                             squeeze=False, sharey=True)
    for ax, (name, runs) in zip(axes[0], curves.items()):
        plot_ari_vs_epsilon(epsilons, runs, ax=ax, legend=None)
        ax.set_title(f"{name}: UAI 2018 graph, {neighborhood}, sensitivity 0.1")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize="small")
    fig.tight_layout(rect=(0, 0, 1 - 2.0 / fig.get_figwidth(), 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skdpgraph",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=_positive_int, default=200,
                        help="points per point cloud (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and releases")
    parser.add_argument("--epsilons", type=_positive_float, nargs="+", default=[1.0, 5.0, 20.0],
                        metavar="EPS", help="privacy budgets (default 1 5 20)")
    parser.add_argument("--runs", type=_positive_int, default=5,
                        help="releases per private row (default 5)")
    parser.add_argument("--dataset", choices=("moons", "circles", "both"), default="both",
                        help="data to cluster (default both)")
    parser.add_argument("--neighborhood", choices=("l1", "linf"), default="l1",
                        help="weight-DP neighbourhood of the private releases (default l1)")
    parser.add_argument("--output", metavar="PNG", default=None,
                        help="write a summary figure (median ARI against epsilon) to this file")
    args = parser.parse_args(argv)
    if args.n_samples < 4:
        parser.error(f"argument --n-samples: must be at least 4; got {args.n_samples}")
    epsilons = sorted(set(args.epsilons))
    if args.output is not None:
        if not args.output.lower().endswith(".png"):
            parser.error(f"argument --output: the figure is a PNG file; got {args.output!r}")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error('argument --output needs matplotlib: pip install "skdpgraph[plot]"')
    datasets = ("moons", "circles") if args.dataset == "both" else (args.dataset,)
    print(f"skdpgraph {__version__}")
    print("\n1. DBMSTClu on point clouds (complete Euclidean graph)")
    for name, (X, y) in _point_clouds(args.n_samples, args.seed, datasets):
        model = DBMSTClu().fit(X)
        print(f"{name:>10} | DBMSTClu | {_summary(model.labels_)} | DBCVI {model.dbcvi_:.3f} "
              f"| ARI {adjusted_rand_score(y, model.labels_):.3f}")
    print(f"\n2. The UAI 2018 graphs: weight-DP, {args.neighborhood} neighbours, "
          "sensitivity 0.1, weights in (0, 1]")
    curves = {}
    makers = {"moons": make_homogeneous_moons, "circles": make_homogeneous_circles}
    for name in datasets:
        data = makers[name](random_state=args.seed)
        model = DBMSTClu(metric="precomputed").fit(data.graph)
        print(f"{name:>10} | {'DBMSTClu (exact)':<18} | {'':>9} | {_summary(model.labels_)} | "
              f"ARI {adjusted_rand_score(data.labels, model.labels_):.3f}")
        curves[name] = _private_rows(name, data, epsilons, args.runs, args.seed,
                                     args.neighborhood)
    if args.output is not None:
        _write_figure(args.output, curves, epsilons, args.neighborhood)
        print(f"\nfigure written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
