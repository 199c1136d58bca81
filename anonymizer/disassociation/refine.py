"""REFINE: joint clusters and shared chunks (Terrovitis2012 sections 3, 4 and 5).

After VERPART every simple cluster P has record chunks (term sets T_1..T_v) and a term chunk T_T.
A term that is rare inside each of several clusters lands in all their term chunks, although it
is frequent enough over the union of those clusters (Figure 2b: ``ikea`` and ``ruby``). REFINE
joins clusters into *joint clusters* that carry *shared chunks*: the records of the joint's leaves
projected on the *refining terms* T^s, which leave the leaves' term chunks (Figure 3).

Algorithm REFINE (section 4), as implemented here::

    repeat
        give every joint cluster a virtual term chunk: the union of its leaves' current term chunks
        order the clusters (simple or joint) by the contents of their (virtual) term chunks
        join adjacent pairs of clusters where Equation 1 holds
    until no join happens

Choices where the paper is terse (each one is tested in ``tests/test_refine_*.py``):

* **Ordering** (section 4, after the pseudocode): every term gets its *term chunk support*
  tcs(t), the number of term chunks of the input simple clusters holding it; a (virtual) term
  chunk is written as its terms sorted by decreasing tcs (ties by term, alphabetically); clusters
  are sorted by comparing these sequences lexicographically (a proper prefix first; ties by
  cluster number). tcs is computed once, on the clusters REFINE receives (the paper defines it
  on "the term chunks in clusters of P" and adds virtual term chunks only "in the ordering
  step"), so a cluster's position changes only when it is replaced by a joint cluster; this
  keeps each round near-linear. Clusters whose term chunk is empty can never join and are left
  out of the ordering.
* **Adjacent pairs**: one left-to-right pass over the ordered list; positions i and i+1 are
  tried; on a join both are consumed (the pass continues at i+2), otherwise at i+1. A cluster
  joins at most once per round; the new joint cluster takes part from the next round on.
* **Refining terms**: the *candidates* of a join of J_1 and J_2 are the terms common to both
  (virtual) term chunks (section 3: terms "which commonly appear in the term chunks of two or
  more clusters"). A candidate is placed if its support over the projection is at least k (a
  one-term chunk with fewer than k sub-records is neither k^m- nor k-anonymous); the others stay
  in the term chunks. The refining terms T^s are the placed candidates. Every leaf of the joint
  whose term chunk holds a term of T^s gives up that term: the shared chunk with domain T_i is the
  projection of every leaf P_j's records on C_Tj ∩ T_i (section 3), so a record contributes at most
  one sub-record per shared chunk.
* **Shared chunks**: VERPART's greedy grouping (section 4) over T^s, terms by decreasing support
  (ties alphabetically): each pass opens a chunk and adds every remaining term that keeps it
  valid. Property 1 (section 5) decides what "valid" means: if the chunk holds a term of T^r
  (terms of the record chunks of the joint's leaves and of the shared chunks of its descendant
  joint clusters) it must be **k-anonymous**, read as: every distinct non-empty sub-record of the
  chunk appears at least k times (Lemma 3's proof needs "at least k duplicates of each record";
  empty sub-records are not listed, so they do not count); otherwise it must be k^m-anonymous
  (every itemset of at most m terms that occurs occurs in at least k sub-records). A
  k-anonymous chunk is also k^m-anonymous. The k^m test only counts the itemsets that contain the
  new term (the chunk before it was already k^m-anonymous), never a power set.
* **Equation 1** (section 4): join iff ``(s(t_1)+...+s(t_n)) / |J_new| >= (v_1+...+v_m) /
  (|P_1|+...+|P_m|)``, where t_i are the refining terms, s(t_i) their supports in the new shared
  chunks, |J_new| the number of records of all leaves of the new joint cluster, P_1..P_m the leaves
  whose term chunk holds at least one refining term and v_j how many refining terms P_j's term
  chunk holds. (The printed formula names the numerators u_j; the text and the worked example,
  (4+4)/10 >= (2+2)/(5+5), define them as the v_j.) Compared exactly with integers. A pair
  without any placeable candidate is never joined.
* **Rounds**: the loop runs until a round makes no join (the paper's fixpoint). A cluster pair
  that failed once fails forever (neither side changes until it is joined, and then it is
  replaced by a new joint cluster), so failed pairs are remembered and not retried; the ordered
  list is kept between rounds (joined clusters leave it, new joint clusters are appended and a
  run-aware sort restores the order). Every round that joins removes at least one cluster, so the
  loop ends; kosarak10k and kosarak25k take 10 rounds, synthetic 100k 14 and 250k 16 (depth of
  the joint-cluster trees 13-15). ``max_rounds`` can cap it. The first round, which tries every
  adjacent pair of simple clusters, finds the pairs without any candidate (no common term whose
  support over both reaches k) for all pairs at once with numpy; they fail as ``try_join`` would.
* **Lemma 2 after REFINE** (:func:`restore_lemma2`). REFINE takes refining terms out of the
  leaves' term chunks ("removing all T^s terms from the term chunks of the initial clusters",
  section 3) and can empty a term chunk whose terms were what made Lemma 2 hold at VERPART time.
  Lemma 3's proof relies on Lemma 2 still holding per leaf ("Because Lemma 2 holds for each
  cluster independently, there is no need to set a new bound for the number of subrecords
  contained in SC"), so after REFINE every leaf whose term chunk REFINE emptied is checked again
  on what it publishes itself (its record chunks; shared sub-records are not counted: they are
  few and other leaves compete for them), and repaired as section 5 repairs VERPART: "by moving
  the least frequent item of the record chunks to the term chunk, we guarantee that the
  conditions set by Lemma 2 are satisfied" (ties as in :mod:`anonymizer.disassociation.verpart`: the term VERPART
  met last). Without this, records {b},{b},{a,c},{c},{a},{a} (k=2, m=2) give P1={a}x3,
  P2={b}x2 plus an empty record and a shared chunk [c]x2: P2's third record must take a c, so
  {a,c} reaches one record only. The repair keeps REFINE's joins and shared chunks as the paper
  builds them (the alternative, refusing a join that empties a needy leaf's term chunk, keeps the
  refining terms in term chunks instead; see docs/refine.md for both costs on kosarak25k). A leaf
  left with no record chunk at all has no item to move; REFINE never empties its term chunk
  (``refine`` leaves such a leaf's terms out of the join, the "trivial solution of not merging"
  of section 4's correctness argument), so the repair always finds an item.

The plans refer to record ids (dataset positions); the release builder in
:mod:`anonymizer.disassociation.pipeline` turns them into published joint clusters.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from array import array
from collections import Counter
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import numpy as np
from tqdm import tqdm

from anonymizer.disassociation.verpart import PartitionTable
from anonymizer.model.conditions import is_k_anonymous, lemma2_holds
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = [
    "JointPlan",
    "Lemma2Repair",
    "SharedChunk",
    "build_shared_chunks",
    "is_k_anonymous",
    "refine",
    "refining_criterion",
    "restore_lemma2",
]

T = TypeVar("T", bound=Hashable)


class PartitionLike(Protocol):
    """The fields of :class:`anonymizer.disassociation.verpart.VerticalPartition` that REFINE reads."""

    records: np.ndarray
    chunk_terms: list[list[str]]
    term_chunk: list[str]


@dataclass
class SharedChunk:
    """A shared chunk of a joint cluster (Terrovitis2012 section 3, Figure 3).

    ``terms`` is its domain T_i (sorted); ``subrecords`` lists, by increasing record id, each
    record of the joint's leaves whose projection on the chunk is non-empty, with that projection.
    """

    terms: list[str]
    subrecords: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)


@dataclass
class JointPlan:
    """One joint cluster made by REFINE.

    ``children``: ``i < len(partitions)`` is simple cluster ``i``; ``len(partitions) + j`` is the
    j-th plan of the returned list (always an earlier one). ``removed`` maps a simple-cluster
    index to the terms this joint takes out of its term chunk (sorted).
    """

    children: list[int]
    shared_chunks: list[SharedChunk]
    removed: dict[int, list[str]]


# ---------------------------------------------------------------------------------------------
# Anonymity tests and the greedy grouping of the refining terms into shared chunks
# ---------------------------------------------------------------------------------------------


def _group_terms(
    postings: Mapping[T, list[int]],
    order: list[T],
    restricted: Collection[T],
    k: int,
    m: int,
) -> list[tuple[list[T], dict[int, tuple[T, ...]]]]:
    """VERPART-like greedy grouping of ``order`` (every term with support >= k) into chunks.

    ``postings`` maps a term to the records holding it. A chunk holding a term of ``restricted``
    (T^r) must be k-anonymous, any other chunk k^m-anonymous (Property 1). Returns each chunk's
    terms (in the order they joined) and its sub-records (record -> terms in that order).
    The tests are incremental, in time linear in the support of the candidate term:

    * pairs: two terms that co-occur in 1..k-1 records never share a chunk (for m = 2 this is
      the whole k^m test; for m >= 2 it is a necessary condition, checked first);
    * k^m: the chunk before t was k^m-anonymous, so only itemsets holding t are counted;
    * k: the chunk's sub-records are kept as tuples in insertion order (equal sub-records are
      equal tuples) with their multiplicities; adding a term only splits groups of equal
      sub-records (and adds {t}), so a chunk that is not k-anonymous never becomes so; otherwise
      only the groups of t's records change.
    """
    clash: dict[T, set[T]] = {t: set() for t in order}
    if m >= 2:
        terms_of: dict[int, list[T]] = {}
        for t in order:
            for r in postings[t]:
                terms_of.setdefault(r, []).append(t)
        pairs: Counter = Counter()
        for terms in terms_of.values():
            if len(terms) > 1:
                pairs.update(itertools.combinations(terms, 2))
        for (u, v), c in pairs.items():
            if c < k:
                clash[u].add(v)
                clash[v].add(u)
    # VERPART's passes (open a chunk, scan the remaining terms in order, add what fits) put a term
    # in the first chunk, by opening order, that accepts it given the chunk's earlier terms: so
    # "first fit" in term order gives the same chunks without rescanning the remaining terms.
    chunks: list[_Chunk[T]] = []
    chunk_of: dict[T, int] = {}
    track = bool(restricted)  # multiplicities matter only for the k-anonymity test
    for t in order:
        blocked = {chunk_of[u] for u in clash[t] if u in chunk_of}
        restricted_t = t in restricted
        for c, chunk in enumerate(chunks):
            if c not in blocked and chunk.accepts(t, restricted_t, postings[t], k, m):
                break
        else:
            c, chunk = len(chunks), _Chunk()
            chunks.append(chunk)
        chunk.add(t, restricted_t, postings[t], k, track)
        chunk_of[t] = c
    return [(chunk.terms, chunk.sub) for chunk in chunks]


class _Chunk(Generic[T]):
    """A shared chunk being built: its terms, sub-records and sub-record multiplicities."""

    def __init__(self) -> None:
        self.terms: list[T] = []
        self.sub: dict[int, tuple[T, ...]] = {}  # record -> its sub-record (terms in insertion order)
        self.counts: Counter = Counter()  # sub-record -> multiplicity
        self.short = 0  # number of distinct sub-records listed fewer than k times
        self.restricted = False  # holds a term of T^r, so must stay k-anonymous

    def accepts(self, t: T, restricted_t: bool, records: list[int], k: int, m: int) -> bool:
        """Whether the chunk plus ``t`` is still valid (pairs were checked by the caller)."""
        if self.restricted or restricted_t:
            if self.short:
                return False
            delta: Counter = Counter()
            for r in records:
                old = self.sub.get(r, ())
                if old:
                    delta[old] -= 1
                delta[old + (t,)] += 1
            counts = self.counts
            return all(counts[key] + d == 0 or counts[key] + d >= k for key, d in delta.items())
        if m > 2:
            combos: Counter = Counter()
            for r in records:
                inside = self.sub.get(r, ())
                for size in range(2, min(m - 1, len(inside)) + 1):
                    combos.update(itertools.combinations(inside, size))
            return all(c >= k for c in combos.values())
        return True

    def add(self, t: T, restricted_t: bool, records: list[int], k: int, track: bool = True) -> None:
        """Add ``t``; ``track=False`` skips the multiplicities (no chunk will need the k test)."""
        self.terms.append(t)
        self.restricted = self.restricted or restricted_t
        sub, counts = self.sub, self.counts
        if not track:
            for r in records:
                sub[r] = sub.get(r, ()) + (t,)
            return
        short = self.short
        for r in records:
            old = sub.get(r, ())
            if old:
                c = counts[old]
                short += (0 < c - 1 < k) - (c < k)
                if c == 1:
                    del counts[old]
                else:
                    counts[old] = c - 1
            new = old + (t,)
            sub[r] = new
            c = counts[new]
            short += (c + 1 < k) - (0 < c < k)
            counts[new] = c + 1
        self.short = short


def build_shared_chunks(
    projections: Mapping[int, Collection[str]],
    restricted: Collection[str],
    k: int,
    m: int,
) -> tuple[list[SharedChunk], list[str]]:
    """Group the terms of ``projections`` into shared chunks that satisfy Property 1.

    ``projections`` maps a record id to its sub-record over the candidate refining terms (each
    record projected on its leaf's term chunk ∩ candidates); ``restricted`` is T^r. Returns the
    shared chunks (greedy order, Terrovitis2012 section 4, Algorithm VERPART) and the sorted
    candidates left out because their support is below ``k``.
    """
    supports: Counter = Counter()
    for terms in projections.values():
        supports.update(set(terms))
    placed = sorted((t for t, s in supports.items() if s >= k), key=lambda t: (-supports[t], t))
    left = sorted(t for t, s in supports.items() if s < k)
    keep = set(placed)
    proj = {r: tuple(sorted(set(terms) & keep)) for r, terms in projections.items()}
    proj = {r: p for r, p in proj.items() if p}
    postings: dict[str, list[int]] = {t: [] for t in placed}
    for r in sorted(proj):
        for t in proj[r]:
            postings[t].append(r)
    chunks = [SharedChunk(sorted(group), [(r, tuple(sorted(sub[r]))) for r in sorted(sub)])
              for group, sub in _group_terms(postings, placed, set(restricted), k, m)]
    return chunks, left


def refining_criterion(
    shared_supports: Sequence[int],
    joint_size: int,
    refining_counts: Sequence[int],
    leaf_sizes: Sequence[int],
) -> bool:
    """Equation 1 of Terrovitis2012 section 4, compared exactly.

    ``sum(shared_supports) / joint_size >= sum(refining_counts) / sum(leaf_sizes)``: the supports
    s(t_i) of the refining terms in the new shared chunks over |J_new|, against, for the leaves
    P_1..P_m whose term chunk holds refining terms, the numbers v_j of refining terms in their term
    chunks over their total size. False when there is no refining term.
    """
    if not shared_supports or joint_size <= 0 or sum(leaf_sizes) <= 0:
        return False
    return sum(shared_supports) * sum(leaf_sizes) >= sum(refining_counts) * joint_size


# ---------------------------------------------------------------------------------------------
# REFINE
# ---------------------------------------------------------------------------------------------


@dataclass
class _Leaves:
    """The simple clusters in flat arrays (built by :func:`_prepare`).

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


def _int_array(values: np.ndarray) -> array:
    out = array("q")
    out.frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return out


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sort-based; faster than the hash-based ``np.unique`` here)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Boolean mask: which ``values`` are in the sorted, distinct array ``sorted_set``."""
    if not sorted_set.size:
        return np.zeros(values.size, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[pos] == values


_BITSET_BYTES = 1 << 27
"""Largest bit table :func:`_member_bits` builds (128 MiB); a larger key space uses binary search."""


def _member_bits(values: np.ndarray, sorted_set: np.ndarray, key_space: int) -> np.ndarray:
    """:func:`_member` through a bit table over ``0..key_space-1`` (one random read per value
    instead of a binary search), when the table is no larger than the values' own int64 array
    and :data:`_BITSET_BYTES`; otherwise :func:`_member`. Same result either way."""
    n_bytes = (key_space >> 3) + 1
    if not sorted_set.size or n_bytes > min(_BITSET_BYTES, 8 * values.size):
        return _member(values, sorted_set)
    table = np.zeros(n_bytes, dtype=np.uint8)
    byte = sorted_set >> 3
    first = np.flatnonzero(np.concatenate(([True], byte[1:] != byte[:-1])))
    table[byte[first]] = np.bitwise_or.reduceat(np.left_shift(1, sorted_set & 7).astype(np.uint8), first)
    found = table[values >> 3]
    found >>= (values & 7).astype(np.uint8)
    found &= 1
    return found.view(bool)


def _prepare(dataset: TransactionDataset, partitions: Sequence[PartitionLike]) -> _Leaves:
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
    tc_keys = _sorted_unique(np.repeat(np.arange(n_parts, dtype=np.int64), np.diff(tc_ptr)) * vocab + tc_terms)
    both = rc_keys[_member(rc_keys, tc_keys)]
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
    return _Leaves(
        sizes=sizes,
        rc_ptr=rc_ptr,
        rc_terms=rc_terms,
        group_ptr=group_ptr,
        group_part=_int_array(group_part),
        group_term=group_key % vocab,
        group_start=_int_array(np.concatenate((first, [occ_key.size]))),
        records=_int_array(occ_rec),
    )


def refine(
    dataset: TransactionDataset,
    partitions: Sequence[PartitionLike],
    k: int,
    m: int,
    *,
    max_rounds: int | None = None,
) -> list[JointPlan]:
    """Algorithm REFINE of Terrovitis2012 section 4: join clusters into joint clusters.

    ``partitions`` are the simple clusters after VERPART (``records``, ``chunk_terms``,
    ``term_chunk``); record ids are positions in ``dataset``. Returns the joint clusters in
    creation order; children of a plan are simple clusters or earlier plans (see
    :class:`JointPlan`). Every shared chunk satisfies Property 1 (section 5). ``max_rounds``
    caps the repeat loop (``None``: until a round makes no join). See the module docstring for
    the choices made where the paper is terse.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InputError(f"refine: k must be an integer >= 2, got {k!r}")
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise InputError(f"refine: m must be an integer >= 1, got {m!r}")
    if max_rounds is not None and max_rounds < 0:
        raise InputError(f"refine: max_rounds must be >= 0, got {max_rounds!r}")
    voc = dataset.vocabulary
    L = _prepare(dataset, partitions)
    n_parts = len(partitions)
    gpart, gstart, grec = L.group_part, L.group_start, L.records
    gptr = L.group_ptr.tolist()
    gterm = L.group_term

    # Term order for the cluster ordering (section 4): decreasing term chunk support tcs(t) over
    # the simple clusters' term chunks, ties by term. A (virtual) term chunk's key is the byte
    # string of its terms' ranks, sorted, as big-endian uint32: bytes compare like the sequences.
    n_terms = len(voc)
    tcs = np.bincount(gterm, minlength=n_terms)
    rank = np.empty(n_terms, dtype=np.int64)
    rank[np.lexsort((np.arange(n_terms), -tcs))] = np.arange(n_terms)
    granks = rank[gterm]
    by_rank = np.lexsort((granks, np.frombuffer(gpart, dtype=np.int64))) if gpart else np.zeros(0, np.int64)
    rank_bytes = granks[by_rank].astype(">u4").tobytes()

    def merged_key(key_a: bytes, key_b: bytes, placed: list[int]) -> bytes:
        """The key of a joint's virtual term chunk: both children's terms, without ``placed``."""
        ranks = _sorted_unique(np.concatenate((np.frombuffer(key_a, dtype=">u4"), np.frombuffer(key_b, dtype=">u4"))))
        gone = np.sort(rank[np.asarray(placed, dtype=np.int64)])
        return ranks[~_member(ranks.astype(np.int64), gone)].astype(">u4").tobytes()

    # Per cluster node (0..n_parts-1 simple, n_parts+j the j-th plan). ``vtc``: the (virtual) term
    # chunk, term -> group id (one leaf holds it) or list of group ids; ``t_r``: T^r, built on
    # first use for a simple cluster; ``keys``: ordering key (b"" once joined or if empty).
    term_obj = list(range(n_terms))  # one int object per term id, shared by all dicts
    gterm_list = [term_obj[t] for t in gterm.tolist()]
    gsize = _int_array(np.diff(np.frombuffer(gstart, dtype=np.int64)))  # support of each group
    # A simple cluster's dict is built when it is tried (not kept: most clusters never join).
    vtc: list[dict[int, int | list[int]] | None] = [None] * n_parts
    t_r: list[set[int] | None] = [None] * n_parts
    keys: list[bytes] = [rank_bytes[4 * gptr[p]:4 * gptr[p + 1]] for p in range(n_parts)]
    size: list[int] = list(L.sizes)
    tc_left = [gptr[p + 1] - gptr[p] for p in range(n_parts)]  # current term-chunk size of each leaf
    rc_ptr = L.rc_ptr.tolist()
    rc_terms = L.rc_terms.tolist()
    plans: list[JointPlan] = []
    failed: set[tuple[int, int]] = set()

    def terms_r(x: int) -> set[int]:
        found = t_r[x]
        if found is None:
            found = t_r[x] = set(rc_terms[rc_ptr[x]:rc_ptr[x + 1]])
        return found

    def as_list(g: int | list[int]) -> list[int]:
        return g if isinstance(g, list) else [g]

    def vtc_of(x: int) -> dict[int, int | list[int]]:
        found = vtc[x]
        if found is None:
            return dict(zip(gterm_list[gptr[x]:gptr[x + 1]], range(gptr[x], gptr[x + 1]), strict=True))
        return found

    def try_join(a: int, b: int) -> bool:
        va, vb = vtc_of(a), vtc_of(b)
        small, large = (va, vb) if len(va) <= len(vb) else (vb, va)
        groups_of: dict[int, list[int]] = {}
        supports: dict[int, int] = {}
        for t in small.keys() & large.keys():
            ga, gb = va[t], vb[t]
            if ga.__class__ is int and gb.__class__ is int:
                s = gsize[ga] + gsize[gb]
                if s >= k:
                    groups_of[t] = [ga, gb]
                    supports[t] = s
            else:
                groups = as_list(ga) + as_list(gb)
                s = sum(gsize[g] for g in groups)
                if s >= k:
                    groups_of[t] = groups
                    supports[t] = s
        if not supports:  # no candidate: nothing below can change that (most tried pairs end here)
            return False
        per_leaf: Counter = Counter(gpart[g] for groups in groups_of.values() for g in groups)
        # A leaf without record chunks keeps its last term-chunk term (module docstring, Lemma 2):
        # the candidate it would lose with the smallest support is left out of this join.
        for p in [p for p, n in per_leaf.items() if n >= tc_left[p] and rc_ptr[p] == rc_ptr[p + 1]]:
            if per_leaf[p] < tc_left[p]:
                continue
            mine = [t for t, groups in groups_of.items() if any(gpart[g] == p for g in groups)]
            drop = min(mine, key=lambda t: (supports[t], t))
            per_leaf.subtract(gpart[g] for g in groups_of.pop(drop))
            del supports[drop]
        per_leaf = +per_leaf
        if not supports:
            return False
        if not refining_criterion(list(supports.values()), size[a] + size[b],
                                  list(per_leaf.values()), [L.sizes[p] for p in per_leaf]):
            return False
        placed = sorted(supports)
        for p, n in per_leaf.items():
            tc_left[p] -= n
        postings: dict[int, list[int]] = {}
        removed: dict[int, list[str]] = {}
        for t in placed:
            plist: list[int] = []
            for g in groups_of[t]:
                plist.extend(grec[gstart[g]:gstart[g + 1]])
                removed.setdefault(gpart[g], []).append(voc[t])
            postings[t] = plist
        ra, rb = terms_r(a), terms_r(b)
        restricted = {t for t in placed if t in ra or t in rb}
        order = sorted(placed, key=lambda t: (-supports[t], t))
        chunks = []
        for group, sub in _group_terms(postings, order, restricted, k, m):
            named: dict[tuple[int, ...], tuple[str, ...]] = {}  # few distinct sub-records per chunk
            for key in set(sub.values()):
                named[key] = tuple(voc[t] for t in sorted(key))
            chunks.append(SharedChunk([voc[t] for t in sorted(group)], [(r, named[sub[r]]) for r in sorted(sub)]))
        # The new node: merge the smaller structures into the larger ones (a and b retire).
        big, little = (va, vb) if len(va) >= len(vb) else (vb, va)
        for t, g in little.items():
            if t in big:
                big[t] = as_list(big[t]) + as_list(g)
            else:
                big[t] = g
        for t in placed:
            del big[t]
        big_r, little_r = (ra, rb) if len(ra) >= len(rb) else (rb, ra)
        big_r |= little_r
        big_r.update(placed)
        vtc.append(big)
        t_r.append(big_r)
        keys.append(merged_key(keys[a], keys[b], placed) if big else b"")
        vtc[a] = vtc[b] = {}
        t_r[a] = t_r[b] = set()
        keys[a] = keys[b] = b""
        size.append(size[a] + size[b])
        plans.append(JointPlan(children=sorted((a, b)), shared_chunks=chunks,
                               removed={p: sorted(v) for p, v in sorted(removed.items())}))
        return True

    group_ptr = np.asarray(L.group_ptr, dtype=np.int64)
    group_term = np.asarray(gterm, dtype=np.int64)
    group_size = np.frombuffer(gsize, dtype=np.int64)

    def _hopeless_pairs(nodes: list[int]) -> list[bool]:
        """For simple clusters ``nodes[i]``, ``nodes[i+1]``: True when their term chunks share no
        term whose support over both reaches k (``try_join`` finds no candidate and fails)."""
        if len(nodes) < 2:
            return []
        o = np.asarray(nodes, dtype=np.int64)
        pair = np.concatenate((np.arange(len(o) - 1), np.arange(len(o) - 1)))
        side = np.concatenate((o[:-1], o[1:]))
        starts = group_ptr[side]
        lens = group_ptr[side + 1] - starts
        g = np.repeat(starts - (np.cumsum(lens) - lens), lens)
        g += np.arange(int(lens.sum()), dtype=np.int64)
        key = np.repeat(pair, lens) * max(n_terms, 1) + group_term[g]
        order = np.argsort(key, kind="stable")
        key, sup = key[order], group_size[g[order]]
        common = (key[1:] == key[:-1]) & (sup[1:] + sup[:-1] >= k)  # a term appears once per side
        hopeless = np.ones(len(o) - 1, dtype=bool)
        hopeless[key[1:][common] // max(n_terms, 1)] = False
        return hopeless.tolist()

    # The ordered list persists between rounds: joined clusters leave it, new joint clusters are
    # appended, and the (stable, run-aware) sort restores the order in near-linear time.
    ordered = [x for x in range(n_parts) if keys[x]]
    rounds = 0
    with tqdm(desc="refine", unit="round", disable=None, file=sys.stderr) as bar:
        while max_rounds is None or rounds < max_rounds:
            rounds += 1
            # by (key, cluster number): ``ordered`` is already in that order among equal keys (it
            # starts ascending, filtering keeps the order, new joint clusters come last with
            # ascending numbers), so a stable sort on the key alone gives the same list
            ordered.sort(key=keys.__getitem__)
            # the first round tries every adjacent pair of simple clusters: the pairs without any
            # candidate (no common term with support >= k) are found at once, vectorised
            hopeless = _hopeless_pairs(ordered) if rounds == 1 else None
            joined = 0
            i = 0
            while i + 1 < len(ordered):
                a, b = ordered[i], ordered[i + 1]
                if hopeless is not None and hopeless[i]:  # try_join would return False, changing nothing
                    failed.add((a, b))
                    i += 1
                    continue
                if (a, b) not in failed and try_join(a, b):
                    joined += 1
                    i += 2
                else:
                    failed.add((a, b))
                    i += 1
            bar.update(1)
            bar.set_postfix(joint=len(plans))
            if not joined:
                break
            first_new = n_parts + len(plans) - joined
            ordered = [x for x in ordered if keys[x]]
            ordered.extend(x for x in range(first_new, n_parts + len(plans)) if keys[x])
    return plans


# ---------------------------------------------------------------------------------------------
# Lemma 2 after REFINE
# ---------------------------------------------------------------------------------------------


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
    emptied: dict[int, set[str]] = {}
    for plan in plans:
        for idx, terms in plan.removed.items():
            emptied.setdefault(idx, set()).update(terms)
    n_cl = len(table.clusters)
    bounds = np.searchsorted(table.pair_cluster, np.arange(n_cl + 1)).tolist()
    chunk = table.pair_chunk.copy()
    n_chunks = table.n_chunks.copy()
    support = (table.pair_end - table.pair_start).tolist()
    out = Lemma2Repair(table)
    for c in sorted(emptied):
        pairs = range(bounds[c], bounds[c + 1])
        if sum(1 for p in pairs if chunk[p] < 0) > len(emptied[c]):
            continue  # a term the joints did not take is still in the term chunk
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
