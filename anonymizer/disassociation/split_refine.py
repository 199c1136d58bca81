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

* **Candidates**: every term of the top clusters' (virtual) term chunks, as in REFINE. A term that
  is rare in every part (the terms tlost counts) can only be placed once a join gathers k of its
  occurrences, and such joins are started by the other, more frequent common terms, exactly as in
  the unsplit run.
* **Ordering** (section 4 orders clusters by their term chunks, terms by decreasing term chunk
  support): here the terms that no part publishes in a record chunk or a shared chunk come first,
  then the others, each by decreasing term chunk support (the number of leaves holding the term in
  their term chunk; ties by term). Top clusters that hold the same unpublished terms are thus
  adjacent and get to pool them. With REFINE's own order (by term chunk support alone) the pass
  recovered a third of the loss on 200k records at split depth 2 (tlost 56.9% -> 49.3%, unsplit
  41.1%); with this one the split runs lose fewer terms than the unsplit run (docs/scale.md).
* **Property 1** (section 5): T^r of a top cluster (the terms of its leaves' record chunks and its
  joints' shared chunks) is sent with it, whole (a term of it that is in no term chunk of this top
  may be placed by an ancestor, from another top's term chunk); a pooled joint's T^r is its
  children's plus the terms it places. A shared chunk with
  a T^r term must be k-anonymous, any other k^m-anonymous
  (:func:`~anonymizer.disassociation.shared_chunks.group_refining_terms`).
* **Lemma 2** (section 5): the parts' releases are built, so the record-chunk repair REFINE does
  after itself (:mod:`anonymizer.disassociation.lemma2_repair`) is not available. A leaf whose
  record chunks alone do not satisfy Lemma 2 (or that has none) keeps its last term-chunk term: the
  candidate with the smallest support it would lose is left out of the join (the rule REFINE applies
  to leaves without record chunks, :func:`~anonymizer.disassociation.refine_join.try_join` step 2).
  Any other leaf may lose its whole term chunk, since Lemma 2 holds on its record chunks.
* **Order and names**: top clusters are numbered in part order (a part's unjoined simple clusters,
  then its root joint clusters, in release order), pooled joints after them; ties of the ordering
  go by that number, as REFINE's go by cluster number. The pooled joint clusters are published after
  every part's joint clusters (``J`` numbers following theirs), children first.
* **Publishing**: their shared sub-records get the builder's content order and a shuffle from the
  ``"pool"`` stream of the owner's seed (:func:`corpora.common.seeds.generator`).

Memory: only the parts' term-chunk occurrences travel to the client (term, leaf and record id in
flat arrays, about 20 bytes each; about 40% of all occurrences after the parts' own REFINE), never
the records; a top cluster's term chunk becomes a dictionary only while it is tried (large ones
are kept), a pooled joint's is kept.

Everything here is decided by the client from the parts' summaries (:class:`PartSummary`, made where
the part is disassociated, :func:`summarize_part`) and applied to the parts' releases before they are
written (:func:`anonymizer.disassociation.split_stream.pool_results`), so the local and the Dask
executors give the same bytes.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from anonymizer.disassociation.publish import shuffled_order, term_hashes
from anonymizer.disassociation.refine_join import keep_last_terms, refining_criterion
from anonymizer.disassociation.refine_leaves import int_array
from anonymizer.disassociation.shared_chunks import group_refining_terms
from anonymizer.model.conditions import lemma2_holds
from anonymizer.model.release import JointCluster, JointClusterTruth, Release, Truth
from corpora.common.seeds import generator

__all__ = ["PartSummary", "PoolPlan", "plan_pool", "summarize_part"]

_KEEP_GROUPS = 256
"""A top cluster with at least this many groups keeps its term chunk dicts once built (few tops, tried often)."""

POOL_PREFIX = "X"
"""Local ids of the pooled joint clusters inside the pooled part (``X1..``); the writer renames them ``J..``."""


@dataclass
class PartSummary:
    """What the pooled REFINE pass needs of one part, in flat arrays (made where the part is
    disassociated, :func:`summarize_part`; only these travel to the client, never the records).

    *Tops* are the part's top clusters holding a term chunk, *leaves* their simple clusters with a
    non-empty term chunk (a top's leaves are contiguous), *groups* one (leaf, term-chunk term) each
    with the records holding the term (a leaf's groups are contiguous, by term). ``*_ptr`` arrays
    are CSR offsets. ``restricted`` lists, per top, the terms of its T^r (Property 1: a record chunk
    of one of its leaves or a shared chunk of one of its joints).
    """

    n_clusters: int
    n_joints: int
    kept: list[str]
    """The terms the part publishes in a record chunk or a shared chunk (sorted)."""
    terms: list[str]
    """The terms of the part's term chunks and T^r (sorted); ``group_term`` and ``restricted`` index it."""
    top_joint: np.ndarray
    top_position: np.ndarray
    """A top's index among the part's joint clusters (``top_joint``) or clusters."""
    top_size: np.ndarray
    top_leaf_ptr: np.ndarray
    top_restricted_ptr: np.ndarray
    restricted: np.ndarray
    leaf_position: np.ndarray
    leaf_size: np.ndarray
    leaf_tc_size: np.ndarray
    leaf_needs: np.ndarray
    """Lemma 2 needs a non-empty term chunk in this leaf (its record chunks alone do not satisfy it)."""
    leaf_group_ptr: np.ndarray
    group_term: np.ndarray
    group_record_ptr: np.ndarray
    records: np.ndarray
    """Ids (in the whole dataset) of the records holding each group's term."""


def _members(release: Release) -> tuple[list[list[int]], list[list[int]], list[bool]]:
    """Per node (clusters, then joint clusters): the leaves and the joint clusters under it, and
    whether it is a child of a joint cluster."""
    n = len(release.clusters)
    position = {c.id: i for i, c in enumerate(release.clusters)}
    position.update((j.id, n + i) for i, j in enumerate(release.joint_clusters))
    leaves: list[list[int]] = [[i] for i in range(n)]
    joints: list[list[int]] = [[] for _ in range(n)]
    is_child = [False] * (n + len(release.joint_clusters))
    for i, j in enumerate(release.joint_clusters):
        kids = [position[ch] for ch in j.children]
        for ch in kids:
            is_child[ch] = True
        leaves.append([leaf for ch in kids for leaf in leaves[ch]])
        joints.append([x for ch in kids for x in joints[ch]] + [i])
    return leaves, joints, is_child


def summarize_part(release: Release, truth: Truth, k: int, m: int) -> PartSummary:
    """The :class:`PartSummary` of a disassociated part (its release and truth)."""
    rc_terms = [{t for chunk in c.record_chunks for sub in chunk for t in sub} for c in release.clusters]
    shared_terms = [{t for chunk in j.shared_chunks for sub in chunk for t in sub} for j in release.joint_clusters]
    kept = set().union(*rc_terms, *shared_terms)
    leaves_of, joints_of, is_child = _members(release)
    n = len(release.clusters)
    terms = sorted(kept.union(*(c.term_chunk for c in release.clusters)))
    index = {t: i for i, t in enumerate(terms)}
    tops: list[tuple[bool, int, int]] = []
    top_leaf_ptr, top_restricted_ptr, restricted = [0], [0], []
    leaf_rows: list[tuple[int, int, int, bool]] = []
    leaf_group_ptr, group_term, group_record_ptr, records = [0], [], [0], []
    for node, members in enumerate(leaves_of):
        mine = [leaf for leaf in members if release.clusters[leaf].term_chunk]
        if is_child[node] or not mine:
            continue
        for leaf in mine:
            c, owners = release.clusters[leaf], truth.clusters[leaf].term_chunk
            nonempty = sum(len(chunk) for chunk in c.record_chunks)
            needs = not lemma2_holds(c.size, nonempty, len(c.record_chunks), k, m, True)
            leaf_rows.append((leaf, c.size, len(c.term_chunk), needs))
            for t in c.term_chunk:
                group_term.append(index[t])
                records.extend(owners[t])
                group_record_ptr.append(len(records))
            leaf_group_ptr.append(len(group_term))
        t_r = set().union(*(rc_terms[leaf] for leaf in members), *(shared_terms[j] for j in joints_of[node]))
        restricted.extend(sorted(index[t] for t in t_r))  # all of it: an ancestor may place a term of T^r
        top_restricted_ptr.append(len(restricted))
        top_leaf_ptr.append(len(leaf_rows))
        joint = node >= n
        tops.append((joint, node - n if joint else node, sum(release.clusters[x].size for x in members)))

    def col(rows: list[tuple], i: int, dtype: type) -> np.ndarray:
        return np.asarray([row[i] for row in rows], dtype=dtype)

    return PartSummary(
        n, len(release.joint_clusters), sorted(kept), terms, col(tops, 0, bool), col(tops, 1, np.int64),
        col(tops, 2, np.int64), np.asarray(top_leaf_ptr, dtype=np.int64),
        np.asarray(top_restricted_ptr, dtype=np.int64), np.asarray(restricted, dtype=np.int32),
        col(leaf_rows, 0, np.int64), col(leaf_rows, 1, np.int64), col(leaf_rows, 2, np.int64),
        col(leaf_rows, 3, bool), np.asarray(leaf_group_ptr, dtype=np.int64), np.asarray(group_term, dtype=np.int32),
        np.asarray(group_record_ptr, dtype=np.int64), np.asarray(records, dtype=np.int64))


@dataclass
class PoolPlan:
    """The pooled joint clusters (ids ``X1..``, children named as the merged release names them) and
    the terms each part's clusters give up."""

    joints: list[JointCluster]
    joint_truths: list[JointClusterTruth]
    removed: list[dict[int, set[str]]]
    """Per part: cluster position -> the terms its term chunk loses."""
    moved: int = 0
    """Term occurrences moved from term chunks to pooled shared chunks."""


@dataclass
class _Pool:
    """The pooled pass's working data. A node is a top cluster (``0..n_tops-1``, in part order) or a
    pooled joint (``n_tops + x``); a group is one (leaf, term) with the records holding the term.
    Groups live in flat arrays; a top's (virtual) term chunk is built when it is tried, a pooled
    joint's is kept (term -> its groups, and term -> its support)."""

    k: int
    m: int
    names: list[str]
    size: list[int]
    gptr: list[int]
    """The groups of top x: gptr[x]:gptr[x+1]."""
    gterm: array
    gleaf: array
    gsup: array
    rptr: np.ndarray
    records: np.ndarray
    leaf_size: array
    leaf_needs: list[bool]
    tc_left: array
    rank: np.ndarray
    keys: list[bytes]
    restricted_ptr: list[int]
    restricted: array
    vtc: list[dict[int, list[int]] | None] = field(default_factory=list)
    vsup: list[dict[int, int] | None] = field(default_factory=list)
    t_r: list[set[int] | None] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    chunks: list[list[tuple[list[int], dict[int, tuple[int, ...]]]]] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    """The groups whose term left their leaf's term chunk."""


def _gather(summaries: list[PartSummary], vocab: list[str]) -> dict[str, list]:
    """The parts' arrays over one vocabulary (terms outside it dropped), concatenated by kind."""
    index = {t: i for i, t in enumerate(vocab)}
    out: dict[str, list] = {key: [] for key in ("names", "top_of_group", "gterm", "gleaf", "rlen", "records",
                                                 "leaf_size", "leaf_tc", "leaf_needs", "leaf_part", "leaf_pos",
                                                 "r_top", "r_term", "top_size")}
    n_clusters = n_joints = n_leaves = n_tops = 0
    for p, s in enumerate(summaries):
        glob = np.fromiter((index.get(t, -1) for t in s.terms), dtype=np.int64, count=len(s.terms))
        gterm = glob[s.group_term]
        leaf_of_group = np.repeat(np.arange(len(s.leaf_size)), np.diff(s.leaf_group_ptr))
        top_of_leaf = np.repeat(np.arange(len(s.top_size)), np.diff(s.top_leaf_ptr))
        keep = gterm >= 0
        out["top_of_group"].append(top_of_leaf[leaf_of_group][keep] + n_tops)
        out["gterm"].append(gterm[keep])
        out["gleaf"].append(leaf_of_group[keep] + n_leaves)
        lengths = np.diff(s.group_record_ptr)
        out["rlen"].append(lengths[keep])
        out["records"].append(s.records[np.repeat(keep, lengths)])
        for key, values in (("leaf_size", s.leaf_size), ("leaf_tc", s.leaf_tc_size), ("leaf_needs", s.leaf_needs),
                            ("leaf_pos", s.leaf_position), ("top_size", s.top_size)):
            out[key].append(values)
        out["leaf_part"].append(np.full(len(s.leaf_size), p, dtype=np.int64))
        r_glob = glob[s.restricted]
        r_top = np.repeat(np.arange(len(s.top_size)), np.diff(s.top_restricted_ptr))
        out["r_top"].append(r_top[r_glob >= 0] + n_tops)
        out["r_term"].append(r_glob[r_glob >= 0])
        out["names"] += [f"J{n_joints + x + 1}" if joint else f"P{n_clusters + x + 1}"
                         for joint, x in zip(s.top_joint.tolist(), s.top_position.tolist(), strict=True)]
        n_clusters, n_joints = n_clusters + s.n_clusters, n_joints + s.n_joints
        n_leaves, n_tops = n_leaves + len(s.leaf_size), n_tops + len(s.top_size)
    return {key: (np.concatenate(v) if v and key != "names" else v) for key, v in out.items()}


def _start(summaries: list[PartSummary], vocab: list[str], lost: np.ndarray, k: int, m: int
           ) -> tuple[_Pool, np.ndarray, np.ndarray]:
    """The pass's state over ``vocab``; also each leaf's part and cluster position."""
    a = _gather(summaries, vocab)
    top_of_group = a["top_of_group"].astype(np.int64)
    nodes = np.unique(top_of_group)  # the tops holding a term of vocab, in order
    node_of_group = np.searchsorted(nodes, top_of_group)
    gterm = a["gterm"].astype(np.int64)
    # the ordering (section 4; module doc): terms no part publishes first, then by decreasing term
    # chunk support (the leaves holding them), ties by term
    tcs = np.bincount(gterm, minlength=len(vocab))
    rank = np.empty(len(vocab), dtype=np.int64)
    rank[np.lexsort((np.arange(len(vocab)), -tcs, ~lost))] = np.arange(len(vocab))
    width = max(len(vocab), 1)
    keyed = np.unique(node_of_group * width + rank[gterm])
    bounds = np.searchsorted(keyed // width, np.arange(len(nodes) + 1)).tolist()
    blob = (keyed % width).astype(">u4").tobytes()
    r_keep = np.isin(a["r_top"], nodes)
    r_node = np.searchsorted(nodes, a["r_top"][r_keep])
    r_order = np.lexsort((a["r_term"][r_keep], r_node))
    st = _Pool(
        k, m, [a["names"][x] for x in nodes.tolist()], a["top_size"][nodes].tolist(),
        np.searchsorted(node_of_group, np.arange(len(nodes) + 1)).tolist(), int_array(gterm), int_array(a["gleaf"]),
        int_array(a["rlen"]), np.concatenate(([0], np.cumsum(a["rlen"]))), a["records"],
        int_array(a["leaf_size"]), a["leaf_needs"].astype(bool).tolist(), int_array(a["leaf_tc"]), rank,
        [blob[4 * bounds[x]:4 * bounds[x + 1]] for x in range(len(nodes))],
        np.searchsorted(r_node[r_order], np.arange(len(nodes) + 1)).tolist(), int_array(a["r_term"][r_keep][r_order]))
    st.vtc = [None] * len(nodes)
    st.vsup = [None] * len(nodes)
    st.t_r = [None] * len(nodes)
    st.children = [[] for _ in range(len(nodes))]
    return st, a["leaf_part"], a["leaf_pos"]


def _node_vtc(st: _Pool, x: int) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Node x's virtual term chunk (term -> groups) and supports; a top's is built afresh."""
    found, sup = st.vtc[x], st.vsup[x]
    if found is not None and sup is not None:
        return found, sup
    vtc: dict[int, list[int]] = {}
    vsup: dict[int, int] = {}
    gterm, gsup = st.gterm, st.gsup
    for g in range(st.gptr[x], st.gptr[x + 1]):
        t = gterm[g]
        if t in vtc:
            vtc[t].append(g)
            vsup[t] += gsup[g]
        else:
            vtc[t] = [g]
            vsup[t] = gsup[g]
    if st.gptr[x + 1] - st.gptr[x] >= _KEEP_GROUPS:  # a large top is tried often: keep its dicts
        st.vtc[x], st.vsup[x] = vtc, vsup
    return vtc, vsup


def _node_t_r(st: _Pool, x: int) -> set[int]:
    found = st.t_r[x]
    if found is None:
        found = st.t_r[x] = set(st.restricted[st.restricted_ptr[x]:st.restricted_ptr[x + 1]])
    return found


def _candidates(st: _Pool, va: dict[int, list[int]], sa: dict[int, int], vb: dict[int, list[int]],
                sb: dict[int, int]) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Step 1 of a join: the common terms whose support over both nodes reaches k, with their groups."""
    groups_of: dict[int, list[int]] = {}
    supports: dict[int, int] = {}
    k = st.k
    for t in sorted(sa.keys() & sb.keys()):
        s = sa[t] + sb[t]
        if s >= k:
            groups_of[t] = va[t] + vb[t]
            supports[t] = s
    return groups_of, supports


def _merge(st: _Pool, a: int, b: int, v: tuple[dict, dict, dict, dict], placed: dict[int, int]) -> None:
    """Step 5: the new node; the smaller structures are merged into the larger ones (a and b retire)."""
    va, sa, vb, sb = v
    (vtc, vsup), (little, little_sup) = ((va, sa), (vb, sb)) if len(va) >= len(vb) else ((vb, sb), (va, sa))
    for t, groups in little.items():
        if t in vtc:
            vtc[t] = vtc[t] + groups
            vsup[t] += little_sup[t]
        else:
            vtc[t] = groups
            vsup[t] = little_sup[t]
    for t in placed:
        del vtc[t], vsup[t]
    ra, rb = _node_t_r(st, a), _node_t_r(st, b)
    t_r = ra if len(ra) >= len(rb) else rb
    t_r |= rb if t_r is ra else ra
    t_r.update(placed)
    st.vtc.append(vtc)
    st.vsup.append(vsup)
    st.t_r.append(t_r)
    st.keys.append(np.sort(st.rank[np.fromiter(vtc, dtype=np.int64, count=len(vtc))]).astype(">u4").tobytes())
    st.size.append(st.size[a] + st.size[b])
    st.children.append(sorted((a, b)))
    for x in (a, b):
        st.vtc[x], st.vsup[x], st.t_r[x], st.keys[x] = {}, {}, set(), b""


def _try_join(st: _Pool, a: int, b: int) -> bool:
    """REFINE's join (Equation 1, shared chunks, the new node) of nodes ``a`` and ``b``; True on a join."""
    va, sa = _node_vtc(st, a)
    vb, sb = _node_vtc(st, b)
    groups_of, supports = _candidates(st, va, sa, vb, sb)
    if not supports:
        return False
    # step 2 of REFINE (module doc: a leaf that needs its term chunk for Lemma 2 keeps one term), leaves in id order
    per_leaf = keep_last_terms(st.gleaf, st.tc_left, lambda p: bool(st.leaf_needs[p]), groups_of, supports,
                               leaf_order=sorted)
    if not supports or not refining_criterion(list(supports.values()), st.size[a] + st.size[b],
                                              list(per_leaf.values()), [st.leaf_size[p] for p in per_leaf]):
        return False
    for p, n in per_leaf.items():
        st.tc_left[p] -= n
    postings: dict[int, list[int]] = {}
    rptr, records = st.rptr, st.records
    for t, groups in groups_of.items():
        postings[t] = [r for g in groups for r in records[rptr[g]:rptr[g + 1]].tolist()]
        st.removed.extend(groups)
    order = sorted(supports, key=lambda t: (-supports[t], t))
    ra, rb = _node_t_r(st, a), _node_t_r(st, b)
    restricted = {t for t in supports if t in ra or t in rb}
    st.chunks.append(group_refining_terms(postings, order, restricted, st.k, st.m))
    _merge(st, a, b, (va, sa, vb, sb), supports)
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
        hashes = np.add.reduceat(term_hashes(len(pool))[np.asarray(flat, dtype=np.int64)], np.cumsum(size) - size)
        order = shuffled_order(np.asarray(groups, dtype=np.int64), hashes, generator(seed, "pool")).tolist()
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
    held = {s.terms[i] for s in summaries for i in np.unique(s.group_term).tolist()}
    vocab = sorted(t for t in held if supports.get(t, 0) >= k)
    kept = set().union(*(s.kept for s in summaries)) if summaries else set()
    lost = np.fromiter((t not in kept for t in vocab), dtype=bool, count=len(vocab))
    st, leaf_part, leaf_pos = _start(summaries, vocab, lost, k, m)
    n_tops = len(st.names)
    _refine_rounds(st)
    joints, truths = _publish(st, vocab, n_tops, seed)
    plan = PoolPlan(joints, truths, [{} for _ in summaries])
    for g in st.removed:
        leaf = st.gleaf[g]
        plan.removed[int(leaf_part[leaf])].setdefault(int(leaf_pos[leaf]), set()).add(vocab[st.gterm[g]])
        plan.moved += st.gsup[g]
    return plan
