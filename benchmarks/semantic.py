"""Benchmark: seconds of the semantic attack (ABA, RGA, MRA, assign) with GloVe 6B 50-d.

Text-like transactions are drawn from the GloVe vocabulary (words ranked 200-20,200 by frequency,
split into 200 topics of 100 words; a transaction picks a topic and draws 4-12 words, 80% from its
topic and 20% from anywhere, with a Zipf-like preference for frequent words), disassociated with
``anonymizer.disassociation.pipeline`` (k=3, m=2, max cluster size 12, REFINE off), then attacked. GloVe is
loaded once before the timings. Peak memory is the process's peak RSS so far (GloVe included).

    python benchmarks/semantic.py [--sizes 1000 10000 100000] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from anonymizer.disassociation.pipeline import disassociate
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.scorers import EmbeddingScorer, load_embeddings
from corpora.dataset import TransactionDataset


def text_like_transactions(kv, n: int, seed: int = 0) -> TransactionDataset:
    rng = np.random.default_rng(seed)
    words = [w for w in kv.index_to_key[200:20_200]]
    topics = np.arange(len(words)).reshape(200, 100)
    weights = 1.0 / np.arange(1, 101) ** 0.8
    weights /= weights.sum()
    records = []
    for _ in range(n):
        topic = topics[rng.integers(len(topics))]
        length = int(rng.integers(4, 13))
        own = rng.choice(topic, size=length, p=weights)
        other = rng.integers(0, len(words), size=length)
        pick = np.where(rng.random(length) < 0.8, own, other)
        records.append({words[i] for i in pick})
    return TransactionDataset.from_records(records, name=f"glove-text-{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--selectors", nargs="+", default=["ABA", "RGA", "MRA", "assign"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    t = time.perf_counter()
    kv = load_embeddings(None)
    print(f"GloVe 6B 50d loaded in {time.perf_counter() - t:.1f} s")
    print(f"{'records':>8} {'clusters':>8} {'disassoc s':>10} {'selector':>8} {'attack s':>9} {'peak RSS MB':>8}")
    for n in args.sizes:
        ds = text_like_transactions(kv, n, args.seed)
        t = time.perf_counter()
        # GloVe's vocabulary holds number-like tokens the identifier screen flags; these words are not people's
        release, _ = disassociate(ds, 3, 2, 12, refine=False, seed=args.seed, allow_identifiers=True)
        dis = time.perf_counter() - t
        for selector in args.selectors:
            scorer = EmbeddingScorer(kv)  # fresh term cache: each run pays its own look-ups
            t = time.perf_counter()
            run_semantic_attack(release, scorer, selector=selector, seed=args.seed, progress=False)
            secs = time.perf_counter() - t
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            row = f"{n:>8} {len(release.clusters):>8} {dis:>10.1f} {selector:>8} {secs:>9.2f} {peak:>11.0f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
