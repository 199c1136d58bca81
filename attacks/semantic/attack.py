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

VPA (Algorithm 9): chunk by chunk (C_2, then C_3, ...), enumerate the ways to put the chunk's
listed sub-records on distinct records (lexicographic in the anchors, identical sub-records as one
combination, as in the thesis's example (1,2), (1,3), ...), add them to the records built so far,
and keep the first trial reconstruction that passes :func:`verpart_consistent` (the anonymizer's
VERPART passes, re-run on the trial, give back the published chunks; :class:`_TrialChecker` does
this incrementally, with the same answers as :func:`verpart_consistent`). At most ``vpa_limit``
trials per chunk and ``vpa_budget`` over the whole attack, every trial counted; when a bound stops
the search, or no trial passes, the chunk is placed at random (seeded) and the result says so.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from anonymizer.model.release import Cluster, Release
from attacks.semantic import selectors as sel
from corpora.common.errors import InputError

__all__ = [
    "CHUNK_PARTS",
    "ClusterReconstruction",
    "SharedReconstruction",
    "SemanticResult",
    "run_semantic_attack",
    "verpart_consistent",
]

CHUNK_PARTS = ("record", "term", "both")
DEFAULT_VPA_LIMIT = 10_000


@dataclass
class ClusterReconstruction:
    """One cluster's reconstruction.

    ``anchors[a]`` is anchor a's C_1 sub-record (``()`` for an empty anchor; the first
    ``n_listed`` follow the listed order of C_1). ``record_assignment[j][p]`` is the anchor that
    received the p-th listed sub-record of record chunk j (``record_assignment[0]`` is the identity
    of C_1; an empty list for a chunk that was not attacked). ``term_assignment[t]`` lists the
    anchors that received term t. ``records[a]`` is anchor a's reconstructed record (sorted terms,
    shared-chunk pieces included).
    """

    cluster_id: str
    anchors: list[tuple[str, ...]]
    n_listed: int
    record_assignment: list[list[int]] = field(default_factory=list)
    term_assignment: dict[str, list[int]] = field(default_factory=dict)
    records: list[list[str]] = field(default_factory=list)


@dataclass
class SharedReconstruction:
    """A joint cluster's shared chunks: ``anchors[g] = (cluster position, anchor index)`` over the
    leaves; ``assignment[j][p]`` is the global anchor g of the p-th sub-record of shared chunk j."""

    joint_id: str
    anchors: list[tuple[int, int]]
    assignment: list[list[int]] = field(default_factory=list)


@dataclass
class SemanticResult:
    """What :func:`run_semantic_attack` returns."""

    selector: str
    chunks: str
    scorer: str
    seed: int
    clusters: list[ClusterReconstruction]
    shared: list[SharedReconstruction] = field(default_factory=list)
    unknown_terms: int = 0
    """Distinct terms of the attacked pieces and anchors that the scorer does not know."""
    distinct_terms: int = 0
    """Distinct terms of the attacked pieces and anchors (the base of ``unknown_terms``)."""
    unknown_occurrences: int = 0
    """Occurrences of those terms in the attacked pieces and anchors."""
    unknown_pairs: int = 0
    """Pair scores the scorer could not give (policy ``skip``: left out; ``zero``: scored 0)."""
    unknown_policy: str = "skip"
    no_evidence_pieces: int = 0
    """Pieces whose scores were all missing, so that they went to the first anchors by tie order."""
    vpa_cut: bool = False
    """True when VPA's ``vpa_limit`` stopped at least one search before it was exhausted."""
    vpa_cut_chunks: int = 0
    vpa_failed_chunks: int = 0
    """Chunks for which VPA's search ended with no consistent trial (placed at random)."""
    vpa_trials: int = 0
    seconds: float = 0.0

    def records(self) -> list[list[str]]:
        """All reconstructed records, flat, in the output order (see the module docstring)."""
        return [r for c in self.clusters for r in c.records]

    def __repr__(self) -> str:
        records = sum(len(c.records) for c in self.clusters)
        vpa = f", vpa_trials={self.vpa_trials}" if self.selector == "VPA" else ""
        return (f"SemanticResult(selector={self.selector!r}, scorer={self.scorer!r}, chunks={self.chunks!r}, "
                f"clusters={len(self.clusters)}, joint_clusters={len(self.shared)}, records={records}, "
                f"unknown_terms={self.unknown_terms}{vpa})")

    def to_dict(self) -> dict[str, Any]:
        """The counters (:meth:`summary`) and the reconstructed records, as plain Python values."""
        return {**self.summary(), "clusters": len(self.clusters), "reconstructed": self.records()}

    def to_json(self, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_frame(self) -> Any:
        """One row per reconstructed record: cluster, anchor position, whether the anchor was a listed
        C_1 sub-record, and the record's terms joined with ``"; "`` (a pandas DataFrame)."""
        import pandas as pd

        rows = [{"cluster": c.cluster_id, "anchor": a, "listed_anchor": a < c.n_listed, "terms": "; ".join(r)}
                for c in self.clusters for a, r in enumerate(c.records)]
        return pd.DataFrame(rows, columns=["cluster", "anchor", "listed_anchor", "terms"])

    def summary(self) -> dict[str, Any]:
        """The report counters as a plain dict."""
        return {
            "selector": self.selector,
            "chunks": self.chunks,
            "scorer": self.scorer,
            "seed": self.seed,
            "records": sum(len(c.records) for c in self.clusters),
            "unknown_terms": self.unknown_terms,
            "distinct_terms": self.distinct_terms,
            "unknown_term_share": round(self.unknown_terms / self.distinct_terms, 6) if self.distinct_terms else 0.0,
            "unknown_occurrences": self.unknown_occurrences,
            "unknown_pairs": self.unknown_pairs,
            "unknown_policy": self.unknown_policy,
            "no_evidence_pieces": self.no_evidence_pieces,
            "vpa_cut": self.vpa_cut,
            "vpa_cut_chunks": self.vpa_cut_chunks,
            "vpa_failed_chunks": self.vpa_failed_chunks,
            "vpa_trials": self.vpa_trials,
            "seconds": round(self.seconds, 3),
        }


# ----------------------------------------------------------------------------------------------
# The VERPART re-run used by VPA
# ----------------------------------------------------------------------------------------------


def _verpart_order(home: Mapping[str, int], support: Mapping[str, float], verpart: str) -> list[str]:
    """The terms in the order VPA re-runs VERPART: support descending, ties to the earlier
    published chunk then by name (``strict``), or by name alone (``grouped``; see
    :func:`verpart_consistent`)."""
    if verpart == "grouped":
        return sorted(home, key=lambda t: (-support[t], t))
    return sorted(home, key=lambda t: (-support[t], home[t], t))


def verpart_consistent(
    records: Sequence[frozenset[str]],
    chunk_terms: Sequence[Sequence[str]],
    k: int,
    m: int,
    verpart: str = "strict",
) -> bool:
    """Does VERPART, re-run on the trial reconstruction ``records``, give back the published chunks?

    ``chunk_terms[j]`` is the term set of published record chunk j (only the chunks joined so far).
    The greedy passes are the anonymizer's own (:func:`anonymizer.disassociation.verpart.group_terms`, the
    ``strict`` k^m test where a combination of support 0 also fails), over the terms in VERPART's
    order: support in the trial, descending. Support ties go to the term of the earlier published
    chunk, then by name. With this tie rule the true records always give back the published chunks
    whatever tie order the anonymizer used (a term that a pass rejected stays rejected when more
    terms precede it: the test only gains combinations), so VPA never rejects the truth.

    ``verpart="strict"`` (Terrovitis2012): the greedy groups must equal the published chunks.
    ``verpart="grouped"`` (AlShuhail2021 section 3.3.3, second method, where groups that never
    meet share a chunk): every greedy group must lie inside one published chunk, so each chunk is
    a union of groups (a necessary condition; the packing order is not re-checked). Here support
    ties go by name alone, the anonymizer's own tie rule: a chunk holds several groups, so the
    earlier-chunk rule can put a term of chunk 0 into a group of chunk 1 ahead of the terms that
    kept it out (records {the}x3, {ö, of}, {é, ö, the, and}, {é, ö, of, and}, k=2, m=2: ``of``
    would join ``ö`` before ``and`` rejects it) and VPA would reject the truth. With the
    anonymizer's order the true records give back its groups; the terms Lemma 2 moved to the
    term chunk are the last of that order, so leaving them out changes no earlier group.
    """
    from anonymizer.disassociation.verpart import group_terms

    home: dict[str, int] = {}
    for j, terms in enumerate(chunk_terms):
        for t in terms:
            home[t] = j
    bits: dict[str, int] = dict.fromkeys(home, 0)
    for i, r in enumerate(records):
        for t in r:
            if t in bits:
                bits[t] |= 1 << i
    order = _verpart_order(home, {t: b.bit_count() for t, b in bits.items()}, verpart)
    groups = [[order[i] for i in g] for g in group_terms([bits[t] for t in order], k, m, zero_ok=False)]
    if verpart == "strict":
        return sorted(map(frozenset, groups), key=sorted) == sorted(map(frozenset, chunk_terms), key=sorted)
    if verpart == "grouped":
        return all(len({home[t] for t in g}) == 1 for g in groups)
    raise InputError(f"VPA: unknown verpart variant {verpart!r}; choose strict or grouped")


def _enumerate_placements(groups: Sequence[int], n_anchors: int) -> Iterator[list[tuple[int, ...]]]:
    """All ways to give ``groups[g]`` distinct anchors to each group g (anchors distinct overall),
    lexicographic: group 0's combination varies slowest."""

    def rec(g: int, free: tuple[int, ...]) -> Iterator[list[tuple[int, ...]]]:
        if g == len(groups):
            yield []
            return
        for combo in itertools.combinations(free, groups[g]):
            rest = tuple(a for a in free if a not in combo)
            for tail in rec(g + 1, rest):
                yield [combo, *tail]

    yield from rec(0, tuple(range(n_anchors)))


# ----------------------------------------------------------------------------------------------
# The attack
# ----------------------------------------------------------------------------------------------


def _distinct_pieces(chunk: Sequence[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[list[int]]]:
    """Distinct sub-records in first-listed order and the listed positions of each."""
    where: dict[tuple[str, ...], list[int]] = {}
    for p, sub in enumerate(chunk):
        where.setdefault(tuple(sub), []).append(p)
    return list(where), list(where.values())


class _Context:
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
        distinct, positions = _distinct_pieces(chunk)
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


class _TrialChecker:
    """:func:`verpart_consistent` for the trials of one chunk, incremental on term-id bit matrices.

    Between the trials of chunk j only the columns of T_j change: the earlier chunks' terms sit on
    the records built so far, and every T_j term's support is the number of listed sub-records that
    hold it (the sub-records go to distinct records), so VERPART's term order is fixed per chunk.
    The checker therefore builds once the (records x terms) 0/1 matrix of the fixed terms, the pair
    supports among them and the (distinct piece x T_j term) incidence; a trial only recomputes the
    T_j rows of the pair-support matrix (one small matrix product) and replays the greedy passes
    with an early exit: a pass that takes a term of a second published chunk already fails both
    variants, and under ``strict`` a finished pass must hold its whole chunk. For m = 2 the k^m test
    of a term against the open set is one AND over a boolean row; for m > 2 the anonymizer's
    :func:`anonymizer.disassociation.verpart.extends_km` runs on bitsets built from the same matrix. Tested to agree
    with :func:`verpart_consistent` on random trials.
    """

    def __init__(
        self,
        current: Sequence[frozenset[str]],
        chunk_terms: Sequence[Sequence[str]],
        distinct: Sequence[tuple[str, ...]],
        counts: Sequence[int],
        k: int,
        m: int,
        verpart: str,
    ) -> None:
        if verpart not in ("strict", "grouped"):
            raise InputError(f"VPA: unknown verpart variant {verpart!r}; choose strict or grouped")
        self.k, self.m, self.strict = k, m, verpart == "strict"
        j = len(chunk_terms) - 1
        home: dict[str, int] = {t: c for c, terms in enumerate(chunk_terms) for t in terms}
        size = len(current)
        fixed_cols = {t: i for i, t in enumerate(t for t in home if home[t] != j)}
        F = np.zeros((size, len(fixed_cols)), dtype=np.float32)
        for a, r in enumerate(current):
            for t in r:
                col = fixed_cols.get(t)
                if col is not None:
                    F[a, col] = 1.0
        new_terms = [t for t in home if home[t] == j]
        new_index = {t: i for i, t in enumerate(new_terms)}
        Q = np.zeros((len(distinct), len(new_terms)), dtype=np.float32)
        for d, piece in enumerate(distinct):
            for t in piece:
                Q[d, new_index[t]] = 1.0
        support = {t: float(F[:, c].sum()) for t, c in fixed_cols.items()}
        new_support = np.asarray(counts, dtype=np.float32) @ Q if len(distinct) else np.zeros(len(new_terms))
        support.update({t: float(new_support[i]) for i, t in enumerate(new_terms)})
        order = _verpart_order(home, support, verpart)
        self.n = len(order)
        self.home = np.array([home[t] for t in order], dtype=np.int64)
        self.chunk_size = np.bincount(self.home, minlength=j + 1)
        is_new = self.home == j
        self.new_pos = np.flatnonzero(is_new)  # positions (in VERPART order) of the T_j terms
        self.new_cols = np.array([new_index[t] for t in order if home[t] == j], dtype=np.int64)
        # the trial matrix in VERPART order: fixed columns filled now, T_j columns per trial
        self.B = np.zeros((size, self.n), dtype=np.float32)
        fixed_pos = np.flatnonzero(~is_new)
        if len(fixed_pos):
            self.B[:, fixed_pos] = F[:, [fixed_cols[order[p]] for p in fixed_pos]]
        self.Q = Q[:, self.new_cols]
        self.size = size
        if m == 2:
            self.ok = (self.B.T @ self.B) >= k

    def consistent(self, placement: Sequence[tuple[int, ...]]) -> bool:
        """Does the trial (distinct piece d on the anchors ``placement[d]``) pass the VERPART re-run?"""
        P = np.zeros((self.size, len(placement)), dtype=np.float32)
        for d, combo in enumerate(placement):
            P[list(combo), d] = 1.0
        cols = P @ self.Q
        self.B[:, self.new_pos] = cols
        if self.m < 2:
            return self._greedy(lambda members, cand: True)
        if self.m == 2:
            ok = self.ok
            rows = (cols.T @ self.B) >= self.k
            ok[self.new_pos, :] = rows
            ok[:, self.new_pos] = rows.T
            return self._greedy_pairs(ok)
        from anonymizer.disassociation.verpart import extends_km

        bits = [_column_bits(self.B[:, p]) for p in range(self.n)]
        return self._greedy(
            lambda members, cand: extends_km([bits[i] for i in members], bits[cand], self.k, self.m, False)
        )

    def _greedy_pairs(self, ok: np.ndarray) -> bool:
        n = self.n
        remain = np.ones(n, dtype=bool)
        home = self.home
        while True:
            free = np.flatnonzero(remain)
            if not len(free):
                return True
            first = int(free[0])
            h = home[first]
            remain[first] = False
            compat = ok[first] & remain
            taken = 1
            pos = first
            while pos + 1 < n:
                tail = compat[pos + 1 :]
                step = int(tail.argmax())  # the first compatible term after pos, if any
                if not tail[step]:
                    break
                pos = pos + 1 + step
                if home[pos] != h:
                    return False
                remain[pos] = False
                compat &= ok[pos]
                taken += 1
            if self.strict and taken != self.chunk_size[h]:
                return False

    def _greedy(self, fits: Any) -> bool:
        remain = list(range(self.n))
        while remain:
            members: list[int] = []
            rest: list[int] = []
            for i in remain:
                if not members or fits(members, i):
                    if members and self.home[i] != self.home[members[0]]:
                        return False
                    members.append(i)
                else:
                    rest.append(i)
            if self.strict and len(members) != self.chunk_size[self.home[members[0]]]:
                return False
            remain = rest
        return True


def _column_bits(col: np.ndarray) -> int:
    """A 0/1 column as a Python-int bitset (bit i = row i)."""
    packed = np.packbits(col.astype(np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _vpa_cluster(
    ctx: _Context,
    cluster: Cluster,
    anchors: list[tuple[str, ...]],
    k: int,
    m: int,
    verpart: str,
    limit: int,
    budget: list[int],
) -> tuple[list[list[int]], int, int, int]:
    """Algorithm 9 on one cluster: returns the assignment per chunk, cut, failed, trials.

    ``budget[0]`` is the number of trials left for the whole attack (every trial counts; when it
    reaches 0 the remaining chunks are cut at once).
    """
    size = len(anchors)
    current = [frozenset(a) for a in anchors]
    assignment: list[list[int]] = [list(range(len(cluster.record_chunks[0])))] if cluster.record_chunks else []
    cut = failed = trials = 0
    for j in range(1, len(cluster.record_chunks)):
        chunk = cluster.record_chunks[j]
        distinct, positions = _distinct_pieces(chunk)
        chunk_terms = [sorted(cluster.chunk_terms(i)) for i in range(j + 1)]
        chosen: list[int] | None = None
        n_tried = 0
        exhausted = True
        cap = min(limit, budget[0])
        checker: _TrialChecker | None = None
        for placement in _enumerate_placements([len(p) for p in positions], size):
            if n_tried >= cap:
                exhausted = False
                break
            if checker is None:
                checker = _TrialChecker(current, chunk_terms, distinct, [len(p) for p in positions], k, m, verpart)
            n_tried += 1
            if checker.consistent(placement):
                chosen = [0] * len(chunk)
                for d, combo in enumerate(placement):
                    for p, a in zip(positions[d], combo, strict=True):
                        chosen[p] = a
                break
        trials += n_tried
        budget[0] -= n_tried
        if chosen is None:
            if exhausted:
                failed += 1
            else:
                cut += 1
            chosen = sel.random_distinct(ctx.rng, len(chunk), size)
        for p, a in enumerate(chosen):
            current[a] = current[a] | frozenset(chunk[p])
        assignment.append(chosen)
    return assignment, cut, failed, trials


def _cluster_anchors(cluster: Cluster) -> list[tuple[str, ...]]:
    listed = [tuple(s) for s in cluster.record_chunks[0]] if cluster.record_chunks else []
    if len(listed) > cluster.size:
        raise InputError(f"cluster {cluster.id}: C1 lists more sub-records than the cluster size")
    return listed + [()] * (cluster.size - len(listed))


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
    if selector not in sel.SELECTORS:
        raise InputError(f"unknown selector {selector!r}; choose one of {', '.join(sel.SELECTORS)}")
    if chunks not in CHUNK_PARTS:
        raise InputError(f"chunks must be one of {', '.join(CHUNK_PARTS)}, got {chunks!r}")
    if vpa_limit < 1:
        raise InputError(f"vpa_limit must be at least 1, got {vpa_limit}")
    if vpa_budget is not None and vpa_budget < 0:
        raise InputError(f"vpa_budget must be at least 0, got {vpa_budget}")
    budget = [sys.maxsize if vpa_budget is None else int(vpa_budget)]
    needs_scorer = selector in ("ABA", "RGA", "MRA", "assign", "ABA-spread")
    if needs_scorer and scorer is None:
        raise InputError(f"selector {selector} needs a scorer")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    k, m = release.k, release.m
    verpart = str(release.params.get("verpart", "strict"))
    if verpart not in ("strict", "grouped"):
        verpart = "strict"
    ctx = _Context(scorer, selector, rng, k)
    before_pairs = scorer.unknown_pairs if scorer is not None else 0
    do_record = chunks in ("record", "both")
    do_term = chunks in ("term", "both")
    results: list[ClusterReconstruction] = []
    cut_total = failed_total = trials_total = 0
    disable = (not sys.stderr.isatty()) if progress is None else not progress
    for cluster in tqdm(release.clusters, desc=f"semantic {selector}", unit="cluster", disable=disable):
        anchors = _cluster_anchors(cluster)
        rec = ClusterReconstruction(cluster.id, anchors, len(cluster.record_chunks[0]) if cluster.record_chunks else 0)
        if cluster.record_chunks:
            rec.record_assignment = [list(range(rec.n_listed))] + [[] for _ in cluster.record_chunks[1:]]
        if do_record and len(cluster.record_chunks) > 1:
            if selector == "VPA":
                assignment, cut, failed, trials = _vpa_cluster(ctx, cluster, anchors, k, m, verpart, vpa_limit, budget)
                rec.record_assignment = assignment
                cut_total += cut
                failed_total += failed
                trials_total += trials
            else:
                for j in range(1, len(cluster.record_chunks)):
                    rec.record_assignment[j] = ctx.place_chunk(cluster.record_chunks[j], anchors, selector)
        if do_term and cluster.term_chunk:
            rec.term_assignment = ctx.place_terms(cluster.term_chunk, anchors, selector)
        results.append(rec)

    shared_results: list[SharedReconstruction] = []
    if do_record and release.joint_clusters:
        position = {c.id: i for i, c in enumerate(release.clusters)}
        joint_leaves = release.joint_leaves()
        for joint in release.joint_clusters:
            leaves = joint_leaves[joint.id]
            refs = [(position[leaf.id], a) for leaf in leaves for a in range(len(results[position[leaf.id]].anchors))]
            anchors = [results[ci].anchors[a] for ci, a in refs]
            method = "random" if selector == "VPA" else selector
            shared = SharedReconstruction(
                joint.id, refs, [ctx.place_chunk(ch, anchors, method) for ch in joint.shared_chunks]
            )
            shared_results.append(shared)

    _build_records(release, results, shared_results)
    result = SemanticResult(
        selector=selector,
        chunks=chunks,
        scorer=getattr(scorer, "name", "none") if scorer is not None else "none",
        seed=seed,
        clusters=results,
        shared=shared_results,
        unknown_policy=getattr(scorer, "unknown", "skip") if scorer is not None else "skip",
        no_evidence_pieces=ctx.no_evidence,
        vpa_cut=cut_total > 0,
        vpa_cut_chunks=cut_total,
        vpa_failed_chunks=failed_total,
        vpa_trials=trials_total,
    )
    if needs_scorer:
        _count_unknown(release, scorer, result, do_record, do_term)
        result.unknown_pairs = scorer.unknown_pairs - before_pairs
    result.seconds = time.perf_counter() - started
    return result


def _build_records(release: Release, results: list[ClusterReconstruction], shared: list[SharedReconstruction]) -> None:
    bags: list[list[set[str]]] = [[set(a) for a in rec.anchors] for rec in results]
    for cluster, rec, bag in zip(release.clusters, results, bags, strict=True):
        for j, assign in enumerate(rec.record_assignment):
            if j == 0:
                continue
            for p, a in enumerate(assign):
                bag[a].update(cluster.record_chunks[j][p])
        for t, anchors in rec.term_assignment.items():
            for a in anchors:
                bag[a].add(t)
    joints = {j.id: j for j in release.joint_clusters}
    for sh in shared:
        joint = joints[sh.joint_id]
        for j, assign in enumerate(sh.assignment):
            for p, g in enumerate(assign):
                ci, a = sh.anchors[g]
                bags[ci][a].update(joint.shared_chunks[j][p])
    for rec, bag in zip(results, bags, strict=True):
        rec.records = [sorted(b) for b in bag]


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
