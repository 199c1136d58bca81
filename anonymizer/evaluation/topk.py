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

An extension ``items + c`` is counted only when every pair ``{x, c}`` (x in items) reaches the bound
(:meth:`_RankedItems.candidates`, on the pair supports counted once per search): support never grows,
so the others cannot reach it, and most pops of a sparse level then count nothing. ``min_support``
(:func:`top_k_search`) lets a caller that knows a lower bound of what it needs (tKd-ML^2's levels,
:mod:`anonymizer.evaluation.multilevel`) skip every item and itemset below it.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from anonymizer.evaluation.bitsets import has_bit, in_sorted, itemset_supports_by_tids, row_bitsets, term_bitsets
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

if TYPE_CHECKING:  # scipy is imported where a sparse product is made, not with the searches
    import scipy.sparse as sp

__all__ = ["DEFAULT_TIE_FACTOR", "TopK", "itemset_supports", "top_k_search", "top_k_itemsets",
           "dataset_top_k"]



_GRAM_LIMIT = 50_000_000
"""Work and output bound (entries) under which all pair supports come from one sparse product."""

_PAIRS_LIMIT = 1 << 22
"""Most cells of the dense pair-support matrix (32 MiB); more kept items count their pairs like larger itemsets."""

_PAIR_ENTRIES = _GRAM_LIMIT // 16
"""Entries past which the dense pair supports' work limit grows with the data (16 position pairs per entry)."""

_PAIR_BLOCK = 1 << 22
"""Most (row, pair) keys counted in one block of :func:`_pair_counts`."""

_BITS_LIMIT = 1 << 24
"""Most 64-bit words of the row bitsets (one per kept item, 128 MiB); larger data count by gathering only."""

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
    ``max_itemsets`` in the search order were kept. ``bitsets`` (asked for with ``keep_bitsets``): the search's
    row bitsets, ``(rank of every term id or -1, bits of every rank)``, with which :func:`itemset_supports` counts
    the itemsets of ranked terms on the same data without building them again; None otherwise.
    """

    itemsets: dict[frozenset, int]
    kth_support: int
    truncated: bool
    bitsets: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)


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


@dataclass
class _RankedItems:
    """The search's view of a CSR: items of support >= ``floor`` renamed by rank (support descending, then id).

    ``r``/``rptr`` hold each row's ranks in order (rows without a kept item dropped), ``col_rows``/``cptr``
    the rows holding each rank (tid-lists) and ``col_pos`` where each of those entries sits in ``r``,
    ``pairs`` all pair supports (upper triangle, dense or sparse) when counting them at once is cheap
    enough (:func:`_pair_counts`), else None. ``bits`` holds the same tid-lists
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
    col_pos: np.ndarray
    cptr: np.ndarray
    pairs: np.ndarray | sp.csr_matrix | None
    floor: int
    bits: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.item_of.size)

    def later_entries(self, items: tuple[int, ...]) -> np.ndarray:
        """The ranks after ``items[-1]`` in every row holding ``items``.

        The rows come from the last item's tid-list (the rarest: ranks follow descending support),
        kept where the other items' bitsets hold them (or their sorted tid-lists, without bitsets);
        rows list their ranks in order, so a row's later ranks are the entries after the last item's."""
        cptr, col_rows = self.cptr, self.col_rows
        last = items[-1]
        rows = col_rows[cptr[last]:cptr[last + 1]]
        pos = self.col_pos[cptr[last]:cptr[last + 1]]
        for j in items[:-1]:
            if rows.size == 0:
                break
            if self.bits is not None:
                keep = has_bit(self.bits[j], rows)
            else:
                keep = in_sorted(rows, col_rows[cptr[j]:cptr[j + 1]])
            rows, pos = rows[keep], pos[keep]
        starts, ends = pos + 1, self.rptr[rows + 1]
        lens = ends - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        offsets = np.repeat(starts - np.cumsum(lens) + lens, lens)
        return self.r[offsets + np.arange(total, dtype=np.int64)]

    def children(self, items: tuple[int, ...], size: int, bound: int,
                 support: int) -> Iterable[tuple[int, int]] | None:
        """(rank, support) of every one-item extension by a later rank whose support reaches ``bound``;
        None when no row holding ``items`` (``support`` rows) holds a later rank."""
        last = items[-1]
        if size == 1 and isinstance(self.pairs, np.ndarray):
            row = self.pairs[last, last + 1:]
            ext = np.flatnonzero(row >= bound)
            return zip((ext + last + 1).tolist(), row[ext].tolist(), strict=True)
        if size == 1 and self.pairs is not None:
            lo, hi = self.pairs.indptr[last], self.pairs.indptr[last + 1]
            cols, vals = self.pairs.indices[lo:hi], self.pairs.data[lo:hi]
            sel = vals >= bound
            return zip(cols[sel].tolist(), vals[sel].tolist(), strict=True)
        cands = self.candidates(items, bound)
        if cands is not None:
            if cands.size == 0:
                return None
            if self.bits is not None and self._bits_cheaper(items, support, cands.size):
                counts = self._counts_bits(items, cands)
                ext = np.flatnonzero(counts >= bound)
                return zip(cands[ext].tolist(), counts[ext].tolist(), strict=True)
        if self.bits is not None and self._bits_cheaper(items, support, self.n - last - 1):
            counts = self._counts_bits(items, np.arange(last + 1, self.n))
            if not counts.any():
                return None
        else:
            ents = self.later_entries(items)
            if ents.size == 0:
                return None
            counts = np.bincount(ents - (last + 1))
        ext = np.flatnonzero(counts >= bound)
        return zip((ext + last + 1).tolist(), counts[ext].tolist(), strict=True)

    def candidates(self, items: tuple[int, ...], bound: int) -> np.ndarray | None:
        """The later ranks c with every pair support ``P[x, c] >= bound`` (x in ``items``), sorted: the only
        extensions that can reach ``bound`` (support is anti-monotone); None without pair supports."""
        last = items[-1]
        if isinstance(self.pairs, np.ndarray):
            ok = self.pairs[items[0], last + 1:] >= bound
            for x in items[1:]:
                ok &= self.pairs[x, last + 1:] >= bound
            return np.flatnonzero(ok) + (last + 1)
        if self.pairs is None:
            return None
        ptr, cols, vals = self.pairs.indptr, self.pairs.indices, self.pairs.data
        out: np.ndarray | None = None
        for x in items:
            c = cols[ptr[x]:ptr[x + 1]]
            c = np.sort(c[(vals[ptr[x]:ptr[x + 1]] >= bound) & (c > last)])
            out = c if out is None else out[in_sorted(out, c)]
            if out.size == 0:
                break
        return out

    def _bits_cheaper(self, items: tuple[int, ...], support: int, counted: int) -> bool:
        """Whether counting ``counted`` extensions by bitsets costs less than gathering the ``support`` rows'
        entries."""
        words = self.bits.shape[1]
        gather = _GATHER_COST * support * (self.r.size / max(self.rptr.size - 1, 1))
        return len(items) * words + counted * min(words, support) < gather

    def _counts_bits(self, items: tuple[int, ...], ranks: np.ndarray) -> np.ndarray:
        """Support of ``items`` + j for every rank j of ``ranks``, from the row bitsets."""
        held = np.bitwise_and.reduce(self.bits[list(items)], axis=0)
        nz = np.flatnonzero(held)
        if 2 * nz.size > held.size:  # mostly non-zero words: whole rows (a zero word counts nothing)
            later = np.take(self.bits, ranks, axis=0)
            later &= held
        else:
            later = self.bits[ranks[:, None], nz]
            later &= held[nz]
        return np.bitwise_count(later).sum(axis=1, dtype=np.int64)


def _rank_items(indptr: np.ndarray, indices: np.ndarray, n_items: int, supports: np.ndarray, present: np.ndarray,
                top_k: int, min_support: int = 0) -> _RankedItems:
    """Rank the items that can be in a top-K itemset of support at least ``min_support`` and build the reduced
    CSR and its tid-lists."""
    ranked = np.sort(supports[present])[::-1]
    # K singletons reach the K-th largest single-item support, so s_K is at least that.
    floor = max(int(ranked[top_k - 1]) if ranked.size >= top_k else 1, min_support)
    # Items below the floor are in no top-K itemset; rank the rest by (-support, id).
    kept = present[supports[present] >= floor]
    kept = kept[np.lexsort((kept, -supports[kept]))]
    rank_of = np.full(n_items, -1, dtype=np.int64)
    rank_of[kept] = np.arange(kept.size)
    n = int(kept.size)
    # Reduced CSR over ranks, each row sorted, rows without kept items dropped (one sort of row * n + rank).
    r = rank_of[indices]
    keep = r >= 0
    key = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))[keep] * n + r[keep]
    if (indptr.size - 1) * max(n, 1) <= np.iinfo(np.int32).max:  # 32-bit keys sort (and divide) faster
        key = key.astype(np.int32)
    key.sort()
    row_id = key // n
    r = (key - row_id * n).astype(np.int64)
    row_id = row_id.astype(np.int64)
    if row_id.size:  # renumber the rows left 0, 1, ... (they are sorted)
        row_id = np.concatenate(([0], np.cumsum(row_id[1:] != row_id[:-1])))
    n_rows = int(row_id[-1]) + 1 if row_id.size else 0
    rptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_id, minlength=n_rows), out=rptr[1:])
    # Column lists (rows holding each rank, sorted): a stable sort of the row-major entries by rank.
    col_pos = np.argsort(r.astype(np.int16 if n <= np.iinfo(np.int16).max else np.int64), kind="stable")
    col_rows = row_id[col_pos]
    cptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=cptr[1:])
    bits = None
    if n * ((n_rows + 63) // 64) <= _BITS_LIMIT:
        bits = row_bitsets(np.repeat(np.arange(n, dtype=np.int64), np.diff(cptr)), col_rows, n_rows, n)
    pairs = _pair_counts(r, rptr, n, bits)
    return _RankedItems(kept, supports[kept], r, rptr, col_rows, col_pos, cptr, pairs, floor, bits)


def _pair_counts(r: np.ndarray, rptr: np.ndarray, n: int,
                 bits: np.ndarray | None) -> np.ndarray | sp.csr_matrix | None:
    """All pair supports ``P[a, b]`` (a < b) of a CSR of sorted ranks: dense when the matrix is small
    (``_PAIRS_LIMIT`` cells; from the row bitsets when few items are dense, else every (a, b) position pair
    of the rows, rows of one length at a time, counted by bincount), else a sparse product's upper triangle;
    None when that is too costly: more than ``_GRAM_LIMIT`` position pairs, a limit that grows with the
    entries past ``_PAIR_ENTRIES`` for the dense matrix (whose memory is bounded), so that at a fixed record
    length the work and the choice of path do not change with the number of records."""
    lens = np.diff(rptr)
    work = int((lens * lens).sum())
    limit = _GRAM_LIMIT * max(1.0, r.size / _PAIR_ENTRIES) if n * n <= _PAIRS_LIMIT else _GRAM_LIMIT
    if n * n > _GRAM_LIMIT or work > limit:
        return None
    if n * n > _PAIRS_LIMIT:
        import scipy.sparse as sp

        mat = sp.csr_matrix((np.ones(r.size, dtype=np.int64), r, rptr), shape=(lens.size, n))
        return sp.triu(mat.T @ mat, k=1, format="csr")
    if bits is not None and n * n * bits.shape[1] <= _GATHER_COST * work:
        dense = np.zeros((n, n), dtype=np.int64)
        for a in range(n - 1):
            dense[a, a + 1:] = np.bitwise_count(bits[a + 1:] & bits[a]).sum(axis=1, dtype=np.int64)
        return dense
    counts = np.zeros(n * n, dtype=np.int64)
    keys: list[np.ndarray] = []
    pending = 0
    for length in np.unique(lens[lens >= 2]).tolist():
        starts = rptr[:-1][lens == length]
        ia, ib = np.triu_indices(length, k=1)
        step = max(1, _PAIR_BLOCK // ia.size)
        for lo in range(0, starts.size, step):
            block = r[starts[lo:lo + step, None] + np.arange(length)]
            keys.append((block[:, ia] * n + block[:, ib]).ravel())
            pending += keys[-1].size
            if pending >= _PAIR_BLOCK:
                counts += np.bincount(np.concatenate(keys), minlength=n * n)
                keys, pending = [], 0
    if keys:
        counts += np.bincount(np.concatenate(keys), minlength=n * n)
    return counts.reshape(n, n)


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
               max_itemsets: int, min_support: int = 0
               ) -> tuple[list[tuple[tuple[int, ...], int]], int, bool, _RankedItems | None]:
    """Best-first top-K search on a CSR of distinct item ids per row (see :func:`top_k_search`); and the ranked
    items it searched (None without any item)."""
    supports = np.bincount(indices, minlength=n_items) if n_items else np.zeros(0, dtype=np.int64)
    present = np.flatnonzero(supports > 0)
    if present.size == 0:
        return [], 0, False, None
    ranked = _rank_items(indptr, indices, n_items, supports, present, top_k, min_support)
    out, kth, truncated = _best_first(ranked, top_k, max_size, max_itemsets)
    if len(out) < top_k and min_support > 1:
        kth = 0  # fewer than K itemsets reach min_support: the K-th support lies below it, unsearched
    item_of = ranked.item_of
    return [(tuple(int(item_of[j]) for j in items), s) for items, s in out], kth, truncated, ranked


def _cap(top_k: int, max_itemsets: int | None) -> int:
    """The tie cap (default ``DEFAULT_TIE_FACTOR * top_k``), validated with ``top_k``."""
    if top_k < 1:
        raise InputError(f"top_k must be at least 1, got {top_k}")
    cap = DEFAULT_TIE_FACTOR * top_k if max_itemsets is None else int(max_itemsets)
    if cap < top_k:
        raise InputError(f"max_itemsets must be at least top_k ({top_k}), got {cap}")
    return cap


def top_k_search(ds: TransactionDataset, top_k: int, max_size: int | None = None,
                 max_itemsets: int | None = None, *, min_support: int = 0, keep_bitsets: bool = False) -> TopK:
    """The top-K frequent itemsets of a dataset's records, by an exact best-first search.

    FI is every itemset whose support reaches the K-th largest support (ties at the cut kept,
    so FI may hold more than K itemsets), capped at ``max_itemsets`` (default
    ``DEFAULT_TIE_FACTOR * top_k``; ``truncated`` tells). See the module docstring.

    ``min_support``: a known lower bound of interest (tKd-ML^2 passes the K-th support found over the levels
    so far). Items and itemsets below it are never looked at: the answer is the unrestricted answer's
    prefix of itemsets with support at least ``min_support``, in the same order. When fewer than K
    itemsets reach it, ``kth_support`` is 0 (the K-th support lies below, unsearched) and ``truncated``
    is False (the cap can only bind at the K-th support).

    ``keep_bitsets``: keep the search's row bitsets in the answer (``TopK.bitsets``) for
    :func:`itemset_supports` on the same ``ds``.
    """
    cap = _cap(top_k, max_itemsets)
    indices = ds.indices if ds.indices.dtype.kind == "i" else ds.indices.astype(np.int64)  # int32: no copy
    found, kth, truncated, ranked = _top_k_csr(ds.indptr.astype(np.int64, copy=False), indices, len(ds.vocabulary),
                                               top_k, max_size, cap, int(min_support))
    voc = ds.vocabulary
    kept = None
    if keep_bitsets and ranked is not None and ranked.bits is not None:
        rank_of = np.full(len(voc), -1, dtype=np.int64)
        rank_of[ranked.item_of] = np.arange(ranked.n)
        kept = (rank_of, ranked.bits)
    return TopK({frozenset(voc[i] for i in items): n for items, n in found}, kth, truncated, kept)


def top_k_itemsets(transactions: Iterable[Iterable[Hashable]], top_k: int, max_size: int | None = None,
                   max_itemsets: int | None = None) -> dict[frozenset, int]:
    """The top-K frequent itemsets of any transactions with their supports (see :func:`top_k_search`)."""
    cap = _cap(top_k, max_itemsets)
    indptr, indices, items = _csr_of(transactions)
    found, _, _, _ = _top_k_csr(indptr, indices, len(items), top_k, max_size, cap)
    return {frozenset(items[i] for i in s): n for s, n in found}


def dataset_top_k(ds: TransactionDataset, top_k: int, max_size: int | None = None,
                  max_itemsets: int | None = None) -> dict[frozenset, int]:
    """:func:`top_k_search`'s itemsets only."""
    return top_k_search(ds, top_k, max_size, max_itemsets).itemsets


def itemset_supports(ds: TransactionDataset, itemsets: Iterable[frozenset], *,
                     searched: TopK | None = None) -> dict[frozenset, int]:
    """Support of each given itemset in ``ds``, counted directly (no mining): the popcount of the AND of its
    items' row bitsets, or tid-list intersections when the bitsets of the items asked for would be too large.

    ``searched``: a :func:`top_k_search` of this ``ds`` with ``keep_bitsets``; an itemset of terms it ranked is
    counted on its bitsets (over the records holding a ranked term, which are all the records that can hold the
    itemset), the others as without it."""
    itemsets = list(itemsets)
    index = ds.term_index
    asked = [[index.get(t, -1) for t in s] for s in itemsets]
    counted: dict[int, int] = {}
    if searched is not None and searched.bitsets is not None:
        rank_of, bits = searched.bitsets
        for i, cols in enumerate(asked):
            if cols and min(cols) >= 0:
                ranks = rank_of[cols]
                if ranks.min() >= 0:
                    counted[i] = int(np.bitwise_count(np.bitwise_and.reduce(bits[ranks], axis=0)).sum())
    rest = [i for i in range(len(itemsets)) if i not in counted]
    if rest:
        found = _supports(ds, [asked[i] for i in rest])
        counted.update(zip(rest, found, strict=True))
    out: dict[frozenset, int] = {}
    for i, s in enumerate(itemsets):
        out[s] = counted[i]
    return out


def _supports(ds: TransactionDataset, asked: list[list[int]]) -> list[int]:
    """:func:`itemset_supports`'s counts of the itemsets of term ids ``asked`` from bitsets built for them."""
    needed = np.unique(np.fromiter((c for cols in asked for c in cols if c >= 0), dtype=np.int64))
    n_rows = len(ds)
    if needed.size * ((n_rows + 63) // 64) > _BITS_LIMIT:
        return itemset_supports_by_tids(ds, asked)
    bits = term_bitsets(ds, needed)
    slot = np.full(len(ds.vocabulary), -1, dtype=np.int64)
    slot[needed] = np.arange(needed.size)
    out: list[int] = []
    for cols in asked:
        if not cols or min(cols) < 0:
            out.append(0)
            continue
        held = np.bitwise_and.reduce(bits[slot[cols]], axis=0)
        out.append(int(np.bitwise_count(held).sum()))
    return out
