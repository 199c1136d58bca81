"""Reading a small settings file: safe YAML, bounded before any Python object is built.

One loader for every settings file a user passes (a sweep file of :mod:`experiments`, a threat model of
:mod:`attacks.threat_model`): the text is read within a byte bound, aliases are refused, and the node
count, the nesting depth and each value's length are checked while the document is composed (a
billion-laughs file fails at its first ``*alias`` in microseconds); a repeated key is refused. Every
failure is one :class:`~corpora.common.errors.InputError` line naming the file, the line and the column.
:func:`did_you_mean` is the near-miss hint of an unknown key or value.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from corpora.common.errors import InputError
from corpora.common.files import read_text_bounded
from corpora.common.messages import show

__all__ = ["YamlBounds", "read_yaml", "did_you_mean"]


@dataclass(frozen=True)
class YamlBounds:
    """The bounds of one kind of settings file; ``what`` names the kind in messages ("sweep file")."""

    file_bytes: int = 256 << 10
    nodes: int = 10_000
    depth: int = 50
    scalar_chars: int = 10_000
    what: str = "settings file"


try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

if _CParser is not None:

    class _SafeBase(yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor,  # type: ignore[misc]
                    yaml.resolver.Resolver):
        """libyaml's parser (fast) under PyYAML's Python composer, so :class:`_BoundedLoader` can
        check every node as it is composed (``yaml.CSafeLoader`` composes in C, out of reach)."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

else:  # pragma: no cover - PyYAML built without libyaml
    _SafeBase = yaml.SafeLoader  # type: ignore[misc,assignment]


class _BoundedLoader(_SafeBase):
    """A safe YAML loader that refuses aliases and bounds the node count, the depth and value lengths.

    The checks run while the document is composed, before any Python object is built. Anchors alone
    (``&name``) are harmless and allowed.
    """

    bounds = YamlBounds()

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0

    def _refuse(self, problem: str) -> yaml.composer.ComposerError:
        return yaml.composer.ComposerError(None, None, problem, self.peek_event().start_mark)

    def compose_node(self, parent: Any, index: Any) -> Any:
        b = self.bounds
        if self.check_event(yaml.AliasEvent):
            raise self._refuse(f"aliases (*name) are not allowed in a {b.what}; write the value out")
        self._nodes += 1
        if self._nodes > b.nodes:
            raise self._refuse(f"more than {b.nodes:,} values in one {b.what}")
        event = self.peek_event()
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > b.scalar_chars:
            raise self._refuse(f"a value of {len(event.value):,} characters; at most {b.scalar_chars:,}")
        self._depth += 1
        try:
            if self._depth > b.depth:
                raise self._refuse(f"lists and mappings nested more than {b.depth} deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """A mapping whose keys are distinct: a repeated key is refused (YAML says keys are unique;
        PyYAML would keep the last value silently, so the file would mean other settings than it shows)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else None
            if key is None:
                continue
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {_show_text(str(key_node.value))}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_yaml(p: str | os.PathLike[str], bounds: YamlBounds = YamlBounds()) -> Any:
    """The YAML document of the file ``p``, within ``bounds`` (:class:`InputError` otherwise)."""
    text = read_text_bounded(p, bounds.file_bytes)  # a settings file holds settings, not data
    loader = type("_Loader", (_BoundedLoader,), {"bounds": bounds})
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "nesting depth" in problem:  # PyYAML >= 6.0.4 stops deep nesting in its scanner, before our bound
            raise InputError(f"{p}: {where}lists and mappings nested more than {bounds.depth} deep") from None
        raise InputError(f"{p}: {where}not valid YAML ({_show_text(problem)})") from None
    except ValueError as exc:  # a constructor's refusal, e.g. an integer of more than 4,300 digits
        raise InputError(f"{p}: a value cannot be read ({_show_text(str(exc))})") from None


def did_you_mean(word: Any, allowed: Sequence[Any]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``allowed`` to ``word``, or "" when none is close."""
    if len(str(word)) > 40:  # no near miss of a short name; and difflib's cost grows with the length
        return ""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _show_text(text: str) -> str:
    return show(text.strip().splitlines()[0] if text.strip() else "", quote=False)
