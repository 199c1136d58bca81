"""Property tests of safe disassociation on releases of the disassociation engine (random small data)."""

import itertools
import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.disassociation.safe import TARGETS, chunk_cover, safe_disassociate_report
from anonymizer.evaluation.safe_metrics import rlm
from anonymizer.evaluation.verify import verify
from anonymizer.model.release import Cluster, ClusterTruth, Release, Truth
from attacks.cover.detector import run_cover_attack
from corpora.dataset import TransactionDataset

TERMS = [f"t{i}" for i in range(9)]
WIDE = [f"w{i}" for i in range(14)]


def brute_km_ok(chunk, k, m):
    counts = Counter(c for sub in chunk for n in range(1, m + 1) for c in itertools.combinations(sorted(sub), n))
    return all(v >= k for v in counts.values())


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=st.lists(st.lists(st.sampled_from(TERMS), min_size=1, max_size=6, unique=True), min_size=6, max_size=40),
    # A long record repeated a few times gives chunks with a large I and a small s(I): card = ceil(|I|/2)
    # can exceed both k + min(card, m) and s(I) (the kosarak25k crash; Awad2019 rule 3 needs card rows = I).
    long_size=st.integers(1, len(WIDE)), copies=st.integers(0, 7),
    k=st.integers(2, 3), m=st.integers(2, 3), delta=st.integers(6, 16), seed=st.integers(0, 9),
    fallback=st.sampled_from(["chunk", "covered"]), targets=st.sampled_from(TARGETS),
)
def test_safe_release_has_no_cover_problem_and_stays_km_anonymous(records, long_size, copies, k, m, delta, seed,
                                                                  fallback, targets):
    records = records + [WIDE[:long_size]] * copies
    ds = TransactionDataset.from_records(records)
    delta = max(delta, k)
    release, truth = disassociate(ds, k, m, delta, seed=seed)
    result = safe_disassociate_report(release, truth, seed=seed, fallback=fallback, targets=targets)
    safe, strue = result.release, result.truth
    for cluster in safe.clusters:
        for chunk in cluster.record_chunks:
            assert chunk_cover(chunk) is None or (targets == "linkable" and len(cluster.record_chunks) == 1)
            assert brute_km_ok(chunk, k, m)
    report = run_cover_attack(safe, "strong", list_problems=False)
    assert report.vulnerable_chunks_linkable == 0
    assert report.vulnerable_chunks == 0 or targets == "linkable"
    assert verify(safe).ok, verify(safe).violations[:3]
    strue.check_against(safe)
    ghosts = sum(r == -1 for c in strue.clusters for r in c.records)
    assert ghosts == result.ghost_records == 2 * result.partially_suppressed
    assert sum(c.size for c in safe.clusters) == len(records) + ghosts
    assert all(c.size <= delta for c, o in zip(safe.clusters, release.clusters, strict=True) if c.size > o.size)
    loss = rlm(release, safe)
    assert 0.0 <= loss <= 1.0
    assert (loss == 0.0) == (result.suppressed_occurrences == 0 and result.moved_to_term_chunk == 0)
    # Truth still names real records: every non-ghost sub-record belongs to its record in the input.
    for cluster, ct in zip(safe.clusters, strue.clusters, strict=True):
        for chunk, ids in zip(cluster.record_chunks, ct.record_chunks, strict=True):
            for sub, rid in zip(chunk, ids, strict=True):
                if rid >= 0:
                    assert set(sub) <= set(records[rid])
    again = safe_disassociate_report(release, truth, seed=seed, fallback=fallback, targets=targets)
    assert json.dumps(again.release.to_dict()) == json.dumps(safe.to_dict())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(st.lists(st.sampled_from(TERMS), min_size=1, max_size=6, unique=True), min_size=6,
                        max_size=40), seed=st.integers(0, 9))
def test_detector_counts_bounded_on_disassociated_data(records, seed):
    ds = TransactionDataset.from_records(records)
    release, truth = disassociate(ds, 2, 2, 12, seed=seed)
    for attacker in ("strong", "moderate", "weak"):
        report = run_cover_attack(release, attacker, seed=seed)
        assert 0 <= report.vulnerable_records <= len(records)
        assert report.vulnerable_chunks <= report.record_chunks
        assert report.algorithm1_total <= report.breaches


@st.composite
def covered_chunk_release(draw):
    """One cluster whose first record chunk has a cover problem with any |I|, s(I), k, m, delta.

    The engine rarely yields a large I with a small s(I); this generator spans the space of
    Awad2019 preconditions (3), (4) and the rule-3 need s(I) >= card = ceil(|I| / 2) directly.
    """
    k = draw(st.integers(2, 4))
    m = draw(st.integers(1, 3))
    n_items = draw(st.integers(2, 16))
    items = tuple(f"i{n:02d}" for n in range(n_items))
    full = draw(st.integers(k, 9))
    extras = draw(st.lists(st.lists(st.sampled_from(items), min_size=1, max_size=max(1, n_items - 1), unique=True),
                           max_size=5))
    chunk = [items] * full + [tuple(sorted(e)) for e in extras if len(e) < n_items]
    empties = draw(st.integers(0, 3))
    size = len(chunk) + empties
    others = draw(st.integers(0, size))
    others = others if others >= k else 0
    chunks = [chunk] + ([[("x",)] * others] if others else [])
    term_chunk = draw(st.sampled_from([[], ["z"]]))
    delta = size + draw(st.integers(0, 4))
    order = draw(st.permutations(range(len(chunk))))
    chunks[0] = [chunk[i] for i in order]
    release = Release({"k": k, "m": m, "max_cluster_size": delta}, [Cluster("P1", size, chunks, term_chunk)])
    if not verify(release).ok:  # Lemma 2 needs more sub-records: a term-chunk term keeps the input valid
        term_chunk = ["z"]
        release = Release({"k": k, "m": m, "max_cluster_size": delta}, [Cluster("P1", size, chunks, term_chunk)])
    truth = Truth([ClusterTruth("P1", list(range(size)), [list(order)] + ([list(range(others))] if others else []),
                                {t: [size - 1] for t in term_chunk})])
    return release, truth


@settings(max_examples=60, deadline=None)
@given(case=covered_chunk_release(), seed=st.integers(0, 9), fallback=st.sampled_from(["chunk", "covered"]))
def test_safe_on_hand_built_cover_problems(case, seed, fallback):
    release, truth = case
    k, m = release.k, release.m
    assert verify(release).ok
    result = safe_disassociate_report(release, truth, seed=seed, fallback=fallback, targets="every")
    safe = result.release
    for chunk in safe.clusters[0].record_chunks:
        assert chunk_cover(chunk) is None
        assert brute_km_ok(chunk, k, m)
    assert verify(safe).ok, verify(safe).violations[:3]
    result.truth.check_against(safe)
    # Awad2019 eq. (6): partial suppression keeps the support of every item it leaves in the chunk.
    before = Counter(t for sub in release.clusters[0].record_chunks[0] for t in sub)
    after = Counter(t for chunk in safe.clusters[0].record_chunks for sub in chunk for t in sub if t != "x")
    assert all(before[t] == n for t, n in after.items())
    assert (result.partially_suppressed > 0) == (result.ghost_records > 0)
