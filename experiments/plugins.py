"""The built-in anonymizers, attacks, scorers and metrics, registered in :mod:`experiments.registry`.

Importing this module registers the workbench's own steps, in the order their metrics are listed
(anonymizer, utility, safe, cover, semantic); installed distributions add theirs through entry
points (``docs/extending.md``), loaded by :func:`load`.
"""

from __future__ import annotations

from collections.abc import Iterable

from attacks.semantic.scorers import make_scorer
from experiments.registry import ANONYMIZERS, ATTACKS, METRICS, SCORERS, load_all
from experiments.steps.base import MetricInfo, Scorer
from experiments.steps.baselines import APRIORI, DIFFPART
from experiments.steps.cover import COVER
from experiments.steps.datasets import DATASET_METRICS
from experiments.steps.disassociation import DISASSOCIATION
from experiments.steps.semantic import SEMANTIC

__all__ = ["all_metrics", "load", "metric_info", "metrics_for_steps"]

for _anonymizer in (DISASSOCIATION, APRIORI, DIFFPART):  # anonymizer.cli.anonymize.METHODS
    ANONYMIZERS.register(_anonymizer.name, _anonymizer)
for _attack in (COVER, SEMANTIC):
    ATTACKS.register(_attack.name, _attack)
for _name, _label in (("hybrid", "WE+WN"), ("glove", "WE"), ("wordnet", "WN"), ("ngd", "NGD")):
    SCORERS.register(_name, Scorer(_name, _label, make_scorer))
for _info in DATASET_METRICS:  # the dataset step's (a text build's composition): after the steps' own
    METRICS.register(_info.name, _info)


def load() -> None:
    """Register the entry points of installed plugins (once per process)."""
    load_all()


def all_metrics() -> dict[str, MetricInfo]:
    """Every metric a sweep may name in ``metrics``, in a stable order (built-ins first)."""
    load()
    return {name: METRICS.get(name) for name in METRICS.names()}


def metric_info(name: str) -> MetricInfo | None:
    """The metric ``name`` (None when no step declares it)."""
    load()
    return METRICS.get(name) if METRICS.registered(name) else None


def metrics_for_steps(steps: Iterable[str], defaults_only: bool = False) -> list[str]:
    """The metric names the given steps can produce (``defaults_only``: those recorded by default)."""
    wanted = set(steps)
    return [m.name for m in all_metrics().values() if m.step in wanted and (m.default or not defaults_only)]
