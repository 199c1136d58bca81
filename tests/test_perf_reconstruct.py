"""reconstruct()'s array path against the object form it replaced (issue 25): the same dataset, seed for seed.

The reference below runs the five steps on :class:`ClusterState` objects exactly as ``reconstruct``
did before the array path (steps 1-2 by ``place_record_chunks`` / ``place_shared_chunks``); the
array path must draw the same random numbers in the same order, so every dataset and every error
message must be equal. Also: the CLI's JSON-lines writer against ``json.dumps`` per record, and
step 5 cut into small blocks.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from release_strategies import near_anonymous_releases, tiny_releases
from test_reconstruct_props import releases

import anonymizer.evaluation.reconstruct_terms as terms_module
from anonymizer.cli.reconstruct import json_lines
from anonymizer.evaluation.reconstruct import _cells, _dataset, reconstruct, reconstruct_cells
from anonymizer.evaluation.reconstruct_balance import balance_components, fill_empty_records
from anonymizer.evaluation.reconstruct_chunks import JointForest, place_record_chunks, place_shared_chunks
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset


def reference(release: Release, seed: int, term_rule: str = "one") -> TransactionDataset:
    """The object form of the sampler, step by step (the code reconstruct ran before issue 25)."""
    from anonymizer.evaluation.reconstruct_arrays import check_disjoint

    check_disjoint(release.arrays)
    rng = np.random.default_rng(seed)
    vocab = sorted(release.terms())
    tid = {t: i for i, t in enumerate(vocab)}
    states = place_record_chunks(release, tid, rng, True)
    forest = JointForest.of(release)
    shared = place_shared_chunks(release, forest, states, tid, rng)
    balance_components(states, shared, forest, [c.id for c in release.clusters], rng)
    for st_ in states:
        if not st_.term_chunk:
            fill_empty_records(st_, rng)
    rows, cols = _cells(states, release.k, term_rule, rng, True)
    return _dataset(rows, cols, vocab, sum(s.size for s in states), seed, term_rule)


def outcome(fn, *args):
    try:
        ds = fn(*args)
    except InputError as exc:
        return ("error", str(exc))
    return (ds.vocabulary, ds.indptr.tolist(), ds.indices.tolist(), ds.metadata)


def same(release: Release, seeds, term_rule: str = "one") -> None:
    for seed in seeds:
        assert outcome(reconstruct, release, seed, term_rule) == outcome(reference, release, seed, term_rule), seed


@settings(max_examples=150, deadline=None)
@given(obj=tiny_releases(), seed=st.integers(0, 2**20), rule=st.sampled_from(["one", "uniform"]))
def test_tiny_releases_match_the_object_form(obj, seed, rule):
    same(Release.from_json(obj), [seed, seed + 1], rule)


@settings(max_examples=100, deadline=None)
@given(obj=near_anonymous_releases(), seed=st.integers(0, 2**20))
def test_near_anonymous_releases_match_the_object_form(obj, seed):
    same(Release.from_json(obj), [seed, seed + 7])


@settings(max_examples=100, deadline=None)
@given(release=releases(), seed=st.integers(0, 2**20), rule=st.sampled_from(["one", "uniform"]))
def test_hand_built_releases_match_the_object_form(release, seed, rule):
    same(release, [seed], rule)


@pytest.fixture(scope="module")
def engine_releases():
    from anonymizer.disassociation.pipeline import disassociate
    from corpora.synthetic.quest import generate_quest

    data = generate_quest(1500, 120, 6.0, seed=3)
    plain, truth = disassociate(data, k=3, m=2, max_cluster_size=12, seed=5)
    safe, _ = disassociate(data, k=3, m=2, max_cluster_size=12, seed=5, safe=True)
    return [plain, safe]


def test_engine_releases_match_the_object_form(engine_releases, tmp_path):
    from anonymizer.io.release_files import load_release, save_release

    for i, release in enumerate(engine_releases):
        assert release.joint_clusters, "the release should exercise shared chunks"
        same(release, [0, 1, 2, 99])
        same(release, [4], "uniform")
        save_release(release, tmp_path / f"r{i}.json")
        read = load_release(tmp_path / f"r{i}.json")  # arrays first, objects on demand
        for seed in (0, 5):
            assert outcome(reconstruct, read, seed, "one") == outcome(reference, release, seed, "one")


def test_step5_in_small_blocks_is_the_same(engine_releases, monkeypatch):
    release = engine_releases[0]
    whole = outcome(reconstruct, release, 3, "one")
    monkeypatch.setattr(terms_module, "BLOCK_KEYS", 50)
    assert outcome(reconstruct, release, 3, "one") == whole
    assert outcome(reconstruct, release, 3, "uniform") == outcome(reference, release, 3, "uniform")


def test_cells_build_the_dataset(engine_releases):
    release = engine_releases[0]
    rows, cols, vocab = reconstruct_cells(release, seed=2)
    ds = reconstruct(release, seed=2)
    cells = {(int(r), vocab[int(c)]) for r, c in zip(np.concatenate(rows), np.concatenate(cols), strict=True)}
    assert cells == {(i, t) for i, rec in enumerate(ds.sorted_records()) for t in rec}


def test_json_lines_equal_json_dumps_per_record():
    records = [["a", "b"], ["é", 'q"uote', "back\\slash", "tab\t"], ["z"], [], ["a", "é"]]
    ds = TransactionDataset.from_records(records)
    expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ds.sorted_records())
    assert "".join(json_lines(ds)) == expected
    assert "".join(json_lines(ds, block=2)) == expected
    full = TransactionDataset.from_records([r for r in records if r])
    expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in full.sorted_records())
    assert "".join(json_lines(full, block=3)) == expected
