"""The metrics a sweep can record: which step produces each, its label and unit for figures.

Steps: ``anonymizer`` (disassociation itself, Terrovitis2012, or a baseline: Apriori, DiffPart),
``utility`` (tKd, tKd-a, re, re-a, tlost, tKd-ML^2 of Terrovitis2012 section 6-7, NCP and RAE of
Awad2019 section 5.1.3), ``safe`` (safe
disassociation and RLM, Awad2019 sections 4 and 5.1.2), ``cover`` (the quantitative breach
detector of Barakat2016 Algorithm 1 and PEM of Awad2019 section 5.1.1) and ``semantic`` (the
semantic attack and its measures, AlShuhail2021 section 5.2).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from anonymizer.disassociation.horpart import HORPART_STRATEGIES
from anonymizer.disassociation.verpart import VERPART_STRATEGIES
from attacks.cover.knowledge import ATTACKERS as ATTACK_KNOWLEDGE
from attacks.semantic.selectors import SELECTORS as SEMANTIC_SELECTORS

__all__ = [
    "ALL_METRICS",
    "ANONYMIZERS",
    "ATTACKERS",
    "CHUNKS",
    "HORPARTS",
    "SELECTORS",
    "VERPARTS",
    "MetricInfo",
    "metrics_for_steps",
]

# The option values a sweep may name are the ones the algorithms define.
HORPARTS = HORPART_STRATEGIES
VERPARTS = VERPART_STRATEGIES
ATTACKERS = ATTACK_KNOWLEDGE
SELECTORS = SEMANTIC_SELECTORS
CHUNKS = ("both", "record", "term")  # attacks.semantic.attack.CHUNK_PARTS, the default first
ANONYMIZERS = ("disassociation", "apriori", "diffpart")  # anonymizer.cli.anonymize.METHODS


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


_LIST = [
    MetricInfo("anonymize_seconds", "anonymizer", "disassociation time", unit="s"),
    MetricInfo("clusters", "anonymizer", "clusters", unit="count"),
    MetricInfo("record_chunks", "anonymizer", "record chunks", unit="count"),
    MetricInfo("term_chunk_share", "anonymizer", "term-chunk share of term occurrences", fraction=True),
    MetricInfo("dataset_records", "anonymizer", "records in the dataset", unit="count"),
    MetricInfo("dataset_density", "anonymizer", "dataset density (type-token ratio)"),
    # How many clusters a cover problem can be linked across (Awad2019 section 3.3 needs two record
    # chunks in one cluster): the share of chunks in such clusters is the ceiling of PEM.
    MetricInfo("multi_chunk_clusters", "anonymizer", "clusters with two or more record chunks", fraction=True,
               default=False),
    MetricInfo("linkable_chunk_share", "anonymizer", "record chunks in multi-chunk clusters (PEM's ceiling)",
               fraction=True, default=False),
    MetricInfo("tkd", "utility", "tKd", fraction=True, default=False),
    MetricInfo("tkd_a", "utility", "tKd-a", fraction=True, default=False),
    MetricInfo("re", "utility", "re (relative error)", default=False),
    MetricInfo("re_a", "utility", "re-a (relative error)", default=False),
    MetricInfo("tlost", "utility", "tlost", fraction=True, default=False),
    # Terrovitis2012 Figure 7d: re over term-rank windows (column ``rank``), supports averaged over r
    # reconstructions; recorded on datasets whose utility settings give ``re_windows``.
    MetricInfo("re_r1", "utility", "re (1 reconstruction)", default=False),
    MetricInfo("re_r2", "utility", "re-r2 (2 reconstructions)", default=False),
    MetricInfo("re_r5", "utility", "re-r5 (5 reconstructions)", default=False),
    MetricInfo("re_r10", "utility", "re-r10 (10 reconstructions)", default=False),
    MetricInfo("tkd_ml2", "utility", "tKd-ML^2", fraction=True, default=False),
    MetricInfo("ncp", "utility", "NCP (normalized certainty penalty)", fraction=True, default=False),
    # RAE is drawn in percent, the unit of Awad2019 Figure 6 ("between 1% for BMS1 and 0.1% for BMS2")
    MetricInfo("rae", "utility", "RAE (relative association error)", fraction=True, default=False),
    MetricInfo("utility_seconds", "utility", "utility measurement time", unit="s", default=False),
    MetricInfo("rlm", "safe", "RLM (relative loss)", fraction=True),
    MetricInfo("safe_seconds", "safe", "safe disassociation time", unit="s"),
    MetricInfo("vulnerable_records", "cover", "vulnerable records", unit="count"),
    MetricInfo("vulnerable_records_share", "cover", "vulnerable records", fraction=True),
    MetricInfo("breaches", "cover", "privacy breaches", unit="count"),
    MetricInfo("algorithm1_total", "cover", "Algorithm 1 total (sum of per-cluster maxima)", unit="count"),
    MetricInfo("pem", "cover", "PEM (vulnerable record chunks)", fraction=True),
    MetricInfo("vulnerable_chunks", "cover", "vulnerable record chunks", unit="count"),
    MetricInfo("pem_literal", "cover", "PEM, Definition 3 on every chunk", fraction=True, default=False),
    MetricInfo("pem_of_linkable", "cover", "vulnerable share of the linkable record chunks (PEM / its ceiling)",
               fraction=True, default=False),
    MetricInfo("cover_seconds", "cover", "breach detection time", unit="s"),
    MetricInfo("accuracy", "semantic", "accuracy", fraction=True),
    MetricInfo("accuracy_strict", "semantic", "accuracy (one-to-one records)", fraction=True, default=False),
    MetricInfo("wmd", "semantic", "WMD original vs reconstructed", unit="GloVe distance"),
    MetricInfo("transaction_breakage", "semantic", "transaction breakage", fraction=True),
    MetricInfo("transaction_breakage_strict", "semantic", "transaction breakage (one-to-one records)",
               fraction=True, default=False),
    MetricInfo("km_breakage", "semantic", "k^m-anonymity breakage", fraction=True),
    MetricInfo("transaction_breakage_literal", "semantic", "transaction breakage, eqs. 5.2-5.3 as printed",
               fraction=True, default=False),
    MetricInfo("unknown_term_share", "semantic", "attacked terms unknown to the scorer", fraction=True,
               default=False),
    MetricInfo("semantic_seconds", "semantic", "semantic attack time", unit="s"),
]
# issue 11: the paired difference attack minus random (same run, same records) and its 95% bootstrap bounds
for _base in ("accuracy", "transaction_breakage", "km_breakage", "wmd", "transaction_breakage_literal"):
    for _suffix, _what in (("", ""), ("_lo", ", lower 95% bound"), ("_hi", ", upper 95% bound")):
        _LIST.append(MetricInfo(f"{_base}_vs_random{_suffix}", "semantic",
                                f"{_base.replace('_', ' ')}: attack minus random{_what}",
                                fraction=_base != "wmd", unit="GloVe distance" if _base == "wmd" else "",
                                default=False))

ALL_METRICS: dict[str, MetricInfo] = {m.name: m for m in _LIST}
"""Every metric a sweep may name in ``metrics``, in a stable order."""


def metrics_for_steps(steps: Iterable[str], defaults_only: bool = False) -> list[str]:
    """The metric names the given steps can produce (``defaults_only``: those recorded by default)."""
    wanted = set(steps)
    return [m.name for m in _LIST if m.step in wanted and (m.default or not defaults_only)]
