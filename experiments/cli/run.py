"""``python -m experiments run SWEEP.yaml [--jobs N] [--dry-run] [--only KEY=VALUE ...] [--results DIR]``.

Validates the sweep file, runs the runs not yet cached (resuming an interrupted sweep), and
writes ``<results>/<name>/results.csv``, ``figures/``, ``report.md`` and ``report.html``. Bad input is one line
on stderr and exit status 2. SIGTERM (raised as :class:`~corpora.common.errors.Terminated` by the
one policy of :func:`~corpora.common.errors.run_cli`) stops a sweep like Ctrl-C: the workers are
stopped, the table of the finished runs is written, the sweep resumes, and the exit status is 130.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from corpora.common.bounds import int_option, scheduler_address
from corpora.common.errors import InputError, Terminated
from corpora.common.files import check_output_paths
from experiments.cli import COMMANDS
from experiments.sweep.grid import RUN_PARAMS, parse_only
from experiments.sweep.runner import SweepResult, run_sweep
from experiments.sweep.schema import LIMITS, load_sweep

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "run"]

HELP = COMMANDS["run"]
DESCRIPTION = "Run a sweep of disassociation experiments."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("sweep", help="the sweep file (YAML)")
    p.add_argument("--jobs", "-j", type=int_option("--jobs", 1, LIMITS.jobs), default=None,
                   help="local worker processes (default: the file's jobs, 1)")
    p.add_argument("--dry-run", action="store_true", help="list the runs and whether they are cached; run nothing")
    p.add_argument("--only", action="append", default=[], metavar="KEY=VALUE",
                   help=f"run only matching runs (repeatable; keys: {', '.join(RUN_PARAMS)})")
    p.add_argument("--results", default="results", metavar="DIR", help="results root (default: results)")
    p.add_argument("--executor", choices=("local", "dask"), default=None, help="override the file's executor")
    p.add_argument("--scheduler", type=scheduler_address, default=None, metavar="ADDRESS",
                   help="dask scheduler address, [tcp://]HOST:PORT (implies dask)")
    p.add_argument("--retry-failed", action="store_true", help="run the cached failed runs again")
    p.add_argument("--no-plots", action="store_true", help="write the table only")


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and not 1 <= args.jobs <= LIMITS.jobs:
        raise InputError(f"--jobs {args.jobs}: must be between 1 and {LIMITS.jobs}")
    # a MemoryError of this process becomes one line in run_cli (corpora.common.errors.memory_message)
    spec = load_sweep(args.sweep)
    only = parse_only(args.only)
    executor = "dask" if args.scheduler else args.executor
    directory = Path(args.results) / spec.name
    if directory.is_dir() and not args.dry_run:  # the table and report replace only regular files
        check_output_paths({"table": directory / "results.csv", "report": directory / "report.md",
                            "html report": directory / "report.html"})
    try:
        result = run_sweep(spec, results_root=args.results, jobs=args.jobs, executor=executor,
                           scheduler=args.scheduler, only=only, dry_run=args.dry_run,
                           retry_failed=args.retry_failed, plots=not args.no_plots)
    except Terminated:
        raise KeyboardInterrupt from None  # SIGTERM: stop like Ctrl-C (workers stopped, table written, resumable)
    if args.dry_run:
        return 0
    _summary(spec.name, result)
    return 1 if result.runs_failed else 0


def _summary(name: str, result: SweepResult) -> None:
    print(f"{name}: {result.runs_total} runs ({result.runs_cached} cached, {result.runs_executed} run, "
          f"{result.runs_failed} failed) in {result.seconds:.1f} s")
    print(f"table:   {result.csv_path}")
    for line in result.stand_ins:
        print(f"stand-in: {line}")
    if result.report_path:
        print(f"report:  {result.report_path} ({len(result.figures) // 2} figures); "
              f"{result.report_path.with_suffix('.html')} (the same, self-contained)")
    if result.zip_path:
        print(f"archive: {result.zip_path}")
    for err in result.errors[:20]:
        print(f"failed:  {err}", file=sys.stderr)
    if len(result.errors) > 20:
        print(f"failed:  ... and {len(result.errors) - 20} more (see report.md)", file=sys.stderr)
