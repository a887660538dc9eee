"""Community detection under edge-DP: randomized response (+ subsampling) with debiased
spectral clustering, and the central noisy power method."""

import itertools
import math
import re
import warnings
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from _failing_stderr import FailingStderr
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.datasets import make_lfr_graph
from skdpgraph.exceptions import BudgetError, DenseMemoryError
from skdpgraph.utils import config_context
from skdpgraph.cluster import (
    DebiasedSpectralClustering,
    NoisyPowerClustering,
    PrivateGraphClustering,
    PrivateLabelPropagation,
    RandomizedResponseSpectralClustering,
)
from skdpgraph.edge_dp import (
    EdgeFlipPerturbation,
    belief_propagation_communities,
    debiased_adjacency,
    debiased_spectral_clustering,
    expected_added_edges,
    flip_edges,
    noisy_power_method,
    pig_s_from_epsilon,
    refine_communities,
)
from skdpgraph.privacy import (
    BudgetAccountant,
    edge_product_sensitivity,
    gaussian_sigma,
    noisy_power_budget,
    randomized_response_probability,
)


def _planted(blocks=3, size=60, p_in=0.3, p_out=0.02, seed=0):
    G = nx.planted_partition_graph(blocks, size, p_in, p_out, seed=seed)
    return nx.to_scipy_sparse_array(G, nodelist=range(blocks * size), format="csr"), \
        np.repeat(np.arange(blocks), size)


# ---------------------------------------------------------------------------
# Exact privacy audit of the bit-level mechanism
# ---------------------------------------------------------------------------

def _output_law(edges, n_pairs, p, q):
    """Exact law of the released pair set: dict output-bits -> probability."""
    p, q = Fraction(p), Fraction(q)
    one = {True: (1 - p) * q, False: p * q}
    law = {}
    for out in itertools.product((0, 1), repeat=n_pairs):
        prob = Fraction(1)
        for pair, bit in enumerate(out):
            p1 = one[pair in edges]
            prob *= p1 if bit else 1 - p1
        law[out] = prob
    return law


def _max_log_ratio(p, q, n_pairs=6):
    worst = 0.0
    # Every pair of neighbouring graphs on 4 nodes that differ in pair 0.
    for rest in itertools.product((0, 1), repeat=n_pairs - 1):
        base = {i + 1 for i, b in enumerate(rest) if b}
        a, b = _output_law(base, n_pairs, p, q), _output_law(base | {0}, n_pairs, p, q)
        for out in a:
            worst = max(worst, abs(math.log(a[out] / b[out])))
        if len(base) >= 2:
            break  # the law factorises over pairs: a few graphs cover every case
    return worst


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 4.0])
@pytest.mark.parametrize("q", [1.0, 0.3])
def test_subsampled_randomized_response_is_exactly_epsilon_dp(epsilon, q):
    p = randomized_response_probability(epsilon)
    loss = _max_log_ratio(p, q)
    assert loss <= epsilon + 1e-12
    assert loss == pytest.approx(epsilon, abs=1e-9)  # tight: a released 1


def test_audit_catches_a_wrong_calibration():
    # Using s = 1 / (1 + e^eps) as the flip probability (s and p confused)
    # halves the noise and overspends.
    epsilon = 2.0
    wrong = pig_s_from_epsilon(epsilon) / 4
    assert _max_log_ratio(wrong, 1.0) > epsilon + 0.5


def test_sampler_follows_the_bit_law():
    # Per-pair release frequencies on a 30-node graph (435 pairs).
    rng = np.random.default_rng(12345)
    A = nx.to_scipy_sparse_array(nx.path_graph(30), format="csr")
    p, q, reps = 0.2, 0.5, 600
    counts = np.zeros((30, 30))
    for _ in range(reps):
        counts += flip_edges(A, 2 * p, random_state=rng, sample_rate=q).toarray()
    iu = np.triu_indices(30, 1)
    expected = np.where(A.toarray() > 0, (1 - p) * q, p * q)[iu]
    z = (counts[iu] / reps - expected) / np.sqrt(expected * (1 - expected) / reps)
    # Exact binomial tails: P(max |z| >= 7) < 5e-8 over the 435 pairs (6.5
    # would be 7e-7, too close to the 1e-6 budget: Bin(600, 0.1) is skewed);
    # a miscalibrated p moves the sum by many units, so the sum keeps the power.
    assert np.abs(z).max() < 7.0
    assert abs(z.sum() / math.sqrt(z.size)) < 5.5  # 4e-8


def test_sparse_sampler_counts():
    # Large sparse graph: the O(|E| + added) path; kept and added counts.
    n = 3000
    A = nx.to_scipy_sparse_array(nx.cycle_graph(n), format="csr")
    p, q = randomized_response_probability(8.0), 0.4
    P = flip_edges(A, 2 * p, random_state=7, sample_rate=q)
    kept = P.multiply(A).nnz // 2
    added = P.nnz // 2 - kept
    m, non = n, n * (n - 1) // 2 - n
    for got, trials, prob in ((kept, m, (1 - p) * q), (added, non, p * q)):
        mean, sd = trials * prob, math.sqrt(trials * prob * (1 - prob))
        assert abs(got - mean) < 6 * sd


# ---------------------------------------------------------------------------
# Noisy power method: sensitivity and calibration
# ---------------------------------------------------------------------------

def test_edge_product_sensitivity_bounds_one_edge_change():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, k = int(rng.integers(3, 30)), int(rng.integers(1, 5))
        X = rng.standard_normal((n, k)) * rng.exponential(1.0, size=(n, 1))
        A = sp.random_array((n, n), density=0.3, random_state=rng)
        A = ((A + A.T) > 0).astype(float)
        A.setdiag(0)
        i, j = rng.choice(n, 2, replace=False)
        B = A.tolil()
        B[i, j] = B[j, i] = 1 - B[i, j]
        diff = np.linalg.norm((B.tocsr() - A) @ X)
        bound = edge_product_sensitivity(X)
        assert diff <= bound * (1 + 1e-12)
        assert bound <= math.sqrt(2) * np.linalg.norm(X, axis=1).max() * (1 + 1e-12)
    # Tight for the two rows of largest norm.
    X = np.array([[3.0, 4.0], [0.0, 1.0], [1.0, 0.0]])
    A = np.zeros((3, 3))
    B = A.copy()
    B[0, 1] = B[1, 0] = 1  # pair of rows 0 and (tied) 1
    assert np.linalg.norm((B - A) @ X) == pytest.approx(edge_product_sensitivity(X))


def test_noisy_power_calibration_comes_from_privacy():
    A, _ = _planted()
    res = noisy_power_method(A, 3, epsilon=2.0, delta=1e-6, n_iter=4, random_state=0)
    rho_step, rho = noisy_power_budget(4, epsilon=2.0, delta=1e-6)
    assert res.rho == rho
    sigma = np.array([gaussian_sigma(s, rho_step) for s in res.sensitivities])
    # The grid rounding adds at most 0.2 % to the noise.
    assert np.all(res.noise_scales >= sigma) and np.all(res.noise_scales <= sigma * 1.002)
    assert np.all(res.sensitivities <= math.sqrt(2))
    np.testing.assert_allclose(res.embedding.T @ res.embedding, np.eye(3), atol=1e-10)


def test_noisy_power_follows_the_largest_eigenvalues_not_the_largest_magnitudes():
    # The karate club's spectrum by magnitude is 6.73, 4.98, -4.49: without the shift the
    # second column chased -4.49 (ARI about 0 with the factions in 4 of 5 seeds, nearly
    # noiseless); with it, the two largest eigenvectors and the factions' split.
    G = nx.karate_club_graph()
    truth = [G.nodes[v]["club"] == "Officer" for v in G]
    scores = [adjusted_rand_score(truth, noisy_power_method(G, 2, rho=1e6, random_state=seed)
                                  .labels) for seed in range(5)]
    assert np.median(scores) > 0.8
    res = noisy_power_method(G, 2, rho=1e6, n_iter=30, random_state=0)
    top = np.linalg.eigvalsh(nx.to_numpy_array(G, weight=None))[::-1][:2]
    np.testing.assert_allclose(np.sort(res.eigenvalues)[::-1], top, rtol=1e-3)


def test_noisy_power_needs_delta():
    with pytest.raises(ValueError, match="delta"):
        noisy_power_budget(3, epsilon=1.0)


# ---------------------------------------------------------------------------
# Utility (seeded)
# ---------------------------------------------------------------------------

def test_debiased_operator_is_the_formula():
    A = nx.to_numpy_array(nx.karate_club_graph()) > 0
    p, q = 0.1, 0.5
    M = debiased_adjacency(A, p, sample_rate=q) @ np.eye(34)
    J = np.ones((34, 34)) - np.eye(34)
    np.testing.assert_allclose(M, (A / q - p * J) / (1 - 2 * p))


@pytest.mark.slow
def test_randomized_response_spectral_recovers_planted_partition():
    A, y = _planted()
    for seed in range(3):
        model = RandomizedResponseSpectralClustering(3, epsilon=3.0, random_state=seed).fit(A)
        assert adjusted_rand_score(y, model.labels_) > 0.9
        assert model.epsilon_spent_ == 3.0
        assert model.flip_probability_ == randomized_response_probability(3.0)
    auto = RandomizedResponseSpectralClustering(epsilon=4.0, random_state=0).fit(A)
    assert auto.n_clusters_ == 3


def test_subsampled_release_is_debiased():
    A, y = _planted(size=80)
    model = RandomizedResponseSpectralClustering(3, epsilon=4.0, sample_rate=0.5,
                                                 random_state=0).fit(A)
    assert adjusted_rand_score(y, model.labels_) > 0.9


def test_refinement_fixes_misassigned_nodes():
    A, y = _planted()
    wrong = y.copy()
    wrong[::7] = (wrong[::7] + 1) % 3
    assert adjusted_rand_score(y, refine_communities(A, wrong)) == 1.0


def test_belief_propagation_fixes_misassigned_nodes():
    A, y = _planted()
    wrong = y.copy()
    wrong[::7] = (wrong[::7] + 1) % 3
    labels = belief_propagation_communities(A, wrong)
    assert labels.dtype == np.int64 and labels.shape == y.shape
    assert adjusted_rand_score(y, labels) == 1.0


def test_belief_propagation_handles_isolated_nodes_and_one_community():
    A, y = _planted()
    A = sp.block_diag([A, sp.csr_array((5, 5))], format="csr")
    start = np.concatenate([y, [0, 1, 2, 0, 1]])
    labels = belief_propagation_communities(A, start)
    assert labels.shape == (A.shape[0],)
    assert adjusted_rand_score(y, labels[:-5]) == 1.0
    np.testing.assert_array_equal(belief_propagation_communities(A, np.zeros(A.shape[0])),
                                  np.zeros(A.shape[0], dtype=np.int64))


@pytest.mark.slow
@pytest.mark.parametrize("refine", ["bp", "likelihood", "auto", True, False])
def test_refine_options_through_both_estimators(refine):
    A, y = _planted(size=80)
    p = randomized_response_probability(6.0)
    released = flip_edges(A, 2 * p, random_state=1)
    for make in (
        lambda: RandomizedResponseSpectralClustering(3, epsilon=6.0, refine=refine,
                                                     random_state=0),
        lambda: DebiasedSpectralClustering(3, flip_probability=p, refine=refine,
                                           random_state=0),
    ):
        X = A if isinstance(make(), RandomizedResponseSpectralClustering) else released
        first, second = make().fit(X), make().fit(X)
        labels = first.labels_
        # A valid partition numbered 0..k'-1, reproducible given random_state.
        assert labels.shape == (A.shape[0],)
        np.testing.assert_array_equal(np.unique(labels), np.arange(first.n_clusters_))
        np.testing.assert_array_equal(labels, second.labels_)
        # High epsilon: the planted communities are recovered.
        assert adjusted_rand_score(y, labels) == 1.0
        if refine is False:
            np.testing.assert_array_equal(labels, first.spectral_labels_)


def test_bp_refinement_in_pipeline_and_function():
    A, y = _planted(size=80)
    pipe = make_pipeline(RandomizedResponseSpectralClustering(3, epsilon=6.0, refine="bp",
                                                              random_state=0))
    assert adjusted_rand_score(y, pipe.fit(A).named_steps[
        "randomizedresponsespectralclustering"].labels_) == 1.0
    assert adjusted_rand_score(y, pipe.fit_predict(A)) == 1.0
    p = randomized_response_probability(6.0)
    released = flip_edges(A, 2 * p, random_state=1)
    res = debiased_spectral_clustering(released, p, n_clusters=3, refine="bp", random_state=0)
    assert adjusted_rand_score(y, res.labels) == 1.0


def _degree_corrected_blocks(blocks=6, size=100, degree=12, mix=0.1, seed=0):
    """Block graph with Pareto node weights: ``P(u ~ w) ~ theta_u theta_w``."""
    rng = np.random.default_rng(seed)
    n = blocks * size
    y = np.repeat(np.arange(blocks), size)
    theta = rng.pareto(2.5, n) + 1.0
    theta /= theta.mean()
    same = y[:, None] == y[None, :]
    prob = np.outer(theta, theta) * np.where(same, degree * (1 - mix) / size,
                                             degree * mix / (n - size))
    upper = np.triu(rng.random((n, n)) < np.minimum(prob, 1.0), 1)
    return sp.csr_array(upper | upper.T, dtype=float), y


@pytest.mark.slow
def test_degree_corrected_bp_uses_the_flip_channel():
    # Heterogeneous degrees seen through randomized response: the
    # degree-corrected model with the public flip probability beats the
    # planted partition from the same start, and is not far from the truth.
    # Means over five releases (the margin of one release varies by +-0.05).
    A, y = _degree_corrected_blocks()
    p = randomized_response_probability(3.0)
    scores = []
    for seed in range(5):
        released = flip_edges(A, 2 * p, random_state=seed)
        start = debiased_spectral_clustering(released, p, n_clusters=6, refine=False,
                                             random_state=0).labels
        planted = belief_propagation_communities(released, start, degree_corrected=False)
        blind = belief_propagation_communities(released, start)  # channel ignored: p = 0
        corrected = belief_propagation_communities(released, start, flip_probability=p)
        scores.append([adjusted_rand_score(y, lab) for lab in (start, planted, blind, corrected)])
    ari_start, ari_planted, ari_blind, ari_corrected = np.mean(scores, axis=0)
    assert ari_corrected > ari_planted + 0.02
    assert ari_corrected > ari_blind + 0.01
    assert ari_corrected > ari_start
    assert ari_corrected > 0.6
    # Post-processing: deterministic, a partition numbered 0..k'-1.
    np.testing.assert_array_equal(
        corrected, belief_propagation_communities(released, start, flip_probability=p))
    np.testing.assert_array_equal(np.unique(corrected), np.arange(corrected.max() + 1))


@pytest.mark.parametrize("degree_corrected", [True, False])
def test_bp_on_hubs_whose_factor_products_underflow(degree_corrected):
    # Node 0 and node 200 are joined to every node of their own block (199 edges):
    # for a wrong community the product of their edge factors, about p_out**199,
    # is far below the smallest double, so the sweep takes it as a sum of logs of
    # shorter products. The hubs must stay in their blocks, with every node.
    A, y = _planted(blocks=3, size=200, p_in=0.1, p_out=0.005, seed=3)
    A = A.tolil()
    for hub in (0, 200):
        A[hub, y == y[hub]] = 1.0
        A[y == y[hub], hub] = 1.0
        A[hub, hub] = 0.0
    A = A.tocsr()
    start = y.copy()
    start[::5] = (start[::5] + 1) % 3  # the hubs start in the wrong block
    labels = belief_propagation_communities(A, start, degree_corrected=degree_corrected)
    assert adjusted_rand_score(y, labels) == 1.0


def test_degree_corrected_bp_without_noise_keeps_a_clean_partition():
    A, y = _degree_corrected_blocks(blocks=3, size=80, degree=20, mix=0.05, seed=1)
    wrong = y.copy()
    wrong[::9] = (wrong[::9] + 1) % 3
    labels = belief_propagation_communities(A, wrong)
    assert adjusted_rand_score(y, labels) > 0.95


@pytest.mark.parametrize("kwargs, error, match", [
    ({"flip_probability": 0.5}, ValueError, "flip_probability"),
    ({"flip_probability": -0.1}, ValueError, "flip_probability"),
    ({"sample_rate": 0.0}, ValueError, "sample_rate"),
    ({"degree_corrected": "yes"}, TypeError, "degree_corrected"),
])
def test_belief_propagation_bad_channel_parameters(kwargs, error, match):
    A, y = _planted()
    with pytest.raises(error, match=match):
        belief_propagation_communities(A, y, **kwargs)


def test_belief_propagation_refuses_past_the_memory_limit():
    A, y = _planted()
    limit = 8.0 * A.nnz * 3 * 2  # two (nnz, k) arrays
    with config_context(max_dense_memory=limit - 1):
        with pytest.raises(DenseMemoryError, match="Belief propagation with 3 labels"):
            belief_propagation_communities(A, y)
        with pytest.raises(DenseMemoryError, match="likelihood"):
            debiased_spectral_clustering(A, 0.0, n_clusters=3, refine="bp", random_state=0)
    with config_context(max_dense_memory=limit):
        assert adjusted_rand_score(y, belief_propagation_communities(A, y)) == 1.0


@pytest.mark.slow
def test_auto_refine_falls_back_to_likelihood_on_large_releases():
    # A dense release (nnz * 2k above the message bound): "auto" gives the
    # likelihood refinement's labels, and BP's on a small one.
    A, y = _planted(size=500, p_in=0.05, p_out=0.01)
    p = randomized_response_probability(0.5)
    big = flip_edges(A, 2 * p, random_state=0)
    assert big.nnz * 2 * 3 > 4e6
    auto, likelihood = (debiased_spectral_clustering(big, p, n_clusters=3, refine=r, n_init=1,
                                                     random_state=0).labels
                        for r in ("auto", "likelihood"))
    np.testing.assert_array_equal(auto, likelihood)
    A, _ = _planted()
    p = randomized_response_probability(4.0)
    released = flip_edges(A, 2 * p, random_state=0)
    # "auto" also stays within max_dense_memory instead of refusing.
    with config_context(max_dense_memory=1e5):
        np.testing.assert_array_equal(
            debiased_spectral_clustering(released, p, n_clusters=3, random_state=0).labels,
            debiased_spectral_clustering(released, p, n_clusters=3, refine="likelihood",
                                         random_state=0).labels)
    p = randomized_response_probability(4.0)
    released = flip_edges(A, 2 * p, random_state=0)
    small = [debiased_spectral_clustering(released, p, n_clusters=3, refine=r,
                                          random_state=0).labels for r in ("auto", "bp")]
    np.testing.assert_array_equal(*small)


@pytest.mark.slow
def test_bp_refinement_keeps_few_communities_whole():
    # Four equal blocks near the detection limit: the over-segmented starts
    # end with a small extra label, which must be merged away without joining
    # two real blocks (a density-ratio merge joined two and lost 0.25 ARI).
    probs = [[0.1 if i == j else 0.01 for j in range(4)] for i in range(4)]
    A = nx.stochastic_block_model([250] * 4, probs, seed=1, sparse=True)
    y = np.repeat(np.arange(4), 250)
    p = randomized_response_probability(2.0)
    released = flip_edges(A, 2 * p, random_state=1)
    scores = {r: adjusted_rand_score(y, debiased_spectral_clustering(
        released, p, n_clusters=4, refine=r, random_state=1).labels) for r in ("bp", "likelihood")}
    assert scores["bp"] > 0.8
    assert scores["bp"] > scores["likelihood"] - 0.02


@pytest.mark.slow
def test_default_route_beats_likelihood_on_lfr_at_epsilon_3():
    # The LFR graph (1,000 nodes, mixing 0.1) released at epsilon 3,
    # near the limit of what the release shows: the default refinement
    # (degree-corrected BP) recovers clearly more than the planted-partition EM.
    data = make_lfr_graph(1000, average_degree=10, mu=0.1, tau1=3, tau2=1.5, min_community=30,
                          max_community=100, max_degree=50, random_state=0)
    k = len(np.unique(data.labels))
    scores = {r: adjusted_rand_score(data.labels, RandomizedResponseSpectralClustering(
        k, epsilon=3.0, refine=r, random_state=0).fit(data.graph).labels_)
        for r in (True, "likelihood")}
    assert scores[True] > scores["likelihood"] + 0.05
    assert scores[True] > 0.6


@pytest.mark.parametrize("refine", ["BP", "em", "", None, 1.5])
def test_bad_refine_values(refine):
    A, _ = _planted()
    for est in (RandomizedResponseSpectralClustering(3, epsilon=3.0, refine=refine),
                DebiasedSpectralClustering(3, flip_probability=0.1, refine=refine)):
        with pytest.raises(ValueError, match="refine"):
            est.fit(A)
    with pytest.raises(ValueError, match="refine must be"):
        debiased_spectral_clustering(A, 0.1, n_clusters=3, refine=refine)


def test_noisy_power_recovers_dense_blocks():
    A, y = _planted(blocks=2, size=150, p_in=0.5, p_out=0.05)
    model = NoisyPowerClustering(2, epsilon=6.0, random_state=0).fit(A)
    assert adjusted_rand_score(y, model.labels_) > 0.9


def test_private_graph_clustering_passes_flip_probability():
    A, y = _planted()
    est = DebiasedSpectralClustering(3, random_state=0)
    model = PrivateGraphClustering(est, epsilon=3.0, random_state=0, sample_rate=0.8).fit(A)
    assert model.estimator_.flip_probability == randomized_response_probability(3.0)
    assert model.estimator_.sample_rate == 0.8
    assert est.flip_probability == 0.0  # the caller's estimator is untouched
    assert adjusted_rand_score(y, model.labels_) > 0.9


def test_pipeline_with_flip_probability():
    A, y = _planted()
    eps = 3.0
    pipe = make_pipeline(
        EdgeFlipPerturbation(epsilon=eps, random_state=0),
        DebiasedSpectralClustering(3, flip_probability=randomized_response_probability(eps),
                                   random_state=0))
    assert adjusted_rand_score(y, pipe.fit_predict(A)) > 0.9


# ---------------------------------------------------------------------------
# Accounting, errors, inputs
# ---------------------------------------------------------------------------

def test_accountant_charged_before_release():
    A, _ = _planted()
    acc = BudgetAccountant(epsilon=5.0, delta=1e-5)
    RandomizedResponseSpectralClustering(3, epsilon=3.0, random_state=0, accountant=acc).fit(A)
    NoisyPowerClustering(3, epsilon=1.0, delta=1e-6, random_state=0, accountant=acc).fit(A)
    assert acc.spent_budget == [(3.0, 0.0), (1.0, 1e-6)]
    model = RandomizedResponseSpectralClustering(3, epsilon=3.0, accountant=acc)
    with pytest.raises(BudgetError):
        model.fit(A)
    assert not hasattr(model, "labels_")


def test_rho_budget_is_charged_as_epsilon_delta():
    A, _ = _planted()
    acc = BudgetAccountant()
    model = NoisyPowerClustering(3, rho=0.5, delta=1e-6, random_state=0, accountant=acc).fit(A)
    assert model.rho_spent_ == 0.5
    assert acc.spent_budget == [(model.epsilon_spent_, 1e-6)]


def test_too_large_release_refused_with_the_number():
    n = 100_000
    A = sp.csr_array((n, n))
    acc = BudgetAccountant()
    expected = expected_added_edges(n, pig_s_from_epsilon(1.0))
    msg = f"about {expected:,.0f} edges"
    with pytest.raises(ValueError, match=re.escape(msg)):
        RandomizedResponseSpectralClustering(epsilon=1.0, accountant=acc).fit(A)
    assert acc.spent_budget == []  # refused before any charge
    with pytest.raises(ValueError, match="max_added_edges"):
        flip_edges(A, pig_s_from_epsilon(2.0))
    with pytest.raises(ValueError, match="sample_rate <="):
        PrivateGraphClustering(DebiasedSpectralClustering(), epsilon=1.0).fit(A)
    # Raising the limit or subsampling makes it fit (here: tiny q, nothing big allocated).
    small = flip_edges(A, pig_s_from_epsilon(8.0), random_state=0, sample_rate=0.01)
    assert small.shape == (n, n)


@pytest.mark.parametrize("make, match", [
    (lambda: RandomizedResponseSpectralClustering(epsilon=0.0), "epsilon"),
    (lambda: RandomizedResponseSpectralClustering(epsilon=-1.0), "epsilon"),
    (lambda: RandomizedResponseSpectralClustering(epsilon=math.inf), "epsilon"),
    (lambda: RandomizedResponseSpectralClustering(sample_rate=0.0), "sample_rate"),
    (lambda: RandomizedResponseSpectralClustering(n_clusters=200), "n_clusters=200"),
    (lambda: RandomizedResponseSpectralClustering(n_clusters="many"), "n_clusters"),
    (lambda: DebiasedSpectralClustering(flip_probability=0.5), "flip_probability"),
    (lambda: NoisyPowerClustering(n_clusters=500), "n_clusters=500"),
    (lambda: NoisyPowerClustering(delta=0.0), "delta"),
    (lambda: NoisyPowerClustering(epsilon=0.0), "epsilon"),
])
def test_bad_parameters(make, match):
    A, _ = _planted()
    with pytest.raises(ValueError, match=match):
        make().fit(A)


def test_bad_function_parameters():
    A, y = _planted()
    with pytest.raises(ValueError, match="flip_probability"):
        debiased_spectral_clustering(A, 0.6)
    with pytest.raises(ValueError, match="n_clusters=181"):
        debiased_spectral_clustering(A, 0.1, n_clusters=181)
    with pytest.raises(ValueError, match="labels must have shape"):
        refine_communities(A, y[:-1])
    with pytest.raises(ValueError, match="labels must have shape"):
        belief_propagation_communities(A, y[:-1])
    with pytest.raises(ValueError, match="damping"):
        belief_propagation_communities(A, y, damping=1.0)
    with pytest.raises(ValueError, match="sample_rate"):
        flip_edges(A, 0.1, sample_rate=1.5)


def test_flip_aware_clusterer_without_sample_rate_refused():
    from sklearn.base import BaseEstimator, ClusterMixin

    class OnlyP(ClusterMixin, BaseEstimator):
        def __init__(self, flip_probability=0.0):
            self.flip_probability = flip_probability

        def fit(self, X, y=None):
            self.labels_ = np.zeros(X.shape[0], dtype=int)
            return self

    A, _ = _planted()
    with pytest.raises(ValueError, match="cannot debias"):
        PrivateGraphClustering(OnlyP(), epsilon=2.0, sample_rate=0.5).fit(A)
    assert PrivateGraphClustering(OnlyP(), epsilon=2.0).fit(A).estimator_.flip_probability > 0


@pytest.mark.parametrize("make", [
    lambda: RandomizedResponseSpectralClustering(3, epsilon=3.0, random_state=0),
    lambda: NoisyPowerClustering(3, epsilon=3.0, n_iter=2, random_state=0),
    lambda: DebiasedSpectralClustering(3, flip_probability=0.1, random_state=0),
])
def test_inputs_not_modified(make):
    A, _ = _planted()
    A = sp.csr_matrix(A)
    D = A.toarray()
    before = (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())
    make().fit(A)
    make().fit(D)
    assert before == (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())
    np.testing.assert_array_equal(D, A.toarray())


# ---------------------------------------------------------------------------
# scikit-learn conformance and the docs
# ---------------------------------------------------------------------------

_FEATURES = (
    "check_clustering fits a 50 x 2 feature matrix, but this estimator clusters a "
    "graph given by its square adjacency matrix (and check_nonsquare_error requires "
    "non-square input to be refused)"
)


@parametrize_with_checks(
    [
        DebiasedSpectralClustering(2, flip_probability=0.1, n_init=1, random_state=0),
        DebiasedSpectralClustering(2, flip_probability=0.1, refine="bp", n_init=1,
                                   random_state=0),
        RandomizedResponseSpectralClustering(2, epsilon=3.0, n_init=1, random_state=0),
        RandomizedResponseSpectralClustering(2, epsilon=3.0, refine="bp", n_init=1,
                                             random_state=0),
        NoisyPowerClustering(2, n_iter=2, n_init=1, random_state=0),
    ],
    expected_failed_checks=lambda est: {"check_clustering": _FEATURES},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_default_constructors():
    A, _ = _planted()
    for cls in (DebiasedSpectralClustering, RandomizedResponseSpectralClustering,
                NoisyPowerClustering):
        assert cls().fit(A).labels_.shape == (A.shape[0],)
    assert RandomizedResponseSpectralClustering().epsilon == 1.0
    assert NoisyPowerClustering().epsilon == 1.0


@pytest.mark.parametrize("make", [
    lambda: PrivateGraphClustering(epsilon=2.0, random_state=0, verbose=1),
    lambda: RandomizedResponseSpectralClustering(2, epsilon=2.0, random_state=0, verbose=1),
    lambda: NoisyPowerClustering(2, epsilon=2.0, random_state=0, verbose=1),
])
def test_verbose_output_does_not_show_the_private_edge_count(make, capsys):
    A, _ = _planted(blocks=2, size=30)
    make().fit(A)
    err = capsys.readouterr().err
    assert "validation" in err and f"{A.nnz // 2} edges" not in err


def test_budgets_whose_release_cannot_be_made_are_refused_before_charging():
    G, _ = _planted(blocks=2, size=30)
    for est in [RandomizedResponseSpectralClustering(2, epsilon=1e-20, random_state=0),
                NoisyPowerClustering(2, rho=1e-30, random_state=0)]:
        acc = BudgetAccountant(epsilon=100, delta=0.5)
        with pytest.raises(ValueError, match="epsilon|noise scale"):
            est.set_params(accountant=acc).fit(G)
        assert acc.total() == (0.0, 0.0)


def test_noisy_power_sizes_past_the_memory_limit_are_refused_before_the_charge():
    from skdpgraph.exceptions import DenseMemoryError
    from skdpgraph.privacy import BudgetAccountant

    G = nx.planted_partition_graph(2, 50, 0.3, 0.02, seed=0)
    n = 40_000
    sparse = sp.csr_array((np.ones(2), ([0, 1], [1, 0])), shape=(n, n))
    for est, graph in ((NoisyPowerClustering(2, n_iter=10**18), G),
                       (NoisyPowerClustering(n - 1), sparse)):
        accountant = BudgetAccountant()
        with pytest.raises(DenseMemoryError):
            est.set_params(accountant=accountant).fit(graph)
        assert accountant.total() == (0.0, 0.0)


@pytest.mark.parametrize("n_clusters", [3, "auto"])
def test_debiased_spectral_clustering_of_a_graph_without_edges(n_clusters):
    # Nothing to debias and no edge: the operator is zero (every vector is an eigenvector).
    A = sp.csr_array((300, 300))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = DebiasedSpectralClustering(n_clusters=n_clusters, flip_probability=0.0,
                                           random_state=0).fit(A)
    assert model.labels_.shape == (300,)
    assert 1 <= model.n_clusters_ <= 3


def test_debiased_spectral_clustering_refuses_a_sample_rate_it_cannot_invert():
    A = sp.csr_array(np.ones((4, 4)) - np.eye(4))
    with pytest.raises(ValueError, match="sample_rate=5e-324 is too small to debias"):
        DebiasedSpectralClustering(n_clusters=2, flip_probability=0.1,
                                   sample_rate=5e-324).fit(A)


@pytest.mark.parametrize("make, stage, kept", [
    (lambda acc: RandomizedResponseSpectralClustering(2, epsilon=4.0, accountant=acc),
     "debiased spectral clustering", "released_graph"),
    (lambda acc: NoisyPowerClustering(2, epsilon=4.0, accountant=acc), "k-means", "embedding"),
    (lambda acc: NoisyPowerClustering(2, epsilon=4.0, accountant=acc), "noisy power", None),
    (lambda acc: PrivateLabelPropagation(2, epsilon=4.0, accountant=acc), "label propagation",
     None),
])
def test_failure_after_the_charge_says_so_and_keeps_the_release(make, stage, kept):
    import contextlib

    G = nx.planted_partition_graph(2, 30, 0.5, 0.05, seed=0)
    acc = BudgetAccountant()
    model = make(acc).set_params(verbose=1, random_state=0)
    with contextlib.redirect_stderr(FailingStderr(stage)), pytest.raises(OSError) as info:
        model.fit(G)
    assert len(acc.spent_budget) == 1  # charged once, before the failure
    note = " ".join(getattr(info.value, "__notes__", []))
    assert "was charged before it failed" in note
    if kept is None:
        assert "nothing was released" in note
    else:
        assert f".{kept}" in note and getattr(info.value, kept).shape[0] == 60
    assert not hasattr(model, "labels_")


@pytest.mark.parametrize("model", [
    NoisyPowerClustering(3, epsilon=8.0, random_state=0),
    PrivateGraphClustering(DebiasedSpectralClustering(3), epsilon=8.0, random_state=0),
    PrivateGraphClustering(epsilon=8.0, random_state=0),  # SCAN: -1 for hubs and outliers
])
def test_n_clusters_counts_the_labels(model):
    G = nx.planted_partition_graph(3, 40, 0.5, 0.02, seed=1)
    model.fit(G)
    found = np.unique(model.labels_[model.labels_ != -1])
    assert model.n_clusters_ == found.size
    assert isinstance(model.n_clusters_, int)
    if isinstance(model, NoisyPowerClustering):  # numbered 0..n_clusters_-1
        np.testing.assert_array_equal(found, np.arange(model.n_clusters_))


def test_a_warning_raised_as_an_error_after_the_charge_keeps_the_release():
    from skdpgraph.exceptions import FewerClustersWarning

    G = nx.planted_partition_graph(2, 30, 0.5, 0.05, seed=0)
    acc = BudgetAccountant()
    model = RandomizedResponseSpectralClustering(8, epsilon=1.0, random_state=0,
                                                 accountant=acc)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewerClustersWarning)
        with pytest.raises(FewerClustersWarning) as info:
            model.fit(G)
    assert acc.spent_budget == [(1.0, 0.0)]
    assert "was charged before it failed" in " ".join(info.value.__notes__)
    assert info.value.released_graph.shape == (60, 60)
