"""Compiled kernels: what they may not do, and their results on extreme shapes.

The kernels' laws and outputs are checked where their algorithms are (the
exactness tests of the UST samplers, the rooting against a plain DFS); here:
no kernel draws randomness or is imported by ``import skdpgraph``, and the
rooting is right on shapes whose degree or depth is as large as can be.
"""

import ast
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import skdpgraph
from skdpgraph.tree import root_forest
from skdpgraph.utils import n_components

PACKAGE = pathlib.Path(skdpgraph.__file__).parent
KERNEL_MODULES = sorted(PACKAGE.rglob("_*_kernels.py"))


def test_there_are_kernel_modules():
    assert len(KERNEL_MODULES) >= 3


@pytest.mark.parametrize("path", KERNEL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_kernels_draw_nothing(path):
    # Random values come from skdpgraph.privacy and the generator of
    # random_state, passed in as arrays: a kernel names no random module.
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any("random" in name for name in names), (
                f"{path.name}:{node.lineno} imports randomness")
        if isinstance(node, ast.Attribute):
            assert node.attr != "random", f"{path.name}:{node.lineno} uses .random"
        if isinstance(node, ast.Name):
            assert "random" not in node.id, f"{path.name}:{node.lineno} uses {node.id}"


def test_import_skdpgraph_does_not_import_numba():
    code = ("import sys, skdpgraph, skdpgraph.tree, skdpgraph.cluster, skdpgraph.utils; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


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


def test_n_components_of_sparse_graphs():
    import scipy.sparse as sp

    from skdpgraph.utils import edges_to_csr

    rng = np.random.default_rng(0)
    for n in (1, 2, 50, 3000):
        m = int(rng.integers(0, 2 * n))
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = u != v
        key = np.unique(np.minimum(u[keep], v[keep]) * n + np.maximum(u[keep], v[keep]))
        G = edges_to_csr(key // n, key % n, np.ones(key.size), n)
        expected = sp.csgraph.connected_components(G, directed=False)[0]
        assert n_components(G) == expected
