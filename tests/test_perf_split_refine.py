"""REFINE across the parts of a split run (issue 25, anonymizer/disassociation/split_refine.py and
split_stream.py): pooled joint clusters span parts, every occurrence is still published exactly once,
Guarantee 1 holds by the exhaustive oracle, and the encoded (streamed) and object paths agree."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from reconstruction_oracle import TooLarge, guarantee1_violations, is_valid_reconstruction, truth_records

from anonymizer import disassociate
from anonymizer.disassociation.parts import RunFigures, split_parts
from anonymizer.disassociation.pipeline import run_parts
from anonymizer.disassociation.split_refine import plan_pool, summarize_part
from anonymizer.disassociation.split_stream import pool_results
from anonymizer.evaluation.verify import verify
from anonymizer.io.json_writer import encode_part, merge_parts
from anonymizer.model.params import DisassociationParams
from anonymizer.model.release import Release, Truth
from corpora.dataset import TransactionDataset
from corpora.synthetic.quest import generate_quest


@pytest.fixture(scope="module")
def quest() -> TransactionDataset:
    return generate_quest(3000, 200, 6.0, seed=5)


def _part_of(dataset: TransactionDataset, depth: int, k: int, size: int) -> np.ndarray:
    part = np.zeros(len(dataset), dtype=np.int64)
    for p in split_parts(dataset, depth, k, size):
        part[p.records] = p.index
    return part


def _leaf_records(release: Release, truth: Truth) -> dict[str, list[int]]:
    """Joint or simple cluster id -> the record ids of its leaves (from the truth)."""
    out = {t.id: list(t.records) for t in truth.clusters}
    for j in release.joint_clusters:
        out[j.id] = [r for ch in j.children for r in out[ch]]
    return out


def _spanning_joints(release: Release, truth: Truth, part: np.ndarray) -> list[str]:
    """The joint clusters whose leaves hold records of more than one part (pooled ones)."""
    under = _leaf_records(release, truth)
    return [j.id for j in release.joint_clusters if len({int(part[r]) for r in under[j.id]}) > 1]


def _tlost(dataset: TransactionDataset, release: Release, truth: Truth) -> float:
    figures = RunFigures()
    figures.add(release, truth)
    return float(figures.summary(dataset.supports(), release.k)["tlost"])


def test_pooling_spans_parts_and_wins_back_the_split_loss(quest: TransactionDataset) -> None:
    """Against the parts merged without the pooled pass (what split runs published before issue 25)."""
    gained = 0.0
    for depth in (2, 4):
        params = DisassociationParams(3, 2, 20, split_depth=depth)
        parts = split_parts(quest, depth, 3, 20)
        alone = merge_parts(((r.release, r.truth) for r in run_parts(quest, parts, params, 4, progress=False)),
                            params.to_json(), 4)
        release, truth = disassociate(quest, 3, 2, 20, seed=4, split_depth=depth)
        assert _spanning_joints(release, truth, _part_of(quest, depth, 3, 20))
        assert _tlost(quest, release, truth) <= _tlost(quest, *alone)
        gained += _tlost(quest, *alone) - _tlost(quest, release, truth)
        assert verify(release).ok
    assert gained > 0


@pytest.mark.parametrize("depth, safe", [(2, False), (3, True)])
def test_every_occurrence_is_published_exactly_once(quest: TransactionDataset, depth: int, safe: bool) -> None:
    """Independent of the engine: from the truth, every (record, term) of the input appears once in a
    record chunk, a term chunk or a shared chunk, each sub-record is a subset of its record, and every
    shared chunk is k^m-anonymous (brute force over its itemsets of at most m terms)."""
    k, m = 3, 2
    release, truth = disassociate(quest, k, m, 20, seed=8, split_depth=depth, safe=safe)
    seen: Counter = Counter()
    for c, t in zip(release.clusters, truth.clusters, strict=True):
        for chunk, owners in zip(c.record_chunks, t.record_chunks, strict=True):
            for sub, r in zip(chunk, owners, strict=True):
                if r >= 0:  # ghost records of safe disassociation are -1
                    assert set(sub) <= quest[r]
                    seen.update((r, term) for term in sub)
        assert sorted(t.term_chunk) == list(c.term_chunk)
        for term, owners in t.term_chunk.items():
            seen.update((r, term) for r in owners)
    for j, t in zip(release.joint_clusters, truth.joint_clusters, strict=True):
        for chunk, owners in zip(j.shared_chunks, t.shared_chunks, strict=True):
            for sub, r in zip(chunk, owners, strict=True):
                assert set(sub) <= quest[r]
                seen.update((r, term) for term in sub)
            itemsets: Counter = Counter()
            for sub in chunk:
                for size in range(1, m + 1):
                    itemsets.update(itertools.combinations(sorted(sub), size))
            assert all(n >= k for n in itemsets.values()), j.id
    _check_property1(release, k)
    expected = Counter((r, term) for r in range(len(quest)) for term in quest[r])
    if safe:  # safe disassociation suppresses occurrences; none may appear twice
        assert all(n == 1 for n in seen.values()) and set(seen) <= set(expected)
    else:
        assert seen == expected
    assert verify(release).ok


def _check_property1(release: Release, k: int) -> None:
    """Terrovitis2012 Property 1, brute force: a shared chunk holding a term of T^r (record-chunk terms
    of the joint's leaves, shared-chunk terms of the joints below it) lists every distinct
    sub-record at least k times."""
    rc_terms = {c.id: {t for chunk in c.record_chunks for sub in chunk for t in sub} for c in release.clusters}
    below: dict[str, set[str]] = {c.id: set() for c in release.clusters}  # shared-chunk terms under a node
    for j in release.joint_clusters:
        t_r = set().union(*(rc_terms[ch] | below[ch] for ch in j.children))
        for chunk in j.shared_chunks:
            if t_r & {t for sub in chunk for t in sub}:
                assert all(n >= k for n in Counter(tuple(sorted(sub)) for sub in chunk).values()), j.id
        rc_terms[j.id] = set().union(*(rc_terms[ch] for ch in j.children))
        below[j.id] = set().union(*(below[ch] for ch in j.children), (t for ch in j.shared_chunks for sub in ch
                                                                       for t in sub))


def test_streamed_parts_equal_the_object_parts(quest: TransactionDataset, tmp_path: Path) -> None:
    """Encoded parts patched in their JSON pieces (the command line and Dask) equal object parts
    patched as objects (the in-memory API), and one more part holds the pooled joints."""
    params = DisassociationParams(3, 2, 20, split_depth=3)
    parts = split_parts(quest, 3, 3, 20)
    supports = quest.supports()
    objects = list(pool_results(run_parts(quest, parts, params, 5, progress=False), params, 5, supports))
    encoded = list(pool_results(run_parts(quest, parts, params, 5, progress=False, encode=True), params, 5,
                                supports, tmp_path))
    assert len(objects) == len(encoded) == len(parts) + 1
    for o, e in zip(objects, encoded, strict=True):
        assert o.release is not None and e.encoded is not None
        assert encode_part(o.release, o.truth) == e.encoded
    assert objects[-1].release is not None and not objects[-1].release.clusters
    assert objects[-1].release.joint_clusters and encoded[-1].figures is not None
    assert encoded[-1].figures.term_chunk_occurrences < 0  # the occurrences the pooled joints moved


def test_plan_is_deterministic_and_removes_what_it_places(quest: TransactionDataset) -> None:
    params = DisassociationParams(3, 2, 20, split_depth=2)
    parts = split_parts(quest, 2, 3, 20)
    results = list(run_parts(quest, parts, params, 5, progress=False))
    summaries = [summarize_part(r.release, r.truth, 3, 2) for r in results]
    plan = plan_pool(summaries, quest.supports(), 3, 2, 5)
    again = plan_pool([summarize_part(r.release, r.truth, 3, 2) for r in results], quest.supports(), 3, 2, 5)
    assert plan == again and plan.joints
    placed = {term for j in plan.joints for chunk in j.shared_chunks for sub in chunk for term in sub}
    assert placed == set().union(*(terms for removed in plan.removed for terms in removed.values()))
    assert plan.moved == sum(len(sub) for j in plan.joints for chunk in j.shared_chunks for sub in chunk)
    for p, removed in enumerate(plan.removed):  # only terms the part's clusters held in their term chunks
        for position, terms in removed.items():
            assert terms <= set(results[p].release.clusters[position].term_chunk)


def test_tiny_pooled_releases_pass_the_exhaustive_oracle() -> None:
    """The brute-force oracle (tests/reconstruction_oracle.py, no engine code) on tiny split releases
    whose joint clusters span parts, with and without safe disassociation."""
    rng = random.Random(25)
    checked = 0
    for trial in range(400):
        records = [sorted(rng.sample("abcdef", rng.randint(1, 3))) for _ in range(rng.randint(8, 14))]
        ds = TransactionDataset.from_records(records)
        depth, safe = rng.randint(1, 3), trial % 3 == 0
        release, truth = disassociate(ds, 2, rng.randint(1, 2), 3, verpart="original", seed=trial,
                                      split_depth=depth, safe=safe)
        if not _spanning_joints(release, truth, _part_of(ds, depth, 2, 3)):
            continue
        rel, tru = json.loads(release.to_json()), json.loads(truth.to_json())
        try:
            feasible, bad = guarantee1_violations(rel)
        except TooLarge:
            continue
        assert feasible and bad == [], (records, bad)
        assert is_valid_reconstruction(rel, truth_records(rel, tru))
        checked += 1
        if checked >= 25:
            break
    assert checked >= 10
