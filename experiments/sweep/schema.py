"""The sweep file: YAML read with ``yaml.safe_load`` and validated completely before anything runs.

A sweep declares what to vary (datasets, text densities, dataset sizes, the disassociation
parameters k, m and the maximum cluster size delta, the anonymizer options), which attacks to run
on every release, which metrics to keep, the seeds, and which figures to draw. Every mistake is
reported as one :class:`~corpora.common.errors.InputError` line that names the file, the key path
(``plots[2].group_by``), what is wrong and the allowed values, with a "did you mean" suggestion
for a mistyped key.

Layout (every key but ``name`` and ``datasets`` is optional)::

    name: small-default            # results go to results/<name>/
    description: one line for the report
    datasets:                      # registry names, file paths or text builds
      - kosarak10k
      - {name: [bms-webview-1, kosarak10k], records: [1000, 2000], stand_in: BMS-WebView-1}
      - {text: lee, density: [0.3, 0.5], options: {...}}
    grid:                          # one value, a list, a range or an expression of k and m
      k: {from: 2, to: 5}
      m: 2
      max_cluster_size: "k^2..k^6" # the thesis' k^2 .. k^6 (powers of k)
      horpart: original            # original | abandon | suppression | adding | remaining
      verpart: strict              # original | strict | grouped
      refine: true
      safe: [false, true]
    zip: [[k, max_cluster_size]]   # these lists pair up element by element instead of a product
    attacks:
      cover: {attackers: [strong, moderate, weak], moderate_share: 0.5}
      semantic: {scorers: [ngd, glove], selectors: [ABA, RGA, MRA, VPA, random], chunks: [both],
                 reference: source, vpa_limit: 10000,   # NGD counts: the text source's reference part
                 ngd_settings: [public, private],       # or pooled corpora in two threat settings (issue 11)
                 baselines: [blind, oracle], bootstrap: 200}  # beside random; paired attack-minus-random
    metrics: [pem, accuracy, wmd]  # default: every metric the declared steps produce
    utility: {top_k: 1000, re_range: [200, 220], reconstructions: 1}
    seeds: [0, 1, 2]               # or repeats: 3 (seeds 0, 1, 2)
    plots:
      - {metric: pem, x: max_cluster_size, group_by: method, where: {dataset: kosarak10k}}
      - {id: diff, metric: accuracy_vs_random, x: k, sharey: false,   # small multiples, <= 6 lines each
         panels: [{title: NGD, where: {method: [NGD(public)-ABA, NGD(public)-MRA]}},
                  {title: oracle, where: {method: oracle}}]}
    claims:                        # the papers' statements, judged after the sweep (experiments.report.claims)
      - {id: fig4, statement: "Fig. 4: PEM rises with delta", metric: pem, x: max_cluster_size,
         where: {dataset: kosarak10k}, trend: rising, tolerance: 1, paper: {10: 17, 60: ">50", mean: 35},
         plot: pem_vs_max_cluster_size_dataset-kosarak10k}
    ours:                          # settings the paper does not state, and the claims measuring them
      - {setting: max cluster size, value: 30, why: "not stated", sensitivity: [fig4]}
    executor: local                # local | dask
    scheduler: tcp://host:8786     # dask scheduler address (none: a local cluster)
    jobs: 2
    zip_results: false             # also write results/<name>.zip
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from corpora.common.errors import InputError
from experiments.plugins import load
from experiments.registry import ATTACKS
from experiments.sweep.checks import NAME_RE, Ctx, _bool, _check_keys, _choice, _int, _show, _str, _type_name
from experiments.sweep.entries import parse_datasets
from experiments.sweep.figures import parse_claims, parse_ours, parse_plots
from experiments.sweep.grid import expand_points
from experiments.sweep.kexpr import KExpr
from experiments.sweep.limits import COLUMNS, GRID_PARAMS, LIMITS, Limits
from experiments.sweep.sections import (
    parse_attacks,
    parse_grid,
    parse_metrics,
    parse_seeds,
    parse_utility,
    parse_zip,
)
from experiments.sweep.spec import DatasetSpec, PlotSpec, SweepSpec
from experiments.sweep.yamlfile import read_yaml

__all__ = [
    "GRID_PARAMS",
    "LIMITS",
    "Limits",
    "COLUMNS",
    "DatasetSpec",
    "PlotSpec",
    "SweepSpec",
    "KExpr",
    "load_sweep",
    "parse_sweep",
]

_TOP_KEYS = (
    "name",
    "description",
    "note",
    "datasets",
    "grid",
    "zip",
    "attacks",
    "metrics",
    "utility",
    "seeds",
    "repeats",
    "plots",
    "executor",
    "scheduler",
    "jobs",
    "zip_results",
    "claims",
    "ours",
)


# --------------------------------------------------------------------------- entry points
def parse_sweep(raw: Any, source: str = "<sweep>", base_dir: str = ".") -> SweepSpec:
    """Validate a loaded YAML document and return the :class:`SweepSpec` (InputError on any mistake)."""
    load()  # the attacks, anonymizers and metrics of installed plugins are names a sweep may use
    ctx = Ctx(source)
    if not isinstance(raw, Mapping):
        raise ctx.fail("", f"expected a mapping at the top level, got {_type_name(raw)}")
    _check_keys(ctx, raw, _TOP_KEYS, "")
    if "name" not in raw:
        raise ctx.fail("name", "missing: every sweep needs a name (results go to results/<name>/)")
    name = _str(ctx, raw["name"], "name")
    if not NAME_RE.match(name):
        raise ctx.fail("name", f"{_show(name)}: use letters, digits, '_', '.', '-' only (it names a folder)")
    if "datasets" not in raw:
        raise ctx.fail("datasets", "missing: list at least one dataset")
    datasets = parse_datasets(ctx, raw["datasets"], base_dir)
    grid = parse_grid(ctx, raw.get("grid"))
    zip_groups = parse_zip(ctx, raw.get("zip"), grid)
    attacks = parse_attacks(ctx, raw.get("attacks"))
    _check_attacks(ctx, attacks, datasets)
    steps = {"dataset", "anonymizer", "utility"} | set(attacks)
    if True in grid["safe"] or any(True in dict(d.grid).get("safe", ()) for d in datasets):
        steps.add("safe")
    metrics = parse_metrics(ctx, raw.get("metrics"), steps)
    utility = parse_utility(ctx, raw.get("utility"))
    seeds = parse_seeds(ctx, raw)
    plots = parse_plots(ctx, raw.get("plots"), metrics)
    for i, d in enumerate(datasets):
        extra = [m for m in d.metrics if m not in metrics]
        if extra:
            raise ctx.fail(f"datasets[{i}].metrics", f"{_show(extra[0])} is not among the sweep's metrics "
                           f"({', '.join(metrics)})")
    claims = parse_claims(ctx, raw.get("claims"), metrics, plots)
    ours = parse_ours(ctx, raw.get("ours"), claims)
    executor = _choice(ctx, raw.get("executor", "local"), "executor", ("local", "dask"))
    scheduler = _str(ctx, raw["scheduler"], "scheduler") if raw.get("scheduler") is not None else None
    if scheduler is not None and executor != "dask":
        raise ctx.fail("scheduler", "a scheduler address needs 'executor: dask'")
    jobs = _int(ctx, raw.get("jobs", 1), "jobs", 1, maximum=LIMITS.jobs)
    zip_results = _bool(ctx, raw.get("zip_results", False), "zip_results")
    description = _str(ctx, raw["description"], "description") if raw.get("description") is not None else ""
    note = _str(ctx, raw["note"], "note") if raw.get("note") is not None else ""
    spec = SweepSpec(name=name, datasets=datasets, grid=grid, zip_groups=zip_groups, attacks=attacks,
                     metrics=metrics, utility=utility, seeds=seeds, plots=plots, claims=claims, ours=ours,
                     executor=executor, scheduler=scheduler, jobs=jobs, zip_results=zip_results,
                     description=description, note=note, source=source, base_dir=base_dir, raw=dict(raw))
    # Expanding the grid checks the points themselves (k <= max_cluster_size, expressions).
    total = 0
    for d in datasets:
        total += len(expand_points(spec, d)) * len(d.densities) * len(d.records) * len(d.seeds or seeds)
    if total > LIMITS.runs:
        raise ctx.fail("", f"the sweep has {total:,} runs; at most {LIMITS.runs:,} in one file (split it)")
    return spec


def _check_attacks(ctx: Ctx, attacks: Mapping[str, Any], datasets: tuple[DatasetSpec, ...]) -> None:
    """Each attack has datasets it applies to, and each dataset picks only declared attacks."""
    for a in attacks:
        step = ATTACKS.get(a)
        if step.text_only and not any(d.is_text for d in datasets):
            raise ctx.fail(step.path, f"the {a} attack needs at least one text dataset ('text: SOURCE')")
    for i, d in enumerate(datasets):
        for a in d.attacks or ():
            if a not in attacks:
                raise ctx.fail(f"datasets[{i}].attacks", f"'{a}' is not declared in the sweep's 'attacks'")


def load_sweep(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a sweep file (InputError names the file and the key path of any mistake).

    The file is read within :data:`LIMITS`: at most 256 KiB, no YAML aliases, at most 10,000
    values (the example sweeps have 100-600) nested at most 50 deep; every message quotes at
    most a short prefix of a value.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such sweep file")
    raw = read_yaml(p)
    return parse_sweep(raw, source=str(p), base_dir=str(p.parent))
