"""What a disassociated release publishes for sure: its record- and shared-chunk sub-records.

Terrovitis2012 section 7.1 scores a release against these sub-records alone (tKd-a, re-a): they
are the lower bounds of the itemset supports that hold in every reconstruction. Awad2019 section
5.1.2 (RLM) counts an item's published support the same way. Term-chunk terms publish no support.
This module reads the release only; every metric module builds on it.
"""

from __future__ import annotations

from collections import Counter

from anonymizer.model.release import Release
from corpora.dataset import TransactionDataset

__all__ = ["published_subrecords", "subrecord_dataset", "published_supports"]


def published_subrecords(release: Release) -> list[tuple[str, ...]]:
    """Every non-empty sub-record of the record chunks and shared chunks (the "-a" metrics' data)."""
    subs = [sub for c in release.clusters for chunk in c.record_chunks for sub in chunk if sub]
    subs += [sub for j in release.joint_clusters for chunk in j.shared_chunks for sub in chunk if sub]
    return subs


def subrecord_dataset(release: Release) -> TransactionDataset:
    """:func:`published_subrecords` as a dataset, one record per sub-record."""
    return TransactionDataset.from_term_lists(published_subrecords(release), name="published sub-records")


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
