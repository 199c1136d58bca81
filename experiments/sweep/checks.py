"""The checks of a sweep file: each failure is one :class:`~corpora.common.errors.InputError` line.

Messages name the file and the key path (``sweep.yaml: grid.k[2]: ...``), what is wrong and the
allowed values, with a "did you mean" suggestion for a near miss. :class:`Checker` is what an attack
step's ``parse_options`` receives (:class:`experiments.steps.base.OptionChecker`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from corpora.common.errors import InputError
from corpora.common.messages import show
from corpora.common.yamlfile import did_you_mean
from experiments.sweep.limits import LIMITS

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
"""A name that may name a folder or a file: letters, digits, '_', '.', '-'."""

def _show(value: Any) -> str:
    """A short repr of a value for an error message (see :func:`corpora.common.messages.show`)."""
    return show(value)


# --------------------------------------------------------------------------- errors and helpers
class Ctx:
    """Where we are in the file, for messages: ``sweep.yaml: grid.k[2]: ...``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> InputError:
        where = f"{self.source}: {path}" if path else self.source
        return InputError(f"{where}: {message}")


def _suggest(word: str, allowed: Sequence[str]) -> str:
    return did_you_mean(word, allowed)


def _allowed(allowed: Sequence[Any]) -> str:
    return ", ".join(str(a) for a in allowed)


def _check_keys(ctx: Ctx, obj: Mapping[str, Any], allowed: Sequence[str], path: str) -> None:
    for key in obj:
        if not isinstance(key, str) or key not in allowed:
            shown = key if isinstance(key, str) and len(key) <= 40 else _show(key)
            where = f"{path}.{shown}" if path else shown
            hint = _suggest(key, allowed) if isinstance(key, str) and len(key) <= 40 else ""
            raise ctx.fail(where, f"unknown key{hint}; allowed keys: {_allowed(allowed)}")


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def _as_mapping(ctx: Ctx, value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ctx.fail(path, f"expected a mapping (key: value lines), got {_type_name(value)}")
    return value


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _int(ctx: Ctx, value: Any, path: str, minimum: int | None = None, what: str = "",
         maximum: int = LIMITS.param_max) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.fail(path, f"expected an integer, got {_type_name(value)} {_show(value)}")
    if minimum is not None and value < minimum:
        raise ctx.fail(path, f"{_show(value)} is impossible: must be >= {minimum}{what}")
    if value > maximum:
        raise ctx.fail(path, f"{_show(value)} is too large: at most {maximum:,}")
    return value


def _number(ctx: Ctx, value: Any, path: str, low: float | None = None, high: float | None = None,
            low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise ctx.fail(path, f"expected a number, got {_type_name(value)} {_show(value)}")
    v = float(value)
    if low is not None and (v < low or (low_open and v == low)):
        op = ">" if low_open else ">="
        raise ctx.fail(path, f"{_show(value)} is impossible: must be {op} {low}")
    if high is not None and v > high:
        raise ctx.fail(path, f"{_show(value)} is impossible: must be <= {high}")
    return v


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer beyond the float range
        return False


def _str(ctx: Ctx, value: Any, path: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ctx.fail(path, f"expected a non-empty string, got {_type_name(value)} {_show(value)}")
    return value


def _bool(ctx: Ctx, value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise ctx.fail(path, f"expected true or false, got {_type_name(value)} {_show(value)}")
    return value


def _choice(ctx: Ctx, value: Any, path: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        hint = _suggest(str(value), allowed) if isinstance(value, str) else ""
        raise ctx.fail(path, f"{_show(value)} is not allowed{hint}; allowed values: {_allowed(allowed)}")
    return value


def _unique(ctx: Ctx, values: list[Any], path: str) -> None:
    seen: set[str] = set()
    for i, v in enumerate(values):
        key = repr(v)
        if key in seen:
            raise ctx.fail(f"{path}[{i}]", f"{_show(v)} is listed twice")
        seen.add(key)


class Checker:
    """The checks bound to one sweep file, as an attack step's ``parse_options`` uses them."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx

    def fail(self, path: str, message: str) -> InputError:
        return self.ctx.fail(path, message)

    def mapping(self, value: Any, path: str) -> Mapping[str, Any]:
        return _as_mapping(self.ctx, value, path)

    def keys(self, obj: Mapping[str, Any], allowed: Sequence[str], path: str) -> None:
        _check_keys(self.ctx, obj, allowed, path)

    def as_list(self, value: Any) -> list[Any]:
        return _as_list(value)

    def choice(self, value: Any, path: str, allowed: Sequence[str]) -> str:
        return _choice(self.ctx, value, path, allowed)

    def choices(self, raw: Any, path: str, allowed: Sequence[str]) -> list[str]:
        """A non-empty list of distinct allowed values (one value stands for a list of one)."""
        values = _as_list(raw)
        if not values:
            raise self.ctx.fail(path, f"expected a non-empty list of: {_allowed(allowed)}")
        out = [_choice(self.ctx, v, f"{path}[{i}]", allowed) for i, v in enumerate(values)]
        _unique(self.ctx, out, path)
        return out

    def unique(self, values: list[Any], path: str) -> None:
        _unique(self.ctx, values, path)

    def integer(self, value: Any, path: str, minimum: int | None = None, maximum: int | None = None) -> int:
        return _int(self.ctx, value, path, minimum, maximum=LIMITS.param_max if maximum is None else maximum)

    def number(self, value: Any, path: str, low: float | None = None, high: float | None = None,
               low_open: bool = False) -> float:
        return _number(self.ctx, value, path, low, high, low_open)

    def string(self, value: Any, path: str) -> str:
        return _str(self.ctx, value, path)

    def show(self, value: Any) -> str:
        return _show(value)

    def suggest(self, word: str, allowed: Sequence[str]) -> str:
        return _suggest(word, allowed)
