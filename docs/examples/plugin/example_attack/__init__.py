"""An example plugin of the workbench: one attack and one anonymizer, added through entry points.

Installed (``pip install docs/examples/plugin``), it adds

* the attack ``example`` (``attacks: {example: {scale: 1}}`` in a sweep file): it counts the terms
  a release leaves in its term chunks (Terrovitis2012 section 4: the terms no record chunk holds),
  the metric ``example_term_chunk_terms``;
* the anonymizer ``example_passthrough`` (``grid: {anonymizer: example_passthrough}``): it publishes
  nothing and records the dataset's distinct terms, the metric ``example_distinct_terms``.

See ``docs/extending.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.steps.base import MetricInfo, OptionChecker, Published, Row, row

__all__ = ["ANONYMIZER", "ATTACK"]


class TermChunkAttack:
    """Counts the terms of the published release's term chunks (scaled by the ``scale`` option)."""

    name = "example"
    path = "attacks.example"  # where its options sit in a sweep file, for error messages
    text_only = False  # True: only on text builds (``text: SOURCE``)
    metrics = (MetricInfo("example_term_chunk_terms", "example", "terms left in term chunks", unit="count"),)

    def parse_options(self, raw: Any, check: OptionChecker) -> dict[str, Any]:
        """Validate ``attacks.example`` (``true`` means every default) and return its JSON options."""
        options = check.mapping({} if raw is True else raw, self.path)
        check.keys(options, ("scale",), self.path)
        return {"scale": check.number(options.get("scale", 1.0), f"{self.path}.scale", 0.0)}

    def run(self, options: Mapping[str, Any], published: Published) -> list[Row]:
        """The rows of one run: the attack never reads ``published.truth`` (that is for scoring only)."""
        terms = sum(len(cluster.term_chunk) for cluster in published.release.clusters)
        return [row("example_term_chunk_terms", terms * options["scale"], attack=self.name, method="example")]


class PassthroughAnonymizer:
    """Publishes nothing (no attack runs on it) and records the number of distinct terms."""

    name = "example_passthrough"
    grid_params = ("k", "m")  # the grid parameters it reads; the others are empty in its runs
    metrics = (MetricInfo("example_distinct_terms", "anonymizer", "distinct terms of the dataset", unit="count"),)

    def run(self, config: Mapping[str, Any], dataset: Any) -> tuple[list[Row], Published | None]:
        return [row("example_distinct_terms", len(dataset.vocabulary), method="passthrough")], None


ATTACK = TermChunkAttack()
ANONYMIZER = PassthroughAnonymizer()
