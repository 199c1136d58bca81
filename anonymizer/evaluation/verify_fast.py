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
  condition (:mod:`anonymizer.evaluation.verify_blocked`): for each shared chunk S of a joint cluster
  J, with B the leaves below J where some term of S is *blocked* (listed by the leaf's chunks or by a
  shared chunk of a joint cluster between J and the leaf, the rule of
  :mod:`anonymizer.evaluation.exact_model`), (i) for each leaf P of B the sub-records of S that may go
  to P (none of whose terms is blocked at P) are k^m-anonymous, and (ii) the sub-records of S fit the
  records of the leaves outside B (their sizes add up to at least |S|), or there is a placement of
  them all on leaves they may go to that keeps k records of every leaf below J free (found by
  counting, by Hall's condition over the groups of sub-records banned from the same leaves, or
  greedily: any placement found is a witness). *Why this gives (S)*: let X be an itemset of a
  sub-record that may go to P, and A the sub-records of S holding X that may go to P. |A| >= k (S is
  k^m-anonymous when P is not in B; (i) when it is). In the first case of (ii), put k sub-records of
  A on P (P has at least k records by (L)) and the other |S| - k anywhere outside B: they may go
  there, and there is room. In the second, take the placement and move k sub-records of A (fewer if
  some are on P already) onto k free records of P: they may go there, and every sub-record stays on
  a leaf it may go to. That is the placement (S) asks for, and with X ranging over every such itemset
  it is also the placement of every sub-record that (S) needs first;
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

from anonymizer.evaluation.verify_blocked import Shared, blocked_terms, shared_bad
from anonymizer.evaluation.verify_tree import Tree, below, distinct_pairs, forest, occurrences
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


def _clusters_bad(a: ReleaseArrays, k: int, m: int, known_record: np.ndarray, width: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cluster, True when it may get a line or fails (L); with the distinct (cluster, term)
    keys of its record chunks and of its term chunk."""
    bad = ~(_lemma2(a, k, m) & _condition_l(a, k, m))
    node, term, chunk = occurrences(a.chunk_off, a.sub_off, a.term_off, a.sub_terms, 0)
    rkeys, first, last, _ = distinct_pairs(node, term, chunk, width)
    bad[rkeys[first != last] // width] = True  # a term in two record chunks of a cluster
    tc_node = np.repeat(np.arange(a.n_clusters, dtype=np.int64), np.diff(a.term_chunk_off))
    tkeys, _, _, count = distinct_pairs(tc_node, a.term_chunk_terms.astype(np.int64), np.zeros_like(tc_node), width)
    bad[tkeys[count > 1] // width] = True  # the term chunk repeats a term
    bad[tkeys[np.isin(tkeys, rkeys)] // width] = True  # a term in a record chunk and in the term chunk
    bad[np.repeat(np.arange(a.n_clusters, dtype=np.int64), np.diff(a.chunk_off))[~known_record]] = True
    return bad, rkeys, tkeys


def _joints_bad(a: ReleaseArrays, known_km: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, Shared]:
    """Per joint cluster, True when its shared chunks overlap or one is not k^m-anonymous; with the
    distinct (node, term) keys of the shared chunks and the shared chunks' layout."""
    n_joints = len(a.joint_ids)
    joint = np.repeat(np.arange(n_joints, dtype=np.int64), np.diff(a.shared_chunk_off))
    node, term, chunk = occurrences(a.shared_chunk_off, a.shared_sub_off, a.shared_term_off, a.shared_terms,
                                     a.n_clusters)
    skeys, first, last, _ = distinct_pairs(node, term, chunk, width)
    bad = np.zeros(n_joints, dtype=bool)
    bad[skeys[first != last] // width - a.n_clusters] = True
    bad[joint[~known_km]] = True
    return bad, skeys, Shared(joint, skeys // width, skeys % width, first)


def _chunk_subs(a: ReleaseArrays, chunk: int) -> list[tuple[int, ...]]:
    """The sub-records of shared chunk ``chunk`` as tuples of term ids."""
    lo, hi = int(a.shared_sub_off[chunk]), int(a.shared_sub_off[chunk + 1])
    bounds = a.shared_term_off[lo:hi + 1].tolist()
    ids = a.shared_terms[bounds[0]:bounds[-1]].tolist()
    return [tuple(ids[x - bounds[0]:y - bounds[0]]) for x, y in zip(bounds[:-1], bounds[1:], strict=True)]


def _spreads_bound(a: ReleaseArrays, tree: Tree, chunks: list[int], joint_of: np.ndarray, limit: int) -> bool:
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
    tree = forest(a)
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
    in_t_r = below(t_r, tree, shared.pair_node, shared.pair_term, n) > 0
    over = np.zeros(len(a.shared_sub_off) - 1, dtype=bool)
    over[shared.pair_chunk[in_t_r]] = True
    bad[shared_joint[over & ~known[2]]] = True
    # Blocked terms (listed strictly below, term chunks included): the sufficient condition for (S).
    listed = np.concatenate((listed, tkeys))
    node, term = listed // width, listed % width
    key = term * n + tree.pre[node]
    order = np.argsort(key, kind="stable")
    shared_bad(a, tree, blocked_terms(tree, shared, key[order], node[order], n, width), shared_joint, bad, k, m)
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
