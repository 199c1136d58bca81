"""What the release costs in utility, for the audit (Terrovitis2012 sections 6-7, Awad2019 section 5.1).

The measures are :func:`anonymizer.evaluation.utility.utility_report`'s (one seeded reconstruction):
tKd (share of the original's top-K itemsets a reconstruction loses), re (relative error of pair
supports), tlost (share of the frequent terms kept only in term chunks) and, for a safe release, RAE
(Awad2019 5.1.3, signed as printed) and RLM (5.1.2, needs ``before``, the release the safe one was made
from). Each needs the original dataset; without it the section says so (``status: skipped``) and the
audit lists the skipped measure with the reason.
"""

from __future__ import annotations

from typing import Any

from anonymizer.evaluation.utility import utility_report
from anonymizer.model.release import Release
from corpora.dataset import TransactionDataset

__all__ = ["UTILITY_TOP_K", "utility_section"]

UTILITY_TOP_K = 1000
"""K of tKd in the audit (Terrovitis2012 section 7: top-1000 itemsets)."""

_WORDS = {
    "tkd": "top-K deviation: share of the original's top-{top_k} itemsets missing from a reconstruction "
           "(Terrovitis2012 eq. 2; 0 = all kept)",
    "re": "relative error of the pair supports of the terms ranked {lo}-{hi} (Terrovitis2012 eq. 3; 0 = exact)",
    "tlost": "share of the terms of support over k kept only in term chunks (Terrovitis2012 7.1)",
    "rae": "relative association error as printed, signed (Awad2019 5.1.3; > 0: associations lost)",
    "rlm": "relative loss: share of the published item occurrences safe disassociation suppressed (Awad2019 5.1.2)",
}


def utility_section(release: Release, original: TransactionDataset | None, before: Release | None,
                    seed: int) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The report's ``utility`` section (``status``, ``rows`` of ``{metric, value, detail}``, ``summary``) and the
    skipped measures (``{check, reason}``)."""
    safe = bool(release.params.get("safe"))
    if original is None:
        reason = "the utility cost needs the original dataset (--original)"
        names = "tKd, re, tlost" + (", RAE, RLM" if safe else "")
        return ({"status": "skipped", "rows": [], "summary": f"skipped: {reason}"},
                [{"check": f"utility ({names})", "reason": reason}])
    report = utility_report(original, release, reconstructions=1, seed=seed, top_k=UTILITY_TOP_K, before=before)
    lo, hi = report.re_range
    rows = [_row("tkd", report.tkd, top_k=report.top_k), _row("re", report.re, lo=lo, hi=hi)]
    if report.tlost is not None:
        rows.append(_row("tlost", report.tlost))
    skipped: list[dict[str, str]] = []
    if safe:
        rows.append(_row("rae", report.rae))
        if report.rlm is not None:
            rows.append(_row("rlm", report.rlm))
        else:
            skipped.append({"check": "utility (RLM)", "reason": "RLM compares the safe release with the release it "
                                                                "was made from (--before RELEASE); none was given"})
    shown = ", ".join(f"{r['metric']} {r['value']:.3f}" for r in rows)
    summary = f"one reconstruction (seed {seed}) against the original: {shown}"
    if report.warnings:
        summary += " (" + "; ".join(report.warnings) + ")"
    return {"status": "measured", "rows": rows, "summary": summary}, skipped


def _row(metric: str, value: float | None, **words: Any) -> dict[str, Any]:
    return {"metric": metric, "value": None if value is None else float(value),
            "detail": _WORDS[metric].format(**words)}
