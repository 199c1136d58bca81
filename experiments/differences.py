"""``python -m experiments.differences``: ``python -m experiments differences`` (:mod:`experiments.cli.differences`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from corpora.common.cli import add_version
from corpora.common.errors import ArgumentParser, run_cli
from experiments.cli import differences as command

__all__ = ["main"]


def _main(argv: Sequence[str] | None) -> int:
    parser = ArgumentParser(error_prefix="experiments.differences", prog="python -m experiments.differences",
                            description=command.DESCRIPTION)
    add_version(parser)
    command.add_arguments(parser)
    return command.run(parser.parse_args(list(argv or [])))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command and return its exit status (errors are one line on stderr)."""
    return run_cli(_main, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
