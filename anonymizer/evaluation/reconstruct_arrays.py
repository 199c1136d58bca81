"""Steps 1 and 2 of a reconstruction over the release's arrays (Terrovitis2012 section 3).

:mod:`anonymizer.evaluation.reconstruct` describes the model and the steps. This module does steps 1
and 2 on :class:`anonymizer.model.arrays.ReleaseArrays` with one numpy array per kind of thing
instead of one Python object per sub-record, and draws exactly the random numbers the object
form (:func:`anonymizer.evaluation.reconstruct_chunks.place_record_chunks` and
:func:`~anonymizer.evaluation.reconstruct_chunks.place_shared_chunks`) draws, in the same order:
one ``permutation(s)`` per record chunk (cluster by cluster), then per shared chunk (joint cluster
by joint cluster) one ``permutation`` of its joint cluster's records and one of its sub-records.
Only the placement that follows the draws is vectorized: a record chunk's sub-record ``i`` goes to
the position that holds ``i`` in its permutation, and a shared chunk none of whose sub-records is
barred from a leaf takes the records its greedy pass would pop, in one gather. A chunk with a barred
sub-record keeps the greedy pass and its augmenting-path repair sub-record by sub-record.

:func:`to_states` turns the result into the object form the later steps work on, for the releases
that need steps 3 or 4; :mod:`anonymizer.evaluation.reconstruct_terms` does step 5 on the arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonymizer.evaluation.reconstruct_chunks import ClusterState, JointForest, SharedChunks, augment
from anonymizer.model.arrays import ReleaseArrays
from corpora.common.errors import InputError

__all__ = ["ArrayPlacement", "check_disjoint", "place_chunks", "to_states", "segments", "distinct", "member"]


def segments(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ragged segments of the given lengths: each element's segment and its index inside it."""
    lengths = np.asarray(lengths, dtype=np.int64)
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    return owner, np.arange(len(owner), dtype=np.int64) - starts[owner]


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (``np.unique`` without its hashing pass, faster on int64 keys)."""
    out = np.sort(values)
    if len(out) > 1:
        out = out[np.concatenate(([True], out[1:] != out[:-1]))]
    return out


def member(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each value is in ``table`` (sorted, distinct)."""
    if not len(table):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(table, values), len(table) - 1)
    return table[at] == values


@dataclass
class ArrayPlacement:
    """Steps 1-2 on arrays: the global record of every sub-record, and what :func:`to_states` needs."""

    offset: np.ndarray  # per cluster: global id of its first record
    cluster_of: np.ndarray  # per record: its cluster
    term_chunk_off: np.ndarray  # per cluster: its term chunk (sorted, distinct term ids) in term_chunk
    term_chunk: np.ndarray
    record_of_sub: np.ndarray  # per record-chunk sub-record (arrays order): its global record
    record_of_shared: np.ndarray  # per shared sub-record (arrays order): its global record
    perms: list[np.ndarray]  # per record chunk: its permutation (step 1)
    leaves_of: list[list[int]]  # per joint cluster: its leaves
    below: list[list[int]]  # per joint cluster: the joint clusters strictly below it
    blocked_keys: np.ndarray  # sorted keys joint * len(terms) + term of the terms some leaves already publish
    blocked: list[frozenset[int]]  # per key, those leaves (the sub-records holding the term may not go there)

    def pieces(self, n_records: int) -> np.ndarray:
        """Sub-records (pieces) per record after steps 1-2."""
        return (np.bincount(self.record_of_sub, minlength=n_records)
                + np.bincount(self.record_of_shared, minlength=n_records))


def _first_duplicate(owner: np.ndarray, term: np.ndarray, width: int) -> int | None:
    """The smallest owner with a (owner, term) pair listed twice, or None."""
    if not len(owner):
        return None
    key = np.sort(owner * width + term)
    dup = key[1:][key[1:] == key[:-1]]
    return int(dup.min() // width) if len(dup) else None


def _distinct_per_chunk(chunk_of_sub: np.ndarray, term_off: np.ndarray, terms: np.ndarray,
                        width: int) -> tuple[np.ndarray, np.ndarray]:
    """(chunk, term) pairs of the chunks' term sets, each pair once."""
    sub_of_term, _ = segments(np.diff(term_off))
    key = distinct(chunk_of_sub[sub_of_term] * width + terms.astype(np.int64))
    return key // width, key % width


def check_disjoint(a: ReleaseArrays) -> None:
    """Refuse a release whose chunk term sets overlap (the same rule and words as the object form)."""
    width = max(len(a.terms), 1)
    chunk_cluster, _ = segments(np.diff(a.chunk_off))
    chunk_of_sub, _ = segments(np.diff(a.sub_off))
    chunk, term = _distinct_per_chunk(chunk_of_sub, a.term_off, a.sub_terms, width)
    tc_owner, _ = segments(np.diff(a.term_chunk_off))
    bad = _first_duplicate(np.concatenate([chunk_cluster[chunk], tc_owner]),
                           np.concatenate([term, a.term_chunk_terms.astype(np.int64)]), width)
    if bad is not None:
        raise InputError(f"cluster {a.cluster_ids[bad]}: its record chunks and term chunk share a term; a "
                         "disassociated cluster splits its terms into disjoint chunks (run verify for details)")
    joint_of_chunk, _ = segments(np.diff(a.shared_chunk_off))
    chunk_of_sub, _ = segments(np.diff(a.shared_sub_off))
    chunk, term = _distinct_per_chunk(chunk_of_sub, a.shared_term_off, a.shared_terms, width)
    bad = _first_duplicate(joint_of_chunk[chunk], term, width)
    if bad is not None:
        raise InputError(f"joint cluster {a.joint_ids[bad]}: two shared chunks share a term; shared chunks of one "
                         "joint cluster hold disjoint term sets (run verify for details)")


def _term_chunks(a: ReleaseArrays) -> tuple[np.ndarray, np.ndarray]:
    """Each cluster's term chunk as sorted, distinct term ids (CSR)."""
    width = max(len(a.terms), 1)
    owner, _ = segments(np.diff(a.term_chunk_off))
    key = distinct(owner * width + a.term_chunk_terms.astype(np.int64))
    off = np.zeros(a.n_clusters + 1, dtype=np.int64)
    np.cumsum(np.bincount(key // width, minlength=a.n_clusters), out=off[1:])
    return off, key % width


def _place_records(a: ReleaseArrays, offset: np.ndarray,
                   rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:
    """Step 1: one permutation per record chunk; sub-record i goes to the position holding i."""
    size = a.cluster_size
    chunk_cluster, chunk_index = segments(np.diff(a.chunk_off))
    chunk_n = np.diff(a.sub_off)
    chunk_s = size[chunk_cluster]
    has_tc = np.diff(a.term_chunk_off) > 0
    bad_size = (size <= 0) & (np.bincount(chunk_cluster[chunk_n > 0], minlength=a.n_clusters).astype(bool) | has_tc)
    over = chunk_n > chunk_s
    bad_cluster = np.union1d(np.flatnonzero(bad_size), chunk_cluster[over])
    if len(bad_cluster):
        c = int(bad_cluster[0])
        if bad_size[c]:
            raise InputError(f"cluster {a.cluster_ids[c]}: size {int(size[c])} cannot hold its chunks")
        j = int(np.flatnonzero(over & (chunk_cluster == c))[0])
        raise InputError(f"cluster {a.cluster_ids[c]} record chunk {int(chunk_index[j])}: {int(chunk_n[j])} "
                         f"sub-records exceed size {int(size[c])}")
    perms = [rng.permutation(s) for s in chunk_s.tolist()]
    inverse = np.empty(int(chunk_s.sum()), dtype=np.int64)
    base = np.cumsum(chunk_s) - chunk_s
    if perms:
        owner, local = segments(chunk_s)
        inverse[base[owner] + np.concatenate(perms)] = local
    sub_chunk, sub_local = segments(chunk_n)
    return offset[chunk_cluster[sub_chunk]] + inverse[base[sub_chunk] + sub_local], perms


def _forest(a: ReleaseArrays) -> tuple[list[list[int]], list[list[int]]]:
    """Per joint cluster: its leaves (children's leaves in order) and the joint clusters below it."""
    n = a.n_clusters
    kids, bounds = a.children.tolist(), a.child_off.tolist()
    leaves_of: list[list[int]] = []
    below: list[list[int]] = []
    for ji in range(len(a.joint_ids)):
        found: list[int] = []
        under: list[int] = []
        for child in kids[bounds[ji]:bounds[ji + 1]]:
            if child < n:
                found.append(child)
            else:
                found.extend(leaves_of[child - n])
                under.extend([child - n, *below[child - n]])
        leaves_of.append(found)
        below.append(under)
    return leaves_of, below


def _expand(pairs_owner: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each pair p, every position of the CSR row ``off[pairs_owner[p]]``: (pair, position)."""
    lens = off[pairs_owner + 1] - off[pairs_owner]
    pair, local = segments(lens)
    return pair, off[pairs_owner[pair]] + local


def _blocked(a: ReleaseArrays, leaves_of: list[list[int]], below: list[list[int]],
             shared_joint_of_term: np.ndarray) -> tuple[np.ndarray, list[frozenset[int]]]:
    """The (joint, term) keys ``joint * len(terms) + term`` (sorted) for which some leaves of the joint
    already publish the term: in their record chunks or term chunk, or in a shared chunk of a joint
    cluster below (they are the leaves of that joint cluster); and those leaves, per key."""
    width = max(len(a.terms), 1)
    nj = len(a.joint_ids)
    mine = distinct(shared_joint_of_term * width + a.shared_terms)
    mine_off = np.searchsorted(mine // width, np.arange(nj + 1))
    is_shared = np.zeros(width, dtype=bool)
    is_shared[a.shared_terms] = True
    chunk_cluster, _ = segments(np.diff(a.chunk_off))
    chunk_of_sub, _ = segments(np.diff(a.sub_off))
    sub_of_term, _ = segments(np.diff(a.term_off))
    tc_owner, _ = segments(np.diff(a.term_chunk_off))
    listed = np.concatenate([(chunk_cluster[chunk_of_sub[sub_of_term]] * width + a.sub_terms)[is_shared[a.sub_terms]],
                             (tc_owner * width + a.term_chunk_terms)[is_shared[a.term_chunk_terms]]])
    listed = distinct(listed)  # (leaf, term) pairs of terms some shared chunk lists
    listed_off = np.searchsorted(listed // width, np.arange(a.n_clusters + 1))
    pair_joint = np.repeat(np.arange(nj, dtype=np.int64), [len(x) for x in leaves_of])
    pair_leaf = np.asarray([leaf for x in leaves_of for leaf in x], dtype=np.int64)
    pair, at = _expand(pair_leaf, listed_off)  # per (joint, leaf) pair, the leaf's listed terms
    key = pair_joint[pair] * width + listed[at] % width
    hit = member(key, mine)
    blocked: dict[int, set[int]] = {}
    for k, leaf in zip(key[hit].tolist(), pair_leaf[pair[hit]].tolist(), strict=True):
        blocked.setdefault(k, set()).add(leaf)
    lower_joint = np.repeat(np.arange(nj, dtype=np.int64), [len(x) for x in below])
    lower = np.asarray([b for x in below for b in x], dtype=np.int64)
    pair, at = _expand(lower, mine_off)  # per (joint, joint below) pair, the lower one's shared terms
    key = lower_joint[pair] * width + mine[at] % width
    hit = member(key, mine)
    for k, b in zip(key[hit].tolist(), lower[pair[hit]].tolist(), strict=True):
        blocked.setdefault(k, set()).update(leaves_of[b])
    keys = sorted(blocked)
    return np.asarray(keys, dtype=np.int64), [frozenset(blocked[k]) for k in keys]


def _bans(a: ReleaseArrays, shared_joint_of_term: np.ndarray, keys: np.ndarray,
          banned: list[frozenset[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Per shared sub-record, the leaves it may not go to (a frozenset) or None (an object array), and
    whether there are any."""
    width = max(len(a.terms), 1)
    term_key = shared_joint_of_term * width + a.shared_terms
    hit = np.flatnonzero(member(term_key, keys))
    sub_of_term, _ = segments(np.diff(a.shared_term_off))
    out = np.full(len(a.shared_term_off) - 1, None, dtype=object)
    barred = np.zeros(len(out), dtype=bool)
    if not len(hit):
        return out, barred
    sub = sub_of_term[hit]
    which = np.searchsorted(keys, term_key[hit])
    table = np.empty(len(banned), dtype=object)
    table[:] = banned
    n_hits = np.bincount(sub, minlength=len(out))
    single = n_hits[sub] == 1
    out[sub[single]] = table[which[single]]
    several = ~single
    for g, idx in zip(sub[several].tolist(), which[several].tolist(), strict=True):
        out[g] = banned[idx] if out[g] is None else out[g] | banned[idx]
    barred[sub] = True
    return out, barred


def _greedy(bans: list[frozenset[int] | None], free: list[int], free_cluster: list[int], order: list[int],
            cluster_of: np.ndarray, where: str, whole: bool) -> list[int] | None:
    """The greedy pass of step 2 for one chunk with barred sub-records: each sub-record, in ``order``,
    takes the last free record (``free_cluster``: their clusters) of a leaf it may go to; a dead end
    is repaired by an augmenting path. ``free`` may be only the end of the free records (``whole``
    False): then None when the pass needs more of them."""

    def fits(slot: int, i: int) -> bool:
        b = bans[i]
        return b is None or int(cluster_of[slot]) not in b

    chosen: list[int | None] = [None] * len(bans)
    for i in order:
        b = bans[i]
        idx = len(free) - 1
        if b is not None:
            while idx >= 0 and free_cluster[idx] in b:
                idx -= 1
            if idx < 0:
                if not whole:
                    return None
                if not augment(i, chosen, free, fits):
                    raise InputError(
                        f"{where}: no valid reconstruction: sub-record {i} fits no record of the joint cluster's "
                        "leaves (each leaf it may go to, i.e. whose chunks list none of its terms, already takes "
                        "one sub-record of this chunk on every record)"
                    )
                free_cluster[:] = cluster_of[free].tolist() if free else []
                continue
        chosen[i] = free.pop(idx)
        free_cluster.pop(idx)
    return chosen  # type: ignore[return-value]  # every entry is set


def _greedy_chunk(bans: list[frozenset[int] | None], perm: np.ndarray, slots: np.ndarray, slot_cluster: np.ndarray,
                  order: list[int], cluster_of: np.ndarray, where: str) -> list[int]:
    """:func:`_greedy` with the free records ``slots[perm]``: on the last 2n + 64 of them first (the pass pops
    from the end), on all if it must."""
    tail = min(len(perm), 2 * len(bans) + 64)
    if tail < len(perm):
        end = perm[-tail:]
        out = _greedy(bans, slots[end].tolist(), slot_cluster[end].tolist(), order, cluster_of, where, False)
        if out is not None:
            return out
    out = _greedy(bans, slots[perm].tolist(), slot_cluster[perm].tolist(), order, cluster_of, where, True)
    assert out is not None
    return out


def _place_shared(a: ReleaseArrays, offset: np.ndarray, cluster_of: np.ndarray, leaves_of: list[list[int]],
                  bans: np.ndarray, barred: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Step 2: per shared chunk, a permutation of its joint cluster's records and one of its sub-records."""
    size = a.cluster_size
    leaf_flat = np.asarray([leaf for x in leaves_of for leaf in x], dtype=np.int64)
    leaf_off = np.zeros(len(leaves_of) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in leaves_of], out=leaf_off[1:])
    lens = size[leaf_flat]
    cum = np.concatenate(([0], np.cumsum(lens)))
    owner, local = segments(lens)
    slots = offset[leaf_flat][owner] + local  # per joint, its leaves' records in order
    slot_base, n_slots = cum[leaf_off[:-1]], cum[leaf_off[1:]] - cum[leaf_off[:-1]]
    chunk_joint, chunk_index = segments(np.diff(a.shared_chunk_off))
    chunk_n = np.diff(a.shared_sub_off)
    chunk_l = n_slots[chunk_joint]
    too_many = np.flatnonzero(chunk_n > chunk_l)
    n_ok = int(too_many[0]) if len(too_many) else len(chunk_n)
    first, second = [], []
    for n_l, n_s in zip(chunk_l[:n_ok].tolist(), chunk_n[:n_ok].tolist(), strict=True):
        first.append(rng.permutation(n_l))
        second.append(rng.permutation(n_s))
    record = np.full(int(a.shared_sub_off[-1]), -1, dtype=np.int64)
    n_subs = int(a.shared_sub_off[n_ok])
    if n_subs:
        p1, p2 = np.concatenate(first), np.concatenate(second)
        p1_base = np.cumsum(chunk_l[:n_ok]) - chunk_l[:n_ok]
        chunk, t = segments(chunk_n[:n_ok])
        pick = p1[p1_base[chunk] + chunk_l[chunk] - 1 - t]
        record[a.shared_sub_off[chunk] + p2] = slots[slot_base[chunk_joint[chunk]] + pick]
    chunk_of_sub, _ = segments(chunk_n)
    slot_cluster = cluster_of[slots]
    for c in distinct(chunk_of_sub[np.flatnonzero(barred)]).tolist():
        if c >= n_ok:
            break
        ji = int(chunk_joint[c])
        lo, hi = int(a.shared_sub_off[c]), int(a.shared_sub_off[c + 1])
        base = int(slot_base[ji])
        where = f"joint cluster {a.joint_ids[ji]} shared chunk {int(chunk_index[c])}"
        joint = slice(base, base + int(n_slots[ji]))
        record[lo:hi] = _greedy_chunk(bans[lo:hi].tolist(), first[c], slots[joint], slot_cluster[joint],
                                      second[c].tolist(), cluster_of, where)
    if n_ok < len(chunk_n):
        c = n_ok
        raise InputError(f"joint cluster {a.joint_ids[int(chunk_joint[c])]} shared chunk {int(chunk_index[c])}: "
                         f"no valid reconstruction: {int(chunk_n[c])} sub-records exceed the {int(chunk_l[c])} "
                         "records of its leaves")
    return record


def place_chunks(a: ReleaseArrays, rng: np.random.Generator) -> ArrayPlacement:
    """Steps 1 and 2 (module docstring); raises the object form's :class:`InputError` when they fail."""
    size = a.cluster_size
    offset = np.cumsum(size) - size
    cluster_of = np.repeat(np.arange(a.n_clusters, dtype=np.int64), size)
    tc_off, tc_terms = _term_chunks(a)
    record_of_sub, perms = _place_records(a, offset, rng)
    leaves_of, below = _forest(a)
    chunk_joint, _ = segments(np.diff(a.shared_chunk_off))
    chunk_of_sub, _ = segments(np.diff(a.shared_sub_off))
    sub_of_term, _ = segments(np.diff(a.shared_term_off))
    joint_of_term = chunk_joint[chunk_of_sub[sub_of_term]]
    keys, banned = _blocked(a, leaves_of, below, joint_of_term)
    bans, barred = _bans(a, joint_of_term, keys, banned)
    record_of_shared = _place_shared(a, offset, cluster_of, leaves_of, bans, barred, rng)
    return ArrayPlacement(offset, cluster_of, tc_off, tc_terms, record_of_sub, record_of_shared, perms, leaves_of,
                          below, keys, banned)


def to_states(a: ReleaseArrays, p: ArrayPlacement) -> tuple[list[ClusterState], SharedChunks, JointForest]:
    """The object form of steps 1-2's result (what steps 3 and 4 work on), equal to the one
    :func:`~anonymizer.evaluation.reconstruct_chunks.place_record_chunks` and
    :func:`~anonymizer.evaluation.reconstruct_chunks.place_shared_chunks` build."""
    size = a.cluster_size.tolist()
    offset = p.offset.tolist()
    sub_terms = a.sub_terms.tolist()
    term_off, sub_off, chunk_off = a.term_off.tolist(), a.sub_off.tolist(), a.chunk_off.tolist()
    subs = [tuple(sub_terms[x:y]) for x, y in zip(term_off[:-1], term_off[1:], strict=True)]
    tc = p.term_chunk.tolist()
    tc_off = p.term_chunk_off.tolist()
    states: list[ClusterState] = []
    for c in range(a.n_clusters):
        chunks = range(chunk_off[c], chunk_off[c + 1])
        st = ClusterState(offset[c], size[c], tc[tc_off[c]:tc_off[c + 1]],
                          [subs[sub_off[j]:sub_off[j + 1]] for j in chunks])
        for j in chunks:
            st.place_record_chunk(p.perms[j], sub_off[j + 1] - sub_off[j])
        states.append(st)
    shared = SharedChunks()
    width = max(len(a.terms), 1)
    blocked = {(key // width, key % width): leaves for key, leaves in zip(p.blocked_keys.tolist(), p.blocked,
                                                                          strict=True)}
    chunk_joint, _ = segments(np.diff(a.shared_chunk_off))
    s_terms, s_term_off, s_sub_off = a.shared_terms.tolist(), a.shared_term_off.tolist(), a.shared_sub_off.tolist()
    rec = p.record_of_shared.tolist()
    cluster_of = p.cluster_of
    for c, ji in enumerate(chunk_joint.tolist()):
        shared.joint.append(ji)
        terms = set(s_terms[s_term_off[s_sub_off[c]]:s_term_off[s_sub_off[c + 1]]])
        shared.blocked.append({t: blocked[(ji, t)] for t in terms if (ji, t) in blocked})
        for g in range(s_sub_off[c], s_sub_off[c + 1]):
            st = states[int(cluster_of[rec[g]])]
            st.add_shared(rec[g] - st.offset, c, tuple(s_terms[s_term_off[g]:s_term_off[g + 1]]))
    return states, shared, JointForest.of_arrays(a, p.leaves_of, p.below)
