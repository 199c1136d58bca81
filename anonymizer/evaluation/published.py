"""What a disassociated release publishes for sure: its record- and shared-chunk sub-records.

Terrovitis2012 section 7.1 scores a release against these sub-records alone (tKd-a, re-a): they
are the lower bounds of the itemset supports that hold in every reconstruction. Awad2019 section
5.1.2 (RLM) counts an item's published support the same way. Term-chunk terms publish no support.
This module reads the release only; every metric module builds on it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from anonymizer.model.release import Release
from corpora.dataset import TransactionDataset

__all__ = ["published_subrecords", "subrecord_dataset", "published_supports", "PublishedTermCounts",
           "published_term_counts"]


def published_subrecords(release: Release) -> list[tuple[str, ...]]:
    """Every non-empty sub-record of the record chunks and shared chunks (the "-a" metrics' data)."""
    subs = [sub for c in release.clusters for chunk in c.record_chunks for sub in chunk if sub]
    subs += [sub for j in release.joint_clusters for chunk in j.shared_chunks for sub in chunk if sub]
    return subs


def _subrecord_arrays(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """Lengths and concatenated term ids (positions in ``release.arrays.terms``) of every sub-record of the record
    chunks, then of the shared chunks, in :func:`published_subrecords`' order (empty ones included)."""
    a = release.arrays
    lengths = np.concatenate((np.diff(a.term_off), np.diff(a.shared_term_off)))
    return lengths, np.concatenate((a.sub_terms, a.shared_terms)).astype(np.int64)


def subrecord_dataset(release: Release) -> TransactionDataset:
    """:func:`published_subrecords` as a dataset, one record per sub-record.

    Built from the release's arrays (:attr:`anonymizer.model.release.Release.arrays`): their vocabulary is
    sorted and each sub-record's ids strictly increase, so keeping the terms the sub-records use (in order)
    gives the dataset :meth:`TransactionDataset.from_term_lists` makes of the tuples, without a sort."""
    terms = release.arrays.terms
    lengths, ids = _subrecord_arrays(release)
    used = np.zeros(len(terms), dtype=bool)
    used[ids] = True
    new_id = np.cumsum(used) - 1
    lengths = lengths[lengths > 0]
    indptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    vocab = tuple(terms[i] for i in np.flatnonzero(used).tolist())
    return TransactionDataset(vocab, indptr, new_id[ids].astype(np.int32), name="published sub-records")


@dataclass(frozen=True)
class PublishedTermCounts:
    """Per term of a release (``terms``, its sorted vocabulary): ``in_subrecords``, its occurrences in the
    record- and shared-chunk sub-records, and ``term_chunks``, how many simple clusters' term chunks hold it."""

    terms: list[str]
    in_subrecords: np.ndarray
    term_chunks: np.ndarray


def published_term_counts(release: Release) -> PublishedTermCounts:
    """:class:`PublishedTermCounts` of a release, from its arrays."""
    from corpora.io.tokens import sorted_unique  # not at import: consistency (``verify``) imports this module

    a = release.arrays
    n = len(a.terms)
    _, ids = _subrecord_arrays(release)
    cluster = np.repeat(np.arange(a.n_clusters, dtype=np.int64), np.diff(a.term_chunk_off))
    pairs = sorted_unique(cluster * max(n, 1) + a.term_chunk_terms)  # a term counted once per cluster
    return PublishedTermCounts(list(a.terms), np.bincount(ids, minlength=n),
                               np.bincount(pairs % max(n, 1), minlength=n))


def published_supports(release: Release) -> Counter[str]:
    """s(x) as a release publishes it: occurrences in record chunks and shared chunks."""
    counts: Counter[str] = Counter()
    for cluster in release.clusters:
        for chunk in cluster.record_chunks:
            for sub in chunk:
                counts.update(sub)
    for joint in release.joint_clusters:
        for chunk in joint.shared_chunks:
            for sub in chunk:
                counts.update(sub)
    return counts
