"""`python -m attacks semantic RELEASE ...`: run the semantic attack on a release file.

Writes the reconstructed records, one JSON array of terms per line (clusters in release order;
within a cluster the records anchored by the listed C_1 sub-records in listed order, then the empty
anchors). With ``--truth`` and ``--original`` it prints the metric table (attack beside the random
baseline, 95% bootstrap intervals), then the paired difference attack minus random and the blind
placement and oracle ceiling (see :func:`attacks.semantic.metrics.evaluate_semantic`);
``--json`` prints all of it as one JSON object instead, ``--metrics-csv`` also writes tidy CSV rows.
Without ``--scorer`` the scorer is the default NGD over gensim's Wikipedia sample (offline, no setup): on the
shipped data it attacks best of the scorers a user gets without setup, while the hybrid (GloVe with
WordNet) follows human judgements far better (``docs/scorers.md``, ``benchmarks/scorers.py``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys

from anonymizer.io.release_files import load_release, load_truth
from anonymizer.model.release import Release, Truth
from attacks.cli import COMMANDS
from attacks.semantic.attack import CHUNK_PARTS, DEFAULT_VPA_LIMIT, SCORING, run_semantic_attack
from attacks.semantic.metrics import evaluate_semantic
from attacks.semantic.reference import NGD_SETTINGS
from attacks.semantic.result import SemanticResult
from attacks.semantic.scorers import (
    DEFAULT_SCORER,
    SCORER_SPECS,
    UNKNOWN_POLICIES,
    embeddings_format,
    load_embeddings,
    make_scorer,
)
from attacks.semantic.selectors import SELECTORS
from attacks.semantic.web_counts import WebConfig
from corpora.common.bounds import int_option
from corpora.common.errors import ArgumentParser, InputError
from corpora.common.files import atomic_open, check_output_paths
from corpora.common.seeds import seed_argument

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = COMMANDS["semantic"]
DESCRIPTION = "Semantic attack on a disassociated release (AlShuhail2021 ch. 4)."


def add_arguments(p: ArgumentParser) -> None:
    p.error_prefix = "attacks semantic"
    p.add_argument("release", help="release JSON file (format disassociated/1)")
    p.add_argument("--scorer", default=DEFAULT_SCORER,
                   help=f"{' | '.join(SCORER_SPECS)} (default {DEFAULT_SCORER}, counting in --reference: of the "
                   "scorers that need no setup it attacks best on the shipped data; hybrid = GloVe with WordNet "
                   "follows human judgements better; see docs/scorers.md)")
    p.add_argument(
        "--embeddings",
        metavar="FILE",
        help="word vectors for glove and for WMD: word2vec/GloVe text (header-less GloVe is detected; .gz ok), "
        "word2vec binary .bin, or NAME.npy with its words in NAME.words; default GloVe 6B 50d",
    )
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="also accept a gensim .kv/.model file as --embeddings. Such a file is a Python pickle: loading "
        "it runs any code its author put in it, so use this only for files you made or fully trust",
    )
    p.add_argument(
        "--reference",
        help="NGD reference corpus: a text source of corpora.text.api or a file (one document a line); "
        "default: gensim's Wikipedia sample",
    )
    p.add_argument(
        "--ngd-setting",
        choices=NGD_SETTINGS,
        help="NGD threat setting over the pooled offline corpus (text sources + WordNet glosses): public = it "
        "contains the published documents (the thesis's web setting), private = disjoint from them; "
        "--reference then names the attacked text source(s), comma-separated (default: all pooled sources)",
    )
    p.add_argument(
        "--ngd-web",
        metavar="CONFIG.json",
        help="NGD counts from a web search API configured by this JSON file "
        "(see attacks.semantic.web_counts.WebConfig)",
    )
    p.add_argument(
        "--unknown",
        choices=UNKNOWN_POLICIES,
        default="skip",
        help="policy for terms the scorer does not know (default skip)",
    )
    p.add_argument("--selector", choices=SELECTORS, default="ABA",
                   help="how terms are placed on records (AlShuhail2021 ch. 4): ABA (anchor by best association, "
                        "default), RGA, MRA, VPA (no scorer), assign (one-to-one assignment), ABA-spread (a labelled "
                        "departure: a term's copies go to distinct anchor contents), random (the baseline)")
    p.add_argument("--chunks", choices=CHUNK_PARTS, default="both",
                   help="which chunks the attack reconstructs: record (record and shared chunks), term (the term "
                        "chunk) or both (default)")
    p.add_argument("--seed", type=seed_argument, default=0, help="seed of the random choices (default 0)")
    p.add_argument("--vpa-limit", type=int_option("--vpa-limit", 1, 10**9), default=DEFAULT_VPA_LIMIT,
                   help="VPA: most trials per chunk")
    p.add_argument(
        "--vpa-budget", type=int_option("--vpa-budget", 0, 10**12), default=None,
            help="VPA: most trials over the whole attack (default: no bound)"
    )
    p.add_argument("-o", "--output", required=True, help="reconstructed records, JSON lines")
    p.add_argument("--truth", help="truth JSON file (to print the metrics: accuracy = eq. 5.4 as printed, C1 terms "
                   "counted; accuracy_one_to_one on a fixed record pairing; accuracy_disassociated with C1 left out; "
                   "transaction and k^m breakage; WMD)")
    p.add_argument("--original", help="original dataset file (to print the metrics)")
    p.add_argument("--bootstrap", type=int_option("--bootstrap", 0, 100_000), default=1000,
                   help="bootstrap resamples for the 95%% intervals")
    p.add_argument("--no-wmd", action="store_true", help="skip the WMD metric")
    p.add_argument("--metrics-csv", help="also write the metric rows to this CSV file")
    p.add_argument("--json", action="store_true",
                   help="print the metrics (attack, random, blind, oracle, difference_vs_random) as one JSON object")


def _read_original(path: str):  # noqa: ANN202 - returns a TransactionDataset
    from corpora.registry import load_dataset

    return load_dataset(path)


def _embeddings(args: argparse.Namespace) -> object:
    """The --embeddings vectors, loaded once for the scorer and WMD (None: the default GloVe)."""
    if args.embeddings is None:
        return None
    if not hasattr(args, "_vectors"):
        args._vectors = load_embeddings(args.embeddings, trust_pickle=args.trust_pickle)
    return args._vectors


def _check(args: argparse.Namespace) -> None:
    """The option combinations that are refused before any file is read."""
    if (args.truth is None) != (args.original is None):
        raise InputError("attacks semantic: --truth and --original go together")
    if args.bootstrap < 0:
        raise InputError("attacks semantic: --bootstrap must be >= 0")
    if args.vpa_limit < 1:
        raise InputError(f"attacks semantic: --vpa-limit must be >= 1, got {args.vpa_limit}")
    if args.vpa_budget is not None and args.vpa_budget < 0:
        raise InputError(f"attacks semantic: --vpa-budget must be >= 0, got {args.vpa_budget}")
    if args.json and args.truth is None:
        raise InputError("attacks semantic: --json needs --truth and --original (it prints the metrics)")
    if args.ngd_setting and args.scorer != "ngd":
        raise InputError("attacks semantic: --ngd-setting needs --scorer ngd")
    if args.ngd_setting and args.ngd_web:
        raise InputError("attacks semantic: --ngd-setting and --ngd-web exclude each other")
    if args.metrics_csv and args.truth is None:
        raise InputError("attacks semantic: --metrics-csv needs --truth and --original (the metrics need them)")
    check_output_paths({"output": args.output, "--metrics-csv": args.metrics_csv},
                       {"release": args.release, "--truth": args.truth, "--original": args.original,
                        "--embeddings": args.embeddings, "--reference": args.reference, "--ngd-web": args.ngd_web})
    if args.embeddings is not None:  # refused before any work when it may run code (see --trust-pickle)
        embeddings_format(args.embeddings, trust_pickle=args.trust_pickle)


def _scorer(args: argparse.Namespace) -> object:
    """The scorer of a scoring selector (None for VPA and random); names the NGD reference on stderr."""
    if args.selector not in SCORING:
        return None
    reference: object = args.reference
    if args.ngd_setting:
        reference = f"{args.ngd_setting}:{args.reference or 'thesis'}"
    if args.ngd_web:
        if args.scorer != "ngd":
            raise InputError("attacks semantic: --ngd-web needs --scorer ngd")
        reference = WebConfig.from_file(args.ngd_web)
    vectors = _embeddings(args) if args.scorer in ("glove", "embeddings") else None
    scorer = make_scorer(args.scorer, embeddings=vectors, reference=reference, unknown=args.unknown, seed=args.seed)
    info = getattr(getattr(scorer, "backend", None), "info", None)
    if info is not None:
        print(f"NGD reference ({info.setting}): {info.documents} documents: {'; '.join(info.parts)}",
              file=sys.stderr)
        if info.missing:
            print(f"note: absent here, left out of the reference: {', '.join(info.missing)}", file=sys.stderr)
    return scorer


def _summary_line(args: argparse.Namespace, summary: dict) -> str:
    message = (
        f"semantic {summary['selector']}: {summary['records']} records -> {args.output}; "
        f"unknown terms {summary['unknown_terms']} of {summary['distinct_terms']} "
        f"({summary['unknown_occurrences']} occurrences, "
        f"policy {summary['unknown_policy']}); pieces without evidence {summary['no_evidence_pieces']}; "
    )
    if args.selector == "VPA":
        message += (
            f"VPA trials {summary['vpa_trials']}, cut short {summary['vpa_cut_chunks']}, "
            f"no match {summary['vpa_failed_chunks']}; "
        )
    return message + f"{summary['seconds']:.2f} s"


def _report_metrics(args: argparse.Namespace, result: SemanticResult, release: Release, truth: Truth,
                    original: object, summary: dict) -> None:
    """Print the metrics beside the baselines (table or JSON) and write --metrics-csv."""
    metrics = evaluate_semantic(
        result,
        release,
        truth,
        original,
        seed=args.seed,
        embeddings=_embeddings(args) if not args.no_wmd else None,
        bootstrap=args.bootstrap,
        wmd=not args.no_wmd,
        baselines=("random", "blind", "oracle"),
    )
    metrics.info = dict(summary)
    if args.json:
        print(json.dumps(metrics.as_json(), ensure_ascii=False))
    else:
        print(metrics.format_table())
    if args.metrics_csv:
        with atomic_open(args.metrics_csv, "w") as handle:
            writer = csv.DictWriter(handle, fieldnames=["metric", "part", "method", "value", "lo", "hi", "n"])
            writer.writeheader()
            writer.writerows(metrics.as_rows())


def run(args: argparse.Namespace) -> int:
    _check(args)
    release = load_release(args.release)
    truth = load_truth(args.truth) if args.truth else None
    if truth is not None:
        truth.check_against(release)
    original = _read_original(args.original) if args.original else None
    scorer = _scorer(args)
    result = run_semantic_attack(
        release,
        scorer,
        selector=args.selector,
        chunks=args.chunks,
        seed=args.seed,
        vpa_limit=args.vpa_limit,
        vpa_budget=args.vpa_budget,
    )
    with atomic_open(args.output, "w") as handle:
        for record in result.records():
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    summary = result.summary()
    print(_summary_line(args, summary), file=sys.stderr)
    if truth is not None:
        _report_metrics(args, result, release, truth, original, summary)
    return 0
