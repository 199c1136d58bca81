"""Database URLs: which database a URL names, the URL with its credentials masked, and a connection to it.

Two kinds of database, told apart by the URL alone:

* **SQLite** (the standard library's :mod:`sqlite3`, the embedded default): a file path
  (``shop.db``, ``/data/shop.sqlite``) or ``sqlite:///relative/path.db`` / ``sqlite:////absolute/path.db``
  (the SQLAlchemy spelling: three slashes, then the path).
* **PostgreSQL** (the psycopg 3 driver): ``postgresql://[user[:password]@][host][:port]/dbname[?key=value...]``
  (``postgres://`` too), any libpq connection URI: ``?host=/run/postgresql`` names a Unix socket folder.
  Credentials come from the URL, from the environment (``PGUSER``, ``PGPASSWORD``, ``PGSERVICE``...) or from
  ``~/.pgpass``, as libpq reads them; none of them is ever printed.

Every message about a database names it by :attr:`DatabaseURL.shown`, the URL with the password
replaced by ``***`` (in the user part and in a ``password=`` parameter), and a driver's own message
goes through :meth:`DatabaseURL.scrub` (first line only, the password and the raw URL replaced) before
it reaches an :class:`~corpora.common.errors.InputError`. :func:`connect` opens a connection read-only
(``mode=ro`` and ``PRAGMA query_only`` for SQLite; a ``READ ONLY`` transaction for PostgreSQL) or, for
writing a release back (:mod:`anonymizer.io.release_db`), read-write in one transaction.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from corpora.common.errors import InputError

__all__ = ["CONNECT_TIMEOUT", "DIALECTS", "DatabaseURL", "connect", "database_errors", "parse_db_url"]

DIALECTS: tuple[str, ...] = ("sqlite", "postgresql")
"""The databases a URL may name."""

CONNECT_TIMEOUT = 10
"""Seconds a PostgreSQL connection attempt may take (unless the URL sets ``connect_timeout``)."""

MAX_URL_CHARS = 4096
"""Longest database URL accepted."""

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)([^/@?#]*?):([^/?#]*)@")
_PASSWORD_PARAM = re.compile(r"([?&]password=)([^&#]*)", re.IGNORECASE)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def _mask(url: str) -> str:
    """``url`` with the password of its user part and of a ``password=`` parameter replaced by ``***``."""
    return _PASSWORD_PARAM.sub(r"\1***", _USERINFO.sub(r"\1\2:***@", url))


def _passwordless(url: str) -> str:
    """``url`` without any password (libpq then reads ``PGPASSWORD`` or ``~/.pgpass``)."""
    without = _USERINFO.sub(r"\1\2@", url)
    without = re.sub(r"([?&])password=[^&#]*&?", r"\1", without, flags=re.IGNORECASE)
    return without.rstrip("?&")


@dataclass(frozen=True)
class DatabaseURL:
    """A parsed database URL: ``dialect`` (``sqlite`` or ``postgresql``), ``target`` (the SQLite file, or
    the libpq URI as given), ``shown`` (the URL with its password masked: the only form a message uses)."""

    dialect: str
    target: str
    shown: str
    secrets: tuple[str, ...] = ()

    def __repr__(self) -> str:  # never the target: it may hold a password
        return f"DatabaseURL({self.dialect!r}, {self.shown!r})"

    @property
    def without_password(self) -> str:
        """The URL without its password: what a printed command may carry (credentials then come from
        ``PGPASSWORD`` or ``~/.pgpass``)."""
        return _passwordless(self.target) if self.dialect == "postgresql" else self.target

    def scrub(self, message: object) -> str:
        """A driver's message as one line, with the URL masked and every password replaced by ``***``."""
        lines = [line.strip() for line in str(message).splitlines() if line.strip()]
        text = lines[0] if lines else type(message).__name__
        if self.target:
            text = text.replace(self.target, self.shown)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text[:300]


def parse_db_url(url: str) -> DatabaseURL:
    """The database ``url`` names (module doc); :class:`InputError` for an empty, overlong or unknown one."""
    if not isinstance(url, str) or not url.strip():
        raise InputError("--db: expected a database URL (a SQLite file, sqlite:///PATH or postgresql://...), got "
                         "nothing")
    if len(url) > MAX_URL_CHARS or "\n" in url or "\x00" in url:
        raise InputError(f"--db: not a database URL ({len(url)} characters, or a line break or NUL in it)")
    scheme = _SCHEME.match(url)
    if scheme is None:
        return DatabaseURL("sqlite", url, url)
    name = scheme.group(1).lower()
    if name == "sqlite":
        rest = url[len(scheme.group(0)):]
        if not rest.startswith("/") or rest in ("/", "/:memory:"):
            raise InputError(f"--db {_mask(url)}: a SQLite URL is sqlite:///RELATIVE/PATH or sqlite:////ABSOLUTE/PATH")
        return DatabaseURL("sqlite", unquote(rest[1:]), url)
    if name in ("postgresql", "postgres"):
        secrets = []
        with contextlib.suppress(ValueError):  # a URL urlsplit cannot read: libpq says what is wrong with it
            parts = urlsplit(url)
            if parts.password:
                secrets += [parts.password, unquote(parts.password)]
        for found in _PASSWORD_PARAM.finditer(url):
            if found.group(2):
                secrets += [found.group(2), unquote(found.group(2))]
        ordered = tuple(sorted({s for s in secrets if s}, key=len, reverse=True))
        return DatabaseURL("postgresql", url, _mask(url), ordered)
    raise InputError(f"--db {_mask(url)}: unknown database {name!r}; use a SQLite file, sqlite:///PATH or "
                     "postgresql://USER@HOST/DBNAME")


@contextlib.contextmanager
def database_errors(db: DatabaseURL, doing: str) -> Iterator[None]:
    """Turn a driver's error inside the block into one :class:`InputError` line naming ``db`` (masked)."""
    try:
        yield
    except InputError:
        raise
    except sqlite3.Error as exc:
        raise InputError(f"{db.shown}: {doing} failed: {db.scrub(exc)}") from None
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != "psycopg":
            raise
        raise InputError(f"{db.shown}: {doing} failed: {db.scrub(exc)}") from None


def _sqlite(db: DatabaseURL, read_only: bool) -> sqlite3.Connection:
    path = Path(db.target)
    if read_only:
        if not path.is_file():
            what = "is a directory" if path.is_dir() else "no such database file"
            raise InputError(f"{db.shown}: {what}")
        uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
        connection = sqlite3.connect(uri, uri=True, isolation_level=None)
        connection.execute("PRAGMA query_only = ON")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # "file is not a database" here
        return connection
    if path.is_dir():
        raise InputError(f"{db.shown}: is a directory")
    if not path.parent.resolve().is_dir():
        raise InputError(f"{db.shown}: the folder of the database file does not exist")
    return sqlite3.connect(path, isolation_level=None)


def _postgresql(db: DatabaseURL, read_only: bool) -> Any:
    try:
        import psycopg
    except ImportError:
        raise InputError(f"{db.shown}: reading PostgreSQL needs the psycopg driver: "
                         "pip install 'psycopg[binary]'") from None
    options: dict[str, Any] = {"autocommit": False, "application_name": "disassociation-workbench"}
    if "connect_timeout" not in db.target:
        options["connect_timeout"] = CONNECT_TIMEOUT
    try:
        connection = psycopg.connect(db.target, **options)
    except psycopg.Error as exc:
        raise InputError(f"{db.shown}: cannot connect to the database: {db.scrub(exc)}") from None
    connection.read_only = read_only
    return connection


@contextlib.contextmanager
def connect(db: DatabaseURL, *, read_only: bool = True) -> Iterator[Any]:
    """An open connection to ``db``, closed at the end of the block (a PostgreSQL transaction left open
    is rolled back); errors of the driver become one masked :class:`InputError` line."""
    with database_errors(db, "opening the database"):
        connection = _sqlite(db, read_only) if db.dialect == "sqlite" else _postgresql(db, read_only)
    try:
        yield connection
    finally:
        with contextlib.suppress(Exception):
            connection.close()
