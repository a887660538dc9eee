"""Graph k-medoids on shortest-path distances."""

import itertools
import re
import sys
import time
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.cluster import GraphKMedoids, graph_distances
from skdpgraph.exceptions import DisconnectedGraphWarning

pytest.importorskip("kmedoids")


def _hop_matrix(G, n):
    D = np.full((n, n), np.inf)
    for u, lengths in nx.all_pairs_shortest_path_length(G):
        for v, d in lengths.items():
            D[u, v] = d
    return D


def _loss(D, medoids):
    return D[:, list(medoids)].min(axis=1).sum()


def test_missing_dependency_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "kmedoids", None)  # import now fails
    with pytest.raises(ImportError, match=r"pip install skdpgraph\[kmedoids\]"):
        GraphKMedoids(2).fit(nx.path_graph(4))


def test_graph_distances_hop_and_weighted():
    G = nx.connected_watts_strogatz_graph(30, 4, 0.3, seed=1)
    rng = np.random.default_rng(0)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.1, 2.0))
    A = nx.to_scipy_sparse_array(G, nodelist=range(30))
    np.testing.assert_array_equal(graph_distances(A), _hop_matrix(G, 30))
    W = dict(nx.all_pairs_dijkstra_path_length(G))
    D = graph_distances(A, weighted=True)
    for u in range(30):
        for v in range(30):
            assert D[u, v] == pytest.approx(W[u][v])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("method", ["fasterpam", "pam"])
def test_result_is_a_swap_local_optimum(seed, method):
    # The labels, inertia and medoids are consistent with the distances, and
    # no single medoid/non-medoid swap lowers the loss (brute force over all
    # k (n - k) swaps): the definition of a PAM local optimum.
    G = nx.connected_watts_strogatz_graph(25, 4, 0.2, seed=seed)
    A = nx.to_scipy_sparse_array(G, nodelist=range(25))
    D = _hop_matrix(G, 25)
    k = 2 + seed % 3
    model = GraphKMedoids(k, method=method, random_state=seed).fit(A)
    med = model.medoid_indices_
    assert len(set(med)) == k and np.all(np.diff(med) > 0)
    assert model.inertia_ == _loss(D, med)
    np.testing.assert_array_equal(D[np.arange(25), med[model.labels_]], D[:, med].min(axis=1))
    np.testing.assert_array_equal(model.labels_[med], np.arange(k))
    best = model.inertia_
    for i, out in itertools.product(range(k), set(range(25)) - set(med)):
        swapped = list(med)
        swapped[i] = out
        assert _loss(D, swapped) >= best


def test_recovers_cliques_and_uses_weights():
    # Two 6-cliques joined by one edge: k = 2 separates them.
    G = nx.barbell_graph(6, 0)
    A = nx.to_scipy_sparse_array(G, nodelist=range(12))
    labels = GraphKMedoids(2, random_state=0).fit_predict(A)
    assert adjusted_rand_score(labels, [0] * 6 + [1] * 6) == 1.0
    # Path 0-1-2-3 with weights 1, 10, 1: weighted distances split {0,1}/{2,3};
    # hop distances cannot tell (a tie resolved otherwise is allowed), but the
    # weighted optimum is unique.
    P = sp.csr_array(np.array([[0, 1, 0, 0], [1, 0, 10, 0], [0, 10, 0, 1], [0, 0, 1, 0.0]]))
    weighted = GraphKMedoids(2, weighted=True, random_state=0).fit(P)
    assert adjusted_rand_score(weighted.labels_, [0, 0, 1, 1]) == 1.0
    assert weighted.inertia_ == 2.0


def test_disconnected_graph_components():
    # Components of sizes 6, 4 and 3.
    G = nx.disjoint_union_all([nx.path_graph(6), nx.cycle_graph(4), nx.path_graph(3)])
    A = nx.to_scipy_sparse_array(G, nodelist=range(13))
    comp = np.repeat([0, 1, 2], [6, 4, 3])
    model = GraphKMedoids(3, random_state=0).fit(A)
    assert model.n_components_ == 3
    assert adjusted_rand_score(model.labels_, comp) == 1.0
    assert np.isfinite(model.inertia_)
    # Too few medoids: the two largest components are covered, the third
    # one gets -1 with a warning.
    with pytest.warns(UserWarning, match="3 connected components but n_clusters=2"):
        model = GraphKMedoids(2, random_state=0).fit(A)
    assert np.all(model.labels_[10:] == -1)
    assert adjusted_rand_score(model.labels_[:10], comp[:10]) == 1.0
    assert model.inertia_ == 9 + 4  # path of 6 from a centre node; cycle of 4


@pytest.mark.parametrize("method", ["fasterpam", "pam", "alternating"])
def test_every_method_covers_every_component_it_can(method):
    # The alternating search cannot move a medoid to another component: its random start
    # puts one in each of the largest components (two in one clique used to leave a
    # component at -1 in 94 of 100 seeds).
    G = nx.disjoint_union_all([nx.complete_graph(6), nx.complete_graph(6), nx.empty_graph(2)])
    A = nx.to_scipy_sparse_array(G)
    for seed in range(30):
        with warnings.catch_warnings():
            warnings.simplefilter("error", DisconnectedGraphWarning)
            model = GraphKMedoids(4, method=method, random_state=seed).fit(A)
        assert model.inertia_ == 10.0
        assert sorted(np.bincount(model.labels_)) == [1, 1, 6, 6]
    # fewer medoids than components: the largest components first
    with pytest.warns(DisconnectedGraphWarning):
        model = GraphKMedoids(2, method=method, random_state=0).fit(A)
    assert np.all(model.labels_[12:] == -1) and np.all(model.labels_[:12] >= 0)


def test_reproducible_with_seed_and_random_init():
    G = nx.connected_watts_strogatz_graph(60, 4, 0.3, seed=2)
    a = GraphKMedoids(4, init="random", random_state=7).fit(G)
    b = GraphKMedoids(4, init="random", random_state=7).fit(G)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.n_iter_ >= 1


def test_caller_data_not_modified():
    A = sp.coo_matrix(nx.to_scipy_sparse_array(nx.karate_club_graph()))
    before = (A.data.tobytes(), A.row.tobytes(), A.col.tobytes())
    GraphKMedoids(2, random_state=0).fit(A)
    assert before == (A.data.tobytes(), A.row.tobytes(), A.col.tobytes())


@pytest.mark.parametrize("params, match", [
    ({"n_clusters": 0}, "n_clusters"),
    ({"method": "kmeans"}, "method"),
    ({"init": "k-medoids++"}, "init"),
    ({"max_iter": 0}, "max_iter"),
    ({"max_memory": 0}, "max_memory"),
    ({"max_memory": -1.0}, "max_memory"),
])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        GraphKMedoids(**params).fit(nx.path_graph(4))


@pytest.mark.parametrize("bad, match", [
    (nx.path_graph(3, create_using=nx.DiGraph), "directed"),
    (np.array([[0, -1.0], [-1.0, 0]]), "Negative values"),
    (np.array([[0, 1.0, 0], [0, 0, 1.0], [0, 1.0, 0]]), "not symmetric"),
])
def test_bad_graphs(bad, match):
    with pytest.raises(ValueError, match=match):
        GraphKMedoids(2).fit(bad)


def test_more_clusters_than_nodes():
    with pytest.raises(ValueError, match="larger than the number of nodes"):
        GraphKMedoids(5).fit(nx.path_graph(4))


def test_default_init_is_random():
    # FasterPAM from random medoids: as good as BUILD and much cheaper at
    # scale (BUILD is O(n^2 k)); the default is the same as asking for it.
    assert GraphKMedoids().get_params()["init"] == "random"
    G = nx.connected_watts_strogatz_graph(80, 4, 0.3, seed=4)
    a = GraphKMedoids(5, random_state=3).fit(G)
    b = GraphKMedoids(5, init="random", random_state=3).fit(G)
    np.testing.assert_array_equal(a.medoid_indices_, b.medoid_indices_)
    assert a.inertia_ == b.inertia_


def test_refuses_past_max_memory_with_an_estimate():
    G = nx.path_graph(1000)
    with pytest.raises(ValueError, match=r"1000 nodes need about [\d,]+ MiB, more than "
                                         r"max_memory=1 MiB.*max_memory=(\d+)") as err:
        GraphKMedoids(2, max_memory=1).fit(G)
    # The suggested limit is enough; None lifts the limit.
    suggested = int(re.search(r"max_memory=(\d+)\)", str(err.value)).group(1))
    # 1000^2 int32 hop counts (3.8 MiB) and a float64 block of 62 rows.
    assert suggested == 5
    GraphKMedoids(2, max_memory=suggested, random_state=0).fit(G)
    GraphKMedoids(2, max_memory=None, random_state=0).fit(G)
    with pytest.raises(ValueError, match="weighted lengths, 8 bytes per pair"):
        GraphKMedoids(2, weighted=True, max_memory=5).fit(G)


def test_refuses_a_huge_graph_before_allocating():
    # 10^6 nodes: 8 TB of distances. Refused from n alone, at once.
    n = 1_000_000
    A = sp.csr_array((np.ones(2), ([0, 1], [1, 0])), shape=(n, n))
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"1000000 nodes need about 7,629,\d+ MiB"):
        GraphKMedoids(2).fit(A)
    assert time.perf_counter() - t0 < 5


@pytest.mark.parametrize("weighted", [False, True])
def test_blocked_distances_match_one_block(monkeypatch, weighted):
    # Components of sizes 30, 20 and 6, random weights: the distances are
    # computed block of rows by block (white-box: tiny blocks) and the
    # unreachable pairs get the same penalty, so the result is the same.
    rng = np.random.default_rng(2)
    G = nx.disjoint_union_all([nx.connected_watts_strogatz_graph(30, 4, 0.3, seed=1),
                               nx.cycle_graph(20), nx.path_graph(6)])
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.5, 3.0))
    A = nx.to_scipy_sparse_array(G, nodelist=range(56))
    whole = GraphKMedoids(4, weighted=weighted, random_state=0).fit(A)
    monkeypatch.setattr("skdpgraph.cluster._kmedoids._BLOCK_BYTES", 8 * 56 * 3)
    blocked = GraphKMedoids(4, weighted=weighted, random_state=0).fit(A)
    np.testing.assert_array_equal(whole.labels_, blocked.labels_)
    assert whole.inertia_ == blocked.inertia_
    nearest = graph_distances(A, weighted=weighted)[:, blocked.medoid_indices_].min(axis=1)
    assert np.isfinite(nearest).all()  # 4 medoids reach the 3 components
    assert blocked.inertia_ == pytest.approx(nearest.sum(), rel=1e-12)


_FEATURES = (
    "check_clustering fits a 50 x 2 feature matrix, but GraphKMedoids clusters "
    "a graph given by its square adjacency matrix (and check_nonsquare_error "
    "requires non-square input to be refused)"
)


@pytest.mark.filterwarnings("ignore:The graph has .* connected components:UserWarning")
@parametrize_with_checks(
    [GraphKMedoids(2, random_state=0),
     GraphKMedoids(3, method="pam", init="random", random_state=0)],
    expected_failed_checks=lambda est: {"check_clustering": _FEATURES},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
