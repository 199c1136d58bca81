"""Benchmark: cover-problem detector (three attackers) and safe disassociation.

Releases: kosarak25k (real click-stream data) and synthetic Quest-like data (1M records by
default), both disassociated with k=3, m=2 and max cluster size 30. Prints one table row per job:
dataset, records, job, seconds, peak RSS of the process so far (MB), result.

    python benchmarks/cover.py [--synthetic-records 1000000] [--skip-kosarak]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.disassociation.safe import safe_disassociate_report
from anonymizer.evaluation.safe_metrics import rlm
from attacks.cover.detector import run_cover_attack
from attacks.cover.knowledge import make_knowledge
from corpora.dataset import TransactionDataset
from corpora.synthetic.quest import generate_quest


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load_kosarak() -> TransactionDataset:
    from corpora.registry import load_dataset

    return load_dataset("kosarak25k")


def row(name: str, n: int, job: str, seconds: float, result: str) -> None:
    print(f"| {name:<12} | {n:>9,} | {job:<34} | {seconds:>8.2f} | {peak_mb():>8.0f} | {result} |", flush=True)


def bench(name: str, ds: TransactionDataset, k: int, m: int, delta: int) -> None:
    t = time.perf_counter()
    release, truth = disassociate(ds, k, m, delta, seed=0)
    row(name, len(ds), f"disassociate k={k} m={m} delta={delta}", time.perf_counter() - t,
        f"{len(release.clusters)} clusters")
    for attacker in ("strong", "moderate", "weak"):
        rep = run_cover_attack(release, attacker, seed=0, list_problems=False)
        row(name, len(ds), f"detector, {attacker} ({rep.knowledge_source})", rep.seconds,
            f"vulnerable {rep.vulnerable_records}, breaches {rep.breaches}, PEM {rep.pem:.3f}, "
            f"knowledge {rep.knowledge_size} in {rep.knowledge_seconds:.2f}s")
    t = time.perf_counter()
    kn = make_knowledge(release, "strong", 0, truth=truth)
    tk = time.perf_counter() - t
    rep = run_cover_attack(release, "strong", knowledge=kn, list_problems=False)
    row(name, len(ds), "detector, strong (truth)", rep.seconds,
        f"vulnerable {rep.vulnerable_records}, breaches {rep.breaches}, knowledge {len(kn)} in {tk:.2f}s")
    rep = run_cover_attack(release, "strong", seed=0)
    row(name, len(ds), "detector + listing, strong (release)", rep.seconds, f"{len(rep.cover_problems)} cover problems")
    t = time.perf_counter()
    result = safe_disassociate_report(release, truth, seed=0)
    row(name, len(ds), "safe_disassociate", time.perf_counter() - t,
        f"partial {result.partially_suppressed}, suppressed {result.fully_suppressed}, "
        f"to term chunk {result.moved_to_term_chunk}, RLM {rlm(release, result.release):.3f}")
    rep = run_cover_attack(result.release, "strong", seed=0, list_problems=False)
    row(name, len(ds), "detector on safe release, strong", rep.seconds,
        f"PEM {rep.pem:.3f}, vulnerable {rep.vulnerable_records}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--synthetic-records", type=int, default=1_000_000)
    p.add_argument("--skip-kosarak", action="store_true")
    p.add_argument("--delta", type=int, default=30)
    args = p.parse_args(argv)
    print("| dataset      |   records | job                                |  seconds | peak MB  | result |")
    print("|---|---|---|---|---|---|")
    if not args.skip_kosarak:
        bench("kosarak25k", load_kosarak(), 3, 2, args.delta)
    if args.synthetic_records > 0:
        t = time.perf_counter()
        ds = generate_quest(args.synthetic_records, 1000, 8, seed=0)
        row("quest", len(ds), "generate_quest domain=1000 len=8", time.perf_counter() - t, "")
        bench("quest", ds, 3, 2, args.delta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
