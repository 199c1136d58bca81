"""The columnar forms of a release: parquet files and the fast JSON reader give the same release,
the same cover and verify results, and every malformed file is one InputError line."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from release_strategies import tiny_releases
from test_core_release import FIG2B as CORE_FIG2B

from anonymizer.__main__ import main as anonymizer_main
from anonymizer.disassociation.pipeline import disassociate
from anonymizer.disassociation.safe import safe_disassociate
from anonymizer.evaluation.verify import verify, verify_file
from anonymizer.io.json_fast import arrays_from_json_bytes, json_depth
from anonymizer.io.parquet import (
    METADATA_KEY,
    read_release_parquet,
    release_table,
    save_release_parquet,
)
from anonymizer.io.release_files import load_release, load_truth, save_release, save_truth
from anonymizer.io.truth_parquet import TRUTH_METADATA_KEY, save_truth_parquet, truth_table
from anonymizer.model.arrays import validate
from anonymizer.model.release import Release
from attacks.__main__ import main as attacks_main
from attacks.cover.detector import run_cover_attack
from attacks.cover.knowledge import make_knowledge
from attacks.cover.problem import flatten
from corpora.common.errors import InputError
from corpora.common.files import parse_json
from corpora.synthetic.quest import generate_quest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fast_reader_for_small_files(monkeypatch):
    """The fast JSON reader takes these tiny files too (it leaves files below 4 MiB to json.loads)."""
    import anonymizer.io.json_fast

    monkeypatch.setattr(anonymizer.io.json_fast, "MIN_FAST_BYTES", 0)

FIG2B = {  # Terrovitis2012 Figure 2b (test_core_release), with a joint cluster holding a non-ASCII term
    **CORE_FIG2B,
    "params": {**CORE_FIG2B["params"], "safe": False},
    "joint_clusters": [{"id": "J1", "children": ["P1", "P2"], "shared_chunks": [[["café"], ["café", "zz"]]]}],
}



def _report(release: Release, attacker: str = "strong") -> dict:
    out = run_cover_attack(release, attacker, seed=3).to_dict()
    out.pop("seconds")
    out.pop("knowledge_seconds")
    return out


def _forms(tmp_path: Path, obj: dict) -> tuple[Release, Release, Release]:
    """(the JSON release parsed by Release.from_dict, the JSON read by load_release, its parquet form read back)."""
    reference = Release.from_dict(obj)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    fast = load_release(path)
    save_release_parquet(reference, tmp_path / "r.parquet")
    return reference, fast, load_release(tmp_path / "r.parquet")


def test_fig2b_in_every_form(tmp_path):
    reference, fast, columnar = _forms(tmp_path, FIG2B)
    assert fast.validated and columnar.validated  # read into arrays, checked by validate
    assert columnar.has_arrays
    assert columnar.n_records == 10 and columnar.terms() == reference.terms()
    assert repr(columnar) == repr(reference)
    assert _report(columnar) == _report(reference) == _report(fast)
    assert columnar == reference and reference == columnar and fast == reference
    assert columnar.to_dict() == reference.to_dict()
    schema = pq.read_schema(tmp_path / "r.parquet")
    meta = json.loads(schema.metadata[METADATA_KEY])
    assert meta["format"] == "disassociated/1" and "seed" not in meta["params"]
    assert meta["terms"] == sorted(meta["terms"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(obj=tiny_releases(max_clusters=4, max_size=5),
       attacker=st.sampled_from(["strong", "strong-per-record", "moderate"]))
def test_every_form_gives_the_same_release_and_results(tmp_path, obj, attacker):
    reference, fast, columnar = _forms(tmp_path, obj)
    assert columnar.to_dict() == reference.to_dict() == fast.to_dict()
    # cover and verify read the arrays; the reference reads the objects
    assert _report(columnar, attacker) == _report(reference, attacker) == _report(fast, attacker)
    strict = verify(obj)
    for form in (columnar, fast):
        got = verify(load_release(tmp_path / ("r.parquet" if form is columnar else "r.json")))
        assert (got.ok, got.violations, got.chunks_checked, got.components_exact) == (
            strict.ok, strict.violations, strict.chunks_checked, strict.components_exact)
    assert verify_file(tmp_path / "r.parquet").violations == verify_file(tmp_path / "r.json").violations


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(obj=tiny_releases(max_clusters=3, max_size=4))
def test_json_and_parquet_convert_into_each_other_byte_for_byte(tmp_path, obj):
    json_path, parquet_path, back = tmp_path / "a.json", tmp_path / "a.parquet", tmp_path / "b.json"
    save_release(Release.from_dict(obj), json_path)
    assert anonymizer_main(["convert", str(json_path), str(parquet_path)]) == 0
    assert anonymizer_main(["convert", str(parquet_path), str(back)]) == 0
    assert back.read_bytes() == json_path.read_bytes()


def test_flat_index_from_arrays_equals_the_one_from_objects(tmp_path):
    reference, fast, columnar = _forms(tmp_path, FIG2B)
    a, b = flatten(reference), flatten(columnar)
    for name in a.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        assert (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y), name
    assert not hasattr(columnar, "cache")  # the index is returned, never written into the release


def test_objects_built_on_first_use_join_the_arrays(tmp_path):
    reference, _, columnar = _forms(tmp_path, FIG2B)
    flat = flatten(columnar)
    assert columnar.clusters == reference.clusters and columnar.has_arrays  # two faces of one value
    with pytest.raises(AttributeError):
        columnar.clusters = []  # a release never changes
    assert flatten(columnar).n_chunks == flat.n_chunks == 3
    assert columnar.n_records == 10 and "sony tv" in columnar.terms()


def test_knowledge_of_every_attacker_is_the_same_for_every_form(tmp_path):
    reference, fast, columnar = _forms(tmp_path, FIG2B)
    for attacker in ("strong", "strong-per-record", "moderate", "weak"):
        want = make_knowledge(reference, attacker, 5, vocabulary=["apple", "pear", "plum"])
        for form in (fast, columnar):
            got = make_knowledge(form, attacker, 5, vocabulary=["apple", "pear", "plum"])
            assert (got.itemsets, got.source, got.details) == (want.itemsets, want.source, want.details)


# ---- malformed parquet files ------------------------------------------------------------------------------


def _table(**changes) -> pa.Table:
    table = release_table(Release.from_dict(FIG2B))
    meta = json.loads(table.schema.metadata[METADATA_KEY])
    for key in ("params", "terms", "format"):
        if key in changes:
            meta[key] = changes.pop(key)
    for name, column in changes.items():
        table = table.set_column(table.column_names.index(name), name, column)
    return table.replace_schema_metadata({METADATA_KEY: json.dumps(meta).encode()})


def _chunks(nodes: list) -> pa.Array:
    return pa.array(nodes, pa.large_list(pa.large_list(pa.large_list(pa.int32()))))


GOOD_CHUNKS = release_table(Release.from_dict(FIG2B)).column("chunks").to_pylist()

BAD_TABLES = {
    "term id out of range": lambda: _table(chunks=_chunks([[[[0, 99]]], *GOOD_CHUNKS[1:]])),
    "negative term id": lambda: _table(chunks=_chunks([[[[-1]]], *GOOD_CHUNKS[1:]])),
    "unsorted sub-record": lambda: _table(chunks=_chunks([[[[3, 2]]], *GOOD_CHUNKS[1:]])),
    "repeated term": lambda: _table(chunks=_chunks([[[[2, 2]]], *GOOD_CHUNKS[1:]])),
    "empty sub-record": lambda: _table(chunks=_chunks([[[[]]], *GOOD_CHUNKS[1:]])),
    "chunk larger than its cluster": lambda: _table(chunks=_chunks([[[[1]] * 6], *GOOD_CHUNKS[1:]])),
    "size 0": lambda: _table(size=pa.array([0, 5, 0], pa.int64())),
    "sizes overflow": lambda: _table(size=pa.array([2**31 - 1, 5, 0], pa.int64())),
    "joint with a size": lambda: _table(size=pa.array([5, 5, 3], pa.int64())),
    "joint before a cluster": lambda: _table(joint=pa.array([True, False, True])),
    "child defined later": lambda: _table(children=pa.array([[], [], [2]], pa.large_list(pa.int64()))),
    "repeated child": lambda: _table(children=pa.array([[], [], [0, 0]], pa.large_list(pa.int64()))),
    "cluster with children": lambda: _table(children=pa.array([[1], [], [0, 1]], pa.large_list(pa.int64()))),
    "repeated id": lambda: _table(id=pa.array(["P1", "P1", "J1"])),
    "empty id": lambda: _table(id=pa.array(["P1", "", "J1"])),
    "term id in term chunk out of range": lambda: _table(
        term_chunk=pa.array([[50], [], []], pa.large_list(pa.int32()))),
    "null entries": lambda: _table(term_chunk=pa.array([None, [], []], pa.large_list(pa.int32()))),
    "unsorted vocabulary": lambda: _table(terms=["b", "a"] + [f"t{i}" for i in range(20)]),
    "empty term": lambda: _table(terms=[""] + [f"t{i:02d}" for i in range(20)]),
    "k below 2": lambda: _table(params={"k": 1, "m": 2}),
    "no params": lambda: _table(params=None),
    "another format": lambda: _table(format="generalized/1"),
    "wrong column type": lambda: _table(size=pa.array([5.0, 5.0, 0.0], pa.float64())),
    "no metadata": lambda: release_table(Release.from_dict(FIG2B)).replace_schema_metadata({}),
    "metadata not JSON": lambda: release_table(Release.from_dict(FIG2B)).replace_schema_metadata(
        {METADATA_KEY: b"{not json"}),
    "another table": lambda: pa.table({"a": [1, 2]}),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_a_malformed_parquet_release_is_one_error_line(tmp_path, case, capsys):
    path = tmp_path / "bad.parquet"
    pq.write_table(BAD_TABLES[case](), path)
    with pytest.raises(InputError) as caught:
        load_release(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message and len(message) < 300, message
    for argv in (["verify", str(path)], ["reconstruct", str(path), "-o", str(tmp_path / "o.jsonl")],
                 ["convert", str(path), str(tmp_path / "o.json")]):
        assert anonymizer_main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.parquet"]


@pytest.mark.parametrize("content", [b"PAR1", b"PAR1" + b"\0" * 100 + b"PAR1", b"PAR1garbage", b""])
def test_a_damaged_parquet_file_is_one_error_line(tmp_path, content):
    path = tmp_path / "bad.parquet"
    if content:
        path.write_bytes(content)
    else:
        pq.write_table(release_table(Release.from_dict(FIG2B)), path)
        path.write_bytes(path.read_bytes()[:-30])  # truncated footer
    with pytest.raises(InputError, match="bad.parquet"):
        load_release(path)


def test_a_release_whose_old_params_hold_a_seed_is_refused(tmp_path):
    path = tmp_path / "old.parquet"
    pq.write_table(_table(params={"k": 3, "m": 2, "seed": 7}), path)
    with pytest.raises(InputError, match="params.seed is a seed"):
        read_release_parquet(path)


def test_validate_refuses_arrays_of_the_wrong_kind():
    arrays = Release.from_dict(FIG2B).arrays
    arrays.sub_terms = arrays.sub_terms.astype(np.int64)
    with pytest.raises(InputError, match="sub_terms"):
        validate(arrays)


# ---- the fast JSON reader ---------------------------------------------------------------------------------


def test_json_depth_ignores_brackets_inside_strings():
    for obj in ({"a": "x\"[[[[y"}, {"a": "\\"}, {"a": ["\\\"[", [[]]]}, {"a\\\"{": "]]]\\\\"}, [[[[]]]], {},
                ["[", "", "]]", [["{"]]], FIG2B):
        text = json.dumps(obj)
        want = max_depth(text)
        assert json_depth(text.encode()) == want, text
    assert json_depth(b"[[[") == -1 and json_depth(b"]]") == -1


def max_depth(text: str) -> int:
    """Reference: walk the characters, tracking strings and escapes."""
    depth = best = 0
    inside = escaped = False
    for ch in text:
        if inside:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                inside = False
        elif ch == '"':
            inside = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


FALLBACKS = {
    "unsorted sub-record": json.dumps({**FIG2B, "clusters": [{"id": "P1", "size": 2, "record_chunks": [[["b", "a"]]],
                                                               "term_chunk": []}], "joint_clusters": []}),
    "repeated key": json.dumps(FIG2B)[:-1] + ', "params": {"k": 2, "m": 1}}',
    "repeated key inside a cluster": json.dumps(FIG2B).replace('"size": 5', '"size": 5, "size": 5', 1),
    "NaN size": json.dumps(FIG2B).replace('"size": 5', '"size": NaN', 1),
    "float size": json.dumps(FIG2B).replace('"size": 5', '"size": 5.0', 1),
    "two objects": json.dumps(FIG2B) + "\n" + json.dumps(FIG2B),
    "no term chunk key": json.dumps({**FIG2B, "clusters": [{"id": "P1", "size": 2, "record_chunks": [[["a"]]]}],
                                     "joint_clusters": []}),
    "deeply nested": '{"format": "disassociated/1", "x": ' + "[" * 200_000 + "]" * 200_000 + "}",
    "unknown child": json.dumps(FIG2B).replace('"children": ["P1", "P2"]', '"children": ["P1", "P7"]'),
    "pretty-printed": json.dumps(FIG2B, indent=2),
    "byte order mark": "\ufeff" + json.dumps(FIG2B),
    "control character in a term": json.dumps(FIG2B).replace("madonna", "mad\\tonna").replace("\\t", "\t"),
    "infinite k": json.dumps(FIG2B).replace('"k": 3', '"k": Infinity'),
}


@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_what_the_fast_reader_leaves_gets_the_ordinary_result(tmp_path, case):
    text = FALLBACKS[case]
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    try:
        want: object = Release.from_dict(parse_json(text, str(path)), str(path)).to_dict()
    except InputError as exc:
        want = str(exc)
    try:
        got: object = load_release(path).to_dict()
    except InputError as exc:
        got = str(exc)
    assert got == want
    fast = arrays_from_json_bytes(text.encode())
    assert (fast is not None) == (case in ("pretty-printed", "no term chunk key")), case


def test_verify_reports_a_repeated_key_whichever_reader_runs(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(FALLBACKS["repeated key inside a cluster"], encoding="utf-8")
    assert any("repeated" in line for line in verify_file(path).violations)


def test_a_deeply_nested_release_is_one_error_line_in_a_fresh_process(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 3_000_000 + "]" * 3_000_000, encoding="utf-8")  # above MIN_FAST_BYTES
    done = subprocess.run([sys.executable, "-m", "attacks", "cover", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr


def test_anonymize_writes_the_parquet_form_and_the_same_release(tmp_path):
    data = ROOT / "tests" / "data" / "alshuhail2021_table4.4_scores.csv"
    common = [str(data), "-k", "2", "-m", "2", "--seed", "4"]
    assert anonymizer_main([*common, "-o", str(tmp_path / "r.parquet"), "--truth", str(tmp_path / "t.json")]) == 0
    assert anonymizer_main([*common, "-o", str(tmp_path / "r.json")]) == 0
    assert (tmp_path / "r.parquet").read_bytes()[:4] == b"PAR1" and (tmp_path / "t.json").is_file()
    assert load_release(tmp_path / "r.parquet") == load_release(tmp_path / "r.json")


# ---- truth files ------------------------------------------------------------------------------------------


def _made(seed: int = 2, safe: bool = False):
    release, truth = disassociate(generate_quest(300, 40, 6, seed=seed), 3, 2, 10, seed=seed)
    return safe_disassociate(release, truth, seed=seed) if safe else (release, truth)


@pytest.mark.parametrize("safe", [False, True])
def test_a_truth_file_converts_both_ways_without_loss(tmp_path, safe):
    release, truth = _made(safe=safe)
    assert truth.clusters and (not safe or truth.safe_seed is not None)
    save_truth_parquet(truth, tmp_path / "t.parquet")
    back = load_truth(tmp_path / "t.parquet")
    assert back == truth and back.to_dict() == truth.to_dict()
    save_truth(truth, tmp_path / "t.json")
    assert anonymizer_main(["convert", str(tmp_path / "t.json"), str(tmp_path / "c.parquet")]) == 0
    assert anonymizer_main(["convert", str(tmp_path / "c.parquet"), str(tmp_path / "c.json")]) == 0
    assert (tmp_path / "c.json").read_bytes() == (tmp_path / "t.json").read_bytes()
    save_release(release, tmp_path / "r.json")
    save_release_parquet(release, tmp_path / "r.parquet")
    reports = []
    for r, t in (("r.json", "t.json"), ("r.parquet", "t.parquet")):
        out = tmp_path / f"{r}.out"
        with open(out, "w", encoding="utf-8") as handle, contextlib.redirect_stdout(handle):
            assert attacks_main(["cover", str(tmp_path / r), "--truth", str(tmp_path / t), "--attacker",
                                 "strong-per-record", "--json"]) == 0
        found = json.loads(out.read_text())
        found.pop("seconds")
        found.pop("knowledge_seconds")
        reports.append(found)
    assert reports[0] == reports[1] and reports[0]["knowledge_source"] == "truth"


def _truth_table(**changes) -> pa.Table:
    table = truth_table(_made()[1])
    meta = json.loads(table.schema.metadata[TRUTH_METADATA_KEY])
    meta.update(changes.pop("meta", {}))
    for name, column in changes.items():
        table = table.set_column(table.column_names.index(name), name, column)
    return table.replace_schema_metadata({TRUTH_METADATA_KEY: json.dumps(meta).encode()})


def _rows(table: pa.Table, name: str, value, typ) -> pa.Array:
    values = table.column(name).to_pylist()
    values[0] = value
    return pa.array(values, typ)


BAD_TRUTHS = {
    "negative seed": lambda: _truth_table(meta={"seed": -1}),
    "another format": lambda: _truth_table(meta={"format": "disassociated/1"}),
    "null records": lambda: (lambda t: _truth_table(records=_rows(t, "records", None, pa.large_list(pa.int64()))))(
        _truth_table()),
    "terms without records": lambda: (lambda t: _truth_table(
        term_chunk_terms=_rows(t, "term_chunk_terms", ["zz", *t.column("term_chunk_terms")[0].as_py()],
                               pa.large_list(pa.string()))))(_truth_table()),
    "a term twice": lambda: (lambda t: _truth_table(
        term_chunk_terms=_rows(t, "term_chunk_terms", ["zz", "zz"], pa.large_list(pa.string())),
        term_chunk_records=_rows(t, "term_chunk_records", [[1], [2]], pa.large_list(pa.large_list(pa.int64())))))(
        _truth_table()),
    "a joint first": lambda: (lambda t: _truth_table(joint=_rows(t, "joint", True, pa.bool_())))(_truth_table()),
    "no metadata": lambda: _truth_table().replace_schema_metadata({}),
    "another table": lambda: pa.table({"a": [1]}).replace_schema_metadata({b"disassociated-truth": b"{}"}),
}


@pytest.mark.parametrize("case", sorted(BAD_TRUTHS))
def test_a_malformed_parquet_truth_is_one_error_line(tmp_path, case):
    path = tmp_path / "bad.parquet"
    pq.write_table(BAD_TRUTHS[case](), path)
    with pytest.raises(InputError) as caught:
        load_truth(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message and len(message) < 300, message


def test_anonymize_writes_both_files_in_parquet(tmp_path):
    data = ROOT / "tests" / "data" / "alshuhail2021_table4.4_scores.csv"
    common = [str(data), "-k", "2", "-m", "2", "--seed", "4"]
    assert anonymizer_main([*common, "-o", str(tmp_path / "r.parquet"), "--truth", str(tmp_path / "t.parquet")]) == 0
    assert anonymizer_main([*common, "-o", str(tmp_path / "r.json"), "--truth", str(tmp_path / "t.json")]) == 0
    assert load_truth(tmp_path / "t.parquet") == load_truth(tmp_path / "t.json")
    assert anonymizer_main([str(data), "--method", "diffpart", "--epsilon", "1", "-o", str(tmp_path / "d.json"),
                            "--truth", str(tmp_path / "d.parquet")]) == 2
