"""Benchmark: seconds and peak memory of Apriori Anonymization (k^m by generalization) and of DiffPart.

    python benchmarks/apriori.py                                   # kosarak25k + 1M synthetic, k=5, m=2, fan-out 5
    python benchmarks/apriori.py --sizes 100000 250000 --no-kosarak
    python benchmarks/apriori.py --diffpart 1.0                    # DiffPart (epsilon 1) on the same data too

Synthetic data: ``synthetic:records=N,domain=5000,avg_length=10,seed=0`` (``corpora.synthetic.quest``).
The hierarchy is the balanced tree of fan-out 5 over the items (``anonymizer.baselines.hierarchy``). Each
run is a fresh subprocess, so the peak resident memory (``ru_maxrss``) is that run's own, and it
includes loading the data; the seconds are the anonymization alone (hierarchy built, release
built, not written). Prints one row per run: records, items, seconds, peak MB, generalized nodes,
fixes per round, NCP. The whole command (start-up, reading, writing) against the parsing floor is
``python benchmarks/loop.py --steps apriori`` (issue 25).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages, not an installed copy


def run_one(name: str, method: str, k: int, m: int, fanout: int, epsilon: float) -> dict:
    from anonymizer.baselines.hierarchy import balanced_hierarchy
    from corpora.registry import load_dataset

    ds = load_dataset(name)
    start = time.perf_counter()
    h = balanced_hierarchy(ds.vocabulary, fanout)
    out: dict = {"records": len(ds), "items": len(ds.vocabulary)}
    if method == "apriori":
        from anonymizer.baselines.apriori import AprioriParams, run_apriori

        st = run_apriori(ds, h, AprioriParams(k, m, h.source)).stats
        out.update(generalized=st.generalized_nodes, fixes=st.fixes, passes=st.passes, ncp=st.ncp)
    else:
        from anonymizer.baselines.diffpart import DiffPartParams, run_diffpart

        st2 = run_diffpart(ds, h, DiffPartParams(epsilon, h.source), seed=0).stats
        out.update(published=st2.published_records, expansions=st2.expansions)
    out["seconds"] = time.perf_counter() - start
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="*", default=[1_000_000])
    p.add_argument("--no-kosarak", action="store_true")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("-m", type=int, default=2)
    p.add_argument("--fanout", type=int, default=5)
    p.add_argument("--diffpart", type=float, default=None, metavar="EPSILON", help="also time DiffPart")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        name, method = args.child
        print(json.dumps(run_one(name, method, args.k, args.m, args.fanout, args.diffpart or 1.0)))
        return
    names = ([] if args.no_kosarak else ["kosarak25k"]) + [
        f"synthetic:records={n},domain=5000,avg_length=10,seed=0" for n in args.sizes]
    methods = ["apriori"] + (["diffpart"] if args.diffpart is not None else [])
    print(f"k={args.k}, m={args.m}, fan-out {args.fanout}" + (f", DiffPart epsilon {args.diffpart}"
                                                               if args.diffpart is not None else ""))
    print("| dataset | method | records | items | seconds | peak MB | details |")
    print("|---|---|---:|---:|---:|---:|---|")
    for name in names:
        for method in methods:
            cmd = [sys.executable, __file__, "--child", name, method, "-k", str(args.k), "-m", str(args.m),
                   "--fanout", str(args.fanout)] + (["--diffpart", str(args.diffpart)] if args.diffpart else [])
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode:
                print(f"| {name} | {method} | failed: {res.stderr.strip().splitlines()[-1:]} |")
                continue
            r = json.loads(res.stdout.strip().splitlines()[-1])
            if method == "apriori":
                detail = (f"generalized nodes {r['generalized']}, fixes {r['fixes']}, passes {r['passes']}, "
                          f"NCP {100 * r['ncp']:.2f}%")
            else:
                detail = f"published {r['published']}, expansions {r['expansions']}"
            short = name.replace(",domain=5000,avg_length=10,seed=0", "")
            print(f"| {short} | {method} | {r['records']:,} | {r['items']:,} | {r['seconds']:.1f} | "
                  f"{r['peak_mb']:.0f} | {detail} |", flush=True)


if __name__ == "__main__":
    main()
