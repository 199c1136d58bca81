"""Baselines beside the semantic attack: random, blind placement, oracle ceiling, paired differences."""

from __future__ import annotations

import math

import numpy as np
from gensim.models import KeyedVectors
from gensim.test.utils import datapath
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from anonymizer.disassociation.pipeline import disassociate
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.baselines import blind_attack, oracle_reconstruction, truth_reconstruction
from attacks.semantic.matching import match_records
from attacks.semantic.measures import Supports
from attacks.semantic.metrics import _evaluate_one, evaluate_semantic
from attacks.semantic.report import paired_differences
from attacks.semantic.scorers import ConstantScorer, EmbeddingScorer
from attacks.semantic.selectors import spread_anchors
from corpora.dataset import TransactionDataset

KV = KeyedVectors.load_word2vec_format(datapath("test_glove.txt"), no_header=True)
WORDS = [w for w in KV.index_to_key if w.isalpha()][:24]
datasets = st.lists(st.sets(st.sampled_from(WORDS), min_size=1, max_size=7), min_size=6, max_size=40)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HIGHER = ("accuracy", "accuracy_one_to_one", "accuracy_disassociated", "transaction_breakage", "km_breakage",
          "accuracy_disassociated_strict", "transaction_breakage_strict", "transaction_breakage_literal")


def _release(records, k, refine=False, seed=1):
    ds = TransactionDataset.from_records(records)
    release, truth = disassociate(ds, k, 2, 2 * k + 2, horpart="adding", verpart="grouped", refine=refine, seed=seed)
    return ds, release, truth


@SETTINGS
@given(datasets, st.integers(2, 3), st.sampled_from(["ABA", "RGA", "MRA", "assign", "ABA-spread", "random"]),
       st.booleans(), st.integers(0, 3))
def test_the_oracle_ceiling_is_never_below_the_attack(records, k, selector, refine, seed) -> None:
    if len(records) < k:
        return
    ds, release, truth = _release(records, k, refine)
    result = run_semantic_attack(release, EmbeddingScorer(KV), selector=selector, seed=seed)
    metrics = evaluate_semantic(result, release, truth, ds, seed=seed, bootstrap=0, wmd=False,
                                baselines=("random", "blind", "oracle"))
    for row in metrics.rows:
        if row.method != selector or row.metric not in HIGHER or math.isnan(row.value):
            continue
        ceiling = metrics.get(row.metric, row.part, "oracle")
        assert ceiling >= row.value - 1e-9, (row.metric, row.part, ceiling, row.value)


@SETTINGS
@given(datasets, st.integers(2, 3))
@example([{"the"}, {"the"}, {"the"}, {"the"}, {"ö"}, {"ö", "the"}], 2)  # 'ö' (support 2 = k) moved by Lemma 2
def test_oracle_places_every_piece_right_and_k_minus_1_term_copies(records, k) -> None:
    if len(records) < k:
        return
    ds, release, truth = _release(records, k)
    oracle = oracle_reconstruction(release, truth)
    owners_of = {rec.cluster_id: rec.term_assignment for rec in truth_reconstruction(release, truth).clusters}
    for rec in oracle.clusters:
        for term, anchors in rec.term_assignment.items():
            # every owner, topped up to the rule's min(k - 1, size) copies (oracle_reconstruction's docstring): a
            # term the Lemma 2 repair moved to the term chunk can have k or more owners, and keeps them all
            owners = set(owners_of[rec.cluster_id][term])
            assert len(anchors) == len(set(anchors)) == max(len(owners), min(k - 1, len(rec.anchors)))
            assert owners <= set(anchors)
    m = evaluate_semantic(oracle, release, truth, ds, bootstrap=0, wmd=False, baseline=False)
    for part in ("record", "term", "overall"):
        for metric in ("accuracy", "accuracy_one_to_one", "accuracy_disassociated"):
            value = m.get(metric, part, "oracle") if any(r.part == part for r in m.rows) else 1.0
            assert math.isnan(value) or value == 1.0, (metric, part)


def test_blind_placement_is_the_constant_scorer_under_the_tie_rule() -> None:
    records = [{"a", "b", "c"}, {"a", "b", "d"}, {"a", "c", "e"}, {"b", "c", "f"}, {"a", "d", "g"}, {"c", "e", "h"}]
    ds, release, truth = _release(records, 2)
    blind = blind_attack(release, seed=0)
    same = run_semantic_attack(release, ConstantScorer(), selector="ABA", seed=0)
    assert blind.selector == "blind"
    assert blind.records() == same.records()
    for rec in blind.clusters:  # every term on the first anchors in listed order
        for anchors in rec.term_assignment.values():
            assert anchors == list(range(len(anchors)))


def test_paired_interval_uses_the_same_records_and_seed() -> None:
    rng = np.random.default_rng(0)
    records = [set(rng.choice(WORDS, size=5, replace=False)) for _ in range(60)]
    ds, release, truth = _release(records, 2)
    attack = run_semantic_attack(release, EmbeddingScorer(KV), selector="ABA", seed=4)
    m1 = evaluate_semantic(attack, release, truth, ds, seed=4, bootstrap=400, wmd=False)
    m2 = evaluate_semantic(attack, release, truth, ds, seed=4, bootstrap=400, wmd=False)
    assert m1.differences == m2.differences  # same seed: the same random baseline and resamples
    d = m1.difference("accuracy", "overall")
    # the point difference is the attack's value minus the random baseline of the same seed
    assert math.isclose(d.value, m1.get("accuracy", "overall") - m1.get("accuracy", "overall", "random"))
    assert d.lo <= d.value <= d.hi
    # pairing: a method against itself differs by exactly 0, with a zero-width interval
    outcomes = match_records(attack, release, truth)
    recs = [frozenset(r) for r in ds]
    _rows, data = _evaluate_one(outcomes, recs, Supports(recs), 2, 2, ["record", "term", "overall"], None,
                                "ABA", 4, 0)
    same = paired_differences(data, data, "ABA", "ABA", seed=4, bootstrap=200)
    assert all(x.value == 0.0 and x.lo == 0.0 and x.hi == 0.0 for x in same if not math.isnan(x.value))
    js = m1.as_json()
    assert set(js["difference_vs_random"]["accuracy"]["overall"]) == {"value", "lo", "hi", "n"}


def test_spread_anchors_prefers_distinct_contents() -> None:
    contents = [("a",), ("a",), ("b",), (), ()]
    assert spread_anchors([0, 1, 2, 3, 4], contents, 2) == [0, 2]
    assert spread_anchors([0, 1, 2, 3, 4], contents, 3) == [0, 2, 3]
    assert spread_anchors([1, 0, 3, 4, 2], contents, 4) == [1, 3, 2, 0]
    assert spread_anchors([0, 1], [("a",), ("a",)], 2) == [0, 1]


def test_word_movers_distance_agrees_with_gensim() -> None:
    from attacks.semantic.metrics import word_movers_distance

    rng = np.random.default_rng(1)
    for _ in range(40):
        a = list(rng.choice(WORDS, rng.integers(1, 6)))
        b = list(rng.choice(WORDS, rng.integers(1, 6)))
        assert math.isclose(word_movers_distance(KV, a, b), KV.wmdistance(a, b), abs_tol=1e-9)
    assert word_movers_distance(KV, ["zzz-not-a-word"], WORDS[:2]) == math.inf
