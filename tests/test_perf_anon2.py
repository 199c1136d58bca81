"""The second round of the single-process run (issue 25) against slow, independent references.

* HORPART's peel chains (:func:`peel_chain`, lazy heap keys; term tables over the vocabulary or
  ``np.unique``) against the splits recounted from scratch at every step;
* REFINE reading VERPART's table itself (:func:`leaves_from_table`) against the partitions' term strings
  (:func:`prepare_leaves`): the same leaves and the same joint plans;
* the command line: a disassociation run does not import the baselines, and it gives the collector back.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from array import array
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from anonymizer.disassociation.horpart import horpart, join_small_clusters
from anonymizer.disassociation.horpart_groups import GroupIndex, peel_chain
from anonymizer.disassociation.refine import refine
from anonymizer.disassociation.refine_leaves import leaves_from_table, prepare_leaves
from anonymizer.disassociation.verpart import partition_clusters
from corpora.dataset import TransactionDataset

ROOT = Path(__file__).resolve().parents[1]


def _dataset(seed: int, n: int, domain: int, longest: int = 7) -> TransactionDataset:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, domain + 1)
    weights /= weights.sum()
    records = [sorted({f"t{int(x):05d}" for x in rng.choice(domain, size=int(rng.integers(1, longest)), p=weights)})
               for _ in range(n)]
    return TransactionDataset.from_records(records)


def _reference_peel(ds: TransactionDataset, records: np.ndarray, ignore: tuple[int, ...], max_size: int,
                    min_rest: int, stop_below: int) -> tuple[list[list[int]], list[int]]:
    """Each step recounts the supports of the records left and splits on the most frequent term."""
    terms = {r: set(ds.indices[ds.indptr[r]:ds.indptr[r + 1]].tolist()) - set(ignore) for r in records.tolist()}
    alive = sorted(terms)
    peels = []
    while len(alive) > max_size:
        counts = Counter(t for r in alive for t in terms[r])
        if not counts:
            break
        best = min(counts, key=lambda t: (-counts[t], t))
        if counts[best] < stop_below or len(alive) - counts[best] < min_rest:
            break
        peels.append([r for r in alive if best in terms[r]])
        alive = [r for r in alive if best not in terms[r]]
    return peels, alive


@pytest.mark.parametrize("case", range(60))
def test_peel_chain_matches_recounted_splits(case: int) -> None:
    rng = np.random.default_rng(case)
    domain = [6, 30, 400, 5000][case % 4]
    ds = _dataset(case, int(rng.integers(20, 200)) if case % 4 < 3 else 600, domain)
    index = GroupIndex(ds)
    n = len(ds)
    # a group with fewer entries than an eighth of the vocabulary takes np.unique, a larger one the tables
    size = int(rng.integers(1, n + 1)) if case % 4 < 3 else int(rng.integers(12, 40))
    records = np.sort(rng.choice(n, size=size, replace=False)).astype(np.int64)
    n_ignore = int(rng.integers(0, 3))
    ignore = tuple(sorted(set(rng.choice(len(ds.vocabulary), size=n_ignore).tolist()))) if n_ignore else ()
    max_size, min_rest, stop_below = int(rng.integers(2, 12)), int(rng.integers(1, 4)), int(rng.integers(0, 4))
    peels, rest = peel_chain(index, records, ignore, max_size, min_rest, stop_below)
    expected_peels, expected_rest = _reference_peel(ds, records, ignore, max_size, min_rest, stop_below)
    assert [p.tolist() for p in peels] == expected_peels
    assert rest.tolist() == expected_rest


def _table(seed: int, k: int, m: int, verpart: str):
    ds = _dataset(seed, 400, 60)
    hp = join_small_clusters(horpart(ds, k, 10, "original"), ds, k, 10)
    return ds, partition_clusters(ds, hp.clusters, k, m, verpart)


@pytest.mark.parametrize("seed", range(8))
def test_leaves_from_table_are_the_partitions_leaves(seed: int) -> None:
    k, m = 2 + seed % 3, 1 + seed % 3
    ds, table = _table(seed, k, m, ["strict", "original", "grouped"][seed % 3])
    fast, slow = leaves_from_table(table), prepare_leaves(ds, table.partitions())
    assert fast.sizes == slow.sizes
    for name in ("rc_ptr", "group_ptr", "group_part", "group_term", "group_start", "records"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert (list(a) if isinstance(a, array) else a.tolist()) == (list(b) if isinstance(b, array) else b.tolist())
    # the record-chunk terms of each leaf are the same set (the partitions list them chunk by chunk)
    for p in range(len(fast.sizes)):
        lo, hi = fast.rc_ptr[p], fast.rc_ptr[p + 1]
        assert sorted(fast.rc_terms[lo:hi].tolist()) == sorted(slow.rc_terms[lo:hi].tolist())
    assert refine(ds, table, k, m) == refine(ds, table.partitions(), k, m)


def test_refine_reads_a_table_of_another_vocabulary_through_its_partitions() -> None:
    ds, table = _table(3, 3, 2, "strict")
    other = TransactionDataset.from_records([[*sorted(r), "zzz-extra"] for r in ds.records])
    parts = table.partitions()
    assert refine(other, table, 3, 2) == refine(other, parts, 3, 2)


def test_disassociation_cli_does_not_import_the_baselines() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys, anonymizer.cli.anonymize\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert not {"anonymizer.baselines.apriori", "anonymizer.cli.baselines"} & set(out.stdout.split())


def test_cli_run_gives_the_collector_back(tmp_path: Path) -> None:
    from anonymizer.cli.anonymize import main

    data = tmp_path / "d.txt"
    data.write_text("".join(" ".join(sorted(r)) + "\n" for r in _dataset(1, 60, 12).records))
    assert gc.isenabled()
    assert main([str(data), "-k", "2", "-m", "2", "--seed", "1", "-o", str(tmp_path / "r.json")]) == 0
    assert gc.isenabled()
    assert (tmp_path / "r.json").exists()


@pytest.mark.parametrize("seed", range(4))
def test_refine_postings_gathered_or_looped_give_the_same_plans(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import anonymizer.disassociation.refine_join as refine_join

    k, m = 2 + seed % 2, 2 + seed % 2
    ds, table = _table(seed, k, m, "strict")
    monkeypatch.setattr(refine_join, "_GATHER_MIN", 10**9)  # every join loops over its groups
    looped = refine(ds, table, k, m)
    monkeypatch.setattr(refine_join, "_GATHER_MIN", 0)  # every join gathers with numpy
    assert looped and refine(ds, table, k, m) == looped


@pytest.mark.parametrize("seed", range(4))
def test_joint_nodes_keep_the_supports_of_their_group_lists(seed: int) -> None:
    from anonymizer.disassociation.refine_join import start_state, try_join

    k, m = 4 + seed % 2, 2  # common terms below k stay in the joint's term chunk: lists of groups
    ds, table = _table(seed, k, m, "strict")
    st = start_state(ds, table, k, m)
    for _ in range(6):  # a few rounds of adjacent pairs, as REFINE tries them
        nodes = sorted((x for x in range(len(st.keys)) if st.keys[x]), key=st.keys.__getitem__)
        for a, b in zip(nodes[::2], nodes[1::2], strict=False):
            try_join(st, a, b)
    joints = [x for x in range(st.n_parts, len(st.keys)) if st.keys[x]]
    assert joints
    lists = 0
    for x in joints:
        expected = {t: sum(st.gsize[g] for g in groups) for t, groups in st.vtc[x].items() if isinstance(groups, list)}
        assert st.list_support[x] == expected
        lists += len(expected)
    assert lists, "the case should hold terms with several groups"
