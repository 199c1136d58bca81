"""HORPART (Terrovitis2012 section 4) with the AlShuhail2021 3.3.1 strategies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.horpart import horpart
from corpora.dataset import TransactionDataset
from corpora.errors import InputError
from corpora.toy import toy_dataset

STRATEGIES = ["original", "suppression", "adding", "remaining"]


def _clusters(hp):
    return [c.tolist() for c in hp.clusters]


def test_table31_original_abandons_the_split():
    """Tables 3.1-3.2 (k=2): the split leaves one record alone, so all four stay one cluster."""
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="original")
    assert _clusters(hp) == [[0, 1, 2, 3]]
    assert len(hp.suppressed) == 0


def test_table31_suppression_deletes_the_lonely_record():
    """Algorithm 1: the part smaller than k is not published.

    Four terms tie at support 3; the tie goes to the alphabetically first (blood), so the lonely
    record is record 0 (the one without blood), where the thesis (splitting on lung) drops another.
    """
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="suppression")
    assert _clusters(hp) == [[1, 2, 3]]
    assert hp.suppressed.tolist() == [0]


@pytest.mark.parametrize("strategy", ["adding", "remaining"])
def test_table31_adding_and_remaining_keep_every_record(strategy):
    """The lonely record joins the last cluster; 4 > 3 records are then cut into two of 2."""
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy=strategy)
    assert sorted(i for c in _clusters(hp) for i in c) == [0, 1, 2, 3]
    assert all(2 <= len(c) <= 3 for c in hp.clusters)


def test_figure2_split_tree_by_hand():
    """Figure 2a, k=2, max 5: madonna (8 records) splits first, then ikea (ties with ruby) inside."""
    ds = toy_dataset("terrovitis2012-fig2")
    hp = horpart(ds, k=2, max_cluster_size=5)
    assert _clusters(hp) == [[0, 2, 6, 9], [1, 4, 5, 7], [3, 8]]


def test_stop_rule_is_inclusive():
    """A group of exactly max_cluster_size records is a cluster (Terrovitis2012 would split it)."""
    ds = toy_dataset("terrovitis2012-fig2")
    assert _clusters(horpart(ds, k=2, max_cluster_size=10)) == [list(range(10))]
    assert len(horpart(ds, k=2, max_cluster_size=9).clusters) > 1


def test_no_term_left_cuts_balanced_pieces():
    ds = TransactionDataset.from_records([["a"]] * 10)
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="original")
    assert [len(c) for c in hp.clusters] == [2, 3, 2, 3]
    assert sorted(i for c in _clusters(hp) for i in c) == list(range(10))


def test_empty_records_are_clustered_too():
    ds = TransactionDataset.from_records([["a"], [], ["a"], [], ["a", "b"], []])
    for strategy in ("original", "suppression", "adding", "remaining"):
        hp = horpart(ds, k=2, max_cluster_size=3, strategy=strategy)
        covered = sorted(i for c in _clusters(hp) for i in c) + hp.suppressed.tolist()
        assert sorted(covered) == list(range(6))


def test_validation():
    ds = toy_dataset("terrovitis2012-fig2")
    with pytest.raises(InputError, match="horpart strategy"):
        horpart(ds, 2, 5, "greedy")
    with pytest.raises(InputError, match="k must be"):
        horpart(ds, 1, 5)
    with pytest.raises(InputError, match="max cluster size"):
        horpart(ds, 3, 2)
    with pytest.raises(InputError, match="fewer than k"):
        horpart(ds, 11, 20)


datasets = st.lists(st.frozensets(st.sampled_from("abcdefghijkl"), min_size=0, max_size=6), min_size=2, max_size=60)


@settings(max_examples=60, deadline=None)
@given(records=datasets, k=st.integers(2, 4), extra=st.integers(0, 10),
       strategy=st.sampled_from(["original", "suppression", "adding", "remaining"]))
def test_partition_properties(records, k, extra, strategy):
    if len(records) < k:
        return
    max_size = 2 * k - 1 + extra
    ds = TransactionDataset.from_records(records)
    hp = horpart(ds, k, max_size, strategy)
    ids = [i for c in hp.clusters for i in c.tolist()]
    assert len(ids) == len(set(ids))
    assert sorted(ids + hp.suppressed.tolist()) == list(range(len(records)))
    if strategy != "suppression":
        assert len(hp.suppressed) == 0
    for c in hp.clusters:
        assert len(c) >= k
        assert list(c) == sorted(c)
        if strategy != "original":
            assert len(c) <= max_size


@settings(max_examples=30, deadline=None)
@given(records=datasets, k=st.integers(2, 3), max_size=st.integers(2, 8),
       strategy=st.sampled_from(["original", "suppression", "adding", "remaining"]))
def test_terminates_and_keeps_k_for_any_max(records, k, max_size, strategy):
    """Even with max_cluster_size < 2k - 1 every run ends and no cluster is smaller than k."""
    if len(records) < k or max_size < k:
        return
    hp = horpart(TransactionDataset.from_records(records), k, max_size, strategy)
    assert all(len(c) >= k for c in hp.clusters)


@settings(max_examples=30, deadline=None)
@given(records=datasets, k=st.integers(2, 3), seed=st.integers(0, 1000),
       strategy=st.sampled_from(["original", "suppression", "adding", "remaining"]))
def test_clusters_do_not_depend_on_record_order(records, k, seed, strategy):
    """Cluster contents (as bags of records) are the same whatever the order of the input."""
    if len(records) < k:
        return
    perm = np.random.default_rng(seed).permutation(len(records))
    ds1 = TransactionDataset.from_records(records)
    ds2 = TransactionDataset.from_records([records[i] for i in perm])
    a = horpart(ds1, k, 2 * k + 1, strategy)
    b = horpart(ds2, k, 2 * k + 1, strategy)

    def bags(hp, recs):
        return [sorted(tuple(sorted(recs[i])) for i in c.tolist()) for c in hp.clusters]

    assert bags(a, records) == bags(b, [records[i] for i in perm])


@settings(max_examples=30, deadline=None)
@given(records=datasets, k=st.integers(2, 3), strategy=st.sampled_from(STRATEGIES))
def test_fast_paths_agree_with_plain_paths(records, k, strategy):
    """Bit columns of frequent terms and dense counts give the same clusters as posting lists and sparse counts."""
    import anonymizer.horpart as H

    if len(records) < k:
        return
    ds = TransactionDataset.from_records(records)
    fast = horpart(ds, k, 2 * k, strategy)
    saved = H.TOP_TERMS, H.DENSE_LIMIT
    try:
        H.TOP_TERMS, H.DENSE_LIMIT = 0, 0
        plain = horpart(ds, k, 2 * k, strategy)
    finally:
        H.TOP_TERMS, H.DENSE_LIMIT = saved
    assert _clusters(fast) == _clusters(plain)
    assert fast.suppressed.tolist() == plain.suppressed.tolist()
