"""`python -m attacks audit RELEASE ...`: is this release safe to publish? (:mod:`attacks.auditing`).

Exit status: 0 when every gate holds, 1 when a threshold is crossed (Guarantee 1 broken, a term that
looks like a direct identifier, PEM above ``--max-pem``, an attacker's breached records above
``--max-vulnerable``, the semantic attack above ``--max-semantic-gain``), 2 for bad input (an
``--original`` or ``--truth`` that does not belong to the release included); so the command can
gate a publishing pipeline. The verdict line lists every residual risk with its value.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from attacks.auditing import DEFAULT_MAX_PEM, DEFAULT_MAX_SEMANTIC_GAIN, DEFAULT_MAX_VULNERABLE, audit
from corpora.cli.options import add_reading_options, reading_options
from corpora.common.errors import ArgumentParser
from corpora.common.files import check_output_paths, write_text_atomic
from corpora.common.seeds import seed_argument
from corpora.io.formats import FORMATS

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run", "original_source"]

HELP = ("is a release safe to publish? Guarantee 1, PEM, Barakat2016's attackers, a quick semantic attack, "
        "recommendations; exit 1 when a threshold is crossed")
DESCRIPTION = ("Audit a release before publishing it: Guarantee 1 (the independent verifier), cover problems and PEM "
               "(Awad2019, three readings), the breaches of Barakat2016's strong, strong-per-record, moderate and weak "
               "attackers, a quick semantic attack "
               "against its random baseline when the terms are words, and recommendations. Exit 0: publishable under "
               "the thresholds; 1: a threshold is crossed; 2: bad input.")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}")
    return value


def add_arguments(p: ArgumentParser) -> None:
    p.error_prefix = "attacks audit"
    p.formatter_class = argparse.ArgumentDefaultsHelpFormatter
    p.add_argument("release", help="release file (disassociated/1 JSON)")
    p.add_argument("--original", metavar="INPUT",
                   help="the original dataset (file or name): the attackers know its records; with --truth it also "
                        "scores the semantic attack")
    p.add_argument("--truth", metavar="FILE",
                   help="truth file: the attackers know the real records of each cluster, as in the sweeps")
    p.add_argument("--max-pem", type=_share, default=DEFAULT_MAX_PEM, metavar="P",
                   help="fail when PEM (Awad2019 5.1.1: share of record chunks with a cover problem, Definition 3 "
                        "on every record chunk; the linkable and per-cluster readings are reported beside it) "
                        "exceeds P; 0 because safe disassociation leaves none; 1 disables")
    p.add_argument("--max-vulnerable", type=_share, default=DEFAULT_MAX_VULNERABLE, metavar="R",
                   help="fail when any attacker (strong, strong-per-record, moderate, weak) breaches more than this "
                        "share of the "
                        "records; 0.05, the strictest public-release risk threshold of de-identification practice "
                        "(docs/cover-and-safe.md); 1 disables")
    p.add_argument("--max-semantic-gain", type=_share, default=DEFAULT_MAX_SEMANTIC_GAIN, metavar="G",
                   help="fail when the semantic attack's 95%% interval of accuracy clears the random baseline's by "
                        "more than G; 0: any attack measurably better than chance fails; 1 disables")
    p.add_argument("--allow-identifiers", action="store_true",
                   help="report published terms that look like direct identifiers instead of failing on them "
                        "(for an owner who knows they are not identifiers)")
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


def original_source(args: argparse.Namespace) -> str:
    """``--original`` and the options it was read with, shell-quoted: how a recommended command reads it again.

    An original read with ``--sql QUERY --db URL`` is read again the same way, the URL without its password
    (the command then takes it from ``PGPASSWORD`` or ``~/.pgpass``): a printed command never carries one."""
    if getattr(args, "sql", None) is not None:
        from corpora.io.sql_url import parse_db_url

        return shlex.join(["--sql", args.sql, "--db", parse_db_url(args.db).without_password])
    words = [args.original]
    if args.format is not None:
        words += ["--format", args.format]
    options = reading_options(args)
    if options["delimiter"] is not None:
        words += ["--delimiter", options["delimiter"]]
    if options["header"] is not None:
        words.append("--header" if options["header"] else "--no-header")
    for key in ("user_column", "item_column"):
        if options[key] is not None:
            words += [f"--{key.replace('_', '-')}", str(options[key])]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    check_output_paths({"report": args.output},
                       {"release": args.release, "--truth": args.truth, "--original": args.original})
    original = None
    if args.original or args.sql or args.db:
        from corpora.registry import load_dataset

        original = load_dataset(args.original, format=args.format, **reading_options(args))
    report = audit(args.release, original=original, truth=args.truth, max_pem=args.max_pem,
                   max_vulnerable=args.max_vulnerable, max_semantic_gain=args.max_semantic_gain,
                   allow_identifiers=args.allow_identifiers, seed=args.seed, semantic=not args.no_semantic,
                   original_source=original_source(args) if original is not None else None)
    as_json = args.json or (args.output is not None and not args.markdown and args.output.lower().endswith(".json"))
    text = report.to_json(indent=2) + "\n" if as_json else report.to_markdown()
    verdict = report.verdict()
    if args.output:
        write_text_atomic(args.output, text)
        print(f"audit {verdict}: {args.release} -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return report.exit_status
