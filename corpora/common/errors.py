"""The one exception type for a user's mistake, and the command-line wrapper that reports it.

Every package of the workbench raises :class:`InputError` for bad input (a missing or malformed
file, an impossible parameter, an unknown name). Command lines run through :func:`run_cli`, which
turns it into one line on standard error and a non-zero exit instead of a traceback. While a
command runs, SIGTERM raises :class:`Terminated`, so temporary output files are removed on the
way out (:func:`corpora.common.files.atomic_open`); running out of memory is one line too.
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

__all__ = ["InputError", "ArgumentParser", "Terminated", "run_cli", "memory_message", "register_temporary",
           "forget_temporary", "TERMINATE_GRACE_SECONDS"]


class InputError(ValueError):
    """Bad input from the user: the message is one line naming what is wrong and where."""


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose mistakes are one :class:`InputError` line (exit status 2 through
    :func:`run_cli`), never SystemExit: ``error_prefix: message``, ``prog`` when no prefix is given.
    Every command line of the workbench (and its subparsers) uses it."""

    def __init__(self, *args: Any, error_prefix: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error_prefix = error_prefix
        self.intermixed = False
        """Options may stand between the positionals (``parse_intermixed_args``): set by a command whose
        first positional is optional, which argparse before Python 3.12 would otherwise match empty."""

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        if self.intermixed:
            return self.parse_intermixed_args(args, namespace)
        return super().parse_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{self.error_prefix or self.prog}: {message}")


class Terminated(BaseException):
    """Raised in a command line's main thread when the process receives SIGTERM (exit status 143)."""


TERMINATE_GRACE_SECONDS = 1.0
"""After SIGTERM, how long the command may take to stop on its own (the handler raises
:class:`Terminated` as soon as Python code runs again) before the watchdog ends the process: a
long numpy or pyarrow call does not return to Python code until it is done."""

_TEMPORARY: set[str] = set()
_WATCHING = False


def register_temporary(path: str | os.PathLike[str]) -> None:
    """Name a temporary file the SIGTERM watchdog removes if it has to end a stuck command."""
    _TEMPORARY.add(os.fspath(path))


def forget_temporary(path: str | os.PathLike[str]) -> None:
    """The temporary file was renamed or removed: the watchdog leaves it alone."""
    _TEMPORARY.discard(os.fspath(path))


def _child_after_fork() -> None:
    if _WATCHING:  # a forked worker keeps the default SIGTERM behaviour, not the parent's watchdog
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(-1)


os.register_at_fork(after_in_child=_child_after_fork)


@contextlib.contextmanager
def _sigterm_watchdog() -> Iterator[None]:
    """End the process within :data:`TERMINATE_GRACE_SECONDS` of SIGTERM even when the main thread
    is stuck in C code (numpy, pyarrow), where the Python-level handler cannot run: the C-level
    handler writes the signal number to a socket (``signal.set_wakeup_fd``) that a daemon thread
    reads; if the command has not stopped after the grace period, the thread removes the
    registered temporary files, prints the one error line and exits with status 143."""
    global _WATCHING
    import socket

    finished = threading.Event()
    try:
        reader, writer = socket.socketpair()
    except OSError:
        yield
        return
    writer.setblocking(False)
    try:
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except (ValueError, OSError):
        reader.close()
        writer.close()
        yield
        return

    def watch() -> None:
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data or finished.is_set():
                return
            if signal.SIGTERM in data and not finished.wait(TERMINATE_GRACE_SECONDS):
                for path in list(_TEMPORARY):
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                with contextlib.suppress(Exception):
                    sys.stderr.write("error: terminated (SIGTERM); unfinished outputs were removed\n")
                    sys.stderr.flush()
                os._exit(143)

    thread = threading.Thread(target=watch, name="sigterm-watchdog", daemon=True)
    _WATCHING = True
    thread.start()
    try:
        yield
    finally:
        finished.set()
        _WATCHING = False
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(previous)
        writer.close()
        with contextlib.suppress(OSError):
            reader.shutdown(socket.SHUT_RDWR)
        reader.close()


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
        with _sigterm_watchdog():
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
