"""The registries of the experiments: anonymizers, attacks, scorers and metrics.

All four are :class:`corpora.common.plugins.Registry` objects: the built-ins are registered in
:mod:`experiments.plugins`, and installed distributions add theirs through the entry point groups
``disassociation_workbench.anonymizers``, ``.attacks``, ``.scorers`` and ``.metrics``. Registering a
step registers the metrics it declares.
"""

from __future__ import annotations

from typing import Any

from corpora.common.plugins import ENTRY_POINT_PREFIX, Registry
from experiments.steps.base import Anonymizer, Attack, MetricInfo, Scorer

__all__ = ["ANONYMIZERS", "ATTACKS", "METRICS", "SCORERS", "load_all"]

METRICS: Registry[MetricInfo] = Registry("metric", f"{ENTRY_POINT_PREFIX}.metrics")


def _declare_metrics(step: Any) -> None:
    """Register the metrics a step declares (a metric two steps share is registered once)."""
    for info in step.metrics:
        if not METRICS.registered(info.name):
            METRICS.register(info.name, info)


ANONYMIZERS: Registry[Anonymizer] = Registry("anonymizer", f"{ENTRY_POINT_PREFIX}.anonymizers", _declare_metrics)
ATTACKS: Registry[Attack] = Registry("attack", f"{ENTRY_POINT_PREFIX}.attacks", _declare_metrics)
SCORERS: Registry[Scorer] = Registry("scorer", f"{ENTRY_POINT_PREFIX}.scorers")


def load_all() -> None:
    """Load every group's entry points, in a fixed order (so metrics keep one order in every process)."""
    for registry in (ANONYMIZERS, ATTACKS, SCORERS, METRICS):
        registry.load()
