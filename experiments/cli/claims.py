"""``python -m experiments claims README.md [results/] [--only NAME]``: copy each sweep's claims table into a README.

The tables are the sweeps' own output (``results/NAME/claims.md``, :mod:`experiments.report.claims`),
copied between ``<!-- claims:NAME -->`` and ``<!-- /claims:NAME -->`` markers.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from corpora.common.errors import InputError
from experiments.cli import COMMANDS
from experiments.report.claims_table import update_readme

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "run"]

HELP = COMMANDS["claims"]
DESCRIPTION = ("Copy each sweep's paper-vs-ours table into a README. Verdicts: 'matches' (the curve holds on "
               "every step within the runs' noise and the level is within [2/3, 3/2] of the paper's numbers), "
               "'trend only (level x0.05)' (the curve holds, the level is that ratio of the paper's), 'differs', "
               "'differs (level xN)' (paper values without a curve), 'no data' (docs/experiments.md).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("readme", type=Path)
    parser.add_argument("results", type=Path, nargs="?", default=Path("results"))
    parser.add_argument("--only", action="append", help="update only this sweep's block (repeatable)")


def run(args: argparse.Namespace) -> int:
    if not args.readme.is_file():
        raise InputError(f"{args.readme}: no such file")
    names = update_readme(args.readme, args.results, args.only)
    print(f"{args.readme}: updated the claims of {', '.join(names)}")
    return 0
