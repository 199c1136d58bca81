"""Running a sweep: cached independent runs, local processes or Dask, resumable, atomic outputs.

Layout of ``results/<name>/``:

* ``runs/<key>.json``: one file per finished run (its configuration, status, metric rows,
  error, seconds, versions), written atomically the moment the run ends. This is the cache: a
  run whose file exists is not run again, so an interrupted sweep resumes where it stopped, and
  nothing is lost or counted twice (a run is either wholly in its file or not at all).
* ``results.csv``: the tidy table, one row per run and metric, regenerated atomically from the
  run files (during the sweep every few seconds and at the end, also after an interruption).
* ``figures/*.png|svg`` and ``report.md``: see :mod:`experiments.report.plots`.

The work of a run is a *task*: a callable ``task(config) -> list[dict]`` returning metric rows
(``metric``, ``value`` and optionally ``attack``, ``method``, ``chunks``, ``rank``, ``seconds``). The
default task, :func:`experiments.sweep.task.run_task`, calls the anonymizer and the attacks; tests
and other studies pass their own. A task that raises is recorded as a failed run (its error
kept in the table) and the sweep goes on.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import platform
import sys
import time
import traceback
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from corpora.common.errors import InputError, memory_message
from corpora.common.files import atomic_open, write_json_atomic, write_text_atomic
from corpora.registry import describe_stand_ins
from experiments.report.plots import write_figures_and_report
from experiments.sweep import task as default_task
from experiments.sweep.grid import RUN_PARAMS, Run, expand_runs, filter_runs
from experiments.sweep.guard import die_with_parent, results_lock
from experiments.sweep.spec import DatasetSpec, SweepSpec
from experiments.sweep.table import read_results

__all__ = [
    "CSV_COLUMNS",
    "RUN_FORMAT",
    "SweepResult",
    "Task",
    "execute_run",
    "load_run_record",
    "read_results",
    "run_sweep",
    "versions",
    "write_results_csv",
]

RUN_FORMAT = "experiments-run/1"
CSV_COLUMNS = ("run", *RUN_PARAMS, "attack", "method", "chunks", "rank", "metric", "value", "seconds", "status",
               "error", "versions")
"""Columns of ``results.csv``."""

Task = Callable[[Mapping[str, Any]], list[dict[str, Any]]]
_ROW_KEYS = {"metric", "value", "attack", "method", "chunks", "rank", "seconds"}
_CSV_EVERY = 5.0


def versions() -> str:
    """Versions recorded with every row: the workbench, Python and the main numeric libraries."""
    from importlib import metadata

    parts = []
    for dist, short in (("disassociation-workbench", "workbench"), ("numpy", "numpy"), ("scipy", "scipy"),
                        ("gensim", "gensim")):
        try:
            parts.append(f"{short}={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            continue
    parts.insert(1, f"python={platform.python_version()}")
    return ";".join(parts)


def _check_rows(rows: Any) -> list[dict[str, Any]]:
    if not isinstance(rows, list):
        raise TypeError(f"a task must return a list of metric rows, got {type(rows).__name__}")
    out = []
    for row in rows:
        if not isinstance(row, Mapping) or "metric" not in row or "value" not in row:
            raise TypeError(f"a metric row needs 'metric' and 'value': {row!r}")
        extra = set(row) - _ROW_KEYS
        if extra:
            raise TypeError(f"unknown keys in a metric row: {sorted(extra)}")
        value = row["value"]
        value = float(value) if value is not None else math.nan
        out.append({
            "attack": str(row.get("attack", "") or ""),
            "method": str(row.get("method", "") or ""),
            "chunks": str(row.get("chunks", "") or ""),
            "rank": int(row["rank"]) if row.get("rank") is not None else None,
            "metric": str(row["metric"]),
            "value": value if math.isfinite(value) else None,
            "seconds": float(row["seconds"]) if row.get("seconds") is not None else None,
        })
    return out


def execute_run(task: Task, key: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """Run one task and return its record (never raises for a task's failure: the error is kept)."""
    start = time.perf_counter()
    try:
        rows = _check_rows(task(config))
        status, error, trace = "ok", None, None
    except Exception as exc:  # a failed run is recorded and the sweep goes on
        rows = []
        status = "error"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        error = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
        if isinstance(exc, MemoryError):
            error = f"MemoryError: {memory_message(exc)}"
        trace = traceback.format_exc(limit=8)
    return {
        "format": RUN_FORMAT,
        "key": key,
        "config": dict(config),
        "status": status,
        "rows": rows,
        "error": error,
        "traceback": trace,
        "seconds": round(time.perf_counter() - start, 6),
        "versions": versions(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }


def load_run_record(path: Path) -> dict[str, Any] | None:
    """A run file, or None when it is missing or unreadable (then the run is simply run again)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != RUN_FORMAT:
        return None
    if record.get("status") not in ("ok", "error") or not isinstance(record.get("rows"), list):
        return None
    return record


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_results_csv(path: Path, runs: Sequence[Run], records: Mapping[str, Mapping[str, Any]]) -> int:
    """Write the tidy table of the finished ``runs`` atomically; return the number of data rows."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for run in runs:
        rec = records.get(run.key)
        if rec is None:
            continue
        params = run.params
        base = [run.key, *(_fmt(params[p]) for p in RUN_PARAMS)]
        if rec["status"] == "error":
            writer.writerow([*base, "", "", "", "", "error", "", _fmt(rec.get("seconds")), "error",
                             rec.get("error") or "", rec.get("versions", "")])
            n += 1
            continue
        for row in rec["rows"]:
            writer.writerow([*base, row["attack"], row["method"], row["chunks"], _fmt(row.get("rank")), row["metric"],
                             _fmt(row["value"]), _fmt(row["seconds"]), "ok", "", rec.get("versions", "")])
            n += 1
    write_text_atomic(path, buf.getvalue())
    return n


@dataclass
class SweepResult:
    """What a sweep did: counts, where the outputs are, how long it took."""

    name: str
    directory: Path
    runs_total: int
    runs_cached: int
    runs_executed: int
    runs_failed: int
    csv_path: Path | None
    figures: list[Path] = field(default_factory=list)
    report_path: Path | None = None
    zip_path: Path | None = None
    stand_ins: list[str] = field(default_factory=list)
    """Each stand-in dataset's statistics beside its paper's (:func:`corpora.synthetic.shaped.compare`)."""
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


class _Progress:
    """Saves each finished run and refreshes the CSV every few seconds."""

    def __init__(self, runs_dir: Path, csv_path: Path, runs: Sequence[Run], records: dict[str, dict[str, Any]],
                 bar: tqdm) -> None:
        self.runs_dir, self.csv_path, self.runs, self.records, self.bar = runs_dir, csv_path, runs, records, bar
        self.last_csv = time.monotonic()
        self.executed = 0
        self.failed = 0
        self.errors: list[str] = []

    def done(self, record: dict[str, Any]) -> None:
        write_json_atomic(self.runs_dir / f"{record['key']}.json", record, indent=1)
        self.records[record["key"]] = record
        self.executed += 1
        if record["status"] == "error":
            self.failed += 1
            self.errors.append(f"run {record['key']}: {record['error']}")
        self.bar.update(1)
        if time.monotonic() - self.last_csv > _CSV_EVERY:
            self.flush()

    def lost(self, run: Run, exc: BaseException) -> None:
        """A run whose worker died: reported, not cached (it runs again next time)."""
        self.errors.append(f"run {run.key}: worker failed ({type(exc).__name__}: {exc}); it will run again")
        self.bar.update(1)

    def flush(self) -> None:
        write_results_csv(self.csv_path, self.runs, self.records)
        self.last_csv = time.monotonic()


def _run_serial(task: Task, pending: Sequence[Run], progress: _Progress) -> None:
    for run in pending:
        progress.done(execute_run(task, run.key, run.config))


def _run_processes(task: Task, pending: Sequence[Run], progress: _Progress, jobs: int) -> None:
    by_future = {}
    with ProcessPoolExecutor(max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        try:
            for run in pending:
                by_future[pool.submit(execute_run, task, run.key, run.config)] = run
            remaining = set(by_future)
            while remaining:
                finished, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                for fut in finished:
                    exc = fut.exception()
                    if exc is None:
                        progress.done(fut.result())
                    else:
                        progress.lost(by_future[fut], exc)
        except BaseException:
            # interrupted: drop the queued runs and stop the busy workers now (their runs are not
            # cached, so they run again on resume) instead of waiting for them to finish
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()
            raise


def _run_dask(task: Task, pending: Sequence[Run], progress: _Progress, scheduler: str | None, jobs: int) -> None:
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"dask scheduler {scheduler}: cannot connect ({str(exc)[:120]})") from None
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        futures = {}
        for run in pending:
            fut = client.submit(execute_run, task, run.key, dict(run.config), key=f"run-{run.key}", pure=False)
            futures[fut.key] = (fut, run)
        try:
            for fut in as_completed([f for f, _ in futures.values()]):
                run = futures[fut.key][1]
                if fut.status == "finished":
                    progress.done(fut.result())
                else:
                    progress.lost(run, fut.exception() or RuntimeError(fut.status))
        except BaseException:
            client.cancel([f for f, _ in futures.values()])
            raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _default_resolver(base_dir: str) -> Callable[[DatasetSpec], str]:
    return lambda ds: default_task.resolve_dataset_label(ds, base_dir)


def run_sweep(
    spec: SweepSpec,
    *,
    results_root: str | os.PathLike[str] = "results",
    jobs: int | None = None,
    executor: str | None = None,
    scheduler: str | None = None,
    only: Mapping[str, Sequence[str]] | None = None,
    dry_run: bool = False,
    task: Task | None = None,
    resolve: Callable[[DatasetSpec], str] | None = None,
    retry_failed: bool = False,
    plots: bool = True,
    out: Any = None,
) -> SweepResult:
    """Run every run of ``spec`` not already cached, then write the table, figures and report.

    ``task`` (default :func:`experiments.sweep.task.run_task`) does the work of one run;
    ``resolve`` picks each dataset entry's label (default: the first of its names that loads
    offline, see :func:`experiments.sweep.task.resolve_dataset_label`; with a custom task, the
    entry's label or first name). ``jobs``, ``executor``, ``scheduler`` override the file.
    ``only`` keeps the runs whose parameters match (``--only``); the table still lists every
    finished run of the sweep. ``dry_run`` prints the runs and their cache status and writes
    nothing. Failed runs are cached with their error; ``retry_failed`` runs them again.
    """
    started = time.perf_counter()
    out = out if out is not None else sys.stdout
    if task is None:
        task = default_task.run_task  # looked up now, so a study (or a test) may replace it
        resolve = resolve or _default_resolver(spec.base_dir)
    jobs = jobs or spec.jobs
    executor = executor or spec.executor
    scheduler = scheduler or spec.scheduler
    if executor not in ("local", "dask"):
        raise InputError(f"executor {executor!r}: allowed values: local, dask")
    if scheduler is not None:  # before the lock and any work: an address Dask cannot parse is one line
        import argparse

        from corpora.common.bounds import scheduler_address

        try:
            scheduler = scheduler_address(str(scheduler))
        except argparse.ArgumentTypeError as exc:
            raise InputError(f"scheduler: {exc}") from None
    directory = Path(results_root) / spec.name
    runs_dir = directory / "runs"
    with contextlib.ExitStack() as stack:
        if not dry_run:  # before any work: the folder is writable and no other sweep writes it
            stack.enter_context(results_lock(directory))
        runs = expand_runs(spec, resolve)
        selected = filter_runs(runs, only or {})
        if only and not selected:
            raise InputError("--only: no run of the sweep matches " +
                             " ".join(f"{k}={'|'.join(v)}" for k, v in only.items()))
        records: dict[str, dict[str, Any]] = {}
        if runs_dir.is_dir():
            for run in runs:
                rec = load_run_record(runs_dir / f"{run.key}.json")
                if rec is not None:
                    records[run.key] = rec
        pending = [r for r in selected
                   if r.key not in records or (retry_failed and records[r.key]["status"] == "error")]
        if dry_run:
            for run in selected:
                status = records[run.key]["status"] if run.key in records else "pending"
                if run in pending and run.key in records:
                    status = "retry"
                params = " ".join(f"{k}={_fmt(v)}" for k, v in run.params.items() if v is not None)
                print(f"{run.key}  {status:7s}  {params}", file=out)
            print(f"{len(selected)} runs ({len(pending)} to run, {len(selected) - len(pending)} cached) "
                  f"-> {directory}", file=out)
            return SweepResult(spec.name, directory, len(selected), len(selected) - len(pending), 0, 0, None,
                               seconds=time.perf_counter() - started)
        result = _execute(spec, task, runs, selected, pending, records, directory, executor, scheduler, jobs, plots)
    result.seconds = time.perf_counter() - started
    return result


def _execute(spec: SweepSpec, task: Task, runs: Sequence[Run], selected: Sequence[Run], pending: Sequence[Run],
             records: dict[str, dict[str, Any]], directory: Path, executor: str, scheduler: str | None, jobs: int,
             plots: bool) -> SweepResult:
    """Run the pending runs and write the table, figures and archive (the caller holds the lock)."""
    runs_dir = directory / "runs"
    made_runs_dir = not runs_dir.exists()
    try:
        runs_dir.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(f"{runs_dir}: cannot be created ({exc.strerror or type(exc).__name__})") from None
    csv_path = directory / "results.csv"
    bar = tqdm(total=len(pending), desc=spec.name, unit="run", disable=None, file=sys.stderr)
    progress = _Progress(runs_dir, csv_path, runs, records, bar)
    try:
        if pending:
            if executor == "dask":
                _run_dask(task, pending, progress, scheduler, jobs)
            elif jobs > 1 and len(pending) > 1:
                _run_processes(task, pending, progress, jobs)
            else:
                _run_serial(task, pending, progress)
    except BaseException:
        bar.close()
        if progress.executed:  # interrupted after some runs: their table is written, the sweep resumes
            progress.flush()
        elif made_runs_dir:  # failed before any run (e.g. no scheduler): nothing is left behind
            with contextlib.suppress(OSError):
                runs_dir.rmdir()
        raise
    bar.close()
    progress.flush()
    result = SweepResult(spec.name, directory, len(selected), len(selected) - len(pending), progress.executed,
                         progress.failed, csv_path, errors=list(progress.errors))
    result.errors.extend(f"run {k}: {records[k]['error']} (cached)" for k in (r.key for r in selected)
                         if k in records and records[k]["status"] == "error" and
                         not any(e.startswith(f"run {k}:") for e in progress.errors))
    if plots:
        result.stand_ins = describe_stand_ins(r.config["dataset"]["names"][0] for r in selected
                                              if r.config["dataset"].get("names"))
        result.figures, result.report_path = write_figures_and_report(spec, csv_path, directory, runs, records,
                                                                      stand_ins=result.stand_ins)
    if spec.zip_results:
        result.zip_path = _write_zip(directory)
    return result


def _write_zip(directory: Path) -> Path:
    """``results/<name>.zip`` with the table, the report and the figures (not the run cache)."""
    target = directory.parent / f"{directory.name}.zip"
    files: Iterable[Path] = sorted(p for p in directory.rglob("*") if p.is_file() and "runs" not in p.parts
                                   and not p.name.startswith("."))
    with atomic_open(target, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in files:
            info = zipfile.ZipInfo(f"{directory.name}/{p.relative_to(directory).as_posix()}", (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, p.read_bytes())
    return target
