"""HORPART's record groups: term counts, splits, cuts and peel chains (Terrovitis2012 section 4).

The operations Algorithm HORPART (:mod:`anonymizer.disassociation.horpart`) applies to a group of
records: count its terms, find the most frequent one outside ``ignore``, test which records hold a
term (the split into D1 and D2), cut a group that no term can split into balanced pieces in content
order, and run a chain of peeling splits in one pass (:func:`peel_chain`; see "Peel chains" in the
docstring of :mod:`anonymizer.disassociation.horpart`).

Every record is a row of the dataset's CSR arrays; a group is a sorted int64 array of record ids;
the term counts of a group are dense over a small vocabulary and sparse over a large one.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import scipy.sparse as sp

from corpora.dataset import TransactionDataset

__all__ = ["Counts", "GroupIndex", "add_counts", "content_order", "cut_group", "most_frequent", "peel_chain",
           "subtract_counts"]

Counts = np.ndarray | tuple[np.ndarray, np.ndarray]
"""Term counts of a group: a dense array over the vocabulary (small vocabularies) or sparse
(sorted term ids, positive counts)."""

TOP_TERMS = 256
"""Membership of this many most frequent terms is kept as bit columns (one test per record)."""

DENSE_LIMIT = 1 << 16
"""Vocabularies up to this size keep group counts dense (one vector operation per step)."""


class GroupIndex:
    """CSR rows and posting lists of a dataset, for gathering term counts and splitting groups."""

    def __init__(self, dataset: TransactionDataset) -> None:
        self.dataset = dataset
        self.indptr = np.asarray(dataset.indptr, dtype=np.int64)
        # Term ids stay in the dataset's int32 (as do the posting lists, while record ids fit):
        # at 10M records of 10 terms each int64 copy would be 800 MB. Every use below either
        # counts them (bincount), compares them, or widens them to int64 first.
        self.indices = np.asarray(dataset.indices)
        self.lengths = np.diff(self.indptr)
        self.n_terms = len(dataset.vocabulary)
        n = len(self.lengths)
        # posting lists (record ids by term, ascending): the CSC form of the incidence matrix
        csc = sp.csr_matrix((np.ones(len(self.indices), dtype=np.int8), self.indices, self.indptr),
                            shape=(n, max(self.n_terms, 1))).tocsc()
        csc.sort_indices()
        self.post_records = csc.indices if csc.indices.dtype == np.int32 else csc.indices.astype(np.int64)
        self.post_ptr = csc.indptr.astype(np.int64)
        del csc
        self.marks = np.zeros(n, dtype=bool)  # scratch space of holds(), all False
        # bit columns of the most frequent terms: split terms are mostly among them
        supports = np.diff(self.post_ptr)
        top = np.argsort(-supports, kind="stable")[: min(TOP_TERMS, self.n_terms)]
        top = top[supports[top] > 0]
        self.top_slot = np.full(max(self.n_terms, 1), -1, dtype=np.int64)
        self.top_slot[top] = np.arange(len(top))
        words = (len(top) + 63) // 64
        self.top_bits = np.zeros((words, n), dtype=np.uint64)
        # filled a slice of whole records at a time (about 4M entries), so the temporaries stay small
        step = max(1, (1 << 22) // max(1, int(self.indptr[-1]) // max(n, 1)))
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            base = int(self.indptr[lo])
            slot = self.top_slot[self.indices[base:int(self.indptr[hi])]]
            hit = np.flatnonzero(slot >= 0)
            rows = np.searchsorted(self.indptr, hit + base, side="right") - 1  # the record of each hit entry
            slot = slot[hit]
            for w in range(words):
                sel = (slot >> 6) == w
                r = rows[sel]
                if len(r) == 0:
                    continue
                bits = np.left_shift(np.uint64(1), (slot[sel] & 63).astype(np.uint64))
                first = np.flatnonzero(np.concatenate(([True], r[1:] != r[:-1])))
                self.top_bits[w, r[first]] = np.bitwise_or.reduceat(bits, first)

    def gather(self, records: np.ndarray) -> np.ndarray:
        """The term ids of all the given records, concatenated (in the dataset's integer type)."""
        lens = self.lengths[records]
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=self.indices.dtype)
        ends = np.cumsum(lens)
        offsets = np.repeat(self.indptr[records] - (ends - lens), lens)
        offsets += np.arange(total, dtype=np.int64)
        return self.indices[offsets]

    def counts(self, records: np.ndarray) -> Counts:
        """Support of every term in ``records`` (distinct ids, as every HORPART group is): a dense
        array, or (ids, counts) for a large vocabulary. The whole dataset is counted in place."""
        terms = self.indices if len(records) == len(self.lengths) else self.gather(records)
        if self.n_terms <= DENSE_LIMIT:
            return np.bincount(terms, minlength=self.n_terms)
        if len(terms) * 8 >= self.n_terms:
            dense = np.bincount(terms, minlength=self.n_terms)
            ids = np.flatnonzero(dense)
            return ids, dense[ids]
        ids, cnt = np.unique(terms, return_counts=True)
        return ids.astype(np.int64), cnt.astype(np.int64)

    def holds(self, records: np.ndarray, term: int) -> np.ndarray:
        """Boolean mask: which of ``records`` hold ``term``."""
        slot = self.top_slot[term]
        if slot >= 0:
            word = self.top_bits[slot >> 6]
            return (word[records] >> np.uint64(slot & 63)) & np.uint64(1) == 1
        post = self.post_records[self.post_ptr[term] : self.post_ptr[term + 1]]
        if len(post) == 0:
            return np.zeros(len(records), dtype=bool)
        if len(post) <= 4 * len(records):  # mark the posting list: linear, no binary search
            self.marks[post] = True
            found = self.marks[records]
            self.marks[post] = False
            return found
        pos = np.searchsorted(post, records)
        pos[pos == len(post)] = 0
        return post[pos] == records


_LEXSORT_MIN = 64
"""From this many records on, :func:`content_order` sorts a table of the records' terms with numpy."""

_LEXSORT_CELLS = 1 << 22
"""Largest table (records x longest record) :func:`content_order` builds; above it, Python sorts the tuples."""


def content_order(indptr: np.ndarray, indices: np.ndarray, records: np.ndarray) -> np.ndarray:
    """``records`` sorted by their term-id tuples (then by id): a content-only order.

    Many records: one ``np.lexsort`` over a table of their terms, column j the j-th term of each record
    and -1 past its end (below every term id, so a proper prefix comes first, as with tuples), then the
    record id; the same order as sorting the tuples."""
    if not len(records):
        return np.zeros(0, dtype=np.int64)
    starts = indptr[records]
    lens = indptr[records + 1] - starts
    width = int(lens.max())
    if len(records) < _LEXSORT_MIN or len(records) * width > _LEXSORT_CELLS:
        keyed = sorted(records.tolist(), key=lambda r: (tuple(indices[indptr[r] : indptr[r + 1]].tolist()), r))
        return np.asarray(keyed, dtype=np.int64)
    stops = np.cumsum(lens)
    total = int(stops[-1])
    column = np.arange(total, dtype=np.int64) - np.repeat(stops - lens, lens)
    table = np.full((width, len(records)), -1, dtype=np.int64)
    table[column, np.repeat(np.arange(len(records)), lens)] = indices[np.repeat(starts, lens) + column]
    return np.asarray(records, dtype=np.int64)[np.lexsort((records, *table[::-1]))]


def subtract_counts(parent: Counts, child: Counts) -> Counts:
    if isinstance(parent, np.ndarray):
        return parent - child
    terms, counts = parent
    idx = np.searchsorted(terms, child[0])
    out = counts.copy()
    out[idx] -= child[1]
    keep = out > 0
    return terms[keep], out[keep]


def add_counts(a: Counts, b: Counts) -> Counts:
    if isinstance(a, np.ndarray):
        return a + b
    terms, inverse = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate([a[1], b[1]]), minlength=len(terms))
    return terms, counts.astype(np.int64)


def most_frequent(counts: Counts, ignore: tuple[int, ...]) -> tuple[int, int]:
    """The most frequent term not in ``ignore`` (ties: smaller id) and its count, or (-1, 0)."""
    if isinstance(counts, np.ndarray):
        if len(counts) == 0:
            return -1, 0
        if ignore:
            counts = counts.copy()
            counts[list(ignore)] = 0
        best = int(np.argmax(counts))
        return (best, int(counts[best])) if counts[best] > 0 else (-1, 0)
    terms, cnt = counts
    if len(terms) == 0:
        return -1, 0
    if ignore:
        ign = np.asarray(ignore, dtype=np.int64)
        pos = np.searchsorted(terms, ign)
        inside = pos < len(terms)
        pos, ign = pos[inside], ign[inside]
        cnt = cnt.copy()
        cnt[pos[terms[pos] == ign]] = 0
    best = int(np.argmax(cnt))
    return (int(terms[best]), int(cnt[best])) if cnt[best] > 0 else (-1, 0)


def cut_group(indptr: np.ndarray, indices: np.ndarray, records: np.ndarray, k: int,
         max_cluster_size: int) -> list[np.ndarray]:
    """Cut a group into balanced pieces of at most ``max_cluster_size`` and at least ``k`` records.

    With ``max_cluster_size < 2k - 1`` the two bounds can conflict; then ``>= k`` wins.
    """
    n = len(records)
    pieces = max(1, min(math.ceil(n / max_cluster_size), n // k))
    if pieces == 1:
        return [records]
    ordered = content_order(indptr, indices, records)
    bounds = [(n * i) // pieces for i in range(pieces + 1)]
    return [np.sort(ordered[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def peel_chain(
    index: GroupIndex, records: np.ndarray, ignore: tuple[int, ...], max_cluster_size: int, min_rest: int,
    stop_below: int,
) -> tuple[list[np.ndarray], np.ndarray]:
    """The successive splits of a group whose terms all have support <= ``max_cluster_size``.

    Each step is the split HORPART makes: the most frequent term outside ``ignore`` (ties: smaller
    id) among the records still in the group; its holders (D1, at most ``max_cluster_size``
    records) are peeled off and the rest (D2) keeps ``ignore``. Steps continue while the rest is
    larger than ``max_cluster_size``; they stop before a step whose D1 has fewer than
    ``stop_below`` records or whose D2 would have fewer than ``min_rest`` records, and when no
    term is left. Returns the peeled parts in order (sorted id arrays) and the rest (sorted).
    Cost: one sort of the group's entries, a decrement per entry, and a heap operation per step and per
    stale key (a term's key is corrected only when it reaches the top: keys only ever overstate supports,
    so a top whose key is exact is the most frequent term, ties by the smaller id).
    """
    lens = index.lengths[records]
    terms = index.gather(records)
    owner = np.repeat(np.arange(len(records), dtype=np.int64), lens)
    dense = index.n_terms <= 8 * len(terms)  # tables over the vocabulary cost no more than the entries
    if ignore:
        if dense:
            keep = np.ones(index.n_terms, dtype=bool)
            keep[list(ignore)] = False
            keep = keep[terms]
        else:
            keep = ~np.isin(terms, np.asarray(ignore, dtype=np.int64))
        terms, owner = terms[keep], owner[keep]
    if dense:  # local ids keep the order of term ids
        present = np.bincount(terms, minlength=index.n_terms)
        local = (np.cumsum(present > 0) - 1)[terms]
        counts = present[present > 0]
    else:
        uniq, local = np.unique(terms, return_inverse=True)
        local = local.reshape(-1)
        counts = np.bincount(local, minlength=len(uniq))
    # holders of each local term (positions in ``records``, ascending): entries come by owner, so the
    # order by (term, owner) is one sort of a combined key
    n_rec = max(len(records), 1)
    post = (np.sort(local * n_rec + owner) % n_rec).tolist()
    post_ptr = np.concatenate(([0], np.cumsum(counts))).tolist()
    rec_terms = local.tolist()  # terms of each record, in record order (entries are grouped by owner)
    rec_ptr = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=len(records))))).tolist()
    cnt = counts.tolist()
    # heap keys -support * width + term: larger support first, then the smaller term id
    width = max(len(counts), 1)
    heap = np.sort(-counts * width + np.arange(len(counts), dtype=np.int64)).tolist()  # sorted, hence a heap
    alive = bytearray(b"\x01") * len(records)
    n_alive = len(records)
    peeled: list[int] = []  # positions of the peeled records, part after part
    ends: list[int] = []
    while n_alive > max_cluster_size and heap:
        t = heap[0] % width
        c = cnt[t]
        if c != -(heap[0] // width):  # stale: the support has dropped since the key was pushed
            if c:  # keys only ever overstate supports, so the top is right once its key is exact
                heapq.heapreplace(heap, -c * width + t)
            else:
                heapq.heappop(heap)
            continue
        if c < stop_below or n_alive - c < min_rest:
            break
        heapq.heappop(heap)
        holders = [r for r in post[post_ptr[t] : post_ptr[t + 1]] if alive[r]]
        for r in holders:
            alive[r] = 0
            for u in rec_terms[rec_ptr[r] : rec_ptr[r + 1]]:
                cnt[u] -= 1
        holders.sort()
        peeled.extend(holders)
        ends.append(len(peeled))
        n_alive -= c
    flat = records[np.asarray(peeled, dtype=np.int64)]
    peels = [flat[a:b] for a, b in zip([0, *ends], ends, strict=False)]  # the last start has no end
    rest = records[np.frombuffer(bytes(alive), dtype=np.uint8).astype(bool)]
    return peels, rest

