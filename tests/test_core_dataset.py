"""TransactionDataset: construction, access, statistics, sparse views."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

terms = st.sampled_from(["a", "b", "c", "audi a4", "flu", "ζ", "x y z"])
records = st.lists(st.lists(terms, max_size=6), max_size=20)


def test_duplicates_collapse_and_order_is_kept():
    ds = TransactionDataset.from_records([["b", "a", "a"], [], ["c", "a"]], name="toy")
    assert len(ds) == 3
    assert ds[0] == frozenset({"a", "b"})
    assert ds[1] == frozenset()
    assert ds[-1] == frozenset({"a", "c"})
    assert ds.vocabulary == ("a", "b", "c")
    assert ds.sorted_records() == [["a", "b"], [], ["a", "c"]]


def test_stats_use_type_token_density():
    ds = TransactionDataset.from_records([["a", "b"], ["a"], ["a", "c", "d"]])
    s = ds.stats()
    assert (s.records, s.distinct_terms, s.term_occurrences, s.max_length) == (3, 4, 6, 3)
    assert s.avg_length == pytest.approx(2.0)
    assert s.density == pytest.approx(4 / 6)


def test_empty_dataset_stats():
    s = TransactionDataset.from_records([]).stats()
    assert (s.records, s.distinct_terms, s.density, s.avg_length) == (0, 0, 0.0, 0.0)


@pytest.mark.parametrize("bad", [[["a", ""]], [["a", 3]], ["abc"]])
def test_bad_terms_are_rejected_with_one_line(bad):
    with pytest.raises(InputError) as err:
        TransactionDataset.from_records(bad)
    assert "\n" not in str(err.value)


def test_index_out_of_range():
    with pytest.raises(IndexError):
        TransactionDataset.from_records([["a"]])[1]


@settings(max_examples=60, deadline=None)
@given(records)
def test_csr_views_agree_with_records(recs):
    ds = TransactionDataset.from_records(recs)
    expected = [frozenset(r) for r in recs]
    assert ds.records == expected
    assert list(ds.vocabulary) == sorted({t for r in recs for t in r})
    dense = ds.matrix().toarray()
    for i, r in enumerate(expected):
        assert {ds.vocabulary[j] for j in np.flatnonzero(dense[i])} == r
        assert list(ds.term_ids(i)) == sorted(ds.term_index[t] for t in r)
    assert ds.supports() == {t: sum(t in r for r in expected) for t in ds.vocabulary}
    assert ds.lengths.tolist() == [len(r) for r in expected]


@settings(max_examples=40, deadline=None)
@given(records, st.data())
def test_subset_keeps_the_chosen_records_in_order(recs, data):
    ds = TransactionDataset.from_records(recs)
    ids = data.draw(st.lists(st.integers(0, max(len(recs) - 1, 0)), max_size=len(recs))) if recs else []
    sub = ds.subset(ids)
    assert sub.records == [ds[i] for i in ids]
    assert sub == TransactionDataset.from_records([sorted(ds[i]) for i in ids])
