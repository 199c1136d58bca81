"""Attacks on disassociated data: the cover problem (Barakat2016, Awad2019) and the semantic attack (AlShuhail2021).

The Python API (loaded on first use, so that ``import attacks`` stays cheap)::

    from attacks import audit, cover_attack, semantic_attack, make_scorer

    report = cover_attack(release, "strong", truth=truth)    # CoverReport: breaches, PEM, cover problems
    result = semantic_attack(release, "glove", "ABA")        # SemanticResult: reconstructed records
    verdict = audit(release, original=ds, truth=truth)       # AuditReport: is it safe to publish?
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["AuditReport", "CoverReport", "SemanticResult", "audit", "cover_attack", "evaluate_semantic",
           "make_knowledge", "make_scorer", "semantic_attack"]

_LAZY = {
    "cover_attack": ("attacks.api", "cover_attack"),
    "semantic_attack": ("attacks.api", "semantic_attack"),
    "make_scorer": ("attacks.semantic.scorers", "make_scorer"),
    "make_knowledge": ("attacks.cover.knowledge", "make_knowledge"),
    "evaluate_semantic": ("attacks.semantic.metrics", "evaluate_semantic"),
    "audit": ("attacks.auditing", "audit"),
    "AuditReport": ("attacks.auditing", "AuditReport"),
    "CoverReport": ("attacks.cover.detector", "CoverReport"),
    "SemanticResult": ("attacks.semantic.result", "SemanticResult"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'attacks' has no attribute {name!r}") from None
    return getattr(import_module(module), attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
