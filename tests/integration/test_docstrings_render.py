"""Every public docstring renders correctly in ``help()``.

Some docstrings are assembled from shared paragraphs (``fill_doc``) or from
one outline (``doc_template``). Whatever their origin, the text ``help()``
shows (``inspect.getdoc``) must have no unfilled ``{placeholder}`` or
``{{name}}``, must parse with numpydoc without a warning, and must document
the parameters the signature has, no more and no fewer, each with a type and
a description; a function that returns a value has a Returns (or Yields)
section, and a named tuple documents each of its fields.
"""

import ast
import importlib
import inspect
import re
import textwrap
import warnings

import pytest

docscrape = pytest.importorskip("numpydoc.docscrape")

SUBPACKAGES = ["skdpgraph", "skdpgraph.utils", "skdpgraph.privacy", "skdpgraph.tree",
               "skdpgraph.edge_dp", "skdpgraph.graphs", "skdpgraph.cluster",
               "skdpgraph.metrics", "skdpgraph.datasets", "skdpgraph.exceptions",
               "skdpgraph.plotting", "skdpgraph.distributed"]
#: ``{{`` anywhere (``fill_doc``'s ``{{name}}``), or a ``{name}`` field of
#: ``doc_template`` (a word in braces; ``{u}`` of one letter is set notation).
_PLACEHOLDER = re.compile(r"\{\{|(?<![\w{])\{[A-Za-z_]\w+\}(?!\})")


def _public_objects():
    seen = {}
    for modname in SUBPACKAGES:
        module = importlib.import_module(modname)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue  # constants and registries
            if not getattr(obj, "__module__", "").startswith("skdpgraph"):
                continue
            seen.setdefault(id(obj), (f"{obj.__module__}.{obj.__qualname__}", obj))
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not inspect.isfunction(member):
                        continue
                    seen.setdefault(id(member), (f"{obj.__module__}.{obj.__qualname__}.{attr}",
                                                 member))
    return sorted(seen.values(), key=lambda item: item[0])


OBJECTS = _public_objects()


def _is_named_tuple(obj):
    return inspect.isclass(obj) and issubclass(obj, tuple) and hasattr(obj, "_fields")


def _signature_names(obj):
    if inspect.isclass(obj):
        if issubclass(obj, BaseException) or _is_named_tuple(obj):
            return None  # no constructor parameters of their own to document
        target = obj.__init__
    else:
        target = obj
    names = [p.name for p in inspect.signature(target).parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if inspect.isclass(obj) or (names and names[0] in ("self", "cls")
                                and "." in obj.__qualname__):
        names = names[1:] if names and names[0] in ("self", "cls") else names
    return names


def _documented_names(parsed):
    names = []
    for param in parsed["Parameters"]:
        names += [n.strip() for n in param.name.split(",") if n.strip()]
    return [n for n in names if not n.startswith("*")]


def test_there_are_docstrings_to_check():
    assert len(OBJECTS) > 150


@pytest.mark.parametrize("name, obj", OBJECTS, ids=[name for name, _ in OBJECTS])
def test_docstring_renders(name, obj):
    doc = inspect.getdoc(obj)
    assert doc, f"{name} has no docstring"
    leftover = _PLACEHOLDER.findall(doc)
    assert not leftover, f"{name}: unfilled placeholders {leftover} in help()"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if inspect.isclass(obj):
            parsed = docscrape.ClassDoc(obj, config={"show_class_members": False})
        else:
            parsed = docscrape.FunctionDoc(obj)
    assert not caught, f"{name}: numpydoc says {[str(w.message) for w in caught]}"
    if _is_named_tuple(obj):
        entries = {n: e for e in parsed["Attributes"] for n in _names(e)}
        for field in obj._fields:
            assert field in entries, f"{name}: field {field!r} not in Attributes"
            _assert_described(name, field, entries[field])
        return
    expected = _signature_names(obj)
    documented = _documented_names(parsed)
    if expected is None:
        return
    assert documented == expected, (
        f"{name}: Parameters documents {documented}; the signature has {expected}")
    for entry in parsed["Parameters"]:
        _assert_described(name, entry.name, entry)
    if not inspect.isclass(obj) and _returns_a_value(obj):
        assert parsed["Returns"] or parsed["Yields"], f"{name} returns a value: no Returns"


def _names(entry):
    return [n.strip().lstrip("*\\") for n in entry.name.split(",") if n.strip()]


def _assert_described(name, what, entry):
    assert entry.type.strip(), f"{name}: {what!r} has no type"
    assert "".join(entry.desc).strip(), f"{name}: {what!r} has no description"


def _returns_a_value(func):
    """Whether the function's own body has ``return <value>`` or ``yield``."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(func))))
    except (OSError, TypeError):
        return False
    stack = list(ast.iter_child_nodes(tree.body[0]))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)) or (
                isinstance(node, ast.Return) and node.value is not None
                and not (isinstance(node.value, ast.Constant) and node.value.value is None)):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False
