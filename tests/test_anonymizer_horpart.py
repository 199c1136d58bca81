"""HORPART (Terrovitis2012 section 4), the AlShuhail2021 3.3.1 strategies and the join step."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonymizer.disassociation.horpart as H
import anonymizer.disassociation.horpart_groups as HG
from anonymizer.disassociation.horpart import HORPART_STRATEGIES, HorizontalPartition, horpart, join_small_clusters
from anonymizer.disassociation.pipeline import validate_parameters
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.synthetic.toy import toy_dataset

STRATEGIES = list(HORPART_STRATEGIES)


def _clusters(hp):
    return [c.tolist() for c in hp.clusters]


def _joined(ds, k, max_size, strategy):
    return join_small_clusters(horpart(ds, k, max_size, strategy), ds, k, max_size)


def test_strategy_names():
    assert STRATEGIES == ["original", "abandon", "suppression", "adding", "remaining"]


def test_table31_abandon_abandons_the_split():
    """AlShuhail2021 Tables 3.1-3.2 (k=2): the split leaves one record alone, so all four stay together."""
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="abandon")
    assert _clusters(hp) == [[0, 1, 2, 3]]
    assert len(hp.suppressed) == 0 and hp.moved == 0


def test_table31_original_really_splits():
    """Terrovitis2012's HORPART splits where ``abandon`` gives up: on blood (ties: first id), 3 + 1.

    The lone record is a cluster of one; the join step then adds it to the cluster before it and
    cuts the 4 records (more than 3) into two balanced clusters of 2 (content order).
    """
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="original")
    assert _clusters(hp) == [[1, 2, 3], [0]]
    assert hp.joined == 0 and hp.moved == 0
    joined = join_small_clusters(hp, ds, 2, 3)
    assert _clusters(joined) == [[1, 2], [0, 3]]
    assert joined.joined == 1


def test_table31_suppression_deletes_the_lonely_record():
    """Algorithm 1: the part smaller than k is not published.

    Four terms tie at support 3; the tie goes to the alphabetically first (blood), so the lonely
    record is record 0 (the one without blood), where the thesis (splitting on lung) drops another.
    """
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="suppression")
    assert _clusters(hp) == [[1, 2, 3]]
    assert hp.suppressed.tolist() == [0]
    assert hp.moved == 0


@pytest.mark.parametrize("strategy", ["adding", "remaining"])
def test_table31_adding_and_remaining_keep_every_record(strategy):
    """The lonely record joins the last cluster; 4 > 3 records are then cut into two of 2."""
    ds = toy_dataset("alshuhail2021-table3.2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy=strategy)
    assert sorted(i for c in _clusters(hp) for i in c) == [0, 1, 2, 3]
    assert all(2 <= len(c) <= 3 for c in hp.clusters)
    assert hp.moved == 1


@pytest.mark.parametrize("strategy", ["original", "abandon"])
def test_figure2_split_tree_by_hand(strategy):
    """Figure 2a, k=2, max 5: madonna (8 records) splits first, then ikea (ties with ruby) inside."""
    ds = toy_dataset("terrovitis2012-fig2")
    hp = horpart(ds, k=2, max_cluster_size=5, strategy=strategy)
    assert _clusters(hp) == [[0, 2, 6, 9], [1, 4, 5, 7], [3, 8]]


def test_figure2_original_small_cluster_joins_its_predecessor():
    """Max 3: ruby splits {0,2,6,9} into {0,6,9} and {2}; record 2 joins {0,6,9} and the four are cut in two."""
    ds = toy_dataset("terrovitis2012-fig2")
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="original")
    assert _clusters(hp) == [[0, 6, 9], [2], [1, 4], [5, 7], [3, 8]]
    joined = join_small_clusters(hp, ds, 2, 3)
    assert _clusters(joined) == [[2, 9], [0, 6], [1, 4], [5, 7], [3, 8]]
    assert joined.joined == 1


def test_join_small_clusters_by_hand():
    """Small clusters join the one before them; leading small ones join the first large one."""
    ds = TransactionDataset.from_records([["a"]] * 12)
    parts = [[0], [1, 2, 3], [4], [5], [6, 7, 8], [9, 10], [11]]
    hp = HorizontalPartition([np.asarray(p, dtype=np.int64) for p in parts], moved=2)
    out = join_small_clusters(hp, ds, 3, 10)
    assert _clusters(out) == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]
    assert out.joined == 6 and out.moved == 2
    # no cluster reaches k: all of them form one cluster
    tiny = HorizontalPartition([np.asarray([0]), np.asarray([1])])
    assert _clusters(join_small_clusters(tiny, ds, 3, 10)) == [[0, 1]]
    # a joined cluster above the maximum is cut into balanced pieces of at least k
    out = join_small_clusters(hp, ds, 3, 5)
    assert [len(c) for c in out.clusters] == [3, 3, 3, 3]
    # clusters that receive nothing are kept even when larger than the maximum (abandon's)
    big = HorizontalPartition([np.arange(8), np.arange(8, 12)])
    assert _clusters(join_small_clusters(big, ds, 3, 5)) == [list(range(8)), [8, 9, 10, 11]]


def test_support1_records_every_strategy():
    """Every term in one record only: each split peels one record (issue 15); sizes stay in [k, max]."""
    n, k, max_size = 3000, 5, 30
    ds = TransactionDataset.from_records([[f"t{i}_{j}" for j in range(3)] for i in range(n)])
    for strategy in STRATEGIES:
        hp = _joined(ds, k, max_size, strategy)
        ids = sorted(i for c in hp.clusters for i in c.tolist()) + hp.suppressed.tolist()
        assert sorted(ids) == list(range(n))
        assert all(len(c) >= k for c in hp.clusters)
        if strategy == "abandon":
            assert _clusters(hp) == [list(range(n))] and hp.moved == hp.joined == 0
            continue
        assert all(len(c) <= max_size for c in hp.clusters)
        if strategy == "suppression":
            assert len(hp.suppressed) == n - max_size and hp.moved == 0
        elif strategy == "original":
            assert hp.joined == n - max_size and hp.moved == 0
        else:
            assert hp.moved == n - max_size and len(hp.suppressed) == 0


def test_bounded_strategies_refuse_max_below_2k_minus_1():
    for strategy in ["original", "suppression", "adding", "remaining"]:
        with pytest.raises(InputError, match="below 2k - 1 = 5"):
            validate_parameters(10, 3, 2, 4, strategy, "strict")
        validate_parameters(10, 3, 2, 5, strategy, "strict")
    validate_parameters(10, 3, 2, 3, "abandon", "strict")


def test_stop_rule_is_inclusive():
    """A group of exactly max_cluster_size records is a cluster (Terrovitis2012 would split it)."""
    ds = toy_dataset("terrovitis2012-fig2")
    assert _clusters(horpart(ds, k=2, max_cluster_size=10)) == [list(range(10))]
    assert len(horpart(ds, k=2, max_cluster_size=9).clusters) > 1


def test_no_term_left_cuts_balanced_pieces():
    ds = TransactionDataset.from_records([["a"]] * 10)
    hp = horpart(ds, k=2, max_cluster_size=3, strategy="abandon")
    assert [len(c) for c in hp.clusters] == [2, 3, 2, 3]
    assert sorted(i for c in _clusters(hp) for i in c) == list(range(10))


def test_empty_records_are_clustered_too():
    ds = TransactionDataset.from_records([["a"], [], ["a"], [], ["a", "b"], []])
    for strategy in STRATEGIES:
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
       strategy=st.sampled_from(STRATEGIES))
def test_partition_properties(records, k, extra, strategy):
    if len(records) < k:
        return
    max_size = 2 * k - 1 + extra
    ds = TransactionDataset.from_records(records)
    raw = horpart(ds, k, max_size, strategy)
    hp = join_small_clusters(raw, ds, k, max_size)
    for part in (raw, hp):
        ids = [i for c in part.clusters for i in c.tolist()]
        assert len(ids) == len(set(ids))
        assert sorted(ids + part.suppressed.tolist()) == list(range(len(records)))
    if strategy != "suppression":
        assert len(hp.suppressed) == 0
    if strategy not in ("adding", "remaining"):
        assert hp.moved == 0
    # only Terrovitis2012's HORPART leaves clusters smaller than k; the join step moves exactly those
    assert hp.joined == sum(len(c) for c in raw.clusters if len(c) < k) - (
        len(raw.clusters[0]) if raw.clusters and all(len(c) < k for c in raw.clusters) else 0)
    if strategy != "original":
        assert _clusters(hp) == _clusters(raw)
    for c in raw.clusters:
        if strategy != "abandon":
            assert len(c) <= max_size
    for c in hp.clusters:
        assert len(c) >= k
        assert list(c) == sorted(c)
        if strategy != "abandon":
            assert len(c) <= max_size


@settings(max_examples=30, deadline=None)
@given(records=datasets, k=st.integers(2, 3), max_size=st.integers(2, 8),
       strategy=st.sampled_from(STRATEGIES))
def test_terminates_and_keeps_k_for_any_max(records, k, max_size, strategy):
    """Even with max_cluster_size < 2k - 1 every run ends and, after the join step, no cluster is smaller than k."""
    if len(records) < k or max_size < k:
        return
    ds = TransactionDataset.from_records(records)
    hp = _joined(ds, k, max_size, strategy)
    assert all(len(c) >= k for c in hp.clusters)


@settings(max_examples=30, deadline=None)
@given(records=datasets, k=st.integers(2, 3), seed=st.integers(0, 1000),
       strategy=st.sampled_from(STRATEGIES))
def test_clusters_do_not_depend_on_record_order(records, k, seed, strategy):
    """Cluster contents (as bags of records) are the same whatever the order of the input."""
    if len(records) < k:
        return
    perm = np.random.default_rng(seed).permutation(len(records))
    ds1 = TransactionDataset.from_records(records)
    ds2 = TransactionDataset.from_records([records[i] for i in perm])
    a = _joined(ds1, k, 2 * k + 1, strategy)
    b = _joined(ds2, k, 2 * k + 1, strategy)

    def bags(hp, recs):
        return [sorted(tuple(sorted(recs[i])) for i in c.tolist()) for c in hp.clusters]

    assert bags(a, records) == bags(b, [records[i] for i in perm])


@settings(max_examples=30, deadline=None)
@given(records=datasets, k=st.integers(2, 3), strategy=st.sampled_from(STRATEGIES))
def test_fast_paths_agree_with_plain_paths(records, k, strategy):
    """Bit columns of frequent terms and dense counts give the same clusters as posting lists and sparse counts."""
    if len(records) < k:
        return
    ds = TransactionDataset.from_records(records)
    fast = horpart(ds, k, 2 * k, strategy)
    saved = HG.TOP_TERMS, HG.DENSE_LIMIT
    try:
        HG.TOP_TERMS, HG.DENSE_LIMIT = 0, 0
        plain = horpart(ds, k, 2 * k, strategy)
    finally:
        HG.TOP_TERMS, HG.DENSE_LIMIT = saved
    assert _clusters(fast) == _clusters(plain)
    assert fast.suppressed.tolist() == plain.suppressed.tolist()


dense_datasets = st.lists(st.frozensets(st.sampled_from("abcdefgh"), min_size=0, max_size=4), min_size=2,
                          max_size=80)


@settings(max_examples=60, deadline=None)
@given(records=st.one_of(datasets, dense_datasets), k=st.integers(2, 4), extra=st.integers(0, 6),
       strategy=st.sampled_from(STRATEGIES))
def test_peel_chains_equal_one_split_at_a_time(records, k, extra, strategy):
    """The one-pass peel chain gives the clusters, suppressed and moved records of single splits."""
    if len(records) < k:
        return
    ds = TransactionDataset.from_records(records)
    max_size = k + extra
    chained = horpart(ds, k, max_size, strategy)
    saved = H.PEEL_CHAINS
    try:
        H.PEEL_CHAINS = False
        single = horpart(ds, k, max_size, strategy)
    finally:
        H.PEEL_CHAINS = saved
    assert _clusters(chained) == _clusters(single)
    assert chained.suppressed.tolist() == single.suppressed.tolist()
    assert chained.moved == single.moved
