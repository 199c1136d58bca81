"""What to change before publishing: the audit's recommendations and the commands they name."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from anonymizer.model.params import DisassociationParams

if TYPE_CHECKING:
    from attacks.audit_report import AuditReport

__all__ = ["release_flags", "recommend"]

_DEFAULT_SAFE_TARGETS = next(f.default for f in fields(DisassociationParams) if f.name == "safe_targets")
"""Safe disassociation's default targets (``safe_targets`` is not published in a release's params)."""
_SAFE_EVERY = "--safe" if _DEFAULT_SAFE_TARGETS == "every" else "--safe --safe-targets every"
"""The flags of a safe release with no record chunk PEM counts (Awad2019 5.1.1: every chunk Definition 3 flags)."""


def release_flags(params: dict[str, Any]) -> str:
    """The ``python -m anonymizer`` options that make a release with ``params`` again (seed aside)."""
    flags = [f"-k {params.get('k')}", f"-m {params.get('m')}"]
    if params.get("max_cluster_size") is not None:
        flags.append(f"--max-cluster-size {params['max_cluster_size']}")
    for key in ("horpart", "verpart"):
        if params.get(key) is not None:
            flags.append(f"--{key} {params[key]}")
    if params.get("refine") is False:
        flags.append("--no-refine")
    if params.get("split_depth"):
        flags.append(f"--split-depth {params['split_depth']}")
    if params.get("identifiers_allowed"):
        flags.append("--allow-identifiers")
    return " ".join(flags)


def recommend(report: AuditReport, max_pem: float | None, max_vulnerable: float | None
               ) -> tuple[list[str], list[str]]:
    """The recommendations (text) and the commands they name."""
    p = dict(report.params)
    k, delta = p.get("k"), p.get("max_cluster_size")
    source = report.original_source or "INPUT"
    where = "" if report.original_source else " (INPUT: the original, with the options it was read with)"
    out: list[str] = []
    failed = {c.name for c in report.checks if c.status == "fail"}
    if not report.guarantee1["ok"] and not report.guarantee1["count"]:
        out.append(f"Do not publish yet: Guarantee 1 is unproven ({report.guarantee1.get('unproven_count', 0)} "
                   "line(s)): no violation was found, but the verifier could neither search those components "
                   "exactly nor prove them; run python -m anonymizer verify --exact on the release, or make it "
                   "again with a smaller --max-cluster-size.")
    elif not report.guarantee1["ok"]:
        out.append("Do not publish: the release breaks k^m-anonymity or the structure of Guarantee 1 "
                   f"({report.guarantee1['count']} violation(s)); make it again with python -m anonymizer and "
                   "run python -m anonymizer verify on it.")
    if "identifiers" in failed:
        out.append(f"Do not publish: {report.identifiers['count']} published term(s) look like direct identifiers "
                   f"(e.g. {', '.join(repr(e) for e in report.identifiers['examples'])}); remove them from the "
                   "original (or read it with the user column declared: --format long --user-column C "
                   "--item-column C) and make the release again.")
    breached = [a for a in report.attackers if f"{a['attacker']} attacker" in failed]
    then = " Then audit the new release."
    commands: list[str] = []

    def command(params: dict[str, Any], extra: str) -> str:
        commands.append(f"python -m anonymizer {source} {release_flags(params)} {extra} -o safe-release.json "
                        "--truth safe-truth.json")
        return commands[-1] + where

    if not p.get("safe") and ("PEM" in failed or breached):
        why = []
        if "PEM" in failed:
            why.append(f"PEM {report.cover['pem']:.2%}")
        why += [f"the {a['attacker']} attacker breaches {a['share']:.1%}" for a in breached]
        out.append(f"Publish a safe release instead ({'; '.join(why)}): {command(p, _SAFE_EVERY)} (Awad2019's safe "
                   "disassociation removes the cover problems PEM counts and most of the attackers' breaches)."
                   + then)
    elif "PEM" in failed:
        out.append(f"The safe release still has PEM {report.cover['pem']:.2%}: "
                   f"{command(p, '--safe --safe-targets every')} (every record chunk with a cover problem, as "
                   "Awad2019's PEM counts them)." + then)
    elif breached:
        worst = max(breached, key=lambda a: a["share"])
        bigger = dict(p, k=int(k) + 1) if isinstance(k, int) else p
        if isinstance(delta, int) and isinstance(k, int):
            bigger["max_cluster_size"] = max(delta, 2 * (int(k) + 1) - 1)
        targets = p.get("safe_targets", _DEFAULT_SAFE_TARGETS)
        out.append(f"The {worst['attacker']} attacker breaches {worst['share']:.1%} of the records of this safe "
                   f"release (threshold {max_vulnerable:.0%}): {command(bigger, f'--safe --safe-targets {targets}')} "
                   "(a larger k; Barakat2016 Fig. 4: breaches also grow with the cluster size, so a smaller "
                   "--max-cluster-size may help too)." + then)
    if "semantic attack" in failed:
        out.append("The semantic attack places terms better than chance: consider a larger k or fewer, more general "
                   "terms per record (AlShuhail2021 ch. 5: accuracy falls as k grows).")
    if not out:
        out.append("No threshold crossed: the release can be published under the thresholds above, with the "
                   "residual risks the verdict lists. Keep the truth file and the seed secret; publish only the "
                   "release file.")
    return out, commands
