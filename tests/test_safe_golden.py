"""Golden tests of safe disassociation (Awad2019 section 4, Figure 2) and of RLM / RAE (section 5.1)."""

import json

import pytest
from test_cover_golden import _reconstructions, awad_fig1

from anonymizer.disassociation.safe import (
    chunk_cover,
    partial_suppression,
    preconditions_hold,
    safe_disassociate,
    safe_disassociate_report,
)
from anonymizer.evaluation.safe_metrics import published_supports, rae, rlm
from anonymizer.evaluation.verify import verify
from anonymizer.model.release import Cluster, ClusterTruth, Release, Truth
from attacks.cover.detector import run_cover_attack
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

ABCD = ("a", "b", "c", "d")


def awad_truth() -> Truth:
    return Truth([ClusterTruth("P1", [0, 1, 2, 3, 4, 5], [[0, 1, 2, 3, 4, 5], [1, 2]], {})])


def test_figure2_partial_suppression_with_the_papers_choices():
    chunk = awad_fig1().clusters[0].record_chunks[0]
    # I1 = {a, b}, I2 = {c, d}; L1 = {a, d}, L2 = {b, c}.
    subs, ids = partial_suppression(chunk, [0, 1, 2, 3, 4, 5], [("a", "b"), ("c", "d")], [1, 2],
                                    [[True, False], [False, True]])
    assert sorted(subs) == sorted([("a",), ("c", "d"), ("a", "b"), ABCD, ABCD, ("a", "b"), ("a", "d"), ("b", "c")])
    assert ids.count(-1) == 2 and len(ids) == 8
    assert chunk_cover(subs) is None and chunk_cover(chunk) == (list(ABCD), 4, ["c", "d"])
    # Figure 2(b): with {d, e} known, the records it can point to are {c,d,e}, {a,d,e} and {a,b,c,d,e}.
    cluster = Cluster("P1", 8, [subs, [("e",), ("e",)]], [])
    candidates = {r for recs in _reconstructions(cluster) for r in recs if {"d", "e"} <= set(r)}
    assert candidates == {("c", "d", "e"), ("a", "d", "e"), ("a", "b", "c", "d", "e")}


def test_safe_disassociate_figure1_removes_the_cover_problem():
    release, truth = awad_fig1(), awad_truth()
    result = safe_disassociate_report(release, truth, seed=3)
    safe, strue = result.release, result.truth
    assert result.partially_suppressed == 1 and result.ghost_records == 2 and result.fully_suppressed == 0
    assert safe.params["safe"] is True and safe.clusters[0].size == 8
    assert strue.clusters[0].records == [0, 1, 2, 3, 4, 5, -1, -1]
    assert strue.clusters[0].record_chunks[0].count(-1) == 2
    strue.check_against(safe)
    assert verify(safe).ok
    assert run_cover_attack(safe, "strong").vulnerable_chunks_linkable == 0
    assert published_supports(safe) == published_supports(release)  # Awad2019 eq. (6)
    assert rlm(release, safe) == 0.0
    # The inputs are untouched and the same seed gives the same bytes.
    assert release.clusters[0].size == 6
    again = safe_disassociate(awad_fig1(), awad_truth(), seed=3)
    assert json.dumps(again[0].to_dict()) == json.dumps(safe.to_dict())


def _tight(term_chunk):
    """s(I) = 2 < k + min(card, m) = 3: precondition (4) fails."""
    c1 = [("a", "b"), ("a", "b"), ("a",), ("a",)]
    c2 = [("e",), ("e",)]
    release = Release({"k": 2, "m": 2, "max_cluster_size": 10}, [Cluster("P1", 4, [c1, c2], term_chunk)])
    truth = Truth([ClusterTruth("P1", [0, 1, 2, 3], [[0, 1, 2, 3], [0, 2]], {t: [3] for t in term_chunk})])
    return release, truth


def test_precondition_4_fails_chunk_suppressed():
    release, truth = _tight(["z"])
    result = safe_disassociate_report(release, truth)
    assert result.fully_suppressed == 1 and result.partially_suppressed == 0
    assert [c for c in result.release.clusters[0].record_chunks] == [[("e",), ("e",)]]
    assert result.truth.clusters[0].record_chunks == [[0, 2]]
    # record 1 showed only {a, b}: it keeps b (the rarer) through the term chunk; a is suppressed
    assert result.emptied_records == 1 and result.release.clusters[0].term_chunk == ["b", "z"]
    assert result.truth.clusters[0].term_chunk == {"b": [0, 1], "z": [3]}
    assert result.suppressed_occurrences == 4 and result.moved_occurrences == 2
    assert rlm(release, result.release) == pytest.approx(6 / 8)
    assert verify(result.release).ok


def test_suppression_that_empties_records_keeps_one_term_in_the_term_chunk():
    release, truth = _tight([])
    result = safe_disassociate_report(release, truth)
    safe = result.release
    # records 1 and 3 showed nothing else; a (held by both) is the one term they keep
    assert safe.clusters[0].term_chunk == ["a"] and result.moved_to_term_chunk == 1
    assert result.emptied_records == 2 and result.suppressed_occurrences == 2
    assert result.truth.clusters[0].term_chunk == {"a": [0, 1, 2, 3]}
    assert verify(safe).ok
    assert rlm(release, safe) == pytest.approx(6 / 8)


def test_covered_fallback_keeps_covering_items():
    release, truth = _tight(["z"])
    safe, _ = safe_disassociate(release, truth, fallback="covered")
    assert safe.clusters[0].record_chunks[0] == [("a",), ("a",), ("a",), ("a",)]
    assert rlm(release, safe) == pytest.approx(2 / 8)
    assert verify(safe).ok


def test_precondition_3_cluster_too_large():
    release, truth = awad_fig1(), awad_truth()
    result = safe_disassociate_report(release, truth, max_cluster_size=7)  # 6 > 7 - 2
    assert result.partially_suppressed == 0 and result.fully_suppressed == 1
    with pytest.raises(InputError, match="max_cluster_size"):
        safe_disassociate(Release({"k": 2, "m": 2}, release.clusters), truth)


def _wide(full):
    """|I| = 10 (card = 5), k = m = 2: precondition (4) needs s(I) >= 4, rule 3 needs s(I) >= 5 rows = I."""
    items = tuple("abcdefghij")
    c1 = [items] * full + [("a",), ("a",)]
    c2 = [("x",), ("x",)]
    size = full + 2
    release = Release({"k": 2, "m": 2, "max_cluster_size": 12}, [Cluster("P1", size, [c1, c2], ["z"])])
    truth = Truth([ClusterTruth("P1", list(range(size)), [list(range(size)), [0, 1]], {"z": [size - 1]})])
    return release, truth


def test_precondition_4_holds_but_too_few_records_equal_to_I():
    # The kosarak25k crash (k=3, m=2, delta=10): |I| = 11, s(I) = 5 >= k + m, but card = 6 > s(I).
    assert not preconditions_hold(7, 5, 11, 3, 2, 10)
    assert 5 >= 3 + min(6, 2)  # precondition (4) alone would accept it
    assert preconditions_hold(8, 6, 11, 3, 2, 10) and not preconditions_hold(9, 6, 11, 3, 2, 10)
    release, truth = _wide(4)
    assert verify(release).ok and chunk_cover(release.clusters[0].record_chunks[0])[1] == 4
    for seed in range(3):
        result = safe_disassociate_report(release, truth, seed=seed)
        assert result.partially_suppressed == 0 and result.fully_suppressed == 1
        assert result.release.clusters[0].record_chunks == [[("x",), ("x",)]]
        assert verify(result.release).ok
        result.truth.check_against(result.release)
        covered = safe_disassociate_report(release, truth, seed=seed, fallback="covered")
        assert covered.release.clusters[0].record_chunks[0] == [("a",)] * 6
        assert verify(covered.release).ok


def test_partial_suppression_with_exactly_card_records_equal_to_I():
    release, truth = _wide(5)
    result = safe_disassociate_report(release, truth, seed=1)
    assert result.partially_suppressed == 1 and result.ghost_records == 2
    chunk = result.release.clusters[0].record_chunks[0]
    assert chunk_cover(chunk) is None and not any(len(sub) == 10 for sub in chunk)
    assert published_supports(result.release) == published_supports(release)
    assert verify(result.release).ok and run_cover_attack(result.release, "strong").vulnerable_chunks_linkable == 0


def test_deleting_the_only_record_chunk_keeps_one_term_in_the_term_chunk():
    # Both records would be left empty; one term (a and b tie: the alphabetically last) fills both.
    release = Release({"k": 2, "m": 2, "max_cluster_size": 6}, [Cluster("P1", 2, [[("a", "b"), ("a", "b")]], [])])
    truth = Truth([ClusterTruth("P1", [0, 1], [[0, 1]], {})])
    result = safe_disassociate_report(release, truth, targets="every")  # the cluster's only chunk
    assert result.release.clusters[0].record_chunks == [] and result.release.clusters[0].term_chunk == ["b"]
    assert result.truth.clusters[0].term_chunk == {"b": [0, 1]}
    assert result.emptied_records == 2 and result.suppressed_occurrences == 2
    assert verify(result.release).ok


def test_rae_hand_computed():
    original = TransactionDataset.from_records([["a", "b"], ["a", "b"], ["a"], ["b", "c"]])
    anonymized = TransactionDataset.from_records([["a", "b"], ["a"], ["b"], ["a", "c"]])
    # Pairs of {a, b, c}, (s(T) - s(R)) / AVG as Awad2019 5.1.3 prints it (signed):
    # ab (2 - 1) / 1.5; ac (0 - 1) / 0.5 = -2; bc (1 - 0) / 0.5 = 2.
    assert rae(original, anonymized, rank_range=(0, 3)) == pytest.approx((1 / 1.5 - 2 + 2) / 3)
    # the absolute reading beside it
    assert rae(original, anonymized, rank_range=(0, 3), absolute=True) == pytest.approx((1 / 1.5 + 2 + 2) / 3)
    assert rae(original, original, rank_range=(0, 3)) == 0.0
    release = awad_fig1()
    records = [["a"], ["a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e"], ["a", "b", "c", "d"], ["a", "b", "c", "d"],
               ["a", "b"]]
    value = rae(TransactionDataset.from_records(records), release, rank_range=(0, 5), reconstructions=2)
    assert -2.0 <= value <= 2.0


def _single_chunk_cover() -> tuple[Release, Truth]:
    """One cluster, one record chunk with c and d covered by a and b (Awad2019 Figure 1's R_C1 alone)."""
    chunk = awad_fig1().clusters[0].record_chunks[0]
    release = Release({"k": 2, "m": 2, "max_cluster_size": 8}, [Cluster("P1", 6, [chunk], ["z"])])
    truth = Truth([ClusterTruth("P1", [0, 1, 2, 3, 4, 5], [[0, 1, 2, 3, 4, 5]], {"z": [0]})])
    return release, truth


def test_targets_linkable_leaves_a_single_chunk_cluster_alone():
    """Awad2019 3.3: nothing in another record chunk can be linked to the covered items."""
    release, truth = _single_chunk_cover()
    result = safe_disassociate_report(release, truth, seed=1, targets="linkable")
    assert result.problems_before == 0 and result.release.clusters[0].record_chunks == release.clusters[0].record_chunks
    report = run_cover_attack(result.release, "strong")
    assert report.vulnerable_chunks_linkable == 0 and report.vulnerable_chunks == 1


def test_targets_every_treats_definition_3_on_every_chunk():
    release, truth = _single_chunk_cover()
    result = safe_disassociate_report(release, truth, seed=1, targets="every")
    assert result.problems_before == 1 and result.partially_suppressed == 1
    # "every" is the default: Awad2019 5.1.1 counts every record chunk subject to a cover problem
    default = safe_disassociate_report(release, truth, seed=1)
    assert default.problems_before == 1 and default.release.to_json() == result.release.to_json()
    assert run_cover_attack(result.release, "strong").vulnerable_chunks == 0
    with pytest.raises(InputError, match="targets"):
        safe_disassociate_report(release, truth, seed=1, targets="some")
