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

import collections
import contextlib
import csv
import io
import json
import os
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from corpora.common.errors import InputError
from corpora.common.files import atomic_open, write_json_atomic, write_text_atomic
from corpora.registry import describe_stand_ins
from experiments.report.plots import write_figures_and_report
from experiments.sweep import task as default_task
from experiments.sweep.execute import RUN_FORMAT, Task, run_dask, run_processes, run_serial, versions
from experiments.sweep.grid import RUN_PARAMS, Run, expand_runs, filter_runs
from experiments.sweep.guard import results_lock
from experiments.sweep.schedule import Estimator, Running, batches, progress_postfix
from experiments.sweep.spec import DatasetSpec, SweepSpec
from experiments.sweep.table import read_results

__all__ = [
    "CSV_COLUMNS",
    "RUN_FORMAT",
    "SweepResult",
    "Task",
    "load_run_record",
    "read_results",
    "run_sweep",
    "versions",
    "write_results_csv",
]

CSV_COLUMNS = ("run", *RUN_PARAMS, "attack", "method", "chunks", "rank", "metric", "value", "seconds", "status",
               "error", "versions")
"""Columns of ``results.csv``."""

_CSV_EVERY = 5.0
_BAR_FORMAT = "{desc}: {n_fmt}/{total_fmt} runs done{postfix} |{bar}|"  # tqdm puts ", " before the postfix


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
    """Saves each finished run, refreshes the CSV every few seconds and draws the progress bar.

    The bar shows the runs done of the total, how many run now and the time left
    (:class:`experiments.sweep.schedule.Estimator`: from the cached seconds of equal runs, else the
    runs done); ``waiting`` holds the runs not started yet, in the order they will start.
    """

    def __init__(self, runs_dir: Path, csv_path: Path, runs: Sequence[Run], records: dict[str, dict[str, Any]],
                 bar: tqdm, estimator: Estimator | None = None, workers: int = 1) -> None:
        self.runs_dir, self.csv_path, self.runs, self.records, self.bar = runs_dir, csv_path, runs, records, bar
        self.estimator = estimator if estimator is not None else Estimator()
        self.workers = workers
        self.last_csv = time.monotonic()
        self.executed = 0
        self.failed = 0
        self.errors: list[str] = []
        self.waiting: collections.deque[tuple[Run, ...]] = collections.deque()
        self.running: dict[str, Running] = {}  # by the batch's first run key
        self._batch_of: dict[str, str] = {}

    @property
    def running_runs(self) -> int:
        """The runs being computed now: one per running batch (a batch runs its runs one after the other)."""
        return len(self.running)

    def next_batch(self) -> tuple[Run, ...]:
        """The next waiting batch, marked as running."""
        batch = self.waiting.popleft()
        self.running[batch[0].key] = Running(list(batch), time.monotonic())
        self._batch_of.update((run.key, batch[0].key) for run in batch)
        self.refresh()
        return batch

    def _finished(self, key: str) -> Run | None:
        """Take a finished run out of its running batch (the batch's clock restarts for its next run)."""
        batch = self.running.get(self._batch_of.pop(key, ""))
        if batch is None:
            return None
        run = next(r for r in batch.runs if r.key == key)
        batch.runs.remove(run)
        batch.since = time.monotonic()
        if not batch.runs:
            del self.running[next(k for k, v in self.running.items() if v is batch)]
        return run

    def done(self, record: dict[str, Any]) -> None:
        write_json_atomic(self.runs_dir / f"{record['key']}.json", record, indent=1)
        self.records[record["key"]] = record
        self.executed += 1
        if record["status"] == "error":
            self.failed += 1
            self.errors.append(f"run {record['key']}: {record['error']}")
        run = self._finished(record["key"])
        if run is not None and record["status"] == "ok":
            self.estimator.finish(run, float(record["seconds"]))
        self.bar.update(1)
        self.refresh()
        if time.monotonic() - self.last_csv > _CSV_EVERY:
            self.flush()

    def lost(self, run: Run, exc: BaseException) -> None:
        """A run whose worker died: reported, not cached (it runs again next time)."""
        self.errors.append(f"run {run.key}: worker failed ({type(exc).__name__}: {exc}); it will run again")
        self._finished(run.key)
        self.bar.update(1)
        self.refresh()

    def refresh(self) -> None:
        """Redraw the bar's running count and time left (a no-op when the bar is off)."""
        if self.bar.disable:
            return
        left = self.estimator.left(self.waiting, self.running.values(), self.workers)
        self.bar.set_postfix_str(progress_postfix(self.running_runs, left))

    def flush(self) -> None:
        write_results_csv(self.csv_path, self.runs, self.records)
        self.last_csv = time.monotonic()


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
    sizer = default_task.run_size if task is default_task.run_task else None
    estimator = Estimator.for_runs(pending, runs_dir, sizer)
    workers = jobs if executor == "dask" or (jobs > 1 and len(pending) > 1) else 1
    bar = tqdm(total=len(pending), desc=spec.name, unit="run", disable=None, file=sys.stderr, bar_format=_BAR_FORMAT)
    progress = _Progress(runs_dir, csv_path, runs, records, bar, estimator, workers)
    share = default_task.share_key if task is default_task.run_task else None
    progress.waiting.extend(estimator.order(batches(pending, share)))  # the longest first
    progress.refresh()
    try:
        if pending:
            if executor == "dask":
                run_dask(task, progress, scheduler, jobs)
            elif jobs > 1 and len(pending) > 1:
                run_processes(task, progress, jobs)
            else:
                run_serial(task, progress)
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
