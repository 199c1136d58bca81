"""Information-loss metrics of disassociation (Terrovitis2012 sections 6 and 7.1).

* **tKd**, top-K deviation (section 6, equation 2): ``1 - |FI & FI'| / |FI|`` where FI and FI' are
  the top-K frequent itemsets (any size) of the original and of the published data. For
  ``tkd`` the published data is a reconstructed dataset (:func:`anonymizer.evaluation.reconstruct.reconstruct`);
  for ``tkd_a`` (section 7.1) it is the bag of the sub-records listed in the record and shared
  chunks only, i.e. the lower bounds of the itemset supports that hold in every reconstruction.
* **re**, relative error (section 6, equation 3) of the supports of the pairs of terms:
  ``|s_o(a,b) - s_p(a,b)| / avg(s_o(a,b), s_p(a,b))``, averaged over all pairs of the terms ranked
  200th-220th by support in the original (section 7.1; ``rank_range`` is 0-based and half-open,
  so the default (200, 220) takes 20 terms and 190 pairs; ties in support are broken by term).
  ``re_a`` takes s_p from the record- and shared-chunk sub-records only. Choice: a pair with
  support 0 on both sides has no defined error and is left out of the average (0.0 if no pair
  remains). Choice: the *default* range adapts to small vocabularies (:func:`resolve_re_range`):
  an original with N < 220 distinct terms is scored on the last 20-rank window that exists,
  ``(N - 20, N)``, or ``(0, N)`` when N < 20 (re needs N >= 2); the report says so
  (``UtilityReport.re_range_adapted``). A range given explicitly is used as given.
* **tlost** (section 7.1): the share of the terms with support at least k in the original that
  the release keeps only in term chunks (in no record or shared chunk). The paper says "more
  than k" here but uses "over k" elsewhere for the complement of VERPART's "less than k" rule
  (section 4), so support >= k is the criterion.

Several reconstructions (section 7, Figure 7d): ``re`` is computed on the pair supports averaged
over the r reconstructions (the paper's re-r2/re-r5/re-r10); ``tkd`` is the mean of the r
single-reconstruction values (an average support is not a dataset one can mine). The per-run
values are kept in :class:`UtilityReport`. :func:`re_by_rank` draws Figure 7d itself: re over
windows of term ranks (0-20, 100-120, 200-220, 300-320, 400-420 in the paper) with the supports
averaged over the first r of one set of reconstructions (r = 1, 2, 5, 10: re, re-r2, re-r5,
re-r10), so every r reuses the same reconstructions, as the paper's "10 random reconstructions"
are reused.

Top-K itemsets (section 6, eq. 2; tKd and tKd-a use K = 1000, section 7.1). Definition
implemented: FI is every itemset whose support reaches s_K, the K-th largest itemset support of
the original (ties at the cut kept, so FI may exceed K), and FI' likewise for the published data.
Then ``X in FI'`` iff ``supp'(X) >= s'_K``, so ``|FI & FI'|`` needs only s'_K and the published
supports of the itemsets of FI, which are counted directly (tid-list intersections); FI' itself
is never listed. Both s_K and FI come from an exact best-first search, not from threshold
guessing: every itemset is reached from its prefix (items ordered by descending support), a
child's support never exceeds its parent's, so popping a heap keyed by (-support, size, ranks)
yields all itemsets in that total order; the search stops after the K-th pop plus its ties.
Children below a lower bound of s_K (the K-th largest support generated so far, at least the
K-th largest single-item support, below which no item is even looked at) are never pushed.
Work is at most ``max_itemsets`` pops, each one pass over the rows holding the popped itemset,
and the heap is trimmed to the entries that can still be popped: memory and time are bounded
whatever the record lengths (a threshold search with pyfim can explode, e.g. on kosarak's
records of hundreds of terms, where lowering a threshold one step turns fewer than K itemsets
into astronomically many). Choice: ties at the cut are capped at ``max_itemsets`` (default
``DEFAULT_TIE_FACTOR`` * K); past it FI keeps the first ``max_itemsets`` itemsets in the search
order and :class:`UtilityReport` carries a warning. For the published side ties never matter,
so its search stops at the K-th pop.
"""

from __future__ import annotations

import heapq
import warnings
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import fim
import numpy as np
import scipy.sparse as sp

from anonymizer.evaluation.consistency import check_before, check_original
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.safe_metrics import rae, rlm
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = [
    "UtilityReport",
    "DEFAULT_TIE_FACTOR",
    "TopK",
    "frequent_itemsets",
    "itemset_supports",
    "top_k_search",
    "top_k_itemsets",
    "dataset_top_k",
    "published_subrecords",
    "tkd",
    "tkd_a",
    "re",
    "re_a",
    "tlost",
    "ranked_terms",
    "DEFAULT_RE_RANGE",
    "distinct_terms",
    "resolve_re_range",
    "utility_report",
    "FIGURE_7D_WINDOWS",
    "FIGURE_7D_AVERAGED",
    "re_by_rank",
]

FIGURE_7D_WINDOWS: tuple[tuple[int, int], ...] = ((0, 20), (100, 120), (200, 220), (300, 320), (400, 420))
"""The term-rank windows of Terrovitis2012 Figure 7d (0-based, half-open)."""
FIGURE_7D_AVERAGED: tuple[int, ...] = (1, 2, 5, 10)
"""How many reconstructions Figure 7d averages: re (one), re-r2, re-r5, re-r10."""
DEFAULT_RE_RANGE: tuple[int, int] = (200, 220)
"""Terrovitis2012 section 7.1: re over the pairs of the terms ranked 200th-220th (0-based, half-open)."""



def frequent_itemsets(transactions: Sequence[Iterable[Hashable]], min_support: int,
                      max_size: int | None = None) -> dict[frozenset, int]:
    """All itemsets with absolute support >= ``min_support`` (pyfim FP-growth; unbounded output).

    pyfim silently drops an item present in every transaction (a perfect extension of the empty
    set); one empty transaction is appended to prevent it, which changes no support.
    """
    if min_support < 1:
        raise InputError(f"min_support must be at least 1, got {min_support}")
    tracts = [list(t) for t in transactions]
    tracts.append([])
    kwargs: dict[str, Any] = {"target": "s", "supp": -int(min_support), "zmin": 1, "report": "a"}
    if max_size is not None:
        kwargs["zmax"] = int(max_size)
    return {frozenset(items): int(n) for items, n in fim.fpgrowth(tracts, **kwargs)}


_GRAM_LIMIT = 50_000_000
"""Work and output bound (entries) under which all pair supports come from one sparse product."""

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


def _top_k_csr(indptr: np.ndarray, indices: np.ndarray, n_items: int, top_k: int, max_size: int | None,
               max_itemsets: int) -> tuple[list[tuple[tuple[int, ...], int]], int, bool]:
    """Best-first top-K search on a CSR of distinct item ids per row (see :func:`top_k_search`)."""
    supports = np.bincount(indices, minlength=n_items) if n_items else np.zeros(0, dtype=np.int64)
    present = np.flatnonzero(supports > 0)
    if present.size == 0:
        return [], 0, False
    ranked = np.sort(supports[present])[::-1]
    # K singletons reach the K-th largest single-item support, so s_K is at least that.
    floor = int(ranked[top_k - 1]) if ranked.size >= top_k else 1
    # Items below the floor are in no top-K itemset; rank the rest by (-support, id).
    kept = present[supports[present] >= floor]
    kept = kept[np.lexsort((kept, -supports[kept]))]
    rank_of = np.full(n_items, -1, dtype=np.int64)
    rank_of[kept] = np.arange(kept.size)
    item_of = kept
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
    col_rows = row_id[corder]
    cptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=cptr[1:])

    def rows_of(items: tuple[int, ...]) -> np.ndarray:
        cols = sorted(items, key=lambda j: cptr[j + 1] - cptr[j])
        got = col_rows[cptr[cols[0]]:cptr[cols[0] + 1]]
        for j in cols[1:]:
            got = _intersect_sorted(got, col_rows[cptr[j]:cptr[j + 1]])
        return got

    # Heap key (-support, size, ranks): every child sorts after its parent (support never grows,
    # size grows), so pops follow this total order over all itemsets.
    single = supports[kept]
    # All pair supports in one sparse product when its work and output are small enough;
    # otherwise each single item's children are counted like any other itemset's.
    row_len = np.diff(rptr)
    pairs = None
    if n * n <= _GRAM_LIMIT and int((row_len * row_len).sum()) <= _GRAM_LIMIT:
        mat = sp.csr_matrix((np.ones(r.size, dtype=np.int64), r, rptr), shape=(n_rows, n))
        pairs = sp.triu(mat.T @ mat, k=1, format="csr")
    heap: list[tuple[int, int, tuple[int, ...]]] = [(-int(single[j]), 1, (j,)) for j in range(n)]
    heapq.heapify(heap)
    # ``best`` holds the K largest supports generated so far: a lower bound of s_K for pruning.
    best = heapq.nlargest(top_k, single.tolist())
    heapq.heapify(best)
    bound = max(floor, best[0]) if len(best) >= top_k else floor
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
        last = items[-1]
        if size == 1 and pairs is not None:
            lo, hi = pairs.indptr[last], pairs.indptr[last + 1]
            cols, vals = pairs.indices[lo:hi], pairs.data[lo:hi]
            sel = vals >= bound
            children = zip(cols[sel].tolist(), vals[sel].tolist(), strict=True)
        else:
            ents = r[_gather(rptr, rows_of(items))]
            ents = ents[ents > last]
            if ents.size == 0:
                continue
            counts = np.bincount(ents - (last + 1))
            ext = np.flatnonzero(counts >= bound)
            children = zip((ext + last + 1).tolist(), counts[ext].tolist(), strict=True)
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
    if len(out) < top_k:
        kth = 1
    return [(tuple(int(item_of[j]) for j in items), s) for items, s in out], kth, truncated


def top_k_search(ds: TransactionDataset, top_k: int, max_size: int | None = None,
                 max_itemsets: int | None = None) -> TopK:
    """The top-K frequent itemsets of a dataset's records, by an exact best-first search.

    FI is every itemset whose support reaches the K-th largest support (ties at the cut kept,
    so FI may hold more than K itemsets), capped at ``max_itemsets`` (default
    ``DEFAULT_TIE_FACTOR * top_k``; ``truncated`` tells). See the module docstring.
    """
    if top_k < 1:
        raise InputError(f"top_k must be at least 1, got {top_k}")
    cap = DEFAULT_TIE_FACTOR * top_k if max_itemsets is None else int(max_itemsets)
    if cap < top_k:
        raise InputError(f"max_itemsets must be at least top_k ({top_k}), got {cap}")
    found, kth, truncated = _top_k_csr(ds.indptr.astype(np.int64), ds.indices.astype(np.int64),
                                       len(ds.vocabulary), top_k, max_size, cap)
    voc = ds.vocabulary
    return TopK({frozenset(voc[i] for i in items): n for items, n in found}, kth, truncated)


def top_k_itemsets(transactions: Iterable[Iterable[Hashable]], top_k: int, max_size: int | None = None,
                   max_itemsets: int | None = None) -> dict[frozenset, int]:
    """The top-K frequent itemsets of any transactions with their supports (see :func:`top_k_search`)."""
    if top_k < 1:
        raise InputError(f"top_k must be at least 1, got {top_k}")
    cap = DEFAULT_TIE_FACTOR * top_k if max_itemsets is None else int(max_itemsets)
    if cap < top_k:
        raise InputError(f"max_itemsets must be at least top_k ({top_k}), got {cap}")
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


def published_subrecords(release: Release) -> list[tuple[str, ...]]:
    """Every non-empty sub-record of the record chunks and shared chunks (the "-a" metrics' data)."""
    subs = [sub for c in release.clusters for chunk in c.record_chunks for sub in chunk if sub]
    subs += [sub for j in release.joint_clusters for chunk in j.shared_chunks for sub in chunk if sub]
    return subs


def _subrecord_dataset(release: Release) -> TransactionDataset:
    return TransactionDataset.from_records(published_subrecords(release), name="published sub-records")


def _tkd_against(fi: TopK, published: TransactionDataset, top_k: int) -> float:
    """1 - |FI & FI'| / |FI| without materialising FI' (see the module docstring)."""
    if not fi.itemsets:
        return 0.0
    kth = top_k_search(published, top_k, max_itemsets=top_k).kth_support
    supports = itemset_supports(published, fi.itemsets)
    kept = sum(1 for n in supports.values() if n > 0 and n >= kth)
    return 1.0 - kept / len(fi.itemsets)


def tkd(original: TransactionDataset, reconstructed: TransactionDataset, top_k: int = 1000) -> float:
    """Top-K deviation between the original and one reconstructed dataset (section 6, eq. 2)."""
    return _tkd_against(top_k_search(original, top_k), reconstructed, top_k)


def tkd_a(original: TransactionDataset, release: Release, top_k: int = 1000) -> float:
    """Top-K deviation against the sub-records of the record and shared chunks only (section 7.1)."""
    return _tkd_against(top_k_search(original, top_k), _subrecord_dataset(release), top_k)


def ranked_terms(original: TransactionDataset, rank_range: tuple[int, int] = (200, 220)) -> list[str]:
    """Terms ranked ``rank_range[0]`` .. ``rank_range[1]-1`` (0-based) by descending support, ties by term."""
    lo, hi = rank_range
    if lo < 0 or hi <= lo:
        raise InputError(f"re range {rank_range}: expected 0 <= start < end")
    supports = original.term_supports()
    vocab = original.vocabulary
    order = sorted((i for i in range(len(vocab)) if supports[i] > 0), key=lambda i: (-int(supports[i]), vocab[i]))
    chosen = [vocab[i] for i in order[lo:hi]]
    if len(chosen) < 2:
        raise InputError(
            f"re range {lo}-{hi}: the original dataset has only {len(order)} distinct terms, "
            f"so the range holds {len(chosen)} term(s); choose a range with at least 2 terms"
        )
    return chosen


def distinct_terms(original: TransactionDataset) -> int:
    """Number of terms that occur in ``original`` (support > 0): the ranks :func:`ranked_terms` can take."""
    return int(np.count_nonzero(original.term_supports()))


def resolve_re_range(original: TransactionDataset, re_range: tuple[int, int] | None = None, *,
                     strict: bool = False, label: str = "re range") -> tuple[tuple[int, int], bool]:
    """The rank range re is computed on, and whether the default was adapted.

    ``re_range=None`` asks for the default :data:`DEFAULT_RE_RANGE` (Terrovitis2012 section 7.1,
    ranks 200-220). When the original has N distinct terms, fewer than its END, the default
    adapts to the last window of the same width that exists: ``(N - 20, N)``, or ``(0, N)``
    when N < 20 (N >= 2 is needed for one pair); the second value is then True. A range given
    explicitly is returned as given (validated by :func:`ranked_terms` when used); with
    ``strict`` it must also fit, END <= N, and the error names ``label`` (the CLI passes
    ``--re-range``).
    """
    n = distinct_terms(original)
    if re_range is None:
        lo, hi = DEFAULT_RE_RANGE
        if n >= hi:
            return (lo, hi), False
        if n < 2:
            raise InputError(f"re: the original dataset has {n} distinct term(s); re needs at least 2 (one pair)")
        return (max(0, n - (hi - lo)), n), True
    lo, hi = int(re_range[0]), int(re_range[1])
    if lo < 0 or hi <= lo:
        raise InputError(f"{label} {lo} {hi}: expected 0 <= START < END")
    if strict and hi > n:
        raise InputError(f"{label} {lo} {hi}: the original dataset has only {n} distinct terms, so END must be at "
                         f"most {n}; choose another range or leave {label} out (the default adapts)")
    return (lo, hi), False


def _pair_supports(ds: TransactionDataset, terms: Sequence[str]) -> np.ndarray:
    """Matrix G[i, j] = number of records of ``ds`` holding both terms[i] and terms[j]."""
    index = ds.term_index
    cols = [index.get(t, -1) for t in terms]
    present = [i for i, c in enumerate(cols) if c >= 0]
    out = np.zeros((len(terms), len(terms)), dtype=np.float64)
    if present:
        sub = ds.matrix()[:, [cols[i] for i in present]].astype(np.int64)
        gram = (sub.T @ sub).toarray()
        out[np.ix_(present, present)] = gram
    return out


def _re_from(s_o: np.ndarray, s_p: np.ndarray) -> float:
    iu = np.triu_indices(s_o.shape[0], k=1)
    a, b = s_o[iu], s_p[iu]
    keep = (a > 0) | (b > 0)
    if not np.any(keep):
        return 0.0
    a, b = a[keep], b[keep]
    return float(np.mean(np.abs(a - b) / ((a + b) / 2.0)))


def re(original: TransactionDataset, reconstructed: TransactionDataset | Iterable[TransactionDataset],
       rank_range: tuple[int, int] = (200, 220)) -> float:
    """Relative error of pair supports (section 6, eq. 3); several datasets: their supports are averaged.

    Several datasets may come from any iterable (a generator too): each is read once, one at a time.
    """
    terms = ranked_terms(original, rank_range)
    runs = [reconstructed] if isinstance(reconstructed, TransactionDataset) else reconstructed
    total, count = None, 0
    for ds in runs:
        pairs = _pair_supports(ds, terms)
        total = pairs if total is None else total + pairs
        count += 1
    if total is None:
        raise InputError("re: no reconstructed dataset given")
    return _re_from(_pair_supports(original, terms), total / count)


def re_a(original: TransactionDataset, release: Release, rank_range: tuple[int, int] = (200, 220)) -> float:
    """Relative error against supports counted in the record- and shared-chunk sub-records only."""
    terms = ranked_terms(original, rank_range)
    return _re_from(_pair_supports(original, terms), _pair_supports(_subrecord_dataset(release), terms))


def tlost(release: Release, original: TransactionDataset | None = None) -> float:
    """Share of the terms with support >= k that only term chunks hold (section 7.1).

    With ``original`` the supports are exact. Without it they are the release's lower bounds
    (section 6: occurrences in record and shared chunks plus one per term chunk holding the term),
    which can only undercount the lost terms. 0.0 when no term reaches support k.
    """
    k = release.k
    kept = {t for sub in published_subrecords(release) for t in sub}
    in_term_chunks = Counter(t for c in release.clusters for t in set(c.term_chunk))
    if original is not None:
        supports = original.supports()
    else:
        supports = Counter(t for sub in published_subrecords(release) for t in sub)
        supports.update(in_term_chunks)
    frequent = [t for t, n in supports.items() if n >= k]
    if not frequent:
        return 0.0
    lost = sum(1 for t in frequent if t in in_term_chunks and t not in kept)
    return lost / len(frequent)


@dataclass
class UtilityReport:
    """Information-loss figures of one release (Terrovitis2012 sections 6-7)."""

    tkd: float
    tkd_a: float | None
    re: float
    re_a: float | None
    tlost: float | None
    reconstructions: int
    seed: int
    top_k: int
    re_range: tuple[int, int]
    tkd_runs: list[float] = field(default_factory=list)
    re_runs: list[float] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    tkd_ml2: float | None = None
    """tKd-ML^2 (:mod:`anonymizer.evaluation.multilevel`), when a hierarchy was given; mean over the reconstructions."""
    ncp: float | None = None
    """NCP of the generalization (0 for disassociation, None where undefined)."""
    method: str = "disassociation"
    re_range_adapted: bool = False
    """True when ``re_range`` is the default adapted to an original with fewer distinct terms than its END."""
    rlm: float | None = None
    """Awad2019 RLM (:func:`anonymizer.evaluation.safe_metrics.rlm`) of a safe release against the release it was made
    from (``before``); None without it."""
    rae: float | None = None
    """Awad2019 RAE (:func:`anonymizer.evaluation.safe_metrics.rae`) of a disassociated or safe release; None otherwise."""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["re_range"] = list(self.re_range)
        return out

    to_dict = as_dict

    def to_frame(self) -> Any:
        """One row per scalar metric (``metric``, ``value``), a pandas DataFrame."""
        import pandas as pd

        values = {k: v for k, v in self.as_dict().items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        return pd.DataFrame({"metric": list(values), "value": list(values.values())})


def utility_report(original: TransactionDataset, release: Release, reconstructions: int = 1, seed: int = 0,
                   top_k: int = 1000, re_range: tuple[int, int] | None = None,
                   hierarchy: Any = None, *, before: Release | None = None,
                   label: str = "the original dataset") -> UtilityReport:
    """tKd, tKd-a, re, re-a, tlost and Awad2019's RAE (and RLM with ``before``) of ``release`` against ``original``.

    ``original`` must be the dataset the release was made from
    (:func:`anonymizer.evaluation.consistency.check_original`; ``label`` names it in the error).
    Reconstruction i uses seed ``seed + i``. ``tkd`` is the mean over the reconstructions, ``re``
    uses their averaged pair supports (see the module docstring). ``re_range=None`` is the
    default ranks 200-220, adapted to an original with fewer distinct terms
    (:func:`resolve_re_range`; ``re_range_adapted`` tells); an explicit range is used as given.
    With ``hierarchy`` (an :class:`anonymizer.baselines.hierarchy.Hierarchy` over the original's items)
    tKd-ML^2 is measured on every reconstruction too (:func:`anonymizer.evaluation.multilevel.tkd_ml2`) and
    NCP is 0.

    Awad2019 section 5.1: ``rae`` is :func:`anonymizer.evaluation.safe_metrics.rae` (Terrovitis2012's re
    formula over the same ranks, on the same seeded reconstructions, so it equals ``re``; Awad2019
    applies it to disassociated and safely disassociated data alike). ``before`` is the
    non-safe release the safe ``release`` was made from (same dataset, options and seed): it
    must match (:func:`anonymizer.evaluation.consistency.check_before`), and ``rlm`` is
    :func:`anonymizer.evaluation.safe_metrics.rlm` (before, release), the share of published item
    occurrences that safe disassociation suppressed. Without ``before``, ``rlm`` is None.

    A safe release (``params.safe``, Awad2019 section 4) holds ghost records: partial
    suppression adds two records L1, L2 per treated chunk (section 4.1, rule 4), so the release
    lists more records than the original (at most ``size - k`` per cluster). The release does not
    say which records are ghosts, and must not (that is their point), so every reconstruction
    holds them too, and the figures compare the original with data of ``n + ghosts`` records:

    * supports are counts, not frequencies, so nothing is rescaled. A ghost record holds items
      moved off real records (rules 3-4: each suppressed item goes to L1 or L2), so every item
      keeps its support (Awad2019 eq. 6) while the suppressed pairs lose one or two
      co-occurrences; items deleted entirely (chunks that fail preconditions (3)/(4)) lose their
      support;
    * **tKd** then measures how many of the original's top-K itemsets stay top-K in a
      reconstruction with the ghosts (a ghost can only support itemsets of the items it holds,
      which partial suppression splits apart); **tKd-a** and **re-a** count the published
      sub-records, ghost sub-records included;
    * **re** (and RAE) compare the original pair supports with those of the reconstructions,
      ghosts included: the loss of association that suppression causes is part of the error,
      as Awad2019 Figure 6 measures it;
    * **tlost** keeps its definition: a frequent term of the original counts as lost when the
      release keeps it only in term chunks (safe disassociation moves some suppressed items
      there to keep records non-empty, :mod:`anonymizer.disassociation.safe`); a term deleted entirely is in no
      chunk and is not counted (its loss is in RLM, which needs ``before``).
    """
    if reconstructions < 1:
        raise InputError(f"reconstructions must be at least 1, got {reconstructions}")
    check_original(release, original, label=label)
    if before is not None:
        check_before(before, release)
    re_range, adapted = resolve_re_range(original, re_range)
    terms = ranked_terms(original, re_range)
    fi = top_k_search(original, top_k)
    notes = []
    if fi.truncated:
        notes.append(
            f"tKd: more than {len(fi.itemsets)} itemsets of the original tie at the top-{top_k} cut "
            f"(support {fi.kth_support}); FI holds the first {len(fi.itemsets)} in (support, size, "
            "rank) order"
        )
        warnings.warn(notes[-1], RuntimeWarning, stacklevel=2)
    s_o = _pair_supports(original, terms)
    tkd_runs, re_runs, pair_runs, ml2_runs = [], [], [], []
    ml_fi = None
    if hierarchy is not None:
        from anonymizer.evaluation.multilevel import multilevel_top_k, tkd_ml2

        ml_fi = multilevel_top_k(original, hierarchy, top_k)

    def runs() -> Iterator[TransactionDataset]:
        for i in range(reconstructions):
            ds = reconstruct(release, seed=seed + i)
            tkd_runs.append(_tkd_against(fi, ds, top_k))
            if ml_fi is not None:
                ml2_runs.append(tkd_ml2(original, ds, hierarchy, top_k, fi=ml_fi))
            pairs = _pair_supports(ds, terms)
            pair_runs.append(pairs)
            re_runs.append(_re_from(s_o, pairs))
            yield ds
            del ds

    # Awad2019's RAE reads the reconstructions as they are drawn: one at a time, none drawn twice.
    rae_value = rae(original, runs(), rank_range=re_range)
    subs = _subrecord_dataset(release)
    return UtilityReport(
        tkd=float(np.mean(tkd_runs)),
        tkd_a=_tkd_against(fi, subs, top_k),
        re=_re_from(s_o, np.mean(pair_runs, axis=0)),
        re_a=_re_from(s_o, _pair_supports(subs, terms)),
        tlost=tlost(release, original),
        reconstructions=reconstructions,
        seed=seed,
        top_k=top_k,
        re_range=(int(re_range[0]), int(re_range[1])),
        tkd_runs=tkd_runs,
        re_runs=re_runs,
        warnings=notes,
        tkd_ml2=float(np.mean(ml2_runs)) if ml2_runs else None,
        ncp=0.0 if hierarchy is not None else None,
        re_range_adapted=adapted,
        rlm=rlm(before, release) if before is not None else None,
        rae=rae_value,
    )


def re_by_rank(original: TransactionDataset, release: Release,
               windows: Sequence[tuple[int, int]] = FIGURE_7D_WINDOWS,
               averaged: Sequence[int] = FIGURE_7D_AVERAGED, seed: int = 0, *,
               label: str = "the original dataset") -> dict[tuple[int, int], float]:
    """Terrovitis2012 Figure 7d: ``{(window start, r): re}`` for every rank window and every r.

    ``max(averaged)`` reconstructions are drawn once (seeds ``seed``, ``seed + 1``, ...); the re of
    a window with r reconstructions compares the original pair supports of the window's terms with
    their mean over the first r reconstructions (section 7: "averaging the itemset supports on
    them"). A window past the number of distinct terms raises :class:`InputError`, and so does an
    ``original`` that cannot be the release's (:func:`anonymizer.evaluation.consistency.check_original`, which
    allows the ghost records of a safe release: see :func:`utility_report` for what the figures
    mean then).
    """
    if not windows:
        raise InputError("re_by_rank: no rank window given")
    counts = sorted({int(r) for r in averaged})
    if not counts or counts[0] < 1:
        raise InputError(f"re_by_rank: the numbers of reconstructions must be at least 1, got {list(averaged)}")
    check_original(release, original, label=label)
    window_terms = [ranked_terms(original, (int(lo), int(hi))) for lo, hi in windows]
    union = sorted({t for terms in window_terms for t in terms})
    position = {t: i for i, t in enumerate(union)}
    slices = [np.array([position[t] for t in terms]) for terms in window_terms]
    s_o = _pair_supports(original, union)
    running = np.zeros_like(s_o)
    out: dict[tuple[int, int], float] = {}
    for i in range(counts[-1]):
        running += _pair_supports(reconstruct(release, seed=seed + i), union)
        r = i + 1
        if r in counts:
            mean = running / r
            for (lo, _hi), idx in zip(windows, slices, strict=True):
                out[(int(lo), r)] = _re_from(s_o[np.ix_(idx, idx)], mean[np.ix_(idx, idx)])
    return out
