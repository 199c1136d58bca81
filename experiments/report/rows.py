"""Selecting rows of a results table: the successful rows of some metrics that match filters."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["STEP_COLUMNS", "matches", "run_filters", "select_rows"]

STEP_COLUMNS = ("attack", "method", "chunks", "rank")
"""Columns an attack or utility step adds to a run's rows (the anonymizer's own rows leave them empty)."""


def matches(value: Any, wanted: Any) -> bool:
    """Whether a table value equals a filter value (booleans and numbers compared as such)."""
    if isinstance(wanted, bool) or isinstance(value, bool):
        return bool(value) == bool(wanted) if isinstance(value, bool) and isinstance(wanted, bool) else \
            str(value).lower() == str(wanted).lower()
    if isinstance(wanted, int | float) and not isinstance(value, str):
        try:
            return not math.isnan(float(value)) and float(value) == float(wanted)
        except (TypeError, ValueError):
            return False
    return str(value) == str(wanted)


def select_rows(df, metrics: Sequence[str], where: Sequence[tuple[str, Sequence[Any]]]):
    """The successful rows of ``metrics`` with a value whose columns match every ``where`` filter."""
    sel = df[(df["status"] == "ok") & (df["metric"].isin(metrics))]
    for col, wanted in where:
        mask = sel[col].map(lambda v, w=wanted: any(matches(v, x) for x in w))
        sel = sel[mask.astype(bool)]
    return sel[sel["value"].notna()]


def run_filters(where: Sequence[tuple[str, Sequence[Any]]]) -> list[tuple[str, Sequence[Any]]]:
    """``where`` without the filters on :data:`STEP_COLUMNS`: the same runs, for metrics of the release itself."""
    return [(key, val) for key, val in where if key not in STEP_COLUMNS]
