"""Transactions straight from a database: ``read_sql(QUERY, URL)`` and ``--sql QUERY --db URL``.

The query returns two columns, one row per (user, item), as a long table does (:mod:`corpora.io.tabular`),
and the same rule holds: **the first column only groups rows into records**. Rows with one value of the
first column form one record (records in the order of each user's first row, so add ``ORDER BY`` when the
order must be reproducible), the second column's values are its items, and the user values are dropped:
they never become terms, never reach the dataset's metadata, and so never reach a release. Items equal to
a user value are recorded for the identifier screen (:data:`corpora.io.identifiers.USER_TERMS_KEY`), as
the long reader does. Values are read as text the way the long reader reads a field: ``str`` of what the
driver returns (an integer as its decimal digits), surrounding spaces stripped; a NULL or empty user or
item, a binary value or a control character in an item is refused with its row number. The same rows from
a database and from the equivalent long CSV give the same dataset, and so the same release, byte for byte.

The rows stream: SQLite through ``cursor.fetchmany`` on a connection opened ``mode=ro`` with ``PRAGMA
query_only``, PostgreSQL through a named (server-side) cursor in a ``READ ONLY`` transaction, in chunks of
:data:`CHUNK_ROWS` rows. Each chunk becomes integer codes at once (the user's record number and the item's
number, in numpy arrays), so memory grows by about 12 bytes a row plus one entry per distinct user and
item, never by a Python tuple per row. The URL and its credentials are :mod:`corpora.io.sql_url`'s.
"""

from __future__ import annotations

import contextlib
import operator
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.headers import user_value_terms
from corpora.io.sql_url import DatabaseURL, connect, database_errors, parse_db_url
from corpora.io.tokens import control_term, csr_from_ids, user_terms

__all__ = ["CHUNK_ROWS", "MAX_QUERY_CHARS", "MAX_ROWS", "SQL_FORMAT", "check_sql_options", "read_sql", "sql_rows"]

CHUNK_ROWS = 50_000
"""Rows fetched from the database at a time."""

MAX_QUERY_CHARS = 1 << 20
"""Longest query accepted (characters)."""

MAX_ROWS = 2**31 - 1
"""Most rows a query may return (record and item numbers are 32-bit)."""

SQL_FORMAT = "sql"
"""The ``format`` a dataset read from a database records in its metadata."""

_CURSOR_NAME = "corpora_read_sql"
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


def check_sql_options(sql: str | None, db: str | None, source: object = None, **file_options: Any) -> None:
    """Refuse ``--sql``/``--db`` given without each other, with an input file or name, or with a file's
    reading option (``format``, ``delimiter``, ``header``, ``user_column``, ``item_column``), in one line."""
    if sql is None and db is None:
        return
    if sql is None:
        raise InputError("--db names the database of --sql QUERY; give both, or neither")
    if db is None:
        raise InputError("--sql QUERY needs --db URL (a SQLite file, sqlite:///PATH or postgresql://...)")
    if source is not None:
        raise InputError("--sql reads the dataset from the database: give it instead of INPUT (or --original), "
                         "not with it")
    given = sorted(key for key, value in file_options.items() if value is not None)
    if given:
        flags = ", ".join(f"--{key.replace('_', '-')}" for key in given)
        raise InputError(f"{flags}: reading options of files; with --sql the query's first column is the user and "
                         "its second column the item")


def _check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InputError("--sql: expected a query (SELECT user, item FROM ...), got nothing")
    if len(query) > MAX_QUERY_CHARS or "\x00" in query:
        raise InputError(f"--sql: the query is longer than {MAX_QUERY_CHARS:,} characters or holds a NUL")
    return query.strip().rstrip(";").strip()


def _check_columns(db: DatabaseURL, description: Sequence[Any] | None) -> None:
    if description is None:
        raise InputError(f"{db.shown}: the query returns no rows (not a SELECT); it must return two columns: the "
                         "user, then the item")
    if len(description) != 2:
        names = ", ".join(repr(str(column[0]))[:40] for column in description[:8])
        raise InputError(f"{db.shown}: the query returns {len(description)} column(s) ({names}); it must return "
                         "two: the user (grouping rows into records), then the item")


def _sqlite_rows(db: DatabaseURL, query: str, chunk_rows: int) -> Iterator[list[tuple[Any, ...]]]:
    with connect(db, read_only=True) as connection:
        with database_errors(db, "the query"):
            cursor = connection.execute(query)
        _check_columns(db, cursor.description)
        while True:
            with database_errors(db, "reading the rows"):
                rows = cursor.fetchmany(chunk_rows)
            if not rows:
                return
            yield rows


def _postgresql_rows(db: DatabaseURL, query: str, chunk_rows: int) -> Iterator[list[tuple[Any, ...]]]:
    with connect(db, read_only=True) as connection:
        with database_errors(db, "the query"):
            cursor = connection.cursor(name=_CURSOR_NAME)  # server-side: the rows stay on the server
            cursor.itersize = chunk_rows
            cursor.execute(query)
            description = cursor.description
        _check_columns(db, description)
        while True:
            with database_errors(db, "reading the rows"):
                rows = cursor.fetchmany(chunk_rows)
            if not rows:
                connection.rollback()  # read only: nothing to keep
                return
            yield rows


def sql_rows(db: str | DatabaseURL, query: str, chunk_rows: int = CHUNK_ROWS) -> Iterator[list[tuple[Any, ...]]]:
    """The rows ``query`` returns from ``db``, ``chunk_rows`` at a time, read only (module doc).

    The query must return two columns; the connection closes when the iterator is exhausted or closed.
    """
    url = db if isinstance(db, DatabaseURL) else parse_db_url(db)
    text = _check_query(query)
    if url.dialect == "sqlite":
        return _sqlite_rows(url, text, chunk_rows)
    return _postgresql_rows(url, text, chunk_rows)


class _Grouping:
    """Rows to integer codes, chunk by chunk: each user's record number, each item's number (first seen)."""

    def __init__(self, db: DatabaseURL) -> None:
        self.db = db
        self.users: dict[str, int] = {}
        self.items: dict[str, int] = {}
        self.records: list[np.ndarray] = []
        self.item_ids: list[np.ndarray] = []
        self.rows = 0

    def add(self, rows: Sequence[tuple[Any, ...]]) -> None:
        if self.rows + len(rows) > MAX_ROWS:
            raise InputError(f"{self.db.shown}: the query returns more than {MAX_ROWS:,} rows")
        users, items = list(map(_FIRST, rows)), list(map(_SECOND, rows))
        self.records.append(self._codes(users, self.users, "user"))
        self.item_ids.append(self._codes(items, self.items, "item"))
        self.rows += len(rows)

    def _codes(self, values: list[Any], table: dict[str, int], role: str) -> np.ndarray:
        try:
            codes, uniques = pd.factorize(np.fromiter(values, dtype=object, count=len(values)), sort=False)
        except TypeError:
            raise InputError(f"{self.db.shown}: the {role} column holds values that are neither text nor numbers "
                             "(arrays, documents); select it as text") from None
        if len(codes) and codes.min() < 0:
            raise self._row_error(int(np.flatnonzero(codes < 0)[0]), f"the {role} is NULL")
        mapping = np.empty(len(uniques), dtype=np.int32)
        get, setdefault = table.get, table.setdefault
        for j, value in enumerate(uniques.tolist()):
            code = get(value) if type(value) is str else None  # seen in an earlier chunk: already checked
            if code is None:
                code = setdefault(self._text(value, role, codes, j), len(table))
            mapping[j] = code
        return mapping[codes]

    def _text(self, value: Any, role: str, codes: np.ndarray, j: int) -> str:
        if isinstance(value, (bytes, bytearray, memoryview)):
            raise self._row_error(self._first(codes, j), f"the {role} is a binary value; select it as text")
        text = (value if isinstance(value, str) else str(value)).strip()
        if not text:
            raise self._row_error(self._first(codes, j), f"empty {role}")
        if role == "item" and control_term(text):
            raise self._row_error(self._first(codes, j), "control character in the item; terms hold printable text "
                                                         "only")
        return text

    @staticmethod
    def _first(codes: np.ndarray, j: int) -> int:
        return int(np.flatnonzero(codes == j)[0])

    def _row_error(self, index: int, what: str) -> InputError:
        return InputError(f"{self.db.shown}: row {self.rows + index + 1} of the query: {what}")

    def dataset(self, name: str) -> TransactionDataset:
        if self.rows == 0:
            raise InputError(f"{self.db.shown}: the query returned no rows (no transactions)")
        records = np.concatenate(self.records).astype(np.int64)
        ids = np.concatenate(self.item_ids)
        terms = list(self.items)
        vocabulary = sorted(terms)
        position = {term: i for i, term in enumerate(vocabulary)}
        relabel = np.fromiter((position[t] for t in terms), dtype=np.int64, count=len(terms))
        shared = user_value_terms(terms, list(self.users))
        metadata = user_terms({"path": self.db.shown, "format": SQL_FORMAT}, shared)
        return csr_from_ids(relabel[ids], records, len(self.users), tuple(vocabulary), name, metadata)


def _default_name(db: DatabaseURL) -> str:
    if db.dialect == "sqlite":
        name = db.target.replace("\\", "/").rsplit("/", 1)[-1]
        return name.split(".")[0] or "sql"
    path = db.target.split("?", 1)[0].split("://", 1)[-1]
    return path.split("/", 1)[1] if "/" in path and path.split("/", 1)[1] else "sql"


def read_sql(query: str, db: str, *, name: str | None = None, chunk_rows: int = CHUNK_ROWS) -> TransactionDataset:
    """Read a :class:`TransactionDataset` from the rows ``query`` returns from the database ``db``.

    ``query`` returns two columns: the user (it groups the rows into records and is then dropped), then
    the item. ``db`` is a SQLite file or ``sqlite:///PATH`` URL, or a ``postgresql://`` URL (credentials
    from the URL, the environment or ``~/.pgpass``; never printed). Read in a read-only transaction,
    ``chunk_rows`` rows at a time. ``name`` defaults to the database's (the SQLite file's stem or the
    PostgreSQL database name). Bad input (a query the database refuses, other than two columns, a NULL,
    no rows, a database that cannot be reached) raises :class:`InputError`, one line, credentials masked.

    >>> read_sql("SELECT customer, product FROM orders ORDER BY customer", "shop.db")  # doctest: +SKIP
    """
    if not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise InputError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    url = parse_db_url(db)
    grouping = _Grouping(url)
    bar = tqdm(desc="reading rows", unit="row", unit_scale=True, leave=False, disable=not sys.stderr.isatty())
    with bar, contextlib.closing(sql_rows(url, query, chunk_rows)) as chunks:
        for rows in chunks:
            grouping.add(rows)
            bar.update(len(rows))
    return grouping.dataset(_default_name(url) if name is None else name)
