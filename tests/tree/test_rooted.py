"""root_forest on shapes whose degree or depth is as large as can be (the compiled BFS,
counting sort and explicit stack)."""

import numpy as np
import pytest

from skdpgraph.tree import path_max, root_forest


def _check_rooting(f, n):
    assert np.array_equal(f.tin[f.order], np.arange(n))
    assert np.array_equal(np.sort(f.order), np.arange(n))


N = 200_000


def test_rooting_of_a_star():
    edges = np.column_stack([np.zeros(N - 1, dtype=np.int64), np.arange(1, N)])
    f = root_forest(edges, np.arange(N - 1.0), N)
    _check_rooting(f, N)
    assert f.order.tolist() == list(range(N))
    assert f.size[0] == N and np.all(f.size[1:] == 1)
    assert np.array_equal(f.depth, np.minimum(np.arange(N), 1))
    np.testing.assert_array_equal(f.parent_weight[1:], np.arange(N - 1.0))
    np.testing.assert_array_equal(f.parent_rank, np.arange(-1, N - 1))


def test_rooting_of_a_path_rooted_in_its_middle():
    # node ids make the path go 0 - 2 - 4 - ... and 0 - 1 - 3 - 5 - ...:
    # two arms of depth N / 2 below the root 0.
    evens = np.arange(0, N, 2)
    odds = np.arange(1, N, 2)
    a = np.concatenate([evens[:-1], [0], odds[:-1]])
    b = np.concatenate([evens[1:], [1], odds[1:]])
    edges = np.sort(np.column_stack([a, b]), axis=1)
    edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
    f = root_forest(edges, np.ones(N - 1), N)
    _check_rooting(f, N)
    # children in increasing node order: the odd arm (through 1) first
    assert f.order.tolist() == [0] + odds.tolist() + evens[1:].tolist()
    assert f.depth.max() == N // 2
    assert f.size[1] == N // 2 and f.size[2] == N // 2 - 1


def test_rooting_of_many_pairs():
    edges = np.column_stack([np.arange(0, N, 2), np.arange(1, N, 2)])
    f = root_forest(edges, np.ones(N // 2), N)
    _check_rooting(f, N)
    assert f.order.tolist() == list(range(N))
    assert np.array_equal(f.comp_start, np.arange(0, N + 1, 2))
    assert np.array_equal(f.parent, np.where(np.arange(N) % 2, np.arange(N) - 1, -1))


def test_rooting_of_isolated_nodes_and_an_empty_forest():
    f = root_forest(np.empty((0, 2), dtype=np.int64), np.empty(0), 4)
    assert f.order.tolist() == [0, 1, 2, 3]
    assert f.comp_start.tolist() == [0, 1, 2, 3, 4]
    assert np.all(f.parent == -1) and np.all(f.parent_weight == -np.inf)


def test_root_forest_refuses_what_is_not_a_forest():
    for edges, weights, match in [(np.array([[0, 5]]), np.ones(1), r"\[0, n\)"),
                                  (np.array([[-1, 1]]), np.ones(1), r"\[0, n\)"),
                                  (np.array([[0, 1], [1, 2], [0, 2]]), np.ones(3), "cycle"),
                                  (np.array([[0, 0]]), np.ones(1), "itself"),
                                  (np.array([[0, 1]]), np.ones(2), "one real number per edge"),
                                  (np.array([0, 1]), np.ones(1), r"shape \(m, 2\)")]:
        with pytest.raises(ValueError, match=match):
            root_forest(edges, weights, 3)
    # Any order and orientation; parent_rank indexes the given edges.
    f = root_forest(np.array([[3, 2], [1, 0]]), np.array([1.0, 7.0]), 4)
    np.testing.assert_array_equal(f.parent, [-1, 0, -1, 2])
    np.testing.assert_array_equal(f.parent_rank, [-1, 1, -1, 0])
    np.testing.assert_array_equal(path_max(f, np.array([0, 2]), np.array([1, 3])), [7.0, 1.0])
    with pytest.raises(ValueError, match="same tree"):
        path_max(f, np.array([0]), np.array([3]))


def test_path_max_of_no_query():
    f = root_forest(np.array([[0, 1]]), np.array([1.0]), 2)
    assert path_max(f, [], []).shape == (0,)
