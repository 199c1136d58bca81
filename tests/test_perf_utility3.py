"""Issue 25, third round: the `utility` command near the floor.

* The vectorized SPMF text reader (:func:`corpora.io.spmf.text_spmf`, and the streaming reader's text blocks)
  against the general line-by-line reader, on random bytes: blank lines, trailing spaces, tabs, CRLF and lone CR,
  duplicate items, integer and text tokens, tokens longer than one and two 64-bit words, separators, comment and
  ``@ITEM`` lines, control characters, non-ASCII text, a byte-order mark, an empty file.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import corpora.common.files
import corpora.io.spmf
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.formats import parse_dataset, read_dataset
from corpora.io.spmf import read_spmf, text_spmf
from corpora.io.tokens import check_controls, dataset_from_tokens, decode_text, no_records

TOKENS = ["1", "2", "10", "01", "-1", "-2", "-3", "a", "b", "i0729", "i0730", "ab", "abcdefgh", "abcdefghi",
          "abcdefgh1", "0123456789abcdefg", "0123456789abcdefgh", "x" * 17, "x" * 25, "#x", "%", "@ITEM=1=one",
          "é", "\x0b", "\x7f", "a-1", "-", "-12"]
SPACES = [" ", "  ", "\t", " \t "]
ENDS = ["\n", "\r\n", "\n\n", " \n", "\r", "\n \n"]

lines = st.lists(st.sampled_from(TOKENS), max_size=7)
bodies = st.builds(
    lambda bom, pieces: ("\ufeff" if bom else "") + "".join(pieces),
    st.booleans(),
    st.lists(st.tuples(lines, st.sampled_from(SPACES), st.sampled_from(ENDS)).map(
        lambda t: t[1].join(t[0]) + t[2]), max_size=25),
)


def reference(data: bytes, source: str) -> TransactionDataset:
    """The general reader: control characters refused, UTF-8 decoded, line by line, tokens to the CSR."""
    check_controls(data, source)
    flat, rows, n_rows, rename = read_spmf(decode_text(data, source), source)
    if n_rows == 0:
        raise no_records(source)
    return dataset_from_tokens(flat, rows, n_rows, name="s", metadata={"path": source, "format": "spmf"},
                               rename=rename)


def same(got: TransactionDataset, expected: TransactionDataset) -> None:
    assert got.vocabulary == expected.vocabulary
    assert dict(got.metadata) == dict(expected.metadata)
    assert got.indptr.dtype == expected.indptr.dtype and got.indptr.tolist() == expected.indptr.tolist()
    assert got.indices.dtype == expected.indices.dtype and got.indices.tolist() == expected.indices.tolist()


def outcome(read, *args) -> TransactionDataset | str:
    try:
        return read(*args)
    except InputError as exc:
        return str(exc)


@pytest.fixture(scope="module")
def tiny_blocks():
    """Pieces and blocks of a few bytes, so a small file crosses many block borders (text and numeric mixed)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(corpora.common.files, "_PIECE", 7)
        patch.setattr(corpora.io.spmf, "STREAM_BLOCK_BYTES", 11)
        yield


@settings(max_examples=300, deadline=None)
@given(body=bodies)
def test_text_reader_equals_the_line_by_line_reader(tmp_path_factory, body):
    data = body.encode()
    path = tmp_path_factory.mktemp("text") / "s.txt"
    path.write_bytes(data)
    expected = outcome(reference, data, str(path))
    parsed = outcome(parse_dataset, data, "spmf", "s", str(path))
    streamed = outcome(read_dataset, path)
    for got in (parsed, streamed):
        if isinstance(expected, str):
            assert got == expected
        else:
            same(got, expected)
    fast = text_spmf(data, "s", {"path": str(path), "format": "spmf"})
    if fast is not None:  # the fast path answers only where the line loop finds the same
        same(fast, expected)


@settings(max_examples=150, deadline=None)
@given(body=bodies)
def test_streamed_text_blocks_equal_the_line_by_line_reader(tmp_path_factory, tiny_blocks, body):
    data = body.encode()
    path = tmp_path_factory.mktemp("blocks") / "s.txt"
    path.write_bytes(data)
    expected = outcome(reference, data, str(path))
    got = outcome(read_dataset, path)
    if isinstance(expected, str):
        assert got == expected
    else:
        same(got, expected)


def test_text_reader_takes_plain_text_files_and_leaves_the_rest():
    meta = {"path": "p", "format": "spmf"}
    ds = text_spmf(b"i1 i2 i1\r\n\n  x -1 i2\t-2\n-1 -2\n0123456789abcdefghij y\n", "p", meta)
    assert ds is not None
    assert ds.sorted_records() == [["i1", "i2"], ["i2", "x"], ["0123456789abcdefghij", "y"]]
    for other in (b"# comment\na b\n", b"a b\n @ITEM=1=x\n", "é\n".encode(), b"a\x0bb\n", b"", b" \n-1 -2\n"):
        assert text_spmf(other, "p", meta) is None
