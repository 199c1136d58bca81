"""Time verify(), reconstruct() and utility_report() on releases of synthetic Quest-like data.

Usage: python benchmarks/utility.py [--sizes 25000 100000 250000 1000000] [--kosarak]

For each size: disassociate (k=5, m=2, max cluster size 30; not timed here, see
benchmarks/anonymize.py), then time the brute-force verifier, one reconstruction and the
utility report with one reconstruction (top-1000, re over ranks 200-220). Peak memory is the
process's maximum resident set size after the step (it only grows).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.utility import utility_report
from anonymizer.evaluation.verify import verify
from corpora.synthetic.quest import generate_quest


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(name: str, ds, utility: bool) -> None:
    release, _ = disassociate(ds, 5, 2, 30, seed=0)
    t = time.perf_counter()
    report = verify(release)
    t_verify = time.perf_counter() - t
    if not report.ok:
        print(f"{name} {len(ds)}: {len(report.violations)} violations, first: {report.violations[0]}", file=sys.stderr)
    t = time.perf_counter()
    reconstruct(release, seed=0)
    t_rec = time.perf_counter() - t
    t_util = float("nan")
    if utility:
        t = time.perf_counter()
        utility_report(ds, release, reconstructions=1)
        t_util = time.perf_counter() - t
    print(f"{name:>18} {len(ds):>9} {len(release.clusters):>8} {len(release.joint_clusters):>6} "
          f"{'ok' if report.ok else 'FAIL':>4} {t_verify:>8.2f} {t_rec:>8.2f} {t_util:>8.2f} {peak_mb():>9.0f}",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[25_000, 100_000, 250_000, 1_000_000])
    parser.add_argument("--kosarak", action="store_true", help="also kosarak25k (needs corpora.registry)")
    parser.add_argument("--no-utility", action="store_true", help="skip the utility report")
    args = parser.parse_args(argv)
    print(f"{'dataset':>18} {'records':>9} {'clusters':>8} {'joints':>6} {'ver.':>4} "
          f"{'verify s':>8} {'recon s':>8} {'util s':>8} {'peak MB':>9}")
    for n in args.sizes:
        run("quest d5000 l10", generate_quest(n, 5000, 10, seed=1), not args.no_utility)
    if args.kosarak:
        from corpora.registry import load_dataset

        run("kosarak25k", load_dataset("kosarak25k"), not args.no_utility)
    return 0


if __name__ == "__main__":
    sys.exit(main())
