"""The top-K frequent itemsets of a dataset (Terrovitis2012 section 6, equation 2; K = 1000 in section 7.1).

tKd compares the top-K itemsets (any size) of the original with those of the published data
(:mod:`anonymizer.evaluation.loss`). Definition implemented: FI is every itemset whose support
reaches s_K, the K-th largest itemset support of the original (ties at the cut kept, so FI may
exceed K), and FI' likewise for the published data. Then ``X in FI'`` iff ``supp'(X) >= s'_K``,
so ``|FI & FI'|`` needs only s'_K and the published supports of the itemsets of FI, which are
counted directly (:func:`itemset_supports`, tid-list intersections); FI' itself is never listed.

Both s_K and FI come from an exact best-first search, not from threshold guessing: every itemset
is reached from its prefix (items ordered by descending support), a child's support never
exceeds its parent's, so popping a heap keyed by (-support, size, ranks)
yields all itemsets in that total order; the search stops after the K-th pop plus its ties.
Children below a lower bound of s_K (the K-th largest support generated so far, at least the
K-th largest single-item support, below which no item is even looked at) are never pushed.
Work is at most ``max_itemsets`` pops, each one pass over the rows holding the popped itemset,
and the heap is trimmed to the entries that can still be popped: memory and time are bounded
whatever the record lengths (a threshold search with pyfim can explode, e.g. on kosarak's
records of hundreds of terms, where lowering a threshold one step turns fewer than K itemsets
into astronomically many). Choice: ties at the cut are capped at ``max_itemsets`` (default
``DEFAULT_TIE_FACTOR`` * K); past it FI keeps the first ``max_itemsets`` itemsets in the search
order and the utility report (:class:`anonymizer.evaluation.report.UtilityReport`) carries a
warning. For the published side ties never matter,
so its search stops at the K-th pop.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["DEFAULT_TIE_FACTOR", "TopK", "itemset_supports", "top_k_search", "top_k_itemsets",
           "dataset_top_k"]



_GRAM_LIMIT = 50_000_000
"""Work and output bound (entries) under which all pair supports come from one sparse product."""

_BITS_LIMIT = 1 << 23
"""Most 64-bit words of the row bitsets (one per kept item, 64 MiB); larger data count by gathering only."""

_GATHER_COST = 4
"""Cost of gathering and counting one entry of a tid-list's rows, in ANDed-and-counted 64-bit words."""

DEFAULT_TIE_FACTOR = 10
"""Default cap on a top-K answer: at most this many times K itemsets (ties at the K-th support)."""


@dataclass
class TopK:
    """Result of :func:`top_k_search`.

    ``itemsets`` maps each itemset (a frozenset of terms) to its support, in the search order
    (descending support, then size, then the items' support ranks). ``kth_support`` is the K-th
    largest support over all itemsets (1 when the data hold fewer than K itemsets, so that every
    itemset that occurs belongs to the top K; 0 for data without any item). ``truncated`` is True
    when the itemsets tied at the K-th support exceeded ``max_itemsets`` and only the first
    ``max_itemsets`` in the search order were kept.
    """

    itemsets: dict[frozenset, int]
    kth_support: int
    truncated: bool


def _csr_of(transactions: Iterable[Iterable[Hashable]]) -> tuple[np.ndarray, np.ndarray, list[Hashable]]:
    """CSR (indptr, sorted distinct item ids) of arbitrary transactions, and the item of each id."""
    index: dict[Hashable, int] = {}
    ids: list[int] = []
    ptr = [0]
    for t in transactions:
        row = sorted({index.setdefault(item, len(index)) for item in t})
        ids.extend(row)
        ptr.append(len(ids))
    return np.asarray(ptr, dtype=np.int64), np.asarray(ids, dtype=np.int64), list(index)


def _intersect_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Common values of two sorted arrays of distinct values (binary search, no sort)."""
    if a.size > b.size:
        a, b = b, a
    if a.size == 0:
        return a
    pos = np.searchsorted(b, a)
    pos[pos == b.size] = 0
    return a[b[pos] == a]


def _gather(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions in the CSR ``indices`` of every entry of ``rows`` (vectorised concatenation)."""
    starts, ends = indptr[rows], indptr[rows + 1]
    lens = ends - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(lens) + lens, lens)
    return offsets + np.arange(total, dtype=np.int64)



@dataclass
class _RankedItems:
    """The search's view of a CSR: items of support >= ``floor`` renamed by rank (support descending, then id).

    ``r``/``rptr`` hold each row's ranks (rows without a kept item dropped), ``col_rows``/``cptr``
    the rows holding each rank (tid-lists), ``pairs`` all pair supports (upper triangle) when one
    sparse product is cheap enough (``_GRAM_LIMIT``), else None. ``bits`` holds the same tid-lists
    as row bitsets (rank x 64-row words) when they fit ``_BITS_LIMIT``: on dense data (few items
    held by many rows, the upper levels of a hierarchy) an extension's support is then one AND and
    popcount per word instead of a gather of every entry of the rows (:meth:`children` picks the
    cheaper way per itemset; both count the same rows).
    """

    item_of: np.ndarray
    single: np.ndarray
    r: np.ndarray
    rptr: np.ndarray
    col_rows: np.ndarray
    cptr: np.ndarray
    pairs: Any
    floor: int
    bits: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.item_of.size)

    def rows_of(self, items: tuple[int, ...]) -> np.ndarray:
        """The tid-list of an itemset: its rarest item's rows intersected with the others'."""
        cptr, col_rows = self.cptr, self.col_rows
        cols = sorted(items, key=lambda j: cptr[j + 1] - cptr[j])
        got = col_rows[cptr[cols[0]]:cptr[cols[0] + 1]]
        for j in cols[1:]:
            got = _intersect_sorted(got, col_rows[cptr[j]:cptr[j + 1]])
        return got

    def children(self, items: tuple[int, ...], size: int, bound: int,
                 support: int) -> Iterable[tuple[int, int]] | None:
        """(rank, support) of every one-item extension by a later rank whose support reaches ``bound``;
        None when no row holding ``items`` (``support`` rows) holds a later rank."""
        last = items[-1]
        if size == 1 and self.pairs is not None:
            lo, hi = self.pairs.indptr[last], self.pairs.indptr[last + 1]
            cols, vals = self.pairs.indices[lo:hi], self.pairs.data[lo:hi]
            sel = vals >= bound
            return zip(cols[sel].tolist(), vals[sel].tolist(), strict=True)
        if self.bits is not None and self._bits_cheaper(items, support):
            counts = self._later_counts_bits(items)
            if not counts.any():
                return None
        else:
            ents = self.r[_gather(self.rptr, self.rows_of(items))]
            ents = ents[ents > last]
            if ents.size == 0:
                return None
            counts = np.bincount(ents - (last + 1))
        ext = np.flatnonzero(counts >= bound)
        return zip((ext + last + 1).tolist(), counts[ext].tolist(), strict=True)

    def _bits_cheaper(self, items: tuple[int, ...], support: int) -> bool:
        """Whether counting by bitsets costs less than gathering the ``support`` rows' entries."""
        words = self.bits.shape[1]
        later = self.n - items[-1] - 1
        gather = _GATHER_COST * support * (self.r.size / max(self.rptr.size - 1, 1))
        return len(items) * words + later * min(words, support) < gather

    def _later_counts_bits(self, items: tuple[int, ...]) -> np.ndarray:
        """Support of ``items`` + j for every later rank j, from the row bitsets."""
        held = np.bitwise_and.reduce(self.bits[list(items)], axis=0)
        nz = np.flatnonzero(held)
        later = self.bits[items[-1] + 1:, nz]
        later &= held[nz]
        return np.bitwise_count(later).sum(axis=1, dtype=np.int64)


def _row_bits(col_rows: np.ndarray, cptr: np.ndarray, n_rows: int) -> np.ndarray | None:
    """The tid-lists as bitsets (rank x ceil(rows / 64) words, bit ``i % 64`` of word ``i // 64`` for row i);
    None past ``_BITS_LIMIT``."""
    n = cptr.size - 1
    words = (n_rows + 63) // 64
    if n == 0 or n * words > _BITS_LIMIT:
        return None
    rank = np.repeat(np.arange(n, dtype=np.int64), np.diff(cptr))
    key = rank * words + (col_rows >> 6)  # ascending: tid-lists are sorted, ranks in order
    vals = np.left_shift(np.uint64(1), (col_rows & 63).astype(np.uint64))
    bits = np.zeros(n * words, dtype=np.uint64)
    if key.size:
        starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        bits[key[starts]] = np.bitwise_or.reduceat(vals, starts)
    return bits.reshape(n, words)


def _rank_items(indptr: np.ndarray, indices: np.ndarray, n_items: int, supports: np.ndarray, present: np.ndarray,
                top_k: int) -> _RankedItems:
    """Rank the items that can be in a top-K itemset and build the reduced CSR and its tid-lists."""
    ranked = np.sort(supports[present])[::-1]
    # K singletons reach the K-th largest single-item support, so s_K is at least that.
    floor = int(ranked[top_k - 1]) if ranked.size >= top_k else 1
    # Items below the floor are in no top-K itemset; rank the rest by (-support, id).
    kept = present[supports[present] >= floor]
    kept = kept[np.lexsort((kept, -supports[kept]))]
    rank_of = np.full(n_items, -1, dtype=np.int64)
    rank_of[kept] = np.arange(kept.size)
    n = int(kept.size)
    # Reduced CSR over ranks, each row sorted, rows without kept items dropped.
    r = rank_of[indices]
    row_id = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    keep = r >= 0
    r, row_id = r[keep], row_id[keep]
    order = np.lexsort((r, row_id))
    r, row_id = r[order], row_id[order]
    _, row_id = np.unique(row_id, return_inverse=True)
    n_rows = int(row_id.max()) + 1 if row_id.size else 0
    rptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_id, minlength=n_rows), out=rptr[1:])
    # Column lists (rows holding each rank), for the tid-lists of an itemset.
    corder = np.lexsort((row_id, r))
    cptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=cptr[1:])
    # All pair supports in one sparse product when its work and output are small enough;
    # otherwise each single item's children are counted like any other itemset's.
    row_len = np.diff(rptr)
    pairs = None
    if n * n <= _GRAM_LIMIT and int((row_len * row_len).sum()) <= _GRAM_LIMIT:
        mat = sp.csr_matrix((np.ones(r.size, dtype=np.int64), r, rptr), shape=(n_rows, n))
        pairs = sp.triu(mat.T @ mat, k=1, format="csr")
    col_rows = row_id[corder]
    return _RankedItems(kept, supports[kept], r, rptr, col_rows, cptr, pairs, floor, _row_bits(col_rows, cptr, n_rows))


def _best_first(ranked: _RankedItems, top_k: int, max_size: int | None,
                max_itemsets: int) -> tuple[list[tuple[tuple[int, ...], int]], int, bool]:
    """Pop itemsets in (-support, size, ranks) order until the K-th pop and its ties (module docstring)."""
    # Heap key (-support, size, ranks): every child sorts after its parent (support never grows,
    # size grows), so pops follow this total order over all itemsets.
    n, single = ranked.n, ranked.single
    heap: list[tuple[int, int, tuple[int, ...]]] = [(-int(single[j]), 1, (j,)) for j in range(n)]
    heapq.heapify(heap)
    # ``best`` holds the K largest supports generated so far: a lower bound of s_K for pruning.
    best = heapq.nlargest(top_k, single.tolist())
    heapq.heapify(best)
    bound = max(ranked.floor, best[0]) if len(best) >= top_k else ranked.floor
    out: list[tuple[tuple[int, ...], int]] = []
    kth = 0
    truncated = False
    while heap:
        neg, size, items = heapq.heappop(heap)
        s = -neg
        if len(out) >= top_k and s < kth:
            break
        if len(out) >= max_itemsets:
            truncated = True
            break
        out.append((items, s))
        if len(out) == top_k:
            kth = s
            bound = max(bound, s)
        if max_size is not None and size >= max_size or items[-1] == n - 1:
            continue
        children = ranked.children(items, size, bound, s)
        if children is None:
            continue
        for j, c in children:
            heapq.heappush(heap, (-c, size + 1, items + (j,)))
            if len(best) < top_k:
                heapq.heappush(best, c)
            elif c > best[0]:
                heapq.heapreplace(best, c)
        if len(best) >= top_k:
            bound = max(bound, best[0])
        # Entries beyond the best ``max_itemsets - len(out)`` can never be popped: drop them.
        room = max_itemsets - len(out)
        if len(heap) > 2 * room + 4096:
            heap = heapq.nsmallest(room, heap)
            heapq.heapify(heap)
    return out, (1 if len(out) < top_k else kth), truncated


def _top_k_csr(indptr: np.ndarray, indices: np.ndarray, n_items: int, top_k: int, max_size: int | None,
               max_itemsets: int) -> tuple[list[tuple[tuple[int, ...], int]], int, bool]:
    """Best-first top-K search on a CSR of distinct item ids per row (see :func:`top_k_search`)."""
    supports = np.bincount(indices, minlength=n_items) if n_items else np.zeros(0, dtype=np.int64)
    present = np.flatnonzero(supports > 0)
    if present.size == 0:
        return [], 0, False
    ranked = _rank_items(indptr, indices, n_items, supports, present, top_k)
    out, kth, truncated = _best_first(ranked, top_k, max_size, max_itemsets)
    item_of = ranked.item_of
    return [(tuple(int(item_of[j]) for j in items), s) for items, s in out], kth, truncated


def _cap(top_k: int, max_itemsets: int | None) -> int:
    """The tie cap (default ``DEFAULT_TIE_FACTOR * top_k``), validated with ``top_k``."""
    if top_k < 1:
        raise InputError(f"top_k must be at least 1, got {top_k}")
    cap = DEFAULT_TIE_FACTOR * top_k if max_itemsets is None else int(max_itemsets)
    if cap < top_k:
        raise InputError(f"max_itemsets must be at least top_k ({top_k}), got {cap}")
    return cap


def top_k_search(ds: TransactionDataset, top_k: int, max_size: int | None = None,
                 max_itemsets: int | None = None) -> TopK:
    """The top-K frequent itemsets of a dataset's records, by an exact best-first search.

    FI is every itemset whose support reaches the K-th largest support (ties at the cut kept,
    so FI may hold more than K itemsets), capped at ``max_itemsets`` (default
    ``DEFAULT_TIE_FACTOR * top_k``; ``truncated`` tells). See the module docstring.
    """
    cap = _cap(top_k, max_itemsets)
    found, kth, truncated = _top_k_csr(ds.indptr.astype(np.int64), ds.indices.astype(np.int64),
                                       len(ds.vocabulary), top_k, max_size, cap)
    voc = ds.vocabulary
    return TopK({frozenset(voc[i] for i in items): n for items, n in found}, kth, truncated)


def top_k_itemsets(transactions: Iterable[Iterable[Hashable]], top_k: int, max_size: int | None = None,
                   max_itemsets: int | None = None) -> dict[frozenset, int]:
    """The top-K frequent itemsets of any transactions with their supports (see :func:`top_k_search`)."""
    cap = _cap(top_k, max_itemsets)
    indptr, indices, items = _csr_of(transactions)
    found, _, _ = _top_k_csr(indptr, indices, len(items), top_k, max_size, cap)
    return {frozenset(items[i] for i in s): n for s, n in found}


def dataset_top_k(ds: TransactionDataset, top_k: int, max_size: int | None = None,
                  max_itemsets: int | None = None) -> dict[frozenset, int]:
    """:func:`top_k_search`'s itemsets only."""
    return top_k_search(ds, top_k, max_size, max_itemsets).itemsets


def itemset_supports(ds: TransactionDataset, itemsets: Iterable[frozenset]) -> dict[frozenset, int]:
    """Support of each given itemset in ``ds``, counted directly (tid-list intersections, no mining)."""
    csc = ds.matrix().tocsc()
    csc.sort_indices()
    ptr, rows = csc.indptr, csc.indices
    index = ds.term_index
    out: dict[frozenset, int] = {}
    for s in itemsets:
        cols = [index.get(t, -1) for t in s]
        if not cols or min(cols) < 0:
            out[s] = 0
            continue
        cols.sort(key=lambda j: ptr[j + 1] - ptr[j])
        got = rows[ptr[cols[0]]:ptr[cols[0] + 1]]
        for j in cols[1:]:
            if got.size == 0:
                break
            got = _intersect_sorted(got, rows[ptr[j]:ptr[j + 1]])
        out[s] = int(got.size)
    return out
