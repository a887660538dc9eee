"""Homogeneity conditions: closed forms against enumeration of spanning trees."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from skdpgraph.metrics import check_homogeneity, mst_eligible_edges
from skdpgraph.utils import edges_to_csr

# ---------------------------------------------------------------------------
# brute-force reference: the definitions, quantified over enumerated trees
# ---------------------------------------------------------------------------

def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _n_components(n, edges):
    parent = list(range(n))
    for a, b, _ in edges:
        ra, rb = _find(parent, a), _find(parent, b)
        if ra != rb:
            parent[ra] = rb
    return len({_find(parent, x) for x in range(n)})


def _spanning_forests(n, edges):
    """All maximal acyclic edge subsets (spanning trees, one per component)."""
    size = n - _n_components(n, edges)
    for comb in itertools.combinations(range(len(edges)), size):
        parent = list(range(n))
        ok = True
        for k in comb:
            a, b, _ = edges[k]
            ra, rb = _find(parent, a), _find(parent, b)
            if ra == rb:
                ok = False
                break
            parent[ra] = rb
        if ok:
            yield [edges[k] for k in comb]


def _separable(inside, s):
    """H_T(s) of Definition 3.9 with the module's conventions."""
    if not inside:
        return True
    big, small = max(inside), min(inside)
    if big == small:
        h = big
    elif small == 0:
        return False
    else:
        h = big * big / small
    return h < s


def _alpha(inside):
    big, small = max(inside), min(inside)
    if big == small:
        return 1.0
    return np.inf if small == 0 else big / small


def _brute(n, edges, labels):
    labels = np.asarray(labels)
    clusters = np.unique(labels)
    trees = list(_spanning_forests(n, edges))
    totals = [sum(e[2] for e in t) for t in trees]
    best = min(totals)
    msts = [t for t, tot in zip(trees, totals) if tot == best]  # integer weights: exact

    def report(family):
        flags, alphas = [], []
        for c in clusters:
            ok, al = True, []
            for t in family:
                inside = [e[2] for e in t if labels[e[0]] == c and labels[e[1]] == c]
                leaving = [e[2] for e in t if (labels[e[0]] == c) != (labels[e[1]] == c)]
                if inside:
                    al.append(_alpha(inside))
                ok &= all(_separable(inside, s) for s in leaving)
            flags.append(ok)
            alphas.append(max(al) if al else np.nan)
        return np.array(flags), np.array(alphas)

    weak, a_weak = report(msts)
    strong, a_strong = report(trees)
    return weak, strong, a_weak, a_strong


def _random_case(rng):
    n = int(rng.integers(3, 7))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    m = int(rng.integers(n - 1, min(len(pairs), 9) + 1))
    chosen = rng.choice(len(pairs), size=m, replace=False)
    # small integer weights: many ties, and zeros
    w = rng.integers(0, 4, size=m).astype(float)
    edges = [(pairs[k][0], pairs[k][1], w[i]) for i, k in enumerate(chosen)]
    labels = rng.integers(0, int(rng.integers(1, 4)), size=n)
    return n, edges, labels


def _as_graph(n, edges):
    u = np.array([e[0] for e in edges])
    v = np.array([e[1] for e in edges])
    w = np.array([e[2] for e in edges])
    return edges_to_csr(u, v, w, n)


@pytest.mark.parametrize("seed", range(6))
def test_closed_forms_match_enumeration(seed):
    # 60 random small graphs per seed, with ties, zero weights, disconnected
    # graphs and clusters without internal edges.
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n, edges, labels = _random_case(rng)
        weak, strong, a_weak, a_strong = _brute(n, edges, labels)
        r = check_homogeneity(_as_graph(n, edges), labels)
        assert r.weak.tolist() == weak.tolist(), (n, edges, labels)
        assert r.strong.tolist() == strong.tolist(), (n, edges, labels)
        np.testing.assert_allclose(r.alpha_weak, a_weak, equal_nan=True)
        np.testing.assert_allclose(r.alpha_strong, a_strong, equal_nan=True)


def test_closed_forms_match_enumeration_distinct_weights():
    rng = np.random.default_rng(123)
    for _ in range(80):
        n, edges, labels = _random_case(rng)
        edges = [(a, b, float(rng.integers(1, 1000))) for a, b, _ in edges]
        weak, strong, a_weak, a_strong = _brute(n, edges, labels)
        r = check_homogeneity(_as_graph(n, edges), labels)
        assert r.weak.tolist() == weak.tolist()
        assert r.strong.tolist() == strong.tolist()
        np.testing.assert_allclose(r.alpha_weak, a_weak, equal_nan=True)
        np.testing.assert_allclose(r.alpha_strong, a_strong, equal_nan=True)


def test_strong_implies_weak():
    # Proposition 3.1 of the paper, on random graphs.
    rng = np.random.default_rng(7)
    for _ in range(200):
        n, edges, labels = _random_case(rng)
        r = check_homogeneity(_as_graph(n, edges), labels)
        assert np.all(r.weak[r.strong])


# ---------------------------------------------------------------------------
# hand-computed cases
# ---------------------------------------------------------------------------

def test_hand_computed_example():
    # Cluster {0, 1, 2}: inside weights .1, .2, .3; MST keeps .1 and .2.
    D = np.array([[0, .1, .3, .5], [.1, 0, .2, .5], [.3, .2, 0, .5], [.5, .5, .5, 0]])
    r = check_homogeneity(D, ["a", "a", "a", "b"])
    assert r.clusters.tolist() == ["a", "b"]
    assert r.sizes.tolist() == [3, 1]
    # weak: .2**2 / .1 = .4 < .5; strong: .3**2 / .1 = .9 >= .5
    assert r.weak.tolist() == [True, True]
    assert r.strong.tolist() == [False, True]
    np.testing.assert_allclose(r.alpha_weak[0], 2.0)
    np.testing.assert_allclose(r.alpha_strong[0], 3.0)
    np.testing.assert_allclose(r.strong_threshold[0], 0.9)
    np.testing.assert_allclose(r.max_intra[0], 0.3)
    np.testing.assert_allclose(r.min_intra[0], 0.1)
    np.testing.assert_allclose(r.min_inter, [0.5, 0.5])
    assert np.isnan(r.alpha_strong[1]) and np.isnan(r.max_intra[1])
    assert not r.all_strong and r.all_weak
    # Raising the leaving weights above .9 makes cluster "a" strongly homogeneous.
    D2 = D.copy()
    D2[3, :3] = D2[:3, 3] = 0.95
    assert check_homogeneity(D2, [0, 0, 0, 1]).all_strong


def test_ties_between_inside_and_leaving_edges():
    # Unweighted triangle-with-tail: every spanning tree is an MST and an
    # inside edge of weight 1 sits with a leaving edge of weight 1.
    u, v = np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3])
    G = edges_to_csr(u, v, np.ones(4), 4)
    r = check_homogeneity(G, [0, 0, 0, 1])
    assert r.weak.tolist() == [False, True]
    # An inside edge that no MST uses does not count for the weak condition
    # (9 is heavier than the path 0-1-2), but it does for the strong one.
    u, v = np.array([0, 1, 0, 1]), np.array([1, 2, 2, 3])
    w = np.array([0.5, 0.5, 9.0, 2.0])
    G = edges_to_csr(u, v, w, 4)
    r = check_homogeneity(G, [0, 0, 0, 1])
    assert r.weak[0] and not r.strong[0]
    assert r.alpha_weak[0] == 1.0 and r.alpha_strong[0] == 18.0
    # A tie between the heaviest eligible inside edge and the lightest
    # leaving edge violates the weak condition (h >= max >= w(s)).
    w = np.array([0.5, 2.0, 9.0, 2.0])
    r = check_homogeneity(edges_to_csr(u, v, w, 4), [0, 0, 0, 1])
    assert not r.weak[0]


def test_zero_weights_conventions():
    # min inside weight 0 < max: never separable when some edge leaves.
    G = edges_to_csr(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([0.0, 1.0, 5.0]), 4)
    r = check_homogeneity(G, [0, 0, 0, 1])
    assert not r.weak[0] and not r.strong[0]
    assert np.isinf(r.alpha_strong[0])
    # all inside weights 0: alpha = 1 and h = 0 < any positive leaving weight.
    G = edges_to_csr(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([0.0, 0.0, 5.0]), 4)
    r = check_homogeneity(G, [0, 0, 0, 1])
    assert r.weak[0] and r.strong[0] and r.alpha_strong[0] == 1.0


def test_mst_eligible_edges():
    D = np.array([[0, 1, 1], [1, 0, 2], [1, 2, 0]], dtype=float)
    u, v, w, ok = mst_eligible_edges(D)
    assert list(zip(u.tolist(), v.tolist())) == [(0, 1), (0, 2), (1, 2)]
    assert ok.tolist() == [True, True, False]
    # equal weights: all three edges belong to some MST
    ok = mst_eligible_edges(np.ones((3, 3)))[3]
    assert ok.tolist() == [True, True, True]


def test_eligible_matches_enumeration():
    rng = np.random.default_rng(11)
    for _ in range(100):
        n, edges, _ = _random_case(rng)
        trees = list(_spanning_forests(n, edges))
        totals = [sum(e[2] for e in t) for t in trees]
        in_some = {(a, b) for t, tot in zip(trees, totals) if tot == min(totals)
                   for a, b, _ in t}
        u, v, _, ok = mst_eligible_edges(_as_graph(n, edges))
        expected = [(a, b) in in_some for a, b in zip(u.tolist(), v.tolist())]
        assert ok.tolist() == expected


def test_large_graph_runs_fast():
    rng = np.random.default_rng(0)
    n = 3000
    X = rng.random((n, 2))
    from sklearn.neighbors import radius_neighbors_graph
    A = radius_neighbors_graph(X, 0.05, mode="distance")
    A = sp.csr_array(A.maximum(A.T))
    labels = (X[:, 0] > 0.5).astype(int)
    r = check_homogeneity(A, labels)
    assert r.sizes.sum() == n


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

def test_labels_of_wrong_length():
    with pytest.raises(ValueError, match="one label per node"):
        check_homogeneity(np.ones((3, 3)), [0, 1])
    with pytest.raises(ValueError, match="one label per node"):
        check_homogeneity(np.ones((3, 3)), [[0, 1, 1]])


def test_bad_graph():
    with pytest.raises(ValueError, match="at least 2 nodes"):
        check_homogeneity(np.zeros((1, 1)), [0])
    with pytest.raises(ValueError, match="negative"):
        check_homogeneity(-np.ones((3, 3)), [0, 0, 1])


def test_input_not_modified():
    D = np.array([[0, .1, .3, .5], [.1, 0, .2, .5], [.3, .2, 0, .5], [.5, .5, .5, 0]])
    labels = np.array([0, 0, 0, 1])
    D0, l0 = D.copy(), labels.copy()
    check_homogeneity(D, labels)
    assert D.tobytes() == D0.tobytes() and labels.tobytes() == l0.tobytes()
