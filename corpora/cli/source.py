"""The options that name the dataset a command reads (``stats``, ``convert``), and reading it.

``FILE_OR_NAME``/``INPUT`` is anything :func:`corpora.registry.load_dataset` accepts: a file, a
dataset name or a ``synthetic:`` spec; ``--format`` and the reading options of
:mod:`corpora.cli.options` say how to read a file, ``--download``, ``--trust`` and ``--cache-dir``
how to get a dataset that is fetched on request.
"""

from __future__ import annotations

import argparse

from corpora.cli.options import add_reading_options, reading_options
from corpora.dataset import TransactionDataset
from corpora.io.options import FORMATS
from corpora.registry import load_dataset

__all__ = ["add_source_options", "load_source"]


def add_source_options(parser: argparse.ArgumentParser) -> None:
    """``--format``, the reading options, ``--download``, ``--trust`` and ``--cache-dir``."""
    parser.add_argument("--format", choices=FORMATS, help="input format (default: from the extension; long when a "
                                                          "user or item column is named)")
    add_reading_options(parser)
    parser.add_argument("--download", action="store_true",
                        help="allow fetching bms-* datasets into the cache (needs network)")
    parser.add_argument("--trust", action="store_true",
                        help="accept a hand-copied cached file without a recorded checksum")
    parser.add_argument("--cache-dir", help="download cache (default $DISASSOC_CACHE or "
                                            "~/.cache/disassociation-workbench)")


def load_source(args: argparse.Namespace, source: str) -> TransactionDataset:
    """The dataset ``source`` names, read as the parsed options say."""
    return load_dataset(source, cache_dir=args.cache_dir, download=args.download, format=args.format,
                        trust=args.trust, **reading_options(args))
