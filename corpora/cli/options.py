"""The command-line options that say how to read a dataset file, shared by every command that reads one.

``--delimiter``, ``--header/--no-header``, ``--user-column`` and ``--item-column`` (``--format``
is added by each command beside them), and ``--sql QUERY --db URL``, which read the dataset from a
database instead of a file (:mod:`corpora.io.sql`: the query's first column groups the rows into
records and never reaches an output, the second holds the items). :func:`reading_options` turns the
parsed arguments into the keyword arguments of :func:`corpora.registry.load_dataset`.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_reading_options", "reading_options"]


def add_reading_options(parser: argparse.ArgumentParser, prefix: str = "", what: str = "the input") -> None:
    """Add the reading options (named ``--{prefix}delimiter`` and so on) to ``parser``."""
    dest = prefix.replace("-", "_")
    parser.add_argument(f"--{prefix}delimiter", dest=f"{dest}delimiter", metavar="D", default=None,
                        help=f"field delimiter of {what} (basket default ',', kdd tab, long ',' or tab for .tsv); "
                             "a declared delimiter is read as given")
    parser.add_argument(f"--{prefix}header", dest=f"{dest}header", action=argparse.BooleanOptionalAction,
                        default=None,
                        help=f"whether the first line of {what} names the columns (basket, kdd, long); default: "
                             "detect, and refuse a first line that looks like a header instead of guessing")
    parser.add_argument(f"--{prefix}user-column", dest=f"{dest}user_column", metavar="C", default=None,
                        help=f"long/parquet: the column (name or 0-based index) that groups the rows of {what} into "
                             "records; its values never reach the output (default 0 for long)")
    parser.add_argument(f"--{prefix}item-column", dest=f"{dest}item_column", metavar="C", default=None,
                        help=f"long/parquet: the column (name or 0-based index) of {what}'s items (default 1 for "
                             "long; parquet: its one list column)")
    parser.add_argument(f"--{prefix}sql", dest=f"{dest}sql", metavar="QUERY", default=None,
                        help=f"read {what} from a database instead (with --{prefix}db): a query returning two "
                             "columns, the user (groups the rows into records; never reaches an output), then the "
                             "item; read only, in chunks (add ORDER BY for a reproducible record order)")
    parser.add_argument(f"--{prefix}db", dest=f"{dest}db", metavar="URL", default=None,
                        help="the database of --sql: a SQLite file or sqlite:///PATH, or postgresql://USER@HOST/DB "
                             "(password from the URL, PGPASSWORD or ~/.pgpass; never printed)")


def reading_options(args: argparse.Namespace, prefix: str = "") -> dict[str, Any]:
    """``delimiter``, ``header``, ``user_column`` and ``item_column`` from parsed arguments, and ``sql`` and
    ``db`` when either was given (:func:`corpora.registry.load_dataset` checks them together)."""
    dest = prefix.replace("-", "_")
    options = {key: getattr(args, f"{dest}{key}") for key in ("delimiter", "header", "user_column", "item_column")}
    database = {key: getattr(args, f"{dest}{key}", None) for key in ("sql", "db")}
    return {**options, **database} if any(value is not None for value in database.values()) else options
