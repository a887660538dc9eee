"""Set-up shared by the test suite and the docstring examples."""

import os

# One BLAS/OpenMP thread per process unless the environment says otherwise: the
# tests' arrays are small, and idle pool threads spinning between calls cost
# about a tenth of the suite's CPU time on two cores for no gain in wall time.
# Set here, before numpy, scipy or scikit-learn load their thread pools; worker
# processes inherit it.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


def pytest_configure(config):
    # The examples of skdpgraph.plotting draw figures: never open a window.
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
