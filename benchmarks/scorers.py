"""Benchmark: how each relatedness scorer follows human judgements (AlShuhail2021 Table 4.1).

    python benchmarks/scorers.py [--scorers glove,wordnet,hybrid,ngd:public:thesis,ngd:private:lee]

Prints Pearson and Spearman (and the pairs a scorer does not know) of each scorer on the
Miller-Charles pairs (30, Miller and Charles 1991; the thesis's benchmark), WordSim353 (353,
relatedness) and SimLex999 (999, similarity proper), plus the seconds each took. NGD scorers are
named ``ngd:REFERENCE`` (``ngd:gensim-wiki``, ``ngd:lee``, ``ngd:public:thesis``, ...). Unknown
pairs are left out of the correlations and counted.
"""

from __future__ import annotations

import argparse
import sys
import time

from attacks.semantic.relatedness import BENCHMARKS, benchmark_pairs, score_pairs
from attacks.semantic.scorers import make_scorer

DEFAULT = "glove,wordnet,hybrid,ngd:gensim-wiki,ngd:private:lee,ngd:public:lee"


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorers", default=DEFAULT)
    args = parser.parse_args(argv)
    pairs = {b: benchmark_pairs(b) for b in BENCHMARKS}
    print(f"{'scorer':<22}" + "".join(f"{b + ' r / rho (unknown)':>34}" for b in BENCHMARKS) + f"{'seconds':>9}")
    for spec in args.scorers.split(","):
        started = time.perf_counter()
        if spec.startswith("ngd:"):
            scorer = make_scorer("ngd", reference=spec[4:])
        else:
            scorer = make_scorer(spec)
        cells = []
        for b in BENCHMARKS:
            r = score_pairs(scorer, pairs[b])
            cells.append(f"{_fmt(r.pearson)} / {_fmt(r.spearman)} ({r.unknown})")
        took = time.perf_counter() - started
        print(f"{spec:<22}" + "".join(f"{c:>34}" for c in cells) + f"{took:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
