"""The validated sweep: what its datasets, figures and claims declare (frozen dataclasses)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TRENDS", "Claim", "DatasetSpec", "PlotSpec", "SweepSpec"]

TRENDS = ("rising", "falling", "flat")

@dataclass(frozen=True)
class Claim:
    """One stated result: ``metric`` against ``x`` on the rows ``where`` selects."""

    id: str
    statement: str
    metric: str
    x: str
    where: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    paper: tuple[tuple[float, float], ...] = ()
    """(x, the paper's value) pairs, in the plotted units (percent for fractions)."""
    trend: str | None = None
    tolerance: float = 0.0
    reason: str = ""
    rival: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """Where-filters replacing those of ``where`` to select the line ours must beat (optional)."""
    controls: tuple[tuple[tuple[str, tuple[Any, ...]], ...], ...] = ()
    """Row selections (each overriding keys of ``where``) on which the claim is evaluated again."""
    explain: tuple[str, ...] = ()
    """Metrics printed beside the verdict at the claim's first and last x."""

    def under(self, override: Sequence[tuple[str, tuple[Any, ...]]]) -> Claim:
        """The same claim on the rows ``where`` updated by ``override`` (no controls, no explanation)."""
        where = dict(self.where)
        where.update(dict(override))
        return Claim(self.id, self.statement, self.metric, self.x, tuple(where.items()), self.paper, self.trend,
                     self.tolerance, rival=self.rival)




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
    executor: str = "local"
    scheduler: str | None = None
    jobs: int = 1
    zip_results: bool = False
    description: str = ""
    note: str = ""
    source: str = "<sweep>"
    base_dir: str = "."
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
