"""The baselines of Terrovitis2012 Figure 11 as sweep steps: Apriori and DiffPart.

The hierarchy is the balanced tree of the run's ``fanout`` over the dataset's items
(:func:`anonymizer.baselines.hierarchy.balanced_hierarchy`); DiffPart's noise takes the run's seed.
Utility: tKd, re, tKd-ML^2, NCP from :func:`anonymizer.evaluation.multilevel.baseline_utility`;
tKd-a, re-a and tlost are disassociation's measures and are not recorded here. No attack runs on a
baseline's output (it publishes no disassociated release).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from corpora.dataset import TransactionDataset
from experiments.steps.base import MetricInfo, Row, row
from experiments.steps.disassociation import ANONYMIZER_METRICS, UTILITY_METRICS

__all__ = ["APRIORI", "DIFFPART", "Baseline"]

_PRODUCED = ("anonymize_seconds", "dataset_records", "dataset_density", "tkd", "re", "tkd_ml2", "ncp",
             "utility_seconds")


def _generalize(method: str, config: Mapping[str, Any], ds: TransactionDataset, hierarchy: Any) -> Any:
    if method == "apriori":
        from anonymizer.baselines.apriori import apriori_anonymize

        return apriori_anonymize(ds, hierarchy, int(config["k"]), int(config["m"]))
    from anonymizer.baselines.diffpart import diffpart

    release, _owner = diffpart(ds, hierarchy, float(config["epsilon"]), seed=int(config["seed"]))
    return release


class Baseline:
    """One run of a baseline (Apriori or DiffPart, Terrovitis2012 Figure 11) and its utility rows."""

    metrics: tuple[MetricInfo, ...] = tuple(m for m in ANONYMIZER_METRICS + UTILITY_METRICS if m.name in _PRODUCED)

    def __init__(self, name: str, label: str, grid_params: tuple[str, ...]) -> None:
        self.name, self.label, self.grid_params = name, label, grid_params

    def run(self, config: Mapping[str, Any], ds: TransactionDataset) -> tuple[list[Row], None]:
        from anonymizer.baselines.hierarchy import balanced_hierarchy
        from anonymizer.evaluation.multilevel import baseline_utility

        wanted = set(config["metrics"])
        label = self.label
        hierarchy = balanced_hierarchy(ds.vocabulary, int(config.get("fanout", 5)))
        t0 = time.perf_counter()
        release = _generalize(self.name, config, ds, hierarchy)
        took = time.perf_counter() - t0
        rows = [row("anonymize_seconds", took, took, method=label),
                row("dataset_records", len(ds), method=label),
                row("dataset_density", ds.density, method=label)]
        utility_metrics = {"tkd", "re", "tkd_ml2", "ncp"} & wanted
        if utility_metrics:
            u = config["utility"]
            t0 = time.perf_counter()
            report = baseline_utility(ds, release, top_k=int(u["top_k"]),
                                      re_range=(int(u["re_range"][0]), int(u["re_range"][1])))
            elapsed = time.perf_counter() - t0
            for name in sorted(utility_metrics):
                value = getattr(report, name)
                if value is not None:
                    rows.append(row(name, value, method=label))
            rows.append(row("utility_seconds", elapsed, elapsed, method=label))
        return [r for r in rows if r["metric"] in wanted], None


# DiffPart uses neither k nor m (Terrovitis2012 section 7: "DiffPart is unaffected by this parameter").
APRIORI = Baseline("apriori", "Apriori", ("k", "m", "fanout"))
DIFFPART = Baseline("diffpart", "DiffPart", ("epsilon", "fanout"))
