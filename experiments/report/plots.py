"""Figures like the papers' and the report: a metric against the swept parameter, one line per method.

Every point is the mean over the runs that share its x value and its line (the seeds, and any
other parameter the figure neither plots nor filters, which the figure's note names), with a 95%
percentile-bootstrap interval of that mean (2,000 resamples of the runs, fixed seed). A
percentile-bootstrap interval lies between the smallest and the largest run, so it never leaves
the metric's range (Student's t intervals over 3 runs went below 0 for counts and seconds and
above 100%). No band is drawn where the runs cannot differ: a point whose runs all give the same
value (one release, a metric the seed does not touch) has no interval, and the note says so.
Numeric x values are joined by lines; categories (methods, datasets) are drawn as points with
error bars, never joined. The legend sits outside the axes and the note is wrapped to the
figure's width. The y axis starts at 0 unless a value (or a paper's number) is negative (a
signed error, a difference to random): then a line marks 0. Fractions are drawn in percent.

A figure with ``panels`` is drawn as small multiples (one subplot per panel, shared x; the y
axis shared unless ``sharey: false``), each on the rows its ``where`` adds; a panel draws at most
:data:`~experiments.sweep.spec.MAX_SERIES` lines (a sweep that lists more is refused when it is
read; lines found only in the results make the note say so). A claim with ``plot: <id>`` puts
the paper's numbers on that figure as large hollow markers labelled "paper: <statement>" (a
triangle for a bound such as "over 90%", a dotted line for a mean over the swept x), in the
colour of the line the claim is about (black when it names none), and the y range includes
them, so a level gap is visible at a glance. The note says what the band spans: with
``release_id`` rows (an integer fingerprint of each release) "spread over seeds of attacker
sampling only (the same release for every seed)" when every seed at every point has one release,
else "spread over seeds (releases differ)"; without them "spread over seeds".

A dataset that stands in for a paper's dataset (kosarak for BMS-WebView, shipped text for
EzineArticles) is named in the figure's note. Files are written atomically as
``figures/<id>.png`` and ``figures/<id>.svg``; ``report.md`` lists the figures with the table of
numbers behind each, and ``report.html`` (:mod:`experiments.report.html`) is the same report in one
self-contained file, with a provenance receipt.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from corpora.common.files import atomic_open, write_text_atomic
from corpora.common.stats import bootstrap_interval
from experiments.plugins import all_metrics
from experiments.report.claims import evaluate_claim
from experiments.report.claims_table import claims_table, settings_table
from experiments.report.html import write_report_html
from experiments.report.rows import matches as _matches
from experiments.report.rows import select_rows
from experiments.report.series import (
    PaperMark,
    SeriesPoint,
    band_note,
    draw_marks,
    group_label,
    paper_marks,
    x_text,
)
from experiments.sweep.grid import RUN_PARAMS, Run
from experiments.sweep.spec import MAX_SERIES, NUMERIC_COLUMNS, PlotSpec, SweepSpec
from experiments.sweep.table import read_results

__all__ = ["PARAM_LABELS", "PaperMark", "SeriesPoint", "aggregate", "aggregate_panels", "band_note", "paper_marks",
           "write_figures_and_report"]

PARAM_LABELS = {
    "k": "k (privacy parameter)",
    "m": "m (items known to the attacker)",
    "max_cluster_size": "max cluster size δ (records)",
    "density": "density (type-token ratio)",
    "records": "dataset size (records)",
    "dataset": "dataset",
    "horpart": "horizontal partitioning",
    "verpart": "vertical partitioning",
    "refine": "refine",
    "safe": "safe disassociation",
    "anonymizer": "anonymization method",
    "epsilon": "privacy budget ε",
    "fanout": "hierarchy fan-out",
    "seed": "seed",
    "attack": "attack",
    "method": "method",
    "chunks": "attacked chunks",
    "rank": "term frequency rank (first of a window of 20)",
}
_NUMERIC = NUMERIC_COLUMNS


def aggregate(df, plot: PlotSpec) -> tuple[list[SeriesPoint], list[str], list[str]]:
    """The points of ``plot`` from the tidy table, the parameters averaged over, the datasets drawn."""
    sel = select_rows(df, plot.metrics, plot.where)
    many = len(plot.metrics) > 1
    keys = [*(["metric"] if many else []), *plot.group_by, plot.x]
    fixed = {plot.x, *plot.group_by, *(c for c, _ in plot.where), "seed"}
    averaged = []
    points: list[SeriesPoint] = []
    datasets = sorted({str(d) for d in sel["dataset"]})
    if sel.empty:
        return points, averaged, datasets
    if plot.best_over:
        sel = _keep_best(sel, keys, plot.best_over)
        fixed.add(plot.best_over)
    # averaged over: a column that takes several values inside one plotted point (one grouping for all columns)
    free = [col for col in (*RUN_PARAMS, "attack", "method", "chunks", "rank")
            if col in sel.columns and col not in fixed]
    if free:
        most = sel.groupby(keys, dropna=False)[free].nunique(dropna=False).max()
        averaged += [f"{col} ({sel[col].nunique(dropna=False)} values)" for col in free if most[col] > 1]
    order: list[int] = []
    for key, part in sel.groupby(keys, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        info = all_metrics().get(key[0] if many else plot.metric)
        scale = 100.0 if info is not None and info.fraction else 1.0
        vals = part["value"].to_numpy(dtype=float) * scale
        low, high = bootstrap_interval(vals)
        label = group_label(plot.group_by, key[1:-1] if many else key[:-1])
        if many:
            name = all_metrics()[key[0]].label if key[0] in all_metrics() else str(key[0])
            label = name if not plot.group_by else f"{name}, {label}"
        points.append(SeriesPoint(label, key[-1], float(vals.mean()), low, high, len(vals)))
        order.append(plot.metrics.index(key[0]) if many else 0)
    # lines of several metrics keep the order the sweep lists them in (re, re-r2, re-r5, re-r10)
    points = [p for _, p in sorted(zip(order, points, strict=True), key=lambda pair: pair[0])]
    return points, averaged, datasets


def _keep_best(sel, keys: list[str], column: str):
    """The rows of the value of ``column`` whose mean is lowest, per plotted point (the best budget)."""
    means = sel.groupby([*keys, column], dropna=False, sort=True)["value"].mean().reset_index()
    best = means.loc[means.groupby(keys, dropna=False, sort=True)["value"].idxmin(), [*keys, column]]
    return sel.merge(best, on=[*keys, column], how="inner")


def _stand_in_note(spec: SweepSpec, datasets: Sequence[str], runs: Sequence[Run]) -> str:
    """Name the stand-ins among the plotted datasets (none when a preferred real dataset was loaded)."""
    used_by_label: dict[str, str] = {}
    for r in runs:
        d = r.config["dataset"]
        used_by_label[d["label"]] = d["names"][0] if d["names"] else d["label"]
    notes = []
    for ds in spec.datasets:
        if not ds.stand_in:
            continue
        label = ds.label if ds.label else (ds.display() if ds.is_text else None)
        candidates = [label] if label else [n for n in ds.names if n in used_by_label]
        for lab in candidates:
            if lab not in datasets:
                continue
            used = used_by_label.get(lab, lab)
            if len(ds.names) > 1 and used == ds.names[0]:
                continue  # the real dataset was available
            what = f"text source '{ds.text}'" if ds.is_text else used
            if (ds.is_text and ds.label) or (not ds.is_text and lab != used):
                what += f" ({lab})"
            notes.append(f"{what} stands in for {ds.stand_in}")
    return "; ".join(dict.fromkeys(notes))


def aggregate_panels(df, plot: PlotSpec) -> tuple[list[SeriesPoint], list[str], list[str]]:
    """:func:`aggregate` for every panel of ``plot`` (each point's ``panel`` set); one panel without ``panels``."""
    if not plot.panels:
        return aggregate(df, plot)
    points: list[SeriesPoint] = []
    averaged: list[str] = []
    datasets: list[str] = []
    for j, panel in enumerate(plot.panels):
        where = dict(plot.where)
        where.update(dict(panel.where))
        pts, avg, ds = aggregate(df, replace(plot, where=tuple(where.items()), panels=()))
        points += [replace(p, panel=j) for p in pts]
        averaged += [a for a in avg if a not in averaged]
        datasets += [d for d in ds if d not in datasets]
    return points, averaged, sorted(datasets)


def _categories(plot: PlotSpec, points: Sequence[SeriesPoint]) -> list[Any]:
    """The categories of a categorical x, in the order the sweep lists them."""
    categories: list[Any] = []
    for p in points:
        if p.x not in categories:
            categories.append(p.x)
    listed = dict(plot.where).get(plot.x, ())
    categories.sort(key=lambda c: next((i for i, w in enumerate(listed) if _matches(c, w)), len(listed)))
    return categories


def _draw_lines(ax, plot: PlotSpec, points: Sequence[SeriesPoint], categories: list[Any]) -> dict[str, Any]:
    """The lines (numeric x) or points with error bars (categories) of one panel; their colours by label."""
    groups: dict[str, list[SeriesPoint]] = {}
    for p in points:
        groups.setdefault(p.group, []).append(p)
    numeric = plot.x in _NUMERIC
    markers = "osD^v<>Pph*X"
    width = 0.6 / max(len(groups), 1)
    colours: dict[str, Any] = {}
    for i, (label, pts) in enumerate(groups.items()):
        pts = sorted(pts, key=lambda p: p.x if numeric else categories.index(p.x))
        marker = markers[i % len(markers)]
        if numeric:
            xs = [float(p.x) for p in pts]
            (line,) = ax.plot(xs, [p.mean for p in pts], marker=marker, label=label, linewidth=1.4)
            if any(p.has_interval for p in pts):
                ax.fill_between(xs, [p.low for p in pts], [p.high for p in pts], alpha=0.15, color=line.get_color(),
                                where=[p.has_interval for p in pts], interpolate=False, linewidth=0)
            colours[label] = line.get_color()
        else:  # categories: points with error bars, side by side, never joined
            xs = [categories.index(p.x) + (i - (len(groups) - 1) / 2) * width for p in pts]
            err = [[p.mean - p.low for p in pts], [p.high - p.mean for p in pts]]
            bars = ax.errorbar(xs, [p.mean for p in pts], yerr=err if any(p.has_interval for p in pts) else None,
                               fmt=marker, linestyle="none", capsize=3, label=label)
            colours[label] = bars.lines[0].get_color()
    return colours


def _x_axis(ax, plot: PlotSpec, points: Sequence[SeriesPoint], categories: list[Any]) -> None:
    import matplotlib.ticker

    if plot.logx:
        ax.set_xscale("log", base=2)
    if plot.x not in _NUMERIC:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([x_text(c) for c in categories])
    elif points:
        ticks = sorted({float(p.x) for p in points})
        if len(ticks) <= 12:
            ax.set_xticks(ticks)
            ax.set_xticklabels([x_text(t) for t in ticks])
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def _y_axis(ax, plot: PlotSpec, points: Sequence[SeriesPoint], marks: Sequence[PaperMark]) -> None:
    """From 0 when every value is non-negative; else a line marks 0 (signed errors, differences)."""
    values = [v for p in points for v in (p.low, p.mean, p.high)] + [m.value for m in marks]
    if min(values, default=0.0) < 0:
        ax.axhline(0.0, color="black", linewidth=0.8)
    else:
        # an explicit top: with shared y axes, a limit set from the first panel's data alone would clip the
        # panels drawn after it (autoscaling stops once a limit is set)
        top = max(values, default=0.0)
        ax.set_ylim(bottom=0, top=top * 1.05 if top > 0 else (100 if _is_fraction(plot) else 1))


def figure(plot: PlotSpec, points: list[SeriesPoint], note: str, marks: Sequence[PaperMark] = ()):
    """The matplotlib figure of ``plot`` (the caller saves and closes it); ``marks``: the paper's numbers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = max(len(plot.panels), 1)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    if n == 1:
        fig, ax = plt.subplots(figsize=(8.4, 4.4))
        axes = [ax]
    else:
        fig, grid = plt.subplots(rows, cols, figsize=(4.0 * cols + 0.8, 3.3 * rows + 0.6), sharex=True,
                                 sharey=plot.sharey, squeeze=False)
        axes = list(grid.flat)
        for extra in axes[n:]:
            extra.set_visible(False)
    categories = _categories(plot, points)
    for j, ax in enumerate(axes[:n]):
        pts = [p for p in points if p.panel == j]
        own = [m for m in marks if m.panel == j]
        colours = _draw_lines(ax, plot, pts, categories)
        draw_marks(ax, plot, own, pts, categories, colours)
        _x_axis(ax, plot, pts if n == 1 else points, categories)
        _y_axis(ax, plot, points if plot.sharey else pts, marks if plot.sharey else own)
        ax.grid(True, alpha=0.3)
        if not pts:
            ax.text(0.5, 0.5, "no data (every run failed or was filtered out)", ha="center", va="center",
                    transform=ax.transAxes)
        if n > 1:
            ax.set_title(textwrap.fill(plot.panels[j].title, 40), fontsize=9)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="best")
            if j % cols == 0:
                ax.set_ylabel(_ylabel(plot))
            if j >= n - cols:
                ax.set_xlabel(plot.xlabel or PARAM_LABELS.get(plot.x, plot.x))
                ax.xaxis.set_tick_params(labelbottom=True)
    if n == 1:
        ax = axes[0]
        ax.set_xlabel(plot.xlabel or PARAM_LABELS.get(plot.x, plot.x))
        ax.set_ylabel(_ylabel(plot))
        ax.set_title(textwrap.fill(_title(plot), 64), fontsize=10)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        fig.suptitle(textwrap.fill(_title(plot), 90), fontsize=10)
    fig.tight_layout()
    if note:
        # about 1.9 characters per point of width at 7 pt: the note never runs past the figure
        lines = textwrap.wrap(note, int(fig.get_figwidth() * 72 / 4.2))
        fig.text(0.01, 0.0, "\n".join(lines), fontsize=7, ha="left", va="top", transform=fig.transFigure)
    return fig


def _draw(plot: PlotSpec, points: list[SeriesPoint], note: str, directory: Path,
          marks: Sequence[PaperMark] = ()) -> list[Path]:
    import matplotlib.pyplot as plt

    fig = figure(plot, points, note, marks)
    paths = []
    figdir = directory / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
        path = figdir / f"{plot.id}.{ext}"
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=120, metadata=meta, bbox_inches="tight", pad_inches=0.1)
        with atomic_open(path, "wb") as handle:
            handle.write(buf.getvalue())
        paths.append(path)
    plt.close(fig)
    return paths


def _is_fraction(plot: PlotSpec) -> bool:
    infos = [all_metrics().get(m) for m in plot.metrics]
    return bool(infos) and all(i is not None and i.fraction for i in infos)


def _ylabel(plot: PlotSpec) -> str:
    if plot.ylabel:
        return plot.ylabel
    infos = [all_metrics()[m] for m in plot.metrics if m in all_metrics()]
    if len(plot.metrics) == 1:
        return infos[0].axis_label() if infos else plot.metric
    return "value (%)" if infos and all(i.fraction for i in infos) else "value"


def _title(plot: PlotSpec) -> str:
    if plot.title:
        return plot.title
    names = ", ".join(all_metrics()[m].label if m in all_metrics() else m for m in plot.metrics)
    return f"{names} vs {PARAM_LABELS.get(plot.x, plot.x)}"


def _fmt(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.4g}"


def _figure_note(df, plot: PlotSpec, points: Sequence[SeriesPoint], averaged: Sequence[str],
                 stand_in: str) -> str:
    """The note under a figure: stand-ins, what is averaged, the runs per point and what the band spans."""
    notes = [n for n in (plot.note, stand_in) if n]
    if plot.best_over:
        notes.append(f"each point: the best (lowest) mean over the values of {plot.best_over}")
    if averaged:
        notes.append("averaged over " + ", ".join(averaged))
    nseeds = sorted({p.n for p in points})
    if nseeds == [1]:
        notes.append("one run per point (no interval)")
    elif nseeds and not any(p.has_interval for p in points):
        notes.append(f"the {'/'.join(map(str, nseeds))} runs per point give the same value "
                     "(one release per point): no interval")
    elif nseeds:
        notes.append(f"mean and 95% percentile-bootstrap interval over {'/'.join(map(str, nseeds))} runs per "
                     "point (no band where the runs agree)")
        notes.append(band_note(df, plot))
    for j in range(max(len(plot.panels), 1)):
        count = len({p.group for p in points if p.panel == j})
        if count > MAX_SERIES:
            where = f"panel '{plot.panels[j].title}'" if plot.panels else "one panel"
            notes.append(f"{count} lines in {where}, more than {MAX_SERIES}: split the figure with 'panels'")
    return "; ".join(notes)


def _numbers(plot: PlotSpec, points: Sequence[SeriesPoint]) -> list[str]:
    """The table of numbers behind a figure (with a panel column for small multiples)."""
    ylabel = _ylabel(plot)
    panel = "panel | " if plot.panels else ""
    lines = [f"| {panel}{plot.x} | line | {ylabel} mean | 95% CI low | 95% CI high | runs |",
             "|---|---|---|---|---|---|" + ("---|" if plot.panels else "")]
    for p in sorted(points, key=lambda p: (p.panel, p.group, str(p.x) if plot.x not in _NUMERIC else float(p.x))):
        cell = f"{plot.panels[p.panel].title} | " if plot.panels else ""
        lines.append(f"| {cell}{x_text(p.x)} | {p.group} | {_fmt(p.mean)} | {_fmt(p.low)} | {_fmt(p.high)} | {p.n} |")
    lines.append("")
    return lines


def write_figures_and_report(spec: SweepSpec, csv_path: Path, directory: Path, runs: Sequence[Run],
                             records: Mapping[str, Mapping[str, Any]],
                             stand_ins: Sequence[str] = ()) -> tuple[list[Path], Path]:
    """Draw every declared figure from ``results.csv`` and write ``report.md``; return their paths.

    ``stand_ins`` (one line per stand-in dataset, its statistics beside the paper's) is listed
    under the run counts.
    """
    df = read_results(csv_path)
    lines = [f"# Sweep `{spec.name}`", ""]
    if spec.description:
        lines += [spec.description, ""]
    if spec.note:
        lines += [spec.note, ""]
    finished = [r for r in runs if r.key in records]
    failed = [r for r in finished if records[r.key]["status"] == "error"]
    lines += [f"- runs: {len(runs)} declared, {len(finished)} finished, {len(failed)} failed",
              "- table: `results.csv` (one row per run and metric)", ""]
    if stand_ins:
        lines += ["The stand-ins beside the papers' data (Terrovitis2012 Figure 6):", "",
                  *(f"- {line}" for line in stand_ins), ""]
    figures: list[Path] = []
    for plot in spec.plots:
        points, averaged, datasets = aggregate_panels(df, plot)
        note = _figure_note(df, plot, points, averaged, _stand_in_note(spec, datasets, runs))
        paths = _draw(plot, points, note, directory, paper_marks(spec.claims, plot))
        figures.extend(paths)
        lines += [f"## {_title(plot)}", "", f"![{plot.id}](figures/{plot.id}.png) ([svg](figures/{plot.id}.svg))", ""]
        if note:
            lines += [f"*{note}*", ""]
        if not points:
            lines += ["No data: every run of this figure failed or was filtered out.", ""]
            continue
        lines += _numbers(plot, points)
    if spec.claims or spec.ours:
        results = [evaluate_claim(df, c) for c in spec.claims]
        table = claims_table(results) if spec.claims else []
        settings = settings_table(spec.ours, results)
        block = table + ([""] if table and settings else []) + settings
        lines += ["## The paper's stated results beside ours", "",
                  "Computed from `results.csv` (means over the seeds, in the figures' units); also in "
                  "`claims.md`, which `python -m experiments.claims README.md` copies into the README.", "",
                  *block, ""]
        write_text_atomic(directory / "claims.md", "\n".join(block) + "\n")
    if failed:
        lines += ["## Failed runs", "", "| run | parameters | error |", "|---|---|---|"]
        for r in failed:
            params = ", ".join(f"{k}={x_text(v)}" for k, v in r.params.items() if v is not None)
            err = str(records[r.key].get("error", "")).replace("|", "\\|")
            lines.append(f"| {r.key} | {params} | {err} |")
        lines.append("")
    report = directory / "report.md"
    write_text_atomic(report, "\n".join(lines))
    write_report_html(directory, "\n".join(lines), spec.source)  # the same report, self-contained, with a receipt
    return figures, report
