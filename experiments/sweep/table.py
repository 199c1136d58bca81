"""Reading the tidy results table of a sweep, ``results.csv``, with typed columns (pandas)."""

from __future__ import annotations

import os

__all__ = ["read_results"]


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
