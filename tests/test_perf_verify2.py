"""verify()'s settled components (issue 25, :mod:`anonymizer.evaluation.verify_fast`) against the object path.

On a release read into validated arrays the verifier counts the components that
:func:`anonymizer.evaluation.verify_fast.settle` settles and builds its object model only for the
others; given the same release as a plain JSON object it decides every component on the object
model (the reference). The two reports must be equal, field for field, on random tiny releases,
near-anonymous ones (shared chunks whose terms are blocked at some leaves), tampered engine
releases and engine releases with REFINE joint clusters, for several k, ``exact_max_records`` and
``exact``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from release_strategies import near_anonymous_releases, tamper, tiny_releases

import anonymizer.evaluation.verify_blocked as verify_blocked
import anonymizer.evaluation.verify_fast as verify_fast
from anonymizer.evaluation.verify import _known_chunks, verify
from anonymizer.model.release import Release
from corpora.common.errors import InputError


def arrays_release(obj: dict) -> Release:
    """``obj`` read into validated arrays (what the fast path runs on)."""
    release = Release.from_arrays(Release.from_dict(obj).arrays)
    assert release.validated
    return release


def assert_same(release: Release, **options) -> dict:
    fast = verify(release, **options).to_dict()
    plain = verify(release.to_dict(), **options).to_dict()
    assert fast == plain
    return fast


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=st.one_of(tiny_releases(), tiny_releases(max_size=6), near_anonymous_releases(max_size=6)),
       max_records=st.sampled_from([0, 4, 12]))
def test_settled_and_object_paths_agree_on_random_releases(obj, max_records):
    try:
        release = arrays_release(obj)
    except InputError:
        reject()
    assert_same(release, exact_max_records=max_records)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=st.one_of(tiny_releases(), near_anonymous_releases()))
def test_settled_and_object_paths_agree_with_every_component_searched(obj):
    try:
        release = arrays_release(obj)
    except InputError:
        reject()
    assert_same(release, exact=True)


def _engine_releases() -> list[Release]:
    from anonymizer.disassociation.pipeline import disassociate
    from corpora.synthetic.quest import generate_quest

    out = []
    for n, items, k, seed in [(1500, 60, 3, 1), (2500, 120, 4, 2), (2000, 80, 5, 3)]:
        release, _ = disassociate(generate_quest(n, items, 6.0, seed=seed), k=k, m=2, max_cluster_size=15, seed=seed)
        assert release.joint_clusters  # REFINE made joint clusters
        out.append(Release.from_arrays(release.arrays))
    return out


@pytest.fixture(scope="module")
def engine_releases() -> list[Release]:
    return _engine_releases()


def test_engine_releases_with_joint_clusters_are_settled_on_arrays(engine_releases, monkeypatch):
    found = []
    real = verify_fast.blocked_terms
    monkeypatch.setattr(verify_fast, "blocked_terms", lambda *args: found.append(real(*args)) or found[-1])
    for release in engine_releases:
        report = assert_same(release)
        assert report["ok"], report["violations"][:3]
        a = release.arrays
        k, m = release.params["k"], release.params["m"]
        split = verify_fast.settle(a, k, m, _known_chunks(a, k, m), False, 12, 200_000)
        assert split is not None and (split.clusters, split.joints) == ([], [])  # no object model at all
        assert (split.exact, split.proven) == (report["components_exact"], report["components_proven"])
        assert found[-1].sig_chunk.size  # shared chunks with blocked terms were judged on arrays


@pytest.mark.parametrize("extra_k", [1, 3])
def test_engine_releases_checked_with_a_larger_k_agree(engine_releases, extra_k):
    for release in engine_releases:
        stricter = Release.from_arrays(release.with_params(k=release.params["k"] + extra_k).arrays)
        report = assert_same(stricter)
        assert not report["ok"]


def test_tampered_engine_releases_agree(engine_releases):
    rng = random.Random(25)
    checked = failing = 0
    while checked < 12:
        obj = rng.choice(engine_releases).to_dict()
        terms = sorted({t for c in obj["clusters"] for ch in c["record_chunks"] for s in ch for t in s})
        obj = tamper(obj, rng, vocabulary=terms)
        try:
            release = arrays_release(obj)
            report = assert_same(release)
        except InputError:
            continue
        checked += 1
        failing += not report["ok"]
    assert failing  # some tampering is caught


def _crowded() -> dict:
    """A joint cluster whose shared chunk holds more sub-records than the leaves where nothing is
    blocked have records: s is blocked at P1 (its term chunk), u at P2, so only a placement that
    spreads each group elsewhere works (``verify_blocked.fits``)."""
    clusters = [{"id": f"P{i}", "size": 6, "record_chunks": [[["a"]] * 6], "term_chunk": tc}
                for i, tc in [(1, ["s"]), (2, ["u"]), (3, [])]]
    shared = [[["s"]] * 4 + [["u"]] * 4 + [["v"]] * 3]
    return {"format": "disassociated/1", "params": {"k": 2, "m": 2}, "clusters": clusters,
            "joint_clusters": [{"id": "J", "children": ["P1", "P2", "P3"], "shared_chunks": shared}]}


def test_a_crowded_shared_chunk_is_settled_by_a_placement(monkeypatch):
    calls = []
    fits = verify_blocked.fits
    monkeypatch.setattr(verify_blocked, "fits", lambda *args: calls.append(fits(*args)) or calls[-1])
    release = arrays_release(_crowded())
    a = release.arrays
    split = verify_fast.settle(a, 2, 2, _known_chunks(a, 2, 2), False, 12, 200_000)
    assert calls == [True] and split is not None and (split.proven, split.clusters) == (1, [])
    report = assert_same(release)
    assert report["ok"] and report["components_proven"] == 1
    for max_records in (0, 18, 100):
        assert_same(release, exact_max_records=max_records)


def test_signatures_survive_a_hash_collision(monkeypatch):
    rng = np.random.default_rng(3)
    rows = []
    for chunk in range(6):
        for _ in range(5):
            rows.append((chunk, sorted(rng.choice(8, size=int(rng.integers(1, 4)), replace=False).tolist())))
    chunk = np.asarray([c for c, ts in rows for _ in ts], dtype=np.int64)
    term = np.asarray([t for _, ts in rows for t in ts], dtype=np.int64)
    count = np.asarray([len(ts) for _, ts in rows], dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    sig, sig_first = verify_blocked.signatures(chunk, term, first, count, 8)

    class Equal:  # every term weighs the same: groups of one chunk and size collide
        def integers(self, low, high, size, dtype):
            return np.ones(size, dtype=dtype)

    monkeypatch.setattr(verify_blocked.np.random, "default_rng", lambda seed: Equal())
    slow, slow_first = verify_blocked.signatures(chunk, term, first, count, 8)
    key = [(c, tuple(ts)) for c, ts in rows]
    for got, firsts in [(sig, sig_first), (slow, slow_first)]:
        assert [key[g] for g in firsts[got].tolist()] == key  # each group's signature is its own set
        assert len(set(got.tolist())) == len(set(key))


def test_integer_columns_are_read_from_their_buffers():
    import pyarrow as pa

    from anonymizer.io.json_fast import _numpy

    for kind, dtype in [(pa.int32(), np.int32), (pa.int64(), np.int64), (pa.uint64(), np.uint64)]:
        column = pa.array([5, 1, 4, 2], kind).slice(1, 2)
        got = _numpy(column)
        assert got.dtype == dtype and got.tolist() == [1, 4]
    assert _numpy(pa.array([], pa.int32())).tolist() == []
    with pytest.raises(ValueError):
        _numpy(pa.array([1, None], pa.int64()))
