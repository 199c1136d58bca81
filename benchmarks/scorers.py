"""Benchmark: each relatedness scorer on human judgements and in the attack (issue 24; AlShuhail2021 4.1.4, ch. 5).

    python benchmarks/scorers.py [--results DIR] [--jobs N] [--no-attack] [--benchmarks]

Prints one row per scorer: its Pearson correlation with the Miller-Charles judgements (Miller and
Charles's 30 pairs) and with the human column of the thesis's Table 4.1 (the thesis: NGD' 0.72, WE
0.75), the unknown pairs, and its attack edge: accuracy of ABA minus the random baseline (paired on
the same records, mean over seeds 0-2, percentage points) at k = 2..5 on the shipped data the
thesis's sweep uses (the thesis pipeline's pool, density 0.3, max cluster size 25, HORPART adding,
VERPART grouped, REFINE off, both chunk kinds). The attack part runs :data:`SWEEP` with the sweep
machinery (``experiments.sweep``; about 1.5 min on 2 cores, cached in ``--results``); ``--no-attack``
prints the correlations only. ``--benchmarks`` adds WordSim353 and SimLex999.

The metric is the sweep's ``accuracy_vs_random`` (``accuracy``: the share of a record's reconstructed
terms that are its own, as ``attacks.semantic.metrics`` defines it at the time of the run) and, beside
it, the one-to-one edge (``accuracy_one_to_one`` where the steps declare it, else
``accuracy_strict``). NGD scorers: ``ngd`` counts in the default reference (gensim's Wikipedia
sample: what a user gets with no setup), ``ngd:public:thesis`` in the pooled offline corpus holding
the attacked documents (the thesis's web setting), ``ngd:private:thesis`` in the pool without them.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from collections import defaultdict
from pathlib import Path

from attacks.semantic.relatedness import TABLE_4_1_PRINTED, benchmark_pairs, score_pairs
from attacks.semantic.scorers import DEFAULT_SCORER, make_scorer

ROOT = Path(__file__).resolve().parents[1]
KS = (2, 3, 4, 5)
#: scorer spec -> (the sweep's method label of its ABA run, what the user needs to set up)
SCORERS = {
    "ngd": ("NGD-ABA", "none (gensim's Wikipedia sample)"),
    "hybrid": ("WE+WN-ABA", "Debian wordnet-base (else GloVe alone)"),
    "glove": ("WE-ABA", "none (GloVe package)"),
    "wordnet": ("WN-ABA", "Debian WordNet"),
    "ngd:private:thesis": ("NGD(private)-ABA", "the pooled sources (Reuters: Debian weka)"),
    "ngd:public:thesis": ("NGD(public)-ABA", "the pool incl. the attacked documents"),
}
SWEEP = {
    "name": "scorers-benchmark",
    "description": "issue 24: each scorer's accuracy minus random (ABA), thesis pipeline pool, density 0.3",
    "datasets": [{"text": "pool", "label": "Ezine-k", "density": 0.3, "options": {"pipeline": "thesis"},
                  "stand_in": "EzineArticles", "grid": {"k": {"from": 2, "to": 5}, "max_cluster_size": 25}}],
    "grid": {"m": 2, "horpart": "adding", "verpart": "grouped", "refine": False},
    "attacks": {"semantic": {"scorers": ["hybrid", "glove", "wordnet", "ngd"],
                             "ngd_settings": ["public", "private", "source"], "reference": "gensim-wiki",
                             "selectors": ["ABA", "random"], "chunks": ["both"], "bootstrap": 200}},
    "metrics": ["accuracy", "accuracy_vs_random", "accuracy_vs_random_lo", "accuracy_vs_random_hi",
                "unknown_term_share", "semantic_seconds"],
    "seeds": [0, 1, 2],
}
#: the one-to-one reading of accuracy, by the first of these names the installed steps declare
ONE_TO_ONE = ("accuracy_one_to_one", "accuracy_strict")


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def correlations(specs: list[str], names: list[str]) -> dict[str, list[str]]:
    """Per scorer, one ``Pearson (unknown)`` cell per benchmark."""
    pairs = {b: benchmark_pairs(b) for b in names}
    out: dict[str, list[str]] = {}
    for spec in specs:
        started = time.perf_counter()
        scorer = make_scorer("ngd", reference=spec[4:]) if spec.startswith("ngd:") else make_scorer(spec)
        cells = []
        for b in names:
            r = score_pairs(scorer, pairs[b])
            cells.append(f"{_fmt(r.pearson)} ({r.unknown})")
        print(f"  {spec}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
        out[spec] = cells
    return out


def attack_edges(results: str, jobs: int) -> dict[tuple[str, str, int], float]:
    """Mean over seeds of ``accuracy_vs_random`` and the strict edge, per (metric, method, k), in points."""
    from experiments.plugins import metric_info
    from experiments.sweep.runner import run_sweep
    from experiments.sweep.schema import parse_sweep

    one_to_one = next((m for m in ONE_TO_ONE if metric_info(m) is not None), None)
    raw = dict(SWEEP, metrics=SWEEP["metrics"] + ([one_to_one] if one_to_one else []))
    spec = parse_sweep(raw, source="benchmarks/scorers.py", base_dir=str(ROOT))
    result = run_sweep(spec, results_root=results, jobs=jobs, plots=False, out=io.StringIO())
    values: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    strict: dict[tuple[str, int, int], float] = {}
    with open(Path(result.directory) / "results.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["chunks"] != "overall" or row["status"] != "ok" or not row["value"]:
                continue
            k, value = int(row["k"]), float(row["value"]) * 100
            if row["metric"] in ("accuracy_vs_random", "unknown_term_share"):
                values[(row["metric"], row["method"], k)].append(value)
            elif row["metric"] == one_to_one:
                strict[(row["method"], k, int(row["seed"]))] = value
    for (method, k, seed), value in strict.items():  # the one-to-one edge, paired per run
        if method != "random" and (("random", k, seed)) in strict:
            values[("strict_vs_random", method, k)].append(value - strict[("random", k, seed)])
    return {key: sum(v) / len(v) for key, v in values.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(ROOT / "results" / "benchmarks"), help="sweep results root")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes of the sweep (default 1)")
    parser.add_argument("--no-attack", action="store_true", help="print the correlations only")
    parser.add_argument("--benchmarks", action="store_true", help="also WordSim353 and SimLex999")
    args = parser.parse_args(argv)
    names = ["miller-charles", "table4.1"] + (["wordsim353", "simlex999"] if args.benchmarks else [])
    corr = correlations(list(SCORERS), names)
    edges = {} if args.no_attack else attack_edges(args.results, args.jobs)
    head = f"{'scorer':<20}{'setup':<44}" + "".join(f"{n + ' r (unk.)':>22}" for n in names)
    if edges:
        head += "".join(f"{'edge k=' + str(k):>10}" for k in KS) + f"{'mean':>8}{'1:1 mean':>10}{'unknown %':>11}"
    print(head)
    for spec, (method, setup) in SCORERS.items():
        label = spec + (" *" if spec == DEFAULT_SCORER else "")
        line = f"{label:<20}{setup:<44}" + "".join(f"{c:>22}" for c in corr[spec])
        if edges:
            row = [edges.get(("accuracy_vs_random", method, k)) for k in KS]
            one = [edges.get(("strict_vs_random", method, k)) for k in KS]
            line += "".join(f"{'n/a' if v is None else f'{v:+.1f}':>10}" for v in row)
            line += f"{sum(row) / len(row):>+8.1f}" if None not in row else f"{'n/a':>8}"
            line += f"{sum(one) / len(one):>+10.1f}" if None not in one else f"{'n/a':>10}"
            unknown = edges.get(("unknown_term_share", method, KS[0]))
            line += f"{'n/a' if unknown is None else f'{unknown:.1f}':>11}"
        print(line)
    printed = ", ".join(f"{c} {v:.2f}" for c, v in TABLE_4_1_PRINTED.items())
    print(f"* the default scorer (attacks.semantic.scorers.DEFAULT_SCORER). AlShuhail2021 Table 4.1 prints "
          f"{printed} (python -m attacks score table4.1).")
    if edges:
        print("edge: accuracy_vs_random of ABA, percentage points, mean of seeds 0-2; 1:1 mean: the one-to-one "
              "accuracy minus random's, mean over k; unknown %: attacked terms the scorer does not know.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
