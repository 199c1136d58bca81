"""`python -m attacks audit RELEASE ...`: is this release safe to publish? (:mod:`attacks.auditing`).

Exit status: 0 when every gate holds, 1 when a threshold is crossed (Guarantee 1 broken, PEM above
``--max-pem``, vulnerable records above ``--max-vulnerable``), 2 for bad input; so the command
can gate a publishing pipeline.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from anonymizer.seeds import seed_argument
from attacks.auditing import DEFAULT_MAX_PEM, audit
from corpora.cli_options import add_reading_options, reading_options
from corpora.errors import ArgumentParser
from corpora.files import check_output_paths, write_text_atomic
from corpora.formats import FORMATS

__all__ = ["main", "build_parser"]


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        error_prefix="attacks audit",
        prog="python -m attacks audit",
        description="Audit a release before publishing it: Guarantee 1 (the independent verifier), cover problems "
                    "and PEM (Awad2019), the breaches of Barakat2016's strong, moderate and weak attackers, a quick "
                    "semantic attack against its random baseline when the terms are words, and recommendations. "
                    "Exit 0: publishable under the thresholds; 1: a threshold is crossed; 2: bad input.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("release", help="release file (disassociated/1 JSON)")
    p.add_argument("--original", metavar="INPUT",
                   help="the original dataset (file or name): the attackers know its records; with --truth it also "
                        "scores the semantic attack")
    p.add_argument("--truth", metavar="FILE",
                   help="truth file: the attackers know the real records of each cluster, as in the sweeps")
    p.add_argument("--max-pem", type=_share, default=DEFAULT_MAX_PEM, metavar="P",
                   help="fail when PEM (share of record chunks with a linkable cover problem) exceeds P; 1 disables")
    p.add_argument("--max-vulnerable", type=_share, default=None, metavar="R",
                   help="fail when an attacker breaches more than this share of the records (default: report only)")
    p.add_argument("--seed", type=seed_argument, default=0, help="seed of the simulated attackers and the attack")
    p.add_argument("--no-semantic", action="store_true", help="skip the semantic attack")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print (or write) the report as one JSON object")
    out.add_argument("--markdown", action="store_true", help="print (or write) the report as Markdown (the default)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report to FILE (JSON if it ends in .json, else Markdown) instead of printing it; "
                        "the verdict line still goes to standard error")
    p.add_argument("--format", choices=FORMATS, default=None, help="format of --original (default: by extension)")
    add_reading_options(p, what="--original")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    check_output_paths({"report": args.output},
                       {"release": args.release, "--truth": args.truth, "--original": args.original})
    original = None
    if args.original:
        from corpora.registry import load_dataset

        original = load_dataset(args.original, format=args.format, **reading_options(args))
    report = audit(args.release, original=original, truth=args.truth, max_pem=args.max_pem,
                   max_vulnerable=args.max_vulnerable, seed=args.seed, semantic=not args.no_semantic)
    as_json = args.json or (args.output is not None and not args.markdown and args.output.lower().endswith(".json"))
    text = report.to_json(indent=2) + "\n" if as_json else report.to_markdown()
    verdict = "PASS" if report.passed else "FAIL (" + ", ".join(c.name for c in report.checks
                                                                 if c.status == "fail") + ")"
    if args.output:
        write_text_atomic(args.output, text)
        print(f"audit {verdict}: {args.release} -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return report.exit_status
