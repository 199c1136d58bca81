"""The third round of the single-process run (issue 25) against slow, independent references.

* REFINE's shared chunks (:func:`group_refining_terms`, which now tests and adds a term once per sub-record
  it touches) against a first fit that checks Property 1 on the whole projected chunk with the definitions
  of :mod:`anonymizer.model.conditions`, on inputs full of repeated sub-records and T^r terms;
* HORPART's content order (:func:`content_order`, one ``np.lexsort`` for many records) against the tuple sort;
* the printed figures (:meth:`RunFigures.add`, chained iterators) against the generator sums they replace.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_perf_anon import _random_dataset

from anonymizer.disassociation import horpart_groups
from anonymizer.disassociation.horpart_groups import content_order
from anonymizer.disassociation.parts import RunFigures
from anonymizer.disassociation.pipeline import disassociate
from anonymizer.disassociation.shared_chunks import group_refining_terms
from anonymizer.model.conditions import property1_holds
from anonymizer.model.lost import tlost_share


def _first_fit(postings: dict[int, list[int]], order: list[int], restricted: set[int], k: int,
               m: int) -> list[tuple[list[int], dict[int, tuple[int, ...]]]]:
    """Each term goes to the first chunk whose whole projection stays valid under Property 1."""
    chunks: list[list[int]] = []

    def valid(terms: list[int]) -> bool:
        records = sorted({r for t in terms for r in postings[t]})
        projected = [[str(t) for t in terms if r in postings[t]] for r in records]
        return property1_holds(projected, {str(t) for t in restricted}, k, m)

    for t in order:
        for chunk in chunks:
            if valid([*chunk, t]):
                chunk.append(t)
                break
        else:
            chunks.append([t])
    return [(chunk, {r: tuple(t for t in chunk if r in postings[t])
                     for r in sorted({r for t in chunk for r in postings[t]})}) for chunk in chunks]


def _postings(rng: np.random.Generator, k: int) -> dict[int, list[int]]:
    """Terms over a few record *shapes* (records copied several times), so that sub-records repeat and
    the k-anonymity test meets classes of every size around k."""
    n_shapes, n_terms = int(rng.integers(2, 9)), int(rng.integers(2, 12))
    copies = rng.integers(1, 2 * k + 1, size=n_shapes)
    shape_of = np.repeat(np.arange(n_shapes), copies)
    rng.shuffle(shape_of)
    postings = {}
    for t in range(n_terms):
        shapes = set(rng.choice(n_shapes, size=int(rng.integers(1, n_shapes + 1)), replace=False).tolist())
        holders = [r for r, s in enumerate(shape_of.tolist()) if s in shapes and rng.random() < 0.9]
        if len(holders) < k:
            holders = sorted(set(holders) | set(rng.choice(len(shape_of), size=k, replace=False).tolist()))
        postings[100 + t] = holders if len(holders) >= k else list(range(len(shape_of)))
    return postings


@pytest.mark.parametrize("case", range(150))
def test_shared_chunks_match_property1_first_fit(case: int) -> None:
    rng = np.random.default_rng(1000 + case)
    k, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    postings = _postings(rng, k)
    order = sorted(postings, key=lambda t: (-len(postings[t]), t))
    share = (0.0, 0.3, 0.7, 1.0)[case % 4]
    restricted = {t for t in order if rng.random() < share}
    got = group_refining_terms(postings, order, restricted, k, m)
    assert got == _first_fit(postings, order, restricted, k, m)
    for _, sub in got:  # equal sub-records are one tuple (shared by their records)
        assert len({id(s) for s in sub.values()}) == len(set(sub.values()))


def _csr(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Records over few terms, with repeats and proper prefixes of each other."""
    rows = []
    for _ in range(n):
        row = sorted(set(rng.integers(0, 12, size=int(rng.integers(0, 6))).tolist()))
        if rows and rng.random() < 0.3:  # a copy or a prefix of an earlier record
            earlier = rows[int(rng.integers(0, len(rows)))]
            row = earlier[: int(rng.integers(0, len(earlier) + 1))]
        rows.append(row if rng.random() < 0.8 else row[::-1])  # stored order need not be sorted
    indptr = np.concatenate(([0], np.cumsum([len(r) for r in rows]))).astype(np.int64)
    return indptr, np.asarray([t for r in rows for t in r], dtype=np.int32)


@pytest.mark.parametrize("case", range(40))
def test_content_order_matches_tuple_sort(case: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(case)
    indptr, indices = _csr(rng, int(rng.integers(1, 300)))
    n = len(indptr) - 1
    records = np.sort(rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False)).astype(np.int64)
    expected = sorted(records.tolist(), key=lambda r: (tuple(indices[indptr[r]:indptr[r + 1]].tolist()), r))
    for least in (0, 10**9):  # the table always, never
        monkeypatch.setattr(horpart_groups, "_LEXSORT_MIN", least)
        got = content_order(indptr, indices, records)
        assert got.dtype == np.int64 and got.tolist() == expected


def _figures_reference(release, truth) -> tuple:  # noqa: ANN001 - the generator sums of the second round
    return (
        sum(len(c.record_chunks) for c in release.clusters),
        sum(len(j.shared_chunks) for j in release.joint_clusters),
        sum(len(v) for c in truth.clusters for v in c.term_chunk.values()),
        {t for c in release.clusters for chunk in c.record_chunks for sub in chunk for t in sub}
        | {t for j in release.joint_clusters for chunk in j.shared_chunks for sub in chunk for t in sub},
        {t for c in release.clusters for t in c.term_chunk},
    )


@pytest.mark.parametrize("seed", range(4))
def test_run_figures_match_generator_sums(seed: int) -> None:
    ds = _random_dataset(seed, n=300, domain=60)
    release, truth = disassociate(ds, k=2 + seed % 2, m=2, max_cluster_size=8, seed=seed, safe=seed % 2 == 1)
    assert release.joint_clusters, "the case should have shared chunks"
    figures = RunFigures()
    figures.add(release, truth)
    chunks, shared, occurrences, kept, in_term_chunks = _figures_reference(release, truth)
    assert (figures.record_chunks, figures.shared_chunks, figures.term_chunk_occurrences) == (chunks, shared,
                                                                                                occurrences)
    assert (figures.kept, figures.in_term_chunks) == (kept, in_term_chunks)
    assert figures.clusters == len(release.clusters) and figures.published_records == release.n_records
    supports = ds.supports()
    assert figures.summary(supports, release.k)["tlost"] == tlost_share(supports, release.k, kept, in_term_chunks)
