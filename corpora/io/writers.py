"""Writing a dataset in any of the formats of :mod:`corpora.io.formats`.

Writers sort the terms of each record (records keep their order), write atomically (temporary
file + rename, see :mod:`corpora.common.files`) and refuse a term the format cannot represent (a
separator inside it, an SPMF comment character in front, a line break) or an empty record outside
``jsonl``, in one line naming the record, instead of writing a file that reads back differently.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
from pathlib import Path

import numpy as np

from corpora.common.errors import InputError
from corpora.common.files import atomic_open
from corpora.dataset import TransactionDataset
from corpora.io.options import check_delimiter, detect_format
from corpora.io.parquet import write_parquet
from corpora.io.spmf import COMMENT_STARTS, SPMF_SEPARATORS

__all__ = ["jsonl_sha256", "write_dataset"]


def _bad_term(record: int, term: str, why: str, fmt: str) -> InputError:
    """The one-line error of a term the format cannot hold."""
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
        if term in SPMF_SEPARATORS:
            return "is an SPMF sequence separator"
        if term[0] in COMMENT_STARTS:
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
    delimiter = check_delimiter(fmt, delimiter)
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


def jsonl_sha256(ds: TransactionDataset) -> str:
    """SHA-256 (hex) of the bytes :func:`write_dataset` writes for ``ds`` as JSON lines (``X.jsonl``).

    It pins a dataset that is not one file (a named or synthetic dataset, rows read from a database) in
    a way anyone can check: ``python -m corpora convert SOURCE -o x.jsonl && sha256sum x.jsonl``.
    """
    import hashlib

    lines = _lines(ds, "jsonl", "")
    return hashlib.sha256(("\n".join(lines) + "\n").encode("utf-8") if lines else b"").hexdigest()
