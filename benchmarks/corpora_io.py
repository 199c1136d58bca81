"""Speed of the corpora layer: named datasets, the synthetic generator, readers and writers.

Each case runs in a fresh Python process; the table gives wall seconds, CPU seconds and the
process's peak resident memory (``ru_maxrss``, which includes the interpreter and numpy, about
60 MB). tracemalloc is not used because tracing every Python object slows the list-based readers
down several times. Run: ``python benchmarks/corpora_io.py [--records 1000000]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CASE = r"""
import json, resource, sys, time
from corpora.formats import read_dataset, write_dataset
from corpora.registry import load_dataset
from corpora.synthetic import generate_quest
op, arg, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = generate_quest(n, 5000, 10, seed=0) if op == "write" else None
wall, cpu = time.perf_counter(), time.process_time()
if op == "load":
    result = load_dataset(arg)
elif op == "generate":
    result = generate_quest(n, 5000, 10, seed=0)
elif op == "write":
    write_dataset(data, arg)
    result = data
else:
    result = read_dataset(arg)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"records": len(result), "wall": wall, "cpu": cpu, "rss": rss}))
"""


def run(label: str, *args: str) -> None:
    out = subprocess.run([sys.executable, "-c", CASE, *args], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    print(f"{label:<28} {r['records']:>10,} {r['wall']:>8.2f} {r['cpu']:>8.2f} {r['rss']:>9.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    n = str(args.records)
    print(f"{'case':<28} {'records':>10} {'wall s':>8} {'cpu s':>8} {'peak MB':>9}")
    run("load kosarak10k (jar)", "load", "kosarak10k", "0")
    run("load kosarak25k (jar)", "load", "kosarak25k", "0")
    run("generate_quest x10", "generate", "-", n)
    with tempfile.TemporaryDirectory() as tmp:
        for ext in ("txt", "jsonl", "csv", "tsv"):
            path = str(Path(tmp) / f"data.{ext}")
            run(f"write {ext}", "write", path, n)
            run(f"read {ext}", "read", path, n)


if __name__ == "__main__":
    main()
