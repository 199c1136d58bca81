"""Bounded work for every sweep file and crash hygiene of sweeps (issue 15).

A YAML alias bomb, a deep or huge file, a range or k-expression that would allocate without bound
and a MemoryError all end in one short ``error:`` line with exit 2 and nothing written; a second
sweep on a locked results folder is refused in one line; the workers of a SIGKILLed sweep die.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from corpora.common.errors import InputError, run_cli
from experiments.run import main
from experiments.sweep.guard import results_lock
from experiments.sweep.runner import run_sweep
from experiments.sweep.schema import LIMITS, load_sweep, parse_sweep

HEAD = "name: lim\ndatasets: [terrovitis2012-fig2]\n"


def alias_bomb() -> str:
    """Billion laughs: 9^7 'lol's from seven nested aliases, under 300 bytes."""
    text = HEAD + "note: {a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]"
    previous = "a"
    for name in "bcdefg":
        text += f", {name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]"
        previous = name
    return text + "}\n"


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith("error: ") and "Traceback" not in err
    assert len(lines[0]) < 400, lines[0][:500]
    return lines[0]


def test_the_alias_bomb_is_one_short_line_within_a_second(tmp_path, capsys) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(), encoding="utf-8")
    assert len(path.read_bytes()) < 341
    started = time.perf_counter()
    with pytest.raises(InputError, match="aliases"):
        load_sweep(path)
    assert time.perf_counter() - started < 1.0
    assert run_cli(main, [str(path), "--results", str(tmp_path / "r")]) == 2
    assert "aliases (*name) are not allowed" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


_CASES = {
    "k-power-range": (HEAD + 'grid: {k: 2, max_cluster_size: "1..k^40"}\n', "gives 1,099,511,627,776 values"),
    "power-exponents": (HEAD + 'grid: {k: 2, max_cluster_size: "k^0..k^100000"}\n', "gives 100,001 values"),
    "nested-powers": (HEAD + 'grid: {k: 2, max_cluster_size: "((k^64)^64)^64"}\n', "above 10^18"),
    "long-expression": (HEAD + 'grid: {k: 2, max_cluster_size: "' + "k+" * 200 + 'k"}\n', "too long"),
    "huge-size": (HEAD + "grid: {k: 2, max_cluster_size: " + "9" * 30 + "}\n", "too large"),
    "k-range": (HEAD + "grid: {k: {from: 2, to: 1000000000}}\n", "999,999,999 values"),
    "repeats": (HEAD + "repeats: 1000000000000\n", "too large: at most 100,000"),
    "runs": (HEAD + "grid: {k: {from: 2, to: 400}, m: {from: 1, to: 400}, max_cluster_size: 1000}\n",
             "grid points; at most 100,000"),
    "deep": (HEAD + "note: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 50 deep"),
    "many-values": (HEAD + "note: [" + ",".join(["1"] * 20_000) + "]\n", "more than 10,000 values"),
    "long-value": (HEAD + "note: " + "x" * 20_000 + "\n", "a value of 20,000 characters"),
    "big-file": (HEAD + "# " + "x" * (300 << 10) + "\n", "larger than 256 KiB"),
    "binary": (HEAD + "note: a\0b\n", "a binary file"),
    "huge-integer": (HEAD + "seeds: " + "9" * 5000 + "\n", "a value cannot be read"),
    "float-overflow": ("name: lim\ndatasets: [{text: lee, density: " + "9" * 400 + "}]\n", "expected a number"),
    "long-key-echo": (HEAD + "grid:\n  ? " + "q" * 9000 + "\n  : 1\n", "unknown key; allowed keys"),
    "long-value-echo": (HEAD + "executor: " + "w" * 9000 + "\n", "is not allowed"),
    "mapping-echo": (HEAD + "description: {" + ", ".join(f"k{i}: {'v' * 500}" for i in range(500)) + "}\n",
                     "expected a non-empty string"),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_unbounded_sweeps_are_one_short_line(tmp_path, capsys, case) -> None:
    text, expected = _CASES[case]
    path = tmp_path / "sweep.yaml"
    if case == "huge-integer" or case == "big-file":
        path.write_bytes(text.encode("utf-8"))
    else:
        path.write_text(text, encoding="utf-8")
    started = time.perf_counter()
    assert run_cli(main, [str(path), "--results", str(tmp_path / "r")]) == 2
    assert time.perf_counter() - started < 5.0
    assert expected in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


def test_non_utf8_sweep_is_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "sweep.yaml"
    path.write_bytes(b"name: x\ndatasets: [\xff\xfe]\n")
    assert run_cli(main, [str(path)]) == 2
    assert "not valid UTF-8 text" in _one_line(capsys.readouterr().err)


def test_the_limits_leave_the_example_sweeps_alone() -> None:
    root = Path(__file__).resolve().parent.parent
    for path in [root / "sweep.yaml", *sorted((root / "experiments" / "sweeps").glob("*.yaml"))]:
        assert load_sweep(path).name
    assert parse_sweep(yaml.safe_load(HEAD + 'grid: {k: 2, max_cluster_size: "k^2..k^6"}'), "s").grid


def test_a_range_at_the_cap_is_allowed_and_one_past_it_is_refused() -> None:
    top = LIMITS.range_values
    # from 3 = 2k - 1, the smallest maximum HORPART original accepts for k = 2
    ok = parse_sweep(yaml.safe_load(HEAD + f"grid: {{k: 2, max_cluster_size: {{from: 3, to: {top + 2}}}}}"), "s")
    assert len(ok.grid["max_cluster_size"]) == top
    with pytest.raises(InputError, match="at most 1,000"):
        parse_sweep(yaml.safe_load(HEAD + f"grid: {{k: 2, max_cluster_size: {{from: 3, to: {top + 3}}}}}"), "s")


# ----------------------------------------------------------------------------- memory
def test_memory_error_is_one_line(tmp_path, capsys, monkeypatch) -> None:
    """A real numpy MemoryError in the main process (resolving a dataset) becomes one line; in a run,
    it is the run's recorded error."""
    import numpy as np

    import experiments.sweep.task

    def greedy(ds, base_dir="."):
        return np.ones(1 << 62, dtype=np.uint8)  # 4 EiB: numpy refuses with MemoryError

    monkeypatch.setattr(experiments.sweep.task, "resolve_dataset_label", greedy)
    path = tmp_path / "sweep.yaml"
    path.write_text(HEAD, encoding="utf-8")
    assert run_cli(main, [str(path), "--results", str(tmp_path / "r")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: out of memory (Unable to allocate") and "smaller input" in line
    assert not (tmp_path / "r").exists()
    from experiments.sweep.execute import execute_run

    record = execute_run(lambda config: greedy(None), "key", {})
    assert record["status"] == "error" and record["error"].startswith("MemoryError: out of memory (Unable")


# ----------------------------------------------------------------------------- results folder
def _tiny(tmp_path: Path) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(HEAD + "metrics: [clusters]\n", encoding="utf-8")
    return path


def test_a_locked_results_folder_is_refused_in_one_line(tmp_path, capsys) -> None:
    sweep = _tiny(tmp_path)
    with results_lock(tmp_path / "r" / "lim"):
        assert run_cli(main, [str(sweep), "--results", str(tmp_path / "r")]) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"another sweep is writing this results folder (process {os.getpid()})" in line
        assert sorted(p.name for p in (tmp_path / "r" / "lim").iterdir()) == [".lock"]
    assert run_cli(main, [str(sweep), "--results", str(tmp_path / "r"), "--no-plots"]) == 0  # free again
    assert (tmp_path / "r" / "lim" / "results.csv").is_file()


def test_an_unwritable_results_folder_fails_before_any_work(tmp_path) -> None:
    blocker = tmp_path / "r"
    blocker.write_text("a file where the results root should be", encoding="utf-8")
    spec = load_sweep(_tiny(tmp_path))
    calls = []
    with pytest.raises(InputError, match="results cannot be written there"):
        run_sweep(spec, results_root=blocker, task=lambda c: calls.append(c) or [], resolve=calls.append)
    assert calls == []


def test_a_failed_start_leaves_no_folder(tmp_path, capsys) -> None:
    sweep = _tiny(tmp_path)
    assert run_cli(main, [str(sweep), "--results", str(tmp_path / "r" / "deep"), "--only", "k=7"]) == 2
    assert "no run of the sweep matches" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_workers_die_when_the_sweep_is_killed(tmp_path) -> None:
    """SIGKILL to the main process of a 2-job sweep: its workers are gone within a few seconds."""
    spec_path = tmp_path / "sweep.yaml"
    spec_path.write_text(yaml.safe_dump({"name": "slow", "datasets": ["terrovitis2012-fig2"],
                                         "grid": {"k": [2, 3]}, "metrics": ["clusters"], "repeats": 4}),
                         encoding="utf-8")
    script = tmp_path / "cli.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys, time
        from pathlib import Path
        import experiments.sweep.task

        def sleepy(config):
            Path({str(tmp_path)!r}, "pids", str(os.getpid())).write_text("")
            time.sleep(60)
            return []

        experiments.sweep.task.run_task = sleepy
        from corpora.common.errors import run_cli
        from experiments.run import main
        sys.exit(run_cli(main, sys.argv[1:]))
    """), encoding="utf-8")
    (tmp_path / "pids").mkdir()
    cmd = [sys.executable, str(script), str(spec_path), "--jobs", "2", "--results", str(tmp_path / "r")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list((tmp_path / "pids").iterdir())) < 2:
            time.sleep(0.05)
        workers = [int(p.name) for p in (tmp_path / "pids").iterdir()]
        assert len(workers) == 2 and all(_alive(w) for w in workers)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers)
    finally:
        for pid_file in (tmp_path / "pids").iterdir():
            if _alive(int(pid_file.name)):
                os.kill(int(pid_file.name), signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
    # the lock died with them: the next sweep on the folder is not refused (the kernel drops the
    # lock when the last descriptor closes; allow the exiting workers a moment on a busy machine)
    assert run_cli(main, [str(spec_path), "--results", str(tmp_path / "r"), "--dry-run"]) == 0
    deadline = time.monotonic() + 10
    while True:
        try:
            with results_lock(tmp_path / "r" / "slow"):
                break
        except InputError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
