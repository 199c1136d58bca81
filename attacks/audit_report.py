"""The audit's report: one :class:`AuditCheck` per check, the :class:`AuditReport` and its Markdown and JSON forms.

``AuditReport.to_dict()`` is the output contract the HTML renderer (:mod:`attacks.report_html`) and the
``--json`` output share: the release's facts (``release``, ``params``, ``records``, ``clusters``,
``record_chunks``, ``knowledge_from``, ``guarantee1``, ``cover``, ``attackers``, ``semantic``,
``identifiers``, ``original_source``, ``seconds``), ``verdict`` (one line), ``passed``, ``threat_model``
(:meth:`attacks.threat_model.ThreatModel.to_dict`), ``checks`` (each ``{name, status, value, threshold,
detail, interval, level, baselines, paired, reference}``), ``utility`` (``{status, rows, summary}``),
``skipped`` (``[{check, reason}]``: every check that was not made, with why), ``recommendations``,
``commands`` and ``receipt`` (:func:`corpora.common.receipt.make_receipt`, or None).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from attacks.audit_baselines import LEVEL, Baseline, Paired, interval_list

__all__ = ["AuditCheck", "AuditReport", "COUNT_CHECKS", "shown_value"]

COUNT_CHECKS = {"Guarantee 1": "violations or unproven", "identifiers": "terms"}
"""Checks whose value is a count (with its unit); every other value is a share."""


@dataclass
class AuditCheck:
    """One line of the verdict: ``status`` is ``pass``, ``fail``, ``info`` or ``skipped``.

    ``interval`` is the 95% interval (``level``) of ``value`` where it has one, ``baselines`` what the value
    stands beside (each with the paired difference), ``paired`` the difference against the main baseline,
    ``reference`` the paper and section the check comes from."""

    name: str
    status: str
    value: float | None = None
    threshold: float | None = None
    detail: str = ""
    interval: tuple[float, float] | None = None
    level: float = LEVEL
    baselines: list[Baseline] = field(default_factory=list)
    paired: Paired | None = None
    reference: str = ""
    gated_on: str = "value"
    """What the threshold is compared with: ``value``, or ``paired`` (the lower end of the paired interval)."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "value": self.value, "threshold": self.threshold,
                "detail": self.detail, "interval": interval_list(self.interval), "level": self.level,
                "baselines": [b.to_dict() for b in self.baselines],
                "paired": None if self.paired is None else self.paired.to_dict(), "reference": self.reference,
                "gated_on": self.gated_on}


@dataclass
class AuditReport:
    """What :func:`attacks.auditing.audit` found. ``passed`` is False when any check failed."""

    release: str
    params: dict[str, Any]
    records: int
    clusters: int
    record_chunks: int
    knowledge_from: str
    guarantee1: dict[str, Any]
    cover: dict[str, Any]
    attackers: list[dict[str, Any]]
    semantic: dict[str, Any]
    checks: list[AuditCheck] = field(default_factory=list)
    recommendations: list[str] = field(default_factory=list)
    seconds: float = 0.0
    identifiers: dict[str, Any] = field(default_factory=dict)
    """The identifier screen of the published terms (count, kinds, masked examples)."""
    original_source: str | None = None
    """How the original was given (path or name and reading options), when it was."""
    commands: list[str] = field(default_factory=list)
    """The commands the recommendations name, each runnable as printed when ``original_source`` is known."""
    threat_model: dict[str, Any] = field(default_factory=dict)
    utility: dict[str, Any] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    """Every check not made, ``{check, reason}`` (the skipped checks and the measures left out)."""
    receipt: dict[str, Any] | None = None

    @property
    def passed(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    @property
    def exit_status(self) -> int:
        """0 when every gate holds, 1 when one is crossed (2 is left for bad input)."""
        return 0 if self.passed else 1

    def __repr__(self) -> str:
        failed = [c.name for c in self.checks if c.status == "fail"]
        return (f"AuditReport(passed={self.passed}, failed={failed}, pem={self.cover.get('pem', 0.0):.4f}, "
                f"records={self.records}, clusters={self.clusters}, recommendations={len(self.recommendations)})")

    def residual_risks(self) -> list[str]:
        """Every measured risk with its value and threshold (``strong attacker 2.18% (max 5%)``)."""
        out = []
        for c in self.checks:
            if c.status == "skipped" or c.value is None:
                continue
            share = c.name not in COUNT_CHECKS
            value = f"{c.value:.2%}" if share else f"{c.value:g} {COUNT_CHECKS[c.name]}"
            limit = ("no threshold" if c.threshold is None else
                     f"max {c.threshold:.2%}" if share else f"max {c.threshold:g}")
            if c.gated_on == "paired" and c.paired is not None and c.paired.difference is not None:
                lower = "" if c.paired.interval is None else f", 95% lower end {c.paired.interval[0]:+.2%}"
                value += f", {c.paired.difference:+.2%} over {c.paired.baseline}{lower}"
                limit = "no threshold" if c.threshold is None else f"max gain {c.threshold:.2%}"
            out.append(f"{c.name} {value} ({limit}{', ' + c.status if c.status != 'pass' else ''})")
        return out

    def verdict(self) -> str:
        """One line: PASS with every residual risk, or FAIL with the checks that failed."""
        if self.passed:
            return "PASS (every measured risk at or under its threshold): " + "; ".join(self.residual_risks())
        return "FAIL (" + ", ".join(c.name for c in self.checks if c.status == "fail") + ")"

    def to_dict(self) -> dict[str, Any]:
        """The output contract (module docstring), plain JSON values."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "checks":
                value = [c.to_dict() for c in value]
            elif name == "semantic":
                value = _plain_semantic(value)
            out[name] = value
        out["passed"] = self.passed
        out["verdict"] = self.verdict()
        return _finite(out)

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, allow_nan=False)

    def to_frame(self) -> Any:
        """One row per check (name, status, value, interval, threshold, detail, ...), a pandas DataFrame."""
        import pandas as pd

        rows = [c.to_dict() for c in self.checks]
        return pd.DataFrame(rows, columns=list(AuditCheck.__dataclass_fields__))

    def to_markdown(self) -> str:
        """The report as Markdown: verdict, threat model, checks with baselines and intervals, attackers,
        semantic attack, utility, skipped checks, recommendations."""
        from attacks.audit_markdown import report_markdown

        return report_markdown(self)


def shown_value(value: Any, count: bool, signed: bool = False) -> str:
    """A check's number as the Markdown and HTML reports print it: a count to 4 significant digits, a share in
    percent with 2 decimals (``signed``: with its sign, for a difference); empty for a missing or NaN value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if count:
        return f"{value:+.4g}" if signed else f"{value:.4g}"
    return f"{value:+.2%}" if signed else f"{value:.2%}"


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None (valid JSON, what the HTML page expects)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _plain_semantic(sem: dict[str, Any]) -> dict[str, Any]:
    out = dict(sem)
    if "baselines" in out:
        out["baselines"] = [b.to_dict() for b in out["baselines"]]
    if "paired" in out:
        out["paired"] = None if out["paired"] is None else out["paired"].to_dict()
    return out
