"""``python -m experiments COMMAND ...``: run a sweep, copy its claims into a README, tabulate differences.

The commands are modules of :mod:`experiments.cli` on the one dispatcher
(:func:`corpora.common.cli.dispatch`); ``python -m experiments.run SWEEP.yaml`` is the same as
``python -m experiments run SWEEP.yaml``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from corpora.common.cli import dispatch
from experiments.cli import TOOL

__all__ = ["TOOL", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """The ``experiments`` console script and ``python -m experiments``."""
    return dispatch(TOOL, argv)


if __name__ == "__main__":
    sys.exit(main())
