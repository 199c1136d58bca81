"""HORPART: horizontal partitioning of a dataset into clusters (Terrovitis2012 section 4,
Algorithm HORPART), AlShuhail2021's strategies for clusters smaller than k (section 3.3.1), and
the join step that gives every cluster at least k records (:func:`join_small_clusters`).

Algorithm HORPART splits a dataset D recursively: if D is small enough it is a cluster; otherwise
the most frequent term ``a`` of D that is not in ``ignore`` splits D into D1 (records holding
``a``, recursed with ``ignore + {a}``) and D2 (the rest, recursed with the same ``ignore``).

Which paper each strategy follows:

* ``original`` -- Terrovitis2012's Algorithm HORPART, literally: every too large part is split,
  whatever the sizes of its two halves ("This procedure is recursively applied to the new
  datasets until the final datasets are small enough to become clusters"). Its clusters can be
  smaller than k; :func:`join_small_clusters` (applied by ``disassociate`` after every strategy)
  gives them k records, see below.
* ``abandon`` -- AlShuhail2021's reading of the original method (section 3.3.1, Tables 3.1-3.2):
  a split that leaves a part smaller than k is abandoned and D is returned as one cluster, even
  if it is larger than ``max_cluster_size`` (Table 3.2 keeps all four records of Table 3.1).
* ``suppression``, ``adding``, ``remaining`` -- AlShuhail2021 Algorithms 1-3 (section 3.3.1),
  applied when a split leaves a part smaller than k:

  - ``suppression`` (Algorithm 1): the small part is deleted; its records are not published.
  - ``adding`` (Algorithm 2 adds the small cluster to "the second cluster on the queue"): the
    small part is added to the next group still waiting to be processed after its sibling's
    subtree (the nearest relative in the split tree). Adding it to its own sibling would rebuild
    the parent and split it the same way forever, so the sibling is skipped. When no group is
    waiting, the small records join the last cluster produced ("the last cluster on the queue").
  - ``remaining`` (Algorithm 3): small parts go to the remaining list; when the queue is empty
    and the list holds at least k records it is partitioned again as one dataset (ignore reset);
    with fewer than k records it joins the last cluster produced. The thesis gives no bound on the
    number of rounds: on data whose terms each occur once, every round places only its last
    ``max_cluster_size`` records and the list would be partitioned |D| / max_cluster_size times
    (quadratic). Here the list is partitioned again only if the round before placed at least 1/64
    of the records it started with (the whole dataset, for the first list); otherwise the list is
    cut as described below. The rounds then handle at most 64 times the first list, and the
    results do not change on kosarak10k/25k or Quest data (k 2-5, maximum 10-30), whose slowest
    rounds still place 2.3% of their list.
  - When both parts are smaller than k (only possible if ``max_cluster_size < 2k - 2``) none of
    these can keep both: D stays one cluster.

  A last cluster that grows beyond ``max_cluster_size`` by receiving small records is cut into
  balanced pieces of at least k records as below.

Choices made where the papers are terse or leave a gap (each one is tested in
``tests/test_anonymizer_horpart.py``):

* **Stop rule.** Terrovitis2012 stops when ``|D| < maxClusterSize``, so its largest cluster has
  ``maxClusterSize - 1`` records. Here ``max_cluster_size`` is the largest allowed cluster size
  for every strategy: a group stops when ``|D| <= max_cluster_size`` (the reading AlShuhail2021
  3.3.1 gives: a group whose size is between k and the max cluster size needs no further
  partitioning). ``original`` with ``max_cluster_size = d`` is Terrovitis2012's algorithm with
  ``maxClusterSize = d + 1``; one meaning of the parameter across all strategies keeps sweeps over
  it comparable.
* **Most frequent term.** Ties are broken by the smaller term id (alphabetical order, since the
  vocabulary is sorted). A split where every record holds ``a`` (D2 empty) is not a split: the
  recursion continues on D with ``ignore + {a}``.
* **No term left.** When every term of a too large group is in ``ignore`` (or its records are
  empty) no term can split it (Terrovitis2012's line 3 finds nothing); the group is cut into
  ``min(ceil(|D| / max_cluster_size), floor(|D| / k))`` pieces of balanced sizes after sorting its
  records by content (so similar records stay together and the cut does not depend on record
  order).
* **Order.** Groups are processed depth first, D1 before D2, so the clusters come out in the
  order of the split tree and neighbouring clusters share the longest split history.

**Join step** (:func:`join_small_clusters`). Guarantee 1 needs every cluster to hold at least k
records. Terrovitis2012 section 5, proof of Lemma 2: "A valid reconstruction of cluster P_a is a
possible initial cluster that has s non-empty records. We construct a cluster that contains s
records in total, where at least k of them contain t1..tm". A term that occurs only in a cluster
of s < k records can never reach k records in any reconstruction, so Terrovitis2012's literal
HORPART (which can leave such clusters) needs this step before VERPART. Each cluster smaller than
k joins its nearest relative in split-tree order: the cluster produced just before it (the first
cluster joins the next one); a joined cluster larger than ``max_cluster_size`` is cut into
balanced pieces of at least k records as above. The records moved this way are counted in
:attr:`HorizontalPartition.joined`. The other strategies never leave a cluster smaller than k, so
the step changes nothing for them.

**Sizes.** With ``max_cluster_size >= 2k - 1`` every strategy except ``abandon`` gives clusters
whose sizes lie in ``[k, max_cluster_size]`` after the join step (a balanced cut of n records
into ``ceil(n / max_cluster_size)`` pieces then never goes below k); ``abandon`` guarantees only
``>= k``. Below ``2k - 1`` no such bound exists (``2k - 1`` records can form neither one cluster
of at most ``2k - 2`` records nor two of at least k), so
:func:`anonymizer.disassociation.pipeline.validate_parameters` refuses a smaller maximum for every strategy
but ``abandon``; :func:`horpart` itself accepts any maximum ``>= k`` and then only promises
``>= k`` after the join step.

**Peel chains (speed).** When no term of a too large group (outside ``ignore``) occurs in more
than ``max_cluster_size`` of its records, every split peels off D1 of at most
``max_cluster_size`` records that needs no further split, and D2 keeps ``ignore``; the same holds
for D2 (supports only drop). Run one split at a time this costs O(|D|) per peeled part, which is
quadratic on records of support-1 terms (one record peeled per split). Such a chain is run in one
pass over the group's entries instead (:func:`_peel_chain`: posting lists of the group and a heap
of term supports updated as records leave), giving the same parts in the same order, after
which each strategy handles the parts exactly as it handles single splits.

Counts: :attr:`HorizontalPartition.suppressed` lists the records ``suppression`` deleted;
:attr:`HorizontalPartition.moved` counts the records ``adding`` or ``remaining`` took out of the
part their split put them in (each record counted once).

Speed otherwise: every record is a row of the dataset's CSR arrays; a group is a sorted int64 array
of record ids; the term counts of a group are kept sparse and computed only for the smaller child
of a split (the larger child's counts are the parent's minus the smaller's); membership of the
split term comes from a posting list with a binary search. The whole run is close to linear in
the number of term occurrences.
"""

from __future__ import annotations

import heapq
import math
import sys
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from tqdm import tqdm

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["HORPART_STRATEGIES", "HorizontalPartition", "horpart", "join_small_clusters"]

HORPART_STRATEGIES: tuple[str, ...] = ("original", "abandon", "suppression", "adding", "remaining")
"""``original``: Terrovitis2012's Algorithm HORPART; ``abandon``: AlShuhail2021's reading of it
(Table 3.2); ``suppression``, ``adding``, ``remaining``: AlShuhail2021 Algorithms 1-3."""

BOUNDED_STRATEGIES: tuple[str, ...] = ("original", "suppression", "adding", "remaining")
"""Strategies whose clusters (after :func:`join_small_clusters`) never exceed ``max_cluster_size``
when it is at least ``2k - 1``."""

_Counts = np.ndarray | tuple[np.ndarray, np.ndarray]
"""Term counts of a group: a dense array over the vocabulary (small vocabularies) or sparse
(sorted term ids, positive counts)."""

TOP_TERMS = 256
"""Membership of this many most frequent terms is kept as bit columns (one test per record)."""

DENSE_LIMIT = 1 << 16
"""Vocabularies up to this size keep group counts dense (one vector operation per step)."""

ROUND_PROGRESS = 64
"""``remaining``: the list is partitioned again only if the last round placed at least 1/64 of the
records it started with in clusters; otherwise the list is cut (see the module docstring)."""

PEEL_CHAINS = True
"""Run chains of peeling splits in one pass (:func:`_peel_chain`); tests switch it off to check
that the result equals one split at a time."""


@dataclass
class HorizontalPartition:
    """Result of :func:`horpart`.

    ``clusters`` are sorted int64 arrays of record ids (dataset positions), in split-tree order;
    ``suppressed`` holds the ids of the records the ``suppression`` strategy deleted (sorted);
    ``moved`` counts the records ``adding`` or ``remaining`` took out of the part their split put
    them in; ``joined`` counts the records :func:`join_small_clusters` moved into another cluster.
    """

    clusters: list[np.ndarray]
    suppressed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    moved: int = 0
    joined: int = 0

    @property
    def sizes(self) -> list[int]:
        return [len(c) for c in self.clusters]


class _Index:
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

    def counts(self, records: np.ndarray) -> _Counts:
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


def _content_order(indptr: np.ndarray, indices: np.ndarray, records: np.ndarray) -> np.ndarray:
    """``records`` sorted by their term-id tuples (then by id): a content-only order."""
    keyed = sorted(records.tolist(), key=lambda r: (tuple(indices[indptr[r] : indptr[r + 1]].tolist()), r))
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


def _most_frequent(counts: _Counts, ignore: tuple[int, ...]) -> tuple[int, int]:
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


def _cut(indptr: np.ndarray, indices: np.ndarray, records: np.ndarray, k: int,
         max_cluster_size: int) -> list[np.ndarray]:
    """Cut a group into balanced pieces of at most ``max_cluster_size`` and at least ``k`` records.

    With ``max_cluster_size < 2k - 1`` the two bounds can conflict; then ``>= k`` wins.
    """
    n = len(records)
    pieces = max(1, min(math.ceil(n / max_cluster_size), n // k))
    if pieces == 1:
        return [records]
    ordered = _content_order(indptr, indices, records)
    bounds = [(n * i) // pieces for i in range(pieces + 1)]
    return [np.sort(ordered[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _peel_chain(
    index: _Index, records: np.ndarray, ignore: tuple[int, ...], max_cluster_size: int, min_rest: int,
    stop_below: int,
) -> tuple[list[np.ndarray], np.ndarray]:
    """The successive splits of a group whose terms all have support <= ``max_cluster_size``.

    Each step is the split HORPART makes: the most frequent term outside ``ignore`` (ties: smaller
    id) among the records still in the group; its holders (D1, at most ``max_cluster_size``
    records) are peeled off and the rest (D2) keeps ``ignore``. Steps continue while the rest is
    larger than ``max_cluster_size``; they stop before a step whose D1 has fewer than
    ``stop_below`` records or whose D2 would have fewer than ``min_rest`` records, and when no
    term is left. Returns the peeled parts in order (sorted id arrays) and the rest (sorted).
    Cost: one sort of the group's entries plus a heap operation per entry.
    """
    lens = index.lengths[records]
    terms = index.gather(records)
    owner = np.repeat(np.arange(len(records), dtype=np.int64), lens)
    if ignore:
        keep = ~np.isin(terms, np.asarray(ignore, dtype=np.int64))
        terms, owner = terms[keep], owner[keep]
    uniq, local = np.unique(terms, return_inverse=True)  # local ids keep the order of term ids
    local = local.reshape(-1)
    counts = np.bincount(local, minlength=len(uniq))
    by_term = np.argsort(local, kind="stable")
    post = owner[by_term].tolist()  # holders of each local term (positions in ``records``)
    post_ptr = np.concatenate(([0], np.cumsum(counts))).tolist()
    rec_terms = local.tolist()  # terms of each record, in record order (entries are grouped by owner)
    rec_ptr = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=len(records))))).tolist()
    cnt = counts.tolist()
    # heap keys -support * width + term: larger support first, then the smaller term id
    width = max(len(uniq), 1)
    heap = np.sort(-counts * width + np.arange(len(uniq), dtype=np.int64)).tolist()  # sorted, hence a heap
    alive = bytearray(b"\x01") * len(records)
    n_alive = len(records)
    peeled: list[int] = []  # positions of the peeled records, part after part
    ends: list[int] = []
    while n_alive > max_cluster_size and heap:
        t = heap[0] % width
        c = cnt[t]
        if c != -(heap[0] // width) or c == 0:  # stale entry: the support has dropped since it was pushed
            heapq.heappop(heap)
            continue
        if c < stop_below or n_alive - c < min_rest:
            break
        heapq.heappop(heap)
        holders = [r for r in post[post_ptr[t] : post_ptr[t + 1]] if alive[r]]
        for r in holders:
            alive[r] = 0
            for u in rec_terms[rec_ptr[r] : rec_ptr[r + 1]]:
                cu = cnt[u] - 1
                cnt[u] = cu
                if cu:
                    heapq.heappush(heap, -cu * width + u)
        holders.sort()
        peeled.extend(holders)
        ends.append(len(peeled))
        n_alive -= c
    flat = records[np.asarray(peeled, dtype=np.int64)]
    peels = [flat[a:b] for a, b in zip([0, *ends], ends, strict=False)]  # the last start has no end
    rest = records[np.frombuffer(bytes(alive), dtype=np.uint8).astype(bool)]
    return peels, rest


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
    """Algorithm HORPART (Terrovitis2012 section 4) or one of its AlShuhail2021 3.3.1 variants.

    ``strategy`` is one of :data:`HORPART_STRATEGIES`. Returns the clusters (sorted record-id
    arrays in split-tree order), the records ``suppression`` deleted and the count of records
    ``adding``/``remaining`` moved. ``original`` returns Terrovitis2012's clusters as they are,
    including clusters smaller than k: apply :func:`join_small_clusters` before VERPART (as
    ``disassociate`` does). See the module docstring for the stop rule and each strategy.
    """
    _validate(dataset, k, max_cluster_size, strategy)
    index = _Index(dataset)
    n = len(dataset)
    saved: list[np.ndarray] = []
    suppressed: list[np.ndarray] = []
    moved = np.zeros(n, dtype=bool)  # adding / remaining: records taken out of their split's part
    leftovers: list[np.ndarray] = []  # adding: small groups with no waiting group; remaining: the list L
    stack: list[tuple[np.ndarray, tuple[int, ...], _Counts | None]] = [(np.arange(n, dtype=np.int64), (), None)]
    added: dict[int, list[np.ndarray]] = {}  # adding: stack position -> small groups joining that entry
    last_round = n  # remaining: size of the list the last round started with (the dataset first)
    bar = tqdm(total=n, desc="horpart", unit="rec", disable=not sys.stderr.isatty(), leave=False)

    def place_small(small: list[np.ndarray]) -> None:
        """A part smaller than k, under suppression, adding or remaining."""
        if not small:
            return
        if strategy == "suppression":
            suppressed.extend(small)
            bar.update(sum(len(s) for s in small))
            return
        for s in small:
            moved[s] = True
        if strategy == "remaining" or not stack:
            leftovers.extend(small)
            return
        # adding: join the group waiting after the sibling's subtree
        w_records, w_ignore, w_counts = stack[-1]
        if w_counts is not None:
            stack[-1] = (w_records, w_ignore, _add(w_counts, index.counts(np.concatenate(small))))
        added.setdefault(len(stack) - 1, []).extend(small)

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
                term, support = _most_frequent(counts, ignore)
                if term < 0:
                    saved.extend(_cut(index.indptr, index.indices, records, k, max_cluster_size))
                    bar.update(size)
                    continue
                if PEEL_CHAINS and support <= max_cluster_size:  # every split from here peels a finished part
                    peels, rest = _peel_chain(index, records, ignore, max_cluster_size,
                                              min_rest=1 if strategy == "original" else k,
                                              stop_below=k if strategy == "abandon" else 0)
                    small: list[np.ndarray] = []
                    for part in peels:
                        if len(part) >= k or strategy == "original":
                            saved.append(part)
                            bar.update(len(part))
                        else:
                            small.append(part)
                    if peels:
                        place_small(small)
                        if len(rest) <= max_cluster_size:
                            saved.append(rest)
                            bar.update(len(rest))
                        else:  # no term left, or the next split would leave a part smaller than k
                            stack.append((rest, ignore, None))
                        continue
                    # the chain stopped before its first split: that split is made below
                mask = index.holds(records, term)
                d1, d2 = records[mask], records[~mask]
                if len(d2) == 0:
                    stack.append((d1, ignore + (term,), counts))
                    continue
                small1, small2 = len(d1) < k, len(d2) < k
                if strategy != "original" and (small1 or small2):
                    if small1 and small2:
                        saved.append(records)
                        bar.update(size)
                        continue
                    if strategy == "abandon":
                        saved.append(records)  # AlShuhail2021 Table 3.2: the split is abandoned
                        bar.update(size)
                        continue
                    small, big = (d1, d2) if small1 else (d2, d1)
                    big_ignore = ignore if small1 else ignore + (term,)
                    big_counts = None
                    if len(big) > max_cluster_size:
                        big_counts = _subtract(counts, index.counts(small))
                    place_small([small])
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
                if len(pool) * ROUND_PROGRESS > last_round * (ROUND_PROGRESS - 1):  # too little progress
                    saved.extend(_cut(index.indptr, index.indices, pool, k, max_cluster_size))
                    bar.update(len(pool))
                    break
                last_round = len(pool)
                stack.append((pool, (), None))
                continue
            # fewer than k records left (remaining) or small groups at the end of the queue (adding)
            merged = np.union1d(saved[-1], pool)
            saved[-1:] = _cut(index.indptr, index.indices, merged, k, max_cluster_size)
            bar.update(len(pool))
            break
    finally:
        bar.close()
    gone = np.sort(np.concatenate(suppressed)) if suppressed else np.zeros(0, dtype=np.int64)
    return HorizontalPartition(clusters=saved, suppressed=gone, moved=int(moved.sum()))


def join_small_clusters(
    partition: HorizontalPartition, dataset: TransactionDataset, k: int, max_cluster_size: int
) -> HorizontalPartition:
    """Give every cluster at least k records (Terrovitis2012 section 5, proof of Lemma 2).

    Walks the clusters in split-tree order: a cluster smaller than k joins the cluster produced
    just before it (several small ones in a row all join that one); small clusters at the very
    start join the first cluster after them. A cluster that received records and now holds more
    than ``max_cluster_size`` is cut into balanced pieces of at least k records (content order,
    as HORPART's own cut). Clusters that received nothing are kept as they are. Returns a new
    partition whose ``joined`` adds the records moved here; with ``max_cluster_size >= 2k - 1``
    every cluster that received records ends within ``[k, max_cluster_size]``.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    if isinstance(max_cluster_size, bool) or not isinstance(max_cluster_size, int) or max_cluster_size < 1:
        raise InputError(f"max cluster size must be a positive integer, got {max_cluster_size!r}")
    groups: list[list[np.ndarray]] = []  # each output cluster as its parts (first part: the host)
    pending: list[np.ndarray] = []  # small clusters met before any cluster of k records or more
    joined = 0
    for cluster in partition.clusters:
        if len(cluster) >= k:
            groups.append([cluster, *pending])
            pending = []
        elif groups:
            groups[-1].append(cluster)
            joined += len(cluster)
        else:
            pending.append(cluster)
            joined += len(cluster)
    if pending:  # no cluster reaches k: everything forms one group
        groups.append(pending)
        joined -= len(pending[0])  # the first small cluster is the host, nothing moved into it... yet
    indptr = np.asarray(dataset.indptr, dtype=np.int64)
    indices = np.asarray(dataset.indices)  # read slice by slice as Python ints: no int64 copy needed
    clusters: list[np.ndarray] = []
    for parts in groups:
        if len(parts) == 1:
            clusters.append(parts[0])
            continue
        merged = np.sort(np.concatenate(parts))
        if len(merged) > max_cluster_size:
            clusters.extend(_cut(indptr, indices, merged, k, max_cluster_size))
        else:
            clusters.append(merged)
    return HorizontalPartition(clusters=clusters, suppressed=partition.suppressed, moved=partition.moved,
                               joined=partition.joined + joined)
