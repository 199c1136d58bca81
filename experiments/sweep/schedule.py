"""How long a sweep's runs take: estimates, the order they start in, and the line of the progress bar.

A run's expected seconds come, in this order, from

1. the cached seconds of *equal runs*: finished runs (of this sweep or an older version of it, any file
   in ``results/<name>/runs/``) whose configuration is the run's apart from the seed (:func:`work_key`),
   scaled by how fast this machine is now (the finished runs' seconds over their estimates);
2. the runs of this sweep that finished since it started, with the same work key;
3. the run's size (term occurrences of its dataset, when the task can tell it without work) times
   the seconds per occurrence of the cached runs (:data:`SECONDS_PER_OCCURRENCE` without any);
4. the mean seconds of the runs finished so far.

Runs start longest first (LPT: the longest processing time first), so ``--jobs 2`` is not left with
one long run at the end while the other worker idles. Runs that share work (a plain and a safe run of one
grid point share their disassociation) form a batch that one worker runs one after the other. The time
left is the end of a greedy list schedule of the remaining batches on the workers, the running ones first
with what is left of theirs.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.sweep.grid import Run

__all__ = ["SECONDS_PER_OCCURRENCE", "Estimator", "Running", "batches", "format_left", "progress_postfix", "work_key"]

SECONDS_PER_OCCURRENCE = 3e-5
"""Seconds per term occurrence of a run's dataset when no cached run gives the rate (the paper sweeps'
cached runs: 2e-5 to 5e-5 on the 2-core machine)."""

Sizer = Callable[[Mapping[str, Any]], float | None]


def work_key(config: Mapping[str, Any]) -> str:
    """What a run computes apart from its seed: runs with the same key take about the same time."""
    same = {k: v for k, v in config.items() if k not in ("seed", "base_dir")}
    blob = json.dumps(same, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _cached_seconds(runs_dir: Path) -> dict[str, list[float]]:
    """Seconds of every finished run file in ``runs_dir`` (any version), by work key."""
    out: dict[str, list[float]] = {}
    if not runs_dir.is_dir():
        return out
    for path in sorted(runs_dir.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("status") != "ok" or not isinstance(record.get("config"), dict):
            continue
        seconds = record.get("seconds")
        if isinstance(seconds, int | float) and seconds >= 0:
            out.setdefault(work_key(record["config"]), []).append(float(seconds))
    return out


@dataclass
class Running:
    """A batch of runs started in one worker: the runs not finished yet, and since when the first of them runs."""

    runs: list[Run]
    since: float


def batches(runs: Iterable[Run], share: Callable[[Mapping[str, Any]], str | None] | None) -> list[tuple[Run, ...]]:
    """The runs grouped by ``share`` (runs with one key are run one after the other in one worker, which
    computes their shared work once; None shares nothing), each group where its first run is."""
    groups: dict[str, list[Run]] = {}
    out: list[list[Run]] = []
    for run in runs:
        key = share(run.config) if share is not None else None
        if key is None:
            out.append([run])
        elif key in groups:
            groups[key].append(run)
        else:
            groups[key] = [run]
            out.append(groups[key])
    return [tuple(group) for group in out]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@dataclass
class Estimator:
    """Expected seconds of the runs of one sweep (see the module docstring), updated as runs finish."""

    cached: dict[str, list[float]] = field(default_factory=dict)
    sizes: dict[str, float] = field(default_factory=dict)
    rate: float = SECONDS_PER_OCCURRENCE
    finished: dict[str, list[float]] = field(default_factory=dict)
    done_seconds: list[float] = field(default_factory=list)
    actual_total: float = 0.0
    scaled_total: float = 0.0
    _keys: dict[str, str] = field(default_factory=dict, repr=False)

    def _work(self, run: Run) -> str:
        if run.key not in self._keys:
            self._keys[run.key] = work_key(run.config)
        return self._keys[run.key]

    @classmethod
    def for_runs(cls, runs: Iterable[Run], runs_dir: Path | None = None, sizer: Sizer | None = None) -> Estimator:
        """The estimator of ``runs``: cached seconds read from ``runs_dir``, sizes from ``sizer``."""
        cached = _cached_seconds(runs_dir) if runs_dir is not None else {}
        sizes: dict[str, float] = {}
        ratios = []
        for run in runs:
            size = sizer(run.config) if sizer is not None else None
            if size:
                sizes[run.key] = float(size)
                seconds = cached.get(work_key(run.config))
                if seconds:
                    ratios.append(_mean(seconds) / float(size))
        rate = sorted(ratios)[len(ratios) // 2] if ratios else SECONDS_PER_OCCURRENCE
        return cls(cached=cached, sizes=sizes, rate=rate)

    def _base(self, run: Run) -> float | None:
        """The estimate that is scaled by the machine's speed now: cached equal runs, else the size."""
        seconds = self.cached.get(self._work(run))
        if seconds:
            return _mean(seconds)
        if run.key in self.sizes and not self.finished.get(self._work(run)):
            return self.sizes[run.key] * self.rate
        return None

    @property
    def speed(self) -> float:
        """Seconds now per estimated second: the finished runs' seconds over their estimates (1 at first)."""
        return self.actual_total / self.scaled_total if self.scaled_total > 0 else 1.0

    def seconds(self, run: Run) -> float | None:
        """The run's expected seconds, or None when nothing is known yet."""
        base = self._base(run)
        if base is not None:
            return base * self.speed
        same = self.finished.get(self._work(run))
        if same:
            return _mean(same)
        return _mean(self.done_seconds) if self.done_seconds else None

    def order(self, batches: Iterable[Sequence[Run]]) -> list[tuple[Run, ...]]:
        """The batches of runs longest first (a batch's time is the sum of its runs'; unknown ones count 0 and go
        last, each group in the sweep's order)."""
        listed = [tuple(batch) for batch in batches]
        expected = [sum(self.seconds(run) or 0.0 for run in batch) for batch in listed]
        order = sorted(range(len(listed)), key=lambda i: -expected[i])
        return [listed[i] for i in order]

    def finish(self, run: Run, seconds: float) -> None:
        """Learn from a finished run (its seconds calibrate the speed and estimate its equal runs)."""
        base = self._base(run)
        if base is not None and base > 0:
            self.actual_total += seconds
            self.scaled_total += base
        self.finished.setdefault(self._work(run), []).append(seconds)
        self.done_seconds.append(seconds)

    def left(self, waiting: Iterable[Sequence[Run]], running: Iterable[Running], workers: int,
             now: float | None = None) -> float | None:
        """Seconds until the last run ends: the ``running`` batches go on, then the ``waiting`` batches start in
        their order on the first free of ``workers``; None when a run's time is unknown."""
        now = time.monotonic() if now is None else now
        free = []
        for batch in running:
            expected = [self.seconds(run) for run in batch.runs]
            if None in expected:
                return None
            free.append(max(sum(e for e in expected if e is not None) - (now - batch.since), 0.0))
        free += [0.0] * max(workers - len(free), 0)
        heapq.heapify(free)
        for batch in waiting:
            expected = [self.seconds(run) for run in batch]
            if None in expected:
                return None
            heapq.heapreplace(free, free[0] + sum(e for e in expected if e is not None))
        return max(free) if free else 0.0


def format_left(seconds: float | None) -> str:
    """``about 4 min 10 s left``, ``about 50 s left``, or ``time left unknown``."""
    if seconds is None:
        return "time left unknown"
    total = round(seconds)
    if total >= 3600:
        return f"about {total // 3600} h {total % 3600 // 60} min left"
    if total >= 60:
        return f"about {total // 60} min {total % 60} s left"
    return f"about {total} s left"


def progress_postfix(running: int, left: float | None) -> str:
    """What the progress bar shows after ``done/total runs``: the running runs and the time left."""
    return f"{running} running, {format_left(left)}"
