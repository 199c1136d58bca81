"""The cover-problem attack as a sweep step (Barakat2016 section 6, Awad2019 section 5.1.1).

Per attacker (strong, moderate, weak; Barakat2016 section 6) the vulnerable records, breaches,
PEM (Awad2019 section 5.1.1) and the detector's time (Barakat2016 Figure 5), from
:func:`attacks.cover.detector.run_cover_attack`.
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
        linkable = sum(len(c.record_chunks) for c in release.clusters if len(c.record_chunks) >= 2)
        rows: list[Row] = []
        for attacker in options["attackers"]:
            # Barakat2016 section 6 simulates attackers from the real records ("a strict subset of D"):
            # a sweep has the truth, so knowledge comes from it, never from a reconstruction.
            knowledge = make_knowledge(release, attacker, seed, truth=published.truth,
                                       moderate_share=float(options["moderate_share"]))
            rep = run_cover_attack(release, attacker=attacker, seed=seed, knowledge=knowledge, list_problems=False)
            took = rep.seconds  # the detector alone (Barakat2016 Figure 5), not the knowledge simulation
            n = rep.n_records
            rows += [
                row("vulnerable_records", rep.vulnerable_records, took, "cover", attacker),
                row("vulnerable_records_share", rep.vulnerable_records / n if n else 0.0, took, "cover", attacker),
                row("breaches", rep.breaches, took, "cover", attacker),
                row("algorithm1_total", rep.algorithm1_total, took, "cover", attacker),
                row("pem", rep.pem, took, "cover", attacker),
                row("vulnerable_chunks", rep.vulnerable_chunks, took, "cover", attacker),
                row("pem_literal", rep.pem_literal, took, "cover", attacker),
                row("pem_of_linkable", rep.vulnerable_chunks / linkable if linkable else 0.0, took, "cover",
                    attacker),
                row("cover_seconds", took, took, "cover", attacker),
            ]
        return rows


COVER = CoverAttack()
