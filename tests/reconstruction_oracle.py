"""An exhaustive oracle for the valid reconstructions of tiny disassociated releases.

Test code only, and deliberately independent of the engine: it reads a release as the plain JSON
object of the ``disassociated/1`` format (a ``dict`` from :func:`json.loads`) and imports nothing
from ``anonymizer``. The tests use it to prove Terrovitis2012's Guarantee 1 on tiny random inputs
and to check the reconstruction sampler.

The set I(D^A) of datasets a release stands for (Terrovitis2012 sections 2, 3 and 5), as modelled
here:

* A cluster P of size s holds s records. A record chunk of P lists n <= s sub-records; padded with
  s - n empty ones, they are matched one to one with P's records (section 3: every record of P is
  projected on the chunk's terms, empty projections are not listed).
* Each term of P's term chunk is held by at least one record of P and by any number of them
  (section 5, proof of Lemma 1: "the multiplicity and the correlations of these terms are not
  disclosed").
* A shared chunk of a joint cluster J: each listed sub-record goes to a different record among the
  records of J's leaves. Section 3 builds a shared chunk "by projecting the records of every P_j to
  C_Tj ∩ T_i", and a record chunk is the projection of *all* records of its cluster. So a shared
  sub-record X cannot go to a record of a leaf P when a term of X is listed in P's record chunks or
  term chunk, or in a shared chunk of a joint cluster below J that has P as a leaf: every
  occurrence of that term in P is already accounted for there. (This is what an attacker who knows
  the algorithm may assume; it also keeps records sets.)
* Every record is non-empty (proof of Lemma 2: "A valid reconstruction of cluster P_a is a possible
  initial cluster that has s non-empty records").

Term-chunk terms are never enumerated: a record of P holds an itemset S in some reconstruction
exactly when it holds S minus P's term-chunk terms from its chunks, because term-chunk terms can be
added to any record of P. A leaf with a non-empty term chunk can likewise fill any empty record.

Guarantee 1 (Terrovitis2012 section 2; Lemma 1's dichotomy) is checked in its strong form: for
every itemset S of 1..m terms, the largest number of records holding S over all valid
reconstructions is 0 or at least k.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

Piece = frozenset
"""A sub-record (a set of terms); the empty frozenset stands for an implied empty sub-record."""

NOTHING = None
"""Padding of a shared chunk: the record receives no sub-record of it."""


@dataclass
class Leaf:
    """A simple cluster as the oracle sees it."""

    id: str
    size: int
    record_chunks: list[list[Piece]]
    term_chunk: frozenset
    chunk_terms: frozenset  # terms listed in the record chunks


@dataclass
class Component:
    """A top-level joint cluster with its leaves, or a simple cluster in no joint cluster."""

    leaves: list[Leaf]
    shared: list[list[Piece]] = field(default_factory=list)
    """The shared chunks of every joint cluster of the component."""
    forbidden: list[dict[str, frozenset[int]]] = field(default_factory=list)
    """Per shared chunk: term -> positions of the leaves that cannot receive a sub-record holding it."""
    reach: list[frozenset[int]] = field(default_factory=list)
    """Per shared chunk: positions of the leaves of its joint cluster (the only records it can go to)."""


@dataclass
class OracleResult:
    """What the exhaustive search found for one release."""

    feasible: bool
    max_support: dict[frozenset, int]
    """Every itemset of 1..m terms that some valid reconstruction holds, with its largest support."""
    states: int
    """Distinct reconstructions examined (records within a cluster are interchangeable)."""


class TooLarge(RuntimeError):
    """The release is too large for exhaustive enumeration."""


def _pieces(raw: Sequence[Sequence[str]]) -> list[Piece]:
    out = []
    for sub in raw:
        terms = [str(t) for t in sub]
        if not terms or len(set(terms)) != len(terms):
            raise ValueError(f"malformed sub-record {sub!r}")
        out.append(frozenset(terms))
    return out


def components(release: Mapping) -> list[Component]:  # noqa: C901 (older code, at most 20)
    """Split a release (plain JSON object) into independent components."""
    leaves: dict[str, Leaf] = {}
    for c in release["clusters"]:
        chunks = [_pieces(ch) for ch in c["record_chunks"]]
        size = int(c["size"])
        if any(len(ch) > size for ch in chunks):
            raise ValueError(f"cluster {c['id']}: a chunk lists more sub-records than the cluster has records")
        leaves[c["id"]] = Leaf(c["id"], size, chunks, frozenset(c["term_chunk"]),
                               frozenset(t for ch in chunks for p in ch for t in p))
    joints = {j["id"]: j for j in release.get("joint_clusters", [])}
    parent: dict[str, str] = {}
    for j in joints.values():
        for child in j["children"]:
            if child in parent:
                raise ValueError(f"{child} is a child of two joint clusters")
            parent[child] = j["id"]

    def leaves_of(node: str) -> list[str]:
        if node in leaves:
            return [node]
        return [leaf for child in joints[node]["children"] for leaf in leaves_of(child)]

    def joints_below(node: str) -> list[str]:
        if node in leaves:
            return []
        return [node] + [j for child in joints[node]["children"] for j in joints_below(child)]

    roots = [n for n in list(joints) + list(leaves) if n not in parent]
    out = []
    for root in roots:
        names = leaves_of(root)
        pos = {name: i for i, name in enumerate(names)}
        comp = Component([leaves[n] for n in names])
        for jid in joints_below(root):
            below = [j for child in joints[jid]["children"] for j in joints_below(child)]
            for raw in joints[jid]["shared_chunks"]:
                subs = _pieces(raw)
                forbidden: dict[str, frozenset[int]] = {}
                for t in {t for p in subs for t in p}:
                    blocked = {pos[n] for n in leaves_of(jid)
                               if t in leaves[n].chunk_terms or t in leaves[n].term_chunk}
                    for b in below:
                        if any(t in sub for ch in joints[b]["shared_chunks"] for sub in ch):
                            blocked.update(pos[n] for n in leaves_of(b))
                    forbidden[t] = frozenset(blocked)
                comp.shared.append(subs)
                comp.forbidden.append(forbidden)
                comp.reach.append(frozenset(pos[n] for n in leaves_of(jid)))
        out.append(comp)
    return out


# ---- enumeration of assignments up to interchangeable records --------------------------------

State = tuple  # sorted tuple of ((leaf position, sorted term tuple), count)


def _bounded_vectors(total: int, kinds: list, caps: Counter) -> Iterator[dict]:
    """Every way to take ``total`` items from ``kinds`` with at most ``caps[kind]`` of each."""
    if total == 0:
        yield {}
        return
    if not kinds:
        return
    first, rest = kinds[0], kinds[1:]
    room = sum(caps[x] for x in rest)
    for n in range(min(total, caps[first]), -1, -1):
        if total - n > room:
            break
        for tail in _bounded_vectors(total - n, rest, caps):
            out = dict(tail)
            if n:
                out[first] = n
            yield out


def _distribute(records: list[tuple[object, int]], pieces: Counter,
                fits: Callable[[object, object], bool]) -> Iterator[list[tuple[object, object, int]]]:
    """Every way to give each record exactly one piece (pieces counted with multiplicity)."""
    if not records:
        if sum(pieces.values()) == 0:
            yield []
        return
    (value, mult), rest = records[0], records[1:]
    kinds = sorted((p for p, c in pieces.items() if c > 0 and fits(value, p)), key=repr)
    for vec in _bounded_vectors(mult, kinds, pieces):
        left = pieces.copy()
        left.subtract(vec)
        for tail in _distribute(rest, left, fits):
            yield [(value, p, n) for p, n in vec.items()] + tail


def _merge(content: tuple, piece: Piece | None) -> tuple:
    if not piece:
        return content
    return tuple(sorted(set(content) | piece))


def _states(comp: Component, limit: int) -> set[State]:
    start: Counter = Counter({(i, ()): leaf.size for i, leaf in enumerate(comp.leaves)})
    states: set[State] = {tuple(sorted(start.items()))}
    steps: list[tuple[list[Piece], Callable, frozenset[int] | None]] = []
    for i, leaf in enumerate(comp.leaves):
        for chunk in leaf.record_chunks:
            steps.append((chunk, lambda rec, p: True, frozenset([i])))
    for subs, forbidden, reach in zip(comp.shared, comp.forbidden, comp.reach, strict=True):
        def fits(rec, p, forbidden=forbidden):
            if p is NOTHING:
                return True
            leaf_pos, content = rec
            return not (p & set(content)) and all(leaf_pos not in forbidden[t] for t in p)
        steps.append((subs, fits, reach))
    n_record_steps = sum(len(leaf.record_chunks) for leaf in comp.leaves)
    for step, (subs, fits, reach) in enumerate(steps):
        nxt: set[State] = set()
        for state in states:
            records = [(rec, n) for rec, n in state if rec[0] in reach]
            kept = [(rec, n) for rec, n in state if rec[0] not in reach]
            n_records = sum(n for _, n in records)
            padding = n_records - len(subs)
            if padding < 0:
                continue
            pieces = Counter(subs)
            pieces[frozenset() if step < n_record_steps else NOTHING] += padding
            for assignment in _distribute(records, pieces, fits):
                out: Counter = Counter(dict(kept))
                for (lp, content), piece, n in assignment:
                    out[(lp, _merge(content, piece))] += n
                nxt.add(tuple(sorted(out.items())))
                if len(nxt) > limit:
                    raise TooLarge(f"more than {limit} distinct reconstructions")
        states = nxt
    return states


def _valid(comp: Component, state: State) -> bool:
    return all(content or comp.leaves[lp].term_chunk for (lp, content), _ in state)


def _supports(comp: Component, state: State, m: int) -> Counter:
    """Largest support of every itemset of 1..m terms in this reconstruction (term chunks padded)."""
    out: Counter = Counter()
    for (lp, content), n in state:
        pool = sorted(set(content) | comp.leaves[lp].term_chunk)
        for size in range(1, min(m, len(pool)) + 1):
            for s in itertools.combinations(pool, size):
                out[frozenset(s)] += n
    return out


def analyse(release: Mapping, m: int | None = None, limit: int = 300_000) -> OracleResult:
    """Enumerate every valid reconstruction of ``release`` and the best support of each itemset."""
    m = int(release["params"]["m"]) if m is None else m
    total: Counter = Counter()
    n_states = 0
    feasible = True
    for comp in components(release):
        states = _states(comp, limit)
        n_states += len(states)
        best: Counter = Counter()
        any_valid = False
        for state in states:
            if not _valid(comp, state):
                continue
            any_valid = True
            for s, n in _supports(comp, state, m).items():
                if n > best[s]:
                    best[s] = n
        feasible = feasible and any_valid
        total.update(best)
    return OracleResult(feasible, dict(total) if feasible else {}, n_states)


def guarantee1_violations(release: Mapping, k: int | None = None, m: int | None = None,
                          limit: int = 300_000) -> tuple[bool, list[tuple[frozenset, int]]]:
    """(a valid reconstruction exists, itemsets whose best support is between 1 and k - 1)."""
    k = int(release["params"]["k"]) if k is None else k
    result = analyse(release, m, limit)
    bad = sorted(((s, n) for s, n in result.max_support.items() if 0 < n < k), key=lambda x: (len(x[0]), sorted(x[0])))
    return result.feasible, bad


# ---- concrete datasets -------------------------------------------------------------------------

def is_valid_reconstruction(release: Mapping, records: Sequence[Sequence[frozenset]]) -> bool:
    """Is ``records`` (per cluster of the release, in release order, a list of term sets) in I(D^A)?"""
    by_id = {c["id"]: i for i, c in enumerate(release["clusters"])}
    for comp in components(release):
        target: Counter = Counter()
        for lp, leaf in enumerate(comp.leaves):
            recs = [frozenset(r) for r in records[by_id[leaf.id]]]
            if len(recs) != leaf.size or any(not r for r in recs):
                return False
            if not leaf.term_chunk <= frozenset().union(*recs):
                return False
            for r in recs:
                target[(lp, tuple(sorted(r - leaf.term_chunk)))] += 1
        wanted = tuple(sorted(target.items()))
        if wanted not in _states(comp, 10**7):
            return False
    return True


def truth_records(release: Mapping, truth: Mapping) -> list[list[frozenset]]:
    """The records the truth file says stand behind ``release`` (ghost records of safe
    disassociation included, one per ghost sub-record), per cluster in release order."""
    holders: dict[int, set] = {}
    cluster_of: dict[int, int] = {}
    out: list[list[frozenset]] = []
    ghosts: list[list[set]] = []
    for ci, (c, t) in enumerate(zip(release["clusters"], truth["clusters"], strict=True)):
        ghosts.append([])
        for r in t["records"]:
            if r >= 0:
                holders[r] = set()
                cluster_of[r] = ci
        for chunk, ids in zip(c["record_chunks"], t["record_chunks"], strict=True):
            for sub, r in zip(chunk, ids, strict=True):
                if r < 0:
                    ghosts[ci].append(set(sub))
                else:
                    holders[r].update(sub)
        for term, rs in t["term_chunk"].items():
            for r in rs:
                holders[r].add(term)
    for j, jt in zip(release.get("joint_clusters", []), truth.get("joint_clusters", []), strict=True):
        for chunk, ids in zip(j["shared_chunks"], jt["shared_chunks"], strict=True):
            for sub, r in zip(chunk, ids, strict=True):
                holders[r].update(sub)
    for ci, t in enumerate(truth["clusters"]):
        recs = [frozenset(holders[r]) for r in t["records"] if r >= 0]
        n_ghost_records = sum(1 for r in t["records"] if r < 0)
        g = [frozenset(x) for x in ghosts[ci]]
        g += [frozenset()] * max(0, n_ghost_records - len(g))
        out.append(recs + g)
    return out


def release_dict(clusters: Sequence[tuple], joints: Sequence[tuple] = (), k: int = 3, m: int = 2) -> dict:
    """A release as plain JSON from (id, size, record chunks, term chunk) and (id, children, shared chunks)."""
    return {"format": "disassociated/1", "params": {"k": k, "m": m},
            "clusters": [{"id": cid, "size": size, "record_chunks": chunks, "term_chunk": terms}
                         for cid, size, chunks, terms in clusters],
            "joint_clusters": [{"id": jid, "children": ch, "shared_chunks": sc} for jid, ch, sc in joints]}
