"""The file formats by name: which format a path is read or written in, and which reading options apply.

:data:`FORMATS` names them, :data:`EXTENSIONS` maps a file extension to one, and
:func:`resolve_format` checks the reading options (``header``, ``user_column``, ``item_column``,
``delimiter`` through :func:`check_delimiter`) against the format before anything is read. The
readers and writers (:mod:`corpora.io.formats`) and every command line that reads a dataset use
these, so an option that does not apply is refused in the same one line everywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from corpora.common.errors import InputError

__all__ = ["COLUMN_FORMATS", "EXTENSIONS", "FORMATS", "HEADER_FORMATS", "MAX_LINE_BYTES", "check_delimiter",
           "detect_format", "resolve_format"]

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


def check_delimiter(fmt: str, delimiter: str | None) -> str:
    """``delimiter`` checked against ``fmt``, or the format's default delimiter when it is ``None``."""
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
