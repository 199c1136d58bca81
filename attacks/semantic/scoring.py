"""What a relatedness scorer is, and its unknown-term policy (AlShuhail2021 sections 4.1-4.2.1).

A scorer gives the relatedness of two terms as a float in [0, 1] (higher = more related) and a
vectorized ``score_matrix`` for term lists (:class:`Scorer`). The scorers themselves (GloVe, NGD,
WordNet, the hybrid default, a replayed table) are in :mod:`attacks.semantic.scorers`; here are
their shared base and the constant scorer of the blind baseline.

Unknown terms are never silently scored 0 or 1. The policy is explicit (``unknown=``):

* ``"skip"`` (default): a pair with an unknown term scores ``nan``, meaning *no evidence*; the
  selectors leave such pairs out of their averages and maxima, and an anchor with no evidence at
  all ranks after every anchor with evidence;
* ``"zero"``: such pairs score 0.0 (the "least related" reading);
* ``"error"``: an :class:`~corpora.common.errors.InputError` naming the term.

Every scorer records the unknown terms it met (``unknown_terms``) and the number of pair scores it
could not give (``unknown_pairs``); the attack report counts them.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from corpora.common.errors import InputError

__all__ = ["UNKNOWN_POLICIES", "Scorer", "BaseScorer", "ConstantScorer"]

UNKNOWN_POLICIES = ("skip", "zero", "error")


@runtime_checkable
class Scorer(Protocol):
    """What the selectors need from a scorer."""

    name: str
    unknown: str
    unknown_terms: set[str]
    unknown_pairs: int

    def known(self, terms: Sequence[str]) -> np.ndarray:
        """Boolean array: does the scorer know each term?"""
        ...

    def score(self, a: str, b: str) -> float:
        """Relatedness of two terms in [0, 1] (``nan`` = no evidence under ``unknown="skip"``)."""
        ...

    def score_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """Relatedness of every pair, shape (len(terms_a), len(terms_b))."""
        ...


class BaseScorer(abc.ABC):
    """Shared unknown-term policy and bookkeeping. Subclasses implement :meth:`_raw_matrix`
    (``nan`` for pairs the scorer cannot score) and :meth:`known`."""

    name = "scorer"

    def __init__(self, unknown: str = "skip") -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise InputError(f"unknown-term policy must be one of {', '.join(UNKNOWN_POLICIES)}, got {unknown!r}")
        self.unknown = unknown
        self.unknown_terms: set[str] = set()
        self.unknown_pairs = 0

    @abc.abstractmethod
    def known(self, terms: Sequence[str]) -> np.ndarray:
        """Boolean array: does the scorer know each term?"""

    @abc.abstractmethod
    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """Relatedness of every pair in [0, 1], ``nan`` where the scorer has no evidence."""

    def score_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        terms_a, terms_b = list(terms_a), list(terms_b)
        mat = np.asarray(self._raw_matrix(terms_a, terms_b), dtype=float).reshape(len(terms_a), len(terms_b))
        holes = np.isnan(mat)
        if holes.any():
            n_holes = int(holes.sum())
            self.unknown_pairs += n_holes
            ka, kb = self.known(terms_a), self.known(terms_b)
            bad = [t for t, k in zip(terms_a, ka, strict=True) if not k] + [
                t for t, k in zip(terms_b, kb, strict=True) if not k
            ]
            self.unknown_terms.update(bad)
            if self.unknown == "error":
                if bad:
                    raise InputError(f"{self.name} scorer: unknown term {sorted(bad)[0]!r}")
                ia, ib = np.argwhere(holes)[0]
                raise InputError(f"{self.name} scorer: no score for the pair {terms_a[ia]!r}, {terms_b[ib]!r}")
            if self.unknown == "zero":
                mat = np.where(holes, 0.0, mat)
        return mat

    def score(self, a: str, b: str) -> float:
        return float(self.score_matrix([a], [b])[0, 0])


class ConstantScorer(BaseScorer):
    """Every pair scores the same: the selectors' order among equal scores alone decides (the blind baseline).

    With equal scores ABA ranks the anchors in listed order and empty anchors last, so the blind
    placement shows what the placement rule earns without any semantic signal.
    """

    name = "constant"

    def known(self, terms: Sequence[str]) -> np.ndarray:
        return np.ones(len(terms), dtype=bool)

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        return np.ones((len(terms_a), len(terms_b)))
