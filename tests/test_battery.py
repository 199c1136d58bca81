"""Issue 22's battery: tracebacks, unbounded work and lax inputs of the landed tool, each now one line.

Every case runs a command line in a subprocess with a timeout of a few seconds and asserts exit
status 2, exactly one ``error:`` line on stderr, no traceback, and no file left behind in its
folder (the inputs excepted). One parametrized test per class of failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 20  # seconds a case may take at most (each takes 1-4 s; a refusal must come before the work)


def _write_inputs(folder: Path) -> None:
    """The inputs of every case (small files; the large claims are in headers and footers)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from anonymizer.disassociation.pipeline import disassociate
    from anonymizer.io.release_files import save_release

    (folder / "deep.jsonl").write_text('["a", "b"]\n' + "[" * 100_000 + "\n")
    (folder / "number.jsonl").write_text('["a", "b"]\n[' + "1" * 5000 + ', "b"]\n')
    records = [[f"t{j}" for j in range(120)] for _ in range(40)]
    (folder / "wide.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    small = [[f"t{(i * 7 + j) % 20}" for j in range(5)] for i in range(40)]
    (folder / "small.jsonl").write_text("".join(json.dumps(r) + "\n" for r in small))
    release, _ = disassociate(small, 2, 2, seed=1)
    save_release(release, folder / "release.json")
    rows = 3_000_000  # constant rows compress to a few KB: far more rows than the file can hold
    table = pa.table({"user": pa.array(np.ones(rows, dtype=np.int64)),
                      "item": pa.array(np.full(rows, "a", dtype=object), pa.string())})
    pq.write_table(table, folder / "rows.parquet")
    (folder / "empty.vec").write_bytes(b"")
    (folder / "huge.vec").write_text("1000000000 50\nthe " + " ".join(["0.1"] * 50) + "\n")
    (folder / "wide.vec").write_text("2 2000000000\nthe 0.1 0.2\n")
    (folder / "nul.jsonl").write_text('["a", "b"]\n["x\\u0000y", "b"]\n')
    (folder / "control.basket").write_bytes(b"a,b\nx\x01y,b\nc,b\n")
    (folder / "control.spmf").write_bytes(b"1 2\n3\x1f4 2\n")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (folder / "dup.yaml").write_text("name: a\nname: b\ndatasets:\n  - name: kosarak10k\ngrid:\n  k: 2\n  m: 2\n")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("battery")
    _write_inputs(folder)
    return folder


def _run(folder: Path, argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, float]:
    import time

    before = sorted(p.name for p in folder.iterdir())
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", *argv], cwd=folder, env=environment, capture_output=True,
                          text=True, timeout=TIMEOUT)
    seconds = time.perf_counter() - start
    after = sorted(p.name for p in folder.iterdir())
    assert after == before, f"files left behind: {sorted(set(after) - set(before))}"
    return done.returncode, done.stderr, seconds


def _one_line(status: int, err: str, expected: str) -> None:
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, err
    assert status == 2, err
    assert expected in errors[0], errors[0]
    assert len(errors[0]) < 400


ANON = ["anonymizer", "small.jsonl", "-k", "2", "-m", "2", "-o", "out.json"]
SEMANTIC = ["attacks", "semantic", "release.json", "--no-wmd", "-o", "attack.json"]
BIG = str(10**30)

TRACEBACKS = {
    "jsonl 100,000 deep (anonymizer)": (["anonymizer", "deep.jsonl", "-k", "2", "-m", "2", "-o", "out.json"],
                                        "deep.jsonl:2: expected a flat JSON array"),
    "jsonl 100,000 deep (corpora stats)": (["corpora", "stats", "deep.jsonl"], "deep.jsonl:2:"),
    "a 5,000-digit number": (["corpora", "stats", "number.jsonl"], "number.jsonl:2: a number of more than 4300"),
    "-m 10**30": (["anonymizer", "small.jsonl", "-k", "2", "-m", BIG, "-o", "out.json"], "m must be an integer"),
    "--max-cluster-size 10**30": ([*ANON, "--max-cluster-size", BIG], "--max-cluster-size must be an integer"),
    "--scheduler garbage::x": ([*ANON, "--executor", "dask", "--scheduler", "garbage::x"],
                               "invalid scheduler address"),
    "sweep --scheduler garbage::x": (["experiments.run", str(ROOT / "sweep.yaml"), "--scheduler", "garbage::x",
                                      "--results", "results"], "invalid scheduler address"),
    "empty --embeddings": ([*SEMANTIC, "--scorer", "glove", "--embeddings", "empty.vec"], "empty embeddings file"),
}

UNBOUNDED = {
    "-k 2 -m 5 on 40 records of 120 terms": (["anonymizer", "wide.jsonl", "-k", "2", "-m", "5", "-o", "out.json"],
                                             "--max-itemsets"),
    "parquet footer declaring 3M rows": (["corpora", "stats", "rows.parquet", "--user-column", "user",
                                          "--item-column", "item"], "rows or values in"),
    "vectors header 10^9 x 50": ([*SEMANTIC, "--scorer", "glove", "--embeddings", "huge.vec"],
                                "header declares 1000000000 vectors"),
    "vectors dimension 2x10^9": ([*SEMANTIC, "--scorer", "glove", "--embeddings", "wide.vec"],
                                 "of dimension 2000000000"),
}

STRICT = {
    "NUL in a jsonl term": (["corpora", "stats", "nul.jsonl"], "nul.jsonl:2: term"),
    "control character in a basket": (["corpora", "stats", "control.basket", "--format", "basket"],
                                       "control.basket:2: control character"),
    "control character in spmf": (["anonymizer", "control.spmf", "-k", "2", "-m", "2", "-o", "out.json"],
                                  "control.spmf:2: control character"),
    "binary NGD reference corpus": ([*SEMANTIC, "--scorer", "ngd", "--reference", "binary.txt"], "binary.txt"),
    "duplicate key in a sweep": (["experiments.run", "dup.yaml", "--dry-run"], "duplicate key"),
    "--safe-targets without --safe": ([*ANON, "--safe-targets", "every"], "--safe-targets needs --safe"),
    "python -m corpora alone": (["corpora"], "required: COMMAND"),
    "failed offline --download": (["corpora", "stats", "bms-webview-1", "--download", "--cache-dir", "cache/sub"],
                                  "cannot fetch"),
}

OFFLINE = {"https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
           "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}


@pytest.mark.parametrize("case", list(TRACEBACKS))
def test_former_tracebacks_are_one_line(inputs: Path, case: str) -> None:
    argv, expected = TRACEBACKS[case]
    status, err, _ = _run(inputs, argv)
    _one_line(status, err, expected)


@pytest.mark.parametrize("case", list(UNBOUNDED))
def test_unbounded_work_is_refused_before_it_starts(inputs: Path, case: str) -> None:
    argv, expected = UNBOUNDED[case]
    status, err, seconds = _run(inputs, argv)
    _one_line(status, err, expected)
    assert seconds < 10, f"refused only after {seconds:.1f} s"


@pytest.mark.parametrize("case", list(STRICT))
def test_lax_inputs_are_refused(inputs: Path, case: str) -> None:
    argv, expected = STRICT[case]
    status, err, _ = _run(inputs, argv, OFFLINE if "--download" in argv else None)
    _one_line(status, err, expected)
