"""verify()'s counting of chunks on arrays (issue 25) against the definitions of anonymizer.model.conditions.

:mod:`anonymizer.evaluation.verify_arrays` says a chunk passes exactly when the definition finds no
violation (random chunks below); and the verifier's report on a release read into arrays (the fast
path) equals its report on the same release given as a plain JSON object (the definitions
everywhere), on engine releases checked with a larger k so that chunks fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonymizer.evaluation.verify_arrays as verify_arrays
from anonymizer.evaluation.verify import verify
from anonymizer.evaluation.verify_arrays import k_anonymous_chunks, km_anonymous_chunks
from anonymizer.model.conditions import k_anonymity_violations, km_violations

chunks_strategy = st.lists(
    st.lists(st.frozensets(st.integers(0, 6), min_size=1, max_size=5), max_size=9), min_size=1, max_size=6)


def csr(chunks: list[list[frozenset[int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    subs = [sorted(s) for ch in chunks for s in ch]
    sub_off = np.cumsum([0] + [len(ch) for ch in chunks]).astype(np.int64)
    term_off = np.cumsum([0] + [len(s) for s in subs]).astype(np.int64)
    terms = np.asarray([t for s in subs for t in s], dtype=np.int32)
    return sub_off, term_off, terms


@settings(max_examples=300, deadline=None)
@given(chunks=chunks_strategy, k=st.integers(1, 4), m=st.integers(1, 3))
def test_km_anonymous_chunks_equal_the_definition(chunks, k, m):
    sub_off, term_off, terms = csr(chunks)
    got = km_anonymous_chunks(sub_off, term_off, terms, 7, k, m)
    assert got.tolist() == [not km_violations([tuple(sorted(s)) for s in ch], k, m) for ch in chunks]


@settings(max_examples=300, deadline=None)
@given(chunks=chunks_strategy, k=st.integers(1, 4))
def test_k_anonymous_chunks_equal_the_definition(chunks, k):
    sub_off, term_off, terms = csr(chunks)
    got = k_anonymous_chunks(sub_off, term_off, terms, k)
    assert got.tolist() == [not k_anonymity_violations([tuple(sorted(s)) for s in ch], k) for ch in chunks]


def test_too_many_itemsets_leave_the_chunks_to_the_definitions(monkeypatch):
    sub_off, term_off, terms = csr([[frozenset({1, 2, 3})] * 3])
    monkeypatch.setattr(verify_arrays, "MAX_ITEMSETS", 2)
    assert km_anonymous_chunks(sub_off, term_off, terms, 7, 2, 2) is None
    assert km_anonymous_chunks(sub_off, term_off, terms, 2**40, 2, 2) is None  # keys would not fit 63 bits


@pytest.fixture(scope="module")
def engine_release():
    from anonymizer.disassociation.pipeline import disassociate
    from corpora.synthetic.quest import generate_quest

    release, _ = disassociate(generate_quest(1200, 100, 6.0, seed=4), k=3, m=2, max_cluster_size=12, seed=2)
    return release


@pytest.mark.parametrize("k", [3, 4, 7])
def test_report_on_arrays_equals_the_report_on_the_json_object(engine_release, k):
    from anonymizer.model.release import Release

    release = engine_release.with_params(k=k)
    read = Release.from_arrays(release.arrays)
    assert read.validated  # the fast path runs on it
    fast = verify(read).to_dict()
    plain = verify(release.to_dict()).to_dict()
    assert fast == plain
    assert fast["ok"] == (k == 3)
    if k > 3:
        assert any("fewer than k" in line for line in fast["violations"])
