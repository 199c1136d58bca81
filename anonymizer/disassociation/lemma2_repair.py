"""Lemma 2 after REFINE (Terrovitis2012 sections 3 and 5): :func:`restore_lemma2`.

REFINE takes refining terms out of the leaves' term chunks ("removing all T^s terms from the term
chunks of the initial clusters", section 3) and can empty a term chunk whose terms were what made
Lemma 2 hold at VERPART time. Lemma 3's proof relies on Lemma 2 still holding per leaf ("Because
Lemma 2 holds for each cluster independently, there is no need to set a new bound for the number of
subrecords contained in SC"), so after REFINE every leaf whose term chunk REFINE emptied is checked
again on what it publishes itself (its record chunks; shared sub-records are not counted: they are
few and other leaves compete for them), and repaired as section 5 repairs VERPART: "by moving the
least frequent item of the record chunks to the term chunk, we guarantee that the conditions set by
Lemma 2 are satisfied" (ties as in :mod:`anonymizer.disassociation.verpart`: the term VERPART met
last).

Without this, records {b},{b},{a,c},{c},{a},{a} (k=2, m=2) give P1={a}x3, P2={b}x2 plus an empty
record and a shared chunk [c]x2: P2's third record must take a c, so {a,c} reaches one record only.
The repair keeps REFINE's joins and shared chunks as the paper builds them (the alternative, refusing
a join that empties a needy leaf's term chunk, keeps the refining terms in term chunks instead; see
docs/refine.md for both costs on kosarak25k). A leaf left with no record chunk at all has no item to
move; REFINE never empties its term chunk (the join step leaves such a leaf's terms out of the join,
the "trivial solution of not merging" of section 4's correctness argument, see
:mod:`anonymizer.disassociation.refine_join`), so the repair always finds an item.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from anonymizer.disassociation.refine_join import JointPlan
from anonymizer.disassociation.verpart import PartitionTable
from anonymizer.model.conditions import lemma2_holds

__all__ = ["Lemma2Repair", "restore_lemma2"]


@dataclass
class Lemma2Repair:
    """What :func:`restore_lemma2` did: the repaired table and the (cluster, term) pairs it moved
    from a record chunk to the term chunk, with the number of term occurrences they hold."""

    table: PartitionTable
    moved: list[tuple[int, str]] = field(default_factory=list)
    occurrences: int = 0


def restore_lemma2(table: PartitionTable, plans: Sequence[JointPlan], k: int, m: int) -> Lemma2Repair:
    """Re-establish Lemma 2 on every leaf whose term chunk REFINE emptied (module docstring).

    ``table`` is VERPART's table (:func:`anonymizer.disassociation.verpart.partition_clusters`) and ``plans``
    REFINE's joint clusters on it. A leaf whose published term chunk is empty after the plans
    and whose record chunks hold fewer than ``s + k*(min(m, v) - 1)`` non-empty sub-records gives
    its least frequent record-chunk term (ties: the highest term id, the one VERPART met last) to
    its term chunk; a record chunk left without terms disappears. The input table is not
    modified; a new one is returned.
    """
    n_cl = len(table.clusters)
    # terms in each term chunk before any repair (a repair only changes its own cluster's pairs)
    in_term_chunk = np.bincount(table.pair_cluster[table.pair_chunk < 0], minlength=n_cl).tolist()
    listed: dict[int, int] = {}  # terms the plans take from each leaf, counted with repeats
    for plan in plans:
        for idx, terms in plan.removed.items():
            listed[idx] = listed.get(idx, 0) + len(terms)
    # a leaf can have lost its whole term chunk only if the plans list at least as many terms for it
    maybe = {idx for idx, n in listed.items() if in_term_chunk[idx] <= n}
    emptied: dict[int, set[str]] = {idx: set() for idx in maybe}
    for plan in plans:
        for idx, terms in plan.removed.items():
            if idx in emptied:
                emptied[idx].update(terms)
    bounds = np.searchsorted(table.pair_cluster, np.arange(n_cl + 1)).tolist()
    chunk = table.pair_chunk.copy()
    n_chunks = table.n_chunks.copy()
    out = Lemma2Repair(table)
    for c in sorted(emptied):
        pairs = range(bounds[c], bounds[c + 1])
        if in_term_chunk[c] > len(emptied[c]):
            continue  # a term the joints did not take is still in the term chunk
        support = {p: int(table.pair_end[p] - table.pair_start[p]) for p in pairs}
        records: list[set[int]] = [set() for _ in range(int(n_chunks[c]))]
        for p in pairs:
            if chunk[p] >= 0:
                records[chunk[p]].update(table.entry_record[table.pair_start[p]:table.pair_end[p]].tolist())
        nonempty = sum(len(r) for r in records)
        if not records or lemma2_holds(len(table.clusters[c]), nonempty, len(records), k, m, True):
            continue
        victim = max((p for p in pairs if chunk[p] >= 0), key=lambda p: (-support[p], int(table.pair_term[p])))
        j = int(chunk[victim])
        chunk[victim] = -1
        if not any(chunk[p] == j for p in pairs):
            for p in pairs:
                if chunk[p] > j:
                    chunk[p] -= 1
            n_chunks[c] -= 1
        out.moved.append((c, table.vocabulary[int(table.pair_term[victim])]))
        out.occurrences += support[victim]
    if out.moved:
        out.table = dataclasses.replace(table, pair_chunk=chunk, n_chunks=n_chunks)
    return out
