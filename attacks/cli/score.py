"""`python -m attacks score PAIRS.tsv [--scorer S[,S...]] [--json]`: scorers' relatedness of word pairs.

PAIRS.tsv holds ``word<TAB>word[<TAB>human score]`` lines (``#`` comments; a header line is
skipped), or is the name of a shipped benchmark: ``miller-charles``, ``table4.1`` (AlShuhail2021
Table 4.1 as printed), ``wordsim353``, ``simlex999`` (see :mod:`attacks.semantic.relatedness`).
With one scorer it prints each pair's score and, when human scores are given, Pearson and Spearman
over the pairs the scorer knows; with several (comma-separated) one summary line per scorer.

``table4.1`` also prints the thesis's own NGD' and WE scores beside ours, the correlations the
thesis prints under the table (NGD' 0.72, WE 0.75, Li 0.72, Islam 0.65) and what its columns give
with our correlation code; for the NGD scorer also the Pearson of NGD' as the thesis computes it
(1 - NGD / MAX(NGD) over the 30 pairs). ``--json`` prints one object per scorer (one a line) with
the keys ``pairs``, ``pearson``, ``spearman``, ``unknown`` (and ``scorer``, ``compared``; for
``table4.1`` ``thesis`` and, for NGD, ``ngd_prime``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from typing import Any

from attacks.cli import COMMANDS
from attacks.semantic.reference import DEFAULT_REFERENCE
from attacks.semantic.relatedness import (
    BENCHMARKS,
    TABLE_4_1_PRINTED,
    PairReport,
    benchmark_pairs,
    ngd_prime_pairs,
    read_pairs,
    score_pairs,
    thesis_table_4_1,
)
from attacks.semantic.scorers import DEFAULT_SCORER, SCORER_SPECS, embeddings_format, make_scorer
from corpora.common.errors import ArgumentParser, InputError

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = COMMANDS["score"]
DESCRIPTION = ("Score word pairs with relatedness scorers; correlate with human scores when given "
               "(table4.1: beside the thesis's own values).")
_COLUMN_NAMES = {"ngd_prime": "NGD'", "we": "WE", "li": "Li", "islam": "Islam"}


def add_arguments(p: ArgumentParser) -> None:
    p.error_prefix = "attacks score"
    p.add_argument("pairs", help=f"tab-separated word, word[, human score] file, or one of {', '.join(BENCHMARKS)}")
    p.add_argument("--scorer", default=DEFAULT_SCORER,
                   help=f"{' | '.join(SCORER_SPECS)}, or several comma-separated (default {DEFAULT_SCORER}, "
                        "the semantic attack's default)")
    p.add_argument("--embeddings", metavar="FILE", help="word vectors for glove/hybrid (see attacks semantic --help)")
    p.add_argument("--reference", help=f"NGD reference corpus (default {DEFAULT_REFERENCE}; see attacks semantic "
                                       "--help)")
    p.add_argument("--json", action="store_true", help="print one JSON object per scorer, one a line")


def _fmt(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def _specs(text: str, reference: str | None) -> list[str]:
    specs = [text] if text.startswith("table:") else [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise InputError("attacks score: --scorer names no scorer")
    if reference is not None and "ngd" not in specs:
        raise InputError("attacks score: --reference needs --scorer ngd")
    return specs


def _thesis_json(report: PairReport, prime: PairReport | None) -> dict[str, Any]:
    table = thesis_table_4_1()
    out: dict[str, Any] = {"printed": dict(TABLE_4_1_PRINTED),
                           "recomputed": {c: round(table.pearson(c), 6) for c in table.columns}}
    return {"thesis": out, **({"ngd_prime": prime.as_json()} if prime is not None else {})}


def _print_pairs(report: PairReport, thesis: bool) -> None:
    table = thesis_table_4_1() if thesis else None
    width = max(len(p.a) + len(p.b) for p in report.pairs) + 3
    for i, p in enumerate(report.pairs):
        human = "" if p.human is None else f"  human {p.human:g}"
        if table is not None:
            human += f"  thesis NGD' {table.columns['ngd_prime'][i]:g}, WE {table.columns['we'][i]:g}"
        print(f"{p.a + ' / ' + p.b:<{width}}  {_fmt(p.score):>6}{human}")


def _tail(report: PairReport) -> str:
    tail = f"scorer {report.scorer}: {len(report.pairs)} pairs, unknown {report.unknown}"
    if any(p.human is not None for p in report.pairs):
        tail += f"; Pearson {_fmt(report.pearson)}, Spearman {_fmt(report.spearman)} over {report.compared} pairs"
    return tail


def _print_thesis() -> None:
    table = thesis_table_4_1()
    printed = ", ".join(f"{_COLUMN_NAMES[c]} {v:.2f}" for c, v in TABLE_4_1_PRINTED.items())
    ours = ", ".join(f"{_COLUMN_NAMES[c]} {table.pearson(c):.3f}" for c in table.columns)
    print(f"AlShuhail2021 Table 4.1, Pearson with the human column as printed: {printed}; "
          f"its columns with our correlation code: {ours}")


def run(args: argparse.Namespace) -> int:
    if args.embeddings is not None:
        embeddings_format(args.embeddings)
    if args.pairs in BENCHMARKS and not os.path.exists(args.pairs):
        pairs = benchmark_pairs(args.pairs)
    else:
        pairs = read_pairs(args.pairs)
    thesis = args.pairs == "table4.1" and not os.path.exists(args.pairs)
    specs = _specs(args.scorer, args.reference)
    for spec in specs:
        reference: object = None
        if spec == "ngd":
            reference = args.reference if args.reference is not None else DEFAULT_REFERENCE
        scorer = make_scorer(spec, embeddings=args.embeddings, reference=reference)
        report = score_pairs(scorer, pairs)
        prime = ngd_prime_pairs(report, scorer) if thesis else None
        if args.json:
            extra = _thesis_json(report, prime) if thesis else {}
            print(json.dumps({**report.as_json(), **extra}, ensure_ascii=False))
            continue
        if len(specs) == 1:
            _print_pairs(report, thesis)
        print(_tail(report))
        if prime is not None:
            print(f"  NGD' as the thesis computes it (1 - NGD / MAX(NGD) over these pairs): Pearson "
                  f"{_fmt(prime.pearson)}, Spearman {_fmt(prime.spearman)} over {prime.compared} pairs")
    if thesis and not args.json:
        _print_thesis()
    return 0
