"""An independent, brute-force checker of a disassociated release (Terrovitis2012 sections 3 and 5).

This module is deliberately naive and shares no code with the fast anonymizer: it counts every
itemset of size 1..m of every sub-record with :func:`itertools.combinations` and a
:class:`collections.Counter`, so the tests can use it as a reference against the fast k^m check.

What a release must satisfy to carry Guarantee 1 (Terrovitis2012 section 2):

* **k^m-anonymous record chunks** (section 3, "Vertical partitioning"; Lemma 1): every itemset of
  at most m terms that appears in a record chunk appears in at least k of its sub-records.
* **Lemma 2** (section 5): in a cluster of size s with record chunks C_1..C_v, the non-empty
  sub-records number at least ``s + k * (h - 1)`` with ``h = min(m, v)``, or the term chunk is
  non-empty (a cluster without record chunks is read with h = 1: it needs a non-empty term
  chunk). Choice: REFINE (section 3) removes terms from term chunks after VERPART checked
  Lemma 2, and Lemma 3's proof says shared chunks need no new bound; so the condition is judged
  on the VERPART-time term chunk, which is the published term chunk plus the terms of the
  ancestors' shared chunks that are not in the cluster's own record chunks (terms it may have
  contributed). A cluster with no such term and too few sub-records is reported.
* **Property 1** (section 5) for each shared chunk of a joint cluster J: it is k^m-anonymous, and
  if it holds a term of T^r (the terms in the record chunks of J's leaves and in the shared chunks
  of J's descendant joint clusters) it is also k-anonymous: every distinct sub-record it lists
  appears at least k times.
* **Structure** (section 3): record-chunk term sets pairwise disjoint within a cluster; the term
  chunk disjoint from the record chunks; no chunk with more sub-records than its cluster has
  records (for a shared chunk: the total size of J's leaves); positive cluster sizes; sub-records
  non-empty and without repeated terms; the shared chunks of one joint cluster over pairwise
  disjoint term sets, none of their terms left in a leaf's term chunk (REFINE removes them); a
  cluster or joint cluster is a child of at most one joint cluster.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from anonymizer.release import Cluster, JointCluster, Release

__all__ = ["VerifyReport", "verify", "km_violations", "k_anonymity_violations", "MAX_ITEMSETS_PER_CHUNK"]

MAX_ITEMSETS_PER_CHUNK = 5
"""At most this many failing itemsets are named per chunk; the rest are summarised in one line."""


@dataclass
class VerifyReport:
    """Result of :func:`verify`: ``ok`` is True exactly when ``violations`` is empty."""

    ok: bool
    violations: list[str] = field(default_factory=list)
    clusters_checked: int = 0
    chunks_checked: int = 0

    def summary(self) -> str:
        """One line: OK or the number of violations, with the counts of what was checked."""
        what = f"{self.clusters_checked} clusters, {self.chunks_checked} chunks"
        if self.ok:
            return f"OK ({what})"
        return f"{len(self.violations)} violation(s) ({what})"


def _fmt(itemset: Iterable[str]) -> str:
    return "{" + ", ".join(sorted(itemset)) + "}"


def km_violations(chunk: Sequence[Sequence[str]], k: int, m: int) -> list[tuple[tuple[str, ...], int]]:
    """Every itemset of 1..m terms that appears in ``chunk`` in fewer than ``k`` sub-records.

    Brute force: all combinations of every sub-record are counted. Returns (itemset, support)
    pairs sorted by support, then itemset.
    """
    counts: Counter[tuple[str, ...]] = Counter()
    for sub in chunk:
        terms = sorted(set(sub))
        for size in range(1, min(m, len(terms)) + 1):
            counts.update(itertools.combinations(terms, size))
    bad = [(itemset, n) for itemset, n in counts.items() if n < k]
    bad.sort(key=lambda pair: (pair[1], pair[0]))
    return bad


def k_anonymity_violations(chunk: Sequence[Sequence[str]], k: int) -> list[tuple[tuple[str, ...], int]]:
    """Every distinct (non-empty) sub-record of ``chunk`` listed fewer than ``k`` times."""
    counts = Counter(tuple(sorted(set(sub))) for sub in chunk)
    bad = [(sub, n) for sub, n in counts.items() if n < k]
    bad.sort(key=lambda pair: (pair[1], pair[0]))
    return bad


def _report_itemsets(out: list[str], where: str, what: str, bad: list[tuple[tuple[str, ...], int]], k: int) -> None:
    for itemset, n in bad[:MAX_ITEMSETS_PER_CHUNK]:
        out.append(f"{where}: {what} {_fmt(itemset)} appears in {n} sub-record(s), fewer than k={k}")
    if len(bad) > MAX_ITEMSETS_PER_CHUNK:
        out.append(f"{where}: ... and {len(bad) - MAX_ITEMSETS_PER_CHUNK} more such {what}s")


def _check_subrecords(out: list[str], where: str, chunk: Sequence[Sequence[str]]) -> None:
    for p, sub in enumerate(chunk):
        if len(sub) == 0:
            out.append(f"{where}: sub-record {p} is empty (empty sub-records are implied, never listed)")
        elif len(set(sub)) != len(sub):
            out.append(f"{where}: sub-record {p} {list(sub)} repeats a term")


def _chunk_terms(chunk: Sequence[Sequence[str]]) -> set[str]:
    return {t for sub in chunk for t in sub}


def _shared_terms(joint: JointCluster) -> set[str]:
    return {t for chunk in joint.shared_chunks for sub in chunk for t in sub}


def _check_cluster(out: list[str], cluster: Cluster, k: int, m: int, inherited: Callable[[], set[str]]) -> int:
    """Check one simple cluster; ``inherited()`` gives its ancestors' shared-chunk terms. Returns chunks checked."""
    name = f"cluster {cluster.id}"
    if cluster.size <= 0:
        out.append(f"{name}: size {cluster.size} is not positive")
    term_chunk = set(cluster.term_chunk)
    if len(term_chunk) != len(cluster.term_chunk):
        out.append(f"{name}: term chunk repeats a term")
    seen: dict[str, int] = {}
    total = 0
    for j, chunk in enumerate(cluster.record_chunks):
        where = f"{name} record chunk {j}"
        _check_subrecords(out, where, chunk)
        if len(chunk) > cluster.size:
            out.append(f"{where}: {len(chunk)} sub-records exceed the cluster size {cluster.size}")
        total += sum(1 for sub in chunk if len(sub) > 0)
        terms = _chunk_terms(chunk)
        for t in sorted(terms):
            if t in seen:
                out.append(f"{where}: term {t!r} also in record chunk {seen[t]} (chunk term sets must be disjoint)")
            else:
                seen[t] = j
            if t in term_chunk:
                out.append(f"{where}: term {t!r} is also in the term chunk")
        _report_itemsets(out, where, "itemset", km_violations(chunk, k, m), k)
    # Lemma 2 (Terrovitis2012 section 5), judged on the VERPART-time term chunk (see module docstring).
    v = len(cluster.record_chunks)
    h = max(1, min(m, v))  # v = 0: every record still needs a piece, i.e. the bound reads with h = 1
    needed = cluster.size + k * (h - 1)
    if total < needed and not term_chunk and not (inherited() - set(seen)):
        out.append(
            f"{name}: Lemma 2 fails: {total} non-empty sub-records in {v} record chunk(s) < "
            f"size {cluster.size} + k*(h-1) = {needed} (h=min(m,v)={h}) and the term chunk is empty"
        )
    return v


def verify(release: Release) -> VerifyReport:
    """Check ``release`` for k^m-anonymity, Lemma 2, Property 1 and structural consistency.

    Terrovitis2012 section 5: Lemmas 2 and 3 together give Guarantee 1 for the whole release.
    Every problem found is one line in ``violations`` naming the cluster / chunk / itemset.
    """
    k, m = release.k, release.m
    out: list[str] = []
    if k < 1:
        out.append(f"params: k={k} must be at least 1")
    if m < 1:
        out.append(f"params: m={m} must be at least 1")
    simple = {c.id: c for c in release.clusters}
    joints = {j.id: j for j in release.joint_clusters}
    parent: dict[str, str] = {}
    for joint in release.joint_clusters:
        for child in joint.children:
            if child not in simple and child not in joints:
                out.append(f"joint cluster {joint.id}: unknown child {child!r}")
            elif child in parent:
                out.append(f"joint cluster {joint.id}: child {child!r} already belongs to "
                           f"joint cluster {parent[child]}")
            else:
                parent[child] = joint.id
    # Guard against cycles before walking the tree.
    for node in list(parent):
        path, cur = {node}, node
        while cur in parent:
            cur = parent[cur]
            if cur in path:
                out.append(f"joint cluster {cur}: the joint clusters form a cycle")
                return VerifyReport(False, out, 0, 0)
            path.add(cur)

    def ancestors(node: str) -> list[JointCluster]:
        chain = []
        while node in parent:
            node = parent[node]
            chain.append(joints[node])
        return chain

    # Per node (cluster or joint cluster), memoised bottom-up: leaves, their record-chunk terms,
    # their term-chunk terms, and the shared-chunk terms of the node and of its descendants.
    memo: dict[str, tuple[list[Cluster], frozenset[str], frozenset[str], frozenset[str]]] = {}
    shared_of = {j.id: frozenset(_shared_terms(j)) for j in release.joint_clusters}

    def summary(node: str) -> tuple[list[Cluster], frozenset[str], frozenset[str], frozenset[str]]:
        got = memo.get(node)
        if got is None:
            if node in simple:
                c = simple[node]
                got = ([c], frozenset(c.record_terms()), frozenset(c.term_chunk), frozenset())
            else:
                parts = [summary(ch) for ch in joints[node].children if ch in simple or ch in joints]
                got = ([leaf for p in parts for leaf in p[0]],
                       frozenset().union(*(p[1] for p in parts)),
                       frozenset().union(*(p[2] for p in parts)),
                       frozenset().union(shared_of[node], *(p[3] for p in parts)))
            memo[node] = got
        return got

    chunks = 0
    for cluster in release.clusters:
        chunks += _check_cluster(
            out, cluster, k, m, lambda cid=cluster.id: set().union(*(shared_of[j.id] for j in ancestors(cid))))

    for joint in release.joint_clusters:
        name = f"joint cluster {joint.id}"
        members = summary(joint.id)[0]
        capacity = sum(c.size for c in members)
        children = [summary(ch) for ch in joint.children if ch in simple or ch in joints]
        # T^r: record-chunk terms of the leaves and shared-chunk terms of the descendant joint clusters
        t_r = frozenset().union(*(p[1] | p[3] for p in children))
        leaf_term_chunks = frozenset().union(*(p[2] for p in children))
        owner: dict[str, int] = {}
        for j, chunk in enumerate(joint.shared_chunks):
            chunks += 1
            where = f"{name} shared chunk {j}"
            _check_subrecords(out, where, chunk)
            if len(chunk) > capacity:
                out.append(f"{where}: {len(chunk)} sub-records exceed the {capacity} records of its leaves")
            terms = _chunk_terms(chunk)
            for t in sorted(terms):
                if t in owner:
                    out.append(f"{where}: term {t!r} also in shared chunk {owner[t]} (term sets must be disjoint)")
                else:
                    owner[t] = j
                if t in leaf_term_chunks:
                    holder = next(c.id for c in members if t in c.term_chunk)
                    out.append(f"{where}: term {t!r} is still in the term chunk of leaf cluster {holder}")
            _report_itemsets(out, where, "itemset", km_violations(chunk, k, m), k)
            overlap = terms & t_r
            if overlap:
                bad = k_anonymity_violations(chunk, k)
                if bad:
                    out.append(
                        f"{where}: Property 1 fails: it holds term(s) of T^r {_fmt(sorted(overlap)[:5])} "
                        f"so it must be k-anonymous, but {len(bad)} distinct sub-record(s) appear fewer than k={k} "
                        f"times, e.g. {_fmt(bad[0][0])} x{bad[0][1]}"
                    )
    return VerifyReport(ok=not out, violations=out, clusters_checked=len(release.clusters), chunks_checked=chunks)
