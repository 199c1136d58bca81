"""disassociate(): the whole pipeline, the release/truth builder and its guarantees."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.disassociation.pipeline import disassociate, run_disassociation
from anonymizer.evaluation.verify import verify
from anonymizer.model.params import DisassociationParams
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.synthetic.toy import toy_dataset

STRATEGIES = ["original", "abandon", "suppression", "adding", "remaining"]
VARIANTS = ["original", "strict", "grouped"]


def rebuild_from_truth(release, truth):
    """Every record's terms, put back together from the release pieces the truth points at."""
    records: dict[int, list[str]] = defaultdict(list)
    for c, t in zip(release.clusters, truth.clusters, strict=True):
        for r in t.records:
            records.setdefault(r, [])
        for chunk, ids in zip(c.record_chunks, t.record_chunks, strict=True):
            assert len(chunk) == len(ids)
            for sub, r in zip(chunk, ids, strict=True):
                records[r].extend(sub)
        assert sorted(t.term_chunk) == c.term_chunk
        for term, ids in t.term_chunk.items():
            for r in ids:
                records[r].append(term)
    for j, jt in zip(release.joint_clusters, truth.joint_clusters, strict=True):
        for chunk, ids in zip(j.shared_chunks, jt.shared_chunks, strict=True):
            for sub, r in zip(chunk, ids, strict=True):
                records[r].extend(sub)
    return records


def test_params_and_ids():
    ds = toy_dataset("terrovitis2012-fig2")
    release, truth = disassociate(ds, 2, 2, 5, horpart="adding", verpart="grouped", refine=False, seed=7)
    assert release.params == {"k": 2, "m": 2, "max_cluster_size": 5, "horpart": "adding", "verpart": "grouped",
                              "refine": False, "safe": False}
    assert truth.seed == 7 and "seed" in truth.to_dict() and "seed" not in json.dumps(release.to_dict())
    assert [c.id for c in release.clusters] == ["P1", "P2", "P3"]
    assert [c.id for c in truth.clusters] == ["P1", "P2", "P3"]
    truth.check_against(release)


def test_figure2_with_refine_builds_joint_cluster():
    """Terrovitis2012 Figure 3: ikea and ruby, rare in each cluster, are shared by a joint cluster."""
    ds = toy_dataset("terrovitis2012-fig2")
    release, truth = disassociate(ds, 2, 2, 5, refine=True, seed=0)
    assert verify(release).ok
    assert release.joint_clusters, "REFINE should join clusters on this data"
    for j in release.joint_clusters:
        assert j.id.startswith("J") and j.children
    records = rebuild_from_truth(release, truth)
    assert {r: sorted(v) for r, v in records.items()} == {i: sorted(r) for i, r in enumerate(ds.sorted_records())}


def test_validation_errors():
    ds = toy_dataset("terrovitis2012-fig2")
    for kwargs, pattern in [
        (dict(k=1, m=2, max_cluster_size=5), "k must be"),
        (dict(k=2, m=0, max_cluster_size=5), "m must be"),
        (dict(k=3, m=2, max_cluster_size=2), "max cluster size"),
        (dict(k=3, m=2, max_cluster_size=4), "below 2k - 1"),
        (dict(k=11, m=2, max_cluster_size=21), "fewer than k"),
        (dict(k=2, m=2, max_cluster_size=5, horpart="clever"), "horpart"),
        (dict(k=2, m=2, max_cluster_size=5, verpart="loose"), "verpart"),
        (dict(k=2.5, m=2, max_cluster_size=5), "k must be"),
        (dict(k=2, m=2, max_cluster_size=5, seed="x"), "seed"),
    ]:
        with pytest.raises(InputError, match=pattern):
            disassociate(ds, **kwargs)


def test_empty_records_are_refused():
    ds = TransactionDataset.from_records([["a"], ["a"], [], ["a"]])
    with pytest.raises(InputError, match="record 2 is empty"):
        disassociate(ds, 2, 2, 3)


def test_suppression_publishes_fewer_records():
    ds = toy_dataset("alshuhail2021-table3.2")
    result = run_disassociation(ds, DisassociationParams(2, 2, 3, horpart="suppression", refine=False), seed=0)
    release, truth, timings = result.release, result.truth, result.timings
    assert release.n_records == 3
    assert (timings.records_suppressed, timings.records_moved) == (1, 0)
    assert sorted(r for t in truth.clusters for r in t.records) == [1, 2, 3]
    assert verify(release).ok


def test_original_joins_small_clusters_and_reports_them():
    """Terrovitis2012's HORPART leaves {0} alone (Table 3.1 data); the join step gives it company."""
    ds = toy_dataset("alshuhail2021-table3.2")
    result = run_disassociation(ds, DisassociationParams(2, 2, 3, horpart="original", refine=False), seed=0)
    release, truth, timings = result.release, result.truth, result.timings
    assert [t.records for t in truth.clusters] == [[1, 2], [0, 3]]
    assert (timings.records_suppressed, timings.records_moved) == (0, 1)
    assert verify(release).ok
    result = run_disassociation(ds, DisassociationParams(2, 2, 3, horpart="abandon", refine=False), seed=0)
    release, truth, timings = result.release, result.truth, result.timings
    assert [t.records for t in truth.clusters] == [[0, 1, 2, 3]]
    assert (timings.records_suppressed, timings.records_moved) == (0, 0)


def test_abandon_accepts_a_small_maximum():
    ds = toy_dataset("terrovitis2012-fig2")
    release, _ = disassociate(ds, 3, 2, 4, horpart="abandon", refine=False, seed=0)
    assert all(c.size >= 3 for c in release.clusters)


def test_seed_changes_order_only():
    ds = toy_dataset("terrovitis2012-fig2")
    a, ta = disassociate(ds, 2, 2, 10, refine=False, seed=1)
    b, tb = disassociate(ds, 2, 2, 10, refine=False, seed=2)
    assert json.dumps(a.to_dict()) != json.dumps(b.to_dict())
    for ca, cb in zip(a.clusters, b.clusters, strict=True):
        assert [sorted(ch) for ch in ca.record_chunks] == [sorted(ch) for ch in cb.record_chunks]


def test_listed_order_is_not_record_order():
    """With many identical-length sub-records, the published order is a shuffle (not by record id)."""
    records = [["a", "b"] if i % 2 else ["a"] for i in range(40)]
    ds = TransactionDataset.from_records(records)
    _, truth = disassociate(ds, 2, 2, 40, refine=False, seed=0)
    ids = truth.clusters[0].record_chunks[0]
    assert sorted(ids) == list(range(40)) and ids != sorted(ids)


records_st = st.lists(st.frozensets(st.sampled_from("abcdefghijk"), min_size=1, max_size=6), min_size=3, max_size=40)


@settings(max_examples=40, deadline=None)
@given(records=records_st, k=st.integers(2, 3), m=st.integers(1, 3), extra=st.integers(0, 8),
       horpart=st.sampled_from(STRATEGIES), verpart=st.sampled_from(VARIANTS),
       refine=st.booleans(), seed=st.integers(0, 2**32))
def test_release_properties(records, k, m, extra, horpart, verpart, refine, seed):
    if len(records) < k:
        return
    max_size = 2 * k - 1 + extra
    ds = TransactionDataset.from_records(records)
    release, truth = disassociate(ds, k, m, max_size, horpart=horpart, verpart=verpart, refine=refine, seed=seed)
    report = verify(release)
    assert report.ok, report.violations
    truth.check_against(release)
    # cluster sizes
    for c in release.clusters:
        assert c.size >= k
        if horpart != "abandon":  # every other strategy, original with the join step, is bounded
            assert c.size <= max_size
    # no term occurrence lost (suppression: the published records keep all theirs)
    rebuilt = rebuild_from_truth(release, truth)
    for r, terms in rebuilt.items():
        assert len(terms) == len(set(terms))
        assert set(terms) == set(records[r])
    if horpart != "suppression":
        assert sorted(rebuilt) == list(range(len(records)))
    # same seed, same bytes
    again, truth2 = disassociate(ds, k, m, max_size, horpart=horpart, verpart=verpart, refine=refine, seed=seed)
    assert json.dumps(again.to_dict()) == json.dumps(release.to_dict())
    assert json.dumps(truth2.to_dict()) == json.dumps(truth.to_dict())


@settings(max_examples=30, deadline=None)
@given(records=records_st, k=st.integers(2, 3), perm_seed=st.integers(0, 1000),
       horpart=st.sampled_from(STRATEGIES), verpart=st.sampled_from(VARIANTS), refine=st.booleans())
def test_release_does_not_depend_on_record_order(records, k, perm_seed, horpart, verpart, refine):
    """Listed sub-record order reveals nothing of record order: a permuted input gives the same bytes."""
    if len(records) < k:
        return
    perm = np.random.default_rng(perm_seed).permutation(len(records))
    ds1 = TransactionDataset.from_records(records)
    ds2 = TransactionDataset.from_records([records[i] for i in perm])
    a, _ = disassociate(ds1, k, 2, 2 * k + 2, horpart=horpart, verpart=verpart, refine=refine, seed=5)
    b, _ = disassociate(ds2, k, 2, 2 * k + 2, horpart=horpart, verpart=verpart, refine=refine, seed=5)
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())
