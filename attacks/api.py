"""The attacks as Python functions: :func:`cover_attack` and :func:`semantic_attack`.

Thin layers over :func:`attacks.cover.detector.run_cover_attack` and
:func:`attacks.semantic.attack.run_semantic_attack` with the defaults of the command lines and the
conveniences a notebook wants: a release may be a :class:`~anonymizer.model.release.Release` or the path
of a release file, a scorer may be a spec (``"glove"``, ``"ngd"``, ``"table:FILE"``).

>>> from corpora import load_dataset
>>> from anonymizer import disassociate
>>> release, truth = disassociate(load_dataset("terrovitis2012-fig2"), k=2, m=2, max_cluster_size=5, seed=7)
>>> cover_attack(release, "strong", truth=truth).attacker
'strong'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from anonymizer.io.release_files import load_release, load_truth
from anonymizer.model.release import Release, Truth
from attacks.cover.detector import CoverReport, run_cover_attack
from attacks.cover.knowledge import Knowledge, make_knowledge
from attacks.cover.problem import flatten
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.result import SemanticResult
from attacks.semantic.scorers import DEFAULT_SCORER, make_scorer
from corpora.dataset import TransactionDataset

__all__ = ["cover_attack", "semantic_attack", "as_release", "as_truth"]


def as_release(release: Release | str | os.PathLike[str]) -> Release:
    """A :class:`Release` as given, or read (and validated) from a release file."""
    return release if isinstance(release, Release) else load_release(release)


def as_truth(truth: Truth | str | os.PathLike[str] | None) -> Truth | None:
    """A :class:`Truth` as given, read from a truth file, or ``None``."""
    return truth if truth is None or isinstance(truth, Truth) else load_truth(truth)


def cover_attack(
    release: Release | str | os.PathLike[str],
    attacker: str = "strong",
    *,
    truth: Truth | str | os.PathLike[str] | None = None,
    original: TransactionDataset | None = None,
    knowledge: Knowledge | Iterable[Sequence[str]] | None = None,
    seed: int = 0,
    moderate_share: float = 0.5,
) -> CoverReport:
    """Cover problems, Barakat2016 Algorithm 1's breaches and Awad2019's PEM (three readings) of ``release``.

    ``attacker`` is one of :data:`attacks.cover.knowledge.ATTACKERS`: ``"strong"`` (Barakat2016
    section 6: every cover problem a breach), ``"strong-per-record"`` (section 4: one well-picked
    itemset per record), ``"moderate"`` or ``"weak"``. Their knowledge is simulated from the real
    records when ``truth`` (or ``original``) is given, as the sweeps do, else from the release alone
    (the strong attacker needs no records); ``knowledge`` (itemsets) replaces the simulation.
    The detector itself reads only the release and the knowledge.
    """
    rel = as_release(release)
    flat = flatten(rel)  # one index for the attacker's knowledge and the detector
    if knowledge is None:
        knowledge = make_knowledge(rel, attacker, seed, truth=as_truth(truth), original=original,
                                   moderate_share=moderate_share, flat=flat)
    return run_cover_attack(rel, attacker, seed, moderate_share, knowledge, flat=flat)


def semantic_attack(
    release: Release | str | os.PathLike[str],
    scorer: Any = DEFAULT_SCORER,
    selector: str = "ABA",
    *,
    chunks: str = "both",
    seed: int = 0,
    unknown: str = "skip",
    **options: Any,
) -> SemanticResult:
    """Reconstruct the records of ``release`` by term relatedness (AlShuhail2021 chapter 4).

    ``scorer`` is a scorer object or a spec for :func:`attacks.semantic.scorers.make_scorer` (default
    :data:`attacks.semantic.scorers.DEFAULT_SCORER`, the command line's: NGD over gensim's Wikipedia
    sample; ignored by the ``random`` and ``VPA`` selectors); ``options``
    go to :func:`attacks.semantic.attack.run_semantic_attack` (``vpa_limit``, ``vpa_budget``,
    ``progress``). Score the result with :func:`attacks.semantic.metrics.evaluate_semantic`.
    """
    rel = as_release(release)
    if selector in ("random", "VPA"):
        scorer = None
    elif isinstance(scorer, str):
        scorer = make_scorer(scorer, unknown=unknown, seed=seed)
    return run_semantic_attack(rel, scorer, selector=selector, chunks=chunks, seed=seed, **options)
