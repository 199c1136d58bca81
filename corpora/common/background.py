"""Work started in a background thread while the caller does something else (issue 25).

A command that reads two independent inputs (the ``utility`` command: the original dataset and the release)
reads them at once: the parsers spend much of their time in numpy and pyarrow, which let the other thread run,
so on two cores the second read costs little wall time. The thread is a daemon, so an interrupted command
(Ctrl-C, SIGTERM) does not wait for it; an error it raises is raised where its value is asked for, so the
caller reports errors in the order it would have met them one after the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Background"]

T = TypeVar("T")


class Background(Generic[T]):
    """``work()`` running in a daemon thread from construction; :meth:`result` waits for its value or error."""

    def __init__(self, work: Callable[[], T], name: str = "background") -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], T]) -> None:
        try:
            self._value = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by result()
            self._error = exc

    def result(self) -> T:
        """The work's value, once it is done; its exception, raised here, if it failed."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]
