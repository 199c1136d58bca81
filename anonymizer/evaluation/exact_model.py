"""The component model shared by the exact search (:mod:`anonymizer.evaluation.exact`) and the proven
sufficient condition (:mod:`anonymizer.evaluation.exact_proof`) of the verifier (Terrovitis2012 sections 2-5).

A *component* is a top-level joint cluster with all its leaves, or a cluster in no joint cluster;
components share no record and no piece, so Guarantee 1 can be decided on each one alone. Which
leaves a shared sub-record may go to follows the rules of the valid reconstructions listed in
:mod:`anonymizer.evaluation.exact` (never to a leaf whose chunks, or whose shared chunks below the
joint cluster, list one of its terms). Written for the verifier only: it shares no code with the
engine's parser or its sampler.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Leaf", "SharedChunk", "Component", "build_components"]


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

    def kinds(self) -> list[tuple[frozenset[str], int, tuple[int, ...]]]:
        """Its distinct sub-records (sorted by their sorted terms), each with its count and the
        leaves it may go to: those of its reach where none of its terms is blocked."""
        out = []
        for sub, n in sorted(Counter(self.subs).items(), key=lambda x: sorted(x[0])):
            banned = frozenset().union(*(self.blocked.get(t, frozenset()) for t in sub))
            out.append((sub, n, tuple(p for p in self.leaves if p not in banned)))
        return out


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
