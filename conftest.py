"""Set-up shared by the test suite and the docstring examples."""


def pytest_configure(config):
    # The examples of skdpgraph.plotting draw figures: never open a window.
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
