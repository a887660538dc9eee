"""Differential-privacy primitives, with no knowledge of graphs.

* Calibrations: the only place where a neighbourhood becomes a sensitivity
  and a budget becomes a noise scale or a per-step budget
  (:func:`release_sensitivity`, :func:`laplace_scale`,
  :func:`gaussian_sigma`, :func:`pamst_step_epsilon`, ...), and the budget
  from which a tree release carries signal (:func:`signal_epsilon`).
* Composition and accounting: :class:`BudgetAccountant`, the zCDP
  conversions, :func:`plan_tree_release`, and :func:`prepay_search` for
  searches whose fits run in worker processes.
* Public weight bounds: :func:`check_weight_bounds`,
  :func:`normalize_weights` (the warnings live in :mod:`skdpgraph.exceptions`).
* Noise that is safe in floating point: exact discrete Laplace and Gaussian
  samplers and releases on a public grid; exact coins for randomized
  response at any rate (:func:`randomized_response_rates`).
"""

from ._accounting import (
                         BudgetAccountant,
                         approx_dp_to_zcdp,
                         charge,
                         exponential_mechanism_epsilon,
                         exponential_mechanism_zcdp,
                         gaussian_zcdp,
                         pure_to_zcdp,
                         zcdp_to_approx_dp,
)
from ._bernoulli import (
                         RandomizedResponseRates,
                         bernoulli_process,
                         bernoulli_words,
                         randomized_response_loss,
                         randomized_response_rates,
)
from ._bounds import (
                         check_weight_bounds,
                         clip_to_bounds,
                         data_weight_bounds,
                         normalize_weights,
                         warn_out_of_bounds,
)
from ._calibration import (
                         INPUT_NOISES,
                         TREE_NOISE_MECHANISMS,
                         bit_vote_scale,
                         edge_flip_epsilon,
                         edge_flip_s,
                         edge_product_sensitivity,
                         exponential_tree_scale,
                         gaussian_sigma,
                         halving_exactly,
                         input_perturbation_scale,
                         laplace_mst_scale,
                         laplace_scale,
                         noisy_max_prim_scale,
                         noisy_power_budget,
                         pamst_step_epsilon,
                         randomized_response_probability,
                         release_sensitivity,
                         resolve_budget,
                         SIGNAL_SHARE,
                         selection_spread,
                         signal_allowance,
                         signal_epsilon,
                         tree_release_noise,
                         vote_scale,
                         weight_release_noise,
)
from ._composition import (
                         BudgetPlan,
                         LabelPropagationPlan,
                         plan_label_propagation,
                         plan_tree_release,
)
from ._noise import (
                         MAX_SCALE,
                         MIN_SCALE,
                         GridRelease,
                         discrete_gaussian,
                         discrete_laplace,
                         grid_for,
                         release_gaussian,
                         release_laplace,
)
from ._samplers import standard_exponential, standard_gumbel
from ._search import PrepaidBudget, prepay, prepay_search
from ._validation import (
                         NEIGHBORHOODS,
                         check_delta,
                         check_epsilon,
                         check_neighborhood,
                         check_rho,
                         check_sensitivity,
)

__all__ = [
    "BudgetAccountant",
    "charge",
    "prepay",
    "prepay_search",
    "PrepaidBudget",
    "pure_to_zcdp",
    "exponential_mechanism_zcdp",
    "exponential_mechanism_epsilon",
    "gaussian_zcdp",
    "zcdp_to_approx_dp",
    "approx_dp_to_zcdp",
    "BudgetPlan",
    "plan_tree_release",
    "LabelPropagationPlan",
    "plan_label_propagation",
    "NEIGHBORHOODS",
    "check_neighborhood",
    "check_epsilon",
    "check_sensitivity",
    "check_delta",
    "check_rho",
    "resolve_budget",
    "release_sensitivity",
    "laplace_scale",
    "gaussian_sigma",
    "pamst_step_epsilon",
    "exponential_tree_scale",
    "INPUT_NOISES",
    "input_perturbation_scale",
    "noisy_max_prim_scale",
    "laplace_mst_scale",
    "weight_release_noise",
    "TREE_NOISE_MECHANISMS",
    "tree_release_noise",
    "signal_epsilon",
    "selection_spread",
    "signal_allowance",
    "SIGNAL_SHARE",
    "edge_flip_epsilon",
    "edge_flip_s",
    "halving_exactly",
    "randomized_response_probability",
    "randomized_response_rates",
    "randomized_response_loss",
    "RandomizedResponseRates",
    "bernoulli_words",
    "bernoulli_process",
    "edge_product_sensitivity",
    "noisy_power_budget",
    "vote_scale",
    "bit_vote_scale",
    "check_weight_bounds",
    "data_weight_bounds",
    "clip_to_bounds",
    "warn_out_of_bounds",
    "normalize_weights",
    "standard_gumbel",
    "standard_exponential",
    "discrete_laplace",
    "discrete_gaussian",
    "release_laplace",
    "release_gaussian",
    "GridRelease",
    "grid_for",
    "MIN_SCALE",
    "MAX_SCALE",
]
