import json
import sys

import pytest
from cli_runner import run_tool

from corpora.cli import run_command as main
from corpora.common.errors import InputError
from corpora.io.formats import read_dataset
from corpora.synthetic.toy import toy_dataset


def run(*args, cwd=None):
    return run_tool("corpora", args, cwd=cwd)  # in-process: python -m corpora ARGS


def test_stats_json(capsys):
    assert main("stats", ["kosarak10k", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == 10_000 and out["distinct_terms"] == 10_094
    assert out["avg_length"] == pytest.approx(8.1407)
    assert out["density"] == pytest.approx(10_094 / 81_407)


def test_stats_text(capsys):
    assert main("stats", ["alshuhail2021-table3.4"]) == 0
    out = capsys.readouterr().out
    assert "records:          4" in out and "distinct terms:   7" in out and "max length:       4" in out


def test_list_text_and_json(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DISASSOC_CACHE", str(tmp_path))
    assert main("list", []) == 0
    out = capsys.readouterr().out
    assert "kosarak10k" in out and "bms-pos" in out and "not cached" in out
    assert main("list", ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [d["name"] for d in data["datasets"]]
    assert "terrovitis2012-fig2" in names
    assert isinstance(data["text_sources"], list)


def test_list_without_text_module(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "corpora.text.sources", None)  # import now fails: ModuleNotFoundError
    assert main("list", []) == 0
    out = capsys.readouterr().out
    assert "kosarak10k" in out and "text sources" not in out


def test_convert_between_formats(tmp_path):
    src = tmp_path / "in.tsv"
    src.write_text("7\tb\n7\ta\n3\tc\n")
    assert main("convert", [str(src), "-o", str(tmp_path / "out.csv")]) == 0
    assert (tmp_path / "out.csv").read_text() == "a,b\nc\n"
    assert main("convert", [str(tmp_path / "out.csv"), "-o", str(tmp_path / "out.dat"), "--to", "basket",
                            "--to-delimiter", ";"]) == 0
    assert (tmp_path / "out.dat").read_text() == "a;b\nc\n"
    assert main("convert", ["terrovitis2012-fig2", "-o", str(tmp_path / "t.jsonl")]) == 0
    assert read_dataset(tmp_path / "t.jsonl") == toy_dataset("terrovitis2012-fig2")


def test_bad_arguments_raise_input_error(tmp_path):
    with pytest.raises(InputError, match="required"):
        main("convert", ["kosarak10k"])
    with pytest.raises(InputError, match="invalid choice"):
        main("stats", ["kosarak10k", "--format", "xml"])
    with pytest.raises(InputError, match="unknown command"):
        main("frobnicate", [])


def test_subprocess_one_line_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('["a"]\n[1]\n')
    result = run("stats", str(bad))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: {bad}:2: term 1 is not a non-empty string"]
    assert result.stdout == ""
    result = run("convert", "terrovitis2012-fig2", "-o", str(tmp_path / "t.txt"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "audi a4" in result.stderr
    assert not (tmp_path / "t.txt").exists()
    result = run("stats", "bms-pos", "--cache-dir", str(tmp_path))
    assert result.returncode == 2 and "fetching it needs network" in result.stderr
    assert "Traceback" not in result.stderr


def test_subprocess_stats_ok():
    result = run("stats", "kosarak25k", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["records"] == 25_000


def test_convert_refuses_to_write_over_its_input(tmp_path):
    src = tmp_path / "data.txt"
    src.write_text("a b\nb c\n")
    with pytest.raises(InputError, match="would overwrite the input"):
        main("convert", [str(src), "-o", str(src)])
    assert src.read_text() == "a b\nb c\n"
