"""`python -m corpora list|stats|convert|build-text ...`: named datasets, statistics, conversion, text corpora.

The commands are the modules of :mod:`corpora.cli` (table :data:`corpora.cli.TOOL`), run by the one
dispatcher of the workbench (:func:`corpora.common.cli.dispatch`).
"""

from __future__ import annotations

import sys

from corpora.cli import TOOL
from corpora.common.cli import dispatch

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the ``python -m corpora`` command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    return dispatch(TOOL, argv)


if __name__ == "__main__":
    sys.exit(main())
