"""Central edge-DP label propagation: exact sensitivity of every release (brute force over
all neighbouring graphs on a few nodes), the votes' exact privacy loss, composition,
samplers, estimator checks, the estimate of k on both sides, and a seeded utility test."""

import itertools
import math
import warnings
from fractions import Fraction
from functools import partial

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import binom
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgraph.cluster import (
    DebiasedSpectralClustering,
    PrivateLabelPropagation,
    RandomizedResponseSpectralClustering,
)
from skdpgraph.edge_dp import (
    bit_vote_probabilities,
    bit_votes,
    block_counts,
    label_propagation_rounds,
    label_vote_probabilities,
    label_votes,
    private_label_propagation,
    release_block_counts,
)
from skdpgraph.exceptions import BudgetError, FewerClustersWarning
from skdpgraph.privacy import (
    BudgetAccountant,
    approx_dp_to_zcdp,
    bit_vote_scale,
    exponential_mechanism_zcdp,
    plan_label_propagation,
    vote_scale,
    zcdp_to_approx_dp,
)

N_TINY = 4
PAIRS = list(itertools.combinations(range(N_TINY), 2))
GRAPHS = []
for _mask in range(1 << len(PAIRS)):
    _A = np.zeros((N_TINY, N_TINY))
    for _i, (_u, _v) in enumerate(PAIRS):
        if _mask >> _i & 1:
            _A[_u, _v] = _A[_v, _u] = 1.0
    GRAPHS.append(_A)


def _neighbours(law):
    """``law`` of both graphs of every pair on 4 nodes that differ in one edge.

    All 64 graphs and all 192 neighbouring pairs; ``law(A)`` is computed
    once per graph.
    """
    laws = [law(A) for A in GRAPHS]
    for mask in range(len(GRAPHS)):
        for i in range(len(PAIRS)):
            if not mask >> i & 1:
                yield laws[mask], laws[mask | 1 << i]


def _planted(blocks=3, size=300, p_in=0.15, p_out=0.002, seed=0):
    G = nx.planted_partition_graph(blocks, size, p_in, p_out, seed=seed)
    return (nx.to_scipy_sparse_array(G, nodelist=range(blocks * size), format="csr"),
            np.repeat(np.arange(blocks), size))


# ---------------------------------------------------------------------------
# Exact sensitivity and privacy loss, over all neighbouring graphs on 5 nodes
# ---------------------------------------------------------------------------

LABELLINGS = [np.array([0, 0, 1, 2]), np.array([0, 1, 0, 1]), np.zeros(4, dtype=int)]


@pytest.mark.parametrize("lab", LABELLINGS, ids=["three", "two", "one"])
def test_block_counts_move_by_one_entry_by_one(lab):
    iu = np.triu_indices(3)
    for without, with_edge in _neighbours(lambda A: block_counts(A, lab, n_labels=3)[iu]):
        diff = with_edge - without
        assert np.abs(diff).sum() == 1.0 and diff.max() == 1.0


def _log_ratio_audit(P, Q):
    """Largest |log ratio| and largest range of log ratios over a node's outcomes."""
    R = np.log(P) - np.log(Q)
    return np.abs(R).max(), (R.max(axis=1) - R.min(axis=1)).max(), np.any(R != 0, axis=1)


@pytest.mark.parametrize("weights", [None, [1.0, 0.5, 0.25], [0.2, 1.0, 1.0]])
def test_label_votes_are_epsilon_dp_and_bounded_range(weights):
    eps = 0.7
    worst_range = 0.0
    for lab in LABELLINGS:
        for P, Q in _neighbours(lambda A: label_vote_probabilities(A, lab, eps, n_labels=3,
                                                                   weights=weights)):
            top, rng, moved = _log_ratio_audit(P, Q)
            assert top <= eps * (1 + 1e-12) and rng <= eps * (1 + 1e-12)
            assert moved.sum() <= 2  # only the two endpoints' votes change
            worst_range = max(worst_range, rng)
    assert worst_range == pytest.approx(eps, rel=1e-9)  # tight


def test_audit_catches_an_uncalibrated_weight():
    # Scaling the counts by their weights without dividing by the largest
    # weight (eta = epsilon) overspends by that weight.
    eps, w = 0.7, np.array([2.0, 1.0, 1.0])
    worst = 0.0
    for P, Q in _neighbours(lambda A: label_vote_probabilities(
            A, LABELLINGS[0], eps * w.max(), n_labels=3, weights=w)):
        worst = max(worst, _log_ratio_audit(P, Q)[1])
    assert worst > 1.9 * eps


def _renyi(p, q, alpha):
    """Renyi divergence of order alpha between two laws over the same outcomes (rows)."""
    return np.log(np.sum(p**alpha * q ** (1 - alpha), axis=-1)) / (alpha - 1)


def test_one_round_of_votes_is_exactly_within_its_zcdp_bound():
    # A round of label votes (one vote per node, independent given the public
    # labels) has the product law; its Renyi divergence between neighbouring
    # graphs is the sum over nodes and must stay below alpha * eps**2 / 4.
    eps = 0.9
    rho_round = 2 * exponential_mechanism_zcdp(eps)
    worst = 0.0
    for P, Q in _neighbours(lambda A: label_vote_probabilities(A, LABELLINGS[0], eps,
                                                               n_labels=3)):
        for alpha in (1.5, 2.0, 5.0, 20.0, 100.0):
            for a, b in ((P, Q), (Q, P)):
                d = _renyi(a, b, alpha).sum()
                worst = max(worst, d / (alpha * rho_round))
    assert worst <= 1.0 + 1e-9


def _bit_patterns():
    rng = np.random.default_rng(3)
    return [np.where(rng.random((N_TINY, 2)) < 0.5, 1.0, -1.0) for _ in range(4)] + [
        np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]),
        np.array([[1.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])]


def test_bit_votes_are_epsilon_dp_and_bounded_range():
    eps = 0.6
    worst = 0.0
    for x in _bit_patterns():
        for P, Q in _neighbours(lambda A: bit_vote_probabilities(A, x, eps)):
            for j in range(x.shape[1]):
                two = lambda p: np.stack([p[:, j], 1 - p[:, j]], axis=1)  # noqa: E731
                top, rng, moved = _log_ratio_audit(two(P), two(Q))
                assert top <= eps * (1 + 1e-12) and rng <= eps * (1 + 1e-12)
                assert moved.sum() <= 2
                worst = max(worst, rng)
    assert worst > 0.5 * eps


def test_bit_vote_bound_is_the_largest_score_change():
    # bit_vote_scale's bound W = sum|b| + |m.b| is the largest change of
    # (x_w - m).b over the bits x_w of the new neighbour, and it is reached.
    rng = np.random.default_rng(0)
    for _ in range(200):
        r = int(rng.integers(1, 4))
        m = rng.uniform(-1, 1, r)
        b = rng.normal(size=r)
        change = max(abs((np.array(x) - m) @ b) for x in itertools.product((-1, 1), repeat=r))
        eta = bit_vote_scale(1.0, m, b)
        assert eta == pytest.approx(1.0 / change, rel=1e-12)
        # Exactly within the budget: eta times the bound, in rationals, is at most 1.
        bound = (sum(abs(Fraction(v)) for v in b)
                 + abs(sum(Fraction(u) * Fraction(v) for u, v in zip(m, b))))
        assert Fraction(eta) * bound <= 1
    assert bit_vote_scale(0.4, 0.0) == 0.4
    with pytest.raises(ValueError, match="direction"):
        bit_vote_scale(1.0, [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        bit_vote_scale(1.0, 1.5)


# ---------------------------------------------------------------------------
# Samplers follow their laws
# ---------------------------------------------------------------------------

def _min_binomial_p_value(hits, reps, P):
    """Smallest two-sided exact binomial p-value of the cells (hit counts against P)."""
    below = binom.cdf(hits, reps, P)
    above = binom.sf(hits - 1, reps, P)
    return np.minimum(1.0, 2 * np.minimum(below, above)).min()


@pytest.mark.slow
def test_label_votes_follow_their_law():
    A, _ = _planted(blocks=2, size=6, p_in=0.6, p_out=0.1, seed=2)
    lab = np.array([0, 0, 1, 1, 2, 2] * 2)
    P = label_vote_probabilities(A, lab, 0.8)
    rng = np.random.default_rng(11)
    draws = np.stack([label_votes(A, lab, 0.8, random_state=rng) for _ in range(4000)])
    hits = np.stack([(draws == c).sum(axis=0) for c in range(P.shape[1])], axis=1)
    # 36 cells, each failing with probability below 1e-8 under the exact law.
    assert _min_binomial_p_value(hits, 4000, P) > 1e-8
    # Power: the law of a doubled epsilon is rejected.
    assert _min_binomial_p_value(hits, 4000, label_vote_probabilities(A, lab, 1.6)) < 1e-8


@pytest.mark.slow
def test_bit_votes_follow_their_law():
    A, _ = _planted(blocks=2, size=5, p_in=0.7, p_out=0.1, seed=4)
    x = np.where(np.arange(10)[:, None] % np.array([2, 3]) == 0, 1.0, -1.0)
    P = bit_vote_probabilities(A, x, 0.5)
    rng = np.random.default_rng(12)
    draws = np.stack([bit_votes(A, x, 0.5, random_state=rng) for _ in range(4000)])
    hits = (draws == 1).sum(axis=0)
    assert _min_binomial_p_value(hits, 4000, P) > 1e-8  # 20 cells
    assert _min_binomial_p_value(hits, 4000, bit_vote_probabilities(A, x, 1.0)) < 1e-8


def test_released_block_counts_carry_the_calibrated_integer_noise():
    A, _ = _planted(blocks=3, size=40, seed=1)
    y = np.arange(120) % 40  # 820 counts per release
    exact = block_counts(A, y)
    rng = np.random.default_rng(5)
    iu = np.triu_indices(40)
    for kwargs, var in (({"epsilon": 0.5}, 2 * math.exp(-0.5) / (1 - math.exp(-0.5)) ** 2),
                        ({"rho": 0.02}, 1 / (2 * 0.02))):
        noise = np.stack([(release_block_counts(A, y, random_state=rng, **kwargs) - exact)[iu]
                          for _ in range(25)])
        assert np.all(noise == np.rint(noise))
        released = release_block_counts(A, y, random_state=rng, **kwargs)
        np.testing.assert_array_equal(released, released.T)
        # Mean 0 and the calibrated variance (discrete Laplace of scale 1/eps;
        # discrete Gaussian of sigma^2 = 1/(2 rho), whose variance is below sigma^2
        # by less than 1e-9 at this sigma): 20,500 draws, bands of six standard
        # errors (the sample variance's uses the Laplace kurtosis, the larger).
        m, v = noise.mean(), noise.var()
        assert abs(m) < 6 * math.sqrt(var / noise.size)
        assert abs(v / var - 1) < 7 * math.sqrt(5 / noise.size)


# ---------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n_bits, n_rounds, n_votes", [(1, 6, 2), (5, 10, 2), (3, 4, 0)])
def test_plan_composes_every_part_within_the_budget(n_bits, n_rounds, n_votes):
    plan = plan_label_propagation(4.0, delta=1e-6, n_bits=n_bits, n_rounds=n_rounds,
                                  n_votes=n_votes)
    parts = (2 * n_bits * n_rounds * exponential_mechanism_zcdp(plan.bit_epsilon)
             + (2 * n_votes * exponential_mechanism_zcdp(plan.vote_epsilon) if n_votes else 0)
             + 1 / (2 * plan.count_noise**2))
    assert parts == pytest.approx(plan.rho, rel=1e-12)
    assert plan.rho <= approx_dp_to_zcdp(4.0, 1e-6)
    assert plan.epsilon_spent == zcdp_to_approx_dp(plan.rho, 1e-6) <= 4.0
    assert plan.epsilon_spent > 4.0 - 1e-6 and plan.delta_spent == 1e-6
    pure = plan_label_propagation(4.0, n_bits=n_bits, n_rounds=n_rounds, n_votes=n_votes)
    total = (2 * n_bits * n_rounds * pure.bit_epsilon
             + (2 * n_votes * pure.vote_epsilon if n_votes else 0) + 1 / pure.count_noise)
    assert 4.0 - 1e-9 < total <= 4.0
    assert pure.rho is None and pure.delta_spent == 0.0 and pure.epsilon_spent == 4.0


def test_plan_rejects_bad_budgets():
    with pytest.raises(ValueError, match="delta"):
        plan_label_propagation(rho=0.3, n_bits=1, n_rounds=1, n_votes=1)
    with pytest.raises(ValueError, match="not both"):
        plan_label_propagation(1.0, rho=0.3, delta=1e-6, n_bits=1, n_rounds=1, n_votes=1)
    with pytest.raises(ValueError, match="start_share"):
        plan_label_propagation(1.0, n_bits=1, n_rounds=1, n_votes=1, start_share=0.99)
    assert vote_scale(0.5, [0.5, 2.0]) == 0.25
    with pytest.raises(ValueError, match="weights"):
        vote_scale(0.5, [0.0, 0.0])


def test_estimator_charges_the_plan_before_reading():
    A, _ = _planted(blocks=2, size=50)
    acc = BudgetAccountant(epsilon=5.0, delta=1e-5)
    model = PrivateLabelPropagation(2, epsilon=3.0, random_state=0, accountant=acc).fit(A)
    assert acc.spent_budget == [(model.epsilon_spent_, 1e-6)]
    assert model.epsilon_spent_ <= 3.0 and model.rho_spent_ > 0
    pure = PrivateLabelPropagation(2, epsilon=1.0, delta=None, random_state=0,
                                   accountant=acc).fit(A)
    assert acc.spent_budget[-1] == (1.0, 0.0) and pure.rho_spent_ is None
    refused = PrivateLabelPropagation(2, epsilon=2.0, accountant=acc)
    with pytest.raises(BudgetError):
        refused.fit(A)
    assert not hasattr(refused, "labels_")


# ---------------------------------------------------------------------------
# Utility, the estimate of k on both sides, warnings
# ---------------------------------------------------------------------------

def test_recovers_planted_partition():
    A, y = _planted()
    for seed in range(3):
        res = private_label_propagation(A, 3, epsilon=3.0, random_state=seed)
        assert adjusted_rand_score(y, res.labels) > 0.9
        assert res.n_clusters == 3 and res.embedding.shape == (900, 3)


def test_auto_finds_k_where_the_signal_is():
    A, y = _planted(blocks=4, size=250, p_in=0.2, p_out=0.002)
    for seed in range(2):
        model = PrivateLabelPropagation("auto", epsilon=4.0, random_state=seed).fit(A)
        assert model.n_clusters_ == 4
        assert np.sum(model.block_eigenvalues_ > model.bulk_edge_) == 4
        assert adjusted_rand_score(y, model.labels_) > 0.9


@pytest.mark.parametrize("degree", [8, 40])
def test_auto_does_not_invent_communities(degree):
    # Erdos-Renyi graphs: no block structure, at a weak and a strong budget.
    for eps in (1.0, 8.0):
        G = nx.fast_gnp_random_graph(1000, degree / 999, seed=degree)
        model = PrivateLabelPropagation("auto", epsilon=eps, random_state=1).fit(G)
        assert model.n_clusters_ == 1
        np.testing.assert_array_equal(model.labels_, 0)


def test_fewer_clusters_are_warned():
    A = sp.block_diag([np.ones((20, 20)) - np.eye(20)] * 2, format="csr")
    with pytest.warns(FewerClustersWarning, match="n_clusters=4 was asked for but the "
                      "labels hold 2 clusters"):
        model = DebiasedSpectralClustering(4, random_state=0).fit(A)
    assert model.n_clusters_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewerClustersWarning)
        DebiasedSpectralClustering(2, random_state=0).fit(A)
        DebiasedSpectralClustering("auto", random_state=0).fit(A)
        PrivateLabelPropagation(3, epsilon=3.0, random_state=0).fit(_planted()[0])
    with pytest.warns(FewerClustersWarning):
        RandomizedResponseSpectralClustering(6, epsilon=8.0, random_state=0).fit(A)


def test_default_rounds_and_bits():
    assert label_propagation_rounds(20_000, 20) == (9, 6)
    assert label_propagation_rounds(200_000, 20) == (11, 6)
    assert label_propagation_rounds(20_000, 2) == (11, 1)
    assert label_propagation_rounds(100, 10) == (6, 5)
    rounds, bits = label_propagation_rounds(20_000, "auto")
    assert bits == 6


# ---------------------------------------------------------------------------
# Inputs and scikit-learn conformance
# ---------------------------------------------------------------------------

def test_bad_inputs():
    A, y = _planted(blocks=2, size=10)
    with pytest.raises(ValueError, match="labels must have shape"):
        label_votes(A, y[:-1], 1.0)
    with pytest.raises(ValueError, match="n_labels=1"):
        label_votes(A, y, 1.0, n_labels=1)
    with pytest.raises(ValueError, match="non-negative integers"):
        label_vote_probabilities(A, y - 1, 1.0)
    with pytest.raises(ValueError, match="weights must have shape"):
        label_votes(A, y, 1.0, weights=[1.0])
    with pytest.raises(ValueError, match="bits must be -1 or"):
        bit_votes(A, y, 1.0)
    with pytest.raises(ValueError, match="bits must have shape"):
        bit_vote_probabilities(A, np.ones(3), 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        bit_votes(A, np.ones(20), 0.0)
    with pytest.raises(ValueError, match="exactly one of epsilon"):
        release_block_counts(A, y)
    with pytest.raises(ValueError, match="rho needs delta"):
        PrivateLabelPropagation(2, rho=0.5, delta=None).fit(A)
    with pytest.raises(ValueError, match="n_clusters=30"):
        PrivateLabelPropagation(30).fit(A)


def test_inputs_not_modified():
    A, y = _planted(blocks=2, size=40)
    A = sp.csr_matrix(A)
    D = A.toarray()
    before = (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())
    lab = y.copy()
    PrivateLabelPropagation(2, epsilon=2.0, random_state=0).fit(A)
    PrivateLabelPropagation(2, epsilon=2.0, random_state=0).fit(D)
    label_votes(A, lab, 1.0, random_state=0)
    release_block_counts(A, lab, epsilon=1.0, random_state=0)
    assert before == (A.data.tobytes(), A.indices.tobytes(), A.indptr.tobytes())
    np.testing.assert_array_equal(D, A.toarray())
    np.testing.assert_array_equal(lab, y)


def test_fitted_model_holds_released_values_only():
    A, _ = _planted(blocks=2, size=40)
    model = PrivateLabelPropagation(2, epsilon=2.0, random_state=0).fit(A)
    stored = {k for k in vars(model) if k.endswith("_") and not k.startswith("_")}
    assert stored == {"labels_", "n_clusters_", "start_labels_", "embedding_", "block_counts_",
                      "block_eigenvalues_", "bulk_edge_", "epsilon_spent_", "delta_spent_",
                      "rho_spent_", "n_features_in_"}
    # The released counts are noisy integers, not the graph's.
    assert np.all(model.block_counts_ == np.rint(model.block_counts_))


_FEATURES = (
    "check_clustering fits a 50 x 2 feature matrix, but this estimator clusters a "
    "graph given by its square adjacency matrix (and check_nonsquare_error requires "
    "non-square input to be refused)"
)


@parametrize_with_checks(
    [PrivateLabelPropagation(2, epsilon=2.0, n_rounds=2, n_init=1, random_state=0),
     PrivateLabelPropagation("auto", epsilon=2.0, n_rounds=2, n_votes=0, n_init=1,
                             random_state=0)],
    expected_failed_checks=lambda est: {"check_clustering": _FEATURES},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# The randomized-response route: refinement and k from public signal
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_rr_skips_belief_propagation_where_the_release_shows_no_signal():
    # An Erdos-Renyi graph released at epsilon 2: no eigenvalue above the
    # noise edge but the trivial one, so refine=True runs the likelihood EM
    # (a fraction of a second) instead of belief propagation (seconds).
    G = nx.fast_gnp_random_graph(400, 0.07, seed=0)
    auto, likelihood = (RandomizedResponseSpectralClustering(4, epsilon=2.0, refine=r,
                                                              random_state=0).fit(G)
                        for r in (True, "likelihood"))
    assert np.sum(auto.eigenvalues_ > auto.bulk_edge_) <= 1
    np.testing.assert_array_equal(auto.labels_, likelihood.labels_)


def test_rr_auto_k_on_both_sides():
    G = nx.planted_partition_graph(4, 60, 0.35, 0.01, seed=1)
    model = RandomizedResponseSpectralClustering("auto", epsilon=5.0, random_state=0).fit(G)
    assert model.n_clusters_ == 4
    assert adjusted_rand_score(np.repeat(np.arange(4), 60), model.labels_) > 0.95
    for eps in (2.0, 8.0):
        E = nx.fast_gnp_random_graph(240, 0.1, seed=2)
        none = RandomizedResponseSpectralClustering("auto", epsilon=eps, random_state=0).fit(E)
        assert none.n_clusters_ == 1


def test_rr_auto_k_on_small_graphs():
    # Below 65 nodes the noise edge comes from null releases drawn from the
    # released degrees: the two factions of the karate club and the two sides
    # of the Davis graph are found in a nearly noiseless release, and small
    # Erdos-Renyi graphs stay in one cluster.
    karate = nx.karate_club_graph()
    davis = nx.Graph(nx.davis_southern_women_graph())
    for G in (karate, davis):
        assert RandomizedResponseSpectralClustering("auto", epsilon=8.0,
                                                    random_state=0).fit(G).n_clusters_ == 2
    for seed, (n, p) in enumerate([(20, 0.2), (32, 0.15), (60, 0.3)]):
        E = nx.gnp_random_graph(n, p, seed=seed)
        assert RandomizedResponseSpectralClustering("auto", epsilon=8.0,
                                                    random_state=0).fit(E).n_clusters_ == 1


def test_a_budget_beyond_the_samplers_range_is_refused_before_charging():
    from skdpgraph.privacy import BudgetAccountant

    G = nx.planted_partition_graph(2, 30, 0.5, 0.05, seed=0)
    for kwargs in ({"epsilon": 1e300}, {"epsilon": 1e300, "delta": None}):
        acc = BudgetAccountant(epsilon=1e301)
        with pytest.raises(ValueError, match="noise scale"):
            PrivateLabelPropagation(2, accountant=acc, random_state=0, **kwargs).fit(G)
        assert acc.total() == (0.0, 0.0)


def test_votes_over_more_labels_than_memory_are_refused_first():
    from skdpgraph.exceptions import DenseMemoryError
    from skdpgraph.utils import config_context

    A = nx.to_scipy_sparse_array(nx.path_graph(300))
    with config_context(max_dense_memory=2**30):
        for vote in (partial(label_votes, random_state=0), label_vote_probabilities):
            with pytest.raises(DenseMemoryError, match="300 nodes over 1048576 labels"):
                vote(A, np.arange(300) % 3, 1.0, n_labels=2**20)
