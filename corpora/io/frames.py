"""pandas DataFrames to datasets: long rows (a user and an item column) or one list of items per row.

The same two shapes as a parquet table (:mod:`corpora.io.parquet`, whose arrow reading this
shares), and the same rule: the user column only groups rows into records and is then dropped.
:func:`dataset_from_frame` is ``corpora.from_dataframe``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.headers import check_column_roles
from corpora.io.parquet import MAX_TABLE_ROWS, arrow_tokens
from corpora.io.tokens import dataset_from_tokens, user_terms

if TYPE_CHECKING:  # pandas is imported where a DataFrame is read, not with the readers of files
    import pandas as pd

__all__ = ["dataset_from_frame", "frame_tokens"]


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
    return dataset_from_tokens(flat, rows, n_rows, name=name, metadata=user_terms({"format": "dataframe"}, shared))


def frame_tokens(frame: Any, user: str | int | None, item: str | int | None,
                 source: str = "DataFrame") -> tuple[list[str], np.ndarray, int, list[str]]:
    """Tokens, record numbers, record count and user-value terms of a pandas DataFrame (long rows or item lists)."""
    import pandas as pd
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
    return arrow_tokens(arr, users, source, str(item_name))


def _missing(value: Any) -> bool:
    import pandas as pd

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
