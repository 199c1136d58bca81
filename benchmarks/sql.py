"""Benchmark: reading (user, item) rows from PostgreSQL and SQLite against the same rows from a long CSV.

    python benchmarks/sql.py                      # 1M rows: 100k users x 10 items over 5,000 items
    python benchmarks/sql.py --rows 200000 --chunk-rows 10000 50000
    python benchmarks/sql.py --db postgresql://USER@HOST/DB   # a server of yours (a table is created and dropped)
    python benchmarks/sql.py --rows 10000000 --sources postgresql   # 10M rows streamed from PostgreSQL alone

Without ``--db`` a private PostgreSQL server is started in a temporary folder for the run (the one the
tests use, ``tests/pg_server.py``: Debian's ``initdb``/``pg_ctl``, a Unix socket, no TCP) and stopped at
the end. The rows (users ``c0000001@example.com``..., items drawn with a Zipf-like skew) are written as a
long CSV, copied into a PostgreSQL table and a SQLite file, then read three ways, each in a fresh
subprocess so that its peak resident memory (``ru_maxrss``) is its own: ``corpora.read_dataset(CSV,
format="long")``, ``corpora.read_sql(QUERY, sqlite file)`` and ``corpora.read_sql(QUERY, postgresql://...)``.
The table gives seconds (reading only; imports excluded), the peak memory, and the peak above the process
after its imports (what the reading itself added). All three datasets are checked equal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUERY = "SELECT customer, product FROM orders ORDER BY position"

_CHILD = r"""
import hashlib, json, resource, sys, time
from corpora import read_dataset, read_sql
kind, source, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
if kind == "csv":
    ds = read_dataset(source, format="long", user_column="customer", item_column="product")
else:
    ds = read_sql(sys.argv[4], source, chunk_rows=chunk)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
digest = hashlib.sha256("\n".join(ds.vocabulary).encode() + ds.indptr.tobytes() + ds.indices.tobytes()).hexdigest()
print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024, "base_mb": base / 1024, "records": len(ds),
                  "digest": digest}))
"""


def make_rows(rows: int, items_per_user: int, domain: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """User numbers (each ``items_per_user`` rows in a row) and item numbers (Zipf-like, exponent 1)."""
    rng = np.random.default_rng(seed)
    users = np.arange(rows) // items_per_user
    weights = 1.0 / np.arange(1, domain + 1)
    items = rng.choice(domain, size=rows, p=weights / weights.sum())
    return users, items


def write_csv(path: Path, users: np.ndarray, items: np.ndarray) -> None:
    with open(path, "w") as out:
        out.write("customer,product\n")
        for start in range(0, len(users), 100_000):
            u, i = users[start:start + 100_000], items[start:start + 100_000]
            out.write("".join(f"c{a:07d}@example.com,item{b}\n" for a, b in zip(u.tolist(), i.tolist(), strict=True)))


def _rows(path: Path) -> Iterator[tuple[int, str, str]]:
    with open(path) as handle:
        next(handle)
        for n, line in enumerate(handle):
            user, item = line.rstrip("\n").split(",")
            yield n, user, item


def load_sqlite(path: Path, csv: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE orders (position INTEGER, customer TEXT, product TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?, ?)", _rows(csv))
        connection.commit()


def load_postgresql(url: str, csv: Path) -> None:
    import psycopg

    with psycopg.connect(url) as connection, connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS orders")
        cursor.execute("CREATE TABLE orders (position INTEGER PRIMARY KEY, customer TEXT, product TEXT)")
        with cursor.copy("COPY orders (position, customer, product) FROM STDIN") as copy:
            for row in _rows(csv):
                copy.write_row(row)


def measure(kind: str, source: str, chunk: int) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _CHILD, kind, source, str(chunk), QUERY], capture_output=True,
                          text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind}: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout)


@contextlib.contextmanager
def postgresql(url: str | None) -> Iterator[str]:
    if url is not None:
        yield url
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import start_server, stop_server

    server, reason = start_server()
    if server is None:
        raise SystemExit(f"no PostgreSQL: {reason} (or pass --db URL)")
    try:
        yield server.createdb("bench")
    finally:
        stop_server(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--items-per-user", type=int, default=10)
    parser.add_argument("--domain", type=int, default=5000)
    parser.add_argument("--chunk-rows", type=int, nargs="+", default=[50_000])
    parser.add_argument("--db", default=None, help="a PostgreSQL URL to use instead of a private server")
    parser.add_argument("--sources", nargs="+", choices=("csv", "sqlite", "postgresql"),
                        default=["csv", "sqlite", "postgresql"], help="what to read (default: all three)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sql-") as folder, postgresql(args.db) as url:
        csv, lite = Path(folder) / "orders.csv", Path(folder) / "orders.db"
        write_csv(csv, *make_rows(args.rows, args.items_per_user, args.domain))
        if "sqlite" in args.sources:
            load_sqlite(lite, csv)
        if "postgresql" in args.sources:
            load_postgresql(url, csv)
        print(f"{args.rows:,} rows, {args.rows // args.items_per_user:,} users, {args.domain:,} items; "
              f"CSV {csv.stat().st_size / 2**20:.1f} MiB")
        print("| source | chunk rows | seconds | peak MiB | above imports MiB | records |")
        print("|---|---:|---:|---:|---:|---:|")
        runs = [("long CSV", "csv", str(csv), 0)] if "csv" in args.sources else []
        runs += [("SQLite file", "sql", str(lite), c) for c in args.chunk_rows if "sqlite" in args.sources]
        runs += [("PostgreSQL", "sql", url, c) for c in args.chunk_rows if "postgresql" in args.sources]
        digests = set()
        for label, kind, source, chunk in runs:
            r = measure(kind, source, chunk)
            digests.add(r["digest"])
            print(f"| {label} | {chunk or '-'} | {r['seconds']:.2f} | {r['peak_mb']:.0f} | "
                  f"{r['peak_mb'] - r['base_mb']:.0f} | {r['records']:,} |")
        print("datasets equal:", len(digests) == 1)
        if args.db is not None:
            import psycopg

            with psycopg.connect(url) as connection:
                connection.execute("DROP TABLE orders")


if __name__ == "__main__":
    main()
