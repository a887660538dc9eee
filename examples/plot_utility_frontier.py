"""
The utility frontier: ARI against epsilon for every private tree
================================================================

For every tree mechanism of :class:`~skdpgraph.cluster.PrivateMSTClustering`
(each with its natural accounting: pure ``epsilon``-DP, or
``(epsilon, 1e-6)``-DP through zCDP), both neighbourhoods and a grid of
``epsilon``, the adjusted Rand index of the release against the
non-private output (exact MST + DBMSTClu, which on these graphs is the true
labelling) on the UAI paper's 100-node homogeneous moons and circles, with
``mu = 0.01`` and half of the budget on the tree. One panel per graph and
neighbourhood; median over 5 releases with quartile bands
(:func:`skdpgraph.plotting.plot_ari_vs_epsilon`).

This is a reduced grid that runs in well under a minute: the full frontier
(100- and 1,000-node graphs, an epsilon-graph of the digits, three values of
``mu``, 13 epsilons, 20 releases per point, thresholds refined by
bisection, about an hour on two cores) is
``python benchmarks/frontier.py --n-jobs 2`` (``--scheduler ADDRESS`` runs
it on a Dask cluster), and its results are tabulated in
:doc:`/private_trees`, section 4.

**Where this differs from the UAI paper.** The paper shows PTClust (PAMST)
working at ``epsilon <= 1``; with honest calibrations it is the weakest
mechanism here. On this grid (one run), under ``l1`` Laplace-MST reaches a
median ARI of 0.9 at ``epsilon = 0.3`` on both graphs, where PTClust needs
100 on the circles and does not reach it by 100 on the moons; under
``linf`` input perturbation under zCDP leads (10 on the circles, 30 on the
moons, tied there with noisy-max Prim) and PTClust needs 100 or more (see
:doc:`/privacy`, section 6).
"""

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import adjusted_rand_score

from skdpgraph.cluster import DBMSTClu, PrivateMSTClustering
from skdpgraph.datasets import make_homogeneous_circles, make_homogeneous_moons
from skdpgraph.plotting import plot_ari_vs_epsilon

start = time.perf_counter()
EPSILONS = np.array([0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0])
MU = 0.01
RUNS = 5
DELTA = 1e-6
SETTINGS = (
    ("PTClust-PAMST", "pamst", "pure"),
    ("Laplace-MST", "laplace", "pure"),
    ("Exponential", "exponential", "pure"),
    ("Exponential (zCDP)", "exponential", "zcdp"),
    ("Noisy-max Prim (zCDP)", "noisy_max_prim", "zcdp"),
    ("Input perturbation (zCDP)", "input_perturbation", "zcdp"),
)
GRAPHS = {"moons": make_homogeneous_moons(random_state=0),
          "circles": make_homogeneous_circles(random_state=0)}


def ari_runs(graph, reference, mechanism, accounting, neighborhood):
    out = np.empty((EPSILONS.size, RUNS))
    for i, eps in enumerate(EPSILONS):
        for r in range(RUNS):
            model = PrivateMSTClustering(
                epsilon=eps, sensitivity=MU, neighborhood=neighborhood,
                weight_bounds=(0.0, 1.0), accounting=accounting,
                delta=DELTA if accounting == "zcdp" else None, tree_mechanism=mechanism,
                metric="precomputed", random_state=1000 * i + r)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[i, r] = adjusted_rand_score(reference, model.fit_predict(graph))
    return out


results = {}
for name, data in GRAPHS.items():
    reference = DBMSTClu(metric="precomputed").fit_predict(data.graph)
    for neighborhood in ("l1", "linf"):
        results[name, neighborhood] = {
            label: ari_runs(data.graph, reference, mech, acc, neighborhood)
            for label, mech, acc in SETTINGS}

# %%
# One panel per graph and neighbourhood; legend outside on the right
fig, axes = plt.subplots(2, 2, figsize=(12, 7.5), sharex=True, sharey=True)
for ax, ((name, neighborhood), curves) in zip(axes.ravel(), results.items()):
    plot_ari_vs_epsilon(EPSILONS, curves, ax=ax, legend=None)
    ax.axhline(0.9, color="grey", lw=0.6, ls=":")
    ax.set_title(f"{name} (100 nodes), {neighborhood}, mu={MU}")
handles, labels = axes[0, 0].get_legend_handles_labels()
fig.legend(handles, labels, loc="center left", bbox_to_anchor=(0.8, 0.5), fontsize="small")
fig.tight_layout(rect=(0, 0, 0.8, 1))

# %%
# The smallest grid epsilon whose median ARI reaches 0.9
for (name, neighborhood), curves in results.items():
    print(f"{name}, {neighborhood}:")
    for label, arr in curves.items():
        hit = np.flatnonzero(np.median(arr, axis=1) >= 0.9)
        print(f"   {label:27s} {EPSILONS[hit[0]] if hit.size else '-'}")
print(f"({RUNS} releases per point, {time.perf_counter() - start:.1f} s)")
