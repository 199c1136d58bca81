"""How well a scorer follows human relatedness judgements (AlShuhail2021 section 4.1.4, Table 4.1).

The thesis checks its two measures against the Miller-Charles judgements of 30 word pairs before
trusting them (Table 4.1: WE 0.75, NGD 0.72). :func:`score_pairs` does the same for any scorer of
:mod:`attacks.semantic.scorers` and any list of pairs; :func:`read_pairs` reads a pairs file (tab-separated
``word, word[, human score]``, ``#`` comments); :func:`benchmark_pairs` gives the three shipped
benchmarks:

* ``miller-charles``: the 30 pairs with their published means (Miller and Charles 1991), a small
  data file of this package (``attacks/data/miller_charles_1991.tsv``);
* ``wordsim353`` and ``simlex999``: the files in gensim's test data (WordSim353: relatedness;
  SimLex999: similarity proper, where related but dissimilar pairs score low).

Pearson and Spearman are computed over the pairs that have both a human score and a scorer score;
pairs with an unknown term are counted (``unknown``) and left out, never scored 0.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from corpora.common.errors import InputError
from corpora.common.files import read_text_bounded

__all__ = ["BENCHMARKS", "PairScore", "PairReport", "benchmark_pairs", "read_pairs", "score_pairs"]

BENCHMARKS = ("miller-charles", "wordsim353", "simlex999")
MAX_PAIRS_BYTES = 64 << 20
MAX_PAIRS = 1_000_000


@dataclass(frozen=True)
class PairScore:
    """One pair: the words, the human score (``None`` when not given) and the scorer's (``nan``: unknown)."""

    a: str
    b: str
    human: float | None
    score: float


@dataclass
class PairReport:
    """The scores of a list of pairs and, with human scores, the correlations."""

    scorer: str
    pairs: list[PairScore] = field(default_factory=list)
    pearson: float | None = None
    spearman: float | None = None
    unknown: int = 0
    """Pairs the scorer could not score (an unknown term)."""
    compared: int = 0
    """Pairs with both a human and a scorer score (the correlations' n)."""

    def as_json(self) -> dict[str, Any]:
        """One JSON-ready object: ``pairs``, ``pearson``, ``spearman``, ``unknown`` (and ``scorer``, ``compared``)."""

        def num(x: float | None) -> float | None:
            return None if x is None or math.isnan(x) else round(float(x), 6)

        return {
            "scorer": self.scorer,
            "pairs": [{"a": p.a, "b": p.b, "human": p.human, "score": num(p.score)} for p in self.pairs],
            "pearson": num(self.pearson),
            "spearman": num(self.spearman),
            "unknown": self.unknown,
            "compared": self.compared,
        }


def read_pairs(path: str | os.PathLike[str], lower: bool = False) -> list[tuple[str, str, float | None]]:
    """Pairs from a tab-separated file: ``word<TAB>word[<TAB>human score]`` per line.

    Empty lines and lines starting with ``#`` are skipped; a first line whose third field is not a
    number is taken as a header. Either every pair has a human score or none has. InputError (one
    line naming the file and line) for anything else.
    """
    name = str(path)
    if not os.path.isfile(name):
        raise InputError(f"{name}: pairs file not found")
    text = read_text_bounded(name, MAX_PAIRS_BYTES)
    out: list[tuple[str, str, float | None]] = []
    first = True
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.rstrip("\r\n").split("\t")]
        if len(parts) not in (2, 3) or not parts[0] or not parts[1]:
            raise InputError(f"{name}: line {lineno}: expected word<TAB>word[<TAB>human score]")
        human: float | None = None
        if len(parts) == 3:
            try:
                human = float(parts[2])
            except ValueError:
                if first:
                    first = False
                    continue  # a header line
                raise InputError(f"{name}: line {lineno}: human score {parts[2][:30]!r} is not a number") from None
            if not math.isfinite(human):
                raise InputError(f"{name}: line {lineno}: human score must be a finite number")
        first = False
        a, b = (parts[0].lower(), parts[1].lower()) if lower else (parts[0], parts[1])
        out.append((a, b, human))
        if len(out) > MAX_PAIRS:
            raise InputError(f"{name}: more than {MAX_PAIRS} pairs")
    if not out:
        raise InputError(f"{name}: no word pairs")
    if len({h is None for _a, _b, h in out}) > 1:
        raise InputError(f"{name}: give a human score on every line or on none")
    return out


def benchmark_pairs(name: str) -> list[tuple[str, str, float | None]]:
    """The pairs of a shipped benchmark (:data:`BENCHMARKS`), words in lower case."""
    if name == "miller-charles":
        return read_pairs(Path(__file__).parents[1] / "data" / "miller_charles_1991.tsv", lower=True)
    if name in ("wordsim353", "simlex999"):
        from gensim.test.utils import datapath

        return read_pairs(datapath({"wordsim353": "wordsim353.tsv", "simlex999": "simlex999.txt"}[name]), lower=True)
    raise InputError(f"unknown benchmark {name!r}; choose one of {', '.join(BENCHMARKS)}")


def score_pairs(scorer: Any, pairs: list[tuple[str, str, float | None]]) -> PairReport:
    """Score every pair with ``scorer`` (one vectorized matrix call) and correlate with the human scores."""
    from scipy.stats import pearsonr, spearmanr

    left = list(dict.fromkeys(a for a, _b, _h in pairs))
    right = list(dict.fromkeys(b for _a, b, _h in pairs))
    li = {t: i for i, t in enumerate(left)}
    ri = {t: i for i, t in enumerate(right)}
    policy = getattr(scorer, "unknown", "skip")
    if policy == "zero":
        scorer.unknown = "skip"  # an unknown pair is reported as unknown here, never as 0
    try:
        matrix = np.asarray(scorer.score_matrix(left, right), dtype=float)
    finally:
        scorer.unknown = policy
    report = PairReport(scorer=getattr(scorer, "name", "scorer"))
    for a, b, h in pairs:
        s = 1.0 if a == b and not math.isnan(matrix[li[a], ri[b]]) else float(matrix[li[a], ri[b]])
        report.pairs.append(PairScore(a, b, h, s))
    report.unknown = sum(1 for p in report.pairs if math.isnan(p.score))
    both = [(p.human, p.score) for p in report.pairs if p.human is not None and not math.isnan(p.score)]
    report.compared = len(both)
    if len(both) >= 3:
        hv = np.array([x for x, _ in both])
        sv = np.array([y for _, y in both])
        if np.ptp(hv) > 0 and np.ptp(sv) > 0:
            report.pearson = float(pearsonr(sv, hv)[0])
            report.spearman = float(spearmanr(sv, hv)[0])
    return report
