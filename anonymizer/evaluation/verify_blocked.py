"""Condition (S) of :func:`anonymizer.evaluation.exact_proof.prove_component` on arrays, for the shared
chunks with *blocked* terms (:mod:`anonymizer.evaluation.verify_fast`, whose docstring gives the
sufficient condition and its proof): which terms are blocked at which leaves, whether the sub-records
that may go to each blocked leaf are k^m-anonymous, and whether the sub-records can be placed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from anonymizer.evaluation.verify_arrays import itemset_keys, itemset_supports
from anonymizer.evaluation.verify_tree import Tree, below, new_rows, ranges
from anonymizer.model.arrays import ReleaseArrays

__all__ = ["Shared", "Blocked", "blocked_terms", "signatures", "removed_subs", "restricted_km", "fits", "shared_bad"]


@dataclass
class Shared:
    """The shared chunks: joint cluster of each, and the distinct (joint cluster node, term) pairs
    with the chunk holding each (the smallest, when a joint cluster's chunks overlap)."""

    joint: np.ndarray
    pair_node: np.ndarray
    pair_term: np.ndarray
    pair_chunk: np.ndarray


@dataclass
class Blocked:
    """The blocked leaves of the shared chunks, grouped by *signature*: a shared chunk with a set of
    its terms blocked at one or more of its leaves."""

    chunk: np.ndarray
    leaf: np.ndarray
    sig: np.ndarray
    """Per distinct (shared chunk, blocked leaf), sorted: its signature."""
    sig_chunk: np.ndarray
    """Chunk of each signature."""
    sig_of_term: np.ndarray
    term: np.ndarray
    """The blocked terms of each signature (sorted by signature)."""


def blocked_terms(tree: Tree, shared: Shared, keys: np.ndarray, nodes: np.ndarray, n: int, width: int) -> Blocked:
    """Which terms of each shared chunk are blocked at which leaves (occurrences ``keys``, term * n +
    preorder number, sorted, at ``nodes``): a term of joint cluster J is blocked at the leaves below
    each node strictly below J that lists it."""
    hits = below(keys, tree, shared.pair_node, shared.pair_term, n)
    query = np.flatnonzero(hits)
    lo = np.searchsorted(keys, shared.pair_term[query] * n + tree.pre[shared.pair_node[query]], side="right")
    at = nodes[ranges(lo, hits[query])]
    span = tree.end[at] - tree.pre[at]
    leaf = tree.leaf_at[ranges(tree.pre[at], span)]
    pair = np.repeat(np.repeat(query, hits[query]), span)[leaf >= 0]
    leaf = leaf[leaf >= 0]
    chunk, term = shared.pair_chunk[pair], shared.pair_term[pair]
    order = np.lexsort((term, leaf, chunk))
    chunk, leaf, term = chunk[order], leaf[order], term[order]
    new = new_rows(chunk, leaf, term)
    chunk, leaf, term = chunk[new], leaf[new], term[new]
    first = np.flatnonzero(new_rows(chunk, leaf))
    count = np.diff(np.append(first, chunk.size))
    sig, sig_first = signatures(chunk, term, first, count, width)
    sig_of_term = np.repeat(np.arange(sig_first.size, dtype=np.int64), count[sig_first])
    return Blocked(chunk[first], leaf[first], sig, chunk[first[sig_first]], sig_of_term,
                    term[ranges(first[sig_first], count[sig_first])])


def signatures(chunk: np.ndarray, term: np.ndarray, first: np.ndarray, count: np.ndarray, width: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Number the groups ``first[g]:first[g] + count[g]`` of (chunk, term) rows by their chunk and set
    of terms: the signature of each group, and a group of each signature. Groups are keyed by chunk,
    size and a sum of random 64-bit weights of their terms, and each is then compared term by term
    with its signature's group: a collision is found, never trusted (the groups are then numbered
    one by one)."""
    weight = np.random.default_rng(0).integers(1, 2**63, size=width, dtype=np.uint64)
    owner = np.repeat(np.arange(first.size, dtype=np.int64), count)
    hashed = np.zeros(first.size, dtype=np.uint64)
    np.add.at(hashed, owner, weight[term])
    order = np.lexsort((hashed, count, chunk[first]))
    key = np.column_stack((chunk[first], count, hashed.view(np.int64)))[order]
    new = np.concatenate(([True], (key[1:] != key[:-1]).any(axis=1))) if first.size else np.zeros(0, dtype=bool)
    sig = np.empty(first.size, dtype=np.int64)
    sig[order] = np.cumsum(new) - 1
    sig_first = order[new]
    rows = ranges(first, count)
    if np.array_equal(term[rows], term[ranges(first[sig_first[sig]], count)]):
        return sig, sig_first
    index: dict[tuple[int, ...], int] = {}
    terms = term.tolist()
    for g, (c, x, n) in enumerate(zip(chunk[first].tolist(), first.tolist(), count.tolist(), strict=True)):
        sig[g] = index.setdefault((c, *terms[x:x + n]), len(index))
    return sig, np.unique(sig, return_index=True)[1]


def removed_subs(a: ReleaseArrays, blocked: Blocked) -> tuple[np.ndarray, np.ndarray]:
    """Per signature, the sub-records of its chunk holding one of its blocked terms: (signature,
    sub-record) pairs, sorted and distinct."""
    width = max(len(a.terms), 1)
    n_subs = len(a.shared_term_off) - 1
    sub = np.repeat(np.arange(n_subs, dtype=np.int64), np.diff(a.shared_term_off))
    chunk_of_sub = np.repeat(np.arange(len(a.shared_sub_off) - 1, dtype=np.int64), np.diff(a.shared_sub_off))
    key = chunk_of_sub[sub] * width + a.shared_terms
    order = np.argsort(key, kind="stable")
    key, sub = key[order], sub[order]
    wanted = blocked.sig_chunk[blocked.sig_of_term] * width + blocked.term
    lo, hi = np.searchsorted(key, wanted, side="left"), np.searchsorted(key, wanted, side="right")
    pairs = np.sort(np.repeat(blocked.sig_of_term, hi - lo) * max(n_subs, 1) + sub[ranges(lo, hi - lo)])
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] if pairs.size else pairs
    return pairs // max(n_subs, 1), pairs % max(n_subs, 1)


def restricted_km(a: ReleaseArrays, blocked: Blocked, removed: tuple[np.ndarray, np.ndarray], k: int,
                   m: int) -> np.ndarray:
    """Per signature: the sub-records of its (k^m-anonymous) chunk that may go to its leaves are
    k^m-anonymous. Without the removed sub-records, an itemset they hold keeps its support in the
    chunk (:func:`anonymizer.evaluation.verify_arrays.itemset_supports`) less theirs; every other
    itemset keeps its support, at least k."""
    ok = np.ones(blocked.sig_chunk.size, dtype=bool)
    sig, sub = removed
    width = max(len(a.terms), 1)
    chunk_of_sub = np.repeat(np.arange(len(a.shared_sub_off) - 1, dtype=np.int64), np.diff(a.shared_sub_off))
    lengths = np.diff(a.shared_term_off)
    for size in range(1, m + 1):
        found = itemset_keys(chunk_of_sub[sub], a.shared_term_off[sub], lengths[sub], a.shared_terms, width, size)
        table = itemset_supports(a.shared_sub_off, a.shared_term_off, a.shared_terms, len(a.terms), size)
        if found is None or table is None:
            return np.zeros(blocked.sig_chunk.size, dtype=bool)
        keys, rows = found
        if not keys.size:
            break
        order = np.lexsort((keys, sig[rows]))
        keys, owner = keys[order], sig[rows][order]
        first = np.flatnonzero(new_rows(keys, owner))
        gone = np.diff(np.append(first, keys.size))
        left = table[1][np.searchsorted(table[0], keys[first])] - gone
        ok[owner[first][(left > 0) & (left < k)]] = False
    return ok


def fits(groups: list[tuple[frozenset[int], int]], reach: list[int], sizes: np.ndarray, k: int) -> bool:
    """A placement of the sub-records (``groups``: the leaves a group is banned from, its sub-records)
    on leaves of ``reach`` they may go to, keeping k records of every leaf free: built greedily, the
    most banned groups first, each filling the leaves it may go to in a fixed order (any placement
    found is a witness)."""
    room = {p: int(sizes[p]) - k for p in reach}
    order = sorted(reach, key=lambda p: -room[p])
    for banned, n in sorted(groups, key=lambda x: -len(x[0])):
        for p in order:
            if p in banned or room[p] <= 0:
                continue
            take = min(n, room[p])
            room[p] -= take
            n -= take
            if not n:
                break
        if n:
            return False
    return True


def shared_bad(a: ReleaseArrays, tree: Tree, blocked: Blocked, shared_joint: np.ndarray, bad: np.ndarray, k: int,
                m: int) -> None:
    """Mark the joint clusters whose shared chunks with blocked terms fail the sufficient condition
    for (S) (module docstring). When a chunk's sub-records do not fit the leaves where nothing is
    blocked, a placement of them all that keeps k records of every leaf free does as well: k
    sub-records of A can then be moved onto P's free records (:func:`fits`)."""
    removed = removed_subs(a, blocked)
    km = restricted_km(a, blocked, removed, k, m)
    n_chunks = len(a.shared_sub_off) - 1
    failing = np.bincount(blocked.chunk, weights=~km[blocked.sig], minlength=n_chunks) > 0
    bad[shared_joint[failing]] = True
    held = np.bincount(blocked.chunk, weights=a.cluster_size[blocked.leaf], minlength=n_chunks)
    reach = tree.room[tree.end[shared_joint]] - tree.room[tree.pre[shared_joint]]
    n_subs = np.diff(a.shared_sub_off)
    crowded = (n_subs > reach - held) & ~bad[shared_joint]
    # A witness by counting: the sub-records banned somewhere on the free records (k kept) of the
    # leaves where nothing is blocked, the others anywhere with k records of every leaf kept free.
    sig, sub = removed
    banned_subs = np.flatnonzero(np.bincount(sub, minlength=len(a.shared_term_off) - 1))
    chunk_of_sub = np.repeat(np.arange(n_chunks, dtype=np.int64), n_subs)
    banned = np.bincount(chunk_of_sub[banned_subs], minlength=n_chunks)
    node = shared_joint
    leaves = tree.leaf_count[node]
    n_blocked = np.bincount(blocked.chunk, minlength=n_chunks)
    free = reach - held - k * (leaves - n_blocked)
    crowded &= ~((banned <= free) & (n_subs <= reach - k * leaves))
    # Or by Hall's condition over the groups of sub-records banned from the same leaves, with k records
    # of every leaf kept: the leaves a group may go to hold all but those it is banned from, whose
    # free records are at most the largest such sum over the chunk's sub-records.
    kept = np.maximum(a.cluster_size[blocked.leaf] - k, 0)
    per_sig = np.bincount(blocked.sig, weights=kept, minlength=blocked.sig_chunk.size)
    worst = np.zeros(n_chunks)
    np.maximum.at(worst, chunk_of_sub[sub], np.bincount(sub, weights=per_sig[sig], minlength=chunk_of_sub.size)[sub])
    crowded &= ~(n_subs <= reach - k * leaves - worst)
    crowded = np.flatnonzero(crowded)
    if not crowded.size:
        return
    lo = np.searchsorted(blocked.chunk, crowded, side="left")
    hi = np.searchsorted(blocked.chunk, crowded, side="right")
    for chunk, x, y in zip(crowded.tolist(), lo.tolist(), hi.tolist(), strict=True):
        joint_node = int(shared_joint[chunk])
        if bad[joint_node]:
            continue
        leaves = dict(zip(blocked.leaf[x:y].tolist(), blocked.sig[x:y].tolist(), strict=True))
        banned_by: dict[int, set[int]] = {}
        for s in set(leaves.values()):
            for one in sub[np.searchsorted(sig, s, side="left"):np.searchsorted(sig, s, side="right")].tolist():
                banned_by.setdefault(one, set()).add(s)
        by_sigs = Counter(frozenset(v) for v in banned_by.values())
        by_sigs[frozenset()] += int(a.shared_sub_off[chunk + 1] - a.shared_sub_off[chunk]) - len(banned_by)
        groups = [(frozenset(p for p, g in leaves.items() if g in sigs), n) for sigs, n in by_sigs.items() if n]
        below = tree.leaf_at[tree.pre[joint_node]:tree.end[joint_node]]
        if not fits(groups, below[below >= 0].tolist(), a.cluster_size, k):
            bad[joint_node] = True
