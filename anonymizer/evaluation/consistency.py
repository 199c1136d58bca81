"""Do a release, its truth file and an original dataset belong together? One definition, every reader calls it.

A data owner who scores or audits a release gives the original dataset again (``--original``,
``utility INPUT RELEASE``) and often the truth file. Reading the original with other options
than the anonymizer did (a header kept as a record, swapped columns, another file) silently
changes every figure computed from it: an attacker "breaches 0 of 4,627 records" of data that is
not the release's. So every command and API function that takes an original or a truth beside a
release checks them against it here first, and a mismatch is bad input
(:class:`corpora.common.errors.InputError`: one line, exit 2).

What the release allows us to check without reading anything secret:

* **Record count.** A release lists ``n`` records (the sum of its cluster sizes). Disassociation
  publishes every record once, so ``n`` equals the original's count, except that
  - safe disassociation (``params.safe``; Awad2019 section 4.1, rule 4) adds ghost records, two
    per partial suppression and never beyond the cluster's maximum size; every cluster keeps the at
    least k real records HORPART gave it, so a cluster of size s holds at most ``s - k`` ghosts;
  - AlShuhail2021's ``suppression`` strategy (Algorithm 1, ``params.horpart``) deletes the records
    of parts smaller than k, so the release may list fewer records than the original.
  The count must lie in the range these two allow (:func:`record_count_range`).
* **Vocabulary.** Every published term comes from the original records, so the release's terms
  are a subset of the original's vocabulary. When nothing was deleted (not safe, no
  ``suppression`` strategy) the two vocabularies are equal: disassociation moves every term it
  cannot publish in a record chunk to the term chunk, it never drops one (Terrovitis2012 section 4).

A safe release scored with RLM (Awad2019 section 5.1.2) comes with the release it was made from
(``utility --before``): :func:`check_before` checks that the pair belongs together.

With the truth file the check is exact: the truth must describe the release piece for piece
(:meth:`anonymizer.model.release.Truth.check_against`), its real record ids (ghosts are -1) must be
distinct positions of the original dataset, as many as the original has records when nothing was
deleted, and the record the truth rebuilds for each id must be a subset of that original record.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from anonymizer.evaluation.published import published_supports
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["check_original", "check_before", "check_truth", "records_from_truth", "record_count_range", "ghost_bound",
           "deletes_records", "deletes_terms"]

_SHOWN = 3


def deletes_records(release: Release) -> bool:
    """Whether the method that made ``release`` may leave original records out (``--horpart suppression``)."""
    return release.params.get("horpart") == "suppression"


def deletes_terms(release: Release) -> bool:
    """Whether some original terms may be absent from ``release`` (safe disassociation or suppression)."""
    return bool(release.params.get("safe")) or deletes_records(release)


def ghost_bound(release: Release) -> int:
    """Most ghost records a release can hold: 0 unless safe, else ``sum(max(0, size - k))`` over its clusters."""
    if not release.params.get("safe"):
        return 0
    k = release.k
    return sum(max(0, c.size - k) for c in release.clusters)


def record_count_range(release: Release) -> tuple[int, int | None]:
    """(fewest, most) records the original dataset of ``release`` can hold; ``None``: no upper bound.

    Without suppression of records the original holds the release's records less its ghost
    records: between ``n - ghost_bound`` and ``n``. With AlShuhail2021's ``suppression`` strategy
    any number of further records may have been deleted.
    """
    n = release.n_records
    low = n - ghost_bound(release)
    return low, (None if deletes_records(release) else n)


def _examples(terms: Iterable[str]) -> str:
    shown = sorted(terms)[:_SHOWN]
    return ", ".join(repr(t if len(t) <= 40 else t[:37] + "...") for t in shown)


def check_original(release: Release, original: TransactionDataset, *, label: str = "the original dataset") -> None:
    """Raise :class:`InputError` unless ``original`` can be the dataset ``release`` was made from (module doc).

    ``label`` names the original in the message (``--original``, ``INPUT``).
    """
    n = len(original)
    low, high = record_count_range(release)
    if n < low or (high is not None and n > high):
        if low == high:
            want = f"{low}"
        elif high is None:
            want = f"at least {low}"
        else:
            want = f"between {low} and {high} (the release's {release.n_records} less its ghost records)"
        raise InputError(f"{label} does not match the release: it has {n} records, the release needs {want}; "
                         "read it with the options the release was made with (--format, --user-column, "
                         "--item-column, --header)")
    published = set(release.terms())
    # the terms the records hold: a vocabulary may list a term no record has (a generator's domain)
    vocabulary = {original.vocabulary[i] for i in np.flatnonzero(original.term_supports())}
    foreign = published - vocabulary
    if foreign:
        raise InputError(f"{label} does not match the release: {len(foreign)} of the {len(published)} published "
                         f"terms are not in it (e.g. {_examples(foreign)}); read it with the options the release "
                         "was made with")
    if not deletes_terms(release):
        missing = vocabulary - published
        if missing:
            raise InputError(f"{label} does not match the release: {len(missing)} of its {len(vocabulary)} terms "
                             f"are not in the release (e.g. {_examples(missing)}), which keeps every term; read it "
                             "with the options the release was made with")


def check_before(before: Release, release: Release, *, label: str = "--before") -> None:
    """Raise :class:`InputError` unless ``release`` is a safe release made from ``before`` (Awad2019 section 4).

    Safe disassociation (:mod:`anonymizer.disassociation.safe`) keeps the parameters (``safe`` turns True), the
    clusters and joint clusters (ids, order, children) and every term chunk; a cluster grows by
    its ghost records only; the record chunks only lose items; so no item is published more often
    than in ``before``. ``label`` names ``before`` in the message.
    """
    if not release.params.get("safe"):
        raise InputError(f"{label}: the release scored is not a safe release (made without --safe); {label} gives "
                         "the release a safe one was made from")
    if before.params.get("safe"):
        raise InputError(f"{label} is a safe release; give the release made without --safe (same dataset, options "
                         "and --seed)")
    keys = sorted((set(before.params) | set(release.params)) - {"safe"})
    for key in keys:
        if before.params.get(key) != release.params.get(key):
            raise InputError(f"{label} does not match the release: params.{key} is {before.params.get(key)!r} there, "
                             f"{release.params.get(key)!r} in the safe release")
    if [c.id for c in before.clusters] != [c.id for c in release.clusters]:
        raise InputError(f"{label} does not match the release: its clusters are not the safe release's "
                         f"({len(before.clusters)} against {len(release.clusters)}, or other ids)")
    if ([(j.id, list(j.children)) for j in before.joint_clusters]
            != [(j.id, list(j.children)) for j in release.joint_clusters]):
        raise InputError(f"{label} does not match the release: its joint clusters are not the safe release's")
    for old, new in zip(before.clusters, release.clusters, strict=True):
        if new.size < old.size:
            raise InputError(f"{label} does not match the release: cluster {old.id} has {old.size} records there, "
                             f"{new.size} in the safe release (safe disassociation only adds ghost records)")
        gone = set(old.term_chunk) - set(new.term_chunk)
        if gone:
            raise InputError(f"{label} does not match the release: cluster {old.id}'s term chunk holds "
                             f"{_examples(gone)} there, not in the safe release (safe disassociation keeps term "
                             "chunks)")
        old_terms = {t for chunk in old.record_chunks for sub in chunk for t in sub}
        extra = {t for chunk in new.record_chunks for sub in chunk for t in sub} - old_terms
        if extra:
            raise InputError(f"{label} does not match the release: cluster {old.id}'s record chunks in the safe "
                             f"release hold {_examples(extra)}, which {label}'s do not")
    was, now = published_supports(before), published_supports(release)
    grown = sorted(t for t in now if now[t] > was.get(t, 0))
    if grown:
        raise InputError(f"{label} does not match the release: the safe release publishes {_examples(grown)} more "
                         f"often than {label} (safe disassociation never adds an occurrence)")


def check_truth(release: Release, truth: Truth, original: TransactionDataset | None = None, *,
                label: str = "the original dataset",
                rebuilt: dict[str, list[set[str]]] | None = None, records: bool = True) -> None:
    """Raise :class:`InputError` unless ``truth`` describes ``release`` (and ``original``, when given).

    The truth must list the release's clusters and chunks piece for piece, and its real record ids
    (-1 marks a ghost) must be distinct and non-negative. With ``original``: every id is one of its
    positions, the ids cover all of them unless records were deleted (``suppression``), and the
    record the truth rebuilds for each id is a subset of the original record (equal unless safe
    disassociation suppressed some of its items). ``records=False`` skips that last, record by
    record, test (a caller that does not use the records); ``rebuilt`` is :func:`records_from_truth`
    of the pair when the caller already has it. The subset test is one sorted-key lookup over all
    (record, term) pairs (numpy), not a set operation per record.
    """
    truth.check_against(release)
    ids = [r for ct in truth.clusters for r in ct.records if r != -1]
    if any(r < 0 for r in ids):
        raise InputError("the truth file names a negative record id other than -1 (a ghost record)")
    if len(set(ids)) != len(ids):
        raise InputError("the truth file names a record in two places")
    if original is None:
        return
    n = len(original)
    if ids and max(ids) >= n:
        raise InputError(f"the truth file does not match {label}: it names record {max(ids)}, {label} has {n} "
                         "records")
    if not deletes_records(release) and len(ids) != n:
        raise InputError(f"the truth file does not match {label}: it names {len(ids)} real records, {label} has {n}")
    if not records:
        return
    if rebuilt is None:
        rebuilt = records_from_truth(release, truth)
    width = max(len(original.vocabulary), 1)
    owners: list[int] = []
    sizes: list[int] = []
    terms: list[str] = []
    for cluster, ct in zip(release.clusters, truth.clusters, strict=True):
        real = [r for r in ct.records if r != -1]
        for r, record in zip(real, rebuilt[cluster.id], strict=True):
            owners.append(r)
            sizes.append(len(record))
            terms.extend(record)
    index = original.term_index
    ids = np.fromiter((index.get(t, -1) for t in terms), dtype=np.int64, count=len(terms))
    record_of = np.repeat(np.asarray(owners, dtype=np.int64), np.asarray(sizes, dtype=np.int64))
    wanted = np.where(ids >= 0, record_of * width + ids, -1)  # an unknown term gives -1: never held
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(np.asarray(original.indptr)))
    held = rows * width + np.asarray(original.indices, dtype=np.int64)  # sorted: CSR rows ascending, ids sorted
    at = np.searchsorted(held, wanted)
    found = (at < len(held)) & (held[np.minimum(at, len(held) - 1)] == wanted) if len(held) else \
        np.zeros(len(wanted), dtype=bool)
    if not found.all():
        bad = int(np.flatnonzero(~found)[0])
        r = int(wanted[bad] // width) if wanted[bad] >= 0 else None
        where = f"record {r}" if r is not None else "a record"
        raise InputError(f"the truth file does not match {label}: it gives {where} a term {label}'s record "
                         "does not hold; read it with the options the release was made with")


def records_from_truth(release: Release, truth: Truth) -> dict[str, list[set[str]]]:
    """Rebuild each cluster's original records from the truth file (ghost sub-records ignored).

    Returns cluster id -> list of records (item sets), in the order of ``ClusterTruth.records``
    (ghost record ids -1 are skipped). Terms of shared chunks go to the record the truth names.
    """
    truth.check_against(release)
    by_record: dict[int, set[str]] = {}
    owner: dict[int, str] = {}
    order: dict[str, list[int]] = {}
    for cluster, ct in zip(release.clusters, truth.clusters, strict=True):
        ids = [r for r in ct.records if r >= 0]
        order[cluster.id] = ids
        for r in ids:
            by_record[r] = set()
            owner[r] = cluster.id
        for chunk, ids_j in zip(cluster.record_chunks, ct.record_chunks, strict=True):
            for sub, r in zip(chunk, ids_j, strict=True):
                if r >= 0:
                    by_record[r].update(sub)
        for term, rs in ct.term_chunk.items():
            for r in rs:
                if r in by_record:
                    by_record[r].add(term)
    joint_truth = {j.id: j for j in truth.joint_clusters}
    for joint in release.joint_clusters:
        jt = joint_truth.get(joint.id)
        if jt is None:
            continue
        for chunk, ids_j in zip(joint.shared_chunks, jt.shared_chunks, strict=False):
            for sub, r in zip(chunk, ids_j, strict=False):
                if r in by_record:
                    by_record[r].update(sub)
    return {cid: [by_record[r] for r in ids] for cid, ids in order.items()}
