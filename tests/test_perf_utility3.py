"""Issue 25, third round: the `utility` command near the floor.

* The vectorized SPMF text reader (:func:`corpora.io.spmf.text_spmf`, and the streaming reader's text blocks)
  against the general line-by-line reader, on random bytes: blank lines, trailing spaces, tabs, CRLF and lone CR,
  duplicate items, integer and text tokens, tokens longer than one and two 64-bit words, separators, comment and
  ``@ITEM`` lines, control characters, non-ASCII text, a byte-order mark, an empty file.
* The counting kernels of the metrics against counting records: pair supports from row bitsets (no scipy), the
  two layouts of the extension counts, bitsets ORed by ``reduceat`` (sorted pairs) or ``ufunc.at`` (any order),
  the supports of given itemsets on a search's own bitsets.
* The release JSON reader's term encoding on the string buffer against ``pyarrow.compute``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.evaluation import bitsets, topk
from anonymizer.evaluation.loss import pair_supports
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
def test_streamed_text_blocks_equal_the_line_by_line_reader(tmp_path_factory, tiny_read_blocks, body):
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


# --------------------------------------------------------------------------- the metrics' counting kernels

def _records(seed: int, rows: int, items: int, density: float) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(rows):
        held = np.flatnonzero(rng.random(items) < density)
        out.append([f"t{i:03d}" for i in held.tolist()] or [f"t{int(rng.integers(items)):03d}"])
    return out


def _support(records: list[list[str]], terms) -> int:
    want = set(terms)
    return sum(1 for r in records if want <= set(r))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 300), items=st.integers(1, 40),
       density=st.sampled_from([0.02, 0.2, 0.6, 0.95]), picks=st.lists(st.integers(0, 45), max_size=12))
def test_pair_supports_from_bitsets_equal_counting_records(seed, rows, items, density, picks):
    """loss.pair_supports (row bitsets, no scipy): terms missing from the data and repeated terms included."""
    records = _records(seed, rows, items, density)
    ds = TransactionDataset.from_records(records)
    terms = [f"t{i:03d}" for i in picks]
    got = pair_supports(ds, terms)
    assert got.dtype == np.float64 and got.shape == (len(terms), len(terms))
    for i, a in enumerate(terms):
        for j, b in enumerate(terms):
            assert got[i, j] == _support(records, {a, b}), (a, b)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 400), items=st.integers(1, 30),
       density=st.sampled_from([0.05, 0.3, 0.7, 0.97]))
def test_extension_counts_on_both_bitset_layouts_equal_counting_records(seed, rows, items, density):
    """_RankedItems._counts_bits ANDs whole rows where the held bitset is mostly non-zero and gathers its non-zero
    words otherwise; either way every extension's support is the records' count."""
    records = _records(seed, rows, items, density)
    ds = TransactionDataset.from_records(records)
    supports = ds.term_supports()
    ranked = topk._rank_items(ds.indptr.astype(np.int64), ds.indices.astype(np.int64), len(ds.vocabulary), supports,
                              np.flatnonzero(supports), 10**6)  # every item kept (floor 1)
    assert ranked.bits is not None
    rng = np.random.default_rng(seed)
    term_of = [ds.vocabulary[int(t)] for t in ranked.item_of]
    for _ in range(5):
        size = int(rng.integers(1, min(3, ranked.n) + 1))
        items_ = tuple(sorted(rng.choice(ranked.n, size=size, replace=False).tolist()))
        later = np.arange(items_[-1] + 1, ranked.n)
        counts = ranked._counts_bits(items_, later)
        for j, c in zip(later.tolist(), counts.tolist(), strict=True):
            assert c == _support(records, {term_of[x] for x in (*items_, j)})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 300), items=st.integers(1, 30),
       density=st.sampled_from([0.05, 0.4, 0.9]), shuffle=st.booleans())
def test_bitsets_of_sorted_and_unsorted_pairs_agree(seed, rows, items, density, shuffle):
    """bitsets.row_bitsets ORs pairs sorted by (set, row) with one reduceat and others with ufunc.at: the same bits;
    term_bitsets holds each term's records."""
    records = _records(seed, rows, items, density)
    ds = TransactionDataset.from_records(records)
    terms = np.flatnonzero(ds.term_supports())
    bits = bitsets.term_bitsets(ds, terms)
    for j, t in enumerate(terms.tolist()):
        held = [i for i in range(len(ds)) if (bits[j, i >> 6] >> np.uint64(i & 63)) & np.uint64(1)]
        assert held == [i for i, r in enumerate(records) if ds.vocabulary[t] in r]
    rows_ = np.repeat(np.arange(len(ds), dtype=np.int64), np.diff(ds.indptr))
    sets = ds.indices.astype(np.int64)
    if shuffle:
        order = np.random.default_rng(seed).permutation(sets.size)
        sets, rows_ = np.concatenate((sets[order], sets[:3])), np.concatenate((rows_[order], rows_[:3]))  # repeats
    slot = np.searchsorted(terms, sets)
    assert (bitsets.row_bitsets(slot, rows_, len(ds), terms.size) == bits).all()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 300), items=st.integers(1, 25),
       density=st.sampled_from([0.05, 0.3, 0.8]), top_k=st.sampled_from([1, 3, 10, 1000]),
       picks=st.lists(st.lists(st.integers(0, 27), max_size=4), max_size=25))
def test_itemset_supports_on_a_searchs_bitsets_equal_counting_records(seed, rows, items, density, top_k, picks):
    """itemset_supports(searched=top_k_search(..., keep_bitsets=True)): itemsets of ranked terms on the search's
    bitsets (renumbered records), the rest as before; the answer (order, repeats, absent terms, the empty itemset)
    is the one without the search's bitsets and the records' count."""
    records = _records(seed, rows, items, density)
    ds = TransactionDataset.from_records(records)
    asked = [frozenset(f"t{i:03d}" for i in p) for p in picks]
    searched = topk.top_k_search(ds, top_k, keep_bitsets=True)
    assert searched.bitsets is not None and searched == topk.top_k_search(ds, top_k)
    got = topk.itemset_supports(ds, asked, searched=searched)
    assert list(got.items()) == list(topk.itemset_supports(ds, asked).items())
    for s in asked:
        assert got[s] == (_support(records, s) if s else 0)


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.sampled_from(["a", "b", "", "ab", "é", "日本", "i0729", "x" * 9, "y" * 17, "a\x00", "\x00",
                                       "z z", "ä" * 5]), max_size=40), sliced=st.booleans())
def test_release_terms_encoded_on_the_buffer_equal_pyarrow_compute(words, sliced):
    """json_fast._encoded (factorize_spans on the string array's UTF-8 buffer, no pyarrow.compute) gives
    pyarrow.compute's sorted dictionary and positions; a NUL byte (a JSON \\u0000) takes the compute path."""
    pa = pytest.importorskip("pyarrow")
    pc = pytest.importorskip("pyarrow.compute")
    from anonymizer.io.json_fast import _encoded

    array = pa.array(["pad", *words], pa.string())
    array = array.slice(1) if sliced else pa.concat_arrays([array.slice(1)])
    terms, codes = _encoded(array)
    encoded = pc.dictionary_encode(array)
    order = pc.sort_indices(encoded.dictionary).to_pylist()
    vocab = encoded.dictionary.to_pylist()
    assert terms == [vocab[i] for i in order]
    rank = {v: i for i, v in enumerate(terms)}
    assert codes.dtype == np.int32 and codes.tolist() == [rank[w] for w in words]
