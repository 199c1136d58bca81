"""Apriori Anonymization (k^m by global generalization): hand-checked golden cases, a brute-force
property test, hierarchies, the generalized/1 loader and the independent verifier."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.baselines.apriori import AprioriParams, apriori_anonymize, ncp_of_cut, run_apriori
from anonymizer.baselines.generalized import GeneralizedRelease
from anonymizer.baselines.hierarchy import Hierarchy, balanced_hierarchy, parse_hierarchy_text
from anonymizer.evaluation.multilevel import re_generalized, tkd_ml2_generalized, traceable_nodes
from anonymizer.evaluation.verify_generalized import verify_generalized
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

TREE = "a;A;*\nb;A;*\nc;B;*\nd;B;*\n"


def _brute_km(records, k, m):
    """Itemsets of 1..m items held by 1..k-1 records (written without the engine or the verifier)."""
    counts = Counter()
    for rec in records:
        items = sorted(set(rec))
        for size in range(1, m + 1):
            for combo in itertools.combinations(items, size):
                counts[combo] += 1
    return {s: n for s, n in counts.items() if n < k}


def _publish_by_walking(record, hierarchy_json, generalized):
    """The published form of an original record: each item replaced by its generalized ancestor."""
    labels = [n[0] for n in hierarchy_json["nodes"]]
    parent = {n[0]: (None if n[1] is None else labels[n[1]]) for n in hierarchy_json["nodes"]}
    cut = set(generalized)
    out = set()
    for item in record:
        node, chosen = item, item
        while node is not None:
            if node in cut:
                chosen = node
            node = parent[node]
        out.add(chosen)
    return tuple(sorted(out))


def test_golden_pair_fixes_generalize_both_subtrees():
    # k=2, m=2. Round 1: all singles have support >= 2. Round 2: {a,d} and {b,d} have support 1.
    # {a,d} first (preorder): cheapest fix is d -> B (NCP mass 0.5*4 = 2 < A's 0.5*5), {a,B} has 3 records.
    # {b,d} is then stale (d moved); the next pass finds {b,B} = 1: A (2.5) beats the root (7); {A,B} = 4.
    h = parse_hierarchy_text(TREE)
    ds = TransactionDataset.from_records([["a", "c"], ["a", "c"], ["b", "d"], ["a", "d"], ["b"]])
    result = run_apriori(ds, h, AprioriParams(2, 2, h.source or "file"))
    rel, stats = result.release, result.stats
    assert rel.generalized == ["A", "B"]
    assert rel.records == [("A",), ("A", "B"), ("A", "B"), ("A", "B"), ("A", "B")]
    assert stats.fixes == [0, 2] and stats.passes == [1, 3]
    assert stats.ncp == pytest.approx(0.5)  # every occurrence sits in a 2-of-4-leaf node


def test_golden_single_item_fix_leaves_the_rest():
    # k=2, m=2: d has support 1 -> its cheapest k-anonymous generalization is B (supp 3); then all pairs pass.
    h = parse_hierarchy_text(TREE)
    ds = TransactionDataset.from_records([["a", "c"], ["a", "c"], ["b"], ["a", "d"], ["b"]])
    rel = apriori_anonymize(ds, h, k=2, m=2)
    assert rel.generalized == ["B"]
    assert rel.records == [("B", "a")] * 3 + [("b",)] * 2
    assert ncp_of_cut(ds, h, rel.leaf_map()) == pytest.approx((2 * 0.5 + 1 * 0.5) / 8)
    ok = traceable_nodes(rel)
    assert [h.labels[i] for i in range(len(h)) if ok[i]] == ["*", "A", "a", "b", "B"]


def test_m1_is_plain_item_k_anonymity():
    h = parse_hierarchy_text(TREE)
    ds = TransactionDataset.from_records([["a", "c"], ["a", "c"], ["b", "d"], ["a", "d"], ["b"]])
    rel = apriori_anonymize(ds, h, k=2, m=1)
    assert rel.generalized == [] and not _brute_km(rel.records, 2, 1)


records_strategy = st.lists(st.lists(st.integers(1, 14).map(str), min_size=1, max_size=6), min_size=2, max_size=25)


@settings(max_examples=120, deadline=None)
@given(records=records_strategy, k=st.integers(2, 4), m=st.integers(1, 3), fanout=st.integers(2, 4))
def test_property_output_is_km_anonymous_and_a_global_recoding(records, k, m, fanout):
    ds = TransactionDataset.from_records(records)
    if k > len(ds):
        return
    h = balanced_hierarchy(ds.vocabulary, fanout)
    rel = apriori_anonymize(ds, h, k, m)
    assert not _brute_km(rel.records, k, m)
    hj = h.to_dict()
    expected = sorted(_publish_by_walking(r, hj, rel.generalized) for r in records)
    assert rel.records == expected
    report = verify_generalized(rel.to_dict())
    assert report.ok, report.violations


def test_balanced_hierarchy_shape_and_natural_order():
    h = balanced_hierarchy([str(i) for i in (10, 2, 1, 3, 4, 5, 6)], 3)
    leaves = [h.labels[n] for n in h.leaf_nodes]
    assert leaves == ["1", "2", "3", "4", "5", "6", "10"]
    kids = Counter(int(p) for p in h.parent if p >= 0)
    assert min(kids.values()) >= 2  # no single-child node
    assert h.labels[0] == "*"
    assert Hierarchy.from_json(h.to_dict()).labels == h.labels


@pytest.mark.parametrize("text, message", [
    ("a;b;r\nc;r\nb;a\n", "two parents"),
    ("a;b\nb;a\n", "cycle"),
    ("a;b;a;r\n", "cycle"),
    ("a;r1\nb;r2\n", "two roots"),
])
def test_bad_hierarchies(text, message):
    with pytest.raises(InputError, match=message):
        parse_hierarchy_text(text, "h.txt")


def test_missing_item_is_named():
    h = parse_hierarchy_text(TREE, "h.txt")
    with pytest.raises(InputError, match="missing from the hierarchy: 'zz'"):
        h.leaf_positions(["a", "zz"])


def _release_json():
    h = parse_hierarchy_text(TREE)
    ds = TransactionDataset.from_records([["a", "c"], ["a", "c"], ["b"], ["a", "d"], ["b"]])
    return apriori_anonymize(ds, h, k=2, m=2).to_dict()


@pytest.mark.parametrize("change, message", [
    (lambda o: o["records"][0].__setitem__(0, "c"), "leaf under generalized|neither a generalized"),
    (lambda o: o["params"].__setitem__("seed", 3), "seed"),
    (lambda o: o["params"].__setitem__("k", 1), "params.k"),
    (lambda o: o.__setitem__("generalized", ["B", "*"]), "overlap"),
    (lambda o: o.__setitem__("generalized", ["a"]), "leaf"),
    (lambda o: o["records"][0].append("zz"), "not in the hierarchy"),
    (lambda o: o["hierarchy"]["nodes"][1].__setitem__(1, 5), "earlier node"),
])
def test_loader_refuses(change, message):
    obj = json.loads(json.dumps(_release_json()))
    change(obj)
    with pytest.raises(InputError, match=message):
        GeneralizedRelease.from_json(obj)


def test_verifier_finds_a_broken_release():
    obj = _release_json()
    obj["records"][3] = ["a"]  # one of the two {b} records becomes {a}: {b} is left in one record
    report = verify_generalized(obj)
    assert not report.ok
    assert report.violations == ["k^m: itemset {b} is held by 1 record(s), fewer than k=2"]


def test_ml2_and_re_of_a_generalized_release():
    h = parse_hierarchy_text(TREE)
    ds = TransactionDataset.from_records([["a", "c"], ["a", "c"], ["b"], ["a", "d"], ["b"]])
    rel = apriori_anonymize(ds, h, k=2, m=2)
    # levels: 1 = {A, B}, 2 = leaves. c, d were generalized to B (level 1): level-2 itemsets with c or d are lost.
    value = tkd_ml2_generalized(ds, rel, top_k=5)
    assert 0.0 < value < 1.0
    # pair (a, c): published {B, a} in 3 records, B has 2 leaves -> estimate 1.5; original 2
    r = re_generalized(ds, rel, rank_range=(0, 4))
    assert r > 0
