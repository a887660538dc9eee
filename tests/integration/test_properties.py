"""Property-based tests (hypothesis) of the invariants the papers' definitions imply."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

from skdpgraph.cluster import dbmstclu, private_mst_clustering
from skdpgraph.metrics import dbcvi_score
from skdpgraph.exceptions import BudgetError
from skdpgraph.privacy import BudgetAccountant
from skdpgraph.tree import TREE_MECHANISMS, make_spanning_tree
from skdpgraph.utils import edges_to_csr

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def trees(draw, max_nodes=40):
    """A random weighted tree: node k > 0 hangs from a node < k."""
    n = draw(st.integers(2, max_nodes))
    parents = [draw(st.integers(0, k - 1)) for k in range(1, n)]
    weights = draw(st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=n - 1,
                            max_size=n - 1))
    return n, np.array(parents), np.arange(1, n), np.array(weights)


@st.composite
def graphs(draw, max_nodes=25):
    """A random weighted graph, possibly disconnected."""
    n = draw(st.integers(2, max_nodes))
    pairs = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         max_size=3 * n))
    pairs = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    w = draw(st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=len(pairs),
                      max_size=len(pairs)))
    u = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.int64)
    return edges_to_csr(u, v, np.array(w), n)


def _subtree_partition(n, u, v, labels):
    """Every cluster is connected through tree edges inside it."""
    inside = labels[u] == labels[v]
    A = sp.csr_array((np.ones(inside.sum()), (u[inside], v[inside])), shape=(n, n))
    n_comp, comp = connected_components(A, directed=False)
    return n_comp == np.unique(labels).size and np.all(
        [np.unique(labels[comp == c]).size == 1 for c in range(n_comp)])


@SETTINGS
@given(trees())
def test_dbmstclu_partitions_into_subtrees_with_index_in_range(tree):
    n, u, v, w = tree
    res = dbmstclu(make_spanning_tree(u, v, w, n))
    assert res.labels.shape == (n,)
    assert _subtree_partition(n, u, v, res.labels)
    assert -1.0 <= res.dbcvi <= 1.0
    # The path is a running sum: within rounding of [-1, 1].
    assert np.all(np.abs(res.dbcvi_path) <= 1.0 + 1e-12)
    assert dbcvi_score(make_spanning_tree(u, v, w, n), res.labels) == pytest.approx(
        res.dbcvi, abs=1e-12)


@SETTINGS
@given(trees(), st.integers(-60, 60), st.randoms(use_true_random=False))
def test_dbmstclu_invariant_to_power_of_two_scaling_and_relabelling(tree, k, rnd):
    n, u, v, w = tree
    ref = dbmstclu(make_spanning_tree(u, v, w, n))
    scaled = dbmstclu(make_spanning_tree(u, v, w * 2.0**k, n))
    np.testing.assert_array_equal(ref.labels, scaled.labels)
    perm = np.array(rnd.sample(range(n), n))
    moved = dbmstclu(make_spanning_tree(perm[u], perm[v], w, n))
    # Same partition, up to the names of the clusters.
    a, b = ref.labels, moved.labels[perm]
    pairs = set(zip(a.tolist(), b.tolist()))
    assert len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@SETTINGS
@given(graphs(), st.sampled_from(sorted(TREE_MECHANISMS)), st.integers(0, 2**31 - 1))
def test_released_tree_spans_every_component(G, mechanism, seed):
    res = private_mst_clustering(G, 2.0, sensitivity=0.1, weight_bounds=(0.0, 1.0),
                                 tree_mechanism=mechanism, random_state=seed)
    n = G.shape[0]
    n_comp, comp = connected_components(G, directed=False)
    e = res.tree.edges
    assert e.shape == (n - n_comp, 2)
    assert np.all(comp[e[:, 0]] == comp[e[:, 1]])  # tree edges stay in their component
    coo = G.tocoo()
    stored = set(zip(coo.row.tolist(), coo.col.tolist()))
    assert {(a, b) for a, b in e.tolist()} <= stored  # and are edges of G
    assert np.all((res.tree.weights > 0) & (res.tree.weights <= 1))
    assert _subtree_partition(n, e[:, 0], e[:, 1], res.labels)


@SETTINGS
@given(st.floats(0.01, 10.0), st.lists(st.floats(0.001, 5.0), min_size=1, max_size=30))
def test_spent_budget_never_exceeds_the_budget(budget, spends):
    acc = BudgetAccountant(epsilon=budget)
    for eps in spends:
        try:
            acc.spend(eps, 0.0)
        except BudgetError:
            pass
        assert acc.total()[0] <= budget * (1 + 1e-12)
