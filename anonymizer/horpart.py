"""HORPART: horizontal partitioning of a dataset into clusters (Terrovitis2012 section 4,
Algorithm HORPART) with the strategies of AlShuhail2021 section 3.3.1 for clusters smaller than k.

Algorithm HORPART splits a dataset D recursively: if D is small enough it is a cluster; otherwise
the most frequent term ``a`` of D that is not in ``ignore`` splits D into D1 (records holding
``a``, recursed with ``ignore + {a}``) and D2 (the rest, recursed with the same ``ignore``).

Choices made where the papers are terse or leave a gap (each one is tested in
``tests/test_anonymizer_horpart.py``):

* **Stop rule.** Terrovitis2012 stops when ``|D| < maxClusterSize``, so its largest cluster has
  ``maxClusterSize - 1`` records. Here ``max_cluster_size`` is the largest allowed cluster size:
  a group stops when ``|D| <= max_cluster_size`` (the reading AlShuhail2021 3.3.1 gives: a group
  whose size is between k and the max cluster size needs no further partitioning).
* **Most frequent term.** Ties are broken by the smaller term id (alphabetical order, since the
  vocabulary is sorted). A split where every record holds ``a`` (D2 empty) is not a split: the
  recursion continues on D with ``ignore + {a}``.
* **No term left.** When every term of a too large group is in ``ignore`` (or its records are
  empty) no term can split it; the group is cut into ``min(ceil(|D| / max_cluster_size),
  floor(|D| / k))`` pieces of balanced sizes after sorting its records by content (so similar
  records stay together and the cut does not depend on record order).
* **Order.** Groups are processed depth first, D1 before D2, so the clusters come out in the
  order of the split tree and neighbouring clusters share the longest split history.
* **A split with a child smaller than k** (AlShuhail2021 3.3.1, Tables 3.1-3.2):

  - ``original``: the split is abandoned and D is returned as one cluster, even if it is larger
    than ``max_cluster_size`` (Table 3.2 keeps all four records of Table 3.1 together).
  - ``suppression`` (Algorithm 1): the small child is deleted; its records are not published.
  - ``adding`` (Algorithm 2 adds the small cluster to "the second cluster on the queue"): the
    small child is added to the next group still waiting to be processed after its sibling's
    subtree (the nearest relative in the split tree). Adding it to its own sibling would rebuild
    the parent and split it the same way forever, so the sibling is skipped. When no group is
    waiting, the small records join the last cluster produced ("the last cluster on the
    queue").
  - ``remaining`` (Algorithm 3): small children go to the remaining list; when the queue is empty
    and the list holds at least k records it is partitioned again as one dataset (ignore reset);
    with fewer than k records it joins the last cluster produced. A round that places no record
    in a cluster (every piece smaller than k again) ends with the cut described above.
  - When both children are smaller than k (only possible if ``max_cluster_size < 2k - 2``) no
    strategy can keep both: D stays one cluster.

  A last cluster that grows beyond ``max_cluster_size`` by receiving small records is cut into
  balanced pieces of at least k records as above. With ``max_cluster_size >= 2k - 1`` the
  strategies ``suppression``, ``adding`` and ``remaining`` therefore produce clusters whose sizes
  lie in ``[k, max_cluster_size]``; ``original`` guarantees only ``>= k``.

Speed: every record is a row of the dataset's CSR arrays; a group is a sorted int64 array of
record ids; the term counts of a group are kept sparse and computed only for the smaller child
of a split (the larger child's counts are the parent's minus the smaller's); membership of the
split term comes from a posting list with a binary search. The whole run is close to linear in
the number of term occurrences.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from tqdm import tqdm

from corpora.dataset import TransactionDataset
from corpora.errors import InputError

__all__ = ["HORPART_STRATEGIES", "HorizontalPartition", "horpart"]

HORPART_STRATEGIES: tuple[str, ...] = ("original", "suppression", "adding", "remaining")
"""The strategies for clusters smaller than k (AlShuhail2021 section 3.3.1)."""

_Counts = np.ndarray | tuple[np.ndarray, np.ndarray]
"""Term counts of a group: a dense array over the vocabulary (small vocabularies) or sparse
(sorted term ids, positive counts)."""

TOP_TERMS = 256
"""Membership of this many most frequent terms is kept as bit columns (one test per record)."""

DENSE_LIMIT = 1 << 16
"""Vocabularies up to this size keep group counts dense (one vector operation per step)."""


@dataclass
class HorizontalPartition:
    """Result of :func:`horpart`.

    ``clusters`` are sorted int64 arrays of record ids (dataset positions), in split-tree order;
    ``suppressed`` holds the ids of the records the ``suppression`` strategy deleted (sorted).
    """

    clusters: list[np.ndarray]
    suppressed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def sizes(self) -> list[int]:
        return [len(c) for c in self.clusters]


class _Index:
    """CSR rows and posting lists of a dataset, for gathering term counts and splitting groups."""

    def __init__(self, dataset: TransactionDataset) -> None:
        self.dataset = dataset
        self.indptr = np.asarray(dataset.indptr, dtype=np.int64)
        self.indices = np.asarray(dataset.indices, dtype=np.int64)
        self.lengths = np.diff(self.indptr)
        self.n_terms = len(dataset.vocabulary)
        n = len(self.lengths)
        # posting lists (record ids by term, ascending): the CSC form of the incidence matrix
        csc = sp.csr_matrix((np.ones(len(self.indices), dtype=np.int8), self.indices, self.indptr),
                            shape=(n, max(self.n_terms, 1))).tocsc()
        csc.sort_indices()
        self.post_records = csc.indices.astype(np.int64)
        self.post_ptr = csc.indptr.astype(np.int64)
        self.marks = np.zeros(n, dtype=bool)  # scratch space of holds(), all False
        # bit columns of the most frequent terms: split terms are mostly among them
        supports = np.diff(self.post_ptr)
        top = np.argsort(-supports, kind="stable")[: min(TOP_TERMS, self.n_terms)]
        top = top[supports[top] > 0]
        self.top_slot = np.full(max(self.n_terms, 1), -1, dtype=np.int64)
        self.top_slot[top] = np.arange(len(top))
        words = (len(top) + 63) // 64
        self.top_bits = np.zeros((words, n), dtype=np.uint64)
        slot = self.top_slot[self.indices]
        hit = np.flatnonzero(slot >= 0)
        rows = np.searchsorted(self.indptr, hit, side="right") - 1  # the record of each hit entry
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
        """The term ids of all the given records, concatenated."""
        lens = self.lengths[records]
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        ends = np.cumsum(lens)
        offsets = np.repeat(self.indptr[records] - (ends - lens), lens) + np.arange(total, dtype=np.int64)
        return self.indices[offsets]

    def counts(self, records: np.ndarray) -> _Counts:
        terms = self.gather(records)
        if self.n_terms <= DENSE_LIMIT:
            return np.bincount(terms, minlength=self.n_terms)
        if len(terms) * 8 >= self.n_terms:
            dense = np.bincount(terms, minlength=self.n_terms)
            ids = np.flatnonzero(dense)
            return ids, dense[ids]
        ids, cnt = np.unique(terms, return_counts=True)
        return ids, cnt.astype(np.int64)

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

    def content_order(self, records: np.ndarray) -> np.ndarray:
        """``records`` sorted by their term-id tuples (then by id): a content-only order."""
        ptr = self.indptr
        ind = self.indices
        keyed = sorted(records.tolist(), key=lambda r: (tuple(ind[ptr[r] : ptr[r + 1]].tolist()), r))
        return np.asarray(keyed, dtype=np.int64)


def _subtract(parent: _Counts, child: _Counts) -> _Counts:
    if isinstance(parent, np.ndarray):
        return parent - child
    terms, counts = parent
    idx = np.searchsorted(terms, child[0])
    out = counts.copy()
    out[idx] -= child[1]
    keep = out > 0
    return terms[keep], out[keep]


def _add(a: _Counts, b: _Counts) -> _Counts:
    if isinstance(a, np.ndarray):
        return a + b
    terms, inverse = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate([a[1], b[1]]), minlength=len(terms))
    return terms, counts.astype(np.int64)


def _most_frequent(counts: _Counts, ignore: tuple[int, ...]) -> int:
    """The most frequent term not in ``ignore`` (ties: smaller id), or -1 if none is left."""
    if isinstance(counts, np.ndarray):
        if len(counts) == 0:
            return -1
        if ignore:
            counts = counts.copy()
            counts[list(ignore)] = 0
        best = int(np.argmax(counts))
        return best if counts[best] > 0 else -1
    terms, cnt = counts
    if len(terms) == 0:
        return -1
    if ignore:
        ign = np.asarray(ignore, dtype=np.int64)
        pos = np.searchsorted(terms, ign)
        inside = pos < len(terms)
        pos, ign = pos[inside], ign[inside]
        cnt = cnt.copy()
        cnt[pos[terms[pos] == ign]] = 0
    best = int(np.argmax(cnt))
    return int(terms[best]) if cnt[best] > 0 else -1


def _cut(index: _Index, records: np.ndarray, k: int, max_cluster_size: int) -> list[np.ndarray]:
    """Cut a group into balanced pieces of at most ``max_cluster_size`` and at least ``k`` records."""
    n = len(records)
    pieces = max(1, min(math.ceil(n / max_cluster_size), n // k))
    if pieces == 1:
        return [records]
    ordered = index.content_order(records)
    bounds = [(n * i) // pieces for i in range(pieces + 1)]
    return [np.sort(ordered[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _validate(dataset: TransactionDataset, k: int, max_cluster_size: int, strategy: str) -> None:
    if strategy not in HORPART_STRATEGIES:
        raise InputError(f"unknown horpart strategy {strategy!r}; choose one of: {', '.join(HORPART_STRATEGIES)}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InputError(f"k must be an integer >= 2, got {k!r}")
    if isinstance(max_cluster_size, bool) or not isinstance(max_cluster_size, int) or max_cluster_size < k:
        raise InputError(f"max cluster size must be an integer >= k ({k}), got {max_cluster_size!r}")
    if len(dataset) < k:
        raise InputError(f"the dataset has {len(dataset)} records, fewer than k = {k}")


def horpart(
    dataset: TransactionDataset,
    k: int,
    max_cluster_size: int,
    strategy: str = "original",
) -> HorizontalPartition:
    """Algorithm HORPART (Terrovitis2012 section 4) with an AlShuhail2021 3.3.1 small-cluster strategy.

    ``strategy`` is one of :data:`HORPART_STRATEGIES`. Returns the clusters (sorted record-id
    arrays in split-tree order) and, for ``suppression``, the deleted records. See the module
    docstring for the stop rule and the exact behaviour of each strategy.
    """
    _validate(dataset, k, max_cluster_size, strategy)
    index = _Index(dataset)
    n = len(dataset)
    saved: list[np.ndarray] = []
    suppressed: list[np.ndarray] = []
    leftovers: list[np.ndarray] = []  # adding: small groups with no waiting group; remaining: the list L
    stack: list[tuple[np.ndarray, tuple[int, ...], _Counts | None]] = [(np.arange(n, dtype=np.int64), (), None)]
    added: dict[int, list[np.ndarray]] = {}  # adding: stack position -> small groups joining that entry
    last_round = -1
    bar = tqdm(total=n, desc="horpart", unit="rec", disable=not sys.stderr.isatty(), leave=False)
    try:
        while True:
            while stack:
                records, ignore, counts = stack.pop()
                joined = added.pop(len(stack), None)
                if joined:  # adding: small groups that were handed to this waiting group
                    records = np.sort(np.concatenate([records, *joined]))
                size = len(records)
                if size <= max_cluster_size:
                    saved.append(records)
                    bar.update(size)
                    continue
                if counts is None:
                    counts = index.counts(records)
                term = _most_frequent(counts, ignore)
                if term < 0:
                    pieces = _cut(index, records, k, max_cluster_size)
                    saved.extend(pieces)
                    bar.update(size)
                    continue
                mask = index.holds(records, term)
                d1, d2 = records[mask], records[~mask]
                if len(d2) == 0:
                    stack.append((d1, ignore + (term,), counts))
                    continue
                small1, small2 = len(d1) < k, len(d2) < k
                if small1 and small2:
                    saved.append(records)
                    bar.update(size)
                    continue
                if small1 or small2:
                    if strategy == "original":
                        saved.append(records)  # AlShuhail2021 Table 3.2: the split is abandoned
                        bar.update(size)
                        continue
                    small, big = (d1, d2) if small1 else (d2, d1)
                    big_ignore = ignore if small1 else ignore + (term,)
                    big_counts = None
                    if len(big) > max_cluster_size:
                        big_counts = _subtract(counts, index.counts(small))
                    if strategy == "suppression":
                        suppressed.append(small)
                        bar.update(len(small))
                    elif strategy == "remaining":
                        leftovers.append(small)
                    elif stack:  # adding: join the group waiting after the sibling's subtree
                        w_records, w_ignore, w_counts = stack[-1]
                        if w_counts is not None:
                            stack[-1] = (w_records, w_ignore, _add(w_counts, index.counts(small)))
                        added.setdefault(len(stack) - 1, []).append(small)
                    else:
                        leftovers.append(small)
                    stack.append((big, big_ignore, big_counts))
                    continue
                # a regular split: count the smaller child, derive the larger one's counts
                c1 = c2 = None
                if max(len(d1), len(d2)) > max_cluster_size:
                    if len(d1) <= len(d2):
                        c1 = index.counts(d1)
                        c2 = _subtract(counts, c1)
                    else:
                        c2 = index.counts(d2)
                        c1 = _subtract(counts, c2)
                stack.append((d2, ignore, c2))
                stack.append((d1, ignore + (term,), c1))
            if not leftovers:
                break
            pool = np.sort(np.concatenate(leftovers))
            leftovers = []
            if strategy == "remaining" and len(pool) >= k:
                if len(pool) == last_round:  # no progress: cut the list instead of splitting it again
                    saved.extend(_cut(index, pool, k, max_cluster_size))
                    bar.update(len(pool))
                    break
                last_round = len(pool)
                stack.append((pool, (), None))
                continue
            # fewer than k records left (remaining) or small groups at the end of the queue (adding)
            merged = np.union1d(saved[-1], pool)
            saved[-1:] = _cut(index, merged, k, max_cluster_size)
            bar.update(len(pool))
            break
    finally:
        bar.close()
    gone = np.sort(np.concatenate(suppressed)) if suppressed else np.zeros(0, dtype=np.int64)
    return HorizontalPartition(clusters=saved, suppressed=gone)
