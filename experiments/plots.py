"""Figures like the papers' and the report: a metric against the swept parameter, one line per method.

Every point is the mean over the runs that share its x value and its line (the seeds, and any
other parameter the figure neither plots nor filters, which the figure's note names), with a 95%
confidence interval from Student's t distribution (no band for a single run). Fractions are
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

from corpora.files import atomic_open, write_text_atomic
from experiments.grid import RUN_PARAMS, Run
from experiments.metrics import ALL_METRICS
from experiments.schema import PlotSpec, SweepSpec

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
    "seed": "seed",
    "attack": "attack",
    "method": "method",
    "chunks": "attacked chunks",
}
_NUMERIC = {"k", "m", "max_cluster_size", "density", "records", "seed"}


@dataclass(frozen=True)
class SeriesPoint:
    """One plotted point: its line, x, the mean, the 95% interval and the number of runs."""

    group: str
    x: Any
    mean: float
    low: float
    high: float
    n: int


def _matches(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, bool) or isinstance(value, bool):
        return bool(value) == bool(wanted) if isinstance(value, bool) and isinstance(wanted, bool) else \
            str(value).lower() == str(wanted).lower()
    if isinstance(wanted, int | float) and not isinstance(value, str):
        try:
            return not math.isnan(float(value)) and float(value) == float(wanted)
        except (TypeError, ValueError):
            return False
    return str(value) == str(wanted)


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
    from scipy import stats

    sel = df[(df["status"] == "ok") & (df["metric"].isin(plot.metrics))]
    for col, wanted in plot.where:
        mask = sel[col].map(lambda v, w=wanted: any(_matches(v, x) for x in w))
        sel = sel[mask.astype(bool)]
    sel = sel[sel["value"].notna()]
    many = len(plot.metrics) > 1
    keys = [*(["metric"] if many else []), *plot.group_by, plot.x]
    fixed = {plot.x, *plot.group_by, *(c for c, _ in plot.where), "seed"}
    averaged = []
    points: list[SeriesPoint] = []
    datasets = sorted({str(d) for d in sel["dataset"]})
    if sel.empty:
        return points, averaged, datasets
    for col in (*RUN_PARAMS, "attack", "method", "chunks"):
        # averaged over: a column that takes several values inside one plotted point
        if col not in fixed and sel.groupby(keys, dropna=False)[col].nunique(dropna=False).max() > 1:
            averaged.append(f"{col} ({sel[col].nunique(dropna=False)} values)")
    for key, part in sel.groupby(keys, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        info = ALL_METRICS.get(key[0] if many else plot.metric)
        scale = 100.0 if info is not None and info.fraction else 1.0
        vals = part["value"].to_numpy(dtype=float) * scale
        n = len(vals)
        mean = float(vals.mean())
        if n > 1:
            half = float(stats.t.ppf(0.975, n - 1) * vals.std(ddof=1) / math.sqrt(n))
        else:
            half = 0.0
        label = _group_label(plot.group_by, key[1:-1] if many else key[:-1])
        if many:
            name = ALL_METRICS[key[0]].label if key[0] in ALL_METRICS else str(key[0])
            label = name if not plot.group_by else f"{name}, {label}"
        points.append(SeriesPoint(label, key[-1], mean, mean - half, mean + half, n))
    return points, averaged, datasets


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


def _draw(spec: SweepSpec, plot: PlotSpec, points: list[SeriesPoint], note: str, directory: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    groups: dict[str, list[SeriesPoint]] = {}
    for p in points:
        groups.setdefault(p.group, []).append(p)
    numeric = plot.x in _NUMERIC
    categories: list[Any] = []
    if not numeric:
        for p in points:
            if p.x not in categories:
                categories.append(p.x)
    markers = "osD^v<>Pph*X"
    for i, (label, pts) in enumerate(groups.items()):
        pts = sorted(pts, key=lambda p: p.x if numeric else categories.index(p.x))
        xs = [float(p.x) if numeric else categories.index(p.x) for p in pts]
        (line,) = ax.plot(xs, [p.mean for p in pts], marker=markers[i % len(markers)], label=label, linewidth=1.4)
        if any(p.n > 1 for p in pts):
            ax.fill_between(xs, [p.low for p in pts], [p.high for p in pts], alpha=0.15, color=line.get_color())
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
    if groups:
        ax.legend(fontsize=8, loc="best")
    if note:
        lines = textwrap.wrap(note, 125)
        fig.text(0.01, 0.01, "\n".join(lines), fontsize=7, ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.01 + 0.03 * len(lines), 1, 1))
    else:
        fig.tight_layout()
    paths = []
    figdir = directory / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
        path = figdir / f"{plot.id}.{ext}"
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=120, metadata=meta)
        with atomic_open(path, "wb") as handle:
            handle.write(buf.getvalue())
        paths.append(path)
    plt.close(fig)
    return paths


def _ylabel(plot: PlotSpec) -> str:
    if plot.ylabel:
        return plot.ylabel
    infos = [ALL_METRICS[m] for m in plot.metrics if m in ALL_METRICS]
    if len(plot.metrics) == 1:
        return infos[0].axis_label() if infos else plot.metric
    return "value (%)" if infos and all(i.fraction for i in infos) else "value"


def _title(plot: PlotSpec) -> str:
    if plot.title:
        return plot.title
    names = ", ".join(ALL_METRICS[m].label if m in ALL_METRICS else m for m in plot.metrics)
    return f"{names} vs {PARAM_LABELS.get(plot.x, plot.x)}"


def _fmt(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.4g}"


def write_figures_and_report(spec: SweepSpec, csv_path: Path, directory: Path, runs: Sequence[Run],
                             records: Mapping[str, Mapping[str, Any]]) -> tuple[list[Path], Path]:
    """Draw every declared figure from ``results.csv`` and write ``report.md``; return their paths."""
    from experiments.runner import read_results

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
    figures: list[Path] = []
    for plot in spec.plots:
        points, averaged, datasets = aggregate(df, plot)
        notes = [n for n in (plot.note, _stand_in_note(spec, datasets, runs)) if n]
        if averaged:
            notes.append("averaged over " + ", ".join(averaged))
        nseeds = sorted({p.n for p in points})
        if nseeds == [1]:
            notes.append("one run per point (no interval)")
        elif nseeds:
            notes.append(f"mean and 95% interval over {'/'.join(map(str, nseeds))} runs per point")
        note = "; ".join(notes)
        paths = _draw(spec, plot, points, note, directory)
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
