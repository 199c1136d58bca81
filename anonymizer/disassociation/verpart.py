"""VERPART: vertical partitioning of each cluster into record chunks and a term chunk
(Terrovitis2012 section 4, Algorithm VERPART), the two variants of AlShuhail2021 section 3.3.3 and
the Lemma 2 size condition (Terrovitis2012 section 5).

VERPART orders the terms of a cluster P by decreasing support s(t), puts every term with
s(t) < k into the term chunk T_T, and then builds T_1, T_2, ... greedily: each pass walks the
remaining terms in order and adds a term t to the current set T_cur when the chunk projected on
T_cur ∪ {t} stays k^m-anonymous. Which paper each variant follows, i.e. what "k^m-anonymous"
means in that test:

* ``original`` -- Terrovitis2012's Algorithm VERPART: the test chunk must be k^m-anonymous in the
  paper's own sense (section 3: "every m-sized combination of terms that appears in a chunk,
  appears at least k times"), so a combination of at most m terms that never appears in the test
  chunk (support 0) is no obstacle; only a combination with support 1..k-1 is. Terms that never
  meet share a chunk. On records {w,x,z},{x,z},{x},{y},{y},{y,z} with k=2, m=2 this gives the
  record chunks {x,y} and {z} (w goes to the term chunk).
* ``strict`` -- AlShuhail2021 3.3.3, the first method (Table 3.7): the chunk's term set must be
  k^m-anonymous *as a whole*: every combination of at most m of its terms appears in at least k
  records of P. A combination that never appears (support 0) is a violation, so terms that never
  meet (``surgery`` and ``failure`` of Table 3.4) land in different chunks. On the records above:
  chunks {x,z} and {y}.
* ``grouped`` -- AlShuhail2021 3.3.3, the second method (Table 3.8): the ``strict`` groups are
  formed first; then groups are packed into shared record chunks: a group joins the first chunk
  where every new combination (terms of the group with terms already in the chunk, at most m in
  all) has support 0 or at least k, i.e. the chunk stays k^m-anonymous in the sense of
  Terrovitis2012. Groups that never meet share a chunk. On the records above: {x,z} and {y}
  (the group {y} meets z once).

The k^m test never enumerates a power set: a candidate term t is checked against the current
set T_cur only through the new combinations that contain t, by a depth-first walk over T_cur that
carries the running AND of record bitsets (Python ints, bit i = i-th record of the cluster);
a branch whose AND is empty is cut (its supersets are empty too), so only combinations of terms
that really co-occur are visited, up to m - 1 terms of T_cur. The walk keeps its own stack (no
nested function, hence no reference cycle per call: disassociate() pauses the cyclic collector).

Lemma 2 (section 5), for every variant: while the term chunk is empty and the number of
non-empty sub-records over all record chunks is below ``s + k * (h - 1)``, ``h = min(m, v)``, the
least frequent term of the record chunks moves to the term chunk (ties: the term VERPART met
last, i.e. the alphabetically last among the least frequent); a record chunk left without terms
disappears. Terrovitis2012 section 5: "If the size limit is not met, then by moving the least
frequent item of the record chunks to the term chunk, we guarantee that the conditions set by
Lemma 2 are satisfied."

Ties in the support order are broken by term id (alphabetical order of the sorted vocabulary).
The tables of AlShuhail2021 print tied chunks in another order (Table 3.7 lists ``surgery``
before ``failure``); the chunks as sets are the same.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from anonymizer.model.conditions import is_km_anonymous, lemma2_holds
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = [
    "VERPART_STRATEGIES",
    "PartitionTable",
    "VerticalPartition",
    "extends_km",
    "group_terms",
    "is_km_anonymous",
    "lemma2_holds",
    "partition_clusters",
    "verpart",
]

VERPART_STRATEGIES: tuple[str, ...] = ("original", "strict", "grouped")
"""``original``: Terrovitis2012's Algorithm VERPART; ``strict`` and ``grouped``: the two variants
of AlShuhail2021 section 3.3.3."""


@dataclass
class VerticalPartition:
    """One cluster after VERPART and the Lemma 2 size condition."""

    records: np.ndarray  # int64 record ids of the cluster (dataset positions), in cluster order
    chunk_terms: list[list[str]]  # T_1..T_v, each sorted; record chunk j is {r ∩ T_j : r in cluster}
    term_chunk: list[str]  # T_T, sorted


# ---------------------------------------------------------------------------------------------
# The incremental k^m test on record bitsets
# ---------------------------------------------------------------------------------------------


def extends_km(current: Sequence[int], candidate: int, k: int, m: int, zero_ok: bool) -> bool:
    """May a term with record bitset ``candidate`` join a chunk whose terms have bitsets ``current``?

    Only the combinations that contain the candidate and 1..m-1 terms of ``current`` are checked
    (the chunk without the candidate is assumed to pass already). A combination supported by 1..k-1
    records fails; one supported by 0 records fails only when ``zero_ok`` is False (the ``strict``
    reading: the term set must be k^m-anonymous as a whole). Combinations with an empty AND are
    never extended further, so nothing beyond the co-occurring combinations is visited.
    """
    if m < 2 or not current:
        return True
    if m == 2:  # pairs only
        for bits in current:
            support = (candidate & bits).bit_count()
            if support < k and (support > 0 or not zero_ok):
                return False
        return True
    # depth-first over combinations, with an explicit stack of (next index, running AND, terms
    # of ``current`` in it): no nested function, so a call leaves no reference cycle behind
    # (disassociate() runs with the cyclic collector paused)
    n = len(current)
    deepest = m - 1  # at most m - 1 terms of the current set join the candidate
    todo = [(0, candidate, 0)]
    while todo:
        start, acc, depth = todo.pop()
        for i in range(start, n):
            both = acc & current[i]
            support = both.bit_count()
            if support == 0:
                if not zero_ok:
                    return False
                continue
            if support < k:
                return False
            if depth + 1 < deepest:
                todo.append((i + 1, both, depth + 1))
    return True


def group_terms(bitsets: Sequence[int], k: int, m: int, zero_ok: bool) -> list[list[int]]:
    """Greedy VERPART passes over terms given in their VERPART order (positions into ``bitsets``).

    Each pass opens a set and adds every remaining term that passes :func:`extends_km`
    (Terrovitis2012 Algorithm VERPART, lines 8-15). Returns the sets as lists of positions.
    """
    remain = list(range(len(bitsets)))
    groups: list[list[int]] = []
    while remain:
        cur: list[int] = []
        cur_bits: list[int] = []
        rest: list[int] = []
        for i in remain:
            if extends_km(cur_bits, bitsets[i], k, m, zero_ok):
                cur.append(i)
                cur_bits.append(bitsets[i])
            else:
                rest.append(i)
        groups.append(cur)
        remain = rest
    return groups


def _pack_groups(groups: list[list[int]], bitsets: Sequence[int], k: int, m: int) -> list[list[int]]:
    """AlShuhail2021 3.3.3, second method: groups share a chunk when no mixed combination is rare."""
    chunks: list[list[int]] = []
    chunk_bits: list[list[int]] = []
    for group in groups:
        for c, bits in enumerate(chunk_bits):
            trial = list(bits)
            fits = True
            for i in group:
                if not extends_km(trial, bitsets[i], k, m, zero_ok=True):
                    fits = False
                    break
                trial.append(bitsets[i])
            if fits:
                chunks[c].extend(group)
                chunk_bits[c] = trial
                break
        else:
            chunks.append(list(group))
            chunk_bits.append([bitsets[i] for i in group])
    return chunks


def _partition_one(
    bitsets: list[int], supports: list[int], size: int, k: int, m: int, variant: str, term_chunk_empty: bool
) -> tuple[list[list[int]], list[int]]:
    """VERPART of one cluster on its frequent terms, given in VERPART order.

    Returns the record chunks (lists of positions) and the positions Lemma 2 moved to the term chunk.
    """
    if variant == "original":  # Terrovitis2012: only combinations that appear must reach k
        chunks = group_terms(bitsets, k, m, zero_ok=True)
    else:
        groups = group_terms(bitsets, k, m, zero_ok=False)
        chunks = _pack_groups(groups, bitsets, k, m) if variant == "grouped" else groups
    moved: list[int] = []
    while chunks and term_chunk_empty:
        nonempty = 0
        for chunk in chunks:
            acc = 0
            for i in chunk:
                acc |= bitsets[i]
            nonempty += acc.bit_count()
        if lemma2_holds(size, nonempty, len(chunks), k, m, term_chunk_empty):
            break
        # the least frequent record-chunk term; ties: the one met last in VERPART order
        victim = max((i for chunk in chunks for i in chunk), key=lambda i: (-supports[i], i))
        moved.append(victim)
        term_chunk_empty = False
        chunks = [[i for i in chunk if i != victim] for chunk in chunks]
        chunks = [chunk for chunk in chunks if chunk]
    return chunks, moved


# ---------------------------------------------------------------------------------------------
# All clusters at once: supports and bitsets by vectorized counting, the greedy part per cluster
# ---------------------------------------------------------------------------------------------


@dataclass
class PartitionTable:
    """VERPART of every cluster, on term ids (the form the release builder works with).

    ``clusters[c]`` are the records of cluster c (sorted ids). The (cluster, term) pairs of the
    clusters are listed sorted by cluster, then term: ``pair_cluster``, ``pair_term``,
    ``pair_chunk`` (index of the record chunk within its cluster, -1 for the term chunk) and
    ``pair_start``/``pair_end``, a slice of ``entry_record`` giving the records of the cluster
    that hold the term (ascending). ``n_chunks[c]`` is the number of record chunks of cluster c.
    """

    vocabulary: tuple[str, ...]
    clusters: list[np.ndarray]
    pair_cluster: np.ndarray
    pair_term: np.ndarray
    pair_chunk: np.ndarray
    pair_start: np.ndarray
    pair_end: np.ndarray
    entry_record: np.ndarray
    n_chunks: np.ndarray

    def partitions(self) -> list[VerticalPartition]:
        """The clusters as :class:`VerticalPartition` objects (term strings, sorted)."""
        voc = np.asarray(self.vocabulary, dtype=object)
        n = len(self.clusters)
        bounds = np.searchsorted(self.pair_cluster, np.arange(n + 1)).tolist()
        terms = voc[self.pair_term].tolist() if len(self.pair_term) else []
        chunk_of = self.pair_chunk.tolist()
        out: list[VerticalPartition] = []
        for c in range(n):
            a, b = bounds[c], bounds[c + 1]
            chunks: list[list[str]] = [[] for _ in range(int(self.n_chunks[c]))]
            term_chunk: list[str] = []
            for t, j in zip(terms[a:b], chunk_of[a:b], strict=True):
                (term_chunk if j < 0 else chunks[j]).append(t)
            out.append(VerticalPartition(self.clusters[c], chunks, term_chunk))
        return out


def _validate(k: int, m: int, variant: str) -> None:
    if variant not in VERPART_STRATEGIES:
        raise InputError(f"unknown verpart variant {variant!r}; choose one of: {', '.join(VERPART_STRATEGIES)}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InputError(f"k must be an integer >= 2, got {k!r}")
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise InputError(f"m must be an integer >= 1, got {m!r}")


DEFAULT_MAX_ITEMSETS = 2_000_000_000
"""Default budget of the k^m test (``--max-itemsets``): the term combinations of 3..m terms that
VERPART's depth-first test may visit, estimated before it starts as the sum over records of
C(f, 3) + ... + C(f, m), f being the record's terms that are frequent (support >= k) in its
cluster. The test visits at most these combinations per pass (a combination no record holds is
cut at once), at a few million a second. Normal runs stay far below: m <= 2 needs no budget, and
the paper's sweeps (m <= 6 on BMS-like click streams, a few frequent terms per record) estimate
at most tens of millions; 40 records of 120 terms at m = 5 estimate 7.6 billion (it ran for
minutes and never finished) and are refused in a second."""


def estimate_itemsets(record_frequent: np.ndarray, m: int) -> float:
    """Sum over records of C(f, 3) + ... + C(f, m) for ``f`` in ``record_frequent`` (0 when m < 3)."""
    if m < 3 or not len(record_frequent):
        return 0.0
    from scipy.special import comb

    f = np.asarray(record_frequent, dtype=np.float64)
    f = f[f >= 3]
    return float(sum(comb(f, d).sum() for d in range(3, m + 1)))


def check_itemset_budget(estimate: float, m: int, max_itemsets: int | None) -> None:
    """:class:`InputError` when the estimated combinations of the k^m test exceed ``max_itemsets``."""
    if max_itemsets is not None and estimate > max_itemsets:
        raise InputError(f"m = {m}: the k^m test would visit about {estimate:.3g} term combinations (3..m terms "
                         f"of the frequent terms of each record), more than --max-itemsets {max_itemsets:,}; "
                         "use a smaller m, shorter records, or raise --max-itemsets")


def _locate_records(clusters: list[np.ndarray], n_rec: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Check the clusters; returns their sizes, each record's cluster (-1: none) and position in it, and all ids."""
    n_cl = len(clusters)
    sizes = np.fromiter((len(c) for c in clusters), dtype=np.int64, count=n_cl)
    label = np.full(n_rec, -1, dtype=np.int64)
    position = np.zeros(n_rec, dtype=np.int64)
    all_ids = np.concatenate(clusters) if n_cl else np.zeros(0, dtype=np.int64)
    if len(all_ids):
        if all_ids.min() < 0 or all_ids.max() >= n_rec:
            raise InputError(f"clusters name record ids outside 0..{n_rec - 1}")
        if np.bincount(all_ids, minlength=n_rec).max() > 1:
            raise InputError("clusters overlap: a record id appears in more than one cluster")
        label[all_ids] = np.repeat(np.arange(n_cl, dtype=np.int64), sizes)
        starts = np.cumsum(sizes) - sizes
        position[all_ids] = np.arange(len(all_ids), dtype=np.int64) - np.repeat(starts, sizes)
    return sizes, label, position, all_ids


def _sorted_entries(dataset: TransactionDataset, label: np.ndarray, all_ids: np.ndarray,
                    n_cl: int) -> tuple[np.ndarray, np.ndarray]:
    """The entries (record, term) of the clustered records, sorted by (cluster, term, record).

    Returns each entry's key ``cluster * width + term`` and its record. The temporaries (one int64
    per entry each) are built in place and released early, since at 10M records every one of them
    is 800 MB.
    """
    n_rec = len(dataset)
    indptr = np.asarray(dataset.indptr, dtype=np.int64)
    indices = np.asarray(dataset.indices)  # int32 as stored: the keys below are built in int64
    lens = np.diff(indptr)[all_ids]
    total = int(lens.sum())
    ends = np.cumsum(lens)
    offsets = np.repeat(indptr[all_ids] - (ends - lens), lens)
    offsets += np.arange(total, dtype=np.int64)
    del ends
    e_rec = np.repeat(all_ids, lens)
    width = max(len(dataset.vocabulary), 1)
    key = label[e_rec]
    key *= width
    key += indices[offsets]
    del offsets
    if (n_cl + 1) * width * max(n_rec, 1) < 2**62:  # one unique int64 key per entry: a plain sort
        key *= n_rec
        key += e_rec
        del e_rec
        key.sort()
        e_rec = key % n_rec
        key //= n_rec
    else:
        order = np.argsort(key, kind="stable")  # records ascending inside each (cluster, term)
        key, e_rec = key[order], e_rec[order]
    return key, e_rec


def _run_starts(key: np.ndarray) -> np.ndarray:
    """Where each run of equal keys starts (one run per (cluster, term) pair)."""
    if not len(key):
        return np.zeros(0, dtype=np.int64)
    starts_mask = np.empty(len(key), dtype=bool)
    starts_mask[0] = True
    np.not_equal(key[1:], key[:-1], out=starts_mask[1:])
    return np.flatnonzero(starts_mask)


def _record_bitsets(position: np.ndarray, e_rec: np.ndarray, p_start: np.ndarray, p_end: np.ndarray,
                    frequent: np.ndarray, cluster_sizes: np.ndarray) -> list[int]:
    """The records of each frequent pair as a bitset of positions in its cluster: uint64 for
    clusters of <= 64 records, Python ints for larger ones."""
    if len(e_rec):
        shifted = np.left_shift(np.uint64(1), position[e_rec].astype(np.uint64))
        bits_list: list[int] = np.bitwise_or.reduceat(shifted, p_start)[frequent].tolist()
    else:
        bits_list = []
    large = np.flatnonzero(cluster_sizes > 64) if len(frequent) else np.zeros(0, dtype=np.int64)
    if len(large):
        pos_list = position[e_rec].tolist()
        for i in large.tolist():
            p = frequent[i]
            acc = 0
            for q in pos_list[p_start[p] : p_end[p]]:
                acc |= 1 << q
            bits_list[i] = acc
    return bits_list


def _chunk_every_cluster(bits_list: list[int], f_support: list[int], f_bounds: list[int], has_rare: list[bool],
                         sizes: np.ndarray, k: int, m: int, variant: str) -> tuple[list[int], np.ndarray]:
    """VERPART and Lemma 2 cluster by cluster over its frequent pairs; returns each frequent pair's
    record chunk (ordered by the VERPART rank of their first term) and each cluster's chunk count."""
    n_cl = len(sizes)
    n_chunks = np.zeros(n_cl, dtype=np.int64)
    chunk_of_frequent = [-1] * len(bits_list)
    sizes_list = sizes.tolist()
    for c in tqdm(range(n_cl), desc="verpart", unit="cluster", disable=not sys.stderr.isatty(), leave=False):
        a, b = f_bounds[c], f_bounds[c + 1]
        if a == b:
            continue
        chunks, _moved = _partition_one(bits_list[a:b], f_support[a:b], sizes_list[c], k, m, variant,
                                        not has_rare[c])
        chunks.sort(key=min)  # chunk order: by the VERPART rank of their first term
        for j, chunk in enumerate(chunks):
            for i in chunk:
                chunk_of_frequent[a + i] = j
        n_chunks[c] = len(chunks)
    return chunk_of_frequent, n_chunks


def partition_clusters(
    dataset: TransactionDataset,
    clusters: Sequence[np.ndarray],
    k: int,
    m: int,
    variant: str = "strict",
    max_itemsets: int | None = DEFAULT_MAX_ITEMSETS,
) -> PartitionTable:
    """VERPART (Terrovitis2012 section 4) plus Lemma 2 (section 5) for every cluster.

    ``clusters`` are arrays of record ids (each is sorted here). Supports and record bitsets of all
    (cluster, term) pairs come from one vectorized sort; only the terms with support >= k enter the
    per-cluster greedy loop.
    """
    _validate(k, m, variant)
    n_rec = len(dataset)
    clusters = [np.sort(np.asarray(c, dtype=np.int64)) for c in clusters]
    n_cl = len(clusters)
    sizes, label, position, all_ids = _locate_records(clusters, n_rec)
    key, e_rec = _sorted_entries(dataset, label, all_ids, n_cl)
    width = max(len(dataset.vocabulary), 1)
    p_start = _run_starts(key)
    p_end = np.append(p_start[1:], len(key)).astype(np.int64)
    p_key = key[p_start]
    p_cluster = p_key // width
    p_term = p_key % width
    p_support = p_end - p_start
    p_chunk = np.full(len(p_start), -1, dtype=np.int64)
    if m >= 3 and max_itemsets is not None and len(key):  # the work of the k^m test, before it starts
        frequent_entry = np.repeat(p_support >= k, p_support)
        per_record = np.bincount(e_rec[frequent_entry], minlength=n_rec)
        check_itemset_budget(estimate_itemsets(per_record, m), m, max_itemsets)
        del frequent_entry, per_record

    # the frequent pairs (support >= k), per cluster in VERPART order: support down, then term id
    frequent = np.flatnonzero(p_support >= k)
    frequent = frequent[np.lexsort((p_term[frequent], -p_support[frequent], p_cluster[frequent]))]
    f_cluster = p_cluster[frequent]
    bits_list = _record_bitsets(position, e_rec, p_start, p_end, frequent, sizes[f_cluster])
    f_support = p_support[frequent].tolist()
    f_bounds = np.searchsorted(f_cluster, np.arange(n_cl + 1)).tolist()
    all_bounds = np.searchsorted(p_cluster, np.arange(n_cl + 1))
    has_rare = ((np.diff(all_bounds) - np.diff(np.asarray(f_bounds, dtype=np.int64))) > 0).tolist()
    chunk_of_frequent, n_chunks = _chunk_every_cluster(bits_list, f_support, f_bounds, has_rare, sizes, k, m, variant)
    if len(frequent):
        p_chunk[frequent] = np.asarray(chunk_of_frequent, dtype=np.int64)
    return PartitionTable(
        vocabulary=dataset.vocabulary,
        clusters=clusters,
        pair_cluster=p_cluster,
        pair_term=p_term,
        pair_chunk=p_chunk,
        pair_start=p_start,
        pair_end=p_end,
        entry_record=e_rec,
        n_chunks=n_chunks,
    )


def verpart(
    dataset: TransactionDataset,
    records: Sequence[int] | np.ndarray,
    k: int,
    m: int,
    variant: str = "strict",
) -> VerticalPartition:
    """VERPART and Lemma 2 of one cluster (the records with the given ids) as a :class:`VerticalPartition`."""
    return partition_clusters(dataset, [np.asarray(records, dtype=np.int64)], k, m, variant).partitions()[0]
