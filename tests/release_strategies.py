"""Hypothesis strategies for tiny hand-built releases (plain ``disassociated/1`` JSON objects).

Shared by the tests that hold the sampler and the verifier's exact search against the exhaustive
oracle of tests/reconstruction_oracle.py. The releases are well formed in the sense of
Terrovitis2012 section 3 (a cluster's chunks over disjoint term sets, a joint cluster's shared
chunks over disjoint term sets) but otherwise free: implied empty sub-records, empty or
non-empty term chunks, the same term in several clusters, shared chunks that hold terms listed in
a leaf's record chunks or term chunk, nested joint clusters, and releases with no valid
reconstruction at all.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

from hypothesis import strategies as st

POOL = list("abcdef")
SHARED_POOL = POOL + ["s", "u"]


def _split(draw, pool, n_chunks, max_subs, min_subs=0):
    """Disjoint chunk domains drawn from ``pool`` and their sub-records (sorted lists)."""
    labels = draw(st.lists(st.integers(0, n_chunks + 1), min_size=len(pool), max_size=len(pool)))
    chunks, spare = [], [t for t, lab in zip(pool, labels, strict=True) if lab == n_chunks]
    for j in range(n_chunks):
        dom = [t for t, lab in zip(pool, labels, strict=True) if lab == j]
        if not dom:
            continue
        subs = draw(st.lists(st.frozensets(st.sampled_from(dom), min_size=1), min_size=min_subs, max_size=max_subs))
        if subs:
            chunks.append([sorted(s) for s in subs])
    return chunks, spare


@st.composite
def tiny_releases(draw, max_clusters: int = 3, max_size: int = 4):
    """A tiny release with at most ``max_clusters`` clusters of at most ``max_size`` records."""
    k = draw(st.integers(2, 3))
    m = draw(st.integers(1, 3))
    clusters = []
    for ci in range(draw(st.sampled_from([1] + [n for n in range(2, max_clusters + 1) for _ in range(2)]))):
        size = draw(st.integers(1, max_size))
        chunks, spare = _split(draw, POOL, 2, size)
        term_chunk = spare if draw(st.booleans()) else []
        clusters.append({"id": f"P{ci}", "size": size, "record_chunks": chunks, "term_chunk": term_chunk})
    joints = []
    if len(clusters) >= 2 and draw(st.integers(0, 3)) > 0:
        cut = draw(st.integers(2, len(clusters)))
        capacity = sum(c["size"] for c in clusters[:cut])
        shared, _ = _split(draw, SHARED_POOL, 2, capacity, min_subs=1)
        joints.append({"id": "J0", "children": [c["id"] for c in clusters[:cut]], "shared_chunks": shared})
        if cut < len(clusters) and draw(st.booleans()):
            capacity += clusters[cut]["size"]
            upper, _ = _split(draw, SHARED_POOL + ["w"], 1, capacity, min_subs=1)
            joints.append({"id": "J1", "children": ["J0", clusters[cut]["id"]], "shared_chunks": upper})
    return {"format": "disassociated/1", "params": {"k": k, "m": m}, "clusters": clusters,
            "joint_clusters": joints}


def per_cluster(release: dict, records) -> list[list[frozenset]]:
    """Split a reconstructed dataset's records by cluster, in release order."""
    out, start = [], 0
    for c in release["clusters"]:
        out.append([frozenset(r) for r in records[start:start + c["size"]]])
        start += c["size"]
    return out


def _repeated(draw, dom, k, max_subs):
    """Sub-records over ``dom``, each distinct one listed about k times (sometimes fewer), at most ``max_subs``."""
    subs = []
    for _ in range(draw(st.integers(1, 2))):
        kind = sorted(draw(st.frozensets(st.sampled_from(dom), min_size=1, max_size=2)))
        subs += [kind] * (k - 1 if draw(st.integers(0, 7)) == 0 else draw(st.integers(k, k + 2)))
    return subs[:max_subs]


@st.composite
def near_anonymous_releases(draw, max_size: int = 4):
    """A tiny release whose chunks are (nearly) k^m-anonymous and whose shared chunks are (nearly)
    k-anonymous: two or three leaves of k..max_size records under one joint cluster, sometimes a
    second, nested one; the kind of release the sufficient condition of
    :func:`anonymizer.evaluation.exact.prove_component` can prove (or just fail to)."""
    k = 2
    m = draw(st.integers(1, 2))
    clusters = []
    n_leaves = draw(st.integers(2, 3))
    for ci in range(n_leaves):
        size = draw(st.integers(k, max_size))
        dom = [t for t in POOL[:5] if draw(st.booleans())] or ["a"]
        cut_dom = draw(st.integers(1, len(dom)))
        chunks = ([_repeated(draw, dom[:cut_dom], k, size)] if draw(st.integers(0, 4)) else []) + (
            [_repeated(draw, dom[cut_dom:], k, size)] if dom[cut_dom:] and draw(st.booleans()) else [])
        term_chunk = ["f"] if draw(st.booleans()) else []
        clusters.append({"id": f"P{ci}", "size": size, "record_chunks": chunks, "term_chunk": term_chunk})
    cut = 2 if n_leaves == 3 and draw(st.booleans()) else n_leaves
    capacity = sum(c["size"] for c in clusters[:cut])
    shared = [_repeated(draw, draw(st.sampled_from([["s"], ["s", "u"], ["a", "s"], ["a", "b"]])), k, capacity)]
    joints = [{"id": "J0", "children": [c["id"] for c in clusters[:cut]], "shared_chunks": shared}]
    if cut < n_leaves:
        dom = draw(st.sampled_from([["w"], ["s", "w"], ["b", "w"]]))
        upper = [_repeated(draw, dom, k, capacity + clusters[-1]["size"])]
        joints.append({"id": "J1", "children": ["J0", clusters[-1]["id"]], "shared_chunks": upper})
    return {"format": "disassociated/1", "params": {"k": k, "m": m}, "clusters": clusters,
            "joint_clusters": joints}


def tamper(obj: dict, rng: random.Random, vocabulary: Sequence[str] | None = None,
           drop_empty_shared: bool = False) -> dict:
    """One random change that keeps the file a release: a sub-record copied, dropped, moved into a
    shared chunk, or given another term (from ``vocabulary``, else ``t0`` .. ``t7``); a cluster made
    one record smaller or larger (never below its largest chunk); a term chunk emptied.
    ``drop_empty_shared`` then removes the shared chunks left empty."""
    obj = copy.deepcopy(obj)
    clusters = obj["clusters"]
    chunks = [ch for c in clusters for ch in c["record_chunks"] if ch]
    shared = [ch for j in obj["joint_clusters"] for ch in j["shared_chunks"] if ch]
    kind = rng.randrange(6)
    if kind == 0 and chunks:
        ch = rng.choice(chunks)
        ch.append(list(rng.choice(ch)))
    elif kind == 1 and chunks + shared:
        ch = rng.choice(chunks + shared)
        if len(ch) > 1:
            ch.pop(rng.randrange(len(ch)))
    elif kind == 2 and shared and chunks:
        rng.choice(shared).append(list(rng.choice(rng.choice(chunks))))
    elif kind == 3 and chunks + shared:
        ch = rng.choice(chunks + shared)
        ch[rng.randrange(len(ch))] = [rng.choice(vocabulary) if vocabulary is not None else f"t{rng.randrange(8)}"]
    elif kind == 4:
        c = rng.choice(clusters)
        c["size"] = max([len(ch) for ch in c["record_chunks"]] + [1, c["size"] + rng.choice([-1, 1])])
    else:
        rng.choice(clusters)["term_chunk"] = []
    if drop_empty_shared:
        for j in obj["joint_clusters"]:
            j["shared_chunks"] = [ch for ch in j["shared_chunks"] if ch]
    return obj
