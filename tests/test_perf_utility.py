"""The fast paths of the utility report (issue 25) against slow, independent references on random data.

* :func:`top_k_search`: every counting path (row bitsets or tid-list gathers for an itemset's extensions,
  bitset / enumerated / sparse-product / no pair supports) returns the brute-force answer, in its order;
* :func:`itemset_supports` by bitsets and by tid-lists; :func:`project_dataset`; the leaf level of
  tKd-ML^2 reused from the plain search; tlost's two readings; ``TransactionDataset.from_term_lists``.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from anonymizer.baselines.hierarchy import balanced_hierarchy
from anonymizer.evaluation import topk
from anonymizer.evaluation.loss import tlost, tlost_readings
from anonymizer.evaluation.multilevel import multilevel_top_k, project_dataset, sorted_unique, tkd_ml2
from anonymizer.evaluation.topk import itemset_supports, top_k_search
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset


def _random_dataset(rng: np.random.Generator, rows: int, items: int, dense: bool) -> TransactionDataset:
    """Records over ``items`` terms; skewed supports, ``dense`` ones hold about half of the items."""
    weights = 1.0 / np.arange(1, items + 1) ** (0.3 if dense else 1.2)
    weights /= weights.sum()
    records = []
    for _ in range(rows):
        size = int(rng.integers(1, min(items, 7 if dense else 5) + 1))
        picks = rng.choice(items, size=size, replace=False, p=weights)
        records.append([f"t{int(i):02d}" for i in picks])
    return TransactionDataset.from_records(records)


def _reference(ds: TransactionDataset, top_k: int, max_size: int | None,
               cap: int) -> tuple[list[tuple[frozenset, int]], int, bool]:
    """The top-K answer by listing every itemset of every record (module docstring of topk)."""
    counts: Counter = Counter()
    for i in range(len(ds)):
        row = ds.term_ids(i).tolist()
        for size in range(1, len(row) + 1):
            counts.update(itertools.combinations(row, size))
    if not counts:
        return [], 0, False
    supports = ds.term_supports()
    rank = {int(t): r for r, t in enumerate(sorted(np.flatnonzero(supports).tolist(),
                                                     key=lambda t: (-int(supports[t]), t)))}
    found = [(ids, n) for ids, n in counts.items() if max_size is None or len(ids) <= max_size]
    found.sort(key=lambda e: (-e[1], len(e[0]), tuple(sorted(rank[t] for t in e[0]))))
    kth = found[top_k - 1][1] if len(found) >= top_k else 1
    chosen = [e for e in found if e[1] >= kth]
    truncated = len(chosen) > cap
    voc = ds.vocabulary
    return [(frozenset(voc[t] for t in ids), n) for ids, n in chosen[:cap]], kth, truncated


PATHS = {
    "default": {},
    "no bitsets": {"_BITS_LIMIT": 0},
    "bitsets always": {"_GATHER_COST": 10 ** 9},
    "sparse pairs": {"_PAIRS_LIMIT": 0},
    "enumerated pairs": {"_GATHER_COST": 0},
    "no pairs": {"_GRAM_LIMIT": 0},
    "small pair blocks": {"_PAIR_BLOCK": 7, "_GATHER_COST": 0},
}


def use_path(monkeypatch: pytest.MonkeyPatch, limits: dict) -> None:
    """Set the top-K search's limits that force one counting path (a value of :data:`PATHS`)."""
    for name, value in limits.items():
        monkeypatch.setattr(topk, name, value)


@pytest.mark.parametrize("path", list(PATHS))
def test_top_k_search_matches_brute_force_on_every_path(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    use_path(monkeypatch, PATHS[path])
    rng = np.random.default_rng(25)
    for trial in range(6):
        ds = _random_dataset(rng, int(rng.integers(1, 160)), int(rng.integers(2, 16)), dense=trial % 2 == 0)
        for top_k, max_size, cap in ((1, None, None), (5, None, None), (30, None, None), (30, 2, None),
                                     (40, None, 40), (400, None, None)):
            got = top_k_search(ds, top_k, max_size=max_size, max_itemsets=cap)
            want, kth, truncated = _reference(ds, top_k, max_size, cap or 10 * top_k)
            assert list(got.itemsets.items()) == want, (path, trial, top_k)
            assert (got.kth_support, got.truncated) == (kth, truncated)


@pytest.mark.parametrize("limit", [None, 0])
def test_itemset_supports_bitsets_and_tid_lists(limit: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if limit is not None:
        monkeypatch.setattr(topk, "_BITS_LIMIT", limit)
    rng = np.random.default_rng(7)
    for trial in range(6):
        ds = _random_dataset(rng, int(rng.integers(1, 300)), 12, dense=trial % 2 == 0)
        records = [set(r) for r in ds]
        asked = [frozenset(f"t{int(i):02d}" for i in rng.choice(14, size=int(rng.integers(0, 4)), replace=False))
                 for _ in range(60)]
        got = itemset_supports(ds, asked)
        assert list(got) == list(dict.fromkeys(asked))
        for s in asked:
            assert got[s] == (sum(1 for r in records if s <= r) if s else 0)


def test_project_dataset_matches_a_per_record_projection() -> None:
    rng = np.random.default_rng(3)
    ds = _random_dataset(rng, 200, 40, dense=True)
    h = balanced_hierarchy([f"t{i:02d}" for i in range(45)], 3)
    for level in range(1, h.height + 1):
        leaf_map = h.level_map(level)
        proj = project_dataset(ds, h, leaf_map)
        node = {t: h.labels[int(leaf_map[p])] for t, p in zip(ds.vocabulary, h.leaf_positions(list(ds.vocabulary)),
                                                              strict=True)}
        want = TransactionDataset.from_records([{node[t] for t in r} for r in ds])
        assert proj.vocabulary == want.vocabulary
        assert np.array_equal(proj.indptr, want.indptr) and np.array_equal(proj.indices, want.indices)
        assert proj.indices.dtype == np.int32


def test_sorted_unique_is_np_unique() -> None:
    rng = np.random.default_rng(1)
    for size in (0, 1, 50, 5000):
        values = rng.integers(-40, 10 ** 12, size=size)
        assert np.array_equal(sorted_unique(values), np.unique(values))


def test_leaf_level_reuse_changes_nothing() -> None:
    rng = np.random.default_rng(11)
    original = _random_dataset(rng, 250, 30, dense=False)
    published = original.subset(rng.permutation(len(original))[:200])
    h = balanced_hierarchy([f"t{i:02d}" for i in range(30)], 3)
    for top_k in (5, 60):
        plain = top_k_search(original, top_k)
        fi = multilevel_top_k(original, h, top_k)
        reused = multilevel_top_k(original, h, top_k, leaf_top=plain)
        assert reused.itemsets == fi.itemsets and list(reused.itemsets) == list(fi.itemsets)
        assert (reused.kth_support, reused.truncated) == (fi.kth_support, fi.truncated)
        top = top_k_search(published, top_k, max_itemsets=top_k)
        assert tkd_ml2(original, published, h, top_k, fi=fi, published_top=top) == tkd_ml2(original, published, h,
                                                                                           top_k, fi=fi)


def test_tlost_readings_are_the_two_tlosts(small_release_and_original) -> None:
    release, original = small_release_and_original
    for data in (original, None):
        assert tlost_readings(release, data) == (tlost(release, data), tlost(release, data, at_least_k=True))


@pytest.fixture
def small_release_and_original():
    from anonymizer import disassociate

    rng = np.random.default_rng(5)
    original = _random_dataset(rng, 120, 25, dense=False)
    release, _truth = disassociate(original, k=3, m=2, max_cluster_size=10, seed=0)
    return release, original


def test_from_term_lists_equals_from_records() -> None:
    rng = np.random.default_rng(2)
    for _ in range(20):
        records = [[f"w{int(i)}" for i in rng.integers(0, 30, size=int(rng.integers(0, 6)))]
                   for _ in range(int(rng.integers(0, 40)))]
        records = [tuple(r) if j % 3 == 0 else r for j, r in enumerate(records)]
        fast = TransactionDataset.from_term_lists(records, name="n", metadata={"a": 1})
        slow = TransactionDataset.from_records(records, name="n", metadata={"a": 1})
        assert fast.vocabulary == slow.vocabulary and fast.name == slow.name and fast.metadata == slow.metadata
        assert np.array_equal(fast.indptr, slow.indptr) and fast.indptr.dtype == slow.indptr.dtype
        assert np.array_equal(fast.indices, slow.indices) and fast.indices.dtype == slow.indices.dtype


@pytest.mark.parametrize("records", [[["a"], "ab"], [["a", ""]], [["a", 3]], [["a", ["x"]]], [[None]]])
def test_from_term_lists_refuses_what_from_records_refuses(records: list) -> None:
    with pytest.raises(InputError) as slow:
        TransactionDataset.from_records(records)
    with pytest.raises(InputError) as fast:
        TransactionDataset.from_term_lists(records)
    assert str(fast.value) == str(slow.value)
