"""verify() of a release in memory, and of a small release file, through the strict fast reader (issue 25).

A :class:`Release` not read from a file is verified as the JSON it would be published as: its
``to_dict()`` encoded and read by :func:`anonymizer.io.json_fast.arrays_from_json_bytes`, whose
validated arrays let :func:`anonymizer.evaluation.verify_fast.settle` count most components; a JSON
file below ``MIN_FAST_BYTES`` is offered to the same reader. The reference is the object path, which
a plain JSON object (a dict) always takes: the reports must be equal field for field.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from release_strategies import near_anonymous_releases, tamper, tiny_releases

import anonymizer.evaluation.verify as verify_mod
from anonymizer.evaluation.verify import verify, verify_file
from anonymizer.io.release_files import save_release
from anonymizer.model.release import Release
from corpora.common.errors import InputError


@pytest.fixture
def fast_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One entry per offer to the fast reader: True where it gave a release."""
    seen: list[bool] = []
    original = verify_mod._read_fast

    def spy(data: bytes, source: str):
        release = original(data, source)
        seen.append(release is not None)
        return release

    monkeypatch.setattr(verify_mod, "_read_fast", spy)
    return seen


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=st.one_of(tiny_releases(), near_anonymous_releases(max_size=6)), max_records=st.sampled_from([0, 12]),
       exact=st.booleans())
def test_a_release_in_memory_is_verified_as_its_published_json(obj, max_records, exact):
    try:
        release = Release.from_dict(obj)
    except InputError:
        reject()
    assert not release.validated
    got = verify(release, exact=exact, exact_max_records=max_records).to_dict()
    assert got == verify(release.to_dict(), exact=exact, exact_max_records=max_records).to_dict()


def test_engine_releases_in_memory_take_the_fast_reader(fast_reads):
    from anonymizer.disassociation.pipeline import disassociate
    from corpora.synthetic.quest import generate_quest

    for n, items, k, seed in [(1500, 60, 3, 1)]:
        release, _ = disassociate(generate_quest(n, items, 6.0, seed=seed), k=k, m=2, max_cluster_size=15, seed=seed)
        assert release.joint_clusters
        for check_k in (k, k + 2):  # a larger k makes violations to report
            probe = release.with_params(k=check_k)
            assert verify(probe).to_dict() == verify(probe.to_dict()).to_dict()
    assert fast_reads and all(fast_reads)


def test_a_tampered_release_in_memory_is_reported_as_its_json_is(fast_reads):
    from anonymizer.disassociation.pipeline import disassociate
    from corpora.synthetic.quest import generate_quest

    release, _ = disassociate(generate_quest(1200, 50, 6.0, seed=4), k=3, m=2, max_cluster_size=15, seed=4)
    obj = release.to_dict()
    rng = random.Random(5)
    for _ in range(12):
        bad = tamper(obj, rng)
        try:
            tampered = Release.from_dict(bad)
        except InputError:
            continue
        assert verify(tampered).to_dict() == verify(tampered.to_dict()).to_dict()
    assert fast_reads and all(fast_reads)


def test_a_small_release_file_takes_the_fast_reader(tmp_path, fast_reads):
    from anonymizer.disassociation.pipeline import disassociate
    from corpora.synthetic.quest import generate_quest

    release, _ = disassociate(generate_quest(800, 40, 6.0, seed=2), k=4, m=2, max_cluster_size=12, seed=2)
    path = tmp_path / "release.json"
    save_release(release.with_params(k=6), path)
    import json

    assert verify_file(path).to_dict() == verify(json.loads(path.read_text())).to_dict()
    assert fast_reads == [True]


def test_what_the_fast_reader_declines_is_decided_as_objects(tmp_path, fast_reads):
    path = tmp_path / "repeated.json"  # a key repeated in an object: the fast reader declines, the object path reports
    path.write_text('{"format": "disassociated/1", "params": {"k": 2, "m": 1, "k": 2}, "clusters": [{"id": "c0", '
                    '"size": 2, "record_chunks": [[["a"], ["a"]]], "term_chunk": []}], "joint_clusters": []}')
    report = verify_file(path)
    assert fast_reads == [False]
    assert not report.ok and report.violations[0].startswith("JSON: key 'k' repeated")
