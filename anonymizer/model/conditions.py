"""The papers' conditions, one short definition each (Terrovitis2012, Barakat2016, Awad2019).

Each function states one condition as the paper does, on plain Python values (a chunk is a
sequence of sub-records, a sub-record a collection of string terms), with no index and no
shortcut. They are the reference: the verifier (:mod:`anonymizer.evaluation.verify`) calls them
directly, and every fast path of the engine and of the attacks that decides the same thing
(the incremental bitset test of VERPART, REFINE's greedy grouping, the vectorized cover index
of :mod:`attacks.cover.problem`) stays where it is and is property-tested equal to them
(``tests/test_conditions.py``). This module imports nothing of the engine.

* :func:`km_violations`, :func:`is_km_anonymous`: k^m-anonymity of a chunk (Terrovitis2012
  section 3, "Vertical partitioning": every combination of at most m terms that appears in a
  chunk appears in at least k of its sub-records; a combination that never appears is no obstacle).
* :func:`k_anonymity_violations`, :func:`is_k_anonymous`: k-anonymity of a chunk, the stronger
  reading Property 1 asks of some shared chunks (every distinct sub-record listed at least k
  times; empty sub-records are implied, never listed, so they are not counted).
* :func:`lemma2_holds`: the size condition (b) of Terrovitis2012 Lemma 2 (section 5).
* :func:`property1_holds`: Terrovitis2012 Property 1 (section 5) for one shared chunk.
* :func:`awad_cover`: Awad2019 Definition 3 (section 3.3) on one record chunk.
* :func:`barakat_cover`: Barakat2016 Definition 3 (section 5.1) for one item and an earlier chunk.

**Lemma 2 with no record chunk (v = 0).** The lemma reads ``h = min(m, v)`` and needs
``s + k * (h - 1)`` non-empty sub-records when the term chunk is empty. Taken literally at v = 0
that is ``s - k`` sub-records, which a cluster with no record chunk meets when s = k: a cluster of
k records, no record chunk and an empty term chunk would pass, although every one of its records
is empty, and the proof of Lemma 2 (a valid reconstruction has s non-empty records: "the s - k
records can be populated ... by assigning 1 subrecord ... from any of the C_1..C_v chunks")
excludes that. The proof counts ``h * k + (s - k)`` sub-records with h the number of chunks the
m terms are scattered over, at least 1 for any term at all; so the bound is read with
``h = max(1, min(m, v))``: at v = 0 it asks for s sub-records, i.e. a non-empty term chunk. This
was already the verifier's and safe disassociation's reading; VERPART and the repair after REFINE
never ask at v = 0 (they stop once no record chunk is left), so no release changes.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Sequence

__all__ = [
    "awad_cover",
    "barakat_cover",
    "chunk_terms",
    "is_k_anonymous",
    "is_km_anonymous",
    "itemset_supports",
    "k_anonymity_violations",
    "km_violations",
    "lemma2_bound",
    "lemma2_h",
    "lemma2_holds",
    "property1_holds",
    "supports_below",
]

Chunk = Sequence[Collection[str]]
"""A chunk: its sub-records (a bag), each a collection of distinct terms."""


def chunk_terms(chunk: Iterable[Iterable[Hashable]]) -> set:
    """The terms a chunk lists (its domain)."""
    return {t for sub in chunk for t in sub}


# ---- k^m-anonymity and k-anonymity (Terrovitis2012 sections 3 and 5) -----------------------------

def itemset_supports(chunk: Chunk, m: int) -> Counter[tuple[str, ...]]:
    """Support of every itemset of 1..m terms that appears in ``chunk``: the number of its
    sub-records that hold it (itemsets as sorted tuples). Equal sub-records are counted once
    and weighted by their multiplicity."""
    counts: Counter[tuple[str, ...]] = Counter()
    for terms, mult in Counter(tuple(sorted(set(sub))) for sub in chunk).items():
        for size in range(1, min(m, len(terms)) + 1):
            combos = itertools.combinations(terms, size)
            counts.update(combos if mult == 1 else dict.fromkeys(combos, mult))
    return counts


def supports_below(counts: Counter[tuple[str, ...]], k: int) -> list[tuple[tuple[str, ...], int]]:
    """The (itemset, support) pairs of ``counts`` with support below ``k``, by support then itemset."""
    bad = [(itemset, n) for itemset, n in counts.items() if n < k]
    bad.sort(key=lambda pair: (pair[1], pair[0]))
    return bad


def km_violations(chunk: Chunk, k: int, m: int) -> list[tuple[tuple[str, ...], int]]:
    """Terrovitis2012 section 3: every itemset of 1..m terms that appears in ``chunk`` in fewer
    than ``k`` sub-records, with its support, sorted by support then itemset (empty when the
    chunk is k^m-anonymous)."""
    return supports_below(itemset_supports(chunk, m), k)


def is_km_anonymous(chunk: Chunk, k: int, m: int) -> bool:
    """Is ``chunk`` k^m-anonymous (Terrovitis2012 section 3)? Every itemset of at most m terms
    that appears in some sub-record appears in at least k of them."""
    return not km_violations(chunk, k, m)


def k_anonymity_violations(chunk: Chunk, k: int) -> list[tuple[tuple[str, ...], int]]:
    """Every distinct non-empty sub-record of ``chunk`` listed fewer than ``k`` times (as a sorted
    tuple, with its count), by count then sub-record."""
    counts = Counter(frozenset(sub) for sub in chunk if len(sub) > 0)
    return supports_below(Counter({tuple(sorted(sub)): n for sub, n in counts.items() if n < k}), k)


def is_k_anonymous(chunk: Chunk, k: int) -> bool:
    """Is ``chunk`` k-anonymous in the sense of Terrovitis2012 Property 1: every distinct non-empty
    sub-record appears at least k times (empty sub-records are implied, never listed)?"""
    return not k_anonymity_violations(chunk, k)


def property1_holds(shared_chunk: Chunk, restricted: Collection[str], k: int, m: int) -> bool:
    """Terrovitis2012 Property 1 (section 5) for a shared chunk of a joint cluster J: with T^r
    (``restricted``) the terms of the record and shared chunks of the clusters forming J, a shared
    chunk holding a term of T^r must be k-anonymous, any other one k^m-anonymous."""
    if chunk_terms(shared_chunk).isdisjoint(restricted):
        return is_km_anonymous(shared_chunk, k, m)
    return is_k_anonymous(shared_chunk, k)


# ---- Lemma 2 (Terrovitis2012 section 5) ---------------------------------------------------------

def lemma2_h(m: int, n_chunks: int) -> int:
    """h of Lemma 2: ``min(m, v)`` record chunks, read as at least 1 (module docstring, v = 0)."""
    return max(1, min(m, n_chunks))


def lemma2_bound(size: int, n_chunks: int, k: int, m: int) -> int:
    """The non-empty sub-records Lemma 2 asks of a cluster of ``size`` records with ``n_chunks``
    record chunks and an empty term chunk: ``s + k * (h - 1)``."""
    return size + k * (lemma2_h(m, n_chunks) - 1)


def lemma2_holds(size: int, nonempty_subrecords: int, n_chunks: int, k: int, m: int, term_chunk_empty: bool) -> bool:
    """Condition (b) of Terrovitis2012 Lemma 2 (section 5): the term chunk is not empty, or the
    record chunks list at least ``s + k * (h - 1)`` non-empty sub-records, ``h = min(m, v)``
    (at least 1, module docstring)."""
    return not term_chunk_empty or nonempty_subrecords >= lemma2_bound(size, n_chunks, k, m)


# ---- the cover problems (Awad2019, Barakat2016) -------------------------------------------------

def awad_cover(chunk: Chunk) -> tuple[list[str], int, list[str]] | None:
    """Awad2019 Definition 3 on one record chunk R_Cj with item set I_j: an item z is *covered* when
    s(I_j) = s({z}). Returns (I_j sorted, s(I_j), the covered items sorted), or None when the
    chunk has no cover problem. A chunk of one item is never one (there is nothing to associate
    it with; Awad2019 Figure 1 treats the chunk {e},{e} as safe), and s(I_j) must be positive."""
    counts: Counter[str] = Counter(t for sub in chunk for t in sub)
    if len(counts) < 2:
        return None
    full = sum(1 for sub in chunk if len(sub) == len(counts))
    if full == 0:
        return None
    covered = sorted(t for t, n in counts.items() if n == full)
    if not covered:
        return None
    return sorted(counts), full, covered


def barakat_cover(earlier: Chunk, chunk: Chunk, x: str) -> tuple[list[str], list[str]] | None:
    """Barakat2016 Definition 3 for an item ``x`` of ``chunk`` (C_j) and an ``earlier`` chunk (C_l,
    l < j): with I_l(x) the items y of C_l of support s(y, C_l) >= s(x, C_j), a cover problem exists
    when s(I_l(x), C_l) equals the least s(y, C_l) over I_l(x). Returns (covered items: those at
    that least support, covering items: the rest), both sorted, or None. I_l(x) must hold at least
    two items (a lone item covered by nothing is no association)."""
    s_x = sum(1 for sub in chunk if x in sub)
    support: Counter[str] = Counter(t for sub in earlier for t in sub)
    items = {y for y, n in support.items() if n >= s_x}
    if len(items) < 2:
        return None
    together = sum(1 for sub in earlier if items <= set(sub))
    if together != min(support[y] for y in items):
        return None
    covered = sorted(y for y in items if support[y] == together)
    return covered, sorted(items.difference(covered))
