"""``python -m experiments differences RESULTS [--metric M] [--x k] [--where COL=VALUE] [--readme README.md]``.

The attack's edge over the random baseline as a table (:mod:`experiments.report.differences`), printed
or written into a README block.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from corpora.common.errors import InputError
from experiments.cli import COMMANDS
from experiments.report.differences import difference_table, update_block

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "run"]

HELP = COMMANDS["differences"]
DESCRIPTION = "The attack's edge over the random baseline, as a table, from a sweep's ``results.csv`` (issue 11)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", type=Path)
    p.add_argument("--metric", default="accuracy")
    p.add_argument("--x", default="k")
    p.add_argument("--where", action="append", default=[], help="COLUMN=VALUE (repeatable)")
    p.add_argument("--chunks", default="overall")
    p.add_argument("--readme", type=Path)
    p.add_argument("--block", help="name of the README block (default: the results folder's name)")


def run(args: argparse.Namespace) -> int:
    where = []
    for item in args.where:
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"experiments.differences: --where {item!r}: expected COLUMN=VALUE")
        where.append((key, value))
    lines = difference_table(args.results, args.metric, args.x, where, args.chunks)
    if args.readme is None:
        print("\n".join(lines))
        return 0
    name = args.block or args.results.name
    update_block(args.readme, name, lines)
    print(f"{args.readme}: updated the differences block {name}")
    return 0
