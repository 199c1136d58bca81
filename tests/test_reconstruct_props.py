"""reconstruct(): every sample is a valid member of the inverse transformation (hypothesis + examples)."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paper_examples import fig2b

from anonymizer.evaluation.reconstruct import reconstruct, reconstruct_many
from anonymizer.model.release import Cluster, JointCluster, Release
from corpora.common.errors import InputError


@st.composite
def releases(draw, joint=False):
    """Random hand-built releases: clusters with disjoint chunk domains, optional (nested) joint clusters.

    ``joint=True`` always builds a joint cluster, with a T^r term in its shared chunk when possible.
    """
    k = draw(st.integers(2, 4))
    clusters = []
    for ci in range(draw(st.integers(2 if joint else 1, 4))):
        size = draw(st.integers(1, 7))
        chunks = []
        for j in range(draw(st.integers(0, 3))):
            dom = [f"c{ci}r{j}t{x}" for x in range(draw(st.integers(1, 3)))]
            subs = draw(st.lists(st.frozensets(st.sampled_from(dom), min_size=1), max_size=size))
            if subs:
                chunks.append([tuple(sorted(s)) for s in subs])
        term_chunk = [f"c{ci}T{x}" for x in range(draw(st.integers(0, 3)))]
        if not term_chunk and sum(map(len, chunks)) < size:  # keep a valid reconstruction possible
            chunks.append([(f"c{ci}f",)] * size)
        clusters.append(Cluster(f"P{ci}", size, chunks, term_chunk))
    joints = []
    if len(clusters) >= 2 and (joint or draw(st.booleans())):
        cut = draw(st.integers(2, len(clusters)))
        leaves = clusters[:cut]
        capacity = sum(c.size for c in leaves)
        shared = []
        # a shared chunk may hold a term of a leaf's record chunk (a T^r term); such a sub-record
        # never goes to a leaf listing the term, so keep it placeable on the other leaves
        leaf_terms = {t for c in leaves for ch in c.record_chunks for sub in ch for t in sub}
        wanted = joint or draw(st.booleans())
        conflict = draw(st.sampled_from(sorted(leaf_terms))) if leaf_terms and wanted else None
        dom = ["s0", "s1"] + ([conflict] if conflict else [])
        n = draw(st.integers(1, capacity))
        subs = draw(st.lists(st.frozensets(st.sampled_from(dom), min_size=1), min_size=1, max_size=n))
        if conflict:
            room = sum(c.size for c in leaves if conflict not in c.record_terms())
            with_conflict = [s for s in subs if conflict in s][:room]
            subs = [s for s in subs if conflict not in s] + with_conflict
        if subs:
            shared.append([tuple(sorted(s)) for s in subs])
        joints.append(JointCluster("J0", [c.id for c in leaves], shared))
        if cut < len(clusters) and (joint or draw(st.booleans())):
            extra = clusters[cut]
            cap2 = capacity + extra.size
            subs2 = draw(st.lists(st.just(("u0",)), min_size=1, max_size=cap2))
            joints.append(JointCluster("J1", ["J0", extra.id], [subs2]))
    return Release({"k": k, "m": 2}, clusters, joints)


def published_occurrences(release):
    occ = Counter(t for c in release.clusters for ch in c.record_chunks for sub in ch for t in sub)
    occ.update(t for j in release.joint_clusters for ch in j.shared_chunks for sub in ch for t in sub)
    return occ


def slices(release):
    start = 0
    for c in release.clusters:
        yield c, start, start + c.size
        start += c.size


def check_valid(release, ds, term_rule="one"):
    assert len(ds) == release.n_records
    records = ds.records
    # no term occurrence collapses: every record/shared-chunk term keeps its exact support
    support = Counter(t for r in records for t in r)
    term_chunk_terms = {t for c in release.clusters for t in c.term_chunk}
    for t, n in published_occurrences(release).items():
        if t not in term_chunk_terms:
            assert support[t] == n, t
    shared_terms = {t for j in release.joint_clusters for ch in j.shared_chunks for sub in ch for t in sub}
    for c, lo, hi in slices(release):
        part = records[lo:hi]
        # each record chunk is exactly the bag of the non-empty projections of the cluster's records
        for chunk in c.record_chunks:
            dom = {t for sub in chunk for t in sub}
            if dom & shared_terms:
                continue
            got = Counter(tuple(sorted(r & dom)) for r in part if r & dom)
            assert got == Counter(chunk)
        # term-chunk terms land inside the cluster: 1..min(k-1, size) records ("uniform") or 1 ("one"),
        # more only to fill records that got no other piece (round robin over the term chunk)
        bare = sum(1 for r in part if not any(t not in c.term_chunk for t in r))
        forced = -(-bare // len(c.term_chunk)) if c.term_chunk else 0
        top = 1 if term_rule == "one" else max(1, min(release.k - 1, c.size))
        for t in c.term_chunk:
            holders = sum(1 for r in part if t in r)
            assert 1 <= holders <= max(top, forced)
        assert all(part), "a valid reconstruction has no empty record"


@settings(max_examples=50, deadline=None)
@given(release=releases(), seed=st.integers(0, 2**32 - 1))
def test_reconstruction_is_valid(release, seed):
    check_valid(release, reconstruct(release, seed=seed, term_rule="uniform"), term_rule="uniform")


@settings(max_examples=40, deadline=None)
@given(release=releases(joint=True), seed=st.integers(0, 2**32 - 1))
def test_reconstruction_with_joint_clusters_is_valid(release, seed):
    check_valid(release, reconstruct(release, seed=seed), term_rule="one")


@settings(max_examples=30, deadline=None)
@given(release=releases(), seed=st.integers(0, 1000))
def test_reconstruction_is_valid_with_one_record_per_term(release, seed):
    check_valid(release, reconstruct(release, seed=seed, term_rule="one"), term_rule="one")


@settings(max_examples=30, deadline=None)
@given(release=releases(), seed=st.integers(0, 1000))
def test_same_seed_same_dataset(release, seed):
    a, b = reconstruct(release, seed=seed), reconstruct(release, seed=seed)
    assert a.sorted_records() == b.sorted_records()
    assert a.vocabulary == b.vocabulary
    assert (a.indptr == b.indptr).all() and (a.indices == b.indices).all()


def test_fig2b_reconstructions_differ_by_seed_and_are_valid():
    rel = fig2b()
    runs = reconstruct_many(rel, range(8))
    for ds in runs:
        check_valid(rel, ds)
        # madonna is in both clusters' record chunks: 4 + 4 occurrences
        assert ds.supports()["madonna"] == 8
    assert len({tuple(map(tuple, ds.sorted_records())) for ds in runs}) > 1


def test_term_chunk_multiplicity_rule_uniform_spans_one_to_k_minus_one():
    rel = Release({"k": 4, "m": 2}, [Cluster("P", 10, [[("a",)] * 10], ["t"])])
    seen = {reconstruct(rel, seed=s, term_rule="uniform").supports()["t"] for s in range(40)}
    assert seen == {1, 2, 3}
    assert {reconstruct(rel, seed=s, term_rule="one").supports()["t"] for s in range(10)} == {1}


def test_empty_records_take_term_chunk_terms():
    # 6 records, only 2 sub-records: 4 records must hold term-chunk terms (round robin over 2 terms)
    rel = Release({"k": 2, "m": 2}, [Cluster("P", 6, [[("a",), ("a",)]], ["x", "y"])])
    for s in range(10):
        ds = reconstruct(rel, seed=s, term_rule="one")
        assert all(len(r) > 0 for r in ds)
        sup = ds.supports()
        assert sup["x"] >= 2 and sup["y"] >= 2 and sup["a"] == 2


def test_empty_records_are_filled_by_moving_pieces():
    # Lemma 2 holds with an empty term chunk: 8 sub-records for 5 records -> never an empty record
    rel = Release({"k": 3, "m": 2}, [Cluster("P", 5, [[("a",)] * 4, [("b", "c")] * 4], [])])
    for s in range(20):
        ds = reconstruct(rel, seed=s)
        assert all(len(r) > 0 for r in ds)
        assert ds.supports() == {"a": 4, "b": 4, "c": 4}


def test_empty_leaf_filled_by_shared_sub_record_from_another_leaf():
    # P has 2 records and 1 sub-record; the joint's shared chunk must give P's other record a piece
    p = Cluster("P", 2, [[("a",)]], [])
    q = Cluster("Q", 3, [[("b",)] * 3], [])
    rel = Release({"k": 2, "m": 2}, [p, q], [JointCluster("J", ["P", "Q"], [[("s",)] * 2])])
    for seed in range(30):
        ds = reconstruct(rel, seed=seed)
        assert all(len(r) > 0 for r in ds), (seed, ds.sorted_records())
        assert ds.supports()["s"] == 2


def test_shared_terms_avoid_records_that_hold_them():
    # Figure 5b-style: P1's records all hold a; the shared sub-records with a must go to P2 / P3
    p1 = Cluster("P1", 3, [[("a", "x")] * 3], [])
    p2 = Cluster("P2", 3, [[("b", "c")] * 3], [])
    p3 = Cluster("P3", 3, [[("d", "e", "f")] * 3], [])
    shared = [("a", "o")] * 3 + [("o",)] * 3
    rel = Release({"k": 3, "m": 2}, [p1, p2, p3], [JointCluster("J", ["P1", "P2", "P3"], [shared])])
    for seed in range(20):
        ds = reconstruct(rel, seed=seed)
        assert ds.supports()["a"] == 6 and ds.supports()["o"] == 6
        # P1's records can take only the {o} sub-records
        assert all(r & {"b", "d"} for r in ds.records if r >= {"a", "o"} and "x" not in r)
        check_valid(rel, ds)


def test_greedy_dead_end_is_repaired():
    # one record without a; the {a} sub-record must take it even if the free {b} took it first
    p = Cluster("P", 3, [[("a",)] * 2], ["z"])
    rel = Release({"k": 2, "m": 2}, [p, Cluster("Q", 1, [], ["w"])],
                  [JointCluster("J", ["P", "Q"], [[("a",), ("b",), ("b",)]])])
    for seed in range(30):
        ds = reconstruct(rel, seed=seed)
        assert ds.supports()["a"] == 3 and ds.supports()["b"] == 2


def test_impossible_shared_chunk_raises():
    p = Cluster("P", 2, [[("a",)] * 2], [])
    rel = Release({"k": 2, "m": 2}, [p, Cluster("Q", 1, [[("a",)]], [])],
                  [JointCluster("J", ["P", "Q"], [[("a",)]])])
    with pytest.raises(InputError, match="no valid reconstruction: sub-record 0 fits no record"):
        reconstruct(rel)


def test_bad_term_rule():
    with pytest.raises(InputError, match="term_rule"):
        reconstruct(fig2b(), term_rule="all")
