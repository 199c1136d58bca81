"""``python -m experiments.run SWEEP.yaml [--jobs N] [--dry-run] [--only KEY=VALUE ...] [--results DIR]``.

The same command as ``python -m experiments run`` (:mod:`experiments.cli.run`), kept under the name
the README's quick start uses. Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from corpora.common.cli import add_version
from corpora.common.errors import ArgumentParser, run_cli
from experiments.cli import run as command

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(error_prefix="experiments.run", prog="python -m experiments.run",
                       description=command.DESCRIPTION)
    add_version(p)
    command.add_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run a sweep (errors raise; :func:`~corpora.common.errors.run_cli` turns them into one line)."""
    return command.run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(run_cli(main, sys.argv[1:]))
