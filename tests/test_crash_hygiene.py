"""Crash hygiene (issue 15): SIGTERM removes temporary files, SIGKILL leftovers are cleaned by the next
write, running out of memory is one line, older releases with a published seed are refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from paper_examples import fig2b

from anonymizer.__main__ import main as anonymizer_main
from anonymizer.io.release_files import load_release, load_truth
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError, run_cli
from corpora.common.files import atomic_open, check_output_paths, read_bounded, stale_temp_files, write_text_atomic

ROOT = Path(__file__).resolve().parents[1]

WRITER = textwrap.dedent("""
    import sys, time
    from corpora.common.errors import run_cli
    from corpora.common.files import atomic_open

    def main(argv):
        with atomic_open(argv[0]) as handle:
            handle.write("half of a result")
            handle.flush()
            print("writing", flush=True)
            time.sleep(60)
        return 0

    sys.exit(run_cli(main, sys.argv[1:]))
""")


def start_writer(target: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    assert len(list(target.parent.iterdir())) == 1  # the temporary file exists while writing
    return proc


def test_sigterm_removes_the_temporary_file(tmp_path):
    target = tmp_path / "result.json"
    proc = start_writer(target)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert err.startswith("error: terminated") and err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_sigkill_leftover_is_removed_by_the_next_write(tmp_path):
    target = tmp_path / "result.json"
    proc = start_writer(target)
    proc.kill()
    proc.wait(timeout=30)
    (leftover,) = tmp_path.iterdir()
    assert leftover.name.startswith(".result.json.") and leftover.name.endswith(".tmp")
    assert stale_temp_files(target) == [leftover]
    mine = tmp_path / f".result.json.{os.getpid()}.0000abcd.tmp"  # a live writer's file stays
    mine.write_text("in progress", encoding="utf-8")
    write_text_atomic(target, "complete\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, "result.json"])
    assert target.read_text(encoding="utf-8") == "complete\n"


def test_an_exception_inside_atomic_open_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError), atomic_open(tmp_path / "x.txt") as handle:
        handle.write("partial")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_memory_error_is_one_line_with_the_size(capsys):
    def main(argv):
        np.empty(2**58, dtype=np.int64)  # 2 EiB: more than any address space

    assert run_cli(main, []) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: out of memory (Unable to allocate") and err.count("\n") == 1
    assert "fewer records" in err


def test_anonymizer_out_of_memory_is_one_line(tmp_path, capsys):
    out = tmp_path / "r.json"
    status = anonymizer_main(["synthetic:records=1000000000000000,domain=10", "-k", "2", "-m", "2",
                              "--max-cluster-size", "5", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("error: out of memory") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_read_bounded_stops_at_the_bounds(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"ab\n" * 1000)
    with open(path, "rb") as handle:
        assert read_bounded(handle, path, max_bytes=3000, max_line=1 << 20) == b"ab\n" * 1000
    with open(path, "rb") as handle, pytest.raises(InputError, match="larger than 2999 bytes"):
        read_bounded(handle, path, max_bytes=2999)
    path.write_bytes(b"1 2\n" + b"x" * ((1 << 20) + 5) + b"\n3\n")
    with open(path, "rb") as handle, pytest.raises(InputError, match=r":2: a line longer than 1 MiB"):
        read_bounded(handle, path, max_line=1 << 20)
    with open("/dev/zero", "rb") as handle, pytest.raises(InputError, match="NUL byte at offset 0"):
        read_bounded(handle, "/dev/zero")


def test_output_checks_compare_resolved_paths_and_hard_links(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text('["a"]\n', encoding="utf-8")
    link = tmp_path / "link.jsonl"
    os.link(data, link)
    sym = tmp_path / "sym.jsonl"
    sym.symlink_to(data)
    for output in (data, link, sym, tmp_path / "." / "data.jsonl"):
        with pytest.raises(InputError, match="would overwrite the input file"):
            check_output_paths({"release": output}, {"input": data})
    check_output_paths({"release": tmp_path / "r.json", "truth": tmp_path / "t.json"},
                       {"input": data, "name": "kosarak10k"})


def test_release_of_an_older_version_with_a_seed_is_refused(tmp_path, capsys):
    """Issue 22: a published seed replays the random choices; such a release must be made again
    (it used to load with the seed dropped, and verify said OK without a word)."""
    for key in ("seed", "safe_seed"):
        obj = fig2b().to_dict()
        obj["params"][key] = 7
        path = tmp_path / "old.json"
        path.write_text(json.dumps(obj), encoding="utf-8")
        with pytest.raises(InputError, match=f"params.{key} is a seed"):
            load_release(path)
        assert anonymizer_main(["verify", str(path)]) == 2
        assert f"params.{key} is a seed" in capsys.readouterr().err
    assert Release.from_json(fig2b().to_dict()) == fig2b()


def test_truth_keeps_its_seeds_and_older_truths_load(tmp_path):
    truth = Truth([], [], seed=2**128 - 1, safe_seed=5)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(truth.to_dict()), encoding="utf-8")
    assert load_truth(path) == truth
    old = {"format": "disassociated-truth/1", "clusters": [], "joint_clusters": []}
    path.write_text(json.dumps(old), encoding="utf-8")
    assert load_truth(path).seed is None
    for bad in (-1, 2**128, "7", 1.5, True):
        path.write_text(json.dumps({**old, "seed": bad}), encoding="utf-8")
        with pytest.raises(InputError, match="seed must be"):
            load_truth(path)
