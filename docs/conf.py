"""Sphinx configuration of the skdpgraph documentation.

Build (from the repository root)::

    python -m sphinx -W -b html docs docs/_build/html

The API reference is generated at build time from the ``__all__`` of every
subpackage (see ``write_api_pages`` below), so a new public name appears in
the docs without editing them. The gallery executes ``examples/plot_*.py``
only; the other scripts of ``examples/`` are shown, not run.
"""

import importlib
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import skdpgraph  # noqa: E402

project = "skdpgraph"
author = "the skdpgraph developers"
copyright = "the skdpgraph developers"
version = release = skdpgraph.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "sg_execution_times.rst"]
templates_path = ["_templates"]

# -- MyST: the markdown pages of docs/ are included as they are -------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# -- autodoc / autosummary / numpydoc -----------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable/", None),
    "scipy": ("https://docs.scipy.org/doc/scipy/", None),
    "sklearn": ("https://scikit-learn.org/stable/", None),
    "matplotlib": ("https://matplotlib.org/stable/", None),
    "networkx": ("https://networkx.org/documentation/stable/", None),
}
# Offline builds (CI without network) must not warn: intersphinx is optional.
if os.environ.get("SKDPGRAPH_DOCS_OFFLINE", "1") == "1":
    intersphinx_mapping = {}

# -- sphinx-gallery -----------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    # Execute only the plot_*.py scripts; the others (long experiments, the
    # Dask example that needs a cluster) are rendered without being run.
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "abort_on_example_error": True,
    "show_memory": False,
    "min_reported_time": 1,
    "write_computation_times": False,
}

# -- HTML -----------------------------------------------------------------
try:
    import pydata_sphinx_theme  # noqa: F401

    html_theme = "pydata_sphinx_theme"
    html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False}
except ImportError:  # pragma: no cover
    html_theme = "alabaster"
html_title = f"skdpgraph {release}"
html_static_path = []


# -- the API pages, generated from __all__ ------------------------------------
SUBPACKAGES = [
    ("skdpgraph.cluster", "Clustering estimators and functions"),
    ("skdpgraph.graphs", "Graph builders"),
    ("skdpgraph.tree", "Spanning trees, exact and private"),
    ("skdpgraph.privacy", "Calibration, accounting and noise"),
    ("skdpgraph.edge_dp", "Edge differential privacy (PIG)"),
    ("skdpgraph.distributed", "One graph larger than one process, on Dask"),
    ("skdpgraph.metrics", "Scores, homogeneity and the papers' bounds"),
    ("skdpgraph.datasets", "Data sets of the papers"),
    ("skdpgraph.plotting", "Plotting (optional matplotlib)"),
    ("skdpgraph.utils", "Graph input, sparse helpers and randomness"),
    ("skdpgraph.exceptions", "Warnings and errors"),
]


def _write(path, text):
    """Write only when the content changed (keeps incremental builds cheap)."""
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def write_api_pages():
    """One page per subpackage listing its ``__all__``, plus an index."""
    out = DOCS / "api"
    lines = ["API reference", "=============", "",
             "Every public name lives in one subpackage; the most used are re-exported "
             "from ``skdpgraph`` itself. These pages are generated from each "
             "subpackage's ``__all__`` at build time.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    for modname, title in SUBPACKAGES:
        module = importlib.import_module(modname)
        names = list(getattr(module, "__all__", []))
        short = modname.split(".", 1)[1]
        lines.append(f"   {short}")
        page = [f"``{modname}``: {title}", "=" * (len(modname) + 6 + len(title)), "",
                f".. automodule:: {modname}", "   :no-members:", "   :no-index:", "",
                f".. currentmodule:: {modname}", "",
                ".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
        page += [f"   {name}" for name in names if not name.startswith("__")]
        _write(out / f"{short}.rst", "\n".join(page) + "\n")
    _write(out / "index.rst", "\n".join(lines) + "\n")


write_api_pages()
