"""Tables the way data owners keep them: one row per (user, item), CSV/TSV with quoting, parquet, DataFrames.

Three sources, one rule: the **user column only groups rows into records**. Its values decide
which rows form one record (records in the order of each user's first row) and are then dropped;
they never become terms, never reach the dataset's metadata, and so never reach a release.

* **Long text tables** (``format="long"``): CSV or TSV read with the :mod:`csv` module (quoted
  fields may hold the delimiter), one row per user and item; ``user_column`` and ``item_column``
  are 0-based indexes or header names (defaults 0 and 1); extra columns (a timestamp, a
  quantity) are ignored. The delimiter is a tab for ``.tsv``/``.tab`` files and a comma otherwise,
  unless ``delimiter`` says.
* **Parquet** (``format="parquet"``, read with pyarrow): either long (a scalar item column, a user
  column required) or baskets (an item column of lists: each row one record; a user column, if
  given, merges the rows of one user). Integer items are read as their decimal text.
* **pandas DataFrames** (:func:`dataset_from_frame`): the same two shapes as parquet.

Headers (text tables). ``header=True`` skips the first row, ``False`` reads it as data, ``None``
detects: columns chosen by name need a header; otherwise the first row is a header when both
chosen fields are header words (``user_id``, ``customer``, ``item``, ``product``, ``timestamp``,
...), data when neither is, and an ambiguous first row is refused with one line asking for
``--header`` or ``--no-header``. :func:`looks_like_header` is the word test; the basket and kdd
readers use it too, so that a header line is never silently read as a record.

Everything read here is bounded: text through :func:`corpora.common.files.read_bounded` like every other
format, parquet files by their size and row count before any column is decoded.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from corpora.common.errors import InputError

__all__ = ["LONG_DEFAULT_COLUMNS", "MAX_PARQUET_BYTES", "MAX_TABLE_ROWS", "check_column_roles", "delimiter_hint",
           "long_layout_reason", "looks_like_header", "header_word", "user_value_terms", "parse_long", "parquet_tokens",
           "frame_tokens", "write_parquet"]

LONG_DEFAULT_COLUMNS: tuple[int, int] = (0, 1)
"""User and item column of a long table when none is named."""

MAX_PARQUET_BYTES = 4 << 30
"""Largest parquet file read (bytes); a larger one is refused before it is opened."""

MAX_TABLE_ROWS = 2**31 - 1
"""Most rows a parquet table or DataFrame may hold."""

PARQUET_ROWS_PER_BYTE = 64
"""Most rows (or list values) a parquet file may declare per byte of the file beyond the first
:data:`PARQUET_FREE_ROWS`: a row of a transaction table carries at least a few bits even
dictionary- and run-length-encoded (real tables hold well under 1 row per byte); a footer claiming
more is refused before anything is allocated (a 123 KB file declaring 40M rows ran for minutes)."""

PARQUET_FREE_ROWS = 1_000_000
"""Rows any parquet file may declare whatever its size (reading them takes about a second)."""

_USER_WORDS = frozenset({
    "user", "users", "userid", "uid", "customer", "customerid", "client", "clientid", "member", "visitor",
    "session", "sessionid", "person", "patient", "patientid", "household", "account", "transaction",
    "transactionid", "tid", "txn", "order", "orderid", "basket", "basketid", "cart", "record", "recordid",
    "doc", "document", "docid", "receipt", "invoice", "owner",
    "email", "emails", "mail", "emailaddress", "mailaddress", "login", "username", "phone", "mobile",
    "telephone", "ip", "ipaddress", "ssn", "passport", "buyer", "shopper", "subscriber", "employee", "student",
    "guest", "author", "sender", "recipient", "device", "deviceid", "cookie", "cookieid", "contact",
})
_ITEM_WORDS = frozenset({
    "item", "items", "itemid", "product", "products", "productid", "sku", "article", "term", "terms",
    "query", "queries", "word", "words", "token", "code", "name", "diagnosis", "drug", "page", "url",
    "category", "description", "label",
})
_OTHER_WORDS = frozenset({
    "id", "key", "no", "number", "timestamp", "date", "time", "datetime", "quantity", "qty", "count",
    "price", "amount", "rating", "value", "score", "weight", "position", "rank",
})
_WORD_PARTS = re.compile(r"[_\-\s.]+")
CANDIDATE_DELIMITERS = (";", "\t", "|", ",")


def header_word(field: str) -> str | None:
    """``"user"``, ``"item"`` or ``"other"`` when ``field`` reads as a column name, else ``None``.

    Compared in lower case with ``_``, ``-``, ``.`` and spaces as word breaks: ``user_id`` is a
    user word, ``Product ID`` an item word, ``timestamp`` another header word.
    """
    text = field.strip().strip('"').lower()
    if not text:
        return None
    parts = [p for p in _WORD_PARTS.split(text) if p]
    joined = "".join(parts)
    for kind, words in (("user", _USER_WORDS), ("item", _ITEM_WORDS)):
        if joined in words or (parts and all(p in words or p in _OTHER_WORDS for p in parts)
                               and any(p in words for p in parts)):
            return kind
    if parts and all(p in _OTHER_WORDS for p in parts):
        return "other"
    return None


def looks_like_header(fields: Sequence[str], later_values: set[str] | None = None) -> bool:
    """Whether a first line of basket or kdd fields is a header such as ``user_id,item``.

    At least two fields, every one a column name (:func:`header_word`), one of them an item
    word, and none of them found again in ``later_values`` (the terms of the other lines).
    """
    cleaned = [f.strip() for f in fields if f.strip()]
    if len(cleaned) < 2:
        return False
    kinds = [header_word(f) for f in cleaned]
    if any(k is None for k in kinds) or "item" not in kinds:
        return False
    return not (later_values and any(f in later_values for f in cleaned))


def delimiter_hint(lines: Sequence[str], expected: str) -> str | None:
    """A delimiter other than ``expected`` that the lines hold, when they hold ``expected`` nowhere."""
    if any(expected in line for line in lines):
        return None
    for candidate in CANDIDATE_DELIMITERS:
        if candidate != expected and any(candidate in line for line in lines):
            return candidate
    return None


_PERSON_WORDS = frozenset({
    "user", "users", "userid", "uid", "customer", "customerid", "client", "clientid", "member", "visitor", "person",
    "patient", "patientid", "household", "account", "owner", "email", "emails", "mail", "emailaddress",
    "mailaddress", "login", "username", "phone", "mobile", "telephone", "ip", "ipaddress", "ssn", "passport",
    "buyer", "shopper", "subscriber", "employee", "student", "guest", "author", "sender", "recipient", "device",
    "deviceid", "cookie", "cookieid", "contact",
})
"""The user words that name a person (or their device or account), not a basket, order or document."""


def _user_column_name(field: str, person: bool = False) -> bool:
    """Whether a header field names a user, customer, e-mail or id column (``user_id``, ``customer_email``, ``id``).

    ``person=True`` asks for a column naming a person (``customer``, ``email``), not only a record
    key (``basket``, ``order``, ``transaction``): the values such a column holds identify people.
    """
    kind = header_word(field)
    parts = [p for p in _WORD_PARTS.split(field.strip().strip('"').lower()) if p]
    if kind == "user":
        return not person or "".join(parts) in _PERSON_WORDS or any(p in _PERSON_WORDS for p in parts)
    return kind == "other" and "id" in parts and not person


def long_layout_reason(rows: Sequence[Sequence[str]]) -> str | None:
    """Why the rows of a delimited file look like one (user, item) pair per row, or ``None``.

    Reading such a file as baskets (one record per line) publishes its user column as terms, so a
    file whose format was only guessed from its extension is refused when one of these holds
    (issue 21; ``rows`` are the stripped fields of the non-blank lines, in order):

    1. **A user column is named.** The first line has a field that names a user, customer,
       e-mail or id column (:func:`header_word`: ``user_id``, ``customer_email``, ``email``,
       ``Customer ID``, ``id``) and that field is no value of the next 200 lines.
    2. **Pairs keyed by a repeating first field.** At least two lines, every line holds exactly
       two fields, and some first field occurs on more than one line: a basket file of pairs
       whose first items repeat is possible, but so is a table of (user, item) rows, and only
       the owner can say which.
    3. **A constant-width table keyed by its first column.** At least two lines, every line
       holds the same number (3 or more) of fields, some first field repeats on consecutive
       lines, and no first-column value occurs in another column (``u1,flu,2024-01-02``).

    Baskets of varying length with items anywhere in a line trigger none of them.
    """
    rows = [list(r) for r in rows if r]
    if not rows:
        return None
    later = {value for row in rows[1:201] for value in row}
    for field in rows[0]:
        if field and field not in later and _user_column_name(field):
            return f"its first line names a user column ({field[:40]!r})"
    if len(rows) < 2:
        return None
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        return None
    firsts = [r[0] for r in rows]
    if width == 2 and len(set(firsts)) < len(firsts):
        return "every line holds two fields and the first field repeats across lines"
    if width >= 3 and any(a == b for a, b in zip(firsts, firsts[1:], strict=False)):
        others = {value for row in rows for value in row[1:]}
        if not others.intersection(firsts):
            return (f"every line holds {width} fields and the first field repeats on consecutive lines without "
                    "occurring in another column")
    return None


def check_column_roles(user_name: str | None, item_name: str, source: str) -> None:
    """Refuse an item column named like a user column: its values would be published as terms.

    ``--user-column product --item-column customer_email`` (the two swapped) is the usual cause;
    the message says so when the user column is named like an item column.
    """
    if not _user_column_name(str(item_name), person=True):
        return
    swapped = user_name is not None and header_word(str(user_name)) == "item"
    hint = (f"; the user column {str(user_name)[:40]!r} is named like an item column: are --user-column and "
            "--item-column swapped?") if swapped else "; choose the column of the items with --item-column"
    raise InputError(f"{source}: the item column {str(item_name)[:40]!r} is named like a user column, and its "
                     f"values would be published as terms{hint}")


def user_value_terms(items: Sequence[str], users: Sequence[str]) -> list[str]:
    """The items that are also values of the user column (sorted): the identifier screen flags them."""
    return sorted(set(items).intersection(users))


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
    codes, uniques = pd.factorize(np.asarray(users, dtype=object), sort=False)
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


# ---------------------------------------------------------------------------------------- parquet
def _column_name(spec: str | int, names: list[str], role: str, source: str) -> str:
    if isinstance(spec, str) and spec in names:
        return spec
    if isinstance(spec, (int, np.integer)) or (isinstance(spec, str) and spec.isdigit()):
        index = int(spec)
        if 0 <= index < len(names):
            return names[index]
        raise InputError(f"{source}: --{role}-column {index} is out of range ({len(names)} columns)")
    raise InputError(f"{source}: no column named {spec!r}; the table holds {', '.join(map(repr, names[:12]))}")


def parquet_tokens(
    path: str | os.PathLike[str],
    user_column: str | int | None = None,
    item_column: str | int | None = None,
) -> tuple[list[str], np.ndarray, int, list[str]]:
    """Tokens, record numbers, record count and user-value terms of a parquet table (long or basket lists)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = str(path)
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{source}: no such file" if not p.exists() else f"{source}: not a regular file")
    size = p.stat().st_size
    if size > MAX_PARQUET_BYTES:
        raise InputError(f"{source}: {size} bytes, larger than {MAX_PARQUET_BYTES >> 30} GiB; refusing to read it")
    try:
        handle = pq.ParquetFile(p)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{source}: not a readable parquet file ({str(exc).splitlines()[0][:100]})") from None
    if handle.metadata.num_rows > MAX_TABLE_ROWS:
        raise InputError(f"{source}: {handle.metadata.num_rows} rows, more than {MAX_TABLE_ROWS}")
    _check_declared_rows(handle.metadata, size, source)
    schema = handle.schema_arrow
    names = list(schema.names)
    if item_column is None:
        lists = [f.name for f in schema if pa.types.is_list(f.type) or pa.types.is_large_list(f.type)]
        if len(lists) != 1:
            raise InputError(f"{source}: name the item column with --item-column (columns: "
                             f"{', '.join(map(repr, names[:12]))})")
        item_name = lists[0]
    else:
        item_name = _column_name(item_column, names, "item", source)
    user_name = None if user_column is None else _column_name(user_column, names, "user", source)
    if user_name == item_name:
        raise InputError(f"{source}: the user column and the item column are the same column ({item_name!r})")
    check_column_roles(user_name, item_name, source)
    wanted = [item_name] if user_name is None else [user_name, item_name]
    try:
        table = handle.read(columns=wanted)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{source}: cannot read columns {wanted} ({str(exc).splitlines()[0][:100]})") from None
    users = None if user_name is None else table.column(user_name)
    return _arrow_tokens(table.column(item_name), users, source, item_name)


def _check_declared_rows(metadata: Any, size: int, source: str) -> None:
    """Refuse a footer declaring more rows or values than a file of ``size`` bytes can plausibly hold."""
    declared = max(0, int(metadata.num_rows))
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            declared = max(declared, int(group.column(c).num_values))
    limit = PARQUET_FREE_ROWS + PARQUET_ROWS_PER_BYTE * size
    if declared > limit:
        raise InputError(f"{source}: declares {declared} rows or values in {size} bytes, more than "
                         f"{PARQUET_ROWS_PER_BYTE} per byte (+{PARQUET_FREE_ROWS}); a damaged or crafted file, "
                         "refused before reading")


def _plain_type(t: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)


def _arrow_tokens(items: Any, users: Any, source: str, item_name: str) -> tuple[list[str], np.ndarray, int, list[str]]:
    import pyarrow as pa
    import pyarrow.compute as pc

    items = items.combine_chunks() if hasattr(items, "combine_chunks") else items
    if users is not None:
        users = users.combine_chunks() if hasattr(users, "combine_chunks") else users
        if not _plain_type(users.type):
            raise InputError(f"{source}: the user column must hold strings or integers, not {users.type}")
        if users.null_count:
            row = int(np.flatnonzero(np.asarray(users.is_null()))[0])
            raise InputError(f"{source}: row {row}: the user is missing (null)")
    if pa.types.is_list(items.type) or pa.types.is_large_list(items.type):
        value_type = items.type.value_type
        if not _plain_type(value_type):
            raise InputError(f"{source}: column {item_name!r} must hold lists of strings or integers, "
                             f"not {items.type}")
        if items.null_count:
            row = int(np.flatnonzero(np.asarray(items.is_null()))[0])
            raise InputError(f"{source}: row {row}: the item list is missing (null)")
        parents = np.asarray(pc.list_parent_indices(items), dtype=np.int64)
        values = pc.list_flatten(items)
        row_of_record = np.arange(len(items), dtype=np.int64)
        n_records = len(items)
        shared: list[str] = []
        texts = _values_text(values, source, parents)
        if users is not None:
            codes, uniques = pd.factorize(np.asarray(users.to_pylist(), dtype=object), sort=False)
            row_of_record = codes.astype(np.int64)
            n_records = len(uniques)
            shared = user_value_terms(texts, [str(u) for u in uniques.tolist()])
        return texts, row_of_record[parents], n_records, shared
    if not _plain_type(items.type):
        raise InputError(f"{source}: column {item_name!r} must hold strings, integers or lists of them, "
                         f"not {items.type}")
    if users is None:
        raise InputError(f"{source}: column {item_name!r} holds one item per row: name the column that groups "
                         "rows into records (--user-column; user= in Python)")
    codes, uniques = pd.factorize(np.asarray(users.to_pylist(), dtype=object), sort=False)
    texts = _values_text(items, source, None)
    return texts, codes.astype(np.int64), len(uniques), user_value_terms(texts, [str(u) for u in uniques.tolist()])


def _values_text(values: Any, source: str, parents: np.ndarray | None) -> list[str]:
    """The values as non-empty strings (integers as decimal text); a null or empty one is an error."""
    import pyarrow.compute as pc

    if values.null_count:
        at = int(np.flatnonzero(np.asarray(values.is_null()))[0])
        row = at if parents is None else int(parents[at])
        raise InputError(f"{source}: row {row}: an item is missing (null)")
    text = pc.utf8_trim_whitespace(pc.cast(values, "string")).to_pylist()
    empty = [j for j, t in enumerate(text) if not t]
    if empty:
        row = empty[0] if parents is None else int(parents[empty[0]])
        raise InputError(f"{source}: row {row}: an empty item")
    return text


def write_parquet(records: list[list[str]], path: str | os.PathLike[str]) -> None:
    """Write records as a parquet table of one column ``items`` (a list of strings per record), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpora.common.files import atomic_open

    table = pa.table({"items": pa.array(records, type=pa.list_(pa.string()))})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    with atomic_open(path, "wb") as handle:
        handle.write(sink.getvalue())


# ---------------------------------------------------------------------------------------- DataFrames
def frame_tokens(frame: Any, user: str | int | None, item: str | int | None,
                 source: str = "DataFrame") -> tuple[list[str], np.ndarray, int, list[str]]:
    """Tokens, record numbers, record count and user-value terms of a pandas DataFrame (long rows or item lists)."""
    import pyarrow as pa

    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}")
    if len(frame) > MAX_TABLE_ROWS:
        raise InputError(f"{source}: {len(frame)} rows, more than {MAX_TABLE_ROWS}")
    names = [str(c) for c in frame.columns]
    item_name = _frame_column(frame, "item" if item is None and "item" in names else item, names, "item", source)
    user_name = None if user is None else _frame_column(frame, user, names, "user", source)
    if user_name is not None and user_name == item_name:
        raise InputError(f"{source}: the user column and the item column are the same column ({item_name!r})")
    check_column_roles(user_name, str(item_name), source)
    column = frame[item_name]
    sample = next((v for v in column if not _missing(v)), None)
    if isinstance(sample, (list, tuple, set, frozenset, np.ndarray)):
        values: list[Any] = []
        for row, cell in enumerate(column.tolist()):
            if _missing(cell):
                values.append(None)
                continue
            if not isinstance(cell, (list, tuple, set, frozenset, np.ndarray)):
                raise InputError(f"{source}: row {row}: column {item_name!r} mixes lists and single items")
            cell = sorted(cell, key=str) if isinstance(cell, (set, frozenset)) else list(cell)
            values.append([_cell_text(v, row, item_name, source) for v in cell])
        arr = pa.array(values, type=pa.list_(pa.string()))
    else:
        arr = pa.array([_cell_text(v, row, item_name, source) for row, v in enumerate(column.tolist())],
                       type=pa.string())
    users = None
    if user_name is not None:
        users = pa.array([_cell_text(v, row, user_name, source) for row, v in enumerate(frame[user_name].tolist())],
                         type=pa.string())
    return _arrow_tokens(arr, users, source, str(item_name))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA or value is pd.NaT


def _cell_text(value: Any, row: int, column: Any, source: str) -> str | None:
    """A cell as text: strings as they are, integers in decimal, missing values as ``None``."""
    if _missing(value):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    raise InputError(f"{source}: row {row}: column {column!r} holds a {type(value).__name__}; "
                     "expected strings or integers")


def _frame_column(frame: Any, spec: str | int | None, names: list[str], role: str, source: str) -> Any:
    if spec is None:
        raise InputError(f"{source}: name the {role} column ({role}=...); columns: {', '.join(map(repr, names[:12]))}")
    if spec in frame.columns:
        return spec
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool) and 0 <= int(spec) < len(names):
        return frame.columns[int(spec)]
    raise InputError(f"{source}: no column {spec!r}; columns: {', '.join(map(repr, names[:12]))}")
