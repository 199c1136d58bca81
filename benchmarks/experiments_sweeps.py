"""Wall time of the shipped sweeps: ``python benchmarks/experiments_sweeps.py [--jobs 2] [NAME ...]``.

Each sweep runs from scratch (a fresh temporary results directory) as
``python -m experiments.run FILE --jobs N --results TMP`` in a child process; the table gives
the runs, the wall seconds and the peak resident memory of the children (the driver and its
workers, from ``resource.getrusage(RUSAGE_CHILDREN)``, so the largest process seen so far).

``--steps`` profiles instead of timing: the runs of each group (one dataset entry, anonymizer and
``safe``) are run in this process, ``--sample`` of them per group (default 1, 0 for all), each
step of each run timed in CPU seconds (dataset build, disassociation, safe disassociation,
utility, re windows and RAE, release fingerprint, a baseline's generalization, each attack), and
the table scales a group's sampled seconds by its number of runs: which step dominates each sweep.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SWEEPS = {
    "default": ROOT / "sweep.yaml",
    "barakat2016": ROOT / "experiments" / "sweeps" / "barakat2016.yaml",
    "terrovitis2012": ROOT / "experiments" / "sweeps" / "terrovitis2012.yaml",
    "awad2019": ROOT / "experiments" / "sweeps" / "awad2019.yaml",
    "alshuhail2021": ROOT / "experiments" / "sweeps" / "alshuhail2021.yaml",
}
STEPS = ("dataset", "disassociate", "safe", "utility", "re_windows/rae", "release_id", "baseline", "cover",
         "semantic", "other")


def _timed(clock: collections.Counter[str], step: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            clock[step] += time.process_time() - t0
    return wrapper


@contextlib.contextmanager
def _step_timers(clock: collections.Counter[str]) -> Iterator[None]:
    """Wrap each step's entry point (module attributes the task looks up at call time) with a CPU timer."""
    import anonymizer.evaluation.multilevel as multilevel
    import experiments.steps.baselines as baselines
    import experiments.steps.disassociation as disassociation
    import experiments.sweep.task as task
    from experiments.plugins import load
    from experiments.registry import ATTACKS

    load()
    patches: list[tuple[Any, str, str]] = [
        (task, "load_run_dataset", "dataset"), (disassociation, "disassociate", "disassociate"),
        (disassociation, "_safe", "safe"), (disassociation, "_utility_rows", "utility"),
        (multilevel, "baseline_utility", "utility"), (disassociation, "_rank_rows", "re_windows/rae"),
        (disassociation, "release_fingerprint", "release_id"), (baselines, "_generalize", "baseline"),
    ]
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    attacks = [ATTACKS.get(name) for name in ATTACKS.names()]
    try:
        for obj, name, step in patches:
            setattr(obj, name, _timed(clock, step, getattr(obj, name)))
        for attack in attacks:
            attack.run = _timed(clock, attack.name, type(attack).run.__get__(attack))  # type: ignore[method-assign]
        yield
    finally:
        for obj, name, fn in saved:
            setattr(obj, name, fn)
        for attack in attacks:
            vars(attack).pop("run", None)


def profile_steps(name: str, sample: int, out: Any = sys.stdout) -> dict[str, float]:
    """Print the CPU seconds of each step per group of runs of sweep ``name``; return the sweep's totals."""
    from experiments.sweep.grid import expand_runs
    from experiments.sweep.runner import _default_resolver
    from experiments.sweep.schema import load_sweep
    from experiments.sweep.task import run_task

    spec = load_sweep(SWEEPS[name])
    groups: dict[tuple[str, str, bool], list[Any]] = {}
    for run in expand_runs(spec, _default_resolver(spec.base_dir)):
        key = (run.params["dataset"], str(run.params["anonymizer"]), bool(run.params["safe"]))
        groups.setdefault(key, []).append(run)
    totals: collections.Counter[str] = collections.Counter()
    print(f"{name}: CPU seconds per run (mean of the sampled runs) and the group's estimated total", file=out)
    print(f"{'group':<34}{'runs':>5}  " + "  ".join(f"{s:>9}" for s in STEPS) + f"{'total':>9}{'group':>9}",
          file=out)
    for (label, anonymizer, safe), runs in groups.items():
        chosen = runs if sample <= 0 else runs[:sample]
        clock: collections.Counter[str] = collections.Counter()
        start = time.process_time()
        with _step_timers(clock):
            for run in chosen:
                run_task(run.config)
        clock["other"] = time.process_time() - start - sum(clock.values())
        scale = len(runs) / len(chosen)
        per_run = {s: clock[s] / len(chosen) for s in STEPS}
        for s in STEPS:
            totals[s] += clock[s] * scale
        run_total = sum(per_run.values())
        title = f"{label} {anonymizer}{' safe' if safe else ''}"[:33]
        print(f"{title:<34}{len(runs):>5}  " + "  ".join(f"{per_run[s]:>9.2f}" for s in STEPS) +
              f"{run_total:>9.2f}{run_total * len(runs):>9.1f}", file=out, flush=True)
    whole = sum(totals.values())
    print(f"{'sweep total (estimated)':<39}" + "  ".join(f"{totals[s]:>9.1f}" for s in STEPS) + f"{whole:>9.1f}",
          file=out)
    print(f"{'share':<39}" + "  ".join(f"{100 * totals[s] / whole if whole else 0:>8.0f}%" for s in STEPS),
          file=out)
    return dict(totals)


def simulate_schedule(name: str, results: Path, jobs: int, out: Any = sys.stdout) -> tuple[float, float, float]:
    """Wall seconds of ``--jobs`` workers from the cached run seconds in ``results/<name>/runs``: the runs in the
    sweep's order (as before issue 25), and in batches longest first with each batch's disassociation computed
    once (its other runs' ``anonymize_seconds`` taken off); and the summed seconds over ``jobs`` (the floor)."""
    import heapq

    from experiments.sweep.grid import expand_runs
    from experiments.sweep.runner import _default_resolver, load_run_record
    from experiments.sweep.schedule import batches
    from experiments.sweep.schema import load_sweep
    from experiments.sweep.task import share_key

    spec = load_sweep(SWEEPS[name])
    runs = expand_runs(spec, _default_resolver(spec.base_dir))
    records = {r.key: load_run_record(results / name / "runs" / f"{r.key}.json") for r in runs}
    seconds = {k: float(rec["seconds"]) for k, rec in records.items() if rec is not None}
    shared = {k: sum(float(row["value"] or 0) for row in rec["rows"] if row["metric"] == "anonymize_seconds")
              for k, rec in records.items() if rec is not None}

    def makespan(durations: list[float]) -> float:
        free = [0.0] * jobs
        for d in durations:
            heapq.heapreplace(free, free[0] + d)
        return max(free)

    fifo = makespan([seconds.get(r.key, 0.0) for r in runs])
    grouped = batches(runs, share_key)
    durations = []
    for batch in grouped:
        durations.append(sum(seconds.get(r.key, 0.0) for r in batch) - sum(shared.get(r.key, 0.0) for r in batch[1:]))
    lpt = makespan(sorted(durations, reverse=True))
    floor = sum(durations) / jobs
    print(f"{name:<16}{len(runs):>6}{len(grouped):>9}{sum(seconds.values()):>10.0f}{fifo:>12.0f}{lpt:>12.0f}"
          f"{floor:>10.0f}", file=out)
    return fifo, lpt, floor


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", metavar="NAME", help=f"sweeps to time (default all: {', '.join(SWEEPS)})")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--steps", action="store_true", help="profile each step in this process instead (CPU seconds)")
    p.add_argument("--sample", type=int, default=1, help="with --steps: runs timed per group (0: all)")
    p.add_argument("--schedule", metavar="RESULTS", type=Path, default=None,
                   help="simulate --jobs from the cached run seconds under RESULTS/<name>/runs instead")
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in SWEEPS]
    if unknown:
        p.error(f"unknown sweep {unknown[0]!r}; choose from {', '.join(SWEEPS)}")
    if args.schedule is not None:
        print(f"{'sweep':<16}{'runs':>6}{'batches':>9}{'summed s':>10}{'in order s':>12}{'longest 1st':>12}"
              f"{'floor s':>10}")
        for name in args.names or list(SWEEPS):
            simulate_schedule(name, args.schedule, args.jobs)
        return 0
    if args.steps:
        for name in args.names or list(SWEEPS):
            profile_steps(name, args.sample)
        return 0
    print(f"{'sweep':<16}{'runs':>6}{'failed':>8}{'wall s':>10}{'peak MB':>10}")
    for name in args.names or list(SWEEPS):
        from experiments.sweep.grid import expand_runs
        from experiments.sweep.schema import load_sweep

        runs = len(expand_runs(load_sweep(SWEEPS[name])))
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "experiments.run", str(SWEEPS[name]), "--jobs",
                                   str(args.jobs), "--results", tmp], capture_output=True, text=True, cwd=ROOT)
            wall = time.perf_counter() - t0
        failed = "?" if proc.returncode not in (0, 1) else ("0" if proc.returncode == 0 else "some")
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"{name:<16}{runs:>6}{failed:>8}{wall:>10.1f}{peak:>10.0f}", flush=True)
        if proc.returncode not in (0, 1):
            print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
