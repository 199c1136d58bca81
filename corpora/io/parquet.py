"""Parquet tables: long (a user and an item column) or one list of items per row; and the parquet writer.

Read with pyarrow, bounded before any column is decoded: the file's size
(:data:`MAX_PARQUET_BYTES`), its row count (:data:`MAX_TABLE_ROWS`) and the rows and values its
footer declares per byte of file (:data:`PARQUET_ROWS_PER_BYTE`). The user column only groups rows
into records (:mod:`corpora.io.tabular` explains the rule); integer items are read as their
decimal text. :func:`arrow_tokens` turns arrow columns into tokens; the DataFrame reader
(:mod:`corpora.io.frames`) goes through it too.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np

from corpora.common.errors import InputError
from corpora.common.files import atomic_open
from corpora.io.headers import check_column_roles, user_value_terms
from corpora.io.tokens import factorize

__all__ = ["MAX_PARQUET_BYTES", "MAX_TABLE_ROWS", "PARQUET_FREE_ROWS", "PARQUET_ROWS_PER_BYTE", "arrow_tokens",
           "parquet_tokens", "write_parquet"]

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
    return arrow_tokens(table.column(item_name), users, source, item_name)


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


def arrow_tokens(items: Any, users: Any, source: str, item_name: str) -> tuple[list[str], np.ndarray, int, list[str]]:
    """Tokens, record numbers, record count and user-value terms of an arrow item column (lists or scalars)."""
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
            codes, uniques = factorize(users.to_pylist())
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
    codes, uniques = factorize(users.to_pylist())
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

    table = pa.table({"items": pa.array(records, type=pa.list_(pa.string()))})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    with atomic_open(path, "wb") as handle:
        handle.write(sink.getvalue())
