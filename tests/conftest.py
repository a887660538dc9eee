"""The test suite mirrors the package: tests/<subpackage>/ for each subpackage of
skdpgraph, tests/integration/ for the suites that cross them (defaults, the
real computer, fuzzing, properties, docs), and tests/ itself for the top-level
modules (datasets, plotting, the main job).

Test-only reference implementations (``_*_reference.py``) live beside the
tests that use them; pytest puts each test's folder on ``sys.path``.
"""
