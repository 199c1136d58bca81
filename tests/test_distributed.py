"""The Dask executor (issue 14): on a 2-worker LocalCluster, the same input, parameters, seed and
split depth give the same release and truth bytes as the single-process split run."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from anonymizer import disassociate
from anonymizer.disassociation.distributed import check_dask_input, dask_client, plan_dask_run
from anonymizer.disassociation.parts import split_parts
from anonymizer.evaluation.verify import verify
from anonymizer.io.json_writer import merge_parts
from anonymizer.model.params import DisassociationParams
from corpora.common.errors import InputError
from corpora.io.formats import read_dataset, write_dataset
from corpora.synthetic.quest import generate_quest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with dask_client(workers=2) as c:
        yield c


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dask") / "quest.txt"
    write_dataset(generate_quest(4000, 250, 6.0, seed=21), path)
    return path


def _dask_release(client: object, path: Path, s: DisassociationParams, depth: int, seed: int, blocksize: int) -> tuple:
    s = replace(s, split_depth=depth)
    run = plan_dask_run(client, str(path), s, seed, blocksize=blocksize)
    release, truth = merge_parts(((r.release, r.truth) for r in run.results), s.to_json(), seed,
                                 seed if s.safe else None)
    return run, release, truth


@pytest.mark.parametrize("depth, blocksize, horpart, verpart, safe", [
    (0, 10_000, "original", "original", False),
    (2, 7_000, "original", "strict", False),
    (3, 50_000, "suppression", "grouped", False),
    (2, 13_000, "original", "original", True),
])
def test_dask_equals_single_process(client: object, data: Path, depth: int, blocksize: int, horpart: str,
                                    verpart: str, safe: bool) -> None:
    s = DisassociationParams(3, 2, 15, horpart, verpart, True, safe)
    run, release, truth = _dask_release(client, data, s, depth, 2024, blocksize)
    local, local_truth = disassociate(read_dataset(data), 3, 2, 15, horpart=horpart, verpart=verpart, seed=2024,
                                      split_depth=depth, safe=safe)
    assert run.n_records == 4000
    assert release.to_json() == local.to_json()
    assert truth.to_json() == local_truth.to_json()
    assert verify(release).ok
    if depth:
        assert len(run.paths) > 1
    parts = split_parts(read_dataset(data), depth, 3, 15)
    assert run.sizes == [len(p) for p in parts] and sum(run.sizes) == 4000
    assert run.paths == [p.path for p in parts]
    assert run.supports == read_dataset(data).supports()  # the global supports, counted on the workers


@pytest.mark.slow
def test_cli_dask_writes_the_local_bytes(client: object, tmp_path: Path, data: Path) -> None:
    """The command line on a running cluster (``--scheduler``: the module's cluster, the way a lab's shared
    scheduler is used) writes the bytes of the local executor. A local cluster of ``--workers`` processes is
    :func:`dask_client` without an address, which the ``client`` fixture starts."""
    outputs = []
    for executor, extra in (("local", []), ("dask", ["--scheduler", client.scheduler.address])):
        out, secret = tmp_path / f"{executor}.json", tmp_path / f"{executor}-truth.json"
        done = subprocess.run([sys.executable, "-m", "anonymizer", str(data), "-k", "3", "-m", "2",
                               "--max-cluster-size", "15", "--split-depth", "2", "--executor", executor, *extra,
                               "--seed", "5", "-o", str(out), "--truth", str(secret)],
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        outputs.append((out.read_bytes(), secret.read_bytes()))
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0][0])["params"]["split_depth"] == 2


def test_dask_refuses_what_it_cannot_cut(client: object, tmp_path: Path) -> None:
    s = DisassociationParams(2, 2, 5)
    renamed = tmp_path / "renamed.txt"
    renamed.write_text("@ITEM=1=milk\n1 2\n1 3\n2 3\n")
    with pytest.raises(InputError, match="@ITEM"):  # the renames open the file: refused before the cluster works
        check_dask_input(str(renamed))
    with pytest.raises(InputError, match="@ITEM"):
        plan_dask_run(client, str(renamed), replace(s, split_depth=1), 1)
    late = tmp_path / "late.txt"  # a rename after the first records: the file's head passes, a worker refuses it
    late.write_text("1 2\n1 3\n@ITEM=1=milk\n2 3\n")
    assert check_dask_input(str(late))[1] == "spmf"
    with pytest.raises(InputError, match="@ITEM"):
        plan_dask_run(client, str(late), replace(s, split_depth=1), 1)
    with pytest.raises(InputError, match="no such file"):
        plan_dask_run(client, str(tmp_path / "missing.txt"), replace(s, split_depth=1), 1)
    gz = tmp_path / "d.txt.gz"
    gz.write_bytes(b"")
    with pytest.raises(InputError, match="uncompressed"):
        plan_dask_run(client, str(gz), replace(s, split_depth=1), 1)
    few = tmp_path / "few.txt"
    few.write_text("a\n")
    with pytest.raises(InputError, match="fewer than k"):
        plan_dask_run(client, str(few), replace(s, split_depth=1), 1)


@pytest.mark.parametrize("argv, message", [
    (["kosarak10k"], "--executor dask reads a file"),
    (["{tmp}/renamed.txt"], "@ITEM"),
])
def test_cli_dask_bad_input_is_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    (tmp_path / "renamed.txt").write_text("@ITEM=1=milk\n1 2\n1 3\n2 3\n")
    out = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "anonymizer", *[a.format(tmp=tmp_path) for a in argv], "-k", "2",
                           "-m", "2", "--executor", "dask", "--workers", "1", "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and message in done.stderr, done.stderr
    assert not out.exists()


def test_dask_tiny_releases_pass_the_exhaustive_oracle(client: object, tmp_path: Path) -> None:
    """The brute-force oracle (tests/reconstruction_oracle.py, no engine code) on releases made on Dask."""
    import random

    from reconstruction_oracle import TooLarge, guarantee1_violations, is_valid_reconstruction, truth_records

    rng = random.Random(4)
    checked = 0
    for trial in range(6):
        path = tmp_path / f"tiny{trial}.txt"
        path.write_text("".join(" ".join(sorted(rng.sample("abcdef", rng.randint(1, 3)))) + "\n" for _ in range(12)))
        s = DisassociationParams(2, 2, 4, "original", "original", True, trial % 2 == 1)
        _, release, truth = _dask_release(client, path, s, 2, trial, 16)
        rel, tru = json.loads(release.to_json()), json.loads(truth.to_json())
        try:
            feasible, bad = guarantee1_violations(rel)
        except TooLarge:
            continue
        assert feasible and bad == [], (path.read_text(), bad)
        assert is_valid_reconstruction(rel, truth_records(rel, tru))
        checked += 1
    assert checked >= 3
