"""Sampling one dataset from the inverse transformation of a release (Terrovitis2012 sections 3 and 5).

A disassociated release stands for the set I(D^A) of all datasets that could have produced it
(Terrovitis2012 section 2). :func:`reconstruct` draws one member of that set at random:

1. **Record chunks.** In every cluster of size s, the sub-records of each record chunk (padded
   with the implied empty ones to s) are matched to the s records by a uniform random
   permutation: each record receives exactly one (possibly empty) sub-record of every chunk.
2. **Shared chunks** (joint clusters, section 3 "Refining"), deepest joint cluster first: each
   sub-record goes to a distinct, uniformly random record among the leaves of the joint cluster,
   skipping records that already hold one of its terms (set semantics, the reasoning behind
   Property 1). A greedy pass with an augmenting-path repair finds such a placement whenever one
   exists; when none exists the release is inconsistent and :class:`InputError` is raised.
3. **No empty records** (Lemma 2's notion of a valid reconstruction): a record that received
   nothing is filled from the term chunk when the cluster has one (step 4); otherwise a piece is
   moved to it from a record of the same cluster holding two or more pieces (a record-chunk
   sub-record, whose slot the empty record takes, or a shared sub-record); failing that, a shared
   sub-record of an ancestor joint cluster is moved from a record with two or more pieces in
   another leaf. Choice: a record stays empty only if its cluster's term chunk is empty and no
   such move exists, i.e. the cluster holds fewer non-empty pieces than records and no other
   leaf can spare a shared sub-record.
4. **Term chunk.** The paper keeps the multiplicity of a term-chunk term secret (section 5,
   proof of Lemma 1) and bounds it below by one (section 6: "adding one to the support of each
   term that appears in a term chunk"). Choice: with ``term_rule="one"`` (the default) each term
   lands in exactly one record, the paper's lower bound; it is also what the data look like:
   VERPART sends terms of support below k to the term chunk, and on synthetic Quest data (25k
   records, k=5, m=2, clusters of 30) 96% of the term-chunk terms of the truth file sit in
   exactly one record. With ``term_rule="uniform"`` each term lands in c records, c drawn
   uniformly from 1..min(k-1, s). Records still empty after step 3 first receive one term each,
   terms taken round-robin in random order (a term then holds at least that many records); the
   other holders are uniformly random records of the cluster.

Records come out cluster by cluster, in the release's cluster order; the same seed always
gives the same dataset.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from anonymizer.release import Release
from corpora.dataset import TransactionDataset
from corpora.errors import InputError

__all__ = ["reconstruct", "reconstruct_many", "TERM_RULES"]

TERM_RULES = ("one", "uniform")


@dataclass
class _ClusterState:
    """Working state of one simple cluster during a reconstruction."""

    offset: int  # global id of the cluster's first record
    size: int
    term_chunk: list[int]  # term ids
    subs: list[list[tuple[int, ...]]]  # subs[j][i]: term ids of sub-record i of record chunk j
    place: list[np.ndarray] = field(default_factory=list)  # place[j][i]: record position of sub-record i
    holder: list[np.ndarray] = field(default_factory=list)  # holder[j][pos]: sub-record index or -1
    shared: dict[int, list[tuple[int, tuple[int, ...]]]] = field(default_factory=dict)  # pos -> [(joint, terms)]
    cache: dict[int, set[int]] = field(default_factory=dict)  # pos -> term ids (lazily built)
    present: set[int] = field(default_factory=set)  # every term id placed in the cluster so far

    def pieces(self) -> np.ndarray:
        count = np.zeros(self.size, dtype=np.int64)
        for h in self.holder:
            count += h >= 0
        for pos, items in self.shared.items():
            count[pos] += len(items)
        return count

    def terms(self, pos: int) -> set[int]:
        got = self.cache.get(pos)
        if got is None:
            got = set()
            for j, h in enumerate(self.holder):
                i = int(h[pos])
                if i >= 0:
                    got.update(self.subs[j][i])
            for _, terms in self.shared.get(pos, ()):
                got.update(terms)
            self.cache[pos] = got
        return got

    def add_shared(self, pos: int, joint: int, terms: tuple[int, ...]) -> None:
        self.shared.setdefault(pos, []).append((joint, terms))
        self.cache.pop(pos, None)
        self.present.update(terms)

    def pop_shared(self, pos: int, index: int) -> tuple[int, tuple[int, ...]]:
        item = self.shared[pos].pop(index)
        if not self.shared[pos]:
            del self.shared[pos]
        self.cache.pop(pos, None)
        return item


def _encode(chunk: Sequence[Sequence[str]], tid: dict[str, int]) -> list[tuple[int, ...]]:
    return [tuple(map(tid.__getitem__, sub)) for sub in chunk]


def _place_shared(
    subs: list[tuple[int, ...]],
    slots: np.ndarray,
    cluster_of: np.ndarray,
    states: list[_ClusterState],
    joint_index: int,
    rng: np.random.Generator,
    where: str,
    known: set[int],
) -> None:
    """Put each sub-record on a distinct record (global id in ``slots``) holding none of its terms.

    ``cluster_of`` maps a global record id to its cluster. ``known`` holds every term id already
    present in the candidate records: a sub-record without such a term fits any record, so only
    the others are checked record by record.
    """
    n = len(subs)
    free: list[int] = slots[rng.permutation(len(slots))].tolist()

    def fits(slot: int, terms: tuple[int, ...]) -> bool:
        st = states[int(cluster_of[slot])]
        have = st.terms(slot - st.offset)
        return not any(t in have for t in terms)

    chosen: list[int | None] = [None] * n
    for i in rng.permutation(n).tolist():
        terms = subs[i]
        if not any(t in known for t in terms):
            chosen[i] = free.pop()
            continue
        for idx in range(len(free) - 1, -1, -1):
            if fits(free[idx], terms):
                chosen[i] = free.pop(idx)
                break
        else:
            if not _augment(i, subs, chosen, free, fits):
                raise InputError(
                    f"{where}: sub-record {sorted(terms)} fits no record of the joint cluster's leaves "
                    "without repeating a term (the release is inconsistent)"
                )
    for i, slot in enumerate(chosen):
        assert slot is not None
        st = states[int(cluster_of[slot])]
        st.add_shared(slot - st.offset, joint_index, subs[i])


def _augment(start: int, subs: list[tuple[int, ...]], chosen: list, free: list, fits) -> bool:
    """Kuhn's augmenting path: seat sub-record ``start`` by re-seating others of the same chunk."""
    owner = {slot: i for i, slot in enumerate(chosen) if slot is not None}
    free_set = set(free)
    seen: set[int] = set()

    def dfs(i: int) -> bool:
        for slot in list(owner) + free:
            if slot in seen or not fits(slot, subs[i]):
                continue
            seen.add(slot)
            if slot in free_set:
                free.remove(slot)
                free_set.discard(slot)
                chosen[i] = slot
                owner[slot] = i
                return True
            other = owner[slot]
            if dfs(other):
                chosen[i] = slot
                owner[slot] = i
                return True
        return False

    return dfs(start)


def _fill_empty_within(st: _ClusterState, rng: np.random.Generator) -> None:
    """Move pieces from records with two or more pieces to empty records of the same cluster."""
    count = st.pieces()
    empties = np.flatnonzero(count == 0)
    if len(empties) == 0:
        return
    rng.shuffle(empties)
    for e in empties.tolist():
        donors = np.flatnonzero(count >= 2)
        if len(donors) == 0:
            return
        d = int(donors[rng.integers(len(donors))])
        options = [("c", j) for j, h in enumerate(st.holder) if h[d] >= 0]
        options += [("s", q) for q in range(len(st.shared.get(d, ())))]
        kind, which = options[int(rng.integers(len(options)))]
        if kind == "c":
            i = int(st.holder[which][d])
            st.holder[which][d] = -1
            st.holder[which][e] = i
            st.place[which][i] = e
            st.cache.pop(d, None)
            st.cache.pop(e, None)
        else:
            joint, terms = st.pop_shared(d, which)
            st.add_shared(e, joint, terms)
        count[d] -= 1
        count[e] += 1


def _fill_empty_across(
    c: int, states: list[_ClusterState], ancestors: list[int], leaves_of: dict[int, list[int]],
    rng: np.random.Generator,
) -> None:
    """Move a shared sub-record of an ancestor joint cluster from a record with >= 2 pieces elsewhere."""
    st = states[c]
    empties = np.flatnonzero(st.pieces() == 0).tolist()
    for e in empties:
        moved = False
        for joint in ancestors:
            candidates = []
            for leaf in leaves_of[joint]:
                if leaf == c:
                    continue
                other = states[leaf]
                count = other.pieces()
                for pos, items in other.shared.items():
                    if count[pos] >= 2:
                        candidates.extend((leaf, pos, q) for q, (j, _) in enumerate(items) if j == joint)
            if candidates:
                leaf, pos, q = candidates[int(rng.integers(len(candidates)))]
                joint_id, terms = states[leaf].pop_shared(pos, q)
                st.add_shared(e, joint_id, terms)
                moved = True
                break
        if not moved:
            return


def reconstruct(release: Release, seed: int = 0, term_rule: str = "one") -> TransactionDataset:
    """One random dataset of the inverse transformation I(release) (Terrovitis2012 sections 3, 5).

    See the module docstring for the steps and the documented choices (term-chunk multiplicity
    ``term_rule`` in ``"one"`` / ``"uniform"``, filling of empty records). The result has
    ``release.n_records`` records, cluster by cluster; no record repeats a term.
    """
    if term_rule not in TERM_RULES:
        raise InputError(f"term_rule must be one of {', '.join(TERM_RULES)}, got {term_rule!r}")
    rng = np.random.default_rng(seed)
    k = release.k
    terms_seen: set[str] = set()
    for c in release.clusters:
        terms_seen.update(c.term_chunk)
        for ch in c.record_chunks:
            terms_seen.update(itertools.chain.from_iterable(ch))
    for j in release.joint_clusters:
        for ch in j.shared_chunks:
            terms_seen.update(itertools.chain.from_iterable(ch))
    vocab = sorted(terms_seen)
    tid = {t: i for i, t in enumerate(vocab)}
    index = {c.id: i for i, c in enumerate(release.clusters)}
    joint_index = {j.id: i for i, j in enumerate(release.joint_clusters)}

    states: list[_ClusterState] = []
    offset = 0
    quiet = not sys.stderr.isatty()
    for cluster in tqdm(release.clusters, desc="record chunks", unit="cluster", disable=quiet, leave=False):
        s = cluster.size
        if s <= 0 and (cluster.record_chunks and any(cluster.record_chunks) or cluster.term_chunk):
            raise InputError(f"cluster {cluster.id}: size {s} cannot hold its chunks")
        st = _ClusterState(offset, s, sorted({tid[t] for t in cluster.term_chunk}),
                           [_encode(ch, tid) for ch in cluster.record_chunks])
        for j, chunk in enumerate(cluster.record_chunks):
            n = len(chunk)
            if n > s:
                raise InputError(f"cluster {cluster.id} record chunk {j}: {n} sub-records exceed size {s}")
            perm = rng.permutation(s)
            holder = np.where(perm < n, perm, -1)
            place = np.empty(n, dtype=np.int64)
            place[holder[holder >= 0]] = np.flatnonzero(holder >= 0)
            st.holder.append(holder)
            st.place.append(place)
        st.present = {t for subs in st.subs for sub in subs for t in sub}
        states.append(st)
        offset += s

    # Joint clusters: leaves and ancestors.
    leaves_of: dict[int, list[int]] = {}
    parent: dict[str, str] = {}
    for ji, joint in enumerate(release.joint_clusters):
        found: list[int] = []
        for child in joint.children:  # children are defined before their parent (release format)
            found.extend([index[child]] if child in index else leaves_of[joint_index[child]])
            parent[child] = joint.id
        leaves_of[ji] = found
    ancestors: dict[int, list[int]] = {}
    for c in release.clusters:
        chain, node = [], c.id
        while node in parent:
            node = parent[node]
            chain.append(joint_index[node])
        ancestors[index[c.id]] = chain

    cluster_of = np.repeat(np.arange(len(states)), [st.size for st in states]) if states else np.zeros(0, int)
    for ji, joint in enumerate(release.joint_clusters):
        slots = np.concatenate([np.arange(states[c].offset, states[c].offset + states[c].size)
                                for c in leaves_of[ji]] or [np.zeros(0, dtype=np.int64)])
        known: set[int] = set().union(*(states[c].present for c in leaves_of[ji]))
        for j, chunk in enumerate(joint.shared_chunks):
            where = f"joint cluster {joint.id} shared chunk {j}"
            if len(chunk) > len(slots):
                raise InputError(f"{where}: {len(chunk)} sub-records exceed the {len(slots)} records of its leaves")
            encoded = _encode(chunk, tid)
            _place_shared(encoded, slots, cluster_of, states, ji, rng, where, known)
            known.update(itertools.chain.from_iterable(encoded))

    for st in states:
        if not st.term_chunk:
            _fill_empty_within(st, rng)
    for c, st in enumerate(states):
        if not st.term_chunk and ancestors[c] and np.any(st.pieces() == 0):
            _fill_empty_across(c, states, ancestors[c], leaves_of, rng)
            _fill_empty_within(st, rng)

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    shared_rows: list[int] = []
    shared_cols: list[int] = []
    for st in tqdm(states, desc="assembling", unit="cluster", disable=quiet, leave=False):
        for j, subs in enumerate(st.subs):
            if subs:
                lens = np.fromiter(map(len, subs), dtype=np.int64, count=len(subs))
                rows.append(st.offset + np.repeat(st.place[j], lens))
                cols.append(np.fromiter(itertools.chain.from_iterable(subs), dtype=np.int64, count=int(lens.sum())))
        for pos, items in st.shared.items():
            for _, terms in items:
                shared_rows.extend([st.offset + pos] * len(terms))
                shared_cols.extend(terms)
        if st.term_chunk and st.size > 0:
            r, t = _term_chunk_cells(st, k, term_rule, rng)
            rows.append(st.offset + r)
            cols.append(t)
    rows.append(np.asarray(shared_rows, dtype=np.int64))
    cols.append(np.asarray(shared_cols, dtype=np.int64))
    n = offset
    width = max(len(vocab), 1)
    key = np.sort(np.concatenate(rows) * width + np.concatenate(cols))
    if len(key):  # set semantics: a repeated (record, term) cell is kept once
        key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    row, col = key // width, key % width
    used = np.flatnonzero(np.bincount(col, minlength=width))
    relabel = np.full(width, -1, dtype=np.int64)
    relabel[used] = np.arange(len(used))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n), out=indptr[1:])
    return TransactionDataset(
        vocabulary=tuple(vocab[i] for i in used.tolist()),
        indptr=indptr,
        indices=relabel[col].astype(np.int32),
        name="reconstructed",
        metadata={"seed": seed, "term_rule": term_rule, "source": "reconstruct"},
    )


def _term_chunk_cells(st: _ClusterState, k: int, rule: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(record position, term id) pairs that place the cluster's term-chunk terms."""
    s = st.size
    terms = np.asarray(st.term_chunk, dtype=np.int64)
    nt = len(terms)
    top = max(1, min(k - 1, s))
    counts = np.ones(nt, dtype=np.int64) if rule == "one" else rng.integers(1, top + 1, size=nt)
    keys = rng.random((nt, s))
    empties = np.flatnonzero(st.pieces() == 0)
    if len(empties):
        rng.shuffle(empties)
        term_order = rng.permutation(nt)
        who = term_order[np.arange(len(empties)) % nt]
        keys[who, empties] = -1.0
        counts = np.maximum(counts, np.bincount(who, minlength=nt))
    order = np.argsort(keys, axis=1, kind="stable")
    mask = np.arange(s)[None, :] < counts[:, None]
    return order[mask], np.repeat(terms, mask.sum(axis=1))


def reconstruct_many(release: Release, seeds: Sequence[int], term_rule: str = "one") -> list[TransactionDataset]:
    """One reconstruction per seed (Terrovitis2012 section 6: average query results over several)."""
    return [reconstruct(release, seed=s, term_rule=term_rule) for s in seeds]
