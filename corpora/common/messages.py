"""Short, printable renderings of user values for one-line error messages.

An error line names the value it refuses, but a value from a file can be huge (a 1 GB string, a
list nested a million deep, the answer of a web server) or hold control characters and secrets.
:func:`show` renders at most a few items of it, at most ``limit`` characters, with control
characters replaced and the given secrets masked; its cost does not grow with the value's size
(built on :mod:`reprlib`, which looks at the first few items only).
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable
from typing import Any

__all__ = ["show", "SHOW_LIMIT"]

SHOW_LIMIT = 80
"""Default longest rendering, in characters."""

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 2, 4, 4, 4, 4
_REPR.maxstring, _REPR.maxlong, _REPR.maxother = 40, 40, 40


def show(value: Any, limit: int = SHOW_LIMIT, secrets: Iterable[str] = (), quote: bool = True) -> str:
    """A short repr of ``value`` for an error message (at most ``limit`` characters).

    Strings are quoted like ``repr`` (``quote=False`` leaves them bare); in a string value every
    non-empty string of ``secrets`` is replaced by ``***`` before anything is cut, so no prefix of
    a secret survives (render any other value to a string first when it may hold a secret);
    characters that are not printable become ``?``.
    """
    if isinstance(value, str):
        # a long string is cut before masking, keeping enough to catch a secret that starts in view
        longest = max((len(s) for s in secrets if s), default=0)
        text = value[: limit + longest + 1]
    else:
        text = _REPR.repr(value)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = "".join(c if c.isprintable() else "?" for c in text)
    if isinstance(value, str) and quote:
        text = repr(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."
