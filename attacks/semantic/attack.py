"""The semantic attack on a disassociated release (AlShuhail2021 chapter 4).

:func:`run_semantic_attack` runs the scoring step (Algorithm 4) and the selection step
(Algorithm 5) cluster by cluster and returns a :class:`SemanticResult`.

Anchoring (section 4.2.2): the sub-records of the first record chunk C_1 anchor the records. A
cluster of ``size`` records whose C_1 lists ``v`` sub-records has ``size - v`` further records
whose C_1 sub-record is empty: they are *empty anchors*, they exist and can receive pieces, but
they carry no terms to score against, so a scoring selector only uses them when the better anchors
are used up (see :mod:`attacks.semantic.selectors`). A cluster without record chunks has only empty anchors.

Output order (what :meth:`SemanticResult.records` and the CLI write): clusters in release order;
within a cluster the records anchored by the listed C_1 sub-records in listed order, then the
empty anchors.

Which selector places what (``chunks`` chooses the parts that are attacked; pieces of a part that
is not attacked are left out of the reconstruction):

* record chunks C_2..C_n: the named selector (the thesis uses ABA and VPA here; RGA and MRA are
  allowed too); every listed sub-record is placed exactly once (a sub-record listed ``c`` times on
  ``c`` distinct anchors);
* the term chunk: ABA, RGA, MRA (``assign`` uses ABA's ranking, since a term may go to several
  anchors and different terms do not compete); every term goes to ``min(k - 1, size)`` distinct
  anchors, Algorithm 6 lines 11-14; ``ABA-spread`` (a labelled departure) takes them from anchors
  of distinct C_1 content first (:func:`attacks.semantic.selectors.spread_anchors`). VPA places terms at
  random, as the thesis does (4.3.4);
* shared chunks of joint clusters (Terrovitis2012 section 3, REFINE; the thesis has none): treated
  like record chunks over the anchors of all the joint cluster's leaves (in leaf order); VPA places
  them at random like terms, since its VERPART check is per simple cluster. They count as the
  record-chunk part in the metrics.

VPA (Algorithm 9) lives in :mod:`attacks.semantic.vpa`; the result types, the anchors and the
output order in :mod:`attacks.semantic.result`.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm import tqdm

from anonymizer.model.release import Cluster, Release
from attacks.semantic import selectors as sel
from attacks.semantic.result import (
    CHUNK_PARTS,
    ClusterReconstruction,
    SemanticResult,
    SharedReconstruction,
    cluster_anchors,
    fill_records,
)
from attacks.semantic.vpa import vpa_cluster
from corpora.common.errors import InputError

__all__ = [
    "CHUNK_PARTS",
    "DEFAULT_VPA_LIMIT",
    "ClusterReconstruction",
    "SharedReconstruction",
    "SemanticResult",
    "run_semantic_attack",
]

DEFAULT_VPA_LIMIT = 10_000
SCORING = ("ABA", "RGA", "MRA", "assign", "ABA-spread")
"""The selectors that need a scorer (VPA and random do not score)."""


class _Placer:
    """The scoring and selection steps (Algorithms 4 and 5) of one attack: its scorer, selector and
    random stream, and the count of pieces placed without evidence."""

    def __init__(self, scorer: Any, selector: str, rng: np.random.Generator, k: int) -> None:
        self.scorer = scorer
        self.selector = selector
        self.rng = rng
        self.k = k
        self.no_evidence = 0

    def scores(self, pieces: Sequence[tuple[str, ...]], anchors: Sequence[tuple[str, ...]], method: str) -> np.ndarray:
        """(pieces x anchors) scores for a scoring method."""
        p_terms = list(dict.fromkeys(t for piece in pieces for t in piece))
        a_terms = list(dict.fromkeys(t for anchor in anchors for t in anchor))
        if not p_terms or not a_terms:
            S = np.full((len(p_terms), len(a_terms)), np.nan)
        else:
            S = np.asarray(self.scorer.score_matrix(p_terms, a_terms), dtype=float)
        pi = {t: i for i, t in enumerate(p_terms)}
        ai = {t: i for i, t in enumerate(a_terms)}
        out = sel.anchor_scores(
            method, S, [[pi[t] for t in piece] for piece in pieces], [[ai[t] for t in a] for a in anchors]
        )
        self.no_evidence += int(np.isnan(out).all(axis=1).sum()) if out.shape[1] else len(pieces)
        return out

    def place_chunk(
        self, chunk: Sequence[tuple[str, ...]], anchors: Sequence[tuple[str, ...]], method: str
    ) -> list[int]:
        """Anchor of each listed sub-record of a record-like chunk (each listed piece exactly once)."""
        n_anchors = len(anchors)
        if len(chunk) > n_anchors:
            raise InputError(f"a chunk lists {len(chunk)} sub-records but the cluster has {n_anchors} records")
        out = [0] * len(chunk)
        if method == "random":
            return sel.random_distinct(self.rng, len(chunk), n_anchors)
        distinct, positions = sel.distinct_pieces(chunk)
        if method == "ABA-spread":
            method = "ABA"
        if method == "assign":
            s = self.scores(distinct, anchors, "ABA")
            rows = np.empty((len(chunk), n_anchors))
            for d, pos in enumerate(positions):
                rows[pos] = s[d]
            return sel.assign_distinct(rows)
        s = self.scores(distinct, anchors, method)
        for d, pos in enumerate(positions):
            for p, a in zip(pos, sel.top_anchors(s[d], len(pos)), strict=True):
                out[p] = a
        return out

    def place_terms(
        self, terms: Sequence[str], anchors: Sequence[tuple[str, ...]], method: str
    ) -> dict[str, list[int]]:
        """Anchors of each term-chunk term: ``min(k - 1, size)`` distinct ones."""
        count = min(self.k - 1, len(anchors))
        if method in ("random", "VPA"):
            return {t: sorted(sel.random_distinct(self.rng, count, len(anchors))) for t in terms}
        s = self.scores([(t,) for t in terms], anchors, "ABA" if method in ("assign", "ABA-spread") else method)
        if method == "ABA-spread":
            ranked = sel.top_anchors_rows(s, len(anchors))
            return {t: sel.spread_anchors(row, anchors, count) for t, row in zip(terms, ranked, strict=True)}
        best = sel.top_anchors_rows(s, count).tolist()
        return dict(zip(terms, best, strict=True))


def run_semantic_attack(
    release: Release,
    scorer: Any,
    selector: str = "ABA",
    chunks: str = "both",
    seed: int = 0,
    vpa_limit: int = DEFAULT_VPA_LIMIT,
    progress: bool | None = None,
    vpa_budget: int | None = None,
) -> SemanticResult:
    """Reconstruct the records of ``release`` with a semantic attack (AlShuhail2021 chapter 4).

    ``scorer`` is a :class:`attacks.semantic.scorers.Scorer` (may be ``None`` for ``selector="random"``
    and ``"VPA"``, which do not score); ``selector`` is one of :data:`attacks.semantic.selectors.SELECTORS`;
    ``chunks`` is ``"record"``, ``"term"`` or ``"both"``; ``seed`` drives every random choice
    (random baseline, VPA's term placement and fallbacks); ``vpa_limit`` bounds VPA's trials per
    chunk and ``vpa_budget`` (``None`` = no bound) its trials over the whole attack: every trial
    counts, and a chunk reached with the budget spent is cut at once. ``vpa_cut`` /
    ``vpa_cut_chunks`` of the result report that a bound stopped a search. See the module
    docstring for anchoring, output order and each part's rules.
    """
    _check_arguments(selector, chunks, vpa_limit, vpa_budget, scorer)
    budget = [sys.maxsize if vpa_budget is None else int(vpa_budget)]
    started = time.perf_counter()
    placer = _Placer(scorer, selector, np.random.default_rng(seed), release.k)
    before_pairs = scorer.unknown_pairs if scorer is not None else 0
    do_record, do_term = chunks in ("record", "both"), chunks in ("term", "both")
    verpart = str(release.params.get("verpart", "strict"))
    vpa = _VpaRun(verpart if verpart in ("strict", "grouped") else "strict", vpa_limit, budget)
    disable = (not sys.stderr.isatty()) if progress is None else not progress
    clusters = [
        _attack_cluster(placer, cluster, release.k, release.m, do_record, do_term, vpa)
        for cluster in tqdm(release.clusters, desc=f"semantic {selector}", unit="cluster", disable=disable)
    ]
    shared = _attack_shared(placer, release, clusters) if do_record and release.joint_clusters else []
    result = SemanticResult(
        selector=selector,
        chunks=chunks,
        scorer=getattr(scorer, "name", "none") if scorer is not None else "none",
        seed=seed,
        clusters=clusters,
        shared=shared,
        unknown_policy=getattr(scorer, "unknown", "skip") if scorer is not None else "skip",
        no_evidence_pieces=placer.no_evidence,
        vpa_cut=vpa.cut > 0,
        vpa_cut_chunks=vpa.cut,
        vpa_failed_chunks=vpa.failed,
        vpa_trials=vpa.trials,
    )
    fill_records(release, result)
    if selector in SCORING:
        _count_unknown(release, scorer, result, do_record, do_term)
        result.unknown_pairs = scorer.unknown_pairs - before_pairs
    result.seconds = time.perf_counter() - started
    return result


def _check_arguments(selector: str, chunks: str, vpa_limit: int, vpa_budget: int | None, scorer: Any) -> None:
    if selector not in sel.SELECTORS:
        raise InputError(f"unknown selector {selector!r}; choose one of {', '.join(sel.SELECTORS)}")
    if chunks not in CHUNK_PARTS:
        raise InputError(f"chunks must be one of {', '.join(CHUNK_PARTS)}, got {chunks!r}")
    if vpa_limit < 1:
        raise InputError(f"vpa_limit must be at least 1, got {vpa_limit}")
    if vpa_budget is not None and vpa_budget < 0:
        raise InputError(f"vpa_budget must be at least 0, got {vpa_budget}")
    if selector in SCORING and scorer is None:
        raise InputError(f"selector {selector} needs a scorer")


@dataclass
class _VpaRun:
    """VPA's settings and counters over one attack (``budget[0]``: trials left for the attack)."""

    verpart: str
    limit: int
    budget: list[int]
    cut: int = 0
    failed: int = 0
    trials: int = 0


def _attack_cluster(
    placer: _Placer, cluster: Cluster, k: int, m: int, do_record: bool, do_term: bool, vpa: _VpaRun
) -> ClusterReconstruction:
    """One simple cluster: its record chunks C_2..C_n (by VPA or the selector), then its term chunk."""
    anchors = cluster_anchors(cluster)
    rec = ClusterReconstruction(cluster.id, anchors, len(cluster.record_chunks[0]) if cluster.record_chunks else 0)
    if cluster.record_chunks:
        rec.record_assignment = [list(range(rec.n_listed))] + [[] for _ in cluster.record_chunks[1:]]
    if do_record and len(cluster.record_chunks) > 1:
        if placer.selector == "VPA":
            assignment, cut, failed, trials = vpa_cluster(placer.rng, cluster, anchors, k, m, vpa.verpart, vpa.limit,
                                                          vpa.budget)
            rec.record_assignment = assignment
            vpa.cut += cut
            vpa.failed += failed
            vpa.trials += trials
        else:
            for j in range(1, len(cluster.record_chunks)):
                rec.record_assignment[j] = placer.place_chunk(cluster.record_chunks[j], anchors, placer.selector)
    if do_term and cluster.term_chunk:
        rec.term_assignment = placer.place_terms(cluster.term_chunk, anchors, placer.selector)
    return rec


def _attack_shared(
    placer: _Placer, release: Release, clusters: list[ClusterReconstruction]
) -> list[SharedReconstruction]:
    """The shared chunks of every joint cluster, placed like record chunks over the anchors of all
    its leaves (in leaf order); VPA places them at random."""
    position = {c.id: i for i, c in enumerate(release.clusters)}
    joint_leaves = release.joint_leaves()
    method = "random" if placer.selector == "VPA" else placer.selector
    out: list[SharedReconstruction] = []
    for joint in release.joint_clusters:
        leaves = joint_leaves[joint.id]
        refs = [(position[leaf.id], a) for leaf in leaves for a in range(len(clusters[position[leaf.id]].anchors))]
        anchors = [clusters[ci].anchors[a] for ci, a in refs]
        out.append(SharedReconstruction(joint.id, refs, [placer.place_chunk(ch, anchors, method)
                                                         for ch in joint.shared_chunks]))
    return out


def _count_unknown(release: Release, scorer: Any, result: SemanticResult, do_record: bool, do_term: bool) -> None:
    occurrences: Counter[str] = Counter()
    for cluster in release.clusters:
        chunks = cluster.record_chunks if do_record else cluster.record_chunks[:1]
        for chunk in chunks:
            for sub in chunk:
                occurrences.update(sub)
        if do_term:
            occurrences.update(cluster.term_chunk)
    if do_record:
        for joint in release.joint_clusters:
            for chunk in joint.shared_chunks:
                for sub in chunk:
                    occurrences.update(sub)
    terms = list(occurrences)
    if not terms:
        return
    known = np.asarray(scorer.known(terms), dtype=bool)
    result.distinct_terms = len(terms)
    result.unknown_terms = int((~known).sum())
    result.unknown_occurrences = int(sum(occurrences[t] for t, ok in zip(terms, known, strict=True) if not ok))
