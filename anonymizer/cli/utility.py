"""`python -m anonymizer utility INPUT RELEASE [--reconstructions R] [--top-k K] [--seed S] [--re-range A B]
[--json] [--hierarchy FILE | --fanout F] [--before RELEASE]`: tKd, tKd-a, re, re-a, tlost
(:mod:`anonymizer.evaluation.utility`), tKd-ML^2 and NCP (:mod:`anonymizer.evaluation.multilevel`), Awad2019's RAE
and, for a safe release with ``--before`` (the release it was made from), RLM
(:mod:`anonymizer.evaluation.safe_metrics`) of a disassociated, safe or ``generalized/1`` release
(Apriori, DiffPart; the metrics that do not apply print ``n/a``); INPUT is a dataset file or a
registered dataset name, checked against the release
(:func:`anonymizer.evaluation.consistency.check_original`). Without ``--re-range`` re takes the ranks
200-220, adapted to an INPUT with fewer distinct terms (the report says so)."""

from __future__ import annotations

import argparse
import json
import time

from anonymizer.cli import COMMANDS
from anonymizer.cli.baselines import hierarchy_for
from anonymizer.cli.common import load_input_dataset, peek_format
from anonymizer.evaluation.multilevel import baseline_utility
from anonymizer.evaluation.report import UtilityReport
from anonymizer.evaluation.utility import resolve_re_range, utility_report
from anonymizer.io.release_files import load_release
from anonymizer.model.release import Release
from corpora.cli.options import add_reading_options, reading_options
from corpora.common.background import Background
from corpora.common.bounds import MAX_RECORDS, int_option
from corpora.common.errors import InputError
from corpora.common.gcpause import no_gc
from corpora.common.seeds import seed_argument
from corpora.io.formats import FORMATS

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = COMMANDS["utility"]

MAX_RECONSTRUCTIONS = 10_000
"""Most reconstructions ``utility`` averages (each is a full pass over the release)."""

DESCRIPTION = ("Information loss of a release: tKd, tKd-a, re, re-a, tlost, tKd-ML^2, NCP (Terrovitis2012 6-7), "
                "RAE and RLM (Awad2019 5.1); disassociated, safe or generalized/1 (apriori, diffpart).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer utility``."""
    parser.add_argument("input", nargs="?", default=None,
                        help="the original dataset: a file or a registered dataset name (none with --sql/--db)")
    parser.add_argument("release", help="release file (JSON or parquet)")
    # INPUT may be left out (--sql QUERY --db URL), and options may still stand between INPUT and RELEASE
    parser.intermixed = True  # type: ignore[attr-defined]
    parser.add_argument("--format", choices=FORMATS, default=None, help="format of INPUT (default: by extension)")
    add_reading_options(parser, what="INPUT")
    parser.add_argument("--reconstructions", type=int_option("--reconstructions", 1, MAX_RECONSTRUCTIONS), default=1,
                        help="reconstructions to average (default 1)")
    parser.add_argument("--top-k", type=int_option("--top-k", 1, MAX_RECORDS), default=1000,
                        help="K of tKd (default 1000)")
    parser.add_argument("--seed", type=seed_argument, default=0, help="seed of the first reconstruction (default 0)")
    parser.add_argument("--re-range", type=int_option("--re-range", 0, MAX_RECORDS), nargs=2, default=None,
                        metavar=("START", "END"),
                        help="0-based, half-open support ranks of the re terms (default 200 220; with fewer "
                             "distinct terms in INPUT, the last 20 ranks it has)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--hierarchy", default=None, metavar="FILE",
                        help="hierarchy for tKd-ML^2 (item;parent;...;top per line); default: the release's own "
                             "(apriori, diffpart) or a balanced tree of --fanout over the original's items")
    parser.add_argument("--fanout", type=int_option("--fanout", 1, MAX_RECORDS), default=None,
                        help="fan-out of the automatic hierarchy for tKd-ML^2 (default 5)")
    parser.add_argument("--before", default=None, metavar="RELEASE",
                        help="for a safe RELEASE: the release it was made from (same INPUT, options and --seed, "
                             "without --safe), for Awad2019's RLM")


def run(args: argparse.Namespace) -> int:
    """``utility``: print (or ``--json``) the information-loss report."""
    if args.re_range is not None and args.re_range[1] <= args.re_range[0]:
        raise InputError(f"--re-range: END ({args.re_range[1]}) must exceed START ({args.re_range[0]})")
    if args.hierarchy is not None and args.fanout is not None:
        raise InputError("give --hierarchy FILE or --fanout F, not both")
    if args.fanout is not None and args.fanout < 2:
        raise InputError(f"--fanout must be an integer >= 2, got {args.fanout}")
    generalized = peek_format(args.release) == "generalized/1"
    if generalized and args.before is not None:
        raise InputError("--before: a generalized/1 release (apriori, diffpart) is not a safe release; --before "
                         "goes with a release made with --safe")
    # the release is read while the original is (corpora.common.background); the original's error comes first
    pending = None if generalized else Background(lambda: load_release(args.release), name="read-release")
    original = load_input_dataset(args.input, format=args.format, **reading_options(args))
    re_range = None
    if args.re_range is not None:
        re_range, _ = resolve_re_range(original, tuple(args.re_range), strict=True, label="--re-range")
    start = time.perf_counter()
    if generalized:
        from anonymizer.baselines.generalized import load_generalized

        grelease = load_generalized(args.release)
        hierarchy = None
        if args.hierarchy is not None or args.fanout is not None:
            if grelease.method == "apriori":
                raise InputError("an apriori release is scored with its own hierarchy; drop --hierarchy/--fanout")
            hierarchy = hierarchy_for(original, args.hierarchy, args.fanout)
        with no_gc():  # as utility_report: the searches' heaps are many small tuples without cycles
            report = baseline_utility(original, grelease, top_k=args.top_k, re_range=re_range, hierarchy=hierarchy)
        k_label = grelease.k
    else:
        release = pending.result()
        before = None
        if args.before is not None:
            before = load_release(args.before)
        hierarchy = hierarchy_for(original, args.hierarchy, args.fanout)
        report = utility_report(original, release, reconstructions=args.reconstructions, seed=args.seed,
                                top_k=args.top_k, re_range=re_range, hierarchy=hierarchy, before=before,
                                label=f"INPUT {args.input}")
        k_label = release.k
    seconds = time.perf_counter() - start
    if args.json:
        out = report.as_dict()
        out["seconds"] = round(seconds, 3)
        print(json.dumps(out))
    else:
        print_report(report, k_label, seconds, generalized, None if generalized else release)
    return 0


def print_report(report: UtilityReport, k_label: object, seconds: float, generalized: bool,
                 release: Release | None) -> None:
    """The text form of ``utility``'s report (one line per metric, each with what it measures)."""
    lo, hi = report.re_range

    def show(value: float | None, note: str) -> str:
        return f"{value:.4f}   {note}" if value is not None else f"n/a      {note}"

    runs = (f"mean of {report.reconstructions} reconstruction(s)" if not generalized
            else "on the published records")
    print(f"tKd      {show(report.tkd, f'(top-{report.top_k}, {runs})')}")
    print(f"tKd-a    {show(report.tkd_a, '(record and shared chunks only)')}")
    re_note = ("generalized supports divided uniformly over their leaves"
               if report.method == "apriori" else "averaged supports")
    adapted = (f"; default 200-220 adapted: INPUT has only {hi} distinct terms" if report.re_range_adapted
               else "")
    print(f"re       {show(report.re, f'(pairs of the terms ranked {lo}-{hi}, {re_note}{adapted})')}")
    print(f"re-a     {show(report.re_a, '')}")
    tlost_note = (f"(Terrovitis2012 7.1: terms with support more than k={k_label} kept only in term chunks)"
                  if report.tlost is not None else "")
    print(f"tlost    {show(report.tlost, tlost_note)}")
    if report.tlost_at_least_k is not None:
        print(f"tlost>=k {show(report.tlost_at_least_k, f'(variant: support at least k={k_label})')}")
    print(f"tKd-ML2  {show(report.tkd_ml2, '(top-K generalized itemsets over all hierarchy levels)')}")
    print(f"NCP      {show(report.ncp, '(normalized certainty penalty of generalized items)')}")
    if report.rlm is not None:
        rlm_note = "(Awad2019 5.1.2: share of --before's published item occurrences suppressed)"
    elif release is not None and release.params.get("safe"):
        rlm_note = "(needs --before RELEASE, the release this safe one was made from)"
    else:
        rlm_note = "(safe releases only)"
    print(f"RLM      {show(report.rlm, rlm_note)}")
    rae_note = ("(Awad2019 5.1.3 as printed, signed: re's pairs on the same reconstructions; "
                "< 0 where the reconstructions invent associations)" if report.rae is not None
                else "(disassociated releases only)")
    print(f"RAE      {show(report.rae, rae_note)}")
    if report.rae_abs is not None:
        print(f"RAE-abs  {show(report.rae_abs, '(variant: absolute differences, as re)')}")
    print(f"method  {report.method}")
    print(f"seconds {seconds:.2f}")
