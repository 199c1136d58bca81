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
figure's width. Every metric here is non-negative, so the y axis starts at 0. Fractions are
drawn in percent. A dataset that stands in for a paper's dataset (kosarak for BMS-WebView,
shipped text for EzineArticles) is named in the figure's note. Files are written atomically as
``figures/<id>.png`` and ``figures/<id>.svg``; ``report.md`` lists the figures with the table of
numbers behind each.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpora.common.files import atomic_open, write_text_atomic
from corpora.common.stats import bootstrap_interval
from experiments.plugins import all_metrics
from experiments.report.claims import claims_table, evaluate_claim
from experiments.report.rows import matches as _matches
from experiments.report.rows import select_rows
from experiments.sweep.grid import RUN_PARAMS, Run
from experiments.sweep.spec import PlotSpec, SweepSpec
from experiments.sweep.table import read_results

__all__ = ["PARAM_LABELS", "SeriesPoint", "aggregate", "write_figures_and_report"]

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
_NUMERIC = {"k", "m", "max_cluster_size", "density", "records", "seed", "epsilon", "fanout", "rank"}


@dataclass(frozen=True)
class SeriesPoint:
    """One plotted point: its line, x, the mean, the 95% interval and the number of runs."""

    group: str
    x: Any
    mean: float
    low: float
    high: float
    n: int

    @property
    def has_interval(self) -> bool:
        """True when the runs differ, so there is an interval to draw."""
        return self.high > self.low




def _group_label(columns: Sequence[str], values: Sequence[Any]) -> str:
    parts = []
    for col, val in zip(columns, values, strict=True):
        if col in ("method", "dataset", "attack") and str(val):
            parts.append(str(val))
        elif col == "chunks":
            parts.append(f"{val} chunks" if val else "all chunks")
        elif col == "safe":
            parts.append("safe disassociation" if val else "disassociation")
        else:
            parts.append(f"{col}={_num(val)}")
    return ", ".join(parts) if parts else "all runs"


def _num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


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
    for col in (*RUN_PARAMS, "attack", "method", "chunks", "rank"):
        # averaged over: a column that takes several values inside one plotted point
        if col not in sel.columns or col in fixed:
            continue
        if sel.groupby(keys, dropna=False)[col].nunique(dropna=False).max() > 1:
            averaged.append(f"{col} ({sel[col].nunique(dropna=False)} values)")
    order: list[int] = []
    for key, part in sel.groupby(keys, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        info = all_metrics().get(key[0] if many else plot.metric)
        scale = 100.0 if info is not None and info.fraction else 1.0
        vals = part["value"].to_numpy(dtype=float) * scale
        low, high = bootstrap_interval(vals)
        label = _group_label(plot.group_by, key[1:-1] if many else key[:-1])
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


def figure(plot: PlotSpec, points: list[SeriesPoint], note: str):  # noqa: C901 (older code, at most 20)
    """The matplotlib figure of ``plot`` (the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(8.4, 4.4))
    groups: dict[str, list[SeriesPoint]] = {}
    for p in points:
        groups.setdefault(p.group, []).append(p)
    numeric = plot.x in _NUMERIC
    categories: list[Any] = []
    if not numeric:
        for p in points:
            if p.x not in categories:
                categories.append(p.x)
        listed = dict(plot.where).get(plot.x, ())  # categories keep the order the sweep lists them in
        categories.sort(key=lambda c: next((i for i, w in enumerate(listed) if _matches(c, w)), len(listed)))
    markers = "osD^v<>Pph*X"
    width = 0.6 / max(len(groups), 1)
    for i, (label, pts) in enumerate(groups.items()):
        pts = sorted(pts, key=lambda p: p.x if numeric else categories.index(p.x))
        marker = markers[i % len(markers)]
        if numeric:
            xs = [float(p.x) for p in pts]
            (line,) = ax.plot(xs, [p.mean for p in pts], marker=marker, label=label, linewidth=1.4)
            if any(p.has_interval for p in pts):
                ax.fill_between(xs, [p.low for p in pts], [p.high for p in pts], alpha=0.15, color=line.get_color(),
                                where=[p.has_interval for p in pts], interpolate=False, linewidth=0)
        else:  # categories: points with error bars, side by side, never joined
            xs = [categories.index(p.x) + (i - (len(groups) - 1) / 2) * width for p in pts]
            err = [[p.mean - p.low for p in pts], [p.high - p.mean for p in pts]]
            ax.errorbar(xs, [p.mean for p in pts], yerr=err if any(p.has_interval for p in pts) else None,
                        fmt=marker, linestyle="none", capsize=3, label=label)
    if plot.logx:
        ax.set_xscale("log", base=2)
    if not numeric:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([_num(c) for c in categories])
    elif points:
        ticks = sorted({float(p.x) for p in points})
        if len(ticks) <= 12:
            ax.set_xticks(ticks)
            ax.set_xticklabels([_num(t) for t in ticks])
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    if not points:
        ax.text(0.5, 0.5, "no data (every run failed or was filtered out)", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_xlabel(plot.xlabel or PARAM_LABELS.get(plot.x, plot.x))
    ax.set_ylabel(_ylabel(plot))
    ax.set_title(textwrap.fill(_title(plot), 64), fontsize=10)
    ax.grid(True, alpha=0.3)
    top = max((p.high for p in points), default=0.0)
    if min((min(p.low, p.mean) for p in points), default=0.0) < 0:  # a difference (attack minus random)
        ax.axhline(0.0, color="black", linewidth=0.8)
    else:
        ax.set_ylim(bottom=0, top=None if top > 0 else (100 if _is_fraction(plot) else 1))
    if groups:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    if note:
        # about 1.9 characters per point of width at 7 pt: the note never runs past the figure
        lines = textwrap.wrap(note, int(fig.get_figwidth() * 72 / 4.2))
        fig.text(0.01, 0.0, "\n".join(lines), fontsize=7, ha="left", va="top", transform=fig.transFigure)
    return fig


def _draw(plot: PlotSpec, points: list[SeriesPoint], note: str, directory: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig = figure(plot, points, note)
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


def write_figures_and_report(spec: SweepSpec, csv_path: Path, directory: Path, runs: Sequence[Run],  # noqa: C901 (older code, at most 20)
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
        points, averaged, datasets = aggregate(df, plot)
        notes = [n for n in (plot.note, _stand_in_note(spec, datasets, runs)) if n]
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
        note = "; ".join(notes)
        paths = _draw(plot, points, note, directory)
        figures.extend(paths)
        ylabel = _ylabel(plot)
        title = _title(plot)
        lines += [f"## {title}", "", f"![{plot.id}](figures/{plot.id}.png) ([svg](figures/{plot.id}.svg))", ""]
        if note:
            lines += [f"*{note}*", ""]
        if not points:
            lines += ["No data: every run of this figure failed or was filtered out.", ""]
            continue
        lines += [f"| {plot.x} | line | {ylabel} mean | 95% CI low | 95% CI high | runs |",
                  "|---|---|---|---|---|---|"]
        for p in sorted(points, key=lambda p: (p.group, str(p.x) if plot.x not in _NUMERIC else float(p.x))):
            lines.append(f"| {_num(p.x)} | {p.group} | {_fmt(p.mean)} | {_fmt(p.low)} | {_fmt(p.high)} | {p.n} |")
        lines.append("")
    if spec.claims:
        table = claims_table([evaluate_claim(df, c) for c in spec.claims])
        lines += ["## The paper's stated results beside ours", "",
                  "Computed from `results.csv` (means over the seeds, in the figures' units); also in "
                  "`claims.md`, which `python -m experiments.claims README.md` copies into the README.", "",
                  *table, ""]
        write_text_atomic(directory / "claims.md", "\n".join(table) + "\n")
    if failed:
        lines += ["## Failed runs", "", "| run | parameters | error |", "|---|---|---|"]
        for r in failed:
            params = ", ".join(f"{k}={_num(v)}" for k, v in r.params.items() if v is not None)
            err = str(records[r.key].get("error", "")).replace("|", "\\|")
            lines.append(f"| {r.key} | {params} | {err} |")
        lines.append("")
    report = directory / "report.md"
    write_text_atomic(report, "\n".join(lines))
    return figures, report
