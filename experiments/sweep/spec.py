"""The validated sweep: what its datasets, figures and claims declare (frozen dataclasses)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["BOUNDS", "MAX_SERIES", "NUMERIC_COLUMNS", "TRENDS", "Claim", "DatasetSpec", "OurSetting", "Panel",
           "PaperValue", "PlotSpec", "SweepSpec"]

TRENDS = ("rising", "falling", "flat")

MAX_SERIES = 6
"""The most lines one panel of a figure draws (more: split the figure with ``panels``)."""

NUMERIC_COLUMNS = frozenset({"k", "m", "max_cluster_size", "density", "records", "seed", "epsilon", "fanout",
                             "rank"})
"""Columns whose values are numbers (joined by lines in a figure; a claim's ``trend`` may run along them).
Every other column (dataset, method, horpart, safe, ...) is a category."""

BOUNDS = ("=", ">", "<")


@dataclass(frozen=True)
class PaperValue:
    """One number a paper states for a claim.

    ``at`` is the x value (a number, or a category for a categorical x) or None for an aggregate
    over every x we measured (``paper: {mean: 60}``). ``bound`` is ``=`` (the paper's value),
    ``>`` (ours must exceed ``value``: ``paper: {5: ">90"}``) or ``<``. The papers state numbers
    in these three ways; AlShuhail2021:

    * a bound, section 5.3 on Figure 5.1: "we can see a clear upward trend in accuracy
      percentage, reaching over 90% of the reconstructed sub-records";
    * one value at every x, on Figure 5.3: "the breakage rate is around 25% for all k values"
      (``paper: {2: 25, 3: 25, 4: 25, 5: 25}``);
    * a number tied to no x, the abstract: "About 60% of disassociated items can be
      reconstructed by our de-anonymisation approach" (``paper: {mean: 60}``, our mean over the
      swept k).
    """

    at: Any
    value: float
    bound: str = "="

    @property
    def is_mean(self) -> bool:
        return self.at is None

    def shown(self) -> str:
        """The value as the sweep file writes it: ``46``, ``>90``."""
        text = f"{self.value:.4g}"
        return text if self.bound == "=" else f"{self.bound}{text}"


def _paper_value(item: Any) -> PaperValue:
    if isinstance(item, PaperValue):
        return item
    at, value = item
    return PaperValue(None if at == "mean" else at, float(value))


@dataclass(frozen=True)
class Claim:
    """One stated result: ``metric`` against ``x`` on the rows ``where`` selects.

    ``paper`` may be given as (x, value) pairs; they become :class:`PaperValue` entries.
    """

    id: str
    statement: str
    metric: str
    x: str
    where: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    paper: tuple[PaperValue, ...] = ()
    """The paper's numbers (points, bounds, an aggregate), in the plotted units (percent for fractions)."""
    trend: str | None = None
    tolerance: float = 0.0
    reason: str = ""
    rival: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """Where-filters replacing those of ``where`` to select the line ours must beat (optional)."""
    controls: tuple[tuple[tuple[str, tuple[Any, ...]], ...], ...] = ()
    """Row selections (each overriding keys of ``where``) on which the claim is evaluated again."""
    explain: tuple[str, ...] = ()
    """Metrics printed beside the verdict at the claim's first and last x."""
    lower: bool = False
    """With ``rival``: ours must be below the rival (a loss such as tKd), not above it."""
    plot: str | None = None
    """A figure id: that figure marks the paper's numbers of this claim."""
    step_tolerance: float = 0.0
    """The least step against the trend that counts as one (default 0: only the runs' noise)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "paper", tuple(_paper_value(p) for p in self.paper))

    @property
    def categorical(self) -> bool:
        """Whether ``x`` is a category (dataset, method): compared point by point, never as a trend."""
        return self.x not in NUMERIC_COLUMNS

    def under(self, override: Sequence[tuple[str, tuple[Any, ...]]]) -> Claim:
        """The same claim on the rows ``where`` updated by ``override`` (no controls, no explanation)."""
        where = dict(self.where)
        where.update(dict(override))
        return replace(self, where=tuple(where.items()), reason="", controls=(), explain=(), plot=None)


@dataclass(frozen=True)
class OurSetting:
    """A setting the sweep chose where the paper states none (section ``ours``)."""

    setting: str
    value: str
    why: str
    sensitivity: tuple[str, ...] = ()
    """Ids of the claims (usually controls) that measure what this choice changes."""


@dataclass(frozen=True)
class DatasetSpec:
    """One entry of ``datasets``.

    ``names`` is the preference list of registry names or paths (the first that loads offline is
    used: a cached BMS-WebView file before its kosarak stand-in); ``text`` is a text source of
    ``corpora.text.api`` built at each requested ``density``. ``records`` (a list) takes the first N
    records, for size sweeps. ``seed`` fixes the text build's sample (default: the run's seed).
    ``grid`` overrides grid parameters for this dataset only (one sweep can sweep delta on
    kosarak and k on a text build); ``attacks`` picks which of the sweep's attacks run on it
    (default: cover on every dataset, semantic on text builds only, where its scorers apply).
    ``utility`` overrides keys of the sweep's ``utility`` section for this dataset only (one
    figure's settings, e.g. Terrovitis2012 Figure 7d's ``re_windows`` on POS alone).
    """

    names: tuple[str, ...] = ()
    text: str | None = None
    label: str | None = None
    densities: tuple[float | None, ...] = (None,)
    records: tuple[int | None, ...] = (None,)
    seed: int | None = None
    stand_in: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    attacks: tuple[str, ...] | None = None
    utility: tuple[tuple[str, Any], ...] = ()
    """Overrides of the sweep's ``utility`` settings for this dataset (Terrovitis2012 Figure 11c
    measures re over the 0-20th terms on POS, Figure 7d re over rank windows)."""
    metrics: tuple[str, ...] = ()
    """This dataset's metrics (a subset of the sweep's; empty: all of them): a control measured on
    a large dataset records only what its claims need."""
    seeds: tuple[int, ...] = ()
    """This dataset's seeds (empty: the sweep's)."""

    @property
    def is_text(self) -> bool:
        return self.text is not None

    def display(self) -> str:
        return self.label or (f"text:{self.text}" if self.text else self.names[0])


@dataclass(frozen=True)
class Panel:
    """One subplot of a figure: its title and the filters it adds to the figure's ``where``."""

    title: str
    where: tuple[tuple[str, tuple[Any, ...]], ...] = ()


@dataclass(frozen=True)
class PlotSpec:
    """One figure: ``metrics`` against parameter ``x``, one line per value of ``group_by``.

    Several metrics in one figure (Terrovitis2012 Figure 7b: tKd, tKd-a, tlost against k) give
    one line per metric (and per group). ``where`` keeps only rows whose columns equal the given
    value (or one of a list of values).
    """

    id: str
    metrics: tuple[str, ...]
    x: str
    group_by: tuple[str, ...]
    where: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    title: str | None = None
    xlabel: str | None = None
    ylabel: str | None = None
    logx: bool = False
    note: str | None = None
    best_over: str | None = None
    """A column (``epsilon``): each point is the best (lowest) mean over its values, as Terrovitis2012
    Figure 11 reports DiffPart's best budget."""
    panels: tuple[Panel, ...] = ()
    """Small multiples: one subplot per panel (shared x), each on the rows its ``where`` adds."""
    sharey: bool = True
    """Whether the panels share the y axis (false: an oracle line may sit on its own scale)."""

    @property
    def metric(self) -> str:
        """The first (usually the only) metric."""
        return self.metrics[0]


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep file."""

    name: str
    datasets: tuple[DatasetSpec, ...]
    grid: Mapping[str, tuple[Any, ...]]
    zip_groups: tuple[tuple[str, ...], ...]
    attacks: Mapping[str, Mapping[str, Any]]
    metrics: tuple[str, ...]
    utility: Mapping[str, Any]
    seeds: tuple[int, ...]
    plots: tuple[PlotSpec, ...]
    claims: tuple[Claim, ...] = ()
    ours: tuple[OurSetting, ...] = ()
    executor: str = "local"
    scheduler: str | None = None
    jobs: int = 1
    zip_results: bool = False
    description: str = ""
    note: str = ""
    source: str = "<sweep>"
    base_dir: str = "."
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
