"""The chunk checks of the verifier (:mod:`anonymizer.evaluation.verify`): k^m-anonymity and Lemma 2 of
each cluster, Property 1 and the structure of each joint cluster (Terrovitis2012 sections 3 and 5), one
line per problem. The definitions are those of :mod:`anonymizer.model.conditions`."""

from __future__ import annotations

from collections.abc import Iterable

from anonymizer.evaluation.verify_parse import ParsedCluster, ParsedRelease
from anonymizer.model.conditions import (
    chunk_terms,
    k_anonymity_violations,
    km_violations,
    lemma2_bound,
    lemma2_h,
    lemma2_holds,
)

__all__ = ["MAX_ITEMSETS_PER_CHUNK", "check_cluster", "check_joints", "fmt_itemset"]

MAX_ITEMSETS_PER_CHUNK = 5
"""At most this many failing itemsets are named per chunk (or component); the rest are summarised in one line."""


def fmt_itemset(itemset: Iterable[str]) -> str:
    """``{a, b}``: the terms sorted."""
    return "{" + ", ".join(sorted(itemset)) + "}"


def _report_itemsets(out: list[str], where: str, bad: list[tuple[tuple[str, ...], int]], k: int) -> None:
    for itemset, n in bad[:MAX_ITEMSETS_PER_CHUNK]:
        out.append(f"{where}: itemset {fmt_itemset(itemset)} appears in {n} sub-record(s), fewer than k={k}")
    if len(bad) > MAX_ITEMSETS_PER_CHUNK:
        out.append(f"{where}: ... and {len(bad) - MAX_ITEMSETS_PER_CHUNK} more such itemsets")


def check_cluster(out: list[str], c: ParsedCluster, k: int | None, m: int | None, unsound: set[str],
                   flagged: set[str], passed: list[bool] | None = None) -> str | None:
    """Check one cluster's chunks into ``out``; returns its Lemma 2 failure line, if any (reported
    only when its component is not searched exactly, see :func:`verify`). ``passed``: per record
    chunk, True when it is known to be k^m-anonymous (:mod:`anonymizer.evaluation.verify_arrays`)."""
    name = f"cluster {c.id}"
    term_chunk = set(c.term_chunk)
    seen: dict[str, int] = {}
    before = len(out)
    for j, chunk in enumerate(c.record_chunks):
        where = f"{name} record chunk {j}"
        for t in sorted(chunk_terms(chunk)):
            if t in seen:
                out.append(f"{where}: term {t!r} also in record chunk {seen[t]} (chunk term sets must be disjoint)")
                unsound.add(c.id)
            else:
                seen[t] = j
            if t in term_chunk:
                out.append(f"{where}: term {t!r} is also in the term chunk")
                unsound.add(c.id)
        if k is not None and m is not None and not (passed and passed[j]):
            _report_itemsets(out, where, km_violations(chunk, k, m), k)
    if len(out) > before:
        flagged.add(c.id)
    if k is None or m is None or not c.size:
        return None
    # Lemma 2 (Terrovitis2012 section 5) on the published term chunk, for every cluster.
    v = len(c.record_chunks)
    total = sum(len(chunk) for chunk in c.record_chunks)
    if lemma2_holds(c.size, total, v, k, m, not term_chunk):
        return None
    return (f"{name}: Lemma 2 fails: {total} non-empty sub-records in {v} record chunk(s) < "
            f"size {c.size} + k*(h-1) = {lemma2_bound(c.size, v, k, m)} (h=min(m,v)={lemma2_h(m, v)}) "
            "and the term chunk is empty")


def check_joints(out: list[str], p: ParsedRelease, passed: tuple[list[bool], list[bool]] | None = None) -> int:
    """Property 1 and the structure of every joint cluster; returns the shared chunks checked.
    ``passed``: per shared chunk (release order), whether it is known k^m-anonymous, and k-anonymous."""
    k, m = p.k, p.m
    # Per node, memoised bottom-up: record-chunk terms of its leaves (T^r without shared terms),
    # and shared-chunk terms of it and its descendants.
    record_terms: dict[str, frozenset[str]] = {
        c.id: frozenset().union(*(chunk_terms(ch) for ch in c.record_chunks)) for c in p.clusters}
    inner_terms: dict[str, frozenset[str]] = {}

    chunks = 0
    for joint in p.joints:
        name = f"joint cluster {joint.id}"
        t_r = frozenset().union(*(record_terms[ch] | inner_terms.get(ch, frozenset()) for ch in joint.children))
        record_terms[joint.id] = frozenset().union(*(record_terms[ch] for ch in joint.children))
        owner: dict[str, int] = {}
        before = len(out)
        for j, chunk in enumerate(joint.shared_chunks):
            chunks += 1
            where = f"{name} shared chunk {j}"
            terms = chunk_terms(chunk)
            for t in sorted(terms):
                if t in owner:
                    out.append(f"{where}: term {t!r} also in shared chunk {owner[t]} (term sets must be disjoint)")
                    p.unsound.add(joint.id)
                else:
                    owner[t] = j
            if k is None or m is None:
                continue
            known_km, known_k = (passed[0][chunks - 1], passed[1][chunks - 1]) if passed else (False, False)
            if not known_km:
                _report_itemsets(out, where, km_violations(chunk, k, m), k)
            overlap = terms & t_r
            if overlap:
                bad = [] if known_k else k_anonymity_violations(chunk, k)
                if bad:
                    out.append(
                        f"{where}: Property 1 fails: it holds term(s) of T^r {fmt_itemset(sorted(overlap)[:5])} "
                        f"so it must be k-anonymous, but {len(bad)} distinct sub-record(s) appear fewer than k={k} "
                        f"times, e.g. {fmt_itemset(bad[0][0])} x{bad[0][1]}"
                    )
        if len(out) > before:
            p.flagged.add(joint.id)
        inner_terms[joint.id] = frozenset(owner).union(*(inner_terms.get(ch, frozenset()) for ch in joint.children))
    return chunks
