"""Sampling one dataset from the inverse transformation of a release (Terrovitis2012 sections 3 and 5).

A disassociated release stands for the set I(D^A) of all datasets that could have produced it
(Terrovitis2012 section 2). :func:`reconstruct` draws one member of that set at random, and finds
one whenever the set is not empty; when it is empty it raises one :class:`InputError`.

**What a valid reconstruction is** (the model the tests' exhaustive oracle enumerates):

* a record chunk of a cluster of size s lists n <= s sub-records; padded with s - n empty ones,
  they are matched one to one with the cluster's records (section 3);
* each term-chunk term is held by at least one record of its cluster (section 5, proof of
  Lemma 1: "the multiplicity and the correlations of these terms are not disclosed");
* each sub-record of a shared chunk of a joint cluster J goes to a different record of J's leaves,
  never to a leaf whose record chunks or term chunk list one of its terms, nor to a leaf of a
  joint cluster below J whose shared chunks list one: section 3 builds a shared chunk "by
  projecting the records of every P_j to C_Tj ∩ T_i", so every occurrence of such a term in that
  leaf is already published elsewhere;
* every record is non-empty (proof of Lemma 2: "A valid reconstruction of cluster P_a is a
  possible initial cluster that has s non-empty records").

The sampler needs the chunk term sets of a cluster pairwise disjoint and disjoint from its term
chunk, and the shared chunks of one joint cluster over pairwise disjoint term sets (section 3:
VERPART splits a cluster's terms into T_1..T_v and T_T; REFINE moves each term into one shared
chunk). A release that breaks this is malformed (``verify`` names the overlap) and is refused.
Then, records within a leaf being interchangeable, a valid reconstruction exists exactly when the
shared sub-records can be spread over the leaves (each to a leaf it may go to, at most s_P
sub-records of one chunk on leaf P) so that every leaf without a term chunk holds at least as
many pieces (non-empty sub-records) as records: inside a leaf, a piece can always move from a
record holding two to an empty one.

**Steps.**

1. **Record chunks.** Each record chunk's sub-records, padded to s, are matched to the s records
   by a uniform random permutation.
2. **Shared chunks**, deepest joint cluster first: each sub-record goes to a distinct, uniformly
   random record among the leaves it may go to (a greedy pass in random order, repaired by an
   augmenting path inside the chunk; if no placement exists, :class:`InputError`).
3. **Enough pieces per leaf.** A leaf without a term chunk that the random placement left with
   fewer pieces than records takes shared sub-records from other leaves along augmenting paths
   (a sub-record moves to a leaf it may go to; a leaf that gives one either has pieces to spare,
   has a term chunk, or takes one in turn). This is Ford-Fulkerson on the flow network
   sub-record -> (chunk, leaf) -> leaf with the leaves' shortfalls as demands, so it fails only
   when no spread exists; then :class:`InputError` says which leaf cannot be filled. A cluster in
   no joint cluster with an empty term chunk and fewer sub-records than records has no valid
   reconstruction either.
4. **No empty records.** In a leaf without a term chunk, an empty record takes a piece (a
   record-chunk sub-record, whose slot it takes, or a shared sub-record) from a random record
   holding two or more; step 3 guarantees such a donor.
5. **Term chunk.** The paper keeps the multiplicity of a term-chunk term secret (section 5,
   proof of Lemma 1) and bounds it below by one (section 6: "adding one to the support of each
   term that appears in a term chunk"). Choice: with ``term_rule="one"`` (the default) each term
   lands in exactly one record, the paper's lower bound; it is also what the data look like:
   VERPART sends terms of support below k to the term chunk, and on synthetic Quest data (25k
   records, k=5, m=2, clusters of 30) 96% of the term-chunk terms of the truth file sit in
   exactly one record. With ``term_rule="uniform"`` each term lands in c records, c drawn
   uniformly from 1..min(k-1, s). Records still empty after step 4 (a leaf with a term chunk)
   first receive one term each, terms taken round-robin in random order (a term then holds at
   least that many records); the other holders are uniformly random records of the cluster.

Records come out cluster by cluster, in the release's cluster order; the same seed always
gives the same dataset.
"""

from __future__ import annotations

import itertools
import sys
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

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
    shared: dict[int, list[tuple[int, tuple[int, ...]]]] = field(default_factory=dict)  # pos -> [(chunk, terms)]
    n_record_pieces: int = 0  # non-empty record-chunk sub-records

    def pieces(self) -> np.ndarray:
        count = np.zeros(self.size, dtype=np.int64)
        for h in self.holder:
            count += h >= 0
        for pos, items in self.shared.items():
            count[pos] += len(items)
        return count

    def n_pieces(self) -> int:
        return self.n_record_pieces + sum(map(len, self.shared.values()))

    def add_shared(self, pos: int, chunk: int, terms: tuple[int, ...]) -> None:
        self.shared.setdefault(pos, []).append((chunk, terms))

    def pop_shared(self, pos: int, index: int) -> tuple[int, tuple[int, ...]]:
        item = self.shared[pos].pop(index)
        if not self.shared[pos]:
            del self.shared[pos]
        return item


@dataclass
class _Shared:
    """The shared chunks of the release, with the leaves each sub-record may not go to."""

    joint: list[int] = field(default_factory=list)  # chunk -> joint index
    blocked: list[dict[int, frozenset[int]]] = field(default_factory=list)  # chunk -> term -> blocked leaves

    def blocked_for(self, chunk: int, terms: tuple[int, ...]) -> frozenset[int] | None:
        """Leaves (cluster indices) the sub-record may not go to, or None when it may go anywhere."""
        rules = self.blocked[chunk]
        hit = [rules[t] for t in terms if t in rules]
        if not hit:
            return None
        return hit[0] if len(hit) == 1 else frozenset().union(*hit)


def _encode(chunk: Sequence[Sequence[str]], tid: dict[str, int]) -> list[tuple[int, ...]]:
    return [tuple(map(tid.__getitem__, sub)) for sub in chunk]


def _check_disjoint(release: Release) -> None:
    """Refuse a release whose chunk term sets overlap (see the module docstring)."""
    for c in release.clusters:
        seen: set[str] = set(c.term_chunk)
        total = len(c.term_chunk)
        for ch in c.record_chunks:
            terms = set(itertools.chain.from_iterable(ch))
            seen |= terms
            total += len(terms)
        if len(seen) != total:
            raise InputError(f"cluster {c.id}: its record chunks and term chunk share a term; a disassociated "
                             "cluster splits its terms into disjoint chunks (run verify for details)")
    for j in release.joint_clusters:
        sets = [set(itertools.chain.from_iterable(ch)) for ch in j.shared_chunks]
        if len(set().union(*sets)) != sum(map(len, sets)):
            raise InputError(f"joint cluster {j.id}: two shared chunks share a term; shared chunks of one joint "
                             "cluster hold disjoint term sets (run verify for details)")


def _place_shared(
    subs: list[tuple[int, ...]],
    blocks: list[frozenset[int] | None],
    slots: np.ndarray,
    cluster_of: list[int],
    states: list[_ClusterState],
    chunk: int,
    rng: np.random.Generator,
    where: str,
) -> None:
    """Put each sub-record on a distinct record (global id in ``slots``) of a leaf it may go to."""
    n = len(subs)
    free: list[int] = slots[rng.permutation(len(slots))].tolist()

    def fits(slot: int, i: int) -> bool:
        b = blocks[i]
        return b is None or cluster_of[slot] not in b

    chosen: list[int | None] = [None] * n
    for i in rng.permutation(n).tolist():
        b = blocks[i]
        if b is None:
            chosen[i] = free.pop()
            continue
        for idx in range(len(free) - 1, -1, -1):
            if cluster_of[free[idx]] not in b:
                chosen[i] = free.pop(idx)
                break
        else:
            if not _augment(i, chosen, free, fits):
                raise InputError(
                    f"{where}: no valid reconstruction: sub-record {i} fits no record of the joint cluster's "
                    "leaves (each leaf it may go to, i.e. whose chunks list none of its terms, already takes "
                    "one sub-record of this chunk on every record)"
                )
    for i, slot in enumerate(chosen):
        assert slot is not None
        st = states[cluster_of[slot]]
        st.add_shared(slot - st.offset, chunk, subs[i])


def _augment(start: int, chosen: list, free: list, fits: Callable[[int, int], bool]) -> bool:
    """Kuhn's augmenting path: seat sub-record ``start`` by re-seating others of the same chunk."""
    owner = {slot: i for i, slot in enumerate(chosen) if slot is not None}
    free_set = set(free)
    seen: set[int] = set()

    def dfs(i: int) -> bool:
        for slot in list(owner) + free:
            if slot in seen or not fits(slot, i):
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


def _balance(leaves: list[int], states: list[_ClusterState], shared: _Shared, leaves_of: dict[int, list[int]],
             names: list[str], rng: np.random.Generator) -> None:
    """Step 3: move shared sub-records between the leaves of one component until every leaf
    without a term chunk holds as many pieces as records (augmenting paths, see the module docstring)."""
    # pieces[p] = [chunk, terms, leaf, record position, blocked leaves or None]
    pieces: list[list] = []
    at: dict[tuple[int, int], list[int]] = {}
    for leaf in leaves:
        for pos, items in states[leaf].shared.items():
            for chunk, terms in items:
                at.setdefault((chunk, leaf), []).append(len(pieces))
                pieces.append([chunk, terms, leaf, pos, shared.blocked_for(chunk, terms)])
    chunks_of: dict[int, list[int]] = {leaf: [] for leaf in leaves}
    chunk_leaves: dict[int, list[int]] = {}
    for chunk in sorted({p[0] for p in pieces}):
        chunk_leaves[chunk] = leaves_of[shared.joint[chunk]]
        for leaf in chunk_leaves[chunk]:
            chunks_of[leaf].append(chunk)
    total = {leaf: states[leaf].n_pieces() for leaf in leaves}

    def short(leaf: int) -> bool:
        return not states[leaf].term_chunk and total[leaf] < states[leaf].size

    def spare(leaf: int) -> bool:
        return bool(states[leaf].term_chunk) or total[leaf] > states[leaf].size

    def count(chunk: int, leaf: int) -> int:
        return len(at.get((chunk, leaf), ()))

    def may_go(p: int, leaf: int) -> bool:
        b = pieces[p][4]
        return b is None or leaf not in b

    while True:
        needy = [leaf for leaf in leaves if short(leaf)]
        if not needy:
            return
        target = needy[int(rng.integers(len(needy)))]
        # Backward breadth-first search from the needy leaf; next_of[node] = (successor, piece moved).
        start = ("L", target)
        next_of: dict[tuple, tuple] = {start: (None, -1)}
        queue = deque([start])
        source = None
        while queue and source is None:
            node = queue.popleft()
            if node[0] == "L":
                leaf = node[1]
                if leaf != target and spare(leaf):
                    source = node
                    break
                order = list(chunks_of[leaf])
                rng.shuffle(order)
                for chunk in order:  # the leaf gains a piece of `chunk`
                    nxt = ("C", chunk, leaf)
                    if nxt not in next_of and count(chunk, leaf) < states[leaf].size:
                        next_of[nxt] = (node, -1)
                        queue.append(nxt)
            else:
                _, chunk, dest = node
                giver = ("L", dest)  # the leaf gives up a piece of `chunk`
                if giver not in next_of and count(chunk, dest) > 0:
                    next_of[giver] = (node, -1)
                    queue.append(giver)
                order = list(chunk_leaves[chunk])
                rng.shuffle(order)
                for leaf in order:  # a piece of `chunk` moves from `leaf` to `dest`
                    prev = ("C", chunk, leaf)
                    if leaf == dest or prev in next_of:
                        continue
                    movable = [p for p in at.get((chunk, leaf), ()) if may_go(p, dest)]
                    if movable:
                        next_of[prev] = (node, movable[int(rng.integers(len(movable)))])
                        queue.append(prev)
        if source is None:
            st = states[target]
            raise InputError(
                f"cluster {names[target]}: no valid reconstruction: it has {st.size} records, an empty term chunk "
                f"and {total[target]} pieces, and the shared chunks of its joint clusters cannot give it more "
                "(every record must be non-empty, Terrovitis2012 proof of Lemma 2)"
            )
        moves = []
        node = source
        while node != start:
            nxt, p = next_of[node]
            if p >= 0:
                moves.append((p, nxt[2]))
            node = nxt
        total[source[1]] -= 1
        total[target] += 1
        for p, dest in reversed(moves):
            _move_piece(pieces, at, p, dest, states, rng)


def _move_piece(pieces: list[list], at: dict, p: int, dest: int, states: list[_ClusterState],
                rng: np.random.Generator) -> None:
    chunk, terms, leaf, pos, _ = pieces[p]
    st = states[leaf]
    items = st.shared[pos]
    st.pop_shared(pos, next(q for q, (c, _) in enumerate(items) if c == chunk))
    at[(chunk, leaf)].remove(p)
    target = states[dest]
    taken = {pos2 for pos2, its in target.shared.items() if any(c == chunk for c, _ in its)}
    counts = target.pieces()
    free = [r for r in range(target.size) if r not in taken]
    empty = [r for r in free if counts[r] == 0]
    pool = empty or free
    new_pos = pool[int(rng.integers(len(pool)))]
    target.add_shared(new_pos, chunk, terms)
    at.setdefault((chunk, dest), []).append(p)
    pieces[p][2], pieces[p][3] = dest, new_pos


def _fill_empty_within(st: _ClusterState, rng: np.random.Generator) -> None:
    """Step 4: move pieces from records with two or more pieces to empty records of the same cluster."""
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
        else:
            chunk, terms = st.pop_shared(d, which)
            st.add_shared(e, chunk, terms)
        count[d] -= 1
        count[e] += 1


def reconstruct(release: Release, seed: int = 0, term_rule: str = "one") -> TransactionDataset:
    """One random dataset of the inverse transformation I(release) (Terrovitis2012 sections 3, 5).

    See the module docstring for the model of a valid reconstruction, the steps and the documented
    choices (term-chunk multiplicity ``term_rule`` in ``"one"`` / ``"uniform"``). The result has
    ``release.n_records`` records, cluster by cluster, all non-empty; no record repeats a term.
    Raises :class:`InputError` when the release has no valid reconstruction or is malformed.
    """
    if term_rule not in TERM_RULES:
        raise InputError(f"term_rule must be one of {', '.join(TERM_RULES)}, got {term_rule!r}")
    _check_disjoint(release)
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
    names = [c.id for c in release.clusters]

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
            st.n_record_pieces += n
        states.append(st)
        offset += s

    # Joint clusters: leaves, parents, and the leaves each shared term may not go to.
    leaves_of: dict[int, list[int]] = {}
    parent: dict[str, str] = {}
    for ji, joint in enumerate(release.joint_clusters):
        found: list[int] = []
        for child in joint.children:  # children are defined before their parent (release format)
            found.extend([index[child]] if child in index else leaves_of[joint_index[child]])
            parent[child] = joint.id
        leaves_of[ji] = found
    shared = _Shared()
    cluster_of: list[int] = [ci for ci, st in enumerate(states) for _ in range(st.size)]
    chain = itertools.chain.from_iterable
    below: dict[int, list[int]] = {}  # joint -> joints strictly below it
    joint_terms: dict[int, set[int]] = {}
    for ji, joint in enumerate(release.joint_clusters):
        below[ji] = [x for ch in joint.children if ch in joint_index
                     for x in [joint_index[ch], *below[joint_index[ch]]]]
        encoded = [_encode(ch, tid) for ch in joint.shared_chunks]
        mine = joint_terms[ji] = set(chain(chain(encoded)))
        blocked: dict[int, set[int]] = {}  # term -> leaves that list it (module docstring)
        if mine:
            for leaf in leaves_of[ji]:
                st = states[leaf]
                for t in mine.intersection(itertools.chain(chain(chain(st.subs)), st.term_chunk)):
                    blocked.setdefault(t, set()).add(leaf)
            for b in below[ji]:
                for t in mine & joint_terms[b]:
                    blocked.setdefault(t, set()).update(leaves_of[b])
        slots = np.concatenate([np.arange(states[c].offset, states[c].offset + states[c].size)
                                for c in leaves_of[ji]] or [np.zeros(0, dtype=np.int64)])
        for j, subs in enumerate(encoded):
            where = f"joint cluster {joint.id} shared chunk {j}"
            if len(subs) > len(slots):
                raise InputError(f"{where}: no valid reconstruction: {len(subs)} sub-records exceed the "
                                 f"{len(slots)} records of its leaves")
            chunk = len(shared.joint)
            shared.joint.append(ji)
            shared.blocked.append({t: frozenset(blocked[t]) for t in set(chain(subs)) if t in blocked})
            blocks = [shared.blocked_for(chunk, sub) for sub in subs]
            _place_shared(subs, blocks, slots, cluster_of, states, chunk, rng, where)

    # Step 3: every leaf without a term chunk needs as many pieces as records.
    roots: dict[str, list[int]] = {}
    for ci, st in enumerate(states):
        if st.term_chunk or st.n_pieces() >= st.size:
            continue
        node = names[ci]
        if node not in parent:
            raise InputError(
                f"cluster {node}: no valid reconstruction: {st.size} records, an empty term chunk and only "
                f"{st.n_pieces()} sub-records (every record must be non-empty, Terrovitis2012 proof of Lemma 2)"
            )
        while node in parent:
            node = parent[node]
        roots.setdefault(node, [])
    for root in roots:
        _balance(leaves_of[joint_index[root]], states, shared, leaves_of, names, rng)
    for st in states:
        if not st.term_chunk:
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
