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
    (:mod:`corpora.io.parquet`). Written as one list column ``items``; holds empty records too.

What is never silently turned into terms (when the reading was not declared): a first line that
reads as a header (``user_id,item``; :func:`corpora.io.headers.looks_like_header`) in a basket or kdd
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

Memory: :func:`read_dataset` streams SPMF/FIMI files (:func:`corpora.io.spmf.stream_spmf`, blocks of whole lines;
term ids as int32, the vocabulary sorted and the ids relabelled once at the end), so 10M records of
10 items read in about 1.1 GB instead of holding the file, its tokens and their int64 keys at once
(over 10 GB); the result and every error message are the whole-file reader's (a file with comment or
``@ITEM`` lines, or non-ASCII text, is read whole). The other formats, and :func:`parse_dataset` on
bytes already in memory, are parsed whole.

Writers sort the terms of each record (records keep their order), write atomically (temporary
file + rename, see :mod:`corpora.common.files`) and refuse a term the format cannot represent.

This module is the entry point of :mod:`corpora.io`: :func:`read_dataset`, :func:`parse_dataset`
and the names every caller uses. The work is done by one module per role: :mod:`corpora.io.options`
(format names, extensions, which reading options apply), :mod:`corpora.io.spmf`,
:mod:`corpora.io.lines` (basket, kdd, jsonl), :mod:`corpora.io.tabular` (long tables),
:mod:`corpora.io.parquet`, :mod:`corpora.io.frames` (DataFrames), :mod:`corpora.io.tokens` (tokens
to the dataset's CSR arrays) and :mod:`corpora.io.writers`.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

from corpora.common.errors import InputError
from corpora.common.files import read_bounded
from corpora.dataset import TransactionDataset
from corpora.io.frames import dataset_from_frame
from corpora.io.lines import read_basket, read_jsonl, read_kdd, refuse_long_layout, sniff_long_layout
from corpora.io.options import (
    COLUMN_FORMATS,
    EXTENSIONS,
    FORMATS,
    HEADER_FORMATS,
    MAX_LINE_BYTES,
    check_delimiter,
    detect_format,
    resolve_format,
)
from corpora.io.parquet import parquet_tokens
from corpora.io.spmf import numeric_spmf, read_spmf, stream_spmf, text_spmf
from corpora.io.tabular import parse_long
from corpora.io.tokens import check_controls, dataset_from_tokens, decode_text, no_records, user_terms
from corpora.io.writers import write_dataset

__all__ = ["COLUMN_FORMATS", "EXTENSIONS", "FORMATS", "HEADER_FORMATS", "MAX_LINE_BYTES", "check_controls",
           "dataset_from_frame", "dataset_from_tokens", "detect_format", "parse_dataset", "read_dataset",
           "refuse_long_layout", "resolve_format", "sniff_long_layout", "write_dataset"]


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
    check_delimiter(fmt, delimiter)
    name = path.name
    while Path(name).suffix:
        name = Path(name).stem
    if fmt == "parquet":
        if delimiter is not None:
            raise InputError("a delimiter does not apply to the parquet format")
        flat, rows, n_rows, shared = parquet_tokens(path, user_column, item_column)
        if n_rows == 0:
            raise no_records(path)
        return dataset_from_tokens(flat, rows, n_rows, name=name,
                                   metadata=user_terms({"path": str(path), "format": fmt}, shared))
    if fmt == "spmf":
        _check_file(path)
        streamed = stream_spmf(path, name, {"path": str(path), "format": fmt})
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
    delimiter = check_delimiter(fmt, delimiter)
    if fmt == "long" and not declared:
        delimiter = "\t" if re.search(r"\.(tsv|tab)(\.gz)?$", source.lower()) else ","
    meta = {"path": source, "format": fmt, **(metadata or {})}
    check_controls(data, source)
    if fmt == "spmf":
        fast = numeric_spmf(data, name, meta)
        if fast is None:
            fast = text_spmf(data, name, meta)
        if fast is not None:
            return fast
    text = decode_text(data, source)
    rename: dict[str, str] = {}
    if fmt == "spmf":
        flat, rows, n_rows, rename = read_spmf(text, source)
    elif fmt == "basket":
        flat, rows, n_rows = read_basket(text, source, delimiter, header, declared, guessed)
    elif fmt == "kdd":
        flat, rows, n_rows = read_kdd(text, source, delimiter, header)
    elif fmt == "long":
        flat, rows, n_rows, shared = parse_long(text, source, delimiter, user_column, item_column, header)
        meta = user_terms(meta, shared)
    else:
        flat, rows, n_rows = read_jsonl(text, source)
    if n_rows == 0:
        raise no_records(source)
    return dataset_from_tokens(flat, rows, n_rows, name=name, metadata=meta, rename=rename)
