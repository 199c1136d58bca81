"""The release builder (Terrovitis2012 section 3): VERPART's table and REFINE's joint plans become the
published :class:`~anonymizer.model.release.Release` and its secret :class:`~anonymizer.model.release.Truth`.

Publishing order (Terrovitis2012 section 3: "the order of the subrecords that fall in a chunk is
randomized"). The shuffle draws from the ``"publish"`` stream of the secret seed
(:mod:`corpora.common.seeds`): the seed goes to the truth file, never to the release, and is drawn
from the operating system's entropy unless the caller passes one, so no one holding the release
alone can replay the shuffle. As a second line of defence, every chunk's sub-records are first
put in a *content order* (a fixed 64-bit set hash of each sub-record, which depends only on its
terms; equal sub-records are interchangeable) and only then shuffled: even a replayed shuffle
gives back an order that depends on the sub-records' contents alone, never on which record they
came from, and the release is the same bytes whatever the order of the records inside their
clusters. The truth file lists the record id of every published sub-record in the same order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from anonymizer.disassociation.shared_chunks import PackedSubrecords, SharedChunk
from anonymizer.disassociation.verpart import PartitionTable
from anonymizer.model.release import Cluster, ClusterTruth, JointCluster, JointClusterTruth, Release, Truth
from corpora.common.seeds import generator

__all__ = ["build_release", "shuffled_order", "term_hashes"]

_HASH_SEED = 0x5EED_D15A
"""Seed of the fixed table of 64-bit term hashes that gives sub-records their content order."""


def term_hashes(n_terms: int) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(_HASH_SEED))
    return rng.integers(0, np.iinfo(np.uint64).max, size=max(n_terms, 1), dtype=np.uint64, endpoint=True)


def shuffled_order(groups: np.ndarray, hashes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Order of items: by group (ascending), and within a group a seeded shuffle of the content order.

    The content order sorts by the sub-record hash; only identical sub-records (equal hashes) keep
    their input order among themselves, which the release cannot show. The shuffle draws a 32-bit
    key per item in content order; equal keys keep content order, so no tie reveals record order.
    """
    if len(groups) == 0:
        return np.zeros(0, dtype=np.int64)
    return _shuffled(_content_order(groups, hashes), groups, rng)


def _content_order(groups: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Items by group, then hash, then input position (so equal hashes of a group are one run)."""
    n = len(groups)
    by_hash = np.argsort(hashes, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_hash] = np.arange(n, dtype=np.int64)
    return np.argsort((groups.astype(np.int64) << 32) | rank, kind="stable")


def _shuffled(canonical: np.ndarray, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """:func:`shuffled_order` from the content order: one 32-bit draw per item, in that order."""
    g = groups.astype(np.int64)
    noise = rng.integers(0, 2**32, size=len(g), dtype=np.int64)
    return canonical[np.argsort((g[canonical] << 32) | noise, kind="stable")]


def build_release(
    table: PartitionTable, plans: Sequence, params: dict, seed: int, record_ids: np.ndarray | None = None
) -> tuple[Release, Truth]:
    """Build the release and truth from VERPART's table and REFINE's joint plans (interfaces_refine).

    ``params`` are published as given (they must not hold the seed); ``seed`` drives the
    publishing shuffle and is stored in the truth. The truth names record ``i`` of the table
    ``record_ids[i]`` (default: ``i``).

    Each part (record chunks, term chunks, shared chunks) is built by its own function, so its
    array temporaries are freed before the next part's objects are made (at 1M records they
    are several hundred MB).
    """
    if "seed" in params:
        raise ValueError("params must not hold the seed: the release is published, the seed is secret")
    # One Python int per record, shared by every list of the truth that names it (members, record,
    # term and shared chunks; a record is named several times), instead of a new int per mention.
    members = np.concatenate(table.clusters) if table.clusters else np.zeros(0, dtype=np.int64)
    n_positions = int(members.max()) + 1 if len(members) else 0  # every record of the table is a member
    ids = np.empty(n_positions, dtype=object)
    ids[:] = list(range(n_positions)) if record_ids is None else record_ids[:n_positions].tolist()
    rng = generator(seed, "publish")
    hashes = term_hashes(len(table.vocabulary))
    n_cl = len(table.clusters)
    subs, sub_recs, g_bounds, chunk_offset = _record_chunks(table, hashes, rng, ids)
    tc_bounds, tc_terms, tc_lists = _term_chunks(table, plans, ids)
    member_lists = ids[members].tolist()
    member_bounds = np.cumsum([0] + [len(c) for c in table.clusters]).tolist()
    del members

    clusters: list[Cluster] = []
    truths: list[ClusterTruth] = []
    for c in range(n_cl):
        cid = f"P{c + 1}"
        g0, g1 = int(chunk_offset[c]), int(chunk_offset[c + 1])
        chunks = [subs[g_bounds[g] : g_bounds[g + 1]] for g in range(g0, g1)]
        chunk_truth = [sub_recs[g_bounds[g] : g_bounds[g + 1]] for g in range(g0, g1)]
        a, b = tc_bounds[c], tc_bounds[c + 1]
        terms = tc_terms[a:b]
        members_c = member_lists[member_bounds[c] : member_bounds[c + 1]]
        clusters.append(Cluster(cid, len(members_c), chunks, terms))
        truths.append(ClusterTruth(cid, members_c, chunk_truth, dict(zip(terms, tc_lists[a:b], strict=True))))
    del subs, sub_recs, tc_terms, tc_lists, member_lists

    # ---- joint clusters from REFINE's plans, applied in list order
    ordered_subs, ordered_recs, chunk_bounds = _shared_chunks(plans, table.vocabulary, hashes, rng, ids)
    names = [f"P{c + 1}" for c in range(n_cl)]
    joints: list[JointCluster] = []
    joint_truths: list[JointClusterTruth] = []
    g = 0
    for j, plan in enumerate(plans):
        jid = f"J{j + 1}"
        children = [names[child] for child in plan.children]
        shared: list[list[tuple[str, ...]]] = []
        shared_truth: list[list[int]] = []
        for _ in plan.shared_chunks:
            shared.append(ordered_subs[chunk_bounds[g] : chunk_bounds[g + 1]])
            shared_truth.append(ordered_recs[chunk_bounds[g] : chunk_bounds[g + 1]])
            g += 1
        joints.append(JointCluster(jid, children, shared))
        joint_truths.append(JointClusterTruth(jid, shared_truth))
        names.append(jid)
    return Release(dict(params), clusters, joints), Truth(truths, joint_truths, seed=seed)


def _record_chunks(table: PartitionTable, hashes: np.ndarray, rng: np.random.Generator, ids: np.ndarray
                   ) -> tuple[list[tuple[str, ...]], list[int], list[int], np.ndarray]:
    """Every record chunk's sub-records (one per (chunk, record) with a non-empty projection) in
    publishing order, the records they come from, each chunk's bounds in them (chunks numbered
    cluster after cluster) and each cluster's first chunk number."""
    voc = np.asarray(table.vocabulary, dtype=object)
    n_cl = len(table.clusters)
    support = table.pair_end - table.pair_start
    in_chunk = table.pair_chunk >= 0
    chunk_offset = np.zeros(n_cl + 1, dtype=np.int64)
    np.cumsum(table.n_chunks, out=chunk_offset[1:])
    pair_gid = np.where(in_chunk, chunk_offset[table.pair_cluster] + table.pair_chunk, -1)
    e_gid = np.repeat(pair_gid, support)
    e_term = np.repeat(table.pair_term, support)
    sel = e_gid >= 0
    e_gid, e_term, e_rec = e_gid[sel], e_term[sel], table.entry_record[sel]
    n_rec = int(table.entry_record.max()) + 1 if len(table.entry_record) else 1
    width = max(len(table.vocabulary), 1)
    if (int(chunk_offset[-1]) + 1) * n_rec * width < 2**62:  # by (chunk, record, term) in one sort
        key = np.sort((e_gid * n_rec + e_rec) * width + e_term)
        e_term = key % width
        key //= width
        e_rec = key % n_rec
        e_gid = key // n_rec
    else:
        order = np.lexsort((e_term, e_rec, e_gid))
        e_gid, e_term, e_rec = e_gid[order], e_term[order], e_rec[order]
    if len(e_gid):
        new_sub = np.empty(len(e_gid), dtype=bool)
        new_sub[0] = True
        new_sub[1:] = (e_gid[1:] != e_gid[:-1]) | (e_rec[1:] != e_rec[:-1])
        s_start = np.flatnonzero(new_sub)
    else:
        s_start = np.zeros(0, dtype=np.int64)
    s_end = np.append(s_start[1:], len(e_gid)).astype(np.int64)
    s_gid = e_gid[s_start]
    s_rec = e_rec[s_start]
    s_hash = np.add.reduceat(hashes[e_term], s_start) if len(s_start) else np.zeros(0, dtype=np.uint64)
    if len(s_start):
        canonical = _content_order(s_gid, s_hash)
        final = _shuffled(canonical, s_gid, rng)
    else:
        canonical = final = np.zeros(0, dtype=np.int64)
    # one tuple per distinct sub-record of a chunk, shared by its copies (most records of a cluster project
    # alike: at 200k, 17,256 distinct of 203,353)
    rep = _first_equal(e_term, s_start, s_end - s_start, canonical, s_gid, s_hash)
    distinct = np.flatnonzero(rep == np.arange(len(rep)))
    number = np.empty(len(rep), dtype=np.int64)
    number[distinct] = np.arange(len(distinct))
    d_len = (s_end - s_start)[distinct]
    d_end = np.cumsum(d_len)
    d_terms = e_term[np.repeat(s_start[distinct] - (d_end - d_len), d_len) + np.arange(int(d_len.sum()))]
    term_strings = voc[d_terms].tolist() if len(d_terms) else []
    tuples = list(map(tuple, map(term_strings.__getitem__, map(slice, (d_end - d_len).tolist(), d_end.tolist()))))
    subs = list(map(tuples.__getitem__, number[rep[final]].tolist()))
    sub_recs = ids[s_rec[final]].tolist()
    g_bounds = np.searchsorted(s_gid[final], np.arange(int(chunk_offset[-1]) + 1)).tolist()
    return subs, sub_recs, g_bounds, chunk_offset


def _first_equal(e_term: np.ndarray, s_start: np.ndarray, s_len: np.ndarray, order: np.ndarray, s_gid: np.ndarray,
                 s_hash: np.ndarray) -> np.ndarray:
    """For each sub-record (its terms ``e_term[s_start:s_start + s_len]``), an earlier sub-record of the same
    chunk with the same terms, or itself. ``order`` is the content order (:func:`_content_order`: chunk, set
    hash, then number), so the candidates are runs of equal chunk, hash and length; their terms are compared
    entry by entry with the run's first, and a candidate that differs (a hash collision) stands for itself."""
    n = len(s_start)
    rep = np.arange(n, dtype=np.int64)
    if n < 2:
        return rep
    h, g, ln = s_hash[order], s_gid[order], s_len[order]
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    new_run[1:] = (h[1:] != h[:-1]) | (g[1:] != g[:-1]) | (ln[1:] != ln[:-1])
    run = np.flatnonzero(new_run)
    first = np.repeat(order[run], np.diff(np.append(run, n)))
    later = ~new_run
    cand, cand_first = order[later], first[later]
    if not len(cand):
        return rep
    lens = s_len[cand]
    ends = np.cumsum(lens)
    offset = np.arange(int(ends[-1]), dtype=np.int64) - np.repeat(ends - lens, lens)
    differs = e_term[np.repeat(s_start[cand], lens) + offset] != e_term[np.repeat(s_start[cand_first], lens) + offset]
    same = np.add.reduceat(differs, ends - lens) == 0  # (every sub-record holds at least one term)
    rep[cand[same]] = cand_first[same]
    return rep


def _term_chunks(table: PartitionTable, plans: Sequence, ids: np.ndarray
                 ) -> tuple[list[int], list[str], list[list[int]]]:
    """The term chunks: terms sorted; the truth lists the records holding each term. The terms the
    joint clusters move into shared chunks are dropped here, before any list is built (the plans
    are checked first, in order, so a bad plan still fails with the same message). Returns each
    cluster's bounds in the flat lists, the terms and their records."""
    voc = np.asarray(table.vocabulary, dtype=object)
    n_cl = len(table.clusters)
    width = max(len(table.vocabulary), 1)
    support = table.pair_end - table.pair_start
    term_id = {t: i for i, t in enumerate(table.vocabulary)}
    gone_cluster: list[int] = []
    gone_terms: list[str] = []
    for j, plan in enumerate(plans):
        for child in plan.children:
            if not 0 <= child < n_cl + j:
                raise ValueError(f"REFINE plan {j}: child {child} does not name a cluster or an earlier joint cluster")
        for idx, terms in plan.removed.items():
            if not 0 <= idx < n_cl:
                raise ValueError(f"REFINE plan {j}: removes terms from unknown cluster {idx}")
            gone_cluster.append(len(terms))
            gone_cluster.append(idx)
            gone_terms.extend(terms)
    tc_mask = table.pair_chunk < 0
    if gone_terms:
        gone_ids = list(map(term_id.get, gone_terms))
        owner = np.repeat(np.asarray(gone_cluster[1::2], dtype=np.int64), gone_cluster[0::2])
        if None in gone_ids:  # a term outside the vocabulary is in no term chunk: nothing to drop
            known = np.fromiter((i is not None for i in gone_ids), dtype=bool, count=len(gone_ids))
            owner = owner[known]
            gone_ids = [i for i in gone_ids if i is not None]
        gone = np.sort(owner * width + np.asarray(gone_ids, dtype=np.int64))
        pair_keys = table.pair_cluster.astype(np.int64) * width + table.pair_term
        if len(pair_keys) and bool((pair_keys[1:] > pair_keys[:-1]).all()):  # VERPART's order: look the few up
            pos = np.minimum(np.searchsorted(pair_keys, gone), len(pair_keys) - 1)
            tc_mask[pos[pair_keys[pos] == gone]] = False
        else:
            pos = np.minimum(np.searchsorted(gone, pair_keys), len(gone) - 1)
            tc_mask &= gone[pos] != pair_keys
    tc_pairs = np.flatnonzero(tc_mask)
    tc_bounds = np.searchsorted(table.pair_cluster[tc_pairs], np.arange(n_cl + 1)).tolist()
    tc_terms = voc[table.pair_term[tc_pairs]].tolist() if len(tc_pairs) else []
    tc_support = support[tc_pairs]
    tc_recs = ids[table.entry_record[np.repeat(tc_mask, support)]].tolist()
    tc_ends = np.cumsum(tc_support)
    tc_lists = list(map(tc_recs.__getitem__, map(slice, (tc_ends - tc_support).tolist(), tc_ends.tolist())))
    return tc_bounds, tc_terms, tc_lists


def _packed(chunk: SharedChunk) -> PackedSubrecords:
    """A chunk's sub-records packed (REFINE's own chunks already are; a chunk given as pairs is packed here,
    its listed order kept, empty sub-records included)."""
    if chunk.packed is not None:
        return chunk.packed
    number: dict[tuple[str, ...], int] = {}
    pairs = chunk.subrecords
    classes = [number.setdefault(tuple(sub), len(number)) for _, sub in pairs]
    return PackedSubrecords([r for r, _ in pairs], classes, list(number))


def _shared_chunks(plans: Sequence, vocabulary: Sequence[str], hashes: np.ndarray, rng: np.random.Generator,
                   ids: np.ndarray) -> tuple[list[tuple[str, ...]], list[int], list[int]]:
    """All shared sub-records at once, chunk after chunk in plan order: content order by the same
    set hash, then the seeded shuffle. Returns the sub-records, their records and the chunks' bounds.

    A chunk's sub-records come packed (:class:`~anonymizer.disassociation.shared_chunks.PackedSubrecords`):
    each distinct sub-record is hashed once, and the records and sub-record numbers are shuffled as arrays."""
    term_id = {t: i for i, t in enumerate(vocabulary)}
    records: list[list[int]] = []
    classes: list[list[int]] = []
    class_terms: list[tuple[str, ...]] = []
    first_class: list[int] = []
    listed: list[int] = []
    for plan in plans:
        for chunk in plan.shared_chunks:
            packed = _packed(chunk)
            first_class.append(len(class_terms))
            class_terms.extend(packed.class_terms)
            records.append(packed.records)
            classes.append(packed.classes)
            listed.append(len(packed.records))
    n_listed = sum(listed)
    listed_group = np.repeat(np.arange(len(listed), dtype=np.int64), listed)
    flat_rec_ids = np.fromiter(itertools.chain.from_iterable(records), dtype=np.int64, count=n_listed)
    flat_class = np.fromiter(itertools.chain.from_iterable(classes), dtype=np.int64, count=n_listed)
    flat_class += np.repeat(np.asarray(first_class, dtype=np.int64), listed)
    del records, classes
    class_len = np.fromiter(map(len, class_terms), dtype=np.int64, count=len(class_terms))
    if (class_len[flat_class] == 0).any():  # empty sub-records are implied, never listed
        nonempty = np.flatnonzero(class_len[flat_class])
        flat_rec_ids, flat_class, listed_group = flat_rec_ids[nonempty], flat_class[nonempty], listed_group[nonempty]
    chunk_sizes = np.bincount(listed_group, minlength=len(listed)).tolist()
    flat_terms = np.fromiter(map(term_id.__getitem__, itertools.chain.from_iterable(class_terms)), dtype=np.int64,
                             count=int(class_len.sum()))
    class_hash = np.zeros(len(class_terms), dtype=np.uint64)
    starts = np.flatnonzero(class_len)
    if len(starts):  # each non-empty sub-record's terms run up to the next non-empty one's
        class_hash[starts] = np.add.reduceat(hashes[flat_terms], (np.cumsum(class_len) - class_len)[starts])
    shared_order_arr = shuffled_order(listed_group, class_hash[flat_class], rng)
    ordered_recs = ids[flat_rec_ids[shared_order_arr]].tolist()
    ordered_subs = list(map(class_terms.__getitem__, flat_class[shared_order_arr].tolist()))
    return ordered_subs, ordered_recs, np.cumsum([0, *chunk_sizes]).tolist()
