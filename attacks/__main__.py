"""`python -m attacks cover|semantic|audit|score ...`: attack a release, audit it, or score word pairs.

The tool's table of commands for the one dispatcher (:func:`corpora.common.cli.dispatch`):
``python -m attacks --help`` lists them, ``python -m attacks COMMAND --help`` shows a command's
options; each command is a module of :mod:`attacks.cli` (``HELP``, ``DESCRIPTION``,
``add_arguments``, ``run``), imported only when it runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from attacks.cli import TOOL
from corpora.common.cli import dispatch

__all__ = ["TOOL", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(TOOL, argv)


if __name__ == "__main__":
    sys.exit(main())
