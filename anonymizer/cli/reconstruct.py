"""`python -m anonymizer reconstruct RELEASE --seed S -o OUT.jsonl`: one dataset of the inverse
transformation (:mod:`anonymizer.evaluation.reconstruct`), written atomically as JSON lines (one sorted
array per record)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator

import numpy as np

from anonymizer.cli import COMMANDS
from anonymizer.evaluation.reconstruct import TERM_RULES, reconstruct
from anonymizer.io.release_files import load_release
from corpora.common.files import atomic_open, check_output_paths
from corpora.common.seeds import seed_argument
from corpora.dataset import TransactionDataset

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run", "json_lines"]

HELP = COMMANDS["reconstruct"]

DESCRIPTION = "Sample one dataset of the inverse transformation (Terrovitis2012 section 5)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer reconstruct``."""
    parser.add_argument("release", help="release file (JSON or parquet)")
    parser.add_argument("--seed", type=seed_argument, default=0, help="random seed (default 0)")
    parser.add_argument("--term-rule", choices=TERM_RULES, default="one",
                        help="records per term-chunk term: one (default) or uniform in 1..k-1")
    parser.add_argument("-o", "--output", required=True, help="output JSON-lines file")


def json_lines(ds: TransactionDataset, block: int = 100_000) -> Iterator[str]:
    """The records as JSON lines, ``block`` records per string: each line is ``json.dumps`` of the record's
    sorted term list (``ensure_ascii=False``), built by one gather from the vocabulary's encoded terms."""
    words = [json.dumps(t, ensure_ascii=False) for t in ds.vocabulary]
    table = np.asarray([w + tail for head in ("", "[") for tail in (", ", "]\n") for w in (head + x for x in words)]
                       or [""], dtype=object)
    width = len(words)
    indptr = np.asarray(ds.indptr, dtype=np.int64)
    indices = np.asarray(ds.indices, dtype=np.int64)
    for lo in range(0, len(ds), block):
        hi = min(lo + block, len(ds))
        a, b = int(indptr[lo]), int(indptr[hi])
        starts, ends = indptr[lo:hi] - a, indptr[lo + 1:hi + 1] - a
        if (starts == ends).any():  # an empty record: "[]" (never from reconstruct; kept exact anyway)
            yield "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ds.sorted_records()[lo:hi])
            continue
        code = np.zeros(b - a, dtype=np.int64)
        code[ends - 1] += 1
        code[starts] += 2
        yield "".join(table[code * width + indices[a:b]].tolist())


def run(args: argparse.Namespace) -> int:
    """``reconstruct``: write one sampled dataset as JSON lines."""
    check_output_paths({"reconstruction": args.output}, {"release": args.release})
    release = load_release(args.release)
    start = time.perf_counter()
    ds = reconstruct(release, seed=args.seed, term_rule=args.term_rule)
    with atomic_open(args.output, "w") as handle:
        for text in json_lines(ds):
            handle.write(text)
    print(f"wrote {len(ds)} records ({ds.stats().term_occurrences} term occurrences) to {args.output} "
          f"in {time.perf_counter() - start:.2f}s (seed {args.seed})", file=sys.stderr)
    return 0
