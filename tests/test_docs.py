"""Every ```python block of README.md and docs/*.md runs as written.

Each file's blocks run in order in one namespace (a block may use what an
earlier one defined). Where the text tells the reader what a line prints, with
a trailing ``# prints <text>`` comment, the block's output must contain
``<text>``; blocks written as ``>>>`` sessions are run as doctests.
"""

import contextlib
import doctest
import io
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
_PRINTS = re.compile(r"#\s*prints\s+(.+?)\s*$", re.M)


def _blocks(path):
    return _BLOCK.findall(path.read_text())


def test_there_are_blocks_to_run():
    assert sum(len(_blocks(p)) for p in FILES) >= 8


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_markdown_python_blocks_run(path):
    namespace = {"__name__": "__docs__"}
    for k, block in enumerate(_blocks(path)):
        where = f"{path.name}, python block {k + 1}"
        if block.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(block, namespace, where, str(path), 0)
            runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                           | doctest.ELLIPSIS)
            out = io.StringIO()
            runner.run(test, out=out.write, clear_globs=False)
            assert runner.failures == 0, f"{where} failed:\n{out.getvalue()}"
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(block, where, "exec"), namespace)
        printed = out.getvalue()
        for expected in _PRINTS.findall(block):
            assert expected in printed, (
                f"{where}: the text says it prints {expected!r}; it printed:\n{printed}")
