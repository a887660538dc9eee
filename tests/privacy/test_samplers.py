"""Gumbel noise with unbounded tails (input perturbation, Gumbel-max choices)."""

import numpy as np
from scipy import stats

from skdpgraph.privacy import standard_gumbel


class _Words:
    """A stand-in random_state whose 64-bit words are scripted, then random."""

    def __init__(self, words, seed=0):
        self._words = [np.uint64(w) for w in words]
        self._rng = np.random.default_rng(seed)
        self.bit_generator = self

    def random_raw(self, size):
        head, self._words = self._words[:size], self._words[size:]
        tail = self._rng.bit_generator.random_raw(size - len(head))
        return np.concatenate([np.array(head, dtype=np.uint64), tail])


def test_standard_gumbel_law_and_tails():
    # four seeded tests rejecting at p < 5e-8: false-failure rate < 2e-7
    g = standard_gumbel(400_000, np.random.default_rng(0))
    assert stats.kstest(g, "gumbel_r").pvalue > 5e-8
    # tail frequencies P(G > t) = 1 - exp(-exp(-t)) and P(G < t) = exp(-exp(-t))
    for t in (6.0, 9.0):
        p = -np.expm1(-np.exp(-t))
        k = np.count_nonzero(g > t)
        assert stats.binomtest(k, g.size, p).pvalue > 5e-8
    k = np.count_nonzero(g < -1.5)
    assert stats.binomtest(k, g.size, np.exp(-np.exp(1.5))).pvalue > 5e-8
    assert standard_gumbel((3, 4), np.random.default_rng(0)).shape == (3, 4)


def test_standard_gumbel_is_unbounded_beyond_numpys_range():
    # numpy's Gumbel lies in [-3.6, 36.7]: a candidate 40 behind never wins.
    top = 2 ** 63
    # U = 1 - x, x = 2**-64 (0 + 2**-64 * 1.5) after one refinement: G ~ 88
    g = standard_gumbel(1, _Words([top + 0, 1]))[0]
    assert 87.0 < g < 89.0
    # all-zero refinements: E underflows, G is the largest double (never NaN)
    g = standard_gumbel(1, _Words([top] + [0] * 40))[0]
    assert np.isfinite(g) and g > 1e300
    assert np.argmax(np.array([0.0, -1e6]) + np.array([0.0, g])) == 1
    assert np.argmax(np.array([0.0, -np.inf]) + np.array([0.0, g])) == 0
    # U near 0: E large, G down to -log(744)
    g = standard_gumbel(1, _Words([0] * 40))[0]
    assert -6.7 < g < -6.5


def test_gumbel_max_lag_of_60_is_possible():
    # A Gumbel-max choice with a candidate 60 behind: it wins for a finite
    # word sequence (so with positive probability), as in the exact law.
    # leader: U = 1/4; laggard: U = 1 - x, x ~ 2**-128 after two refinements
    words = [2 ** 62, 2 ** 63, 0, 1]
    g = standard_gumbel(2, _Words(words))
    assert g[1] - g[0] > 60.0
    assert np.argmax(np.array([0.0, -60.0]) + g) == 1
