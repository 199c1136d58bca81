"""Exact check of Guarantee 1 on a small component of a release (Terrovitis2012 section 2).

Guarantee 1: every itemset of at most m terms that a valid reconstruction can hold is held by at
least k records in some valid reconstruction. Terrovitis2012 proves it from sufficient conditions
(section 5, Lemmas 1-3); this module checks it directly, by search, on one *component*: a
top-level joint cluster with all its leaves, or a cluster in no joint cluster (components share
no record and no piece, so they are independent).

**The valid reconstructions** (the same model as ``anonymizer.evaluation.reconstruct``; written separately
so that the verifier shares no code with the sampler it checks):

* a record chunk of a leaf with s records lists n <= s sub-records, matched one to one with the
  records (the other s - n records get an empty sub-record);
* each term-chunk term is held by at least one record of its leaf, and by any number of them
  (section 5, proof of Lemma 1);
* each sub-record of a shared chunk of a joint cluster J goes to a different record of J's
  leaves, never to a leaf whose record chunks or term chunk list one of its terms, nor to a leaf
  of a joint cluster below J whose shared chunks list one (section 3 builds shared chunks by
  projecting the records on terms that left those chunks);
* every record is non-empty (proof of Lemma 2).

**The search.** Records of one leaf are interchangeable, so a reconstruction is decided, up to
renaming records, by (1) which leaf each shared sub-record goes to and (2) how each leaf arranges
its pieces. Only (1) is enumerated: every spread of every shared chunk's sub-records over the
leaves they may go to, with at most s_P sub-records of one chunk on leaf P. Part (2) is solved
in closed form per leaf. Given the pieces of a leaf P (record-chunk and shared sub-records; n_c
pieces from chunk c) and an itemset S, let S_P be S without P's term-chunk terms; each term of
S_P comes from one chunk c ("touched"), and a record holding S needs a piece of every touched
chunk containing S_P's part of that chunk (q_c such pieces). t records of P can hold S in some
arrangement exactly when t <= q_c for every touched chunk and, if P's term chunk is empty, the
other s - t records can all be given a piece:

    sum over touched c of (n_c - t)  +  sum over untouched c of min(n_c, s - t)  >=  s - t

(each chunk gives at most one piece per record; the pieces left for the s - t other records can
be dealt round robin, so they cover them exactly when they are enough). With a term chunk every
record can take a term-chunk term, so only t <= q_c and t <= s remain. The left side falls at
least as fast as the right side as t grows, so the feasible t form an interval [0, t_max], and a
spread is valid when t = 0 is feasible on every leaf. The largest support of S over all valid
reconstructions is the largest sum of the leaves' t_max over the valid spreads.

Chosen bound (``EXACT_MAX_RECORDS`` = 12 records per component for the automatic check): the
spreads of a 12-record component number at most a few thousand in the releases the engine makes,
and the search is a fraction of a second; beyond ``MAX_SPREADS`` spreads the component is left to
the sufficient conditions and counted as such.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from anonymizer.model.conditions import is_km_anonymous

__all__ = ["EXACT_MAX_RECORDS", "MAX_SPREADS", "Leaf", "SharedChunk", "Component", "ExactResult", "prove_component",
           "build_components", "check_component"]

EXACT_MAX_RECORDS = 12
"""Components with at most this many records are checked exactly by default."""

MAX_SPREADS = 200_000
"""A component with more spreads of its shared sub-records than this is not searched."""


@dataclass(frozen=True)
class Leaf:
    """A simple cluster: its size, record chunks (bags of term sets) and term chunk."""

    id: str
    size: int
    record_chunks: tuple[tuple[frozenset[str], ...], ...]
    term_chunk: frozenset[str]


@dataclass(frozen=True)
class SharedChunk:
    """A shared chunk: where it is, its leaves (positions in the component) and sub-records."""

    where: str
    leaves: tuple[int, ...]
    subs: tuple[frozenset[str], ...]
    blocked: Mapping[str, frozenset[int]]
    """term -> leaf positions that cannot receive a sub-record holding the term."""


@dataclass(frozen=True)
class Component:
    """A top-level joint cluster with its leaves, or a lone cluster."""

    name: str
    leaves: tuple[Leaf, ...]
    shared: tuple[SharedChunk, ...] = ()
    members: frozenset[str] = frozenset()
    """Ids of its clusters and joint clusters."""
    root: str = ""
    """Id of its top-level cluster or joint cluster."""

    @property
    def n_records(self) -> int:
        return sum(leaf.size for leaf in self.leaves)


@dataclass
class ExactResult:
    """Outcome of :func:`check_component`."""

    feasible: bool
    max_support: dict[frozenset[str], int] = field(default_factory=dict)
    """Every itemset of 1..m terms some valid reconstruction holds, with its largest support."""
    spreads: int = 0

    def below(self, k: int) -> list[tuple[frozenset[str], int]]:
        """Itemsets whose largest support is between 1 and k - 1, smallest and rarest first."""
        bad = [(s, n) for s, n in self.max_support.items() if 0 < n < k]
        bad.sort(key=lambda x: (len(x[0]), x[1], sorted(x[0])))
        return bad


def build_components(clusters: Sequence[tuple[str, int, Sequence[Sequence[Sequence[str]]], Sequence[str]]],
                     joints: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Sequence[str]]]]]) -> list[Component]:
    """Components of a structurally sound release: clusters as (id, size, record chunks, term
    chunk), joint clusters as (id, children, shared chunks), children listed before parents."""
    leaves = {cid: Leaf(cid, size, tuple(tuple(frozenset(s) for s in ch) for ch in chunks), frozenset(terms))
              for cid, size, chunks, terms in clusters}
    below: dict[str, list[str]] = {}  # node -> its leaves
    inner: dict[str, list[str]] = {}  # joint -> joints strictly below it
    parent: set[str] = set()
    listed: dict[str, set[str]] = {}  # leaf -> terms listed by its chunks and by joints below so far
    for cid, leaf in leaves.items():
        listed[cid] = {t for ch in leaf.record_chunks for s in ch for t in s} | set(leaf.term_chunk)
    shared_of: dict[str, list[SharedChunk]] = {}
    for jid, children, chunks in joints:
        below[jid] = [x for ch in children for x in (below[ch] if ch in below else [ch])]
        inner[jid] = [x for ch in children if ch in below for x in [ch] + inner[ch]]
        parent.update(children)
        pos = {leaf: i for i, leaf in enumerate(below[jid])}
        made = []
        jterms = {t for ch in chunks for s in ch for t in s}
        listers: dict[str, set[int]] = {}  # term of this joint's chunks -> positions of the leaves listing it
        for leaf, i in pos.items():
            for t in jterms.intersection(listed[leaf]):
                listers.setdefault(t, set()).add(i)
        for j, chunk in enumerate(chunks):
            subs = tuple(frozenset(s) for s in chunk)
            terms = {t for s in subs for t in s}
            made.append(SharedChunk(f"joint cluster {jid} shared chunk {j}", (), subs,
                                    {t: frozenset(listers[t]) for t in terms if t in listers}))
        shared_of[jid] = made
        for leaf in below[jid]:
            listed[leaf].update(jterms)
    out = []
    for cid, _, _, _ in clusters:
        if cid not in parent:
            out.append(Component(f"cluster {cid}", (leaves[cid],), (), frozenset([cid]), cid))
    for jid, _, _ in joints:
        if jid in parent:
            continue
        names = below[jid]
        pos = {leaf: i for i, leaf in enumerate(names)}
        chunks = []
        for node in [jid] + inner[jid]:
            reach = tuple(pos[leaf] for leaf in below[node])
            for sc in shared_of[node]:
                # blocked positions were computed within the node's own leaves: translate them
                local = below[node]
                blocked = {t: frozenset(pos[local[i]] for i in b) for t, b in sc.blocked.items()}
                chunks.append(SharedChunk(sc.where, reach, sc.subs, blocked))
        out.append(Component(f"joint cluster {jid}", tuple(leaves[n] for n in names), tuple(chunks),
                             frozenset([jid, *inner[jid], *names]), jid))
    return out


def _spreads(comp: Component) -> Iterator[list[Counter]]:
    """Every spread of the shared sub-records: per chunk, a Counter of (leaf, sub-record) -> count."""
    plans = []
    for sc in comp.shared:
        kinds = Counter(sc.subs)
        options = []
        for sub, n in sorted(kinds.items(), key=lambda x: sorted(x[0])):
            banned = frozenset().union(*(sc.blocked.get(t, frozenset()) for t in sub))
            options.append((sub, n, [p for p in sc.leaves if p not in banned]))
        plans.append(options)

    def one_chunk(options, i: int, room: dict[int, int]) -> Iterator[Counter]:
        if i == len(options):
            yield Counter()
            return
        sub, n, allowed = options[i]
        for split in _compositions(n, [room[p] for p in allowed]):
            left = dict(room)
            for p, x in zip(allowed, split, strict=True):
                left[p] -= x
            for rest in one_chunk(options, i + 1, left):
                out = Counter(rest)
                for p, x in zip(allowed, split, strict=True):
                    if x:
                        out[(p, sub)] += x
                yield out

    def all_chunks(c: int) -> Iterator[list[Counter]]:
        if c == len(plans):
            yield []
            return
        room = {p: comp.leaves[p].size for p in comp.shared[c].leaves}
        for mine in one_chunk(plans[c], 0, room):
            for rest in all_chunks(c + 1):
                yield [mine] + rest

    yield from all_chunks(0)


def _compositions(n: int, caps: list[int]) -> Iterator[tuple[int, ...]]:
    """Every way to write n as an ordered sum of len(caps) parts, part i at most caps[i]."""
    if not caps:
        if n == 0:
            yield ()
        return
    rest_cap = sum(caps[1:])
    for x in range(min(n, caps[0]), max(0, n - rest_cap) - 1, -1):
        for tail in _compositions(n - x, caps[1:]):
            yield (x,) + tail


def _t_max(s: int, has_terms: bool, counts: list[int], q: dict[int, int]) -> int:
    """Largest t such that t records of a leaf hold an itemset (module docstring): ``q`` maps
    each touched chunk to its pieces containing the itemset's part of it."""
    top = min([s, *q.values()])
    if has_terms:
        return top
    while top > 0:
        rest = s - top
        if sum(n - top if c in q else min(n, rest) for c, n in enumerate(counts)) >= rest:
            break
        top -= 1
    return top


def _leaf_supports(leaf: Leaf, chunks: tuple[tuple[frozenset[str], ...], ...], m: int,
                   only: frozenset[frozenset[str]] | None, below: int | None) -> dict[frozenset[str], int] | None:
    """t_max of every itemset for one leaf holding ``chunks`` (record chunks, then its shared
    pieces chunk by chunk): of ``only`` if given, else of every itemset the leaf can hold, kept
    only when below ``below`` if given. None when the leaf cannot have all its records non-empty."""
    s = leaf.size
    terms = leaf.term_chunk
    counts = [len(ch) for ch in chunks]
    if terms:
        if s == 0:
            return None
    elif sum(counts) < s:
        return None
    out: dict[frozenset[str], int] = {}
    if only is not None:
        home: dict[str, int] = {}
        for c, ch in enumerate(chunks):
            for sub in ch:
                for t in sub:
                    home.setdefault(t, c)
        for itemset in only:
            if not itemset <= terms | home.keys():
                continue
            parts: dict[int, set[str]] = {}
            for t in itemset - terms:
                parts.setdefault(home[t], set()).add(t)
            top = _t_max(s, bool(terms), counts, {c: sum(1 for sub in chunks[c] if part <= sub)
                                                    for c, part in parts.items()})
            if top > 0:
                out[itemset] = top
        return out
    # The itemsets a leaf can hold: a "core" (one occurring part from each of some chunks) plus
    # any term-chunk terms, which every record can take (the core's t_max is unchanged by them).
    occurring = []
    for ch in chunks:
        q: Counter = Counter()
        for sub in ch:
            items = sorted(sub)
            for r in range(1, min(m, len(items)) + 1):
                q.update(frozenset(x) for x in itertools.combinations(items, r))
        occurring.append(q)

    def cores(c: int, room: int) -> Iterator[tuple[frozenset[str], dict[int, int]]]:
        if c == len(chunks):
            yield frozenset(), {}
            return
        yield from cores(c + 1, room)
        for part, n in occurring[c].items():
            if len(part) <= room:
                for rest, q in cores(c + 1, room - len(part)):
                    yield part | rest, {c: n, **q}

    pool = sorted(terms)
    for core, q in cores(0, m):
        top = _t_max(s, bool(terms), counts, q) if core else s if terms else 0
        if top <= 0 or (below is not None and top >= below):
            continue
        if core:
            out[core] = top
        for r in range(1, m - len(core) + 1):
            for extra in itertools.combinations(pool, r):
                out[core | frozenset(extra)] = top
    return out


def check_component(comp: Component, m: int, max_spreads: int = MAX_SPREADS,
                    only: Iterable[frozenset[str]] | None = None, below: int | None = None) -> ExactResult | None:
    """Largest support of every itemset of 1..m terms (of ``only`` if given) over the valid
    reconstructions of ``comp``, or None when it has more than ``max_spreads`` spreads (see the
    module docstring). With ``below=k``, a one-leaf component lists only the itemsets whose
    largest support is below k (its only spread decides them; a shortcut for the verifier)."""
    wanted = None if only is None else frozenset(only)
    leaf_below = below if len(comp.leaves) == 1 else None
    cache: dict[tuple, dict[frozenset[str], int] | None] = {}
    best: dict[frozenset[str], int] = {}
    feasible = False
    n = 0
    for spread in _spreads(comp):
        n += 1
        if n > max_spreads:
            return None
        total: Counter = Counter()
        valid = True
        for p, leaf in enumerate(comp.leaves):
            shared = tuple(
                tuple(sorted((sub for (q, sub), x in per_chunk.items() if q == p for _ in range(x)), key=sorted))
                for per_chunk in spread)
            key = (p, shared)
            if key not in cache:
                cache[key] = _leaf_supports(leaf, leaf.record_chunks + tuple(ch for ch in shared if ch), m, wanted,
                                            leaf_below)
            got = cache[key]
            if got is None:
                valid = False
                break
            total.update(got)
        if not valid:
            continue
        feasible = True
        for itemset, x in total.items():
            if x > best.get(itemset, 0):
                best[itemset] = x
    return ExactResult(feasible, best if feasible else {}, n)


# ---- a proven sufficient condition for large components -----------------------------------------

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


def prove_component(comp: Component, k: int, m: int) -> str | None:
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
    """
    for leaf in comp.leaves:
        s = leaf.size
        if s < k:
            return f"cluster {leaf.id}: {s} records, fewer than k={k}"
        counts = [len(ch) for ch in leaf.record_chunks]
        for j, ch in enumerate(leaf.record_chunks):
            if not is_km_anonymous(ch, k, m):
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


def _shared_chunk_provable(comp: Component, sc: SharedChunk, k: int, m: int) -> bool:
    """Condition (S) of :func:`prove_component` for one shared chunk. A placement spread over the
    leaves is found first; for a leaf P and the wanted sub-records A (those holding an itemset X
    that may go to P), when a of them can sit on P in it (sub-records that may go to the same
    leaves are interchangeable) and P has f free records with a + f >= k, moving k - a wanted
    sub-records from other leaves (|A| - a >= k - a of them) onto P's free records is the
    placement asked for; otherwise one max flow decides (:func:`_placeable`)."""
    sizes = {p: comp.leaves[p].size for p in sc.leaves}
    kinds_count = Counter(sc.subs)
    kinds: list[tuple[frozenset[str], int, tuple[int, ...]]] = []
    for sub, n in sorted(kinds_count.items(), key=lambda x: sorted(x[0])):
        banned = frozenset().union(*(sc.blocked.get(t, frozenset()) for t in sub))
        kinds.append((sub, n, tuple(p for p in sc.leaves if p not in banned)))
    by_allowed: dict[tuple[int, ...], list[int]] = {}
    for i, (_, _, allowed) in enumerate(kinds):
        by_allowed.setdefault(allowed, []).append(i)
    groups = list(by_allowed.items())
    group_of = {i: g for g, (_, idx) in enumerate(groups) for i in idx}
    placed = _placement([(sum(kinds[i][1] for i in idx), allowed) for allowed, idx in groups], sizes)
    if placed is None:
        return False
    load = Counter()
    for (_, p), n in placed.items():
        load[p] += n
    holders: dict[tuple[str, ...], set[int]] = {}
    for i, (sub, _, _) in enumerate(kinds):
        items = sorted(sub)
        for r in range(1, min(m, len(items)) + 1):
            for x in itertools.combinations(items, r):
                holders.setdefault(x, set()).add(i)
    here_of: dict[int, list[int]] = {p: [] for p in sc.leaves}
    for i, (_, _, allowed) in enumerate(kinds):
        for p in allowed:
            here_of[p].append(i)
    by_here: dict[frozenset[int], list[int]] = {}  # leaves grouped by the sub-records that may go there
    for p in sc.leaves:
        by_here.setdefault(frozenset(here_of[p]), []).append(p)
    for here, leaves in by_here.items():
        if not here:
            continue
        wanted_sets = {frozenset(idx & here) for idx in holders.values() if not idx.isdisjoint(here)}
        if any(sum(kinds[i][1] for i in wanted) < k for wanted in wanted_sets):
            return False
        for p in leaves:
            if sizes[p] < k:
                return False
            if sizes[p] - load[p] >= k:
                continue  # k free records: a + f >= k for every wanted set
            for wanted in wanted_sets:
                per_group: Counter = Counter()
                for i in wanted:
                    per_group[group_of[i]] += kinds[i][1]
                a = sum(min(placed[(g, p)], n) for g, n in per_group.items())
                if a + sizes[p] - load[p] >= k:
                    continue
                types = []
                for allowed, idx in groups:
                    for flag in (True, False):
                        n = sum(kinds[i][1] for i in idx if (i in wanted) == flag)
                        if n:
                            types.append((n, allowed, flag))
                if not _placeable(types, sizes, p, k):
                    return False
    return True
