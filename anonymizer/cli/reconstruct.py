"""`python -m anonymizer reconstruct RELEASE --seed S -o OUT.jsonl`: one dataset of the inverse
transformation (:mod:`anonymizer.evaluation.reconstruct`), written atomically as JSON lines (one sorted
array per record)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from anonymizer.evaluation.reconstruct import TERM_RULES, reconstruct
from anonymizer.io.release_files import load_release
from corpora.common.files import atomic_open, check_output_paths
from corpora.common.seeds import seed_argument

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = "sample one dataset of the inverse transformation"

DESCRIPTION = "Sample one dataset of the inverse transformation (Terrovitis2012 section 5)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer reconstruct``."""
    parser.add_argument("release", help="release file (JSON or parquet)")
    parser.add_argument("--seed", type=seed_argument, default=0, help="random seed (default 0)")
    parser.add_argument("--term-rule", choices=TERM_RULES, default="one",
                        help="records per term-chunk term: one (default) or uniform in 1..k-1")
    parser.add_argument("-o", "--output", required=True, help="output JSON-lines file")


def run(args: argparse.Namespace) -> int:
    """``reconstruct``: write one sampled dataset as JSON lines."""
    check_output_paths({"reconstruction": args.output}, {"release": args.release})
    release = load_release(args.release)
    start = time.perf_counter()
    ds = reconstruct(release, seed=args.seed, term_rule=args.term_rule)
    with atomic_open(args.output, "w") as handle:
        for record in ds.sorted_records():
            handle.write(json.dumps(record, ensure_ascii=False))
            handle.write("\n")
    print(f"wrote {len(ds)} records ({ds.stats().term_occurrences} term occurrences) to {args.output} "
          f"in {time.perf_counter() - start:.2f}s (seed {args.seed})", file=sys.stderr)
    return 0
