"""The metric table of a semantic attack (AlShuhail2021 section 5.2): rows, paired differences, reports.

One :class:`MetricRow` per (metric, part, method) with its 95% percentile-bootstrap interval over
the records; one :class:`DiffRow` per (metric, part) for the paired difference attack minus a
baseline (:func:`paired_differences`, one resample of the records serving both methods, from
:func:`corpora.common.stats.paired_difference_interval`). :class:`SemanticMetrics` holds them and
prints them as a plain-text table, JSON or tidy rows. The metrics themselves are defined in
:mod:`attacks.semantic.metrics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from corpora.common.stats import paired_difference_interval

__all__ = ["METRICS", "STREAMS", "PARTS", "BASELINES", "HIGHER_IS_BETTER", "MetricRow", "DiffRow", "PerRecord",
           "SemanticMetrics", "paired_differences"]

METRICS = ("accuracy", "accuracy_one_to_one", "accuracy_disassociated", "transaction_breakage", "km_breakage", "wmd",
           "accuracy_disassociated_strict", "transaction_breakage_strict", "transaction_breakage_literal")
"""Metric names in table order (defined in :mod:`attacks.semantic.metrics`): ``accuracy`` is eq. 5.4 as
printed (class reading), ``accuracy_one_to_one`` the same on the fixed pairing, ``accuracy_disassociated``
the disassociated terms only; the ``_strict`` ones use the matched one-to-one pairing and
``transaction_breakage_literal`` is eqs. 5.2-5.3 as printed."""
STREAMS = {"accuracy_disassociated": 0, "transaction_breakage": 1, "km_breakage": 2, "wmd": 3,
           "accuracy_disassociated_strict": 4, "transaction_breakage_strict": 5, "transaction_breakage_literal": 6,
           "accuracy": 7, "accuracy_one_to_one": 8}
"""Metric -> the number seeding its bootstrap stream (kept when metrics are renamed or added, so the
intervals of the others do not move: ``accuracy_disassociated`` keeps the stream of the earlier
``accuracy``, ``accuracy_disassociated_strict`` that of ``accuracy_strict``)."""
BASELINES = ("random", "blind", "oracle")
"""The reference methods evaluated beside an attack (see :func:`evaluate_semantic`)."""
HIGHER_IS_BETTER = {m: m != "wmd" for m in METRICS}
PARTS = ("record", "term", "overall")


@dataclass(frozen=True)
class MetricRow:
    metric: str
    part: str
    method: str
    value: float
    lo: float
    hi: float
    n: int


@dataclass(frozen=True)
class DiffRow:
    """The paired difference attack minus a baseline on the same records, with a bootstrap interval.

    Both methods are scored on the same release, truth and records; the interval resamples the
    records once for both (paired), so the spread of the records' difficulty cancels out.
    """

    metric: str
    part: str
    method: str
    baseline: str
    value: float
    lo: float
    hi: float
    n: int


PerRecord = dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""(metric, part) -> (record ids, numerators, denominators) of the records that count."""


def paired_differences(
    attack: PerRecord, base: PerRecord, method: str, baseline: str, seed: int, bootstrap: int
) -> list[DiffRow]:
    """Attack minus baseline per (metric, part) on the records both count, with a paired bootstrap:
    one resample of the records serves both methods (ratio of sums for each, then the difference)."""
    out: list[DiffRow] = []
    for key, (ids_a, num_a, den_a) in attack.items():
        if key not in base:
            continue
        ids_b, num_b, den_b = base[key]
        common, ia, ib = np.intersect1d(ids_a, ids_b, assume_unique=True, return_indices=True)
        n = len(common)
        na, da, nb, db = num_a[ia], den_a[ia], num_b[ib], den_b[ib]
        if n == 0 or da.sum() == 0 or db.sum() == 0:
            out.append(DiffRow(key[0], key[1], method, baseline, math.nan, math.nan, math.nan, n))
            continue
        value = float(na.sum() / da.sum() - nb.sum() / db.sum())
        lo = hi = math.nan
        if bootstrap > 0:
            rng = np.random.default_rng([seed, 7, STREAMS[key[0]], PARTS.index(key[1])])
            lo, hi = paired_difference_interval(na, da, nb, db, rng, bootstrap)
        out.append(DiffRow(key[0], key[1], method, baseline, value, lo, hi, n))
    return out


@dataclass
class SemanticMetrics:
    """The metric table: one :class:`MetricRow` per (metric, part, method)."""

    rows: list[MetricRow] = field(default_factory=list)
    selector: str = ""
    records: int = 0
    differences: list[DiffRow] = field(default_factory=list)
    """Attack minus random, paired on the records (see :class:`DiffRow`)."""
    info: dict[str, Any] = field(default_factory=dict)
    """Counters of the attack (unknown terms, scorer, ...) for the JSON report."""
    per_record: dict[str, Any] = field(default_factory=dict, repr=False)
    """Per method, the per-record values behind the rows (for paired differences)."""

    def difference_vs(self, other: SemanticMetrics, baseline: str = "random", seed: int = 0,
                      bootstrap: int = 1000) -> list[DiffRow]:
        """This attack minus ``other``'s method ``baseline``, paired on the records both count.

        Both must come from the same release, truth and original (the sweep evaluates the random
        baseline once per run and pairs every method of the run with it)."""
        mine, theirs = self.per_record.get(self.selector), other.per_record.get(baseline)
        if mine is None or theirs is None:
            raise KeyError((self.selector, baseline))
        return paired_differences(mine, theirs, self.selector, baseline, seed, bootstrap)

    def difference(self, metric: str, part: str, baseline: str = "random") -> DiffRow:
        """The paired difference of one (metric, part) against ``baseline``."""
        for d in self.differences:
            if (d.metric, d.part, d.baseline) == (metric, part, baseline):
                return d
        raise KeyError((metric, part, baseline))

    def as_json(self) -> dict[str, Any]:
        """One object: ``metrics[method][metric][part] = {value, lo, hi, n}`` for the attack and every
        baseline, ``difference_vs_random[metric][part] = {value, lo, hi, n}``, ``selector``, ``records``
        and ``info``. ``nan`` becomes ``null``."""

        def num(x: float) -> float | None:
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)

        metrics: dict[str, Any] = {}
        for r in self.rows:
            metrics.setdefault(r.method, {}).setdefault(r.metric, {})[r.part] = {
                "value": num(r.value), "lo": num(r.lo), "hi": num(r.hi), "n": r.n}
        diffs: dict[str, Any] = {}
        for d in self.differences:
            if d.baseline == "random":
                diffs.setdefault(d.metric, {})[d.part] = {"value": num(d.value), "lo": num(d.lo), "hi": num(d.hi),
                                                          "n": d.n}
        return {"selector": self.selector, "records": self.records, "metrics": metrics,
                "difference_vs_random": diffs, "info": self.info}

    def as_rows(self) -> list[dict[str, Any]]:
        """Tidy rows: dicts with metric, part, method, value, lo, hi (and n, the records counted)."""
        return [
            {"metric": r.metric, "part": r.part, "method": r.method, "value": r.value, "lo": r.lo, "hi": r.hi, "n": r.n}
            for r in self.rows
        ]

    def to_frame(self) -> Any:
        """The tidy rows of :meth:`as_rows` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.as_rows(), columns=["metric", "part", "method", "value", "lo", "hi", "n"])

    def __repr__(self) -> str:
        return f"SemanticMetrics(selector={self.selector!r}, records={self.records}, rows={len(self.rows)})"

    def get(self, metric: str, part: str, method: str | None = None) -> float:
        """The value of one cell (``method`` defaults to the attack's selector)."""
        method = method or self.selector
        for r in self.rows:
            if (r.metric, r.part, r.method) == (metric, part, method):
                return r.value
        raise KeyError((metric, part, method))

    def format_table(self) -> str:
        """A plain-text table: one line per (metric, part), the attack beside the random baseline."""
        width = max([len("metric"), *(len(r.metric) for r in self.rows)]) + 2
        head = f"{'metric':<{width}}{'part':<9}{self.selector + ' [95% CI]':<28}{'random [95% CI]':<28}{'n':>7}"
        lines = [head, "-" * len(head)]
        cells: dict[tuple[str, str, str], MetricRow] = {(r.metric, r.part, r.method): r for r in self.rows}
        seen: list[tuple[str, str]] = []
        for r in self.rows:
            if (r.metric, r.part) not in seen:
                seen.append((r.metric, r.part))

        def fmt(row: MetricRow | None) -> str:
            if row is None or math.isnan(row.value):
                return "n/a"
            return f"{row.value:.3f} [{row.lo:.3f}, {row.hi:.3f}]"

        for metric, part in seen:
            att = cells.get((metric, part, self.selector))
            rnd = cells.get((metric, part, "random"))
            n = (att or rnd).n if (att or rnd) else 0
            lines.append(f"{metric:<{width}}{part:<9}{fmt(att):<28}{fmt(rnd):<28}{n:>7}")
        others = [m for m in BASELINES[1:] if any(r.method == m for r in self.rows) and m != self.selector]
        if others or self.differences:
            diff = {(d.metric, d.part): d for d in self.differences if d.baseline == "random"}
            head2 = f"{'metric':<{width}}{'part':<9}{'attack - random [95% CI]':<28}" + "".join(
                f"{m + ' [95% CI]':<28}" for m in others)
            lines += ["", head2, "-" * len(head2)]
            for metric, part in seen:
                d = diff.get((metric, part))
                dtxt = "n/a" if d is None or math.isnan(d.value) else f"{d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}]"
                lines.append(f"{metric:<{width}}{part:<9}{dtxt:<28}" + "".join(
                    f"{fmt(cells.get((metric, part, m))):<28}" for m in others))
        return "\n".join(lines)
