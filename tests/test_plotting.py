"""skdpgraph.plotting: the figures have the right artists; bad input is refused."""

import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection, PathCollection, PolyCollection  # noqa: E402

from skdpgraph.cluster import DBMSTClu, PrivateMSTClustering, dbmstclu  # noqa: E402
from skdpgraph.plotting import plot_ari_vs_epsilon, plot_dbcvi_path, plot_graph  # noqa: E402
from skdpgraph.tree import minimum_spanning_tree  # noqa: E402

POS = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [5.0, 0.0], [6.0, 0.0], [7.0, 0.5]])
D = np.abs(np.subtract.outer(POS[:, 0], POS[:, 0]))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _kinds(ax):
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    return lines, points


def test_plot_graph_layers_and_counts():
    model = DBMSTClu(metric="precomputed").fit(D)
    ax = plot_graph(D, POS, model.labels_, tree=model.tree_, cut_edges=model.cut_edges_)
    lines, points = _kinds(ax)
    assert [len(c.get_segments()) for c in lines] == [15, 5, len(model.cut_edges_)]
    assert len(points) == 1 and len(points[0].get_offsets()) == 6
    # one colour per cluster
    colours = {tuple(c) for c in points[0].get_facecolors()}
    assert len(colours) == model.n_clusters_


def test_plot_graph_tree_only_and_spanning_tree_input():
    tree = minimum_spanning_tree(D)
    fig, ax = plt.subplots()
    assert plot_graph(None, POS, tree=tree, ax=ax) is ax
    lines, points = _kinds(ax)
    assert len(lines) == 1 and len(lines[0].get_segments()) == 5
    assert len(points) == 1


def test_plot_graph_sparse_graph_and_unclustered_grey():
    A = sp.csr_array(np.where(D < 1.5, D, 0.0))
    labels = np.array([0, 0, 0, -1, 1, 1])
    ax = plot_graph(A, POS, labels)
    lines, points = _kinds(ax)
    assert len(lines[0].get_segments()) == A.nnz // 2
    grey = matplotlib.colors.to_rgba("0.6")
    assert tuple(points[0].get_facecolors()[3]) == pytest.approx(grey)


@pytest.mark.parametrize("kwargs, match", [
    (dict(positions=POS[:, :1]), "shape \\(n, 2\\)"),
    (dict(positions=POS[:5]), "graph has 6 nodes but positions has 5"),
    (dict(labels=[0, 1]), "labels must have shape \\(6,\\)"),
    (dict(labels=np.full(6, 0.5)), "labels must be integers"),
    (dict(cut_edges=[[0, 9]]), "outside 0..5"),
    (dict(cut_edges=[0, 1, 2]), "shape \\(k, 2\\)"),
    (dict(tree=np.zeros((3, 3))), "tree has 3 nodes"),
])
def test_plot_graph_bad_input(kwargs, match):
    args = dict(graph=D, positions=POS)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        plot_graph(**args)


def test_plot_graph_bad_positions_values_and_ax():
    bad = POS.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        plot_graph(D, bad)
    with pytest.raises(TypeError, match="Axes"):
        plot_graph(D, POS, ax="not an axes")


def test_plot_dbcvi_path_from_model_result_and_array():
    model = DBMSTClu(metric="precomputed").fit(D)
    ax = plot_dbcvi_path(model)
    (line,) = ax.lines
    y = line.get_ydata()
    assert y[0] == -1.0 and y[-1] == pytest.approx(model.dbcvi_)
    assert len(y) == len(model.dbcvi_path_) + 1
    assert np.all(np.diff(y) >= 0)
    res = dbmstclu(minimum_spanning_tree(D))
    assert len(plot_dbcvi_path(res).lines[0].get_ydata()) == len(res.dbcvi_path) + 1
    ax = plot_dbcvi_path([0.2, 0.5], label="given")
    assert ax.get_legend() is not None


def test_plot_dbcvi_path_private_model():
    model = PrivateMSTClustering(epsilon=50.0, sensitivity=0.01, weight_bounds=(0.0, 8.0),
                                 tree_mechanism="laplace", metric="precomputed",
                                 random_state=0).fit(D)
    assert len(plot_dbcvi_path(model).lines[0].get_ydata()) == model.dbcvi_path_.size + 1


def test_plot_dbcvi_path_bad_input():
    with pytest.raises(ValueError, match="not fitted"):
        plot_dbcvi_path(DBMSTClu())
    with pytest.raises(ValueError, match="1-D"):
        plot_dbcvi_path(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="\\[-1, 1\\]"):
        plot_dbcvi_path([0.5, 2.0])
    with pytest.raises(TypeError, match="fitted DBMSTClu"):
        plot_dbcvi_path(object())


def test_plot_ari_vs_epsilon_bands_and_legend_outside():
    eps = [0.1, 1.0, 10.0]
    rng = np.random.default_rng(0)
    fig, ax = plt.subplots()
    for name in ("A", "B", "C"):
        plot_ari_vs_epsilon(eps, rng.uniform(0, 1, (3, 7)), label=name, ax=ax)
    assert len(ax.lines) == 3
    assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 3
    assert ax.get_xscale() == "log"
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["A", "B", "C"]
    # outside: anchored right of the axes
    fig.canvas.draw()
    assert legend.get_window_extent().x0 > ax.get_window_extent().x1


def test_plot_ari_vs_epsilon_median_and_quartiles():
    runs = np.array([[0.0, 0.2, 0.4, 0.6, 0.8], [1.0, 1.0, 1.0, 1.0, np.nan]])
    ax = plot_ari_vs_epsilon([1.0, 2.0], runs, label="m")
    assert ax.lines[0].get_ydata().tolist() == [0.4, 1.0]
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() == pytest.approx(0.2) and band[:, 1].max() == pytest.approx(1.0)


def test_plot_ari_vs_epsilon_mapping():
    ax = plot_ari_vs_epsilon([1.0, 2.0], {"x": np.zeros((2, 3)), "y": np.ones((2, 3))})
    assert len(ax.lines) == 2 and len(ax.collections) == 2


@pytest.mark.parametrize("eps, runs, kwargs, match", [
    ([1.0, 2.0], np.zeros((3, 2)), {}, "shape \\(n_epsilons, n_runs\\)"),
    ([2.0, 1.0], np.zeros((2, 2)), {}, "increasing"),
    ([0.0, 1.0], np.zeros((2, 2)), {}, "positive"),
    ([], np.zeros((0, 2)), {}, "non-empty"),
    ([1.0, 2.0], np.full((2, 2), 3.0), {}, "\\[-1, 1\\]"),
    ([1.0, 2.0], {"a": np.zeros((2, 2))}, {"label": "b"}, "mapping"),
    ([1.0, 2.0], np.zeros((2, 2)), {"legend": "left"}, "legend"),
])
def test_plot_ari_vs_epsilon_bad_input(eps, runs, kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_ari_vs_epsilon(eps, runs, **kwargs)


def test_missing_matplotlib_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"skdpgraph\[plot\]"):
        plot_dbcvi_path([0.5])
    import importlib

    import skdpgraph.plotting

    importlib.reload(skdpgraph.plotting)  # importing the module never needs matplotlib


def test_plot_graph_takes_networkx_layouts():
    import networkx as nx

    G = nx.les_miserables_graph()  # string node names
    layout = nx.spring_layout(G, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its co-occurrence counts look like similarities
        ax = plot_graph(G, layout)
        reference = plot_graph(G, np.array([layout[v] for v in G]))
    np.testing.assert_array_equal(ax.collections[-1].get_offsets(),
                                  reference.collections[-1].get_offsets())
    with pytest.raises(TypeError, match="networkx graph"):
        plot_graph(nx.to_numpy_array(G), layout)
    del layout[next(iter(G))]
    with pytest.raises(ValueError, match="no coordinates"):
        plot_graph(G, layout)
