"""One join of REFINE: two clusters become a joint cluster (Terrovitis2012 sections 3-5).

:func:`try_join` is the body of REFINE's inner loop (section 4, Algorithm REFINE) for one adjacent
pair of clusters J_1, J_2 (simple or joint), in the paper's steps:

1. **Candidates** (:func:`_candidates`): the terms common to both (virtual) term chunks (section 3:
   terms "which commonly appear in the term chunks of two or more clusters") whose support over the
   projection of the pair's records is at least k (a one-term chunk with fewer than k sub-records is
   neither k^m- nor k-anonymous); the others stay in the term chunks.
2. **Lemma 2 guard** (:func:`keep_last_terms`): a leaf without any record chunk keeps its last
   term-chunk term (see :mod:`anonymizer.disassociation.lemma2_repair`), so the candidate it would
   lose with the smallest support is left out of this join.
3. **Equation 1** (:func:`refining_criterion`): join iff ``(s(t_1)+...+s(t_n)) / |J_new| >=
   (v_1+...+v_m) / (|P_1|+...+|P_m|)``, where t_i are the refining terms, s(t_i) their supports in
   the new shared chunks, |J_new| the number of records of all leaves of the new joint cluster,
   P_1..P_m the leaves whose term chunk holds at least one refining term and v_j how many refining
   terms P_j's term chunk holds. (The printed formula names the numerators u_j; the text and the
   worked example, (4+4)/10 >= (2+2)/(5+5), define them as the v_j.) Compared exactly with
   integers. A pair without any placeable candidate is never joined.
4. **Shared chunks** (:func:`_joint_chunks`): the refining terms T^s are the placed candidates.
   Every leaf whose term chunk holds a term of T^s gives up that term: the shared chunk with domain
   T_i is the projection of every leaf P_j's records on C_Tj ∩ T_i (section 3), so a record
   contributes at most one sub-record per shared chunk. The chunks are grouped under Property 1
   (:mod:`anonymizer.disassociation.shared_chunks`).
5. **The new node** (:func:`_add_joint_node`): its virtual term chunk is the union of its
   children's minus T^s, its T^r the union of theirs plus T^s; the children retire.

A cluster node is ``0..n_parts-1`` (simple) or ``n_parts + j`` (the j-th plan). All of REFINE's
working data is one :class:`RefineState`.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from anonymizer.disassociation.refine_leaves import (
    Leaves,
    PartitionLike,
    int_array,
    leaves_from_table,
    prepare_leaves,
)
from anonymizer.disassociation.shared_chunks import PackedSubrecords, SharedChunk, group_refining_terms
from anonymizer.disassociation.verpart import PartitionTable
from corpora.dataset import TransactionDataset

__all__ = ["JointPlan", "RefineState", "refining_criterion", "start_state", "try_join"]

VirtualTermChunk = dict[int, int | list[int]]
"""A (virtual) term chunk: term id -> the group holding it (one leaf) or the list of its groups."""


@dataclass
class JointPlan:
    """One joint cluster made by REFINE.

    ``children``: ``i < len(partitions)`` is simple cluster ``i``; ``len(partitions) + j`` is the
    j-th plan of the returned list (always an earlier one). ``removed`` maps a simple-cluster
    index to the terms this joint takes out of its term chunk (sorted).
    """

    children: list[int]
    shared_chunks: list[SharedChunk]
    removed: dict[int, list[str]]


def refining_criterion(
    shared_supports: Sequence[int],
    joint_size: int,
    refining_counts: Sequence[int],
    leaf_sizes: Sequence[int],
) -> bool:
    """Equation 1 of Terrovitis2012 section 4, compared exactly.

    ``sum(shared_supports) / joint_size >= sum(refining_counts) / sum(leaf_sizes)``: the supports
    s(t_i) of the refining terms in the new shared chunks over |J_new|, against, for the leaves
    P_1..P_m whose term chunk holds refining terms, the numbers v_j of refining terms in their term
    chunks over their total size. False when there is no refining term.
    """
    if not shared_supports or joint_size <= 0 or sum(leaf_sizes) <= 0:
        return False
    return sum(shared_supports) * sum(leaf_sizes) >= sum(refining_counts) * joint_size


@dataclass
class RefineState:
    """REFINE's working data: the leaves in flat arrays and, per cluster node, its current state.

    Per node: ``vtc`` the (virtual) term chunk (a simple cluster's is built when it is tried and not
    kept: most clusters never join), ``t_r`` its T^r (built on first use for a simple cluster),
    ``keys`` its ordering key (b"" once joined or if its term chunk is empty), ``size`` its record
    count. Per leaf: ``tc_left`` the current size of its term chunk.
    """

    k: int
    m: int
    vocabulary: Sequence[str]
    leaves: Leaves
    n_parts: int
    rank: np.ndarray  # term id -> position in the ordering of section 4 (decreasing tcs, then term)
    gptr: list[int]  # the groups of leaf p: gptr[p]:gptr[p+1]
    gterm_list: list[int]  # the term of each group
    gsize: array  # the support of each group
    rc_ptr: list[int]  # record-chunk term ids of leaf p: rc_terms[rc_ptr[p]:rc_ptr[p+1]]
    rc_terms: list[int]
    vtc: list[VirtualTermChunk | None]
    t_r: list[set[int] | None]
    list_support: list[dict[int, int] | None]  # per joint node: the support of each term held by several groups
    keys: list[bytes]
    size: list[int]
    tc_left: list[int]
    plans: list[JointPlan]


def _term_ranks(leaves: Leaves, n_terms: int) -> tuple[np.ndarray, bytes]:
    """Term order for the cluster ordering (section 4) and every leaf's term chunk in it.

    Terms go by decreasing term chunk support tcs(t) over the simple clusters' term chunks, ties by
    term. A (virtual) term chunk's key is the byte string of its terms' ranks, sorted, as big-endian
    uint32: bytes compare like the sequences. Returns the ranks and all leaves' keys, concatenated.
    """
    gterm, gpart = leaves.group_term, leaves.group_part
    tcs = np.bincount(gterm, minlength=n_terms)
    rank = np.empty(n_terms, dtype=np.int64)
    rank[np.lexsort((np.arange(n_terms), -tcs))] = np.arange(n_terms)
    granks = rank[gterm]
    # by (leaf, rank): one sort of a combined key (a leaf holds a term once, so the keys are distinct), whose
    # remainders are the ranks in that order
    width = max(n_terms, 1)
    by_rank = np.sort(np.frombuffer(gpart, dtype=np.int64) * width + granks) % width if gpart else granks
    return rank, by_rank.astype(">u4").tobytes()


def start_state(dataset: TransactionDataset, partitions: Sequence[PartitionLike] | PartitionTable, k: int,
                m: int) -> RefineState:
    """Index the simple clusters and give each one its node state (no joint cluster yet).

    ``partitions`` are VERPART's partitions or its table (read as is when its vocabulary is the dataset's)."""
    voc = dataset.vocabulary
    if isinstance(partitions, Sequence):
        leaves = prepare_leaves(dataset, partitions)
    elif partitions.vocabulary is voc or tuple(partitions.vocabulary) == tuple(voc):
        leaves = leaves_from_table(partitions)
    else:
        leaves = prepare_leaves(dataset, partitions.partitions())
    n_parts = len(leaves.sizes)
    gptr = leaves.group_ptr.tolist()
    n_terms = len(voc)
    rank, rank_bytes = _term_ranks(leaves, n_terms)
    term_obj = list(range(n_terms))  # one int object per term id, shared by all dicts
    return RefineState(
        k=k,
        m=m,
        vocabulary=voc,
        leaves=leaves,
        n_parts=n_parts,
        rank=rank,
        gptr=gptr,
        gterm_list=list(map(term_obj.__getitem__, leaves.group_term.tolist())),
        gsize=int_array(np.diff(np.frombuffer(leaves.group_start, dtype=np.int64))),
        rc_ptr=leaves.rc_ptr.tolist(),
        rc_terms=leaves.rc_terms.tolist(),
        vtc=[None] * n_parts,
        t_r=[None] * n_parts,
        list_support=[None] * n_parts,
        keys=[rank_bytes[4 * gptr[p]:4 * gptr[p + 1]] for p in range(n_parts)],
        size=list(leaves.sizes),
        tc_left=[gptr[p + 1] - gptr[p] for p in range(n_parts)],
        plans=[],
    )


def _as_list(g: int | list[int]) -> list[int]:
    return g if isinstance(g, list) else [g]


def _virtual_term_chunk(st: RefineState, x: int) -> VirtualTermChunk:
    """Node x's (virtual) term chunk; a simple cluster's is built afresh."""
    found = st.vtc[x]
    if found is None:
        lo, hi = st.gptr[x], st.gptr[x + 1]
        return dict(zip(st.gterm_list[lo:hi], range(lo, hi), strict=True))
    return found


def _restricted_terms(st: RefineState, x: int) -> set[int]:
    """Node x's T^r (Property 1): its leaves' record-chunk terms and its shared-chunk terms."""
    found = st.t_r[x]
    if found is None:
        found = st.t_r[x] = set(st.rc_terms[st.rc_ptr[x]:st.rc_ptr[x + 1]])
    return found


def _candidates(st: RefineState, va: VirtualTermChunk, vb: VirtualTermChunk, la: dict[int, int],
                lb: dict[int, int]) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Step 1: the common terms whose support over both nodes reaches k, with their groups (``la``, ``lb``:
    the nodes' supports of their terms held by several groups, kept as the nodes merge)."""
    gsize, k = st.gsize, st.k
    small, large = (va, vb) if len(va) <= len(vb) else (vb, va)
    groups_of: dict[int, list[int]] = {}
    supports: dict[int, int] = {}
    for t in small.keys() & large.keys():
        ga, gb = va[t], vb[t]
        if ga.__class__ is int:
            if gb.__class__ is int:
                s = gsize[ga] + gsize[gb]
                if s >= k:
                    groups_of[t] = [ga, gb]
                    supports[t] = s
                continue
            s = gsize[ga] + lb[t]
        else:
            s = la[t] + (gsize[gb] if gb.__class__ is int else lb[t])
        if s >= k:
            groups_of[t] = _as_list(ga) + _as_list(gb)
            supports[t] = s
    return groups_of, supports


def keep_last_terms(group_leaf: Sequence[int], tc_left: Sequence[int], needs_terms: Callable[[int], bool],
                    groups_of: dict[int, list[int]], supports: dict[int, int], *,
                    leaf_order: Callable[[list[int]], list[int]] = list) -> Counter:
    """Step 2: drop candidates so that no leaf that needs its term chunk (Lemma 2) loses all of it.

    ``group_leaf[g]`` is the leaf of sub-record group ``g``, ``tc_left[p]`` the terms left in leaf ``p``'s
    term chunk and ``needs_terms(p)`` whether ``p`` must keep one; the leaves at risk are visited in
    ``leaf_order`` of their first appearance, and each drops its least supported candidate. Changes
    ``groups_of`` and ``supports`` in place; returns, per leaf, how many of the remaining candidates its term
    chunk holds (v_j of Equation 1).
    """
    per_leaf: Counter = Counter(map(group_leaf.__getitem__, itertools.chain.from_iterable(groups_of.values())))
    for p in leaf_order([p for p, n in per_leaf.items() if n >= tc_left[p] and needs_terms(p)]):
        if per_leaf[p] < tc_left[p]:
            continue
        mine = [t for t, groups in groups_of.items() if any(group_leaf[g] == p for g in groups)]
        drop = min(mine, key=lambda t: (supports[t], t))
        per_leaf.subtract(group_leaf[g] for g in groups_of.pop(drop))
        del supports[drop]
    return +per_leaf


_GATHER_MIN = 48
"""From this many groups on, a join gathers its refining terms' records with one numpy gather."""


def _postings(st: RefineState, placed: list[int], groups_of: dict[int, list[int]], supports: dict[int, int]
              ) -> tuple[dict[int, list[int]], dict[int, list[str]]]:
    """The records of each refining term (its groups' records, group after group) and the terms each
    leaf gives up. A term's support is the number of its groups' records, so one gather of all the
    groups' records, cut at the supports, gives every term's list."""
    voc, gpart = st.vocabulary, st.leaves.group_part
    flat = list(itertools.chain.from_iterable(map(groups_of.__getitem__, placed)))
    removed: dict[int, list[str]] = {}
    postings: dict[int, list[int]] = {}
    if len(flat) < _GATHER_MIN:
        gstart, grec = st.leaves.group_start, st.leaves.records
        for t in placed:
            plist: list[int] = []
            for g in groups_of[t]:
                plist.extend(grec[gstart[g]:gstart[g + 1]])
                removed.setdefault(gpart[g], []).append(voc[t])
            postings[t] = plist
        return postings, removed
    groups = np.asarray(flat, dtype=np.int64)
    gstart = np.frombuffer(st.leaves.group_start, dtype=np.int64)
    starts = gstart[groups]
    lens = gstart[groups + 1] - starts
    ends = np.cumsum(lens)
    idx = np.repeat(starts - (ends - lens), lens)
    idx += np.arange(int(ends[-1]), dtype=np.int64)
    records = np.frombuffer(st.leaves.records, dtype=np.int64)[idx].tolist()
    leaves = np.frombuffer(gpart, dtype=np.int64)[groups].tolist()
    r = g = 0
    for t in placed:
        n_rec, n_groups = supports[t], len(groups_of[t])
        postings[t] = records[r:r + n_rec]
        name = voc[t]
        for p in leaves[g:g + n_groups]:
            removed.setdefault(p, []).append(name)
        r += n_rec
        g += n_groups
    return postings, removed


def _joint_chunks(st: RefineState, placed: list[int], groups_of: dict[int, list[int]], supports: dict[int, int],
                  restricted: set[int]) -> tuple[list[SharedChunk], dict[int, list[str]]]:
    """Step 4: the shared chunks over the refining terms ``placed``, and the terms each leaf gives up."""
    voc = st.vocabulary
    postings, removed = _postings(st, placed, groups_of, supports)
    order = sorted(placed, key=lambda t: (-supports[t], t))
    chunks = []
    for group, sub in group_refining_terms(postings, order, restricted, st.k, st.m):
        # the chunk's few distinct sub-records, numbered in order of first appearance (equal ones are one tuple)
        number = {key: i for i, key in enumerate(dict.fromkeys(sub.values()))}
        records = sorted(sub)
        chunks.append(SharedChunk.packed_from(list(map(voc.__getitem__, sorted(group))), PackedSubrecords(
            records, list(map(number.__getitem__, map(sub.__getitem__, records))),
            [tuple(map(voc.__getitem__, sorted(key))) for key in number])))
    return chunks, removed


def _merged_key(rank: np.ndarray, vtc: VirtualTermChunk) -> bytes:
    """The ordering key of a (virtual) term chunk: its terms' ranks, sorted, as big-endian uint32
    (a joint's vtc holds exactly its children's terms without the refining ones)."""
    return np.sort(rank[np.fromiter(vtc, dtype=np.int64, count=len(vtc))]).astype(">u4").tobytes()


def _add_joint_node(st: RefineState, a: int, b: int, v: tuple[VirtualTermChunk, VirtualTermChunk],
                    r: tuple[set[int], set[int]], placed: list[int]) -> None:
    """Step 5: the new node; the smaller structures are merged into the larger ones (a and b retire).

    A term's list of groups is owned by one node (built here or in an earlier merge, never shared),
    so the larger side's list grows in place: the larger side's groups first, then the smaller's. The
    support of a term held by several groups is kept beside its list (:func:`_candidates` reads it)."""
    va, vb = v
    la, lb = st.list_support[a] or {}, st.list_support[b] or {}
    big, little, l_big, l_little = (va, vb, la, lb) if len(va) >= len(vb) else (vb, va, lb, la)
    gsize = st.gsize
    for t, g in little.items():
        old = big.get(t)
        if old is None:
            big[t] = g
            if g.__class__ is list:
                l_big[t] = l_little[t]
        elif old.__class__ is list:
            if g.__class__ is list:
                old.extend(g)  # type: ignore[arg-type]
                l_big[t] += l_little[t]
            else:
                old.append(g)  # type: ignore[arg-type]
                l_big[t] += gsize[g]
        elif g.__class__ is list:
            big[t] = [old, *g]  # type: ignore[misc]
            l_big[t] = gsize[old] + l_little[t]
        else:
            big[t] = [old, g]
            l_big[t] = gsize[old] + gsize[g]
    for t in placed:
        del big[t]
        l_big.pop(t, None)
    ra, rb = r
    big_r, little_r = (ra, rb) if len(ra) >= len(rb) else (rb, ra)
    big_r |= little_r
    big_r.update(placed)
    st.vtc.append(big)
    st.t_r.append(big_r)
    st.list_support.append(l_big)
    st.keys.append(_merged_key(st.rank, big) if big else b"")
    st.vtc[a] = st.vtc[b] = {}
    st.t_r[a] = st.t_r[b] = set()
    st.list_support[a] = st.list_support[b] = None
    st.keys[a] = st.keys[b] = b""
    st.size.append(st.size[a] + st.size[b])


def try_join(st: RefineState, a: int, b: int) -> bool:
    """Join nodes ``a`` and ``b`` if Equation 1 holds (module docstring, steps 1-5); True on a join.

    On a join the plan is appended to ``st.plans`` and the new node gets the next node number.
    """
    va, vb = _virtual_term_chunk(st, a), _virtual_term_chunk(st, b)
    groups_of, supports = _candidates(st, va, vb, st.list_support[a] or {}, st.list_support[b] or {})
    if not supports:  # no candidate: nothing below can change that (most tried pairs end here)
        return False
    rc_ptr = st.rc_ptr
    per_leaf = keep_last_terms(st.leaves.group_part, st.tc_left, lambda p: rc_ptr[p] == rc_ptr[p + 1],
                               groups_of, supports)
    if not supports:
        return False
    sizes = st.leaves.sizes
    if not refining_criterion(list(supports.values()), st.size[a] + st.size[b],
                              list(per_leaf.values()), [sizes[p] for p in per_leaf]):
        return False
    placed = sorted(supports)
    for p, n in per_leaf.items():
        st.tc_left[p] -= n
    ra, rb = _restricted_terms(st, a), _restricted_terms(st, b)
    restricted = {t for t in placed if t in ra or t in rb}
    chunks, removed = _joint_chunks(st, placed, groups_of, supports, restricted)
    _add_joint_node(st, a, b, (va, vb), (ra, rb), placed)
    st.plans.append(JointPlan(children=sorted((a, b)), shared_chunks=chunks,
                              removed={p: sorted(v) for p, v in sorted(removed.items())}))
    return True
