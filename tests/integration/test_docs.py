"""Every ```python block of README.md and docs/*.md runs as written, once.

Each file's blocks run in order in one namespace (a block may use what an
earlier one defined). Blocks written as ``>>>`` sessions run as doctests;
the others are executed, and checked against what their text promises:

* ``# prints <text>`` at the end of a line: the block's output contains
  ``<text>``;
* ``# warns <WarningClass>`` at the end of a line: the block emits a
  warning of exactly that class (a reader is told to expect it);
* ``may warn <WarningClass>`` in a comment: the block may emit it, or not
  (a private release without a seed: only some releases warn).

Any other warning a block emits fails the test, whatever its origin (the
library, scikit-learn, numpy): a reader who runs the example would see it
and be surprised. A block that means to silence a warning does so itself,
with ``warnings.catch_warnings()`` or the option that turns it off, which
then shows the reader how.
"""

import contextlib
import doctest
import io
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
_PRINTS = re.compile(r"#\s*prints\s+(.+?)\s*$", re.M)
_WARNS = re.compile(r"#\s*warns\s+(\w+)", re.M)
_MAY_WARN = re.compile(r"#.*\bmay warn\s+(\w+)", re.M)


def _blocks(path):
    return _BLOCK.findall(path.read_text())


def test_there_are_blocks_to_run():
    assert sum(len(_blocks(p)) for p in FILES) >= 8


def _check_warnings(where, block, caught):
    expected = set(_WARNS.findall(block))
    allowed = expected | set(_MAY_WARN.findall(block))
    seen = {w.category.__name__ for w in caught}
    surprises = [f"{w.category.__name__} at {w.filename}:{w.lineno}: {w.message}"
                 for w in caught if w.category.__name__ not in allowed]
    assert not surprises, (f"{where} emits warnings its text does not announce (say "
                           "'# warns <Class>' on the line, or avoid them):\n"
                           + "\n".join(surprises))
    missing = expected - seen
    assert not missing, f"{where} says it warns {sorted(missing)}; it did not"


def _run_doctest(where, path, block, namespace):
    test = doctest.DocTestParser().get_doctest(block, namespace, where, str(path), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    out = io.StringIO()
    runner.run(test, out=out.write, clear_globs=False)
    assert runner.failures == 0, f"{where} failed:\n{out.getvalue()}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_markdown_python_blocks_run(path):
    namespace = {"__name__": "__docs__"}
    for k, block in enumerate(_blocks(path)):
        where = f"{path.name}, python block {k + 1}"
        out = io.StringIO()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if block.lstrip().startswith(">>>"):
                _run_doctest(where, path, block, namespace)
            else:
                with contextlib.redirect_stdout(out):
                    exec(compile(block, where, "exec"), namespace)
        _check_warnings(where, block, caught)
        printed = out.getvalue()
        for expected in _PRINTS.findall(block):
            assert expected in printed, (
                f"{where}: the text says it prints {expected!r}; it printed:\n{printed}")


# The examples the docs build shows without running (scripts, not gallery pages), run here
# on a small grid: the docs cite their tables.
@pytest.mark.parametrize("name, args", [
    ("ptclust_experiment.py", ["--seeds", "1", "--eps", "0.5", "5"]),
    pytest.param("pig_experiment.py", ["--repeats", "1", "--output", "{tmp}"],
                 marks=pytest.mark.slow),
])
def test_example_scripts_run(name, args, tmp_path, monkeypatch):
    import runpy
    import sys

    argv = [str(ROOT / "examples" / name), *(a.format(tmp=tmp_path) for a in args)]
    monkeypatch.setattr(sys, "argv", argv)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        runpy.run_path(argv[0], run_name="__main__")
    assert re.search(r"\d+\.\d s\)", out.getvalue())  # the timing line after the table
