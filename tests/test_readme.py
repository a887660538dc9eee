"""The README's code and main job keep working."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 3
    namespace = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)


def test_main_job_runs():
    out = subprocess.run([sys.executable, "-m", "skdpgraph", "--runs", "2", "--epsilons", "5"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "DBMSTClu" in out and "ARI 1.000" in out
    assert "pamst" in out and "laplace" in out
