"""Steps 3 and 4 of a reconstruction: no empty record (Terrovitis2012 proof of Lemma 2).

"A valid reconstruction of cluster P_a is a possible initial cluster that has s non-empty
records." Step 3 moves shared sub-records between the leaves of one joint-cluster component until
every leaf without a term chunk holds at least as many pieces (non-empty sub-records) as records:
Ford-Fulkerson on the network sub-record -> (chunk, leaf) -> leaf, each augmenting path found by
a breadth-first search backwards from a short leaf, the random choices drawn in a fixed order.
Step 4 then moves, inside each such leaf, a piece from a record holding two to an empty record.
:mod:`anonymizer.evaluation.reconstruct` describes the whole model.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from anonymizer.evaluation.reconstruct_chunks import ClusterState, JointForest, SharedChunks
from corpora.common.errors import InputError

__all__ = ["balance_components", "fill_empty_records"]


class _Pieces:
    """The shared sub-records (pieces) of one component: where each sits and where it may go."""

    def __init__(self, leaves: list[int], states: list[ClusterState], shared: SharedChunks,
                 leaves_of: dict[int, list[int]]) -> None:
        self.states = states
        # pieces[p] = [chunk, terms, leaf, record position, blocked leaves or None]
        self.pieces: list[list] = []
        self.at: dict[tuple[int, int], list[int]] = {}  # (chunk, leaf) -> pieces of the chunk on the leaf
        for leaf in leaves:
            for pos, items in states[leaf].shared.items():
                for chunk, terms in items:
                    self.at.setdefault((chunk, leaf), []).append(len(self.pieces))
                    self.pieces.append([chunk, terms, leaf, pos, shared.blocked_for(chunk, terms)])
        self.chunks_of: dict[int, list[int]] = {leaf: [] for leaf in leaves}
        self.chunk_leaves: dict[int, list[int]] = {}
        for chunk in sorted({p[0] for p in self.pieces}):
            self.chunk_leaves[chunk] = leaves_of[shared.joint[chunk]]
            for leaf in self.chunk_leaves[chunk]:
                self.chunks_of[leaf].append(chunk)
        self.total = {leaf: states[leaf].n_pieces() for leaf in leaves}

    def short(self, leaf: int) -> bool:
        """A leaf without a term chunk holding fewer pieces than records."""
        return not self.states[leaf].term_chunk and self.total[leaf] < self.states[leaf].size

    def spare(self, leaf: int) -> bool:
        """A leaf that can give a piece away: it has a term chunk or more pieces than records."""
        return bool(self.states[leaf].term_chunk) or self.total[leaf] > self.states[leaf].size

    def count(self, chunk: int, leaf: int) -> int:
        return len(self.at.get((chunk, leaf), ()))

    def may_go(self, p: int, leaf: int) -> bool:
        b = self.pieces[p][4]
        return b is None or leaf not in b


def _expand_leaf(book: _Pieces, node: tuple, next_of: dict, queue: deque, rng: np.random.Generator) -> None:
    """The leaf gains a piece of one of its chunks (chunks in random order)."""
    leaf = node[1]
    order = list(book.chunks_of[leaf])
    rng.shuffle(order)
    for chunk in order:
        nxt = ("C", chunk, leaf)
        if nxt not in next_of and book.count(chunk, leaf) < book.states[leaf].size:
            next_of[nxt] = (node, -1)
            queue.append(nxt)


def _expand_chunk(book: _Pieces, node: tuple, next_of: dict, queue: deque, rng: np.random.Generator) -> None:
    """Leaf ``dest`` gets a piece of ``chunk``: it gives up one of its own, or one moves in from another leaf."""
    _, chunk, dest = node
    giver = ("L", dest)  # the leaf gives up a piece of `chunk`
    if giver not in next_of and book.count(chunk, dest) > 0:
        next_of[giver] = (node, -1)
        queue.append(giver)
    order = list(book.chunk_leaves[chunk])
    rng.shuffle(order)
    for leaf in order:  # a piece of `chunk` moves from `leaf` to `dest`
        prev = ("C", chunk, leaf)
        if leaf == dest or prev in next_of:
            continue
        movable = [p for p in book.at.get((chunk, leaf), ()) if book.may_go(p, dest)]
        if movable:
            next_of[prev] = (node, movable[int(rng.integers(len(movable)))])
            queue.append(prev)


def _augmenting_path(book: _Pieces, target: int, rng: np.random.Generator) -> list[tuple[int, int]] | None:
    """Moves (piece, destination leaf), in order, that give ``target`` one piece from a leaf that can spare
    one; None when there is none. Breadth-first search backwards from ``target``."""
    start = ("L", target)
    next_of: dict[tuple, tuple] = {start: (None, -1)}  # node -> (successor, piece moved)
    queue = deque([start])
    source = None
    while queue:
        node = queue.popleft()
        if node[0] != "L":
            _expand_chunk(book, node, next_of, queue, rng)
        elif node[1] != target and book.spare(node[1]):
            source = node
            break
        else:
            _expand_leaf(book, node, next_of, queue, rng)
    if source is None:
        return None
    moves = []
    node = source
    while node != start:
        nxt, p = next_of[node]
        if p >= 0:
            moves.append((p, nxt[2]))
        node = nxt
    book.total[source[1]] -= 1
    book.total[target] += 1
    return moves[::-1]


def _balance(leaves: list[int], states: list[ClusterState], shared: SharedChunks, leaves_of: dict[int, list[int]],
             names: list[str], rng: np.random.Generator) -> None:
    """Step 3 for one component: fill the short leaves one augmenting path at a time."""
    book = _Pieces(leaves, states, shared, leaves_of)
    while True:
        needy = [leaf for leaf in leaves if book.short(leaf)]
        if not needy:
            return
        target = needy[int(rng.integers(len(needy)))]
        moves = _augmenting_path(book, target, rng)
        if moves is None:
            st = states[target]
            raise InputError(
                f"cluster {names[target]}: no valid reconstruction: it has {st.size} records, an empty term chunk "
                f"and {book.total[target]} pieces, and the shared chunks of its joint clusters cannot give it more "
                "(every record must be non-empty, Terrovitis2012 proof of Lemma 2)"
            )
        for p, dest in moves:
            _move_piece(book.pieces, book.at, p, dest, states, rng)


def _move_piece(pieces: list[list], at: dict, p: int, dest: int, states: list[ClusterState],
                rng: np.random.Generator) -> None:
    """Move piece ``p`` to leaf ``dest``, onto a random empty record not holding its chunk (else any such)."""
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


def balance_components(states: list[ClusterState], shared: SharedChunks, forest: JointForest,
                       names: list[str], rng: np.random.Generator) -> None:
    """Step 3: every leaf without a term chunk needs as many pieces as records (module docstring)."""
    roots: dict[str, list[int]] = {}
    for ci, st in enumerate(states):
        if st.term_chunk or st.n_pieces() >= st.size:
            continue
        node = names[ci]
        if node not in forest.parent:
            raise InputError(
                f"cluster {node}: no valid reconstruction: {st.size} records, an empty term chunk and only "
                f"{st.n_pieces()} sub-records (every record must be non-empty, Terrovitis2012 proof of Lemma 2)"
            )
        roots.setdefault(forest.root_of(node), [])
    for root in roots:
        _balance(forest.leaves_of[forest.joint_index[root]], states, shared, forest.leaves_of, names, rng)


def fill_empty_records(st: ClusterState, rng: np.random.Generator) -> None:
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
