"""Transactions straight from PostgreSQL (issue 27), against a real server this test starts (:mod:`pg_server`).

The same release and truth from the database and from the equivalent long CSV, byte for byte; a
server-side cursor in a read-only transaction; credentials from the URL, ``PGPASSWORD`` or a password
file, never printed; bad input one line, exit 2, nothing written; the release written back with
``--to-db`` reads back equal to its file. Skips in one line when the server binaries are absent.
"""

from __future__ import annotations

import json
import shlex
import threading
from pathlib import Path

import pytest
from cli_runner import run_tool
from pg_server import OWNER, OWNER_PASSWORD, pg_server  # noqa: F401  (the fixture)
from sql_cases import ANON, EMAIL, LONG, QUERY, no_files, owner_rows, refused, write_long_csv

from anonymizer.io.release_db import read_release_db
from anonymizer.io.release_files import load_release
from corpora import InputError, read_dataset, read_sql
from corpora.io.sql import sql_rows

pytestmark = pytest.mark.subprocess  # the fixture starts a PostgreSQL server (initdb, pg_ctl)


@pytest.fixture(scope="session")
def shop(pg_server, tmp_path_factory):  # noqa: F811
    """A database ``shop`` with the owner's orders, the same rows as a long CSV in a folder (once per server:
    the suite's ordering may leave this module and come back to it)."""
    import psycopg

    url = pg_server.createdb("shop")
    rows = owner_rows()
    with psycopg.connect(url) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE orders (position INTEGER, customer_email TEXT, product TEXT)")
        with cursor.copy("COPY orders FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cursor.execute("CREATE SEQUENCE counter")
        cursor.execute(f"GRANT SELECT ON orders TO {OWNER}")
        cursor.execute(f"GRANT CREATE ON SCHEMA public TO {OWNER}")
    folder = tmp_path_factory.mktemp("pg")
    write_long_csv(folder / "orders.csv", rows)
    return url, folder


def test_same_dataset_release_and_truth_as_the_long_csv(shop):
    url, folder = shop
    assert read_sql(QUERY, url) == read_dataset(folder / "orders.csv", format="long", user_column="customer_email",
                                                item_column="product")
    db = run_tool("anonymizer", ["--sql", QUERY, "--db", url, *ANON, "-o", "db.json", "--truth", "db-t.json"],
                  cwd=folder)
    csv = run_tool("anonymizer", ["orders.csv", *LONG, *ANON, "-o", "csv.json", "--truth", "csv-t.json"], cwd=folder)
    assert db.returncode == 0 and csv.returncode == 0, db.stderr + csv.stderr
    assert (folder / "db.json").read_bytes() == (folder / "csv.json").read_bytes()
    assert (folder / "db-t.json").read_bytes() == (folder / "csv-t.json").read_bytes()
    assert not EMAIL.search((folder / "db.json").read_text() + db.stdout + db.stderr)
    assert db.stdout.startswith("shop: 300 records")


def test_a_server_side_cursor_in_a_read_only_transaction(shop, pg_server):  # noqa: F811
    import psycopg

    url, _ = shop
    chunks = sql_rows(url, QUERY, chunk_rows=10)
    assert len(next(chunks)) == 10  # the first chunk is here, the rest is still on the server
    with psycopg.connect(pg_server.url("shop"), autocommit=True) as other:
        seen = other.execute("SELECT query, state FROM pg_stat_activity WHERE application_name = "
                             "'disassociation-workbench'").fetchall()
    chunks.close()
    # the rows come through a named cursor, fetched chunk by chunk inside the open transaction
    assert ('FETCH FORWARD 10 FROM "corpora_read_sql"', "idle in transaction") in seen, seen
    # a query that writes is refused (by the cursor, or by the read-only transaction); the table is unchanged
    with pytest.raises(InputError, match="data-modifying"):
        read_sql("WITH gone AS (DELETE FROM orders RETURNING customer_email, product) SELECT * FROM gone", url)
    with pytest.raises(InputError, match=r"cannot execute nextval\(\) in a read-only transaction"):
        read_sql("SELECT customer_email, nextval('counter')::text FROM orders", url)
    assert len(read_sql("SELECT customer_email, product FROM orders", url)) == 300


def test_percent_signs_and_many_chunks(shop):
    url, _ = shop
    like = read_sql("SELECT customer_email, product FROM orders WHERE product LIKE 'pi001%' ORDER BY position", url,
                    chunk_rows=3)
    assert like.vocabulary and all(t.startswith("pi001") for t in like.vocabulary)


def test_credentials_from_the_url_the_environment_and_a_password_file(shop, pg_server, tmp_path, monkeypatch):  # noqa: F811
    url, _ = shop
    with_password = pg_server.url("shop", password=OWNER_PASSWORD, user=OWNER)
    assert len(read_sql(QUERY, with_password)) == 300
    without = pg_server.url("shop", user=OWNER)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    with pytest.raises(InputError, match="cannot connect") as refusal:
        read_sql(QUERY, without)
    assert "\n" not in str(refusal.value)
    monkeypatch.setenv("PGPASSWORD", OWNER_PASSWORD)
    assert len(read_sql(QUERY, without)) == 300
    monkeypatch.delenv("PGPASSWORD")
    (tmp_path / "pgpass").write_text(f"*:*:*:{OWNER}:{OWNER_PASSWORD}\n")
    (tmp_path / "pgpass").chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
    assert len(read_sql(QUERY, without)) == 300


def test_a_wrong_password_is_never_printed(shop, pg_server):  # noqa: F811
    _, folder = shop
    wrong = "Wr0ng-pa55word"
    bad = pg_server.url("shop", password=wrong, user=OWNER)
    done = run_tool("anonymizer", ["--sql", QUERY, "--db", bad, *ANON, "-o", "x.json"], cwd=folder)
    line = refused(done, wrong)
    assert "password authentication failed" in line and f"{OWNER}:***@" in line
    unreachable = bad.replace("socket", "no-socket")
    line = refused(run_tool("anonymizer", ["--sql", QUERY, "--db", unreachable, *ANON, "-o", "x.json"], cwd=folder),
                   wrong)
    assert "cannot connect to the database" in line
    no_files(folder, ["x.json"])


BAD = [
    ("SELECT a, b FROM nowhere", 'relation "nowhere" does not exist'),
    ("SELECT customer_email, price FROM orders", 'column "price" does not exist'),
    ("SELECT customer_email, product, position FROM orders", "returns 3 column(s)"),
    ("SELECT NULL::text, product FROM orders", "the user is NULL"),
    ("SELECT customer_email, NULLIF(product, product) FROM orders", "the item is NULL"),
    ("SELECT customer_email, product FROM orders WHERE false", "returned no rows"),
    ("DELETE FROM orders", "syntax error"),
]


@pytest.mark.parametrize("query,message", BAD, ids=[m for _, m in BAD])
def test_bad_queries_are_one_line_and_write_nothing(shop, query, message):
    url, folder = shop
    done = run_tool("anonymizer", ["--sql", query, "--db", url, *ANON, "-o", "bad.json", "--truth", "bad-t.json"],
                    cwd=folder)
    assert message in refused(done)
    no_files(folder, ["bad.json", "bad-t.json"])


def test_to_db_round_trip_and_refusal(shop, pg_server):  # noqa: F811
    url, folder = shop
    target = pg_server.url("shop", password=OWNER_PASSWORD, user=OWNER)
    done = run_tool("anonymizer", ["--sql", QUERY, "--db", url, *ANON, "-o", "w.json", "--truth", "w-t.json",
                                   "--to-db", target, "--table", "published"], cwd=folder)
    assert done.returncode == 0, done.stderr
    assert OWNER_PASSWORD not in done.stdout + done.stderr
    assert read_release_db(url, "published") == load_release(str(folder / "w.json"))
    again = run_tool("anonymizer", ["--sql", QUERY, "--db", url, *ANON, "-o", "w2.json", "--to-db", target,
                                    "--table", "published"], cwd=folder)
    assert "already exists" in refused(again, OWNER_PASSWORD)
    no_files(folder, ["w2.json"])


def test_audit_commands_carry_the_query_without_the_password(shop, pg_server):  # noqa: F811
    url, folder = shop
    secret_url = pg_server.url("shop", password=OWNER_PASSWORD, user=OWNER)
    made = run_tool("anonymizer", ["--sql", QUERY, "--db", secret_url, "-k", "2", "-m", "2", "--seed", "1", "-o",
                                   "a.json", "--truth", "a-t.json"], cwd=folder)
    assert made.returncode == 0, made.stderr
    done = run_tool("attacks", ["audit", "a.json", "--truth", "a-t.json", "--sql", QUERY, "--db", secret_url,
                                "--no-semantic", "--json"], cwd=folder)
    assert done.returncode in (0, 1), done.stderr
    assert OWNER_PASSWORD not in done.stdout + done.stderr
    command = json.loads(done.stdout)["commands"][0]
    words = shlex.split(command)
    assert words[3:7] == ["--sql", QUERY, "--db", pg_server.url("shop", user=OWNER)]
    rerun = run_tool("anonymizer", words[3:], cwd=folder, env={"PGPASSWORD": OWNER_PASSWORD})
    assert rerun.returncode == 0, rerun.stderr


def test_concurrent_readers(shop):
    url, _ = shop
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(len(read_sql(QUERY, url, chunk_rows=50))))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [300, 300, 300]


def test_skip_reason_is_one_line_without_binaries(monkeypatch):
    import pg_server as module

    monkeypatch.setattr(module, "server_binaries", lambda: None)
    server, reason = module.start_server()
    assert server is None and reason.startswith("PostgreSQL server binaries") and "\n" not in reason
    assert Path(module.__file__).name == "pg_server.py"
