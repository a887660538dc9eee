"""The README's first command, the main job, keeps working (its code blocks run
in tests/test_docs.py)."""

import subprocess
import sys


def test_main_job_runs():
    out = subprocess.run([sys.executable, "-m", "skdpgraph", "--runs", "2", "--epsilons", "5"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "DBMSTClu" in out and "ARI 1.000" in out
    assert "pamst" in out and "laplace" in out
