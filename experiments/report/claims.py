"""A paper's stated results beside ours, computed from a sweep's results table.

A sweep file may list ``claims``: what a paper states about one line of one of its figures, with
the paper's numbers where it gives them. After a sweep, every claim is evaluated on
``results.csv`` (never typed by hand) and written into ``report.md`` as a table: the paper's
statement and numbers, ours at the same x values, and a verdict:

* ``trend`` (``rising``, ``falling`` or ``flat``): the sign of the change between the first and
  the last x of our means, with ``flat`` meaning a change of at most ``tolerance`` (in the units the
  figure plots: percent for fractions). "trend matches" when ours has the same sign and, for
  ``rising``/``falling``, moves by more than ``tolerance``; the paper's values, when given, are
  printed beside ours but not judged (the stand-in data set the level).
* ``paper`` values without a trend: "values match" when each of ours lies within ``tolerance`` of
  the paper's.
* ``rival`` (a comparison between two lines, e.g. "ABA beats random", "NGD beats WE"): the rows
  ``where`` selects, with the keys of ``rival`` replaced, are the rival line; "comparison matches"
  when ours is above the rival's by more than ``tolerance`` at every x both have (and, with a
  ``trend``, the trend holds too).

``reason`` says, for a claim that differs, what was measured to explain it (data, setting or
reading); the report prints it beside the verdict. Two keys put the measurement itself there,
computed from the same table, so the explanation is a number and not a sentence typed once:

* ``controls``: other row selections (``{dataset: WV2-fitted}``: a dataset fitted to the paper's
  published statistics) on which the same claim is evaluated. A trend that holds on the control
  and not on the main data is explained by what the control changes.
* ``explain``: other metrics (``linkable_chunk_share``, the ceiling of PEM) printed at the claim's
  first and last x on the main rows, with the ``attack``/``method``/``chunks`` filters dropped
  (those metrics come from the anonymizer, not from an attacker). ``python -m experiments.claims README.md
results/`` copies each sweep's table into the README between ``<!-- claims:NAME -->`` and
``<!-- /claims:NAME -->`` markers, so the README's tables are the sweeps' own output.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpora.common.errors import InputError
from corpora.common.files import write_text_atomic
from experiments.plugins import all_metrics
from experiments.report.rows import select_rows
from experiments.sweep.spec import TRENDS, Claim

__all__ = ["TRENDS", "Claim", "ClaimResult", "evaluate_claim", "claims_table", "update_readme"]

@dataclass
class ClaimResult:
    """A claim evaluated on a results table."""

    claim: Claim
    ours: dict[float, float] = field(default_factory=dict)
    """Our mean at every x of the selected rows (plotted units)."""
    verdict: str = "no data"
    rival: dict[float, float] = field(default_factory=dict)
    """The rival line's mean at every x (comparison claims only)."""
    controls: list[ClaimResult] = field(default_factory=list)
    """The claim evaluated on each of ``claim.controls``."""
    explained: dict[str, dict[float, float]] = field(default_factory=dict)
    """Each ``claim.explain`` metric's means at the claim's x values (plotted units)."""


def _scale(metric: str) -> float:
    info = all_metrics().get(metric)
    return 100.0 if info is not None and info.fraction else 1.0


def _means(df, metric: str, x: str, where: Sequence[tuple[str, tuple[Any, ...]]]) -> dict[float, float]:

    sel = select_rows(df, (metric,), where)
    if sel.empty:
        return {}
    means = sel.groupby(x)["value"].mean() * _scale(metric)
    return {float(a): float(v) for a, v in means.items()}


_STEP_FILTERS = ("attack", "method", "chunks", "rank")


def evaluate_claim(df, claim: Claim) -> ClaimResult:
    """Our numbers for ``claim`` from the tidy results frame ``df``, the verdict, controls and explanations."""
    result = ClaimResult(claim)
    result.controls = [evaluate_claim(df, claim.under(override)) for override in claim.controls]
    neutral = [(key, val) for key, val in claim.where if key not in _STEP_FILTERS]
    result.explained = {metric: _means(df, metric, claim.x, neutral) for metric in claim.explain}
    result.ours = _means(df, claim.metric, claim.x, claim.where)
    if not result.ours:
        return result
    xs = sorted(result.ours)
    ok = True
    if claim.trend is not None:
        change = result.ours[xs[-1]] - result.ours[xs[0]]
        if claim.trend == "flat":
            ok = abs(change) <= claim.tolerance
        else:
            ok = (change > claim.tolerance) if claim.trend == "rising" else (change < -claim.tolerance)
    elif claim.paper:
        for x, value in claim.paper:
            ours = result.ours.get(float(x))
            ok = ok and ours is not None and abs(ours - value) <= claim.tolerance
    if claim.rival:
        keys = {k for k, _ in claim.rival}
        rival_where = tuple((k, v) for k, v in claim.where if k not in keys) + claim.rival
        result.rival = _means(df, claim.metric, claim.x, rival_where)
        both = [x for x in xs if x in result.rival]
        beats = bool(both) and all(result.ours[x] - result.rival[x] > claim.tolerance for x in both)
        result.verdict = f"comparison {'matches' if ok and beats else 'differs'}"
        return result
    what = "trend" if claim.trend is not None else "values"
    result.verdict = f"{what} {'match' if ok else 'differ'}" if what == "values" else \
        f"trend {'matches' if ok else 'differs'}"
    return result


def _fmt(v: float | None) -> str:
    if v is None or math.isnan(v):
        return "-"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _values(pairs: Sequence[tuple[float, float]], x: str) -> str:
    return ", ".join(f"{x}={_fmt(float(a))}: {_fmt(b)}" for a, b in pairs)


def _ours(r: ClaimResult) -> str:
    """Our means at the paper's x values and at our first and last x."""
    c = r.claim
    if not r.ours:
        return "no data"
    xs = {float(x) for x, _ in c.paper}
    ends = sorted(r.ours)
    xs |= {ends[0], ends[-1]}
    return _values([(x, r.ours.get(x, float("nan"))) for x in sorted(xs)], c.x)


def _measured(r: ClaimResult) -> list[str]:
    """The generated part of the last column: explaining metrics, then the controls."""
    out = []
    for metric, means in r.explained.items():
        info = all_metrics().get(metric)
        name = info.label if info is not None else metric
        unit = " (%)" if _scale(metric) == 100.0 else ""
        if means:
            ends = sorted(means)
            shown = _values([(x, means[x]) for x in dict.fromkeys((ends[0], ends[-1]))], r.claim.x)
        else:
            shown = "no data"
        out.append(f"{name}{unit}: {shown}")
    for control in r.controls:
        where = ", ".join(f"{k}={'/'.join(map(str, v))}" for k, v in control.claim.where
                          if dict(r.claim.where).get(k) != v)
        out.append(f"on {where}: {control.verdict} ({_ours(control)})")
    return out


def claims_table(results: Sequence[ClaimResult]) -> list[str]:
    """Markdown lines: one row per claim (paper, ours at the paper's x values and at the ends, verdict)."""
    lines = ["| claim | paper | ours | verdict | why it differs (measured) |", "|---|---|---|---|---|"]
    for r in results:
        c = r.claim
        unit = " (%)" if _scale(c.metric) == 100.0 else ""
        paper = _values(c.paper, c.x) if c.paper else "-"
        if c.trend:
            paper = f"{c.trend}; {paper}" if c.paper else c.trend
        if c.rival and r.ours:
            rival = ", ".join(f"{k}={'/'.join(str(v) for v in vals)}" for k, vals in c.rival)
            ours = "; ".join(f"{c.x}={_fmt(x)}: {_fmt(r.ours.get(x))} vs {_fmt(r.rival.get(x))}"
                             for x in sorted(r.ours)) + f" ({rival})"
            if not c.trend and not c.paper:
                paper = f"above {rival}"
        else:
            ours = _ours(r)
        parts = [c.reason] if c.reason and r.verdict.endswith(("differs", "differ")) else []
        measured = _measured(r)
        if measured:
            parts.append("measured: " + "; ".join(measured))
        reason = " ".join(parts).replace("|", "\\|")
        lines.append(f"| {c.statement} [{c.metric}{unit} vs {c.x}] | {paper} | {ours} | {r.verdict} | {reason} |")
    return lines


_MARK = re.compile(r"(<!-- claims:(?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /claims:(?P=name) -->)", re.S)


def update_readme(readme: Path, results_dir: Path, only: Sequence[str] | None = None) -> list[str]:
    """Replace each marked block of ``readme`` by ``results_dir/NAME/claims.md``; return the names done.

    ``only``: update just these blocks (the others are left as they are)."""
    text = readme.read_text(encoding="utf-8")
    done: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name = match.group("name")
        if only is not None and name not in only:
            return match.group(0)
        table = results_dir / name / "claims.md"
        if not table.is_file():
            raise InputError(f"{table}: no claims table (run the sweep {name!r} first)")
        done.append(name)
        return match.group(1) + table.read_text(encoding="utf-8").rstrip("\n") + "\n" + match.group(4)

    new = _MARK.sub(fill, text)
    if not done:
        raise InputError(f"{readme}: no <!-- claims:NAME --> ... <!-- /claims:NAME --> block")
    write_text_atomic(readme, new)
    return done
