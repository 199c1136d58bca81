"""Speed of the corpora layer: named datasets, the synthetic generator, readers and writers.

Each case runs in a fresh Python process; the table gives wall seconds, CPU seconds and the
process's peak resident memory (``ru_maxrss``, which includes the interpreter and numpy, about
60 MB). tracemalloc is not used because tracing every Python object slows the list-based readers
down several times. ``read txt`` is the streaming SPMF reader of :func:`corpora.read_dataset`
(blocks of lines, int32 ids); ``read txt (whole file)`` parses the same file held in memory
(:func:`corpora.io.formats.parse_dataset`), the reader every SPMF file went through before. ``--file``
adds both readings of an existing SPMF file (e.g. 10M records; a whole-file reading of 10M x 10
items needs well over 10 GB, so ``--no-whole`` skips it).
Run: ``python benchmarks/corpora_io.py [--records 1000000] [--file big.txt [--no-whole]]``.
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
from pathlib import Path
from corpora.io.formats import parse_dataset, read_dataset, write_dataset
from corpora.registry import load_dataset
from corpora.synthetic.quest import generate_quest
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
elif op == "whole":
    result = parse_dataset(Path(arg).read_bytes(), "spmf", source=arg)
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
    parser.add_argument("--file", action="append", default=[], help="an existing SPMF file to read as well")
    parser.add_argument("--no-whole", action="store_true", help="skip the whole-file reading of --file")
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
            if ext == "txt":
                run("read txt (whole file)", "whole", path, n)
    for path in args.file:
        run(f"read {Path(path).name}", "read", path, "0")
        if not args.no_whole:
            run(f"read {Path(path).name} (whole file)", "whole", path, "0")


if __name__ == "__main__":
    main()
