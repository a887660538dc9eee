"""The constructor parameters of every estimator are checked when fit starts.

Through the public estimators only: each kind of constraint accepts what it
should and refuses the rest with an InvalidParameterError (a ValueError and a
TypeError) naming the parameter, the estimator, what is accepted and the value.
"""

import inspect
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator
from sklearn.cluster import DBSCAN

import skdpgraph
from skdpgraph import (
    SCAN,
    DBMSTClu,
    EdgeFlipPerturbation,
    EpsilonGraph,
    PrivateGraphClustering,
    PrivateMSTClustering,
)
from skdpgraph.exceptions import InvalidParameterError

ESTIMATORS = sorted(
    (obj for obj in vars(skdpgraph).values()
     if inspect.isclass(obj) and issubclass(obj, BaseEstimator)),
    key=lambda cls: cls.__name__)
X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])


def test_the_error_is_a_value_error_and_a_type_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


def test_the_message_names_parameter_estimator_accepted_values_and_value():
    with pytest.raises(InvalidParameterError) as info:
        PrivateMSTClustering(epsilon=-1.0).fit(X)
    assert str(info.value) == ("The 'epsilon' parameter of PrivateMSTClustering must be a "
                               "float in (0, inf); got -1.0.")
    with pytest.raises(InvalidParameterError) as info:
        PrivateMSTClustering(delta=2.0, accounting="zcdp").fit(X)
    assert str(info.value) == ("The 'delta' parameter of PrivateMSTClustering must be a "
                               "float in (0, 1) or None; got 2.0.")
    with pytest.raises(InvalidParameterError) as info:
        PrivateMSTClustering(accountant="budget").fit(X)
    assert "an object with the methods check() and spend() or None" in str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        PrivateMSTClustering(neighborhood="l2").fit(X)
    assert "must be one of {'l1', 'linf'}; got 'l2'" in str(info.value)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_has_a_constraint(cls):
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_refuses_an_arbitrary_object(cls):
    for name in cls().get_params(deep=False):
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {cls.__name__}"):
            cls(**{name: object()}).fit(X)


GOOD = [
    (PrivateMSTClustering, "epsilon", 0.01),
    (PrivateMSTClustering, "epsilon", Fraction(1, 3)),
    (PrivateMSTClustering, "epsilon", np.float32(2.0)),
    (PrivateMSTClustering, "epsilon", 3),
    (PrivateMSTClustering, "keep_training_data", np.bool_(True)),
    (PrivateMSTClustering, "verbose", True),
    (PrivateMSTClustering, "random_state", 2**40),
    (PrivateMSTClustering, "random_state", np.random.RandomState(0)),
    (PrivateMSTClustering, "random_state", np.random.default_rng(0)),
    (PrivateMSTClustering, "weight_bounds", [0.0, 20.0]),
    (PrivateMSTClustering, "weight_bounds", np.array([0.0, 20.0])),
    (DBMSTClu, "metric", lambda a, b: float(np.abs(a - b).sum())),
    (DBMSTClu, "metric_params", {}),
    (EdgeFlipPerturbation, "s", Fraction(1, 2)),
    (EdgeFlipPerturbation, "s", 1.0),
    (SCAN, "min_neighbors", np.int64(3)),
]

BAD = [
    (PrivateMSTClustering, "epsilon", 0.0),
    (PrivateMSTClustering, "epsilon", math.inf),
    (PrivateMSTClustering, "epsilon", math.nan),
    (PrivateMSTClustering, "epsilon", True),
    (PrivateMSTClustering, "epsilon", "1"),
    (PrivateMSTClustering, "epsilon", None),
    (PrivateMSTClustering, "tree_share", 1.0),
    (PrivateMSTClustering, "keep_training_data", 1),
    (PrivateMSTClustering, "verbose", -1),
    (PrivateMSTClustering, "random_state", -1),
    (PrivateMSTClustering, "random_state", "seed"),
    (PrivateMSTClustering, "random_state", 1.5),
    (PrivateMSTClustering, "weight_bounds", 5.0),
    (PrivateMSTClustering, "weight_bounds", "0,1"),
    (PrivateMSTClustering, "weight_kind", "similar"),
    (DBMSTClu, "metric", 3),
    (DBMSTClu, "metric_params", []),
    (EdgeFlipPerturbation, "s", 0.0),
    (EdgeFlipPerturbation, "s", 1.5),
    (EpsilonGraph, "leaf_size", 0),
    (EpsilonGraph, "leaf_size", 30.0),
    (SCAN, "min_neighbors", 2.0),
]


@pytest.mark.filterwarnings("ignore::skdpgraph.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("cls, name, value", GOOD,
                         ids=[f"{c.__name__}-{n}-{v!r}" for c, n, v in GOOD])
def test_accepted(cls, name, value):
    A = nx.to_numpy_array(nx.karate_club_graph(), weight=None)
    params = {name: value}
    if cls is PrivateMSTClustering:
        params = dict(dict(weight_bounds=(0.0, 20.0), random_state=0), **params)
    cls(**params).fit(A if cls in (EdgeFlipPerturbation, SCAN) else X)


@pytest.mark.parametrize("cls, name, value", BAD,
                         ids=[f"{c.__name__}-{n}-{v!r}" for c, n, v in BAD])
def test_refused(cls, name, value):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {cls.__name__}"):
        cls(**{name: value}).fit(X)


def test_checked_even_when_scikit_learn_skips_its_own_validation():
    with sklearn.config_context(skip_parameter_validation=True):
        with pytest.raises(InvalidParameterError, match="'epsilon' parameter"):
            PrivateMSTClustering(epsilon=-1.0).fit(X)


def test_a_clusterer_given_by_the_user_has_its_parameters_checked():
    # PrivateGraphClustering fits the user's estimator: scikit-learn's own
    # validation of its parameters stays on.
    with pytest.raises(ValueError, match="eps"):
        PrivateGraphClustering(DBSCAN(eps=-1.0), epsilon=2.0, random_state=0).fit(
            nx.karate_club_graph())


def test_the_estimators_parameters_are_not_modified():
    model = PrivateMSTClustering(epsilon=Fraction(1, 2), weight_bounds=[0.0, 20.0],
                                 random_state=0)
    model.fit(X)
    assert model.epsilon == Fraction(1, 2) and type(model.epsilon) is Fraction
    assert model.weight_bounds == [0.0, 20.0]
