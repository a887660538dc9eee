"""
Thesis, Section 4.3: clustering an epsilon-graph from Laplace-MST and PAMST
===========================================================================

Pinot's thesis (Section 4.3, Figures 4.3-4.5) samples 1,000 points on
arbitrary shapes with Gaussian noise of standard deviation 1, builds an
epsilon-graph of their Euclidean distances (Figure 4.3) and clusters it
with DBMSTClu on a private tree at ``epsilon = 0.1``, half of the budget on
the topology and half on the weights: from a Laplace-MST the clustering
fails (Figure 4.4), from a PAMST tree it is convincing (Figure 4.5).

Here: two moons of radius 25 (700 points) and a blob (300 points), noise
1, an :class:`~skdpgraph.graphs.EpsilonGraph` of radius 5 with public
weight bounds ``(0, 5)``, and both trees under two calibrations:

* **the thesis's**: PAMST with sensitivity ``1 / |E|``, Laplace noise of
  scale ``1 / epsilon`` on every weight; both are exactly ``epsilon``-DP for
  ``linf`` neighbours with ``mu = 1 / |E|`` (every weight moves by at most
  ``1 / |E|``), which is ``neighborhood="linf", sensitivity=1/|E|`` here;
* **one fixed neighbourhood**: ``l1`` with ``mu = 1`` (the distances move
  by at most one unit in total), for both trees.

**Why the library's figure differs from the thesis's.** The thesis's
contrast is reproduced under its own calibration (at ``epsilon = 0.1``,
median ARI 0.00 from Laplace-MST, 0.61 from PAMST, over 10 releases), but
that neighbourhood shrinks as the graph grows (``mu = 1 / |E|``, about
``3e-5`` here); with one fixed ``l1`` neighbourhood of ``mu = 1``, PAMST's
999 steps share the budget and its tree is nearly random (median ARI 0.01
at ``epsilon = 0.1``, 0.10 at 1), while Laplace-MST recovers the clusters
from ``epsilon = 1`` (median ARI 0.99; the same
reversal as in the thesis's Table 3.1, see :doc:`/graphs`). The epsilon-graph
is built from the private distances, so its topology is not covered by the
guarantee (see :doc:`/user_guide`).
"""

# %%
# The data and its epsilon-graph (Figure 4.3)
# -------------------------------------------
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs, make_moons
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import DBMSTClu, PrivateMSTClustering
from skdpgraph.graphs import EpsilonGraph
from skdpgraph.plotting import plot_graph

start = time.perf_counter()
rng = np.random.default_rng(0)
X_moons, y_moons = make_moons(700, noise=0.0, random_state=0)
X_moons = 25 * X_moons + rng.normal(0.0, 1.0, X_moons.shape)
X_blob, _ = make_blobs(300, centers=[[65.0, 30.0]], cluster_std=3.0, random_state=0)
X = np.vstack([X_moons, X_blob])
y = np.r_[y_moons, np.full(300, 2)]
RADIUS = 5.0
graph = EpsilonGraph(radius=RADIUS).fit_transform(X)
n_edges = graph.nnz // 2
exact = DBMSTClu(metric="precomputed").fit(graph)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
plot_graph(graph, X, y, ax=axes[0], node_size=6, edge_alpha=0.25)
axes[0].set_title(f"epsilon-graph, radius {RADIUS:g}: {graph.shape[0]} nodes, "
                  f"{n_edges} edges")
plot_graph(None, X, exact.labels_, tree=exact.tree_, cut_edges=exact.cut_edges_, ax=axes[1],
           node_size=6)
axes[1].set_title(f"DBMSTClu on the exact MST: {exact.n_clusters_} clusters, ARI "
                  f"{adjusted_rand_score(y, exact.labels_):.2f}")
fig.tight_layout()

# %%
# Laplace-MST against PAMST (Figures 4.4 and 4.5)
# -----------------------------------------------
# Each panel is one release (fixed seed, for reproducibility only); its
# title gives the ARI of that release and the median over 10 releases.

CALIBRATIONS = (
    ("thesis: linf, mu=1/|E|", "linf", 1.0 / n_edges),
    ("one neighbourhood: l1, mu=1", "l1", 1.0),
)
CELLS = [(mech, eps) for eps in (0.1, 1.0) for mech in ("laplace", "pamst")]
NAMES = {"laplace": "Laplace-MST", "pamst": "PAMST"}


def fit(neighborhood, mu, mechanism, epsilon, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PrivateMSTClustering(
            epsilon=epsilon, sensitivity=mu, neighborhood=neighborhood,
            weight_bounds=(0.0, RADIUS), tree_mechanism=mechanism, metric="precomputed",
            random_state=seed).fit(graph)


rows = []
fig, axes = plt.subplots(2, 4, figsize=(16, 7.5))
for r, (title, neighborhood, mu) in enumerate(CALIBRATIONS):
    for c, (mechanism, eps) in enumerate(CELLS):
        models = [fit(neighborhood, mu, mechanism, eps, seed) for seed in range(10)]
        aris = [adjusted_rand_score(y, m.labels_) for m in models]
        model = models[0]
        rows.append((title, NAMES[mechanism], eps, aris[0], np.median(aris),
                     int(np.median([m.n_clusters_ for m in models]))))
        ax = axes[r, c]
        plot_graph(None, X, model.labels_, tree=model.tree_, ax=ax, node_size=5)
        ax.set_title(f"{NAMES[mechanism]}, eps={eps:g}\n{model.n_clusters_} clusters, ARI "
                     f"{aris[0]:.2f} (median {np.median(aris):.2f})", fontsize=9)
    axes[r, 0].set_ylabel(title)
fig.suptitle("DBMSTClu on a private tree (half of the budget on the topology for PAMST)")
fig.tight_layout()

# %%
# The numbers
# -----------
print(f"non-private: {exact.n_clusters_} clusters, ARI {adjusted_rand_score(y, exact.labels_):.3f}")
for title, mech, eps, ari, med, k in rows:
    print(f"{title:30s} {mech:12s} eps={eps:<4g} ARI {ari:5.2f}  median ARI {med:5.2f}  "
          f"median clusters {k}")
print(f"({time.perf_counter() - start:.1f} s)")
