"""The audit as one self-contained HTML file a data owner can hand on (``attacks audit --html``).

:func:`render_audit_html` renders the dictionary of :meth:`attacks.auditing.AuditReport.to_dict`
with :mod:`corpora.common.html` (no script, nothing fetched, readable printed). The first screen
answers a privacy officer's questions in order: the verdict in words (PASS or FAIL, never colour
alone), the attacker the release was checked against (the threat model in one sentence), what was
attacked, the table of checks (each risk beside its threshold, its baselines and its interval) and
what to change. Then the details of every check, the attackers, the cover problems, Guarantee 1,
the identifier screen, the semantic attack, the utility the release costs, a figure of the risks
against their baselines, and the provenance receipt (:mod:`corpora.common.receipt`). Every field
is rendered when present and skipped when absent, so a report without a threat model, baselines,
utility or receipt renders too; a field this module does not know is listed at the end as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from attacks.audit_report import shown_value
from corpora.common import html as h

__all__ = ["render_audit_html", "COUNT_CHECKS"]

COUNT_CHECKS = ("Guarantee 1", "identifiers")
"""Checks whose value is a count (violations, terms); every other check's value is a share of records,
chunks or terms and is shown in percent."""

_KNOWN = {"release", "params", "records", "clusters", "record_chunks", "knowledge_from", "guarantee1", "cover",
          "attackers", "semantic", "checks", "recommendations", "commands", "seconds", "identifiers",
          "original_source", "verdict", "passed", "threat_model", "utility", "skipped", "receipt"}
_WORDS = {"pass": "PASS", "fail": "FAIL", "skipped": "NOT CHECKED", "info": "INFO"}


def _interval(interval: Any, count: bool, level: Any = None) -> str:
    if not isinstance(interval, Sequence) or len(interval) != 2 or interval[0] is None:
        return ""
    lo, hi = interval
    shown = f"[{shown_value(lo, count)}, {shown_value(hi, count)}]"
    return shown + (f" ({_level(level)})" if level is not None else "")


def _level(level: Any) -> str:
    return f"{level:.0%}" if isinstance(level, (int, float)) and 0 < level < 1 else str(level)


def _passed(report: Mapping[str, Any]) -> bool:
    if "passed" in report:
        return bool(report["passed"])
    return all(c.get("status") != "fail" for c in report.get("checks", []))


def _banner(report: Mapping[str, Any]) -> h.Html:
    checks = report.get("checks", [])
    failed = [c["name"] for c in checks if c.get("status") == "fail"]
    skipped = [c["name"] for c in checks if c.get("status") == "skipped"]
    skipped += [s.get("check", "") for s in report.get("skipped", []) if s.get("check") not in skipped]
    if _passed(report):
        head = "Every measured risk is at or under its threshold: the release may be published under them."
    else:
        head = f"Do not publish yet: {len(failed)} check(s) failed ({', '.join(failed)})."
    parts: list[Any] = [h.tag("strong", head)]
    changes = [str(r).split(": ", 1)[0] for r in report.get("recommendations", []) if r]
    if changes and not _passed(report):
        parts.append(h.paragraph(h.tag("strong", "What to change: "), "; ".join(changes),
                                 " (the commands are below).", class_="change"))
    if skipped:
        parts.append(h.paragraph(f"Not checked: {', '.join(skipped)} (reasons below).", class_="muted"))
    return h.banner("pass" if _passed(report) else "fail", "PASS" if _passed(report) else "FAIL", *parts)


def _threat_sentence(report: Mapping[str, Any]) -> str:
    """The attacker in one sentence: the threat model's own when it has one, else from the attackers run."""
    model = report.get("threat_model")
    if isinstance(model, Mapping):
        for key in ("sentence", "summary", "description"):
            if isinstance(model.get(key), str) and model[key]:
                return model[key]
        facts = [f"{k.replace('_', ' ')}: {_plain(v)}" for k, v in model.items() if not isinstance(v, Mapping)]
        return "Threat model: " + "; ".join(facts) + "."
    if isinstance(model, str) and model:
        return model
    names = [a["attacker"] for a in report.get("attackers", [])]
    params = report.get("params", {})
    sentence = "No threat model was declared: the audit ran its default attackers"
    if names:
        sentence += f", Barakat2016's {', '.join(names)} attackers (m = {params.get('m', '?')} known items)"
    if report.get("knowledge_from"):
        sentence += f", their knowledge from {report['knowledge_from']}"
    semantic = report.get("semantic", {})
    if semantic:
        sentence += ("; and the semantic attack (AlShuhail2021: ABA with GloVe)" if semantic.get("status") != "skipped"
                     else "; the semantic attack was skipped")
    return sentence + "."


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) or "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _attacked(report: Mapping[str, Any]) -> str:
    p = report.get("params", {})
    parts = [f"release {report.get('release', '?')}"]
    if p:
        parts.append(f"k = {p.get('k')}, m = {p.get('m')}, max cluster size {p.get('max_cluster_size', 'not set')}, "
                     f"{'safe' if p.get('safe') else 'not safe'} disassociation")
    sizes = [f"{report[k]:,} {w}" for k, w in (("records", "records"), ("clusters", "clusters"),
                                                   ("record_chunks", "record chunks")) if k in report]
    if sizes:
        parts.append(", ".join(sizes))
    if report.get("original_source"):
        parts.append(f"original: {report['original_source']}")
    return "What was attacked: " + "; ".join(parts) + "."


def _value_with_interval(value: Any, interval: Any, count: bool, signed: bool = False) -> str:
    shown = shown_value(value, count, signed)
    return f"{shown} {_interval(interval, count)}".strip() if shown else ""


def _baselines(check: Mapping[str, Any], count: bool) -> h.Html:
    """One line per baseline: its name, then its value and interval kept together."""
    rows = [h.tag("div", f"{b.get('name', '?')} ", _nowrap(_value_with_interval(b.get("value"), b.get("interval"),
                                                                                 count)))
            for b in check.get("baselines") or []]
    return h.join(rows, "") if rows else h.Html("")


def _paired(check: Mapping[str, Any], count: bool) -> h.Html | str:
    paired = check.get("paired")
    if not isinstance(paired, Mapping):
        return ""
    shown = _value_with_interval(paired.get("difference"), paired.get("interval"), count, signed=True)
    return h.join([_nowrap(shown), f" vs {paired.get('baseline', 'baseline')}"], "")


_MEASURES = {"Guarantee 1": "violations and unproven components", "identifiers": "terms that look like identifiers",
             "PEM": "share of record chunks with a cover problem",
             "semantic attack": "accuracy margin over random: the attack's lower bound minus random's upper bound"}
"""What a check's value measures when the check does not say (``measures``): the audit's own checks."""


def _measures(check: Mapping[str, Any]) -> str:
    name = str(check.get("name", ""))
    if check.get("status") == "skipped":  # the reason, to its first parenthesis; the whole of it is below
        return str(check.get("detail", "")).split(" (")[0].split(": a ")[0]
    if check.get("measures"):
        return str(check["measures"])
    if name.endswith(" attacker"):
        return "share of records breached"
    if name == "semantic attack" and _paired_gate(check):
        return "accuracy of the disassociated terms"
    return _MEASURES.get(name, "")


def _paired_gate(check: Mapping[str, Any]) -> bool:
    """Whether the threshold bounds the paired difference (its lower end), not the value (``gated_on``)."""
    return check.get("gated_on") == "paired"


def _threshold(check: Mapping[str, Any], count: bool) -> h.Html | str:
    threshold = check.get("threshold")
    if threshold is None:
        return "none"
    if _paired_gate(check):
        baseline = (check.get("paired") or {}).get("baseline", "the baseline")
        return h.join([_nowrap(f"max gain {shown_value(threshold, count)}"),
                       h.tag("div", f"over {baseline} (lower end of the paired interval)", class_="muted")], "")
    return _nowrap(f"max {shown_value(threshold, count)}")


def _nowrap(text: str) -> h.Html | str:
    """A number with its unit, kept on one line (an empty cell stays empty)."""
    return h.tag("span", text, class_="nowrap") if text else ""


def _checks_table(report: Mapping[str, Any]) -> list[h.Html]:
    """The table of checks; a column no check fills (intervals, baselines, paired differences) is left out and
    a line under the table says it was not measured."""
    checks = report.get("checks", [])
    levels = {_level(c["level"]) for c in checks if c.get("interval") and c.get("level") is not None}
    with_interval = f"value [{levels.pop()} interval]" if len(levels) == 1 else "value [interval]"
    names = ("check", "result", with_interval, "threshold", "baselines [interval]", "attack − baseline [interval]")
    columns: dict[str, list[Any]] = {k: [] for k in names}
    classes = []
    for c in checks:
        count = c.get("name") in COUNT_CHECKS
        status = str(c.get("status", ""))
        measures = _measures(c)
        columns["check"].append(h.join([h.tag("div", c.get("name", "")),
                                        h.tag("div", measures, class_="muted") if measures else ""], ""))
        columns["result"].append(h.tag("span", _WORDS.get(status, status.upper()), class_="status"))
        shown = _value_with_interval(c.get("value"), c.get("interval"), count)
        if c.get("interval") and len(levels) > 1:
            shown += f" ({_level(c.get('level'))})"
        columns[with_interval].append(_nowrap(shown))
        columns["threshold"].append(_threshold(c, count))
        columns["baselines [interval]"].append(_baselines(c, count))
        columns["attack − baseline [interval]"].append(_paired(c, count))
        classes.append("fail" if status == "fail" else None)
    missing = [k for k in names[4:] if not any(columns[k])]
    keys = [k for k in names if k not in missing]
    rows = [[columns[k][i] for k in keys] for i in range(len(checks))]
    header = list(keys)
    if not any(c.get("interval") for c in checks):
        missing.insert(0, "intervals")
        header[2] = "value"
    out = [h.table(header, rows, caption="The checks: each risk beside its threshold, baselines and interval",
                   row_classes=classes)]
    if missing and checks:
        out.append(h.paragraph(f"Not in this report (the audit that made it measured none): {', '.join(missing)}.",
                               class_="muted"))
    verdict = report.get("verdict")
    if isinstance(verdict, str) and verdict:
        out.append(h.paragraph(h.tag("strong", "In one line: "), verdict, class_="muted"))
    return out


def _what_to_change(report: Mapping[str, Any]) -> list[h.Html]:
    out = [h.heading(2, "What to change", "change")]
    recommendations = report.get("recommendations", [])
    out.append(h.items(recommendations) if recommendations else h.paragraph("The audit recommends nothing."))
    commands = report.get("commands", [])
    if commands:
        out.append(h.paragraph("The commands, as they run:"))
        out.append(h.tag("pre", "\n".join(commands)))
    return out


def _skipped(report: Mapping[str, Any]) -> list[h.Html]:
    lines = [f"{c['name']}: {c.get('detail', '')}" for c in report.get("checks", []) if c.get("status") == "skipped"]
    lines += [f"{s.get('check', '?')}: {s.get('reason', '')}" for s in report.get("skipped", [])
              if not any(line.startswith(f"{s.get('check')}:") for line in lines)]
    if not lines:
        return []
    return [h.heading(2, "Not checked, and why", "skipped"), h.items(lines)]


def _check_details(report: Mapping[str, Any]) -> list[h.Html]:
    pairs = []
    for c in report.get("checks", []):
        count = c.get("name") in COUNT_CHECKS
        parts: list[Any] = [h.tag("div", c.get("detail", ""))]
        for b in c.get("baselines") or []:
            line = f"baseline {b.get('name', '?')}: {_value_with_interval(b.get('value'), b.get('interval'), count)}"
            if b.get("difference") is not None:
                line += (f"; attack − baseline "
                         f"{_value_with_interval(b['difference'], b.get('difference_interval'), count, True)}")
            parts.append(h.tag("div", line + (f" ({b['detail']})" if b.get("detail") else ""), class_="muted"))
        if c.get("reference"):
            parts.append(h.tag("div", f"reference: {c['reference']}", class_="muted"))
        pairs.append((c.get("name", ""), h.join(parts, "")))
    return [h.heading(2, "The checks in detail", "details"), h.definition_list(pairs)] if pairs else []


def _attackers(report: Mapping[str, Any]) -> list[h.Html]:
    attackers = report.get("attackers", [])
    if not attackers:
        return []
    rows = [[a.get("attacker"), a.get("knowledge_source"), a.get("knowledge_size"), a.get("vulnerable_records"),
             _nowrap(shown_value(a.get("share"), False)), a.get("breaches"), a.get("algorithm1_total")]
            for a in attackers]
    return [h.heading(3, "Barakat2016's attackers"),
            h.table(["attacker", "knowledge", "itemsets", "vulnerable records", "share", "breaches",
                     "Algorithm 1 total"], rows)]


def _cover(report: Mapping[str, Any]) -> list[h.Html]:
    cover = report.get("cover", {})
    if not cover:
        return []
    rows = [["PEM (every record chunk, Awad2019 5.1.1)", cover.get("vulnerable_chunks"), cover.get("record_chunks"),
             shown_value(cover.get("pem"), False)],
            ["linkable chunks only (Awad2019 3.3, Lemma 1)", cover.get("vulnerable_chunks_linkable"),
             cover.get("linkable_chunks"), shown_value(cover.get("pem_linkable"), False)],
            ["clusters with a cover problem", cover.get("vulnerable_clusters"), cover.get("clusters"),
             shown_value(cover.get("pem_cluster"), False)]]
    out = [h.heading(3, "Cover problems"), h.table(["reading", "vulnerable", "of", "share"], rows)]
    if cover.get("examples"):
        out.append(h.details("The first cover problems", h.items(cover["examples"])))
    return out


def _guarantee(report: Mapping[str, Any]) -> list[h.Html]:
    g1 = report.get("guarantee1", {})
    if not g1:
        return []
    out = [h.heading(3, "Guarantee 1 (k^m-anonymity and the structure of the release)"),
           h.paragraph(g1.get("summary", ""))]
    for key, what in (("violations", "violations"), ("unproven", "unproven components")):
        if g1.get(key):
            out.append(h.details(f"The first {what}", h.items(g1[key]), open_=True))
    return out


def _identifiers(report: Mapping[str, Any]) -> list[h.Html]:
    ident = report.get("identifiers", {})
    if not ident:
        return []
    return [h.heading(3, "Direct identifiers"),
            h.definition_list((k.replace("_", " "), _plain(v)) for k, v in ident.items())]


def _semantic(report: Mapping[str, Any]) -> list[h.Html]:
    sem = report.get("semantic", {})
    if not sem:
        return []
    return [h.heading(3, "Semantic attack (AlShuhail2021)"), h.paragraph(sem.get("summary", ""))]


def _utility(report: Mapping[str, Any]) -> list[h.Html]:
    utility = report.get("utility")
    if not isinstance(utility, Mapping):
        return []
    out = [h.heading(2, "What the release costs (utility)", "utility")]
    if utility.get("status"):
        out.append(h.paragraph(f"status: {utility['status']}", class_="muted"))
    rows = [[r.get("metric", ""), r.get("value"), r.get("detail", "")] for r in utility.get("rows", [])]
    if rows:
        out.append(h.table(["metric", "value", "detail"], rows))
    if utility.get("summary"):
        out.append(h.paragraph(utility["summary"]))
    return out


def _risk_figure(report: Mapping[str, Any]) -> list[h.Html]:
    """Each share check's value and interval beside its baselines and threshold, one row per check."""
    checks = [c for c in report.get("checks", []) if c.get("name") not in COUNT_CHECKS
              and isinstance(c.get("value"), (int, float)) and c.get("status") != "skipped"
              and (c.get("value") >= 0 or c.get("baselines"))]
    if not checks:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.0, 0.55 * len(checks) + 1.2))
    labelled = False
    for y, c in enumerate(checks):
        _dot(ax, y, c.get("value"), c.get("interval"), "o", "black", "attack" if y == 0 else None)
        for j, b in enumerate(c.get("baselines") or []):
            _dot(ax, y - 0.18 * (j + 1), b.get("value"), b.get("interval"), "s", f"C{j}", None, hollow=True)
            ax.annotate(str(b.get("name", "")), (b.get("value") or 0, y - 0.18 * (j + 1)), fontsize=6,
                        xytext=(4, -2), textcoords="offset points")
        if c.get("threshold") is not None and not _paired_gate(c):
            ax.plot([c["threshold"]] * 2, [y - 0.4, y + 0.4], color="#b3261e", linewidth=2,
                    label=None if labelled else "threshold")
            labelled = True
    ax.set_yticks(range(len(checks)))
    ax.set_yticklabels([f"{c['name']} ({_WORDS.get(c.get('status', ''), '')})" for c in checks], fontsize=8)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("share (of records, record chunks or terms, as each check measures)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    try:
        shown = h.figure(fig, "each risk beside its threshold and baselines",
                         "Each risk (black dot, with its interval when measured) beside its threshold (red bar) and "
                         "its baselines (hollow squares).")
    finally:
        plt.close(fig)
    return [h.heading(2, "The risks beside their baselines", "figure"), shown]


def _dot(ax: Any, y: float, value: Any, interval: Any, marker: str, colour: str, label: str | None,
         hollow: bool = False) -> None:
    if not isinstance(value, (int, float)):
        return
    err = None
    if isinstance(interval, Sequence) and len(interval) == 2 and interval[0] is not None:
        err = [[max(value - interval[0], 0.0)], [max(interval[1] - value, 0.0)]]
    ax.errorbar([value], [y], xerr=err, fmt=marker, color=colour, capsize=3, label=label,
                markerfacecolor="none" if hollow else colour)


def _receipt(report: Mapping[str, Any]) -> list[h.Html]:
    receipt = report.get("receipt")
    return h.receipt_section(receipt) if isinstance(receipt, Mapping) else []


def _others(report: Mapping[str, Any]) -> list[h.Html]:
    other = {k: v for k, v in report.items() if k not in _KNOWN}
    if not other:
        return []
    return [h.details("Other fields of the report", h.tag("pre", json.dumps(other, indent=2, ensure_ascii=False,
                                                                            default=str)))]


def render_audit_html(report: Mapping[str, Any]) -> str:
    """The audit report ``report`` (:meth:`AuditReport.to_dict`) as one self-contained HTML page."""
    release = str(report.get("release", "release"))
    first = [h.heading(1, f"Audit of {release}"), _banner(report),
             h.paragraph(h.tag("strong", "Against which attacker: "), _threat_sentence(report)),
             h.paragraph(_attacked(report), class_="muted"), *_checks_table(report), *_what_to_change(report)]
    rest = [*_skipped(report), *_check_details(report), *_attackers(report), *_cover(report), *_guarantee(report),
            *_identifiers(report), *_semantic(report), *_utility(report), *_risk_figure(report), *_receipt(report),
            *_others(report)]
    if "seconds" in report:
        rest.append(h.paragraph(f"The audit took {report['seconds']:.1f} s.", class_="muted"))
    return str(h.document(f"Audit of {release}: {'PASS' if _passed(report) else 'FAIL'}", *first, *rest))
