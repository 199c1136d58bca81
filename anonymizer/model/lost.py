"""tlost, the share of frequent terms a release keeps only in term chunks (Terrovitis2012 section 7.1).

Defined once here; :func:`anonymizer.evaluation.loss.tlost` (a release against its original) and
the split runs' figures (:mod:`anonymizer.disassociation.parts`) both call :func:`tlost_share`.

Terrovitis2012 section 7.1 measures "the percentage of terms tlost that have support more than k
in the original dataset D but they are placed in term chunks by our method": a term is frequent
when its support is *more than* k (``s > k``), the paper's reading and the default. The variant
``at_least_k=True`` counts terms with ``s >= k``, the threshold of k^m-anonymity itself (a term
of support exactly k may also stay in a record chunk); it is the reading this project used before
and is kept, named ``tlost_at_least_k``, beside the paper's.
"""

from __future__ import annotations

from collections.abc import Container, Mapping

__all__ = ["frequent_terms", "tlost_share"]


def frequent_terms(supports: Mapping[str, int], k: int, *, at_least_k: bool = False) -> list[str]:
    """The terms tlost traces: support more than ``k`` (or at least ``k`` with ``at_least_k``)."""
    if at_least_k:
        return [t for t, n in supports.items() if n >= k]
    return [t for t, n in supports.items() if n > k]


def tlost_share(supports: Mapping[str, int], k: int, kept: Container[str], in_term_chunks: Container[str], *,
                at_least_k: bool = False) -> float:
    """Share of the frequent terms (:func:`frequent_terms`) found in term chunks and in no published
    sub-record (``kept``: terms of record and shared chunks); 0.0 when no term is frequent."""
    frequent = frequent_terms(supports, k, at_least_k=at_least_k)
    if not frequent:
        return 0.0
    lost = sum(1 for t in frequent if t in in_term_chunks and t not in kept)
    return lost / len(frequent)
