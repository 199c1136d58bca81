"""Steps 1 and 2 of a reconstruction: the record chunks and the shared chunks (Terrovitis2012 section 3).

:mod:`anonymizer.evaluation.reconstruct` describes the model and the steps. Here each cluster's
record-chunk sub-records are matched to its records by a random permutation (step 1), and each
shared chunk's sub-records, deepest joint cluster first, to distinct records of the joint
cluster's leaves they may go to (step 2, a random greedy pass repaired by augmenting paths).
The working state (:class:`ClusterState`, :class:`SharedChunks`, :class:`JointForest`) is
shared with the later steps. :func:`reconstruct` runs steps 1-2 on arrays
(:mod:`anonymizer.evaluation.reconstruct_arrays`, the same random numbers in the same order) and
builds this state only for releases that need steps 3-4; :func:`place_record_chunks` and
:func:`place_shared_chunks` stay as the reference the array path is tested against
(``tests/test_perf_reconstruct.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from anonymizer.model.arrays import ReleaseArrays
from anonymizer.model.release import Cluster, JointCluster, Release
from corpora.common.errors import InputError

__all__ = ["ClusterState", "SharedChunks", "JointForest", "place_record_chunks", "place_shared_chunks", "augment"]

_chain = itertools.chain.from_iterable


@dataclass
class ClusterState:
    """Working state of one simple cluster during a reconstruction."""

    offset: int  # global id of the cluster's first record
    size: int
    term_chunk: list[int]  # term ids
    subs: list[list[tuple[int, ...]]]  # subs[j][i]: term ids of sub-record i of record chunk j
    place: list[np.ndarray] = field(default_factory=list)  # place[j][i]: record position of sub-record i
    holder: list[np.ndarray] = field(default_factory=list)  # holder[j][pos]: sub-record index or -1
    shared: dict[int, list[tuple[int, tuple[int, ...]]]] = field(default_factory=dict)  # pos -> [(chunk, terms)]
    n_record_pieces: int = 0  # non-empty record-chunk sub-records

    def place_record_chunk(self, perm: np.ndarray, n: int) -> None:
        """Match a chunk's ``n`` sub-records to records: sub-record ``perm[pos]`` (if ``< n``) goes to ``pos``."""
        holder = np.where(perm < n, perm, -1)
        place = np.empty(n, dtype=np.int64)
        place[holder[holder >= 0]] = np.flatnonzero(holder >= 0)
        self.holder.append(holder)
        self.place.append(place)
        self.n_record_pieces += n

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
class SharedChunks:
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


@dataclass
class JointForest:
    """The joint clusters as a forest over the simple clusters (indices in release order)."""

    index: dict[str, int]  # cluster id -> cluster index
    joint_index: dict[str, int]  # joint cluster id -> joint index
    leaves_of: dict[int, list[int]]  # joint index -> the clusters (leaves) below it
    parent: dict[str, str]  # cluster or joint id -> id of the joint cluster it is a child of
    below: dict[int, list[int]] = field(default_factory=dict)  # joint index -> joints strictly below it

    @classmethod
    def of(cls, release: Release) -> JointForest:
        index = {c.id: i for i, c in enumerate(release.clusters)}
        joint_index = {j.id: i for i, j in enumerate(release.joint_clusters)}
        leaves_of: dict[int, list[int]] = {}
        parent: dict[str, str] = {}
        below: dict[int, list[int]] = {}
        for ji, joint in enumerate(release.joint_clusters):
            found: list[int] = []
            for child in joint.children:  # children are defined before their parent (release format)
                found.extend([index[child]] if child in index else leaves_of[joint_index[child]])
                parent[child] = joint.id
            leaves_of[ji] = found
            below[ji] = [x for ch in joint.children if ch in joint_index
                         for x in [joint_index[ch], *below[joint_index[ch]]]]
        return cls(index, joint_index, leaves_of, parent, below)

    @classmethod
    def of_arrays(cls, a: ReleaseArrays, leaves_of: list[list[int]], below: list[list[int]]) -> JointForest:
        """The same forest from a release's arrays, given each joint cluster's leaves and joints below."""
        names = a.node_ids()
        parent = {names[child]: a.joint_ids[ji] for ji in range(len(a.joint_ids))
                  for child in a.children[a.child_off[ji]:a.child_off[ji + 1]].tolist()}
        return cls({cid: i for i, cid in enumerate(a.cluster_ids)}, {jid: i for i, jid in enumerate(a.joint_ids)},
                   dict(enumerate(leaves_of)), parent, dict(enumerate(below)))

    def root_of(self, node: str) -> str:
        while node in self.parent:
            node = self.parent[node]
        return node


def encode(chunk: Sequence[Sequence[str]], tid: dict[str, int]) -> list[tuple[int, ...]]:
    """A chunk's sub-records as tuples of term ids."""
    return [tuple(map(tid.__getitem__, sub)) for sub in chunk]


def _record_chunk_state(cluster: Cluster, offset: int, tid: dict[str, int], rng: np.random.Generator) -> ClusterState:
    """Step 1 for one cluster: each record chunk's sub-records, padded to s, matched to the records at random."""
    s = cluster.size
    if s <= 0 and (cluster.record_chunks and any(cluster.record_chunks) or cluster.term_chunk):
        raise InputError(f"cluster {cluster.id}: size {s} cannot hold its chunks")
    st = ClusterState(offset, s, sorted({tid[t] for t in cluster.term_chunk}),
                      [encode(ch, tid) for ch in cluster.record_chunks])
    for j, chunk in enumerate(cluster.record_chunks):
        n = len(chunk)
        if n > s:
            raise InputError(f"cluster {cluster.id} record chunk {j}: {n} sub-records exceed size {s}")
        st.place_record_chunk(rng.permutation(s), n)
    return st


def place_record_chunks(release: Release, tid: dict[str, int], rng: np.random.Generator,
                        quiet: bool) -> list[ClusterState]:
    """Step 1 for every cluster, in release order (records numbered cluster by cluster)."""
    states: list[ClusterState] = []
    offset = 0
    for cluster in tqdm(release.clusters, desc="record chunks", unit="cluster", disable=quiet, leave=False):
        states.append(_record_chunk_state(cluster, offset, tid, rng))
        offset += cluster.size
    return states


def _blocked_leaves(ji: int, mine: set[int], forest: JointForest, states: list[ClusterState],
                    joint_terms: dict[int, set[int]]) -> dict[int, set[int]]:
    """term -> the leaves of joint ``ji`` that already publish it (its chunks, or a shared chunk below)."""
    blocked: dict[int, set[int]] = {}
    if not mine:
        return blocked
    for leaf in forest.leaves_of[ji]:
        st = states[leaf]
        for t in mine.intersection(itertools.chain(_chain(_chain(st.subs)), st.term_chunk)):
            blocked.setdefault(t, set()).add(leaf)
    for b in forest.below[ji]:
        for t in mine & joint_terms[b]:
            blocked.setdefault(t, set()).update(forest.leaves_of[b])
    return blocked


def _place_joint(ji: int, joint: JointCluster, encoded: list[list[tuple[int, ...]]], blocked: dict[int, set[int]],
                 forest: JointForest, states: list[ClusterState], shared: SharedChunks, cluster_of: list[int],
                 rng: np.random.Generator) -> None:
    """Step 2 for the shared chunks of one joint cluster."""
    slots = np.concatenate([np.arange(states[c].offset, states[c].offset + states[c].size)
                            for c in forest.leaves_of[ji]] or [np.zeros(0, dtype=np.int64)])
    for j, subs in enumerate(encoded):
        where = f"joint cluster {joint.id} shared chunk {j}"
        if len(subs) > len(slots):
            raise InputError(f"{where}: no valid reconstruction: {len(subs)} sub-records exceed the "
                             f"{len(slots)} records of its leaves")
        chunk = len(shared.joint)
        shared.joint.append(ji)
        shared.blocked.append({t: frozenset(blocked[t]) for t in set(_chain(subs)) if t in blocked})
        blocks = [shared.blocked_for(chunk, sub) for sub in subs]
        _place_shared(subs, blocks, slots, cluster_of, states, chunk, rng, where)


def place_shared_chunks(release: Release, forest: JointForest, states: list[ClusterState], tid: dict[str, int],
                        rng: np.random.Generator) -> SharedChunks:
    """Step 2 for every joint cluster, in release order (children come before their parents)."""
    shared = SharedChunks()
    cluster_of: list[int] = [ci for ci, st in enumerate(states) for _ in range(st.size)]
    joint_terms: dict[int, set[int]] = {}
    for ji, joint in enumerate(release.joint_clusters):
        encoded = [encode(ch, tid) for ch in joint.shared_chunks]
        mine = joint_terms[ji] = set(_chain(_chain(encoded)))
        blocked = _blocked_leaves(ji, mine, forest, states, joint_terms)
        _place_joint(ji, joint, encoded, blocked, forest, states, shared, cluster_of, rng)
    return shared


def _place_shared(
    subs: list[tuple[int, ...]],
    blocks: list[frozenset[int] | None],
    slots: np.ndarray,
    cluster_of: list[int],
    states: list[ClusterState],
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
            if not augment(i, chosen, free, fits):
                raise InputError(
                    f"{where}: no valid reconstruction: sub-record {i} fits no record of the joint cluster's "
                    "leaves (each leaf it may go to, i.e. whose chunks list none of its terms, already takes "
                    "one sub-record of this chunk on every record)"
                )
    for i, slot in enumerate(chosen):
        assert slot is not None
        st = states[cluster_of[slot]]
        st.add_shared(slot - st.offset, chunk, subs[i])


def augment(start: int, chosen: list, free: list, fits: Callable[[int, int], bool]) -> bool:
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
