"""Is this release safe to publish? One report a data owner can act on (``python -m attacks audit``).

:func:`audit` runs, on one release, against a declared threat model (:class:`attacks.threat_model.ThreatModel`;
its defaults are the audit's defaults):

1. **Guarantee 1**: the project's independent verifier (:mod:`anonymizer.evaluation.verify`: k^m-anonymity,
   Lemma 2, Property 1, an exact search of small components). A violation always fails the audit;
   so does a component the verifier can neither search nor prove (its detail says "unproven").
2. **Cover problems and PEM** (Awad2019 Definition 3, section 5.1.1; :mod:`attacks.cover.detector`), in
   its three readings, the paper's first: PEM, the share of record chunks with a cover problem
   (5.1.1: "every record chunk that is subject to a cover problem is a vulnerable record chunk");
   beside it the linkable chunks only (section 3.3, Lemma 1) and the share of clusters with one.
   Fails when the paper's PEM exceeds ``max_pem`` (default 0: any such chunk fails, as safe
   disassociation leaves none). PEM is a property of the release, not of an attacker: it has an
   interval (Wilson) and no baseline.
3. **Barakat2016's attackers** the threat model names (:data:`attacks.cover.knowledge.ATTACKERS`: strong as
   section 6 simulates it, every cover problem a breach; strong-per-record, section 4's well-picked
   itemsets per record; moderate; weak), each with its m, itemsets per target and moderate share: the
   records each one's knowledge breaches (Algorithm 1), with a Wilson interval, beside the frequency-only
   attacker and the random placement (:mod:`attacks.audit_baselines`), each with a paired interval of
   attack minus baseline. With the truth the attackers know the real records, as in the sweeps; with only
   the original dataset they know its records without the clusters; with neither, their knowledge is
   simulated from the release alone (the report says which; ``knowledge`` in the threat model can demand
   one source, and an attacker whose source is missing is skipped with the reason). Each attacker fails
   when the share of records it breaches exceeds ``max_vulnerable`` (default 5%).
4. **A semantic attack** (AlShuhail2021 ch. 4; :mod:`attacks.audit_semantic`) with the threat model's
   background, beside the random and blind baselines and the oracle ceiling, when the terms are words and
   the truth and the original are given; otherwise skipped with the reason. Fails when the lower end of
   the paired 95% interval of attack minus random exceeds ``max_semantic_gain`` (default 0).
5. **Direct identifiers** (:mod:`corpora.io.identifiers`): a published term that looks like an
   e-mail address, a phone number, a long numeric or hex id, an IP address or a URL naming a user
   fails the audit (the report shows them masked) unless ``allow_identifiers``.
6. **Parameters the attacker is declared not to know**: the release file publishes k, m and the maximum
   cluster size, so such a declaration does not hold for it; an ``info`` line says so (the attacks are
   simulated with the parameters, an upper bound of the declared attacker).
7. **The utility it costs** (:mod:`attacks.audit_utility`): tKd, re, tlost and, for a safe release, RAE
   and RLM, when the original is given.
8. **Recommendations** (:mod:`attacks.audit_recommend`): what to change before publishing, as commands.

Every check that is not made is listed in ``skipped`` with the reason, never passed silently. The original
and the truth must belong to the release (:mod:`anonymizer.evaluation.consistency`). Why the default
thresholds are what they are: docs/audit.md. The report is an :class:`attacks.audit_report.AuditReport`.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

from tqdm import tqdm

from anonymizer.evaluation.consistency import check_original, check_truth
from anonymizer.model.release import Release, Truth
from attacks.api import as_release, as_truth
from attacks.audit_baselines import (
    Baseline,
    Paired,
    cluster_sizes,
    frequency_only_per_cluster,
    paired_cluster_difference,
    random_placement_per_cluster,
    wilson_interval,
)
from attacks.audit_recommend import recommend, release_flags
from attacks.audit_report import AuditCheck, AuditReport
from attacks.audit_semantic import SEMANTIC_MIN_WORD_SHARE, semantic_check, word_share
from attacks.audit_utility import utility_section
from attacks.cover.detector import CoverReport, run_cover_attack
from attacks.cover.knowledge import EVERY_COVER_PAIR, Knowledge, cover_pair_itemsets, make_knowledge
from attacks.cover.problem import FlatRelease, flatten
from attacks.threat_model import (
    DEFAULT_MAX_PEM,
    DEFAULT_MAX_SEMANTIC_GAIN,
    DEFAULT_MAX_VULNERABLE,
    PARAMETERS,
    PER_TARGET,
    AttackerSpec,
    ThreatModel,
)
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import mask, screen_terms

__all__ = ["AuditCheck", "AuditReport", "audit", "word_share", "release_flags", "DEFAULT_MAX_PEM",
           "DEFAULT_MAX_VULNERABLE", "DEFAULT_MAX_SEMANTIC_GAIN", "SEMANTIC_MIN_WORD_SHARE"]

_SHOWN_VIOLATIONS = 5
_UNSET: Any = object()
_REFERENCES = {
    "Guarantee 1": "Terrovitis2012, section 3 (Guarantee 1: k^m-anonymity)",
    "identifiers": "docs/DESIGN.md, rules (terms that look like direct identifiers)",
    "PEM": "Awad2019, section 5.1.1 (Definition 3)",
    "attacker": "Barakat2016, sections 4 and 6 (Algorithm 1)",
    "semantic attack": "AlShuhail2021, chapter 4 and section 5.2",
    "parameters": "Barakat2016, section 4 (the attacker's knowledge is m-itemsets)",
}
_PARAM_KEYS = {"k": "k", "m": "m", "delta": "max_cluster_size"}


def _threat_model(threat_model: ThreatModel | str | os.PathLike[str] | None, max_pem: Any, max_vulnerable: Any,
                  max_semantic_gain: Any) -> ThreatModel:
    tm = threat_model if isinstance(threat_model, ThreatModel) else (
        ThreatModel() if threat_model is None else ThreatModel.from_yaml(threat_model))
    given = {k: v for k, v in (("max_pem", max_pem), ("max_vulnerable", max_vulnerable),
                               ("max_semantic_gain", max_semantic_gain)) if v is not _UNSET}
    for label, value in given.items():
        if value is not None and not 0.0 <= value <= 1.0:
            raise InputError(f"{label} must be a share between 0 and 1, got {value}")
    return dataclasses.replace(tm, **given) if given else tm


def audit(
    release: Release | str | os.PathLike[str],
    *,
    original: TransactionDataset | None = None,
    truth: Truth | str | os.PathLike[str] | None = None,
    threat_model: ThreatModel | str | os.PathLike[str] | None = None,
    max_pem: float | None = _UNSET,
    max_vulnerable: float | None = _UNSET,
    max_semantic_gain: float | None = _UNSET,
    allow_identifiers: bool = False,
    seed: int = 0,
    semantic: bool = True,
    name: str | None = None,
    original_source: str | None = None,
    before: Release | str | os.PathLike[str] | None = None,
    receipt: dict[str, Any] | None = None,
) -> AuditReport:
    """Audit ``release`` before publishing (module docstring); returns an :class:`AuditReport`.

    ``release`` is a :class:`Release` or the path of a release file (verified strictly as read);
    ``truth`` (object or path) and ``original`` give the attackers the real records and score the
    semantic attack and the utility; both must belong to the release, else :class:`InputError`.
    ``threat_model``: a :class:`ThreatModel`, the path of its YAML file, or None (the defaults). The
    thresholds given here override the threat model's (``None``: reported, not a gate): ``max_pem``,
    ``max_vulnerable``, ``max_semantic_gain`` (shares in [0, 1]). ``allow_identifiers`` turns the
    identifier check into a report line. ``original_source`` is how the original was given on the
    command line (shell-quoted); the recommended commands start with it. ``before``: the release a safe
    ``release`` was made from (RLM). ``receipt``: the provenance receipt to put in the report
    (:func:`corpora.common.receipt.make_receipt`; the command line makes it).
    """
    tm = _threat_model(threat_model, max_pem, max_vulnerable, max_semantic_gain)
    started = time.perf_counter()
    from anonymizer.evaluation.verify import verify

    path = release if isinstance(release, (str, os.PathLike)) else None
    rel = as_release(release)
    tru = as_truth(truth)
    if tru is not None:  # the record-by-record test runs in make_knowledge, where the records are rebuilt
        check_truth(rel, tru, original, label="--original", records=False)
    if original is not None:
        check_original(rel, original, label="--original")
    before_rel = as_release(before) if before is not None else None
    # a bar on a terminal only (disable=None): the verifier, each attacker, the semantic attack, the utility
    bar = tqdm(total=3 + len(tm.attackers), desc="audit", unit="check", disable=None, leave=False)
    bar.set_postfix_str("Guarantee 1")
    g1 = verify(path if path is not None else rel)
    bar.update()
    # an unproven component fails the check too; its detail (the summary) says "unproven", not "violation"
    checks = [AuditCheck("Guarantee 1", "pass" if g1.ok else "fail", float(len(g1.violations) + len(g1.unproven)),
                         0.0, g1.summary(), reference=_REFERENCES["Guarantee 1"])]
    screen = screen_terms(rel.terms())
    id_status = "pass" if screen.clean else ("info" if allow_identifiers else "fail")
    checks.append(AuditCheck("identifiers", id_status, float(screen.count), 0.0,
                             ("no published term looks like a direct identifier" if screen.clean else
                              screen.describe()) + (" (allowed by the owner)" if allow_identifiers and not screen.clean
                                                    else ""), reference=_REFERENCES["identifiers"]))
    knowledge_from = _knowledge_from(tm, tru, original)
    skipped: list[dict[str, str]] = []
    attackers, cover, attacker_checks = _attackers(rel, tm, tru, original, seed, bar)
    flagged = set(screen.terms)

    def shown(terms: Any) -> str:  # a term that looks like an identifier is masked wherever the report names it
        return ", ".join(mask(t) if t in flagged else t for t in terms)

    problems = [p for p in cover.cover_problems if p.definition == "awad2019"]
    examples = [f"cluster {p.cluster} chunk {p.chunk}: {shown(p.covered)} covered by "
                f"{shown(p.covering) or '(each other)'} in {p.support} records"
                + ("" if p.linkable else " (only record chunk of its cluster)") for p in problems[:5]]
    cover_info = {"pem": cover.pem, "vulnerable_chunks": cover.vulnerable_chunks, "record_chunks": cover.record_chunks,
                  "pem_linkable": cover.pem_linkable, "vulnerable_chunks_linkable": cover.vulnerable_chunks_linkable,
                  "linkable_chunks": cover.linkable_chunks, "pem_cluster": cover.pem_cluster,
                  "vulnerable_clusters": cover.vulnerable_clusters, "clusters": cover.clusters, "examples": examples}
    checks.append(AuditCheck(
        "PEM", _gate(cover.pem, tm.max_pem), cover.pem, tm.max_pem,
        f"{cover.vulnerable_chunks} of {cover.record_chunks} record chunks have a cover problem (Awad2019 5.1.1: "
        f"Definition 3 on every record chunk); linkable chunks only (Awad2019 3.3, Lemma 1): "
        f"{cover.vulnerable_chunks_linkable} ({cover.pem_linkable:.2%}); per cluster: {cover.vulnerable_clusters} "
        f"of {cover.clusters} clusters ({cover.pem_cluster:.2%}); a property of the release, no attacker baseline",
        interval=wilson_interval(cover.vulnerable_chunks, cover.record_chunks), reference=_REFERENCES["PEM"]))
    checks += attacker_checks
    bar.set_postfix_str("semantic attack")
    sem = semantic_check(rel, tru, original, tm, seed, semantic)
    bar.update()
    checks.append(_semantic_line(sem, tm.max_semantic_gain))
    parameters = _parameters_line(rel, tm)
    if parameters is not None:
        checks.append(parameters)
    bar.set_postfix_str("utility")
    utility, utility_skipped = utility_section(rel, original, before_rel, seed)
    bar.update()
    bar.close()
    skipped += [{"check": c.name, "reason": _reason(c.detail)} for c in checks if c.status == "skipped"]
    skipped += utility_skipped
    report = AuditReport(
        release=name or (os.fspath(path) if path is not None else "release"), params=dict(rel.params),
        records=rel.n_records, clusters=len(rel.clusters), record_chunks=cover.record_chunks,
        knowledge_from=knowledge_from,
        guarantee1={"ok": g1.ok, "violations": g1.violations[:_SHOWN_VIOLATIONS], "count": len(g1.violations),
                    "unproven": g1.unproven[:_SHOWN_VIOLATIONS], "unproven_count": len(g1.unproven),
                    "summary": g1.summary()},
        cover=cover_info, attackers=attackers, semantic=sem, checks=checks, identifiers=screen.to_dict(),
        original_source=original_source, threat_model={**tm.to_dict(), "summary": tm.describe()}, utility=utility,
        skipped=skipped, receipt=receipt)
    report.recommendations, report.commands = recommend(report, tm.max_pem, tm.max_vulnerable)
    report.seconds = time.perf_counter() - started
    return report


def _knowledge_from(tm: ThreatModel, truth: Truth | None, original: TransactionDataset | None) -> str:
    source = _records_source(tm, truth, original)
    return {"truth": "the real records (truth file)", "original": "the original records, clusters unknown",
            "release": "the release alone (no truth or original given: strong-per-record from the cover relations, "
                       "moderate from a random reconstruction)" if tm.knowledge == "auto" else
                       "the release alone (declared in the threat model: strong-per-record from the cover "
                       "relations, moderate from a random reconstruction)",
            None: f"the {tm.knowledge} records the threat model declares, which were not given"}[source]


def _records_source(tm: ThreatModel, truth: Truth | None, original: TransactionDataset | None) -> str | None:
    """Where the attackers' records come from: truth, original, release, or None when the declared one is missing."""
    if tm.knowledge == "auto":
        return "truth" if truth is not None else "original" if original is not None else "release"
    if tm.knowledge == "truth":
        return "truth" if truth is not None else None
    if tm.knowledge == "original":
        return "original" if original is not None else None
    return "release"


def _attackers(rel: Release, tm: ThreatModel, tru: Truth | None, original: TransactionDataset | None, seed: int,
               bar: Any) -> tuple[list[dict[str, Any]], CoverReport, list[AuditCheck]]:
    """Run every declared attacker: the attackers' table, the first cover report (PEM) and one check each."""
    source = _records_source(tm, tru, original)
    give_truth = tru if source == "truth" else None
    give_original = original if source in ("truth", "original") else None
    sizes = cluster_sizes(rel)
    chance = random_placement_per_cluster(rel)
    flat = flatten(rel)  # the cover index every attacker's knowledge and detector read (made once)
    rows: list[dict[str, Any]] = []
    checks: list[AuditCheck] = []
    cover: CoverReport | None = None
    for number, spec in enumerate(tm.attackers):
        label = f"{spec.name} attacker"
        bar.set_postfix_str(label)
        bar.update()
        if source is None and spec.name in PER_TARGET:
            missing = "truth file (--truth)" if tm.knowledge == "truth" else "original (--original)"
            reason = (f"the threat model says this attacker knows the {tm.knowledge} records (knowledge: "
                      f"{tm.knowledge}) but no {missing} was given")
            checks.append(AuditCheck(label, "skipped", None, tm.max_vulnerable, reason,
                                     reference=_REFERENCES["attacker"]))
            continue
        try:
            knowledge = make_knowledge(rel, spec.name, seed, truth=give_truth, original=give_original,
                                       moderate_share=spec.moderate_share, m=spec.m, weak_items=spec.items,
                                       external_items=spec.external_items,
                                       itemsets_per_target=spec.itemsets_per_target, flat=flat)
        except InputError as exc:
            if "external vocabulary" not in str(exc):
                raise
            checks.append(AuditCheck(label, "skipped", None, tm.max_vulnerable, str(exc),
                                     reference=_REFERENCES["attacker"]))
            continue
        report = run_cover_attack(rel, spec.name, seed, knowledge=knowledge, list_problems=cover is None, flat=flat)
        if cover is None:
            cover = report
        share = report.vulnerable_records / report.n_records if report.n_records else 0.0
        rows.append({"attacker": spec.name, "knowledge_source": report.knowledge_source,
                     "knowledge_size": report.knowledge_size, "vulnerable_records": report.vulnerable_records,
                     "share": share, "breaches": report.breaches, "algorithm1_total": report.algorithm1_total,
                     "m": spec.m if spec.m is not None else rel.m, "itemsets_per_target": spec.itemsets_per_target})
        checks.append(_attacker_check(rel, spec, knowledge, report, share, sizes, chance, seed, number, tm, flat))
    if cover is None:  # no attacker ran: PEM and the cover problems still come from the detector
        cover = run_cover_attack(rel, "strong", seed, knowledge=Knowledge([], "none", "none"), list_problems=True,
                                 flat=flat)
    return rows, cover, checks


def _attacker_check(rel: Release, spec: AttackerSpec, knowledge: Knowledge, report: CoverReport, share: float,
                    sizes: Any, chance: Any, seed: int, number: int, tm: ThreatModel, flat: FlatRelease) -> AuditCheck:
    """One attacker's check: its share of breached records beside the frequency-only attacker and chance."""
    import numpy as np

    attack = np.asarray(report.vulnerable_per_cluster, dtype=np.float64)
    total = float(sizes.sum())
    itemsets = cover_pair_itemsets(rel, flat) if knowledge.every_cover_pair else knowledge.itemsets
    freq = frequency_only_per_cluster(rel, itemsets).astype(np.float64)
    freq_count = int(freq.sum())
    d_freq, i_freq = paired_cluster_difference(attack, freq, sizes, seed, 2 * number)
    baselines = [
        Baseline("frequency-only", freq_count / total if total else 0.0, wilson_interval(freq_count, int(total)),
                 f"the same {len(itemsets):,} known itemsets read against each chunk's published supports, without "
                 f"the cover reasoning: breaches {freq_count} records", d_freq, i_freq),
        Baseline("random placement", float(chance.sum()) / total if total else 0.0, None,
                 f"one guess among the records of the target's cluster (right with probability 1/size): "
                 f"{int(chance.sum())} expected re-identifications, an exact expectation; context, not a difference: "
                 "a guess is right by chance, a breach is a certain link, so the two shares are not one unit"),
    ]
    detail = (f"breaches {report.vulnerable_records} of {report.n_records} records (Barakat2016 Algorithm 1; "
              f"{_knowledge_words(report.knowledge_source)}; m={spec.m if spec.m is not None else rel.m}"
              + (f", {spec.itemsets_per_target} itemsets per target" if spec.itemsets_per_target != 1 else "")
              + (f", moderate share {spec.moderate_share:g}" if spec.name == "moderate" else "") + ")")
    return AuditCheck(f"{spec.name} attacker", _gate(share, tm.max_vulnerable), share, tm.max_vulnerable, detail,
                      interval=wilson_interval(report.vulnerable_records, report.n_records), baselines=baselines,
                      paired=Paired("frequency-only", d_freq, i_freq), reference=_REFERENCES["attacker"])


def _semantic_line(sem: dict[str, Any], threshold: float | None) -> AuditCheck:
    reference = _REFERENCES["semantic attack"]
    if sem["status"] == "skipped":
        return AuditCheck("semantic attack", "skipped", None, threshold, sem["summary"], reference=reference)
    paired: Paired | None = sem["paired"]
    gain = None if paired is None or paired.interval is None else paired.interval[0]
    sem["margin"] = gain
    status = "info" if gain is None and threshold is not None else _gate(gain if gain is not None else 0.0, threshold)
    words = ("; gated on the paired 95% interval of attack minus random: its lower end "
             + ("cannot be measured" if gain is None else f"{gain:+.3f}"))
    return AuditCheck("semantic attack", status, sem["accuracy"], threshold, sem["summary"] + words,
                      interval=tuple(sem["accuracy_ci"]), baselines=sem["baselines"], paired=paired,
                      reference=reference, gated_on="paired")


def _parameters_line(rel: Release, tm: ThreatModel) -> AuditCheck | None:
    """An info line when the threat model declares a parameter unknown that the release publishes."""
    unknown = [p for p in PARAMETERS if p not in tm.parameters_known]
    if not unknown:
        return None
    keys = [_PARAM_KEYS[p] for p in unknown]
    published = [f"{key}={rel.params[key]}" for key in keys if rel.params.get(key) is not None]
    detail = (f"the threat model declares {', '.join(unknown)} unknown to the attacker, but the release file publishes "
              f"{', '.join(published) or 'them'} in its params: that assumption does not hold for this file; the "
              "attacks above were simulated with the parameters known (an upper bound of the declared attacker)")
    if not published:
        detail = f"the threat model declares {', '.join(unknown)} unknown to the attacker and the release does not " \
                 "publish them; the attacks above were simulated with them known (an upper bound)"
    return AuditCheck("parameters", "info", None, None, detail, reference=_REFERENCES["parameters"])


def _reason(detail: str) -> str:
    """A skipped check's detail without its leading "skipped": the reason alone."""
    for prefix in ("skipped: ", "skipped "):
        if detail.startswith(prefix):
            return detail[len(prefix):]
    return detail


def _knowledge_words(source: str) -> str:
    """Where an attacker's knowledge came from, in the words of the report."""
    if source == EVERY_COVER_PAIR:
        return "every cover problem a breach, section 6"
    return f"knowledge from {source}"


def _gate(value: float, threshold: float | None) -> str:
    """``fail`` above the threshold, ``pass`` at or below it, ``info`` when there is no threshold."""
    if threshold is None:
        return "info"
    return "fail" if value > threshold else "pass"
