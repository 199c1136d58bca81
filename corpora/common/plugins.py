"""The one extension mechanism of the workbench: named registries that Python entry points extend.

Anonymizers, attacks, scorers and metrics are all registered the same way: a :class:`Registry`
maps a name to an object. The workbench registers its own (built-in) objects in code; a
third-party distribution adds its own by declaring Python entry points in a group, e.g.::

    [project.entry-points."disassociation_workbench.attacks"]
    my_attack = "my_package.attack:ATTACK"

The first time a registry is asked for a name (or for its names), it loads the entry points of
its group and registers each loaded object under the entry point's name. Only installed
distributions are consulted (``importlib.metadata``); nothing names code in a data file, so a
sweep file never makes the workbench import a module it names.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Generic, TypeVar

from corpora.common.errors import InputError

__all__ = ["ENTRY_POINT_PREFIX", "Registry"]

ENTRY_POINT_PREFIX = "disassociation_workbench"
"""Entry point groups are ``disassociation_workbench.<kind>s`` (attacks, anonymizers, scorers, metrics)."""

T = TypeVar("T")


class Registry(Generic[T]):
    """Named objects of one kind, in registration order (built-ins first, then entry points).

    ``kind`` names the objects in messages ("attack"); ``group`` is the entry point group read on
    first use (None: built-ins only); ``on_register`` is called with every object registered
    (e.g. to register the metrics an attack declares).
    """

    def __init__(self, kind: str, group: str | None = None, on_register: Callable[[T], None] | None = None) -> None:
        self.kind = kind
        self.group = group
        self._on_register = on_register
        self._items: dict[str, T] = {}
        self._loaded = group is None

    def register(self, name: str, obj: T) -> T:
        """Add ``obj`` under ``name`` (a name is registered once) and return it."""
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = obj
        if self._on_register is not None:
            self._on_register(obj)
        return obj

    def load(self) -> None:
        """Register the objects of the installed distributions' entry points (once)."""
        if self._loaded:
            return
        self._loaded = True
        for entry in sorted(metadata.entry_points(group=self.group), key=lambda e: e.name):
            if entry.name not in self._items:
                self.register(entry.name, entry.load())

    def get(self, name: str) -> T:
        """The object registered as ``name``; an InputError line naming the known names otherwise."""
        self.load()
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(self._items) or "none"
            raise InputError(f"unknown {self.kind} {name!r}; known: {known}") from None

    def registered(self, name: str) -> bool:
        """Whether ``name`` is registered already (without loading entry points)."""
        return name in self._items

    def names(self) -> tuple[str, ...]:
        """Every registered name, built-ins first, in registration order."""
        self.load()
        return tuple(self._items)

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._items
