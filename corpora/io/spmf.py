"""The SPMF/FIMI transaction format: one transaction per line, items separated by whitespace.

Three readers give the same arrays and the same errors (:mod:`corpora.io.formats` picks one):

* :func:`numeric_spmf`: the common file of plain non-negative integer items, tokenized by numpy
  alone (no Python object per token);
* :func:`stream_spmf`: a file read block by block (:data:`STREAM_BLOCK_BYTES` of whole lines), so
  that ten million records never sit in memory as text, tokens and keys at once;
* :func:`text_spmf` for other ASCII items (``i0729``, words): token bounds, SPMF's separators, comment lines and
  the distinct tokens found by numpy on the bytes (tokens packed into 64-bit words and sorted), so only the
  distinct tokens become Python strings;
* :func:`ascii_spmf_tokens` (a token list, kept for callers that want one) and, for everything else (comment and
  ``@ITEM`` lines, non-ASCII text), the line-by-line :func:`read_spmf`.

None of them imports pandas.

SPMF's sequence separators ``-1`` and ``-2`` are dropped (:func:`drop_separators`), so a sequence
file reads as one transaction per sequence; lines starting with ``#``, ``%`` or ``@`` are comments
except ``@ITEM=id=name``, which renames an item.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np

from corpora.common.errors import InputError
from corpora.common.files import iter_bounded
from corpora.dataset import TransactionDataset
from corpora.io.options import MAX_LINE_BYTES
from corpora.io.tokens import csr_from_ids, factorize_spans, flatten, sorted_unique

__all__ = ["COMMENT_STARTS", "SPMF_SEPARATORS", "STREAM_BLOCK_BYTES", "ascii_spmf_tokens", "drop_separators",
           "numeric_spmf", "read_spmf", "stream_spmf", "text_spmf"]

SPMF_SEPARATORS = ("-1", "-2")
"""SPMF's sequence separators (end of itemset, end of sequence)."""
COMMENT_STARTS = ("#", "%", "@")
"""First characters of a comment or metadata line."""


_NUMERIC_BYTES = np.zeros(256, dtype=bool)
_NUMERIC_BYTES[[ord(c) for c in "0123456789 \t\n\r"]] = True


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


def numeric_spmf(data: bytes, name: str, metadata: dict) -> TransactionDataset | None:
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
    distinct = sorted_unique(values)
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
    return csr_from_ids(ids, rows, n_rows, vocabulary, name, metadata)


STREAM_BLOCK_BYTES = 4 << 20
"""Bytes of whole lines the streaming SPMF reader (:func:`stream_spmf`) tokenizes at a time."""


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


def stream_spmf(path: Path, name: str, metadata: dict) -> TransactionDataset | None:
    """Read an SPMF/FIMI file block by block, never holding a Python object per token or record.

    The file is read in 1 MiB pieces with the checks of :func:`corpora.common.files.read_bounded` (the
    same errors: NUL byte, line longer than :data:`MAX_LINE_BYTES`, bad gzip), and tokenized in
    blocks of about :data:`STREAM_BLOCK_BYTES` of whole lines: integer items by the vectorized
    :func:`_numeric_tokens`, other ASCII items by the vectorized :func:`_text_tokens` (SPMF's ``-1``/``-2``
    separators dropped as in :func:`drop_separators`). Each block keeps only an int32 array of
    interim term ids and the item count of each record; once the vocabulary is known it is sorted
    and every block is relabelled, sorted and deduplicated per record, giving exactly the arrays of
    the whole-file reader (:func:`corpora.io.formats.parse_dataset`). Peak memory is about the final CSR arrays plus
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
            distinct = sorted_unique(values)
            codes, uniques = np.searchsorted(distinct, values), distinct.tolist()
            table = ids.numbers
        else:
            text = _text_tokens(block)
            if text is None:
                return False  # the whole-file reader handles it (or names the bad line)
            codes, uniques, per_record = text
            if per_record.size == 0:
                return True
            table = ids.texts
        interim = ids.ids(uniques, table)[codes]
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
        keys = sorted_unique(keys)
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


_TEXT_SPACE = np.zeros(256, dtype=bool)
_TEXT_SPACE[[9, 10, 13, 32]] = True  # what str.split() splits on in text without control characters
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[[*range(9), 11, 12, *range(14, 32), 127]] = True  # CONTROL_BYTES as a table
_COMMENT_FIRST = np.zeros(256, dtype=bool)
_COMMENT_FIRST[[ord(c) for c in COMMENT_STARTS]] = True


def _text_tokens(data: bytes) -> tuple[np.ndarray, list[str], np.ndarray] | None:
    """(code of each token, the distinct tokens in code order, tokens per record) of ASCII SPMF text, vectorized.

    SPMF's separators ``-1``/``-2`` are dropped with the records left empty (:func:`drop_separators`), blank lines
    hold no record. ``None`` when only the line-by-line reader handles ``data``: non-ASCII text, a comment or
    ``@ITEM`` line, a control character (:data:`corpora.io.tokens.CONTROL_BYTES`; that reader names its line)."""
    if not data.isascii():
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    if _CONTROL[buf].any():
        return None
    word = ~_TEXT_SPACE[buf]
    starts = np.flatnonzero(word[1:] & ~word[:-1]) + 1
    ends = np.flatnonzero(word[:-1] & ~word[1:]) + 1
    if buf.size and word[0]:
        starts = np.concatenate(([0], starts))
    if buf.size and word[-1]:
        ends = np.concatenate((ends, [buf.size]))
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64), [], np.zeros(0, dtype=np.int64)
    # tokens per line: how many tokens start before each line end; a line's first token follows the previous ones
    before = np.searchsorted(starts, np.append(np.flatnonzero(buf == 10), buf.size))
    per_line = np.diff(before, prepend=0)
    if _COMMENT_FIRST[buf[starts[(before - per_line)[per_line > 0]]]].any():
        return None
    widths = ends - starts
    del ends
    pairs = np.flatnonzero(widths == 2)
    second = buf[starts[pairs] + 1]
    sep = pairs[(buf[starts[pairs]] == ord("-")) & ((second == ord("1")) | (second == ord("2")))]
    if sep.size:  # drop the separators, then count each line's other tokens
        keep = np.ones(starts.size, dtype=bool)
        keep[sep] = False
        starts, widths = starts[keep], widths[keep]
        per_line = per_line - np.diff(np.searchsorted(sep, before), prepend=0)
    per_record = per_line[per_line > 0]
    if per_record.size == 0:
        return np.zeros(0, dtype=np.int64), [], per_record
    codes, uniques = factorize_spans(data, buf, starts, widths)
    return codes, uniques, per_record


def text_spmf(data: bytes, name: str, metadata: dict) -> TransactionDataset | None:
    """Vectorized reader for an ASCII SPMF/FIMI file without comment lines (:func:`_text_tokens`), or ``None``
    (the line-by-line reader then reads it, and names what is wrong); also ``None`` for a file without a record."""
    text = _text_tokens(data)
    if text is None or text[2].size == 0:
        return None
    codes, uniques, per_record = text
    vocabulary = sorted(set(uniques))
    position = {t: i for i, t in enumerate(vocabulary)}
    relabel = np.fromiter(map(position.__getitem__, uniques), dtype=np.int64, count=len(uniques))
    rows = np.repeat(np.arange(per_record.size, dtype=np.int64), per_record)
    return csr_from_ids(relabel[codes], rows, int(per_record.size), tuple(vocabulary), name, metadata)


_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True  # what str.split() splits ASCII text on
_COMMENT_LINE = re.compile(rb"(?:^|\n)[\t\x0b\x0c\r\x1c-\x1f ]*[#%@]")


def ascii_spmf_tokens(data: bytes) -> tuple[list[str], np.ndarray, int] | None:
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


def drop_separators(flat: list[str], rows: np.ndarray, n_rows: int) -> tuple[list[str], np.ndarray, int]:
    """Remove SPMF's -1/-2 tokens and the records left empty by that."""
    if not flat or ("-1" not in flat and "-2" not in flat):
        return flat, rows, n_rows
    arr = np.asarray(flat, dtype=object)
    keep = (arr != "-1") & (arr != "-2")
    arr, rows = arr[keep], rows[keep]
    counts = np.bincount(rows, minlength=n_rows)
    new_number = np.cumsum(counts > 0) - 1
    return arr.tolist(), new_number[rows], int(np.count_nonzero(counts))


def read_spmf(text: str, path: str | Path) -> tuple[list[str], np.ndarray, int, dict[str, str]]:
    """Tokens, record numbers, record count and ``@ITEM`` renames of decoded SPMF text, line by line."""
    records: list[list[str]] = []
    rename: dict[str, str] = {}
    append = records.append
    for lineno, line in enumerate(text.split("\n"), 1):
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0][0] in COMMENT_STARTS:
            stripped = line.strip()
            if stripped.startswith("@ITEM="):
                parts = stripped.split("=", 2)
                if len(parts) != 3 or not parts[1].strip() or not parts[2].strip():
                    raise InputError(f"{path}:{lineno}: malformed @ITEM line; expected @ITEM=id=name")
                rename[parts[1].strip()] = parts[2].strip()
            continue
        append(tokens)
    flat, rows = flatten(records)
    n_rows = len(records)
    if any(sep in rename for sep in SPMF_SEPARATORS):
        raise InputError(f"{path}: @ITEM renames a sequence separator (-1 or -2)")
    flat, rows, n_rows = drop_separators(flat, rows, n_rows)
    return flat, rows, n_rows, rename
