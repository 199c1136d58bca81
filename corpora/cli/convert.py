"""`python -m corpora convert`: a dataset (file, name or synthetic: spec) written in another format.

The output is written atomically and never over the input (:func:`corpora.common.files.check_output_paths`);
a term the output format cannot hold stops the command before anything is written.
"""

from __future__ import annotations

import argparse
import sys

from corpora.cli import COMMANDS
from corpora.cli.source import add_source_options, load_source
from corpora.common.files import check_output_paths
from corpora.io.formats import FORMATS, write_dataset

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "run"]

HELP = COMMANDS["convert"]
DESCRIPTION = HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="INPUT", nargs="?", default=None,
                        help="a dataset file, a dataset name or a synthetic: spec (none with --sql/--db)")
    parser.add_argument("-o", "--output", required=True,
                        help="output file (its extension gives the format unless --to)")
    add_source_options(parser)
    parser.add_argument("--to", choices=FORMATS, help="output format (default: from the output extension)")
    parser.add_argument("--to-delimiter", help="item delimiter of basket/kdd/long output")


def run(args: argparse.Namespace) -> int:
    """Read the input, write it to ``--output``, and say what was written on standard error."""
    check_output_paths({"output": args.output}, {"input": args.source})
    ds = load_source(args, args.source)
    write_dataset(ds, args.output, format=args.to, delimiter=args.to_delimiter)
    s = ds.stats()
    print(f"wrote {args.output}: {s.records:,} records, {s.distinct_terms:,} distinct terms", file=sys.stderr)
    return 0
