"""The module paths of the first release, kept for one release as re-exports.

Each old module (``skdpgraph.accounting``, ``skdpgraph.spanning_tree``, ...)
calls :func:`reexport` with its own name: the names it used to define are
copied from their new home and a ``DeprecationWarning`` says where they live
now.
"""

import importlib
import sys
import warnings

#: old module -> {new home: names}
MOVED = {
    "accounting": {"privacy": ["BudgetAccountant", "BudgetError", "PrivacyLeakWarning",
                               "pure_to_zcdp", "exponential_mechanism_zcdp", "gaussian_zcdp",
                               "zcdp_to_approx_dp", "approx_dp_to_zcdp"]},
    "mechanisms": {"privacy": ["NEIGHBORHOODS", "check_epsilon", "check_sensitivity",
                               "check_neighborhood", "release_sensitivity", "laplace_scale",
                               "gaussian_sigma"]},
    "spanning_tree": {"tree": ["SpanningTree", "minimum_spanning_tree", "pamst",
                               "laplace_mst", "release_tree_weights"],
                      "privacy": ["pamst_step_epsilon", "weight_release_noise",
                                  "normalize_weights"]},
    "perturbation": {"edge_dp": ["EdgeFlipPerturbation", "dp_density", "flip_edges",
                                 "graph_density", "pig_epsilon", "pig_s_from_epsilon",
                                 "suggest_s"],
                     "utils": ["check_adjacency"]},
    "theory": {"metrics": ["pamst_error_bound", "laplace_mst_error_bound",
                           "partitioning_topology_probability",
                           "order_preservation_probability"],
               "edge_dp": ["pig_epsilon", "pig_min_s", "pig_expected_edges",
                           "pig_expected_density"]},
    "homogeneity": {"metrics": ["HomogeneityResult", "check_homogeneity",
                                "mst_eligible_edges"]},
}


def reexport(module_name):
    """Fill the deprecated module ``module_name`` with its names, and warn."""
    old = module_name.rsplit(".", 1)[-1]
    module = sys.modules[module_name]
    names = []
    for home, moved in MOVED[old].items():
        new = importlib.import_module(f"skdpgraph.{home}")
        for name in moved:
            setattr(module, name, getattr(new, name))
        names += moved
    module.__all__ = names
    homes = " and ".join(f"skdpgraph.{home}" for home in MOVED[old])
    warnings.warn(f"skdpgraph.{old} is deprecated; import from {homes}.",
                  DeprecationWarning, stacklevel=3)
