"""`python -m anonymizer verify RELEASE [--exact] [--exact-max-records N]`: k^m-anonymity, Lemma 2 for
every cluster, Property 1, strict structure checks, and an exact search of the valid reconstructions of
small components (:mod:`anonymizer.evaluation.verify`); prints ``OK`` or one line per violation; exit 0
if ok, 1 on a violation, 3 when some component is unproven, 2 if the file is not a release at all."""

from __future__ import annotations

import argparse

from anonymizer.baselines.generalized import MAX_JSON_BYTES
from anonymizer.cli import COMMANDS
from anonymizer.cli.common import peek_format
from anonymizer.evaluation.verify import EXACT_MAX_RECORDS, verify_file
from anonymizer.evaluation.verify_generalized import verify_generalized
from corpora.common.bounds import MAX_RECORDS, int_option
from corpora.common.files import parse_json, read_text_bounded

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = COMMANDS["verify"]

DESCRIPTION = ("Check Guarantee 1 of a release (Terrovitis2012): k^m-anonymous record chunks, Lemma 2 for every "
               "cluster, Property 1, structure, and every component decided: an exact search of its valid "
               "reconstructions, or a proven sufficient condition; else it is 'unproven' (exit 3, not OK; "
               "exit 1 on a violation); a generalized/1 release (apriori, diffpart) gets a brute-force k^m check.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer verify``."""
    parser.add_argument("release", help="release file (JSON or parquet)")
    parser.add_argument("--exact", action="store_true",
                        help="search every component exactly, whatever its size (may be slow on large ones)")
    parser.add_argument("--exact-max-records", type=int_option("--exact-max-records", 0, MAX_RECORDS),
                        default=EXACT_MAX_RECORDS, metavar="N",
                        help=f"search components of at most N records exactly (default {EXACT_MAX_RECORDS}; 0: none)")


def run(args: argparse.Namespace) -> int:
    """``verify``: print OK or one line per violation, then per unproven component; exit 0 if
    Guarantee 1 is proven (OK), 1 on a violation, 3 when nothing is violated but some component is
    unproven (neither searched exactly nor passing the proven condition: not OK either)."""
    if peek_format(args.release) == "generalized/1":
        obj = parse_json(read_text_bounded(args.release, MAX_JSON_BYTES), f"{args.release}: not a release")
        greport = verify_generalized(obj, source=args.release)
        for line in greport.violations:
            print(line)
        print(f"{greport.summary()}: {args.release}"
              + (f" (k={greport.k}, m={greport.m})" if greport.k is not None else ""))
        return 0 if greport.ok else 1
    report = verify_file(args.release, exact=args.exact, exact_max_records=args.exact_max_records)
    for line in report.violations + report.unproven:
        print(line)
    print(f"{report.summary()}: {args.release} (k={report.k}, m={report.m})")
    return 0 if report.ok else 1 if report.violations else 3
