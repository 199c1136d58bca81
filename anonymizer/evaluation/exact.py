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

The component model (:class:`Leaf`, :class:`SharedChunk`, :class:`Component`, :func:`build_components`)
is in :mod:`anonymizer.evaluation.exact_model`, the proven sufficient condition for larger components
(:func:`prove_component`) in :mod:`anonymizer.evaluation.exact_proof`; both are importable from here.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from anonymizer.evaluation.exact_model import Component, Leaf, SharedChunk, build_components
from anonymizer.evaluation.exact_proof import prove_component

__all__ = ["EXACT_MAX_RECORDS", "MAX_SPREADS", "Leaf", "SharedChunk", "Component", "ExactResult", "prove_component",
           "build_components", "check_component", "count_spreads"]

EXACT_MAX_RECORDS = 12
"""Components with at most this many records are checked exactly by default."""

MAX_SPREADS = 200_000
"""A component with more spreads of its shared sub-records than this is not searched."""


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


Deal = tuple[tuple[tuple[frozenset[str], ...], ...], ...]
"""One spread, as the pieces it deals: per leaf of the component, per shared chunk, its sub-records."""


def _deals(comp: Component) -> Iterator[Deal]:
    """Every spread of the shared sub-records, as what each leaf is dealt (:data:`Deal`).

    The shared chunks are taken in order and, within a chunk, its distinct sub-records (its
    ``kinds``, sorted by their sorted terms); each is split over the leaves it may go to in every
    way that leaves no leaf more sub-records of one chunk than it has records. A leaf's pieces of a
    chunk come out in the kinds' order, hence already sorted as :func:`_leaf_supports` keys them.
    """
    steps = [(c, sub, n, allowed) for c, chunk in enumerate(comp.shared) for sub, n, allowed in chunk.kinds()]
    rooms = [{p: comp.leaves[p].size for p in chunk.leaves} for chunk in comp.shared]
    dealt: list[list[list[frozenset[str]]]] = [[[] for _ in comp.shared] for _ in comp.leaves]
    shown = [tuple(() for _ in comp.shared) for _ in comp.leaves]  # each leaf's dealt pieces as tuples
    changed: set[int] = set()  # the leaves whose pieces changed since the last spread

    def deal(i: int) -> Iterator[Deal]:
        if i == len(steps):
            for p in changed:
                shown[p] = tuple(tuple(pieces) for pieces in dealt[p])
            changed.clear()
            yield tuple(shown)
            return
        c, sub, n, allowed = steps[i]
        room = rooms[c]
        for split in _compositions(n, [room[p] for p in allowed]):
            given = [(p, x) for p, x in zip(allowed, split, strict=True) if x]
            for p, x in given:
                room[p] -= x
                dealt[p][c].extend([sub] * x)
                changed.add(p)
            yield from deal(i + 1)
            for p, x in given:
                room[p] += x
                del dealt[p][c][-x:]
                changed.add(p)

    yield from deal(0)


def count_spreads(comp: Component, cap: int) -> int:
    """The number of spreads :func:`_deals` yields for ``comp``, counted without listing them; at
    most ``cap + 1`` (any larger count is returned as ``cap + 1``).

    The chunks are spread independently (each starts from its leaves' full room), so the count is
    the product over the shared chunks of each chunk's count; a chunk's count is summed over its
    kinds with the room left on its leaves as the state, each state counted once (memoized), so a
    component with millions of spreads is refused at once instead of after listing ``cap`` of them.
    """
    total = 1
    for chunk in comp.shared:
        options = chunk.kinds()
        memo: dict[tuple[int, tuple[int, ...]], int] = {}
        order = {p: i for i, p in enumerate(chunk.leaves)}

        def ways(i: int, room: tuple[int, ...], options=options, memo=memo, order=order) -> int:
            if i == len(options):
                return 1
            key = (i, room)
            if key not in memo:
                _sub, n, allowed = options[i]
                found = 0
                for split in _compositions(n, [room[order[p]] for p in allowed]):
                    left = list(room)
                    for p, x in zip(allowed, split, strict=True):
                        left[order[p]] -= x
                    found = min(found + ways(i + 1, tuple(left)), cap + 1)
                    if found > cap:
                        break
                memo[key] = found
            return memo[key]

        total = min(total * ways(0, tuple(comp.leaves[p].size for p in chunk.leaves)), cap + 1)
        if total == 0:
            return 0
    return total


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


def _fillable(leaf: Leaf, counts: Sequence[int]) -> bool:
    """Can every record of ``leaf`` be non-empty, with ``counts`` pieces per chunk (proof of Lemma 2)?"""
    if leaf.term_chunk:
        return leaf.size != 0
    return sum(counts) >= leaf.size


def _supports_of(leaf: Leaf, chunks: tuple[tuple[frozenset[str], ...], ...], counts: list[int],
                 only: frozenset[frozenset[str]]) -> dict[frozenset[str], int]:
    """t_max of each itemset of ``only`` that the leaf can hold (at least one record)."""
    terms = leaf.term_chunk
    home: dict[str, int] = {}
    for c, ch in enumerate(chunks):
        for sub in ch:
            for t in sub:
                home.setdefault(t, c)
    out: dict[frozenset[str], int] = {}
    for itemset in only:
        if not itemset <= terms | home.keys():
            continue
        parts: dict[int, set[str]] = {}
        for t in itemset - terms:
            parts.setdefault(home[t], set()).add(t)
        top = _t_max(leaf.size, bool(terms), counts, {c: sum(1 for sub in chunks[c] if part <= sub)
                                                        for c, part in parts.items()})
        if top > 0:
            out[itemset] = top
    return out


def _occurring(chunks: tuple[tuple[frozenset[str], ...], ...], m: int) -> list[Counter]:
    """Per chunk, every itemset of 1..m terms of its pieces with the number of pieces holding it."""
    occurring = []
    for ch in chunks:
        q: Counter = Counter()
        for sub in ch:
            items = sorted(sub)
            for r in range(1, min(m, len(items)) + 1):
                q.update(frozenset(x) for x in itertools.combinations(items, r))
        occurring.append(q)
    return occurring


def _cores(occurring: list[Counter], c: int, room: int) -> Iterator[tuple[frozenset[str], dict[int, int]]]:
    """Every "core" of at most ``room`` terms: one occurring part from each of some chunks c, c+1, ...,
    with the pieces of each touched chunk holding its part."""
    if c == len(occurring):
        yield frozenset(), {}
        return
    yield from _cores(occurring, c + 1, room)
    for part, n in occurring[c].items():
        if len(part) <= room:
            for rest, q in _cores(occurring, c + 1, room - len(part)):
                yield part | rest, {c: n, **q}


def _all_supports(leaf: Leaf, chunks: tuple[tuple[frozenset[str], ...], ...], counts: list[int], m: int,
                  below: int | None) -> dict[frozenset[str], int]:
    """t_max of every itemset the leaf can hold, kept only when below ``below`` if given: a core
    plus any term-chunk terms, which every record can take (the core's t_max is unchanged by them)."""
    s, terms = leaf.size, leaf.term_chunk
    pool = sorted(terms)
    out: dict[frozenset[str], int] = {}
    for core, q in _cores(_occurring(chunks, m), 0, m):
        top = _t_max(s, bool(terms), counts, q) if core else s if terms else 0
        if top <= 0 or (below is not None and top >= below):
            continue
        if core:
            out[core] = top
        for r in range(1, m - len(core) + 1):
            for extra in itertools.combinations(pool, r):
                out[core | frozenset(extra)] = top
    return out


def _leaf_supports(leaf: Leaf, chunks: tuple[tuple[frozenset[str], ...], ...], m: int,
                   only: frozenset[frozenset[str]] | None, below: int | None) -> dict[frozenset[str], int] | None:
    """t_max of every itemset for one leaf holding ``chunks`` (record chunks, then its shared
    pieces chunk by chunk): of ``only`` if given, else of every itemset the leaf can hold, kept
    only when below ``below`` if given. None when the leaf cannot have all its records non-empty."""
    counts = [len(ch) for ch in chunks]
    if not _fillable(leaf, counts):
        return None
    if only is not None:
        return _supports_of(leaf, chunks, counts, only)
    return _all_supports(leaf, chunks, counts, m, below)


def check_component(comp: Component, m: int, max_spreads: int = MAX_SPREADS,
                    only: Iterable[frozenset[str]] | None = None, below: int | None = None) -> ExactResult | None:
    """Largest support of every itemset of 1..m terms (of ``only`` if given) over the valid
    reconstructions of ``comp``, or None when it has more than ``max_spreads`` spreads (see the
    module docstring). With ``below=k``, a one-leaf component lists only the itemsets whose
    largest support is below k (its only spread decides them; a shortcut for the verifier)."""
    if count_spreads(comp, max_spreads) > max_spreads:
        return None  # the same answer the listing below gives after max_spreads spreads, without listing them
    wanted = None if only is None else frozenset(only)
    leaf_below = below if len(comp.leaves) == 1 else None
    # A leaf's supports depend only on the pieces it is dealt, so each (leaf, pieces) is solved once and
    # kept as arrays over an index of the itemsets met so far; a spread's supports are then the sum of
    # its leaves' arrays, and the largest support of each itemset a running maximum over the valid spreads.
    index: dict[frozenset[str], int] = {}
    cache: dict[tuple, tuple[np.ndarray, np.ndarray] | None] = {}
    best = np.zeros(0, dtype=np.int64)
    feasible = False
    n = 0
    for spread in _deals(comp):
        n += 1
        if n > max_spreads:
            return None
        parts = []
        for p, leaf in enumerate(comp.leaves):
            key = (p, spread[p])
            if key not in cache:
                supports = _leaf_supports(leaf, leaf.record_chunks + tuple(ch for ch in key[1] if ch), m, wanted,
                                          leaf_below)
                cache[key] = None if supports is None else (
                    np.fromiter((index.setdefault(itemset, len(index)) for itemset in supports), np.int64,
                                len(supports)),
                    np.fromiter(supports.values(), np.int64, len(supports)))
            got = cache[key]
            if got is None:
                break
            parts.append(got)
        else:
            feasible = True
            total = np.zeros(len(index), dtype=np.int64)
            for where, supports in parts:
                total[where] += supports  # a leaf lists each itemset once
            if len(best) < len(index):
                best = np.concatenate([best, np.zeros(len(index) - len(best), dtype=np.int64)])
            np.maximum(best, total, out=best)
    if not feasible:
        return ExactResult(False, {}, n)
    return ExactResult(True, {itemset: int(best[i]) for itemset, i in index.items() if best[i] > 0}, n)
