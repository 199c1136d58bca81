"""From the tokens a reader found to a :class:`~corpora.dataset.TransactionDataset`, and what a token may hold.

Every reader of :mod:`corpora.io.formats` ends the same way: a flat list of tokens and the record
number of each go through :func:`dataset_from_tokens` (vectorized: one factorization, one sort of
``record * width + term`` keys, duplicates inside a record dropped) into the CSR arrays of the
dataset. The helpers here are shared by those readers: :func:`check_controls` and
:func:`control_term` refuse C0 control characters in a term, :func:`decode_text` and
:func:`no_records` give their one-line errors, :func:`user_terms` records the items equal to a
user-column value (:data:`corpora.io.identifiers.USER_TERMS_KEY`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import USER_TERMS_KEY

__all__ = ["CONTROL_BYTES", "check_controls", "control_term", "csr_from_ids", "dataset_from_tokens", "decode_text",
           "factorize", "factorize_spans", "flatten", "no_records", "sorted_unique", "user_terms"]


def dataset_from_tokens(
    tokens: Sequence[str] | np.ndarray,
    rows: np.ndarray,
    n_rows: int,
    name: str = "",
    metadata: dict | None = None,
    rename: dict[str, str] | None = None,
) -> TransactionDataset:
    """Build a dataset from a flat token list and the record number of every token (vectorized).

    ``rows[j]`` is the 0-based record of ``tokens[j]``; records may be empty (no token). Duplicate
    terms inside a record collapse. ``rename`` maps raw tokens to final terms (SPMF ``@ITEM``).
    """
    rows = np.asarray(rows, dtype=np.int64)
    if len(rows) == 0:
        return TransactionDataset((), np.zeros(n_rows + 1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                                  name=name, metadata=dict(metadata or {}))
    codes, uniques = factorize(tokens)
    raw = uniques.tolist()
    terms = [rename.get(t, t) for t in raw] if rename else raw
    vocabulary = sorted(set(terms))
    position = {t: i for i, t in enumerate(vocabulary)}
    relabel = np.fromiter((position[t] for t in terms), dtype=np.int64, count=len(terms))
    ids = relabel[codes]
    return csr_from_ids(ids, rows, n_rows, tuple(vocabulary), name, metadata)


def factorize(values: Sequence[object] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each value, distinct values in order of first appearance) of Python objects (pandas' hash table).

    pandas is imported here, on first use, not with this module: the numeric and ASCII SPMF readers never need it,
    and it is about half a second of every command's start-up."""
    import pandas as pd

    return pd.factorize(np.asarray(values, dtype=object), sort=False)


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (numpy's hash-based ``np.unique`` is slow on many distinct ints)."""
    ordered = np.sort(values)
    if len(ordered) == 0:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


_HIGH_BYTES = np.array([0, *[((1 << (8 * w)) - 1) << (8 * (8 - w)) for w in range(1, 9)]], dtype=np.uint64)
"""``_HIGH_BYTES[w]``: the w high bytes of a 64-bit word set."""


def _packed(padded: np.ndarray, starts: np.ndarray, widths: np.ndarray, offset: int) -> np.ndarray:
    """Bytes ``offset .. offset + 7`` of every token as one big-endian 64-bit word, zero past its end (equal words,
    equal bytes: a token holds no NUL byte). ``padded`` is the data with 8 zero bytes after it."""
    # one 8-byte gather per token (a token that ends before ``offset`` reads the zero padding)
    window = sliding_window_view(padded, 8)[np.minimum(starts + offset, padded.size - 8)]
    key = window.view(">u8").ravel().astype(np.uint64)
    key &= _HIGH_BYTES[np.clip(widths - offset, 0, 8)]
    return key


def factorize_spans(data: bytes, buf: np.ndarray, starts: np.ndarray,
                    widths: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(code of each span, the distinct spans as UTF-8 text, in code order) of the byte spans ``data[start:start +
    width]`` (``buf`` is ``data`` as uint8), by sorting them packed into 64-bit words: no Python object per span.
    A span holds no NUL byte. Spans of at most 8 bytes (one word) and longer ones are factorized apart."""
    padded = np.concatenate((buf, np.zeros(8, dtype=np.uint8)))
    short = widths <= 8
    if short.all() or not short.any():
        return _factorize_packed(data, padded, starts, widths)
    one, more = np.flatnonzero(short), np.flatnonzero(~short)
    codes_one, texts_one = _factorize_packed(data, padded, starts[one], widths[one])
    codes_more, texts_more = _factorize_packed(data, padded, starts[more], widths[more])
    codes = np.empty(starts.size, dtype=np.int64)
    codes[one] = codes_one
    codes[more] = codes_more + len(texts_one)
    return codes, texts_one + texts_more


def _factorize_packed(data: bytes, padded: np.ndarray, starts: np.ndarray,
                      widths: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """:func:`factorize_spans` of spans (``padded``: the data's bytes and 8 zero bytes)."""
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64), []
    if int(widths.max()) == 0:
        return np.zeros(starts.size, dtype=np.int64), [""]
    words = [_packed(padded, starts, widths, j) for j in range(0, int(widths.max()), 8)]
    if len(words) == 1:
        distinct = sorted_unique(words[0])
        codes = np.searchsorted(distinct, words[0])
        n_distinct = distinct.size
    else:
        order = np.lexsort(words[::-1])
        new = np.zeros(order.size, dtype=bool)
        new[0] = True
        for w in words:
            ordered = w[order]
            new[1:] |= ordered[1:] != ordered[:-1]
        codes = np.empty(order.size, dtype=np.int64)
        codes[order] = np.cumsum(new) - 1
        n_distinct = int(np.count_nonzero(new))
    first = np.empty(n_distinct, dtype=np.int64)
    first[codes[::-1]] = np.arange(codes.size - 1, -1, -1)  # first span of each code
    spans = zip(starts[first].tolist(), widths[first].tolist(), strict=True)
    return codes, [data[s:s + w].decode("utf-8") for s, w in spans]


def csr_from_ids(
    ids: np.ndarray, rows: np.ndarray, n_rows: int, vocabulary: tuple[str, ...], name: str,
    metadata: dict | None,
) -> TransactionDataset:
    """CSR arrays from (record, term id) pairs: sorted by record then term, duplicates dropped."""
    width = max(len(vocabulary), 1)
    keys = sorted_unique(rows * width + ids)
    key_rows = keys // width
    indices = (keys - key_rows * width).astype(np.int32)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_rows, minlength=n_rows), out=indptr[1:])
    return TransactionDataset(vocabulary, indptr, indices, name=name, metadata=dict(metadata or {}))


def decode_text(data: bytes, path: str | Path) -> str:
    """``data`` as UTF-8 text (a byte-order mark dropped); :class:`InputError` naming the line otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not valid UTF-8 text") from None


def no_records(path: str | Path) -> InputError:
    """The error of a file without a single transaction."""
    return InputError(f"{path}: empty file (no transactions)")


def flatten(lists: list[list[str]]) -> tuple[list[str], np.ndarray]:
    """The tokens of ``lists`` in order and the record number of each."""
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    flat = [t for x in lists for t in x]
    rows = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
    return flat, rows


def user_terms(metadata: dict, shared: list[str]) -> dict:
    """``metadata`` with the items equal to a user-column value recorded (when there are any)."""
    return {**metadata, USER_TERMS_KEY: shared} if shared else metadata


CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""C0 control characters and DEL other than tab, line feed and carriage return (delimiters and line
ends of the text formats). No format holds them in a term: SPMF, basket, kdd and long would write
them raw, and readers (SPMF's own among them) refuse them; so every reader refuses them first."""

_CONTROL_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""The same characters in a decoded term (a jsonl term may hold an escaped tab or line break, which
the writers of the other formats refuse by name)."""


def check_controls(data: bytes, source: str | Path) -> None:
    """:class:`InputError` naming the line of the first control character of a text file (not tab or line ends)."""
    found = CONTROL_BYTES.search(data)
    if found is not None:
        line = data.count(b"\n", 0, found.start()) + 1
        raise InputError(f"{source}:{line}: control character {chr(found.group()[0])!r} in the data; "
                         "terms hold printable text only")


def control_term(term: str) -> bool:
    """Whether a decoded term holds a control character (:data:`CONTROL_BYTES`)."""
    return _CONTROL_TEXT.search(term) is not None
