"""`python -m anonymizer`: anonymize a dataset, or `verify` / `reconstruct` / `utility` / `convert` a release.

The commands are the modules of :mod:`anonymizer.cli` (:data:`anonymizer.cli.TOOL`), run by the one
dispatcher of the workbench (:func:`corpora.common.cli.dispatch`): ``python -m anonymizer --help``
lists them, ``python -m anonymizer COMMAND --help`` gives a command's options, ``--version`` the
version. ``anonymize`` is the default: ``python -m anonymizer INPUT -k 3 -m 2 ...`` means
``python -m anonymizer anonymize INPUT ...``. A user's mistake is one line on stderr (exit status 2).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from anonymizer.cli import TOOL
from corpora.common.cli import dispatch


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m anonymizer`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    return dispatch(TOOL, argv)


if __name__ == "__main__":
    sys.exit(main())
