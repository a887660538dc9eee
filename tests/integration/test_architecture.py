"""The architecture, checked: data flows one way between the subpackages, every
mechanism takes its calibration from skdpgraph.privacy, and every public name
has one home."""

import ast
import importlib
import pathlib
import sys

import numpy as np
import pytest

import skdpgraph
import skdpgraph.privacy as privacy
from skdpgraph.edge_dp import EdgeFlipPerturbation, dp_density, flip_edges
from skdpgraph.tree import TREE_MECHANISMS, release_tree_weights

PACKAGE = pathlib.Path(skdpgraph.__file__).parent

#: Layers, lowest first: a module may import from its own subpackage and
#: from lower layers only.
LAYERS = {
    "exceptions": -1,
    "utils": 0,
    "privacy": 1,
    "tree": 2,
    "edge_dp": 2,
    "graphs": 2,
    "metrics": 3,
    "distributed": 3,
    "cluster": 4,
    "datasets": 5,
    "plotting": 5,
    "__main__": 6,
    "__init__": 6,
}


def _unit(path):
    """The subpackage (or top-level module) a file belongs to."""
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imported_units(path):
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PACKAGE)
    package_parts = list(rel.parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
                if not target:  # "from . import x" at the top level
                    target = [node.names[0].name]
            elif node.module and node.module.split(".")[0] == "skdpgraph":
                target = node.module.split(".")[1:] or [node.names[0].name]
            else:
                continue
            yield target[0], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "skdpgraph" and len(parts) > 1:
                    yield parts[1], node.lineno


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_flow_one_way(path):
    source = _unit(path)
    for target, line in _imported_units(path):
        if target == source or target == "__version__":
            continue
        assert target in LAYERS, f"{path.name}:{line} imports unknown unit {target}"
        assert LAYERS[target] < LAYERS[source], (
            f"{path.relative_to(PACKAGE)}:{line}: {source} (layer {LAYERS[source]}) imports "
            f"{target} (layer {LAYERS[target]})"
        )


def test_every_subpackage_exports_its_names_once():
    homes = {}
    for sub in ["exceptions", "utils", "privacy", "tree", "edge_dp", "graphs", "cluster",
                "metrics", "datasets", "distributed"]:
        module = importlib.import_module(f"skdpgraph.{sub}")
        for name in module.__all__:
            assert hasattr(module, name), f"skdpgraph.{sub}.{name} is in __all__ but missing"
            obj = getattr(module, name)
            if callable(obj) and name in homes:
                pytest.fail(f"{name} is exported by {homes[name]} and skdpgraph.{sub}")
            homes[name] = f"skdpgraph.{sub}"
    # The top level re-exports a selection: the same objects.
    for name in skdpgraph.__all__:
        if name != "__version__":
            assert getattr(importlib.import_module(homes[name]), name) is getattr(skdpgraph, name)


def _spy(monkeypatch, func, name):
    """Wrap the privacy function ``name`` as ``func``'s module sees it; count calls."""
    module = sys.modules[func.__module__]
    original = getattr(module, name)
    assert original is getattr(privacy, name), (
        f"{func.__qualname__} does not take {name} from skdpgraph.privacy")
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


#: What each mechanism's scale comes from.
CALIBRATIONS = {
    "pamst": "pamst_step_epsilon",
    "laplace": "release_sensitivity",
    "exponential": "exponential_tree_scale",
    "input_perturbation": "input_perturbation_scale",
    "noisy_max_prim": "noisy_max_prim_scale",
}

D3 = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 2.0], [4.0, 2.0, 0.0]])


@pytest.mark.parametrize("name", sorted(CALIBRATIONS))
def test_each_tree_mechanism_gets_its_scale_from_privacy(monkeypatch, name):
    func = TREE_MECHANISMS[name].func
    calls = _spy(monkeypatch, func, CALIBRATIONS[name])
    func(D3, 1.0, sensitivity=0.1, neighborhood="l1", random_state=0)
    assert calls, f"{name} did not call privacy.{CALIBRATIONS[name]}"


def test_releases_and_edge_flipping_get_their_scale_from_privacy(monkeypatch):
    from skdpgraph.tree import minimum_spanning_tree

    calls = _spy(monkeypatch, release_tree_weights, "release_sensitivity")
    release_tree_weights(minimum_spanning_tree(D3), 1.0, sensitivity=0.1,
                         weight_bounds=(0.0, 5.0), random_state=0)
    assert calls
    A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    calls = _spy(monkeypatch, dp_density, "release_laplace")
    dp_density(A, 1.0, random_state=0)
    assert calls
    from skdpgraph.edge_dp import pig_s_from_epsilon

    calls = _spy(monkeypatch, pig_s_from_epsilon, "edge_flip_s")
    EdgeFlipPerturbation(epsilon=2.0, random_state=0).fit_transform(A)
    flip_edges(A, pig_s_from_epsilon(1.0), random_state=0)
    assert len(calls) == 2


def test_noise_is_drawn_only_in_privacy():
    # No module outside skdpgraph.privacy draws Laplace, Gaussian or Gumbel noise.
    for path in _modules():
        if _unit(path) == "privacy":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"laplace", "normal",
                                                                "gumbel"}:
                pytest.fail(f"{path.relative_to(PACKAGE)}:{node.lineno} draws .{node.attr}")


def test_every_warning_and_error_class_lives_in_exceptions():
    for path in _modules():
        if path.name == "exceptions.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                assert not any(b.endswith(("Warning", "Error", "Exception")) for b in bases), (
                    f"{path.relative_to(PACKAGE)}:{node.lineno} defines {node.name}")
