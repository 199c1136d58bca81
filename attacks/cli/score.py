"""`python -m attacks score PAIRS.tsv [--scorer ...] [--json]`: a scorer's relatedness of word pairs.

PAIRS.tsv holds ``word<TAB>word[<TAB>human score]`` lines (``#`` comments; a header line is
skipped), or is the name of a shipped benchmark: ``miller-charles``, ``wordsim353``,
``simlex999`` (see :mod:`attacks.semantic.relatedness`). Prints each pair's score and, when human scores are
given, Pearson and Spearman over the pairs the scorer knows; ``--json`` prints one object with the
keys ``pairs``, ``pearson``, ``spearman``, ``unknown`` (and ``scorer``, ``compared``).
"""

from __future__ import annotations

import argparse
import json
import math
import os

from attacks.semantic.reference import DEFAULT_REFERENCE
from attacks.semantic.relatedness import BENCHMARKS, benchmark_pairs, read_pairs, score_pairs
from attacks.semantic.scorers import DEFAULT_SCORER, SCORER_SPECS, embeddings_format, make_scorer
from corpora.common.errors import ArgumentParser, InputError

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = "a relatedness scorer's scores of word pairs, and its correlation with human scores"
DESCRIPTION = "Score word pairs with a relatedness scorer; correlate with human scores when given."


def add_arguments(p: ArgumentParser) -> None:
    p.error_prefix = "attacks score"
    p.add_argument("pairs", help=f"tab-separated word, word[, human score] file, or one of {', '.join(BENCHMARKS)}")
    p.add_argument("--scorer", default=DEFAULT_SCORER,
                   help=f"{' | '.join(SCORER_SPECS)} (default {DEFAULT_SCORER}: GloVe with WordNet)")
    p.add_argument("--embeddings", metavar="FILE", help="word vectors for glove/hybrid (see attacks semantic --help)")
    p.add_argument("--reference", help="NGD reference corpus (see attacks semantic --help)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.embeddings is not None:
        embeddings_format(args.embeddings)
    if args.pairs in BENCHMARKS and not os.path.exists(args.pairs):
        pairs = benchmark_pairs(args.pairs)
    else:
        pairs = read_pairs(args.pairs)
    if args.reference is not None and args.scorer != "ngd":
        raise InputError("attacks score: --reference needs --scorer ngd")
    reference: object = args.reference if args.reference is not None else None
    if args.scorer == "ngd" and reference is None:
        reference = DEFAULT_REFERENCE
    scorer = make_scorer(args.scorer, embeddings=args.embeddings, reference=reference)
    report = score_pairs(scorer, pairs)
    if args.json:
        print(json.dumps(report.as_json(), ensure_ascii=False))
        return 0

    def fmt(x: float | None) -> str:
        return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"

    width = max(len(p.a) + len(p.b) for p in report.pairs) + 3
    for p in report.pairs:
        human = "" if p.human is None else f"  human {p.human:g}"
        print(f"{p.a + ' / ' + p.b:<{width}}  {fmt(p.score):>6}{human}")
    tail = f"scorer {report.scorer}: {len(report.pairs)} pairs, unknown {report.unknown}"
    if any(p.human is not None for p in report.pairs):
        tail += f"; Pearson {fmt(report.pearson)}, Spearman {fmt(report.spearman)} over {report.compared} pairs"
    print(tail)
    return 0
