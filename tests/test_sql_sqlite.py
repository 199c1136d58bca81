"""Transactions straight from SQLite (issue 27): ``--sql QUERY --db URL`` and ``corpora.read_sql``.

The same rows from a database and from the equivalent long CSV give the same dataset and the same
release and truth, byte for byte; the user column never reaches a release or a printed line (a property
test too); bad input is one line, exit 2, nothing written; the database is read only and in chunks; the
release written back with ``--to-db`` reads back equal to its file; every command that reads an original
takes ``--sql``; the audit's recommended commands read the original the same way.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import tracemalloc
from pathlib import Path

import pytest
from cli_runner import run_tool
from hypothesis import HealthCheck, given, settings
from sql_cases import ANON, EMAIL, LONG, QUERY, no_files, owner_rows, refused, write_long_csv
from user_rows import user_item_rows

from anonymizer.io.release_db import TABLES, read_release_db, write_release_db
from anonymizer.io.release_files import load_release
from corpora import InputError, load_dataset, read_dataset, read_sql
from corpora.io.sql import sql_rows
from corpora.io.sql_url import parse_db_url

ROOT = Path(__file__).resolve().parents[1]


def _sqlite(path: Path, rows, table: str = "orders") -> Path:
    with sqlite3.connect(path) as connection:
        connection.execute(f"CREATE TABLE {table} (position INTEGER, customer_email TEXT, product TEXT)")
        connection.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)", rows)
    connection.close()
    return path


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("shop")
    rows = owner_rows()
    _sqlite(folder / "shop.db", rows)
    write_long_csv(folder / "orders.csv", rows)
    return folder


def test_read_sql_equals_the_long_csv_reader(shop):
    from_db = read_sql(QUERY, str(shop / "shop.db"))
    from_csv = read_dataset(shop / "orders.csv", format="long", user_column="customer_email", item_column="product")
    assert from_db == from_csv and from_db.name == "shop"
    assert from_db.metadata == {"path": str(shop / "shop.db"), "format": "sql"}
    assert not any(EMAIL.search(term) for term in from_db.vocabulary)
    assert load_dataset(None, sql=QUERY, db=f"sqlite:///{shop / 'shop.db'}") == from_csv  # four slashes: absolute


@pytest.mark.parametrize("chunk_rows", [1, 7, 1000, 10**6])
def test_chunk_size_does_not_change_the_dataset(shop, chunk_rows):
    assert read_sql(QUERY, str(shop / "shop.db"), chunk_rows=chunk_rows) == read_sql(QUERY, str(shop / "shop.db"))


def test_the_docs_example_table(tmp_path):
    rows = [line.split(",") for line in (ROOT / "docs/examples/orders.csv").read_text().splitlines()[1:]]
    with sqlite3.connect(tmp_path / "orders.db") as connection:
        connection.execute("CREATE TABLE orders (user_id TEXT, item TEXT, day TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?, ?)", rows)
    connection.close()
    ds = read_sql("SELECT user_id, item FROM orders", str(tmp_path / "orders.db"))
    assert ds == read_dataset(ROOT / "docs/examples/orders.csv", format="long", user_column="user_id",
                              item_column="item")
    assert not {"u1", "u2", "user_id"} & set(ds.vocabulary)
    # the release of docs/sql.md's example is the long CSV's, byte for byte
    sql = ["--sql", "SELECT user_id, item FROM orders ORDER BY user_id", "--db", "orders.db"]
    long = [str(ROOT / "docs/examples/orders.csv"), "--format", "long", "--user-column", "user_id", "--item-column",
            "item"]
    for name, source in [("sql", sql), ("long", long)]:
        done = run_tool("anonymizer", [*source, "-k", "2", "-m", "1", "--seed", "1", "-o", f"{name}.json",
                                       "--truth", f"{name}-truth.json"], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "sql.json").read_bytes() == (tmp_path / "long.json").read_bytes()
    assert (tmp_path / "sql-truth.json").read_bytes() == (tmp_path / "long-truth.json").read_bytes()


def test_values_read_as_text_like_a_csv_field(tmp_path):
    with sqlite3.connect(tmp_path / "t.db") as connection:
        connection.execute("CREATE TABLE t (u, i)")
        connection.executemany("INSERT INTO t VALUES (?, ?)", [(1, 41270), (1, " milk "), (2, 41270), (2, "u1")])
    connection.close()
    ds = read_sql("SELECT u, i FROM t", str(tmp_path / "t.db"))
    assert ds.records == [frozenset({"41270", "milk"}), frozenset({"41270", "u1"})]
    assert "user_column_terms" not in ds.metadata  # the users are 1 and 2, not u1
    ds = read_sql("SELECT 'u' || u, i FROM t", str(tmp_path / "t.db"))
    assert ds.metadata["user_column_terms"] == ["u1"]  # an item equal to a user value: screened as user-id


def test_same_release_and_truth_from_the_database_and_the_long_csv(shop):
    for name, extra in (("", []), ("split-", ["--split-depth", "1"])):  # split runs read the same way
        outputs = {}
        for source, argv in (("db", ["--sql", QUERY, "--db", "shop.db"]), ("csv", ["orders.csv", *LONG])):
            done = run_tool("anonymizer", [*argv, *ANON, *extra, "-o", f"{name}{source}.json", "--truth",
                                           f"{name}{source}-truth.json"], cwd=shop)
            assert done.returncode == 0, done.stderr
            assert not EMAIL.search(done.stdout + done.stderr)
            outputs[source] = [(shop / f"{name}{source}{end}.json").read_bytes() for end in ("", "-truth")]
        assert outputs["db"] == outputs["csv"]
        assert not EMAIL.search(outputs["db"][0].decode())


def test_every_command_that_reads_an_original_takes_sql(shop):
    made = run_tool("anonymizer", ["--sql", QUERY, "--db", "shop.db", *ANON, "-o", "r.json", "--truth", "t.json"],
                    cwd=shop)
    assert made.returncode == 0, made.stderr
    source = ["--sql", QUERY, "--db", "shop.db"]
    for tool, argv in [("anonymizer", ["utility", "r.json", *source, "--json"]),
                       ("attacks", ["cover", "r.json", *source, "--attacker", "moderate"]),
                       ("corpora", ["stats", *source, "--json"]),
                       ("corpora", ["convert", *source, "-o", "out.txt"]),
                       ("anonymizer", [*source, "--method", "apriori", "-k", "2", "-m", "1", "-o", "gen.json"])]:
        done = run_tool(tool, argv, cwd=shop)
        assert done.returncode == 0, (argv, done.stderr)
        assert not EMAIL.search(done.stdout + done.stderr)
    assert not EMAIL.search((shop / "out.txt").read_text() + (shop / "gen.json").read_text())
    stats = json.loads(run_tool("corpora", ["stats", *source, "--json"], cwd=shop).stdout)
    assert stats["records"] == 300 and stats["name"] == "shop"


def test_the_audit_recommends_commands_that_read_the_database_again(shop):
    made = run_tool("anonymizer", ["--sql", QUERY, "--db", "shop.db", "-k", "2", "-m", "2", "--seed", "1", "-o",
                                   "a.json", "--truth", "a-truth.json"], cwd=shop)
    assert made.returncode == 0, made.stderr
    done = run_tool("attacks", ["audit", "a.json", "--truth", "a-truth.json", "--sql", QUERY, "--db", "shop.db",
                                "--no-semantic", "--json"], cwd=shop)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["commands"], report["verdict"]
    words = shlex.split(report["commands"][0])
    assert words[:7] == ["python", "-m", "anonymizer", "--sql", QUERY, "--db", "shop.db"]
    rerun = run_tool("anonymizer", words[3:], cwd=shop)  # runs as printed
    assert rerun.returncode == 0, rerun.stderr


def test_audit_source_of_a_postgresql_url_carries_no_password():
    from argparse import Namespace

    from attacks.cli.audit import original_source

    args = Namespace(sql="SELECT u, i FROM t", db="postgresql://ann:pa55word@db.example/shop?sslmode=require")
    assert original_source(args) == ("--sql 'SELECT u, i FROM t' --db "
                                     "'postgresql://ann@db.example/shop?sslmode=require'")
    args.db = "postgresql:///shop?host=/run/pg&password=pa55word&user=ann"
    assert "pa55word" not in original_source(args) and "user=ann" in original_source(args)


# ---------------------------------------------------------------------------------------- bad input
BAD = [
    (["--sql", "SELECT customer_email, product, position FROM orders"], "returns 3 column(s)"),
    (["--sql", "SELECT product FROM orders"], "returns 1 column(s)"),
    (["--sql", "SELECT a, b FROM nowhere"], "no such table: nowhere"),
    (["--sql", "SELECT customer_email, price FROM orders"], "no such column: price"),
    (["--sql", "SELECT NULL, product FROM orders"], "row 1 of the query: the user is NULL"),
    (["--sql", "SELECT customer_email, CASE WHEN position = 4 THEN NULL ELSE product END FROM orders "
               "ORDER BY position"], "row 5 of the query: the item is NULL"),
    (["--sql", "SELECT customer_email, '  ' FROM orders"], "row 1 of the query: empty item"),
    (["--sql", "SELECT customer_email, x'00' FROM orders"], "binary value"),
    (["--sql", "SELECT customer_email, product FROM orders WHERE 0"], "returned no rows"),
    (["--sql", "DELETE FROM orders"], "readonly database"),
    (["--sql", "SELECT 1, 2; DELETE FROM orders"], "one statement at a time"),
    (["--sql", "   "], "expected a query"),
]


@pytest.mark.parametrize("query,message", BAD, ids=[m for _, m in BAD])
def test_bad_queries_are_one_line_and_write_nothing(shop, query, message):
    done = run_tool("anonymizer", [*query, "--db", "shop.db", "-k", "2", "-m", "1", "-o", "bad.json", "--truth",
                                   "bad-truth.json"], cwd=shop)
    assert message in refused(done)
    no_files(shop, ["bad.json", "bad-truth.json"])
    assert read_sql("SELECT count(*), 1 FROM orders", str(shop / "shop.db")).records == [{"1"}]  # nothing deleted
    with sqlite3.connect(shop / "shop.db") as connection:
        assert connection.execute("SELECT count(*) FROM orders").fetchone()[0] == len(owner_rows())
    connection.close()


OPTIONS = [
    (["--sql", QUERY], "--sql QUERY needs --db URL"),
    (["--db", "shop.db"], "--db names the database of --sql"),
    (["orders.csv", "--sql", QUERY, "--db", "shop.db"], "instead of INPUT"),
    (["--sql", QUERY, "--db", "shop.db", "--user-column", "0"], "--user-column: reading options of files"),
    (["--sql", QUERY, "--db", "shop.db", "--format", "long"], "--format: reading options of files"),
    (["--sql", QUERY, "--db", "missing.db"], "missing.db: no such database file"),
    (["--sql", QUERY, "--db", "orders.csv"], "file is not a database"),
    (["--sql", QUERY, "--db", "."], "is a directory"),
    (["--sql", QUERY, "--db", "mysql://ann:pa55word@host/shop"], "unknown database 'mysql'"),
    (["--sql", QUERY, "--db", "sqlite:///:memory:"], "a SQLite URL is"),
    (["--sql", QUERY, "--db", "shop.db", "--executor", "dask"], "do not go with --executor dask"),
    (["--db", "shop.db", "--executor", "dask"], "do not go with --executor dask"),
    (["--executor", "dask"], "--executor dask reads a file: give INPUT"),
    (["--method", "apriori"], "no dataset: give INPUT"),
    ([], "no dataset: give INPUT"),
]


@pytest.mark.parametrize("argv,message", OPTIONS, ids=[m for _, m in OPTIONS])
def test_bad_options_are_one_line_and_write_nothing(shop, argv, message):
    done = run_tool("anonymizer", [*argv, "-k", "2", "-m", "1", "-o", "bad.json"], cwd=shop)
    assert message in refused(done, "pa55word")
    no_files(shop, ["bad.json"])


def test_the_other_commands_refuse_the_same_way(shop):
    for tool, argv in [("anonymizer", ["utility", "r.json", "--sql", QUERY]),
                       ("attacks", ["audit", "r.json", "--original", "orders.csv", "--sql", QUERY, "--db", "shop.db"]),
                       ("attacks", ["cover", "r.json", "--db", "shop.db"]),
                       ("corpora", ["stats", "--sql", "SELECT 1, 2, 3", "--db", "shop.db"])]:
        refused(run_tool(tool, argv, cwd=shop))


# ---------------------------------------------------------------------------------------- streaming
def test_rows_stream_in_chunks_in_bounded_memory(tmp_path):
    n = 200_000
    with sqlite3.connect(tmp_path / "big.db") as connection:
        connection.execute("CREATE TABLE t (u TEXT, i TEXT)")
        connection.executemany("INSERT INTO t VALUES (?, ?)",
                               ((f"user{r % 2000:05d}", f"item{(r * 7919) % 500}") for r in range(n)))
    connection.close()
    chunks = sql_rows(str(tmp_path / "big.db"), "SELECT u, i FROM t", chunk_rows=5000)
    assert len(next(chunks)) == 5000
    chunks.close()
    tracemalloc.start()
    try:
        ds = read_sql("SELECT u, i FROM t", str(tmp_path / "big.db"), chunk_rows=5000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(ds) == 2000
    # a list of the rows as tuples alone would take ~ n * 200 bytes (40 MB); the codes take ~ n * 12
    assert peak < n * 60, peak


# ---------------------------------------------------------------------------------------- write back
def test_to_db_writes_the_release_never_the_truth(shop):
    done = run_tool("anonymizer", ["--sql", QUERY, "--db", "shop.db", *ANON, "-o", "w.json", "--truth",
                                   "w-truth.json", "--to-db", "sqlite:///published.db", "--table", "rel"], cwd=shop)
    assert done.returncode == 0, done.stderr
    assert read_release_db(str(shop / "published.db"), "rel") == load_release(str(shop / "w.json"))
    with sqlite3.connect(shop / "published.db") as connection:
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        params = json.loads(connection.execute("SELECT params FROM rel_release").fetchone()[0])
    connection.close()
    assert tables == {f"rel_{part}" for part in TABLES}
    assert "seed" not in params and params == json.loads((shop / "w.json").read_text())["params"]
    # the tables exist now: a second run is refused before anything is written
    again = run_tool("anonymizer", ["--sql", QUERY, "--db", "shop.db", *ANON, "-o", "w2.json", "--to-db",
                                    "published.db", "--table", "rel"], cwd=shop)
    assert "table rel_release already exists" in refused(again)
    no_files(shop, ["w2.json"])


def test_to_db_is_all_or_nothing_with_the_files(shop, tmp_path):
    (tmp_path / "folder.json").mkdir()
    done = run_tool("anonymizer", ["--sql", QUERY, "--db", str(shop / "shop.db"), *ANON, "-o", "folder.json",
                                   "--to-db", "new.db", "--table", "rel"], cwd=tmp_path)
    refused(done)
    no_files(tmp_path, ["new.db"])
    for argv, message in [(["--to-db", "new.db"], "--to-db URL and --table NAME go together"),
                          (["--to-db", "new.db", "--table", "bad-name"], "a table name is"),
                          (["--to-db", "new.db", "--table", "t", "--split-depth", "1"], "made in one part"),
                          (["--to-db", "nofolder/new.db", "--table", "t"], "cannot create the database file"),
                          (["--to-db", "new.db", "--table", "t", "--method", "apriori"], "generalized/1")]:
        done = run_tool("anonymizer", ["--sql", QUERY, "--db", str(shop / "shop.db"), "-k", "2", "-m", "1",
                                       "-o", "x.json", *argv], cwd=tmp_path)
        assert message in refused(done)
        no_files(tmp_path, ["new.db", "x.json"])


def test_write_release_db_round_trip_with_joint_clusters(tmp_path):
    from anonymizer import disassociate

    ds = load_dataset("synthetic:records=400,domain=40,avg_length=6,seed=5")
    release, _ = disassociate(ds, k=3, m=2, max_cluster_size=6, seed=2)
    assert release.joint_clusters  # REFINE made some: the shared-chunk table is exercised
    write_release_db(release, str(tmp_path / "r.db"), "r")
    assert read_release_db(str(tmp_path / "r.db"), "r") == release
    with pytest.raises(InputError, match="already exists"):
        write_release_db(release, str(tmp_path / "r.db"), "r")


# ---------------------------------------------------------------------------------------- URLs
def test_urls_and_masking():
    assert parse_db_url("shop.db").dialect == "sqlite"
    assert parse_db_url("sqlite:///rel/shop.db").target == "rel/shop.db"
    assert parse_db_url("sqlite:////abs/shop.db").target == "/abs/shop.db"
    url = parse_db_url("postgresql://ann:pa55%40rd@host:5433/shop?password=other&sslmode=require")
    assert url.dialect == "postgresql" and "pa55" not in url.shown and "other" not in url.shown
    assert url.shown == "postgresql://ann:***@host:5433/shop?password=***&sslmode=require"
    assert "pa55" not in repr(url)
    assert url.scrub("auth failed for pa55@rd\nDETAIL: other") == "auth failed for ***"
    assert parse_db_url("postgres://h/db").dialect == "postgresql"
    odd = parse_db_url("postgresql://[::1:pa55word@x/db")  # urlsplit refuses it; the masking still holds
    assert "pa55word" not in odd.shown and odd.dialect == "postgresql"


@pytest.mark.parametrize("url", ["postgresql://ann:pa55word@localhost:notaport/db",
                                 "postgresql://ann:pa55word@/db?host=/nonexistent&bogus=1",
                                 "postgresql://ann:pa5%73word@/db?host=/nonexistent",
                                 "postgresql://[::1:pa55word@x/db",
                                 "postgresql:///db?password=pa55word&host=/nonexistent"])
def test_malformed_or_unreachable_postgresql_urls_never_print_the_password(tmp_path, url):
    done = run_tool("corpora", ["stats", "--sql", "SELECT 1, 2", "--db", url], cwd=tmp_path)
    assert "cannot connect" in refused(done, "pa55word", "pa5%73word")


# ---------------------------------------------------------------------------------------- property
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=user_item_rows())
def test_no_user_id_reaches_a_release_or_a_printed_line(tmp_path_factory, case):
    users, pairs = case
    folder = tmp_path_factory.mktemp("prop")
    rows = [(n, user, item) for n, (user, item) in enumerate(pairs)]
    _sqlite(folder / "p.db", rows)
    done = run_tool("anonymizer", ["--sql", QUERY, "--db", "p.db", "-k", "2", "-m", "1", "-o", "r.json", "--truth",
                                   "t.json", "--seed", "1"], cwd=folder)
    published = (folder / "r.json").read_text() if (folder / "r.json").exists() else ""
    assert done.returncode in (0, 2), done.stderr
    for user in users:
        assert f'"{user}"' not in published
        assert user not in done.stdout + done.stderr
    if done.returncode == 2:
        assert published == "" and "user-id" in done.stderr
