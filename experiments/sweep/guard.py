"""Crash hygiene of a sweep: one sweep per results folder, and workers that die with their sweep.

* :func:`results_lock`: a sweep holds an exclusive lock on ``<results>/<name>/.lock`` while it
  writes the folder (run files, ``results.csv``, figures, report, archive). A second sweep on the
  same folder does not wait: it stops at once with one error line naming the holder's process id
  (waiting silently behind a sweep that may take hours is worse than saying so). The lock is the
  operating system's (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows), so it disappears
  with the process that held it, even after ``kill -9``: there is no stale lock to clean up.
  Taking it also checks, before any work starts, that the folder can be created and written.
* :func:`die_with_parent`: the initializer of every local worker process. Killing a sweep's main
  process (even with SIGKILL, which no handler sees) would otherwise leave its workers blocked
  forever on the pipe of the task queue. On Linux the kernel kills the worker when its parent
  dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ``ctypes``); everywhere a daemon thread also
  checks twice a second that the parent is still there and ends the worker when it is not.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from corpora.common.errors import InputError

__all__ = ["LOCK_NAME", "die_with_parent", "results_lock"]

LOCK_NAME = ".lock"
"""The lock file inside a sweep's results folder (hidden, so the zip archive leaves it out)."""

_PR_SET_PDEATHSIG = 1
_WATCH_SECONDS = 0.5


def _try_lock(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting; False when another process holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        import msvcrt

        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def results_lock(directory: str | os.PathLike[str]) -> Iterator[Path]:
    """Create ``directory`` if needed and hold its lock for the block (InputError if it is taken).

    InputError also when the folder cannot be created or written, so a sweep fails before its
    first run rather than after hours of work.
    """
    folder = Path(directory)
    created = [p for p in (folder, *folder.parents) if not p.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    except FileExistsError:
        raise InputError(f"{folder}: exists and is not a folder; results cannot be written there") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"{folder}: results cannot be written there ({reason})") from None
    try:
        if not _try_lock(fd):
            who = _holder(fd)
            raise InputError(f"{folder}: another sweep is writing this results folder{who}; "
                             "wait for it to finish or pass --results DIR")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield folder
    except BaseException:
        if created:
            _remove_if_empty(folder, created)
        raise
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _remove_if_empty(folder: Path, created: list[Path]) -> None:
    """A sweep that failed before writing anything leaves no folder behind (only those it created)."""
    with contextlib.suppress(OSError):
        if [p.name for p in folder.iterdir()] == [LOCK_NAME]:
            (folder / LOCK_NAME).unlink()
        for path in created:
            path.rmdir()  # stops (OSError) at the first folder that is not empty


def _holder(fd: int) -> str:
    """`` (process N)`` from the lock file's content, or nothing when it cannot be read."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (process {text})" if text.isdigit() else ""


def _watch(parent: int, first_ppid: int) -> None:
    while True:
        time.sleep(_WATCH_SECONDS)
        if os.getppid() != first_ppid or not _exists(parent):
            os._exit(1)  # the sweep is gone: nothing will read this worker's result


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists
        return True
    return True


def die_with_parent(parent: int) -> None:
    """Make this worker process end when the sweep's main process ``parent`` ends (see the module doc).

    ``parent`` is the main process's id, passed by the pool; the watchdog also notices a change of
    this process's parent (re-parenting to init when the parent dies). With the ``forkserver``
    start method the parent is the fork server, which itself ends with the main process.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    first_ppid = os.getppid()
    if not _exists(parent):  # the sweep died before this worker got here
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, first_ppid), name="sweep-watchdog", daemon=True).start()
