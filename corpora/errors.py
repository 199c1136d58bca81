"""The one exception type for a user's mistake, and the command-line wrapper that reports it.

Every package of the workbench raises :class:`InputError` for bad input (a missing or malformed
file, an impossible parameter, an unknown name). Command lines run through :func:`run_cli`, which
turns it into one line on standard error and a non-zero exit instead of a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

__all__ = ["InputError", "run_cli"]


class InputError(ValueError):
    """Bad input from the user: the message is one line naming what is wrong and where."""


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run ``main(argv)`` and map a user's mistake to one line on stderr and exit status 2.

    ``InputError``, ``OSError`` (missing or unreadable files) and ``KeyboardInterrupt`` are
    reported in one line; anything else is a bug of ours and keeps its traceback.
    """
    try:
        status = main(argv)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"error: {exc.filename or exc}: no such file", file=sys.stderr)
        return 2
    except IsADirectoryError as exc:
        print(f"error: {exc.filename or exc}: is a directory, expected a file", file=sys.stderr)
        return 2
    except PermissionError as exc:
        print(f"error: {exc.filename or exc}: permission denied", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return int(status or 0)
