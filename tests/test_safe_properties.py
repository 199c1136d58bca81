"""Property tests of safe disassociation on releases of the disassociation engine (random small data)."""

import itertools
import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.disassociate import disassociate
from anonymizer.safe import chunk_cover, safe_disassociate_report
from anonymizer.safe_metrics import rlm
from anonymizer.verify import verify
from attacks.cover import run_cover_attack
from corpora.dataset import TransactionDataset

TERMS = [f"t{i}" for i in range(9)]


def brute_km_ok(chunk, k, m):
    counts = Counter(c for sub in chunk for n in range(1, m + 1) for c in itertools.combinations(sorted(sub), n))
    return all(v >= k for v in counts.values())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=st.lists(st.lists(st.sampled_from(TERMS), min_size=1, max_size=6, unique=True), min_size=6, max_size=40),
    k=st.integers(2, 3), m=st.integers(2, 3), delta=st.integers(6, 16), seed=st.integers(0, 9),
    fallback=st.sampled_from(["chunk", "covered"]),
)
def test_safe_release_has_no_cover_problem_and_stays_km_anonymous(records, k, m, delta, seed, fallback):
    ds = TransactionDataset.from_records(records)
    delta = max(delta, k)
    release, truth = disassociate(ds, k, m, delta, seed=seed)
    result = safe_disassociate_report(release, truth, seed=seed, fallback=fallback)
    safe, strue = result.release, result.truth
    for cluster in safe.clusters:
        for chunk in cluster.record_chunks:
            assert chunk_cover(chunk) is None
            assert brute_km_ok(chunk, k, m)
    assert run_cover_attack(safe, "strong", list_problems=False).vulnerable_chunks == 0
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
    again = safe_disassociate_report(release, truth, seed=seed, fallback=fallback)
    assert json.dumps(again.release.to_json()) == json.dumps(safe.to_json())


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
