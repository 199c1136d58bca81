"""A tiny real sweep through the anonymizer, both attack families and the utility metrics.

The toy dataset of Terrovitis2012 Figure 2 and a small build of the Lee news corpus keep it to a
few seconds; the shipped sweep files are checked to validate and expand.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from corpora.common.errors import run_cli
from experiments.run import main
from experiments.sweep.grid import expand_runs
from experiments.sweep.schema import load_sweep

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "name": "tiny",
    "datasets": [
        {"name": "terrovitis2012-fig2", "attacks": ["cover"],
         "grid": {"k": 2, "max_cluster_size": [4, 6], "safe": [False, True]}},
        {"text": "lee", "label": "lee", "density": 0.5, "seed": 0, "options": {"top_n": 5},
         "attacks": ["semantic"], "grid": {"k": [2, 3], "max_cluster_size": 9}},
    ],
    "grid": {"m": 2},
    "attacks": {"cover": {"attackers": ["strong", "moderate"]},
                "semantic": {"scorers": ["ngd"], "selectors": ["ABA", "random"]}},
    "metrics": ["pem", "vulnerable_records", "rlm", "tlost", "re_a", "accuracy", "transaction_breakage",
                "km_breakage", "clusters"],
    "utility": {"top_k": 10, "re_range": [0, 5]},
    "plots": [
        {"id": "pem", "metric": "pem", "x": "max_cluster_size", "group_by": "safe", "where": {"method": "strong"}},
        {"id": "acc", "metric": "accuracy", "x": "k", "where": {"chunks": "overall"}},
        {"id": "loss", "metric": ["tlost", "re_a"], "x": "k", "where": {"dataset": "lee"}},
    ],
}


def test_tiny_real_sweep_end_to_end(tmp_path, capsys):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY, sort_keys=False), encoding="utf-8")
    status = run_cli(main, [str(path), "--results", str(tmp_path / "results")])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "tiny: 6 runs (0 cached, 6 run, 0 failed)" in out.out
    directory = tmp_path / "results" / "tiny"
    with open(directory / "results.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["status"] for r in rows} == {"ok"}
    toy = [r for r in rows if r["dataset"] == "terrovitis2012-fig2"]
    text = [r for r in rows if r["dataset"] == "lee"]
    assert len({r["run"] for r in toy}) == 4 and len({r["run"] for r in text}) == 2
    # cover rows per attacker; RLM only for safe runs; the semantic attack only on the text build
    assert {(r["method"], r["metric"]) for r in toy if r["attack"] == "cover"} == {
        (a, m) for a in ("strong", "moderate") for m in ("pem", "vulnerable_records")}
    assert {r["safe"] for r in toy if r["metric"] == "rlm"} == {"true"}
    assert not [r for r in toy if r["attack"] == "semantic"]
    sem = [r for r in text if r["attack"] == "semantic"]
    assert {r["method"] for r in sem} == {"NGD-ABA", "random"}
    assert {r["chunks"] for r in sem} == {"overall", "record", "term"}
    for r in rows:
        if r["metric"] in ("pem", "rlm", "tlost", "accuracy", "transaction_breakage", "km_breakage") and r["value"]:
            assert 0.0 <= float(r["value"]) <= 1.0
    assert all(float(r["value"]) >= 1 for r in rows if r["metric"] == "clusters")
    assert {r["density"] for r in text} == {"0.5"} and {r["density"] for r in toy} == {""}
    for plot in ("pem", "acc", "loss"):
        for ext in ("png", "svg"):
            assert (directory / "figures" / f"{plot}.{ext}").is_file()
    report = (directory / "report.md").read_text(encoding="utf-8")
    assert report.count("![") == 3 and "No data" not in report
    # a second invocation finds everything cached
    assert run_cli(main, [str(path), "--results", str(tmp_path / "results"), "--no-plots"]) == 0
    assert "(6 cached, 0 run, 0 failed)" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["sweep.yaml", "experiments/sweeps/barakat2016.yaml",
                                  "experiments/sweeps/awad2019.yaml", "experiments/sweeps/alshuhail2021.yaml",
                                  "experiments/sweeps/terrovitis2012.yaml"])
def test_shipped_sweeps_validate(name):
    spec = load_sweep(ROOT / name)
    runs = expand_runs(spec)
    assert runs and spec.plots
    used = {c for p in spec.plots for c, _ in p.where if c == "dataset"}
    labels = {r.params["dataset"] for r in runs}
    for plot in spec.plots:
        for col, values in plot.where:
            if col == "dataset":
                assert set(values) <= labels, (plot.id, values)
    assert used <= {"dataset"}


def test_sweep_attackers_know_real_records(tmp_path, monkeypatch):
    """Barakat2016 section 6: the moderate attacker knows 2-combinations of a strict subset of the
    real records D, the strong one every cover pair (no records needed), section 4's strong one a
    well-picked itemset of every record; a sweep has the truth and must use it."""
    import attacks.cover.knowledge as K

    sources = []
    real = K.make_knowledge

    def spy(release, attacker, seed=0, **kw):
        made = real(release, attacker, seed, **kw)
        sources.append((attacker, made.source))
        return made

    monkeypatch.setattr(K, "make_knowledge", spy)
    spec = {"name": "attackers", "datasets": [{"name": "terrovitis2012-fig2", "grid": {"k": 2, "max_cluster_size": 6}}],
            "grid": {"m": 2}, "attacks": {"cover": {"attackers": ["strong", "strong-per-record", "moderate", "weak"]}},
            "metrics": ["pem", "algorithm1_total"], "plots": []}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(spec))
    assert run_cli(main, [str(path), "--results", str(tmp_path / "r")]) == 0
    assert dict(sources)["strong-per-record"] == "truth" and dict(sources)["moderate"] == "truth"
    assert dict(sources)["strong"] == "every-cover-pair"
    assert dict(sources)["weak"].startswith("release+")


def test_figure_7d_windows_give_rank_rows_on_one_dataset_only(tmp_path, capsys):
    """A dataset's own ``utility`` (Terrovitis2012 Figure 7d) adds re per rank window there alone."""
    spec = {
        "name": "fig7d",
        "datasets": [
            {"name": "synthetic:records=800,domain=60,avg_length=5,seed=0", "label": "with-windows",
             "utility": {"re_windows": [[0, 10], [20, 30]]}},
            {"name": "synthetic:records=800,domain=60,avg_length=5,seed=1", "label": "plain"},
        ],
        "grid": {"k": 2, "m": 2, "max_cluster_size": 6, "horpart": "original", "verpart": "original"},
        "metrics": ["re", "re_r1", "re_r2", "linkable_chunk_share"],
        "utility": {"top_k": 10, "re_range": [0, 10]},
        "seeds": [0],
        "plots": [{"id": "fig7d", "metric": ["re_r1", "re_r2"], "x": "rank", "where": {"dataset": "with-windows"}}],
    }
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    assert run_cli(main, [str(path), "--results", str(tmp_path / "r")]) == 0, capsys.readouterr().err
    with open(tmp_path / "r" / "fig7d" / "results.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    windows = {(r["metric"], r["rank"]) for r in rows if r["dataset"] == "with-windows" and r["rank"]}
    assert windows == {(m, w) for m in ("re_r1", "re_r2") for w in ("0", "20")}
    assert not [r for r in rows if r["dataset"] == "plain" and r["metric"].startswith("re_r")]
    same = [float(r["value"]) for r in rows if r["dataset"] == "with-windows" and
            (r["metric"], r["rank"]) in (("re", ""), ("re_r1", "0"))]
    assert len(same) == 2 and same[0] == pytest.approx(same[1])  # re over ranks 0-10 is re_r1's first window
    assert {r["metric"] for r in rows} >= {"linkable_chunk_share"}
    assert (tmp_path / "r" / "fig7d" / "figures" / "fig7d.png").is_file()


def test_pem_is_its_ceiling_times_the_covered_share_of_linkable_chunks():
    """PEM, linkable chunks only (Awad2019 3.3) = linkable_chunk_share x pem_of_linkable, measured on one
    run; the paper's PEM (5.1.1, Definition 3 on every chunk) is not capped by that ceiling."""
    from experiments.sweep.task import run_task

    config = {"dataset": {"names": ["synthetic:records=1500,domain=80,avg_length=6,seed=2"], "label": "s",
                          "records": None, "density": None, "text": None},
              "k": 3, "m": 2, "max_cluster_size": 12, "horpart": "original", "verpart": "original",
              "refine": True, "safe": False, "seed": 0, "attacks": {"cover": {"attackers": ["strong"],
                                                                             "moderate_share": 0.5}},
              "metrics": ["pem", "pem_linkable", "pem_cluster", "pem_of_linkable", "linkable_chunk_share",
                          "multi_chunk_clusters"],
              "utility": {"top_k": 10, "re_range": [0, 10], "reconstructions": 1}}
    got = {r["metric"]: r["value"] for r in run_task(config)}
    assert set(got) == set(config["metrics"])
    assert 0 < got["linkable_chunk_share"] <= 1 and 0 <= got["multi_chunk_clusters"] <= got["linkable_chunk_share"]
    assert got["pem_linkable"] == pytest.approx(got["linkable_chunk_share"] * got["pem_of_linkable"])
    assert got["pem_linkable"] <= got["linkable_chunk_share"] and got["pem_linkable"] <= got["pem"]
    assert got["pem"] > got["linkable_chunk_share"] and 0 < got["pem_cluster"] <= 1


def test_semantic_sweep_with_settings_baselines_and_paired_differences(tmp_path, capsys):
    sweep = {
        "name": "issue11",
        "datasets": [{"text": "lee", "label": "lee", "density": 0.5, "seed": 0, "options": {"top_n": 5},
                      "grid": {"k": 2, "max_cluster_size": 9}}],
        "grid": {"m": 2, "refine": False},
        "attacks": {"semantic": {"scorers": ["ngd", "glove"], "ngd_settings": ["public", "private"],
                                 "selectors": ["ABA", "random"], "baselines": ["blind", "oracle"],
                                 "bootstrap": 50}},
        "metrics": ["accuracy", "accuracy_vs_random", "accuracy_vs_random_lo", "accuracy_vs_random_hi",
                    "accuracy_one_to_one", "accuracy_one_to_one_vs_random", "accuracy_disassociated",
                    "accuracy_disassociated_vs_random", "unknown_term_share"],
        "seeds": [0],
    }
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(sweep, sort_keys=False), encoding="utf-8")
    assert run_cli(main, [str(path), "--results", str(tmp_path / "results")]) == 0, capsys.readouterr().err
    with open(tmp_path / "results" / "issue11" / "results.csv", encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["chunks"] == "overall"]
    methods = {r["method"] for r in rows if r["metric"] == "accuracy"}
    assert methods == {"NGD(public)-ABA", "NGD(private)-ABA", "WE-ABA", "random", "blind", "oracle"}
    acc = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "accuracy"}
    diff = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "accuracy_vs_random"}
    lo = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "accuracy_vs_random_lo"}
    hi = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "accuracy_vs_random_hi"}
    for method, value in diff.items():  # paired on the same run: the difference of the two accuracies
        assert abs(value - (acc[method] - acc["random"])) < 1e-9
        assert lo[method] <= value <= hi[method]
    assert acc["oracle"] >= max(acc.values()) - 1e-12
    for reading in ("accuracy_one_to_one", "accuracy_disassociated"):  # the other readings, paired alike
        value_of = {r["method"]: float(r["value"]) for r in rows if r["metric"] == reading}
        diff_of = {r["method"]: float(r["value"]) for r in rows if r["metric"] == f"{reading}_vs_random"}
        assert set(diff_of) == set(diff) and value_of["oracle"] == 1.0
        for method, value in diff_of.items():
            assert abs(value - (value_of[method] - value_of["random"])) < 1e-9
    unknown = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "unknown_term_share"}
    assert unknown["NGD(public)-ABA"] <= unknown["NGD(private)-ABA"]
