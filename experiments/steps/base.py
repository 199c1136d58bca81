"""What a sweep step is: the metrics it declares and the rows it returns.

A run of a sweep is an *anonymizer* step (disassociation, Terrovitis2012; or a baseline of its
Figure 11: Apriori, DiffPart) followed by the *attack* steps the sweep declares on the release it
publishes (the cover problem of Barakat2016 and Awad2019, the semantic attack of AlShuhail2021).
Each step declares beside its code the metrics it can produce (:class:`MetricInfo`), so the sweep
file is validated against what the steps declare and a new attack is one module
(see ``docs/extending.md``).

The protocols below are what :mod:`experiments.registry` holds; the built-in steps are registered
in :mod:`experiments.plugins`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Anonymizer", "Attack", "MetricInfo", "OptionChecker", "Published", "Row", "Scorer", "row"]

Row = dict[str, Any]
"""One metric row: ``metric``, ``value`` and optionally ``seconds``, ``attack``, ``method``, ``chunks``, ``rank``."""


@dataclass(frozen=True)
class MetricInfo:
    """A metric: the step computing it, its axis label, and whether it is a fraction (plotted in %)."""

    name: str
    step: str
    label: str
    fraction: bool = False
    unit: str = ""
    default: bool = True

    def axis_label(self) -> str:
        if self.fraction:
            return f"{self.label} (%)"
        return f"{self.label} ({self.unit})" if self.unit else self.label


def row(metric: str, value: Any, seconds: float | None = None, attack: str = "", method: str = "",
        chunks: str = "", rank: int | None = None) -> Row:
    """A metric row as the runner stores it."""
    return {"metric": metric, "value": None if value is None else float(value), "seconds": seconds,
            "attack": attack, "method": method, "chunks": chunks, "rank": rank}


@dataclass(frozen=True)
class Published:
    """What the attacks of a run see: the published release, its truth (for scoring only) and the run."""

    config: Mapping[str, Any]
    dataset: Any
    release: Any
    truth: Any
    seed: int
    base_dir: str
    wanted: frozenset[str]


class OptionChecker(Protocol):
    """The sweep file's checks, handed to an attack to validate its section (each failure is one line)."""

    def fail(self, path: str, message: str) -> Exception: ...
    def mapping(self, value: Any, path: str) -> Mapping[str, Any]: ...
    def keys(self, obj: Mapping[str, Any], allowed: Any, path: str) -> None: ...
    def as_list(self, value: Any) -> list[Any]: ...
    def choice(self, value: Any, path: str, allowed: Any) -> str: ...
    def choices(self, values: Any, path: str, allowed: Any) -> list[str]: ...
    def unique(self, values: list[Any], path: str) -> None: ...
    def integer(self, value: Any, path: str, minimum: int | None = None, maximum: int | None = None) -> int: ...
    def number(self, value: Any, path: str, low: float | None = None, high: float | None = None,
               low_open: bool = False) -> float: ...
    def string(self, value: Any, path: str) -> str: ...
    def show(self, value: Any) -> str: ...
    def suggest(self, word: str, allowed: Any) -> str: ...


class Attack(Protocol):
    """An attack step: run on every published release of the datasets it applies to."""

    name: str
    metrics: tuple[MetricInfo, ...]
    path: str
    """The sweep file's key path of its section, for messages (``attacks.NAME``)."""
    text_only: bool
    """True when it applies to text builds only (its scorers need words)."""

    def parse_options(self, raw: Any, check: OptionChecker) -> dict[str, Any]: ...
    def run(self, options: Mapping[str, Any], published: Published) -> list[Row]: ...


class Anonymizer(Protocol):
    """An anonymizer step: returns its rows and the release the attacks run on (None: no attacks)."""

    name: str
    metrics: tuple[MetricInfo, ...]
    grid_params: tuple[str, ...]
    """The grid parameters it reads (the others are left empty in its runs, so they give one run)."""

    def run(self, config: Mapping[str, Any], dataset: Any) -> tuple[list[Row], Published | None]: ...


@dataclass(frozen=True)
class Scorer:
    """A relatedness scorer of the semantic attack: its name in a sweep, its label in results, its factory."""

    name: str
    label: str
    make: Callable[..., Any]
