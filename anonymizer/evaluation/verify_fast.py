"""The components of a release read into arrays that a fast sound test settles (issue 25), for the verifier.

:func:`anonymizer.evaluation.verify.verify` decides every component (a top-level joint cluster with its
leaves, or a lone cluster) of a release: those of at most ``exact_max_records`` records by an exact
search of their valid reconstructions, the others by the proven sufficient condition
:func:`anonymizer.evaluation.exact_proof.prove_component`. Both work on an object model of frozensets.
On a release read into validated arrays, :func:`settle` finds in numpy the components for which the
answer is known without that model, and the verifier builds it only for the others. A component is
*settled* when:

* **no line is reported for it**: every record chunk and shared chunk is k^m-anonymous
  (:mod:`anonymizer.evaluation.verify_arrays`); the record-chunk term sets of each cluster are
  disjoint from each other and from its term chunk, which repeats no term; the shared chunks of each
  joint cluster hold disjoint term sets; Lemma 2 holds for every cluster
  (:func:`anonymizer.model.conditions.lemma2_holds`); and a shared chunk that holds a term of T^r
  (listed by a record chunk of a leaf below its joint cluster, or by a shared chunk of a joint
  cluster below it) is k-anonymous (Property 1);
* **it passes the condition of** :func:`~anonymizer.evaluation.exact_proof.prove_component`, by a
  test that implies it: (L) exactly as written there, per leaf; and (S) through this sufficient
  condition: for each shared chunk S of a joint cluster J, with B the leaves below J where some term
  of S is *blocked* (listed by the leaf's chunks or by a shared chunk of a joint cluster between J
  and the leaf, the rule of :mod:`anonymizer.evaluation.exact_model`), the sub-records of S fit the
  records of the other leaves below J (their sizes add up to at least |S|), and for each leaf P of
  B the sub-records of S that may go to P (none of whose terms is blocked at P) are k^m-anonymous
  (:func:`anonymizer.model.conditions.is_km_anonymous`). *Why this gives (S)*: let X be an itemset
  of a sub-record that may go to P, and A the sub-records of S holding X that may go to P. |A| >= k
  (S is k^m-anonymous when P is not in B; the restriction is, when it is). Put k sub-records of A
  on P (P has at least k records by (L)) and the other |S| - k anywhere outside B: they may go
  there, and there is room, since the leaves outside B hold at least |S| records. That is the
  placement (S) asks for, and with X ranging over every such itemset it is also the placement of
  every sub-record that (S) needs first;
* if the exact search takes it (at most ``exact_max_records`` records, or ``exact``): it has at
  most :data:`anonymizer.evaluation.exact.MAX_SPREADS` spreads, bounded from above by the product,
  over the shared chunks, of the number of ways to spread each distinct sub-record's copies over the
  leaves of its joint cluster, C(n + L - 1, L - 1).

A settled component that the exact search takes is then counted as searched exactly: since it
passes the proven condition, its valid reconstructions exist and hold every itemset they can hold
in at least k records, so the search would report nothing and list no itemset below k. A settled
larger one is counted as proven. Every other component (its clusters and joint clusters) is left to
the object model, in release order, so the report is the same line for line
(``tests/test_perf_verify2.py`` holds the two paths equal on random, tampered and engine releases).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonymizer.evaluation.verify_arrays import itemset_keys, itemset_supports
from anonymizer.model.arrays import ReleaseArrays
from anonymizer.model.conditions import lemma2_holds

__all__ = ["Settled", "settle", "plain_subset"]


@dataclass
class Settled:
    """What :func:`settle` found: the settled components counted, and the nodes left to the object model."""

    exact: int
    """Settled components that the exact search takes (at most ``exact_max_records`` records)."""
    proven: int
    """Settled components larger than that (they pass the proven condition)."""
    clusters: list[int]
    """Positions of the clusters of the components not settled, in release order."""
    joints: list[int]
    """Positions of the joint clusters of the components not settled, in release order."""


@dataclass
class _Tree:
    """The forest of clusters (nodes 0..C-1) and joint clusters (C..C+J-1), numbered in preorder."""

    root: np.ndarray
    pre: np.ndarray
    end: np.ndarray
    """Preorder number of each node, and one past the last preorder number of its subtree."""
    leaf_at: np.ndarray
    """Cluster at each preorder number (-1 at a joint cluster)."""
    room: np.ndarray
    """Records of the clusters before each preorder number (length N + 1)."""
    leaf_count: np.ndarray
    """Clusters in the subtree of each node."""


def _tree(a: ReleaseArrays) -> _Tree | None:
    """The forest of ``a``, or None when a child is listed twice (the strict parser refuses that)."""
    n_clusters, n_joints = a.n_clusters, len(a.joint_ids)
    n = n_clusters + n_joints
    if a.children.size and np.bincount(a.children).max() > 1:
        return None
    parent = np.full(n, -1, dtype=np.int64)
    parent[a.children] = n_clusters + np.repeat(np.arange(n_joints, dtype=np.int64), np.diff(a.child_off))
    root = np.arange(n, dtype=np.int64)
    while True:
        up = parent[root]
        moving = up >= 0
        if not moving.any():
            break
        root[moving] = up[moving]
    kids = a.children.tolist()
    bounds = a.child_off.tolist()
    size = [1] * n
    for j in range(n_joints):  # children are defined before their joint cluster
        size[n_clusters + j] += sum(size[ch] for ch in kids[bounds[j]:bounds[j + 1]])
    pre = [0] * n
    at = 0
    for node in np.flatnonzero(parent < 0).tolist():
        pre[node] = at
        at += size[node]
    for j in range(n_joints - 1, -1, -1):  # parents before their children
        at = pre[n_clusters + j] + 1
        for ch in kids[bounds[j]:bounds[j + 1]]:
            pre[ch] = at
            at += size[ch]
    pre_a = np.asarray(pre, dtype=np.int64)
    leaf_at = np.full(n, -1, dtype=np.int64)
    leaf_at[pre_a[:n_clusters]] = np.arange(n_clusters)
    records = np.zeros(n, dtype=np.int64)
    records[pre_a[:n_clusters]] = a.cluster_size
    end = pre_a + np.asarray(size, dtype=np.int64)
    leaves = np.concatenate(([0], np.cumsum(leaf_at >= 0)))
    return _Tree(root, pre_a, end, leaf_at, np.concatenate(([0], np.cumsum(records))), leaves[end] - leaves[pre_a])


def _groups(node: np.ndarray, term: np.ndarray, chunk: np.ndarray, width: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (node, term) pairs as keys ``node * width + term``, sorted, with the smallest and
    largest chunk and the number of occurrences of each."""
    if not node.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    key = node * width + term
    order = np.argsort(key, kind="stable")
    key, chunk = key[order], chunk[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    count = np.diff(np.append(starts, key.size))
    return key[starts], np.minimum.reduceat(chunk, starts), np.maximum.reduceat(chunk, starts), count


def _occurrences(chunk_off: np.ndarray, sub_off: np.ndarray, term_off: np.ndarray, terms: np.ndarray,
                 first_node: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per term occurrence of a chunk family: its node, term and chunk."""
    n_chunks = len(sub_off) - 1
    chunk_of_sub = np.repeat(np.arange(n_chunks, dtype=np.int64), np.diff(sub_off))
    chunk = chunk_of_sub[np.repeat(np.arange(len(term_off) - 1, dtype=np.int64), np.diff(term_off))]
    node_of_chunk = first_node + np.repeat(np.arange(len(chunk_off) - 1, dtype=np.int64), np.diff(chunk_off))
    return node_of_chunk[chunk], terms.astype(np.int64), chunk


def _below(keys: np.ndarray, tree: _Tree, joint: np.ndarray, term: np.ndarray, n: int) -> np.ndarray:
    """Per (joint cluster, term) query: how many of the sorted occurrence ``keys`` (term * n +
    preorder number) lie at a node strictly below the joint cluster."""
    lo = term * n + tree.pre[joint]
    hi = term * n + tree.end[joint] - 1
    return np.searchsorted(keys, hi, side="right") - np.searchsorted(keys, lo, side="right")


def _condition_l(a: ReleaseArrays, k: int, m: int) -> np.ndarray:
    """Per cluster, condition (L) of :func:`~anonymizer.evaluation.exact_proof.prove_component` without
    the k^m-anonymity of its record chunks (checked apart): s >= k and, with an empty term chunk,
    sum n_c >= s and sum_c min(n_c, s - k) + (the h smallest d_c) >= s - k."""
    s = a.cluster_size
    n_chunks = np.diff(a.chunk_off)
    owner = np.repeat(np.arange(a.n_clusters, dtype=np.int64), n_chunks)
    n_c = np.diff(a.sub_off)
    room = np.maximum(s - k, 0)[owner]
    d = (n_c - k) - np.minimum(n_c, room)
    order = np.lexsort((d, owner))
    rank = np.arange(owner.size) - a.chunk_off[owner[order]]
    h = np.minimum(m, n_chunks)
    worst = np.bincount(owner[order][rank < h[owner[order]]], weights=d[order][rank < h[owner[order]]],
                        minlength=a.n_clusters)
    base = np.bincount(owner, weights=np.minimum(n_c, room), minlength=a.n_clusters)
    total = a.sub_off[a.chunk_off[1:]] - a.sub_off[a.chunk_off[:-1]]
    filled = np.diff(a.term_chunk_off) > 0
    return (s >= k) & (filled | ((total >= s) & (base + worst >= s - k)))


def _lemma2(a: ReleaseArrays, k: int, m: int) -> np.ndarray:
    """Per cluster, Lemma 2 (:func:`anonymizer.model.conditions.lemma2_holds`)."""
    totals = (a.sub_off[a.chunk_off[1:]] - a.sub_off[a.chunk_off[:-1]]).tolist()
    empty = (np.diff(a.term_chunk_off) == 0).tolist()
    return np.fromiter((lemma2_holds(s, t, v, k, m, e) for s, t, v, e in zip(
        a.cluster_size.tolist(), totals, np.diff(a.chunk_off).tolist(), empty, strict=True)),
        dtype=bool, count=a.n_clusters)


@dataclass
class _Shared:
    """The shared chunks: joint cluster of each, and the distinct (joint cluster node, term) pairs
    with the chunk holding each (the smallest, when a joint cluster's chunks overlap)."""

    joint: np.ndarray
    pair_node: np.ndarray
    pair_term: np.ndarray
    pair_chunk: np.ndarray


def _clusters_bad(a: ReleaseArrays, k: int, m: int, known_record: np.ndarray, width: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cluster, True when it may get a line or fails (L); with the distinct (cluster, term)
    keys of its record chunks and of its term chunk."""
    bad = ~(_lemma2(a, k, m) & _condition_l(a, k, m))
    node, term, chunk = _occurrences(a.chunk_off, a.sub_off, a.term_off, a.sub_terms, 0)
    rkeys, first, last, _ = _groups(node, term, chunk, width)
    bad[rkeys[first != last] // width] = True  # a term in two record chunks of a cluster
    tc_node = np.repeat(np.arange(a.n_clusters, dtype=np.int64), np.diff(a.term_chunk_off))
    tkeys, _, _, count = _groups(tc_node, a.term_chunk_terms.astype(np.int64), np.zeros_like(tc_node), width)
    bad[tkeys[count > 1] // width] = True  # the term chunk repeats a term
    bad[tkeys[np.isin(tkeys, rkeys)] // width] = True  # a term in a record chunk and in the term chunk
    bad[np.repeat(np.arange(a.n_clusters, dtype=np.int64), np.diff(a.chunk_off))[~known_record]] = True
    return bad, rkeys, tkeys


def _joints_bad(a: ReleaseArrays, known_km: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, _Shared]:
    """Per joint cluster, True when its shared chunks overlap or one is not k^m-anonymous; with the
    distinct (node, term) keys of the shared chunks and the shared chunks' layout."""
    n_joints = len(a.joint_ids)
    joint = np.repeat(np.arange(n_joints, dtype=np.int64), np.diff(a.shared_chunk_off))
    node, term, chunk = _occurrences(a.shared_chunk_off, a.shared_sub_off, a.shared_term_off, a.shared_terms,
                                     a.n_clusters)
    skeys, first, last, _ = _groups(node, term, chunk, width)
    bad = np.zeros(n_joints, dtype=bool)
    bad[skeys[first != last] // width - a.n_clusters] = True
    bad[joint[~known_km]] = True
    return bad, skeys, _Shared(joint, skeys // width, skeys % width, first)


@dataclass
class _Blocked:
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


def _unique_sorted(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``keys`` (sorted) and the position of each key's value among them (a sort,
    not numpy's hash-based ``unique``)."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1])) if keys.size else np.zeros(0, dtype=bool)
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def _blocked(tree: _Tree, shared: _Shared, keys: np.ndarray, nodes: np.ndarray, n: int, width: int) -> _Blocked:
    """Which terms of each shared chunk are blocked at which leaves (occurrences ``keys``, term * n +
    preorder number, sorted, at ``nodes``): a term of joint cluster J is blocked at the leaves below
    each node strictly below J that lists it."""
    hits = _below(keys, tree, shared.pair_node, shared.pair_term, n)
    query = np.flatnonzero(hits)
    lo = np.searchsorted(keys, shared.pair_term[query] * n + tree.pre[shared.pair_node[query]], side="right")
    at = nodes[_ranges(lo, hits[query])]
    span = tree.end[at] - tree.pre[at]
    leaf = tree.leaf_at[_ranges(tree.pre[at], span)]
    pair = np.repeat(np.repeat(query, hits[query]), span)[leaf >= 0]
    leaf = leaf[leaf >= 0]
    chunk, term = shared.pair_chunk[pair], shared.pair_term[pair]
    order = np.lexsort((term, leaf, chunk))
    chunk, leaf, term = chunk[order], leaf[order], term[order]
    new = np.concatenate(([True], (chunk[1:] != chunk[:-1]) | (leaf[1:] != leaf[:-1]) | (term[1:] != term[:-1])))
    chunk, leaf, term = chunk[new], leaf[new], term[new]
    first = np.flatnonzero(np.concatenate(([True], (chunk[1:] != chunk[:-1]) | (leaf[1:] != leaf[:-1]))))
    count = np.diff(np.append(first, chunk.size))
    sig, sig_first = _signatures(chunk, term, first, count, width)
    sig_of_term = np.repeat(np.arange(sig_first.size, dtype=np.int64), count[sig_first])
    return _Blocked(chunk[first], leaf[first], sig, chunk[first[sig_first]], sig_of_term,
                    term[_ranges(first[sig_first], count[sig_first])])


def _signatures(chunk: np.ndarray, term: np.ndarray, first: np.ndarray, count: np.ndarray, width: int
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
    rows = _ranges(first, count)
    if np.array_equal(term[rows], term[_ranges(first[sig_first[sig]], count)]):
        return sig, sig_first
    index: dict[tuple[int, ...], int] = {}
    terms = term.tolist()
    for g, (c, x, n) in enumerate(zip(chunk[first].tolist(), first.tolist(), count.tolist(), strict=True)):
        sig[g] = index.setdefault((c, *terms[x:x + n]), len(index))
    return sig, np.unique(sig, return_index=True)[1]


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated ranges ``starts[i]:starts[i] + lengths[i]``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if not lengths.size:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return shift + np.arange(int(lengths.sum()), dtype=np.int64)


def _removed(a: ReleaseArrays, blocked: _Blocked) -> tuple[np.ndarray, np.ndarray]:
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
    pairs = np.sort(np.repeat(blocked.sig_of_term, hi - lo) * max(n_subs, 1) + sub[_ranges(lo, hi - lo)])
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] if pairs.size else pairs
    return pairs // max(n_subs, 1), pairs % max(n_subs, 1)


def _restricted_km(a: ReleaseArrays, blocked: _Blocked, removed: tuple[np.ndarray, np.ndarray], k: int,
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
        first = np.flatnonzero(np.concatenate(([True], (keys[1:] != keys[:-1]) | (owner[1:] != owner[:-1]))))
        gone = np.diff(np.append(first, keys.size))
        left = table[1][np.searchsorted(table[0], keys[first])] - gone
        ok[owner[first][(left > 0) & (left < k)]] = False
    return ok


def _fits(groups: list[tuple[frozenset[int], int]], reach: list[int], sizes: np.ndarray, k: int) -> bool:
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


def _shared_bad(a: ReleaseArrays, tree: _Tree, blocked: _Blocked, shared_joint: np.ndarray, bad: np.ndarray, k: int,
                m: int) -> None:
    """Mark the joint clusters whose shared chunks with blocked terms fail the sufficient condition
    for (S) (module docstring). When a chunk's sub-records do not fit the leaves where nothing is
    blocked, a placement of them all that keeps k records of every leaf free does as well: k
    sub-records of A can then be moved onto P's free records (:func:`_fits`)."""
    removed = _removed(a, blocked)
    km = _restricted_km(a, blocked, removed, k, m)
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
        if not _fits(groups, below[below >= 0].tolist(), a.cluster_size, k):
            bad[joint_node] = True


def _chunk_subs(a: ReleaseArrays, chunk: int) -> list[tuple[int, ...]]:
    """The sub-records of shared chunk ``chunk`` as tuples of term ids."""
    lo, hi = int(a.shared_sub_off[chunk]), int(a.shared_sub_off[chunk + 1])
    bounds = a.shared_term_off[lo:hi + 1].tolist()
    ids = a.shared_terms[bounds[0]:bounds[-1]].tolist()
    return [tuple(ids[x - bounds[0]:y - bounds[0]]) for x, y in zip(bounds[:-1], bounds[1:], strict=True)]


def _spreads_bound(a: ReleaseArrays, tree: _Tree, chunks: list[int], joint_of: np.ndarray, limit: int) -> bool:
    """True when the spreads of these shared chunks (one component's) number at most ``limit``:
    the product of C(n + L - 1, L - 1) over each chunk's distinct sub-records (n copies, L leaves)."""
    bound = 1
    for chunk in chunks:
        node = a.n_clusters + int(joint_of[chunk])
        leaves = int((tree.leaf_at[tree.pre[node]:tree.end[node]] >= 0).sum())
        for n in Counter(_chunk_subs(a, chunk)).values():
            bound *= math.comb(n + leaves - 1, leaves - 1)
            if bound > limit:
                return False
    return True


def settle(a: ReleaseArrays, k: int, m: int, known: tuple[np.ndarray, np.ndarray, np.ndarray], exact: bool,
           max_records: int, max_spreads: int) -> Settled | None:
    """The components of ``a`` settled as the module docstring says, and the nodes left to the object
    model. ``known``: per record chunk k^m-anonymous, per shared chunk k^m-anonymous and k-anonymous
    (:mod:`anonymizer.evaluation.verify_arrays`). None when the strict parser would refuse the release
    (a child listed twice, a shared chunk with more sub-records than its leaves have records): the
    verifier then reads it the ordinary way."""
    tree = _tree(a)
    if tree is None:
        return None
    n_clusters = a.n_clusters
    n = n_clusters + len(a.joint_ids)
    width = max(len(a.terms), 1)
    shared_joint = n_clusters + np.repeat(np.arange(len(a.joint_ids), dtype=np.int64), np.diff(a.shared_chunk_off))
    if (np.diff(a.shared_sub_off) > tree.room[tree.end[shared_joint]] - tree.room[tree.pre[shared_joint]]).any():
        return None
    bad = np.zeros(n, dtype=bool)
    bad[:n_clusters], rkeys, tkeys = _clusters_bad(a, k, m, known[0], width)
    bad[n_clusters:], skeys, shared = _joints_bad(a, known[1], width)
    # Property 1: a shared chunk with a term of T^r (record and shared chunks strictly below) is k-anonymous.
    listed = np.concatenate((rkeys, skeys))
    node, term = listed // width, listed % width
    t_r = np.sort(term * n + tree.pre[node])
    in_t_r = _below(t_r, tree, shared.pair_node, shared.pair_term, n) > 0
    over = np.zeros(len(a.shared_sub_off) - 1, dtype=bool)
    over[shared.pair_chunk[in_t_r]] = True
    bad[shared_joint[over & ~known[2]]] = True
    # Blocked terms (listed strictly below, term chunks included): the sufficient condition for (S).
    listed = np.concatenate((listed, tkeys))
    node, term = listed // width, listed % width
    key = term * n + tree.pre[node]
    order = np.argsort(key, kind="stable")
    _shared_bad(a, tree, _blocked(tree, shared, key[order], node[order], n, width), shared_joint, bad, k, m)
    unsettled = np.zeros(n, dtype=bool)
    unsettled[tree.root[bad]] = True
    records = np.bincount(tree.root[:n_clusters], weights=a.cluster_size, minlength=n)
    roots = np.flatnonzero(tree.root == np.arange(n))
    small = roots[exact | (records[roots] <= max_records)]
    by_root: dict[int, list[int]] = {}
    for chunk, top in zip(range(len(shared_joint)), tree.root[shared_joint].tolist(), strict=True):
        if not unsettled[top]:
            by_root.setdefault(top, []).append(chunk)
    joint_of = shared_joint - n_clusters
    for top in small.tolist():
        if top in by_root and not _spreads_bound(a, tree, by_root[top], joint_of, max_spreads):
            unsettled[top] = True
    settled_small = int((~unsettled[small]).sum())
    return Settled(settled_small, int((~unsettled[roots]).sum()) - settled_small,
                   np.flatnonzero(unsettled[tree.root[:n_clusters]]).tolist(),
                   np.flatnonzero(unsettled[tree.root[n_clusters:]]).tolist())


def plain_subset(a: ReleaseArrays, params: dict[str, Any], format_name: str, clusters: list[int],
                 joints: list[int]) -> dict[str, Any]:
    """The ``disassociated/1`` object of these clusters and joint clusters of ``a`` (whole components,
    in release order), sub-records as tuples of the vocabulary's strings, as the verifier parses a
    release read into arrays."""
    terms = a.terms
    names = a.node_ids()

    def chunks(chunk_off: np.ndarray, sub_off: np.ndarray, term_off: np.ndarray, ids: np.ndarray,
               node: int) -> list[list[tuple[str, ...]]]:
        out = []
        for ch in range(int(chunk_off[node]), int(chunk_off[node + 1])):
            bounds = term_off[sub_off[ch]:sub_off[ch + 1] + 1].tolist()
            words = [terms[t] for t in ids[bounds[0]:bounds[-1]].tolist()] if bounds else []
            out.append([tuple(words[x - bounds[0]:y - bounds[0]]) for x, y in zip(bounds[:-1], bounds[1:],
                                                                                   strict=True)])
        return out

    return {"format": format_name, "params": params,
            "clusters": [{"id": a.cluster_ids[c], "size": int(a.cluster_size[c]),
                          "record_chunks": chunks(a.chunk_off, a.sub_off, a.term_off, a.sub_terms, c),
                          "term_chunk": [terms[t] for t in
                                         a.term_chunk_terms[a.term_chunk_off[c]:a.term_chunk_off[c + 1]].tolist()]}
                         for c in clusters],
            "joint_clusters": [{"id": a.joint_ids[j],
                                "children": [names[x] for x in a.children[a.child_off[j]:a.child_off[j + 1]].tolist()],
                                "shared_chunks": chunks(a.shared_chunk_off, a.shared_sub_off, a.shared_term_off,
                                                        a.shared_terms, j)}
                               for j in joints]}
