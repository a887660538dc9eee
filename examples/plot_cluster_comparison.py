"""
Which clusterer for which data: DBMSTClu, private and not, beside scikit-learn's
================================================================================

The six toy data sets of scikit-learn's clustering comparison (noisy circles,
noisy moons, blobs with varied variances, anisotropic blobs, blobs, and no
structure at all), 500 points each, standardised, clustered by

* ``DBMSTClu``: the complete graph of Euclidean distances, its minimum
  spanning tree cut where the DBCVI rises; no parameters, no privacy;
* ``PrivateMSTClustering`` at ``epsilon`` 1, 4 and 16, also on the complete
  graph of the features (what ``fit(X)`` builds: every pair is an edge, so
  the topology is public and only the distances are protected), with the
  default ``tree_mechanism="auto"`` (Laplace-MST here), weight-DP with
  ``l1`` neighbours, ``sensitivity=0.1`` (in the units of the standardised
  features; one protected person moves the distances by at most 0.1 in
  total) and public ``weight_bounds=(0, 8)`` (every distance here is below
  6.1). Each private panel shows the release with the median ARI of 3
  (seeds 0, 1, 2; a real release uses ``random_state=None``);
* scikit-learn's ``HDBSCAN`` (default parameters), ``KMeans`` and
  ``SpectralClustering`` (``affinity="nearest_neighbors"``); the last two
  are given the true number of clusters (3 for the set without structure),
  the others find it.

Each panel gives the adjusted Rand index against the true labels, the
number of clusters found and the fit time (for the private panels, the mean
over the three releases). Clusters of fewer than 5 points
are drawn as black crosses, HDBSCAN's noise points as grey dots. On the set
without structure the truth is one cluster, so the ARI is 1 only for a
method that finds one.

What it shows (the table printed below has the numbers of this run):
DBMSTClu, like every single-linkage method, separates clusters of any shape
as long as a gap of low density runs between them (circles, moons: ARI 1).
It fails where clusters touch: on the varied and anisotropic blobs the
longest edges of the tree lead to outliers, so it cuts off single points
(ARI 0). And it cuts only where a gap is long against the longest edges
inside the clusters it separates: on the blobs the two upper blobs are 0.49
apart in the tree while one of them has an inner edge of 0.29, so the DBCVI
of the three blobs (0.65) is below that of two clusters (0.75), and it stops
at two. On the set without
structure it cuts off a few points, where one cluster is right.

The private clusterings follow DBMSTClu from ``epsilon = 4``. At
``epsilon = 1`` Laplace-MST adds noise of scale ``sensitivity / epsilon =
0.1`` to every distance, about the distance between neighbouring points:
the tree then has a few false long edges, and the cut lands on one of them
(a single point cut off the circles; on the moons a few points in some
releases). What matters is ``epsilon / sensitivity``: doubling the
sensitivity costs what halving ``epsilon`` does.

HDBSCAN and spectral clustering, which use densities and neighbourhoods
rather than one tree, handle the touching blobs; KMeans, told the number of
clusters, wins on round blobs only.

Run: ``python examples/plot_cluster_comparison.py`` (about 10 s of CPU).
"""

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn import cluster, datasets
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from skdpgraph import DBMSTClu, PrivateMSTClustering

N_SAMPLES = 500
EPSILONS = (1.0, 4.0, 16.0)
SENSITIVITY = 0.1
WEIGHT_BOUNDS = (0.0, 8.0)
SEEDS = (0, 1, 2)
SMALL = 5  # clusters of fewer points are drawn as crosses


def toy_data_sets(n_samples=N_SAMPLES, seed=170):
    """The six data sets, as ``{name: (X, y)}``, features standardised."""
    X_blobs, y_blobs = datasets.make_blobs(n_samples, random_state=seed)
    out = {
        "noisy circles": datasets.make_circles(n_samples, factor=0.5, noise=0.05,
                                               random_state=seed),
        "noisy moons": datasets.make_moons(n_samples, noise=0.05, random_state=seed),
        "varied variances": datasets.make_blobs(n_samples, cluster_std=[1.0, 2.5, 0.5],
                                                random_state=seed),
        "anisotropic": (X_blobs @ np.array([[0.6, -0.6], [-0.4, 0.8]]), y_blobs),
        "blobs": datasets.make_blobs(n_samples, random_state=8),
        "no structure": (np.random.default_rng(seed).random((n_samples, 2)),
                         np.zeros(n_samples, dtype=np.int64)),
    }
    return {name: (StandardScaler().fit_transform(X), y) for name, (X, y) in out.items()}


def fit_timed(model, X):
    start = time.perf_counter()
    labels = model.fit_predict(X)
    return labels, time.perf_counter() - start


def clusterings(X, y):
    """``{method: (labels, seconds)}``; for the private ones the median-ARI release."""
    k = len(np.unique(y)) if len(np.unique(y)) > 1 else 3  # 3: a guess, as a user makes
    out = {"DBMSTClu": fit_timed(DBMSTClu(), X)}
    for eps in EPSILONS:
        releases = []
        for seed in SEEDS:
            model = PrivateMSTClustering(epsilon=eps, sensitivity=SENSITIVITY,
                                         weight_bounds=WEIGHT_BOUNDS, random_state=seed)
            releases.append(fit_timed(model, X))
        releases.sort(key=lambda r: adjusted_rand_score(y, r[0]))
        labels = releases[len(releases) // 2][0]
        out[f"private, eps {eps:g}"] = (labels, np.mean([t for _, t in releases]))
    out["HDBSCAN"] = fit_timed(cluster.HDBSCAN(copy=True), X)
    out["KMeans"] = fit_timed(cluster.KMeans(k, random_state=0), X)
    with warnings.catch_warnings():
        # Spectral clustering warns when its nearest-neighbour graph is not
        # fully connected (the two circles); it still clusters.
        warnings.filterwarnings("ignore", message="Graph is not fully connected")
        out["Spectral"] = fit_timed(cluster.SpectralClustering(
            k, affinity="nearest_neighbors", random_state=0), X)
    return out


def ari(y, labels):
    """The ARI with two decimals, never "-0.00"."""
    return f"{round(adjusted_rand_score(y, labels), 2) + 0.0:.2f}"


def n_clusters(labels):
    return len(set(labels.tolist()) - {-1})


def draw(ax, X, labels):
    colors = plt.get_cmap("tab10").colors
    noise = labels == -1
    sizes = np.bincount(labels[~noise]) if np.any(~noise) else np.zeros(0, dtype=int)
    small = np.zeros(labels.size, dtype=bool)
    small[~noise] = sizes[labels[~noise]] < SMALL
    big = ~noise & ~small
    ax.scatter(X[big, 0], X[big, 1], s=4, lw=0,
               c=[colors[c % len(colors)] for c in labels[big]])
    ax.scatter(X[noise, 0], X[noise, 1], s=4, lw=0, c="0.7")
    ax.scatter(X[small, 0], X[small, 1], s=40, marker="x", lw=1.5, c="k")
    ax.set_xticks(())
    ax.set_yticks(())


start = time.perf_counter()
data = toy_data_sets()
results = {name: clusterings(X, y) for name, (X, y) in data.items()}
methods = list(next(iter(results.values())))

fig, axes = plt.subplots(len(data), len(methods), figsize=(1.9 * len(methods), 1.9 * len(data)))
for i, (name, (X, y)) in enumerate(data.items()):
    for j, method in enumerate(methods):
        labels, seconds = results[name][method]
        ax = axes[i, j]
        draw(ax, X, labels)
        ax.text(0.99, 0.01, f"ARI {ari(y, labels)}, "
                f"{n_clusters(labels)} cl.\n{seconds:.2f} s", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=7,
                bbox=dict(facecolor="white", alpha=0.8, lw=0, pad=1))
        if i == 0:
            ax.set_title(method, fontsize=9)
        if j == 0:
            ax.set_ylabel(name, fontsize=9)
fig.tight_layout(h_pad=0.4, w_pad=0.4)

# %%
# The numbers: ARI (clusters found) per data set and method; the private
# columns give the release with the median ARI of the three.

width = max(len(m) for m in methods) + 2
print(f"{'data set':<18}" + "".join(f"{m:>{width}}" for m in methods))
for name, (X, y) in data.items():
    cells = []
    for method in methods:
        labels, _ = results[name][method]
        cells.append(f"{ari(y, labels)} ({n_clusters(labels)})")
    print(f"{name:<18}" + "".join(f"{c:>{width}}" for c in cells))
print(f"\n{time.perf_counter() - start:.1f} s in all")
plt.show()
