"""``python -m experiments COMMAND ...``: run a sweep, copy its claims into a README, tabulate differences.

The commands are modules of :mod:`experiments.cli` on the one dispatcher
(:func:`corpora.common.cli.dispatch`); ``python -m experiments.run SWEEP.yaml`` is the same as
``python -m experiments run SWEEP.yaml``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from corpora.common.cli import Tool, dispatch

__all__ = ["TOOL", "main"]

TOOL = Tool(
    prog="python -m experiments",
    description="Sweeps of disassociation experiments: run them, and put their results into a README.",
    commands={
        "run": ("experiments.cli.run", "run a sweep (resumable; writes results.csv, figures and report.md)"),
        "claims": ("experiments.cli.claims", "copy each sweep's paper-vs-ours table into a README"),
        "differences": ("experiments.cli.differences", "the attack's edge over the random baseline, as a table"),
    },
)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``experiments`` console script and ``python -m experiments``."""
    return dispatch(TOOL, argv)


if __name__ == "__main__":
    sys.exit(main())
