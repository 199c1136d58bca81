"""The attack's edge over the random baseline, as a table, from a sweep's ``results.csv`` (issue 11).

    python -m experiments.differences results/alshuhail2021 [--metric accuracy] [--x k]
        [--where dataset=Ezine-k] [--readme README.md]

Each run of a sweep with ``<metric>_vs_random`` rows holds the paired difference attack minus random
on that run's records (the same release, truth and seed for both) with a 95% bootstrap interval
(``_lo``/``_hi``). The table shows, per method and x value, the mean of the runs' differences (the
seeds) and in brackets the mean of their lower and upper bounds, i.e. the width of one run's
interval; a cell is marked ``+`` when every run's interval lies above 0 and ``-`` when every one
lies below. With ``--readme`` the table replaces the block between ``<!-- differences:NAME -->``
and ``<!-- /differences:NAME -->`` (NAME: the results folder's name).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from corpora.common.errors import InputError
from corpora.common.files import check_output_paths, write_text_atomic
from experiments.report.rows import select_rows
from experiments.sweep.table import read_results

__all__ = ["difference_table", "update_block"]


def difference_table(results_dir: Path, metric: str = "accuracy", x: str = "k",
                     where: Sequence[tuple[str, str]] = (), chunks: str = "overall") -> list[str]:
    """Markdown lines of the table (see the module docstring)."""

    csv = results_dir / "results.csv"
    if not csv.is_file():
        raise InputError(f"{csv}: no results table (run the sweep first)")
    df = read_results(csv)
    filters = [(k, (v,)) for k, v in where] + [("chunks", (chunks,))]
    parts = {}
    for suffix in ("", "_lo", "_hi"):
        parts[suffix] = select_rows(df, (f"{metric}_vs_random{suffix}",), filters)
    base = parts[""]
    if base.empty:
        raise InputError(f"{csv}: no {metric}_vs_random rows for {dict(filters)}")
    xs = sorted(base[x].unique())
    methods = sorted(base["method"].unique(), key=lambda m: (m in ("blind", "oracle"), m))
    scale = 100.0 if metric != "wmd" else 1.0
    unit = " (percentage points)" if scale == 100.0 else ""
    lines = ["| method | " + " | ".join(f"{x}={_num(v)}" for v in xs) + " |", "|---|" + "---|" * len(xs)]
    for method in methods:
        cells = []
        for v in xs:
            sel = {s: p[(p["method"] == method) & (p[x] == v)].sort_values("seed")["value"].to_numpy()
                   for s, p in parts.items()}
            if len(sel[""]) == 0:
                cells.append("-")
                continue
            mean, lo, hi = (float(sel[s].mean()) * scale if len(sel[s]) else math.nan for s in ("", "_lo", "_hi"))
            mark = ""
            if len(sel["_lo"]) and (sel["_lo"] > 0).all():
                mark = " +"
            elif len(sel["_hi"]) and (sel["_hi"] < 0).all():
                mark = " -"
            cells.append(f"{mean:+.1f} [{lo:+.1f}, {hi:+.1f}]{mark}")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    runs = base.groupby([x, "method"]).size().max()
    lines.append("")
    lines.append(f"{metric.replace('_', ' ')} ({chunks}), attack minus random{unit}: mean of {runs} runs (seeds) "
                 "and the mean of their paired 95% bounds; + / -: every run's interval above / below 0. "
                 f"Filters: {', '.join(f'{k}={v}' for k, v in where) or 'none'}.")
    return lines


def _num(v: object) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def update_block(readme: Path, name: str, lines: Sequence[str]) -> None:
    """Replace the README block ``<!-- differences:NAME -->`` by ``lines`` (InputError when it is missing)."""
    check_output_paths({"--readme": readme})
    text = readme.read_text(encoding="utf-8")
    tag = re.escape(name)
    mark = re.compile(rf"(<!-- differences:{tag} -->\n)(.*?)(<!-- /differences:{tag} -->)", re.S)
    if not mark.search(text):
        raise InputError(f"{readme}: no <!-- differences:{name} --> ... <!-- /differences:{name} --> block")
    write_text_atomic(readme, mark.sub(lambda m: m.group(1) + "\n".join(lines) + "\n" + m.group(3), text, 1))
