"""``python -m experiments.run SWEEP.yaml [--jobs N] [--dry-run] [--only KEY=VALUE ...] [--results DIR]``.

Validates the sweep file, runs the runs not yet cached (resuming an interrupted sweep), and
writes ``<results>/<name>/results.csv``, ``figures/`` and ``report.md``. Bad input is one line
on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from corpora.common.bounds import int_option, scheduler_address
from corpora.common.errors import ArgumentParser, InputError, run_cli
from corpora.common.files import check_output_paths
from experiments.grid import RUN_PARAMS, parse_only
from experiments.runner import run_sweep
from experiments.schema import LIMITS, load_sweep

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(error_prefix="experiments.run", prog="python -m experiments.run",
                       description="Run a sweep of disassociation experiments.")
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
    return p


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM: stop like Ctrl-C (workers stopped, table written, resumable)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.jobs is not None and not 1 <= args.jobs <= LIMITS.jobs:
        raise InputError(f"--jobs {args.jobs}: must be between 1 and {LIMITS.jobs}")
    # a MemoryError of this process becomes one line in run_cli (corpora.common.errors.memory_message)
    spec = load_sweep(args.sweep)
    only = parse_only(args.only)
    executor = "dask" if args.scheduler else args.executor
    directory = Path(args.results) / spec.name
    if directory.is_dir() and not args.dry_run:  # the table and report replace only regular files
        check_output_paths({"table": directory / "results.csv", "report": directory / "report.md"})
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        result = run_sweep(spec, results_root=args.results, jobs=args.jobs, executor=executor,
                           scheduler=args.scheduler, only=only, dry_run=args.dry_run,
                           retry_failed=args.retry_failed, plots=not args.no_plots)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if args.dry_run:
        return 0
    print(f"{spec.name}: {result.runs_total} runs ({result.runs_cached} cached, {result.runs_executed} run, "
          f"{result.runs_failed} failed) in {result.seconds:.1f} s")
    print(f"table:   {result.csv_path}")
    for line in result.stand_ins:
        print(f"stand-in: {line}")
    if result.report_path:
        print(f"report:  {result.report_path} ({len(result.figures) // 2} figures)")
    if result.zip_path:
        print(f"archive: {result.zip_path}")
    for err in result.errors[:20]:
        print(f"failed:  {err}", file=sys.stderr)
    if len(result.errors) > 20:
        print(f"failed:  ... and {len(result.errors) - 20} more (see report.md)", file=sys.stderr)
    return 1 if result.runs_failed else 0


def cli() -> int:
    """The ``experiments`` console script: :func:`main` with one-line errors (as ``python -m experiments.run``)."""
    return run_cli(main, sys.argv[1:])


if __name__ == "__main__":
    sys.exit(run_cli(main, sys.argv[1:]))
