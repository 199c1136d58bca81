"""`python -m corpora build-text`: summary output and one-line errors."""

from __future__ import annotations

import json

import pytest

from corpora.__main__ import main as corpora_main
from corpora.cli import run_command
from corpora.cli.build_text import describe_choice
from corpora.common.errors import InputError


def test_build_text_writes_data_and_metadata_and_prints_summary(tmp_path, capsys):
    out = tmp_path / "lee.jsonl"
    status = run_command("build-text", ["--source", "lee", "--density", "0.3", "--topics", "4", "--select-topics",
                                        "0,2", "--part", "attacked", "--seed", "1", "-o", str(out)])
    assert status == 0
    text = capsys.readouterr().out
    meta = json.loads((tmp_path / "lee.jsonl.meta.json").read_text())
    lines = out.read_text().splitlines()
    assert len(lines) == meta["counts"]["records"]
    assert f"documents selected -> {meta['counts']['records']} records" in text
    assert f"distinct terms {meta['counts']['distinct_terms']}" in text
    assert f"density {meta['density']['reached']:.4f} (target 0.3, {meta['density']['method']}" in text
    assert "*topic  0" in text and " topic  1" in text
    assert meta["parameters"] == {"density": 0.3, "topics": 4, "select_topics": [0, 2], "top_n": None,
                                  "seed": 1, "part": "attacked", "reference_share": 0.3}


def test_describe_choice_names_each_method():
    assert "no target" in describe_choice({"method": "full", "reached": 0.25})
    line = describe_choice({"method": "tfidf-truncation", "reached": 0.5, "target": 0.5, "cap": 7,
                            "documents_with_one_more": 3})
    assert "best 7 terms by TF-IDF, 3 keep one more" in line
    line = describe_choice({"method": "drop-rare-terms", "reached": 0.2, "target": 0.2, "dropped_terms": 9,
                            "max_dropped_document_frequency": 1, "emptied_documents": 0})
    assert "9 terms held by at most 1 documents dropped" in line
    line = describe_choice({"method": "fewer-documents+tfidf-truncation", "reached": 0.7, "target": 0.7,
                            "documents_kept": 110, "documents_left_out": 100, "cap": 25,
                            "documents_with_one_more": 1})
    assert "fewer-documents: 110 kept, 100 left out, then tfidf-truncation: each document keeps its best 25" in line


@pytest.mark.parametrize("args, message", [
    (["--source", "nope"], "unknown text source 'nope'"),
    (["--source", "lee", "--density", "0.1", "--topics", "8", "--select-topics", "4", "--part", "reference"],
     "density 0.1 is out of reach"),
    (["--source", "lee", "--density", "abc"], "invalid float value: 'abc'"),
    (["--source", "lee", "--select-topics", "a,b"], "expected topic ids like 0,3"),
    (["--source", "lee", "--part", "train"], "invalid choice: 'train'"),
    (["--source", "lee", "--select-topics", "1"], "select_topics needs topics"),
])
def test_bad_input_is_one_line_and_leaves_no_file(tmp_path, capsys, args, message):
    out = tmp_path / "x.jsonl"
    status = corpora_main(["build-text", *args, "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert list(tmp_path.iterdir()) == []


def test_missing_output_directory_is_one_line(tmp_path, capsys):
    status = corpora_main(["build-text", "--source", "lee", "--top-n", "3", "-o", str(tmp_path / "no" / "x.jsonl")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"error: {tmp_path / 'no' / 'x.jsonl'}: the output folder {tmp_path / 'no'} does not exist")


def test_missing_required_option_raises_input_error():
    with pytest.raises(InputError, match="required"):
        run_command("build-text", ["--source", "lee"])
