"""Percentile-bootstrap intervals, defined once for every package.

All intervals here are 95% percentile-bootstrap intervals: draw ``resamples`` samples of the ``n``
observations with replacement (indices from the caller's numpy ``Generator``), compute the statistic
on each, and take the 2.5th and 97.5th percentiles of what was computed. The draws come in blocks of
at most ``max_cells`` indices (:func:`resample_blocks`), so memory stays bounded; the block size is
part of the result (a block is one ``rng.integers`` call), so it is fixed here and callers that
need the historical single draw pass ``max_cells=None``.

* :func:`bootstrap_ratio`: a ratio of sums (per-record numerators over per-record denominators), the
  aggregate of the semantic attack's metrics (AlShuhail2021 ch. 5); :func:`bootstrap_mean` is the
  case of unit denominators.
* :func:`paired_difference_interval`: two ratios of sums on the same records, one resample serving
  both (a paired bootstrap of their difference).
* :func:`bootstrap_interval`: the mean of a handful of runs (the figures' shaded band over seeds).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

__all__ = [
    "MAX_CELLS",
    "LOW",
    "HIGH",
    "resample_blocks",
    "percentile_interval",
    "bootstrap_ratio",
    "bootstrap_mean",
    "paired_difference_interval",
    "BOOTSTRAP_RESAMPLES",
    "bootstrap_interval",
]

MAX_CELLS = 2_000_000
"""Most indices drawn in one block (rows of ``n`` indices each, at least one row per block)."""

LOW, HIGH = 2.5, 97.5
"""The percentiles that bound a 95% interval."""

BOOTSTRAP_RESAMPLES = 2000
"""Resamples of :func:`bootstrap_interval` (the figures' intervals over runs)."""


def resample_blocks(
    rng: np.random.Generator, n: int, resamples: int, max_cells: int | None = MAX_CELLS
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield ``(start, stop, idx)``: resamples ``start..stop-1`` as an ``(stop - start, n)`` index array.

    Blocks hold at most ``max_cells`` indices (``None``: all resamples in one draw)."""
    step = resamples if max_cells is None else max(1, min(resamples, max_cells // max(n, 1)))
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        yield start, stop, rng.integers(0, n, size=(stop - start, n))


def percentile_interval(values: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of ``values`` (NaN, NaN when there are none)."""
    if len(values) == 0:
        return math.nan, math.nan
    return float(np.percentile(values, LOW)), float(np.percentile(values, HIGH))


def bootstrap_ratio(num: np.ndarray, den: np.ndarray, rng: np.random.Generator, b: int) -> tuple[float, float]:
    """95% percentile-bootstrap interval of ``sum(num) / sum(den)`` over ``b`` resamples of the positions.

    NaN, NaN when there is nothing to resample (no observations, ``b <= 0``, zero denominators);
    resamples whose denominators sum to zero are left out."""
    n = len(num)
    if n == 0 or b <= 0 or den.sum() == 0:
        return math.nan, math.nan
    ratios = np.empty(b)
    for start, stop, idx in resample_blocks(rng, n, b):
        d = den[idx].sum(axis=1)
        ratios[start:stop] = np.where(d > 0, num[idx].sum(axis=1) / np.maximum(d, 1), np.nan)
    return percentile_interval(ratios[~np.isnan(ratios)])


def bootstrap_mean(values: np.ndarray, rng: np.random.Generator, b: int) -> tuple[float, float]:
    """95% percentile-bootstrap interval of a mean: the ratio of sums with unit denominators."""
    return bootstrap_ratio(values, np.ones(len(values)), rng, b)


def paired_difference_interval(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, rng: np.random.Generator, b: int
) -> tuple[float, float]:
    """95% paired percentile-bootstrap interval of ``sum(num_a)/sum(den_a) - sum(num_b)/sum(den_b)``.

    The four arrays are aligned on the same observations and one resample of the positions serves
    both ratios; non-finite differences are left out (NaN, NaN when none is left)."""
    n = len(num_a)
    diffs = np.empty(b)
    for start, stop, idx in resample_blocks(rng, n, b):
        sda, sdb = den_a[idx].sum(axis=1), den_b[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            diffs[start:stop] = num_a[idx].sum(axis=1) / sda - num_b[idx].sum(axis=1) / sdb
    return percentile_interval(diffs[np.isfinite(diffs)])


def bootstrap_interval(
    values: np.ndarray, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of the mean of ``values`` (equal bounds when they cannot differ).

    Fewer than two values, or all equal: both bounds are the mean (NaN for no values). Otherwise
    ``resamples`` resamples drawn in one block from ``default_rng(seed)``."""
    n = len(values)
    if n < 2 or float(np.ptp(values)) == 0.0:
        mean = float(values.mean()) if n else float("nan")
        return mean, mean
    rng = np.random.default_rng(seed)
    ((_start, _stop, idx),) = resample_blocks(rng, n, resamples, max_cells=None)
    means = values[idx].mean(axis=1)
    low, high = np.percentile(means, [LOW, HIGH])
    return float(low), float(high)
