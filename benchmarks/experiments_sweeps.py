"""Wall time of the shipped sweeps: ``python benchmarks/experiments_sweeps.py [--jobs 2] [NAME ...]``.

Each sweep runs from scratch (a fresh temporary results directory) as
``python -m experiments.run FILE --jobs N --results TMP`` in a child process; the table gives
the runs, the wall seconds and the peak resident memory of the children (the driver and its
workers, from ``resource.getrusage(RUSAGE_CHILDREN)``, so the largest process seen so far).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SWEEPS = {
    "default": ROOT / "sweep.yaml",
    "barakat2016": ROOT / "experiments" / "sweeps" / "barakat2016.yaml",
    "terrovitis2012": ROOT / "experiments" / "sweeps" / "terrovitis2012.yaml",
    "awad2019": ROOT / "experiments" / "sweeps" / "awad2019.yaml",
    "alshuhail2021": ROOT / "experiments" / "sweeps" / "alshuhail2021.yaml",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", metavar="NAME", help=f"sweeps to time (default all: {', '.join(SWEEPS)})")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in SWEEPS]
    if unknown:
        p.error(f"unknown sweep {unknown[0]!r}; choose from {', '.join(SWEEPS)}")
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
