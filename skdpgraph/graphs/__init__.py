"""Graph builders for Pipelines: from points or distances to a weighted graph.

:class:`EpsilonGraph` (the thesis's epsilon-graph) and
:class:`HomogeneousGraph` (the UAI experiment's homogeneity-respecting
graph); :class:`SimilarityToDistance` (similarities such as counts or
kernels into distances) and :class:`StructuralDistance` (structural
distances for an unweighted graph). A graph built from private distances
has a topology that depends on them, which weight-DP does not cover: see
each class's docstring.
"""

from ._builders import EpsilonGraph, HomogeneousGraph
from ._weights import SimilarityToDistance, StructuralDistance

__all__ = ["EpsilonGraph", "HomogeneousGraph", "SimilarityToDistance", "StructuralDistance"]
