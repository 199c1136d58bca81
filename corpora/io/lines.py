"""Line-oriented readers: ``basket`` (one transaction a line), ``kdd`` (transaction id and item a line), ``jsonl``.

Each returns the flat tokens, the record number of each token and the record count, which
:func:`corpora.io.tokens.dataset_from_tokens` turns into a dataset. What is never silently turned
into terms: a first line that reads as a header (:func:`corpora.io.headers.looks_like_header`) is
refused unless ``header`` says what it is, a basket file whose lines hold another delimiter than
the expected one is refused unless ``delimiter`` is given, and a basket file that looks like one
(user, item) row per line is refused when its format was only guessed (:func:`refuse_long_layout`).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from corpora.common.errors import InputError
from corpora.io.headers import delimiter_hint, long_layout_reason, looks_like_header
from corpora.io.tokens import control_term, factorize, flatten

__all__ = ["read_basket", "read_jsonl", "read_kdd", "refuse_long_layout", "sniff_long_layout"]


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


def read_basket(text: str, path: str | Path, delimiter: str, header: bool | None = None,
                declared: bool = False, guessed: bool = False) -> tuple[list[str], np.ndarray, int]:
    """Tokens, record numbers and record count of basket text (``declared``: the delimiter was given,
    ``guessed``: the format came from the extension)."""
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
    flat, rows_of = flatten(records)
    return flat, rows_of, len(records)


def refuse_long_layout(rows: Sequence[Sequence[str]], path: str | Path) -> None:
    """Refuse, in one line, rows read as baskets by their extension that look like (user, item) pairs.

    The rule is :func:`corpora.io.headers.long_layout_reason`; declaring the format (``--format
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


def read_kdd(text: str, path: str | Path, delimiter: str,
              header: bool | None = None) -> tuple[list[str], np.ndarray, int]:
    """Tokens, record numbers and record count of kdd text (records in order of their id's first line)."""
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
    codes, uniques = factorize(tids)  # first-appearance order
    return items, codes.astype(np.int64), len(uniques)


def read_jsonl(text: str, path: str | Path) -> tuple[list[str], np.ndarray, int]:
    """Tokens, record numbers and record count of JSON lines text (one flat array of terms a line)."""
    # fast path: parse all lines as one JSON array; any anomaly falls back to the line-by-line
    # parser below, which names the offending line
    lines = [line for line in text.split("\n") if line.strip()]
    try:
        records = json.loads("[" + ",".join(lines) + "]")
    except (ValueError, RecursionError):  # bad JSON, nesting too deep, a number too long
        records = None
    if records is not None and len(records) == len(lines) and all(type(r) is list for r in records):
        flat, rows = flatten(records)
        try:
            distinct = set(flat) if len(flat) < 1000 else set(factorize(flat)[1].tolist())
        except TypeError:  # an unhashable term (a nested list or object): report it line by line
            distinct = {None}
        if all(type(t) is str and t and not control_term(t) for t in distinct):
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
            if control_term(term):
                raise InputError(f"{path}:{lineno}: term {term[:60]!r} holds a control character; "
                                 "terms hold printable text only")
        records.append(value)
    flat, rows = flatten(records)
    return flat, rows, len(records)
