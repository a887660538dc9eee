"""Debiased spectral clustering on graphs whose top eigenvalues cluster (a path, a cycle, a
grid, a star with a sparse release: the eigensolver's restarts are capped and a block
Krylov fallback takes over) and on releases with few or no edges (the count of
communities stays within what the release holds)."""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from skdpgraph.cluster import DebiasedSpectralClustering, RandomizedResponseSpectralClustering
from skdpgraph.edge_dp import debiased_spectral_clustering


def _path(n):
    i = np.arange(n - 1)
    A = sp.csr_array((np.ones(n - 1), (i, i + 1)), shape=(n, n))
    return (A + A.T).tocsr()


def _cycle(n):
    i = np.arange(n)
    A = sp.csr_array((np.ones(n), (i, (i + 1) % n)), shape=(n, n))
    return (A + A.T).tocsr()


def _fit(est, A):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(A)


def test_path_whose_top_eigenvalues_are_1e_7_apart_gets_two_clusters():
    # The top eigenvalues of a 3,000-node path, 2 cos(pi j / 3001), are about
    # 1e-6 apart: ARPACK at tolerance 1e-8 does not converge within its cap and the
    # block Krylov fallback gives the embedding. Two halves of a path, roughly.
    n = 3000
    res = debiased_spectral_clustering(_path(n), 0.0, n_clusters=2, random_state=0)
    assert res.labels.shape == (n,)
    assert res.n_clusters == 2
    assert res.embedding.shape == (n, 2)
    assert np.all(np.diff(res.eigenvalues) <= 1e-12)
    assert 1.9 < res.eigenvalues[0] <= 2.0 + 1e-9
    # The embedding is orthonormal and nearly invariant.
    np.testing.assert_allclose(res.embedding.T @ res.embedding, np.eye(2), atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda: _path(10_000), lambda: _cycle(10_000)])
def test_long_path_and_cycle_finish_with_one_community(make):
    A = make()
    model = _fit(DebiasedSpectralClustering(random_state=0), A)
    assert model.labels_.shape == (10_000,)
    assert model.n_clusters_ == 1
    assert model.eigenvalues_.size == 16
    assert np.all(model.eigenvalues_ <= model.bulk_edge_)
    model = _fit(DebiasedSpectralClustering(2, random_state=0), A)
    assert model.labels_.shape == (10_000,) and model.n_clusters_ == 2


@pytest.mark.slow
def test_grid_finishes_with_its_true_top_eigenvalues():
    # A 100 x 100 grid: the eigenvalues 2 cos(pi a / 101) + 2 cos(pi b / 101),
    # about 1e-3 apart at the top, some above the asymptotic edge 2 sqrt(n r (1 - r)).
    # The first 16 come from the capped ARPACK and the fallback; the count is made
    # from them, and the k of belief propagation (twice the count) is solved again.
    A = nx.to_scipy_sparse_array(nx.grid_2d_graph(100, 100), format="csr")
    model = _fit(DebiasedSpectralClustering(random_state=0), A)
    assert model.labels_.shape == (10_000,)
    c = 2 * np.cos(np.pi * np.arange(1, 101) / 101)
    vals = np.sort(np.add.outer(c, c).ravel())[::-1]
    expected = int(np.sum(vals > model.bulk_edge_))
    assert 2 <= model.eigenvalues_.size <= 2 * expected
    k = model.eigenvalues_.size
    np.testing.assert_allclose(model.eigenvalues_, vals[:k], atol=1e-6)
    assert 1 <= model.n_clusters_ <= k


@pytest.mark.slow
def test_star_with_a_sparse_release_finishes():
    # The hub's eigenvalue stands alone; below it, the trees of the released noise
    # edges hanging off the hub give many nearly equal eigenvalues.
    leaves = 200_000
    rows = np.zeros(leaves, dtype=np.int64)
    A = sp.csr_array((np.ones(leaves), (rows, np.arange(1, leaves + 1))),
                     shape=(leaves + 1, leaves + 1))
    A = (A + A.T).tocsr()
    model = _fit(RandomizedResponseSpectralClustering(epsilon=13.0, random_state=0), A)
    assert model.labels_.shape == (leaves + 1,)
    assert model.n_clusters_ == 1
    assert model.eigenvalues_[0] == pytest.approx(np.sqrt(leaves), rel=0.01)


@pytest.mark.parametrize("n", [300, 3000])
def test_release_without_edges_is_one_community(n):
    # At epsilon 40 the release of an edgeless graph has no edge: every vector
    # orthogonal to the ones is an eigenvector of the debiased operator, with the
    # eigenvalue p / (1 - 2p) where the noise edge is; nothing is counted.
    model = _fit(RandomizedResponseSpectralClustering(epsilon=40.0, random_state=0),
                 sp.csr_array((n, n)))
    assert model.released_graph_.nnz == 0
    assert model.labels_.shape == (n,)
    assert model.n_clusters_ == 1
    assert model.eigenvalues_.size == 16


def test_isolated_released_edges_are_not_communities():
    # An edgeless graph of 5,000 nodes at epsilon 9: about 1,500 released noise
    # edges, nearly all isolated, each with eigenvalue about 1 above the edge
    # 2 sqrt(n r) ~ 0.8. They used to count as hundreds of communities.
    n = 5000
    model = _fit(RandomizedResponseSpectralClustering(epsilon=9.0, random_state=0),
                 sp.csr_array((n, n)))
    released = model.released_graph_.nnz // 2
    assert 500 < released < 3000
    assert np.sum(model.eigenvalues_ > model.bulk_edge_) > 1
    assert model.n_clusters_ == 1
    np.testing.assert_array_equal(model.labels_, 0)


def test_cliques_beside_released_trees_are_still_counted():
    # Four disjoint 20-cliques and 500 isolated edges among 20,000 nodes: the
    # released degree is 0.13, so the edge 2 sqrt(n r) ~ 0.7 lies below the
    # isolated edges' eigenvalue 1. The cliques' eigenvalues (19) are
    # communities, the isolated edges' are not.
    n = 20_000
    blocks = [sp.csr_array(np.ones((20, 20)) - np.eye(20))] * 4 + [sp.csr_array((n - 80, n - 80))]
    A = sp.csr_array(sp.block_diag(blocks))
    u = 80 + 2 * np.arange(500)
    E = sp.csr_array((np.ones(500), (u, u + 1)), shape=(n, n))
    A = (A + E + E.T).tocsr()
    model = _fit(DebiasedSpectralClustering(refine="likelihood", random_state=0), A)
    # The isolated edges' eigenvalues come next, so the count is made on the
    # components with a cycle (the cliques); the rest is one more cluster.
    assert np.sum(model.eigenvalues_ > model.bulk_edge_) == 4
    np.testing.assert_allclose(model.eigenvalues_[:4], 19.0)
    assert model.n_clusters_ == 5
    for b in range(4):
        assert np.unique(model.labels_[20 * b:20 * (b + 1)]).size == 1
    assert np.unique(model.labels_[:80]).size == 4
    assert np.unique(model.labels_[80:]).size == 1


def test_communities_below_the_eigenvalues_of_released_trees_are_found():
    # 20 large stars (eigenvalues sqrt(60..193), 7.7 to 13.9) fill the top 16
    # eigenvalues above three 8-cliques (eigenvalue 7): the count is then made on
    # the components with a cycle, and the star and isolated nodes form one more
    # cluster.
    rows, cols, base = [], [], 0
    for s in range(20):
        degree = 60 + 7 * s
        rows += [base] * degree
        cols += list(range(base + 1, base + degree + 1))
        base += degree + 1
    cliques = []
    for _ in range(3):
        i, j = np.triu_indices(8, 1)
        rows += list(base + i)
        cols += list(base + j)
        cliques.append(np.arange(base, base + 8))
        base += 8
    n = base + 200
    A = sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    A = (A + A.T).tocsr()
    model = _fit(DebiasedSpectralClustering(flip_probability=1e-4, random_state=0), A)
    assert model.n_clusters_ == 4
    found = [np.unique(model.labels_[c]) for c in cliques]
    assert all(f.size == 1 for f in found) and len({int(f[0]) for f in found}) == 3
    rest = np.setdiff1d(np.arange(n), np.concatenate(cliques))
    assert np.unique(model.labels_[rest]).size == 1
