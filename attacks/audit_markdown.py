"""The audit report as Markdown (``attacks audit`` prints it by default): the same content as its JSON."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from attacks.audit_baselines import Baseline
from attacks.audit_report import shown_value

if TYPE_CHECKING:
    from attacks.audit_report import AuditCheck, AuditReport

__all__ = ["report_markdown"]


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _interval(interval: Any, count: bool, signed: bool = False) -> str:
    if interval is None or interval[0] is None or (isinstance(interval[0], float) and math.isnan(interval[0])):
        return ""
    return f"[{shown_value(interval[0], count, signed)}, {shown_value(interval[1], count, signed)}]"


def _baseline(b: Baseline) -> str:
    text = f"{b.name} {shown_value(b.value, False)}"
    if b.interval is not None:
        text += f" {_interval(b.interval, False)}"
    if b.difference is not None:
        text += (f"; attack − {b.name} {shown_value(b.difference, False, True)} "
                 f"{_interval(b.difference_interval, False, True)}")
    return text.strip()


def _check_row(c: AuditCheck, count_checks: dict[str, str]) -> str:
    count = c.name in count_checks
    baselines = "<br>".join(_cell(_baseline(b)) for b in c.baselines)
    return (f"| {c.name} | {c.status} | {shown_value(c.value, count)} | {_interval(c.interval, count)} | "
            f"{shown_value(c.threshold, count)} | {baselines} | {_cell(c.detail)} | {_cell(c.reference)} |")


def report_markdown(report: AuditReport) -> str:
    """The report as Markdown: verdict, threat model, checks with baselines and intervals, attackers,
    semantic attack, utility, skipped checks, recommendations, receipt."""
    from attacks.audit_report import COUNT_CHECKS

    p = report.params
    failed = [c.name for c in report.checks if c.status == "fail"]
    verdict = "PASS: every measured risk at or under its threshold" if report.passed else "FAIL: " + ", ".join(failed)
    skipped = [f"{s['check']}: {s['reason']}" for s in report.skipped]
    level = report.checks[0].level if report.checks else 0.95
    lines = [
        f"# Audit of {report.release}",
        "",
        f"**{verdict}**",
        "",
        "Residual risks (value, threshold): " + "; ".join(report.residual_risks()) + "."
        + ("" if not skipped else " Not measured: " + "; ".join(skipped) + "."),
        "",
        f"k={p.get('k')}, m={p.get('m')}, max cluster size {p.get('max_cluster_size', '?')}, "
        f"safe {p.get('safe', False)}; {report.records:,} records, {report.clusters:,} clusters, "
        f"{report.record_chunks:,} record chunks. Attackers' knowledge: {report.knowledge_from}.",
        "",
        f"Threat model: {report.threat_model.get('summary', '')}",
        "",
        f"Intervals at the {level:.0%} level: shares of records or chunks by Wilson's score interval; attack "
        "minus baseline by a paired percentile bootstrap (clusters resampled for the cover attackers, records "
        "for the semantic attack).",
        "",
        "| check | status | value | 95% interval | threshold | baselines (value [95%]; attack − baseline [95%]) "
        "| detail | reference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [_check_row(c, COUNT_CHECKS) for c in report.checks]
    lines += ["", "## Barakat2016 attackers", "",
              "| attacker | knowledge | itemsets | vulnerable records | share | breaches | Algorithm 1 total |",
              "|---|---|---|---|---|---|---|"]
    for a in report.attackers:
        lines.append(f"| {a['attacker']} | {_cell(a['knowledge_source'])} | {a['knowledge_size']} | "
                     f"{a['vulnerable_records']} | {a['share']:.2%} | {a['breaches']} | {a['algorithm1_total']} |")
    examples = report.cover.get("examples", [])
    if examples:
        lines += ["", "## Cover problems (first ones)", ""]
        lines += [f"- {_cell(e)}" for e in examples]
    if report.guarantee1.get("violations"):
        lines += ["", "## Guarantee 1 violations (first ones)", ""]
        lines += [f"- {_cell(v)}" for v in report.guarantee1["violations"]]
    if report.guarantee1.get("unproven"):
        lines += ["", "## Guarantee 1 unproven (first ones)", ""]
        lines += [f"- {_cell(v)}" for v in report.guarantee1["unproven"]]
    lines += ["", "## Semantic attack", "", report.semantic.get("summary", "")]
    lines += ["", "## Utility the release costs", "", report.utility.get("summary", "")]
    if report.utility.get("rows"):
        lines += ["", "| measure | value | what it is |", "|---|---|---|"]
        lines += [f"| {r['metric']} | {shown_value(r['value'], True)} | {_cell(r['detail'])} |"
                  for r in report.utility["rows"]]
    if report.skipped:
        lines += ["", "## Skipped checks", ""]
        lines += [f"- {_cell(s['check'])}: skipped: {_cell(s['reason'])}" for s in report.skipped]
    lines += ["", "## Recommendations", ""]
    lines += [f"- {r}" for r in report.recommendations]
    if report.receipt:
        lines += ["", "## Receipt", "", f"Command: `{report.receipt.get('command', '')}`; "
                  f"{report.receipt.get('time', '')}; {report.receipt.get('platform', '')}.", ""]
        lines += [f"- {_cell(f['role'])}: {_cell(f['path'])} ({f['size']:,} bytes), SHA-256 {f['sha256']}"
                  for f in report.receipt.get("inputs", [])]
    return "\n".join(lines) + "\n"
