"""How much a semantic attack recovered (AlShuhail2021 section 5.2).

:func:`evaluate_semantic` compares a :class:`~attacks.semantic.attack.SemanticResult` with the truth and
the original dataset, for the attack and for the random baseline (section 5.2: "a random attack
... as a baseline"), per part (``record``: pieces of record chunks C_2..C_n and of shared chunks;
``term``: the term chunk; ``overall``: both), each with a 95% percentile bootstrap interval over
the records.

Which reconstructed record stands for which original record is decided by
:func:`attacks.semantic.matching.match_records` (the matched pairing of the strict metrics, k^m
breakage and WMD; the fixed pairing of ``accuracy_one_to_one``); the per-record values of each
metric are computed in :mod:`attacks.semantic.measures`, the table and the paired differences in
:mod:`attacks.semantic.report`, the baselines in :mod:`attacks.semantic.baselines`.

For original record T_i with C_1 sub-record A_i (empty for a record without one), let O_i be its
disassociated terms of the part (T_i minus C_1, restricted to the part's chunks: T^-_i of section
5.2.1) and R_i the terms the attack placed on its anchor from the same chunks.

Accuracy, equation 5.4 and Ac(D) (section 5.2.2), as printed::

    Rec(T_i) = |T̄_i ∩ T_i| / |T_i|        Ac(D) = sum_i Rec(T_i) / |D|

"the accuracy finds the sum of Rec(T_i) ... for all transactions T̄ in D̄; this sum is divided by
the total number of transactions in the original dataset D". The formula divides by |T_i|, the
whole record, so the C_1 terms (which every reconstruction keeps: "the terms in the anchoring
chunk C_1 for each transaction will always be the original", 5.2.1) count, and a record with
nothing disassociated has Rec = 1. The thesis removes C_1 for breakage only: "to measure the
breakage in a more accurate way, the first chunk will be excluded from the calculation for each
transaction (T^- = T - C_1)" (5.2.1). (The prose beside eq. 5.4 says "how many disassociated terms
of this transaction are reassociated correctly ... divided by the number of its disassociated
terms"; that reading, C_1 left out, is ``accuracy_disassociated`` below.) The thesis reports
accuracy "reaching over 90%" (Fig. 5.1) beside transaction breakage "around 25% for all k values"
(Fig. 5.3) in the same sweep: the printed formula allows that, the C_1-free reading does not
(there Rec(T_i) <= Br(T_i) on every record, so accuracy cannot exceed breakage on the same records).

Per part, T_i is restricted to A_i and the part's chunks: ``record`` = A_i + O_i of the record (and
shared) chunks, ``term`` = A_i + its term-chunk terms, ``overall`` = A_i + both (the whole
published record when both parts are attacked). A record whose restricted T_i is empty (no C_1
term and nothing in the part) is left out of that part; every other record of the release counts,
and a record of D that the release does not publish (the ``suppression`` strategy of Algorithm 1
deletes small parts) counts with Rec = 0 in every part: no reconstructed record holds any of it.

* ``accuracy``: eq. 5.4 as printed in the thesis's reading of indistinguishable anchors (section
  5.3.1: "when the number of identical sub-records in the anchoring chunk is high and with no
  semantic differences ... any sub-record that is chosen for adding a term to it will be
  correct"). The anchors of a cluster fall into *classes* of identical C_1 content (all empty
  anchors form one class; anchors of different clusters are never in one class). A piece of T_i
  (a sub-record of a record or shared chunk, or one term-chunk term) is correctly placed when the
  attack put it on any anchor of T_i's class. Identical pieces of one chunk cannot be told apart
  either, so with n_need pieces of equal content in chunk j owned by records of class G and
  n_placed such pieces placed on anchors of G, each of the n_need pieces is credited
  min(n_need, n_placed) / n_need (exactly 1 or 0 when the content is unique; a term-chunk term
  needed by several records of G but placed on fewer anchors of G shares its copies equally).
  Only T_i's own pieces count for T_i. With C_i = the sum of |piece| x credit over T_i's pieces of
  the part, |T̄_i ∩ T_i| = |A_i| + C_i and Rec(T_i) = (|A_i| + C_i) / |A_i ∪ O_i|. The score depends
  only on what the attacker output (which content went to which class), not on hidden positions;
* ``accuracy_one_to_one``: eq. 5.4 as printed with T̄_i the record of T_i's anchor in the *fixed*
  pairing (:func:`attacks.semantic.matching.fixed_anchors`: the listed anchor at position p is the
  record the truth lists at p; the empty anchors, in order, are the records without a C_1
  sub-record in the truth's record order), the same for the attack and every baseline:
  Rec(T_i) = |(A_i ∪ R^fixed_i) ∩ (A_i ∪ O_i)| / |A_i ∪ O_i|. A pile of pieces on one of several
  identical anchors serves one record only;
* ``accuracy_disassociated``: the class reading with C_1 left out (section 5.3: "we evaluate the
  reconstruction's accuracy by calculating the percentage of terms and sub-records that are
  correctly combined"): Rec(T_i) = C_i / |O_i| over the records with a non-empty O_i (the others
  have nothing to recover). Never above the record's class-reading breakage;
* ``accuracy_disassociated_strict``: the same on the *matched* pairing (per group of identical
  anchors, the maximum-overlap assignment of :func:`attacks.semantic.matching.match_records`,
  which depends on the attacker's output): Rec(T_i) = |R_i ∩ O_i| / |O_i| with R_i the terms on the
  anchor matched to T_i;
* ``transaction_breakage``: equations 5.2-5.3 in the same class reading, the share of records with
  C_i > 0 (some piece of T_i reached T_i's class; a shared term-chunk copy breaks every record of
  the class that needs it); ``transaction_breakage_strict``: Br(T_i) = |R_i ∩ O_i| > 0 on the
  matched anchor;
* ``km_breakage``: the share of protected itemsets that the reconstruction recovers. A protected
  itemset is a set of 2..m terms of one original record that spans at least two published pieces
  of that record (its C_1 sub-record, its record-chunk or shared-chunk sub-records, its term-chunk
  terms) and has support < k in the original dataset; it is recovered when the reconstructed record
  holds all of it. The ``term`` part holds the itemsets with a term-chunk term, ``record`` the rest.
  Counted per (record, itemset) occurrence; the interval resamples records (ratio of sums);
* ``transaction_breakage_literal``: equations 5.2-5.3 as printed: Br(T_i) = |T̄_{-i} ∩ T_{-i}| on
  the matched record (one-to-one, as ``_strict``), and Br(D) = the records with Br(T_i) != 0 over
  |D̄|, *all* reconstructed records, also those with nothing disassociated in the part (which
  cannot be broken). The thesis reports about 25% overall (section 5.3.1, Figure 5.3);
* ``wmd`` needs concrete records, so it (like ``km_breakage``) keeps the one-to-one matched
  records above: gensim's Word Mover's Distance (POT) between A_i ∪ O_i and A_i ∪ R_i (for ``overall``:
  the full original record against the full reconstructed one), words of multi-word terms split,
  over the given embeddings (default GloVe 6B 50-d); records whose documents have no known word are
  left out. Lower is better.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonymizer.evaluation.consistency import check_truth
from anonymizer.model.release import Release, Truth
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.baselines import blind_attack, oracle_reconstruction, truth_reconstruction
from attacks.semantic.embeddings import load_embeddings
from attacks.semantic.matching import RecordOutcome, match_records
from attacks.semantic.measures import MEASURES, Inputs, Supports, protected_itemsets, word_movers_distance
from attacks.semantic.report import (
    BASELINES,
    METRICS,
    PARTS,
    STREAMS,
    DiffRow,
    MetricRow,
    PerRecord,
    SemanticMetrics,
    paired_differences,
)
from attacks.semantic.result import SemanticResult
from corpora.common.errors import InputError
from corpora.common.stats import bootstrap_ratio
from corpora.dataset import TransactionDataset

__all__ = [
    "truth_reconstruction",
    "MetricRow",
    "SemanticMetrics",
    "RecordOutcome",
    "evaluate_semantic",
    "match_records",
    "METRICS",
    "PARTS",
    "BASELINES",
    "DiffRow",
    "blind_attack",
    "oracle_reconstruction",
    "word_movers_distance",
]


def _as_sets(original: Any) -> list[frozenset[str]]:
    if original is None:
        raise InputError("evaluate_semantic needs the original dataset")
    try:
        return [frozenset(r) for r in original]
    except TypeError:
        raise InputError("original: expected a TransactionDataset or a list of records") from None


def _check_baselines(baselines: Sequence[str]) -> None:
    for b in baselines:
        if b not in BASELINES:
            raise InputError(f"unknown baseline {b!r}; choose from {', '.join(BASELINES)}")


def _baseline(name: str, release: Release, truth: Truth, chunks: str, seed: int) -> SemanticResult:
    """The reconstruction of one baseline of :data:`BASELINES` on the attack's chunks."""
    if name == "random":
        return run_semantic_attack(release, None, selector="random", chunks=chunks, seed=seed)
    if name == "blind":
        return blind_attack(release, chunks=chunks, seed=seed)
    return oracle_reconstruction(release, truth, chunks)


def _evaluate_one(
    outcomes: list[RecordOutcome],
    records: list[frozenset[str]],
    supports: Supports,
    k: int,
    m: int,
    parts: Sequence[str],
    kv: Any,
    method: str,
    seed: int,
    bootstrap: int,
    shared: dict[str, Any] | None = None,
    wmd_parts: Sequence[str] = PARTS,
    metrics: Sequence[str] = METRICS,
) -> tuple[list[MetricRow], PerRecord]:
    """Every (metric, part) row of one method, with its interval, and the per-record values behind it."""
    rows: list[MetricRow] = []
    data: PerRecord = {}
    shared = {} if shared is None else shared
    inputs = Inputs(records, kv=kv, wmd_cache=shared.setdefault("wmd", {}))
    known: dict[tuple[int, tuple[str, ...]], list[tuple[frozenset[str], bool]]] = shared.setdefault("protected", {})
    for o in outcomes:  # the protected itemsets depend on the record and the attacked parts, not the attack
        key = (o.record, tuple(parts))
        if key not in known:
            known[key] = protected_itemsets(o, records[o.record], supports, k, m)
        inputs.protected[o.record] = known[key]
    for metric in METRICS:
        if (metric == "wmd" and kv is None) or metric not in metrics:
            continue
        for part in parts:
            if metric == "wmd" and part not in wmd_parts:
                continue
            rng = np.random.default_rng([seed, STREAMS[metric], PARTS.index(part)])
            ids, num, den = MEASURES[metric](outcomes, part, inputs)
            nn, dd = np.array(num, float), np.array(den, float)
            data[(metric, part)] = (np.array(ids, dtype=np.int64), nn, dd)
            value = float(nn.sum() / dd.sum()) if dd.sum() > 0 else math.nan
            lo, hi = bootstrap_ratio(nn, dd, rng, bootstrap)
            rows.append(MetricRow(metric, part, method, value, lo, hi, len(nn)))
    return rows, data


def evaluate_semantic(
    result: SemanticResult,
    release: Release,
    truth: Truth,
    original: Any,
    seed: int = 0,
    embeddings: Any = None,
    bootstrap: int = 1000,
    wmd: bool = True,
    baseline: bool = True,
    baselines: Sequence[str] | None = None,
    shared: dict[str, Any] | None = None,
    wmd_parts: Sequence[str] = PARTS,
    metrics: Sequence[str] | None = None,
) -> SemanticMetrics:
    """Accuracy (three readings, module doc), transaction breakage, k^m-anonymity breakage and WMD of an attack result.

    ``original`` is the input dataset (a ``TransactionDataset`` or a list of records; the truth's
    record ids index it). ``embeddings`` (gensim ``KeyedVectors`` or a path; ``None`` = GloVe 6B
    50-d) serve WMD; ``wmd=False`` skips it. ``bootstrap`` resamples for the 95% intervals.
    ``baselines`` names the reference methods evaluated beside the attack, from :data:`BASELINES`:
    ``"random"`` (``run_semantic_attack(..., "random", seed=seed)``, the thesis's baseline),
    ``"blind"`` (:func:`blind_attack`) and ``"oracle"`` (:func:`oracle_reconstruction`); each on the
    same chunks, its rows under its own method name. ``None`` means ``("random",)`` when
    ``baseline`` is true (the default) and none otherwise. With ``"random"`` the paired differences
    attack minus random (:class:`DiffRow`) are computed on the same records and seed.
    ``shared``: a dict kept by the caller across evaluations of the *same* release, truth and
    original (the protected itemsets and the WMD of record pairs are computed once);
    ``wmd_parts``: the parts WMD is measured for (the thesis plots the overall WMD only);
    ``metrics``: the metrics computed (default all of :data:`METRICS`).
    """
    wanted_metrics = tuple(METRICS if metrics is None else [m for m in METRICS if m in metrics])
    shared = {} if shared is None else shared
    if isinstance(original, TransactionDataset):  # the one consistency check (anonymizer.evaluation.consistency)
        check_truth(release, truth, original, label="--original")
    records = _as_sets(original)
    for ct in truth.clusters:
        if any(r >= len(records) or r < 0 for r in ct.records):
            raise InputError("truth refers to record ids beyond the original dataset")
    if baselines is None:
        baselines = ("random",) if baseline else ()
    _check_baselines(baselines)
    attacked = {"record": ("record",), "term": ("term",), "both": ("record", "term")}[result.chunks]
    parts = [*attacked, "overall"]
    kv = None
    if wmd:
        kv = load_embeddings(embeddings)
    supports = Supports(records)
    k, m = release.k, release.m
    outcomes = match_records(result, release, truth, attacked)
    rows, data = _evaluate_one(outcomes, records, supports, k, m, parts, kv, result.selector, seed, bootstrap,
                               shared, wmd_parts, wanted_metrics)
    per_record: dict[str, Any] = {result.selector: data}
    differences: list[DiffRow] = []
    for name in baselines:
        if name == result.selector:
            continue  # the attack is this baseline itself
        other = _baseline(name, release, truth, result.chunks, seed)
        other_out = match_records(other, release, truth, attacked)
        other_rows, other_data = _evaluate_one(other_out, records, supports, k, m, parts, kv, name, seed, bootstrap,
                                               shared, wmd_parts, wanted_metrics)
        rows += other_rows
        per_record[name] = other_data
        if name == "random":
            differences = paired_differences(data, other_data, result.selector, "random", seed, bootstrap)
    order = {(mt, pt): i for i, (mt, pt) in enumerate(itertools.product(METRICS, PARTS))}
    rank = {name: i for i, name in enumerate((result.selector, *BASELINES))}
    rows.sort(key=lambda r: (order[(r.metric, r.part)], rank.get(r.method, 99)))
    differences.sort(key=lambda d: order[(d.metric, d.part)])
    return SemanticMetrics(rows=rows, selector=result.selector, records=len(outcomes), differences=differences,
                           per_record=per_record)
