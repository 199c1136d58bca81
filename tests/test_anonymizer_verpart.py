"""VERPART (Terrovitis2012 section 4), its AlShuhail2021 3.3.3 variants and Lemma 2 (section 5)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.disassociation.verpart import (
    extends_km,
    group_terms,
    is_km_anonymous,
    lemma2_holds,
    partition_clusters,
    verpart,
)
from anonymizer.evaluation.verify import verify
from anonymizer.model.release import Cluster, Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.synthetic.toy import toy_dataset


def _sets(chunks):
    return {frozenset(c) for c in chunks}


# ---------------------------------------------------------------------------------------------
# Golden: the papers' worked examples
# ---------------------------------------------------------------------------------------------


VARIANTS = ["original", "strict", "grouped"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_terrovitis_figure2_p1(variant):
    ds = toy_dataset("terrovitis2012-fig2")
    vp = verpart(ds, [0, 1, 2, 3, 4], k=3, m=2, variant=variant)
    assert vp.chunk_terms == [["flu", "itunes", "madonna"], ["audi a4", "sony tv"]]
    assert vp.term_chunk == ["ikea", "ruby", "viagra"]
    assert vp.records.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("variant", VARIANTS)
def test_terrovitis_figure2_p2(variant):
    ds = toy_dataset("terrovitis2012-fig2")
    vp = verpart(ds, [5, 6, 7, 8, 9], k=3, m=2, variant=variant)
    assert vp.chunk_terms == [["digital camera", "iphone sdk", "madonna"]]
    assert vp.term_chunk == ["ikea", "panic disorder", "playboy", "ruby"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_terrovitis_figure2_subrecords(variant):
    """The record chunks of Figure 2b, sub-record by sub-record (as bags)."""
    ds = toy_dataset("terrovitis2012-fig2")
    table = partition_clusters(ds, [np.arange(5), np.arange(5, 10)], k=3, m=2, variant=variant)
    from anonymizer.disassociation.pipeline import build_release

    release, truth = build_release(table, [], {"k": 3, "m": 2}, seed=0)
    p1, p2 = release.clusters
    assert Counter(p1.record_chunks[0]) == Counter({
        ("flu", "itunes", "madonna"): 2, ("flu", "madonna"): 1, ("itunes", "madonna"): 1, ("flu", "itunes"): 1})
    assert Counter(p1.record_chunks[1]) == Counter({("audi a4", "sony tv"): 3})
    assert Counter(p2.record_chunks[0]) == Counter({
        ("digital camera", "madonna"): 1, ("iphone sdk", "madonna"): 1, ("digital camera", "iphone sdk"): 1,
        ("digital camera", "iphone sdk", "madonna"): 2})
    # the truth maps each listed sub-record to its record, e.g. r_2 (id 1) holds {audi a4, sony tv}
    assert sorted(truth.clusters[0].record_chunks[1]) == [1, 2, 4]
    assert truth.clusters[0].term_chunk == {"ikea": [0, 2], "ruby": [0, 1], "viagra": [1, 3]}
    assert verify(release).ok


COUNTEREXAMPLE = [["w", "x", "z"], ["x", "z"], ["x"], ["y"], ["y"], ["y", "z"]]


@pytest.mark.parametrize("variant,chunks", [
    ("original", [["x", "y"], ["z"]]),  # x and y never meet: no obstacle; {y,z} appears once: z waits
    ("strict", [["x", "z"], ["y"]]),  # {x,y} has support 0: a violation of the whole-set reading
    ("grouped", [["x", "z"], ["y"]]),  # the group {y} meets z once, so it cannot share {x,z}'s chunk
])
def test_terrovitis_verpart_counterexample(variant, chunks):
    """k=2, m=2: Terrovitis2012's VERPART (only combinations that appear need k) differs from both variants."""
    ds = TransactionDataset.from_records(COUNTEREXAMPLE)
    vp = verpart(ds, range(6), k=2, m=2, variant=variant)
    assert vp.chunk_terms == chunks
    assert vp.term_chunk == ["w"]


def test_terrovitis_verpart_counterexample_release():
    """The same data through disassociate(--horpart original --verpart original): chunks as bags."""
    ds = TransactionDataset.from_records(COUNTEREXAMPLE)
    release, truth = disassociate(ds, 2, 2, 6, horpart="original", verpart="original", refine=False)
    (cluster,) = release.clusters
    assert [Counter(c) for c in cluster.record_chunks] == [Counter({("x",): 3, ("y",): 3}),
                                                           Counter({("z",): 3})]
    assert cluster.term_chunk == ["w"]
    assert verify(release).ok


def test_alshuhail_table34_original_shares_a_chunk():
    """Table 3.4 under Terrovitis2012's rule: surgery and failure never meet, so they share a chunk."""
    ds = toy_dataset("alshuhail2021-table3.4")
    vp = verpart(ds, range(4), k=2, m=2, variant="original")
    assert any({"surgery", "failure"} <= set(c) for c in vp.chunk_terms)


def test_alshuhail_table33_strict():
    ds = toy_dataset("alshuhail2021-table3.2")
    vp = verpart(ds, range(4), k=2, m=2, variant="strict")
    want = {frozenset({"blood", "cancer", "lung", "treatment"}), frozenset({"biopsy", "tumor"})}
    assert _sets(vp.chunk_terms) == want
    assert vp.term_chunk == ["catheterisation", "radiotherapy", "vessel"]


def test_alshuhail_table37_strict_three_chunks():
    """Table 3.7: surgery and failure never meet, so the strict reading separates them."""
    ds = toy_dataset("alshuhail2021-table3.4")
    vp = verpart(ds, range(4), k=2, m=2, variant="strict")
    assert _sets(vp.chunk_terms) == {frozenset({"kidney", "infection"}), frozenset({"surgery"}), frozenset({"failure"})}
    assert vp.term_chunk == ["catheterisation", "dialysis", "sepsis"]


def test_alshuhail_table38_grouped_two_chunks():
    """Table 3.8: the groups {surgery} and {failure} share no combination and share a chunk."""
    ds = toy_dataset("alshuhail2021-table3.4")
    vp = verpart(ds, range(4), k=2, m=2, variant="grouped")
    assert _sets(vp.chunk_terms) == {frozenset({"kidney", "infection"}), frozenset({"surgery", "failure"})}
    assert vp.term_chunk == ["catheterisation", "dialysis", "sepsis"]


@pytest.mark.parametrize("variant,expected", [
    ("strict", [Counter({("infection", "kidney"): 2, ("kidney",): 1, ("infection",): 1}),
                Counter({("surgery",): 2}), Counter({("failure",): 2})]),
    ("grouped", [Counter({("infection", "kidney"): 2, ("kidney",): 1, ("infection",): 1}),
                 Counter({("surgery",): 2, ("failure",): 2})]),
])
def test_alshuhail_tables37_38_subrecords(variant, expected):
    ds = toy_dataset("alshuhail2021-table3.4")
    release, _ = disassociate(ds, k=2, m=2, max_cluster_size=4, verpart=variant, refine=False, seed=0)
    (cluster,) = release.clusters
    got = [Counter(chunk) for chunk in cluster.record_chunks]
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    assert cluster.term_chunk == ["catheterisation", "dialysis", "sepsis"]
    assert verify(release).ok


# ---------------------------------------------------------------------------------------------
# Lemma 2 (Terrovitis2012 section 5, Example 1 / Figure 4)
# ---------------------------------------------------------------------------------------------

EXAMPLE1 = [["a", "b", "c"], ["a"], ["a"], ["b", "c"], ["b", "c"]]


def test_lemma2_example1_moves_least_frequent_term():
    """Example 1: T_1={a}, T_2={b,c}, empty term chunk, 6 < 5 + 3*(2-1) sub-records: a term must move."""
    ds = TransactionDataset.from_records(EXAMPLE1)
    vp = verpart(ds, range(5), k=3, m=2)
    # a, b, c all have support 3; the tie goes to the term met last (c) -> T_T = {c}
    assert vp.chunk_terms == [["a"], ["b"]]
    assert vp.term_chunk == ["c"]


def test_lemma2_example1_unsafe_release_is_caught_by_verify():
    """The Figure 4b release without the Lemma 2 move is flagged; ours passes."""
    unsafe = Release({"k": 3, "m": 2}, [Cluster("P1", 5, [[("a",)] * 3, [("b", "c")] * 3], [])])
    assert not verify(unsafe).ok
    release, _ = disassociate(TransactionDataset.from_records(EXAMPLE1), 3, 2, 5, refine=False, seed=0)
    assert verify(release).ok
    assert release.clusters[0].term_chunk == ["c"]


def test_lemma2_condition():
    assert not lemma2_holds(5, 6, 2, 3, 2, term_chunk_empty=True)  # 6 < 5 + 3
    assert lemma2_holds(5, 8, 2, 3, 2, term_chunk_empty=True)
    assert lemma2_holds(5, 0, 2, 3, 2, term_chunk_empty=False)
    assert lemma2_holds(5, 5, 1, 3, 2, term_chunk_empty=True)  # h = min(m, v) = 1


def test_lemma2_holds_without_move_when_enough_subrecords():
    # every record holds a and b; one chunk {a, b}: 5 sub-records >= 5 + 3*(1-1)
    ds = TransactionDataset.from_records([["a", "b"]] * 5)
    vp = verpart(ds, range(5), k=3, m=2)
    assert vp.chunk_terms == [["a", "b"]] and vp.term_chunk == []


# ---------------------------------------------------------------------------------------------
# The incremental k^m test against brute force
# ---------------------------------------------------------------------------------------------


def brute_km(subrecords, k, m):
    counts = Counter()
    for sub in subrecords:
        s = sorted(set(sub))
        for size in range(1, min(m, len(s)) + 1):
            counts.update(itertools.combinations(s, size))
    return all(v >= k for v in counts.values())


def brute_all_combos(records, terms, k, m):
    """Strict reading: every combination of <= m of ``terms`` is held by >= k records."""
    for size in range(1, min(m, len(terms)) + 1):
        for combo in itertools.combinations(terms, size):
            if sum(1 for r in records if set(combo) <= r) < k:
                return False
    return True


subrecord_lists = st.lists(st.frozensets(st.sampled_from("abcdefg"), min_size=1, max_size=5), min_size=0, max_size=14)


@settings(max_examples=60, deadline=None)
@given(subs=subrecord_lists, k=st.integers(2, 4), m=st.integers(1, 4))
def test_is_km_anonymous_matches_brute_force(subs, k, m):
    assert is_km_anonymous(subs, k, m) == brute_km(subs, k, m)


@settings(max_examples=60, deadline=None)
@given(records=st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=6), min_size=1, max_size=14),
       k=st.integers(2, 4), m=st.integers(1, 4), zero_ok=st.booleans())
def test_extends_km_matches_brute_force(records, k, m, zero_ok):
    terms = sorted({t for r in records for t in r})
    bits = {t: sum(1 << i for i, r in enumerate(records) if t in r) for t in terms}
    if len(terms) < 1:
        return
    *current, cand = terms
    frequent = [t for t in current if bits[t].bit_count() >= k]
    got = extends_km([bits[t] for t in frequent], bits[cand], k, m, zero_ok)
    # brute force over the combinations that contain the candidate and 1..m-1 current terms
    want = True
    for size in range(1, min(m - 1, len(frequent)) + 1):
        for combo in itertools.combinations(frequent, size):
            s = sum(1 for r in records if cand in r and set(combo) <= r)
            if s < k and (s > 0 or not zero_ok):
                want = False
    assert got == want


@settings(max_examples=40, deadline=None)
@given(records=st.lists(st.frozensets(st.sampled_from("abcdefgh"), min_size=1, max_size=6), min_size=2, max_size=16),
       k=st.integers(2, 4), m=st.integers(1, 3))
def test_group_terms_strict_groups_are_whole_km(records, k, m):
    terms = sorted({t for r in records for t in r})
    bits = [sum(1 << i for i, r in enumerate(records) if t in r) for t in terms]
    order = [i for i in range(len(terms)) if bits[i].bit_count() >= k]
    groups = group_terms([bits[i] for i in order], k, m, zero_ok=False)
    assert sorted(i for g in groups for i in g) == list(range(len(order)))
    for g in groups:
        assert brute_all_combos(records, [terms[order[i]] for i in g], k, m)


@settings(max_examples=40, deadline=None)
@given(records=st.lists(st.frozensets(st.sampled_from("abcdefghij"), min_size=1, max_size=6), min_size=3, max_size=18),
       k=st.integers(2, 4), m=st.integers(1, 3), variant=st.sampled_from(VARIANTS))
def test_verpart_chunks_km_anonymous_and_exhaustive(records, k, m, variant):
    ds = TransactionDataset.from_records(records)
    vp = verpart(ds, range(len(ds)), k, m, variant)
    chunk_terms = [t for c in vp.chunk_terms for t in c]
    assert len(chunk_terms) == len(set(chunk_terms))
    assert set(chunk_terms) | set(vp.term_chunk) == set(ds.vocabulary)
    assert not set(chunk_terms) & set(vp.term_chunk)
    supports = ds.supports()
    for t in vp.term_chunk:  # only rare terms or the Lemma 2 victim leave the record chunks
        assert supports[t] < k or len([x for x in vp.term_chunk if supports[x] >= k]) == 1
    for terms in vp.chunk_terms:
        subs = [r & set(terms) for r in records]
        assert brute_km([s for s in subs if s], k, m)
        if variant == "strict":
            assert brute_all_combos(records, terms, k, m)
    nonempty = sum(1 for terms in vp.chunk_terms for r in records if r & set(terms))
    assert lemma2_holds(len(records), nonempty, len(vp.chunk_terms), k, m, not vp.term_chunk)


@settings(max_examples=40, deadline=None)
@given(records=st.lists(st.frozensets(st.sampled_from("abcdefgh"), min_size=1, max_size=6), min_size=2, max_size=16),
       k=st.integers(2, 4), m=st.integers(1, 3))
def test_group_terms_original_is_the_papers_greedy_loop(records, k, m):
    """Terrovitis2012 VERPART lines 8-15 with a brute-force k^m test on the projected chunk."""
    terms = sorted({t for r in records for t in r})
    support = {t: sum(1 for r in records if t in r) for t in terms}
    ordered = sorted((t for t in terms if support[t] >= k), key=lambda t: (-support[t], t))
    bits = [sum(1 << i for i, r in enumerate(records) if t in r) for t in ordered]
    got = [[ordered[i] for i in g] for g in group_terms(bits, k, m, zero_ok=True)]
    want, remain = [], list(ordered)
    while remain:
        cur = []
        for t in remain:
            test = [r & set(cur + [t]) for r in records]
            if brute_km([s for s in test if s], k, m):
                cur.append(t)
        want.append(cur)
        remain = [t for t in remain if t not in cur]
    assert got == want


def test_extends_km_leaves_no_reference_cycle():
    """disassociate() pauses the cyclic collector: a k^m test must not leave garbage cycles (issue 9).

    Counted in a fresh interpreter: in a test worker, threads other tests left (a browser pipe, a
    database driver, tqdm's monitor) may make cycles of their own while the collector is off.
    """
    import subprocess
    import sys

    code = (
        "import gc\n"
        "from anonymizer.disassociation.verpart import extends_km\n"
        "current = [0b111100, 0b011110, 0b001111, 0b110011]\n"
        "gc.collect()\n"
        "gc.disable()\n"
        "for m in (2, 3, 4):\n"
        "    for _ in range(200):\n"
        "        extends_km(current, 0b101101, 2, m, zero_ok=True)\n"
        "        extends_km(current, 0b101101, 2, m, zero_ok=False)\n"
        "print(gc.collect())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert int(done.stdout) == 0


def test_grouped_never_more_chunks_than_strict():
    ds = toy_dataset("alshuhail2021-table3.4")
    strict = verpart(ds, range(4), 2, 2, "strict")
    grouped = verpart(ds, range(4), 2, 2, "grouped")
    assert len(grouped.chunk_terms) < len(strict.chunk_terms)


def test_m1_puts_every_frequent_term_in_one_chunk():
    ds = toy_dataset("alshuhail2021-table3.4")
    vp = verpart(ds, range(4), k=2, m=1)
    assert vp.chunk_terms == [["failure", "infection", "kidney", "surgery"]]


def test_large_cluster_uses_python_bitsets():
    """Clusters over 64 records take the arbitrary-precision path; same answer as a brute check."""
    rng = np.random.default_rng(3)
    records = [set(rng.choice(list("abcdef"), size=rng.integers(1, 5), replace=False)) for _ in range(150)]
    ds = TransactionDataset.from_records(records)
    vp = verpart(ds, range(150), k=5, m=3)
    for terms in vp.chunk_terms:
        assert brute_all_combos(records, terms, 5, 3)


def test_bad_variant_and_parameters():
    ds = toy_dataset("alshuhail2021-table3.4")
    with pytest.raises(InputError, match="verpart variant 'loose'; choose one of: original, strict, grouped"):
        verpart(ds, range(4), 2, 2, "loose")
    with pytest.raises(InputError, match="k must be"):
        verpart(ds, range(4), 1, 2)
    with pytest.raises(InputError, match="m must be"):
        verpart(ds, range(4), 2, 0)
    with pytest.raises(InputError, match="overlap"):
        partition_clusters(ds, [np.array([0, 1]), np.array([1, 2])], 2, 2)
