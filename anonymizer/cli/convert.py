"""`python -m anonymizer convert RELEASE OUT`: rewrite a release (or a truth file) in the other form:
``OUT`` ending in ``.parquet`` gets the parquet form (:mod:`anonymizer.io.parquet`,
:mod:`anonymizer.io.truth_parquet`), any other name the JSON; either form is read
(:func:`anonymizer.io.release_files.load_release`, :func:`~anonymizer.io.release_files.load_truth`), the output
is atomic."""

from __future__ import annotations

import argparse
import sys
import time

from anonymizer.cli import COMMANDS
from anonymizer.cli.common import peek_format
from anonymizer.io.parquet import save_release_parquet, wants_parquet
from anonymizer.io.release_files import load_release, load_truth, save_release, save_truth
from anonymizer.io.truth_parquet import is_truth_parquet, save_truth_parquet
from anonymizer.model.truth import TRUTH_FORMAT
from corpora.common.errors import InputError
from corpora.common.files import check_output_paths

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]

HELP = COMMANDS["convert"]

DESCRIPTION = ("Rewrite a release (or a truth file) in the other form: OUT ending in .parquet gets the columnar "
                "parquet form, any other name the JSON; the content is the same.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer convert``."""
    parser.add_argument("release", help="release or truth file (JSON or parquet)")
    parser.add_argument("output", help="file to write: .parquet for the parquet form, any other name for JSON")


def run(args: argparse.Namespace) -> int:
    """``convert``: read a release in either form and write it in the form ``args.output`` names."""
    check_output_paths({"output": args.output}, {"release": args.release})
    if peek_format(args.release) == "generalized/1":
        raise InputError(f"{args.release}: a generalized/1 release (apriori, diffpart) has no parquet form")
    start = time.perf_counter()
    form = "parquet" if wants_parquet(args.output) else "JSON"
    if peek_format(args.release) == TRUTH_FORMAT or is_truth_parquet(args.release):
        truth = load_truth(args.release)
        (save_truth_parquet if form == "parquet" else save_truth)(truth, args.output)
        what = f"truth; {len(truth.clusters)} clusters"
    else:
        release = load_release(args.release)
        (save_release_parquet if form == "parquet" else save_release)(release, args.output)
        what = f"{release.n_records} records"
    print(f"wrote {args.output} ({form} {what}) in {time.perf_counter() - start:.2f}s", file=sys.stderr)
    return 0
