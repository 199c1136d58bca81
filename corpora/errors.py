"""The one exception type for a user's mistake, and the command-line wrapper that reports it.

Every package of the workbench raises :class:`InputError` for bad input (a missing or malformed
file, an impossible parameter, an unknown name). Command lines run through :func:`run_cli`, which
turns it into one line on standard error and a non-zero exit instead of a traceback. While a
command runs, SIGTERM raises :class:`Terminated`, so temporary output files are removed on the
way out (:func:`corpora.files.atomic_open`); running out of memory is one line too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

__all__ = ["InputError", "ArgumentParser", "Terminated", "run_cli", "memory_message"]


class InputError(ValueError):
    """Bad input from the user: the message is one line naming what is wrong and where."""


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose mistakes are one :class:`InputError` line (exit status 2 through
    :func:`run_cli`), never SystemExit: ``error_prefix: message``, ``prog`` when no prefix is given.
    Every command line of the workbench (and its subparsers) uses it."""

    def __init__(self, *args: Any, error_prefix: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error_prefix = error_prefix

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{self.error_prefix or self.prog}: {message}")


class Terminated(BaseException):
    """Raised in a command line's main thread when the process receives SIGTERM (exit status 143)."""


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` in this process (main thread only).

    A process forked inside the block (a worker) inherits the handler; there it takes the default
    action instead, so workers still die as their parent expects.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def handler(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def memory_message(exc: MemoryError) -> str:
    """One line for running out of memory: what was asked for (numpy says it) and how to need less."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    asked = f" ({detail[:160]})" if detail else ""
    return (f"out of memory{asked}; use a smaller input (fewer records, e.g. a subset or "
            "records=N of a synthetic dataset), smaller parameters, or a machine with more memory")


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run ``main(argv)`` and map a user's mistake to one line on stderr and exit status 2.

    ``InputError``, ``OSError`` (missing or unreadable files), ``MemoryError`` and
    ``KeyboardInterrupt`` are reported in one line; SIGTERM ends the command with one line and
    status 143 after the temporary files are removed; anything else is a bug of ours and keeps
    its traceback.
    """
    try:
        with _sigterm_raises():
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
    except MemoryError as exc:
        print(f"error: {memory_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("error: terminated (SIGTERM); unfinished outputs were removed", file=sys.stderr)
        return 143
    return int(status or 0)
