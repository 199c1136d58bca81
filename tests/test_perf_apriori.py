"""Apriori Anonymization's counting on arrays (issue 25) against a slow reference.

The reference below is the record-at-a-time engine the vectorized one replaced: it publishes the
data with ``np.unique`` every pass, counts every itemset of every pass (no restriction to the nodes
that entered the cut), walks the unsafe list one itemset at a time and builds the records with
Python sets and sorts. The fast run must give the same release (cut, records, JSON text) and the
same stats on random data, balanced and unbalanced hierarchies, k 2..5, m 1..3.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
from collections import Counter
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.baselines import apriori_counts
from anonymizer.baselines.apriori import AprioriParams, run_apriori
from anonymizer.baselines.apriori_counts import lexicographic_order, publish, row_sorted_leaves, unsafe_itemsets
from anonymizer.baselines.generalized import GeneralizedRelease, load_generalized, save_generalized
from anonymizer.baselines.hierarchy import Hierarchy, balanced_hierarchy, parse_hierarchy_text
from corpora.dataset import TransactionDataset


class _Slow:
    """The record-at-a-time engine: Python sets for row lists and published records, a Counter per pass."""

    def __init__(self, ds: TransactionDataset, h: Hierarchy, k: int) -> None:
        self.h, self.k = h, k
        pos = h.leaf_positions(list(ds.vocabulary))
        self.leaf = pos[ds.indices.astype(np.int64)]
        self.n_rows = len(ds)
        self.row = np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(ds.indptr.astype(np.int64)))
        self.leaf_support = np.bincount(self.leaf, minlength=h.n_leaves).astype(np.float64)
        self.ncp_node = np.where(h.is_leaf, 0.0, h.leaf_count / max(h.n_leaves, 1))
        self.gen = h.leaf_nodes.astype(np.int64).copy()

    def rows_of(self, node: int) -> set[int]:
        lo, hi = self.h.leaf_lo[node], self.h.leaf_hi[node]
        return {r for r, x in zip(self.row.tolist(), self.leaf.tolist(), strict=True) if lo <= x < hi}

    def increase(self, node: int) -> float:
        lo, hi = self.h.leaf_lo[node], self.h.leaf_hi[node]
        s = self.leaf_support[lo:hi]
        return float(self.ncp_node[node] * s.sum() - (s * self.ncp_node[self.gen[lo:hi]]).sum())

    def fix(self, itemset: tuple[int, ...]) -> None:
        h, candidates = self.h, []
        for combo in itertools.product(*[h.ancestors(x) for x in itemset]):
            if combo == itemset:
                continue
            chosen = [n for n in sorted(set(combo)) if not any(a != n and h.is_ancestor(a, n) for a in combo)]
            cost = sum(self.increase(a) for a in chosen)
            lift = sum(int(h.depth[x] - h.depth[a]) for x, a in zip(itemset, combo, strict=True))
            candidates.append((cost, lift, tuple(chosen)))
        candidates.sort()
        for _c, _l, chosen in candidates:
            if len(set.intersection(*[self.rows_of(a) for a in chosen])) >= self.k:
                for a in chosen:
                    self.gen[h.leaf_lo[a]:h.leaf_hi[a]] = a
                return
        raise AssertionError("no generalization")

    def published_sets(self) -> list[set[int]]:
        out: list[set[int]] = [set() for _ in range(self.n_rows)]
        for r, n in zip(self.row.tolist(), self.gen[self.leaf].tolist(), strict=True):
            out[r].add(n)
        return out

    def unsafe(self, i: int) -> list[tuple[int, ...]]:
        counts: Counter = Counter()
        for rec in self.published_sets():
            counts.update(itertools.combinations(sorted(rec), i))
        return sorted(s for s, c in counts.items() if c < self.k)

    def run_round(self, i: int) -> tuple[int, int, int]:
        passes = fixes = first = 0
        while True:
            bad = self.unsafe(i)
            first = len(bad) if passes == 0 else first
            passes += 1
            if not bad:
                return passes, fixes, first
            for itemset in bad:
                if all(self.gen[self.h.leaf_lo[x]] == x for x in itemset):
                    self.fix(itemset)
                    fixes += 1


def _reference(ds: TransactionDataset, h: Hierarchy, k: int, m: int):
    """(cut labels, records, passes, fixes, unsafe of the first passes): the slow engine."""
    eng = _Slow(ds, h, k)
    rounds = [eng.run_round(i) for i in range(1, m + 1)]
    cut = sorted({int(n) for n in np.unique(eng.gen) if not h.is_leaf[n]})
    records = sorted(tuple(sorted(h.labels[n] for n in rec)) for rec in eng.published_sets())
    return ([h.labels[n] for n in cut], records, [r[0] for r in rounds], [r[1] for r in rounds],
            [r[2] for r in rounds])


def _random_tree(items: list[str], rng: random.Random) -> str:
    """An unbalanced hierarchy file over ``items`` (shuffled leaves, random depths)."""
    lines = []
    groups = [f"g{j}" for j in range(max(1, len(items) // 3))]
    for t in rng.sample(items, len(items)):
        g = rng.choice(groups)
        top = "T0" if int(g[1:]) % 2 == 0 else "T1"
        lines.append(f"{t};{g};{top};*" if rng.random() < 0.8 else f"{t};{top};*")
    return "\n".join(lines) + "\n"


COUNTERS = ("bincount", "sorted-into-table", "sorted-and-merged")


def _counter(how: str):
    """Count keys one way: the bincount table (the default for small spaces), or by sorting tiny batches of
    tiny blocks whose runs go into a 32-bit table or are merged."""
    if how == "bincount":
        return contextlib.nullcontext()
    return mock.patch.multiple(apriori_counts, DENSE_KEYS=0, SORT_BATCH=12, _BLOCK=7,
                               TABLE_KEYS=0 if how == "sorted-and-merged" else apriori_counts.TABLE_KEYS)


def _check(ds: TransactionDataset, h: Hierarchy, k: int, m: int, how: str = "bincount") -> None:
    cut, records, passes, fixes, first = _reference(ds, h, k, m)
    with _counter(how):
        result = run_apriori(ds, h, AprioriParams(k, m, h.source or "file"))
    rel, stats = result.release, result.stats
    assert rel.generalized == cut
    assert rel.records == records
    assert (stats.passes, stats.fixes, stats.unsafe_first_pass) == (passes, fixes, first)
    assert rel.to_json_text() == json.dumps(rel.to_dict(), ensure_ascii=False)


records_strategy = st.lists(st.lists(st.integers(0, 30).map(lambda i: f"t{i}"), max_size=7), min_size=5, max_size=60)


@settings(max_examples=80, deadline=None)
@given(records=records_strategy, k=st.integers(2, 5), m=st.integers(1, 3), fanout=st.integers(2, 5),
       how=st.sampled_from(COUNTERS))
def test_fast_engine_equals_reference_balanced(records, k, m, fanout, how):
    ds = TransactionDataset.from_records(records)
    if k > sum(1 for r in records if r):
        return
    _check(ds, balanced_hierarchy(ds.vocabulary, fanout), k, m, how)


@settings(max_examples=60, deadline=None)
@given(records=records_strategy, k=st.integers(2, 4), m=st.integers(1, 3), seed=st.integers(0, 10**6),
       how=st.sampled_from(COUNTERS))
def test_fast_engine_equals_reference_unbalanced_file(records, k, m, seed, how):
    ds = TransactionDataset.from_records(records)
    if k > sum(1 for r in records if r) or not ds.vocabulary:
        return
    h = parse_hierarchy_text(_random_tree(list(ds.vocabulary), random.Random(seed)), "tree.txt")
    _check(ds, h, k, m, how)


def test_fast_engine_equals_reference_larger():
    rng = np.random.default_rng(5)
    records = [[f"i{x}" for x in rng.choice(120, size=rng.integers(1, 12), replace=False)] for _ in range(600)]
    records += [[] for _ in range(5)]
    ds = TransactionDataset.from_records(records)
    for fanout, k, m in ((2, 3, 2), (5, 5, 2), (3, 2, 3), (10, 4, 3)):
        for how in COUNTERS:
            _check(ds, balanced_hierarchy(ds.vocabulary, fanout), k, m, how)


@pytest.mark.parametrize("how", COUNTERS)
def test_restricted_counts_equal_full_counts_minus_old(how):
    # every unsafe itemset holding a new node is found by the restricted count, in the same order
    rng = np.random.default_rng(1)
    for i in (1, 2, 3):
        for _ in range(20):
            n_nodes, n_rows = 40, 80
            lengths = rng.integers(0, 8, n_rows)
            nodes = np.concatenate([np.sort(rng.choice(n_nodes, size=L, replace=False)) for L in lengths]).astype(
                np.int64)
            ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
            new = rng.random(n_nodes) < 0.3
            with _counter(how):
                full = unsafe_itemsets(ptr, nodes, n_nodes, i, 3)
                part = unsafe_itemsets(ptr, nodes, n_nodes, i, 3, new)
            want = full[new[full].any(axis=1)] if full.size else full
            assert part.tolist() == want.tolist()


@pytest.mark.parametrize("how", COUNTERS)
def test_pairs_equal_a_gram(how):
    mat = sp.random(50, 20, density=0.2, random_state=3, format="csr")
    mat.data[:] = 1
    mat.sort_indices()
    ptr, nodes = mat.indptr.astype(np.int64), mat.indices.astype(np.int64)
    dense = (mat.T @ mat).toarray()
    want = [[a, b] for a in range(20) for b in range(a + 1, 20) if 0 < dense[a, b] < 4]
    with _counter(how):
        assert unsafe_itemsets(ptr, nodes, 20, 2, 4).tolist() == want


def test_publish_keeps_each_records_distinct_nodes_ascending():
    h = balanced_hierarchy([f"x{i}" for i in range(9)], 3)
    ds = TransactionDataset.from_records([["x8", "x0", "x1"], [], ["x4", "x3"], ["x2"]])
    row, leaf = row_sorted_leaves(ds.indptr.astype(np.int64), ds.indices, h.leaf_positions(list(ds.vocabulary)))
    gen = h.leaf_nodes.astype(np.int64).copy()
    a = h.index["x0..x2"]
    gen[h.leaf_lo[a]:h.leaf_hi[a]] = a
    ptr, nodes = publish(row, leaf, gen, len(ds))
    got = [[h.labels[n] for n in nodes[ptr[r]:ptr[r + 1]]] for r in range(len(ds))]
    assert got == [["x0..x2", "x8"], [], ["x3", "x4"], ["x0..x2"]]


@pytest.mark.parametrize("seed", range(5))
def test_lexicographic_order_equals_sorting_tuples(seed):
    rng = random.Random(seed)
    rows = [tuple(rng.choices(range(5), k=rng.randint(0, 5))) for _ in range(rng.randint(0, 200))]
    ptr = np.concatenate(([0], np.cumsum([len(r) for r in rows]))).astype(np.int64)
    values = np.asarray([v for r in rows for v in r], dtype=np.int64)
    order = lexicographic_order(ptr, values)
    assert [rows[i] for i in order] == sorted(rows)


def test_json_text_is_json_dumps_of_to_dict(tmp_path):
    labels = ['a"b', "c\\d", "é", "tab\there", "x\u2028y", "z"]
    ds = TransactionDataset.from_records([labels[:3], labels[2:], labels[::2], labels[1::2]] * 3)
    h = balanced_hierarchy(ds.vocabulary, 2)
    rel = run_apriori(ds, h, AprioriParams(3, 2, h.source)).release
    assert rel.to_json_text() == json.dumps(rel.to_dict(), ensure_ascii=False)
    save_generalized(rel, tmp_path / "r.json")
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == json.dumps(rel.to_dict(), ensure_ascii=False) + "\n"
    back = load_generalized(tmp_path / "r.json")
    assert back.records == rel.records and back.generalized == rel.generalized
    diff = GeneralizedRelease("diffpart", {"epsilon": 1.0, "hierarchy": "fanout:2"}, h, [("é",), ()])
    assert diff.to_json_text() == json.dumps(diff.to_dict(), ensure_ascii=False)
