"""The report of the utility measures: one record of figures per release (Terrovitis2012 sections 6-7, Awad2019 5.1).

Every scorer fills it: :func:`anonymizer.evaluation.utility.utility_report` for a disassociated or
safe release, :func:`anonymizer.evaluation.multilevel.baseline_utility` for Apriori and DiffPart.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["UtilityReport"]


@dataclass
class UtilityReport:
    """Information-loss figures of one release (Terrovitis2012 sections 6-7)."""

    tkd: float
    tkd_a: float | None
    re: float
    re_a: float | None
    tlost: float | None
    """Terrovitis2012 7.1: share of the terms with support more than k kept only in term chunks."""
    reconstructions: int
    seed: int
    top_k: int
    re_range: tuple[int, int]
    tkd_runs: list[float] = field(default_factory=list)
    re_runs: list[float] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    tkd_ml2: float | None = None
    """tKd-ML^2 (:mod:`anonymizer.evaluation.multilevel`), when a hierarchy was given; mean over the reconstructions."""
    ncp: float | None = None
    """NCP of the generalization (0 for disassociation, None where undefined)."""
    method: str = "disassociation"
    re_range_adapted: bool = False
    """True when ``re_range`` is the default adapted to an original with fewer distinct terms than its END."""
    rlm: float | None = None
    """Awad2019 RLM (:func:`anonymizer.evaluation.safe_metrics.rlm`) of a safe release against the release it was made
    from (``before``); None without it."""
    rae: float | None = None
    """Awad2019 RAE as printed, signed (:func:`anonymizer.evaluation.safe_metrics.rae`), of a disassociated or
    safe release; None otherwise."""
    rae_abs: float | None = None
    """RAE with the absolute difference (the re of Terrovitis2012 eq. 3 it cites; equals ``re``); None where
    ``rae`` is None."""
    tlost_at_least_k: float | None = None
    """tlost over the terms with support at least k (the variant beside the paper's "more than k")."""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["re_range"] = list(self.re_range)
        return out

    to_dict = as_dict

    def to_frame(self) -> Any:
        """One row per scalar metric (``metric``, ``value``), a pandas DataFrame."""
        import pandas as pd

        values = {k: v for k, v in self.as_dict().items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        return pd.DataFrame({"metric": list(values), "value": list(values.values())})
