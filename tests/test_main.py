"""The main job's options: data, budgets, neighbourhood, figure, progress, bad values."""

import re
import runpy
import subprocess
import sys

import numpy as np
import pytest

from skdpgraph.tree import TREE_MECHANISMS


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


def run(argv, capsys):
    """Stdout of ``python -m skdpgraph ARGV`` (run in this process)."""
    assert main(argv) == 0
    return capsys.readouterr().out


_ROW = re.compile(r"^  (\w+)( \(auto\))?((?:\s+-?\d\.\d{3} \(\d+\))+)$", re.M)
_CELL = re.compile(r"(-?\d\.\d{3}) \((\d+)\)")


def tables(out):
    """``{dataset: {mechanism: [median ARI per epsilon]}}`` and the auto choice, as printed."""
    parsed, autos = {}, {}
    for block in re.split(r"\n\n", out):
        head = re.match(r"  (\w+): (\d+) nodes, (\d+) edges\.", block)
        if head is None:
            continue
        rows = {}
        for m in _ROW.finditer(block):
            rows[m.group(1)] = [float(a) for a, _ in _CELL.findall(m.group(3))]
            if m.group(2):
                autos[head.group(1)] = m.group(1)
        parsed[head.group(1)] = rows
    return parsed, autos


def summary(out):
    """The summary section as one line of text (the wrapped lines joined)."""
    text = out.split("\n3. Summary", 1)[1].split("\nfigure written", 1)[0]
    return re.sub(r"\n\s+", " ", text)


def reach(medians, epsilons):
    """Smallest epsilon from which the printed median ARI stays >= 0.9 (None: never)."""
    first = None
    for eps, value in zip(epsilons, medians):
        if value >= 0.9:
            first = eps if first is None else first
        else:
            first = None
    return first


def test_one_dataset_linf_and_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "summary.png"
    text = run(["--dataset", "circles", "--neighborhood", "linf", "--runs", "1",
                "--epsilons", "5", "1", "--output", str(out)], capsys)
    assert "linf neighbours" in text
    assert "circles" in text and "moons" not in text
    parsed, _ = tables(text)
    assert list(parsed) == ["circles"]
    assert sorted(parsed["circles"]) == sorted(TREE_MECHANISMS)
    assert all(len(v) == 2 for v in parsed["circles"].values())  # epsilons 1 and 5
    assert out.stat().st_size > 0
    assert "figure written" in text


def test_plain_progress_lines_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    main(["--dataset", "moons", "--runs", "1", "--epsilons", "5"])
    err = capsys.readouterr().err.splitlines()
    total = len(TREE_MECHANISMS)
    assert err[0].startswith(f"[moons 1/{total}] ")
    assert err[-1].startswith(f"[moons {total}/{total}] ")


def test_help_is_plain_text(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "--n-samples" in text and "--output" in text
    assert "``" not in text and "`" not in text
    assert re.search(r":\w+:", text) is None  # no :func:, :class: roles
    assert "::" not in text and ".. " not in text


def test_every_printed_term_is_explained(capsys):
    text = run(["--runs", "3", "--epsilons", "5"], capsys)
    for term in ("DBMSTClu", "DBCVI", "ARI", "weight-DP", "neighbours", "sensitivity",
                 "epsilon", "mechanism", "release"):
        assert re.search(rf"^  {re.escape(term)}\s{{2,}}\S", text, re.M), term
    for mechanism in TREE_MECHANISMS:
        if mechanism in ("pamst", "laplace", "exponential", "input_perturbation",
                         "noisy_max_prim"):
            assert re.search(rf"^  {mechanism}\s{{2,}}\S", text, re.M), mechanism
    assert "median of 3 releases" in re.sub(r"\s+", " ", text)
    assert "``" not in text


def test_counts_are_integers_and_columns_aligned(capsys):
    text = run(["--runs", "2", "--epsilons", "1", "20"], capsys)
    # an even number of releases: a count is still an observed integer, never "2.5"
    assert re.search(r"\d\.\d\)", text) is None
    assert re.search(r"\d+\.0 clusters", text) is None
    tables_seen = 0
    for block in re.split(r"\n\n", text):
        rows = [line for line in block.splitlines() if _ROW.match(line)]
        if rows:  # aligned columns: the decimal points and brackets line up
            tables_seen += 1
            assert len({tuple(m.start() for m in re.finditer(r"(?<=\d)\.|\((?=\d)", row))
                        for row in rows}) == 1, rows
    assert tables_seen == 2
    point_rows = re.findall(r"^  (?:moons|circles)\s+\d+  [\d, .]+?\s+-?\d\.\d{3}\s+-?\d\.\d{3}$",
                            text, re.M)
    assert len(point_rows) == 2
    header = next(line for line in text.splitlines() if line.startswith("  data "))
    assert {len(row) for row in point_rows} == {len(header)}


@pytest.mark.parametrize("n", [70, 130])
def test_n_samples_sets_every_section(n, capsys):
    text = run(["--n-samples", str(n), "--runs", "1", "--epsilons", "5"], capsys)
    assert f"1. DBMSTClu on point clouds: {n} points each" in text
    assert f"{n} nodes each" in text
    for name in ("moons", "circles"):
        sizes = re.search(rf"^  {name}\s+\d+  ([\d, ]+?)\s{{2,}}", text, re.M).group(1)
        assert sum(int(s) for s in sizes.split(", ")) == n  # two clusters: no "..."
        assert re.search(rf"^  {name}: {n} nodes, \d+ edges\.", text, re.M)


def _check_summary(text, epsilons):
    parsed, autos = tables(text)
    said = summary(text)
    assert parsed
    for name, rows in parsed.items():
        reaches = {m: reach(v, epsilons) for m, v in rows.items()}
        found = [r for r in reaches.values() if r is not None]
        if not found:
            assert f"{name}: no mechanism recovers the clusters" in said
            continue
        best = min(found)
        m = re.search(rf"{name}: ([\w, ]+?) (?:wins|tie), recovering the clusters from "
                      r"epsilon (\S+?)[ ;.(]", said)
        assert m is not None, said
        winners = re.split(r", | and ", m.group(1))
        assert float(m.group(2)) == best
        assert all(reaches[w] == best for w in winners)
        assert f'tree_mechanism="auto" picks {autos[name]}' in said
    return parsed, autos


def test_summary_names_a_winner_the_table_shows(capsys):
    epsilons = [1.0, 5.0, 20.0]
    text = run(["--runs", "3"], capsys)
    parsed, _ = _check_summary(text, epsilons)
    assert set(parsed) == {"moons", "circles"}


def test_summary_follows_the_numbers_under_linf(capsys):
    # Under linf Laplace-MST fails where the compositions recover the clusters: the
    # summary must name another winner, read from this run.
    epsilons = [300.0, 1000.0]
    text = run(["--neighborhood", "linf", "--runs", "3", "--epsilons", "300", "1000",
                "--dataset", "moons"], capsys)
    parsed, _ = _check_summary(text, epsilons)
    winner = re.search(r"moons: (\w+) wins", summary(text)).group(1)
    assert winner != "laplace" and reach(parsed["moons"]["laplace"], epsilons) is None


def test_summary_when_nothing_recovers(capsys):
    text = run(["--neighborhood", "linf", "--runs", "1", "--epsilons", "1",
                "--dataset", "circles"], capsys)
    _check_summary(text, [1.0])
    assert "no mechanism recovers the clusters at these budgets" in summary(text)


def test_figure_lines_do_not_hide_each_other(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    saved = []
    original = Figure.savefig

    def savefig(self, *args, **kwargs):
        saved.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    run(["--runs", "3", "--output", str(tmp_path / "f.png")], capsys)
    (fig,) = saved
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    panels = [ax for ax in fig.axes if ax.containers]
    assert len(panels) == 2
    legend = fig.legends[0].get_window_extent(renderer)
    for ax in panels:
        assert not legend.overlaps(ax.get_window_extent(renderer))  # legend outside the data
        lines = [c.lines[0] for c in ax.containers]
        assert len(lines) == len(TREE_MECHANISMS)
        styles = {(ln.get_marker(), str(ln.get_linestyle())) for ln in lines}
        assert len(styles) == len(lines)
        pixels = [ax.transData.transform(ln.get_xydata()) for ln in lines]
        for i in range(len(lines)):
            for j in range(i):
                gap = np.linalg.norm(pixels[i] - pixels[j], axis=1)
                assert gap.min() > 3.0  # every marker of one curve apart from the other's


@pytest.mark.parametrize("argv, message", [
    (["--epsilons", "-1"], "must be a finite number > 0"),
    (["--epsilons", "inf"], "must be a finite number > 0"),
    (["--epsilons", "abc"], "not a number"),
    (["--dataset", "blobs"], "invalid choice"),
    (["--neighborhood", "l2"], "invalid choice"),
    (["--runs", "0"], "integer >= 1"),
    (["--seed", "-1"], "integer >= 0"),
    (["--seed", "1.5"], "not an integer"),
    (["--n-samples", "2"], "at least 60"),
    (["--n-samples", "59"], "at least 60"),
    (["--output", "figure.jpg"], "PNG"),
    (["--output", "/no-such-folder-here/figure.png"], "does not exist"),
])
def test_bad_values_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_data_that_cannot_be_made_is_refused(monkeypatch, capsys):
    import skdpgraph.datasets

    def refuse(*args, **kwargs):
        raise RuntimeError("make_homogeneous_circles: no sample out of 100 gave a graph.")

    monkeypatch.setattr(skdpgraph.datasets, "make_homogeneous_circles", refuse)
    with pytest.raises(SystemExit) as exc:
        main(["--dataset", "circles"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "no sample out of 100" in err and "--seed" in err and "--n-samples" in err


def test_verbose_estimators_report_their_stages(capsys):
    import networkx as nx
    import numpy as np

    from skdpgraph.cluster import (
        DBMSTClu,
        NoisyPowerClustering,
        PrivateMSTClustering,
        RandomizedResponseSpectralClustering,
    )

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

    from skdpgraph.cluster import (
        SCAN,
        DebiasedSpectralClustering,
        GraphKMedoids,
        PrivateGraphClustering,
    )

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
        assert f"[{name}] validation:" in err and "(60 nodes)" in err
        assert f"[{name}] fit:" in err and "clusters)" in err


@pytest.mark.slow
def test_main_job_runs_as_the_readme_says():
    # The README's first command (its code blocks run in tests/integration/test_docs.py).
    out = subprocess.run([sys.executable, "-m", "skdpgraph", "--runs", "2", "--epsilons", "5"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "DBMSTClu" in out and "ARI 1.000" in out
    assert "pamst" in out and "laplace" in out
