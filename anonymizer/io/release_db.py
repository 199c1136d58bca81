"""A release written to database tables, for owners who publish through a database (``--to-db URL --table NAME``).

The published release only, never the truth: the same content as the ``disassociated/1`` file, one table
per part of Terrovitis2012's section 3 structure, all named after ``NAME``:

============================  ==============================================================================
``NAME_release``              one row: ``format`` (``disassociated/1``) and ``params`` (the file's JSON object)
``NAME_clusters``             one row per simple cluster: ``cluster`` (its id), ``position``, ``size``
``NAME_record_chunks``        one row per term of a sub-record: ``cluster``, ``chunk`` (0-based), ``subrecord``
                              (its position in the chunk's published order), ``term``
``NAME_term_chunks``          one row per term-chunk term: ``cluster``, ``position``, ``term``
``NAME_joint_clusters``       one row per child of a joint cluster: ``joint``, ``position`` (of the joint
                              cluster), ``child`` (a cluster or joint-cluster id), ``child_position``
``NAME_shared_chunks``        one row per term of a shared chunk's sub-record: ``joint``, ``chunk``, ``subrecord``,
                              ``term`` (empty when REFINE made no joint cluster)
============================  ==============================================================================

Terms inside a sub-record are sorted in the file; a database orders text by its own collation, so
:func:`read_release_db` sorts them again in Python. Every table is created in one transaction with the
rows: tables that already exist are refused before anything is written (:func:`check_release_tables`),
and a failure rolls everything back. The command line commits only after the release (and truth) files
are renamed into place (:func:`release_tables`), so a failed run leaves the database as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from anonymizer.model.release import RELEASE_FORMAT, Release
from corpora.common.errors import InputError
from corpora.io.sql_url import DatabaseURL, connect, database_errors, parse_db_url

__all__ = ["TABLES", "check_release_tables", "read_release_db", "release_tables", "table_names",
           "write_release_db"]

TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "release": (("format", "TEXT"), ("params", "TEXT")),
    "clusters": (("cluster", "TEXT"), ("position", "INTEGER"), ("size", "INTEGER")),
    "record_chunks": (("cluster", "TEXT"), ("chunk", "INTEGER"), ("subrecord", "INTEGER"), ("term", "TEXT")),
    "term_chunks": (("cluster", "TEXT"), ("position", "INTEGER"), ("term", "TEXT")),
    "joint_clusters": (("joint", "TEXT"), ("position", "INTEGER"), ("child", "TEXT"), ("child_position", "INTEGER")),
    "shared_chunks": (("joint", "TEXT"), ("chunk", "INTEGER"), ("subrecord", "INTEGER"), ("term", "TEXT")),
}
"""The tables (suffix after ``NAME_``) and their columns, in order."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
_BATCH = 10_000


def table_names(table: str) -> dict[str, str]:
    """Each part's table name for the prefix ``table`` (a letter or ``_``, then letters, digits, ``_``; at most 40)."""
    if not isinstance(table, str) or not _NAME.fullmatch(table):
        raise InputError(f"--table {str(table)[:60]!r}: a table name is a letter or '_' followed by letters, digits "
                         "and '_' (at most 40 characters)")
    return {part: f"{table}_{part}" for part in TABLES}


def _existing(connection: Any, db: DatabaseURL, names: Iterable[str]) -> list[str]:
    wanted = list(names)
    if db.dialect == "sqlite":
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").fetchall()
        have = {str(r[0]).lower() for r in rows}
    else:
        with connection.cursor() as cursor:
            cursor.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
            have = {str(r[0]).lower() for r in cursor.fetchall()}
    return [name for name in wanted if name.lower() in have]


def check_release_tables(db: str, table: str) -> None:
    """Refuse, before any work, a database that cannot be opened for writing or that holds one of the tables."""
    url = parse_db_url(db)
    names = table_names(table)
    if url.dialect == "sqlite" and not Path(url.target).exists():  # a new file: made only when the run is done
        folder = Path(url.target).resolve().parent
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"{url.shown}: cannot create the database file (its folder does not exist or is not "
                             "writable)")
        return
    with connect(url, read_only=False) as connection, database_errors(url, "looking for the tables"):
        taken = _existing(connection, url, names.values())
        if url.dialect == "postgresql":
            connection.rollback()
    if taken:
        raise InputError(f"{url.shown}: table {taken[0]} already exists; choose another --table or drop it first "
                         "(a release is never written over another)")


def _chunk_rows(owners: Iterable[tuple[str, list[Any]]]) -> Iterator[tuple[Any, ...]]:
    """(owner, chunk, subrecord, term) rows of record or shared chunks, in published order."""
    for owner, chunks in owners:
        for j, chunk in enumerate(chunks):
            for s, sub in enumerate(chunk):
                for term in sub:
                    yield owner, j, s, term


def _rows(release: Release) -> dict[str, Iterator[tuple[Any, ...]]]:
    clusters, joints = release.clusters, release.joint_clusters
    params = json.dumps(dict(release.params), ensure_ascii=False)
    return {
        "release": iter([(RELEASE_FORMAT, params)]),
        "clusters": ((c.id, i, c.size) for i, c in enumerate(clusters)),
        "record_chunks": _chunk_rows((c.id, c.record_chunks) for c in clusters),
        "term_chunks": ((c.id, i, term) for c in clusters for i, term in enumerate(c.term_chunk)),
        "joint_clusters": ((j.id, i, child, p) for i, j in enumerate(joints) for p, child in enumerate(j.children)),
        "shared_chunks": _chunk_rows((j.id, j.shared_chunks) for j in joints),
    }


def _batches(rows: Iterator[tuple[Any, ...]]) -> Iterator[list[tuple[Any, ...]]]:
    batch: list[tuple[Any, ...]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _insert(connection: Any, db: DatabaseURL, name: str, part: str, rows: Iterator[tuple[Any, ...]]) -> None:
    columns = TABLES[part]
    ddl = f'CREATE TABLE "{name}" ({", ".join(f"{c} {t} NOT NULL" for c, t in columns)})'
    listed = ", ".join(c for c, _ in columns)
    if db.dialect == "sqlite":
        connection.execute(ddl)
        insert = f'INSERT INTO "{name}" ({listed}) VALUES ({", ".join("?" for _ in columns)})'
        for batch in _batches(rows):
            connection.executemany(insert, batch)
        return
    with connection.cursor() as cursor:
        cursor.execute(ddl)
        with cursor.copy(f'COPY "{name}" ({listed}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)


@contextlib.contextmanager
def release_tables(release: Release, db: str, table: str) -> Iterator[None]:
    """Create and fill the tables of ``release`` (module doc) in one transaction, then run the block; commit
    when it ends normally, roll back when it raises. Tables that exist already are refused first."""
    url = parse_db_url(db)
    names = table_names(table)
    new_file = url.dialect == "sqlite" and not Path(url.target).exists()
    try:
        with _filled(url, names, release) as finish:
            yield
            finish()
    except BaseException:
        if new_file:
            with contextlib.suppress(OSError):
                Path(url.target).unlink()
        raise


@contextlib.contextmanager
def _filled(url: DatabaseURL, names: dict[str, str], release: Release) -> Iterator[Any]:
    """An open transaction holding the filled tables; the caller calls the yielded function to commit."""
    with connect(url, read_only=False) as connection:
        with database_errors(url, "writing the release tables"):
            if url.dialect == "sqlite":
                connection.execute("BEGIN IMMEDIATE")
            taken = _existing(connection, url, names.values())
            if taken:
                raise InputError(f"{url.shown}: table {taken[0]} already exists; choose another --table or drop it "
                                 "first (a release is never written over another)")
            for part, rows in _rows(release).items():
                _insert(connection, url, names[part], part, rows)

        def commit() -> None:
            with database_errors(url, "committing the release tables"):
                connection.commit() if url.dialect == "postgresql" else connection.execute("COMMIT")

        try:
            yield commit
        except BaseException:
            with contextlib.suppress(Exception):
                connection.rollback() if url.dialect == "postgresql" else connection.execute("ROLLBACK")
            raise


def write_release_db(release: Release, db: str, table: str) -> None:
    """Write ``release`` (never a truth) to the tables ``TABLE_release``, ``TABLE_clusters``... of ``db``."""
    with release_tables(release, db, table):
        pass


def _select(connection: Any, db: DatabaseURL, name: str, part: str, order: str) -> list[tuple[Any, ...]]:
    query = f'SELECT {", ".join(c for c, _ in TABLES[part])} FROM "{name}" ORDER BY {order}'
    if db.dialect == "sqlite":
        return connection.execute(query).fetchall()
    with connection.cursor() as cursor:
        cursor.execute(query)
        return cursor.fetchall()


def _chunks(rows: Iterable[tuple[Any, ...]]) -> dict[str, list[list[list[str]]]]:
    """``owner -> chunks -> sub-records -> terms`` from (owner, chunk, subrecord, term) rows in order."""
    out: dict[str, list[list[list[str]]]] = {}
    for owner, chunk, sub, term in rows:
        chunks = out.setdefault(owner, [])
        while len(chunks) <= chunk:
            chunks.append([])
        while len(chunks[chunk]) <= sub:
            chunks[chunk].append([])
        chunks[chunk][sub].append(term)
    return {owner: [[sorted(s) for s in c] for c in chunks] for owner, chunks in out.items()}


def read_release_db(db: str, table: str) -> Release:
    """The release stored by :func:`write_release_db` under ``table``, read only and validated like a file."""
    url = parse_db_url(db)
    names = table_names(table)
    with connect(url, read_only=True) as connection, database_errors(url, "reading the release tables"):
        head = _select(connection, url, names["release"], "release", "format")
        clusters = _select(connection, url, names["clusters"], "clusters", "position")
        records = _chunks(_select(connection, url, names["record_chunks"], "record_chunks",
                                  "cluster, chunk, subrecord"))
        terms = _select(connection, url, names["term_chunks"], "term_chunks", "cluster, position")
        joints = _select(connection, url, names["joint_clusters"], "joint_clusters", "position, child_position")
        shared = _chunks(_select(connection, url, names["shared_chunks"], "shared_chunks", "joint, chunk, subrecord"))
    if len(head) != 1:
        raise InputError(f"{url.shown}: {names['release']} must hold one row, it holds {len(head)}")
    term_chunks: dict[str, list[str]] = {}
    for cluster, _, term in terms:
        term_chunks.setdefault(cluster, []).append(term)
    children: dict[str, list[str]] = {}
    for joint, _, child, _ in joints:
        children.setdefault(joint, []).append(child)
    obj = {"format": head[0][0], "params": json.loads(head[0][1]),
           "clusters": [{"id": c, "size": size, "record_chunks": records.get(c, []),
                         "term_chunk": term_chunks.get(c, [])} for c, _, size in clusters],
           "joint_clusters": [{"id": j, "children": kids, "shared_chunks": shared.get(j, [])}
                              for j, kids in children.items()]}
    return Release.from_dict(obj, url.shown)
