"""The fast paths of the single-process run (issue 25) against slow, independent references.

* :func:`group_refining_terms` (REFINE's shared chunks, Property 1) against VERPART's passes written out
  literally: open a chunk, scan the remaining terms in order, add a term when the whole chunk is still
  valid, checked from scratch (k-anonymity with a term of T^r, k^m-anonymity otherwise);
* REFINE's joint-cluster keys against the terms of their (virtual) term chunks;
* the release builder's truth lists: one int object per record, the same values as before;
* the command line's start: ``--help`` and ``--version`` load neither scipy nor pandas.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from anonymizer.disassociation.refine import refine
from anonymizer.disassociation.refine_join import start_state, try_join
from anonymizer.disassociation.shared_chunks import group_refining_terms
from corpora.dataset import TransactionDataset

ROOT = Path(__file__).resolve().parents[1]


def _valid(chunk: list[int], postings: dict[int, list[int]], restricted: set[int], k: int, m: int) -> bool:
    holders = {t: set(postings[t]) for t in chunk}
    records = sorted(set().union(*holders.values()))
    subs = [tuple(t for t in chunk if r in holders[t]) for r in records]
    if restricted & set(chunk):
        return all(c >= k for c in Counter(subs).values())
    counts: Counter = Counter()
    for sub in subs:
        for size in range(1, min(m, len(sub)) + 1):
            counts.update(itertools.combinations(sorted(sub), size))
    return all(c >= k for c in counts.values())


def _reference(postings: dict[int, list[int]], order: list[int], restricted: set[int], k: int,
               m: int) -> list[tuple[list[int], dict[int, tuple[int, ...]]]]:
    remaining = list(order)
    out = []
    while remaining:
        chunk: list[int] = []
        for t in list(remaining):
            if _valid([*chunk, t], postings, restricted, k, m):
                chunk.append(t)
                remaining.remove(t)
        records = sorted({r for t in chunk for r in postings[t]})
        out.append((chunk, {r: tuple(t for t in chunk if r in postings[t]) for r in records}))
    return out


@pytest.mark.parametrize("case", range(120))
def test_group_refining_terms_matches_verpart_passes(case: int) -> None:
    rng = np.random.default_rng(case)
    k, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    n_records, n_terms = int(rng.integers(k, 40)), int(rng.integers(1, 9))
    density = rng.uniform(0.2, 0.9)
    postings = {}
    for t in range(n_terms):
        holders = sorted(set(rng.choice(n_records, size=int(rng.integers(k, n_records + 1)), replace=False).tolist()))
        keep = [r for r in holders if rng.random() < density or len(holders) <= k]
        postings[t] = keep if len(keep) >= k else holders
    order = sorted(postings, key=lambda t: (-len(postings[t]), t))
    restricted = {t for t in order if rng.random() < (0.0 if case % 3 == 0 else 0.3)}
    assert group_refining_terms(postings, order, restricted, k, m) == _reference(postings, order, restricted, k, m)


def _random_dataset(seed: int, n: int = 300, domain: int = 40) -> TransactionDataset:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, domain + 1)
    weights /= weights.sum()
    records = [sorted({f"t{int(x)}" for x in rng.choice(domain, size=int(rng.integers(1, 7)), p=weights)})
               for _ in range(n)]
    return TransactionDataset.from_records(records)


@pytest.mark.parametrize("seed", range(4))
def test_joint_keys_are_their_term_chunks(seed: int) -> None:
    from anonymizer.disassociation.horpart import horpart, join_small_clusters
    from anonymizer.disassociation.verpart import partition_clusters

    ds = _random_dataset(seed)
    k, m = 3, 2
    hp = join_small_clusters(horpart(ds, k, 8, "original"), ds, k, 8)
    parts = partition_clusters(ds, hp.clusters, k, m).partitions()
    st = start_state(ds, parts, k, m)
    nodes = [x for x in range(st.n_parts) if st.keys[x]]
    nodes.sort(key=st.keys.__getitem__)
    for a, b in zip(nodes[::2], nodes[1::2], strict=False):
        try_join(st, a, b)
    assert st.plans, "the case should join something"
    for x in range(st.n_parts, st.n_parts + len(st.plans)):
        vtc = st.vtc[x]
        expected = np.sort(st.rank[np.asarray(sorted(vtc), dtype=np.int64)]).astype(">u4").tobytes()
        assert st.keys[x] == (expected if vtc else b"")
        for groups in vtc.values():  # every group of a term is listed once
            listed = groups if isinstance(groups, list) else [groups]
            assert len(set(listed)) == len(listed)
    assert [p.children for p in refine(ds, parts, k, m)]  # and the whole loop still runs


@pytest.mark.parametrize("split", [False, True])
def test_truth_lists_share_one_int_per_record(split: bool) -> None:
    from anonymizer import disassociate

    ds = _random_dataset(7)
    ids = np.arange(len(ds), dtype=np.int64) * 3 + 1000 if split else None
    release, truth = disassociate(ds, k=3, m=2, seed=5, record_ids=ids)
    expected = (lambda r: int(ids[r])) if split else (lambda r: r)  # noqa: E731
    objects: dict[int, int] = {}
    named = [r for c in truth.clusters for r in c.records]
    named += [r for c in truth.clusters for chunk in c.record_chunks for r in chunk]
    named += [r for c in truth.clusters for rs in c.term_chunk.values() for r in rs]
    named += [r for j in truth.joint_clusters for chunk in j.shared_chunks for r in chunk]
    for r in named:
        assert type(r) is int
        assert objects.setdefault(r, id(r)) == id(r)
    assert sorted(r for c in truth.clusters for r in c.records) == sorted(expected(r) for r in range(len(ds)))


def _modules_after(code: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return set(out.stdout.split())


def test_cli_start_loads_neither_scipy_nor_pandas() -> None:
    loaded = _modules_after("import anonymizer.__main__, corpora, corpora.common.cli\n"
                            "from anonymizer.cli import TOOL\n"
                            "from corpora.common.cli import top_parser\n"
                            "top_parser(TOOL).format_help()")
    assert not {"scipy", "pandas", "corpora.dataset"} & loaded


def test_version_is_read_when_asked() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "anonymizer", "verify", "--version"], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True)
    from corpora.common.cli import version

    assert out.stdout == f"python -m anonymizer verify {version()}\n"
    import corpora

    assert corpora.TransactionDataset is TransactionDataset
