"""The anonymize command's database options: ``--to-db URL --table NAME`` (the release written back as tables,
:mod:`anonymizer.io.release_db`), and the checks that ``--sql``/``--db`` input needs in that command.

Kept apart from :mod:`anonymizer.cli.anonymize` so that command stays about running the methods: it calls
:func:`add_database_arguments`, :func:`check_database_options` before any work and wraps the writing of
its files in :func:`database_output`, which commits the tables only after the files are in place.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

from anonymizer.io.release_db import check_release_tables, release_tables
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.io.sql_url import parse_db_url

__all__ = ["add_database_arguments", "check_database_options", "database_output"]


def add_database_arguments(p: argparse.ArgumentParser) -> None:
    """``--to-db URL`` and ``--table NAME``."""
    p.add_argument("--to-db", dest="to_db", metavar="URL", default=None,
                   help="also store the release (never the truth) in this database (a SQLite file or sqlite:///PATH, "
                        "or postgresql://...) as tables NAME_release, NAME_clusters, NAME_record_chunks, "
                        "NAME_term_chunks, NAME_joint_clusters, NAME_shared_chunks (with --table NAME; "
                        "disassociation without --split-depth/--executor dask); existing tables are refused")
    p.add_argument("--table", metavar="NAME", default=None,
                   help="with --to-db: the prefix of the release's table names (letters, digits, '_')")


def check_database_options(args: argparse.Namespace) -> None:
    """One line, before any work, for database options that do not go together (or a database that cannot take
    the tables: unreachable, or the tables exist)."""
    if args.executor == "dask":
        if getattr(args, "sql", None) is not None or getattr(args, "db", None) is not None:
            raise InputError("--sql/--db read the rows in this process; they do not go with --executor dask (use "
                             "--split-depth D for bounded memory)")
        if args.input is None:
            raise InputError("--executor dask reads a file: give INPUT")
    if args.to_db is None and args.table is None:
        return
    if args.to_db is None or args.table is None:
        raise InputError("--to-db URL and --table NAME go together")
    if args.method != "disassociation":
        raise InputError(f"--to-db stores disassociated releases; --method {args.method} writes a generalized/1 file")
    if args.executor == "dask" or args.split_depth:
        raise InputError("--to-db stores a release made in one part; split and Dask runs stream it to the file "
                         "(load that file into the database afterwards, or run without --split-depth)")
    check_release_tables(args.to_db, args.table)


@contextlib.contextmanager
def database_output(args: argparse.Namespace, release: Release) -> Iterator[None]:
    """With ``--to-db``: the tables filled in an open transaction, committed when the block (writing the files)
    ends normally, rolled back when it raises; without it, nothing."""
    if args.to_db is None:
        yield
        return
    with release_tables(release, args.to_db, args.table):
        yield
    print(f"release tables {args.table}_release, _clusters, ... -> {parse_db_url(args.to_db).shown}")
