"""Running the runs of a sweep: one run's record (:func:`execute_run`) and the executors.

The executors keep at most one batch per worker in flight and take the next batch from the progress's
``waiting`` queue (longest first, :mod:`experiments.sweep.schedule`), so the order the runs start in is
the sweep's choice, not the pool's, and the progress bar knows exactly which runs are running:
in this process (``--jobs 1``), in local worker processes, or on a Dask cluster. A batch is the runs
that share work (:func:`experiments.sweep.task.share_key`), run one after the other in one worker;
most batches are one run.
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Protocol

from corpora.common.errors import InputError, memory_message
from experiments.sweep.grid import Run
from experiments.sweep.guard import die_with_parent

__all__ = ["RUN_FORMAT", "Task", "execute_batch", "execute_run", "run_dask", "run_processes", "run_serial", "versions"]

RUN_FORMAT = "experiments-run/1"
Task = Callable[[Mapping[str, Any]], list[dict[str, Any]]]
_ROW_KEYS = {"metric", "value", "attack", "method", "chunks", "rank", "seconds"}
_REFRESH_EVERY = 1.0


class Progress(Protocol):
    """What the executors report to (:class:`experiments.sweep.runner._Progress`)."""

    waiting: Any
    workers: int

    def next_batch(self) -> Sequence[Run]: ...
    def done(self, record: dict[str, Any]) -> None: ...
    def lost(self, run: Run, exc: BaseException) -> None: ...
    def refresh(self) -> None: ...


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


def execute_batch(task: Task, items: Sequence[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Run several runs one after the other in this process (runs sharing work: the task computes it once)."""
    return [execute_run(task, key, config) for key, config in items]


def _items(batch: Sequence[Run]) -> list[tuple[str, dict[str, Any]]]:
    return [(run.key, dict(run.config)) for run in batch]


def run_serial(task: Task, progress: Progress) -> None:
    while progress.waiting:
        for run in progress.next_batch():
            progress.done(execute_run(task, run.key, run.config))


def run_processes(task: Task, progress: Progress, jobs: int) -> None:
    """At most ``jobs`` batches in flight, so the longest waiting batch starts as soon as a worker is free."""
    by_future: dict[Any, Sequence[Run]] = {}
    with ProcessPoolExecutor(max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        try:
            while progress.waiting or by_future:
                while progress.waiting and len(by_future) < jobs:
                    batch = progress.next_batch()
                    by_future[pool.submit(execute_batch, task, _items(batch))] = batch
                finished, _ = wait(set(by_future), timeout=_REFRESH_EVERY, return_when=FIRST_COMPLETED)
                for fut in finished:
                    batch = by_future.pop(fut)
                    exc = fut.exception()
                    for run, record in zip(batch, fut.result() if exc is None else [None] * len(batch), strict=True):
                        if record is None:
                            progress.lost(run, exc)  # type: ignore[arg-type]
                        else:
                            progress.done(record)
                if not finished:
                    progress.refresh()
        except BaseException:
            # interrupted: drop the queued runs and stop the busy workers now (their runs are not
            # cached, so they run again on resume) instead of waiting for them to finish
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()
            raise


def run_dask(task: Task, progress: Progress, scheduler: str | None, jobs: int) -> None:
    from distributed import Client, LocalCluster
    from distributed import wait as dask_wait

    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"dask scheduler {scheduler}: cannot connect ({str(exc)[:120]})") from None
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    by_future: dict[Any, Sequence[Run]] = {}
    try:
        try:
            while progress.waiting or by_future:
                slots = max(sum(client.nthreads().values()), 1)  # workers may join or leave
                progress.workers = slots
                while progress.waiting and len(by_future) < slots:
                    batch = progress.next_batch()
                    fut = client.submit(execute_batch, task, _items(batch), key=f"run-{batch[0].key}", pure=False)
                    by_future[fut] = batch
                with contextlib.suppress(TimeoutError):
                    dask_wait(list(by_future), timeout=_REFRESH_EVERY, return_when="FIRST_COMPLETED")
                for fut in [f for f in by_future if f.done()]:
                    batch = by_future.pop(fut)
                    if fut.status == "finished":
                        for record in fut.result():
                            progress.done(record)
                    else:
                        for run in batch:
                            progress.lost(run, fut.exception() or RuntimeError(fut.status))
                progress.refresh()
        except BaseException:
            client.cancel(list(by_future))
            raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
