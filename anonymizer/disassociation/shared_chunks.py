"""Shared chunks of a joint cluster and the anonymity they need (Terrovitis2012 sections 3-5).

A shared chunk (section 3, Figure 3) is the projection of the records of a joint cluster's leaves
on a set of refining terms. REFINE groups the refining terms into shared chunks with VERPART's
greedy loop (section 4) and Property 1 (section 5) as the validity test:

* a chunk that holds a term of T^r (terms of the record chunks of the joint's leaves and of the
  shared chunks of its descendant joint clusters) must be **k-anonymous**, read as: every distinct
  non-empty sub-record of the chunk appears at least k times (Lemma 3's proof needs "at least k
  duplicates of each record"; empty sub-records are not listed, so they do not count);
* any other chunk must be **k^m-anonymous**: every itemset of at most m terms that occurs occurs
  in at least k sub-records. A k-anonymous chunk is also k^m-anonymous.

Terms are taken by decreasing support (ties alphabetically); each pass opens a chunk and adds every
remaining term that keeps it valid. The k^m test only counts the itemsets that contain the new term
(the chunk before it was already k^m-anonymous), never a power set.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from anonymizer.model.conditions import is_k_anonymous

__all__ = ["PackedSubrecords", "SharedChunk", "build_shared_chunks", "group_refining_terms", "is_k_anonymous"]

T = TypeVar("T", bound=Hashable)


class SharedChunk:
    """A shared chunk of a joint cluster (Terrovitis2012 section 3, Figure 3).

    ``terms`` is its domain T_i (sorted); ``subrecords`` lists, by increasing record id, each
    record of the joint's leaves whose projection on the chunk is non-empty, with that projection.

    REFINE makes its chunks packed (:attr:`packed`): the records (ascending) and each one's sub-record
    as an index into the chunk's few distinct sub-records, so the release builder hashes each distinct
    sub-record once and shuffles numbers, and no (record, sub-record) pair is made;
    ``subrecords`` is built from them on first use. Equal chunks compare equal however they were made.
    """

    __slots__ = ("terms", "_subrecords", "_packed")

    def __init__(self, terms: list[str], subrecords: list[tuple[int, tuple[str, ...]]] | None = None) -> None:
        self.terms = terms
        self._subrecords = [] if subrecords is None else subrecords
        self._packed: PackedSubrecords | None = None

    @classmethod
    def packed_from(cls, terms: list[str], packed: PackedSubrecords) -> SharedChunk:
        """A chunk given by its packed sub-records (see the class docstring)."""
        chunk = cls(terms)
        chunk._subrecords = None  # type: ignore[assignment]
        chunk._packed = packed
        return chunk

    @property
    def subrecords(self) -> list[tuple[int, tuple[str, ...]]]:
        if self._subrecords is None:
            p = self._packed
            assert p is not None
            self._subrecords = list(zip(p.records, map(p.class_terms.__getitem__, p.classes), strict=True))
        return self._subrecords

    @subrecords.setter
    def subrecords(self, value: list[tuple[int, tuple[str, ...]]]) -> None:
        self._subrecords, self._packed = value, None

    @property
    def packed(self) -> PackedSubrecords | None:
        """The packed sub-records, when REFINE made the chunk (None for a chunk given as pairs)."""
        return self._packed

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SharedChunk):
            return NotImplemented
        return self.terms == other.terms and self.subrecords == other.subrecords

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SharedChunk(terms={self.terms!r}, subrecords={self.subrecords!r})"

    def __getstate__(self) -> tuple[list[str], list[tuple[int, tuple[str, ...]]] | None, PackedSubrecords | None]:
        return self.terms, self._subrecords, self._packed

    def __setstate__(self, state: tuple[list[str], list[tuple[int, tuple[str, ...]]] | None,
                                        PackedSubrecords | None]) -> None:
        self.terms, self._subrecords, self._packed = state


@dataclass(frozen=True)
class PackedSubrecords:
    """A shared chunk's sub-records without one pair per record: ``records`` ascending and ``classes[i]``
    the index of record ``records[i]``'s sub-record in ``class_terms`` (the chunk's distinct sub-records,
    each a sorted tuple of terms)."""

    records: list[int]
    classes: list[int]
    class_terms: list[tuple[str, ...]]


def group_refining_terms(
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
    clash: dict[T, set[T]] = {}  # only the terms that clash with another one
    if m >= 2 and len(order) > 1:
        terms_of: dict[int, list[T]] = {}
        for t in order:
            for r in postings[t]:
                terms_of.setdefault(r, []).append(t)
        pairs = Counter(itertools.chain.from_iterable(  # one count over every record's pairs
            itertools.combinations(terms, 2) for terms in terms_of.values() if len(terms) > 1))
        for (u, v), c in pairs.items():
            if c < k:
                clash.setdefault(u, set()).add(v)
                clash.setdefault(v, set()).add(u)
    # VERPART's passes (open a chunk, scan the remaining terms in order, add what fits) put a term
    # in the first chunk, by opening order, that accepts it given the chunk's earlier terms: so
    # "first fit" in term order gives the same chunks without rescanning the remaining terms.
    chunks: list[_Chunk[T]] = []
    chunk_of: dict[T, int] = {}
    track = bool(restricted)  # multiplicities matter only for the k-anonymity test
    for t in order:
        against = clash.get(t)
        blocked = {chunk_of[u] for u in against if u in chunk_of} if against else ()
        restricted_t = t in restricted
        records = postings[t]
        for c, chunk in enumerate(chunks):
            if c in blocked:
                continue
            if (m <= 2 and not (chunk.restricted or restricted_t)) or chunk.accepts(t, restricted_t, records, k, m):
                break  # (m <= 2 and no k test: the pairs were the whole check)
        else:
            c, chunk = len(chunks), _Chunk()
            chunks.append(chunk)
        chunk.add(t, restricted_t, records, k, track)
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
            # The records of t leave their sub-record ``old`` (None: no sub-record yet) for ``old + (t,)``,
            # a new one (t is not in the chunk): each new sub-record is listed d times, and ``old`` as
            # often as before minus d; both must be 0 or at least k.
            counts = self.counts
            touched = Counter(map(self.sub.get, records))  # counted in C
            for old, d in touched.items():
                if d < k or (old is not None and 0 < counts[old] - d < k):
                    return False
            return True
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
        sub = self.sub
        olds = list(map(sub.get, records))  # None: no sub-record yet
        touched = Counter(olds)
        # one new sub-record per sub-record t touches, shared by its records
        new_of = {old: (t,) if old is None else old + (t,) for old in touched}
        sub.update(zip(records, map(new_of.__getitem__, olds), strict=True))
        if not track:
            return
        counts, short = self.counts, self.short
        for old, d in touched.items():
            if old is not None:
                c = counts[old]
                short += (0 < c - d < k) - (c < k)
                if c == d:
                    del counts[old]
                else:
                    counts[old] = c - d
            counts[new_of[old]] = d  # a new sub-record (t was not in the chunk)
            short += d < k
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
              for group, sub in group_refining_terms(postings, placed, set(restricted), k, m)]
    return chunks, left
