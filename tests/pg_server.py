"""A private PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` in a temporary folder, stopped at the end.

The server listens on a Unix socket in its own folder only (``listen_addresses=''``: no TCP port, so
nothing else on the machine can reach it and no port can clash), with ``trust`` authentication for one
superuser made by ``initdb`` (:data:`USER`). PostgreSQL refuses to run as root, so under root the
folder is handed to the unprivileged ``nobody`` account and every server command runs through
``runuser``. Without the server binaries (Debian's ``postgresql`` package; ``scripts/install-system-data.sh``
installs it where apt works) or the psycopg driver the tests skip with one line saying so.

``pg_server`` (a pytest fixture, one server per test session and worker) yields a :class:`PgServer`;
``server.url(dbname)`` is a ``postgresql://`` URL for it and ``server.createdb(name)`` makes a database.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

USER = "workbench"
"""The superuser ``initdb`` makes (trust authentication on the private socket)."""

OWNER, OWNER_PASSWORD = "owner", "s3cret-Pw"
"""A second login that must give its password (scram-sha-256): the credential tests use it."""

PORT = 5432
"""Names the socket file only: the server opens no TCP port."""


def server_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (the newest Debian version, else ``PATH``), or ``None``."""
    for initdb in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        if os.access(initdb, os.X_OK) and os.access(Path(initdb).with_name("pg_ctl"), os.X_OK):
            return Path(initdb).parent
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    return None


@dataclass
class PgServer:
    """A running private server: its folder, its socket folder and the command prefix that runs as its owner."""

    root: Path
    socket_dir: Path
    runas: list[str]

    def url(self, dbname: str = "postgres", password: str | None = None, user: str = USER) -> str:
        user = user if password is None else f"{user}:{quote(password, safe='')}"
        return f"postgresql://{user}@/{dbname}?host={quote(str(self.socket_dir), safe='')}&port={PORT}"

    def createdb(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}): {(done.stderr or done.stdout).strip()[-500:]}")


def start_server() -> tuple[PgServer | None, str]:
    """Start a private server; ``(None, reason)`` when the binaries or the driver are missing."""
    bindir = server_binaries()
    if bindir is None:
        return None, "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "the psycopg driver is not installed: pip install 'psycopg[binary]'"
    root = Path(tempfile.mkdtemp(prefix="wb-pg-"))  # under /tmp: reachable by the server's account
    runas: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            shutil.rmtree(root, ignore_errors=True)
            return None, "running as root without runuser: PostgreSQL refuses to run as root"
        account = pwd.getpwnam("nobody")
        os.chown(root, account.pw_uid, account.pw_gid)
        runas = ["runuser", "-u", "nobody", "--"]
    os.chmod(root, 0o755)
    data, sockets = root / "data", root / "socket"
    _run(runas + ["mkdir", "-m", "0755", str(sockets)], "mkdir")
    _run(runas + [str(bindir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync"], "initdb")
    (data / "pg_hba.conf").write_text(f"local all {USER} trust\nlocal all all scram-sha-256\n")
    options = f"-k {sockets} -c listen_addresses='' -p {PORT} -c fsync=off -c max_connections=20"
    _run(runas + [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "server.log"), "-o", options, "-w",
                  "-t", "60", "start"], "pg_ctl start")
    server = PgServer(root, sockets, runas + [str(bindir / "pg_ctl")])
    import psycopg

    with psycopg.connect(server.url(), autocommit=True) as connection:
        connection.execute(f"CREATE ROLE {OWNER} LOGIN PASSWORD '{OWNER_PASSWORD}'")
    return server, ""


def stop_server(server: PgServer) -> None:
    try:
        _run(server.runas + ["-D", str(server.root / "data"), "-m", "immediate", "-w", "stop"], "pg_ctl stop")
    finally:
        shutil.rmtree(server.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    server, reason = start_server()
    if server is None:
        pytest.skip(reason)
    try:
        yield server
    finally:
        stop_server(server)
