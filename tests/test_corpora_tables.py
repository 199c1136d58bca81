"""Input the way data owners keep it: long CSV/TSV, quoted baskets, parquet, DataFrames (issue 13).

The user column only groups rows into records: its values must never reach a dataset, let alone a
release; a header line or a file with another delimiter is read as declared or refused in one line.
"""

import subprocess
from pathlib import Path

import pandas as pd
import pytest
from cli_runner import run_tool

from corpora import TransactionDataset, from_dataframe, load_dataset
from corpora.common.errors import InputError
from corpora.io.formats import read_dataset, write_dataset
from corpora.io.headers import header_word, looks_like_header

ROOT = Path(__file__).resolve().parents[1]

LONG = ("user_id,item\n"
        "u1,milk\nu1,bread\nu1,eggs\n"
        "u2,milk\nu2,bread\n"
        "u3,milk\nu3,eggs\n"
        "u4,bread\nu4,eggs\nu4,milk\n"
        "u5,milk\nu5,tea\n")
RECORDS = [["bread", "eggs", "milk"], ["bread", "milk"], ["eggs", "milk"], ["bread", "eggs", "milk"], ["milk", "tea"]]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    assert args[0] == "-m"
    return run_tool(args[1], args[2:], cwd=cwd)  # in-process: python -m TOOL ARGS


@pytest.fixture()
def long_csv(tmp_path: Path) -> Path:
    path = tmp_path / "long.csv"
    path.write_text(LONG)
    return path


def test_long_csv_by_name_by_index_and_inferred(long_csv):
    by_name = read_dataset(long_csv, format="long", user_column="user_id", item_column="item")
    assert by_name.sorted_records() == RECORDS
    assert read_dataset(long_csv, user_column="user_id", item_column="item") == by_name  # long inferred
    assert read_dataset(long_csv, format="long") == by_name  # columns 0, 1 and the header detected
    assert read_dataset(long_csv, format="long", header=True, user_column=0, item_column="1") == by_name
    assert "u1" not in by_name.vocabulary and "user_id" not in by_name.vocabulary
    assert "u1" not in repr(by_name.metadata)


def test_long_extra_columns_quotes_and_tsv(tmp_path):
    path = tmp_path / "orders.csv"
    path.write_text('when,customer,product\n2024-01-01,c9,"salt, sea"\n2024-01-02,c9,pepper\n2024-01-02,c7,salt\n')
    ds = read_dataset(path, user_column="customer", item_column="product")
    assert ds.sorted_records() == [["pepper", "salt, sea"], ["salt"]]
    tsv = tmp_path / "orders.tsv"
    tsv.write_text("c9\tsalt, sea\nc9\tpepper\n")
    assert read_dataset(tsv, format="long").sorted_records() == [["pepper", "salt, sea"]]


def test_anonymizer_never_publishes_the_user_ids(long_csv, tmp_path):
    done = _run("-m", "anonymizer", str(long_csv), "--format", "long", "--user-column", "user_id",
                "--item-column", "item", "-k", "2", "-m", "2", "--max-cluster-size", "4", "-o", "rel.json",
                "--truth", "truth.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    release = (tmp_path / "rel.json").read_text()
    for leaked in ("u1", "u2", "u4", "user_id"):
        assert leaked not in release
    assert "milk" in release


def test_header_line_read_as_basket_is_refused_in_one_line(long_csv, tmp_path):
    done = _run("-m", "anonymizer", str(long_csv), "-k", "2", "-m", "2", "--max-cluster-size", "4", "-o", "rel.json",
                cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "names a user column ('user_id')" in lines[0] and "--format long" in lines[0]
    assert "Traceback" not in done.stderr and not (tmp_path / "rel.json").exists()
    # --header alone does not declare the format: still refused; --format basket does
    with pytest.raises(InputError, match="names a user column"):
        read_dataset(long_csv, header=True)
    assert read_dataset(long_csv, format="basket", header=True).sorted_records()[0] == ["milk", "u1"]
    assert read_dataset(long_csv, format="basket", header=False).sorted_records()[0] == ["item", "user_id"]


def test_header_in_a_kdd_file_is_refused_or_skipped(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("transaction\titem\n1\ta\n1\tb\n")
    with pytest.raises(InputError, match="looks like a header"):
        read_dataset(path)
    assert read_dataset(path, header=True).sorted_records() == [["a", "b"]]


def test_semicolon_file_read_as_comma_baskets_is_refused(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("milk;bread\nmilk;eggs;tea\n")
    done = _run("-m", "corpora", "stats", str(path), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--delimiter ';'" in lines[0]
    assert read_dataset(path, delimiter=";").sorted_records() == [["bread", "milk"], ["eggs", "milk", "tea"]]
    assert read_dataset(path, delimiter=",").sorted_records() == [["milk;bread"], ["milk;eggs;tea"]]


def test_long_rows_with_the_wrong_delimiter_name_it(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("u1;milk\nu1;bread\n")
    with pytest.raises(InputError, match=r"semi.csv:1: .*--delimiter ';'"):
        read_dataset(path, format="long")


def test_ambiguous_first_row_and_missing_column(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("user,milk\nu1,bread\n")
    with pytest.raises(InputError, match="--header.*--no-header"):
        read_dataset(path, format="long")
    assert read_dataset(path, format="long", header=False).sorted_records() == [["milk"], ["bread"]]
    with pytest.raises(InputError, match="no column named 'product'"):
        read_dataset(path, user_column="user", item_column="product")


def test_quoted_basket_items(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('"salt, sea",pepper\nbread\n')
    assert read_dataset(path).sorted_records() == [["pepper", "salt, sea"], ["bread"]]
    bad = tmp_path / "bad.csv"
    bad.write_text('"salt, sea,pepper\n')
    with pytest.raises(InputError, match="malformed quoting"):
        read_dataset(bad)


def test_options_that_do_not_apply_are_refused(tmp_path, long_csv):
    with pytest.raises(InputError, match="apply to the long and parquet"):
        read_dataset(long_csv, format="basket", user_column="user_id")
    with pytest.raises(InputError, match="apply to files"):
        load_dataset("kosarak10k", user_column="user_id")


def test_parquet_roundtrip_and_long_parquet(tmp_path):
    ds = TransactionDataset.from_records([["a", "b"], ["c"], [], ["multi word", "x,y"]])
    write_dataset(ds, tmp_path / "d.parquet")
    back = read_dataset(tmp_path / "d.parquet")
    assert back == ds and back.vocabulary == ds.vocabulary
    frame = pd.DataFrame({"user": ["u1", "u1", "u4"], "item": ["milk", "bread", "7"]})
    frame.to_parquet(tmp_path / "long.parquet")
    long = read_dataset(tmp_path / "long.parquet", user_column="user", item_column="item")
    assert long.sorted_records() == [["bread", "milk"], ["7"]]
    with pytest.raises(InputError, match="--user-column"):
        read_dataset(tmp_path / "long.parquet", item_column="item")
    (tmp_path / "fake.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="not a readable parquet file"):
        read_dataset(tmp_path / "fake.parquet")


def test_dataframe_api_long_and_lists():
    frame = pd.DataFrame({"user": ["u1", "u1", "u4", "u1"], "item": ["milk", "bread", "milk", "eggs"]})
    ds = from_dataframe(frame, user="user", item="item")
    assert ds.sorted_records() == [["bread", "eggs", "milk"], ["milk"]]
    assert from_dataframe(frame, user="user") == ds  # item defaults to the column named "item"
    assert "u1" not in ds.vocabulary
    baskets = pd.DataFrame({"basket": [["a", "b"], ("c",), {"d", "e"}]})
    assert from_dataframe(baskets, item="basket").sorted_records() == [["a", "b"], ["c"], ["d", "e"]]
    with pytest.raises(InputError, match="user"):
        from_dataframe(frame)
    with pytest.raises(InputError, match="missing"):
        from_dataframe(pd.DataFrame({"user": [1, 2], "item": ["a", None]}), user="user")


def test_header_words():
    assert header_word("user_id") == "user" and header_word("Product ID") == "item"
    assert header_word("timestamp") == "other" and header_word("milk") is None
    assert looks_like_header(["user_id", "item"]) and not looks_like_header(["milk", "bread"])
    assert not looks_like_header(["item", "user"], later_values={"item"})
