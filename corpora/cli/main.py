"""`python -m corpora list|stats|convert|build-text`: named datasets, statistics, conversion, text corpora.

One argparse parser with a subparser per command (``python -m corpora --help`` lists them,
``python -m corpora stats --help`` describes one)::

    python -m corpora list [--json] [--cache-dir DIR]
    python -m corpora stats FILE_OR_NAME [--format F] [--delimiter D] [--header|--no-header]
                            [--user-column C] [--item-column C] [--json] [--download] [--trust] [--cache-dir DIR]
    python -m corpora convert INPUT -o OUTPUT [reading options as for stats] [--to F] [--to-delimiter D]
    python -m corpora build-text --source NAME [--density X] [--topics N] ... -o OUT.jsonl

``INPUT``/``FILE_OR_NAME`` is anything :func:`corpora.registry.load_dataset` accepts (a file, a
dataset name, a ``synthetic:`` spec). Bad input raises :class:`InputError`, which
``corpora/__main__.py`` prints as one line (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from corpora.cli.options import add_reading_options, reading_options
from corpora.common.errors import ArgumentParser, InputError
from corpora.common.files import check_output_paths
from corpora.io.formats import FORMATS, write_dataset
from corpora.registry import list_datasets, load_dataset
from corpora.synthetic.shaped import SHAPED_STAND_INS, compare

__all__ = ["main", "run", "build_parser", "COMMANDS"]


def _add_source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, help="input format (default: from the extension; long when a "
                                                          "user or item column is named)")
    add_reading_options(parser)
    parser.add_argument("--download", action="store_true",
                        help="allow fetching bms-* datasets into the cache (needs network)")
    parser.add_argument("--trust", action="store_true",
                        help="accept a hand-copied cached file without a recorded checksum")
    parser.add_argument("--cache-dir", help="download cache (default $DISASSOC_CACHE or "
                                            "~/.cache/disassociation-workbench)")


def _load(args: argparse.Namespace, source: str):
    return load_dataset(source, cache_dir=args.cache_dir, download=args.download, format=args.format,
                        trust=args.trust, **reading_options(args))


def _text_sources() -> list[dict[str, Any]] | None:
    """The text sources of engineer "text" (``corpora.text.api.list_text_sources``), if that module exists."""
    try:
        from corpora.text.api import list_text_sources
    except ModuleNotFoundError as exc:
        if exc.name in ("corpora.text.api", "corpora"):
            return None
        raise
    rows = []
    for item in list_text_sources():
        get = item.get if isinstance(item, dict) else (lambda key, _i=item: getattr(_i, key, None))
        rows.append({"name": get("name"), "documents": get("documents"), "licence": get("licence"),
                     "present": bool(get("present")), "description": get("description") or ""})
    return rows


def _cmd_list(args: argparse.Namespace) -> int:
    datasets = [info.__dict__ for info in list_datasets(cache_dir=args.cache_dir)]
    texts = _text_sources()
    if args.json:
        print(json.dumps({"datasets": datasets, "text_sources": texts or []}, indent=2, ensure_ascii=False))
        return 0
    print("transaction datasets")
    width = max(len(d["name"]) for d in datasets)
    for d in datasets:
        records = "-" if d["records"] is None else f"{d['records']:,}"
        state = "present" if d["present"] else "not cached (--download)"
        print(f"  {d['name']:<{width}}  {d['kind']:<9} {records:>9}  {state:<24} {d['description']}")
    if texts is not None:
        print("text sources (python -m corpora build-text)")
        width = max((len(str(t["name"])) for t in texts), default=4)
        for t in texts:
            state = "present" if t["present"] else "missing"
            print(f"  {t['name']:<{width}}  {t['documents']:>6} documents  {state:<8} {t['licence']}")
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    ds = _load(args, args.source)
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
    shaped = SHAPED_STAND_INS.get(args.source.strip().lower())
    if shaped is not None:
        print(f"paper:            {compare(ds, shaped.like)}")
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    check_output_paths({"output": args.output}, {"input": args.source})
    ds = _load(args, args.source)
    write_dataset(ds, args.output, format=args.to, delimiter=args.to_delimiter)
    s = ds.stats()
    print(f"wrote {args.output}: {s.records:,} records, {s.distinct_terms:,} distinct terms", file=sys.stderr)
    return 0


def _cmd_build_text(args: argparse.Namespace) -> int:
    from corpora.cli import text as text_cli
    return text_cli.run(args)


COMMANDS: dict[str, str] = {
    "list": "list the named datasets and text sources, and whether each is present offline",
    "stats": "records, distinct terms, lengths and type-token density of a dataset (file or name)",
    "convert": "convert a dataset to another format (spmf, kdd, basket, jsonl, long, parquet)",
    "build-text": "build transactions from a named text source (AlShuhail2021 section 5.1)",
}
"""The subcommands and their one-line descriptions (``python -m corpora --help``)."""

_EPILOG = """examples:
  python -m corpora list
  python -m corpora stats kosarak10k
  python -m corpora stats orders.csv --user-column user_id --item-column item
  python -m corpora convert terrovitis2012-fig2 -o fig2.jsonl
  python -m corpora build-text --source lee --density 0.3 --topics 10 --seed 0 -o lee.jsonl

Each command has its own help: python -m corpora stats --help"""


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m corpora`` parser, one subparser per command of :data:`COMMANDS`."""
    from corpora.cli import text as text_cli
    formatter = argparse.RawDescriptionHelpFormatter
    parser = ArgumentParser(prog="python -m corpora", formatter_class=formatter, epilog=_EPILOG,
                            description="Transaction data for the workbench: named datasets, statistics, format "
                                        "conversion and text corpora.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    sub.required = True
    defaults = argparse.ArgumentDefaultsHelpFormatter

    p = sub.add_parser("list", help=COMMANDS["list"], description=COMMANDS["list"], formatter_class=defaults)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--cache-dir", help="download cache to look in (default $DISASSOC_CACHE or "
                                       "~/.cache/disassociation-workbench)")
    p.set_defaults(handler=_cmd_list)

    p = sub.add_parser("stats", help=COMMANDS["stats"], description=COMMANDS["stats"])
    p.add_argument("source", metavar="FILE_OR_NAME", help="a dataset file, a dataset name or a synthetic: spec")
    _add_source_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_cmd_stats)

    p = sub.add_parser("convert", help=COMMANDS["convert"], description=COMMANDS["convert"])
    p.add_argument("source", metavar="INPUT", help="a dataset file, a dataset name or a synthetic: spec")
    p.add_argument("-o", "--output", required=True, help="output file (its extension gives the format unless --to)")
    _add_source_options(p)
    p.add_argument("--to", choices=FORMATS, help="output format (default: from the output extension)")
    p.add_argument("--to-delimiter", help="item delimiter of basket/kdd/long output")
    p.set_defaults(handler=_cmd_convert)

    p = sub.add_parser("build-text", help=COMMANDS["build-text"], description=text_cli.DESCRIPTION)
    text_cli.add_arguments(p)
    p.set_defaults(handler=_cmd_build_text)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse a whole ``python -m corpora`` command line and run it; returns the exit status."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    return args.handler(args)


def main(command: str, argv: Sequence[str] | None = None) -> int:
    """Run ``command`` (a key of :data:`COMMANDS`) with its arguments; returns the exit status."""
    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}; choose one of: {', '.join(COMMANDS)}")
    return run([command, *(sys.argv[2:] if argv is None else argv)])
