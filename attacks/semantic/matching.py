"""Which reconstructed record stands for which original record (AlShuhail2021 section 5.2).

Two pairings of anchors (reconstructed records) with original records:

* the **matched** pairing (``RecordOutcome.placed``, used by ``accuracy_disassociated_strict``,
  the ``_strict``/``_literal`` breakage, ``km_breakage`` and ``wmd``): an anchor listed in C_1
  stands for the record the truth gives it; anchors with identical C_1 content (in particular all
  empty anchors) cannot be told apart by anyone, so within such a group reconstructed and original
  records are matched by a maximum-overlap assignment (``linear_sum_assignment`` on the number of
  correctly placed disassociated terms). It depends on the attacker's output, so each method is
  paired in its own favour;
* the **fixed** pairing (:func:`fixed_anchors`, ``RecordOutcome.fixed``, used by
  ``accuracy_one_to_one``): the listed anchor at position p stands for the record the truth lists
  at position p of C_1, and the empty anchors, in their order, for the truth's records without a
  listed C_1 sub-record, in the truth's record order. It does not look at what the attacker
  output, so the attack and every baseline are paired alike (it is also how
  :func:`attacks.semantic.baselines.truth_reconstruction` places the true pieces).

Ghost sub-records of safe disassociation (truth id -1) anchor no original record and are left out.

:func:`match_records` gives one :class:`RecordOutcome` per original record: its C_1 sub-record, its
disassociated terms per part, what the attack put on its matched and on its fixed anchor, its
published pieces, and the terms credited to it under the class reading of accuracy
(:func:`class_credit`; see :mod:`attacks.semantic.metrics`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonymizer.model.release import Cluster, Release, Truth
from attacks.semantic.result import ClusterReconstruction, SemanticResult
from corpora.common.errors import InputError

__all__ = ["RecordOutcome", "match_records", "class_credit", "fixed_anchors"]

Piece = frozenset[str]


@dataclass
class RecordOutcome:
    """One original record's parts and what the attack put on its anchor."""

    record: int
    anchor: frozenset[str]
    """The record's C_1 sub-record (empty for an empty anchor): the terms every reconstruction keeps."""
    original: dict[str, frozenset[str]]
    """Per part, the record's disassociated terms (T^-_i of section 5.2.1 restricted to the part)."""
    placed: dict[str, frozenset[str]]
    """Per part, what the attack put on the anchor of the matched pairing (module doc)."""
    pieces: list[frozenset[str]]
    """The record's published pieces (C_1 sub-record, other sub-records, single term-chunk terms)."""
    term_chunk: frozenset[str]
    reconstructed: frozenset[str]
    class_hits: dict[str, float] = field(default_factory=lambda: {"record": 0.0, "term": 0.0})
    """Per part, the record's disassociated terms credited under the class reading (module doc)."""
    fixed: dict[str, frozenset[str]] = field(default_factory=lambda: {"record": frozenset(), "term": frozenset()})
    """Per part, what the attack put on the record's anchor of the fixed pairing (:func:`fixed_anchors`)."""


def fixed_anchors(ct: Any, n_listed: int, n_anchors: int) -> dict[int, int]:
    """The fixed one-to-one pairing of a cluster: record id -> anchor index, independent of any attack.

    The listed anchor at position p stands for the record the truth lists at p of C_1 (ghost
    positions, id -1, stand for none); the empty anchors ``n_listed .. n_anchors - 1``, in order,
    for the truth's records (``ct.records`` order) that C_1 does not list.
    """
    listed = ct.record_chunks[0] if ct.record_chunks else []
    where = {rid: a for a, rid in enumerate(listed[:n_listed]) if rid >= 0}
    empty = iter(range(n_listed, n_anchors))
    for rid in ct.records:
        if rid not in where:
            a = next(empty, None)
            if a is None:
                raise InputError(f"cluster {ct.id}: more records without a C1 sub-record than empty anchors")
            where[rid] = a
    return where


def class_credit(owned: list[tuple[Any, int, int]], placed: list[Any], hits: dict[int, float]) -> None:
    """Add each record's credited terms: ``owned`` = (key, record, terms) per piece of a record,
    ``placed`` = the key of each piece the attack put somewhere. A key names (chunk, anchor class,
    piece content): pieces with equal keys are interchangeable, so the class's min(needed, placed)
    correct copies are shared equally among the pieces needing them."""
    need: dict[Any, int] = {}
    for key, _rid, _w in owned:
        need[key] = need.get(key, 0) + 1
    got: dict[Any, int] = {}
    for key in placed:
        got[key] = got.get(key, 0) + 1
    for key, rid, w in owned:
        hits[rid] = hits.get(rid, 0.0) + w * min(need[key], got.get(key, 0)) / need[key]


@dataclass
class _Shared:
    """The shared chunks of the joint clusters: per record its terms and pieces there, per
    (cluster position, anchor) the shared terms the attack put on that anchor."""

    terms: dict[int, set[str]] = field(default_factory=dict)
    pieces: dict[int, list[Piece]] = field(default_factory=dict)
    placed: dict[tuple[int, int], set[str]] = field(default_factory=dict)


def _shared_truth(result: SemanticResult, release: Release, truth: Truth) -> _Shared:
    out = _Shared()
    jtruth = {j.id: j for j in truth.joint_clusters}
    for joint in release.joint_clusters:
        jt = jtruth.get(joint.id)
        if jt is None or [len(c) for c in jt.shared_chunks] != [len(c) for c in joint.shared_chunks]:
            raise InputError(f"truth and release disagree on joint cluster {joint.id}")
        for chunk, ids in zip(joint.shared_chunks, jt.shared_chunks, strict=True):
            for sub, rid in zip(chunk, ids, strict=True):
                if rid >= 0:
                    out.terms.setdefault(rid, set()).update(sub)
                    out.pieces.setdefault(rid, []).append(frozenset(sub))
    joints = {j.id: j for j in release.joint_clusters}
    for sh in result.shared:
        joint = joints[sh.joint_id]
        for j, assign in enumerate(sh.assignment):
            for p, g in enumerate(assign):
                if g >= 0:
                    out.placed.setdefault(sh.anchors[g], set()).update(joint.shared_chunks[j][p])
    return out


@dataclass
class _ClusterTruth:
    """What the truth says about one cluster's records: listed anchors, disassociated terms per
    part (record chunks with the shared chunks, term chunk) and published pieces."""

    anchor_of: dict[int, Piece]
    anchor_tuple: dict[int, tuple[str, ...]]
    record_terms: dict[int, set[str]]
    term_terms: dict[int, set[str]]
    pieces: dict[int, list[Piece]]


def _cluster_truth(cluster: Any, ct: Any, shared: _Shared) -> _ClusterTruth:
    listed_ids = ct.record_chunks[0] if ct.record_chunks else []
    out = _ClusterTruth({}, {}, {r: set() for r in ct.records}, {r: set() for r in ct.records},
                        {r: [] for r in ct.records})
    for p, rid in enumerate(listed_ids):
        if rid >= 0:
            out.anchor_of[rid] = frozenset(cluster.record_chunks[0][p])
            out.anchor_tuple[rid] = tuple(cluster.record_chunks[0][p])
            out.pieces.setdefault(rid, []).append(out.anchor_of[rid])
    for j in range(1, len(cluster.record_chunks)):
        for sub, rid in zip(cluster.record_chunks[j], ct.record_chunks[j], strict=True):
            if rid >= 0:
                out.record_terms.setdefault(rid, set()).update(sub)
                out.pieces.setdefault(rid, []).append(frozenset(sub))
    for t, rids in ct.term_chunk.items():
        for rid in rids:
            if rid >= 0:
                out.term_terms.setdefault(rid, set()).add(t)
                out.pieces.setdefault(rid, []).append(frozenset([t]))
    for rid in ct.records:
        if rid in shared.terms:
            out.record_terms[rid].update(shared.terms[rid])
            out.pieces[rid].extend(shared.pieces[rid])
    return out


def _placed_terms(
    cluster: Cluster, rec: ClusterReconstruction, shared: _Shared, ci: int
) -> tuple[list[set[str]], list[set[str]]]:
    """What each anchor received: record-chunk (and shared-chunk) terms, term-chunk terms."""
    placed_rec: list[set[str]] = [set() for _ in rec.anchors]
    placed_term: list[set[str]] = [set() for _ in rec.anchors]
    for j, assign in enumerate(rec.record_assignment):
        if j == 0:
            continue
        for p, a in enumerate(assign):
            if a >= 0:
                placed_rec[a].update(cluster.record_chunks[j][p])
    for t, anchors in rec.term_assignment.items():
        for a in anchors:
            placed_term[a].add(t)
    for a in range(len(rec.anchors)):
        placed_rec[a].update(shared.placed.get((ci, a), ()))
    return placed_rec, placed_term


def _credit_record_chunks(cluster: Cluster, ct: Any, rec: ClusterReconstruction, local: dict[int, tuple[str, ...]],
                          hits: dict[int, float]) -> None:
    """The class reading on C_2..C_n: a piece counts when it reached an anchor of its owner's class."""
    owned, placed = [], []
    for j in range(1, len(cluster.record_chunks)):
        assign = rec.record_assignment[j] if j < len(rec.record_assignment) else []
        for p, (sub, rid) in enumerate(zip(cluster.record_chunks[j], ct.record_chunks[j], strict=True)):
            if rid >= 0:
                owned.append(((j, local[rid], tuple(sub)), rid, len(sub)))
            if p < len(assign) and assign[p] >= 0:
                placed.append((j, rec.anchors[assign[p]], tuple(sub)))
    class_credit(owned, placed, hits)


def _credit_term_chunk(ct: Any, rec: ClusterReconstruction, local: dict[int, tuple[str, ...]],
                       hits: dict[int, float]) -> None:
    """The class reading on the term chunk: a term counts when one of its copies reached its owner's class."""
    owned, placed = [], []
    for t, rids in ct.term_chunk.items():
        owned += [((t, local[r]), r, 1) for r in rids if r >= 0]
        placed += [(t, rec.anchors[a]) for a in set(rec.term_assignment.get(t, ()))]
    class_credit(owned, placed, hits)


def _credit_shared_chunks(result: SemanticResult, release: Release, truth: Truth,
                          class_of: dict[int, tuple[int, tuple[str, ...]]], hits: dict[int, float]) -> None:
    """The class reading on the shared chunks: classes are (cluster position, C_1 content)."""
    jtruth = {j.id: j for j in truth.joint_clusters}
    shared_of = {sh.joint_id: sh for sh in result.shared}
    for joint in release.joint_clusters:
        ids = jtruth[joint.id].shared_chunks
        sh_of = shared_of.get(joint.id)
        owned, placed = [], []
        for j, (chunk, rids) in enumerate(zip(joint.shared_chunks, ids, strict=True)):
            assign = sh_of.assignment[j] if sh_of is not None and j < len(sh_of.assignment) else []
            for p, (sub, rid) in enumerate(zip(chunk, rids, strict=True)):
                if rid >= 0:
                    owned.append(((j, class_of[rid], tuple(sub)), rid, len(sub)))
                if sh_of is not None and p < len(assign) and assign[p] >= 0:
                    ci, a = sh_of.anchors[assign[p]]
                    placed.append((j, (ci, result.clusters[ci].anchors[a]), tuple(sub)))
        class_credit(owned, placed, hits)


def _anchor_groups(
    rec: ClusterReconstruction, ct: Any, anchor_of: dict[int, Piece]
) -> dict[tuple[str, ...], tuple[list[int], list[int]]]:
    """Groups of indistinguishable anchors (equal C_1 content) -> (their anchors, the records they stand for)."""
    listed_ids = ct.record_chunks[0] if ct.record_chunks else []
    groups: dict[tuple[str, ...], tuple[list[int], list[int]]] = {}
    for a, content in enumerate(rec.anchors):
        groups.setdefault(content, ([], []))[0].append(a)
        if a < rec.n_listed:
            rid = listed_ids[a]
            if rid >= 0:
                groups[content][1].append(rid)
    empty_ids = [r for r in ct.records if r not in anchor_of]
    if empty_ids:
        groups.setdefault((), ([], []))[1].extend(empty_ids)
    return groups


def _pair_group(anchors: list[int], rids: list[int], got: Callable[[int], set[str]],
                target: Callable[[int], set[str]]) -> list[tuple[int, int]]:
    """(anchor, record) pairs of one group: the maximum-overlap assignment."""
    if len(anchors) == 1 and len(rids) == 1:
        return [(anchors[0], rids[0])]
    from scipy.optimize import linear_sum_assignment  # here: scipy.optimize takes half a second to import

    overlap = np.array([[len(got(a) & target(r)) for r in rids] for a in anchors], dtype=float)
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    return [(anchors[i], rids[j]) for i, j in zip(rows, cols, strict=True)]


def _cluster_outcomes(rec: ClusterReconstruction, ct: Any, truth_of: _ClusterTruth, placed_rec: list[set[str]],
                      placed_term: list[set[str]], do_record: bool, do_term: bool) -> list[RecordOutcome]:
    """One :class:`RecordOutcome` per record of the cluster, on its matched anchor."""

    def target(rid: int) -> set[str]:
        out: set[str] = set()
        if do_record:
            out |= truth_of.record_terms.get(rid, set())
        if do_term:
            out |= truth_of.term_terms.get(rid, set())
        return out

    def got(a: int) -> set[str]:
        return (placed_rec[a] if do_record else set()) | (placed_term[a] if do_term else set())

    fixed = fixed_anchors(ct, rec.n_listed, len(rec.anchors))
    outcomes: list[RecordOutcome] = []
    for anchors_g, rids in _anchor_groups(rec, ct, truth_of.anchor_of).values():
        if not rids:
            continue
        for a, rid in _pair_group(anchors_g, rids, got, target):
            outcomes.append(RecordOutcome(
                record=rid,
                anchor=frozenset(rec.anchors[a]),
                original={
                    "record": frozenset(truth_of.record_terms.get(rid, set())) if do_record else frozenset(),
                    "term": frozenset(truth_of.term_terms.get(rid, set())) if do_term else frozenset(),
                },
                placed={
                    "record": frozenset(placed_rec[a]) if do_record else frozenset(),
                    "term": frozenset(placed_term[a]) if do_term else frozenset(),
                },
                pieces=list(truth_of.pieces.get(rid, [])),
                term_chunk=frozenset(truth_of.term_terms.get(rid, set())),
                reconstructed=frozenset(rec.records[a]),
                fixed={
                    "record": frozenset(placed_rec[fixed[rid]]) if do_record else frozenset(),
                    "term": frozenset(placed_term[fixed[rid]]) if do_term else frozenset(),
                },
            ))
    return outcomes


def match_records(
    result: SemanticResult, release: Release, truth: Truth, attacked: Sequence[str] = ("record", "term")
) -> list[RecordOutcome]:
    """Pair every original record of the release with its reconstructed record (see module doc)."""
    truth.check_against(release)
    if [c.cluster_id for c in result.clusters] != [c.id for c in release.clusters]:
        raise InputError("the attack result and the release list different clusters")
    do_record = "record" in attacked
    do_term = "term" in attacked
    outcomes: list[RecordOutcome] = []
    class_of: dict[int, tuple[int, tuple[str, ...]]] = {}  # record -> (cluster position, C_1 content)
    hits_rec: dict[int, float] = {}
    hits_term: dict[int, float] = {}
    shared = _shared_truth(result, release, truth) if do_record else _Shared()
    for ci, (cluster, ct, rec) in enumerate(zip(release.clusters, truth.clusters, result.clusters, strict=True)):
        truth_of = _cluster_truth(cluster, ct, shared)
        placed_rec, placed_term = _placed_terms(cluster, rec, shared, ci)
        class_of.update({rid: (ci, truth_of.anchor_tuple.get(rid, ())) for rid in ct.records})
        local = {rid: key[1] for rid, key in class_of.items() if key[0] == ci}
        if do_record:
            _credit_record_chunks(cluster, ct, rec, local, hits_rec)
        if do_term:
            _credit_term_chunk(ct, rec, local, hits_term)
        outcomes += _cluster_outcomes(rec, ct, truth_of, placed_rec, placed_term, do_record, do_term)
    if do_record:
        _credit_shared_chunks(result, release, truth, class_of, hits_rec)
    for o in outcomes:
        o.class_hits = {"record": hits_rec.get(o.record, 0.0), "term": hits_term.get(o.record, 0.0)}
    outcomes.sort(key=lambda o: o.record)
    return outcomes
