"""REFINE across the parts of a split run: pooling the terms that every part left in term chunks.

A split run (:mod:`anonymizer.disassociation.parts`) runs REFINE (Terrovitis2012 section 4) inside
each part, so a term that is rare in every part stays in term chunks everywhere although it is
frequent over the whole dataset: tlost grew from 3.5% unsplit to 15.2% at split depth 2 and 38.7%
at depth 4 on 1M synthetic records (issue 25). This module gives such terms the REFINE pass the
parts could not: after every part is disassociated, REFINE runs once more over the parts' *top*
clusters (the roots of their joint-cluster trees, and the simple clusters no joint took), with the
same steps as :mod:`anonymizer.disassociation.refine` (ordering by term chunk support, adjacent
pairs, Equation 1 via :func:`~anonymizer.disassociation.refine_join.refining_criterion`, shared
chunks grouped by :func:`~anonymizer.disassociation.shared_chunks.group_refining_terms`, rounds
until none joins). The new joint clusters span parts; their children are the parts' top clusters.

The paper has no split runs; the choices made here:

* **Which terms** (the *pool*): the terms of support >= k in the whole dataset that no part
  publishes in a record chunk or a shared chunk. These are exactly the terms tlost counts as lost;
  a term some part already publishes keeps its term-chunk occurrences elsewhere, as in the unsplit
  run, where REFINE leaves many occurrences in term chunks too. Restricting the pass to the pool
  keeps it small: only the pool's occurrences (rare terms) travel to the client, never the records.
* **Property 1** (section 5): a pool term is in no record chunk and no shared chunk of any part, and
  a term placed by a pooled joint leaves the virtual term chunk of that joint, so no candidate of a
  pooled join is ever in T^r: every pooled shared chunk needs k^m-anonymity, the test
  :func:`~anonymizer.disassociation.shared_chunks.group_refining_terms` applies to chunks without a
  T^r term.
* **Lemma 2** (section 5): the parts' releases are built, so the record-chunk repair REFINE does
  after itself (:mod:`anonymizer.disassociation.lemma2_repair`) is not available. A leaf whose
  record chunks alone do not satisfy Lemma 2 (or that has none) keeps its last term-chunk term: the
  candidate with the smallest support it would lose is left out of the join (the rule REFINE applies
  to leaves without record chunks, :func:`~anonymizer.disassociation.refine_join.try_join` step 2).
  Every other leaf may lose its whole term chunk, since Lemma 2 holds on its record chunks.
* **Order and names**: top clusters are numbered in part order (a part's unjoined simple clusters,
  then its root joint clusters, in release order), pooled joints after them; ties of the ordering
  go by that number, as REFINE's go by cluster number. The pooled joint clusters are published after
  every part's joint clusters (``J`` numbers following theirs), children first.
* **Publishing**: their shared sub-records get the builder's content order and a shuffle from the
  ``"pool"`` stream of the owner's seed (:func:`corpora.common.seeds.generator`).

Everything here is decided by the client from the parts' summaries (:class:`PartSummary`, made where
the part is disassociated, :func:`summarize_part`) and applied to the parts' releases before they are
written (:func:`pool_results`), so the local and the Dask executors give the same bytes.
"""

from __future__ import annotations

import dataclasses
import itertools
import pickle
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from anonymizer.disassociation.parts import PartResult, RunFigures
from anonymizer.disassociation.publish import _shuffled_order, _term_hashes
from anonymizer.disassociation.refine_join import refining_criterion
from anonymizer.disassociation.shared_chunks import group_refining_terms
from anonymizer.io.json_writer import EncodedPart, encode_part
from anonymizer.model.conditions import lemma2_holds
from anonymizer.model.params import DisassociationParams
from anonymizer.model.provenance import dumps
from anonymizer.model.release import Cluster, ClusterTruth, JointCluster, JointClusterTruth, Release, Truth
from corpora.common.seeds import generator

__all__ = ["LeafSummary", "PartSummary", "PoolPlan", "TopSummary", "plan_pool", "pool_results", "summarize_part"]

POOL_PREFIX = "X"
"""Local ids of the pooled joint clusters inside the pooled part (``X1..``); the writer renames them ``J..``."""


@dataclass
class LeafSummary:
    """A simple cluster of a part with candidate terms in its term chunk."""

    position: int
    """Its index among the part's clusters."""
    size: int
    term_chunk_size: int
    needs_term: bool
    """Lemma 2 needs a non-empty term chunk (its record chunks alone do not satisfy it)."""
    terms: dict[str, list[int]]
    """Candidate terms of its term chunk -> the records (ids of the whole dataset) holding them."""


@dataclass
class TopSummary:
    """A top cluster of a part: a root joint cluster or a simple cluster no joint took."""

    joint: bool
    position: int
    """Its index among the part's clusters (simple) or joint clusters (joint)."""
    size: int
    leaves: list[LeafSummary]
    restricted: set[str] = field(default_factory=set)
    """The terms of its leaves' term chunks that are also in its T^r (Property 1): in a record chunk of
    one of its leaves or a shared chunk of one of its joint clusters."""


@dataclass
class PartSummary:
    """What the pooled REFINE pass needs of one part: its counts, the terms it publishes in record or
    shared chunks, and its top clusters holding any other term in a term chunk."""

    n_clusters: int
    n_joints: int
    kept: set[str]
    tops: list[TopSummary] = field(default_factory=list)


def summarize_part(release: Release, truth: Truth, k: int, m: int) -> PartSummary:
    """The :class:`PartSummary` of a disassociated part (its release and truth)."""
    restricted: list[set[str]] = []
    leaves: dict[int, LeafSummary] = {}
    kept: set[str] = set()
    for i, (c, t) in enumerate(zip(release.clusters, truth.clusters, strict=True)):
        restricted.append({term for chunk in c.record_chunks for sub in chunk for term in sub})
        kept |= restricted[-1]
        terms = {term: list(t.term_chunk[term]) for term in c.term_chunk}
        if terms:
            nonempty = sum(len(chunk) for chunk in c.record_chunks)
            needs = not lemma2_holds(c.size, nonempty, len(c.record_chunks), k, m, True)
            leaves[i] = LeafSummary(i, c.size, len(c.term_chunk), needs, terms)
    position = {c.id: i for i, c in enumerate(release.clusters)}
    n = len(release.clusters)
    position.update((j.id, n + i) for i, j in enumerate(release.joint_clusters))
    sizes = [c.size for c in release.clusters]
    under: list[list[int]] = [[i] for i in range(n)]
    is_child = [False] * (n + len(release.joint_clusters))
    for j in release.joint_clusters:
        kids = [position[ch] for ch in j.children]
        for ch in kids:
            is_child[ch] = True
        under.append([leaf for ch in kids for leaf in under[ch]])
        shared = {term for chunk in j.shared_chunks for sub in chunk for term in sub}
        kept |= shared
        restricted.append(set().union(*(restricted[ch] for ch in kids), shared))
    tops = []
    for node, members in enumerate(under):
        if is_child[node]:
            continue
        mine = [leaves[leaf] for leaf in members if leaf in leaves]
        if mine:
            joint = node >= n
            vtc = {term for leaf in mine for term in leaf.terms}
            tops.append(TopSummary(joint, node - n if joint else node, sum(sizes[leaf] for leaf in members), mine,
                                   vtc & restricted[node]))
    return PartSummary(n, len(release.joint_clusters), kept, tops)


@dataclass
class PoolPlan:
    """The pooled joint clusters (children named as the merged release names them, shared chunks as
    (terms, [(record, sub-record)])) and the terms each part's clusters give up."""

    joints: list[JointCluster]
    joint_truths: list[JointClusterTruth]
    removed: list[dict[int, set[str]]]
    """Per part: cluster position -> the terms its term chunk loses."""
    moved: int = 0
    """Term occurrences moved from term chunks to pooled shared chunks."""



@dataclass
class _Pool:
    """The pooled pass's working data. A node is a top cluster (``0..n_tops-1``, in part order) or a
    pooled joint (``n_tops + x``); a group is one (leaf, pool term) with the records holding it."""

    k: int
    m: int
    names: list[str] = field(default_factory=list)
    size: list[int] = field(default_factory=list)
    vtc: list[dict[int, list[int]]] = field(default_factory=list)
    """Per node, its (virtual) term chunk over the pool: term -> its groups."""
    vsup: list[dict[int, int]] = field(default_factory=list)
    """Per node, the support of each term of its virtual term chunk (over its groups)."""
    t_r: list[set[int]] = field(default_factory=list)
    """Per node, the terms of its T^r that are or were in its virtual term chunk."""
    keys: list[tuple[int, ...]] = field(default_factory=list)
    rank: list[int] = field(default_factory=list)
    group_leaf: list[int] = field(default_factory=list)
    group_term: list[int] = field(default_factory=list)
    group_records: list[list[int]] = field(default_factory=list)
    leaf_size: list[int] = field(default_factory=list)
    leaf_needs: list[bool] = field(default_factory=list)
    tc_left: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    chunks: list[list[tuple[list[int], dict[int, tuple[int, ...]]]]] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    """The groups whose term left their leaf's term chunk."""


def _start(summaries: list[PartSummary], pool: list[str], k: int, m: int, lost: set[str]
           ) -> tuple[_Pool, list[tuple[int, int]]]:
    """Nodes, groups and leaves over the pool terms; also each leaf's (part, cluster position)."""
    term_id = {t: i for i, t in enumerate(pool)}
    total_clusters = total_joints = 0
    st = _Pool(k, m)
    leaf_of: list[tuple[int, int]] = []
    for p, summary in enumerate(summaries):
        for top in summary.tops:
            vtc: dict[int, list[int]] = {}
            for leaf in top.leaves:
                held = sorted(term_id[t] for t in leaf.terms if t in term_id)
                if not held:
                    continue
                for t in held:
                    vtc.setdefault(t, []).append(len(st.group_leaf))
                    st.group_leaf.append(len(leaf_of))
                    st.group_term.append(t)
                    st.group_records.append(leaf.terms[pool[t]])
                leaf_of.append((p, leaf.position))
                st.leaf_size.append(leaf.size)
                st.leaf_needs.append(leaf.needs_term)
                st.tc_left.append(leaf.term_chunk_size)
            if vtc:
                base = total_joints if top.joint else total_clusters
                st.names.append(f"{'J' if top.joint else 'P'}{base + top.position + 1}")
                st.size.append(top.size)
                st.vtc.append(dict(sorted(vtc.items())))
                st.vsup.append({t: sum(len(st.group_records[g]) for g in groups) for t, groups in vtc.items()})
                st.t_r.append({term_id[t] for t in top.restricted if t in term_id})
        total_clusters += summary.n_clusters
        total_joints += summary.n_joints
    # the ordering of section 4: terms by decreasing term chunk support (leaves holding them), ties by term
    tcs = Counter(t for vtc in st.vtc for t, groups in vtc.items() for _ in groups)
    st.rank = [0] * len(pool)
    first = [t in lost for t in pool]
    for r, t in enumerate(sorted(range(len(pool)), key=lambda t: (not first[t], -tcs[t], t))):
        st.rank[t] = r
    st.keys = [tuple(sorted(st.rank[t] for t in vtc)) for vtc in st.vtc]
    st.children = [[] for _ in st.vtc]
    return st, leaf_of


def _candidates(st: _Pool, a: int, b: int) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Step 1 of a join: the common terms whose support over both nodes reaches k, with their groups."""
    groups_of: dict[int, list[int]] = {}
    supports: dict[int, int] = {}
    sa, sb, k = st.vsup[a], st.vsup[b], st.k
    for t in sorted(sa.keys() & sb.keys()):
        s = sa[t] + sb[t]
        if s >= k:
            groups_of[t] = st.vtc[a][t] + st.vtc[b][t]
            supports[t] = s
    return groups_of, supports


def _keep_last_terms(st: _Pool, groups_of: dict[int, list[int]], supports: dict[int, int]) -> Counter:
    """Step 2: a leaf that needs its term chunk for Lemma 2 keeps one term (module doc); returns v_j per leaf."""
    leaf = st.group_leaf
    per_leaf: Counter = Counter(leaf[g] for groups in groups_of.values() for g in groups)
    for p in sorted(p for p, n in per_leaf.items() if n >= st.tc_left[p] and st.leaf_needs[p]):
        if per_leaf[p] < st.tc_left[p]:
            continue
        mine = [t for t, groups in groups_of.items() if any(leaf[g] == p for g in groups)]
        drop = min(mine, key=lambda t: (supports[t], t))
        per_leaf.subtract(leaf[g] for g in groups_of.pop(drop))
        del supports[drop]
    return +per_leaf


def _try_join(st: _Pool, a: int, b: int) -> bool:
    """REFINE's join (Equation 1, shared chunks, the new node) of nodes ``a`` and ``b``; True on a join."""
    groups_of, supports = _candidates(st, a, b)
    if not supports:
        return False
    per_leaf = _keep_last_terms(st, groups_of, supports)
    if not supports or not refining_criterion(list(supports.values()), st.size[a] + st.size[b],
                                              list(per_leaf.values()), [st.leaf_size[p] for p in per_leaf]):
        return False
    for p, n in per_leaf.items():
        st.tc_left[p] -= n
    postings: dict[int, list[int]] = {}
    for t, groups in groups_of.items():
        postings[t] = [r for g in groups for r in st.group_records[g]]
        st.removed.extend(groups)
    order = sorted(supports, key=lambda t: (-supports[t], t))
    ra, rb = st.t_r[a], st.t_r[b]
    restricted = {t for t in supports if t in ra or t in rb}
    st.chunks.append(group_refining_terms(postings, order, restricted, st.k, st.m))
    big, little = (a, b) if len(st.vtc[a]) >= len(st.vtc[b]) else (b, a)  # the smaller merges into the larger
    vtc, vsup = st.vtc[big], st.vsup[big]
    for t, groups in st.vtc[little].items():
        if t in vtc:
            vtc[t] = vtc[t] + groups
            vsup[t] += st.vsup[little][t]
        else:
            vtc[t] = groups
            vsup[t] = st.vsup[little][t]
    for t in supports:
        del vtc[t], vsup[t]
    t_r = ra if len(ra) >= len(rb) else rb
    t_r |= rb if t_r is ra else ra
    t_r.update(supports)
    st.vtc.append(vtc)
    st.vsup.append(vsup)
    st.t_r.append(t_r)
    st.keys.append(tuple(sorted(st.rank[t] for t in vtc)))
    st.size.append(st.size[a] + st.size[b])
    st.children.append(sorted((a, b)))
    for x in (a, b):
        st.vtc[x], st.vsup[x], st.t_r[x], st.keys[x] = {}, {}, set(), ()
    return True


def _refine_rounds(st: _Pool) -> None:
    """REFINE's repeat loop (:func:`anonymizer.disassociation.refine.refine`): order, join adjacent
    pairs, until a round joins none; a failed pair is never tried again."""
    failed: set[tuple[int, int]] = set()
    ordered = [x for x in range(len(st.vtc)) if st.keys[x]]
    while True:
        ordered.sort(key=st.keys.__getitem__)  # stable: among equal keys, by node number
        joined, i = 0, 0
        while i + 1 < len(ordered):
            a, b = ordered[i], ordered[i + 1]
            if (a, b) not in failed and _try_join(st, a, b):
                joined += 1
                i += 2
            else:
                failed.add((a, b))
                i += 1
        if not joined:
            return
        n = len(st.vtc)
        ordered = [x for x in ordered if st.keys[x]] + [x for x in range(n - joined, n) if st.keys[x]]


def _publish(st: _Pool, pool: list[str], n_tops: int, seed: int) -> tuple[list[JointCluster], list[JointClusterTruth]]:
    """The pooled joint clusters (ids ``X1..``), their shared sub-records in content order, then shuffled."""
    subs: list[tuple[str, ...]] = []
    recs: list[int] = []
    groups: list[int] = []
    flat: list[int] = []
    lengths: list[int] = []
    n_chunks = 0
    for chunks in st.chunks:
        for _, sub in chunks:
            for r in sorted(sub):
                ids = sorted(sub[r])
                subs.append(tuple(pool[t] for t in ids))
                recs.append(r)
                groups.append(n_chunks)
                flat.extend(ids)
                lengths.append(len(ids))
            n_chunks += 1
    order: list[int] = []
    if subs:
        size = np.asarray(lengths, dtype=np.int64)
        hashes = np.add.reduceat(_term_hashes(len(pool))[np.asarray(flat, dtype=np.int64)], np.cumsum(size) - size)
        order = _shuffled_order(np.asarray(groups, dtype=np.int64), hashes, generator(seed, "pool")).tolist()
    bounds = np.searchsorted(np.asarray(groups, dtype=np.int64)[order], np.arange(n_chunks + 1)).tolist()

    def name(node: int) -> str:
        return st.names[node] if node < n_tops else f"{POOL_PREFIX}{node - n_tops + 1}"

    joints, truths = [], []
    g = 0
    for x, chunks in enumerate(st.chunks):
        shared, owners = [], []
        for _ in chunks:
            shared.append([subs[i] for i in order[bounds[g]:bounds[g + 1]]])
            owners.append([recs[i] for i in order[bounds[g]:bounds[g + 1]]])
            g += 1
        jid = name(n_tops + x)
        joints.append(JointCluster(jid, [name(c) for c in st.children[n_tops + x]], shared))
        truths.append(JointClusterTruth(jid, owners))
    return joints, truths


def plan_pool(summaries: list[PartSummary], supports: Mapping[str, int], k: int, m: int, seed: int) -> PoolPlan:
    """The pooled REFINE pass over the parts' top clusters (module doc), decided from their summaries
    and the whole dataset's term ``supports``; ``seed`` is the owner's."""
    held = {t for s in summaries for top in s.tops for leaf in top.leaves for t in leaf.terms}
    pool = sorted(t for t in held if supports.get(t, 0) >= k)
    kept = set().union(*(s.kept for s in summaries)) if summaries else set()
    st, leaf_of = _start(summaries, pool, k, m, {t for t in pool if t not in kept})
    n_tops = len(st.vtc)
    _refine_rounds(st)
    joints, truths = _publish(st, pool, n_tops, seed)
    plan = PoolPlan(joints, truths, [{} for _ in summaries])
    for g in st.removed:
        part, position = leaf_of[st.group_leaf[g]]
        plan.removed[part].setdefault(position, set()).add(pool[st.group_term[g]])
        plan.moved += len(st.group_records[g])
    return plan


# ---------------------------------------------------------------------------------------------
# Applying the plan to the parts, as they are written
# ---------------------------------------------------------------------------------------------

def _without(release: Release, truth: Truth | None, removed: Mapping[int, set[str]]) -> tuple[Release, Truth | None]:
    """``release`` and ``truth`` with the ``removed`` terms out of their clusters' term chunks."""
    clusters = list(release.clusters)
    truths = list(truth.clusters) if truth is not None else []
    for position, gone in removed.items():
        c = clusters[position]
        clusters[position] = Cluster(c.id, c.size, c.record_chunks, [t for t in c.term_chunk if t not in gone])
        if truth is not None:
            t = truths[position]
            truths[position] = ClusterTruth(t.id, t.records, t.record_chunks,
                                            {term: ids for term, ids in t.term_chunk.items() if term not in gone})
    out = Release(release.params, clusters, release.joint_clusters)
    return out, (dataclasses.replace(truth, clusters=truths) if truth is not None else None)


def _patch_piece(cid: str, tail: bytes, gone: set[str]) -> bytes:
    """One encoded cluster (release or truth) without the ``gone`` terms in its term chunk."""
    head = b'{"id":' + dumps(cid)
    value = orjson.loads(head + tail)
    chunk = value["term_chunk"]
    value["term_chunk"] = ([t for t in chunk if t not in gone] if isinstance(chunk, list)
                           else {t: ids for t, ids in chunk.items() if t not in gone})
    return dumps(value)[len(head):]


def _patch_encoded(part: EncodedPart, removed: Mapping[int, set[str]]) -> None:
    """:func:`_without` on an encoded part, in place (only the clusters that lose terms are decoded)."""
    for position, gone in removed.items():
        cid = part.cluster_ids[position]
        part.clusters[position] = _patch_piece(cid, part.clusters[position], gone)
        if part.truth_clusters is not None:
            part.truth_clusters[position] = _patch_piece(cid, part.truth_clusters[position], gone)


def _apply(result: PartResult, removed: Mapping[int, set[str]]) -> PartResult:
    if not removed:
        return result
    if result.encoded is not None:
        _patch_encoded(result.encoded, removed)
    elif result.release is not None:
        result.release, result.truth = _without(result.release, result.truth, removed)
    return result


def _pooled_part(plan: PoolPlan, index: int, params: Mapping[str, object], encoded: bool, with_truth: bool,
                 seconds: float) -> PartResult:
    """The pooled joint clusters as one more part (no simple cluster; children in earlier parts)."""
    release, truth = Release(params, [], plan.joints), Truth([], plan.joint_truths)
    times = {"horpart": 0.0, "verpart": 0.0, "refine": seconds, "build": 0.0, "safe": 0.0}
    result = PartResult(index, release, truth, np.zeros(0, dtype=np.int64), times)
    if encoded:
        result.figures = RunFigures(seconds=dict(times))
        result.figures.add(release, truth)
        result.figures.term_chunk_occurrences -= plan.moved
        result.encoded = encode_part(release, truth if with_truth else None)
        result.release = result.truth = None
    return result


def _trim(summary: PartSummary, supports: Mapping[str, int], k: int) -> PartSummary:
    """Drop the terms no pooled join can place (support below k in the whole dataset)."""
    for top in summary.tops:
        for leaf in top.leaves:
            leaf.terms = {t: ids for t, ids in leaf.terms.items() if supports.get(t, 0) >= k}
    return summary


def pool_results(results: Iterable[PartResult], params: DisassociationParams, seed: int,
                 supports: Mapping[str, int], spool_dir: str | Path | None = None) -> Iterator[PartResult]:
    """The parts of a split run with the pooled REFINE pass applied (module doc), in part order,
    followed by one more part holding the pooled joint clusters (when there are any).

    ``results`` are the parts as :func:`anonymizer.disassociation.pipeline.run_parts` or the Dask
    executor yield them, each with its summary (``PartResult.pool``); a run that is not split (no
    summary) or runs without REFINE passes through unchanged. Every part must be done before the
    first one is yielded: encoded parts wait in a temporary file (in ``spool_dir``), so only the
    summaries are held in memory; parts made of objects (the in-memory API) are kept as they are.
    ``supports`` are the term supports of the whole dataset.
    """
    results = iter(results)
    first = next(results, None)
    if first is None:
        return
    if first.pool is None or not params.refine:
        yield first
        yield from results
        return
    encoded = first.encoded is not None
    with_truth = (first.encoded.truth_clusters is not None) if first.encoded is not None else True
    summaries: list[PartSummary] = []
    held: list[PartResult | None] = []
    with tempfile.TemporaryFile(dir=spool_dir) as spool:
        for result in itertools.chain([first], results):
            if result.pool is None:
                raise ValueError("every part of a pooled run needs its summary (PartResult.pool)")
            summaries.append(_trim(result.pool, supports, params.k))
            result.pool = None
            if encoded:
                pickle.dump(result, spool, protocol=pickle.HIGHEST_PROTOCOL)
            held.append(None if encoded else result)
        start = time.perf_counter()
        plan = plan_pool(summaries, supports, params.k, params.m, seed)
        seconds = time.perf_counter() - start
        del summaries
        spool.seek(0)
        for i in range(len(held)):
            result = pickle.load(spool) if encoded else held[i]
            held[i] = None
            yield _apply(result, plan.removed[i])  # type: ignore[arg-type]
    if plan.joints:
        yield _pooled_part(plan, len(held), params.to_json(), encoded, with_truth, seconds)
