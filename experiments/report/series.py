"""What a figure draws besides its lines: the plotted points, the papers' numbers, the band's meaning.

:class:`SeriesPoint` is one plotted mean with its interval; :class:`PaperMark` one number a paper
states, taken from a claim with ``plot: <figure id>`` (:func:`paper_marks`) and drawn as a hollow
marker, a triangle for a bound or a dotted line for a mean (:func:`draw_marks`); :func:`band_note`
says what a band spans, from the runs' ``release_id`` fingerprints. :mod:`experiments.report.plots`
draws the figures with them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from experiments.report.rows import matches as _matches
from experiments.report.rows import run_filters, select_rows
from experiments.sweep.grid import RUN_PARAMS
from experiments.sweep.spec import NUMERIC_COLUMNS, Claim, PlotSpec

__all__ = ["PaperMark", "SeriesPoint", "band_note", "draw_marks", "group_label", "paper_marks", "x_text"]


@dataclass(frozen=True)
class SeriesPoint:
    """One plotted point: its line, x, the mean, the 95% interval and the number of runs."""

    group: str
    x: Any
    mean: float
    low: float
    high: float
    n: int
    panel: int = 0
    """The subplot (index into the figure's ``panels``; 0 for a single panel)."""

    @property
    def has_interval(self) -> bool:
        """True when the runs differ, so there is an interval to draw."""
        return self.high > self.low


@dataclass(frozen=True)
class PaperMark:
    """One number a paper states, drawn on a figure (from a claim with ``plot``)."""

    label: str
    at: Any
    """The x value (a number or a category); None for a mean over the swept x (a dotted line)."""
    value: float
    bound: str = "="
    panel: int = 0
    line: str | None = None
    """The label of the plotted line the claim is about (its colour is reused), if any."""


def group_label(columns: Sequence[str], values: Sequence[Any]) -> str:
    """A line's legend label from its ``group_by`` values."""
    parts = []
    for col, val in zip(columns, values, strict=True):
        if col in ("method", "dataset", "attack") and str(val):
            parts.append(str(val))
        elif col == "chunks":
            parts.append(f"{val} chunks" if val else "all chunks")
        elif col == "safe":
            parts.append("safe disassociation" if val else "disassociation")
        else:
            parts.append(f"{col}={x_text(val)}")
    return ", ".join(parts) if parts else "all runs"


def x_text(v: Any) -> str:
    """An x value as labels print it: whole floats without the decimal point."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _panel_of(plot: PlotSpec, claim: Claim) -> int:
    """The first panel whose filters the claim's rows can meet (0 when none or no panels)."""
    where = dict(claim.where)
    for j, panel in enumerate(plot.panels):
        if all(key not in where or any(_matches(w, v) for w in where[key] for v in vals) for key, vals in panel.where):
            return j
    return 0


def paper_marks(claims: Sequence[Claim], plot: PlotSpec) -> list[PaperMark]:
    """The paper's numbers of every claim with ``plot: <this figure's id>``."""
    marks = []
    for claim in claims:
        if claim.plot != plot.id:
            continue
        where = dict(claim.where)
        line = None
        if all(len(where.get(col, ())) == 1 for col in plot.group_by):
            line = group_label(plot.group_by, [where[col][0] for col in plot.group_by])
        label = "paper: " + textwrap.shorten(claim.statement, 60, placeholder="...")
        marks += [PaperMark(label, pv.at, pv.value, pv.bound, _panel_of(plot, claim), line) for pv in claim.paper]
    return marks


def band_note(df, plot: PlotSpec) -> str:
    """What a band spans: attacker sampling on one release, or releases that differ between seeds.

    From the ``release_id`` rows (a fingerprint of each release) of the figure's runs: when every
    seed at a point has the same release, the band is what is sampled after it (attackers, reconstructions)."""
    rel = select_rows(df, ("release_id",), run_filters(plot.where))
    if rel.empty:
        return "band: spread over seeds"
    point = [c for c in RUN_PARAMS if c != "seed" and c in rel.columns]
    if rel.groupby(point, dropna=False)["value"].nunique(dropna=False).max() <= 1:
        return ("band: spread over seeds of the sampling after the release only (attackers, reconstructions; "
                "the same release for every seed)")
    return "band: spread over seeds (releases differ)"


def draw_marks(ax, plot: PlotSpec, marks: Sequence[PaperMark], points: Sequence[SeriesPoint],
                categories: list[Any], colours: Mapping[str, Any]) -> None:
    """The paper's numbers: hollow markers (triangles for bounds), a dotted line for a mean."""
    numeric = plot.x in NUMERIC_COLUMNS
    by_label: dict[str, list[PaperMark]] = {}
    for m in marks:
        by_label.setdefault(m.label, []).append(m)
    span = [float(p.x) if numeric else categories.index(p.x) for p in points if numeric or p.x in categories]
    for label, group in by_label.items():
        colour = colours.get(group[0].line or "", "black")
        xs, ys, shapes = [], [], []
        for m in group:
            if m.at is None:
                if span:
                    ax.hlines(m.value, min(span), max(span), colors=[colour], linestyles=":", linewidth=1.4)
                    ax.annotate(f"mean {m.value:.3g}", (max(span), m.value), fontsize=7, xytext=(3, 2),
                                textcoords="offset points")
                continue
            at = float(m.at) if numeric else next((i for i, c in enumerate(categories) if _matches(c, m.at)), None)
            if at is None:
                continue
            xs.append(at)
            ys.append(m.value)
            shapes.append({"=": "o", ">": "^", "<": "v"}[m.bound])
            if m.bound != "=":
                ax.annotate(f"{m.bound}{m.value:.3g}", (at, m.value), fontsize=7, xytext=(5, -3),
                            textcoords="offset points")
        for k, (x, y, shape) in enumerate(zip(xs, ys, shapes, strict=True)):
            ax.plot([x], [y], linestyle="none", marker=shape, markersize=10, markerfacecolor="none",
                    markeredgecolor=colour, markeredgewidth=1.6, label=label if k == 0 else None, zorder=5)
        if not xs:  # a mean only: the legend still names it
            ax.plot([], [], linestyle=":", color=colour, label=label)
