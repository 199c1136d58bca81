"""The second round of utility speed-ups (issue 25) against slow, independent references on random data.

* ``top_k_search(..., min_support=s)``: the prefix of the unrestricted answer (itemsets of support >= s, same
  order), on every counting path, on data with many ties;
* the dense pair supports' work limit growing with the entries (``_PAIR_ENTRIES``);
* the pair-pruned extension counting (:meth:`_RankedItems.candidates`): brute force on tie-heavy data;
* tKd-ML^2's threshold across levels (:func:`multilevel_top_k`, :func:`tkd_ml2`) against full searches of every
  level (the code before), on balanced and unbalanced hierarchies, with and without the reused leaf level;
* ``project_dataset(..., min_support=s)``: the nodes of the full projection that can reach s, same supports;
* :func:`subrecord_dataset` and :func:`tlost_readings` from the release arrays against the object form.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_perf_utility import PATHS as COUNTING_PATHS
from test_perf_utility import use_path

from anonymizer.baselines.hierarchy import balanced_hierarchy, parse_hierarchy_text
from anonymizer.evaluation.loss import tlost_readings
from anonymizer.evaluation.multilevel import MultiLevelTopK, multilevel_top_k, project_dataset, tkd_ml2
from anonymizer.evaluation.published import published_subrecords, subrecord_dataset
from anonymizer.evaluation.topk import TopK, itemset_supports, top_k_search
from anonymizer.model.lost import tlost_share
from corpora.dataset import TransactionDataset

PATHS = {**COUNTING_PATHS, "pair limit grown with the entries": {"_GRAM_LIMIT": 4, "_PAIR_ENTRIES": 1}}
"""The top-K search's counting paths (tests/test_perf_utility.py), and the dense-pair limit that grows with the data."""


def _tied_dataset(rng: np.random.Generator, rows: int, items: int) -> TransactionDataset:
    """Records drawn from a few repeated patterns plus noise: many itemsets share a support (ties)."""
    patterns = [rng.choice(items, size=int(rng.integers(1, min(items, 5) + 1)), replace=False) for _ in range(4)]
    records = []
    for _ in range(rows):
        picks = set(patterns[int(rng.integers(0, len(patterns)))].tolist())
        if rng.random() < 0.5:
            picks.add(int(rng.integers(0, items)))
        records.append([f"t{i:02d}" for i in picks])
    return TransactionDataset.from_records(records)


def _brute_force(ds: TransactionDataset, top_k: int) -> tuple[list[tuple[frozenset, int]], int]:
    """Every itemset of every record in the search order, and the K-th support (1 with fewer than K)."""
    counts: Counter = Counter()
    for i in range(len(ds)):
        row = ds.term_ids(i).tolist()
        for size in range(1, len(row) + 1):
            counts.update(itertools.combinations(row, size))
    supports = ds.term_supports()
    rank = {int(t): r for r, t in enumerate(sorted(np.flatnonzero(supports).tolist(),
                                                     key=lambda t: (-int(supports[t]), t)))}
    found = sorted(counts.items(), key=lambda e: (-e[1], len(e[0]), tuple(sorted(rank[t] for t in e[0]))))
    voc = ds.vocabulary
    kth = found[top_k - 1][1] if len(found) >= top_k else 1
    return [(frozenset(voc[t] for t in ids), n) for ids, n in found], kth


@pytest.mark.parametrize("path", list(PATHS))
def test_min_support_gives_the_prefix_of_the_full_answer(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    use_path(monkeypatch, PATHS[path])
    rng = np.random.default_rng(2025)
    for trial in range(8):
        ds = _tied_dataset(rng, int(rng.integers(1, 120)), int(rng.integers(2, 12)))
        for top_k, cap in ((1, None), (7, None), (25, 25), (60, None), (60, 60)):
            full = top_k_search(ds, top_k, max_itemsets=cap)
            every, kth = _brute_force(ds, top_k)
            want_cap = cap or 10 * top_k
            assert list(full.itemsets.items()) == [e for e in every if e[1] >= kth][:want_cap], (path, trial)
            for s in sorted({0, 1, 2, kth, kth + 1, *(n for _, n in every[:5])}):
                got = top_k_search(ds, top_k, max_itemsets=cap, min_support=s)
                prefix = [(x, n) for x, n in full.itemsets.items() if n >= s]
                assert list(got.itemsets.items()) == prefix, (path, trial, top_k, s)
                if s <= full.kth_support:
                    assert (got.kth_support, got.truncated) == (full.kth_support, full.truncated)
                else:
                    assert (got.kth_support, got.truncated) == (0, False)


def _full_multilevel(ds: TransactionDataset, h, top_k: int, exact_ties: bool) -> MultiLevelTopK:
    """The code before the threshold: every level projected and searched in full, then the union cut at K."""
    found: dict[frozenset, tuple[int, int]] = {}
    truncated = False
    for level in range(1, h.height + 1):
        res = top_k_search(project_dataset(ds, h, h.level_map(level)), top_k,
                           max_itemsets=None if exact_ties else top_k)
        truncated |= res.truncated
        for items, n in res.itemsets.items():
            found.setdefault(items, (n, level))
    if not found:
        return MultiLevelTopK({}, 0, truncated)
    supports = sorted((n for n, _ in found.values()), reverse=True)
    kth = supports[top_k - 1] if len(supports) >= top_k else 1
    return MultiLevelTopK({s: v for s, v in found.items() if v[0] >= kth}, kth, truncated)


def _full_tkd_ml2(original: TransactionDataset, published: TransactionDataset, h, top_k: int) -> float:
    fi = _full_multilevel(original, h, top_k, True)
    if not fi.itemsets:
        return 0.0
    kth = _full_multilevel(published, h, top_k, False).kth_support if len(published) else 0
    kept = 0
    for items, (_n, level) in fi.itemsets.items():
        proj = project_dataset(published, h, h.level_map(level)) if len(published) else published
        n = itemset_supports(proj, [items])[items]
        kept += int(n > 0 and n >= kth)
    return 1.0 - kept / len(fi.itemsets)


UNBALANCED = "\n".join(
    [f"t{i:02d};g{i % 3};top" for i in range(0, 6)] + [f"t{i:02d};h{i % 2}{i % 3};g{i % 3};top" for i in range(6, 12)]
    + [f"t{i:02d};top" for i in range(12, 14)])


def _hierarchies(terms: list[str]) -> list:
    return [balanced_hierarchy(terms, 2), balanced_hierarchy(terms, 3), parse_hierarchy_text(UNBALANCED)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), rows=st.integers(1, 90), items=st.integers(2, 14),
       top_k=st.sampled_from([1, 3, 10, 40, 200]))
def test_multilevel_threshold_equals_full_level_searches(seed: int, rows: int, items: int, top_k: int) -> None:
    rng = np.random.default_rng(seed)
    original = _tied_dataset(rng, rows, items)
    published = _tied_dataset(rng, max(1, rows - 5), items)
    terms = [f"t{i:02d}" for i in range(14)]
    for h in _hierarchies(terms):
        want = _full_multilevel(original, h, top_k, True)
        for leaf_top in (None, top_k_search(original, top_k)):
            got = multilevel_top_k(original, h, top_k, leaf_top=leaf_top)
            assert list(got.itemsets.items()) == list(want.itemsets.items())
            assert got.kth_support == want.kth_support
            assert not got.truncated or want.truncated
        capped = _full_multilevel(published, h, top_k, False)
        assert multilevel_top_k(published, h, top_k, exact_ties=False).kth_support == capped.kth_support
        expected = _full_tkd_ml2(original, published, h, top_k)
        fi = multilevel_top_k(original, h, top_k)
        assert tkd_ml2(original, published, h, top_k) == expected
        assert tkd_ml2(original, published, h, top_k, fi=fi,
                       published_top=top_k_search(published, top_k, max_itemsets=top_k)) == expected


def test_tkd_ml2_on_an_empty_published_dataset() -> None:
    rng = np.random.default_rng(4)
    original = _tied_dataset(rng, 40, 10)
    empty = TransactionDataset.from_records([])
    h = balanced_hierarchy([f"t{i:02d}" for i in range(10)], 3)
    assert tkd_ml2(original, empty, h, 5) == _full_tkd_ml2(original, empty, h, 5) == 1.0


def test_project_dataset_min_support_keeps_the_nodes_that_can_reach_it() -> None:
    rng = np.random.default_rng(8)
    for trial in range(10):
        ds = _tied_dataset(rng, int(rng.integers(0, 80)), 14)
        for h in _hierarchies([f"t{i:02d}" for i in range(14)]):
            for level in range(1, h.height + 1):
                full = project_dataset(ds, h, h.level_map(level))
                sums = Counter()
                for t, n in ds.supports().items():
                    sums[h.labels[int(h.level_map(level)[h.leaf_positions([t])[0]])]] += n
                for s in (0, 1, 3, 10, 40):
                    got = project_dataset(ds, h, h.level_map(level), min_support=s)
                    assert got.vocabulary == tuple(v for v in full.vocabulary if sums[v] >= s), (trial, level, s)
                    assert len(got) == len(full)
                    want = [frozenset(t for t in full[i] if sums[t] >= s) for i in range(len(full))]
                    assert [got[i] for i in range(len(got))] == want
                    assert got.indices.dtype == np.int32


def _tlost_objects(release, original) -> tuple[float, float]:
    """tlost's two readings the way they were computed before: on the cluster objects."""
    subs = published_subrecords(release)
    kept = {t for sub in subs for t in sub}
    in_term_chunks = Counter(t for c in release.clusters for t in set(c.term_chunk))
    if original is not None:
        supports = original.supports()
    else:
        supports = Counter(t for sub in subs for t in sub)
        supports.update(in_term_chunks)
    return (tlost_share(supports, release.k, kept, in_term_chunks),
            tlost_share(supports, release.k, kept, in_term_chunks, at_least_k=True))


@pytest.mark.parametrize("safe", [False, True])
def test_subrecords_and_tlost_from_arrays_equal_the_object_form(safe: bool) -> None:
    from anonymizer import disassociate
    from anonymizer.io.release_files import load_release, save_release

    rng = np.random.default_rng(31)
    for trial in range(6):
        weights = 1.0 / np.arange(1, 41) ** 1.1
        weights /= weights.sum()
        records = [[f"w{int(i)}" for i in rng.choice(40, size=int(rng.integers(1, 8)), replace=False, p=weights)]
                   for _ in range(int(rng.integers(30, 200)))]
        original = TransactionDataset.from_records(records)
        release, _ = disassociate(original, k=2 + trial % 3, m=2, max_cluster_size=8 + trial, seed=trial, safe=safe)
        want = TransactionDataset.from_term_lists(published_subrecords(release), name="published sub-records")
        for rel in (release, _reloaded(release, save_release, load_release, trial)):
            got = subrecord_dataset(rel)
            assert got.vocabulary == want.vocabulary and got.name == want.name and got.metadata == want.metadata
            assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
            assert got.indices.dtype == want.indices.dtype
            for data in (original, None):
                assert tlost_readings(rel, data) == _tlost_objects(rel, data)


def _reloaded(release, save, load, trial: int):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"r{trial}.json"
        save(release, path)
        return load(path)


def test_top_k_result_type_is_unchanged() -> None:
    got = top_k_search(TransactionDataset.from_records([["a", "b"], ["a"]]), 2, min_support=2)
    assert isinstance(got, TopK) and got.itemsets == {frozenset({"a"}): 2} and got.kth_support == 0
