"""Safe disassociation (Awad2019 section 4): remove every cover problem by partial suppression.

A record chunk C_j with term set I has a cover problem (Awad2019 Definition 3) when some item z
has s({z}, C_j) = s(I, C_j); choice, as in :mod:`attacks.cover.problem`: chunks with a single
term and chunks where no sub-record holds all of I are not cover problems.

Partial suppression of C_j (Awad2019 section 4.1), with card = ceil(|I| / 2) and delta the
maximum cluster size (``params["max_cluster_size"]`` unless given):

* preconditions: (3) |C_j| <= delta - 2, where |C_j| is the number of records of the cluster
  (listed plus implied empty sub-records, ghost records of earlier steps included);
  (4) s(I, C_j) >= k + min(card, m); and (4') s(I, C_j) >= card (:func:`preconditions_hold`).
  (4') is implicit in the paper: rule 3(a) takes the card parts out of card *distinct*
  sub-records equal to I (Lemma 2's proof: "suppressed from two distinct records"), and the
  k^m argument of section 4.1.1 for m < card counts "s(I) - card records kept unchanged".
  (4) implies (4') only when card <= k + m; a chunk with |I| > 2(k + m) and
  k + m <= s(I) < card (kosarak25k, k=3, m=2: |I| = 11, s(I) = 5, card = 6) passes (4) yet has
  too few sub-records equal to I. Reusing a sub-record for two parts would let two items of
  different parts lose their association only once and break the Lemma 2 proof, so such a chunk
  is treated as failing the preconditions (the fallback below);
* rule 1: a random partition of I into pairs (one singleton when |I| is odd);
* rules 2-3: for each part, a different sub-record equal to I (chosen at random) loses the part;
  of each pair one item (chosen at random) goes to ghost record L1, the other to L2; the singleton
  goes to L1 or L2 at random (Lemma 2's proof: "added randomly to one of the ghost records");
* rule 4: L1 and L2 join C_j. They are two new records of the cluster: ``size`` grows by 2, the
  other chunks get two more implied empty sub-records, the truth lists the ghost records and
  ghost sub-records with id -1. The chunk's listing is shuffled again so the ghosts are not the
  last two. Every item keeps its support; s(I) drops by card, so no item stays covered, and every
  itemset of at most m items keeps a support of at least k (Awad2019 section 4.1.1).

Which chunks are treated (``targets``). Awad2019 section 3.3 describes the cover problem as "the
ability to associate one-to-one or one-to-many items in two distinct record chunks, from the same
cluster", and its Lemma 1 attack needs "an item in another record chunk"; but its evaluation counts
"every record chunk that is subject to a cover problem" as vulnerable (5.1.1) and safe disassociation
is what removes them (5.2.2: RLM "consistent with the fact that the more vulnerable the record chunks
are, the more items will be suppressed"). ``targets="every"`` (the default, the paper's reading)
applies Definition 3 to every chunk, the only chunk of its cluster included (what PEM counts,
:mod:`attacks.cover.detector`); ``targets="linkable"`` (the named variant) treats a chunk with a
cover problem only while its cluster has another record chunk (``pem_linkable``).

When the preconditions fail, "their items are completely suppressed" (Awad2019 section 5.2.2):
``fallback="chunk"`` (default, the paper's reading: the itemset I of the Hypothesis is the whole
chunk) deletes every item of the chunk, i.e. the chunk; ``fallback="covered"`` deletes only the
covered items and checks the chunk again (it may then qualify for partial suppression, or lose
more covered items), keeping more of the data. The rules repeat until no record chunk has a
cover problem.

Two choices beyond the paper keep every safe release a disassociated dataset in Terrovitis2012's
sense (a valid reconstruction exists, the records behind it are one, and Guarantee 1 holds). Awad2019
asks for the same: its Definition 2 quantifies over "the inverse transformation of T*, i.e. the set
of all possible datasets whose k^m disassociation would yield T*", and Terrovitis2012 section 5
(proof of Lemma 2) says "A valid reconstruction of cluster P_a is a possible initial cluster that
has s non-empty records".

* **No record is left empty.** Suppressing a chunk's items can take the only items a record
  shows (its sub-records in other chunks, its term-chunk terms and its shared sub-records being
  none); the cluster would still count it in its size, so its true records are no reconstruction
  of the release (and, when the cluster has no term chunk, nothing is). Such a record *keeps a
  term*: the fewest suppressed items that give every such record one of its own (greedy: the item
  held by most of them, ties by the smaller support in the chunk, then the alphabetically last)
  go to the term chunk instead of being deleted, with every holder of the item listed in the
  truth. The term chunk publishes neither supports nor associations (Terrovitis2012 section 5,
  proof of Lemma 1: "the multiplicity and the correlations of these terms are not disclosed"),
  and a cover problem is a property of record chunks only (Awad2019 Definition 3: "the ability
  to link one-to-one or one-to-many items in two record chunks"), so keeping the item there
  brings no cover problem back; Awad2019 itself keeps every item of a chunk it treats (section
  4.1, Lemma 2's proof: "the support of any item in R_Cj remains the same"). The alternative the
  issue names, deleting such records and counting them as suppressed, shrinks the cluster
  (below k, its other terms could no longer reach k records) and deletes every other item of the
  record too; ``SafeResult.emptied_records`` counts the records it would have deleted. Ghost
  records (-1 in the truth) whose only sub-record is suppressed are not real records: they are
  removed and the cluster shrinks back (``ghost_records_removed``). Partial suppression with
  |I| = 2 empties the sub-record it treats (rule 3(a)); its rows are then drawn only among the
  records that show another piece (rule 3(a) lets any record equal to I be chosen), and when
  there are fewer than card of them the chunk is treated as failing the preconditions.
* **Lemma 2 on the published chunks.** Terrovitis2012 Lemma 2 (a cluster of size s with v record
  chunks needs at least s + k*(min(m, v) - 1) non-empty sub-records, or a non-empty term chunk;
  with v = 0 it needs a non-empty term chunk) is judged on the cluster's own record chunks and
  term chunk: shared sub-records of joint clusters are not counted, because other leaves compete
  for them. A partial suppression that would break it is treated as failing its preconditions; a
  suppression that would break it keeps one suppressed item in the term chunk (if the first rule
  did not already), the least frequent one, as Terrovitis2012 section 5 repairs VERPART: "by moving
  the least frequent item of the record chunks to the term chunk, we guarantee that the conditions
  set by Lemma 2 are satisfied".

Shared chunks of joint clusters are left as they are (Awad2019 works on record chunks only).

Randomness: every random choice above (the partition, the rows, the ghost of each item, the
reshuffle) is drawn from the ``"safe"`` stream of a secret seed (:mod:`corpora.common.seeds`). The
seed is stored in the truth (``safe_seed``), never in the release: with it, anyone could replay
the draws and point at the ghost records. ``seed=None`` draws a fresh 128-bit seed from the
operating system's entropy.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from anonymizer.model.conditions import awad_cover as chunk_cover
from anonymizer.model.conditions import lemma2_holds
from anonymizer.model.params import DEFAULT_SAFE_TARGETS, SAFE_TARGETS
from anonymizer.model.release import Cluster, ClusterTruth, JointCluster, JointClusterTruth, Release, Truth
from corpora.common.errors import InputError
from corpora.common.seeds import generator, resolve_seed

__all__ = ["TARGETS", "SafeResult", "safe_disassociate", "safe_disassociate_report", "chunk_cover",
           "partial_suppression",
           "preconditions_hold", "FALLBACKS"]

FALLBACKS = ("chunk", "covered")
TARGETS = SAFE_TARGETS
"""Which chunks with a cover problem safe disassociation treats (module docstring;
:data:`anonymizer.model.params.SAFE_TARGETS`)."""


@dataclass
class SafeResult:
    """A safe release, its truth, and what was done (module docstring).

    Chunks: ``partially_suppressed`` (rules 1-4), ``fully_suppressed`` / ``covered_suppressed``
    (fallbacks). Occurrences: ``suppressed_occurrences`` deleted from real records;
    ``moved_occurrences`` of the ``moved_to_term_chunk`` items kept in a term chunk instead.
    Records: ``ghost_records`` added, ``ghost_records_removed`` again (their only sub-record was
    suppressed), ``emptied_records`` that a suppression would have left with no item (each kept
    one through the term chunk).
    """

    release: Release
    truth: Truth
    partially_suppressed: int = 0
    fully_suppressed: int = 0
    covered_suppressed: int = 0
    moved_to_term_chunk: int = 0
    moved_occurrences: int = 0
    ghost_records: int = 0
    ghost_records_removed: int = 0
    emptied_records: int = 0
    suppressed_occurrences: int = 0
    problems_before: int = 0
    details: list[str] = field(default_factory=list)


def partial_suppression(
    chunk: Sequence[tuple[str, ...]],
    ids: Sequence[int],
    parts: Sequence[Sequence[str]],
    rows: Sequence[int],
    to_first: Sequence[Sequence[bool]],
) -> tuple[list[tuple[str, ...]], list[int]]:
    """Rules 2-4 of Awad2019 partial suppression with the random choices given explicitly.

    ``parts`` partition I (pairs, one singleton if |I| is odd); part i is removed from the
    sub-record at position ``rows[i]`` (which must equal I); ``to_first[i][e]`` says whether item
    e of part i goes to ghost L1 (else L2). Returns the new listing (emptied sub-records dropped,
    ghosts L1, L2 appended) and its ids (-1 for the ghosts); the caller shuffles.
    """
    subs = [tuple(s) for s in chunk]
    out_ids = list(ids)
    ghost1: list[str] = []
    ghost2: list[str] = []
    for part, row, flags in zip(parts, rows, to_first, strict=True):
        drop = set(part)
        subs[row] = tuple(t for t in subs[row] if t not in drop)
        for item, first in zip(part, flags, strict=True):
            (ghost1 if first else ghost2).append(item)
    keep = [p for p, s in enumerate(subs) if s]
    new_subs = [subs[p] for p in keep]
    new_ids = [out_ids[p] for p in keep]
    for ghost in (ghost1, ghost2):
        if ghost:
            new_subs.append(tuple(sorted(ghost)))
            new_ids.append(-1)
    return new_subs, new_ids


def preconditions_hold(cluster_size: int, support: int, n_items: int, k: int, m: int, delta: int) -> bool:
    """Awad2019 section 4.1 preconditions (3), (4) and the implicit (4') s(I) >= card (module docstring).

    ``cluster_size`` is |R_Cj| (the cluster's records), ``support`` is s(I, R_Cj) (sub-records equal
    to I), ``n_items`` is |I|.
    """
    card = math.ceil(n_items / 2)
    return cluster_size <= delta - 2 and support >= k + min(card, m) and support >= card


def _lemma2_ok(cluster: Cluster, k: int, m: int) -> bool:
    """Terrovitis2012 Lemma 2 on the cluster's own record chunks and term chunk (module docstring;
    with no record chunk left every record still needs a piece: :func:`anonymizer.model.conditions.lemma2_holds`)."""
    total = sum(len(chunk) for chunk in cluster.record_chunks)
    return lemma2_holds(cluster.size, total, len(cluster.record_chunks), k, m, not cluster.term_chunk)


def _shown_elsewhere(ct: ClusterTruth, j: int, shared: set[int]) -> set[int]:
    """Real records of the cluster that show a piece outside record chunk ``j``."""
    out = {r for i, ids in enumerate(ct.record_chunks) if i != j for r in ids if r >= 0}
    out.update(r for rs in ct.term_chunk.values() for r in rs)
    out.update(r for r in ct.records if r in shared)
    return out


def _terms_to_keep(holders: dict[str, list[int]], emptied: set[int], support: Counter) -> list[str]:
    """The fewest suppressed items giving every emptied record one of its own (greedy set cover;
    ties: smaller support in the chunk, then the alphabetically last item)."""
    left = set(emptied)
    kept: list[str] = []
    while left:
        best = max(holders, key=lambda t: (len(left.intersection(holders[t])), -support[t], t))
        kept.append(best)
        left.difference_update(holders[best])
    return kept


def _copy(release: Release, truth: Truth) -> tuple[Release, Truth]:
    clusters = [Cluster(c.id, c.size, [list(ch) for ch in c.record_chunks], list(c.term_chunk))
                for c in release.clusters]
    joints = [JointCluster(j.id, list(j.children), [list(ch) for ch in j.shared_chunks])
              for j in release.joint_clusters]
    tcl = [ClusterTruth(t.id, list(t.records), [list(ch) for ch in t.record_chunks],
                        {term: list(rs) for term, rs in t.term_chunk.items()}) for t in truth.clusters]
    tj = [JointClusterTruth(j.id, [list(ch) for ch in j.shared_chunks]) for j in truth.joint_clusters]
    return Release(dict(release.params), clusters, joints), Truth(tcl, tj, truth.seed, truth.safe_seed)


def _suppress(cluster: Cluster, ct: ClusterTruth, j: int, drop: set[str], shared: set[int], k: int, m: int,
              result: SafeResult) -> None:
    """Suppress the items ``drop`` from record chunk ``j`` (Awad2019 5.2.2), keeping every real record
    non-empty and Lemma 2 through the term chunk (module docstring); updates ``result``'s counts."""
    chunk, ids = cluster.record_chunks[j], ct.record_chunks[j]
    elsewhere = _shown_elsewhere(ct, j, shared)
    holders: dict[str, list[int]] = {}
    support: Counter = Counter()
    kept_subs: list[tuple[str, ...]] = []
    kept_ids: list[int] = []
    emptied: set[int] = set()
    ghosts_gone = 0
    for sub, rid in zip(chunk, ids, strict=True):
        for t in sub:
            if t in drop:
                support[t] += 1
                if rid >= 0:
                    holders.setdefault(t, []).append(rid)
        rest = tuple(t for t in sub if t not in drop)
        if rest:
            kept_subs.append(rest)
            kept_ids.append(rid)
        elif rid < 0:
            ghosts_gone += 1
        elif rid not in elsewhere:
            emptied.add(rid)
    if kept_subs:
        cluster.record_chunks[j], ct.record_chunks[j] = kept_subs, kept_ids
    else:
        del cluster.record_chunks[j]
        del ct.record_chunks[j]
    for _ in range(ghosts_gone):  # a ghost record has no piece outside the chunk it was added to
        ct.records.remove(-1)
    cluster.size -= ghosts_gone
    result.ghost_records_removed += ghosts_gone
    result.emptied_records += len(emptied)
    keep = _terms_to_keep(holders, emptied, support)
    if not keep and holders and not _lemma2_ok(cluster, k, m):
        keep = [max(holders, key=lambda t: (-support[t], t))]
    for t in keep:
        ct.term_chunk[t] = sorted(holders[t])
    ct.term_chunk = dict(sorted(ct.term_chunk.items()))
    cluster.term_chunk = sorted({*cluster.term_chunk, *keep})
    result.moved_to_term_chunk += len(keep)
    result.moved_occurrences += sum(len(holders[t]) for t in keep)
    result.suppressed_occurrences += sum(len(v) for t, v in holders.items() if t not in keep)


def safe_disassociate_report(release: Release, truth: Truth, seed: int | None = None, *,
                             max_cluster_size: int | None = None, fallback: str = "chunk",
                             targets: str = DEFAULT_SAFE_TARGETS) -> SafeResult:
    """Safe disassociation of ``release`` (see the module docstring); the inputs are not modified.

    ``seed`` (0..2**128 - 1, or ``None`` for a fresh one from the operating system's entropy) is
    kept in the result's truth as ``safe_seed``; the same inputs and seed give the same bytes.
    ``targets`` is one of :data:`TARGETS`.
    """
    if fallback not in FALLBACKS:
        raise InputError(f"fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}")
    if targets not in TARGETS:
        raise InputError(f"targets must be one of {', '.join(TARGETS)}, got {targets!r}")
    truth.check_against(release)
    delta = max_cluster_size if max_cluster_size is not None else release.params.get("max_cluster_size")
    if not isinstance(delta, int) or isinstance(delta, bool) or delta < 1:
        raise InputError("safe disassociation needs the maximum cluster size: params.max_cluster_size "
                         f"must be a positive integer (got {delta!r}) or pass max_cluster_size")
    k, m = release.k, release.m
    seed = resolve_seed(seed)
    rng = generator(seed, "safe")
    rel, tru = _copy(release, truth)
    tru.safe_seed = seed
    shared = {r for jt in tru.joint_clusters for ids in jt.shared_chunks for r in ids}
    result = SafeResult(rel, tru)
    for cluster, ct in zip(rel.clusters, tru.clusters, strict=True):
        j = 0
        while j < len(cluster.record_chunks):
            chunk = cluster.record_chunks[j]
            found = chunk_cover(chunk) if targets == "every" or len(cluster.record_chunks) >= 2 else None
            if found is None:
                j += 1
                continue
            result.problems_before += 1
            items, full, covered = found
            card = math.ceil(len(items) / 2)
            full_rows = [p for p, sub in enumerate(chunk) if len(sub) == len(items)]
            if len(items) == 2:  # rule 3(a) empties the sub-record: only records showing another piece
                elsewhere = _shown_elsewhere(ct, j, shared)
                full_rows = [p for p in full_rows if ct.record_chunks[j][p] in elsewhere]
            if preconditions_hold(cluster.size, full, len(items), k, m, delta) and len(full_rows) >= card:
                shuffled = [items[int(i)] for i in rng.permutation(len(items))]
                parts = [shuffled[i:i + 2] for i in range(0, len(shuffled), 2)]
                rows = [full_rows[int(i)] for i in rng.choice(len(full_rows), size=card, replace=False)]
                flags = []
                for part in parts:
                    if len(part) == 2:
                        first = bool(rng.integers(2))
                        flags.append([first, not first])
                    else:
                        flags.append([bool(rng.integers(2))])
                new_subs, new_ids = partial_suppression(chunk, ct.record_chunks[j], parts, rows, flags)
                order = rng.permutation(len(new_subs))
                trial = Cluster(cluster.id, cluster.size + 2,
                                [*cluster.record_chunks[:j], [new_subs[int(i)] for i in order],
                                 *cluster.record_chunks[j + 1:]], cluster.term_chunk)
                if _lemma2_ok(trial, k, m):
                    cluster.record_chunks[j] = trial.record_chunks[j]
                    ct.record_chunks[j] = [new_ids[int(i)] for i in order]
                    cluster.size += 2
                    ct.records.extend([-1, -1])
                    result.partially_suppressed += 1
                    result.ghost_records += 2
                    continue
            _suppress(cluster, ct, j, set(items) if fallback == "chunk" else set(covered), shared, k, m, result)
            if fallback == "chunk":
                result.fully_suppressed += 1
            else:
                result.covered_suppressed += 1
    result.release = rel.with_params(safe=True)
    return result


def safe_disassociate(release: Release, truth: Truth, seed: int | None = None, *,
                      max_cluster_size: int | None = None, fallback: str = "chunk",
                      targets: str = DEFAULT_SAFE_TARGETS) -> tuple[Release, Truth]:
    """Safe disassociation (Awad2019 section 4); returns the safe release (``params["safe"] = True``) and its truth."""
    result = safe_disassociate_report(release, truth, seed, max_cluster_size=max_cluster_size, fallback=fallback,
                                      targets=targets)
    return result.release, result.truth
