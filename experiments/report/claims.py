"""A paper's stated results beside ours, computed from a sweep's results table.

A sweep file may list ``claims``: what a paper states about one line of one of its figures, with
the paper's numbers where it gives them. After a sweep, every claim is evaluated on
``results.csv`` (never typed by hand) and written into ``report.md`` as a table. Every number of
ours is a mean over the runs (the seeds) at one x value, in the units the figure plots (percent
for fractions); the runs' spread gives the noise the checks allow. A claim is judged on two
things, each on every point:

* the **curve** (``trend``: ``rising``, ``falling`` or ``flat``, over a numeric x):

  - ``rising``/``falling``: the last mean minus the first must move in the stated direction by
    more than ``tolerance`` (the least total change), and **no step** between adjacent x values
    may go against the direction by more than its noise: twice the standard error of the
    difference of the two means (sqrt(se_a² + se_b²), each se the runs' standard deviation over
    sqrt(runs)), at least ``step_tolerance`` (default 0); with a single run at either end of a
    step the noise is unknown and the claim's ``tolerance`` stands in. The table also prints the
    rank correlation of x and our means (Spearman's rho, :func:`scipy.stats.spearmanr`) and the
    share of steps in the stated direction.
  - ``flat``: the range of our means (largest minus smallest, over every x) is at most
    ``tolerance``.

* the **level** (``paper`` values, where the paper states numbers): at each of the paper's x
  values the ratio ours / paper. A point is on the paper's level when the ratio lies within
  [2/3, 3/2] (:data:`LEVEL_BAND`) or ``|ours - paper| <= tolerance``. A bound (``">90"``:
  "rising to over 90%") holds when ours is beyond it; an aggregate (``mean: 60``: "about 60%"
  over the swept k) compares the mean of our means over every x with the paper's number, and the
  table shows the range of ours. The level column prints the **geometric mean** of the per-point
  ratios (the median when a ratio is not positive), as ``x0.05``: ours is 1/20 of the paper's.

* a **comparison** (``rival``: the rows ``where`` selects with the keys of ``rival`` replaced are
  the rival line, e.g. ``method: random``): at every x (or category: ``x: dataset`` compares the
  two lines on every dataset) ours must be above the rival (below with ``lower: true``, for a
  loss such as tKd) by more than ``tolerance`` and by more than twice the standard error of the
  difference (paired by seed when both lines have the same seeds).

Verdicts: ``matches`` (the curve or comparison holds and the level, where stated, is the
paper's); ``trend only (level x0.05)`` (the curve holds, the level is off by that ratio);
``differs`` (the curve or the comparison fails); for paper values without a curve ``matches`` or
``differs (level x0.05)``; ``no data`` (no rows, or a trend with a single x value). A ``trend`` over
a categorical x (dataset, method) is refused when the sweep file is read.

``reason`` says, for a claim that does not match, what was measured to explain it (data, setting
or reading); the report prints it beside the verdict. Two keys put the measurement itself there,
computed from the same table, so the explanation is a number and not a sentence typed once:

* ``controls``: other row selections (``{dataset: WV2-fitted}``: a dataset fitted to the paper's
  published statistics) on which the same claim is evaluated, printed with their own verdict
  and level ratio.
* ``explain``: other metrics (``linkable_chunk_share``, the ceiling of PEM) printed at the claim's
  first and last x on the main rows, with the ``attack``/``method``/``chunks`` filters dropped
  (those metrics come from the anonymizer, not from an attacker).

The sweep's ``ours`` section (settings the papers do not state) is printed under the claims
table as "Settings we chose", each with the verdicts of the claims that measure its effect.
``python -m experiments.claims README.md results/`` copies each sweep's ``claims.md`` into the
README between ``<!-- claims:NAME -->`` and ``<!-- /claims:NAME -->`` markers, so the README's
tables are the sweeps' own output.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from experiments.plugins import all_metrics
from experiments.report.rows import run_filters, select_rows
from experiments.sweep.spec import TRENDS, Claim, PaperValue

__all__ = ["LEVEL_BAND", "TRENDS", "Claim", "ClaimResult", "LevelEvidence", "LevelPoint", "RivalEvidence",
           "TrendEvidence", "evaluate_claim", "fmt_signed", "fmt_value", "fmt_x", "judge_level", "judge_trend",
           "plotted_scale", "ratio_text"]

LEVEL_BAND = 1.5
"""Ours is on the paper's level when ours / paper lies within [1/LEVEL_BAND, LEVEL_BAND] = [2/3, 3/2]."""

Series = dict[Any, dict[Any, float]]
"""Per x value: each run's (seed's) value."""


@dataclass(frozen=True)
class TrendEvidence:
    """How our means move along x, judged on every step."""

    trend: str
    points: int
    rho: float
    """Spearman's rank correlation of x and our means (nan: fewer than 3 points or a constant line)."""
    steps_with: int
    """Steps in the stated direction (``flat``: steps of at most ``tolerance``)."""
    total: float
    """Last mean minus the first (``flat``: the largest minus the smallest)."""
    worst: float = 0.0
    """The largest step against the direction (0: none)."""
    worst_at: tuple[Any, Any] | None = None
    worst_noise: float = 0.0
    """The noise allowed at that step."""
    holds: bool = False
    why: str = ""
    """Why it fails, measured (empty when it holds)."""


@dataclass(frozen=True)
class LevelPoint:
    """One of the paper's numbers beside ours."""

    paper: PaperValue
    ours: float | None
    ratio: float
    ok: bool


@dataclass(frozen=True)
class LevelEvidence:
    """Our level against the paper's numbers."""

    points: tuple[LevelPoint, ...]
    ratio: float
    """Geometric mean of the per-point ratios ours / paper (median when one is not positive; nan: none)."""
    holds: bool


@dataclass(frozen=True)
class RivalEvidence:
    """Ours against the rival line at every x both have."""

    beats: int
    points: int
    margins: tuple[float, ...]
    """The margin each point had to clear (max of ``tolerance`` and twice the difference's SE)."""

    @property
    def holds(self) -> bool:
        return self.points > 0 and self.beats == self.points


@dataclass
class ClaimResult:
    """A claim evaluated on a results table."""

    claim: Claim
    ours: dict[Any, float] = field(default_factory=dict)
    """Our mean at every x of the selected rows (plotted units); keys are floats, or strings for a category."""
    verdict: str = "no data"
    rival: dict[Any, float] = field(default_factory=dict)
    """The rival line's mean at every x (comparison claims only)."""
    controls: list[ClaimResult] = field(default_factory=list)
    """The claim evaluated on each of ``claim.controls``."""
    explained: dict[str, dict[Any, float]] = field(default_factory=dict)
    """Each ``claim.explain`` metric's means at the claim's x values (plotted units)."""
    spread: dict[Any, float] = field(default_factory=dict)
    """The standard error of our mean at every x (nan: one run)."""
    trend: TrendEvidence | None = None
    level: LevelEvidence | None = None
    versus: RivalEvidence | None = None


def plotted_scale(metric: str) -> float:
    """100 for a metric plotted in percent (a fraction), else 1: the units claims and figures use."""
    info = all_metrics().get(metric)
    return 100.0 if info is not None and info.fraction else 1.0


def fmt_value(v: float | None) -> str:
    """A number as the claims tables print it (3 significant digits, thousands separated)."""
    if v is None or math.isnan(v):
        return "-"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def fmt_signed(v: float) -> str:
    """:func:`fmt_value` with its sign."""
    return ("+" if v >= 0 else "") + fmt_value(v)


def fmt_x(v: Any) -> str:
    """An x value: integers without a decimal point, categories as they are."""
    if isinstance(v, float):
        return fmt_value(v) if not v.is_integer() or abs(v) >= 1000 else str(int(v))
    return str(v)


def _key(value: Any, categorical: bool) -> Any:
    return str(value) if categorical else float(value)


def _series(df, metric: str, x: str, where: Sequence[tuple[str, tuple[Any, ...]]], categorical: bool) -> Series:
    """Each run's value at every x (rows of one seed at one x averaged), in plotted units."""
    sel = select_rows(df, (metric,), where)
    if sel.empty:
        return {}
    seeds = sel["seed"] if "seed" in sel.columns else 0
    runs = sel.assign(_run=seeds).groupby([x, "_run"], dropna=False, sort=True)["value"]
    grouped = runs.mean() * plotted_scale(metric)
    out: Series = {}
    for (at, run), value in grouped.items():
        out.setdefault(_key(at, categorical), {})[run] = float(value)
    return out


def _mean(runs: Mapping[Any, float]) -> float:
    return float(np.mean(list(runs.values())))


def _se(values: Sequence[float]) -> float:
    """The standard error of the mean of ``values`` (nan for a single value)."""
    if len(values) < 2:
        return math.nan
    return float(np.std(values, ddof=1) / math.sqrt(len(values)))


def _means(df, metric: str, x: str, where: Sequence[tuple[str, tuple[Any, ...]]],
           categorical: bool = False) -> dict[Any, float]:
    return {at: _mean(runs) for at, runs in _series(df, metric, x, where, categorical).items()}


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    if len(xs) < 3 or len(set(ys)) < 2:
        return math.nan
    from scipy.stats import spearmanr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(xs, ys).statistic)


def judge_trend(means: Mapping[float, float], spread: Mapping[float, float], trend: str, tolerance: float,
                step_tolerance: float = 0.0) -> TrendEvidence:
    """Whether ``means`` (x -> our mean) follow ``trend`` on every step (see the module docstring).

    ``spread``: the standard error of each mean (nan where there is one run)."""
    xs = sorted(means)
    ys = [means[a] for a in xs]
    rho = _spearman(xs, ys)
    if len(xs) < 2:
        return TrendEvidence(trend, len(xs), rho, 0, 0.0, why="one x value: no trend to judge")
    steps = [ys[i + 1] - ys[i] for i in range(len(ys) - 1)]
    if trend == "flat":
        total = max(ys) - min(ys)
        holds = total <= tolerance
        why = "" if holds else f"range {fmt_value(total)} > tolerance {fmt_value(tolerance)}"
        return TrendEvidence(trend, len(xs), rho, sum(abs(s) <= tolerance for s in steps), total,
                             holds=holds, why=why)
    sign = 1.0 if trend == "rising" else -1.0
    worst: tuple[float, float, tuple[Any, Any], float] | None = None  # (excess over the noise, step, where, noise)
    for i, step in enumerate(steps):
        a, b = spread.get(xs[i], math.nan), spread.get(xs[i + 1], math.nan)
        noise = tolerance if math.isnan(a) or math.isnan(b) else 2.0 * math.sqrt(a * a + b * b)
        noise = max(noise, step_tolerance)
        against = -sign * step
        if against > 0 and (worst is None or against - noise > worst[0]):
            worst = (against - noise, against, (xs[i], xs[i + 1]), noise)
    broken = worst is not None and worst[0] > 0
    total = ys[-1] - ys[0]
    moves = sign * total > tolerance
    why = ""
    if not moves:
        why = f"total not {'>' if sign > 0 else '<'} {fmt_value(sign * tolerance) if tolerance else '0'}"
    if worst is not None and broken:
        step = (f"step {fmt_x(worst[2][0])}->{fmt_x(worst[2][1])}: {fmt_signed(-sign * worst[1])} "
                f"against the trend (noise {fmt_value(worst[3])})")
        why = "; ".join(filter(None, (why, step)))
    if worst is None:
        return TrendEvidence(trend, len(xs), rho, sum(sign * s > 0 for s in steps), total, holds=moves, why=why)
    return TrendEvidence(trend, len(xs), rho, sum(sign * s > 0 for s in steps), total, worst[1], worst[2], worst[3],
                         moves and not broken, why)


def _ratio(ours: float, paper: float) -> float:
    return ours / paper if paper != 0 else math.nan


def _level_point(pv: PaperValue, ours: float | None, tolerance: float) -> LevelPoint:
    if ours is None:
        return LevelPoint(pv, None, math.nan, False)
    ratio = _ratio(ours, pv.value)
    if pv.bound == ">":
        ok = ours > pv.value
    elif pv.bound == "<":
        ok = ours < pv.value
    else:
        ok = abs(ours - pv.value) <= tolerance or (ratio > 0 and 1 / LEVEL_BAND <= ratio <= LEVEL_BAND)
    return LevelPoint(pv, ours, ratio, ok)


def judge_level(paper: Sequence[PaperValue], means: Mapping[Any, float], tolerance: float,
                categorical: bool = False) -> LevelEvidence:
    """Our means against the paper's numbers (see the module docstring)."""
    points = []
    for pv in paper:
        if pv.is_mean:
            ours = float(np.mean(list(means.values()))) if means else None
        else:
            ours = means.get(_key(pv.at, categorical))
        points.append(_level_point(pv, ours, tolerance))
    ratios = [p.ratio for p in points if not math.isnan(p.ratio)]
    if not ratios:
        ratio = math.nan
    elif all(r > 0 for r in ratios):
        ratio = float(np.exp(np.mean(np.log(ratios))))
    else:
        ratio = float(np.median(ratios))
    return LevelEvidence(tuple(points), ratio, bool(points) and all(p.ok for p in points))


def _rival(ours: Series, rival: Series, tolerance: float, lower: bool) -> RivalEvidence:
    beats, margins = 0, []
    both = [a for a in ours if a in rival]
    for at in both:
        mine, theirs = ours[at], rival[at]
        diff = (_mean(theirs) - _mean(mine)) if lower else (_mean(mine) - _mean(theirs))
        paired = sorted(set(mine) & set(theirs), key=str)
        if len(paired) >= 2 and len(paired) == len(mine) == len(theirs):
            se = _se([mine[s] - theirs[s] for s in paired])
        else:
            se = math.sqrt(_se(list(mine.values())) ** 2 + _se(list(theirs.values())) ** 2)
        margin = tolerance if math.isnan(se) else max(tolerance, 2.0 * se)
        margins.append(margin)
        beats += diff > margin
    return RivalEvidence(beats, len(both), tuple(margins))


def ratio_text(ratio: float) -> str:
    """A level ratio as the tables print it: ``x0.05``, ``x1.2``, ``x20`` (``n/a`` when undefined)."""
    if math.isnan(ratio):
        return "n/a"
    return f"x{ratio:.0f}" if abs(ratio) >= 10 else f"x{ratio:.2g}"


def _verdict(r: ClaimResult) -> str:
    if not r.ours or (r.trend is not None and r.trend.points < 2):
        return "no data"
    shape = [e.holds for e in (r.trend, r.versus) if e is not None]
    if shape and not all(shape):
        return "differs"
    if r.level is None or r.level.holds:
        return "matches"
    level = f"level {ratio_text(r.level.ratio)}"
    return f"trend only ({level})" if shape else f"differs ({level})"


def evaluate_claim(df, claim: Claim) -> ClaimResult:
    """Our numbers for ``claim`` from the tidy results frame ``df``, the verdict, controls and explanations."""
    cat = claim.categorical
    result = ClaimResult(claim)
    result.controls = [evaluate_claim(df, claim.under(override)) for override in claim.controls]
    neutral = run_filters(claim.where)
    result.explained = {metric: _means(df, metric, claim.x, neutral, cat) for metric in claim.explain}
    runs = _series(df, claim.metric, claim.x, claim.where, cat)
    result.ours = {at: _mean(r) for at, r in runs.items()}
    result.spread = {at: _se(list(r.values())) for at, r in runs.items()}
    if not runs:
        return result
    if claim.trend is not None:
        result.trend = judge_trend(result.ours, result.spread, claim.trend, claim.tolerance, claim.step_tolerance)
    if claim.paper:
        result.level = judge_level(claim.paper, result.ours, claim.tolerance, cat)
    if claim.rival:
        keys = {k for k, _ in claim.rival}
        rival_where = tuple((k, v) for k, v in claim.where if k not in keys) + claim.rival
        rival = _series(df, claim.metric, claim.x, rival_where, cat)
        result.rival = {at: _mean(r) for at, r in rival.items()}
        result.versus = _rival(runs, rival, claim.tolerance, claim.lower)
    result.verdict = _verdict(result)
    return result


# --------------------------------------------------------------------------- the table
