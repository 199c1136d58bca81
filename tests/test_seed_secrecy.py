"""The seed of a release is secret (issue 15): replaying safe disassociation's draws cannot find the ghosts.

The attack (issue 15, "Critical"): safe disassociation (Awad2019 section 4) hides two ghost
records in every partially suppressed chunk and reshuffles the chunk. Whoever knows the seed can
replay the random draws with the public code and read off which listed sub-records are the
ghosts. The attacker here holds the public code and the release, plus (to make the attacker
stronger than a real one) the list of chunks that received ghosts, in release order. For a
candidate seed it replays :func:`anonymizer.disassociation.safe.safe_disassociate_report`'s draws chunk by chunk
(the item partition, the rows, the ghost of every item, the reshuffle) and predicts as ghosts the
two listed positions that the reshuffle took from the end of the chunk. With the right seed this
finds every ghost (checked on a release made with a known seed); on a release made with the
default seed (the operating system's entropy) no seed below 10**4 does better than chance, judged
against the exact chance distribution of the hit count.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import numpy as np
import pytest

from anonymizer.cli.anonymize import main as anonymizer_main
from anonymizer.disassociation.pipeline import disassociate
from anonymizer.disassociation.safe import safe_disassociate_report
from anonymizer.io.release_files import load_release, load_truth
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError
from corpora.common.seeds import SEED_BITS, generator
from corpora.io.formats import write_dataset
from corpora.registry import load_dataset

N_RECORDS, K, M, DELTA = 600, 3, 2, 10
SEEDS_TRIED = 10**4
TARGETS = "every"  # Definition 3 on every chunk: more chunks get ghosts on 600 records
FALSE_ALARM = 1e-6  # chance that the test fails although every tried seed is wrong


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("seed") / "kosarak600.jsonl"
    write_dataset(load_dataset("kosarak10k").subset(range(N_RECORDS)), path)
    return path


def ghost_chunks(release: Release, truth: Truth) -> list[tuple[int, int, int, frozenset[int]]]:
    """(|I|, s(I) before, listed sub-records, ghost positions) of each chunk with ghosts, in release order.

    Partial suppression keeps every item's support, so I is the chunk's term set; it removes
    card = ceil(|I| / 2) of the sub-records equal to I, so s(I) before is the count now plus card.
    The ghost positions are what the attacker must find (read here from the truth to score).
    """
    out = []
    for cluster, ct in zip(release.clusters, truth.clusters, strict=True):
        for chunk, ids in zip(cluster.record_chunks, ct.record_chunks, strict=True):
            if -1 in ids:
                n_items = len({t for sub in chunk for t in sub})
                full_now = sum(1 for sub in chunk if len(sub) == n_items)
                ghosts = frozenset(p for p, r in enumerate(ids) if r == -1)
                out.append((n_items, full_now + math.ceil(n_items / 2), len(chunk), ghosts))
    return out


def replay_hits(seed: int, chunks: list[tuple[int, int, int, frozenset[int]]], stop_below: int = 0) -> int:
    """Ghosts located by replaying safe disassociation's draws under ``seed`` (same calls, same order).

    Stops early, with a count below ``stop_below``, once the seed can no longer reach ``stop_below``.
    """
    rng = generator(seed, "safe")
    hits = 0
    left = sum(len(g) for *_, g in chunks)
    for n_items, full, n_listed, ghosts in chunks:
        card = math.ceil(n_items / 2)
        rng.permutation(n_items)  # rule 1: the partition of I into pairs
        rng.choice(full, size=card, replace=False)  # rules 2-3: the rows
        rng.integers(2, size=card)  # rule 3: L1 or L2 for each part (the same draws as one call per part)
        order = rng.permutation(n_listed)  # rule 4: the reshuffle; the ghosts were the last two
        hits += sum(1 for p in ghosts if order[p] >= n_listed - 2)
        left -= len(ghosts)
        if hits + left < stop_below:
            break
    return hits


def chance_tail(chunks: list[tuple[int, int, int, frozenset[int]]]) -> np.ndarray:
    """tail[h] = P(hits >= h) when the predicted pair of every chunk is a uniformly random pair."""
    dist = np.ones(1)
    for _, _, n, ghosts in chunks:
        pairs = math.comb(n, 2)
        g = len(ghosts)
        per = np.array([math.comb(n - g, 2 - h) * math.comb(g, h) for h in range(3)], dtype=float) / pairs
        dist = np.convolve(dist, per)
    return dist[::-1].cumsum()[::-1]


def walk_keys(obj: object) -> Iterator[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield key
            yield from walk_keys(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from walk_keys(value)


def test_replay_with_the_right_seed_finds_every_ghost():
    """The attack is real: with the seed the ghosts are found (why the seed must not be published)."""
    ds = load_dataset("kosarak10k").subset(range(N_RECORDS))
    release, truth = disassociate(ds, K, M, DELTA, seed=5)
    result = safe_disassociate_report(release, truth, seed=1234, targets=TARGETS)
    chunks = ghost_chunks(result.release, result.truth)
    assert len(chunks) >= 8 and result.partially_suppressed == len(chunks)
    assert replay_hits(1234, chunks) == 2 * len(chunks)
    tail = chance_tail(chunks)
    assert tail[2 * len(chunks)] * SEEDS_TRIED < FALSE_ALARM  # a perfect score is far beyond chance


def test_default_seed_release_resists_replay_of_every_small_seed(data_file, tmp_path):
    out, tru = tmp_path / "release.json", tmp_path / "truth.json"
    assert anonymizer_main([str(data_file), "-k", str(K), "-m", str(M), "--max-cluster-size", str(DELTA),
                            "--safe", "--safe-targets", TARGETS, "-o", str(out), "--truth", str(tru)]) == 0
    release, truth = load_release(out), load_truth(tru)
    chunks = ghost_chunks(release, truth)
    assert len(chunks) >= 8
    tail = chance_tail(chunks)
    threshold = next(h for h in range(len(tail)) if tail[h] * SEEDS_TRIED <= FALSE_ALARM)
    best = max(range(SEEDS_TRIED), key=lambda seed: replay_hits(seed, chunks, stop_below=threshold))
    found = replay_hits(best, chunks)
    assert found < threshold, f"seed {best} locates {found} of {2 * len(chunks)} ghosts (chance: < {threshold})"
    sample = np.array([replay_hits(seed, chunks) for seed in range(0, SEEDS_TRIED, 20)])
    expected = float(sum(2 * len(g) / n for _, _, n, g in chunks))
    assert abs(sample.mean() - expected) < 0.15 * expected  # the replay is at chance on average


def test_release_has_no_seed_and_truth_reproduces_it(data_file, tmp_path):
    out, tru, again = tmp_path / "r.json", tmp_path / "t.json", tmp_path / "again.json"
    args = [str(data_file), "-k", str(K), "-m", str(M), "--max-cluster-size", str(DELTA), "--safe",
            "--safe-targets", TARGETS]
    assert anonymizer_main([*args, "-o", str(out), "--truth", str(tru)]) == 0
    assert "seed" not in set(walk_keys(json.loads(out.read_text(encoding="utf-8"))))
    truth_obj = json.loads(tru.read_text(encoding="utf-8"))
    seed = truth_obj["seed"]
    assert isinstance(seed, int) and 0 <= seed < 2**SEED_BITS and truth_obj["safe_seed"] == seed
    assert seed.bit_length() > 64  # drawn from 128 bits of entropy (fails with probability 2**-64)
    assert anonymizer_main([*args, "--seed", str(seed), "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()


def test_two_default_runs_differ_and_explicit_seeds_repeat(data_file, tmp_path):
    args = [str(data_file), "-k", str(K), "-m", str(M), "--max-cluster-size", str(DELTA)]
    files = [tmp_path / f"{name}.json" for name in ("a", "b", "c", "d")]
    for path in files[:2]:
        assert anonymizer_main([*args, "-o", str(path)]) == 0
    for path in files[2:]:
        assert anonymizer_main([*args, "--seed", str(2**128 - 1), "-o", str(path)]) == 0
    assert files[0].read_bytes() != files[1].read_bytes()
    assert files[2].read_bytes() == files[3].read_bytes()


def test_api_seed_none_draws_entropy_and_int_seeds_repeat():
    ds = load_dataset("kosarak10k").subset(range(200))
    r1, t1 = disassociate(ds, K, M, DELTA)
    r2, t2 = disassociate(ds, K, M, DELTA)
    assert t1.seed != t2.seed and t1.seed.bit_length() > 64
    a = disassociate(ds, K, M, DELTA, seed=3)
    b = disassociate(ds, K, M, DELTA, seed=3)
    assert json.dumps(a[0].to_dict()) == json.dumps(b[0].to_dict()) and a[1].seed == 3
    s1 = safe_disassociate_report(r1, t1)
    s2 = safe_disassociate_report(r1, t1)
    assert s1.truth.safe_seed != s2.truth.safe_seed and s1.truth.seed == t1.seed


@pytest.mark.parametrize("seed", [-5, 2**128, True, 1.0, "3"])
def test_bad_seeds_are_refused_by_the_api(seed):
    ds = load_dataset("terrovitis2012-fig2")
    with pytest.raises(InputError, match="seed must be"):
        disassociate(ds, 2, 2, 5, seed=seed)
    release, truth = disassociate(ds, 2, 2, 5, seed=0)
    with pytest.raises(InputError, match="seed must be"):
        safe_disassociate_report(release, truth, seed=seed)
