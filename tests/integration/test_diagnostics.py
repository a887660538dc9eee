"""Every warning the package emits is either computed from public parameters or
a data-dependent diagnostic, and the latter can all be turned off.

The enumeration reads the source: every ``warn`` (``warnings.warn``, or the
package's own, which points at the user's line) and ``warn_data_dependent``
call of the package, with its category. A category
that is not a :class:`DataDependentWarning` must be one whose condition reads
public parameters only, listed here with the places that emit it.
"""

import ast
import pathlib
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import skdpgraph
import skdpgraph.exceptions as exceptions
from skdpgraph import DBMSTClu, EpsilonGraph, HomogeneousGraph, PrivateMSTClustering
from skdpgraph.cluster import GraphKMedoids
from skdpgraph.exceptions import (
    ConstantWeightsWarning,
    DataDependentWarning,
    DisconnectedGraphWarning,
    PrivacyLeakWarning,
    WeightMeaningWarning,
)
from skdpgraph.utils import check_graph, config_context, from_networkx, get_config, set_config

PACKAGE = pathlib.Path(skdpgraph.__file__).parent

#: Warnings whose condition reads public parameters only, and where they are
#: emitted (module: functions).
PUBLIC = {
    "NoiseDominatesWarning": {"cluster/_private_mst.py": {"_warn_if_noise_dominates"}},
    # The count of the released labels.
    "FewerClustersWarning": {"cluster/_base.py": {"warn_if_fewer_clusters"}},
    # weight_bounds=None / max_similarity=None: the condition is public; what
    # the release then reveals is what the warning is about.
    # ... and epsilon with |E| for the exponential tree's truncation.
    "PrivacyLeakWarning": {"privacy/_bounds.py": {"warn_bounds_from_data"},
                           "utils/_weights.py": {"warn_max_from_data"},
                           "cluster/_private_mst.py": {"_truncation_delta"}},
}


def _emissions():
    """(module, function, category name) of every warning call of the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE))
        if rel in ("utils/_config.py", "utils/_warnings.py"):
            continue  # warn_data_dependent and warn: they forward their caller's category
        tree = ast.parse(path.read_text())
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "attr", getattr(node.func, "id", None))
                if name not in ("warn", "warn_data_dependent"):
                    continue
                if (name == "warn" and isinstance(node.func, ast.Attribute)
                        and getattr(node.func.value, "id", None) != "warnings"):
                    continue
                if len(node.args) >= 2:
                    cat = node.args[1]
                else:
                    cat = next(k.value for k in node.keywords if k.arg == "category")
                found.append((rel, func.name, getattr(cat, "id", getattr(cat, "attr", None)),
                              name))
    return found


def test_every_warning_is_public_or_data_dependent():
    emissions = _emissions()
    assert len(emissions) >= 10
    for module, function, category, how in emissions:
        cls = getattr(exceptions, category, None)
        assert cls is not None, f"{module}:{function} warns with {category}, not a class of " \
                                "skdpgraph.exceptions"
        if issubclass(cls, DataDependentWarning):
            # Emitted through the switch that turns them all off.
            assert how == "warn_data_dependent", f"{module}:{function} bypasses the switch"
        else:
            assert module in PUBLIC.get(category, {}), (
                f"{module}:{function} emits {category}, which is neither data-dependent nor "
                "listed as computed from public parameters")
            assert function in PUBLIC[category][module], (module, function, category)


def _triggers():
    """One call per data-dependent diagnostic, each of which fires with the defaults."""
    counts = nx.Graph()
    counts.add_weighted_edges_from([(0, 1, 3), (1, 2, 5), (2, 3, 1), (3, 0, 2)])
    kernel = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.2], [0.1, 0.2, 1.0]])
    equal = np.ones((4, 4)) - np.eye(4)
    points = np.array([[0.0], [0.1], [5.0], [5.1]])
    two_parts = sp.csr_array(np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1],
                                       [0, 0, 1, 0]], dtype=float))
    return {
        "counts": (WeightMeaningWarning, lambda: from_networkx(counts)),
        "kernel": (WeightMeaningWarning, lambda: check_graph(kernel, metric="precomputed")),
        "equal weights": (ConstantWeightsWarning,
                          lambda: DBMSTClu(metric="precomputed").fit(equal)),
        "epsilon graph": (DisconnectedGraphWarning,
                          lambda: EpsilonGraph(radius=1.0).fit(points)),
        "homogeneous graph": (DisconnectedGraphWarning,
                              lambda: HomogeneousGraph(w_min=0.05, w_max=0.2).fit(
                                  np.array([[0.0], [0.1], [0.5], [0.6]]))),
        "k-medoids": (DisconnectedGraphWarning,
                      lambda: GraphKMedoids(n_clusters=1, random_state=0).fit(two_parts)),
        "clipped weights": (DataDependentWarning, lambda: PrivateMSTClustering(
            epsilon=1.0, sensitivity=0.1, weight_bounds=(0.0, 1.0), metric="precomputed",
            random_state=0).fit(np.abs(np.subtract.outer([0, 1, 5.0], [0, 1, 5.0])))),
    }


@pytest.mark.parametrize("case", sorted(_triggers()))
def test_each_diagnostic_fires_by_default_and_not_when_turned_off(case):
    category, call = _triggers()[case]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    assert any(issubclass(w.category, category) for w in seen), case
    with config_context(data_dependent_warnings=False), \
            warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    leaked = [w for w in seen if issubclass(w.category, DataDependentWarning)]
    assert not leaked, [str(w.message) for w in leaked]


def test_the_switch_is_process_wide_and_restored():
    assert get_config()["data_dependent_warnings"] is True
    import threading

    seen = []
    with config_context(data_dependent_warnings=False):
        t = threading.Thread(target=lambda: seen.append(get_config()["data_dependent_warnings"]))
        t.start()
        t.join()
    assert seen == [False]  # threads (joblib's, Dask's) see it too
    assert get_config()["data_dependent_warnings"] is True
    with pytest.raises(TypeError, match="True or False"):
        set_config(data_dependent_warnings="no")


@pytest.mark.slow
def test_the_environment_turns_them_off_in_new_processes():
    code = ("import warnings, networkx as nx; from skdpgraph.utils import from_networkx, "
            "get_config; G = nx.Graph(); G.add_weighted_edges_from([(0, 1, 3), (1, 2, 5)]); "
            "warnings.simplefilter('error'); from_networkx(G); "
            "print(get_config()['data_dependent_warnings'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ,
                              "SKDPGRAPH_DATA_DEPENDENT_WARNINGS": "0"}, check=True)
    assert out.stdout.strip() == "False"


def test_data_dependent_warnings_are_privacy_leak_warnings():
    for name in exceptions.__all__:
        cls = getattr(exceptions, name)
        if issubclass(cls, DataDependentWarning):
            assert issubclass(cls, PrivacyLeakWarning)
