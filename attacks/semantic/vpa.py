"""VPA, the VERPART-based selector (AlShuhail2021 section 4.3.4, Algorithm 9).

Chunk by chunk (C_2, then C_3, ...), enumerate the ways to put the chunk's listed sub-records on
distinct records (lexicographic in the anchors, identical sub-records as one combination, as in the
thesis's example (1,2), (1,3), ...), add them to the records built so far, and keep the first trial
reconstruction that passes :func:`verpart_consistent` (the anonymizer's VERPART passes, re-run on
the trial, give back the published chunks; :class:`TrialChecker` does this incrementally, with the
same answers as :func:`verpart_consistent`). At most ``limit`` trials per chunk and a budget over
the whole attack, every trial counted; when a bound stops the search, or no trial passes, the chunk
is placed at random (seeded) and the result says so (:func:`vpa_cluster`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from anonymizer.disassociation.verpart import extends_km, group_terms
from anonymizer.model.release import Cluster
from attacks.semantic import selectors as sel
from corpora.common.errors import InputError

__all__ = ["verpart_consistent", "TrialChecker", "vpa_cluster"]


def _verpart_order(home: Mapping[str, int], support: Mapping[str, float], verpart: str) -> list[str]:
    """The terms in the order VPA re-runs VERPART: support descending, ties to the earlier
    published chunk then by name (``strict``), or by name alone (``grouped``; see
    :func:`verpart_consistent`)."""
    if verpart == "grouped":
        return sorted(home, key=lambda t: (-support[t], t))
    return sorted(home, key=lambda t: (-support[t], home[t], t))


def verpart_consistent(
    records: Sequence[frozenset[str]],
    chunk_terms: Sequence[Sequence[str]],
    k: int,
    m: int,
    verpart: str = "strict",
) -> bool:
    """Does VERPART, re-run on the trial reconstruction ``records``, give back the published chunks?

    ``chunk_terms[j]`` is the term set of published record chunk j (only the chunks joined so far).
    The greedy passes are the anonymizer's own (:func:`anonymizer.disassociation.verpart.group_terms`, the
    ``strict`` k^m test where a combination of support 0 also fails), over the terms in VERPART's
    order: support in the trial, descending. Support ties go to the term of the earlier published
    chunk, then by name. With this tie rule the true records always give back the published chunks
    whatever tie order the anonymizer used (a term that a pass rejected stays rejected when more
    terms precede it: the test only gains combinations), so VPA never rejects the truth.

    ``verpart="strict"`` (Terrovitis2012): the greedy groups must equal the published chunks.
    ``verpart="grouped"`` (AlShuhail2021 section 3.3.3, second method, where groups that never
    meet share a chunk): every greedy group must lie inside one published chunk, so each chunk is
    a union of groups (a necessary condition; the packing order is not re-checked). Here support
    ties go by name alone, the anonymizer's own tie rule: a chunk holds several groups, so the
    earlier-chunk rule can put a term of chunk 0 into a group of chunk 1 ahead of the terms that
    kept it out (records {the}x3, {ö, of}, {é, ö, the, and}, {é, ö, of, and}, k=2, m=2: ``of``
    would join ``ö`` before ``and`` rejects it) and VPA would reject the truth. With the
    anonymizer's order the true records give back its groups; the terms Lemma 2 moved to the
    term chunk are the last of that order, so leaving them out changes no earlier group.
    """
    home: dict[str, int] = {}
    for j, terms in enumerate(chunk_terms):
        for t in terms:
            home[t] = j
    bits: dict[str, int] = dict.fromkeys(home, 0)
    for i, r in enumerate(records):
        for t in r:
            if t in bits:
                bits[t] |= 1 << i
    order = _verpart_order(home, {t: b.bit_count() for t, b in bits.items()}, verpart)
    groups = [[order[i] for i in g] for g in group_terms([bits[t] for t in order], k, m, zero_ok=False)]
    if verpart == "strict":
        return sorted(map(frozenset, groups), key=sorted) == sorted(map(frozenset, chunk_terms), key=sorted)
    if verpart == "grouped":
        return all(len({home[t] for t in g}) == 1 for g in groups)
    raise InputError(f"VPA: unknown verpart variant {verpart!r}; choose strict or grouped")


def _enumerate_placements(groups: Sequence[int], n_anchors: int) -> Iterator[list[tuple[int, ...]]]:
    """All ways to give ``groups[g]`` distinct anchors to each group g (anchors distinct overall),
    lexicographic: group 0's combination varies slowest."""

    def rec(g: int, free: tuple[int, ...]) -> Iterator[list[tuple[int, ...]]]:
        if g == len(groups):
            yield []
            return
        for combo in itertools.combinations(free, groups[g]):
            rest = tuple(a for a in free if a not in combo)
            for tail in rec(g + 1, rest):
                yield [combo, *tail]

    yield from rec(0, tuple(range(n_anchors)))


class TrialChecker:
    """:func:`verpart_consistent` for the trials of one chunk, incremental on term-id bit matrices.

    Between the trials of chunk j only the columns of T_j change: the earlier chunks' terms sit on
    the records built so far, and every T_j term's support is the number of listed sub-records that
    hold it (the sub-records go to distinct records), so VERPART's term order is fixed per chunk.
    The checker therefore builds once the (records x terms) 0/1 matrix of the fixed terms, the pair
    supports among them and the (distinct piece x T_j term) incidence; a trial only recomputes the
    T_j rows of the pair-support matrix (one small matrix product) and replays the greedy passes
    with an early exit: a pass that takes a term of a second published chunk already fails both
    variants, and under ``strict`` a finished pass must hold its whole chunk. For m = 2 the k^m test
    of a term against the open set is one AND over a boolean row; for m > 2 the anonymizer's
    :func:`anonymizer.disassociation.verpart.extends_km` runs on bitsets built from the same matrix. Tested to agree
    with :func:`verpart_consistent` on random trials.
    """

    def __init__(
        self,
        current: Sequence[frozenset[str]],
        chunk_terms: Sequence[Sequence[str]],
        distinct: Sequence[tuple[str, ...]],
        counts: Sequence[int],
        k: int,
        m: int,
        verpart: str,
    ) -> None:
        if verpart not in ("strict", "grouped"):
            raise InputError(f"VPA: unknown verpart variant {verpart!r}; choose strict or grouped")
        self.k, self.m, self.strict = k, m, verpart == "strict"
        j = len(chunk_terms) - 1
        home: dict[str, int] = {t: c for c, terms in enumerate(chunk_terms) for t in terms}
        size = len(current)
        fixed_cols = {t: i for i, t in enumerate(t for t in home if home[t] != j)}
        F = np.zeros((size, len(fixed_cols)), dtype=np.float32)
        for a, r in enumerate(current):
            for t in r:
                col = fixed_cols.get(t)
                if col is not None:
                    F[a, col] = 1.0
        new_terms = [t for t in home if home[t] == j]
        new_index = {t: i for i, t in enumerate(new_terms)}
        Q = np.zeros((len(distinct), len(new_terms)), dtype=np.float32)
        for d, piece in enumerate(distinct):
            for t in piece:
                Q[d, new_index[t]] = 1.0
        support = {t: float(F[:, c].sum()) for t, c in fixed_cols.items()}
        new_support = np.asarray(counts, dtype=np.float32) @ Q if len(distinct) else np.zeros(len(new_terms))
        support.update({t: float(new_support[i]) for i, t in enumerate(new_terms)})
        order = _verpart_order(home, support, verpart)
        self.n = len(order)
        self.home = np.array([home[t] for t in order], dtype=np.int64)
        self.chunk_size = np.bincount(self.home, minlength=j + 1)
        is_new = self.home == j
        self.new_pos = np.flatnonzero(is_new)  # positions (in VERPART order) of the T_j terms
        self.new_cols = np.array([new_index[t] for t in order if home[t] == j], dtype=np.int64)
        # the trial matrix in VERPART order: fixed columns filled now, T_j columns per trial
        self.B = np.zeros((size, self.n), dtype=np.float32)
        fixed_pos = np.flatnonzero(~is_new)
        if len(fixed_pos):
            self.B[:, fixed_pos] = F[:, [fixed_cols[order[p]] for p in fixed_pos]]
        self.Q = Q[:, self.new_cols]
        self.size = size
        if m == 2:
            self.ok = (self.B.T @ self.B) >= k

    def consistent(self, placement: Sequence[tuple[int, ...]]) -> bool:
        """Does the trial (distinct piece d on the anchors ``placement[d]``) pass the VERPART re-run?"""
        P = np.zeros((self.size, len(placement)), dtype=np.float32)
        for d, combo in enumerate(placement):
            P[list(combo), d] = 1.0
        cols = P @ self.Q
        self.B[:, self.new_pos] = cols
        if self.m < 2:
            return self._greedy(lambda members, cand: True)
        if self.m == 2:
            ok = self.ok
            rows = (cols.T @ self.B) >= self.k
            ok[self.new_pos, :] = rows
            ok[:, self.new_pos] = rows.T
            return self._greedy_pairs(ok)
        bits = [_column_bits(self.B[:, p]) for p in range(self.n)]
        return self._greedy(
            lambda members, cand: extends_km([bits[i] for i in members], bits[cand], self.k, self.m, False)
        )

    def _greedy_pairs(self, ok: np.ndarray) -> bool:
        n = self.n
        remain = np.ones(n, dtype=bool)
        home = self.home
        while True:
            free = np.flatnonzero(remain)
            if not len(free):
                return True
            first = int(free[0])
            h = home[first]
            remain[first] = False
            compat = ok[first] & remain
            taken = 1
            pos = first
            while pos + 1 < n:
                tail = compat[pos + 1 :]
                step = int(tail.argmax())  # the first compatible term after pos, if any
                if not tail[step]:
                    break
                pos = pos + 1 + step
                if home[pos] != h:
                    return False
                remain[pos] = False
                compat &= ok[pos]
                taken += 1
            if self.strict and taken != self.chunk_size[h]:
                return False

    def _greedy(self, fits: Any) -> bool:
        remain = list(range(self.n))
        while remain:
            members: list[int] = []
            rest: list[int] = []
            for i in remain:
                if not members or fits(members, i):
                    if members and self.home[i] != self.home[members[0]]:
                        return False
                    members.append(i)
                else:
                    rest.append(i)
            if self.strict and len(members) != self.chunk_size[self.home[members[0]]]:
                return False
            remain = rest
        return True


def _column_bits(col: np.ndarray) -> int:
    """A 0/1 column as a Python-int bitset (bit i = row i)."""
    packed = np.packbits(col.astype(np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def vpa_cluster(
    rng: np.random.Generator,
    cluster: Cluster,
    anchors: list[tuple[str, ...]],
    k: int,
    m: int,
    verpart: str,
    limit: int,
    budget: list[int],
) -> tuple[list[list[int]], int, int, int]:
    """Algorithm 9 on one cluster: returns the assignment per chunk, cut, failed, trials.

    ``budget[0]`` is the number of trials left for the whole attack (every trial counts; when it
    reaches 0 the remaining chunks are cut at once).
    """
    size = len(anchors)
    current = [frozenset(a) for a in anchors]
    assignment: list[list[int]] = [list(range(len(cluster.record_chunks[0])))] if cluster.record_chunks else []
    cut = failed = trials = 0
    for j in range(1, len(cluster.record_chunks)):
        chunk = cluster.record_chunks[j]
        distinct, positions = sel.distinct_pieces(chunk)
        chunk_terms = [sorted(cluster.chunk_terms(i)) for i in range(j + 1)]
        chosen: list[int] | None = None
        n_tried = 0
        exhausted = True
        cap = min(limit, budget[0])
        checker: TrialChecker | None = None
        for placement in _enumerate_placements([len(p) for p in positions], size):
            if n_tried >= cap:
                exhausted = False
                break
            if checker is None:
                checker = TrialChecker(current, chunk_terms, distinct, [len(p) for p in positions], k, m, verpart)
            n_tried += 1
            if checker.consistent(placement):
                chosen = [0] * len(chunk)
                for d, combo in enumerate(placement):
                    for p, a in zip(positions[d], combo, strict=True):
                        chosen[p] = a
                break
        trials += n_tried
        budget[0] -= n_tried
        if chosen is None:
            if exhausted:
                failed += 1
            else:
                cut += 1
            chosen = sel.random_distinct(rng, len(chunk), size)
        for p, a in enumerate(chosen):
            current[a] = current[a] | frozenset(chunk[p])
        assignment.append(chosen)
    return assignment, cut, failed, trials
