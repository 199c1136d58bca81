"""Benchmark: the owner-safety checks of issue 21 beside the disassociation they guard.

For each size (Quest-style synthetic records, 5,000 items, average length 10; k=5, m=2, max
cluster size 30, seed 1) it times, in this process:

* ``screen``: :func:`corpora.io.identifiers.screen_dataset`, the identifier screen every anonymizer
  run does before any work (it reads the vocabulary, not the records);
* ``check_original``: :func:`anonymizer.evaluation.consistency.check_original` (record count, vocabulary);
* ``check_truth``: :func:`anonymizer.evaluation.consistency.check_truth` with the original (the truth's ids
  and every record it rebuilds against the original's);
* ``disassociate``: the run itself, for scale.

Columns: records, seconds of each, and the peak traced memory (MB, tracemalloc) of the checks.

    python benchmarks/input_checks.py [--sizes 100000 200000 400000]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from anonymizer import disassociate
from anonymizer.evaluation.consistency import check_original, check_truth
from corpora import load_dataset
from corpora.io.identifiers import screen_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 200_000, 400_000])
    args = parser.parse_args()
    print(f"{'records':>9} {'disassociate s':>15} {'screen s':>9} {'check_original s':>17} {'check_truth s':>14} "
          f"{'checks peak MB':>15}")
    for n in args.sizes:
        ds = load_dataset(f"synthetic:records={n},domain=5000,avg_length=10,skew=1,seed=0")
        start = time.perf_counter()
        release, truth = disassociate(ds, k=5, m=2, max_cluster_size=30, seed=1)
        run = time.perf_counter() - start
        t0 = time.perf_counter()
        screen_dataset(ds)
        t1 = time.perf_counter()
        check_original(release, ds)
        t2 = time.perf_counter()
        check_truth(release, truth, ds)
        t3 = time.perf_counter()
        tracemalloc.start()  # a second pass for the memory: tracing slows Python code several times
        screen_dataset(ds)
        check_original(release, ds)
        check_truth(release, truth, ds)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(f"{n:>9} {run:>15.2f} {t1 - t0:>9.3f} {t2 - t1:>17.3f} {t3 - t2:>14.3f} {peak:>15.0f}")


if __name__ == "__main__":
    main()
