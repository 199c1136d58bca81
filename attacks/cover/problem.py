"""The cover problem, found fast: a flat numpy index of a release's record chunks.

Two definitions are implemented, both on the record chunks of simple clusters only (shared chunks
of joint clusters are left out, as Barakat2016 section 3.2 footnote 2 does):

* **Awad2019 Definition 3** (per record chunk C_j with term set I_j): an item z is *covered* when
  s(I_j, C_j) = s({z}, C_j); the other items of I_j are *covering*. Choice: a chunk with a single
  term is never a cover problem (there is nothing it could be associated with; Awad2019 Figure 1
  treats the chunk {e},{e} as safe), and s(I_j) must be positive. When every item is covered
  (all non-empty sub-records equal I_j), the covering list is empty and each covered item is
  covered by the others.

  Three readings of PEM (Awad2019 section 5.1.1, vulnerable record chunks / record chunks) rest on
  it. The paper's own: "we consider that every record chunk that is subject to a cover problem is a
  vulnerable record chunk" (5.1.1), "regardless of the background knowledge of the attacker" (5.2.1),
  so every chunk that meets Definition 3 is vulnerable, the only chunk of its cluster included
  (``AwadCovers.vulnerable``, ``pem``). Section 3.3 calls the cover problem "the ability to associate
  one-to-one or one-to-many items in two distinct record chunks, from the same cluster", and the
  attack in the proof of its Lemma 1 takes "the set {z, y} where y is an item in another record
  chunk R_Cl": the *linkable* reading counts a chunk only when its cluster has another record chunk
  (``AwadCovers.vulnerable_linkable``, ``pem_linkable``). Definition 3 itself ends "the cluster R, and
  the dataset T* as a consequence, are subject to a cover problem": the per-cluster reading
  (``pem_cluster``, in :mod:`attacks.cover.detector`).
* **Barakat2016 Definition 3** (between an item x of chunk C_j and an earlier chunk C_l, l < j):
  I_l(x) = {y in C_l : s(y, C_l) >= s(x, C_j)}; a cover problem exists when
  s(I_l(x), C_l) = min_{y in I_l(x)} s(y, C_l); the items reaching that minimum are covered, the
  rest covering. Choice: I_l(x) must hold at least two items (a lone item "covered by nothing" is
  no association). Algorithm 1 of Barakat2016 walks l from j-1 down to the first chunk, so every
  earlier chunk is examined, not only C_{j-1}.

Why I_l(x) is a prefix: VERPART (Terrovitis2012 section 4) scans terms by descending support and
rejects x from C_l only after testing it against the terms of C_l accepted before it, i.e. those
of support >= s(x). Sorting the items of each chunk by descending support, I_l(x) is the prefix
of the first p(x) items; s(prefix of length p) is the number of sub-records whose ranks start
0, 1, ..., p-1. Everything is computed for all chunks at once with sorting and bincounts, so the
cost is near-linear in the number of item occurrences.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from anonymizer.model.arrays import ReleaseArrays
from anonymizer.model.release import Release

__all__ = ["FlatRelease", "flatten", "flatten_arrays", "AwadCovers", "awad_covers", "BarakatRelations",
           "barakat_relations"]


@dataclass
class FlatRelease:
    """The record chunks of a release as flat arrays (ids are positions; terms via ``terms``).

    ``chunk_*`` arrays have one entry per record chunk (in release order), ``sub_*`` one per listed
    sub-record, ``occ_*`` one per item occurrence. ``key_*`` arrays have one entry per distinct
    (chunk, item) pair, sorted by chunk then by descending support then item id; ``key_rank`` is
    the position of the item in its chunk's support order and ``chunk_off`` where a chunk's
    entries start.
    """

    terms: np.ndarray
    cluster_ids: list[str]
    cluster_size: np.ndarray
    cluster_first_chunk: np.ndarray
    chunk_cluster: np.ndarray
    chunk_index: np.ndarray
    chunk_nsub: np.ndarray
    chunk_nterms: np.ndarray
    chunk_off: np.ndarray
    sub_chunk: np.ndarray
    sub_len: np.ndarray
    occ_sub: np.ndarray
    occ_key: np.ndarray
    key_chunk: np.ndarray
    key_item: np.ndarray
    key_support: np.ndarray

    @property
    def n_chunks(self) -> int:
        return int(self.chunk_cluster.size)

    def term_id(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.terms.tolist())}


def flatten(release: Release) -> FlatRelease:
    """Index the record chunks of ``release``: straight from its arrays when it holds them already
    (:attr:`~anonymizer.model.release.Release.has_arrays`, e.g. read from a file), else one pass over its
    objects. The index is returned, never kept: a caller that needs it twice passes it on."""
    if release.has_arrays:
        return flatten_arrays(release.arrays)
    per_cluster = [len(c.record_chunks) for c in release.clusters]
    all_chunks = [chunk for c in release.clusters for chunk in c.record_chunks]
    chunk_nsub = list(map(len, all_chunks))
    subs = list(itertools.chain.from_iterable(all_chunks))
    sub_len = list(map(len, subs))
    items = list(itertools.chain.from_iterable(subs))
    import pandas as pd  # here: a release read into arrays (the usual case) does not need it

    codes, uniques = pd.factorize(np.asarray(items, dtype=object), sort=True) if items else (
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object))
    return _index(np.asarray(per_cluster, dtype=np.int64), np.asarray(chunk_nsub, dtype=np.int64),
                  np.asarray(sub_len, dtype=np.int64), np.asarray(codes, dtype=np.int64),
                  np.asarray(uniques, dtype=object), [c.id for c in release.clusters],
                  np.asarray([c.size for c in release.clusters], dtype=np.int64))


def flatten_arrays(arrays: ReleaseArrays) -> FlatRelease:
    """:func:`flatten` of a release held as :class:`~anonymizer.model.arrays.ReleaseArrays` (numpy only).

    The vocabulary is cut to the terms of the record chunks, so the index is the one :func:`flatten`
    builds from the objects, id for id."""
    ids = arrays.sub_terms.astype(np.int64)
    used = np.zeros(len(arrays.terms), dtype=bool)
    used[ids] = True
    code = np.cumsum(used) - 1
    terms = np.asarray(arrays.terms, dtype=object)[used] if used.size else np.zeros(0, dtype=object)
    return _index(np.diff(arrays.chunk_off), np.diff(arrays.sub_off), np.diff(arrays.term_off), code[ids], terms,
                  list(arrays.cluster_ids), arrays.cluster_size.astype(np.int64))


def _index(counts_pc: np.ndarray, nsub: np.ndarray, slen: np.ndarray, codes: np.ndarray, terms: np.ndarray,
           cluster_ids: list[str], cluster_size: np.ndarray) -> FlatRelease:
    """The :class:`FlatRelease` of chunks per cluster, sub-records per chunk, terms per sub-record and
    the sorted-vocabulary codes of every item occurrence."""
    first_chunk = np.zeros(counts_pc.size, dtype=np.int64)
    if counts_pc.size:
        np.cumsum(counts_pc[:-1], out=first_chunk[1:])
    chunk_cluster = np.repeat(np.arange(counts_pc.size, dtype=np.int64), counts_pc)
    chunk_index = np.arange(chunk_cluster.size, dtype=np.int64) - first_chunk[chunk_cluster]
    n_chunks = int(nsub.size)
    n_terms = max(int(terms.size), 1)
    sub_chunk = np.repeat(np.arange(n_chunks, dtype=np.int64), nsub)
    occ_sub = np.repeat(np.arange(slen.size, dtype=np.int64), slen)
    occ_chunk = sub_chunk[occ_sub]
    raw = occ_chunk * n_terms + codes
    ukeys, inverse, counts = np.unique(raw, return_inverse=True, return_counts=True)
    kchunk = ukeys // n_terms
    kitem = ukeys % n_terms
    # Order the distinct (chunk, item) pairs by chunk, then descending support, then item.
    order = np.lexsort((kitem, -counts, kchunk))
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.size)
    nterms_chunk = np.bincount(kchunk, minlength=n_chunks).astype(np.int64)
    off = np.zeros(n_chunks + 1, dtype=np.int64)
    np.cumsum(nterms_chunk, out=off[1:])
    return FlatRelease(
        terms=terms,
        cluster_ids=cluster_ids,
        cluster_size=cluster_size,
        cluster_first_chunk=first_chunk,
        chunk_cluster=chunk_cluster,
        chunk_index=chunk_index,
        chunk_nsub=nsub,
        chunk_nterms=nterms_chunk,
        chunk_off=off,
        sub_chunk=sub_chunk,
        sub_len=slen,
        occ_sub=occ_sub,
        occ_key=rank_of[np.asarray(inverse).reshape(-1)],
        key_chunk=kchunk[order],
        key_item=kitem[order],
        key_support=counts[order].astype(np.int64),
    )


@dataclass
class AwadCovers:
    """Awad2019 Definition 3 for every record chunk (see the module docstring for the readings).

    ``vulnerable[c]``: chunk c meets Definition 3 (Awad2019 5.1.1); ``vulnerable_linkable[c]``: it
    does and its cluster has another record chunk (Awad2019 section 3.3, Lemma 1); ``linkable[c]``:
    chunk c's cluster has two or more record chunks; ``covered_key``: the (chunk, item) keys of the
    covered items; ``full_support``: s(I_j, C_j) per chunk.
    """

    vulnerable: np.ndarray
    vulnerable_linkable: np.ndarray
    linkable: np.ndarray
    covered_key: np.ndarray
    full_support: np.ndarray


def awad_covers(flat: FlatRelease) -> AwadCovers:
    """Per chunk: s(I_j) is the number of sub-records listing all of I_j (they equal I_j)."""
    n = flat.n_chunks
    full = np.bincount(flat.sub_chunk[flat.sub_len == flat.chunk_nterms[flat.sub_chunk]], minlength=n)
    full = full.astype(np.int64)
    kc = flat.key_chunk
    covered = (flat.key_support == full[kc]) & (flat.chunk_nterms[kc] >= 2) & (full[kc] > 0)
    vulnerable = np.zeros(n, dtype=bool)
    vulnerable[kc[covered]] = True
    chunks_in_cluster = np.bincount(flat.chunk_cluster, minlength=len(flat.cluster_ids))
    linkable = chunks_in_cluster[flat.chunk_cluster] >= 2
    return AwadCovers(vulnerable=vulnerable, vulnerable_linkable=vulnerable & linkable, linkable=linkable,
                      covered_key=covered, full_support=full)


@dataclass
class BarakatRelations:
    """Every (x in chunk j, earlier chunk l) pair that Barakat2016 Definition 3 flags.

    Arrays are aligned, one entry per relation: ``x_key`` (the key of x in chunk j), ``l_chunk``,
    ``prefix`` (|I_l(x)|) and ``first_covered`` (rank in C_l of the first covered item; the
    covered items hold ranks first_covered..prefix-1, the covering ones 0..first_covered-1).
    ``queries`` counts all (x, l) pairs examined.
    """

    x_key: np.ndarray
    l_chunk: np.ndarray
    prefix: np.ndarray
    first_covered: np.ndarray
    queries: int

    def covered_pairs(self, flat: FlatRelease) -> tuple[np.ndarray, np.ndarray]:
        """(relation index, covered item id) for every covered item of every relation."""
        lengths = self.prefix - self.first_covered
        rel = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        within = np.arange(rel.size, dtype=np.int64) - starts
        pos = flat.chunk_off[self.l_chunk[rel]] + self.first_covered[rel] + within
        return rel, flat.key_item[pos]


def barakat_relations(flat: FlatRelease) -> BarakatRelations:
    """Evaluate Barakat2016 Definition 3 for every item and every earlier chunk of its cluster."""
    n_keys = flat.key_chunk.size
    empty = np.zeros(0, dtype=np.int64)
    if n_keys == 0:
        return BarakatRelations(empty, empty, empty, empty, 0)
    off = flat.chunk_off
    # Prefix-containment length of each sub-record: how many of ranks 0, 1, 2, ... it holds in a row.
    occ_rank = flat.occ_key - off[flat.sub_chunk[flat.occ_sub]]
    order = np.lexsort((occ_rank, flat.occ_sub))
    sub_start = np.zeros(flat.sub_len.size + 1, dtype=np.int64)
    np.cumsum(flat.sub_len, out=sub_start[1:])
    pos_in_sub = np.arange(order.size, dtype=np.int64) - sub_start[flat.occ_sub[order]]
    hit = occ_rank[order] == pos_in_sub
    mex = np.bincount(flat.occ_sub[order][hit], minlength=flat.sub_len.size)
    # cnt[off_l + p - 1] = number of sub-records of chunk l holding the whole prefix of length p.
    has = mex > 0
    hist = np.bincount(off[flat.sub_chunk[has]] + mex[has] - 1, minlength=n_keys)
    csum = np.cumsum(hist)
    seg_end = off[1:][flat.key_chunk] - 1
    cnt = csum[seg_end] - csum + hist
    rank = np.arange(n_keys, dtype=np.int64) - off[flat.key_chunk]
    cover_at = (rank >= 1) & (cnt == flat.key_support)
    # Queries: every key of a chunk j >= 1 against every earlier chunk of its cluster.
    kj = flat.chunk_index[flat.key_chunk]
    reps = kj
    q_key = np.repeat(np.arange(n_keys, dtype=np.int64), reps)
    q_start = np.repeat(np.cumsum(reps) - reps, reps)
    q_l = flat.cluster_first_chunk[flat.chunk_cluster[flat.key_chunk[q_key]]] + (
        np.arange(q_key.size, dtype=np.int64) - q_start)
    if q_key.size == 0:
        return BarakatRelations(empty, empty, empty, empty, 0)
    big = int(flat.key_support.max()) + 2
    sorted_key = flat.key_chunk * big + (big - 1 - flat.key_support)
    s_x = flat.key_support[q_key]
    right = np.searchsorted(sorted_key, q_l * big + (big - 1 - s_x), side="right")
    prefix = right - off[q_l]
    ok = prefix >= 2
    last = np.where(ok, right - 1, 0)
    flagged = ok & cover_at[last]
    q_key, q_l, prefix, last = q_key[flagged], q_l[flagged], prefix[flagged], last[flagged]
    min_support = flat.key_support[last]
    left = np.searchsorted(sorted_key, q_l * big + (big - 1 - min_support), side="left")
    return BarakatRelations(
        x_key=q_key,
        l_chunk=q_l,
        prefix=prefix,
        first_covered=left - off[q_l],
        queries=int(reps.sum()),
    )
