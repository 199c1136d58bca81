"""How well a scorer follows human relatedness judgements (AlShuhail2021 section 4.1.4, Table 4.1).

The thesis checks its two measures against 30 human-judged word pairs before trusting them:
"we use the same human judgment sets from the study by Miller and Charles [68] with 30 word pairs
... calculate the correlation ... Table 4.1 shows that WE has the highest correlation by 0.75 and
that NGD correlates with human estimates by 0.72" (section 4.1.4). :func:`score_pairs` does the
same for any scorer of :mod:`attacks.semantic.scorers` and any list of pairs; :func:`read_pairs`
reads a pairs file (tab-separated ``word, word[, human score]``, ``#`` comments);
:func:`benchmark_pairs` gives the shipped benchmarks (:data:`BENCHMARKS`):

* ``miller-charles``: Miller and Charles's own 30 pairs with their published means (Miller and
  Charles 1991, scale 0-4), a data file of this package (``attacks/data/miller_charles_1991.tsv``);
* ``table4.1``: the thesis's Table 4.1 as printed (:func:`thesis_table_4_1`,
  ``attacks/data/alshuhail2021_table4_1.tsv``): 30 pairs, the human score (0-1) and the thesis's
  own NGD', WE, Li and Islam columns. The thesis names Miller and Charles as the source, but its 30
  pairs are those of the sentence benchmark of Li et al. (2006); only 11 are Miller and Charles's;
* ``wordsim353`` and ``simlex999``: the files in gensim's test data (WordSim353: relatedness;
  SimLex999: similarity proper, where related but dissimilar pairs score low).

Pearson and Spearman (:func:`correlations`) are computed over the pairs that have both a human
score and a scorer score; pairs with an unknown term are counted (``unknown``) and left out, never
scored 0. The thesis computes a Pearson correlation (its COV formula over n - 1).
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

__all__ = ["BENCHMARKS", "TABLE_4_1_PRINTED", "PairScore", "PairReport", "ThesisTable", "benchmark_pairs",
           "correlations", "ngd_prime_pairs", "read_pairs", "score_pairs", "thesis_table_4_1"]

BENCHMARKS = ("miller-charles", "table4.1", "wordsim353", "simlex999")
TABLE_4_1_COLUMNS = ("ngd_prime", "we", "li", "islam")
TABLE_4_1_PRINTED = {"ngd_prime": 0.72, "we": 0.75, "li": 0.72, "islam": 0.65}
"""The correlations with the human column AlShuhail2021 prints under Table 4.1 ("Correlation")."""
_DATA = Path(__file__).parents[1] / "data"
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


@dataclass(frozen=True)
class ThesisTable:
    """AlShuhail2021 Table 4.1 as printed: the pairs with their human scores and the thesis's own columns."""

    pairs: tuple[tuple[str, str, float], ...]
    columns: dict[str, tuple[float, ...]]
    """``ngd_prime`` (NGD' = 1 - NGD / MAX(NGD) from Google counts), ``we`` (its word embeddings),
    ``li`` (Li et al. 2006), ``islam`` (Islam and Inkpen 2008): one value per pair."""

    def pearson(self, column: str) -> float:
        """The Pearson correlation of one of the thesis's columns with the human column."""
        r, _rho, _n = correlations([h for _a, _b, h in self.pairs], list(self.columns[column]))
        return float("nan") if r is None else r


def thesis_table_4_1() -> ThesisTable:
    """The shipped transcription of AlShuhail2021 Table 4.1 (``attacks/data/alshuhail2021_table4_1.tsv``)."""
    name = str(_DATA / "alshuhail2021_table4_1.tsv")
    pairs: list[tuple[str, str, float]] = []
    values: list[list[float]] = []
    for lineno, line in enumerate(read_text_bounded(name, MAX_PAIRS_BYTES).splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("word_a"):
            continue
        parts = line.split("\t")
        try:
            numbers = [float(x) for x in parts[2:]]
        except ValueError:
            raise InputError(f"{name}: line {lineno}: expected numbers after the two words") from None
        if len(parts) != 3 + len(TABLE_4_1_COLUMNS):
            raise InputError(f"{name}: line {lineno}: expected word, word, human and {len(TABLE_4_1_COLUMNS)} scores")
        pairs.append((parts[0].lower(), parts[1].lower(), numbers[0]))
        values.append(numbers[1:])
    columns = {c: tuple(v[j] for v in values) for j, c in enumerate(TABLE_4_1_COLUMNS)}
    return ThesisTable(tuple(pairs), columns)


def benchmark_pairs(name: str) -> list[tuple[str, str, float | None]]:
    """The pairs of a shipped benchmark (:data:`BENCHMARKS`), words in lower case."""
    if name == "miller-charles":
        return read_pairs(_DATA / "miller_charles_1991.tsv", lower=True)
    if name == "table4.1":
        return [(a, b, h) for a, b, h in thesis_table_4_1().pairs]
    if name in ("wordsim353", "simlex999"):
        from gensim.test.utils import datapath

        return read_pairs(datapath({"wordsim353": "wordsim353.tsv", "simlex999": "simlex999.txt"}[name]), lower=True)
    raise InputError(f"unknown benchmark {name!r}; choose one of {', '.join(BENCHMARKS)}")


def correlations(human: list[float], scores: list[float]) -> tuple[float | None, float | None, int]:
    """(Pearson, Spearman, n) over the pairs where both values are finite; ``None`` when fewer than 3
    pairs or either side is constant."""
    from scipy.stats import pearsonr, spearmanr

    both = [(h, s) for h, s in zip(human, scores, strict=True) if math.isfinite(h) and math.isfinite(s)]
    if len(both) < 3:
        return None, None, len(both)
    hv = np.array([x for x, _ in both])
    sv = np.array([y for _, y in both])
    if np.ptp(hv) == 0 or np.ptp(sv) == 0:
        return None, None, len(both)
    return float(pearsonr(sv, hv)[0]), float(spearmanr(sv, hv)[0]), len(both)


def score_pairs(scorer: Any, pairs: list[tuple[str, str, float | None]]) -> PairReport:
    """Score every pair with ``scorer`` (one vectorized matrix call) and correlate with the human scores."""
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
    judged = [p for p in report.pairs if p.human is not None]
    report.pearson, report.spearman, report.compared = correlations([p.human for p in judged],  # type: ignore[misc]
                                                                    [p.score for p in judged])
    return report


def ngd_prime_pairs(report: PairReport, scorer: Any) -> PairReport | None:
    """The report re-scored with the thesis's NGD' = 1 - NGD / MAX(NGD), the maximum over these pairs.

    "we convert NGD to NGD' to have a scale from 0 to 1 by using 1 - NGD/MAX(NGD)" (AlShuhail2021
    4.1.4). Our NGD scorer turns a distance into ``exp(-NGD)`` or NGD' with a fixed maximum (so a pair's
    score does not depend on the others); this is the thesis's batch reading, for Table 4.1 only. A pair
    never seen together (NGD infinite) scores 0, an unknown pair stays unknown. ``None`` when ``scorer``
    is not an NGD scorer (no ``distance_matrix``).
    """
    distance_of = getattr(scorer, "distance_matrix", None)
    if distance_of is None:
        return None
    d = np.array([float(distance_of([p.a], [p.b])[0, 0]) for p in report.pairs])
    finite = d[np.isfinite(d)]
    top = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    prime = np.where(np.isnan(d), np.nan, np.where(np.isinf(d), 0.0, 1.0 - d / top))
    out = PairReport(scorer=f"{report.scorer} (NGD' as the thesis)",
                     pairs=[PairScore(p.a, p.b, p.human, float(x)) for p, x in zip(report.pairs, prime, strict=True)])
    out.unknown = int(np.isnan(prime).sum())
    judged = [p for p in out.pairs if p.human is not None]
    out.pearson, out.spearman, out.compared = correlations([p.human for p in judged],  # type: ignore[misc]
                                                           [p.score for p in judged])
    return out
