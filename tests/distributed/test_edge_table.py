"""One private clustering of a Dask edge table (skdpgraph.distributed), on a LocalCluster.

Checked: the distributed forest is scipy's minimum spanning tree of the same
(noisy) weights for several partitionings, including empty partitions and
nodes seen by one partition only, and does not depend on the partitioning
when weights tie; each partition draws its noise from its own key, with the
whole table's calibration; the accountant is charged once, in the client,
before any task reads a weight; a worker killed during the release leaves
the budget charged once and the release either completes (with the same
noise, never a second draw) or raises; the estimators, a Pipeline, Parquet
input, mapped node ids and the refusals.
"""

import os
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import pandas as pd  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from skdpgraph.cluster import SCAN, DBMSTClu, PrivateMSTClustering  # noqa: E402
from skdpgraph.distributed import (  # noqa: E402
    EdgeTable,
    labels_series,
    partition_keys,
    read_edge_parquet,
    release_table_forest,
    table_components,
    table_spanning_forest,
)
from skdpgraph.privacy import (  # noqa: E402
    BudgetAccountant,
    plan_tree_release,
    prepay_search,
    release_laplace,
)
from skdpgraph.tree import TREE_MECHANISMS, get_tree_mechanism, register_tree_mechanism  # noqa: E402
from skdpgraph.utils import config_context, keyed_generator  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None, scheduler_port=0)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def random_edges(n=60, per_node=4, seed=0, integer_weights=False):
    """A random graph as an edge DataFrame, each pair once (u < v)."""
    rng = np.random.default_rng(seed)
    u = np.repeat(np.arange(n), per_node)
    v = rng.integers(0, n, u.size)
    keep = u != v
    lo, hi = np.minimum(u, v)[keep], np.maximum(u, v)[keep]
    pairs = np.unique(lo * n + hi)
    lo, hi = pairs // n, pairs % n
    flip = rng.random(lo.size) < 0.5  # either orientation on a row
    u, v = np.where(flip, hi, lo), np.where(flip, lo, hi)
    w = rng.integers(1, 4, lo.size).astype(float) if integer_weights else rng.random(lo.size)
    order = rng.permutation(lo.size)
    return pd.DataFrame({"u": u[order], "v": v[order], "weight": w[order]})


def split_frame(df, sizes):
    """A Dask frame whose partitions hold ``sizes`` rows in turn (0: empty)."""
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    assert bounds[-1] == len(df)
    parts = [df.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return dd.from_map(lambda p: p, parts, meta=df.iloc[:0], enforce_metadata=False)


def partitionings(df):
    m = len(df)
    by_node = df.sort_values("u")  # nodes whose edges all sit in one partition
    return {
        "one": dd.from_pandas(df, npartitions=1),
        "seven": dd.from_pandas(df, npartitions=7),
        "empty partitions": split_frame(df, [0, m // 3, 0, 0, m - m // 3, 0]),
        "one edge each": split_frame(df.iloc[:12], [1] * 12),
        "by node": dd.from_pandas(by_node, npartitions=5, sort=False),
    }


def scipy_tree(df, n, keys):
    A = sp.coo_array((keys, (df.u.to_numpy(), df.v.to_numpy())), shape=(n, n)).tocsr()
    T = scipy_mst(A).tocoo()
    return sorted(zip(np.minimum(T.row, T.col).tolist(), np.maximum(T.row, T.col).tolist()))


def edge_set(tree):
    return sorted(map(tuple, tree.edges.tolist()))


def test_forest_equals_scipy_for_every_partitioning(client):
    df = random_edges()
    ref = scipy_tree(df, 60, df.weight.to_numpy())
    for name, frame in partitionings(df).items():
        sub = df if name != "one edge each" else df.iloc[:12]
        want = ref if name != "one edge each" else scipy_tree(sub, 60, sub.weight.to_numpy())
        tree, report = table_spanning_forest(frame, split_every=2, return_report=True)
        assert edge_set(tree) == want, name
        assert report.n_partitions == frame.npartitions
        assert report.edges_in[0] == len(sub)


def test_ties_do_not_depend_on_the_partitioning(client):
    df = random_edges(integer_weights=True, seed=3)  # many equal weights
    trees = {name: edge_set(table_spanning_forest(frame))
             for name, frame in partitionings(df).items() if name != "one edge each"}
    assert len(set(map(tuple, trees.values()))) == 1
    # The rule: the order (weight, u, v), u < v; scipy agrees on the ranks.
    lo, hi = np.minimum(df.u, df.v).to_numpy(), np.maximum(df.u, df.v).to_numpy()
    rank = np.empty(len(df))
    rank[np.lexsort((hi, lo, df.weight.to_numpy()))] = np.arange(1, len(df) + 1)
    assert trees["one"] == scipy_tree(df, 60, rank)


@pytest.fixture
def wavy_mechanism():
    """A test hook: 'noise' that is a known function of each weight."""
    def wavy(weights, **_):
        return weights + 0.5 * np.sin(weights * 10_000.0)

    register_tree_mechanism("test_wavy", TREE_MECHANISMS["laplace"].func,
                            releases_weights=True, zcdp=False, edge_noise=wavy)
    yield wavy
    del TREE_MECHANISMS["test_wavy"]


def test_private_tree_is_the_mst_of_the_noisy_weights(client, wavy_mechanism):
    df = random_edges(seed=5)
    noisy = wavy_mechanism(df.weight.to_numpy())
    ref = scipy_tree(df, 60, noisy)
    plan = plan_tree_release(1.0, releases_weights=True, zcdp=False)
    for name, frame in partitionings(df).items():
        if name == "one edge each":
            continue
        out = release_table_forest(EdgeTable(frame), get_tree_mechanism("test_wavy"), plan,
                                   sensitivity=0.1, neighborhood="l1",
                                   weight_bounds=(0.0, 1.0), random_state=0)
        assert edge_set(out.tree) == ref, name


@pytest.mark.parametrize("mechanism,neighborhood,accounting", [
    ("laplace", "l1", "pure"), ("laplace", "linf", "pure"),
    ("input_perturbation", "linf", "zcdp")])
def test_each_partition_draws_its_own_calibrated_noise(client, mechanism, neighborhood,
                                                       accounting):
    df = random_edges(seed=7)
    frame = dd.from_pandas(df, npartitions=4)
    mech = get_tree_mechanism(mechanism)
    delta = 1e-6 if accounting == "zcdp" else None
    plan = plan_tree_release(2.0, accounting=accounting, delta=delta,
                             releases_weights=mech.releases_weights, zcdp=mech.zcdp)
    out = release_table_forest(EdgeTable(frame), mech, plan, sensitivity=0.05,
                               neighborhood=neighborhood, weight_bounds=(0.0, 1.0),
                               random_state=11)
    # The same keys, redrawn here partition by partition with the whole
    # table's |E| and |V| - 1, give the same forest.
    keys = partition_keys(11, frame.npartitions)
    noise = []
    for i, key in enumerate(keys):
        part = frame.partitions[i].compute()
        kw = dict(n_edges=len(df), n_tree_edges=59, sensitivity=0.05,
                  neighborhood=neighborhood, random_state=keyed_generator(key))
        kw.update(epsilon=plan.tree_epsilon) if plan.tree_rho is None else kw.update(
            rho=plan.tree_rho)
        noise.append(mech.edge_noise(part.weight.to_numpy(), **kw))
    noisy = np.concatenate(noise)
    assert edge_set(out.tree) == scipy_tree(df, 60, noisy)
    if mech.releases_weights:  # the released weights are the noisy ones
        lookup = dict(zip(zip(np.minimum(df.u, df.v), np.maximum(df.u, df.v)), noisy))
        np.testing.assert_array_equal(out.tree.weights,
                                      [lookup[tuple(e)] for e in out.tree.edges.tolist()])


def test_partition_keys_are_distinct_streams():
    keys = partition_keys(0, 64)
    assert len(set(keys)) == 64 and all(len(k) == 32 for k in keys)
    assert partition_keys(0, 64) == keys  # a seed reproduces them
    assert partition_keys(None, 2) != partition_keys(None, 2)  # fresh secret seeds
    draws = [keyed_generator(k).integers(0, 2**63, 4).tolist() for k in keys]
    assert len({tuple(d) for d in draws}) == 64
    # Equal weights in two partitions get different noise.
    w = np.full(1000, 0.5)
    a = release_laplace(w, 1.0, 1.0, keyed_generator(keys[0]), n_values=2000)
    b = release_laplace(w, 1.0, 1.0, keyed_generator(keys[1]), n_values=2000)
    assert np.count_nonzero(a == b) < 100


def test_part_is_calibrated_for_the_whole_vector():
    rng = np.random.default_rng(0)
    w = rng.random(5000)
    whole = release_laplace(w, 3.0, 0.5, rng, full_output=True)
    part = release_laplace(w[:700], 3.0, 0.5, rng, full_output=True, n_values=5000)
    assert (part.grid, part.scale) == (whole.grid, whole.scale)
    with pytest.raises(ValueError, match="n_values"):
        release_laplace(w, 3.0, 0.5, rng, n_values=10)


class _Recorder(SchedulerPlugin):
    """Every task key the scheduler has been given, in order."""

    def __init__(self):
        self.keys = []

    def update_graph(self, scheduler, *, keys=(), tasks=(), **kwargs):
        self.keys.extend(str(k) for k in (tasks or keys))


class _SpyAccountant(BudgetAccountant):
    def __init__(self, epsilon, on_spend):
        super().__init__(epsilon=epsilon)
        self.on_spend = on_spend
        self.spends = 0

    def spend(self, epsilon, delta):
        self.spends += 1
        self.on_spend()
        return super().spend(epsilon, delta)


def test_budget_is_charged_once_before_any_task_reads_a_weight(client):
    recorder = _Recorder()
    client.cluster.scheduler.add_plugin(recorder, name="test-recorder")
    try:
        table = EdgeTable(dd.from_pandas(random_edges(seed=2), npartitions=3))
        seen = []
        budget = _SpyAccountant(10.0, lambda: seen.append(list(recorder.keys)))
        PrivateMSTClustering(epsilon=1.0, sensitivity=0.1, weight_bounds=(0, 1),
                             metric="precomputed", accountant=budget,
                             random_state=0).fit(table)
        assert budget.spends == 1 and budget.total()[0] == pytest.approx(1.0)
        before, after = seen[0], recorder.keys
        assert not any("partition_forest" in k for k in before)
        assert any("partition_forest" in k for k in after)
        # The topology is kept on the table: a second fit submits nothing first.
        seen.clear()
        recorder.keys.clear()
        PrivateMSTClustering(epsilon=1.0, sensitivity=0.1, weight_bounds=(0, 1),
                             metric="precomputed", accountant=budget,
                             random_state=1).fit(table)
        assert seen == [[]] and budget.spends == 2
    finally:
        client.cluster.scheduler.remove_plugin(name="test-recorder")


def _slow_partition(part):
    time.sleep(0.25)
    return part


@pytest.mark.slow
def test_killed_worker_leaves_one_charge_and_no_second_draw():
    df = random_edges(n=80, seed=9)
    parts = [df.iloc[i::6] for i in range(6)]
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, scheduler_port=0)
    with distributed.Client(cluster) as c:
        def fit(budget):
            frame = dd.from_map(_slow_partition, parts, meta=df.iloc[:0],
                                enforce_metadata=False)
            return PrivateMSTClustering(epsilon=5.0, sensitivity=0.01, weight_bounds=(0, 1),
                                        metric="precomputed", accountant=budget,
                                        random_state=4).fit(frame)

        reference = fit(BudgetAccountant(10.0))
        charged = threading.Event()
        budget = _SpyAccountant(10.0, charged.set)
        result = {}

        def run():
            try:
                result["model"] = fit(budget)
            except Exception as exc:  # a lost worker may end the release
                result["error"] = exc

        thread = threading.Thread(target=run)
        thread.start()
        assert charged.wait(60)
        time.sleep(0.5)  # partitions are being read and released
        victim = list(c.scheduler_info()["workers"])[0]
        try:
            c.run(os._exit, 1, workers=[victim])
        except OSError:  # the worker dies before it answers
            pass
        thread.join(120)
    cluster.close()
    assert budget.spends == 1 and budget.total()[0] == pytest.approx(5.0)
    if "model" in result:  # redone tasks drew the same noise: the same release
        model = result["model"]
        np.testing.assert_array_equal(model.tree_edges_, reference.tree_edges_)
        np.testing.assert_array_equal(model.labels_, reference.labels_)
    else:
        assert "error" in result


def test_estimators_pipeline_and_series(client):
    from skdpgraph.datasets import make_homogeneous_moons

    graph = make_homogeneous_moons(random_state=0).graph
    A = sp.triu(sp.csr_array(graph), 1).tocoo()
    df = pd.DataFrame({"src": A.row, "dst": A.col, "d": A.data})
    table = EdgeTable(dd.from_pandas(df, npartitions=3), "src", "dst", "d")
    model = PrivateMSTClustering(epsilon=50.0, sensitivity=0.001, weight_bounds=(0, 1),
                                 metric="precomputed", random_state=0).fit(table)
    assert model.tree_mechanism_ == "laplace" and model.tree_edges_.shape == (99, 2)
    assert model.n_features_in_ == 100 and not hasattr(model, "feature_names_in_")
    assert model.labels_.shape == (100,) and model.n_clusters_ == 2
    labels = make_pipeline(PrivateMSTClustering(
        epsilon=50.0, sensitivity=0.001, weight_bounds=(0, 1), metric="precomputed",
        random_state=0)).fit(table)[-1].labels_
    np.testing.assert_array_equal(labels, model.labels_)
    exact = DBMSTClu(metric="precomputed").fit(table)
    local = DBMSTClu(metric="precomputed").fit(graph)
    np.testing.assert_array_equal(exact.labels_, local.labels_)
    series = labels_series(exact.labels_, table, npartitions=2).compute()
    np.testing.assert_array_equal(series.index, np.arange(100))
    np.testing.assert_array_equal(series.to_numpy(), exact.labels_)


def test_mapped_ids_parquet_and_linf_auto(client, tmp_path):
    df = random_edges(seed=4)
    names = np.array([f"node-{i:03d}" for i in range(60)], dtype=object)
    named = pd.DataFrame({"a": names[df.u], "b": names[df.v], "w": df.weight})
    path = tmp_path / "edges.parquet"
    named.to_parquet(path)
    table = read_edge_parquet(str(path), "a", "b", "w")
    topo = table.topology()
    assert (topo.n_nodes, topo.n_edges) == (60, len(df))
    assert list(topo.node_ids) == sorted(names)
    exact = DBMSTClu(metric="precomputed").fit(table)
    local = DBMSTClu(metric="precomputed").fit(
        sp.coo_array((df.weight, (df.u, df.v)), shape=(60, 60)).tocsr()
        + sp.coo_array((df.weight, (df.v, df.u)), shape=(60, 60)).tocsr())
    np.testing.assert_array_equal(exact.labels_, local.labels_)  # ids sorted = 0..59
    series = labels_series(exact.labels_, table).compute()
    assert series["node-007"] == exact.labels_[7]
    # Under linf with zCDP, auto chooses input perturbation; it runs distributed.
    model = PrivateMSTClustering(epsilon=5.0, sensitivity=0.01, neighborhood="linf",
                                 accounting="zcdp", delta=1e-6, weight_bounds=(0, 1),
                                 metric="precomputed", random_state=0).fit(table)
    assert model.tree_mechanism_ == "input_perturbation"
    assert model.tree_edges_.shape == (59, 2)


def test_disconnected_input_perturbation_counts_components(client):
    df = random_edges(n=40, seed=1)
    other = random_edges(n=40, seed=2) + [40, 40, 0.0]  # a second component
    both = pd.concat([df, other], ignore_index=True)
    mech = get_tree_mechanism("input_perturbation")
    plan = plan_tree_release(1.0, accounting="zcdp", delta=1e-6)
    out = release_table_forest(EdgeTable(dd.from_pandas(both, npartitions=3)), mech, plan,
                               sensitivity=0.01, neighborhood="linf",
                               weight_bounds=(0.0, 1.0), random_state=0)
    assert out.tree.edges.shape[0] == 78 and out.report.passes == 2


@pytest.mark.parametrize("seed", range(4))
def test_table_components_counts_the_components_of_the_pairs(client, seed):
    rng = np.random.default_rng(seed)
    n = 80
    pairs = np.unique(np.sort(rng.integers(0, n, size=(rng.integers(1, 90), 2)), axis=1),
                      axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    df = pd.DataFrame({"u": pairs[:, 0], "v": pairs[:, 1], "weight": rng.random(len(pairs))})
    A = sp.coo_array((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    expected = connected_components(A, directed=False)[0]
    for parts in (1, 3):
        table = EdgeTable(dd.from_pandas(df, npartitions=parts), nodes=n)
        assert table_components(table, split_every=2) == expected


def test_weight_release_range_is_refused_before_the_charge_as_in_memory(client):
    # 29 components: Weight-Release of 31 weights. Sensitivities around the grid's
    # limit: the distributed fit refuses exactly where the in-memory one does, and
    # before the charge (it charged, then refused, when only k = 1 and k = |V| - 1
    # were checked before it).
    u = np.r_[np.arange(0, 60, 2), 0]
    v = np.r_[np.arange(1, 60, 2), 2]
    df = pd.DataFrame({"u": u, "v": v, "weight": np.linspace(0.1, 0.9, u.size)})
    A = sp.csr_array((df.weight, (u, v)), shape=(60, 60))
    A = (A + A.T).tocsr()
    outcomes = set()
    for mu in 10.0 ** np.arange(272, 278):
        got = []
        for X in (A, dd.from_pandas(df, npartitions=3)):
            budget = BudgetAccountant()
            est = PrivateMSTClustering(metric="precomputed", weight_bounds=(0, 1),
                                       tree_mechanism="input_perturbation",
                                       neighborhood="linf", sensitivity=mu,
                                       accountant=budget, random_state=0)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X)
                got.append(("fit", budget.total()))
            except ValueError as exc:
                assert "over 31 value(s)" in str(exc)
                got.append(("refused", budget.total()))
        assert got[0] == got[1]
        outcomes.add(got[0])
    assert outcomes == {("fit", (1.0, 0.0)), ("refused", (0.0, 0.0))}


def test_refusals(client):
    df = random_edges(seed=6)
    frame = dd.from_pandas(df, npartitions=2)
    for name in ("pamst", "exponential", "noisy_max_prim"):
        budget = BudgetAccountant(10.0)
        with pytest.raises(ValueError, match=r"\['input_perturbation', 'laplace'\]"):
            PrivateMSTClustering(metric="precomputed", tree_mechanism=name,
                                 accountant=budget).fit(frame)
        assert budget.total() == (0.0, 0.0)
    with pytest.raises(ValueError, match="metric='precomputed'"):
        PrivateMSTClustering().fit(frame)
    with pytest.raises(ValueError, match="column 'weight'"):
        EdgeTable(frame.rename(columns={"weight": "w"}))
    both = pd.concat([df, df.rename(columns={"u": "v", "v": "u"})], ignore_index=True)
    with pytest.raises(ValueError, match="more than one row"):
        EdgeTable(dd.from_pandas(both, npartitions=3)).topology()
    assert EdgeTable(dd.from_pandas(both, npartitions=3),
                     check_pairs=False).topology().n_edges == 2 * len(df)
    # weights the in-memory check refuses: refused by the topology pass, before the charge
    for bad, match in ((df.weight - 0.5, "negative"),
                       (df.weight.where(df.index != 3, np.nan), "finite"),
                       (df.weight.where(df.index != 3, np.inf), "finite"),
                       (df.weight.astype("Float64").where(df.index != 3, pd.NA), "finite")):
        budget = BudgetAccountant(10.0)
        with pytest.raises(ValueError, match=match):
            PrivateMSTClustering(metric="precomputed", weight_bounds=(0, 1),
                                 accountant=budget).fit(
                dd.from_pandas(df.assign(weight=bad), npartitions=2))
        assert budget.total() == (0.0, 0.0)
    with pytest.raises(ValueError, match="out of range"):
        EdgeTable(frame, nodes=10).topology()


def test_import_skdpgraph_does_not_import_dask():
    code = ("import sys, skdpgraph, skdpgraph.cluster, skdpgraph.distributed; "
            "print('dask' in sys.modules, 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["False", "False"]


def test_verbose_shows_dask_progress(client, capsys):
    table = EdgeTable(dd.from_pandas(random_edges(seed=8), npartitions=3))
    PrivateMSTClustering(epsilon=1.0, sensitivity=0.1, weight_bounds=(0, 1),
                         metric="precomputed", random_state=0, verbose=1).fit(table)
    out = capsys.readouterr()
    assert "[skdpgraph.distributed] private tree" in out.err
    assert "Completed" in out.out + out.err  # Dask's own progress bar


def test_missing_node_ids_are_refused():
    import pandas as pd

    for u in ([0.0, 1.0, np.nan], pd.array([0, 1, None], dtype="Int64"), ["a", "b", None]):
        frame = pd.DataFrame({"u": u, "v": [1, 2, 0] if not isinstance(u[0], str) else
                              ["b", "c", "a"], "weight": [0.1, 0.2, 0.3]})
        table = EdgeTable(dd.from_pandas(frame, npartitions=1),
                          nodes="map" if isinstance(u[0], str) else None)
        with pytest.raises(ValueError, match="missing"):
            table.topology()
    with pytest.raises(TypeError, match="nodes must be"):
        EdgeTable(dd.from_pandas(frame, npartitions=1), nodes=True)


def test_read_edge_parquet_names_missing_columns(tmp_path):
    import pandas as pd

    from skdpgraph.distributed import read_edge_parquet

    path = str(tmp_path / "edges.parquet")
    pd.DataFrame({"u": [0, 1], "v": [1, 2], "weight": [0.3, 0.9]}).to_parquet(path)
    assert read_edge_parquet(path).topology()[:2] == (3, 2)
    with pytest.raises(ValueError, match=r"\['a'\] are not in the Parquet files"):
        read_edge_parquet(path, source="a")


def _write_parts(directory, frames):
    for f in directory.glob("*.parquet"):
        f.unlink()
    for i, frame in enumerate(frames):
        frame.to_parquet(directory / f"part{i}.parquet")


@pytest.mark.filterwarnings("ignore::skdpgraph.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("change", ["more edges", "ids beyond n", "other pairs"])
def test_a_source_changed_after_its_count_is_refused(tmp_path, change):
    # The counted topology calibrates the release; rows that are not those counted are
    # refused before anything is released (more edges: too little noise; ids beyond the
    # count: out of the forest kernel's arrays; other pairs: possibly duplicates).
    with dask.config.set(scheduler="synchronous"):
        path = tmp_path / "edges"
        path.mkdir()
        iu, iv = np.triu_indices(30, 1)
        first = pd.DataFrame({"u": iu[:40], "v": iv[:40], "weight": 0.5})
        _write_parts(path, [first[:20], first[20:]])
        table = read_edge_parquet(str(path / "*.parquet"))
        assert table.topology()[:2] == (30, 40)
        if change == "more edges":
            later = pd.DataFrame({"u": iu[:80], "v": iv[:80], "weight": 0.5})
        elif change == "ids beyond n":
            later = first.assign(v=first.v + 100)
        else:  # same count, one pair repeated instead of another
            later = first.copy()
            later.loc[39, ["u", "v"]] = later.loc[0, ["u", "v"]].to_numpy()
        _write_parts(path, [later[:20], later[20:]])
        budget = BudgetAccountant(10.0)
        for fit in (lambda: DBMSTClu(metric="precomputed").fit(table),
                    lambda: PrivateMSTClustering(
                        epsilon=1.0, sensitivity=0.1, weight_bounds=(0, 1), neighborhood="linf",
                        tree_mechanism="laplace", metric="precomputed", accountant=budget,
                        random_state=0).fit(table)):
            with pytest.raises(ValueError, match="changed since its topology was counted"):
                fit()


def test_a_node_only_in_a_self_loop_is_a_node_in_every_id_mode():
    df = pd.DataFrame({"u": [0, 1, 7], "v": [1, 2, 7], "weight": [1.0, 2.0, 3.0]})
    with dask.config.set(scheduler="synchronous"):
        frame = dd.from_pandas(df, npartitions=2)
        assert EdgeTable(frame).topology().n_nodes == 8  # ids are node numbers: 0..7
        assert EdgeTable(frame, nodes="map").topology().n_nodes == 4


@pytest.mark.slow
def test_diagnostics_off_in_the_client_are_off_in_the_partitions():
    # in worker processes, which do not share the client's configuration
    df = random_edges(seed=9)
    with dask.config.set(scheduler="processes", num_workers=2), config_context(
            data_dependent_warnings=False):
        out = release_table_forest(EdgeTable(dd.from_pandas(df, npartitions=3)),
                                   get_tree_mechanism("laplace"),
                                   plan_tree_release(1.0, releases_weights=True, zcdp=False),
                                   sensitivity=0.1,
                                   neighborhood="l1", weight_bounds=(0.0, 1.0), random_state=0)
    assert (out.low, out.high) == (np.inf, -np.inf)  # the private extremes were not computed


def test_edge_tables_elsewhere_are_refused_before_anything_is_computed():
    from dask.callbacks import Callback

    class Refuse(Callback):
        def _start(self, dsk):
            raise AssertionError("the input was computed")

    frame = dd.from_pandas(random_edges(seed=10), npartitions=2)
    array = da.zeros((10**5, 10**5), chunks=10**4)  # 75 GiB if computed
    # local callbacks see local schedulers only (not the module's distributed client)
    with dask.config.set(scheduler="synchronous"), Refuse():
        for estimator, X in ((SCAN(), frame), (PrivateMSTClustering(metric="precomputed"), array),
                             (DBMSTClu(metric="precomputed"), array)):
            with pytest.raises(TypeError, match="Dask"):
                estimator.fit(X)
        budget = BudgetAccountant(10.0)
        search = GridSearchCV(PrivateMSTClustering(sensitivity=0.1, weight_bounds=(0, 1),
                                                   metric="precomputed"),
                              {"epsilon": [1.0, 2.0]}, cv=2)
        for X in (frame, EdgeTable(frame)):
            with pytest.raises(TypeError, match="cannot split"):
                prepay_search(search, X, accountant=budget)
        assert budget.total() == (0.0, 0.0)



def test_counts_of_partitions_are_checked():
    from skdpgraph.exceptions import WorkMemoryError

    with pytest.raises(ValueError, match="n_partitions must be >= 0"):
        partition_keys(0, -1)
    with pytest.raises(WorkMemoryError, match="partition keys"):
        partition_keys(0, 2**50)
    assert partition_keys(0, 0) == []
    table = EdgeTable(dd.from_pandas(random_edges(n=10), npartitions=2))
    labels = np.zeros(10, dtype=int)
    for npartitions in (0, -1, 11, 2**63):
        with pytest.raises(ValueError, match="npartitions must be"):
            labels_series(labels, table, npartitions=npartitions)
    assert labels_series(labels, table, npartitions=10).npartitions == 10


def test_self_loop_rows_do_not_set_the_bounds_read_from_the_data():
    # They are not edges: the topology drops them, and the in-memory path never sees them.
    frame = pd.DataFrame({"u": [0, 1, 2, 5], "v": [1, 2, 3, 5], "weight": [0.2, 0.3, 0.9, 1e3]})
    A = sp.csr_array(([0.2, 0.2, 0.3, 0.3, 0.9, 0.9], ([0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2])),
                     shape=(6, 6))
    kw = dict(epsilon=1.0, sensitivity=0.01, metric="precomputed", random_state=0)
    with warnings.catch_warnings(), dask.config.set(scheduler="sync"):
        warnings.simplefilter("ignore")
        table = PrivateMSTClustering(**kw).fit(EdgeTable(dd.from_pandas(frame, npartitions=2)))
        assert table.weight_bounds_ == PrivateMSTClustering(**kw).fit(A).weight_bounds_


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes")
def test_a_release_that_fails_after_the_charge_says_so():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"u": np.arange(40), "v": np.arange(1, 41), "weight": rng.random(40)})
    reads = []

    def flaky(part):
        reads.append(len(part))
        if len(reads) == 3:  # the topology pass read both partitions: the release fails
            raise RuntimeError("a partition failed")
        return part

    base = dd.from_pandas(frame, npartitions=2)
    budget = BudgetAccountant()
    with dask.config.set(scheduler="sync"), pytest.raises(RuntimeError) as info:
        PrivateMSTClustering(epsilon=2.0, sensitivity=0.01, weight_bounds=(0, 1),
                             metric="precomputed", accountant=budget).fit(
            EdgeTable(base.map_partitions(flaky, meta=base._meta)))
    assert "was charged" in " ".join(info.value.__notes__)
    assert budget.total() == (2.0, 0.0)
