"""Spanning trees built from edge lists, and trees given by hand, are checked."""

from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp

from skdpgraph.tree import (
    TREE_MECHANISMS,
    SpanningTree,
    check_tree,
    get_tree_mechanism,
    make_spanning_tree,
    minimum_spanning_tree,
)


def test_make_spanning_tree_sorts_and_orients():
    t = make_spanning_tree([2, 0], [1, 1], [5.0, -1.0], 4)
    assert t.edges.tolist() == [[0, 1], [1, 2]]
    assert t.weights.tolist() == [-1.0, 5.0]
    assert t.tree.shape == (4, 4) and t.tree.nnz == 4


@pytest.mark.parametrize("u, v, w, n, error, match", [
    ([0, 1, 0], [1, 2, 2], [1.0, 2.0, 3.0], 3, ValueError, "cycle"),
    ([0, 0], [1, 1], [1.0, 2.0], 3, ValueError, "at most once"),
    ([0, 1], [0, 2], [1.0, 2.0], 3, ValueError, "itself"),
    ([0, 1], [1, 5], [1.0, 2.0], 3, ValueError, r"\[0, n\)"),
    ([0, -1], [1, 2], [1.0, 2.0], 3, ValueError, r"\[0, n\)"),
    ([0, 1], [1, 2], [np.inf, 1.0], 3, ValueError, "finite"),
    ([0, 1], [1, 2], [np.nan, 1.0], 3, ValueError, "finite"),
    ([0, 1], [1, 2], [1.0], 3, ValueError, "shape"),
    ([0, 1], [1], [1.0, 2.0], 3, ValueError, "same shape"),
    ([0.5, 1.0], [1, 2], [1.0, 2.0], 3, TypeError, "integers"),
    ([0, 1], [1, 2], ["a", "b"], 3, TypeError, "real numbers"),
    ([0, 1], [1, 2], [1.0, 2.0], 3.0, TypeError, "n must be an integer"),
])
def test_make_spanning_tree_rejects_what_is_not_a_forest(u, v, w, n, error, match):
    with pytest.raises(error, match=match):
        make_spanning_tree(u, v, w, n)


def test_check_tree_checks_a_spanning_tree_built_by_hand():
    t = make_spanning_tree([0, 1], [1, 2], [1.0, 2.0], 3)
    assert check_tree(t).edges.tolist() == t.edges.tolist()
    bad = [
        (SpanningTree(t.tree, t.edges[::-1], t.weights[::-1]), ValueError, "lexicographic"),
        (SpanningTree(make_spanning_tree([0], [1], [1.0], 3).tree, t.edges, t.weights),
         ValueError, "stores 2 entries"),
        (SpanningTree(t.tree, np.array([[0, 1], [0, 1]]), t.weights), ValueError, "at most once"),
        (SpanningTree(t.tree, np.array([[0, 1], [1, 3]]), t.weights), ValueError, r"\[0, n\)"),
        (SpanningTree(t.tree, t.edges, np.array([np.nan, 1.0])), ValueError, "finite"),
        (SpanningTree(t.tree, t.edges[:, :1], t.weights), ValueError, r"shape \(m, 2\)"),
        (SpanningTree(t.tree.toarray(), t.edges, t.weights), TypeError, "sparse"),
    ]
    for tree, error, match in bad:
        with pytest.raises(error, match=match):
            check_tree(tree)
    cycle = make_spanning_tree([0, 1, 0], [1, 2, 2], [1.0, 2.0, 3.0], 3, check_input=False)
    with pytest.raises(ValueError, match="cycle"):
        check_tree(cycle)


def test_check_tree_of_a_graph_refuses_cycles():
    g = sp.csr_array(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float))
    with pytest.raises(ValueError, match="forest"):
        check_tree(g)


def test_check_tree_takes_a_canonical_tree_as_it_is():
    t = make_spanning_tree([0, 1], [1, 2], [1.0, 2.0], 3)
    assert check_tree(t) is t  # no copy
    t32 = t._replace(edges=t.edges.astype(np.int32), weights=[1, 2])
    checked = check_tree(t32)
    assert checked.edges.dtype == np.int64 and checked.weights.dtype == np.float64
    as_lists = check_tree(t._replace(edges=t.edges.tolist(), weights=t.weights.tolist()))
    assert isinstance(as_lists.edges, np.ndarray) and isinstance(as_lists.weights, np.ndarray)


@pytest.mark.parametrize("epsilon, mu", [(1e300, 1e-300), (1e308, 1e-10), (1.0, 1e-320)])
def test_infinite_rates_on_tiny_spreads_give_trees(epsilon, mu):
    # The rate overflows to inf and the spread is far below 1e300 / float max.
    from skdpgraph.tree import exponential_tree, noisy_max_prim_tree, pamst

    D = np.array([[0, 1, 1 + 1e-12], [1, 0, 1 + 2e-12], [1 + 1e-12, 1 + 2e-12, 0]])
    assert pamst(D, epsilon, sensitivity=mu, random_state=0).edges.shape == (2, 2)
    # The exponential mechanism's log-weights c w would pass 2**32: refused by name.
    with pytest.raises(ValueError, match="passes 2\\*\\*32"):
        exponential_tree(D, epsilon, sensitivity=mu, random_state=0)
    t = noisy_max_prim_tree(D, epsilon, sensitivity=mu, delta=1e-6, random_state=0)
    assert t.edges.shape == (2, 2)


@pytest.mark.parametrize("name", sorted(TREE_MECHANISMS) + ["minimum_spanning_tree"])
def test_unchecked_graphs_are_still_checked_for_what_loops_index_with(name):
    # check_input=False skips validation, never the index range: a column index
    # outside the graph wrote outside the compiled loops' arrays (a segfault).
    if name == "minimum_spanning_tree":
        run = minimum_spanning_tree
    else:
        mech = get_tree_mechanism(name)
        budget = {"rho": 0.5} if mech.zcdp else {"epsilon": 1.0}
        run = partial(mech.func, sensitivity=1.0, random_state=0, **budget)
    bad = [
        sp.csr_array((np.ones(2), np.array([0, 10**6]), np.array([0, 1, 2, 2])), shape=(3, 3)),
        sp.csr_array((np.ones(2), np.array([1, -1]), np.array([0, 1, 2, 2])), shape=(3, 3)),
        sp.csr_array((np.ones(2), np.array([1, 0]), np.array([0, 1, 2, 2])), shape=(3, 3)),
        sp.coo_array(np.eye(3)),
        [[0.0, 1.0], [1.0, 0.0]],
    ]
    bad[2].indptr[1:] = [2, 1, 2]  # decreasing row pointers
    for graph in bad:
        with pytest.raises((ValueError, TypeError), match="check_input=False is for canonical"):
            run(graph, check_input=False)
