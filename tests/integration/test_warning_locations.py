"""Every warning of the package points at the caller's line.

Each warning the package emits is triggered here through the public API, and
the warning's location must be this file: the line that called skdpgraph,
not a line inside it (nor inside scikit-learn's Pipeline in between).
"""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances
from sklearn.pipeline import make_pipeline

from skdpgraph import (
    DBMSTClu,
    DebiasedSpectralClustering,
    EpsilonGraph,
    GraphKMedoids,
    HomogeneousGraph,
    PrivateMSTClustering,
    SimilarityToDistance,
    check_graph,
    from_networkx,
)
from skdpgraph.cluster import private_mst_clustering
from skdpgraph.exceptions import (
    ConstantWeightsWarning,
    DataDependentWarning,
    DisconnectedGraphWarning,
    FewerClustersWarning,
    NoiseDominatesWarning,
    PrivacyLeakWarning,
    WeightMeaningWarning,
)
from skdpgraph.privacy import clip_to_bounds, data_weight_bounds, warn_out_of_bounds
from skdpgraph.tree import minimum_spanning_tree, release_tree_weights
from skdpgraph.utils import similarity_to_distance

# Two groups of three points, 10 apart: an epsilon-graph of radius 1 has two components.
POINTS = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [10.0, 10.0], [10.0, 10.5],
                   [10.5, 10.0]])
#: A path graph whose three edges all weigh 0.5 (sparse: absent entries are not edges).
CONSTANT = sp.csr_array(np.diag(np.full(3, 0.5), 1) + np.diag(np.full(3, 0.5), -1))
#: The complete graph of distances of POINTS.
DISTANCES = pairwise_distances(POINTS)
#: Two pairs 0.2 apart inside, 0.4 to 0.8 between: HomogeneousGraph(0.1, 0.3) drops
#: every pair between them (their distances lie in its gap (0.3, 0.9)).
PAIRS = np.array([[0.0], [0.2], [0.6], [0.8]])
#: Edge weights that look like counts.
COUNTS = nx.Graph([(0, 1, {"weight": 3}), (1, 2, {"weight": 5}), (2, 3, {"weight": 1}),
                   (3, 0, {"weight": 2})])
#: A kernel matrix (similarities, ones on the diagonal).
KERNEL = np.exp(-((POINTS[:, None, :] - POINTS[None, :, :]) ** 2).sum(-1) / 50.0)
#: Two components, for a k-medoids with fewer medoids than components.
TWO_PATHS = np.zeros((6, 6))
for a, b in [(0, 1), (1, 2), (3, 4), (4, 5)]:
    TWO_PATHS[a, b] = TWO_PATHS[b, a] = 1.0
#: Two disjoint cliques of 20 nodes: two communities, whatever n_clusters asks.
TWO_CLIQUES = sp.block_diag([np.ones((20, 20)) - np.eye(20)] * 2, format="csr")


def _private(**kwargs):
    params = dict(epsilon=1.0, sensitivity=0.1, weight_bounds=(0.0, 20.0), random_state=0)
    params.update(kwargs)
    return PrivateMSTClustering(**params)


CASES = [
    # PrivacyLeakWarning: bounds or a maximum read from the private data.
    ("private clustering without weight_bounds", PrivacyLeakWarning,
     lambda: _private(weight_bounds=None).fit(POINTS)),
    ("private_mst_clustering without weight_bounds", PrivacyLeakWarning,
     lambda: private_mst_clustering(DISTANCES, 1.0, sensitivity=0.1, random_state=0)),
    ("release_tree_weights without weight_bounds", PrivacyLeakWarning,
     lambda: release_tree_weights(minimum_spanning_tree(DISTANCES), 1.0, sensitivity=0.1,
                                  random_state=0)),
    ("data_weight_bounds", PrivacyLeakWarning, lambda: data_weight_bounds([0.5, 2.0])),
    ("similarity_to_distance reads the maximum", PrivacyLeakWarning,
     lambda: similarity_to_distance([1.0, 2.0], "max_minus")),
    ("SimilarityToDistance reads the maximum", PrivacyLeakWarning,
     lambda: SimilarityToDistance("max_minus").fit_transform(KERNEL)),
    ("from_networkx reads the maximum", PrivacyLeakWarning,
     lambda: from_networkx(COUNTS, weight_kind="similarity", conversion="neg_log")),
    # DataDependentWarning: weights clipped into their bounds.
    ("private clustering clips", DataDependentWarning,
     lambda: _private(weight_bounds=(0.0, 1.0)).fit(POINTS)),
    ("release_tree_weights clips", DataDependentWarning,
     lambda: release_tree_weights(minimum_spanning_tree(DISTANCES), 1.0, sensitivity=0.1,
                                  weight_bounds=(0.0, 1.0), random_state=0)),
    ("clip_to_bounds", DataDependentWarning, lambda: clip_to_bounds([0.5, 3.0], (0.0, 1.0))),
    ("warn_out_of_bounds", DataDependentWarning, lambda: warn_out_of_bounds(2, (0.0, 1.0))),
    ("similarity_to_distance clips", DataDependentWarning,
     lambda: similarity_to_distance([1.0, 5.0], "max_minus", max_similarity=2.0)),
    # NoiseDominatesWarning: public parameters only.
    ("noise dominates", NoiseDominatesWarning,
     lambda: _private(epsilon=0.01, sensitivity=1.0, tree_mechanism="laplace").fit(POINTS)),
    # FewerClustersWarning: the count of the released labels.
    ("fewer clusters than asked", FewerClustersWarning,
     lambda: DebiasedSpectralClustering(4, random_state=0).fit(TWO_CLIQUES)),
    ("fewer clusters in a Pipeline", FewerClustersWarning,
     lambda: make_pipeline(DebiasedSpectralClustering(4, random_state=0)).fit(TWO_CLIQUES)),
    # ConstantWeightsWarning.
    ("DBMSTClu on equal weights", ConstantWeightsWarning,
     lambda: DBMSTClu(metric="precomputed").fit(CONSTANT)),
    ("private clustering on equal weights", ConstantWeightsWarning,
     lambda: _private(metric="precomputed", weight_bounds=(0.0, 1.0)).fit(CONSTANT)),
    # WeightMeaningWarning.
    ("from_networkx of counts", WeightMeaningWarning, lambda: from_networkx(COUNTS)),
    ("DBMSTClu of counts", WeightMeaningWarning,
     lambda: DBMSTClu(metric="precomputed").fit(COUNTS)),
    ("check_graph of a kernel", WeightMeaningWarning,
     lambda: check_graph(KERNEL, metric="precomputed")),
    ("DBMSTClu of a kernel", WeightMeaningWarning,
     lambda: DBMSTClu(metric="precomputed").fit(KERNEL)),
    # DisconnectedGraphWarning.
    ("EpsilonGraph.fit", DisconnectedGraphWarning, lambda: EpsilonGraph(radius=1.0).fit(POINTS)),
    ("EpsilonGraph.fit_transform", DisconnectedGraphWarning,
     lambda: EpsilonGraph(radius=1.0).fit_transform(POINTS)),
    ("HomogeneousGraph.fit", DisconnectedGraphWarning,
     lambda: HomogeneousGraph(0.1, 0.3).fit(PAIRS)),
    ("HomogeneousGraph.fit_transform", DisconnectedGraphWarning,
     lambda: HomogeneousGraph(0.1, 0.3).fit_transform(PAIRS)),
    ("GraphKMedoids with fewer medoids than components", DisconnectedGraphWarning,
     lambda: GraphKMedoids(n_clusters=1, random_state=0).fit(TWO_PATHS)),
    ("a Pipeline in between", DisconnectedGraphWarning,
     lambda: make_pipeline(EpsilonGraph(radius=1.0), DBMSTClu(metric="precomputed"))
     .fit(POINTS)),
]


@pytest.mark.parametrize("name, category, trigger", CASES, ids=[c[0] for c in CASES])
def test_warning_points_at_the_callers_line(name, category, trigger):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trigger()
    hits = [w for w in caught if w.category is category]
    assert hits, f"{name}: no {category.__name__}; got {[w.category for w in caught]}"
    for w in hits:
        assert w.filename == __file__, (
            f"{name}: {category.__name__} points at {w.filename}:{w.lineno}")


def test_every_warning_class_is_triggered_here():
    import skdpgraph.exceptions as exceptions

    classes = {getattr(exceptions, name) for name in exceptions.__all__}
    warning_classes = {c for c in classes if issubclass(c, Warning)}
    assert warning_classes == {case[1] for case in CASES}


@pytest.mark.parametrize("bounds, category", [(None, PrivacyLeakWarning),
                                              ((0.0, 1.0), DataDependentWarning)])
def test_warnings_of_a_dask_edge_table_point_at_the_callers_line(bounds, category):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    u = np.arange(29)
    frame = dd.from_pandas(pd.DataFrame({"u": u, "v": u + 1,
                                         "weight": np.linspace(0.1, 3.0, 29)}), npartitions=2)
    model = PrivateMSTClustering(epsilon=1.0, sensitivity=0.01, weight_bounds=bounds,
                                 metric="precomputed", random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(frame)
    hits = [w for w in caught if w.category is category]
    assert hits and all(w.filename == __file__ for w in hits), [
        (w.category.__name__, w.filename, w.lineno) for w in caught]
