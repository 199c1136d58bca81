import gzip
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.formats import FORMATS, detect_format, read_dataset, write_dataset

EXT = {"spmf": ".txt", "kdd": ".tsv", "basket": ".csv", "jsonl": ".jsonl", "long": ".csv", "parquet": ".parquet"}

simple_term = st.text(alphabet="abcdefghij0123456789_.", min_size=1, max_size=6).filter(
    lambda t: t not in ("-1", "-2"))
records_strategy = st.lists(st.sets(simple_term, min_size=1, max_size=6), min_size=1, max_size=25)
# C0 control characters and DEL are refused by every reader (issue 22); anything else round-trips
any_term = st.text(min_size=1, max_size=12).filter(
    lambda t: not any((c < " " and c not in "\t\n\r") or c == "\x7f" for c in t))


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=30, deadline=None)
@given(records=records_strategy)
def test_round_trip_every_format(tmp_path_factory, fmt, records):
    path = tmp_path_factory.mktemp("rt") / f"data{EXT[fmt]}"
    ds = TransactionDataset.from_records(records)
    # long has no extension of its own; a .csv of baskets read by its extension may be refused as
    # ambiguous (two items a line, the first repeating: corpora.io.headers.long_layout_reason)
    declared = fmt if fmt in ("long", "basket") else None
    write_dataset(ds, path, format=declared)
    back = read_dataset(path, format=declared)
    assert back == ds
    assert back.vocabulary == ds.vocabulary


@settings(max_examples=40, deadline=None)
@given(records=st.lists(st.lists(any_term, max_size=5), min_size=1, max_size=15))
def test_jsonl_keeps_any_term(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("js") / "d.jsonl"
    ds = TransactionDataset.from_records(records)
    write_dataset(ds, path)
    assert read_dataset(path).sorted_records() == [sorted(set(r)) for r in records]


def test_multi_word_terms_jsonl_and_kdd(tmp_path):
    ds = TransactionDataset.from_records([["audi a4", "sony tv"], ["double vision", "flu"]])
    for name in ("d.jsonl", "d.tsv"):
        write_dataset(ds, tmp_path / name)
        assert read_dataset(tmp_path / name) == ds


def test_spmf_sequence_separators_and_comments(tmp_path):
    path = tmp_path / "seq.txt"
    path.write_text("# a comment\n% another\n@CONVERTED_FROM_TEXT\n"
                    "1 2 -1 3 -1 -2\n\n-1 -2\n4 -1 4 5 -1 -2\n")
    ds = read_dataset(path)
    assert ds.sorted_records() == [["1", "2", "3"], ["4", "5"]]


def test_spmf_item_names(tmp_path):
    path = tmp_path / "named.txt"
    path.write_text("@CONVERTED_FROM_TEXT\n@ITEM=1=apple\n@ITEM=2=pear\n1 2\n2 3\n")
    assert read_dataset(path).sorted_records() == [["apple", "pear"], ["3", "pear"]]


def test_spmf_fast_path_matches_general_path(tmp_path):
    lines = ["3 1 2", "", "10 2 2", "  7\t8  ", "100"]
    numeric = tmp_path / "n.txt"
    numeric.write_text("\n".join(lines) + "\n")
    general = tmp_path / "g.txt"  # a comment line forces the general reader
    general.write_text("# c\n" + "\n".join(lines) + "\n")
    a, b = read_dataset(numeric), read_dataset(general)
    assert a == b and a.vocabulary == b.vocabulary
    assert a.sorted_records() == [["1", "2", "3"], ["10", "2"], ["7", "8"], ["100"]]
    assert (a.indptr == b.indptr).all() and (a.indices == b.indices).all()


def test_kdd_groups_by_first_appearance(tmp_path):
    path = tmp_path / "clicks.tsv"
    path.write_text("900\ta\n5\tb\n900\tc\n7\td\n5\ta\n900\ta\n")
    ds = read_dataset(path)
    assert ds.sorted_records() == [["a", "c"], ["a", "b"], ["d"]]


def test_basket_delimiter_and_spaces(tmp_path):
    path = tmp_path / "b.basket"
    path.write_text(" milk ; bread;;  eggs ;\n\nbeer\n")
    ds = read_dataset(path, delimiter=";")
    assert ds.sorted_records() == [["bread", "eggs", "milk"], ["beer"]]
    with pytest.raises(InputError, match="delimiter"):
        read_dataset(path, format="spmf", delimiter=";")


def test_gzip_round_trip_and_stable_bytes(tmp_path):
    ds = TransactionDataset.from_records([["a", "b"], ["c"]])
    write_dataset(ds, tmp_path / "x.jsonl.gz")
    first = (tmp_path / "x.jsonl.gz").read_bytes()
    write_dataset(ds, tmp_path / "x.jsonl.gz")
    assert (tmp_path / "x.jsonl.gz").read_bytes() == first
    assert gzip.decompress(first).decode() == '["a", "b"]\n["c"]\n'
    assert read_dataset(tmp_path / "x.jsonl.gz") == ds
    (tmp_path / "y.txt.gz").write_bytes(gzip.compress(b"1 2\n3\n"))
    assert read_dataset(tmp_path / "y.txt.gz").sorted_records() == [["1", "2"], ["3"]]


@pytest.mark.parametrize(("name", "content", "fmt", "message"), [
    ("bad.jsonl", '["a"]\n["b", 3]\n', None, r"bad.jsonl:2: term 3 is not a non-empty string"),
    ("bad.jsonl", '["a"]\n\n{"x": 1}\n', None, r"bad.jsonl:3: expected a JSON array"),
    ("bad.jsonl", '["a"\n', None, r"bad.jsonl:1: not valid JSON"),
    ("bad.tsv", "1\ta\n2\tb\tc\n", None, r"bad.tsv:2: expected 2 columns"),
    ("bad.tsv", "1\ta\n3\n", None, r"bad.tsv:2: expected 2 columns"),
    ("bad.csv", "a,b\n,,\n", None, r"bad.csv:2: no items"),
    ("bad.txt", "@ITEM=5\n1\n", None, r"bad.txt:1: malformed @ITEM"),
    ("bad.txt", "1 2\n", "xml", r"unknown format 'xml'"),
])
def test_malformed_lines_name_file_and_line(tmp_path, name, content, fmt, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_dataset(path, format=fmt)


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "bin.txt"
    path.write_bytes(b"a b\nc \xff\n")
    with pytest.raises(InputError, match=r"bin.txt:2: not valid UTF-8"):
        read_dataset(path)


def test_missing_empty_and_unknown_extension(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_dataset(tmp_path / "none.txt")
    (tmp_path / "empty.txt").write_text("\n  \n")
    with pytest.raises(InputError, match="empty file"):
        read_dataset(tmp_path / "empty.txt")
    (tmp_path / "d.xyz").write_text("1\n")
    with pytest.raises(InputError, match=r"\.xyz.*spmf, kdd, basket, jsonl"):
        read_dataset(tmp_path / "d.xyz")
    with pytest.raises(InputError, match="directory"):
        read_dataset(tmp_path, format="spmf")


def test_detect_format():
    assert detect_format("a.dat") == "spmf"
    assert detect_format("a.TSV.gz") == "kdd"
    assert detect_format("a.basket") == "basket"
    assert detect_format("a.json") == "jsonl"
    assert detect_format("a.whatever", "kdd") == "kdd"


@pytest.mark.parametrize(("fmt", "records", "message"), [
    ("spmf", [["audi a4"]], "whitespace"),
    ("spmf", [["-1", "x"]], "separator"),
    ("spmf", [["#x"]], "comment"),
    ("basket", [["a,b"]], "delimiter"),
    ("basket", [[" a"]], "whitespace"),
    ("kdd", [["a\tb"]], "delimiter"),
    ("spmf", [["a"], []], "record 1 is empty"),
    ("jsonl", [["a\nb"]], None),
])
def test_writer_refuses_unrepresentable_terms(tmp_path, fmt, records, message):
    ds = TransactionDataset.from_records(records)
    path = tmp_path / f"out{EXT[fmt]}"
    if message is None:  # jsonl holds everything
        write_dataset(ds, path)
        assert read_dataset(path) == ds
        return
    with pytest.raises(InputError, match=message):
        write_dataset(ds, path)
    assert os.listdir(tmp_path) == []  # nothing left behind


def test_jsonl_keeps_empty_record(tmp_path):
    ds = TransactionDataset.from_records([["a"], [], ["b"]])
    write_dataset(ds, tmp_path / "e.jsonl")
    back = read_dataset(tmp_path / "e.jsonl")
    assert len(back) == 3 and back[1] == frozenset()


@pytest.mark.parametrize(("content", "message"), [
    ('["a"]\n["b", ["c"]]\n', r":2: term \['c'\] is not"),
    ('["a"]\n"b", "c"\n', r":2: "),
    ('["a"]\n["b"] ["c"]\n', r":2: not valid JSON"),
    ('["a"]\n["b", ""]\n', r":2: term '' is not"),
])
def test_jsonl_fast_path_falls_back_to_precise_errors(tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    path.write_text(content * 1 + '["z"]\n' * 1200)  # large enough for the pandas branch
    with pytest.raises(InputError, match=message):
        read_dataset(path)


spmf_text = st.lists(
    st.lists(st.text(alphabet="ab1-2#%@\x1c \t\r", min_size=0, max_size=8), max_size=5).map(" ".join),
    min_size=1, max_size=12).map("\n".join)


@settings(max_examples=60, deadline=None)
@given(body=spmf_text)
def test_spmf_fast_paths_agree_with_the_line_loop(tmp_path_factory, body):
    """The numeric and the ASCII fast readers must equal the general line-by-line reader."""
    directory = tmp_path_factory.mktemp("paths")
    plain = directory / "plain.txt"
    plain.write_bytes(body.encode())
    forced = directory / "forced.txt"  # a non-ASCII comment line forces the general reader
    forced.write_bytes(("# é\n" + body).encode())
    try:
        expected = read_dataset(forced)
    except InputError as exc:
        why = "control character" if "control character" in str(exc) else "empty file"
        with pytest.raises(InputError, match=why):
            read_dataset(plain)
        assert why in str(exc)
        return
    got = read_dataset(plain)
    assert got.sorted_records() == expected.sorted_records()
    assert got.vocabulary == expected.vocabulary


streamed_text = st.lists(
    st.lists(st.one_of(st.integers(0, 40).map(str), st.sampled_from(["-1", "-2", "a", "01", "b c", "\r", "#x", "é"])),
             max_size=6).map(" ".join),
    min_size=1, max_size=30).map("\n".join)


@settings(max_examples=80, deadline=None)
@given(body=streamed_text)
def test_streaming_spmf_reader_equals_the_whole_file_reader(tmp_path_factory, tiny_read_blocks, body):
    """read_dataset streams SPMF files in blocks; with tiny pieces and blocks (many block borders,
    numeric and text blocks mixed) it must give the whole-file reader's arrays or its error."""
    from pathlib import Path

    from corpora.io.formats import parse_dataset

    path = Path(tmp_path_factory.mktemp("stream")) / "s.txt"
    path.write_bytes(body.encode())
    try:
        expected = parse_dataset(path.read_bytes(), "spmf", name="s", source=str(path))
    except InputError as exc:
        with pytest.raises(InputError) as got_exc:
            read_dataset(path)
        assert str(got_exc.value) == str(exc)
        return
    got = read_dataset(path)
    assert got.vocabulary == expected.vocabulary and got.name == expected.name
    assert dict(got.metadata) == dict(expected.metadata)
    assert got.indptr.dtype == expected.indptr.dtype and (got.indptr == expected.indptr).all()
    assert got.indices.dtype == expected.indices.dtype and (got.indices == expected.indices).all()


def test_streaming_spmf_reader_reports_bad_bytes_like_the_whole_file_reader(tmp_path):
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"1 2\n3 4\n" * 1000 + b"5\x006\n")
    with pytest.raises(InputError, match=r"nul.txt: a binary file \(NUL byte at offset 8001\)"):
        read_dataset(nul)
    bad_gz = tmp_path / "bad.txt.gz"
    bad_gz.write_bytes(b"not gzip at all\n")
    with pytest.raises(InputError, match="not a valid gzip file"):
        read_dataset(bad_gz)
    zipped = tmp_path / "ok.txt.gz"
    zipped.write_bytes(gzip.compress(b"3 1\n\n2 2 x\n"))
    assert read_dataset(zipped).sorted_records() == [["1", "3"], ["2", "x"]]
