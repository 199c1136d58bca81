"""Time REFINE (Terrovitis2012 section 4) on kosarak and on synthetic data of growing size.

Clusters come from :func:`anonymizer.disassociation.horpart.horpart` (strategy "original", the paper's, then
:func:`anonymizer.disassociation.horpart.join_small_clusters` as in ``disassociate``) and the
vertical partitions from :func:`anonymizer.disassociation.verpart.partition_clusters` (strict VERPART + Lemma 2);
only REFINE itself is timed.

    python benchmarks/refine_bench.py [--sizes 100000,250000,500000,1000000] [--k 5] [--m 2] [--delta 30]

Prints one row per dataset: records, clusters, joint clusters, shared chunks, (cluster, term)
pairs moved out of term chunks / all term-chunk pairs, wall and CPU seconds of REFINE (CPU time
is the fairer figure on a shared machine), and the peak memory
that REFINE allocated (tracemalloc, measured in a second, untimed run).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np

from anonymizer.disassociation.horpart import horpart, join_small_clusters
from anonymizer.disassociation.refine import refine
from anonymizer.disassociation.verpart import partition_clusters
from corpora.dataset import TransactionDataset


def kosarak(name: str) -> TransactionDataset:
    try:
        from corpora.registry import load_dataset

        return load_dataset(name)
    except ImportError:
        import spmf

        jar = Path(spmf.__file__).parent / "binaries" / "spmf.jar"
        with zipfile.ZipFile(jar) as zf:
            text = zf.read(f"ca/pfv/spmf/test/{name}.txt").decode()
        return TransactionDataset.from_records(line.split() for line in text.splitlines() if line.strip())


def synthetic(records: int, domain: int = 5000, avg_length: float = 10.0, seed: int = 0) -> TransactionDataset:
    try:
        from corpora.synthetic.quest import generate_quest

        return generate_quest(records, domain, avg_length, seed=seed)
    except ImportError:
        rng = np.random.default_rng(seed)
        lengths = np.maximum(1, rng.poisson(avg_length, records))
        p = 1.0 / np.arange(1, domain + 1)
        ids = rng.choice(domain, size=int(lengths.sum()), p=p / p.sum())
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        voc = [f"i{j:05d}" for j in range(domain)]
        recs = (sorted({voc[t] for t in ids[a:b]}) for a, b in zip(indptr[:-1], indptr[1:], strict=True))
        return TransactionDataset.from_records(recs)


def run(name: str, ds: TransactionDataset, k: int, m: int, delta: int) -> None:
    hp = join_small_clusters(horpart(ds, k, delta, "original"), ds, k, delta)
    parts = partition_clusters(ds, hp.clusters, k, m).partitions()
    tc_pairs = sum(len(p.term_chunk) for p in parts)
    start, cpu = time.perf_counter(), time.process_time()
    plans = refine(ds, parts, k, m)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    tracemalloc.start()
    refine(ds, parts, k, m)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    moved = sum(len(v) for p in plans for v in p.removed.values())
    shared = sum(len(p.shared_chunks) for p in plans)
    print(f"| {name:<14} | {len(ds):>9,} | {len(parts):>8,} | {len(plans):>7,} | {shared:>7,} | "
          f"{moved:>8,}/{tc_pairs:<9,} | {seconds:>7.2f} | {cpu:>6.2f} | {peak:>7.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,250000,500000,1000000")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--m", type=int, default=2)
    parser.add_argument("--delta", type=int, default=30)
    args = parser.parse_args()
    print("| dataset        |   records | clusters |  joints | sh.chunks | (leaf,term) moved/in TCs "
          "| refine s | cpu s | refine peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in ("kosarak10k", "kosarak25k"):
        run(name, kosarak(name), args.k, args.m, args.delta)
    for size in (int(s) for s in args.sizes.split(",") if s):
        run(f"synthetic {size // 1000}k", synthetic(size), args.k, args.m, args.delta)


if __name__ == "__main__":
    main()
