"""Every public docstring renders correctly in ``help()``.

Some docstrings are assembled from shared paragraphs (``fill_doc``) or from
one outline (``doc_template``). Whatever their origin, the text ``help()``
shows (``inspect.getdoc``) must have no unfilled ``{placeholder}`` or
``{{name}}``, must parse with numpydoc without a warning, and must document
the parameters the signature has, no more and no fewer.
"""

import importlib
import inspect
import re
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
    expected = _signature_names(obj)
    documented = _documented_names(parsed)
    if expected is None or not documented and not parsed["Parameters"] and len(expected) <= 1:
        return  # a one-argument helper whose summary says what it takes
    assert documented == expected, (
        f"{name}: Parameters documents {documented}; the signature has {expected}")
