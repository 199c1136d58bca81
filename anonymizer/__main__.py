"""`python -m anonymizer`: anonymize a dataset, or `verify` / `reconstruct` / `utility` / `convert` a release.

One argparse parser with a subparser per command, so ``python -m anonymizer --help`` lists every
command and ``python -m anonymizer COMMAND --help`` gives its options. ``anonymize`` is the
default: ``python -m anonymizer INPUT -k 3 -m 2 ...`` means ``python -m anonymizer anonymize INPUT
...``. Parsing errors are one :class:`~corpora.common.errors.InputError` line (exit status 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from corpora.common.errors import ArgumentParser, run_cli

SUBCOMMANDS = ("verify", "reconstruct", "utility", "convert")
COMMANDS = ("anonymize", *SUBCOMMANDS)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m anonymizer`` and its five commands."""
    from anonymizer.cli import anonymize as cli
    from anonymizer.cli import tools as cli_tools
    top = ArgumentParser(prog="python -m anonymizer",
                         description="Anonymize set-valued data by disassociation (Terrovitis2012) or a baseline, and "
                                     "check, sample or score the release. Without a command, 'anonymize' is meant: "
                                     "python -m anonymizer INPUT -k 3 -m 2 -o release.json.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=ArgumentParser)
    commands = (
        ("anonymize", "disassociate a dataset (default), or generalize it (apriori) or add noise (diffpart)",
         "Disassociate a transaction dataset into a k^m-anonymous release (Terrovitis2012), or run a baseline: "
         "--method apriori (k^m-anonymity by generalization) or diffpart (differential privacy).",
         cli.add_arguments, cli.run),
        ("verify", "independent check of Guarantee 1 (k^m, Lemma 2, Property 1, exact search)",
         cli_tools.VERIFY_HELP, cli_tools.add_verify_arguments, cli_tools.run_verify),
        ("reconstruct", "sample one dataset of the inverse transformation",
         cli_tools.RECONSTRUCT_HELP, cli_tools.add_reconstruct_arguments, cli_tools.run_reconstruct),
        ("utility", "information loss: tKd, tKd-a, re, re-a, tlost, tKd-ML^2, NCP, RAE, RLM",
         cli_tools.UTILITY_HELP, cli_tools.add_utility_arguments, cli_tools.run_utility),
        ("convert", "rewrite a release as parquet (OUT.parquet) or as JSON",
         cli_tools.CONVERT_HELP, cli_tools.add_convert_arguments, cli_tools.run_convert),
    )
    for name, short, description, add_arguments, run in commands:
        parser = sub.add_parser(name, help=short, description=description)
        add_arguments(parser)
        parser.set_defaults(run=run)
    return top


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse a command line; one that names no command means ``anonymize``."""
    args = list(argv)
    if args and args[0] not in COMMANDS and args[0] not in ("-h", "--help"):
        args.insert(0, "anonymize")
    return build_parser().parse_args(args)


def main(argv: list[str] | None = None) -> int:
    def run(args: list[str]) -> int:
        parsed = parse(args)
        return int(parsed.run(parsed))

    return run_cli(run, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
