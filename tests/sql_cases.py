"""What the SQLite and PostgreSQL tests of ``--sql QUERY --db URL`` share (issue 27): the owner's table of
(customer e-mail, product) rows, written once as a long CSV and loaded into a database, and the checks
of a one-line refusal."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from corpora import load_dataset

EMAIL = re.compile(r"[\w.]+@example\.com")
QUERY = "SELECT customer_email, product FROM orders ORDER BY position"
LONG = ["--format", "long", "--user-column", "customer_email", "--item-column", "product"]
ANON = ["-k", "5", "-m", "2", "--seed", "11"]


def owner_rows(records: int = 300) -> list[tuple[int, str, str]]:
    """(position, customer e-mail, product) rows of ``records`` synthetic baskets, one row per item."""
    ds = load_dataset(f"synthetic:records={records},domain=50,avg_length=5,seed=3")
    rows = [(f"c{i:04d}.buyer@example.com", f"p{t}") for i, record in enumerate(ds) for t in sorted(record)]
    return [(n, user, item) for n, (user, item) in enumerate(rows)]


def write_long_csv(path: Path, rows: Iterable[tuple[int, str, str]]) -> Path:
    path.write_text("customer_email,product\n" + "".join(f"{u},{i}\n" for _, u, i in rows))
    return path


def refused(done: subprocess.CompletedProcess, *hidden: str) -> str:
    """The one error line of a refused command (exit 2, no traceback), checked to hide ``hidden``."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, (done.returncode, done.stderr)
    for secret in hidden:
        assert secret not in done.stderr + done.stdout, done.stderr
    assert not EMAIL.search(done.stderr + done.stdout)
    return lines[0]


def no_files(folder: Path, names: Sequence[str]) -> None:
    assert not [name for name in names if (folder / name).exists()]
