"""Edge differential privacy: the topology of an unweighted graph is private.

The edge flipping of PIG (Muelle et al. 2015) and all of PIG's maths: the
relation between ``s`` and epsilon, the choice of ``s``, the expected size
of the perturbed graph, and a private edge density. Any clustering of the
perturbed graph alone is post-processing and keeps the guarantee
(``skdpgraph.cluster.PrivateGraphClustering``).

The functions release and charge no accountant (the estimators do): their
caller charges one first, with ``accountant.spend(epsilon, delta)``.
"""

from ._flip import DEFAULT_MAX_ADDED_EDGES, expected_added_edges, flip_edges, flip_pair_keys
from ._perturbation import EdgeFlipPerturbation
from ._power import NoisyPowerResult, noisy_power_method
from ._label_propagation import (LabelPropagationResult, bit_vote_probabilities, bit_votes,
                                 block_counts, label_propagation_rounds,
                                 label_vote_probabilities, label_votes,
                                 private_label_propagation, release_block_counts)
from ._bp import belief_propagation_communities
from ._spectral import (
                        DebiasedSpectralResult,
                        debiased_adjacency,
                        debiased_spectral_clustering,
                        refine_communities,
)
from ._pig import (
                   dp_density,
                   graph_density,
                   pig_epsilon,
                   pig_expected_density,
                   pig_expected_edges,
                   pig_min_s,
                   pig_s_from_epsilon,
                   suggest_s,
)

__all__ = [
    "EdgeFlipPerturbation",
    "flip_edges",
    "flip_pair_keys",
    "expected_added_edges",
    "DEFAULT_MAX_ADDED_EDGES",
    "pig_epsilon",
    "pig_s_from_epsilon",
    "pig_min_s",
    "suggest_s",
    "pig_expected_edges",
    "pig_expected_density",
    "graph_density",
    "dp_density",
    "DebiasedSpectralResult",
    "debiased_adjacency",
    "debiased_spectral_clustering",
    "refine_communities",
    "belief_propagation_communities",
    "NoisyPowerResult",
    "noisy_power_method",
    "LabelPropagationResult",
    "private_label_propagation",
    "label_propagation_rounds",
    "bit_votes",
    "bit_vote_probabilities",
    "label_votes",
    "label_vote_probabilities",
    "block_counts",
    "release_block_counts",
]
