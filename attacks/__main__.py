"""`python -m attacks cover|semantic|audit|score ...`: attack a release, audit it, or score word pairs.

An argparse parser with one subparser per command, so ``python -m attacks --help`` lists them;
each command's options are parsed by its own module's parser (``python -m attacks cover --help``),
which receives everything after the command's name.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from corpora.common.errors import ArgumentParser, run_cli

COMMANDS = {
    "cover": ("attacks.cli.cover",
              "cover problems, Barakat2016 Algorithm 1's breaches (strong, moderate, weak attacker), Awad2019's PEM"),
    "semantic": ("attacks.cli.semantic",
                 "the semantic attack of AlShuhail2021: reconstruct records by term relatedness, beside its random, "
                 "blind and oracle baselines"),
    "audit": ("attacks.cli.audit",
              "is a release safe to publish? Guarantee 1, PEM, the three attackers, a quick semantic attack, "
              "recommendations; exit 1 when a threshold is crossed"),
    "score": ("attacks.cli.score",
              "a relatedness scorer's scores of word pairs, and its correlation with human scores"),
}


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: a command and the arguments its own parser reads."""
    top = ArgumentParser(prog="python -m attacks",
                         description="Attacks on a disassociated release (format disassociated/1), a pre-publication "
                                     "audit, and word-pair scoring. Each command has its own --help.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=ArgumentParser)
    for name, (_module, text) in COMMANDS.items():
        parser = sub.add_parser(name, help=text, add_help=False, prefix_chars="\0")
        parser.add_argument("arguments", nargs=argparse.REMAINDER, help="the command's own arguments")
    return top


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)

    def dispatch(arguments: list[str]) -> int:
        parsed = build_parser().parse_args(arguments[:1])
        module = importlib.import_module(COMMANDS[parsed.command][0])
        return int(module.main(arguments[1:]))

    return run_cli(dispatch, args)


if __name__ == "__main__":
    sys.exit(main())
