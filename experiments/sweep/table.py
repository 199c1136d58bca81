"""The tidy results table of a sweep, ``results.csv``: written from the run records, read back typed."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corpora.common.files import write_text_atomic
from experiments.sweep.grid import RUN_PARAMS, Run

__all__ = ["CSV_COLUMNS", "fmt", "read_results", "write_results_csv"]

CSV_COLUMNS = ("run", *RUN_PARAMS, "attack", "method", "chunks", "rank", "metric", "value", "seconds", "status",
               "error", "versions")
"""Columns of ``results.csv``."""


def fmt(value: Any) -> str:
    """A value as the table writes it (empty for None, repr for a float)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_results_csv(path: Path, runs: Sequence[Run], records: Mapping[str, Mapping[str, Any]]) -> int:
    """Write the tidy table of the finished ``runs`` atomically; return the number of data rows."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for run in runs:
        rec = records.get(run.key)
        if rec is None:
            continue
        params = run.params
        base = [run.key, *(fmt(params[p]) for p in RUN_PARAMS)]
        if rec["status"] == "error":
            writer.writerow([*base, "", "", "", "", "error", "", fmt(rec.get("seconds")), "error",
                             rec.get("error") or "", rec.get("versions", "")])
            n += 1
            continue
        for row in rec["rows"]:
            writer.writerow([*base, row["attack"], row["method"], row["chunks"], fmt(row.get("rank")), row["metric"],
                             fmt(row["value"]), fmt(row["seconds"]), "ok", "", rec.get("versions", "")])
            n += 1
    write_text_atomic(path, buf.getvalue())
    return n


def read_results(path: str | os.PathLike[str]):
    """Read ``results.csv`` into a pandas DataFrame with typed parameter columns."""
    import pandas as pd

    df = pd.read_csv(path, dtype={"run": str, "dataset": str, "horpart": str, "verpart": str, "attack": str,
                                  "method": str, "chunks": str, "metric": str, "status": str, "error": str,
                                  "refine": str, "safe": str,
                                  "versions": str}, keep_default_na=False, na_values={"value": [""], "seconds": [""]})
    if "rank" not in df.columns:  # a table written before the rank column existed
        df["rank"] = ""
    for col in ("records", "density", "k", "m", "max_cluster_size", "seed", "rank", "value", "seconds"):
        df[col] = pd.to_numeric(df[col].replace("", None), errors="coerce")
    for col in ("refine", "safe"):
        df[col] = df[col].map({"true": True, "false": False})
    return df
