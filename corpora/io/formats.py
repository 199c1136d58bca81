"""Reading and writing transaction files: SPMF/FIMI, KDD-Cup two-column, basket, JSON lines, long tables, parquet.

Formats (chosen by ``format=`` or by the file extension; a trailing ``.gz`` is read and written
through gzip):

``spmf`` (``.txt``, ``.dat``, ``.spmf``)
    The FIMI / SPMF transaction format: one transaction per line, items separated by whitespace.
    SPMF's sequence separators ``-1`` (end of itemset) and ``-2`` (end of sequence) are dropped, so
    a sequence file reads as one transaction per sequence. Lines starting with ``#``, ``%`` or ``@``
    are comments or SPMF metadata and are skipped, except ``@ITEM=id=name`` lines (SPMF's
    ``@CONVERTED_FROM_TEXT`` files), which rename item ``id`` to ``name``.
``kdd`` (``.tsv``)
    The KDD-Cup 2000 form of BMS-WebView/BMS-POS: two tab-separated columns, transaction id and
    item id, one line per (transaction, item). Lines are grouped by transaction id, transactions in
    the order of their id's first appearance. The item column may contain spaces, so multi-word
    terms survive. A line without a tab is split on whitespace instead.
``basket`` (``.csv``, ``.basket``)
    One transaction per line, items separated by ``delimiter`` (default ``","``); spaces around an
    item are stripped and empty items (``a,,b``, a trailing comma) are ignored. A one-character
    delimiter goes through the :mod:`csv` module, so a quoted item (``"salt, sea"``) may hold it.
``jsonl`` (``.jsonl``, ``.json``)
    One JSON array of string terms per line. The only text format that keeps every term exactly
    (multi-word terms, leading ``#``, separators) and can hold an empty record (``[]``).
``long`` (no extension of its own: ``--format long``, or a ``.csv``/``.tsv`` file read with a user
or item column named)
    One row per user and item, CSV or TSV (:mod:`corpora.io.tabular`): ``user_column`` groups the
    rows into records and is then dropped, ``item_column`` gives the terms.
``parquet`` (``.parquet``, ``.pq``)
    A parquet table, long (a user and an item column) or one list of items per row
    (:mod:`corpora.io.tabular`). Written as one list column ``items``; holds empty records too.

What is never silently turned into terms (when the reading was not declared): a first line that
reads as a header (``user_id,item``; :func:`corpora.io.tabular.looks_like_header`) in a basket or kdd
file is refused unless ``header`` says what it is, and a basket file in which no line holds the
expected delimiter but some hold another one (``;``, a tab, ``|``) is refused unless
``delimiter`` is given. The refusal is one line saying which option declares the reading.

Lines end at ``\n`` (a ``\r`` before it is ignored). Reading stops with an error at a line longer
than :data:`MAX_LINE_BYTES` (16 MiB) or at a NUL byte, so ``/dev/zero``, a binary file or an
endless stream cannot exhaust memory (:func:`corpora.common.files.read_bounded`). Blank lines: a blank (whitespace-only)
line is skipped in every format, and so is an SPMF line that holds nothing but ``-1``/``-2``
separators. FIMI and SPMF files never use a blank line for an empty transaction, while a
trailing newline or a stray blank line is common. Consequently a dataset with an empty record
can only be written as ``jsonl``; the other writers refuse it with an :class:`InputError`
instead of silently shifting record ids.

Memory: :func:`read_dataset` streams SPMF/FIMI files (blocks of whole lines, :data:`STREAM_BLOCK_BYTES`;
term ids as int32, the vocabulary sorted and the ids relabelled once at the end), so 10M records of
10 items read in about 1.1 GB instead of holding the file, its tokens and their int64 keys at once
(over 10 GB); the result and every error message are the whole-file reader's (a file with comment or
``@ITEM`` lines, or non-ASCII text, is read whole). The other formats, and :func:`parse_dataset` on
bytes already in memory, are parsed whole.

Writers sort the terms of each record (records keep their order), write atomically (temporary
file + rename, see :mod:`corpora.common.files`) and refuse a term the format cannot represent.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from corpora.common.errors import InputError
from corpora.common.files import atomic_open, iter_bounded, read_bounded
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import USER_TERMS_KEY
from corpora.io.tabular import (
    delimiter_hint,
    frame_tokens,
    long_layout_reason,
    looks_like_header,
    parquet_tokens,
    parse_long,
    write_parquet,
)

__all__ = ["FORMATS", "EXTENSIONS", "HEADER_FORMATS", "COLUMN_FORMATS", "dataset_from_frame", "dataset_from_tokens",
           "detect_format", "parse_dataset", "read_dataset", "resolve_format",
           "write_dataset"]

#: The supported format names.
FORMATS: tuple[str, ...] = ("spmf", "kdd", "basket", "jsonl", "long", "parquet")

#: File extension (without ``.gz``) -> format.
EXTENSIONS: dict[str, str] = {
    ".txt": "spmf", ".dat": "spmf", ".spmf": "spmf",
    ".tsv": "kdd",
    ".csv": "basket", ".basket": "basket",
    ".jsonl": "jsonl", ".json": "jsonl",
    ".parquet": "parquet", ".pq": "parquet",
}

#: Formats whose first line may be a header (``header=`` applies to them).
HEADER_FORMATS: tuple[str, ...] = ("basket", "kdd", "long")

#: Formats that read the user and item columns of a table.
COLUMN_FORMATS: tuple[str, ...] = ("long", "parquet")

MAX_LINE_BYTES = 16 << 20
"""Longest line a reader accepts (bytes): a longer one, or a NUL byte, means the input is not a
transaction file (``/dev/zero``, a binary file, an endless stream), refused before memory runs out."""

_SPMF_SEPARATORS = ("-1", "-2")
_COMMENT_STARTS = ("#", "%", "@")


# ---------------------------------------------------------------------------------------- helpers
def detect_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format to use for ``path``: ``format`` if given (validated), else from the extension."""
    if format is not None:
        if format not in FORMATS:
            raise InputError(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
        return format
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix
    try:
        return EXTENSIONS[suffix]
    except KeyError:
        known = ", ".join(f"{ext}={fmt}" for ext, fmt in EXTENSIONS.items())
        raise InputError(
            f"{path}: cannot tell the format from the extension {suffix or '(none)'!r}; "
            f"pass --format ({', '.join(FORMATS)}) or use one of {known} (optionally + .gz)"
        ) from None


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
    codes, uniques = pd.factorize(np.asarray(tokens, dtype=object), sort=False)
    raw = uniques.tolist()
    terms = [rename.get(t, t) for t in raw] if rename else raw
    vocabulary = sorted(set(terms))
    position = {t: i for i, t in enumerate(vocabulary)}
    relabel = np.fromiter((position[t] for t in terms), dtype=np.int64, count=len(terms))
    ids = relabel[codes]
    return _csr_from_ids(ids, rows, n_rows, tuple(vocabulary), name, metadata)


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (numpy's hash-based ``np.unique`` is slow on many distinct ints)."""
    ordered = np.sort(values)
    if len(ordered) == 0:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _csr_from_ids(
    ids: np.ndarray, rows: np.ndarray, n_rows: int, vocabulary: tuple[str, ...], name: str,
    metadata: dict | None,
) -> TransactionDataset:
    """CSR arrays from (record, term id) pairs: sorted by record then term, duplicates dropped."""
    width = max(len(vocabulary), 1)
    keys = _sorted_unique(rows * width + ids)
    key_rows = keys // width
    indices = (keys - key_rows * width).astype(np.int32)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_rows, minlength=n_rows), out=indptr[1:])
    return TransactionDataset(vocabulary, indptr, indices, name=name, metadata=dict(metadata or {}))


_NUMERIC_BYTES = np.zeros(256, dtype=bool)
_NUMERIC_BYTES[[ord(c) for c in "0123456789 \t\n\r"]] = True
_POW10 = 10 ** np.arange(19, dtype=np.int64)


def _numeric_tokens(data: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """The integer value of every token and the token count of every non-blank line, vectorized.

    ``None`` when ``data`` is not a file of plain non-negative integer items (other characters,
    comments, separators ``-1``/``-2``, a lone ``\\r``, a leading zero, more than 18 digits, no token).
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    if len(buf) == 0 or not _NUMERIC_BYTES[buf].all() or data.count(b"\r") != data.count(b"\r\n"):
        return None
    digit = (buf >= 48) & (buf <= 57)
    # a token starts at a digit preceded by a non-digit, ends before a non-digit
    starts = np.flatnonzero(digit[1:] & ~digit[:-1]) + 1
    if len(buf) and digit[0]:
        starts = np.concatenate(([0], starts))
    ends = np.flatnonzero(digit[:-1] & ~digit[1:]) + 1
    if digit[-1]:
        ends = np.concatenate((ends, [len(buf)]))
    if len(starts) == 0:
        return None
    widths = ends - starts
    del ends
    max_width = int(widths.max())
    if max_width > 18 or np.any((buf[starts] == 48) & (widths > 1)):
        return None
    values = np.zeros(len(starts), dtype=np.int64)
    for k in range(max_width):  # Horner's rule, one digit column at a time
        live = widths > k
        if live.all():
            values = values * 10 + (buf[starts + k] - 48)
        else:
            values[live] = values[live] * 10 + (buf[starts[live] + k] - 48)
    # tokens per line: how many tokens start before each line end
    line_ends = np.concatenate((np.flatnonzero(buf == 10), [len(buf)]))
    per_line = np.diff(np.searchsorted(starts, line_ends), prepend=0)
    return values, per_line[per_line > 0]  # blank lines hold no transaction


def _numeric_spmf(data: bytes, name: str, metadata: dict) -> TransactionDataset | None:
    """Vectorized reader for the common SPMF/FIMI file of plain non-negative integer items.

    Returns ``None`` (use the general reader) when the file holds anything else: other characters
    (comments, separators ``-1``/``-2``), numbers with a leading zero or of more than 18 digits.
    """
    tokens = _numeric_tokens(data)
    if tokens is None:
        return None
    values, per_line = tokens
    n_rows = len(per_line)
    rows = np.repeat(np.arange(n_rows, dtype=np.int64), per_line)
    distinct = _sorted_unique(values)
    as_text = [str(v) for v in distinct.tolist()]
    order = sorted(range(len(as_text)), key=as_text.__getitem__)
    rank = np.empty(len(order), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    if int(distinct[-1]) <= 4 * len(values) + 1_000_000:
        lookup = np.zeros(int(distinct[-1]) + 1, dtype=np.int64)
        lookup[distinct] = rank
        ids = lookup[values]
    else:
        ids = rank[np.searchsorted(distinct, values)]
    vocabulary = tuple(as_text[i] for i in order)
    return _csr_from_ids(ids, rows, n_rows, vocabulary, name, metadata)


STREAM_BLOCK_BYTES = 4 << 20
"""Bytes of whole lines the streaming SPMF reader (:func:`_stream_spmf`) tokenizes at a time."""


class _TermIds:
    """Interim term ids in order of first sight, for integer tokens and text tokens alike.

    Integer tokens (the numeric fast path) and text tokens keep separate tables, so a block never
    turns millions of numbers into strings; :meth:`relabel` maps both onto the sorted vocabulary
    (an integer and its decimal text are the same term).
    """

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}
        self.texts: dict[str, int] = {}
        self.count = 0

    def ids(self, uniques: list, table: dict) -> np.ndarray:
        """The interim id of each distinct token of a block (new ones get the next ids)."""
        out = list(map(table.get, uniques))
        if None in out:
            for i, (token, found) in enumerate(zip(uniques, out, strict=True)):
                if found is None:
                    found = table.get(token)
                    if found is None:
                        found = table[token] = self.count
                        self.count += 1
                    out[i] = found
        return np.asarray(out, dtype=np.int64)

    def relabel(self) -> tuple[tuple[str, ...], np.ndarray]:
        """The sorted vocabulary and, for every interim id, its position in it."""
        text: list[str] = [""] * self.count
        for number, i in self.numbers.items():
            text[i] = str(number)
        for token, i in self.texts.items():
            text[i] = token
        vocabulary = sorted(set(text))
        position = {t: i for i, t in enumerate(vocabulary)}
        return tuple(vocabulary), np.fromiter(map(position.__getitem__, text), dtype=np.int64, count=len(text))


def _stream_spmf(path: Path, name: str, metadata: dict) -> TransactionDataset | None:
    """Read an SPMF/FIMI file block by block, never holding a Python object per token or record.

    The file is read in 1 MiB pieces with the checks of :func:`corpora.common.files.read_bounded` (the
    same errors: NUL byte, line longer than :data:`MAX_LINE_BYTES`, bad gzip), and tokenized in
    blocks of about :data:`STREAM_BLOCK_BYTES` of whole lines: integer items by the vectorized
    :func:`_numeric_tokens`, other ASCII items by one ``split`` per block (SPMF's ``-1``/``-2``
    separators dropped as in :func:`_drop_separators`). Each block keeps only an int32 array of
    interim term ids and the item count of each record; once the vocabulary is known it is sorted
    and every block is relabelled, sorted and deduplicated per record, giving exactly the arrays of
    the whole-file reader (:func:`parse_dataset`). Peak memory is about the final CSR arrays plus
    one block's temporaries (10M records of 10 items: under 1.5 GB where holding the file, its
    tokens and their int64 keys at once took several times that).

    Returns ``None`` when a block holds what only the whole-file reader handles (comment or
    ``@ITEM`` lines, non-ASCII text) or no record was found; the caller then reads the whole file,
    so every error message (``FILE:LINE: ...``) stays that reader's.
    """
    ids = _TermIds()
    blocks: list[tuple[np.ndarray, np.ndarray]] = []  # (interim term ids, items per record)

    def tokenize(block: bytes) -> bool:
        numeric = _numeric_tokens(block)
        if numeric is not None:
            values, per_record = numeric
            codes, uniques = pd.factorize(values, sort=False)
            table = ids.numbers
        else:
            if _CONTROL_BYTES.search(block) is not None:
                return False  # the whole-file reader names the line
            tokens = _ascii_spmf_tokens(block)
            if tokens is None:
                return False
            flat, rows, n_rows = _drop_separators(*tokens)
            if n_rows == 0:
                return True
            per_record = np.bincount(rows, minlength=n_rows)
            codes, uniques = pd.factorize(np.asarray(flat, dtype=object), sort=False)
            table = ids.texts
        interim = ids.ids(uniques.tolist(), table)[codes]
        blocks.append((interim.astype(np.int32), per_record.astype(np.int32)))
        return True

    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            pending: list[bytes] = []
            size = 0
            for piece in iter_bounded(handle, path, max_line=MAX_LINE_BYTES):
                pending.append(piece)
                size += len(piece)
                if size < STREAM_BLOCK_BYTES:
                    continue
                data = b"".join(pending)
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    pending, size = [data], len(data)
                    continue
                if not tokenize(data[:cut]):
                    return None
                pending, size = [data[cut:]], len(data) - cut
                del data
            if size and not tokenize(b"".join(pending)):
                return None
    except (gzip.BadGzipFile, EOFError) as exc:
        raise InputError(f"{path}: not a valid gzip file ({exc})") from None
    n_rows = sum(len(counts) for _, counts in blocks)
    if n_rows == 0:
        return None
    vocabulary, rank = ids.relabel()
    width = max(len(vocabulary), 1)
    total = sum(len(interim) for interim, _ in blocks)
    indices = np.empty(total, dtype=np.int32)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    filled = row = 0
    blocks.reverse()
    while blocks:  # relabel, sort and deduplicate block by block, releasing each block
        interim, counts = blocks.pop()
        keys = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        keys *= width
        keys += rank[interim]
        del interim
        keys = _sorted_unique(keys)
        key_rows = keys // width
        keys -= key_rows * width
        indices[filled:filled + len(keys)] = keys
        filled += len(keys)
        indptr[row + 1:row + 1 + len(counts)] = np.bincount(key_rows, minlength=len(counts))
        row += len(counts)
    np.cumsum(indptr, out=indptr)
    if filled < total:
        indices = indices[:filled].copy()
    return TransactionDataset(vocabulary, indptr, indices, name=name, metadata=dict(metadata))


def _check_file(path: Path) -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a transaction file")


def _read_bytes(path: Path) -> bytes:
    _check_file(path)
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rb") as handle:
            data = read_bounded(handle, path, max_line=MAX_LINE_BYTES)
    except (gzip.BadGzipFile, EOFError) as exc:
        raise InputError(f"{path}: not a valid gzip file ({exc})") from None
    return data


def _decode(data: bytes, path: str | Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not valid UTF-8 text") from None


def _no_records(path: str | Path) -> InputError:
    return InputError(f"{path}: empty file (no transactions)")


def _flatten(lists: list[list[str]]) -> tuple[list[str], np.ndarray]:
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    flat = [t for x in lists for t in x]
    rows = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
    return flat, rows


# ---------------------------------------------------------------------------------------- readers
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True  # what str.split() splits ASCII text on
_COMMENT_LINE = re.compile(rb"(?:^|\n)[\t\x0b\x0c\r\x1c-\x1f ]*[#%@]")


def _ascii_spmf_tokens(data: bytes) -> tuple[list[str], np.ndarray, int] | None:
    """Tokens and record numbers of an ASCII SPMF file without comment lines, or ``None``.

    One C-level ``split`` for all tokens plus numpy for the line of every token; the general
    line-by-line loop is several times slower on millions of lines.
    """
    if not data.isascii() or _COMMENT_LINE.search(data):
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    word = ~_ASCII_SPACE[buf]
    starts = np.flatnonzero(word[1:] & ~word[:-1]) + 1
    if len(buf) and word[0]:
        starts = np.concatenate(([0], starts))
    flat = data.decode("ascii").split()
    if len(flat) != len(starts):  # pragma: no cover - the tables above mirror str.split()
        return None
    line_ends = np.concatenate((np.flatnonzero(buf == 10), [len(buf)]))
    per_line = np.diff(np.searchsorted(starts, line_ends), prepend=0)
    per_line = per_line[per_line > 0]
    rows = np.repeat(np.arange(len(per_line), dtype=np.int64), per_line)
    return flat, rows, len(per_line)


def _drop_separators(flat: list[str], rows: np.ndarray, n_rows: int) -> tuple[list[str], np.ndarray, int]:
    """Remove SPMF's -1/-2 tokens and the records left empty by that."""
    if not flat or ("-1" not in flat and "-2" not in flat):
        return flat, rows, n_rows
    arr = np.asarray(flat, dtype=object)
    keep = (arr != "-1") & (arr != "-2")
    arr, rows = arr[keep], rows[keep]
    counts = np.bincount(rows, minlength=n_rows)
    new_number = np.cumsum(counts > 0) - 1
    return arr.tolist(), new_number[rows], int(np.count_nonzero(counts))


def _read_spmf(text: str, path: str | Path) -> tuple[list[str], np.ndarray, int, dict[str, str]]:
    records: list[list[str]] = []
    rename: dict[str, str] = {}
    append = records.append
    for lineno, line in enumerate(text.split("\n"), 1):
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0][0] in _COMMENT_STARTS:
            stripped = line.strip()
            if stripped.startswith("@ITEM="):
                parts = stripped.split("=", 2)
                if len(parts) != 3 or not parts[1].strip() or not parts[2].strip():
                    raise InputError(f"{path}:{lineno}: malformed @ITEM line; expected @ITEM=id=name")
                rename[parts[1].strip()] = parts[2].strip()
            continue
        append(tokens)
    flat, rows = _flatten(records)
    n_rows = len(records)
    if any(sep in rename for sep in _SPMF_SEPARATORS):
        raise InputError(f"{path}: @ITEM renames a sequence separator (-1 or -2)")
    flat, rows, n_rows = _drop_separators(flat, rows, n_rows)
    return flat, rows, n_rows, rename


def _basket_rows(text: str, path: str | Path, delimiter: str) -> list[tuple[int, list[str]]]:
    """(line number, stripped non-empty items) of every non-blank line; quoted items through csv."""
    out: list[tuple[int, list[str]]] = []
    if len(delimiter) == 1 and '"' in text:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
        start = 1
        try:
            for fields in reader:
                if len(fields) > 1 or (fields and fields[0].strip()):
                    out.append((start, [f.strip() for f in fields]))
                start = reader.line_num + 1
        except csv.Error as exc:
            raise InputError(f"{path}:{reader.line_num}: malformed quoting ({exc})") from None
    else:
        for lineno, line in enumerate(text.split("\n"), 1):
            if line.strip():
                out.append((lineno, [item.strip() for item in line.split(delimiter)]))
    return out


def _read_basket(text: str, path: str | Path, delimiter: str, header: bool | None = None,
                 declared: bool = False, guessed: bool = False) -> tuple[list[str], np.ndarray, int]:
    rows = _basket_rows(text, path, delimiter)
    if guessed:
        refuse_long_layout([items for _, items in rows], path)
    if not declared and rows and all(len(items) == 1 for _, items in rows):
        other = delimiter_hint([items[0] for _, items in rows], delimiter)
        if other is not None:
            raise InputError(f"{path}: no line holds the delimiter {delimiter!r} but lines hold {other!r}; pass "
                             f"--delimiter {_shown(other)} (or --delimiter {_shown(delimiter)} to keep every line "
                             "one term)")
    rows = _drop_header(rows, path, header, "basket", delimiter)
    records: list[list[str]] = []
    for lineno, items in rows:
        items = [item for item in items if item]
        if not items:
            raise InputError(f"{path}:{lineno}: no items, only the delimiter {delimiter!r}")
        records.append(items)
    flat, rows_of = _flatten(records)
    return flat, rows_of, len(records)


def refuse_long_layout(rows: Sequence[Sequence[str]], path: str | Path) -> None:
    """Refuse, in one line, rows read as baskets by their extension that look like (user, item) pairs.

    The rule is :func:`corpora.io.tabular.long_layout_reason`; declaring the format (``--format
    basket`` or ``--format long ...``) skips it; ``--header``/``--no-header`` alone do not.
    """
    reason = long_layout_reason(rows)
    if reason is not None:
        raise InputError(f"{path}: {reason}, so it looks like one row per user and item and reading each line as a "
                         "basket would publish the user column; pass --format long --user-column C --item-column C "
                         "(the user column never reaches a release), or --format basket if every line is one basket")


def sniff_long_layout(path: str | os.PathLike[str], delimiter: str | None = None, head_bytes: int = 1 << 20) -> None:
    """:func:`refuse_long_layout` on the first ``head_bytes`` (whole lines) of a basket file (the Dask reader)."""
    with open(path, "rb") as handle:
        head = handle.read(head_bytes)
    if len(head) == head_bytes and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]
    text = head.decode("utf-8", errors="replace")
    rows = _basket_rows(text, path, delimiter or ",")
    refuse_long_layout([items for _, items in rows], path)


def _shown(delimiter: str) -> str:
    return "'\\t'" if delimiter == "\t" else repr(delimiter)


def _drop_header(rows: list[tuple[int, list[str]]], path: str | Path, header: bool | None, fmt: str,
                 delimiter: str) -> list[tuple[int, list[str]]]:
    """``rows`` without the first one when it is a header; a header-looking first row needs ``header``."""
    if not rows or header is False:
        return rows
    if header:
        return rows[1:]
    lineno, first = rows[0]
    later = {item for _, items in rows[1:200] for item in items}
    if looks_like_header(first, later):
        line = delimiter.join(first)
        raise InputError(
            f"{path}:{lineno}: the first line {line[:60]!r} looks like a header; for one row per user and item "
            f"pass --format long --user-column C --item-column C, else --header (skip it) or --no-header "
            f"(read it as a {fmt} record)")
    return rows


def _read_kdd(text: str, path: str | Path, delimiter: str,
              header: bool | None = None) -> tuple[list[str], np.ndarray, int]:
    rows: list[tuple[int, list[str]]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(delimiter) if delimiter in line else line.split()
        rows.append((lineno, fields))
    rows = _drop_header(rows, path, header, "kdd", delimiter)
    tids: list[str] = []
    items: list[str] = []
    for lineno, fields in rows:
        if len(fields) != 2:
            raise InputError(
                f"{path}:{lineno}: expected 2 columns (transaction id, item id) separated by "
                f"{'a tab' if delimiter == chr(9) else repr(delimiter)}, found {len(fields)}; for a table with "
                "more columns pass --format long --user-column C --item-column C"
            )
        tid, item = fields[0].strip(), fields[1].strip()
        if not tid or not item:
            raise InputError(f"{path}:{lineno}: empty {'transaction id' if not tid else 'item id'}")
        tids.append(tid)
        items.append(item)
    if not tids:
        return [], np.zeros(0, dtype=np.int64), 0
    codes, uniques = pd.factorize(np.asarray(tids, dtype=object), sort=False)  # first-appearance order
    return items, codes.astype(np.int64), len(uniques)


def _read_jsonl(text: str, path: str | Path) -> tuple[list[str], np.ndarray, int]:
    # fast path: parse all lines as one JSON array; any anomaly falls back to the line-by-line
    # parser below, which names the offending line
    lines = [line for line in text.split("\n") if line.strip()]
    try:
        records = json.loads("[" + ",".join(lines) + "]")
    except (ValueError, RecursionError):  # bad JSON, nesting too deep, a number too long
        records = None
    if records is not None and len(records) == len(lines) and all(type(r) is list for r in records):
        flat, rows = _flatten(records)
        try:
            distinct = set(flat) if len(flat) < 1000 else set(pd.unique(np.asarray(flat, dtype=object)))
        except TypeError:  # an unhashable term (a nested list or object): report it line by line
            distinct = {None}
        if all(type(t) is str and t and not _control_term(t) for t in distinct):
            return flat, rows, len(records)
    return _read_jsonl_lines(text, path)


def _read_jsonl_lines(text: str, path: str | Path) -> tuple[list[str], np.ndarray, int]:
    records: list[list[str]] = []
    decode = json.loads
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if len(line) - len(line.lstrip("[")) > 1:  # nesting is never needed: refused before decoding
            raise InputError(f"{path}:{lineno}: expected a flat JSON array of terms, found nested arrays")
        try:
            value = decode(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise InputError(f"{path}:{lineno}: not valid JSON (nested too deeply)") from None
        except ValueError:  # an integer literal of more than 4300 digits (Python's conversion limit)
            raise InputError(f"{path}:{lineno}: a number of more than 4300 digits; terms are JSON strings "
                             "(a long number is fine as a string)") from None
        if not isinstance(value, list):
            raise InputError(f"{path}:{lineno}: expected a JSON array of terms, got {type(value).__name__}")
        for term in value:
            if not isinstance(term, str) or not term:
                shown = repr(term) if not isinstance(term, int) or term.bit_length() < 200 else "(a huge number)"
                raise InputError(f"{path}:{lineno}: term {shown[:80]} is not a non-empty string")
            if _control_term(term):
                raise InputError(f"{path}:{lineno}: term {term[:60]!r} holds a control character; "
                                 "terms hold printable text only")
        records.append(value)
    flat, rows = _flatten(records)
    return flat, rows, len(records)


def resolve_format(
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    header: bool | None = None,
    user_column: str | int | None = None,
    item_column: str | int | None = None,
) -> str:
    """The format to read ``path`` in, with the reading options checked against it.

    Naming a user or item column without a format reads a ``.csv``/``.tsv`` file as ``long``.
    An option that does not apply to the format is refused in one line.
    """
    columns = user_column is not None or item_column is not None
    if format is None and columns:
        fmt = detect_format(path, None)
        if fmt in ("basket", "kdd"):
            fmt = "long"
    else:
        fmt = detect_format(path, format)
    if columns and fmt not in COLUMN_FORMATS:
        raise InputError(f"--user-column/--item-column apply to the long and parquet formats, not {fmt}")
    if header is not None and fmt not in HEADER_FORMATS:
        raise InputError(f"--header/--no-header apply to the {', '.join(HEADER_FORMATS)} formats, not {fmt}")
    return fmt


def read_dataset(
    path: str | os.PathLike[str],
    format: str | None = None,
    delimiter: str | None = None,
    *,
    header: bool | None = None,
    user_column: str | int | None = None,
    item_column: str | int | None = None,
) -> TransactionDataset:
    """Read a transaction file into a :class:`TransactionDataset` (see the module doc for formats).

    ``delimiter`` applies to ``basket`` (default ``","``), ``kdd`` (default tab) and ``long``
    (default tab for ``.tsv``/``.tab``, else ``","``); ``header`` (``True``: the first line is a
    header, ``False``: it is data, ``None``: detect) to ``basket``, ``kdd`` and ``long``;
    ``user_column``/``item_column`` (0-based index or header name) to ``long`` and ``parquet``.
    The user column only groups rows into records: its values are not kept anywhere. Raises
    :class:`InputError` for a missing, empty or malformed file (``FILE:LINE: what is wrong``).
    The dataset's name is the file name without extensions; ``metadata`` records path and format.
    """
    path = Path(path)
    fmt = resolve_format(path, format, header=header, user_column=user_column, item_column=item_column)
    _check_delimiter(fmt, delimiter)
    name = path.name
    while Path(name).suffix:
        name = Path(name).stem
    if fmt == "parquet":
        if delimiter is not None:
            raise InputError("a delimiter does not apply to the parquet format")
        flat, rows, n_rows, shared = parquet_tokens(path, user_column, item_column)
        if n_rows == 0:
            raise _no_records(path)
        return dataset_from_tokens(flat, rows, n_rows, name=name,
                                   metadata=_user_terms({"path": str(path), "format": fmt}, shared))
    if fmt == "spmf":
        _check_file(path)
        streamed = _stream_spmf(path, name, {"path": str(path), "format": fmt})
        if streamed is not None:
            return streamed
    data = _read_bytes(path)
    return parse_dataset(data, fmt, name=name, source=str(path), delimiter=delimiter, header=header,
                         user_column=user_column, item_column=item_column, guessed=format is None)


def parse_dataset(
    data: bytes,
    format: str,
    name: str = "",
    source: str = "<data>",
    delimiter: str | None = None,
    metadata: dict | None = None,
    *,
    header: bool | None = None,
    user_column: str | int | None = None,
    item_column: str | int | None = None,
    guessed: bool = False,
) -> TransactionDataset:
    """Parse the bytes of a transaction file (already decompressed) in ``format``.

    ``source`` names the data in error messages (``SOURCE:LINE: what is wrong``); ``metadata``
    is merged over ``{"path": source, "format": format}``. The reading options are those of
    :func:`read_dataset` (a parquet table needs a file: use :func:`read_dataset`). ``guessed``
    says the format came from the file's extension, not from the caller: a ``basket`` file that
    then looks like one (user, item) row per line (:func:`corpora.io.tabular.long_layout_reason`) is
    refused instead of publishing its user column.
    """
    fmt = resolve_format(source, format, header=header, user_column=user_column, item_column=item_column)
    if fmt == "parquet":
        raise InputError(f"{source}: a parquet table is read from a file (read_dataset), not from bytes")
    declared = delimiter is not None
    delimiter = _check_delimiter(fmt, delimiter)
    if fmt == "long" and not declared:
        delimiter = "\t" if re.search(r"\.(tsv|tab)(\.gz)?$", source.lower()) else ","
    meta = {"path": source, "format": fmt, **(metadata or {})}
    check_controls(data, source)
    if fmt == "spmf":
        fast = _numeric_spmf(data, name, meta)
        if fast is not None:
            return fast
        tokens = _ascii_spmf_tokens(data)
        if tokens is not None:
            flat, rows, n_rows = _drop_separators(*tokens)
            if n_rows == 0:
                raise _no_records(source)
            return dataset_from_tokens(flat, rows, n_rows, name=name, metadata=meta)
    text = _decode(data, source)
    rename: dict[str, str] = {}
    if fmt == "spmf":
        flat, rows, n_rows, rename = _read_spmf(text, source)
    elif fmt == "basket":
        flat, rows, n_rows = _read_basket(text, source, delimiter, header, declared, guessed)
    elif fmt == "kdd":
        flat, rows, n_rows = _read_kdd(text, source, delimiter, header)
    elif fmt == "long":
        flat, rows, n_rows, shared = parse_long(text, source, delimiter, user_column, item_column, header)
        meta = _user_terms(meta, shared)
    else:
        flat, rows, n_rows = _read_jsonl(text, source)
    if n_rows == 0:
        raise _no_records(source)
    return dataset_from_tokens(flat, rows, n_rows, name=name, metadata=meta, rename=rename)


def dataset_from_frame(
    frame: pd.DataFrame,
    user: str | int | None = None,
    item: str | int | None = None,
    name: str = "",
) -> TransactionDataset:
    """A dataset from a pandas DataFrame: long rows (``user`` and ``item`` columns) or item lists.

    With a scalar ``item`` column, ``user`` is required and groups the rows into records (in the
    order of each user's first row); with an ``item`` column of lists (or sets, tuples), each row
    is a record, merged by ``user`` when given. ``item`` defaults to a column named ``"item"``.
    The user values are not kept anywhere. Integer items become their decimal text.
    """
    flat, rows, n_rows, shared = frame_tokens(frame, user, item)
    return dataset_from_tokens(flat, rows, n_rows, name=name, metadata=_user_terms({"format": "dataframe"}, shared))


def _user_terms(metadata: dict, shared: list[str]) -> dict:
    return {**metadata, USER_TERMS_KEY: shared} if shared else metadata


def _check_delimiter(fmt: str, delimiter: str | None) -> str:
    if delimiter is None:
        return {"basket": ",", "kdd": "\t", "long": ","}.get(fmt, "")
    if fmt not in ("basket", "kdd", "long"):
        raise InputError(f"a delimiter applies to the basket, kdd and long formats only, not {fmt}")
    if delimiter == "" or "\n" in delimiter or "\r" in delimiter:
        raise InputError(f"delimiter {delimiter!r} must be a non-empty string without line breaks")
    if fmt == "basket" and delimiter.strip() == "" and delimiter != "\t":
        raise InputError("a basket delimiter of spaces is the spmf format; use --format spmf")
    if fmt == "long" and delimiter == '"':
        raise InputError("the long format quotes fields with '\"'; it cannot be the delimiter")
    return delimiter


_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""C0 control characters and DEL other than tab, line feed and carriage return (delimiters and line
ends of the text formats). No format holds them in a term: SPMF, basket, kdd and long would write
them raw, and readers (SPMF's own among them) refuse them; so every reader refuses them first."""

_CONTROL_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""The same characters in a decoded term (a jsonl term may hold an escaped tab or line break, which
the writers of the other formats refuse by name)."""


def check_controls(data: bytes, source: str | Path) -> None:
    """:class:`InputError` naming the line of the first control character of a text file (not tab or line ends)."""
    found = _CONTROL_BYTES.search(data)
    if found is not None:
        line = data.count(b"\n", 0, found.start()) + 1
        raise InputError(f"{source}:{line}: control character {chr(found.group()[0])!r} in the data; "
                         "terms hold printable text only")


def _control_term(term: str) -> bool:
    return _CONTROL_TEXT.search(term) is not None


# ---------------------------------------------------------------------------------------- writers
def _bad_term(record: int, term: str, why: str, fmt: str) -> InputError:
    return InputError(f"record {record}: term {term!r} {why}; the {fmt} format cannot hold it (use jsonl)")


def _lines(ds: TransactionDataset, fmt: str, delimiter: str) -> list[str]:
    voc = ds.vocabulary
    # check every distinct term once, then every record for emptiness
    if fmt not in ("jsonl", "parquet"):
        lengths = ds.lengths
        empty = np.flatnonzero(lengths == 0)
        if len(empty):
            raise InputError(f"record {int(empty[0])} is empty; the {fmt} format has no empty records "
                             "(blank lines are skipped on reading); use jsonl")
        supports = ds.term_supports()
        first_record = np.full(len(voc), -1, dtype=np.int64)
        rows = np.repeat(np.arange(len(ds), dtype=np.int64), lengths)
        first_record[ds.indices[::-1]] = rows[::-1]
        for tid, term in enumerate(voc):
            if supports[tid] == 0:
                continue
            why = _term_problem(term, fmt, delimiter)
            if why:
                raise _bad_term(int(first_record[tid]), term, why, fmt)
    records = ds.sorted_records()
    if fmt == "spmf":
        return [" ".join(r) for r in records]
    if fmt == "basket":
        return [delimiter.join(r) for r in records]
    if fmt == "kdd":
        return [f"{i}{delimiter}{t}" for i, r in enumerate(records) for t in r]
    if fmt == "long":
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
        writer.writerow(["record", "item"])
        writer.writerows((i, t) for i, r in enumerate(records) for t in r)
        return buffer.getvalue().rstrip("\n").split("\n")
    dumps = json.dumps
    return [dumps(r, ensure_ascii=False) for r in records]


def _term_problem(term: str, fmt: str, delimiter: str) -> str:
    if "\n" in term or "\r" in term:
        return "contains a line break"
    if fmt == "spmf":
        if any(c.isspace() for c in term):
            return "contains whitespace (the spmf item separator)"
        if term in _SPMF_SEPARATORS:
            return "is an SPMF sequence separator"
        if term[0] in _COMMENT_STARTS:
            return "starts with a comment character (#, % or @)"
        return ""
    if delimiter in term and fmt != "long":
        return f"contains the delimiter {delimiter!r}"
    if fmt == "basket" and term.startswith('"'):
        return "starts with a double quote (read as quoting)"
    if term != term.strip():
        return "has leading or trailing whitespace (stripped on reading)"
    return ""


def write_dataset(
    ds: TransactionDataset,
    path: str | os.PathLike[str],
    format: str | None = None,
    delimiter: str | None = None,
) -> None:
    """Write ``ds`` to ``path`` atomically in ``format`` (or the format of the extension).

    Each record's terms are written sorted; record order is kept (``long`` writes a header
    ``record,item`` and the record numbers as users; ``parquet`` one list column ``items``). A
    term the format cannot hold
    (a separator inside it, an SPMF comment character in front, ...) or an empty record outside
    ``jsonl`` raises :class:`InputError` and leaves no file behind. A ``.gz`` path is gzipped
    with a zero timestamp, so the same dataset gives the same bytes.
    """
    path = Path(path)
    fmt = detect_format(path, format)
    delimiter = _check_delimiter(fmt, delimiter)
    if fmt == "parquet":
        if delimiter:
            raise InputError("a delimiter does not apply to the parquet format")
        write_parquet(ds.sorted_records(), path)
        return
    if fmt == "long" and re.search(r"\.(tsv|tab)(\.gz)?$", path.name.lower()) and delimiter == ",":
        delimiter = "\t"
    lines = _lines(ds, fmt, delimiter)
    payload = ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
    with atomic_open(path, "wb") as handle:
        if path.name.lower().endswith(".gz"):
            buffer = io.BytesIO()
            with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz:
                gz.write(payload)
            handle.write(buffer.getvalue())
        else:
            handle.write(payload)
