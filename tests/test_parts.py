"""Split runs (issue 14): HORPART's first splits computed over the whole dataset, then every part
disassociated on its own (anonymizer/disassociation/parts.py), streamed into one release (release_writer.py)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_runner import run_tool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reconstruction_oracle import TooLarge, guarantee1_violations, is_valid_reconstruction, truth_records

from anonymizer import disassociate
from anonymizer.disassociation.horpart import horpart
from anonymizer.disassociation.parts import choose_split, split_parts
from anonymizer.disassociation.pipeline import run_parts
from anonymizer.evaluation.verify import verify
from anonymizer.io.release_files import load_release, load_truth
from anonymizer.model.params import DisassociationParams
from corpora.common.seeds import part_seed
from corpora.dataset import TransactionDataset
from corpora.io.formats import read_dataset, write_dataset
from corpora.synthetic.quest import generate_quest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quest() -> TransactionDataset:
    return generate_quest(3000, 200, 6.0, seed=5)


def test_choose_split_follows_horpart_rule() -> None:
    # the most frequent term held by some but not all records; ties: the first (alphabetical) term
    assert choose_split(10, np.array([10, 4, 6, 6]), 2, 5) == 2
    assert choose_split(10, np.array([10, 10]), 2, 5) is None  # no term splits the node
    assert choose_split(5, np.array([3, 2]), 2, 5) is None  # small enough to be one cluster
    assert choose_split(10, np.array([9, 1]), 2, 5) is None  # a half smaller than k: left to the part
    assert choose_split(10, np.array([8, 1]), 3, 5) is None


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_parts_partition_the_records(quest: TransactionDataset, depth: int) -> None:
    parts = split_parts(quest, depth, 3, 20)
    assert 1 < len(parts) <= 2**depth
    ids = np.concatenate([p.records for p in parts])
    assert sorted(ids.tolist()) == list(range(len(quest)))
    assert all(len(p) >= 3 for p in parts)
    for p in parts:  # every record of a part holds the path's terms it should, and none it should not
        for term, held in p.path:
            assert all((term in quest[i]) == held for i in p.records[:50].tolist())


@pytest.mark.parametrize("strategy", ["original", "abandon", "suppression"])
@pytest.mark.parametrize("depth", [1, 3])
def test_horpart_clusters_equal_the_unsplit_run(quest: TransactionDataset, strategy: str, depth: int) -> None:
    """A part is a node of the unsplit run's split tree, so HORPART below it gives the same clusters
    (before the join step, which stays inside a part)."""
    whole = horpart(quest, 3, 20, strategy)
    split: list[list[int]] = []
    suppressed: list[int] = []
    for part in split_parts(quest, depth, 3, 20):
        sub = horpart(quest.subset(part.records), 3, 20, strategy)
        split += [part.records[c].tolist() for c in sub.clusters]
        suppressed += part.records[sub.suppressed].tolist()
    assert split == [c.tolist() for c in whole.clusters]
    assert sorted(suppressed) == whole.suppressed.tolist()


def test_subset_reads_like_the_records_alone(quest: TransactionDataset) -> None:
    records = np.array([5, 17, 300, 2999])
    alone = TransactionDataset.from_records([sorted(quest[i]) for i in records.tolist()])
    sub = quest.subset(records)
    assert sub.vocabulary == alone.vocabulary
    assert np.array_equal(sub.indptr, alone.indptr) and np.array_equal(sub.indices, alone.indices)


def test_depth_zero_is_the_unsplit_run(quest: TransactionDataset) -> None:
    a = disassociate(quest, 3, 2, 20, seed=9)
    b = disassociate(quest, 3, 2, 20, seed=9, split_depth=0)
    assert a[0].to_json() == b[0].to_json() and a[1].to_json() == b[1].to_json()


def test_split_release_is_verified_and_deterministic(quest: TransactionDataset) -> None:
    release, truth = disassociate(quest, 3, 2, 20, seed=9, split_depth=3, verpart="original")
    again = disassociate(quest, 3, 2, 20, seed=9, split_depth=3, verpart="original")
    assert release.to_json() == again[0].to_json() and truth.to_json() == again[1].to_json()
    assert release.params["split_depth"] == 3 and "seed" not in release.params
    assert release.n_records == len(quest)
    assert verify(release).ok
    ids = sorted(r for c in truth.clusters for r in c.records)
    assert ids == list(range(len(quest)))  # the truth speaks of positions in the whole dataset
    for c, t in zip(release.clusters[:200], truth.clusters[:200], strict=True):  # and of the right records
        for chunk, owners in zip(c.record_chunks, t.record_chunks, strict=True):
            for sub, r in zip(chunk, owners, strict=True):
                assert set(sub) <= quest[r]
        for term, owners in t.term_chunk.items():
            assert all(term in quest[r] for r in owners)
    joint_children = {ch for j in release.joint_clusters for ch in j.children}
    assert joint_children  # REFINE still joins clusters, inside each part


def test_part_seeds_are_distinct_and_secret_derivations() -> None:
    seeds = {part_seed(123, i) for i in range(64)}
    assert len(seeds) == 64 and all(0 <= s < 2**128 for s in seeds)
    assert part_seed(123, 0) == part_seed(123, 0) != part_seed(124, 0)
    with pytest.raises(ValueError):
        part_seed(1, -1)


@st.composite
def tiny(draw: st.DrawFn) -> tuple[list[list[str]], int, int, int, int, bool]:
    vocab = "abcdef"[: draw(st.integers(3, 6))]
    records = draw(st.lists(st.lists(st.sampled_from(vocab), min_size=1, max_size=3, unique=True),
                            min_size=6, max_size=12))
    k = 2
    return records, k, draw(st.integers(1, 2)), draw(st.integers(3, 5)), draw(st.integers(1, 3)), draw(st.booleans())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=tiny())
def test_split_releases_keep_guarantee1(case: tuple) -> None:
    """Exhaustive oracle (no engine code): every split release has a valid reconstruction, the truth
    is one, and no itemset of at most m terms reaches between 1 and k-1 records in any of them."""
    records, k, m, delta, depth, safe = case
    ds = TransactionDataset.from_records(records)
    release, truth = disassociate(ds, k, m, delta, verpart="original", seed=3, split_depth=depth, safe=safe)
    rel, tru = json.loads(release.to_json()), json.loads(truth.to_json())
    try:
        feasible, bad = guarantee1_violations(rel)
    except TooLarge:
        return
    assert feasible and bad == []
    assert is_valid_reconstruction(rel, truth_records(rel, tru))


def test_cli_streams_the_same_bytes_as_the_api(tmp_path: Path, quest: TransactionDataset) -> None:
    data = tmp_path / "quest.txt"
    write_dataset(quest, data)
    out, secret = tmp_path / "r.json", tmp_path / "t.json"
    done = subprocess.run([sys.executable, "-m", "anonymizer", str(data), "-k", "3", "-m", "2",
                           "--max-cluster-size", "20", "--split-depth", "3", "--seed", "77", "-o", str(out),
                           "--truth", str(secret)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "8 parts at depth 3" in done.stdout
    release, truth = disassociate(read_dataset(data), 3, 2, 20, seed=77, split_depth=3)
    assert json.loads(out.read_text()) == json.loads(release.to_json())
    written = json.loads(secret.read_text())
    assert written.pop("release_sha256") == hashlib.sha256(out.read_bytes()).hexdigest()  # binds the pair
    assert written == json.loads(truth.to_json())
    assert load_release(out).to_json() == release.to_json()
    assert load_truth(secret).seed == 77


def test_run_parts_yields_parts_in_order(quest: TransactionDataset) -> None:
    parts = split_parts(quest, 2, 3, 20)
    results = list(run_parts(quest, parts, DisassociationParams(3, 2, 20), seed=1, progress=False))
    assert [r.index for r in results] == list(range(len(parts)))
    assert sum(r.release.n_records for r in results) == len(quest)


@pytest.mark.parametrize("argv, message", [
    (["--split-depth", "-1"], "split depth must be an integer from 0 to 16"),
    (["--split-depth", "17"], "split depth must be an integer from 0 to 16"),
    (["--workers", "2"], "--scheduler and --workers belong to --executor dask"),
    (["--executor", "dask", "--method", "apriori"], "--executor dask belongs to --method disassociation"),
])
def test_bad_split_options_are_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    data = tmp_path / "d.txt"
    data.write_text("a b\na c\nb c\na b c\n")
    done = run_tool("anonymizer", [str(data), "-k", "2", "-m", "2", "-o", str(tmp_path / "r.json"), *argv], cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and message in done.stderr
    assert not (tmp_path / "r.json").exists()
