"""How much a semantic attack recovered (AlShuhail2021 section 5.2).

:func:`evaluate_semantic` compares a :class:`~attacks.semantic.attack.SemanticResult` with the truth and
the original dataset, for the attack and for the random baseline (section 5.2: "a random attack
... as a baseline"), per part (``record``: pieces of record chunks C_2..C_n and of shared chunks;
``term``: the term chunk; ``overall``: both), each with a 95% percentile bootstrap interval over
the records.

Which reconstructed record stands for which original record (the strict metrics, k^m breakage and
WMD): an anchor listed in C_1 stands for the record the truth gives it; anchors with identical C_1
content (in particular all empty anchors) cannot be told apart by anyone, so within such a group
reconstructed and original records are matched by a maximum-overlap assignment
(``linear_sum_assignment`` on the number of correctly placed disassociated terms). Ghost
sub-records of safe disassociation (truth id -1) anchor no original record and are left out.

For original record T_i with anchoring sub-record A_i, let O_i be its disassociated terms of the
part (T_i minus C_1, restricted to the part's chunks: T^-_i of section 5.2.1) and R_i the terms the
attack placed on its anchor from the same chunks. Only records with a non-empty O_i count for a
part (the others have nothing to recover).

* ``accuracy``: equation 5.4 / Ac(D) in the thesis's reading of indistinguishable anchors (section
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
  the part, Rec(T_i) = C_i / |O_i| and Ac(D) is their mean (C_1 left out, as section 5.3 measures
  "the percentage of terms and sub-records that are correctly combined"). The score depends only
  on what the attacker output (which content went to which class), not on hidden positions;
* ``accuracy_strict``: the one-to-one reading, Rec(T_i) = |R_i ∩ O_i| / |O_i| with R_i the terms on
  the anchor matched to T_i (above). It punishes the thesis's tie rule, which piles the pieces of
  tied anchors on the first of them, even where every placement is right in the class reading;
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from anonymizer.evaluation.consistency import check_truth
from anonymizer.model.release import Release, Truth
from attacks.semantic.attack import (
    ClusterReconstruction,
    SemanticResult,
    SharedReconstruction,
    _cluster_anchors,
    run_semantic_attack,
)
from attacks.semantic.ngd import term_words
from corpora.common.errors import InputError
from corpora.common.stats import bootstrap_ratio, paired_difference_interval
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

METRICS = ("accuracy", "transaction_breakage", "km_breakage", "wmd", "accuracy_strict", "transaction_breakage_strict",
           "transaction_breakage_literal")
"""Metric names; the ``_strict`` ones are the one-to-one readings and ``transaction_breakage_literal``
eqs. 5.2-5.3 as printed (appended last: the bootstrap streams are seeded by position)."""
BASELINES = ("random", "blind", "oracle")
"""The reference methods evaluated beside an attack (see :func:`evaluate_semantic`)."""
HIGHER_IS_BETTER = {m: m != "wmd" for m in METRICS}
PARTS = ("record", "term", "overall")


@dataclass(frozen=True)
class MetricRow:
    metric: str
    part: str
    method: str
    value: float
    lo: float
    hi: float
    n: int


@dataclass(frozen=True)
class DiffRow:
    """The paired difference attack minus a baseline on the same records, with a bootstrap interval.

    Both methods are scored on the same release, truth and records; the interval resamples the
    records once for both (paired), so the spread of the records' difficulty cancels out.
    """

    metric: str
    part: str
    method: str
    baseline: str
    value: float
    lo: float
    hi: float
    n: int


@dataclass
class RecordOutcome:
    """One original record's parts and what the attack put on its anchor."""

    record: int
    anchor: frozenset[str]
    original: dict[str, frozenset[str]]
    placed: dict[str, frozenset[str]]
    pieces: list[frozenset[str]]
    """The record's published pieces (C_1 sub-record, other sub-records, single term-chunk terms)."""
    term_chunk: frozenset[str]
    reconstructed: frozenset[str]
    class_hits: dict[str, float] = field(default_factory=lambda: {"record": 0.0, "term": 0.0})
    """Per part, the record's disassociated terms credited under the class reading (module doc)."""


@dataclass
class SemanticMetrics:
    """The metric table: one :class:`MetricRow` per (metric, part, method)."""

    rows: list[MetricRow] = field(default_factory=list)
    selector: str = ""
    records: int = 0
    differences: list[DiffRow] = field(default_factory=list)
    """Attack minus random, paired on the records (see :class:`DiffRow`)."""
    info: dict[str, Any] = field(default_factory=dict)
    """Counters of the attack (unknown terms, scorer, ...) for the JSON report."""
    per_record: dict[str, Any] = field(default_factory=dict, repr=False)
    """Per method, the per-record values behind the rows (for paired differences)."""

    def difference_vs(self, other: SemanticMetrics, baseline: str = "random", seed: int = 0,
                      bootstrap: int = 1000) -> list[DiffRow]:
        """This attack minus ``other``'s method ``baseline``, paired on the records both count.

        Both must come from the same release, truth and original (the sweep evaluates the random
        baseline once per run and pairs every method of the run with it)."""
        mine, theirs = self.per_record.get(self.selector), other.per_record.get(baseline)
        if mine is None or theirs is None:
            raise KeyError((self.selector, baseline))
        return _paired_differences(mine, theirs, self.selector, baseline, seed, bootstrap)

    def difference(self, metric: str, part: str, baseline: str = "random") -> DiffRow:
        """The paired difference of one (metric, part) against ``baseline``."""
        for d in self.differences:
            if (d.metric, d.part, d.baseline) == (metric, part, baseline):
                return d
        raise KeyError((metric, part, baseline))

    def as_json(self) -> dict[str, Any]:
        """One object: ``metrics[method][metric][part] = {value, lo, hi, n}`` for the attack and every
        baseline, ``difference_vs_random[metric][part] = {value, lo, hi, n}``, ``selector``, ``records``
        and ``info``. ``nan`` becomes ``null``."""

        def num(x: float) -> float | None:
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)

        metrics: dict[str, Any] = {}
        for r in self.rows:
            metrics.setdefault(r.method, {}).setdefault(r.metric, {})[r.part] = {
                "value": num(r.value), "lo": num(r.lo), "hi": num(r.hi), "n": r.n}
        diffs: dict[str, Any] = {}
        for d in self.differences:
            if d.baseline == "random":
                diffs.setdefault(d.metric, {})[d.part] = {"value": num(d.value), "lo": num(d.lo), "hi": num(d.hi),
                                                          "n": d.n}
        return {"selector": self.selector, "records": self.records, "metrics": metrics,
                "difference_vs_random": diffs, "info": self.info}

    def as_rows(self) -> list[dict[str, Any]]:
        """Tidy rows: dicts with metric, part, method, value, lo, hi (and n, the records counted)."""
        return [
            {"metric": r.metric, "part": r.part, "method": r.method, "value": r.value, "lo": r.lo, "hi": r.hi, "n": r.n}
            for r in self.rows
        ]

    def to_frame(self) -> Any:
        """The tidy rows of :meth:`as_rows` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.as_rows(), columns=["metric", "part", "method", "value", "lo", "hi", "n"])

    def __repr__(self) -> str:
        return f"SemanticMetrics(selector={self.selector!r}, records={self.records}, rows={len(self.rows)})"

    def get(self, metric: str, part: str, method: str | None = None) -> float:
        """The value of one cell (``method`` defaults to the attack's selector)."""
        method = method or self.selector
        for r in self.rows:
            if (r.metric, r.part, r.method) == (metric, part, method):
                return r.value
        raise KeyError((metric, part, method))

    def format_table(self) -> str:
        """A plain-text table: one line per (metric, part), the attack beside the random baseline."""
        width = max([len("metric"), *(len(r.metric) for r in self.rows)]) + 2
        head = f"{'metric':<{width}}{'part':<9}{self.selector + ' [95% CI]':<28}{'random [95% CI]':<28}{'n':>7}"
        lines = [head, "-" * len(head)]
        cells: dict[tuple[str, str, str], MetricRow] = {(r.metric, r.part, r.method): r for r in self.rows}
        seen: list[tuple[str, str]] = []
        for r in self.rows:
            if (r.metric, r.part) not in seen:
                seen.append((r.metric, r.part))

        def fmt(row: MetricRow | None) -> str:
            if row is None or math.isnan(row.value):
                return "n/a"
            return f"{row.value:.3f} [{row.lo:.3f}, {row.hi:.3f}]"

        for metric, part in seen:
            att = cells.get((metric, part, self.selector))
            rnd = cells.get((metric, part, "random"))
            n = (att or rnd).n if (att or rnd) else 0
            lines.append(f"{metric:<{width}}{part:<9}{fmt(att):<28}{fmt(rnd):<28}{n:>7}")
        others = [m for m in BASELINES[1:] if any(r.method == m for r in self.rows) and m != self.selector]
        if others or self.differences:
            diff = {(d.metric, d.part): d for d in self.differences if d.baseline == "random"}
            head2 = f"{'metric':<{width}}{'part':<9}{'attack - random [95% CI]':<28}" + "".join(
                f"{m + ' [95% CI]':<28}" for m in others)
            lines += ["", head2, "-" * len(head2)]
            for metric, part in seen:
                d = diff.get((metric, part))
                dtxt = "n/a" if d is None or math.isnan(d.value) else f"{d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}]"
                lines.append(f"{metric:<{width}}{part:<9}{dtxt:<28}" + "".join(
                    f"{fmt(cells.get((metric, part, m))):<28}" for m in others))
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Matching reconstructed records to original records
# ----------------------------------------------------------------------------------------------


def _as_sets(original: Any) -> list[frozenset[str]]:
    if original is None:
        raise InputError("evaluate_semantic needs the original dataset")
    try:
        return [frozenset(r) for r in original]
    except TypeError:
        raise InputError("original: expected a TransactionDataset or a list of records") from None


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
    # shared-chunk pieces: per cluster position, per record id -> sub-records; per anchor -> placed terms
    shared_orig: dict[int, set[str]] = {}
    shared_pieces: dict[int, list[frozenset[str]]] = {}
    shared_placed: dict[tuple[int, int], set[str]] = {}
    joints = {j.id: j for j in release.joint_clusters}
    jtruth = {j.id: j for j in truth.joint_clusters}
    if do_record:
        for joint in release.joint_clusters:
            jt = jtruth.get(joint.id)
            if jt is None or [len(c) for c in jt.shared_chunks] != [len(c) for c in joint.shared_chunks]:
                raise InputError(f"truth and release disagree on joint cluster {joint.id}")
            for chunk, ids in zip(joint.shared_chunks, jt.shared_chunks, strict=True):
                for sub, rid in zip(chunk, ids, strict=True):
                    if rid >= 0:
                        shared_orig.setdefault(rid, set()).update(sub)
                        shared_pieces.setdefault(rid, []).append(frozenset(sub))
        for sh in result.shared:
            joint = joints[sh.joint_id]
            for j, assign in enumerate(sh.assignment):
                for p, g in enumerate(assign):
                    if g >= 0:
                        shared_placed.setdefault(sh.anchors[g], set()).update(joint.shared_chunks[j][p])

    for ci, (cluster, ct, rec) in enumerate(zip(release.clusters, truth.clusters, result.clusters, strict=True)):
        listed_ids = ct.record_chunks[0] if ct.record_chunks else []
        anchor_of: dict[int, frozenset[str]] = {}
        anchor_tuple: dict[int, tuple[str, ...]] = {}
        orig_rec: dict[int, set[str]] = {r: set() for r in ct.records}
        pieces: dict[int, list[frozenset[str]]] = {r: [] for r in ct.records}
        for p, rid in enumerate(listed_ids):
            if rid >= 0:
                anchor_of[rid] = frozenset(cluster.record_chunks[0][p])
                anchor_tuple[rid] = tuple(cluster.record_chunks[0][p])
                pieces.setdefault(rid, []).append(anchor_of[rid])
        for j in range(1, len(cluster.record_chunks)):
            for sub, rid in zip(cluster.record_chunks[j], ct.record_chunks[j], strict=True):
                if rid >= 0:
                    orig_rec.setdefault(rid, set()).update(sub)
                    pieces.setdefault(rid, []).append(frozenset(sub))
        orig_term: dict[int, set[str]] = {r: set() for r in ct.records}
        for t, rids in ct.term_chunk.items():
            for rid in rids:
                if rid >= 0:
                    orig_term.setdefault(rid, set()).add(t)
                    pieces.setdefault(rid, []).append(frozenset([t]))
        for rid in ct.records:
            if rid in shared_orig:
                orig_rec[rid].update(shared_orig[rid])
                pieces[rid].extend(shared_pieces[rid])
        # what each anchor received
        placed_rec = [set() for _ in rec.anchors]
        placed_term = [set() for _ in rec.anchors]
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
            placed_rec[a].update(shared_placed.get((ci, a), ()))
        # the class reading: credit the record's pieces that reached an anchor of its class
        class_of.update({rid: (ci, anchor_tuple.get(rid, ())) for rid in ct.records})
        local = {rid: key[1] for rid, key in class_of.items() if key[0] == ci}
        if do_record:
            owned, placed = [], []
            for j in range(1, len(cluster.record_chunks)):
                assign = rec.record_assignment[j] if j < len(rec.record_assignment) else []
                for p, (sub, rid) in enumerate(zip(cluster.record_chunks[j], ct.record_chunks[j], strict=True)):
                    if rid >= 0:
                        owned.append(((j, local[rid], tuple(sub)), rid, len(sub)))
                    if p < len(assign) and assign[p] >= 0:
                        placed.append((j, rec.anchors[assign[p]], tuple(sub)))
            _class_credit(owned, placed, hits_rec)
        if do_term:
            owned, placed = [], []
            for t, rids in ct.term_chunk.items():
                owned += [((t, local[r]), r, 1) for r in rids if r >= 0]
                placed += [(t, rec.anchors[a]) for a in set(rec.term_assignment.get(t, ()))]
            _class_credit(owned, placed, hits_term)
        # groups of indistinguishable anchors -> the records they stand for
        n_listed = rec.n_listed
        groups: dict[tuple[str, ...], tuple[list[int], list[int]]] = {}
        for a, content in enumerate(rec.anchors):
            groups.setdefault(content, ([], []))[0].append(a)
            if a < n_listed:
                rid = listed_ids[a]
                if rid >= 0:
                    groups[content][1].append(rid)
        empty_ids = [r for r in ct.records if r not in anchor_of]
        if empty_ids:
            groups.setdefault((), ([], []))[1].extend(empty_ids)

        def target(rid: int, orig_rec: dict = orig_rec, orig_term: dict = orig_term) -> set[str]:
            out: set[str] = set()
            if do_record:
                out |= orig_rec.get(rid, set())
            if do_term:
                out |= orig_term.get(rid, set())
            return out

        def got(a: int, placed_rec: list = placed_rec, placed_term: list = placed_term) -> set[str]:
            return (placed_rec[a] if do_record else set()) | (placed_term[a] if do_term else set())

        for anchors_g, rids in groups.values():
            if not rids:
                continue
            if len(anchors_g) == 1 and len(rids) == 1:
                pairs = [(anchors_g[0], rids[0])]
            else:
                overlap = np.array([[len(got(a) & target(r)) for r in rids] for a in anchors_g], dtype=float)
                rows, cols = linear_sum_assignment(overlap, maximize=True)
                pairs = [(anchors_g[i], rids[j]) for i, j in zip(rows, cols, strict=True)]
            for a, rid in pairs:
                outcomes.append(
                    RecordOutcome(
                        record=rid,
                        anchor=frozenset(rec.anchors[a]),
                        original={
                            "record": frozenset(orig_rec.get(rid, set())) if do_record else frozenset(),
                            "term": frozenset(orig_term.get(rid, set())) if do_term else frozenset(),
                        },
                        placed={
                            "record": frozenset(placed_rec[a]) if do_record else frozenset(),
                            "term": frozenset(placed_term[a]) if do_term else frozenset(),
                        },
                        pieces=list(pieces.get(rid, [])),
                        term_chunk=frozenset(orig_term.get(rid, set())),
                        reconstructed=frozenset(rec.records[a]),
                    )
                )
    if do_record:
        for joint in release.joint_clusters:
            ids = jtruth[joint.id].shared_chunks
            sh_of = {sh.joint_id: sh for sh in result.shared}.get(joint.id)
            owned, placed = [], []
            for j, (chunk, rids) in enumerate(zip(joint.shared_chunks, ids, strict=True)):
                assign = sh_of.assignment[j] if sh_of is not None and j < len(sh_of.assignment) else []
                for p, (sub, rid) in enumerate(zip(chunk, rids, strict=True)):
                    if rid >= 0:
                        owned.append(((j, class_of[rid], tuple(sub)), rid, len(sub)))
                    if sh_of is not None and p < len(assign) and assign[p] >= 0:
                        ci, a = sh_of.anchors[assign[p]]
                        placed.append((j, (ci, result.clusters[ci].anchors[a]), tuple(sub)))
            _class_credit(owned, placed, hits_rec)
    for o in outcomes:
        o.class_hits = {"record": hits_rec.get(o.record, 0.0), "term": hits_term.get(o.record, 0.0)}
    outcomes.sort(key=lambda o: o.record)
    return outcomes


def _class_credit(
    owned: list[tuple[Any, int, int]], placed: list[Any], hits: dict[int, float]
) -> None:
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


def truth_reconstruction(release: Release, truth: Truth) -> SemanticResult:
    """The perfect attack: every piece on the anchor of the record the truth gives it.

    Anchors as in :func:`attacks.semantic.attack.run_semantic_attack`; the records whose C_1 sub-record
    is empty take the empty anchors in the truth's record order. Ghost pieces (-1) are left out.
    Useful as the upper bound of every metric (accuracy 1) and in tests.
    """
    truth.check_against(release)
    anchor_of_record: list[dict[int, int]] = []
    clusters: list[ClusterReconstruction] = []
    for cluster, ct in zip(release.clusters, truth.clusters, strict=True):
        anchors = _cluster_anchors(cluster)
        listed = ct.record_chunks[0] if ct.record_chunks else []
        where = {rid: a for a, rid in enumerate(listed) if rid >= 0}
        empty = iter(range(len(listed), len(anchors)))
        for rid in ct.records:
            if rid not in where:
                where[rid] = next(empty)
        anchor_of_record.append(where)
        rec = ClusterReconstruction(cluster.id, anchors, len(listed))
        if cluster.record_chunks:
            rec.record_assignment = [list(range(len(listed)))]
            for j in range(1, len(cluster.record_chunks)):
                rec.record_assignment.append([where.get(rid, -1) for rid in ct.record_chunks[j]])
        rec.term_assignment = {t: sorted(where[r] for r in rids if r >= 0) for t, rids in ct.term_chunk.items()}
        clusters.append(rec)
    position = {c.id: i for i, c in enumerate(release.clusters)}
    shared: list[SharedReconstruction] = []
    jtruth = {j.id: j for j in truth.joint_clusters}
    joint_leaves = release.joint_leaves()
    for joint in release.joint_clusters:
        refs = [(position[leaf.id], a) for leaf in joint_leaves[joint.id] for a in range(leaf.size)]
        gindex = {ref: g for g, ref in enumerate(refs)}
        owner: dict[int, int] = {}
        for ci, _a in refs:
            for rid, a in anchor_of_record[ci].items():
                owner[rid] = gindex[(ci, a)]
        ids = jtruth[joint.id].shared_chunks if joint.id in jtruth else []
        shared.append(SharedReconstruction(joint.id, refs, [[owner.get(r, -1) for r in ch] for ch in ids]))
    # ghost pieces (-1 in the assignments) are left out of the records
    result = SemanticResult(selector="truth", chunks="both", scorer="none", seed=0, clusters=clusters, shared=shared)
    _build_records_skipping_ghosts(release, result)
    return result


def _build_records_skipping_ghosts(release: Release, result: SemanticResult) -> None:
    bags = [[set(a) for a in rec.anchors] for rec in result.clusters]
    for cluster, rec, bag in zip(release.clusters, result.clusters, bags, strict=True):
        for j in range(1, len(rec.record_assignment)):
            for p, a in enumerate(rec.record_assignment[j]):
                if a >= 0:
                    bag[a].update(cluster.record_chunks[j][p])
        for t, anchors in rec.term_assignment.items():
            for a in anchors:
                bag[a].add(t)
    joints = {j.id: j for j in release.joint_clusters}
    for sh in result.shared:
        for j, assign in enumerate(sh.assignment):
            for p, g in enumerate(assign):
                if g >= 0:
                    ci, a = sh.anchors[g]
                    bags[ci][a].update(joints[sh.joint_id].shared_chunks[j][p])
    for rec, bag in zip(result.clusters, bags, strict=True):
        rec.records = [sorted(b) for b in bag]


# ----------------------------------------------------------------------------------------------
# Per-record values
# ----------------------------------------------------------------------------------------------


def _part_sets(o: RecordOutcome, part: str) -> tuple[frozenset[str], frozenset[str]]:
    if part == "overall":
        return o.original["record"] | o.original["term"], o.placed["record"] | o.placed["term"]
    return o.original[part], o.placed[part]


def _class_hits(o: RecordOutcome, part: str) -> float:
    if part == "overall":
        return o.class_hits["record"] + o.class_hits["term"]
    return o.class_hits[part]


class _Supports:
    """Itemset supports in the original dataset with Python-int bitsets (one bit per record)."""

    def __init__(self, records: Sequence[frozenset[str]]) -> None:
        postings: dict[str, list[int]] = {}
        for i, r in enumerate(records):
            for t in r:
                postings.setdefault(t, []).append(i)
        self.bits = {t: sum(1 << i for i in ids) if len(ids) < 64 else _bits(ids) for t, ids in postings.items()}

    def support(self, itemset: Iterable[str]) -> int:
        acc = -1
        for t in itemset:
            b = self.bits.get(t, 0)
            acc = b if acc == -1 else acc & b
            if acc == 0:
                return 0
        return 0 if acc == -1 else acc.bit_count()


def _bits(ids: list[int]) -> int:
    arr = np.zeros(max(ids) + 1, dtype=np.uint8)
    arr[ids] = 1
    packed = np.packbits(arr, bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _protected(
    o: RecordOutcome, original: frozenset[str], supports: _Supports, k: int, m: int
) -> list[tuple[frozenset[str], bool]]:
    """(itemset, involves a term-chunk term) for each protected itemset of one record."""
    piece_of: dict[str, int] = {}
    for idx, piece in enumerate(o.pieces):
        for t in piece:
            piece_of.setdefault(t, idx)
    allowed = o.anchor | o.original["record"] | o.original["term"]
    terms = sorted(t for t in original if t in piece_of and t in allowed)
    out: list[tuple[frozenset[str], bool]] = []
    for size in range(2, min(m, len(terms)) + 1):
        for combo in itertools.combinations(terms, size):
            if len({piece_of[t] for t in combo}) < 2:
                continue
            if supports.support(combo) < k:
                out.append((frozenset(combo), any(t in o.term_chunk for t in combo)))
    return out


def _words(terms: Iterable[str], kv: Any) -> list[str]:
    out: list[str] = []
    for t in sorted(terms):
        if t in kv.key_to_index:
            out.append(t)
        elif t.lower() in kv.key_to_index:
            out.append(t.lower())
        else:
            out.extend(w for w in term_words(t) if w in kv.key_to_index)
    return out


def _wmd(
    kv: Any, a: frozenset[str], b: frozenset[str], cache: dict[tuple[frozenset[str], frozenset[str]], float]
) -> float:
    if a == b:
        return 0.0
    key = (a, b)
    if key not in cache:
        wa, wb = _words(a, kv), _words(b, kv)
        if not wa or not wb:
            cache[key] = math.nan
        else:
            d = word_movers_distance(kv, wa, wb)
            cache[key] = d if math.isfinite(d) else math.nan
    return cache[key]


def word_movers_distance(kv: Any, words_a: Sequence[str], words_b: Sequence[str]) -> float:
    """Word Mover's Distance as gensim's ``KeyedVectors.wmdistance`` computes it, without its overhead.

    gensim builds a dictionary of both documents and solves the transport problem over the whole
    joint vocabulary, with zero cost between words of the same document; only the flows from
    document a's words to document b's words carry mass, so the same optimum comes from the
    smaller problem solved here: normalised bag-of-words weights of each document, Euclidean
    distances between the unit vectors of a's and b's distinct words, one ``ot.emd2``. Words
    outside the vocabulary are dropped first; ``inf`` when a document is left empty (as gensim).
    Agrees with gensim to 1e-9 (tested).
    """
    from ot import emd2
    from scipy.spatial.distance import cdist

    wa = [w for w in words_a if w in kv.key_to_index]
    wb = [w for w in words_b if w in kv.key_to_index]
    if not wa or not wb:
        return math.inf
    ua, ca = np.unique(wa, return_counts=True)
    ub, cb = np.unique(wb, return_counts=True)
    if len(ua) == len(ub) == 1 and ua[0] == ub[0]:
        return 0.0
    va = np.array([kv.get_vector(w, norm=True) for w in ua], dtype=np.float64)
    vb = np.array([kv.get_vector(w, norm=True) for w in ub], dtype=np.float64)
    cost = cdist(va, vb)
    if abs(float(cost.sum())) < 1e-8:
        return 0.0
    return float(emd2(ca / ca.sum(), cb / cb.sum(), cost))


_PerRecord = dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""(metric, part) -> (record ids, numerators, denominators) of the records that count."""


def _evaluate_one(
    outcomes: list[RecordOutcome],
    records: list[frozenset[str]],
    supports: _Supports,
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
) -> tuple[list[MetricRow], _PerRecord]:
    rows: list[MetricRow] = []
    data: _PerRecord = {}
    shared = {} if shared is None else shared
    cache: dict[tuple[frozenset[str], frozenset[str]], float] = shared.setdefault("wmd", {})
    known: dict[tuple[int, tuple[str, ...]], list[tuple[frozenset[str], bool]]] = shared.setdefault("protected", {})
    protected: dict[int, list[tuple[frozenset[str], bool]]] = {}
    for o in outcomes:  # the protected itemsets depend on the record and the attacked parts, not the attack
        key = (o.record, tuple(parts))
        if key not in known:
            known[key] = _protected(o, records[o.record], supports, k, m)
        protected[o.record] = known[key]
    for metric in METRICS:
        if (metric == "wmd" and kv is None) or metric not in metrics:
            continue
        for part in parts:
            if metric == "wmd" and part not in wmd_parts:
                continue
            rng = np.random.default_rng([seed, METRICS.index(metric), PARTS.index(part)])
            ids: list[int] = []
            num: list[float] = []
            den: list[float] = []
            for o in outcomes:
                if metric == "km_breakage":
                    items = [
                        s for s, is_term in protected[o.record] if part == "overall" or (part == "term") == is_term
                    ]
                    if items:
                        ids.append(o.record)
                        den.append(len(items))
                        num.append(sum(1 for s in items if s <= o.reconstructed))
                    continue
                orig, got = _part_sets(o, part)
                if metric == "transaction_breakage_literal":  # every reconstructed record counts (eq. 5.3)
                    ids.append(o.record)
                    num.append(1.0 if orig & got else 0.0)
                    den.append(1.0)
                    continue
                if not orig:
                    continue
                hit = len(orig & got)
                if metric in ("accuracy", "transaction_breakage"):
                    credited = _class_hits(o, part)
                    value = min(1.0, credited / len(orig)) if metric == "accuracy" else float(credited > 0)
                elif metric == "accuracy_strict":
                    value = hit / len(orig)
                elif metric == "transaction_breakage_strict":
                    value = 1.0 if hit > 0 else 0.0
                else:
                    if part == "overall":
                        a, b = records[o.record], o.reconstructed
                    else:
                        a, b = o.anchor | orig, o.anchor | got
                    value = _wmd(kv, a, b, cache)
                    if math.isnan(value):
                        continue
                ids.append(o.record)
                num.append(value)
                den.append(1.0)
            nn, dd = np.array(num, float), np.array(den, float)
            data[(metric, part)] = (np.array(ids, dtype=np.int64), nn, dd)
            value = float(nn.sum() / dd.sum()) if dd.sum() > 0 else math.nan
            lo, hi = bootstrap_ratio(nn, dd, rng, bootstrap)
            rows.append(MetricRow(metric, part, method, value, lo, hi, len(nn)))
    return rows, data


def _paired_differences(
    attack: _PerRecord, base: _PerRecord, method: str, baseline: str, seed: int, bootstrap: int
) -> list[DiffRow]:
    """Attack minus baseline per (metric, part) on the records both count, with a paired bootstrap:
    one resample of the records serves both methods (ratio of sums for each, then the difference)."""
    out: list[DiffRow] = []
    for key, (ids_a, num_a, den_a) in attack.items():
        if key not in base:
            continue
        ids_b, num_b, den_b = base[key]
        common, ia, ib = np.intersect1d(ids_a, ids_b, assume_unique=True, return_indices=True)
        n = len(common)
        na, da, nb, db = num_a[ia], den_a[ia], num_b[ib], den_b[ib]
        if n == 0 or da.sum() == 0 or db.sum() == 0:
            out.append(DiffRow(key[0], key[1], method, baseline, math.nan, math.nan, math.nan, n))
            continue
        value = float(na.sum() / da.sum() - nb.sum() / db.sum())
        lo = hi = math.nan
        if bootstrap > 0:
            rng = np.random.default_rng([seed, 7, METRICS.index(key[0]), PARTS.index(key[1])])
            lo, hi = paired_difference_interval(na, da, nb, db, rng, bootstrap)
        out.append(DiffRow(key[0], key[1], method, baseline, value, lo, hi, n))
    return out


def blind_attack(release: Release, selector: str = "ABA", chunks: str = "both", seed: int = 0) -> SemanticResult:
    """The blind placement: ``selector`` with every score equal (:class:`attacks.semantic.scorers.ConstantScorer`),
    so only the placement rule and its tie order act (AlShuhail2021 4.3.2: ties go to the first
    anchor). What the rule earns with no semantic signal at all."""
    from attacks.semantic.scorers import ConstantScorer

    method = selector if selector in ("ABA", "RGA", "MRA", "assign", "ABA-spread") else "ABA"
    result = run_semantic_attack(release, ConstantScorer(), selector=method, chunks=chunks, seed=seed)
    result.selector = "blind"
    return result


def oracle_reconstruction(release: Release, truth: Truth, chunks: str = "both") -> SemanticResult:
    """The oracle ceiling: a perfect ranking under the attack's own placement rule (Algorithm 6).

    Every sub-record goes to the anchors of the records that hold it (its best anchors under a
    perfect score); a term-chunk term goes to its owners and, since the rule places every term on
    ``min(k - 1, size)`` anchors, to further anchors in tie order (listed order, skipping its
    owners) until it has that many. No attack that follows the same rule can place more pieces
    right, so its accuracy and breakage are at most the oracle's.
    """
    result = truth_reconstruction(release, truth)
    k = release.k
    for rec in result.clusters:
        count = min(k - 1, len(rec.anchors))
        for t, owners in rec.term_assignment.items():
            chosen = list(dict.fromkeys(owners))
            for a in range(len(rec.anchors)):
                if len(chosen) >= count:
                    break
                if a not in chosen:
                    chosen.append(a)
            rec.term_assignment[t] = sorted(chosen)
    do_record, do_term = chunks in ("record", "both"), chunks in ("term", "both")
    for rec in result.clusters:
        if not do_record:
            rec.record_assignment = rec.record_assignment[:1] + [[] for _ in rec.record_assignment[1:]]
        if not do_term:
            rec.term_assignment = {}
    if not do_record:
        result.shared = []
    result.chunks = chunks
    _build_records_skipping_ghosts(release, result)
    result.selector = "oracle"
    return result


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
    """Accuracy, transaction breakage, k^m-anonymity breakage and WMD of an attack result.

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
    for b in baselines:
        if b not in BASELINES:
            raise InputError(f"unknown baseline {b!r}; choose from {', '.join(BASELINES)}")
    attacked = {"record": ("record",), "term": ("term",), "both": ("record", "term")}[result.chunks]
    parts = [*attacked, "overall"]
    kv = None
    if wmd:
        from attacks.semantic.scorers import load_embeddings

        kv = load_embeddings(embeddings)
    supports = _Supports(records)
    k, m = release.k, release.m
    outcomes = match_records(result, release, truth, attacked)
    rows, data = _evaluate_one(outcomes, records, supports, k, m, parts, kv, result.selector, seed, bootstrap,
                               shared, wmd_parts, wanted_metrics)
    per_record: dict[str, Any] = {result.selector: data}
    differences: list[DiffRow] = []
    for name in baselines:
        if name == result.selector:
            continue  # the attack is this baseline itself
        if name == "random":
            other = run_semantic_attack(release, None, selector="random", chunks=result.chunks, seed=seed)
        elif name == "blind":
            other = blind_attack(release, chunks=result.chunks, seed=seed)
        else:
            other = oracle_reconstruction(release, truth, result.chunks)
        other_out = match_records(other, release, truth, attacked)
        other_rows, other_data = _evaluate_one(other_out, records, supports, k, m, parts, kv, name, seed, bootstrap,
                                               shared, wmd_parts, wanted_metrics)
        rows += other_rows
        per_record[name] = other_data
        if name == "random":
            differences = _paired_differences(data, other_data, result.selector, "random", seed, bootstrap)
    order = {(mt, pt): i for i, (mt, pt) in enumerate(itertools.product(METRICS, PARTS))}
    rank = {name: i for i, name in enumerate((result.selector, *BASELINES))}
    rows.sort(key=lambda r: (order[(r.metric, r.part)], rank.get(r.method, 99)))
    differences.sort(key=lambda d: order[(d.metric, d.part)])
    return SemanticMetrics(rows=rows, selector=result.selector, records=len(outcomes), differences=differences,
                           per_record=per_record)
