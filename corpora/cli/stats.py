"""`python -m corpora stats`: records, distinct terms, lengths and type-token density of a dataset.

The density is AlShuhail2021's type-token ratio (section 5.1.2); a stand-in shaped like a paper's
dataset also prints the paper's figures beside its own (:func:`corpora.synthetic.shaped.compare`).
"""

from __future__ import annotations

import argparse
import json

from corpora.cli import COMMANDS
from corpora.cli.source import add_source_options, load_source
from corpora.synthetic.shaped import SHAPED_STAND_INS, compare

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "run"]

HELP = COMMANDS["stats"]
DESCRIPTION = HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="FILE_OR_NAME", nargs="?", default=None,
                        help="a dataset file, a dataset name or a synthetic: spec (none with --sql/--db)")
    add_source_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Print the statistics of the dataset (one JSON object with ``--json``)."""
    ds = load_source(args, args.source)
    stats = {"name": ds.name, **ds.stats().as_dict()}
    if args.json:
        print(json.dumps(stats, ensure_ascii=False))
        return 0
    print(f"dataset:          {stats['name']}")
    print(f"records:          {stats['records']:,}")
    print(f"distinct terms:   {stats['distinct_terms']:,}")
    print(f"term occurrences: {stats['term_occurrences']:,}")
    print(f"avg length:       {stats['avg_length']:.3f}")
    print(f"max length:       {stats['max_length']:,}")
    print(f"density:          {stats['density']:.4f}  (distinct terms / term occurrences)")
    shaped = SHAPED_STAND_INS.get((args.source or "").strip().lower())
    if shaped is not None:
        print(f"paper:            {compare(ds, shaped.like)}")
    return 0
