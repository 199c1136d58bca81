"""Tables the way data owners keep them: one row per (user, item), CSV/TSV with quoting, parquet, DataFrames.

Three sources, one rule: the **user column only groups rows into records**. Its values decide
which rows form one record (records in the order of each user's first row) and are then dropped;
they never become terms, never reach the dataset's metadata, and so never reach a release.

* **Long text tables** (``format="long"``): CSV or TSV read with the :mod:`csv` module (quoted
  fields may hold the delimiter), one row per user and item; ``user_column`` and ``item_column``
  are 0-based indexes or header names (defaults 0 and 1); extra columns (a timestamp, a
  quantity) are ignored. The delimiter is a tab for ``.tsv``/``.tab`` files and a comma otherwise,
  unless ``delimiter`` says.
* **Parquet** (``format="parquet"``, :mod:`corpora.io.parquet`): either long (a scalar item column, a user
  column required) or baskets (an item column of lists: each row one record; a user column, if
  given, merges the rows of one user). Integer items are read as their decimal text.
* **pandas DataFrames** (:func:`corpora.io.frames.dataset_from_frame`): the same two shapes as parquet.

Headers (text tables). ``header=True`` skips the first row, ``False`` reads it as data, ``None``
detects: columns chosen by name need a header; otherwise the first row is a header when both
chosen fields are header words (``user_id``, ``customer``, ``item``, ``product``, ``timestamp``,
...), data when neither is, and an ambiguous first row is refused with one line asking for
``--header`` or ``--no-header``. :func:`corpora.io.headers.looks_like_header` is the word test; the basket and kdd
readers use it too, so that a header line is never silently read as a record.

Everything read here is bounded: text through :func:`corpora.common.files.read_bounded` like every other
format, parquet files by their size and row count before any column is decoded.

This module reads the long text tables (:func:`parse_long`); the header words it shares with the
basket and kdd readers are in :mod:`corpora.io.headers`.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from corpora.common.errors import InputError
from corpora.io.headers import check_column_roles, delimiter_hint, header_word, user_value_terms
from corpora.io.tokens import factorize

__all__ = ["LONG_DEFAULT_COLUMNS", "parse_long"]

LONG_DEFAULT_COLUMNS: tuple[int, int] = (0, 1)
"""User and item column of a long table when none is named."""


def _show(delimiter: str) -> str:
    return "'\\t'" if delimiter == "\t" else repr(delimiter)


def _resolve_column(spec: str | int, header: list[str] | None, role: str, source: str) -> int:
    """0-based index of a column given by index or by header name."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if spec < 0:
            raise InputError(f"{source}: --{role}-column must be a name or a 0-based index, got {spec}")
        return int(spec)
    text = str(spec)
    if header is not None and text in header:
        if header.count(text) > 1:
            raise InputError(f"{source}: the header names column {text!r} more than once")
        return header.index(text)
    if text.isdigit() and len(text) <= 18:
        return int(text)
    if header is None:
        raise InputError(f"{source}: --{role}-column {text!r} is a name, but the file has no header; "
                         "pass a 0-based index, or --header if the first line names the columns")
    shown = ", ".join(repr(h) for h in header[:12])
    raise InputError(f"{source}: no column named {text!r}; the header holds {shown}")


def _named(spec: str | int | None) -> bool:
    return isinstance(spec, str) and not spec.isdigit()


def parse_long(
    text: str,
    source: str,
    delimiter: str,
    user_column: str | int | None = None,
    item_column: str | int | None = None,
    header: bool | None = None,
) -> tuple[list[str], np.ndarray, int, list[str]]:
    """Tokens, record numbers, record count and user-value terms of a long text table (see the module doc).

    The fourth value lists the items equal to a value of the user column (:func:`user_value_terms`).
    """
    user_spec = LONG_DEFAULT_COLUMNS[0] if user_column is None else user_column
    item_spec = LONG_DEFAULT_COLUMNS[1] if item_column is None else item_column
    rows = _csv_rows(text, source, delimiter)
    if not rows:
        raise InputError(f"{source}: empty file (no rows)")
    first_line, first = rows[0]
    names: list[str] | None = None
    if header is None and (_named(user_spec) or _named(item_spec)):
        header = True
    if header is None:
        header = _detect_long_header(first, user_spec, item_spec, first_line, source, delimiter)
    if header:
        names = [f.strip() for f in first]
        rows = rows[1:]
    u = _resolve_column(user_spec, names, "user", source)
    i = _resolve_column(item_spec, names, "item", source)
    if u == i:
        raise InputError(f"{source}: the user column and the item column are the same column ({u})")
    if names is not None and max(u, i) < len(names):
        check_column_roles(names[u], names[i], source)
    need = max(u, i) + 1
    users: list[str] = []
    items: list[str] = []
    for lineno, fields in rows:
        if len(fields) < need:
            hint = delimiter_hint([delimiter.join(fields)], delimiter)
            more = f"; is the delimiter {_show(hint)}? pass --delimiter {_show(hint)}" if hint else ""
            raise InputError(f"{source}:{lineno}: {len(fields)} field(s) separated by {_show(delimiter)}, "
                             f"the user and item columns need {need}{more}")
        user, item = fields[u].strip(), fields[i].strip()
        if not user or not item:
            raise InputError(f"{source}:{lineno}: empty {'user' if not user else 'item'} field")
        users.append(user)
        items.append(item)
    if not items:
        raise InputError(f"{source}: no rows below the header")
    codes, uniques = factorize(users)
    return items, codes.astype(np.int64), len(uniques), user_value_terms(items, uniques.tolist())


def _detect_long_header(first: list[str], user_spec: str | int, item_spec: str | int, lineno: int, source: str,
                        delimiter: str) -> bool:
    u, i = int(user_spec), int(item_spec)
    if len(first) <= max(u, i):
        return False  # reported as a short row below
    kinds = [header_word(first[u]), header_word(first[i])]
    if all(k is not None for k in kinds):
        return True
    if all(k is None for k in kinds):
        return False
    row = delimiter.join(first)
    raise InputError(f"{source}:{lineno}: cannot tell whether {row[:60]!r} is a header; "
                     "pass --header (skip it) or --no-header (read it as data)")


def _csv_rows(text: str, source: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """Non-blank rows with their line numbers (quoted fields through the csv module when it can)."""
    out: list[tuple[int, list[str]]] = []
    if len(delimiter) != 1:
        for lineno, line in enumerate(text.split("\n"), 1):
            if line.strip():
                out.append((lineno, line.rstrip("\r").split(delimiter)))
        return out
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                out.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"{source}:{reader.line_num}: malformed quoting ({exc})") from None
    return out
