"""The main job's options: data, budgets, neighbourhood, figure, progress, bad values."""

import runpy
import sys

import pytest


def main(argv):
    """Run ``python -m skdpgraph ARGV`` in this process; return its exit code."""
    old = sys.argv
    sys.argv = ["skdpgraph", *argv]
    try:
        runpy.run_module("skdpgraph", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
        return 0
    finally:
        sys.argv = old
    return 0


def test_one_dataset_linf_and_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "summary.png"
    assert main(["--dataset", "circles", "--neighborhood", "linf", "--runs", "1",
                 "--epsilons", "5", "1", "--output", str(out)]) == 0
    captured = capsys.readouterr()
    assert "linf neighbours" in captured.out
    assert "circles" in captured.out and "moons" not in captured.out
    assert captured.out.count("| eps ") == 2 * 6  # 2 epsilons x (auto + 5 mechanisms)
    assert out.stat().st_size > 0
    assert "figure written" in captured.out
    assert captured.err  # progress lines or bar on stderr


def test_plain_progress_lines_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    main(["--dataset", "moons", "--runs", "1", "--epsilons", "5"])
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("[moons 1/6] ") and err[-1].startswith("[moons 6/6] ")


@pytest.mark.parametrize("argv, message", [
    (["--epsilons", "-1"], "must be a finite number > 0"),
    (["--epsilons", "inf"], "must be a finite number > 0"),
    (["--epsilons", "abc"], "not a number"),
    (["--dataset", "blobs"], "invalid choice"),
    (["--neighborhood", "l2"], "invalid choice"),
    (["--runs", "0"], "integer >= 1"),
    (["--n-samples", "2"], "at least 4"),
    (["--output", "figure.jpg"], "PNG"),
])
def test_bad_values_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_verbose_estimators_report_their_stages(capsys):
    import networkx as nx
    import numpy as np

    from skdpgraph.cluster import (DBMSTClu, NoisyPowerClustering, PrivateMSTClustering,
                                   RandomizedResponseSpectralClustering)

    X = np.random.default_rng(0).random((60, 2))
    G = nx.to_scipy_sparse_array(nx.planted_partition_graph(2, 40, 0.5, 0.02, seed=0))
    DBMSTClu().fit(X)
    assert capsys.readouterr().err == ""  # silent by default
    DBMSTClu(verbose=1).fit(X)
    PrivateMSTClustering(weight_bounds=(0, 2), epsilon=5.0, random_state=0, verbose=1).fit(X)
    RandomizedResponseSpectralClustering(n_clusters=2, epsilon=4.0, random_state=0,
                                         verbose=1).fit(G)
    NoisyPowerClustering(n_clusters=2, epsilon=4.0, random_state=0, verbose=1).fit(G)
    err = capsys.readouterr().err
    for line in ("[DBMSTClu] cuts:", "[PrivateMSTClustering] release (laplace):",
                 "[RandomizedResponseSpectralClustering] randomized response:",
                 "[NoisyPowerClustering] noisy power method"):
        assert line in err


def test_every_graph_clusterer_takes_verbose(capsys):
    import networkx as nx

    from skdpgraph.cluster import (SCAN, DebiasedSpectralClustering, GraphKMedoids,
                                   PrivateGraphClustering)

    G = nx.to_scipy_sparse_array(nx.planted_partition_graph(2, 30, 0.5, 0.02, seed=0))
    models = [SCAN(), GraphKMedoids(2, random_state=0),
              DebiasedSpectralClustering(2, random_state=0),
              PrivateGraphClustering(SCAN(), epsilon=3.0, random_state=0)]
    for model in models:
        model.fit(G)
    assert capsys.readouterr().err == ""  # silent by default
    for model in models:
        model.set_params(verbose=1).fit(G)
        err = capsys.readouterr().err
        name = type(model).__name__
        assert f"[{name}] validation:" in err and "(60 nodes," in err
        assert f"[{name}] fit:" in err and "clusters)" in err
