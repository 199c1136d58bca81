"""Utility metrics (Terrovitis2012 sections 6-7) on tiny datasets with hand-computed values."""

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import frequent_itemsets
from paper_examples import fig2b

from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.utility import (
    dataset_top_k,
    itemset_supports,
    ranked_terms,
    re,
    re_a,
    tkd,
    tkd_a,
    tlost,
    top_k_itemsets,
    top_k_search,
    utility_report,
)
from anonymizer.model.release import Cluster, Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.synthetic.toy import toy_dataset

O = TransactionDataset.from_records([["a", "b"], ["a", "b"], ["a", "c"], ["b"]])
# supports: a 3, b 3, c 1, {a,b} 2, {a,c} 1
R2 = TransactionDataset.from_records([["a"], ["b"], ["a", "c"], ["a", "c"]])
# supports: a 3, c 2, {a,c} 2, b 1


def brute_itemsets(transactions):
    counts = Counter()
    for t in transactions:
        items = sorted(set(t))
        for size in range(1, len(items) + 1):
            counts.update(frozenset(c) for c in itertools.combinations(items, size))
    return counts


def test_top_k_hand_computed():
    assert top_k_itemsets(O.sorted_records(), 3) == {frozenset("a"): 3, frozenset("b"): 3, frozenset("ab"): 2}
    assert dataset_top_k(O, 3) == top_k_itemsets(O.sorted_records(), 3)
    # ties at the cut are all kept: the 3rd support of R2 is 2, shared by {c} and {a,c}
    assert set(top_k_itemsets(R2.sorted_records(), 2)) == {frozenset("a"), frozenset("c"), frozenset("ac")}


def test_items_in_every_transaction_are_not_lost():
    # pyfim drops an item contained in all transactions unless an empty transaction is added
    assert frequent_itemsets([["x", "y"], ["x"], ["x", "y"]], 1) == {
        frozenset("x"): 3, frozenset("y"): 2, frozenset("xy"): 2}


@settings(max_examples=50, deadline=None)
@given(tracts=st.lists(st.frozensets(st.sampled_from("abcdefg"), max_size=5), max_size=12),
       top=st.integers(1, 30), floor=st.integers(1, 4), cap_factor=st.integers(1, 3))
def test_mining_matches_brute_force(tracts, top, floor, cap_factor):
    brute = brute_itemsets(tracts)
    assert frequent_itemsets([sorted(t) for t in tracts], floor) == {s: n for s, n in brute.items() if n >= floor}
    cap = cap_factor * top
    got = top_k_itemsets([sorted(t) for t in tracts], top, max_itemsets=cap)
    res = top_k_search(TransactionDataset.from_records(tracts), top, max_itemsets=cap)
    if not brute:
        assert got == {} and res.itemsets == {} and res.kth_support == 0
        return
    ranked = sorted(brute.values(), reverse=True)
    cut = ranked[top - 1] if len(ranked) >= top else 1
    assert res.kth_support == cut
    expected = {s: n for s, n in brute.items() if n >= cut}
    for found in (got, res.itemsets):
        if len(expected) <= cap:
            assert found == expected
        else:
            # capped ties: every itemset above the cut, then the smallest tied ones first
            assert len(found) == cap and found.items() <= expected.items()
            assert all(s in found for s, n in expected.items() if n > cut)
            left = [len(s) for s in expected if s not in found]
            assert max(len(s) for s, n in found.items() if n == cut) <= min(left)
    assert res.truncated == (len(expected) > cap)


@settings(max_examples=40, deadline=None)
@given(tracts=st.lists(st.frozensets(st.sampled_from("abcdef"), max_size=6), max_size=10),
       top=st.integers(1, 12), size=st.integers(1, 3))
def test_top_k_max_size_matches_brute_force(tracts, top, size):
    brute = {s: n for s, n in brute_itemsets(tracts).items() if len(s) <= size}
    got = top_k_itemsets(tracts, top, max_size=size, max_itemsets=10_000)
    if brute:
        ranked = sorted(brute.values(), reverse=True)
        cut = ranked[top - 1] if len(ranked) >= top else 1
        assert got == {s: n for s, n in brute.items() if n >= cut}
    else:
        assert got == {}


def brute_tkd(original, published, top):
    """Equation 2 with FI, FI' listed in full by brute force (ties at the cut kept)."""
    def top_k(tracts):
        counts = brute_itemsets(tracts)
        if not counts:
            return set()
        ranked = sorted(counts.values(), reverse=True)
        cut = ranked[top - 1] if len(ranked) >= top else 1
        return {s for s, n in counts.items() if n >= cut}
    fi, fi_pub = top_k(original), top_k(published)
    return 1 - len(fi & fi_pub) / len(fi) if fi else 0.0


@settings(max_examples=50, deadline=None)
@given(orig=st.lists(st.frozensets(st.sampled_from("abcdef"), max_size=4), min_size=1, max_size=10),
       pub=st.lists(st.frozensets(st.sampled_from("abcdefg"), max_size=4), max_size=10),
       top=st.integers(1, 8))
def test_tkd_matches_brute_force(orig, pub, top):
    # at most 10 * 15 itemsets exist, so the default cap (10 * top) only binds for top = 1
    o, p = TransactionDataset.from_records(orig), TransactionDataset.from_records(pub)
    if not top_k_search(o, top).truncated:
        assert tkd(o, p, top) == pytest.approx(brute_tkd(orig, pub, top))
    assert itemset_supports(p, brute_itemsets(orig)) == {s: sum(1 for t in pub if s <= t)
                                                          for s in brute_itemsets(orig)}


def test_long_records_stay_bounded():
    # 2**80 itemsets share support 3: threshold mining would never finish; the search is exact
    # above the cut and caps the ties.
    long_rec = [f"t{i:02d}" for i in range(80)]
    recs = [long_rec] * 3 + [["t00", "x"], ["x"], ["x", "y"]]
    ds = TransactionDataset.from_records(recs)
    res = top_k_search(ds, 5)
    assert res.kth_support == 3 and res.truncated and len(res.itemsets) == 50
    assert res.itemsets[frozenset(["t00"])] == 4
    assert all(n == 3 for s, n in res.itemsets.items() if s != frozenset(["t00"]))
    assert max(len(s) for s in res.itemsets) == 1  # the 80 tied single terms come before any pair
    # the reconstruction side: only s'_K and direct counts, whatever the record lengths
    # FI = {x}, {y}, {t00}, {x,y} (s_2 = 1); s'_2 = 3 keeps {x} (3) and {t00} (4)
    assert tkd(TransactionDataset.from_records([["x"], ["x", "y"], ["t00"]]), ds, 2) == pytest.approx(0.5)
    rel = Release({"k": 2, "m": 2}, [Cluster("P", 6, [[tuple(long_rec)] * 3 + [("t00", "x"), ("x",), ("x", "y")]],
                                                       [])])
    with pytest.warns(RuntimeWarning, match="tie at the top-5 cut"):
        rep = utility_report(ds, rel, top_k=5, re_range=(0, 4))
    assert rep.tkd == 0.0 and rep.tkd_a == 0.0 and len(rep.warnings) == 1


def test_tkd_hand_computed():
    assert tkd(O, O, top_k=3) == 0.0
    # FI = {a}, {b}, {a,b}; FI' = {a}, {c}, {a,c}: one of three kept
    assert tkd(O, R2, top_k=3) == pytest.approx(2 / 3)


def test_ranked_terms_break_ties_by_term():
    assert ranked_terms(O, (0, 3)) == ["a", "b", "c"]
    assert ranked_terms(O, (1, 10)) == ["b", "c"]
    with pytest.raises(InputError, match="only 3 distinct terms"):
        ranked_terms(O, (200, 220))
    with pytest.raises(InputError, match="0 <= start < end"):
        ranked_terms(O, (5, 5))


def test_re_hand_computed():
    assert re(O, O, (0, 3)) == 0.0
    # pairs: ab 2 vs 0 -> 2; ac 1 vs 2 -> 1/1.5; bc 0 vs 0 -> left out
    assert re(O, R2, (0, 3)) == pytest.approx((2 + 2 / 3) / 2)
    # averaged supports over [R2, O]: ab 1 -> 1/1.5; ac 1.5 -> 0.5/1.25
    assert re(O, [R2, O], (0, 3)) == pytest.approx((2 / 3 + 0.4) / 2)


def small_release(term_chunk=("c",), chunk=(("a", "b"), ("a", "b"), ("a",), ("b",))):
    return Release({"k": 2, "m": 2}, [Cluster("P", 4, [list(chunk)], list(term_chunk))])


def test_a_variants_hand_computed():
    rel = small_release()
    # sub-records: ab x2, a, b -> a 3, b 3, ab 2: the same top-3 as O
    assert tkd_a(O, rel, top_k=3) == 0.0
    # ab 2 vs 2 -> 0; ac 1 vs 0 -> 2; bc left out
    assert re_a(O, rel, (0, 3)) == pytest.approx(1.0)
    split = Release({"k": 2, "m": 2}, [Cluster("P", 4, [[("a",)] * 3, [("b",)] * 3], ["c"])])
    # {a,b} is never in one sub-record: FI' = {a}, {b} (support 3) -> 1/3 lost
    assert tkd_a(O, split, top_k=3) == pytest.approx(1 / 3)


def test_tlost_hand_computed():
    # k = 2: a and b have support >= 2; c (support 1) does not count
    assert tlost(small_release(), O) == 0.0
    lost_b = Release({"k": 2, "m": 2}, [Cluster("P", 4, [[("a",)] * 3], ["b", "c"])])
    assert tlost(lost_b, O) == pytest.approx(0.5)
    # without the original, supports are lower bounds: b counts 1 (one term chunk) < k
    assert tlost(lost_b, None) == 0.0
    two = Release({"k": 2, "m": 2}, [Cluster("P", 2, [[("a",)] * 2], ["b"]), Cluster("Q", 2, [[("a",)] * 2], ["b"])])
    # b's lower bound is 2 = k: "support more than k" (Terrovitis2012 7.1) leaves it out, the variant counts it
    assert tlost(two, None) == 0.0
    assert tlost(two, None, at_least_k=True) == pytest.approx(0.5)


def test_tlost_more_than_k_as_printed():
    # supports: a 3, b 2, c 2 with k = 2; b and c sit only in term chunks.
    original = TransactionDataset.from_records([["a", "b"], ["a", "c"], ["a", "b", "c"]])
    rel = Release({"k": 2, "m": 2}, [Cluster("P", 3, [[("a",)] * 3], ["b", "c"])])
    # Terrovitis2012 7.1 traces "terms ... that have support more than k": only a (3 > 2), kept -> 0
    assert tlost(rel, original) == 0.0
    # the variant traces support >= k: a, b, c, of which b and c are lost -> 2/3
    assert tlost(rel, original, at_least_k=True) == pytest.approx(2 / 3)


def test_utility_report_on_figure2():
    original, rel = toy_dataset("terrovitis2012-fig2"), fig2b()
    rep = utility_report(original, rel, reconstructions=3, seed=5, top_k=10, re_range=(0, 6))
    runs = [reconstruct(rel, seed=s) for s in (5, 6, 7)]
    assert rep.tkd_runs == [tkd(original, ds, 10) for ds in runs]
    assert rep.tkd == pytest.approx(sum(rep.tkd_runs) / 3)
    assert rep.re == pytest.approx(re(original, runs, (0, 6)))
    assert rep.re_runs == [pytest.approx(re(original, ds, (0, 6))) for ds in runs]
    assert rep.tkd_a == tkd_a(original, rel, 10) and rep.re_a == re_a(original, rel, (0, 6))
    # k = 3: ikea (4) and ruby (4) have support more than k but stay in term chunks; 7 terms have support > 3
    frequent = [t for t, n in original.supports().items() if n > 3]
    assert len(frequent) == 7 and rep.tlost == pytest.approx(2 / 7)
    # the variant: 9 terms reach support 3 (audi a4 and sony tv too, both kept in a record chunk)
    assert rep.tlost_at_least_k == pytest.approx(2 / 9)
    # RAE as printed is signed; its absolute reading is re itself
    assert rep.rae_abs == pytest.approx(rep.re) and abs(rep.rae) <= rep.rae_abs + 1e-12
    assert 0 <= rep.re <= 2 and 0 <= rep.tkd <= 1
    assert rep.as_dict()["re_range"] == [0, 6]


def test_utility_report_rejects_mismatched_inputs():
    with pytest.raises(InputError, match="it has 4 records, the release needs 10"):
        utility_report(O, fig2b(), re_range=(0, 3))
    with pytest.raises(InputError, match="reconstructions"):
        utility_report(toy_dataset("terrovitis2012-fig2"), fig2b(), reconstructions=0, re_range=(0, 3))


@settings(max_examples=40, deadline=None)
@given(tracts=st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=6), min_size=1, max_size=12),
       top=st.integers(1, 20))
def test_pair_product_and_per_itemset_counting_agree(tracts, top):
    import anonymizer.evaluation.topk as utility

    ds = TransactionDataset.from_records(tracts)
    with_product = top_k_search(ds, top, max_itemsets=10_000)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(utility, "_GRAM_LIMIT", 0)
        without = top_k_search(ds, top, max_itemsets=10_000)
    assert with_product == without
    brute = brute_itemsets(tracts)
    if brute:
        ranked = sorted(brute.values(), reverse=True)
        cut = ranked[top - 1] if len(ranked) >= top else 1
        assert without.itemsets == {s: n for s, n in brute.items() if n >= cut}


# ---------------------------------------------------------------- Terrovitis2012 Figure 7d
def test_re_by_rank_matches_re_on_the_same_reconstructions():
    from anonymizer.disassociation.pipeline import disassociate
    from anonymizer.evaluation.reconstruct import reconstruct
    from anonymizer.evaluation.utility import re, re_by_rank
    from corpora.registry import load_dataset

    ds = load_dataset("synthetic:records=3000,domain=300,avg_length=6,seed=4")
    release, _ = disassociate(ds, k=3, m=2, max_cluster_size=12, horpart="original", verpart="original", seed=1)
    windows = [(0, 20), (40, 60)]
    got = re_by_rank(ds, release, windows, averaged=(1, 3), seed=5)
    assert set(got) == {(0, 1), (0, 3), (40, 1), (40, 3)}
    runs = [reconstruct(release, seed=5 + i) for i in range(3)]
    for lo, hi in windows:
        assert got[(lo, 1)] == pytest.approx(re(ds, runs[0], (lo, hi)))
        assert got[(lo, 3)] == pytest.approx(re(ds, runs, (lo, hi)))


def test_re_by_rank_rejects_bad_settings():
    from anonymizer.disassociation.pipeline import disassociate
    from anonymizer.evaluation.utility import re_by_rank
    from corpora.registry import load_dataset

    ds = load_dataset("synthetic:records=500,domain=40,avg_length=4,seed=0")
    release, _ = disassociate(ds, k=2, m=2, max_cluster_size=8, seed=0)
    with pytest.raises(InputError, match="at least 1"):
        re_by_rank(ds, release, [(0, 10)], averaged=(0,))
    with pytest.raises(InputError, match="distinct terms"):
        re_by_rank(ds, release, [(100, 120)])


# ---------------------------------------------------------------- default re range (Terrovitis2012 section 7.1)
def test_default_re_range_adapts_to_small_vocabularies():
    from anonymizer.evaluation.utility import DEFAULT_RE_RANGE, distinct_terms, resolve_re_range

    def vocab(n):
        return TransactionDataset.from_records([[f"t{i:03d}" for i in range(n)]])

    assert DEFAULT_RE_RANGE == (200, 220)
    assert resolve_re_range(vocab(300)) == ((200, 220), False)
    assert resolve_re_range(vocab(220)) == ((200, 220), False)
    assert resolve_re_range(vocab(216)) == ((196, 216), True)
    assert resolve_re_range(vocab(20)) == ((0, 20), True)
    assert resolve_re_range(vocab(12)) == ((0, 12), True)
    assert resolve_re_range(vocab(2)) == ((0, 2), True)
    with pytest.raises(InputError, match="at least 2"):
        resolve_re_range(vocab(1))
    # an explicit range is kept as given (the API's old behaviour); strict: it must fit, named by label
    assert resolve_re_range(vocab(216), (200, 220)) == ((200, 220), False)
    assert resolve_re_range(vocab(216), (10, 30), strict=True, label="--re-range") == ((10, 30), False)
    with pytest.raises(InputError, match=r"^--re-range 200 220: .* only 216 distinct terms"):
        resolve_re_range(vocab(216), (200, 220), strict=True, label="--re-range")
    with pytest.raises(InputError, match="START < END"):
        resolve_re_range(vocab(216), (5, 5))
    # terms without support hold no rank
    empty_term = TransactionDataset.from_records([["a", "b"], ["b", "c"]])
    assert distinct_terms(empty_term) == 3


def test_utility_report_default_range_on_figure2():
    original, rel = toy_dataset("terrovitis2012-fig2"), fig2b()
    rep = utility_report(original, rel, top_k=10)
    assert rep.re_range == (0, 12) and rep.re_range_adapted
    assert rep.re == pytest.approx(re(original, reconstruct(rel, seed=0), (0, 12)))
    assert rep.as_dict()["re_range_adapted"] is True
    explicit = utility_report(original, rel, top_k=10, re_range=(0, 12))
    assert explicit.re == rep.re and not explicit.re_range_adapted
    # not safe, no before: RLM n/a; RAE's absolute reading is re on the same reconstructions
    assert rep.rlm is None and rep.rae_abs == pytest.approx(rep.re) and rep.rae != rep.rae_abs


# ---------------------------------------------------------------- safe releases (Awad2019)
SAFE_SPEC = "synthetic:records=2000,domain=150,avg_length=6,seed=1"


@pytest.fixture(scope="module")
def safe_pair():
    from anonymizer.disassociation.pipeline import disassociate
    from anonymizer.disassociation.safe import safe_disassociate_report
    from corpora.registry import load_dataset

    ds = load_dataset(SAFE_SPEC)
    release, truth = disassociate(ds, k=3, m=2, max_cluster_size=30, seed=1)
    result = safe_disassociate_report(release, truth, seed=1)
    assert result.ghost_records > 0 and result.release.n_records > len(ds)  # the case that used to be refused
    return ds, release, result.release


def test_utility_report_scores_a_safe_release(safe_pair):
    from anonymizer.evaluation.safe_metrics import rae, rlm

    ds, before, safe = safe_pair
    rep = utility_report(ds, safe, reconstructions=2, seed=3, top_k=100, before=before)
    # 150 distinct terms: the default 200-220 adapts to the last 20 ranks
    assert rep.re_range == (130, 150) and rep.re_range_adapted
    runs = [reconstruct(safe, seed=s) for s in (3, 4)]
    assert all(len(r) == safe.n_records for r in runs)  # the ghost records are reconstructed too
    assert rep.tkd_runs == [tkd(ds, r, 100) for r in runs]
    assert rep.re == pytest.approx(re(ds, runs, (130, 150)))
    assert rep.tkd_a == tkd_a(ds, safe, 100) and rep.re_a == re_a(ds, safe, (130, 150))
    assert rep.tlost == tlost(safe, ds)
    assert rep.rlm == rlm(before, safe) and 0 < rep.rlm < 1
    assert rep.rae == pytest.approx(rae(ds, safe, reconstructions=2, seed=3, rank_range=(130, 150)))
    assert rep.rae_abs == pytest.approx(rae(ds, safe, reconstructions=2, seed=3, rank_range=(130, 150),
                                            absolute=True)) == pytest.approx(rep.re)
    out = rep.as_dict()
    assert out["rlm"] == rep.rlm and out["rae"] == rep.rae and out["re_range"] == [130, 150]
    # without before: no RLM, the rest unchanged
    alone = utility_report(ds, safe, reconstructions=2, seed=3, top_k=100)
    assert alone.rlm is None and alone.tkd == rep.tkd and alone.re == rep.re


def test_utility_report_refuses_a_safe_release_of_another_dataset(safe_pair):
    from anonymizer.evaluation.utility import re_by_rank
    from corpora.registry import load_dataset

    ds, before, safe = safe_pair
    with pytest.raises(InputError, match="does not match the release: it has 10 records"):
        utility_report(toy_dataset("terrovitis2012-fig2"), safe)
    # as many records as the original, other terms
    other = load_dataset("kosarak10k").subset(range(len(ds)))
    with pytest.raises(InputError, match="published terms are not in it"):
        utility_report(other, safe, label="INPUT kosarak10k")
    with pytest.raises(InputError, match="^INPUT kosarak10k does not match"):
        utility_report(other, safe, label="INPUT kosarak10k")
    with pytest.raises(InputError, match="does not match the release"):
        re_by_rank(other, safe, [(0, 20)], averaged=(1,))
    assert set(re_by_rank(ds, safe, [(0, 20)], averaged=(1,))) == {(0, 1)}


def test_utility_report_refuses_a_before_that_does_not_fit(safe_pair):
    from anonymizer.disassociation.pipeline import disassociate

    ds, before, safe = safe_pair
    with pytest.raises(InputError, match="not a safe release"):
        utility_report(ds, before, top_k=50, before=before)
    with pytest.raises(InputError, match="is a safe release"):
        utility_report(ds, safe, top_k=50, before=safe)
    other_k, _ = disassociate(ds, k=4, m=2, max_cluster_size=30, seed=1)
    with pytest.raises(InputError, match=r"params\.k is 4 there, 3 in the safe release"):
        utility_report(ds, safe, top_k=50, before=other_k)
    other_horpart, _ = disassociate(ds, k=3, m=2, max_cluster_size=30, seed=1, horpart="suppression")
    with pytest.raises(InputError, match="params.horpart"):
        utility_report(ds, safe, top_k=50, before=other_horpart)
    moved = Release(dict(before.params), list(reversed(before.clusters)), before.joint_clusters)
    with pytest.raises(InputError, match="clusters are not the safe release's"):
        utility_report(ds, safe, top_k=50, before=moved)

