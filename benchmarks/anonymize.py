"""Benchmark: seconds and peak memory of `disassociate` on synthetic data and kosarak25k.

    python benchmarks/anonymize.py                       # 100k, 250k, 500k, 1M synthetic + kosarak25k
    python benchmarks/anonymize.py --sizes 100000 --no-kosarak
    python benchmarks/anonymize.py --horpart adding --verpart grouped --no-refine

Synthetic data: domain 5,000 terms, average length 10 (``corpora.synthetic.generate_quest`` when
it is installed, otherwise the Zipf generator below). Parameters: k=5, m=2, max cluster size 30.
Each size runs in a fresh subprocess, so the peak resident memory (``ru_maxrss``) is that run's
own; the dataset generation is not timed. Prints one table row per dataset with the time of each
step (HORPART, VERPART, REFINE, building the release) and the total.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def load(name: str):
    if name.startswith("synthetic:"):
        records = int(name.split(":", 1)[1])
        from corpora.synthetic import generate_quest

        return generate_quest(records, 5000, 10.0, seed=0)
    from corpora.registry import load_dataset

    return load_dataset(name)


def run_one(name: str, k: int, m: int, delta: int, horpart: str, verpart: str, refine: bool) -> dict:
    from anonymizer.disassociate import DisassociationTimings, disassociate

    ds = load(name)
    start = time.perf_counter()
    timings = DisassociationTimings()
    release, truth = disassociate(ds, k, m, delta, horpart=horpart, verpart=verpart, refine=refine, seed=0,
                                  timings=timings)
    total = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "dataset": name,
        "records": len(ds),
        "occurrences": int(ds.lengths.sum()),
        "clusters": len(release.clusters),
        "joints": len(release.joint_clusters),
        "horpart": timings.horpart,
        "verpart": timings.verpart,
        "refine": timings.refine,
        "build": timings.build,
        "seconds": total,
        "peak_mb": peak_kb / 1024,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 250_000, 500_000, 1_000_000])
    p.add_argument("--no-kosarak", action="store_true", help="skip kosarak25k")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("-m", type=int, default=2)
    p.add_argument("--max-cluster-size", type=int, default=30)
    p.add_argument("--horpart", default="original")
    p.add_argument("--verpart", default="strict")
    p.add_argument("--no-refine", action="store_true")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    refine = not args.no_refine
    if args.child is not None:
        row = run_one(args.child, args.k, args.m, args.max_cluster_size, args.horpart, args.verpart, refine)
        print(json.dumps(row))
        return 0
    names = [f"synthetic:{n}" for n in args.sizes] + ([] if args.no_kosarak else ["kosarak25k"])
    print(f"k={args.k} m={args.m} max_cluster_size={args.max_cluster_size} horpart={args.horpart} "
          f"verpart={args.verpart} refine={refine}")
    header = (f"{'dataset':<20}{'records':>9}{'clusters':>9}{'joints':>8}{'horpart':>9}{'verpart':>9}"
              f"{'refine':>8}{'build':>8}{'total s':>9}{'peak MB':>9}")
    print(header)
    print("-" * len(header))
    for name in names:
        cmd = [sys.executable, __file__, "--child", name, "-k", str(args.k), "-m", str(args.m),
               "--max-cluster-size", str(args.max_cluster_size), "--horpart", args.horpart,
               "--verpart", args.verpart] + (["--no-refine"] if args.no_refine else [])
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{name:<20} failed: {done.stderr.strip().splitlines()[-1] if done.stderr else done.returncode}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{r['dataset']:<20}{r['records']:>9}{r['clusters']:>9}{r['joints']:>8}{r['horpart']:>9.2f}"
              f"{r['verpart']:>9.2f}{r['refine']:>8.2f}{r['build']:>8.2f}{r['seconds']:>9.2f}{r['peak_mb']:>9.0f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
