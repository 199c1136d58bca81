"""`python -m anonymizer verify|reconstruct|utility`: outputs, exit codes, one-line errors, atomic writes."""

import json
import subprocess
import sys

import pytest
from paper_examples import fig2b

from anonymizer.__main__ import main as anonymizer_main
from anonymizer.cli import run_command
from anonymizer.io.release_files import save_release
from corpora.common.errors import InputError
from corpora.io.formats import write_dataset
from corpora.synthetic.toy import toy_dataset


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "release.json"
    save_release(fig2b(), good)
    bad_release = fig2b()
    bad_release = bad_release.with_params(k=4)
    bad = tmp_path / "bad.json"
    save_release(bad_release, bad)
    data = tmp_path / "fig2.jsonl"
    write_dataset(toy_dataset("terrovitis2012-fig2"), data)
    return good, bad, data


def test_verify_ok_and_violations(files, capsys):
    good, bad, _ = files
    assert anonymizer_main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK (2 clusters, 3 chunks; components: 2 exact, 0 proven, 0 undecided)")
    assert anonymizer_main(["verify", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any("{audi a4, sony tv} appears in 3 sub-record(s), fewer than k=4" in line for line in lines)
    assert "violation(s)" in lines[-1]


def test_reconstruct_writes_sorted_json_lines_deterministically(files, tmp_path):
    good, _, _ = files
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    assert anonymizer_main(["reconstruct", str(good), "--seed", "3", "-o", str(a)]) == 0
    assert anonymizer_main(["reconstruct", str(good), "--seed", "3", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
    records = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 10 and all(r == sorted(r) and r for r in records)
    outs = set()
    for seed in range(6):
        assert anonymizer_main(["reconstruct", str(good), "--seed", str(seed), "-o", str(c)]) == 0
        outs.add(c.read_bytes())
    assert len(outs) > 1


def test_utility_text_and_json(files, capsys):
    good, _, data = files
    assert anonymizer_main(["utility", str(data), str(good), "--re-range", "0", "6", "--top-k", "10",
                            "--reconstructions", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("tKd ") and "tlost" in out
    assert anonymizer_main(["utility", str(data), str(good), "--re-range", "0", "6", "--top-k", "10", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert set(rep) >= {"tkd", "tkd_a", "re", "re_a", "tlost", "reconstructions", "seconds"}
    # Terrovitis2012 7.1: 7 terms have support more than k = 3; ikea and ruby are lost (9 reach k: the variant)
    assert rep["tlost"] == pytest.approx(2 / 7) and rep["tlost_at_least_k"] == pytest.approx(2 / 9)


def test_utility_default_re_range_adapts_and_says_so(files, capsys):
    good, _, data = files
    assert anonymizer_main(["utility", str(data), str(good), "--top-k", "10"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "ranked 0-12" in lines["re"] and "default 200-220 adapted: INPUT has only 12 distinct terms" in lines["re"]
    assert lines["RLM"].split()[1] == "n/a" and "safe releases only" in lines["RLM"]
    assert lines["RAE"].split()[1] != "n/a"
    assert anonymizer_main(["utility", str(data), str(good), "--top-k", "10", "--re-range", "0", "12", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["re_range"] == [0, 12] and rep["re_range_adapted"] is False and rep["rlm"] is None
    assert rep["rae_abs"] == pytest.approx(rep["re"]) and rep["rae"] != rep["rae_abs"]


@pytest.fixture(scope="module")
def safe_files(tmp_path_factory):
    from anonymizer.disassociation.pipeline import disassociate
    from anonymizer.disassociation.safe import safe_disassociate
    from corpora.registry import load_dataset

    folder = tmp_path_factory.mktemp("safe")
    spec = "synthetic:records=2000,domain=150,avg_length=6,seed=1"
    release, truth = disassociate(load_dataset(spec), k=3, m=2, max_cluster_size=30, seed=1)
    safe, _ = safe_disassociate(release, truth, seed=1)
    assert safe.n_records > 2000
    save_release(release, folder / "ns.json")
    save_release(safe, folder / "s.json")
    return spec, folder / "s.json", folder / "ns.json"


def test_utility_scores_a_safe_release_with_rlm_and_rae(safe_files, capsys):
    from anonymizer.evaluation.safe_metrics import rlm
    from anonymizer.io.release_files import load_release

    spec, safe, before = safe_files
    assert anonymizer_main(["utility", spec, str(safe), "--before", str(before), "--top-k", "50", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["rlm"] == pytest.approx(rlm(load_release(before), load_release(safe))) and rep["rlm"] > 0
    assert rep["rae_abs"] == pytest.approx(rep["re"]) and rep["re_range"] == [130, 150] and rep["re_range_adapted"]
    assert -2 <= rep["rae"] <= 2
    assert anonymizer_main(["utility", spec, str(safe), "--top-k", "50"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert lines["RLM"].split()[1] == "n/a" and "--before" in lines["RLM"]
    assert float(lines["RAE-abs"].split()[1]) == pytest.approx(float(lines["re"].split()[1]))
    assert "signed" in lines["RAE"]
    assert anonymizer_main(["utility", spec, str(safe), "--before", str(before), "--top-k", "50"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert float(lines["RLM"].split()[1]) == pytest.approx(rep["rlm"], abs=1e-4)


@pytest.mark.parametrize("args, message", [
    (["SAFE", "--before", "SAFE"], "--before is a safe release"),
    (["BEFORE", "--before", "BEFORE"], "--before: the release scored is not a safe release"),
    (["SAFE", "--before", "FIG2B"], "--before does not match the release: params.horpart"),
    (["SAFE", "--re-range", "140", "160"], "--re-range 140 160: the original dataset has only 150 distinct terms"),
])
def test_utility_safe_bad_input_is_one_line_exit_2(safe_files, files, capsys, args, message):
    spec, safe, before = safe_files
    good, _, _ = files
    names = {"SAFE": str(safe), "BEFORE": str(before), "FIG2B": str(good)}
    assert anonymizer_main(["utility", spec, *[names.get(a, a) for a in args], "--top-k", "50"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("argv, message", [
    (["verify"], "the following arguments are required: release"),
    (["verify", "missing.json"], "missing.json: no such file"),
    (["reconstruct", "REL", "--seed", "-1", "-o", "out.jsonl"], "non-negative"),
    (["reconstruct", "REL"], "-o/--output"),
    (["reconstruct", "REL", "--term-rule", "many", "-o", "x.jsonl"], "invalid choice"),
    (["utility", "DATA", "REL", "--reconstructions", "0"], "an integer from 1 to"),
    (["utility", "DATA", "REL", "--re-range", "5", "2"], "END (2) must exceed START (5)"),
    (["utility", "DATA", "REL", "--re-range", "200", "220"], "--re-range 200 220: the original dataset has only 12"),
    (["utility", "DATA", "REL", "--re-range", "0", "13"], "--re-range 0 13"),
    (["utility", "DATA", "REL", "--before", "REL"], "--before: the release scored is not a safe release"),
    (["utility", "kosarak10k", "REL"], "INPUT kosarak10k does not match the release: it has 10000 records"),
])
def test_bad_input_is_one_line_exit_2(files, tmp_path, monkeypatch, capsys, argv, message):
    good, _, data = files
    monkeypatch.chdir(tmp_path)
    argv = [str(good) if a == "REL" else str(data) if a == "DATA" else a for a in argv]
    assert anonymizer_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err


def test_failed_reconstruct_leaves_no_file(tmp_path):
    rel = fig2b()
    rel.clusters[0].record_chunks[0].append(("x",))  # a 6th sub-record exceeds size 5: load fails
    path = tmp_path / "broken.json"
    obj = rel.to_dict()
    path.write_text(json.dumps(obj), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert anonymizer_main(["reconstruct", str(path), "-o", str(out)]) == 2
    assert not out.exists() and list(tmp_path.iterdir()) == [path]
    assert anonymizer_main(["reconstruct", str(path), "-o", str(tmp_path / "nodir" / "x.jsonl")]) == 2


def test_unknown_command_and_subprocess(files):
    with pytest.raises(InputError, match="unknown command"):
        run_command("frobnicate", [])
    good, _, _ = files
    done = subprocess.run([sys.executable, "-m", "anonymizer", "verify", str(good)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("OK")


def _write(tmp_path, obj, name="rel.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return str(path)


def _one_cluster(chunks, size=3, terms=(), shared=None):
    obj = {"format": "disassociated/1", "params": {"k": 2, "m": 2},
           "clusters": [{"id": "P", "size": size, "record_chunks": chunks, "term_chunk": list(terms)},
                        {"id": "Q", "size": 3, "record_chunks": [[["q"]] * 3], "term_chunk": []}],
           "joint_clusters": []}
    if shared is not None:
        obj["joint_clusters"] = [{"id": "J", "children": ["P", "Q"], "shared_chunks": shared}]
    return obj


@pytest.mark.parametrize("obj, message", [
    (_one_cluster([[["a", "a"], ["a"], ["a"]]]), "cluster P record chunk 0: sub-record 0 ['a', 'a'] repeats a term"),
    (_one_cluster([[["a"], [], ["a"], ["a"]]], size=4), "cluster P record chunk 0: sub-record 1 is empty"),
    (_one_cluster([[["a"]] * 3], terms=["t", "t"]), "cluster P: term chunk repeats a term"),
    ('{"format": "disassociated/1", "format": "disassociated/1", "params": {"k": 2, "m": 1}, "clusters": []}',
     "JSON: key 'format' repeated in an object"),
])
def test_strict_parser_reports_malformed_releases(tmp_path, capsys, obj, message):
    """The verifier reads the file itself: what the engine's parser would silently fix is a violation."""
    path = _write(tmp_path, obj)
    assert anonymizer_main(["verify", path]) == 1
    out = capsys.readouterr().out
    assert message in out, out
    assert "violation(s)" in out.splitlines()[-1]


@pytest.mark.parametrize("text, message", [
    (_one_cluster([[["a"]] * 4]), "cluster P record chunk 0: 4 sub-records exceed the cluster size 3"),
    (_one_cluster([[["a"]] * 3], shared=[[["s"]] * 7]), "joint cluster J shared chunk 0: 7 sub-records exceed the 6"),
    (_one_cluster([[["a"]] * 3], size="3"), "cluster P: size must be a positive integer"),
    (_one_cluster([[["a"], ["a"], ["a", 3]]]), "cluster P record chunk 0: sub-record 2 must be a list of non-empty"),
    (_one_cluster([["a", "a", "a"]]), "sub-record 0 must be a list of non-empty strings, got 'a'"),
    ({"format": "disassociated/1", "params": {"k": 0, "m": True}, "clusters": []},
     "params.k must be an integer >= 2, got 0 (and 1 more problem(s))"),
    ("[1, 2]", "not a release: expected a JSON object"),
    ('{"format": "disassociated-truth/1"}', "not a release: 'format' must be"),
    ("{not json", "not a release: not valid JSON"),
])
def test_a_file_that_is_not_a_release_is_one_error_line(tmp_path, capsys, text, message):
    assert anonymizer_main(["verify", _write(tmp_path, text)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err


def test_exact_options(tmp_path, capsys):
    # Terrovitis2012 Example 1 in a 5-record cluster: searched by default, not with --exact-max-records 0
    obj = {"format": "disassociated/1", "params": {"k": 3, "m": 2},
           "clusters": [{"id": "P", "size": 5, "record_chunks": [[["a"]] * 3, [["b", "c"]] * 3], "term_chunk": []}]}
    path = _write(tmp_path, obj)
    assert anonymizer_main(["verify", path]) == 1
    out = capsys.readouterr().out
    assert "cluster P: Guarantee 1 fails: itemset {a, b} reaches at most 1 record(s)" in out
    assert "components: 1 exact, 0 proven, 0 undecided" in out
    assert anonymizer_main(["verify", path, "--exact-max-records", "0"]) == 1
    out = capsys.readouterr().out
    assert "Guarantee 1" not in out and "components: 0 exact, 0 proven, 1 undecided" in out  # Lemma 2 fails it
    assert anonymizer_main(["verify", path, "--exact-max-records", "0", "--exact"]) == 1
    assert "components: 1 exact, 0 proven" in capsys.readouterr().out
