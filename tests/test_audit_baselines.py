"""Every risk of the audit beside its baselines, with intervals (issue 26): golden reports on docs/examples,
the intervals themselves, the utility section, the receipt and the HTML page."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from cli_runner import run_tool
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cover_golden import awad_fig1

from anonymizer import disassociate, safe_disassociate, save_release, save_truth
from anonymizer.model.release import Cluster, Release
from attacks import audit
from attacks.audit_baselines import (
    frequency_only_per_cluster,
    paired_cluster_difference,
    random_placement_per_cluster,
    wilson_interval,
)
from attacks.cover.knowledge import cover_pair_itemsets, make_knowledge
from corpora import load_dataset

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def _check(report: dict, name: str) -> dict:
    return next(c for c in report["checks"] if c["name"] == name)


def _baseline(check: dict, name: str) -> dict:
    return next(b for b in check["baselines"] if b["name"] == name)


# ---------------------------------------------------------------------------------------------- intervals
@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 5000), data=st.data())
def test_wilson_interval_is_scipys_and_holds_the_share(n, data):
    from scipy.stats import binomtest  # here: scipy.stats takes a second to import in every worker

    x = data.draw(st.integers(0, n))
    lo, hi = wilson_interval(x, n)
    ref = binomtest(x, n).proportion_ci(method="wilson")
    assert lo == pytest.approx(ref.low, abs=1e-12) and hi == pytest.approx(ref.high, abs=1e-12)
    assert 0.0 <= lo <= x / n <= hi <= 1.0
    assert (lo == 0.0) == (x == 0) and (hi == 1.0) == (x == n)


def test_paired_difference_of_a_method_with_itself_is_zero_and_covers_the_difference():
    rng = np.random.default_rng(1)
    sizes = rng.integers(2, 30, size=200)
    attack = rng.binomial(sizes, 0.2).astype(float)
    base = rng.binomial(sizes, 0.1).astype(float)
    diff, interval = paired_cluster_difference(attack, attack, sizes, seed=0, stream=0)
    assert diff == 0.0 and interval == (0.0, 0.0)
    diff, (lo, hi) = paired_cluster_difference(attack, base, sizes, seed=0, stream=0)
    assert lo < diff < hi and lo > 0  # 0.2 against 0.1 over 200 clusters: clearly apart
    assert paired_cluster_difference(attack[:1], base[:1], sizes[:1], seed=0, stream=0)[1] is None  # one cluster


# ---------------------------------------------------------------------------------------------- baselines
def test_frequency_only_attacker_finds_nothing_in_a_km_anonymous_release_and_what_breaks_it():
    fig1 = awad_fig1()  # k = m = 2, anonymous, with a cover problem the strong attacker uses
    assert frequency_only_per_cluster(fig1, cover_pair_itemsets(fig1)).tolist() == [0]
    # two sub-records {a, b} in a cluster of size 3 with k = 3: the published support 2 < k singles them out
    broken = Release({"k": 3, "m": 2, "max_cluster_size": 5},
                     [Cluster("P1", 3, [[("a", "b"), ("a", "b"), ("c",), ("c",), ("c",)]], [])])
    assert frequency_only_per_cluster(broken, [("a", "b")]).tolist() == [2]
    assert frequency_only_per_cluster(broken, [("a", "z")]).tolist() == [2]  # a alone: support 2 < 3
    assert frequency_only_per_cluster(broken, [("c", "z")]).tolist() == [0]  # c: support 3
    assert random_placement_per_cluster(broken).tolist() == [1.0]


# ---------------------------------------------------------------------------------------------- golden reports
def test_golden_audit_of_table_4_3_every_risk_beside_its_baselines():
    """AlShuhail2021 Table 4.3 with its truth and Table 4.2: FAIL on PEM; the semantic attack beside random,
    blind and oracle (paired intervals); every attacker beside frequency-only and random placement."""
    ds = load_dataset(str(EXAMPLES / "table4.2.jsonl"))
    made = audit(EXAMPLES / "table4.3-release.json", original=ds, truth=EXAMPLES / "table4.3-truth.json")
    report = made.to_dict()
    assert report["verdict"] == "FAIL (PEM)" and report["passed"] is False
    pem = _check(report, "PEM")
    assert pem["value"] == 0.5 and pem["interval"] == pytest.approx([0.0945312, 0.9054688], abs=1e-6)
    assert pem["baselines"] == [] and pem["level"] == 0.95 and pem["reference"].startswith("Awad2019")
    for name in ("strong", "strong-per-record", "moderate", "weak"):
        check = _check(report, f"{name} attacker")
        assert check["status"] == "pass" and check["value"] == 0.0
        assert check["interval"] == pytest.approx([0.0, 0.4898908], abs=1e-6)  # Wilson, 0 of 4
        assert _baseline(check, "frequency-only")["value"] == 0.0
        assert _baseline(check, "random placement")["value"] == 0.25  # one cluster of 4 records
        assert _baseline(check, "random placement")["difference"] is None  # a guess and a breach: not one unit
        assert check["paired"] == {"baseline": "frequency-only", "difference": 0.0, "interval": None}
    sem = _check(report, "semantic attack")
    assert sem["status"] == "pass" and sem["value"] == 0.75 and sem["interval"] == [0.25, 1.0]
    assert sem["gated_on"] == "paired" and sem["threshold"] == 0.0
    values = {b["name"]: (b["value"], b["interval"], b["difference"], b["difference_interval"])
              for b in sem["baselines"]}
    assert values == {"random": (0.25, [0.0, 0.75], 0.5, [0.0, 1.0]), "blind": (0.25, [0.0, 0.75], 0.5, [0.0, 1.0]),
                      "oracle": (1.0, [1.0, 1.0], -0.25, [-0.75, 0.0])}
    assert sem["paired"] == {"baseline": "random", "difference": 0.5, "interval": [0.0, 1.0]}
    assert [r["metric"] for r in report["utility"]["rows"]] == ["tkd", "re", "tlost"]
    assert report["utility"]["status"] == "measured" and report["skipped"] == []
    assert "semantic attack 75.00%, +50.00% over random, 95% lower end +0.00% (max gain 0.00%)" in made.residual_risks()
    text = made.to_markdown()
    assert "| semantic attack | pass | 75.00% | [25.00%, 100.00%] | 0.00% | random 25.00% [0.00%, 75.00%]; attack − " \
           "random +50.00% [+0.00%, +100.00%]<br>blind" in text
    assert "## Utility the release costs" in text and "| tkd | 0.2683 |" in text


def test_golden_audit_of_terrovitis_figure_2_with_paired_intervals_over_clusters():
    ds = load_dataset(str(EXAMPLES / "fig2.jsonl"))
    report = audit(EXAMPLES / "fig2b.json", original=ds, semantic=False).to_dict()
    assert report["verdict"] == "FAIL (PEM)" and report["clusters"] == 2
    strong = _check(report, "strong attacker")
    assert strong["value"] == 0.0 and strong["interval"] == pytest.approx([0.0, 0.2775328], abs=1e-6)
    freq, chance = _baseline(strong, "frequency-only"), _baseline(strong, "random placement")
    assert (freq["value"], freq["difference"], freq["difference_interval"]) == (0.0, 0.0, [0.0, 0.0])
    assert (chance["value"], chance["difference"]) == (0.2, None)  # 2 clusters of 10 records; context only
    assert strong["paired"] == {"baseline": "frequency-only", "difference": 0.0, "interval": [0.0, 0.0]}
    rows = {r["metric"]: r["value"] for r in report["utility"]["rows"]}
    assert rows == pytest.approx({"tkd": 0.4709677, "re": 0.7396825, "tlost": 0.2857143}, abs=1e-6)


def test_golden_awad_figure_1_the_cover_reasoning_beats_both_baselines(tmp_path):
    done = run_tool("attacks", ["audit", str(EXAMPLES / "fig1.json"), "--truth", str(EXAMPLES / "fig1-truth.json"),
                                "--json"], cwd=tmp_path)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    strong = _check(report, "strong attacker")
    assert strong["status"] == "fail" and strong["value"] == pytest.approx(2 / 6)
    assert strong["interval"] == pytest.approx([0.0967714, 0.7000067], abs=1e-6)
    assert _baseline(strong, "frequency-only")["value"] == 0.0  # published supports alone say nothing
    assert _baseline(strong, "frequency-only")["difference"] == pytest.approx(2 / 6)
    assert _baseline(strong, "random placement")["value"] == pytest.approx(1 / 6)
    assert {s["check"] for s in report["skipped"]} == {"semantic attack", "utility (tKd, re, tlost)"}
    assert "| strong attacker | fail | 33.33% | [9.68%, 70.00%] | 5.00% | frequency-only 0.00% [0.00%, 39.03%]" \
        in run_tool("attacks", ["audit", str(EXAMPLES / "fig1.json"), "--truth", str(EXAMPLES / "fig1-truth.json")],
                    cwd=tmp_path).stdout


# ---------------------------------------------------------------------------------------------- utility
def test_utility_of_a_safe_release_has_rae_and_rlm_with_before_and_a_skipped_line_without():
    ds = load_dataset("terrovitis2012-fig2")
    plain, truth = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=1)
    safe, _ = safe_disassociate(plain, truth, seed=2)
    without = audit(safe, original=ds, semantic=False)
    assert [r["metric"] for r in without.utility["rows"]] == ["tkd", "re", "tlost", "rae"]
    assert {"check": "utility (RLM)", "reason": without.skipped[-1]["reason"]} == without.skipped[-1]
    assert "--before" in without.skipped[-1]["reason"]
    with_before = audit(safe, original=ds, before=plain, semantic=False)
    rows = {r["metric"]: r["value"] for r in with_before.utility["rows"]}
    assert set(rows) == {"tkd", "re", "tlost", "rae", "rlm"} and 0.0 <= rows["rlm"] <= 1.0
    assert not any(s["check"].startswith("utility") for s in with_before.skipped)


# ---------------------------------------------------------------------------------------------- receipt and HTML
def test_receipt_hashes_are_the_files_and_the_html_page_is_written(tmp_path):
    files = {"release": EXAMPLES / "table4.3-release.json", "truth": EXAMPLES / "table4.3-truth.json",
             "original": EXAMPLES / "table4.2.jsonl", "threat model": EXAMPLES / "threat-model.yaml"}
    done = run_tool("attacks", ["audit", str(files["release"]), "--truth", str(files["truth"]), "--original",
                                str(files["original"]), "--threat-model", str(files["threat model"]), "--no-semantic",
                                "--seed", "5", "--json", "report.json", "--html", "report.html"], cwd=tmp_path)
    assert done.returncode == 1 and "-> report.json, report.html" in done.stderr and done.stdout == ""
    report = json.loads((tmp_path / "report.json").read_text())
    receipt = report["receipt"]
    hashes = {f["role"]: f["sha256"] for f in receipt["inputs"]}
    assert hashes == {role: hashlib.sha256(path.read_bytes()).hexdigest() for role, path in files.items()}
    assert receipt["command"].startswith("python -m attacks audit ") and "--seed 5" in receipt["command"]
    page = (tmp_path / "report.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "FAIL" in page
    assert hashes["release"] in page and "<script" not in page.lower()


def test_the_owners_seed_never_enters_the_report(tmp_path):
    ds = load_dataset("terrovitis2012-fig2")
    release, truth = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=987654321)
    save_release(release, tmp_path / "r.json")
    save_truth(truth, tmp_path / "t.json")
    assert "987654321" in (tmp_path / "t.json").read_text()
    done = run_tool("attacks", ["audit", "r.json", "--truth", "t.json", "--original", "terrovitis2012-fig2",
                                "--json", "a.json", "--html", "a.html", "-o", "a.md"], cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    for name in ("a.json", "a.html", "a.md"):
        assert "987654321" not in (tmp_path / name).read_text()
    inputs = {f["role"] for f in json.loads((tmp_path / "a.json").read_text())["receipt"]["inputs"]}
    assert inputs == {"release", "truth"}  # a named dataset is no file to hash


def test_html_of_a_bad_output_path_is_refused_before_any_work(tmp_path):
    done = run_tool("attacks", ["audit", str(EXAMPLES / "fig1.json"), "--html", str(tmp_path / "no" / "r.html")],
                    cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "does not exist" in done.stderr


# ---------------------------------------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4), records=st.integers(20, 80))
def test_on_a_disassociated_release_the_frequency_only_attacker_breaches_no_one(seed, k, records):
    """k^m-anonymity (Guarantee 1) leaves the frequency-only attacker nothing for known itemsets of at most m
    terms; the attacker's share and its Wilson interval stay in [0, 1] around it."""
    ds = load_dataset(f"synthetic:records={records},domain=15,avg_length=4,seed={seed}")
    release, truth = disassociate(ds, k=k, m=2, max_cluster_size=3 * k, seed=seed)
    for attacker in ("strong-per-record", "moderate"):
        knowledge = make_knowledge(release, attacker, seed, truth=truth, original=ds)
        assert frequency_only_per_cluster(release, knowledge.itemsets).sum() == 0
    assert frequency_only_per_cluster(release, cover_pair_itemsets(release)).sum() == 0
    report = audit(release, truth=truth, original=ds, semantic=False)
    for check in report.checks:
        if check.name.endswith("attacker"):
            lo, hi = check.interval
            assert 0.0 <= lo <= check.value <= hi <= 1.0
            assert check.baselines[0].name == "frequency-only" and check.baselines[0].value == 0.0
            assert check.baselines[0].difference == pytest.approx(check.value)


def test_the_report_is_strict_json_even_where_a_number_is_undefined():
    from attacks.audit_report import _finite

    assert _finite({"a": [float("nan"), 1.0, (float("inf"), 2)], "b": {"c": float("nan")}}) == \
        {"a": [None, 1.0, [None, 2]], "b": {"c": None}}
    report = audit(awad_fig1(), semantic=False)
    report.semantic["accuracy_ci"] = [float("nan"), float("nan")]  # as a bootstrap of nothing gives
    assert json.loads(report.to_json())["semantic"]["accuracy_ci"] == [None, None]


def test_a_named_original_is_pinned_in_the_receipt_by_the_digest_of_its_json_lines(tmp_path):
    """An original that is not one file (a named dataset) has no file to hash: the receipt holds the
    SHA-256 of the bytes `corpora convert NAME -o X.jsonl` writes, and the command that checks it."""
    import hashlib

    made = run_tool("anonymizer", ["terrovitis2012-fig2", "-k", "2", "-m", "2", "-o", "r.json", "--truth", "t.json"],
                    cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    done = run_tool("attacks", ["audit", "r.json", "--original", "terrovitis2012-fig2", "--truth", "t.json",
                                "--json", "a.json", "--no-semantic"], cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    facts = json.loads((tmp_path / "a.json").read_text())["receipt"]["extra"]
    assert facts["original dataset"] == "terrovitis2012-fig2" and facts["original records"] == 10
    assert run_tool("corpora", ["convert", "terrovitis2012-fig2", "-o", "o.jsonl"], cwd=tmp_path).returncode == 0
    assert facts["original SHA-256 (its JSON lines)"] == hashlib.sha256((tmp_path / "o.jsonl").read_bytes()).hexdigest()
    assert facts["original check"].startswith("python -m corpora convert terrovitis2012-fig2 -o original.jsonl")
