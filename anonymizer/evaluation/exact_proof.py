"""A proven sufficient condition for Guarantee 1 on a component too large to search exactly
(Terrovitis2012 sections 4-5, Lemmas 1-3): :func:`prove_component`.

The verifier (:mod:`anonymizer.evaluation.verify`) uses it for the components that the exact search
(:mod:`anonymizer.evaluation.exact`) does not take; the condition and its proof sketch are in the
docstring of :func:`prove_component`, the closed form it rests on in :mod:`anonymizer.evaluation.exact`.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from anonymizer.evaluation.exact_model import Component, SharedChunk
from anonymizer.model.conditions import is_km_anonymous

__all__ = ["prove_component"]


def _max_flow(graph: dict, source: object, sink: object) -> int:
    """Largest flow from ``source`` to ``sink`` in ``graph`` (node -> {node: capacity}, changed in
    place into the residual graph): augmenting paths found breadth first (Edmonds-Karp)."""
    total = 0
    while True:
        prev = {source: None}
        queue = [source]
        for node in queue:
            if node == sink:
                break
            for nxt, cap in graph.get(node, {}).items():
                if cap > 0 and nxt not in prev:
                    prev[nxt] = node
                    queue.append(nxt)
        if sink not in prev:
            return total
        path = []
        node = sink
        while prev[node] is not None:
            path.append((prev[node], node))
            node = prev[node]
        push = min(graph[a][b] for a, b in path)
        for a, b in path:
            graph[a][b] -= push
            graph.setdefault(b, {})
            graph[b][a] = graph[b].get(a, 0) + push
        total += push


def _flow_network(types: Sequence[tuple[int, tuple[int, ...], bool]], sizes: Mapping[int, int],
                  home: int | None, k: int) -> tuple[dict, int]:
    """The placement network of a shared chunk: source -> type (its count) -> leaf it may go to
    -> sink (the leaf's size); ``home`` keeps k of its records for the ``wanted`` types."""
    need = sum(n for n, _, _ in types)  # also the capacity of type -> leaf edges: unbounded
    graph: dict = {"s": {}}
    for i, (n, allowed, wanted) in enumerate(types):
        graph["s"][("k", i)] = n
        edges = graph[("k", i)] = {}
        for p in allowed:
            edges[("l", p)] = need
            if p == home and wanted:
                edges[("w", p)] = need
    for p, s in sizes.items():
        graph[("l", p)] = {"t": s - k if p == home else s}
    if home is not None:
        graph[("w", home)] = {"t": k}
    return graph, need


def _placeable(types: Sequence[tuple[int, tuple[int, ...], bool]], sizes: Mapping[int, int], home: int,
               k: int) -> bool:
    """Can every sub-record of a shared chunk go to a different record of a leaf it may go to,
    with at least ``k`` sub-records of the ``wanted`` types on leaf ``home``? ``types``: per group
    of sub-records, their count, the leaves they may go to, and whether they are wanted.

    One max flow: ``home``'s records are split into k slots that take only wanted sub-records and
    s - k slots that take any sub-record allowed there. A matching that covers every sub-record
    exists iff the flow is the number of sub-records; one that covers the k reserved slots exists
    iff the wanted sub-records number at least k; by the Mendelsohn-Dulmage theorem one matching
    then covers both, which is the placement asked for."""
    if sizes[home] < k or sum(n for n, _, wanted in types if wanted) < k:
        return False
    graph, need = _flow_network(types, sizes, home, k)
    return _max_flow(graph, "s", "t") == need


def _placement(types: Sequence[tuple[int, tuple[int, ...]]], sizes: Mapping[int, int]) -> dict | None:
    """A placement of every sub-record of a shared chunk, (type, leaf) -> count, spread over the
    leaves: greedily (the most constrained types first, each sub-record to the allowed leaf with
    the most free records), else by max flow; None if there is none."""
    free = dict(sizes)
    out: Counter = Counter()
    for i in sorted(range(len(types)), key=lambda i: len(types[i][1])):
        n, allowed = types[i]
        heap = [(-free[q], q) for q in allowed if free[q]]
        heapq.heapify(heap)
        while n and heap:
            f, q = heapq.heappop(heap)
            free[q] -= 1
            out[(i, q)] += 1
            n -= 1
            if f < -1:
                heapq.heappush(heap, (f + 1, q))
        if n:
            break
    else:
        return out
    graph, need = _flow_network([(n, allowed, False) for n, allowed in types], sizes, None, 0)
    if _max_flow(graph, "s", "t") != need:
        return None
    return Counter({(i, p): graph[("l", p)].get(("k", i), 0) for i, (_, allowed) in enumerate(types) for p in allowed})


def prove_component(comp: Component, k: int, m: int, chunks_anonymous: bool = False) -> str | None:
    """None when ``comp`` passes a sufficient condition for Guarantee 1 (a valid reconstruction
    exists and every itemset of 1..m terms that some valid reconstruction holds is held by at
    least k records in some valid reconstruction); else the first condition that fails (the
    component is then *unproven*, not violated: the condition is not necessary).

    **The condition.** (L) every leaf P (size s, record chunks with n_1..n_v sub-records, term
    chunk T): s >= k; every record chunk is k^m-anonymous; and, if T is empty, sum n_c >= s and

        sum_c min(n_c, s - k) + (the h = min(m, v) smallest values of d_c) >= s - k,
        with d_c = (n_c - k) - min(n_c, s - k) <= 0.

    (S) every shared chunk S of a joint cluster (Terrovitis2012 section 4, REFINE: a shared chunk
    of a joint cluster J spreads over the records of J's leaves), every leaf P in S's reach, every
    itemset X of 1..m terms of a sub-record of S that may go to P (no term of it listed by P's
    chunks, nor by a shared chunk of a joint cluster below J over P: the rule of the module
    docstring), with A = the sub-records of S holding X that may go to P: there is a placement of
    every sub-record of S on distinct records of leaves it may go to with at least k sub-records
    of A on P (one max flow, :func:`_placeable`; with X ranging over all such itemsets this
    includes Property 1's k^m-anonymity as seen from P).

    **Proof sketch** (uses the closed form of the module docstring: with n_c pieces of chunk c on
    P, each at most s, t records of P can hold an itemset whose part in each touched chunk c sits
    in q_c >= t pieces iff T is non-empty or sum_touched (n_c - t) + sum_untouched min(n_c, s - t)
    >= s - t). *A valid reconstruction exists*: the shared chunks are placed independently (each
    chunk gives at most one sub-record per record, chunks of a joint cluster hold disjoint terms,
    Terrovitis2012 Property 1 and section 4), each by the placement of (S); then every leaf has
    every record non-empty by the closed form at t = 0, since T is non-empty or sum n_c >= s and
    shared pieces only add to the left side. *Guarantee 1*: let a valid reconstruction R0 give a
    record r of leaf P an itemset I of at most m terms. Split I by the piece of r that supplies
    each term: I_loc from P's record chunks and term chunk, I_S from r's sub-record of a shared
    chunk S (that sub-record holds I_S and may go to P). Build R: for each touched S, the
    placement of (S) for X = I_S puts k sub-records holding I_S on P; every other shared chunk is
    placed as above. Every leaf other than P stays non-empty as above. On P, the chunks touched by
    I are the record chunks touched by I_loc (q_c >= k by k^m-anonymity, at most h of them) and
    the touched shared chunks (q >= k pieces on P, n >= k); with T empty the left side at t = k
    is sum_c min(n_c, s - k) plus d_c for each touched record chunk (at least the h smallest d_c)
    plus, for each shared chunk, n - k >= 0 if touched or min(n, s - k) >= 0 if not, so it is at
    least s - k by (L). So k records of P hold I in R, a valid reconstruction. With no shared
    chunk (a lone cluster) the same argument is Terrovitis2012's Lemmas 1-2. The condition is
    checked against the exhaustive oracle of tests/reconstruction_oracle.py on random tiny
    releases (tests/test_verify_exact.py).

    ``chunks_anonymous``: the caller has checked every record chunk of ``comp`` k^m-anonymous already
    (the verifier has: it decides no component with a chunk violation this way), so that is skipped.
    """
    for leaf in comp.leaves:
        s = leaf.size
        if s < k:
            return f"cluster {leaf.id}: {s} records, fewer than k={k}"
        counts = [len(ch) for ch in leaf.record_chunks]
        for j, ch in enumerate(leaf.record_chunks):
            if not chunks_anonymous and not is_km_anonymous(ch, k, m):
                return f"cluster {leaf.id} record chunk {j} is not k^m-anonymous"
        if leaf.term_chunk:
            continue
        if sum(counts) < s:
            return f"cluster {leaf.id}: {sum(counts)} sub-records cannot fill its {s} records"
        base = sum(min(n, s - k) for n in counts)
        worst = sorted((n - k) - min(n, s - k) for n in counts)[:min(m, len(counts))]
        if base + sum(worst) < s - k:
            return f"cluster {leaf.id}: its chunks cannot fill the other records when k records hold an itemset"
    for sc in comp.shared:
        if not _shared_chunk_provable(comp, sc, k, m):
            return f"{sc.where}: cannot place k={k} of its sub-records holding some itemset on one leaf"
    return None


@dataclass
class _Spread:
    """One placement of a shared chunk's sub-records, grouped by the leaves they may go to."""

    kinds: list[tuple[frozenset[str], int, tuple[int, ...]]]
    groups: list[tuple[tuple[int, ...], list[int]]]
    """(leaves a group's kinds may go to, the kinds' positions)"""
    group_of: dict[int, int]
    placed: Counter
    """(group, leaf) -> sub-records of the group placed on the leaf"""
    sizes: dict[int, int]
    load: Counter
    """leaf -> sub-records placed on it"""


def _spread(comp: Component, sc: SharedChunk) -> _Spread | None:
    """A placement of every sub-record of ``sc`` spread over the leaves (:func:`_placement`), or None."""
    sizes = {p: comp.leaves[p].size for p in sc.leaves}
    kinds = sc.kinds()
    by_allowed: dict[tuple[int, ...], list[int]] = {}
    for i, (_, _, allowed) in enumerate(kinds):
        by_allowed.setdefault(allowed, []).append(i)
    groups = list(by_allowed.items())
    placed = _placement([(sum(kinds[i][1] for i in idx), allowed) for allowed, idx in groups], sizes)
    if placed is None:
        return None
    load: Counter = Counter()
    for (_, p), n in placed.items():
        load[p] += n
    group_of = {i: g for g, (_, idx) in enumerate(groups) for i in idx}
    return _Spread(kinds, groups, group_of, placed, sizes, load)


def _holders(kinds: Sequence[tuple[frozenset[str], int, tuple[int, ...]]], m: int) -> dict[tuple[str, ...], set[int]]:
    """Every itemset of 1..m terms of a kind -> the kinds holding it."""
    holders: dict[tuple[str, ...], set[int]] = {}
    for i, (sub, _, _) in enumerate(kinds):
        items = sorted(sub)
        for r in range(1, min(m, len(items)) + 1):
            for x in itertools.combinations(items, r):
                holders.setdefault(x, set()).add(i)
    return holders


def _leaves_by_reach(sc: SharedChunk, kinds: Sequence[tuple[frozenset[str], int, tuple[int, ...]]]
                     ) -> dict[frozenset[int], list[int]]:
    """The leaves of ``sc`` grouped by the kinds that may go there."""
    here_of: dict[int, list[int]] = {p: [] for p in sc.leaves}
    for i, (_, _, allowed) in enumerate(kinds):
        for p in allowed:
            here_of[p].append(i)
    by_here: dict[frozenset[int], list[int]] = {}
    for p in sc.leaves:
        by_here.setdefault(frozenset(here_of[p]), []).append(p)
    return by_here


def _types(sp: _Spread, wanted: frozenset[int]) -> list[tuple[int, tuple[int, ...], bool]]:
    """The groups of :func:`_placeable`: per group of leaves, its wanted and its other sub-records."""
    types = []
    for allowed, idx in sp.groups:
        for flag in (True, False):
            n = sum(sp.kinds[i][1] for i in idx if (i in wanted) == flag)
            if n:
                types.append((n, allowed, flag))
    return types


def _leaf_provable(sp: _Spread, p: int, wanted_sets: set[frozenset[int]], k: int) -> bool:
    """Condition (S) on leaf ``p`` for every wanted set of sub-records (:func:`_shared_chunk_provable`)."""
    if sp.sizes[p] < k:
        return False
    free = sp.sizes[p] - sp.load[p]
    if free >= k:
        return True  # k free records: a + f >= k for every wanted set
    for wanted in wanted_sets:
        per_group: Counter = Counter()
        for i in wanted:
            per_group[sp.group_of[i]] += sp.kinds[i][1]
        a = sum(min(sp.placed[(g, p)], n) for g, n in per_group.items())
        if a + free < k and not _placeable(_types(sp, wanted), sp.sizes, p, k):
            return False
    return True


def _shared_chunk_provable(comp: Component, sc: SharedChunk, k: int, m: int) -> bool:
    """Condition (S) of :func:`prove_component` for one shared chunk. A placement spread over the
    leaves is found first; for a leaf P and the wanted sub-records A (those holding an itemset X
    that may go to P), when a of them can sit on P in it (sub-records that may go to the same
    leaves are interchangeable) and P has f free records with a + f >= k, moving k - a wanted
    sub-records from other leaves (|A| - a >= k - a of them) onto P's free records is the
    placement asked for; otherwise one max flow decides (:func:`_placeable`)."""
    sp = _spread(comp, sc)
    if sp is None:
        return False
    holders = _holders(sp.kinds, m)
    for here, leaves in _leaves_by_reach(sc, sp.kinds).items():
        if not here:
            continue
        wanted_sets = {frozenset(idx & here) for idx in holders.values() if not idx.isdisjoint(here)}
        if any(sum(sp.kinds[i][1] for i in wanted) < k for wanted in wanted_sets):
            return False
        if not all(_leaf_provable(sp, p, wanted_sets, k) for p in leaves):
            return False
    return True
