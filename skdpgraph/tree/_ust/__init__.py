"""Exact samplers of the weighted uniform spanning tree.

* ``_elimination``: Gaussian elimination (star-mesh / Schur complements) and
  unwinding, dense or sparse, in float64 or log space; ``O(k^3)`` whatever
  the conductances.
* ``_cycle_popping``: Wilson's algorithm (loop-erased walks on pre-drawn
  stacks), with its successor sampler and the trap elimination that lets it
  always finish.
* ``_reductions``: pruning of improbable edges and the conductance-gap split,
  each moving the law by less than ``exp(-50)``.
* ``_sampler``: :func:`sample_weighted_ust`, which chains them, after setting
  apart the bridges (in every spanning forest: exact).
"""

