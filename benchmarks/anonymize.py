"""Benchmark: seconds and peak memory of `disassociate` on synthetic data and kosarak25k.

    python benchmarks/anonymize.py                       # 100k, 250k, 500k, 1M synthetic + kosarak25k
    python benchmarks/anonymize.py --sizes 100000 --no-kosarak
    python benchmarks/anonymize.py --horpart adding --verpart grouped --no-refine
    python benchmarks/anonymize.py --support1 20000 40000 80000 200000   # issue 15, every HORPART strategy
    python benchmarks/anonymize.py --long 788                            # issue 9, collector paused vs on
    python benchmarks/anonymize.py --files big.txt --no-kosarak --sizes  # a file: read_dataset timed too

Synthetic data: domain 5,000 terms, average length 10 (``corpora.synthetic.quest.generate_quest``).
Parameters: k=5, m=2, max cluster size 30. Each run is a fresh subprocess, so the peak resident
memory (``ru_maxrss``) is that run's own; the dataset generation is not timed. Prints one table
row per run with the time of each step (HORPART, VERPART, REFINE, building the release), the
total, and the records HORPART suppressed or moved (strategy and join step together).

``--support1 N ...`` runs every HORPART strategy on N records of 3 terms that each occur in one
record only (the case where a split can only peel a single record off; issue 15).
``--long N`` runs N records of 66 distinct terms each (Zipf, exponent 1, over 2,000 terms; k=5, m=3) twice:
with the collector paused as :func:`anonymizer.disassociation.pipeline.disassociate` does, and with the
collector left on (the pause replaced by a no-op); the two peaks should stay within 1.5x (issue 9).
``--files PATH ...`` runs files read with :func:`corpora.read_dataset`; the ``load`` column is the
reading (for the other datasets it is the generation or the registry load), never in ``total``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def load(name: str):
    kind, _, arg = name.partition(":")
    if kind == "file":
        from corpora.io.formats import read_dataset

        return read_dataset(arg)
    if kind == "synthetic":
        from corpora.synthetic.quest import generate_quest

        return generate_quest(int(arg), 5000, 10.0, seed=0)
    from corpora.dataset import TransactionDataset

    if kind == "support1":  # every term occurs in exactly one record
        n = int(arg)
        return TransactionDataset.from_records([[f"t{i}_{j}" for j in range(3)] for i in range(n)], name=name)
    if kind == "long":  # long records: 66 distinct Zipf-distributed terms out of 2,000
        import numpy as np

        rng = np.random.default_rng(0)
        weights = 1.0 / np.arange(1, 2001)
        weights /= weights.sum()
        records = [[f"w{t}" for t in rng.choice(2000, size=66, replace=False, p=weights)] for _ in range(int(arg))]
        return TransactionDataset.from_records(records, name=name)
    from corpora.registry import load_dataset

    return load_dataset(name)


def run_one(name: str, k: int, m: int, delta: int, horpart: str, verpart: str, refine: bool, gc_on: bool) -> dict:
    import importlib

    D = importlib.import_module("anonymizer.disassociation.pipeline")  # the package attribute is the function

    if gc_on:  # the comparison run: the same work with the cyclic collector left running
        import contextlib

        D.no_gc = contextlib.nullcontext
    start = time.perf_counter()
    ds = load(name)
    loading = time.perf_counter() - start
    start = time.perf_counter()
    result = D.run_disassociation(ds, D.DisassociationParams(k, m, delta, horpart=horpart, verpart=verpart,
                                                             refine=refine), seed=0)
    release, timings = result.release, result.timings
    total = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "dataset": (name if not name.startswith("file:") else name.rsplit("/", 1)[-1]) + (" gc-on" if gc_on else ""),
        "records": len(ds),
        "load": loading,
        "occurrences": int(ds.lengths.sum()),
        "clusters": len(release.clusters),
        "joints": len(release.joint_clusters),
        "horpart": timings.horpart,
        "verpart": timings.verpart,
        "refine": timings.refine,
        "build": timings.build,
        "seconds": total,
        "peak_mb": peak_kb / 1024,
        "suppressed": getattr(timings, "records_suppressed", -1),
        "moved": getattr(timings, "records_moved", -1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="*", default=None,
                   help="synthetic sizes (default 100k 250k 500k 1M unless --support1/--long is given)")
    p.add_argument("--support1", type=int, nargs="+", default=[], metavar="N")
    p.add_argument("--long", type=int, nargs="+", default=[], metavar="N")
    p.add_argument("--files", nargs="+", default=[], metavar="PATH", help="transaction files (read_dataset)")
    p.add_argument("--no-kosarak", action="store_true", help="skip kosarak25k")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("-m", type=int, default=2)
    p.add_argument("--max-cluster-size", type=int, default=30)
    p.add_argument("--horpart", default="original")
    p.add_argument("--verpart", default="strict")
    p.add_argument("--no-refine", action="store_true")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per run")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--gc-on", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    refine = not args.no_refine
    if args.child is not None:
        row = run_one(args.child, args.k, args.m, args.max_cluster_size, args.horpart, args.verpart, refine,
                      args.gc_on)
        print(json.dumps(row))
        return 0
    special = bool(args.support1 or args.long or args.files)
    sizes = args.sizes if args.sizes is not None else ([] if special else [100_000, 250_000, 500_000, 1_000_000])
    runs: list[tuple[str, str, int, bool]] = [(f"synthetic:{n}", args.horpart, args.m, False) for n in sizes]
    runs += [(f"file:{path}", args.horpart, args.m, False) for path in args.files]
    if not (args.no_kosarak or special):
        runs.append(("kosarak25k", args.horpart, args.m, False))
    from anonymizer.disassociation.horpart import HORPART_STRATEGIES

    runs += [(f"support1:{n}", s, args.m, False) for n in args.support1 for s in HORPART_STRATEGIES]
    runs += [(f"long:{n}", args.horpart, 3, gc) for n in args.long for gc in (False, True)]
    print(f"k={args.k} max_cluster_size={args.max_cluster_size} verpart={args.verpart} refine={refine}")
    header = (f"{'dataset':<22}{'horpart':<12}{'m':>2}{'records':>9}{'clusters':>9}{'load':>7}{'horpart':>9}"
              f"{'verpart':>9}{'refine':>8}{'build':>8}{'total s':>9}{'peak MB':>9}{'suppr':>8}{'moved':>8}")
    print(header)
    print("-" * len(header))
    for name, strategy, m, gc_on in runs:
        cmd = [sys.executable, __file__, "--child", name, "-k", str(args.k), "-m", str(m),
               "--max-cluster-size", str(args.max_cluster_size), "--horpart", strategy,
               "--verpart", args.verpart] + (["--no-refine"] if args.no_refine else []) + (["--gc-on"] if gc_on else [])
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{name:<22}{strategy:<12} did not finish in {args.timeout:.0f} s", flush=True)
            continue
        if done.returncode != 0:
            print(f"{name:<22}{strategy:<12} failed: "
                  f"{done.stderr.strip().splitlines()[-1] if done.stderr else done.returncode}", flush=True)
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{r['dataset']:<22}{strategy:<12}{m:>2}{r['records']:>9}{r['clusters']:>9}{r['load']:>7.2f}"
              f"{r['horpart']:>9.2f}"
              f"{r['verpart']:>9.2f}{r['refine']:>8.2f}{r['build']:>8.2f}{r['seconds']:>9.2f}{r['peak_mb']:>9.0f}"
              f"{r['suppressed']:>8}{r['moved']:>8}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
