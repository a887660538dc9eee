"""mst_approximation_error, clustering_f1_score and the public names."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import skdpgraph
import skdpgraph.metrics as metrics
from skdpgraph.metrics import clustering_f1_score, dbcvi_score, mst_approximation_error
from skdpgraph.tree import laplace_mst, make_spanning_tree, minimum_spanning_tree
from skdpgraph.utils import edges_to_csr

D3 = np.array([[0, 1, 4], [1, 0, 2], [4, 2, 0]], dtype=float)


def test_public_names():
    assert skdpgraph.dbcvi_score is dbcvi_score
    for name in metrics.__all__:
        assert getattr(metrics, name) is not None


# ---------------------------------------------------------------------------
# mst_approximation_error
# ---------------------------------------------------------------------------

def test_mst_error_hand_values():
    # MST {01, 12} = 3; tree {02, 12} = 6; tree {01, 02} = 5.
    assert mst_approximation_error(D3, np.array([[0, 1], [1, 2]])) == 0.0
    assert mst_approximation_error(D3, np.array([[0, 2], [1, 2]])) == 3.0
    assert mst_approximation_error(D3, np.array([[1, 0], [2, 0]])) == 2.0  # any endpoint order


def test_mst_error_uses_true_weights_not_the_tree_weights():
    # A released tree carries noisy weights; only its edges count.
    noisy = make_spanning_tree([0, 1], [2, 2], [-100.0, 50.0], 3)
    assert mst_approximation_error(D3, noisy) == 3.0
    assert mst_approximation_error(D3, noisy.tree) == 3.0
    rng = np.random.default_rng(0)
    t = laplace_mst(D3, 0.1, sensitivity=1.0, random_state=rng)
    true_weight = D3[t.edges[:, 0], t.edges[:, 1]].sum()
    assert mst_approximation_error(D3, t) == pytest.approx(true_weight - 3.0)


def test_mst_error_matches_enumeration():
    rng = np.random.default_rng(1)
    n = 5
    W = np.triu(rng.integers(0, 5, (n, n)).astype(float), 1)
    D = W + W.T   # zero weights are edges of a complete graph
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    best = None
    results = []
    for comb in itertools.combinations(pairs, n - 1):
        edges = np.array(comb)
        adj = sp.csr_array((np.ones(n - 1), (edges[:, 0], edges[:, 1])), shape=(n, n))
        if sp.csgraph.connected_components(adj, directed=False)[0] != 1:
            continue
        total = D[edges[:, 0], edges[:, 1]].sum()
        best = total if best is None else min(best, total)
        results.append((edges, total))
    for edges, total in results:
        assert mst_approximation_error(D, edges) == pytest.approx(total - best)


def test_mst_error_forest_of_disconnected_graph():
    G = edges_to_csr(np.array([0, 1, 0, 3]), np.array([1, 2, 2, 4]),
                     np.array([1.0, 1.0, 5.0, 0.0]), 5)
    assert mst_approximation_error(G, minimum_spanning_tree(G)) == 0.0
    assert mst_approximation_error(G, np.array([[0, 2], [1, 2], [3, 4]])) == 4.0
    with pytest.raises(ValueError, match="not spanning"):
        mst_approximation_error(G, np.array([[0, 2], [1, 2]]))


def test_mst_error_bad_input():
    with pytest.raises(ValueError, match="not an edge of the graph"):
        G = edges_to_csr(np.array([0, 1]), np.array([1, 2]), np.ones(2), 3)
        mst_approximation_error(G, np.array([[0, 1], [0, 2]]))
    with pytest.raises(ValueError, match="cycle"):
        mst_approximation_error(np.ones((4, 4)), np.array([[0, 1], [1, 2], [0, 2]]))
    with pytest.raises(ValueError, match="spanning"):
        mst_approximation_error(D3, np.array([[0, 1]]))
    with pytest.raises(ValueError, match="twice"):
        mst_approximation_error(D3, np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match="self-loop"):
        mst_approximation_error(D3, np.array([[0, 0], [1, 2]]))
    with pytest.raises(ValueError, match="nodes 0..2"):
        mst_approximation_error(D3, np.array([[0, 1], [1, 3]]))
    with pytest.raises(ValueError, match="shape"):
        mst_approximation_error(D3, sp.csr_array((4, 4)))
    with pytest.raises(TypeError, match="tree must be"):
        mst_approximation_error(D3, np.array([[0.0, 1.0], [1.0, 2.0]]))


# ---------------------------------------------------------------------------
# clustering_f1_score
# ---------------------------------------------------------------------------

def test_f1_identical_partitions_up_to_renaming():
    ref = [0, 0, 1, 1, 2]
    assert clustering_f1_score(ref, [5, 5, 3, 3, 9]) == 1.0
    assert clustering_f1_score(ref, ["a", "a", "b", "b", "c"]) == 1.0
    assert clustering_f1_score(ref, [5, 5, 3, 3, 9], method="pairwise") == 1.0


def test_f1_hand_values():
    # R0 = {0,1,2}, R1 = {3,4}; C0 = {0,1}, C1 = {2,3,4}
    ref, lab = [0, 0, 0, 1, 1], [0, 0, 1, 1, 1]
    # best match: R0 -> C0 (2*2/5 = .8), R1 -> C1 (2*2/5 = .8)
    assert clustering_f1_score(ref, lab) == pytest.approx(0.8)
    # pairwise: ref pairs 3 + 1, predicted pairs 1 + 3, together in both: 1 + 1
    assert clustering_f1_score(ref, lab, method="pairwise") == pytest.approx(2 * 2 / 8)
    # everything in one cluster
    assert clustering_f1_score(ref, [7] * 5) == pytest.approx(
        3 / 5 * (2 * 3 / 8) + 2 / 5 * (2 * 2 / 7))


def test_f1_noise_label():
    ref = [0, 0, 0, 1, 1]
    # an unclustered node costs recall: R0 matched to {0,1}: 2*2/(3+2)
    assert clustering_f1_score(ref, [0, 0, -1, 1, 1]) == pytest.approx(3 / 5 * 0.8 + 2 / 5)
    # reference noise clustered by the prediction costs precision
    assert clustering_f1_score([0, 0, -1, 1, 1], [0, 0, 0, 1, 1]) == pytest.approx(
        2 / 4 * (2 * 2 / 5) + 2 / 4 * 1.0)
    # noise nodes never match each other as a cluster
    assert clustering_f1_score([-1, -1, 0, 0], [-1, -1, 0, 0]) == 1.0
    assert clustering_f1_score([-1, -1, 0, 0], [1, 1, 0, 0]) == pytest.approx(1.0)
    assert clustering_f1_score([-1, -1, 0, 0], [1, 1, 0, 0], noise_label=None) == 1.0
    assert clustering_f1_score([0, 0, 1, 1], [-1, -1, -1, -1]) == 0.0
    # all noise in the reference
    assert clustering_f1_score([-1, -1], [-1, -1]) == 1.0
    assert clustering_f1_score([-1, -1], [0, 0]) == 0.0
    # another noise marker
    assert clustering_f1_score(["x", "a", "a"], ["x", "b", "b"], noise_label="x") == 1.0


def test_f1_random_properties():
    rng = np.random.default_rng(0)
    for _ in range(50):
        ref = rng.integers(-1, 4, 30)
        lab = rng.integers(-1, 5, 30)
        for method in ("best_match", "pairwise"):
            s = clustering_f1_score(ref, lab, method=method)
            assert 0.0 <= s <= 1.0
            # invariant under renaming the clusters of either side
            perm = {-1: -1, 0: 3, 1: 0, 2: 1, 3: 2, 4: 4}
            lab2 = np.array([perm[x] for x in lab])
            assert clustering_f1_score(ref, lab2, method=method) == pytest.approx(s)
        # pairwise F1 is symmetric in its arguments
        assert clustering_f1_score(ref, lab, method="pairwise") == pytest.approx(
            clustering_f1_score(lab, ref, method="pairwise"))


def test_f1_bad_input():
    with pytest.raises(ValueError, match="same length"):
        clustering_f1_score([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="method"):
        clustering_f1_score([0, 1], [0, 1], method="macro")


def test_inputs_not_modified():
    D = D3.copy()
    edges = np.array([[0, 2], [1, 2]])
    e0 = edges.copy()
    mst_approximation_error(D, edges)
    assert D.tobytes() == D3.tobytes() and edges.tobytes() == e0.tobytes()
    ref, lab = np.array([0, 0, 1, -1]), np.array([1, 1, -1, 0])
    r0, l0 = ref.copy(), lab.copy()
    clustering_f1_score(ref, lab)
    clustering_f1_score(ref, lab, method="pairwise")
    assert ref.tobytes() == r0.tobytes() and lab.tobytes() == l0.tobytes()


def test_mst_error_networkx_graph():
    import networkx as nx

    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 2.0), (0, 2, 4.0)])
    assert mst_approximation_error(G, np.array([[0, 2], [1, 2]])) == 3.0


def test_validity_index_stays_in_its_range():
    from skdpgraph.metrics import validity_index

    np.testing.assert_array_equal(validity_index([-1.0, 2.0, 0.0], [1.0, -1.0, 0.0]),
                                  [-1.0, 1.0, 1.0])  # negatives count as 0
    for sep, disp in (([np.nan], [1.0]), ([np.inf], [1.0]), ([1.0], [np.inf]),
                      ([-np.inf], [1.0])):
        with pytest.raises(ValueError, match="finite"):
            validity_index(sep, disp)


def test_dbcvi_labels_of_mixed_kinds_are_named():
    tree = make_spanning_tree([0, 1], [1, 2], [1.0, 2.0], 3)
    assert dbcvi_score(tree, np.array(["a", "a", "b"], dtype=object)) == dbcvi_score(
        tree, [0, 0, 1])
    with pytest.raises(TypeError, match="one comparable kind"):
        dbcvi_score(tree, np.array(["a", None, "b"], dtype=object))


def test_validity_index_takes_one_value_per_cluster_each():
    with pytest.raises(ValueError, match="one value per cluster"):
        metrics.validity_index([1.0, 2.0], [1.0])
    np.testing.assert_array_equal(metrics.validity_index([2.0, 1.0], [1.0, 2.0]), [0.5, -0.5])
