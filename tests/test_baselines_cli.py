"""The baselines on the command line: --method apriori|diffpart, bad hierarchies, option checks,
seed determinism and secrecy, verify and utility of generalized/1 releases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run_tool

from anonymizer.__main__ import main as anonymizer_main

ROOT = Path(__file__).resolve().parents[1]
DATA = [["a", "c"], ["a", "c"], ["b", "d"], ["a", "d"], ["b"], ["a", "b", "c"], ["c", "d"], ["a"]]
TREE = "a;A;*\nb;A;*\nc;B;*\nd;B;*\n"


@pytest.fixture()
def data(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in DATA), encoding="utf-8")
    (tmp_path / "tree.txt").write_text(TREE, encoding="utf-8")
    return path


def _run(args, cwd):
    return run_tool("anonymizer", args, cwd=cwd)  # in-process: python -m anonymizer ARGS


@pytest.mark.parametrize("tree, message", [
    ("a;A;*\nb;A;*\nc;B;*\n", "missing from the hierarchy: 'd'"),
    ("a;A;*\nb;A;*\nc;B;*\nd;B;*\nB;C\nC;B\n", "two parents|cycle"),
    ("a;A\nA;a\nb;A\nc;A\nd;A\n", "cycle"),
    ("a;A;R1\nb;A;R1\nc;B;R2\nd;B;R2\n", "two roots"),
])
def test_bad_hierarchy_is_one_error_line(data, tmp_path, tree, message):
    bad = tmp_path / "bad.txt"
    bad.write_text(tree, encoding="utf-8")
    out = tmp_path / "out.json"
    for extra in (["--method", "apriori", "-k", "2", "-m", "2"], ["--method", "diffpart", "--epsilon", "1"]):
        res = _run([str(data), *extra, "--hierarchy", str(bad), "-o", str(out)], tmp_path)
        assert res.returncode == 2
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.stderr
        import re

        assert re.search(message, lines[0]), lines[0]
        assert not out.exists() and not list(tmp_path.glob(".*tmp"))


def test_a_pure_cycle_is_named(tmp_path, data):
    bad = tmp_path / "cyc.txt"
    bad.write_text("a;X;*\nb;X\nc;X\nd;X\nY;Z\nZ;Y\n", encoding="utf-8")  # Y <-> Z loops, off the tree
    res = _run([str(data), "--method", "apriori", "-k", "2", "-m", "2", "--hierarchy", str(bad), "-o", "o.json"],
               tmp_path)
    assert res.returncode == 2 and "cycle" in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (["--method", "apriori", "-k", "2", "-m", "2", "--max-cluster-size", "5"], "--max-cluster-size belongs to"),
    (["--method", "apriori", "-k", "2", "-m", "2", "--horpart", "adding"], "--horpart belongs to"),
    (["--method", "diffpart", "--epsilon", "1", "--safe"], "--safe belongs to"),
    (["--method", "diffpart", "--epsilon", "1", "-k", "3"], "-k belongs to"),
    (["--method", "apriori", "-k", "2", "-m", "2", "--seed", "3"], "--seed belongs to"),
    (["--method", "apriori", "-k", "2"], "-m is required"),
    (["--method", "diffpart"], "--epsilon is required"),
    (["--method", "diffpart", "--epsilon", "-1"], "epsilon must be a positive"),
    (["--method", "apriori", "-k", "2", "-m", "2", "--fanout", "1"], "fanout"),
    (["--method", "apriori", "-k", "2", "-m", "2", "--fanout", "3", "--hierarchy", "tree.txt"], "not both"),
    (["-k", "2", "-m", "2", "--max-cluster-size", "5", "--epsilon", "1"], "--epsilon belongs to"),
    (["--method", "apriori", "-k", "20", "-m", "2"], "larger than"),
])
def test_method_options(data, tmp_path, capsys, args, message):
    assert anonymizer_main([str(data), *args, "-o", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()


def test_apriori_cli_verify_and_utility(data, tmp_path, capsys):
    out = tmp_path / "apriori.json"
    assert anonymizer_main([str(data), "--method", "apriori", "-k", "2", "-m", "2", "--hierarchy",
                            str(tmp_path / "tree.txt"), "-o", str(out)]) == 0
    rel = json.loads(out.read_text(encoding="utf-8"))
    assert rel["format"] == "generalized/1" and rel["method"] == "apriori"
    assert anonymizer_main(["verify", str(out)]) == 0
    assert "OK (apriori" in capsys.readouterr().out
    assert anonymizer_main(["utility", str(data), str(out), "--re-range", "0", "4", "--top-k", "5", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["method"] == "apriori" and rep["tkd_a"] is None and 0 <= rep["tkd_ml2"] <= 1
    assert rep["ncp"] is not None
    rel["records"][0] = ["a", "b", "c", "d"]  # not a recoding of the hierarchy's cut, and unique
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rel), encoding="utf-8")
    assert anonymizer_main(["verify", str(bad)]) == 1


def test_diffpart_seed_determinism_and_secrecy(data, tmp_path, capsys):
    big = tmp_path / "big.jsonl"  # enough records for partitions to pass the threshold
    big.write_text("".join(json.dumps(DATA[i % len(DATA)]) + "\n" for i in range(3000)), encoding="utf-8")
    data = big
    paths = []
    for name, seed in (("d1.json", "271828182845"), ("d2.json", "271828182845"), ("d3.json", "31415926")):
        path = tmp_path / name
        assert anonymizer_main([str(data), "--method", "diffpart", "--epsilon", "5", "--fanout", "2",
                                "--seed", seed, "-o", str(path), "--truth", str(tmp_path / f"{name}.owner")]) == 0
        paths.append(path)
    a, b, c = (p.read_bytes() for p in paths)
    assert a == b and a != c
    assert json.loads(a)["records"]  # something was published
    assert b"271828182845" not in a and b"seed" not in a
    owner = json.loads((tmp_path / "d1.json.owner").read_text(encoding="utf-8"))
    assert owner == {"format": "generalized-owner/1", "method": "diffpart", "seed": 271828182845}
    capsys.readouterr()
    assert anonymizer_main(["verify", str(paths[0])]) == 0
    assert anonymizer_main(["utility", str(data), str(paths[0]), "--re-range", "0", "4", "--top-k", "5"]) == 0
    text = capsys.readouterr().out
    assert "method  diffpart" in text and "tKd-ML2" in text and "NCP      n/a" in text


def test_disassociation_default_and_ml2_in_utility(data, tmp_path, capsys):
    out = tmp_path / "rel.json"
    assert anonymizer_main([str(data), "-k", "2", "-m", "2", "--max-cluster-size", "4", "--seed", "1",
                            "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["format"] == "disassociated/1"
    capsys.readouterr()
    assert anonymizer_main(["utility", str(data), str(out), "--re-range", "0", "4", "--top-k", "5",
                            "--hierarchy", str(tmp_path / "tree.txt"), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["method"] == "disassociation" and rep["ncp"] == 0.0 and 0 <= rep["tkd_ml2"] <= 1
