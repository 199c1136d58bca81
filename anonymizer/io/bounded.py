"""Recognising parquet files, and opening one within the read bounds (shared by the release and truth readers).

A file is parquet when it starts with ``PAR1``; an output gets the parquet form when its name ends
in ``.parquet``. :func:`open_bounded` checks a file's size on disk, its row count and its uncompressed
column bytes against :data:`anonymizer.model.clusters.MAX_JSON_BYTES` and :data:`MAX_ROWS` before any
data is decoded.
"""

from __future__ import annotations

import os
from typing import Any

from anonymizer.model.clusters import MAX_JSON_BYTES
from corpora.common.errors import InputError

__all__ = ["PARQUET_MAGIC", "MAX_ROWS", "is_parquet", "wants_parquet", "open_bounded"]

PARQUET_MAGIC = b"PAR1"
MAX_ROWS = 2**31 - 1
"""Most rows (clusters and joint clusters, or truth rows) a parquet file may hold."""


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is a parquet file: it starts with ``PAR1`` (or, not a readable regular file, its
    name ends in ``.parquet``)."""
    if not os.path.isfile(path):  # a pipe or device: reading its first bytes would consume them
        return wants_parquet(path)
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == PARQUET_MAGIC
    except OSError:
        return wants_parquet(path)


def wants_parquet(path: str | os.PathLike[str]) -> bool:
    """True if an output named ``path`` gets the parquet form (its name ends in ``.parquet``)."""
    return str(path).lower().endswith(".parquet")


def open_bounded(path: str | os.PathLike[str]) -> Any:
    """``pyarrow.parquet.ParquetFile`` of ``path`` once its size on disk, its row count and its
    uncompressed column bytes are checked against the bounds (no data is decoded yet)."""
    import pyarrow.parquet as pq

    source = str(path)
    try:
        disk = os.path.getsize(path)
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None
    if disk > MAX_JSON_BYTES:
        raise InputError(f"{source}: {disk} bytes, larger than {MAX_JSON_BYTES} bytes; refusing to read it")
    handle = pq.ParquetFile(source)
    meta = handle.metadata
    if meta.num_rows > MAX_ROWS:
        raise InputError(f"{source}: {meta.num_rows} rows, more than {MAX_ROWS}")
    unpacked = sum(meta.row_group(g).total_byte_size for g in range(meta.num_row_groups))
    if unpacked > MAX_JSON_BYTES:
        raise InputError(f"{source}: {unpacked} bytes of column data once uncompressed, more than "
                         f"{MAX_JSON_BYTES}; refusing to read it")
    return handle
