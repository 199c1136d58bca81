"""The claims as Markdown: the paper-vs-ours table, "Settings we chose", and the README's copies.

:func:`claims_table` renders :class:`~experiments.report.claims.ClaimResult` rows (judged in
:mod:`experiments.report.claims`), :func:`settings_table` the sweep's ``ours`` section with the
verdicts of its sensitivity claims, and :func:`update_readme` copies each sweep's ``claims.md``
into the README between ``<!-- claims:NAME -->`` and ``<!-- /claims:NAME -->``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corpora.common.errors import InputError
from corpora.common.files import write_text_atomic
from experiments.plugins import all_metrics
from experiments.report.claims import ClaimResult, fmt_signed, fmt_value, fmt_x, plotted_scale, ratio_text
from experiments.sweep.spec import Claim, OurSetting

__all__ = ["claims_table", "settings_table", "update_readme"]


def _values(pairs: Sequence[tuple[Any, float]], x: str) -> str:
    return ", ".join(f"{x}={fmt_x(a)}: {fmt_value(b)}" for a, b in pairs)


def _order(r: ClaimResult) -> list[Any]:
    """Our x values: sorted numbers, or the categories in the order ``where`` lists them."""
    if not r.claim.categorical:
        return sorted(r.ours)
    listed = [str(v) for v in dict(r.claim.where).get(r.claim.x, ())]
    return sorted(r.ours, key=lambda c: (listed.index(c) if c in listed else len(listed), c))


def _curve(means: Mapping[Any, float], xs: Sequence[Any]) -> str:
    return ", ".join(fmt_value(means.get(a)) for a in xs)


def _ours(r: ClaimResult) -> str:
    """Our means at every x, compactly (``k=2,3,4: 29.6, 38.8, 50.2``), the rival's beside them."""
    c = r.claim
    if not r.ours:
        return "no data"
    xs = _order(r)
    if len(xs) == 1:
        text = _values([(xs[0], r.ours[xs[0]])], c.x)
    else:
        text = f"{c.x}={','.join(fmt_x(a) for a in xs)}: {_curve(r.ours, xs)}"
    if c.rival:
        rival = ", ".join(f"{k}={'/'.join(str(v) for v in vals)}" for k, vals in c.rival)
        text += f" vs {_curve(r.rival, xs)} ({rival})"
    if any(pv.is_mean for pv in c.paper):
        values = list(r.ours.values())
        mean = float(sum(values) / len(values))
        text += f"; mean {fmt_value(mean)} (range {fmt_value(min(values))}-{fmt_value(max(values))})"
    return text


def _paper(c: Claim) -> str:
    parts = [c.trend] if c.trend else []
    values = []
    for pv in c.paper:
        values.append(f"mean {pv.shown()}" if pv.is_mean else f"{c.x}={fmt_x(_at(pv.at))}: {pv.shown()}")
    if values:
        parts.append(", ".join(values))
    if c.rival:
        rival = ", ".join(f"{k}={'/'.join(str(v) for v in vals)}" for k, vals in c.rival)
        parts.append(f"{'below' if c.lower else 'above'} {rival}")
    return "; ".join(parts) or "-"


def _at(at: Any) -> Any:
    return float(at) if isinstance(at, int | float) and not isinstance(at, bool) else at


def _level(r: ClaimResult) -> str:
    if r.level is None:
        return "-"
    text = ratio_text(r.level.ratio)
    if len(r.level.points) > 1 or not r.level.holds:
        each = []
        for p in r.level.points:
            where = "mean" if p.paper.is_mean else f"{r.claim.x}={fmt_x(_at(p.paper.at))}"
            shown = "no data" if p.ours is None else ratio_text(p.ratio)
            if p.paper.bound != "=":
                shown += f" ({fmt_value(p.ours)} {'is' if p.ok else 'not'} {p.paper.shown()})"
            each.append(f"{where} {shown}" + ("" if p.ok else " off"))
        text += " (" + ", ".join(each) + ")"
    return text


def _evidence(r: ClaimResult) -> str:
    parts = []
    t = r.trend
    if t is not None and t.points >= 2:
        rho = f"rho {t.rho:.2f}" if not math.isnan(t.rho) else "rho -"
        if t.trend == "flat":
            parts.append(f"range {fmt_value(t.total)}; {rho}; {t.steps_with}/{t.points - 1} steps within tolerance")
        else:
            way = "up" if t.trend == "rising" else "down"
            parts.append(f"{rho}; {t.steps_with}/{t.points - 1} steps {way}; total {fmt_signed(t.total)}")
        if t.why:
            parts.append(t.why)
    elif t is not None:
        parts.append(t.why)
    v = r.versus
    if v is not None:
        side = "below" if r.claim.lower else "above"
        margin = f" (margin {fmt_value(min(v.margins))}-{fmt_value(max(v.margins))})" if v.margins else ""
        parts.append(f"{side} the rival at {v.beats}/{v.points}{margin}")
    return "; ".join(parts) or "-"


def _measured(r: ClaimResult) -> list[str]:
    """The generated part of the last column: explaining metrics, then the controls."""
    out = []
    for metric, means in r.explained.items():
        info = all_metrics().get(metric)
        name = info.label if info is not None else metric
        unit = " (%)" if plotted_scale(metric) == 100.0 else ""
        if means:
            ends = sorted(means, key=str) if r.claim.categorical else sorted(means)
            shown = _values([(x, means[x]) for x in dict.fromkeys((ends[0], ends[-1]))], r.claim.x)
        else:
            shown = "no data"
        out.append(f"{name}{unit}: {shown}")
    for control in r.controls:
        where = ", ".join(f"{k}={'/'.join(map(str, v))}" for k, v in control.claim.where
                          if dict(r.claim.where).get(k) != v)
        level = f", level {ratio_text(control.level.ratio)}" if control.level is not None else ""
        evidence = _evidence(control)
        evidence = f"; {evidence}" if evidence != "-" and control.ours else ""
        out.append(f"on {where}: {control.verdict}{level} ({_ours(control)}{evidence})")
    return out


def claims_table(results: Sequence[ClaimResult]) -> list[str]:
    """Markdown lines: one row per claim (paper, ours at every x, level ratio, trend evidence, verdict)."""
    lines = ["| claim | paper | ours | level | trend evidence | verdict | why it differs (measured) |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.claim
        unit = " (%)" if plotted_scale(c.metric) == 100.0 else ""
        parts = [c.reason] if c.reason and r.verdict not in ("matches", "no data") else []
        measured = _measured(r)
        if measured:
            parts.append("measured: " + "; ".join(measured))
        cells = [f"{c.statement} [{c.metric}{unit} vs {c.x}]", _paper(c), _ours(r), _level(r), _evidence(r),
                 r.verdict, " ".join(parts)]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return lines


def settings_table(settings: Sequence[OurSetting], results: Sequence[ClaimResult]) -> list[str]:
    """Markdown lines: "Settings we chose" (the sweep's ``ours``), each with its sensitivity claims' verdicts."""
    if not settings:
        return []
    by_id = {r.claim.id: r for r in results}
    lines = ["**Settings we chose** (the paper does not state them):", "",
             "| setting | value | why | sensitivity (measured) |", "|---|---|---|---|"]
    for s in settings:
        measured = []
        for cid in s.sensitivity:
            r = by_id.get(cid)
            if r is None:
                continue
            level = f", level {ratio_text(r.level.ratio)}" if r.level is not None else ""
            measured.append(f"{cid}: {r.verdict}{level} ({_ours(r)})")
        cells = [s.setting, s.value, s.why, "; ".join(measured) or "-"]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
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
