"""The simple clusters REFINE receives, in flat arrays (Terrovitis2012 section 4, Algorithm REFINE).

REFINE only ever looks at the term chunks of the simple clusters (which terms could be refined, and
which records hold them) and at the terms of their record chunks (T^r of Property 1). This module
validates VERPART's partitions and indexes their term-chunk occurrences in one vectorised pass over
all records: a *group* is one (simple cluster, term-chunk term) pair with the records holding that
term. It also holds the small sorted-array helpers the join step shares.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

if TYPE_CHECKING:  # VERPART's output, read by REFINE (verpart imports nothing of REFINE)
    from anonymizer.disassociation.verpart import PartitionTable

__all__ = ["Leaves", "PartitionLike", "int_array", "leaves_from_table", "member", "prepare_leaves",
           "sorted_unique"]



class PartitionLike(Protocol):
    """The fields of :class:`anonymizer.disassociation.verpart.VerticalPartition` that REFINE reads."""

    records: np.ndarray
    chunk_terms: list[list[str]]
    term_chunk: list[str]



@dataclass
class Leaves:
    """The simple clusters in flat arrays (built by :func:`prepare_leaves`).

    A *group* is one (simple cluster, term-chunk term) pair with the records holding the term;
    groups are sorted by cluster, then term. ``group_ptr[p]:group_ptr[p+1]`` are cluster p's
    groups; ``records[group_start[g]:group_start[g+1]]`` are group g's records (sorted).
    """

    sizes: list[int]
    rc_ptr: np.ndarray  # record-chunk term ids of cluster p: rc_terms[rc_ptr[p]:rc_ptr[p+1]]
    rc_terms: np.ndarray
    group_ptr: np.ndarray
    group_part: array  # int64 arrays: compact, and indexing them gives Python ints
    group_term: np.ndarray
    group_start: array
    records: array


def _term_ids(index: Mapping[str, int], per_part: Sequence[Collection[str]],
              what: str) -> tuple[np.ndarray, np.ndarray]:
    """Map every partition's term list to ids; returns (offsets, ids). Raises InputError on an unknown term."""
    lengths = np.fromiter(map(len, per_part), dtype=np.int64, count=len(per_part))
    flat = list(itertools.chain.from_iterable(per_part))
    ids = list(map(index.get, flat))
    if None in ids:
        pos = ids.index(None)
        p = int(np.searchsorted(np.cumsum(lengths), pos, side="right"))
        raise InputError(f"refine: partition {p}: {what} term {flat[pos]!r} is not in the dataset's vocabulary")
    ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return ptr, np.asarray(ids, dtype=np.int64)


def int_array(values: np.ndarray) -> array:
    out = array("q")
    out.frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return out


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sort-based; faster than the hash-based ``np.unique`` here)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Boolean mask: which ``values`` are in the sorted, distinct array ``sorted_set``."""
    if not sorted_set.size:
        return np.zeros(values.size, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[pos] == values


_BITSET_BYTES = 1 << 27
"""Largest bit table :func:`_member_bits` builds (128 MiB); a larger key space uses binary search."""


def _member_bits(values: np.ndarray, sorted_set: np.ndarray, key_space: int) -> np.ndarray:
    """:func:`member` through a bit table over ``0..key_space-1`` (one random read per value
    instead of a binary search), when the table is no larger than the values' own int64 array
    and :data:`_BITSET_BYTES`; otherwise :func:`member`. Same result either way."""
    n_bytes = (key_space >> 3) + 1
    if not sorted_set.size or n_bytes > min(_BITSET_BYTES, 8 * values.size):
        return member(values, sorted_set)
    table = np.zeros(n_bytes, dtype=np.uint8)
    byte = sorted_set >> 3
    first = np.flatnonzero(np.concatenate(([True], byte[1:] != byte[:-1])))
    table[byte[first]] = np.bitwise_or.reduceat(np.left_shift(1, sorted_set & 7).astype(np.uint8), first)
    found = table[values >> 3]
    found >>= (values & 7).astype(np.uint8)
    found &= 1
    return found.view(bool)


def prepare_leaves(dataset: TransactionDataset, partitions: Sequence[PartitionLike]) -> Leaves:
    """Validate the partitions and index their term-chunk occurrences, vectorised over all records."""
    n, vocab = len(dataset), max(len(dataset.vocabulary), 1)
    index = dataset.term_index
    n_parts = len(partitions)
    recs_list = [np.asarray(p.records, dtype=np.int64).reshape(-1) for p in partitions]
    sizes = [int(r.size) for r in recs_list]
    all_recs = np.concatenate(recs_list) if recs_list else np.zeros(0, dtype=np.int64)
    if all_recs.size and (all_recs.min() < 0 or all_recs.max() >= n):
        raise InputError(f"refine: a partition holds a record id outside 0..{n - 1}")
    if all_recs.size and np.bincount(all_recs, minlength=n).max() > 1:
        raise InputError("refine: a record id belongs to more than one partition (or twice to one)")
    rc_ptr, rc_terms = _term_ids(index, [[t for c in p.chunk_terms for t in c] for p in partitions], "record-chunk")
    tc_ptr, tc_terms = _term_ids(index, [p.term_chunk for p in partitions], "term-chunk")
    rc_keys = np.repeat(np.arange(n_parts, dtype=np.int64), np.diff(rc_ptr)) * vocab + rc_terms
    tc_keys = sorted_unique(np.repeat(np.arange(n_parts, dtype=np.int64), np.diff(tc_ptr)) * vocab + tc_terms)
    both = rc_keys[member(rc_keys, tc_keys)]
    if both.size:
        p, t = divmod(int(both.min()), vocab)
        raise InputError(f"refine: partition {p}: term {dataset.vocabulary[t]!r} is both in a record chunk "
                         "and in the term chunk")

    # Every term occurrence of the clustered records, keyed by (partition, term).
    part_of = np.repeat(np.arange(n_parts, dtype=np.int64), sizes)
    starts = dataset.indptr[all_recs]
    lens = dataset.indptr[all_recs + 1] - starts
    total = int(lens.sum())
    # (The temporaries are released as soon as possible: at 1M records each is ~80 MB.)
    idx = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens) if total else np.zeros(0, np.int64)
    idx += np.arange(total, dtype=np.int64)
    occ_key = np.repeat(part_of, lens)
    occ_key *= vocab
    occ_key += dataset.indices[idx]
    del idx
    hit = _member_bits(occ_key, tc_keys, n_parts * vocab)
    occ_key = occ_key[hit]
    occ_rec = np.repeat(all_recs, lens)[hit]
    del hit
    # By (partition, term), then record: one sort of a combined key when it fits in 64 bits (the
    # pairs are distinct, so any correct sort gives the same order as the lexsort fallback).
    if occ_key.size and (int(occ_key.max()) + 1) * n < 2**63:
        occ_key *= n
        occ_key += occ_rec
        occ_key.sort()
        occ_rec = occ_key % n
        occ_key //= n
    else:
        order = np.lexsort((occ_rec, occ_key))
        occ_key, occ_rec = occ_key[order], occ_rec[order]
    first = np.flatnonzero(np.concatenate(([True], occ_key[1:] != occ_key[:-1]))) if occ_key.size else occ_key
    group_key = occ_key[first]
    group_part = group_key // vocab
    group_ptr = np.searchsorted(group_part, np.arange(n_parts + 1, dtype=np.int64))
    return Leaves(
        sizes=sizes,
        rc_ptr=rc_ptr,
        rc_terms=rc_terms,
        group_ptr=group_ptr,
        group_part=int_array(group_part),
        group_term=group_key % vocab,
        group_start=int_array(np.concatenate((first, [occ_key.size]))),
        records=int_array(occ_rec),
    )



def leaves_from_table(table: PartitionTable) -> Leaves:
    """:func:`prepare_leaves` read straight off VERPART's table (its pairs are already the groups, in
    the same order), without the partitions' term strings and without scanning the records again.
    The table is valid by construction (one partition per record, no term in both kinds of chunk)."""
    n_parts = len(table.clusters)
    sizes = [len(c) for c in table.clusters]
    pair_cluster = np.asarray(table.pair_cluster, dtype=np.int64)
    in_rc = np.asarray(table.pair_chunk) >= 0
    rc_counts = np.bincount(pair_cluster[in_rc], minlength=n_parts)
    tc = np.flatnonzero(~in_rc)
    starts, ends = np.asarray(table.pair_start, dtype=np.int64)[tc], np.asarray(table.pair_end, dtype=np.int64)[tc]
    lens = ends - starts
    total = int(lens.sum())
    group_start = np.zeros(len(tc) + 1, dtype=np.int64)
    np.cumsum(lens, out=group_start[1:])
    idx = np.repeat(starts - group_start[:-1], lens) if total else np.zeros(0, np.int64)
    idx += np.arange(total, dtype=np.int64)
    group_part = pair_cluster[tc]
    return Leaves(
        sizes=sizes,
        rc_ptr=np.concatenate(([0], np.cumsum(rc_counts))).astype(np.int64),
        rc_terms=np.asarray(table.pair_term, dtype=np.int64)[in_rc],
        group_ptr=np.searchsorted(group_part, np.arange(n_parts + 1, dtype=np.int64)),
        group_part=int_array(group_part),
        group_term=np.asarray(table.pair_term, dtype=np.int64)[tc],
        group_start=int_array(group_start),
        records=int_array(np.asarray(table.entry_record, dtype=np.int64)[idx]),
    )
