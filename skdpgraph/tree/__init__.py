"""Spanning trees, exact and private.

* :class:`SpanningTree` and :func:`minimum_spanning_tree` (exact, not private).
* The private tree mechanisms of weight-DP, all with one signature (see
  :mod:`skdpgraph.tree` 's registry, :data:`TREE_MECHANISMS`):
  :func:`pamst`, :func:`laplace_mst`, :func:`exponential_tree`,
  :func:`input_perturbation_tree`, :func:`noisy_max_prim_tree`; and
  :func:`release_tree_weights` (Weight-Release) for a released topology;
  :func:`choose_tree_mechanism`, the rule behind ``tree_mechanism="auto"``.
* :func:`sample_weighted_ust`: the exact weighted uniform spanning tree
  sampler behind :func:`exponential_tree`.

The private functions release and charge no accountant (the estimators, and
:func:`skdpgraph.cluster.private_mst_clustering`, do): their caller charges
one first, with ``accountant.spend(epsilon, delta)``.
"""

from ._base import SpanningTree, check_tree, make_spanning_tree
from ._exponential import exponential_tree
from ._input_perturbation import input_perturbation_tree
from ._laplace_mst import laplace_mst
from ._mst import minimum_spanning_tree, tree_from_graph
from ._noisy_max_prim import noisy_max_prim_tree
from ._pamst import pamst
from ._rooted import RootedForest, path_max, root_forest
from ._registry import (
                        TREE_MECHANISMS,
                        TreeMechanism,
                        choose_tree_mechanism,
                        get_tree_mechanism,
                        register_tree_mechanism,
                        check_tree_release,
                        finish_tree_release,
                        release_private_tree,
)
from ._ust._sampler import UST_METHODS, sample_weighted_ust, ust_delta
from ._weight_release import release_tree_weights

__all__ = [
    "SpanningTree",
    "make_spanning_tree",
    "RootedForest",
    "root_forest",
    "path_max",
    "check_tree",
    "minimum_spanning_tree",
    "tree_from_graph",
    "pamst",
    "laplace_mst",
    "exponential_tree",
    "input_perturbation_tree",
    "noisy_max_prim_tree",
    "release_tree_weights",
    "TREE_MECHANISMS",
    "TreeMechanism",
    "get_tree_mechanism",
    "choose_tree_mechanism",
    "register_tree_mechanism",
    "release_private_tree",
    "check_tree_release",
    "finish_tree_release",
    "sample_weighted_ust",
    "ust_delta",
    "UST_METHODS",
]
