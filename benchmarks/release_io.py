"""Benchmark: reading releases (JSON and parquet) and the commands that read them, beside the floor.

For each size (records of the input dataset; the release is made once with k=5, m=2, max cluster
size 30 and seed 1, then converted to parquet), each job runs in a fresh Python process (so the
peak memory is the job's own: ``os.wait4``), one at a time:

* ``floor``: read the input file into Python sets, ``[set(l.split()) for l in open(f)]``;
* ``load``: :func:`anonymizer.io.release_files.load_release` of the JSON / parquet release (arrays);
  ``load + objects``: and the cluster objects built from them; ``load (old)``: ``json.loads`` +
  :meth:`Release.from_dict`, what every command did before the columnar reader;
* ``cover``, ``verify``, ``reconstruct``, ``utility``: the command line's own ``main`` run in the
  process (``attacks cover R --attacker strong --json``, ``anonymizer verify R``, ``anonymizer
  reconstruct R -o OUT``, ``anonymizer utility INPUT R --json``), with the time spent reading the
  release measured apart (for reconstruct and utility, building the cluster objects too), so
  ``core`` = the command minus reading the release (verify: the time inside
  :func:`anonymizer.evaluation.verify.verify`, which includes its own parse of the clusters).

Columns: seconds of the whole process (interpreter start and imports included), of the command
(``main``), of reading the release, of the core, and the process's peak RSS in MB.

    python benchmarks/release_io.py INPUT_1M.txt [--sizes 100000 1000000] [--work DIR] [--code DIR]
        [--jobs floor load cover verify reconstruct utility]

``--code DIR`` runs the jobs with another checkout on ``PYTHONPATH`` (e.g. the code before the
columnar reader, for a before/after table; jobs it cannot run are skipped). Never run above 1M
records on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PRELUDE = """
import contextlib, io, json, sys, time
T0 = time.perf_counter()
LOAD = [0.0]
CORE = [None]
def timed(fn, slot):
    def wrapper(*a, **kw):
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            slot[0] += time.perf_counter() - t
    return wrapper
def objects(load):
    # load_release, then the cluster objects built (what reconstruct and utility read)
    def wrapper(*a, **kw):
        release = load(*a, **kw)
        release.clusters
        return release
    return wrapper
def done(command_seconds):
    core = CORE[0] if CORE[0] is not None else command_seconds - LOAD[0]
    load = LOAD[0] if CORE[0] is None else command_seconds - CORE[0]
    print("RESULT " + json.dumps({"command": command_seconds, "load": load, "core": core}), file=sys.__stderr__)
"""

_JOBS = {
    "floor": """
t = time.perf_counter()
records = [set(line.split()) for line in open({input!r})]
done(time.perf_counter() - t)
""",
    "load": """
from anonymizer.io.release_files import load_release
t = time.perf_counter()
release = load_release({release!r})
LOAD[0] = time.perf_counter() - t
done(LOAD[0])
""",
    "load + objects": """
from anonymizer.io.release_files import load_release
t = time.perf_counter()
release = load_release({release!r})
release.clusters
LOAD[0] = time.perf_counter() - t
done(LOAD[0])
""",
    "load (old)": """
from anonymizer.io.release_files import read_json
from anonymizer.model.release import Release
t = time.perf_counter()
release = Release.from_dict(read_json({release!r}), {release!r})
LOAD[0] = time.perf_counter() - t
done(LOAD[0])
""",
    "cover": """
import attacks.cli.cover as cli
from attacks.__main__ import main
cli.load_release = timed(cli.load_release, LOAD)
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["cover", {release!r}, "--attacker", "strong", "--json"])
if status != 0:
    sys.exit(f"exit status {{status}}")
done(time.perf_counter() - t)
""",
    "verify": """
import anonymizer.evaluation.verify
from anonymizer.__main__ import main
v = sys.modules["anonymizer.evaluation.verify"]
CORE[0] = 0.0
slot = [0.0]
v.verify = timed(v.verify, slot)
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["verify", {release!r}])
if status not in (0, 1):
    sys.exit(f"exit status {{status}}")
CORE[0] = slot[0]
done(time.perf_counter() - t)
""",
    "reconstruct": """
import anonymizer.cli.reconstruct as cli
from anonymizer.__main__ import main
cli.load_release = timed(objects(cli.load_release), LOAD)
t = time.perf_counter()
with contextlib.redirect_stderr(io.StringIO()):
    status = main(["reconstruct", {release!r}, "--seed", "3", "-o", {output!r}])
if status != 0:
    sys.exit(f"exit status {{status}}")
done(time.perf_counter() - t)
""",
    "utility": """
import anonymizer.cli.utility as cli
from anonymizer.__main__ import main
cli.load_release = timed(objects(cli.load_release), LOAD)
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    status = main(["utility", {input!r}, {release!r}, "--json"])
if status != 0:
    sys.exit(f"exit status {{status}}")
done(time.perf_counter() - t)
""",
}


def run_job(code: Path, job: str, **paths: str) -> dict[str, float] | None:
    """Run one job in a fresh process; its seconds (wall, command, load, core) and peak MB, or None if it failed."""
    script = _PRELUDE + _JOBS[job].format(**paths)
    env = dict(os.environ, PYTHONPATH=str(code))
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=code, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    found = [line for line in err.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not found:
        print(f"  ({job} failed: {err.strip().splitlines()[-1] if err.strip() else proc.returncode})", file=sys.stderr)
        return None
    out = json.loads(found[-1][len("RESULT "):])
    out.update(wall=wall, peak_mb=usage.ru_maxrss / 1024.0)
    return out


def prepare(input_path: Path, records: int, work: Path) -> tuple[Path, Path, Path]:
    """The input cut to ``records`` lines, its JSON release and the parquet form (made once, reused)."""
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"input_{records}.txt"
    if not data.exists():
        with open(input_path, encoding="utf-8") as src, open(data, "w", encoding="utf-8") as dst:
            for i, line in enumerate(src):
                if i >= records:
                    break
                dst.write(line)
    release, parquet = work / f"release_{records}.json", work / f"release_{records}.parquet"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if not release.exists():
        subprocess.run([sys.executable, "-m", "anonymizer", str(data), "-k", "5", "-m", "2", "--max-cluster-size",
                        "30", "-o", str(release), "--seed", "1"], check=True, cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL)
    if not parquet.exists():
        subprocess.run([sys.executable, "-m", "anonymizer", "convert", str(release), str(parquet)], check=True,
                       cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    return data, release, parquet


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", type=Path, help="transaction file (one record a line), at least the largest size")
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--work", type=Path, default=Path("/tmp/release_io_bench"))
    p.add_argument("--code", type=Path, default=ROOT, help="checkout whose code the jobs run (default: this one)")
    p.add_argument("--jobs", nargs="+", default=["floor", "load", "cover", "verify", "reconstruct", "utility"],
                   choices=["floor", "load", "cover", "verify", "reconstruct", "utility"])
    args = p.parse_args(argv)
    if max(args.sizes) > 1_000_000:
        p.error("sizes above 1M records are not run here (memory, shared cores)")
    print(f"code: {args.code}")
    print("| records | job | form | process s | command s | load s | core s | peak MB |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    for records in args.sizes:
        data, release, parquet = prepare(args.input, records, args.work)
        plan: list[tuple[str, str, Path]] = []
        for job in args.jobs:
            if job == "floor":
                plan.append(("floor", "text", data))
            elif job == "load":
                plan += [("load (old)", "JSON", release), ("load", "JSON", release), ("load", "parquet", parquet),
                         ("load + objects", "JSON", release), ("load + objects", "parquet", parquet)]
            else:
                plan += [(job, "JSON", release), (job, "parquet", parquet)]
        for job, form, path in plan:
            out = run_job(args.code, job, input=str(data), release=str(path),
                          output=str(args.work / f"reconstructed_{records}.jsonl"))
            if out is None:
                print(f"| {records:,} | {job} | {form} | failed | | | | |", flush=True)
                continue
            print(f"| {records:,} | {job} | {form} | {out['wall']:.2f} | {out['command']:.2f} | {out['load']:.2f} | "
                  f"{out['core']:.2f} | {out['peak_mb']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
