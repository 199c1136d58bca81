"""The cover-problem attack as a sweep step (Barakat2016 section 6, Awad2019 section 5.1.1).

Per attacker (:data:`attacks.cover.knowledge.ATTACKERS`: section 6's strong attacker, for whom every
cover problem is a breach, section 4's one-itemset-per-record reading of it, moderate, weak) the
vulnerable records, breaches and Algorithm 1's total (Barakat2016 Figure 4), the detector's time
(Barakat2016 Figure 5), and PEM (Awad2019 section 5.1.1) in its three readings: Definition 3 on every
record chunk (``pem``, the paper's), linkable chunks only (``pem_linkable``, section 3.3 / Lemma 1)
and per cluster (``pem_cluster``); see :mod:`attacks.cover.detector`. ``pem_of_linkable`` is the
share of the linkable record chunks (those in multi-chunk clusters) with a cover problem:
``pem_linkable`` = ``linkable_chunk_share`` (the disassociation step's, ``pem_linkable``'s ceiling)
x ``pem_of_linkable``. PEM ignores the knowledge (Awad2019 5.2.1), so it is the same for every attacker.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attacks.cover.knowledge import ATTACKERS
from experiments.steps.base import MetricInfo, OptionChecker, Published, Row, row

__all__ = ["COVER", "CoverAttack"]

_KEYS = ("attackers", "moderate_share")
_PATH = "attacks.cover.detector"


class CoverAttack:
    """Barakat2016 Algorithm 1 on the published release, knowledge simulated from the truth."""

    name = "cover"
    path = _PATH
    text_only = False
    metrics = (
        MetricInfo("pem", "cover", "PEM (Awad2019 5.1.1: Definition 3 on every record chunk)", fraction=True),
        MetricInfo("pem_linkable", "cover", "PEM, linkable chunks only (Lemma 1)", fraction=True),
        MetricInfo("pem_cluster", "cover", "PEM per cluster (clusters with a cover problem)", fraction=True),
        MetricInfo("pem_of_linkable", "cover",
                   "vulnerable share of the linkable record chunks (PEM linkable / its ceiling)", fraction=True,
                   default=False),
        MetricInfo("vulnerable_chunks", "cover", "vulnerable record chunks (Definition 3)", unit="count"),
        MetricInfo("vulnerable_records", "cover", "vulnerable records", unit="count"),
        MetricInfo("vulnerable_records_share", "cover", "vulnerable records", fraction=True),
        MetricInfo("breaches", "cover", "privacy breaches", unit="count"),
        MetricInfo("algorithm1_total", "cover", "Algorithm 1 total (sum of per-cluster maxima)", unit="count"),
        MetricInfo("cover_seconds", "cover", "breach detection time", unit="s"),
    )

    def parse_options(self, raw: Any, check: OptionChecker) -> dict[str, Any]:
        cov = check.mapping({} if raw is True else raw, _PATH)
        check.keys(cov, _KEYS, _PATH)
        attackers = check.choices(cov.get("attackers", ["strong"]), f"{_PATH}.attackers", ATTACKERS)
        share = check.number(cov.get("moderate_share", 0.5), f"{_PATH}.moderate_share", 0.0, 1.0, low_open=True)
        return {"attackers": attackers, "moderate_share": share}

    def run(self, options: Mapping[str, Any], published: Published) -> list[Row]:
        from attacks.cover.detector import run_cover_attack
        from attacks.cover.knowledge import make_knowledge

        release, seed = published.release, published.seed
        rows: list[Row] = []
        for attacker in options["attackers"]:
            # Barakat2016 section 6 simulates attackers from the real records ("a strict subset of D"):
            # a sweep has the truth, so knowledge comes from it, never from a reconstruction (the strong
            # attacker knows every cover pair and needs no records).
            knowledge = make_knowledge(release, attacker, seed, truth=published.truth,
                                       moderate_share=float(options["moderate_share"]))
            # the detector indexes the release itself, so cover_seconds times all of its work
            rep = run_cover_attack(release, attacker=attacker, seed=seed, knowledge=knowledge, list_problems=False)
            took = rep.seconds  # the detector alone (Barakat2016 Figure 5), not the knowledge simulation
            n = rep.n_records
            values = {
                "pem": rep.pem,
                "pem_linkable": rep.pem_linkable,
                "pem_cluster": rep.pem_cluster,
                "pem_of_linkable": rep.vulnerable_chunks_linkable / rep.linkable_chunks if rep.linkable_chunks else 0.0,
                "vulnerable_chunks": rep.vulnerable_chunks,
                "vulnerable_records": rep.vulnerable_records,
                "vulnerable_records_share": rep.vulnerable_records / n if n else 0.0,
                "breaches": rep.breaches,
                "algorithm1_total": rep.algorithm1_total,
                "cover_seconds": took,
            }
            rows += [row(metric, value, took, "cover", attacker) for metric, value in values.items()]
        return rows


COVER = CoverAttack()
