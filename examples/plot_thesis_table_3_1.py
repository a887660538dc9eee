"""
Thesis, Table 3.1: MST error of PAMST and Laplace-MST, as a plot
================================================================

Pinot's thesis (Section 3.6, Table 3.1) compares the error
``w(T) - w(MST)`` (true weights) of the tree released by PAMST and by
Laplace-MST on Erdos-Renyi graphs ``G(1000, p)`` with U(0, 10) weights, for
``p`` in {0.1, 0.3, 0.5, 0.7, 0.9} and ``epsilon`` in {0.1, 0.4, 0.7, 1.0}.
This script reruns it with 4 graphs per ``p`` (the thesis used 100; the
full rerun is ``python benchmarks/table_3_1.py``, about 400 s) and draws
the mean error (bars: one standard deviation over the graphs, which is what
the thesis's "+-" values match) beside the thesis's values (crosses):

* Laplace-MST, scale ``1 / epsilon`` on every weight (``l1``, ``mu = 1``);
* PAMST with the thesis's calibration, ``Delta u = 1 / |E|`` (table A of
  ``benchmarks/table_3_1.py``): both it and the Laplace baseline are exactly
  ``epsilon``-DP for ``linf`` neighbours with ``mu = 1 / |E|``;
* PAMST in the Laplace baseline's own neighbourhood, ``l1`` with ``mu = 1``
  (table B).

**Where the library's result differs from the table.** The thesis's
numbers are reproduced within their spread (for ``p = 0.7`` the thesis
prints the PAMST row of ``p = 0.5`` at ``epsilon`` 0.1 and 0.4; the rerun
gives lower errors, in line with the other rows), but the thesis reads
PAMST's win as a win in the Laplace baseline's ``l1`` neighbourhood, where
its PAMST is only ``|E| epsilon``-DP: calibrated for ``l1`` with ``mu = 1``,
PAMST's tree is close to a random Prim tree and Laplace-MST wins every cell
(see :doc:`/graphs`, "Thesis Table 3.1").
"""

import math
import time

import matplotlib.pyplot as plt
import numpy as np

from skdpgraph.datasets import make_weighted_erdos_renyi
from skdpgraph.tree import laplace_mst, minimum_spanning_tree, pamst

PS = (0.1, 0.3, 0.5, 0.7, 0.9)
EPSILONS = (0.1, 0.4, 0.7, 1.0)
N_GRAPHS = 4
# Table 3.1 of the thesis: mean error per epsilon.
THESIS = {
    ("Laplace", 0.1): [4055.5, 2191.2, 1301.9, 876.4],
    ("PAMST", 0.1): [322.3, 45.7, 16.8, 8.5],
    ("Laplace", 0.3): [4139.3, 2280.1, 1384.5, 965.0],
    ("PAMST", 0.3): [108.7, 15.2, 5.6, 2.8],
    ("Laplace", 0.5): [4152.8, 2298.4, 1396.2, 975.7],
    ("PAMST", 0.5): [64.7, 9.1, 3.4, 1.7],
    ("Laplace", 0.7): [4151.0, 2291.3, 1400.4, 979.6],
    ("PAMST", 0.7): [64.7, 9.1, 2.4, 1.2],
    ("Laplace", 0.9): [4159.6, 2297.9, 1408.3, 983.8],
    ("PAMST", 0.9): [36.2, 5.0, 1.9, 0.9],
}
METHODS = ("Laplace-MST (l1, mu=1)", "PAMST, thesis (linf, mu=1/|E|)", "PAMST (l1, mu=1)")

start = time.perf_counter()
rng = np.random.default_rng(0)
errors = np.zeros((len(PS), len(METHODS), len(EPSILONS), N_GRAPHS))
for i, p in enumerate(PS):
    for g in range(N_GRAPHS):
        graph = make_weighted_erdos_renyi(1000, p, random_state=rng).graph
        m = graph.nnz // 2
        best = math.fsum(minimum_spanning_tree(graph).weights.tolist())
        for j, eps in enumerate(EPSILONS):
            lap = laplace_mst(graph, eps, sensitivity=1.0, neighborhood="l1", random_state=rng,
                              check_input=False)
            # true weights of the released edges
            errors[i, 0, j, g] = float(np.asarray(graph[lap.edges[:, 0],
                                                        lap.edges[:, 1]]).sum()) - best
            # PAMST returns the true weights of its edges
            errors[i, 1, j, g] = pamst(graph, eps, sensitivity=1.0 / m, neighborhood="linf",
                                       random_state=rng, check_input=False).weights.sum() - best
            errors[i, 2, j, g] = pamst(graph, eps, sensitivity=1.0, neighborhood="l1",
                                       random_state=rng, check_input=False).weights.sum() - best

# %%
# One panel per edge probability ``p``; log scale. Crosses: the thesis.
fig, axes = plt.subplots(1, len(PS), figsize=(17, 3.8), sharey=True)
colors = ("tab:blue", "tab:orange", "tab:green")
for i, (p, ax) in enumerate(zip(PS, axes)):
    for k, (label, color) in enumerate(zip(METHODS, colors)):
        mean = errors[i, k].mean(axis=1)
        sd = errors[i, k].std(axis=1, ddof=1)
        ax.errorbar(EPSILONS, mean, yerr=sd, marker="o", ms=4, capsize=3, color=color,
                    label=label)
    ax.plot(EPSILONS, THESIS[("Laplace", p)], "x", color=colors[0], ms=8,
            label="thesis, Laplace")
    ax.plot(EPSILONS, THESIS[("PAMST", p)], "x", color=colors[1], ms=8, label="thesis, PAMST")
    ax.set_yscale("log")
    ax.set_title(f"G(1000, {p})")
    ax.set_xlabel("epsilon")
    ax.grid(alpha=0.3, which="both")
axes[0].set_ylabel("w(T) - w(MST)")
axes[-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small")
fig.tight_layout()

# %%
# The numbers (mean over the graphs; thesis in brackets)
for i, p in enumerate(PS):
    for k, label in enumerate(METHODS):
        ref = THESIS.get(("Laplace" if k == 0 else "PAMST", p)) if k < 2 else None
        cells = "  ".join(
            f"{errors[i, k, j].mean():8.1f}" + (f" [{ref[j]:7.1f}]" if ref else "")
            for j in range(len(EPSILONS)))
        print(f"p={p}  {label:32s} {cells}")
print(f"({N_GRAPHS} graphs per p, {time.perf_counter() - start:.1f} s)")
