"""The fourth round of the single-process run (issue 25) against slow, independent references.

* packed shared chunks (:class:`PackedSubrecords`: REFINE's records and sub-record numbers, which the release
  builder hashes per distinct sub-record): the builder's shared chunks against the pair-by-pair builder of the
  third round, with chunks from REFINE and chunks given as pairs (empty sub-records included), and a packed
  chunk equal, as a value and through pickle, to the same chunk given as pairs;
"""

from __future__ import annotations

import itertools
import pickle
from pathlib import Path

import numpy as np
import pytest
from test_perf_anon import _random_dataset

from anonymizer.disassociation import publish
from anonymizer.disassociation.horpart import horpart, join_small_clusters
from anonymizer.disassociation.refine import refine
from anonymizer.disassociation.refine_join import JointPlan
from anonymizer.disassociation.shared_chunks import PackedSubrecords, SharedChunk
from anonymizer.disassociation.verpart import partition_clusters
from corpora.common.seeds import generator

ROOT = Path(__file__).resolve().parents[1]


def _shared_chunks_reference(plans, vocabulary, hashes, rng, ids):  # noqa: ANN001, ANN202 - the third round's
    term_id = {t: i for i, t in enumerate(vocabulary)}
    pairs, listed = [], []
    for plan in plans:
        for chunk in plan.shared_chunks:
            pairs.extend(chunk.subrecords)
            listed.append(len(chunk.subrecords))
    recs = [r for r, _ in pairs]
    subs = [tuple(sub) for _, sub in pairs]
    group = np.repeat(np.arange(len(listed), dtype=np.int64), listed)
    keep = [i for i, sub in enumerate(subs) if sub]
    subs, recs, group = [subs[i] for i in keep], [recs[i] for i in keep], group[keep]
    sizes = np.bincount(group, minlength=len(listed)).tolist()
    sub_hash = np.array([int(np.sum(hashes[[term_id[t] for t in sub]], dtype=np.uint64)) for sub in subs],
                        dtype=np.uint64)
    order = publish.shuffled_order(group, sub_hash, rng).tolist()
    return [subs[i] for i in order], [int(ids[recs[i]]) for i in order], np.cumsum([0, *sizes]).tolist()


def _plans(seed: int) -> tuple[list[JointPlan], list[str]]:
    ds = _random_dataset(seed, n=400, domain=50)
    k, m = 2 + seed % 3, 2 + seed % 2
    hp = join_small_clusters(horpart(ds, k, 2 * k + 4, "original"), ds, k, 2 * k + 4)
    plans = refine(ds, partition_clusters(ds, hp.clusters, k, m), k, m)
    return plans, list(ds.vocabulary)


def _as_pairs(plans: list[JointPlan], rng: np.random.Generator) -> list[JointPlan]:
    """The same plans with every chunk given as pairs, shuffled, some with empty sub-records listed."""
    out = []
    for plan in plans:
        chunks = []
        for chunk in plan.shared_chunks:
            pairs = list(chunk.subrecords)
            pairs += [(int(r), ()) for r in rng.integers(10_000, 20_000, size=int(rng.integers(0, 3)))]
            rng.shuffle(pairs)
            chunks.append(SharedChunk(list(chunk.terms), [(int(r), tuple(sub)) for r, sub in pairs]))
        out.append(JointPlan(list(plan.children), chunks, dict(plan.removed)))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_builder_shared_chunks_match_pairwise_reference(seed: int) -> None:
    plans, vocabulary = _plans(seed)
    assert plans and all(c.packed is not None for p in plans for c in p.shared_chunks), "REFINE packs its chunks"
    rng = np.random.default_rng(seed)
    hashes = publish.term_hashes(len(vocabulary))
    ids = np.asarray(rng.permutation(20_000), dtype=object)
    for given in (plans, _as_pairs(plans, rng), []):
        got = publish._shared_chunks(given, vocabulary, hashes, generator(seed, "publish"), ids)
        expected = _shared_chunks_reference(given, vocabulary, hashes, generator(seed, "publish"), ids)
        assert got == expected


@pytest.mark.parametrize("seed", range(4))
def test_packed_chunk_is_the_chunk_of_pairs(seed: int) -> None:
    plans, _ = _plans(seed)
    for chunk in itertools.chain.from_iterable(p.shared_chunks for p in plans):
        packed = chunk.packed
        assert packed is not None and packed.records == sorted(packed.records)
        pairs = [(r, packed.class_terms[c]) for r, c in zip(packed.records, packed.classes, strict=True)]
        twin = SharedChunk(list(chunk.terms), pairs)
        assert twin.packed is None and twin == chunk and chunk == twin and chunk.subrecords == pairs
        assert all(sub and list(sub) == sorted(sub) for sub in packed.class_terms)
        assert len(set(packed.class_terms)) == len(packed.class_terms) == len(set(packed.classes))
        back = pickle.loads(pickle.dumps(chunk))
        assert back == chunk and back.packed == chunk.packed
    assert SharedChunk(["a"]) != SharedChunk(["a"], [(1, ("a",))])
    loose = SharedChunk.packed_from(["a"], PackedSubrecords([1, 4], [0, 0], [("a",)]))
    assert repr(loose) == "SharedChunk(terms=['a'], subrecords=[(1, ('a',)), (4, ('a',))])"


def _term_chunk_reference(table, plans) -> list[list[tuple[str, list[int]]]]:  # noqa: ANN001
    """Each cluster's term chunk: its pairs outside every record chunk, less the terms the plans remove."""
    removed = {(c, t) for plan in plans for c, terms in plan.removed.items() for t in terms}
    out: list[list[tuple[str, list[int]]]] = [[] for _ in table.clusters]
    for i in range(len(table.pair_term)):
        c, term = int(table.pair_cluster[i]), table.vocabulary[int(table.pair_term[i])]
        if table.pair_chunk[i] < 0 and (c, term) not in removed:
            out[c].append((term, table.entry_record[table.pair_start[i]:table.pair_end[i]].tolist()))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_term_chunks_drop_what_the_plans_remove(seed: int) -> None:
    import dataclasses

    ds = _random_dataset(seed, n=400, domain=50)
    k, m = 2 + seed % 3, 2
    hp = join_small_clusters(horpart(ds, k, 2 * k + 4, "original"), ds, k, 2 * k + 4)
    table = partition_clusters(ds, hp.clusters, k, m)
    plans = refine(ds, table, k, m)
    assert any(p.removed for p in plans)
    held = {table.vocabulary[t] for t in table.pair_term[table.pair_cluster == 0].tolist()}
    absent = sorted(set(table.vocabulary) - held)[:3]  # removing what a cluster does not hold drops nothing
    plans = [*plans, JointPlan([0, 1], [], {0: [*absent, "~not-a-term"], 1: absent[:1]})]
    # the same pairs with each cluster's listed in reverse: no longer sorted by term (the general lookup)
    flipped = np.concatenate([np.flatnonzero(table.pair_cluster == c)[::-1] for c in range(len(table.clusters))])
    lens = (table.pair_end - table.pair_start)[flipped]
    entries = [table.entry_record[a:b] for a, b in zip(table.pair_start[flipped], table.pair_end[flipped],
                                                        strict=True)]
    reordered = dataclasses.replace(table, pair_cluster=table.pair_cluster[flipped], pair_term=table.pair_term[flipped],
                                    pair_chunk=table.pair_chunk[flipped], pair_start=np.cumsum(lens) - lens,
                                    pair_end=np.cumsum(lens), entry_record=np.concatenate(entries))
    ids = np.arange(len(ds), dtype=object)
    for given, turn in ((table, 1), (reordered, -1)):
        bounds, terms, lists = publish._term_chunks(given, plans, ids)
        got = [list(zip(terms[a:b], lists[a:b], strict=True)) for a, b in itertools.pairwise(bounds)]
        assert got == [chunk[::turn] for chunk in _term_chunk_reference(table, plans)]


def _lemma2_reference(table, plans, k: int, m: int):  # noqa: ANN001, ANN202 - the third round's repair
    from anonymizer.model.conditions import lemma2_holds

    emptied: dict[int, set[str]] = {}
    for plan in plans:
        for idx, terms in plan.removed.items():
            emptied.setdefault(idx, set()).update(terms)
    bounds = np.searchsorted(table.pair_cluster, np.arange(len(table.clusters) + 1)).tolist()
    chunk, n_chunks = table.pair_chunk.copy(), table.n_chunks.copy()
    support = (table.pair_end - table.pair_start).tolist()
    in_term_chunk = np.bincount(table.pair_cluster[table.pair_chunk < 0], minlength=len(table.clusters)).tolist()
    moved, occurrences = [], 0
    for c in sorted(emptied):
        pairs = range(bounds[c], bounds[c + 1])
        if in_term_chunk[c] > len(emptied[c]):
            continue
        records: list[set[int]] = [set() for _ in range(int(n_chunks[c]))]
        for p in pairs:
            if chunk[p] >= 0:
                records[chunk[p]].update(table.entry_record[table.pair_start[p]:table.pair_end[p]].tolist())
        if not records or lemma2_holds(len(table.clusters[c]), sum(map(len, records)), len(records), k, m, True):
            continue
        victim = max((p for p in pairs if chunk[p] >= 0), key=lambda p: (-support[p], int(table.pair_term[p])))
        j = int(chunk[victim])
        chunk[victim] = -1
        if not any(chunk[p] == j for p in pairs):
            for p in pairs:
                if chunk[p] > j:
                    chunk[p] -= 1
            n_chunks[c] -= 1
        moved.append((c, table.vocabulary[int(table.pair_term[victim])]))
        occurrences += support[victim]
    return moved, occurrences, chunk, n_chunks


@pytest.mark.parametrize("seed", range(8))
def test_lemma2_repair_matches_reference(seed: int) -> None:
    from anonymizer.disassociation.lemma2_repair import restore_lemma2

    ds = _random_dataset(seed, n=300, domain=30 + 10 * seed)
    k, m = 2 + seed % 3, 1 + seed % 3
    hp = join_small_clusters(horpart(ds, k, 2 * k + 2, "original"), ds, k, 2 * k + 2)
    table = partition_clusters(ds, hp.clusters, k, m)
    rng = np.random.default_rng(seed)
    tc = [[table.vocabulary[t] for t in table.pair_term[(table.pair_cluster == c) & (table.pair_chunk < 0)].tolist()]
          for c in range(len(table.clusters))]
    # plans that empty some term chunks (a term listed twice, or over two plans), shorten others
    removed = {c: terms[: len(terms) - int(rng.integers(0, 2))] for c, terms in enumerate(tc) if terms}
    twice = {c: terms[:1] for c, terms in removed.items() if terms and c % 3 == 0}
    plans = [refine(ds, table, k, m), [JointPlan([0, 1], [], removed), JointPlan([0, 1], [], twice)]][seed % 2]
    got = restore_lemma2(table, plans, k, m)
    moved, occurrences, chunk, n_chunks = _lemma2_reference(table, plans, k, m)
    assert (got.moved, got.occurrences) == (moved, occurrences)
    assert got.table.pair_chunk.tolist() == chunk.tolist() and got.table.n_chunks.tolist() == n_chunks.tolist()
    assert seed % 2 == 0 or m == 1 or moved, "the emptied term chunks should need repairs"


@pytest.mark.parametrize("seed", range(4))
def test_writer_as_is_matches_encoded_parts(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from anonymizer.disassociation.pipeline import disassociate
    from anonymizer.io import json_writer
    from anonymizer.io.json_writer import ReleaseWriter, encode_part

    ds = _random_dataset(seed, n=300, domain=60)
    release, truth = disassociate(ds, k=2 + seed % 2, m=2, max_cluster_size=8, seed=seed, safe=seed % 2 == 1)
    assert release.joint_clusters
    monkeypatch.setattr(json_writer, "SLICE", 7)  # several slices per list
    for with_truth in (True, False):
        names = {way: (tmp_path / f"{way}.json", tmp_path / f"{way}-truth.json" if with_truth else None)
                 for way in ("as-is", "encoded")}
        for way, (path, truth_path) in names.items():
            with ReleaseWriter(path, truth_path, release.params, seed=truth.seed, safe_seed=truth.safe_seed) as out:
                for _ in range(2):  # a second part follows the first (its ids kept as they are)
                    if way == "as-is":
                        out.add(release, truth, renumber=False)
                    else:
                        out.add(encode_part(release, truth if with_truth else None), renumber=False)
        for a, b in zip(names["as-is"], names["encoded"], strict=True):
            assert a is None or a.read_bytes() == b.read_bytes()
    with pytest.raises(ValueError, match="give a truth"), ReleaseWriter(tmp_path / "x.json", tmp_path / "xt.json",
                                                                         release.params) as out:
        out.add(release, None, renumber=False)


@pytest.mark.parametrize("seed", range(10))
def test_first_equal_subrecord_matches_brute_force(seed: int) -> None:
    """Random sub-records over few terms (many copies), with hashes that collide on purpose."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    subs = [tuple(sorted(set(rng.integers(0, 4, size=int(rng.integers(1, 4))).tolist()))) for _ in range(n)]
    gid = np.sort(rng.integers(0, 3, size=n))
    s_len = np.array([len(s) for s in subs], dtype=np.int64)
    s_start = np.cumsum(s_len) - s_len
    e_term = np.array([t for s in subs for t in s], dtype=np.int64)
    true_hash = publish.term_hashes(4)
    s_hash = np.array([int(np.sum(true_hash[list(s)], dtype=np.uint64)) for s in subs], dtype=np.uint64)
    if seed % 2:  # collisions: every sub-record with every other of its length, or with every other at all
        s_hash = (s_len if seed % 4 == 1 else np.zeros(n, dtype=np.int64)).astype(np.uint64)
    order = publish._content_order(gid, s_hash)
    rep = publish._first_equal(e_term, s_start, s_len, order, gid, s_hash).tolist()
    if seed % 2 == 0:  # no collision: each sub-record points at the first equal one of its chunk
        assert rep == [next(j for j in range(n) if gid[j] == gid[i] and subs[j] == subs[i]) for i in range(n)]
    for i, r in enumerate(rep):  # always: an equal, earlier (or the same) sub-record of the same chunk
        assert r <= i and gid[r] == gid[i] and subs[r] == subs[i]
