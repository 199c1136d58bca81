"""VPA's incremental VERPART re-check agrees with the reference re-run; the trial bounds hold."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonymizer.disassociation.pipeline import disassociate
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.vpa import TrialChecker, verpart_consistent
from corpora.dataset import TransactionDataset

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def trials(draw):
    n_terms = draw(st.integers(2, 9))
    n_chunks = draw(st.integers(2, 4))
    homes = [draw(st.integers(0, n_chunks - 1)) for _ in range(n_terms)]
    homes[: n_chunks] = list(range(min(n_chunks, n_terms)))  # every chunk non-empty where possible
    terms = [f"t{i}" for i in range(n_terms)]
    used = sorted(set(homes))
    last = used[-1]
    chunk_terms = [[t for t, h in zip(terms, homes, strict=True) if h == c] for c in used]
    size = draw(st.integers(2, 8))
    earlier = [t for t, h in zip(terms, homes, strict=True) if h != last]
    current = [frozenset(draw(st.sets(st.sampled_from(earlier)))) if earlier else frozenset() for _ in range(size)]
    new_terms = chunk_terms[-1]
    n_distinct = draw(st.integers(1, min(3, size)))
    distinct = list(
        dict.fromkeys(
            tuple(sorted(draw(st.sets(st.sampled_from(new_terms), min_size=1)))) for _ in range(n_distinct)
        )
    )
    counts = []
    room = size
    for _ in distinct:
        c = draw(st.integers(1, max(1, room - (len(distinct) - len(counts) - 1))))
        counts.append(c)
        room -= c
    perm = draw(st.permutations(list(range(size))))
    placement, at = [], 0
    for c in counts:
        placement.append(tuple(sorted(perm[at : at + c])))
        at += c
    k = draw(st.integers(1, 3))
    m = draw(st.sampled_from([2, 3, 1]))
    verpart = draw(st.sampled_from(["strict", "grouped"]))
    return current, chunk_terms, distinct, counts, placement, k, m, verpart


@SETTINGS
@given(trials())
def test_incremental_check_equals_reference(case) -> None:
    current, chunk_terms, distinct, counts, placement, k, m, verpart = case
    trial = list(current)
    for d, combo in enumerate(placement):
        for a in combo:
            trial[a] = trial[a] | frozenset(distinct[d])
    expected = verpart_consistent(trial, chunk_terms, k, m, verpart)
    checker = TrialChecker(current, chunk_terms, distinct, counts, k, m, verpart)
    assert checker.consistent(placement) == expected
    # the checker is reused across trials: a second call gives the same answer
    assert checker.consistent(placement) == expected


def test_incremental_check_by_hand() -> None:
    # records {a,b}, {a,b}, {a}, {b}; chunk 2 = {x} twice; k = m = 2. x on records 0 and 1 meets a
    # and b twice each, so VERPART would have put x into the chunk of a and b: rejected. x on 0 and
    # 2 meets b once: x stays in a chunk of its own, as published: accepted.
    current = [frozenset("ab"), frozenset("ab"), frozenset("a"), frozenset("b")]
    chunks = [["a", "b"], ["x"]]
    for verpart in ("strict", "grouped"):
        checker = TrialChecker(current, chunks, [("x",)], [2], 2, 2, verpart)
        assert not checker.consistent([(0, 1)])
        assert checker.consistent([(0, 2)])
        assert checker.consistent([(2, 3)])
        for combo in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
            trial = [r | {"x"} if i in combo else r for i, r in enumerate(current)]
            assert checker.consistent([combo]) == verpart_consistent(trial, chunks, 2, 2, verpart)


def _release():
    words = [f"w{i}" for i in range(30)]
    records = [set(words[i : i + 6]) | {words[(3 * i) % 30]} for i in range(24)] * 2
    ds = TransactionDataset.from_records(records)
    release, _ = disassociate(ds, 2, 2, 24, refine=False, seed=0)
    return release


def test_vpa_budget_bounds_all_trials() -> None:
    release = _release()
    chunks = sum(len(c.record_chunks) - 1 for c in release.clusters if len(c.record_chunks) > 1)
    assert chunks > 0
    free = run_semantic_attack(release, None, selector="VPA", vpa_limit=7)
    assert free.vpa_trials <= 7 * chunks
    none = run_semantic_attack(release, None, selector="VPA", vpa_limit=7, vpa_budget=0)
    assert none.vpa_trials == 0 and none.vpa_cut and none.vpa_cut_chunks == chunks
    some = run_semantic_attack(release, None, selector="VPA", vpa_limit=7, vpa_budget=3)
    assert some.vpa_trials <= 3
    assert some.vpa_cut_chunks + some.vpa_failed_chunks >= chunks - 1
    big = run_semantic_attack(release, None, selector="VPA", vpa_limit=7, vpa_budget=10**9)
    assert big.records() == free.records() and big.vpa_trials == free.vpa_trials
    with pytest.raises(Exception, match="vpa_budget"):
        run_semantic_attack(release, None, selector="VPA", vpa_budget=-1)
