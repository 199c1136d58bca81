"""Sweep-file validation and grid expansion (no anonymizer needed)."""

from __future__ import annotations

import copy

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.common.errors import InputError
from experiments.sweep.grid import expand_points, expand_runs, filter_runs, parse_only, run_key
from experiments.sweep.schema import KExpr, load_sweep, parse_sweep

BASE = {
    "name": "unit",
    "datasets": ["terrovitis2012-fig2"],
    "grid": {"k": [2, 3], "m": 2, "max_cluster_size": 10},
    "attacks": {"cover": {"attackers": ["strong"]}},
    "plots": [{"metric": "pem", "x": "k"}],
}


def sweep(**changes):
    raw = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            raw.pop(key, None)
        else:
            raw[key] = value
    return raw


def error_of(raw) -> str:
    with pytest.raises(InputError) as info:
        parse_sweep(raw, source="s.yaml")
    msg = str(info.value)
    assert "\n" not in msg
    return msg


# ---------------------------------------------------------------- schema errors
def test_unknown_top_key_suggests_and_lists_allowed():
    raw = sweep()
    raw["metrcs"] = ["pem"]
    msg = error_of(raw)
    assert msg.startswith("s.yaml: metrcs: unknown key (did you mean 'metrics'?)")
    assert "allowed keys:" in msg and "datasets" in msg


def test_unknown_nested_key_has_its_path():
    msg = error_of(sweep(grid={"k": 2, "max_clustr_size": 4}))
    assert "grid.max_clustr_size: unknown key (did you mean 'max_cluster_size'?)" in msg
    msg = error_of(sweep(plots=[{"metric": "pem", "x": "k"}, {"metric": "pem", "x": "m", "grop_by": "method"}]))
    assert "plots[1].grop_by: unknown key (did you mean 'group_by'?)" in msg
    msg = error_of(sweep(attacks={"cover": {"atackers": ["strong"]}}))
    assert "attacks.cover.detector.atackers" in msg


@pytest.mark.parametrize(
    ("grid", "expected"),
    [
        ({"k": 1}, "grid.k: 1 is impossible: must be >= 2"),
        ({"k": [2, 1]}, "grid.k[1]: 1 is impossible"),
        ({"m": 0}, "grid.m: 0 is impossible: must be >= 1"),
        ({"k": "three"}, "grid.k: expected an integer, got a string"),
        ({"k": True}, "grid.k: expected an integer, got a boolean"),
        ({"k": 5, "max_cluster_size": 4}, "grid.max_cluster_size: 4 is impossible for k=5: must be >= k"),
        ({"k": 3, "max_cluster_size": 4}, "grid: max cluster size 4 is below 2k - 1 = 5: horpart 'original'"),
        ({"k": 3, "max_cluster_size": "k-1"}, "'k-1' gives 2 is impossible for k=3"),
        ({"max_cluster_size": "k^^2"}, "grid.max_cluster_size"),
        ({"max_cluster_size": "n^2"}, "names 'n'"),
        ({"max_cluster_size": "__import__('os')"}, "grid.max_cluster_size"),
        ({"horpart": "adding", "verpart": "grouped", "refine": "yes"}, "grid.refine: expected true or false"),
        ({"verpart": "groupd"}, "grid.verpart: 'groupd' is not allowed (did you mean 'grouped'?)"),
        ({"k": {"from": 5, "to": 2}}, "grid.k: empty range"),
        ({"k": {"from": 2, "to": 5, "stp": 1}}, "grid.k.stp: unknown key (did you mean 'step'?)"),
        ({"k": [2, 2]}, "grid.k[1]: 2 is listed twice"),
    ],
)
def test_impossible_or_mistyped_grid_values(grid, expected):
    msg = error_of(sweep(grid=grid))
    assert expected in msg


def test_other_section_errors():
    assert "name: missing" in error_of(sweep(name=None))
    assert "use letters, digits" in error_of(sweep(name="a/b"))
    assert "datasets: expected a non-empty list" in error_of(sweep(datasets=[]))
    assert "datasets[0]: give exactly one of" in error_of(sweep(datasets=[{"label": "x"}]))
    assert "datasets[0].density: density applies to text builds only" in error_of(
        sweep(datasets=[{"name": "kosarak10k", "density": 0.3}]))
    assert "datasets[0].density: 1.5 is impossible" in error_of(sweep(datasets=[{"text": "lee", "density": 1.5}]))
    assert "datasets[0].records: 0 is impossible" in error_of(sweep(datasets=[{"name": "x", "records": 0}]))
    assert "declared twice" in error_of(sweep(datasets=["a", "a"]))
    assert "attacks.cover.detector.attackers[0]: 'strnog' is not allowed (did you mean 'strong'?)" in error_of(
        sweep(attacks={"cover": {"attackers": ["strnog"]}}))
    assert "attacks.semantic.selectors[0]: 'ABB'" in error_of(
        sweep(datasets=[{"text": "lee"}], attacks={"semantic": {"selectors": ["ABB"]}}))
    assert "the semantic attack needs at least one text dataset" in error_of(sweep(attacks={"semantic": {}}))
    assert "metrics[0]: 'pme' is not allowed (did you mean 'pem'?)" in error_of(sweep(metrics=["pme"]))
    assert "metric 'rlm' needs grid.safe: true" in error_of(sweep(metrics=["rlm"]))
    assert "metric 'accuracy' needs attacks.semantic" in error_of(sweep(metrics=["accuracy"]))
    assert "plots[0].metric: 'rlm' is not recorded by this sweep" in error_of(
        sweep(plots=[{"metric": "rlm", "x": "k"}]))
    assert "plots[0].x: 'kk'" in error_of(sweep(plots=[{"metric": "pem", "x": "kk"}]))
    assert "plots[0]: 'x' is missing" in error_of(sweep(plots=[{"metric": "pem"}]))
    assert "plots[0].group_by: 'k' is already the x axis" in error_of(
        sweep(plots=[{"metric": "pem", "x": "k", "group_by": "k"}]))
    assert "figure id 'pem_vs_k' is used twice" in error_of(
        sweep(plots=[{"metric": "pem", "x": "k"}, {"metric": "pem", "x": "k"}]))
    assert "give either 'seeds'" in error_of(sweep(seeds=[0], repeats=2))
    assert "repeats: 0 is impossible" in error_of(sweep(repeats=0))
    assert "executor: 'spark' is not allowed" in error_of(sweep(executor="spark"))
    assert "a scheduler address needs 'executor: dask'" in error_of(sweep(scheduler="tcp://x:1"))
    assert "jobs: 0 is impossible" in error_of(sweep(jobs=0))
    assert "expected a mapping at the top level" in error_of(["a"])


def test_zip_errors():
    msg = error_of(sweep(grid={"k": [2, 3], "max_cluster_size": [4, 9, 16]}, zip=[["k", "max_cluster_size"]]))
    assert "zip[0]: zipped parameters need lists of equal length (k has 2, max_cluster_size has 3 values)" in msg
    assert "zip[0][1]: 'mm' is not allowed (did you mean 'm'?)" in error_of(sweep(zip=[["k", "mm"]]))
    assert "a zip group lists at least two" in error_of(sweep(zip=[["k"]]))


def test_load_sweep_reports_yaml_errors_and_missing_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndatasets: [a\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.yaml: line \d+, column \d+: not valid YAML"):
        load_sweep(bad)
    with pytest.raises(InputError, match="no such sweep file"):
        load_sweep(tmp_path / "nope.yaml")
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(BASE), encoding="utf-8")
    spec = load_sweep(good)
    assert spec.name == "unit" and spec.base_dir == str(tmp_path)


# ---------------------------------------------------------------- grid expansion
def test_product_expansion_and_order():
    spec = parse_sweep(sweep(grid={"k": [2, 3], "m": [1, 2], "max_cluster_size": 9, "safe": [False, True]},
                             seeds=[0, 1]))
    points = expand_points(spec)
    assert len(points) == 2 * 2 * 2
    assert [(p["k"], p["m"], p["safe"]) for p in points[:3]] == [(2, 1, False), (2, 1, True), (2, 2, False)]
    runs = expand_runs(spec)
    assert len(runs) == 16 and len({r.key for r in runs}) == 16
    assert [r.params["seed"] for r in runs[:2]] == [0, 1]


def test_zip_pairs_elements_and_broadcasts_scalars():
    spec = parse_sweep(sweep(grid={"k": [2, 3, 4, 5], "max_cluster_size": [4, 9, 16, 25], "m": [1, 2]},
                             zip=[["k", "max_cluster_size"]]))
    pairs = [(p["k"], p["max_cluster_size"], p["m"]) for p in expand_points(spec)]
    assert pairs == [(2, 4, 1), (2, 4, 2), (3, 9, 1), (3, 9, 2), (4, 16, 1), (4, 16, 2), (5, 25, 1), (5, 25, 2)]
    spec = parse_sweep(sweep(grid={"k": [2, 3], "max_cluster_size": 12, "m": [1, 2]}, zip=["k", "m"]))
    assert [(p["k"], p["m"], p["max_cluster_size"]) for p in expand_points(spec)] == [(2, 1, 12), (3, 2, 12)]


def test_k_expressions_as_in_the_thesis():
    spec = parse_sweep(sweep(grid={"k": 2, "max_cluster_size": "k^2..k^6"}))
    assert [p["max_cluster_size"] for p in expand_points(spec)] == [4, 8, 16, 32, 64]
    spec = parse_sweep(sweep(grid={"k": {"from": 2, "to": 5}, "max_cluster_size": "5^2"}))
    assert [(p["k"], p["max_cluster_size"]) for p in expand_points(spec)] == [(2, 25), (3, 25), (4, 25), (5, 25)]
    spec = parse_sweep(sweep(grid={"k": [2, 3], "max_cluster_size": ["k^2", "2*k+1", "k*m..k*m+1"]}))
    assert [(p["k"], p["max_cluster_size"]) for p in expand_points(spec)] == [
        (2, 4), (2, 5), (3, 9), (3, 7), (3, 6)]  # duplicates of one (k, m) are dropped
    assert KExpr("(k+1)^2").values(3, 2) == [16]
    assert KExpr("k..k+2").values(4, 2) == [4, 5, 6]


def test_ranges_and_defaults():
    spec = parse_sweep(sweep(grid={"k": {"from": 2, "to": 6, "step": 2}, "max_cluster_size": [{"from": 20, "to": 40,
                                                                                                "step": 10}, 60]}))
    assert spec.grid["k"] == (2, 4, 6)
    assert spec.grid["max_cluster_size"] == (20, 30, 40, 60)
    assert spec.grid["horpart"] == ("original",) and spec.grid["refine"] == (True,)
    assert parse_sweep(sweep(repeats=3)).seeds == (0, 1, 2)
    spec = parse_sweep(sweep(datasets=[{"text": "lee", "density": [0.2, 0.3]}, {"name": "x", "records": [5, 10]}]))
    runs = expand_runs(spec)
    assert {(r.params["dataset"], r.params["density"], r.params["records"]) for r in runs} == {
        ("text:lee", 0.2, None), ("text:lee", 0.3, None), ("x", None, 5), ("x", None, 10)}


def test_run_keys_are_stable_and_sensitive():
    a = expand_runs(parse_sweep(sweep()))
    b = expand_runs(parse_sweep(sweep()))
    assert [r.key for r in a] == [r.key for r in b]
    c = expand_runs(parse_sweep(sweep(attacks={"cover": {"attackers": ["weak"]}})))
    assert not {r.key for r in a} & {r.key for r in c}
    moved = dict(a[0].config, base_dir="/elsewhere")
    assert run_key(moved) == a[0].key


def test_only_filters():
    runs = expand_runs(parse_sweep(sweep(grid={"k": [2, 3, 4], "max_cluster_size": 10, "safe": [False, True]})))
    assert len(filter_runs(runs, parse_only(["k=3"]))) == 2
    assert len(filter_runs(runs, parse_only(["k=3", "k=4", "safe=true"]))) == 2
    with pytest.raises(InputError, match="unknown key 'kk' \\(did you mean 'k'\\?\\)"):
        parse_only(["kk=3"])
    with pytest.raises(InputError, match="expected KEY=VALUE"):
        parse_only(["k3"])


@settings(max_examples=40, deadline=None)
@given(ks=st.lists(st.integers(2, 9), min_size=1, max_size=4, unique=True),
       ms=st.lists(st.integers(1, 4), min_size=1, max_size=3, unique=True),
       lo=st.integers(2, 4), span=st.integers(0, 2), seeds=st.integers(1, 3))
def test_expansion_size_is_the_product(ks, ms, lo, span, seeds):
    spec = parse_sweep(sweep(grid={"k": ks, "m": ms, "max_cluster_size": f"k^{lo}..k^{lo + span}"}, repeats=seeds))
    points = expand_points(spec)
    assert len(points) == len(ks) * len(ms) * (span + 1)
    assert all(p["max_cluster_size"] == p["k"] ** e for p, e in
               zip(points, [e for _k in ks for _m in ms for e in range(lo, lo + span + 1)], strict=True))
    assert len(expand_runs(spec)) == len(points) * seeds


def test_per_dataset_grid_and_attacks():
    raw = sweep(
        datasets=[{"name": "clicks", "grid": {"max_cluster_size": [10, 20], "safe": [False, True]}},
                  {"text": "lee", "density": [0.3, 0.5], "grid": {"k": [2, 3, 4], "max_cluster_size": 25}},
                  {"name": "quiet", "attacks": []}],
        attacks={"cover": {}, "semantic": {"scorers": ["ngd"]}},
        metrics=["pem", "rlm", "accuracy"],
        plots=[{"metric": ["pem", "rlm"], "x": "max_cluster_size"}],
    )
    spec = parse_sweep(raw)
    runs = expand_runs(spec)
    by = {}
    for r in runs:
        by.setdefault(r.params["dataset"], []).append(r)
    assert [(r.params["k"], r.params["max_cluster_size"], r.params["safe"]) for r in by["clicks"]] == [
        (2, 10, False), (2, 10, True), (2, 20, False), (2, 20, True), (3, 10, False), (3, 10, True),
        (3, 20, False), (3, 20, True)]
    assert len(by["text:lee"]) == 2 * 3 and {r.params["max_cluster_size"] for r in by["text:lee"]} == {25}
    # the semantic attack runs on text builds only, cover on every dataset unless the entry says otherwise
    assert set(by["clicks"][0].config["attacks"]) == {"cover"}
    assert set(by["text:lee"][0].config["attacks"]) == {"cover", "semantic"}
    assert by["quiet"][0].config["attacks"] == {}
    assert spec.plots[0].metrics == ("pem", "rlm") and spec.plots[0].group_by == ()
    assert spec.plots[0].id == "pem-rlm_vs_max_cluster_size"
    msg = error_of(sweep(datasets=[{"name": "x", "grid": {"k": 9, "max_cluster_size": 5}}]))
    assert "grid.max_cluster_size: 5 is impossible for k=9" in msg
    msg = error_of(sweep(datasets=[{"name": "x", "grid": {"kk": 9}}]))
    assert "datasets[0].grid.kk: unknown key (did you mean 'k'?)" in msg
    msg = error_of(sweep(datasets=[{"name": "x", "attacks": ["semantic"]}]))
    assert "datasets[0].attacks: 'semantic' is not declared" in msg
    msg = error_of(sweep(datasets=[{"text": "lee", "options": {"top_m": 5}}]))
    assert "datasets[0].options.top_m: unknown key (did you mean 'top_n'?)" in msg
    assert "metrics[1]: metric 'rlm' needs grid.safe: true" in error_of(sweep(metrics=["pem", "rlm"]))


def test_flat_zip_group_paths():
    assert "zip[1]: 'mm' is not allowed" in error_of(sweep(zip=["k", "mm"]))
    assert "zip[0][1]: 'mm' is not allowed" in error_of(sweep(zip=[["k", "mm"]]))


def test_a_dataset_may_record_fewer_metrics_with_its_own_seeds():
    from experiments.sweep.grid import expand_runs

    spec = parse_sweep({"name": "s", "datasets": [
        {"name": "terrovitis2012-fig2", "label": "small", "metrics": ["clusters"], "seeds": [7]},
        {"name": "terrovitis2012-fig2", "label": "all"}],
        "grid": {"k": 2, "m": 2, "max_cluster_size": 4}, "metrics": ["clusters", "record_chunks"], "seeds": [0, 1]})
    runs = expand_runs(spec)
    small = [r.config for r in runs if r.config["dataset"]["label"] == "small"]
    assert [c["seed"] for c in small] == [7] and small[0]["metrics"] == ["clusters"]
    assert sorted(r.config["seed"] for r in runs if r.config["dataset"]["label"] == "all") == [0, 1]
    with pytest.raises(InputError, match="not among the sweep's metrics"):
        parse_sweep({**spec.raw, "datasets": [{"name": "terrovitis2012-fig2", "metrics": ["pem"]}]})
