"""`python -m attacks audit` and `attacks.audit` (issue 13): a verdict a publishing pipeline can gate on."""

import json
import subprocess
from pathlib import Path

import pytest
from cli_runner import run_tool
from test_cover_golden import awad_fig1

from anonymizer import disassociate, safe_disassociate, save_release, save_truth
from anonymizer.model.release import Cluster, ClusterTruth, Release, Truth
from attacks import audit
from corpora import load_dataset
from corpora.common.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def _truth() -> Truth:
    return Truth([ClusterTruth("P1", [0, 1, 2, 3, 4, 5], [[0, 1, 2, 3, 4, 5], [1, 2]], {})])


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_tool("attacks", ["audit", *args], cwd=cwd)  # in-process: python -m attacks audit ARGS


@pytest.fixture()
def fig1_files(tmp_path: Path) -> Path:
    save_release(awad_fig1(), tmp_path / "fig1.json")
    save_truth(_truth(), tmp_path / "fig1-truth.json")
    safe, _ = safe_disassociate(awad_fig1(), _truth(), seed=3)
    save_release(safe, tmp_path / "fig1-safe.json")
    return tmp_path


def test_awad_figure1_fails_on_the_cover_problem_and_recommends_safe(fig1_files):
    done = _cli("fig1.json", cwd=fig1_files)
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert "**FAIL: PEM, " in out  # and the attackers it lets breach records
    assert "cluster P1 chunk 0: c, d covered by a, b in 4 records" in out
    assert "--safe" in out.split("## Recommendations")[1]
    assert "the release alone" in out  # says what the attackers were simulated from


def test_safe_release_passes(fig1_files):
    done = _cli("fig1-safe.json", "--json", cwd=fig1_files)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True and report["cover"]["pem"] == 0.0 and report["guarantee1"]["ok"] is True
    assert [c["name"] for c in report["checks"]] == ["Guarantee 1", "identifiers", "PEM", "strong attacker",
                                                     "strong-per-record attacker", "moderate attacker",
                                                     "weak attacker", "semantic attack"]
    assert report["recommendations"][0].startswith("No threshold crossed")
    # PASS names every residual risk with its value and threshold
    verdict = report["verdict"]
    assert verdict.startswith("PASS") and "PEM 0.00% (max 0.00%)" in verdict and "strong attacker" in verdict
    assert "(max 5.00%)" in verdict and "identifiers 0 terms (max 0)" in verdict


def test_thresholds_truth_and_report_file(fig1_files):
    done = _cli("fig1.json", "--truth", "fig1-truth.json", "--max-pem", "1", "--max-vulnerable", "0.1", "-o",
                "report.md", cwd=fig1_files)
    assert done.returncode == 1 and "FAIL (strong attacker" in done.stderr
    text = (fig1_files / "report.md").read_text()
    assert "the real records (truth file)" in text and "| strong-per-record | truth |" in text
    assert "| strong | every-cover-pair |" in text and "every cover problem a breach, section 6" in text
    assert _cli("fig1.json", "--max-pem", "1", "--max-vulnerable", "1", cwd=fig1_files).returncode == 0
    bad = _cli("fig1.json", "--max-pem", "2", cwd=fig1_files)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_broken_guarantee_fails_whatever_the_thresholds():
    # two sub-records {a, b} in a cluster of size 2 with k=3: not k^m-anonymous
    broken = Release({"k": 3, "m": 2, "max_cluster_size": 5}, [Cluster("P1", 3, [[("a", "b"), ("a", "b")]], [])])
    report = audit(broken, max_pem=None, semantic=False)
    assert not report.passed and report.exit_status == 1
    assert report.checks[0].name == "Guarantee 1" and report.checks[0].status == "fail"
    assert report.recommendations[0].startswith("Do not publish")
    assert "passed=False" in repr(report) and len(report.to_frame()) == 8


def test_pem_gate_is_the_papers_reading_with_the_others_beside_it():
    """Awad2019 5.1.1: "every record chunk that is subject to a cover problem is a vulnerable record
    chunk": a single-chunk cluster with c and d covered by a and b fails the PEM gate though no other
    record chunk can be linked to it (the linkable reading, 3.3 / Lemma 1, is 0)."""
    c1 = [("a", "b", "c", "d")] * 4 + [("a", "b")] * 2
    release = Release({"k": 2, "m": 2, "max_cluster_size": 8}, [Cluster("P1", 6, [c1], ["z"])])
    report = audit(release, semantic=False)
    pem = next(c for c in report.checks if c.name == "PEM")
    assert pem.status == "fail" and pem.value == 1.0
    assert "Definition 3 on every record chunk" in pem.detail and "Lemma 1): 0 (0.00%)" in pem.detail
    assert "per cluster: 1 of 1 clusters" in pem.detail
    assert (report.cover["pem"], report.cover["pem_linkable"], report.cover["pem_cluster"]) == (1.0, 0.0, 1.0)
    assert report.cover["examples"] == ["cluster P1 chunk 0: c, d covered by a, b in 4 records (only record "
                                        "chunk of its cluster)"]


def test_api_on_words_runs_the_semantic_attack_and_skips_numbers():
    ds = load_dataset("terrovitis2012-fig2")
    release, truth = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=1)
    report = audit(release, original=ds, truth=truth, max_pem=1.0)
    assert report.semantic["status"] == "ran" and "random" in report.semantic["summary"]
    numbers = load_dataset("synthetic:records=60,domain=20,avg_length=3,seed=2")
    rel, tru = disassociate(numbers, k=3, m=2, seed=1)
    skipped = audit(rel, original=numbers, truth=tru, max_pem=1.0)
    assert skipped.semantic["status"] == "skipped" and "not words" in skipped.semantic["summary"]
    with pytest.raises(InputError, match="max_pem"):
        audit(rel, max_pem=1.5)
