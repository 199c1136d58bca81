"""`python -m anonymizer INPUT ...`: outputs, summary, and one-line errors with no file left behind."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from anonymizer.__main__ import main as dispatch
from anonymizer.cli.anonymize import main
from anonymizer.evaluation.verify import verify
from anonymizer.io.release_files import load_release, load_truth
from corpora.common.errors import InputError
from corpora.synthetic.toy import toy_records


@pytest.fixture()
def fig2(tmp_path):
    path = tmp_path / "fig2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in toy_records("terrovitis2012-fig2")), encoding="utf-8")
    return path


def test_writes_release_and_truth(tmp_path, fig2, capsys):
    out, tru = tmp_path / "rel.json", tmp_path / "truth.json"
    status = main([str(fig2), "-k", "2", "-m", "2", "--max-cluster-size", "5", "--horpart", "adding",
                   "--verpart", "grouped", "--seed", "3", "-o", str(out), "--truth", str(tru)])
    assert status == 0
    release, truth = load_release(out), load_truth(tru)
    truth.check_against(release)
    assert verify(release).ok
    assert release.params["horpart"] == "adding" and "seed" not in release.params and truth.seed == 3
    text = capsys.readouterr().out
    assert "clusters 3" in text and "tlost" in text and "term chunks" in text


def test_summary_counts_suppressed_and_moved_records(tmp_path, capsys):
    """suppression deletes records, original's join step moves them: the summary says how many."""
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in toy_records("alshuhail2021-table3.2")), encoding="utf-8")
    for strategy, line in [("suppression", "horpart suppression: records suppressed 1, moved to another cluster 0"),
                           ("original", "horpart original: records suppressed 0, moved to another cluster 1"),
                           ("abandon", "horpart abandon: records suppressed 0, moved to another cluster 0")]:
        assert main([str(path), "-k", "2", "-m", "2", "--max-cluster-size", "3", "--horpart", strategy,
                     "--verpart", "original", "-o", str(tmp_path / "r.json")]) == 0
        assert line in capsys.readouterr().out


def test_help_names_the_papers(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "original = Terrovitis2012's HORPART" in text and "abandon = AlShuhail2021's reading" in text
    assert "original = Terrovitis2012's VERPART" in text and "strict, grouped = AlShuhail2021 3.3.3" in text


def test_registry_name_and_no_refine(tmp_path, capsys):
    out = tmp_path / "rel.json"
    assert main(["terrovitis2012-fig2", "-k", "3", "-m", "2", "--max-cluster-size", "10", "--no-refine",
                 "-o", str(out)]) == 0
    release = load_release(out)
    assert release.params["refine"] is False and not release.joint_clusters
    assert "joint clusters 0" in capsys.readouterr().out


def test_max_cluster_size_defaults_as_in_the_python_api(tmp_path, fig2):
    out = tmp_path / "rel.json"
    assert main([str(fig2), "-k", "2", "-m", "2", "-o", str(out)]) == 0
    assert load_release(out).params["max_cluster_size"] == 30


def test_help_lists_every_command_and_anonymize_is_the_default(capsys):
    from anonymizer.__main__ import main as top

    with pytest.raises(SystemExit) as stop:
        top(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert all(name in text for name in ("anonymize", "verify", "reconstruct", "utility"))
    with pytest.raises(SystemExit):
        top(["utility", "--help"])
    assert "--reconstructions" in capsys.readouterr().out


def test_same_seed_same_bytes(tmp_path, fig2):
    outs = []
    for name in ("a.json", "b.json"):
        main([str(fig2), "-k", "2", "-m", "2", "--max-cluster-size", "5", "--seed", "9", "-o", str(tmp_path / name)])
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1]


@pytest.mark.parametrize("args,pattern", [
    (["-k", "1", "-m", "2", "--max-cluster-size", "5"], "k must be"),
    (["-k", "2", "-m", "0", "--max-cluster-size", "5"], "m must be"),
    (["-k", "3", "-m", "2", "--max-cluster-size", "2"], "max cluster size"),
    (["-k", "3", "-m", "2", "--max-cluster-size", "4"], "max cluster size 4 is below 2k - 1 = 5"),
    (["-k", "11", "-m", "2", "--max-cluster-size", "21"], "fewer than k"),
    (["-k", "2", "-m", "2", "--max-cluster-size", "5", "--horpart", "greedy"], "invalid choice"),
    (["-k", "x", "-m", "2", "--max-cluster-size", "5"], "k must be an integer"),
    (["-k", "2"], "-m is required"),
    (["-k", "2", "-m", "2", "--max-cluster-size", "5", "--format", "xml"], "--format: invalid choice: .xml."),
])
def test_bad_input_raises_and_writes_nothing(tmp_path, fig2, args, pattern):
    out = tmp_path / "rel.json"
    with pytest.raises(InputError, match=pattern):
        main([str(fig2), *args, "-o", str(out)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig2.jsonl"]


def test_truth_must_differ_from_release(tmp_path, fig2):
    out = tmp_path / "rel.json"
    with pytest.raises(InputError, match="different files"):
        main([str(fig2), "-k", "2", "-m", "2", "--max-cluster-size", "5", "-o", str(out), "--truth", str(out)])


def test_missing_output_folder(tmp_path, fig2):
    with pytest.raises(InputError, match="does not exist"):
        main([str(fig2), "-k", "2", "-m", "2", "--max-cluster-size", "5", "-o", str(tmp_path / "no" / "r.json")])


def test_dispatcher_prints_one_line_and_exits_2(tmp_path, capsys):
    status = dispatch([str(tmp_path / "missing.jsonl"), "-k", "2", "-m", "2", "--max-cluster-size", "5",
                       "-o", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error:") and err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


def test_module_entry_point(tmp_path, fig2):
    out = tmp_path / "rel.json"
    done = subprocess.run([sys.executable, "-m", "anonymizer", str(fig2), "-k", "2", "-m", "2",
                           "--max-cluster-size", "5", "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.exists() and "clusters" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "anonymizer", str(fig2), "-k", "2", "-m", "2",
                          "--max-cluster-size", "5", "--verpart", "nope", "-o", str(out)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_safe_flag_sets_param(tmp_path, fig2, capsys):
    out, tru = tmp_path / "rel.json", tmp_path / "truth.json"
    assert main([str(fig2), "-k", "2", "-m", "2", "--max-cluster-size", "5", "--safe", "-o", str(out),
                 "--truth", str(tru)]) == 0
    assert "records kept non-empty by" in capsys.readouterr().out
    release = load_release(out)
    assert release.params["safe"] is True
    load_truth(tru).check_against(release)
