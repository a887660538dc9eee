"""Weight-Release: normalisation, clipping, public bounds, bad input."""

import math
import warnings

import numpy as np
import pytest

from skdpgraph.exceptions import PrivacyLeakWarning
from skdpgraph.privacy import grid_for
from skdpgraph.tree import minimum_spanning_tree, release_tree_weights


def test_release_tree_weights_normalisation_and_clipping():
    t = minimum_spanning_tree(np.array([[0, .2, .9], [.2, 0, .4], [.9, .4, 0]]))
    out = release_tree_weights(t, 1e12, sensitivity=0.1, weight_bounds=(0.0, 2.0),
                               random_state=0)
    # (w - 0) / 2, up to half a step of the public grid of the release
    grid = grid_for(0.1, t.weights)
    np.testing.assert_allclose(out.weights, [0.1, 0.2], atol=grid / 4 + 1e-9)
    np.testing.assert_array_equal(out.edges, t.edges)
    # Tiny epsilon: noise dwarfs the weights; all weights in (0, 1].
    out = release_tree_weights(t, 1e-6, sensitivity=0.1, weight_bounds=(0.0, 2.0),
                               random_state=0)
    assert np.all(out.weights > 0) and np.all(out.weights <= 1)
    raw = release_tree_weights(t, 1e-6, sensitivity=0.1, weight_bounds=(0.1, 2.0),
                               random_state=0, normalize=False)
    assert np.all((raw.weights >= 0.1) & (raw.weights <= 2.0))


def test_release_tree_weights_bounds_from_data_warns():
    t = minimum_spanning_tree(np.array([[0, .2, .9], [.2, 0, .4], [.9, .4, 0]]))
    with pytest.warns(PrivacyLeakWarning, match="computed from the private"):
        release_tree_weights(t, 1.0, sensitivity=0.1, random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="outside weight_bounds"):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0.0, 0.3),
                             random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0.0, 1.0),
                             random_state=0)


@pytest.mark.parametrize("bounds, match", [((1.0, 0.0), "low < high"),
                                           ((0.5, 0.5), "low < high"),
                                           ((-1.0, 1.0), ">= 0"),
                                           ((0.0, math.inf), "finite"),
                                           ((0.0,), "pair")])
def test_release_tree_weights_bad_bounds(bounds, match):
    t = minimum_spanning_tree(np.array([[0, .2], [.2, 0]]))
    with pytest.raises(ValueError, match=match):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=bounds)


def test_release_tree_weights_gaussian_needs_budget():
    t = minimum_spanning_tree(np.array([[0, .2], [.2, 0]]))
    with pytest.raises(ValueError, match="rho"):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0, 1),
                             mechanism="gaussian")
    out = release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0, 1),
                               mechanism="gaussian", delta=1e-6, random_state=0)
    assert out.weights.shape == (1,)
    with pytest.raises(ValueError, match="mechanism"):
        release_tree_weights(t, 1.0, sensitivity=0.1, weight_bounds=(0, 1),
                             mechanism="cauchy")
