"""Benchmark (issue 14): the whole pipeline against the parsing floor, from 100k to 10M records.

    python benchmarks/scale.py                                  # 100k and 1M
    python benchmarks/scale.py --sizes 100000 1000000 10000000 --split-depth 4 --dask
    python benchmarks/scale.py --data-dir /tmp/bench            # reuse generated inputs
    python benchmarks/scale.py --sizes 1000000 --tlost-depths 0 2 4 --no-cover   # tlost by split depth

Data: ``corpora.synthetic.quest.generate_quest(n, 5000, 10.0, seed=0)`` written as SPMF text (5,000
items, average length 10), generated once per size into ``--data-dir``. Parameters: k=5, m=2,
maximum cluster size 30, seed 1. Every case is a fresh process; its peak memory is the largest
resident size of the process *and all its children* (Dask workers included), sampled every 0.1 s
with psutil, so a local Dask cluster is charged for every worker.

Rows, per size:

* ``floor``: reading the file into Python sets, ``[set(line.split()) for line in f]``;
* ``anonymize``: ``python -m anonymizer FILE -k 5 -m 2 --max-cluster-size 30 -o R --truth T``,
  end to end (start-up, loading, disassociation, summary, writing both files), with the phases the
  command prints;
* ``anonymize --split-depth D`` (``--split-depth``) and ``--executor dask`` (``--dask``, a local
  cluster of 2 single-threaded workers);
* ``cover``: ``python -m attacks cover R --attacker strong --json`` on the unsplit release;
* ``--tlost-depths D...``: one ``anonymize --split-depth D`` row per depth (depth 0 is the unsplit
  run), for the tlost-by-depth table of docs/scale.md.

The ratio column is seconds / floor seconds. The ``tlost`` column is the one the command prints
(Terrovitis2012 section 7.1: the share of the terms of support above k found only in term chunks),
and ``tc share`` the share of term occurrences in term chunks.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

FLOOR = ("import sys\nwith open(sys.argv[1]) as f:\n    records = [set(line.split()) for line in f]\n"
         "print(len(records))\n")


def generate(n: int, path: Path) -> None:
    """Write ``generate_quest(n, 5000, 10.0, seed=0)`` to ``path`` in blocks (bounded memory)."""
    if path.exists():
        return
    import numpy as np

    from corpora.synthetic.quest import generate_quest

    ds = generate_quest(n, 5000, 10.0, seed=0)
    voc = np.asarray(ds.vocabulary, dtype=object)
    ptr, ind = np.asarray(ds.indptr), np.asarray(ds.indices)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        for a in range(0, n, 500_000):
            b = min(n, a + 500_000)
            words = voc[ind[ptr[a] : ptr[b]]].tolist()
            ends = (ptr[a + 1 : b + 1] - ptr[a]).tolist()
            starts = [0, *ends[:-1]]
            f.write("\n".join(" ".join(words[s:e]) for s, e in zip(starts, ends, strict=True)) + "\n")
    tmp.replace(path)


def measure(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak resident GB of the process tree, stdout) of one command."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:  # files: a full pipe would block
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, text=True)
        root = psutil.Process(proc.pid)
        peak = 0
        while proc.poll() is None:
            try:
                procs = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in procs if p.is_running()))
            except psutil.Error:
                pass
            time.sleep(0.1)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {err.read().strip()[-400:]}")
        return seconds, peak / 2**30, out.read()


def utility(out: str) -> tuple[str, str]:
    """(tlost, term-chunk share) as the command printed them, or ("", "")."""
    found = re.search(r"term occurrences in term chunks ([0-9.]+%), tlost ([0-9.]+%)", out)
    return (found.group(2), found.group(1)) if found else ("", "")


def phases(out: str) -> str:
    line = next((x for x in out.splitlines() if x.startswith("seconds:")), "")
    return re.sub(r"^seconds: ", "", line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--data-dir", default="/tmp/disassociation-bench")
    parser.add_argument("--split-depth", type=int, default=None, help="also run with this split depth")
    parser.add_argument("--dask", action="store_true", help="also run --executor dask (2 local workers)")
    parser.add_argument("--no-cover", action="store_true")
    parser.add_argument("--no-unsplit", action="store_true", help="skip the unsplit run (e.g. at 10M)")
    parser.add_argument("--tlost-depths", type=int, nargs="+", default=[],
                        help="also run --split-depth D for each D (0: the unsplit run) for the tlost column")
    args = parser.parse_args()
    data = Path(args.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    print(f"{'records':>10} {'case':<34} {'seconds':>8} {'x floor':>8} {'peak GB':>8} {'tlost':>6} {'tc share':>8}"
          "  phases")
    for n in args.sizes:
        path = data / f"quest{n}.txt"
        generate(n, path)
        floor, floor_gb, _ = measure([py, "-c", FLOOR, str(path)])
        print(f"{n:>10,} {'floor (Python sets)':<34} {floor:>8.2f} {1:>8.2f} {floor_gb:>8.2f}", flush=True)
        release, truth = data / f"r{n}.json", data / f"t{n}.json"
        base = [py, "-m", "anonymizer", str(path), "-k", "5", "-m", "2", "--max-cluster-size", "30", "--seed", "1",
                "--truth", str(truth)]
        cases = [] if args.no_unsplit else [("anonymize", ["-o", str(release)])]
        if args.split_depth is not None:
            cases.append((f"anonymize --split-depth {args.split_depth}",
                          ["--split-depth", str(args.split_depth), "-o", str(data / f"rs{n}.json")]))
        if args.dask:
            depth = str(args.split_depth if args.split_depth is not None else 3)
            cases.append((f"anonymize --executor dask (depth {depth})",
                          ["--executor", "dask", "--split-depth", depth, "-o", str(data / f"rd{n}.json")]))
        cases += [(f"anonymize --split-depth {d}", ["--split-depth", str(d), "-o", str(data / f"rs{n}-{d}.json")])
                  for d in args.tlost_depths]
        for label, extra in cases:
            seconds, gb, out = measure([*base, *extra])
            tlost, share = utility(out)
            print(f"{n:>10,} {label:<34} {seconds:>8.2f} {seconds / floor:>8.2f} {gb:>8.2f} {tlost:>6} {share:>8}  "
                  f"{phases(out)}", flush=True)
        if not args.no_cover and not args.no_unsplit:
            seconds, gb, _ = measure([py, "-m", "attacks", "cover", str(release), "--attacker", "strong", "--json"])
            print(f"{n:>10,} {'attacks cover --attacker strong':<34} {seconds:>8.2f} {seconds / floor:>8.2f} "
                  f"{gb:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
