import numpy as np
import pytest

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.synthetic.quest import generate_quest, item_names


def test_same_seed_same_dataset_other_seed_differs():
    a = generate_quest(3000, 200, 6, skew=1.2, seed=7)
    b = generate_quest(3000, 200, 6, skew=1.2, seed=7)
    c = generate_quest(3000, 200, 6, skew=1.2, seed=8)
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    assert a.vocabulary == b.vocabulary
    assert a != c


def test_csr_is_valid_and_matches_from_records():
    ds = generate_quest(2000, 150, 7, skew=2.5, seed=3)
    ref = TransactionDataset.from_records(ds.sorted_records())
    # the generator builds CSR directly: it must equal the canonical construction
    assert ds.vocabulary == item_names(150) and ds.vocabulary == tuple(sorted(ds.vocabulary))
    kept = [ds.vocabulary.index(t) for t in ref.vocabulary]
    assert np.array_equal(np.asarray(kept)[ref.indices], ds.indices)
    assert np.array_equal(ref.indptr, ds.indptr)
    for i in range(len(ds)):
        ids = ds.term_ids(i)
        assert len(ids) and np.all(np.diff(ids) > 0)


@pytest.mark.parametrize(("records", "domain", "avg", "skew"), [(20000, 1000, 10, 1.0), (20000, 500, 4, 0.0)])
def test_stats_close_to_parameters(records, domain, avg, skew):
    ds = generate_quest(records, domain, avg, skew=skew, seed=1)
    s = ds.stats()
    assert s.records == records
    assert abs(s.avg_length - avg) < 0.1  # Poisson mean (lengths >= 1 shift it by e^-avg at most)
    assert s.distinct_terms <= domain and s.distinct_terms > 0.9 * domain
    assert ds.lengths.var() == pytest.approx(avg, rel=0.15)  # Poisson: variance = mean


def test_skew_concentrates_popularity():
    flat = generate_quest(10000, 1000, 5, skew=0.0, seed=2, patterns=0).term_supports()
    steep = generate_quest(10000, 1000, 5, skew=1.5, seed=2, patterns=0).term_supports()
    top = lambda s: np.sort(s)[::-1][:10].sum() / s.sum()  # noqa: E731
    assert top(steep) > 3 * top(flat)


def test_patterns_create_frequent_itemsets():
    def best_pair_lift(ds):
        m = ds.matrix().astype(np.float64)
        co = (m.T @ m).toarray()
        sup = np.diag(co).copy()
        np.fill_diagonal(co, 0)
        co[co < 20] = 0  # only pairs with a real support
        expected = np.outer(sup, sup) / len(ds)
        return (co / np.maximum(expected, 1e-9)).max()

    with_patterns = generate_quest(5000, 300, 6, skew=0.5, seed=4, patterns=20)
    without = generate_quest(5000, 300, 6, skew=0.5, seed=4, patterns=0)
    assert best_pair_lift(with_patterns) > 3 * best_pair_lift(without)


def test_small_domain_caps_lengths():
    ds = generate_quest(500, 5, 4.5, skew=3.0, seed=0)
    assert ds.lengths.max() <= 5 and ds.lengths.min() >= 1


@pytest.mark.parametrize("kwargs", [
    {"records": 0}, {"domain": 0}, {"avg_length": 0}, {"avg_length": 50}, {"skew": -1},
    {"records": 2.5}, {"pattern_share": 1.5}, {"seed": -1},
])
def test_bad_parameters(kwargs):
    args = {"records": 10, "domain": 20, "avg_length": 3} | kwargs
    with pytest.raises(InputError):
        generate_quest(**args)
