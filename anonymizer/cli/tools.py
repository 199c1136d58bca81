"""`python -m anonymizer verify|reconstruct|utility ...`: check, sample from and score a release.

* ``verify RELEASE [--exact] [--exact-max-records N]``: k^m-anonymity, Lemma 2 for every
  cluster, Property 1, strict structure checks, and an exact search of the valid reconstructions
  of small components (:mod:`anonymizer.evaluation.verify`); prints ``OK`` or one line per violation; exit 0
  if ok, 1 if not, 2 if the file is not a release at all.
* ``reconstruct RELEASE --seed S -o OUT.jsonl``: one dataset of the inverse transformation
  (:mod:`anonymizer.evaluation.reconstruct`), written atomically as JSON lines (one sorted array per record).
* ``utility INPUT RELEASE [--reconstructions R] [--top-k K] [--seed S] [--re-range A B] [--json]
  [--hierarchy FILE | --fanout F] [--before RELEASE]``: tKd, tKd-a, re, re-a, tlost
  (:mod:`anonymizer.evaluation.utility`), tKd-ML^2 and NCP (:mod:`anonymizer.evaluation.multilevel`), Awad2019's RAE
  and, for a safe release with ``--before`` (the release it was made from), RLM
  (:mod:`anonymizer.evaluation.safe_metrics`) of a disassociated, safe or ``generalized/1`` release
  (Apriori, DiffPart; the metrics that do not apply print ``n/a``); INPUT is a dataset file or a
  registered dataset name, checked against the release
  (:func:`anonymizer.evaluation.consistency.check_original`). Without ``--re-range`` re takes the ranks
  200-220, adapted to an INPUT with fewer distinct terms (the report says so).

* ``convert RELEASE OUT``: rewrite a release (or a truth file) in the other form: ``OUT`` ending
  in ``.parquet`` gets the parquet form (:mod:`anonymizer.io.parquet`,
  :mod:`anonymizer.io.truth_parquet`), any other name the JSON; either form is read
  (:func:`anonymizer.io.release_files.load_release`, :func:`~anonymizer.io.release_files.load_truth`), the
  output is atomic.

Bad arguments raise :class:`InputError` (one line, exit status 2 through the dispatcher).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from anonymizer.io.release_files import load_release
from corpora.cli.options import add_reading_options, reading_options
from corpora.common.bounds import MAX_RECORDS, int_option
from corpora.common.errors import InputError
from corpora.common.files import atomic_open, check_output_paths
from corpora.common.seeds import seed_argument
from corpora.dataset import TransactionDataset
from corpora.io.formats import FORMATS

__all__ = ["main", "load_input_dataset", "add_verify_arguments", "run_verify", "add_reconstruct_arguments",
           "run_reconstruct", "add_utility_arguments", "run_utility", "add_convert_arguments", "run_convert",
           "VERIFY_HELP", "RECONSTRUCT_HELP", "UTILITY_HELP", "CONVERT_HELP"]

COMMANDS = ("verify", "reconstruct", "utility", "convert")


MAX_RECONSTRUCTIONS = 10_000
"""Most reconstructions ``utility`` averages (each is a full pass over the release)."""


def load_input_dataset(spec: str, **options: Any) -> TransactionDataset:
    """A dataset by registered name or path (``corpora.registry.load_dataset``; never downloads).

    ``options`` are the reading options of :func:`corpora.io.formats.read_dataset` (format, delimiter,
    header, user_column, item_column)."""
    from corpora.registry import load_dataset

    return load_dataset(spec, **options)


def _peek_format(path: str) -> str | None:
    """The ``format`` value of a release file, read from its first 4 KiB (None if not found)."""
    import re

    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    found = re.search(rb'"format"\s*:\s*"([^"]{1,40})"', head)
    return found.group(1).decode("ascii", "replace") if found else None


VERIFY_HELP = ("Check Guarantee 1 of a release (Terrovitis2012): k^m-anonymous record chunks, Lemma 2 for every "
               "cluster, Property 1, structure, and every component decided: an exact search of its valid "
               "reconstructions, or a proven sufficient condition; else it is 'unproven' (exit 3, not OK; "
               "exit 1 on a violation); a generalized/1 release (apriori, diffpart) gets a brute-force k^m check.")


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer verify``."""
    from anonymizer.evaluation.verify import EXACT_MAX_RECORDS

    parser.add_argument("release", help="release file (JSON or parquet)")
    parser.add_argument("--exact", action="store_true",
                        help="search every component exactly, whatever its size (may be slow on large ones)")
    parser.add_argument("--exact-max-records", type=int_option("--exact-max-records", 0, MAX_RECORDS),
                        default=EXACT_MAX_RECORDS, metavar="N",
                        help=f"search components of at most N records exactly (default {EXACT_MAX_RECORDS}; 0: none)")


def run_verify(args: argparse.Namespace) -> int:
    """``verify``: print OK or one line per violation, then per unproven component; exit 0 if
    Guarantee 1 is proven (OK), 1 on a violation, 3 when nothing is violated but some component is
    unproven (neither searched exactly nor passing the proven condition: not OK either)."""
    from anonymizer.evaluation.verify import verify_file

    if _peek_format(args.release) == "generalized/1":
        from anonymizer.baselines.generalized import MAX_JSON_BYTES
        from anonymizer.evaluation.verify_generalized import verify_generalized
        from corpora.common.files import parse_json, read_text_bounded

        obj = parse_json(read_text_bounded(args.release, MAX_JSON_BYTES), f"{args.release}: not a release")
        greport = verify_generalized(obj, source=args.release)
        for line in greport.violations:
            print(line)
        print(f"{greport.summary()}: {args.release}"
              + (f" (k={greport.k}, m={greport.m})" if greport.k is not None else ""))
        return 0 if greport.ok else 1
    report = verify_file(args.release, exact=args.exact, exact_max_records=args.exact_max_records)
    for line in report.violations + report.unproven:
        print(line)
    print(f"{report.summary()}: {args.release} (k={report.k}, m={report.m})")
    return 0 if report.ok else 1 if report.violations else 3


RECONSTRUCT_HELP = "Sample one dataset of the inverse transformation (Terrovitis2012 section 5)."


def add_reconstruct_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer reconstruct``."""
    from anonymizer.evaluation.reconstruct import TERM_RULES

    parser.add_argument("release", help="release file (JSON or parquet)")
    parser.add_argument("--seed", type=seed_argument, default=0, help="random seed (default 0)")
    parser.add_argument("--term-rule", choices=TERM_RULES, default="one",
                        help="records per term-chunk term: one (default) or uniform in 1..k-1")
    parser.add_argument("-o", "--output", required=True, help="output JSON-lines file")


def run_reconstruct(args: argparse.Namespace) -> int:
    """``reconstruct``: write one sampled dataset as JSON lines."""
    from anonymizer.evaluation.reconstruct import reconstruct

    check_output_paths({"reconstruction": args.output}, {"release": args.release})
    release = load_release(args.release)
    start = time.perf_counter()
    ds = reconstruct(release, seed=args.seed, term_rule=args.term_rule)
    with atomic_open(args.output, "w") as handle:
        for record in ds.sorted_records():
            handle.write(json.dumps(record, ensure_ascii=False))
            handle.write("\n")
    print(f"wrote {len(ds)} records ({ds.stats().term_occurrences} term occurrences) to {args.output} "
          f"in {time.perf_counter() - start:.2f}s (seed {args.seed})", file=sys.stderr)
    return 0


UTILITY_HELP = ("Information loss of a release: tKd, tKd-a, re, re-a, tlost, tKd-ML^2, NCP (Terrovitis2012 6-7), "
                "RAE and RLM (Awad2019 5.1); disassociated, safe or generalized/1 (apriori, diffpart).")


def add_utility_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer utility``."""
    parser.add_argument("input", help="the original dataset: a file or a registered dataset name")
    parser.add_argument("release", help="release file (JSON or parquet)")
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


def run_utility(args: argparse.Namespace) -> int:
    """``utility``: print (or ``--json``) the information-loss report."""
    from anonymizer.evaluation.utility import resolve_re_range, utility_report

    if args.re_range is not None and args.re_range[1] <= args.re_range[0]:
        raise InputError(f"--re-range: END ({args.re_range[1]}) must exceed START ({args.re_range[0]})")
    if args.hierarchy is not None and args.fanout is not None:
        raise InputError("give --hierarchy FILE or --fanout F, not both")
    if args.fanout is not None and args.fanout < 2:
        raise InputError(f"--fanout must be an integer >= 2, got {args.fanout}")
    generalized = _peek_format(args.release) == "generalized/1"
    if generalized and args.before is not None:
        raise InputError("--before: a generalized/1 release (apriori, diffpart) is not a safe release; --before "
                         "goes with a release made with --safe")
    original = load_input_dataset(args.input, format=args.format, **reading_options(args))
    re_range = None
    if args.re_range is not None:
        re_range, _ = resolve_re_range(original, tuple(args.re_range), strict=True, label="--re-range")
    start = time.perf_counter()
    if generalized:
        from anonymizer.baselines.generalized import load_generalized
        from anonymizer.evaluation.multilevel import baseline_utility

        grelease = load_generalized(args.release)
        hierarchy = None
        if args.hierarchy is not None or args.fanout is not None:
            if grelease.method == "apriori":
                raise InputError("an apriori release is scored with its own hierarchy; drop --hierarchy/--fanout")
            from anonymizer.cli.baselines import hierarchy_for

            hierarchy = hierarchy_for(original, args.hierarchy, args.fanout)
        report = baseline_utility(original, grelease, top_k=args.top_k, re_range=re_range, hierarchy=hierarchy)
        k_label = grelease.k
    else:
        from anonymizer.cli.baselines import hierarchy_for

        release = load_release(args.release)
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
        tlost_note = f"(terms with support >= k={k_label} kept only in term chunks)" if report.tlost is not None else ""
        print(f"tlost    {show(report.tlost, tlost_note)}")
        print(f"tKd-ML2  {show(report.tkd_ml2, '(top-K generalized itemsets over all hierarchy levels)')}")
        print(f"NCP      {show(report.ncp, '(normalized certainty penalty of generalized items)')}")
        if report.rlm is not None:
            rlm_note = "(Awad2019 5.1.2: share of --before's published item occurrences suppressed)"
        elif not generalized and release.params.get("safe"):
            rlm_note = "(needs --before RELEASE, the release this safe one was made from)"
        else:
            rlm_note = "(safe releases only)"
        print(f"RLM      {show(report.rlm, rlm_note)}")
        rae_note = ("(Awad2019 5.1.3: re's pairs on the same reconstructions)" if report.rae is not None
                    else "(disassociated releases only)")
        print(f"RAE      {show(report.rae, rae_note)}")
        print(f"method  {report.method}")
        print(f"seconds {seconds:.2f}")
    return 0


CONVERT_HELP = ("Rewrite a release (or a truth file) in the other form: OUT ending in .parquet gets the columnar "
                "parquet form, any other name the JSON; the content is the same.")


def add_convert_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer convert``."""
    parser.add_argument("release", help="release or truth file (JSON or parquet)")
    parser.add_argument("output", help="file to write: .parquet for the parquet form, any other name for JSON")


def run_convert(args: argparse.Namespace) -> int:
    """``convert``: read a release in either form and write it in the form ``args.output`` names."""
    from anonymizer.io.parquet import save_release_parquet, wants_parquet
    from anonymizer.io.release_files import load_truth, save_release, save_truth
    from anonymizer.io.truth_parquet import is_truth_parquet, save_truth_parquet
    from anonymizer.model.truth import TRUTH_FORMAT

    check_output_paths({"output": args.output}, {"release": args.release})
    if _peek_format(args.release) == "generalized/1":
        raise InputError(f"{args.release}: a generalized/1 release (apriori, diffpart) has no parquet form")
    start = time.perf_counter()
    form = "parquet" if wants_parquet(args.output) else "JSON"
    if _peek_format(args.release) == TRUTH_FORMAT or is_truth_parquet(args.release):
        truth = load_truth(args.release)
        (save_truth_parquet if form == "parquet" else save_truth)(truth, args.output)
        what = f"truth; {len(truth.clusters)} clusters"
    else:
        release = load_release(args.release)
        (save_release_parquet if form == "parquet" else save_release)(release, args.output)
        what = f"{release.n_records} records"
    print(f"wrote {args.output} ({form} {what}) in {time.perf_counter() - start:.2f}s", file=sys.stderr)
    return 0


def main(command: str, argv: Sequence[str] | None = None) -> int:
    """Run ``command`` (verify, reconstruct or utility) with its arguments; returns the exit status."""
    from anonymizer.__main__ import parse

    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}; expected one of {', '.join(COMMANDS)}")
    args = parse([command, *(sys.argv[2:] if argv is None else argv)])
    return int(args.run(args))
