"""Untrusted files never execute and bad attack inputs end in one line (issue 15).

A gensim ``.kv`` is a pickle: the test's ``.kv`` would create a marker file when unpickled, and it
is refused without ``--trust-pickle`` (the marker proves the refusal is what protects: with trust
the payload runs). Non-UTF-8 or binary knowledge files, score tables and web NGD configs, and
configs with unknown placeholders or a non-numeric total, are one ``error:`` line and exit 2.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from test_semantic_cli import _files

from attacks.__main__ import main as attacks_main
from attacks.semantic.embeddings import embeddings_format, load_embeddings
from attacks.semantic.web_counts import WebConfig, WebCountBackend
from corpora.common.errors import InputError


class _Payload:
    """Unpickling this object calls ``open(marker, "w")``: it creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):  # noqa: ANN204 - the pickle protocol
        return (open, (self.marker, "w"))


def _evil(tmp_path: Path, name: str = "vectors.kv") -> tuple[Path, Path]:
    marker = tmp_path / "PWNED"
    path = tmp_path / name
    path.write_bytes(pickle.dumps(_Payload(marker), protocol=4))
    return path, marker


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    assert len(lines[0]) < 400
    return lines[0]


# ----------------------------------------------------------------------------- pickles
@pytest.mark.parametrize("name", ["vectors.kv", "vectors.model", "vectors.txt", "vectors.bin", "vectors.npy"])
def test_a_pickled_embeddings_file_is_refused_without_trust(tmp_path, capsys, name) -> None:
    rel, _tru, _orig = _files(tmp_path)
    evil, marker = _evil(tmp_path, name)
    out = tmp_path / "rec.jsonl"
    code = attacks_main(["semantic", rel, "--scorer", "glove", "--embeddings", str(evil), "-o", str(out)])
    assert code == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "pickle" in line and "--trust-pickle" in line
    assert not marker.exists() and not out.exists()


def test_the_payload_would_run_if_trusted(tmp_path) -> None:
    """The control: with trust, unpickling does run the payload (then the non-vectors are refused)."""
    evil, marker = _evil(tmp_path)
    with pytest.raises(InputError, match="not gensim KeyedVectors|not a readable gensim file"):
        load_embeddings(str(evil), trust_pickle=True)
    assert marker.exists()


def test_a_real_kv_file_loads_only_when_trusted(tmp_path) -> None:
    from gensim.models import KeyedVectors

    kv = KeyedVectors(3)
    kv.add_vectors(["eye", "lens"], np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]], dtype=np.float32))
    path = tmp_path / "small.kv"
    kv.save(str(path))
    with pytest.raises(InputError, match="--trust-pickle"):
        load_embeddings(str(path))
    loaded = load_embeddings(str(path), trust_pickle=True)
    assert loaded.index_to_key == ["eye", "lens"]
    assert embeddings_format(str(path), trust_pickle=True) == "pickle"


def test_the_help_says_why_pickles_need_trust(capsys) -> None:
    import attacks.cli.semantic as command
    from attacks.__main__ import TOOL
    from corpora.common.cli import command_parser

    text = " ".join(command_parser(TOOL, "semantic", command).format_help().split())
    assert "--trust-pickle" in text and "runs any code" in text


# ----------------------------------------------------------------------------- .npy + words
def test_npy_embeddings_with_a_words_file(tmp_path) -> None:
    matrix = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float64)
    np.save(tmp_path / "vec.npy", matrix)
    (tmp_path / "vec.words").write_text("eye\nlens\ncataract\n", encoding="utf-8")
    kv = load_embeddings(str(tmp_path / "vec.npy"))
    assert kv.index_to_key == ["eye", "lens", "cataract"]
    assert np.allclose(kv["cataract"], [0.6, 0.8])


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("object-array", "not a plain number matrix"),
        ("no-words", "needs its words in"),
        ("count-mismatch", "2 words for the 3 rows"),
        ("duplicate-word", "listed once"),
        ("one-dimensional", "expected a 2-d matrix"),
        ("strings", "expected numbers"),
    ],
)
def test_bad_npy_embeddings_are_one_line(tmp_path, capsys, case, expected) -> None:
    path = tmp_path / "vec.npy"
    words = "a\nb\nc\n"
    if case == "object-array":
        np.save(path, np.array([{"x": 1}, None, 3], dtype=object), allow_pickle=True)
    elif case == "one-dimensional":
        np.save(path, np.zeros(3))
    elif case == "strings":
        np.save(path, np.array([["a"], ["b"], ["c"]]))
    else:
        np.save(path, np.zeros((3, 2)))
    if case == "count-mismatch":
        words = "a\nb\n"
    elif case == "duplicate-word":
        words = "a\nb\na\n"
    if case != "no-words":
        (tmp_path / "vec.words").write_text(words, encoding="utf-8")
    rel, _tru, _orig = _files(tmp_path)
    out = tmp_path / "rec.jsonl"
    assert attacks_main(["semantic", rel, "--scorer", "glove", "--embeddings", str(path), "-o", str(out)]) == 2
    assert expected in _one_error_line(capsys.readouterr().err)
    assert not out.exists()


# ----------------------------------------------------------------------------- bad files, one line
_WEB_BASE = {"url_template": "http://127.0.0.1:9/s?q={query}", "json_path": "n", "total": 1000}


def _web(tmp_path: Path, content: object) -> str:
    path = tmp_path / "web.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(json.dumps(content) if not isinstance(content, str) else content, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("table-latin1", "not UTF-8 text"),
        ("table-binary", "not UTF-8 text"),
        ("table-huge-field", "not a readable CSV file"),
        ("web-placeholder", "unknown field {zone}"),
        ("web-total-lots", "total must be a positive number, got 'lots'"),
        ("web-total-huge", "total must be a positive number"),
        ("web-format-spec", "without a format or conversion"),
        ("web-pair-query", "pair_query must contain {b}"),
        ("web-retries", "retries must be an integer"),
        ("web-latin1", "not valid UTF-8 text"),
        ("web-deep", "nested too deeply"),
        ("web-brace", "not a valid template"),
    ],
)
def test_bad_scorer_inputs_are_one_line(tmp_path, capsys, case, expected) -> None:
    rel, _tru, _orig = _files(tmp_path)
    out = tmp_path / "rec.jsonl"
    argv = ["semantic", rel, "-o", str(out)]
    table = tmp_path / "scores.csv"
    if case == "table-latin1":
        table.write_bytes("café,thé,0.5\n".encode("latin-1"))
    elif case == "table-binary":
        table.write_bytes(bytes(range(256)) * 8)
    elif case == "table-huge-field":
        table.write_text('"' + "x" * 200_000 + '",b,0.5\n', encoding="utf-8")
    if case.startswith("table"):
        argv += ["--scorer", f"table:{table}"]
    else:
        config: object = dict(_WEB_BASE)
        if case == "web-placeholder":
            config = dict(_WEB_BASE, url_template="http://127.0.0.1:9/s?q={query}&z={zone}")
        elif case == "web-total-lots":
            config = dict(_WEB_BASE, total="lots")
        elif case == "web-total-huge":
            config = '{"url_template": "http://x/{query}", "json_path": "n", "total": 1' + "0" * 400 + "}"
        elif case == "web-format-spec":
            config = dict(_WEB_BASE, url_template="http://127.0.0.1:9/s?q={query:>999999999}")
        elif case == "web-pair-query":
            config = dict(_WEB_BASE, pair_query='"{a}"')
        elif case == "web-retries":
            config = dict(_WEB_BASE, retries="3")
        elif case == "web-latin1":
            config = json.dumps(dict(_WEB_BASE, json_path="é")).encode("latin-1").replace(b"\\u00e9", b"\xe9")
        elif case == "web-deep":
            config = "[" * 30_000 + "]" * 30_000
        elif case == "web-brace":
            config = dict(_WEB_BASE, url_template="http://127.0.0.1:9/s?q={query")
        argv += ["--scorer", "ngd", "--ngd-web", _web(tmp_path, config)]
    assert attacks_main(argv) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert expected in line
    assert not out.exists()


@pytest.mark.parametrize("content", [b"\xff\xfe[\"a\", \"b\"]\n", bytes(range(256)), b"[" * 100_000 + b"]" * 100_000])
def test_bad_knowledge_files_are_one_line(tmp_path, capsys, content) -> None:
    rel, _tru, _orig = _files(tmp_path)
    knowledge = tmp_path / "knowledge.jsonl"
    knowledge.write_bytes(content)
    assert attacks_main(["cover", rel, "--knowledge", str(knowledge)]) == 2
    _one_error_line(capsys.readouterr().err)


# ----------------------------------------------------------------------------- web answers
SECRET = "s3cr3t-KEY-value-0123456789"


class _Answer:
    status_code = 200

    def __init__(self, payload: object) -> None:
        self.payload = payload

    def json(self) -> object:
        return self.payload


class _Session:
    def __init__(self, payload: object) -> None:
        self.payload = payload

    def get(self, url: str, headers: dict, timeout: float) -> _Answer:
        return _Answer(self.payload)


@pytest.mark.parametrize(
    "payload",
    [
        {"n": f"echo of your request: key={SECRET}\x1b[31m\n" + "x" * 100_000},
        {"n": {"request": {"key": SECRET, "q": "glaucoma"}, "padding": ["y" * 1000] * 1000}},
        {"other": SECRET, "big": "z" * 100_000},
        {"n": -5, "note": SECRET},
    ],
)
def test_a_web_answer_in_an_error_is_short_sanitized_and_keyless(monkeypatch, payload) -> None:
    monkeypatch.setenv("NGD_TEST_KEY", SECRET)
    config = WebConfig(url_template="http://127.0.0.1:9/s?q={query}&key={key}", json_path="n", total=100,
                       key_env="NGD_TEST_KEY", min_interval=0.0)
    backend = WebCountBackend(config, session=_Session(payload))
    with pytest.raises(InputError) as info:
        backend.hit_count('"glaucoma"')
    message = str(info.value)
    assert SECRET not in message and SECRET[:8] not in message
    assert len(message) < 300 and "\n" not in message and "\x1b" not in message
