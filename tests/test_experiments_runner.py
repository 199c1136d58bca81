"""The sweep runner with an injected fake task: caching, resume after a kill, atomic writes,
process pool, Dask, failed runs, dry run, figures and report. No anonymizer is needed here."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from corpora.common.errors import InputError, run_cli
from experiments.sweep import runner as runner_mod
from experiments.sweep.execute import execute_run
from experiments.sweep.grid import expand_runs, parse_only
from experiments.sweep.runner import read_results, run_sweep, write_results_csv
from experiments.sweep.schema import load_sweep, parse_sweep

SWEEP = {
    "name": "fake",
    "datasets": ["toy-a", {"name": "toy-b", "stand_in": "BMS-WebView-1"}],
    "grid": {"k": [2, 3], "m": 2, "max_cluster_size": [6, 13]},
    "attacks": {"cover": {"attackers": ["strong", "weak"]}},
    "metrics": ["pem", "vulnerable_records", "clusters"],
    "seeds": [0, 1, 2],
    "plots": [
        {"metric": "pem", "x": "max_cluster_size", "group_by": "method", "where": {"dataset": "toy-a"}},
        {"id": "vulnerable", "metric": "vulnerable_records", "x": "k", "group_by": ["method", "dataset"],
         "title": "Vulnerable records (fake)"},
        {"metric": "clusters", "x": "dataset", "group_by": "k"},
    ],
}


def fake_task(config):
    """Deterministic rows from the configuration; k=3 with delta=13 fails; CRASH_AT kills the process."""
    if os.environ.get("CRASH_AT") == f"{config['dataset']['label']}-{config['k']}-{config['max_cluster_size']}":
        os.kill(os.getpid(), signal.SIGKILL)
    if config["k"] == 3 and config["max_cluster_size"] == 13:
        raise ValueError("boom: cannot\nsecond line")
    k, size, seed = config["k"], config["max_cluster_size"], config["seed"]
    rows = [{"metric": "clusters", "value": size // k + seed, "method": "disassociation", "seconds": 0.5}]
    for attacker in config["attacks"]["cover"]["attackers"]:
        bonus = 0.0 if attacker == "strong" else -0.2
        rows.append({"metric": "pem", "value": 0.05 * size / k + 0.01 * seed + bonus, "attack": "cover",
                     "method": attacker, "seconds": 0.25})
        rows.append({"metric": "vulnerable_records", "value": size + seed, "attack": "cover", "method": attacker})
    return rows


def spec_for(tmp_path: Path, **changes):
    raw = dict(SWEEP, **changes)
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return load_sweep(path)


def csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def table(path: Path) -> list[tuple]:
    """The table without the measured seconds (a failed run's row keeps its wall time)."""
    return [tuple(v for k, v in r.items() if k != "seconds") for r in csv_rows(path)]


def test_end_to_end_with_fake_task(tmp_path):
    spec = spec_for(tmp_path)
    result = run_sweep(spec, results_root=tmp_path / "results", task=fake_task)
    runs = expand_runs(spec)
    assert len(runs) == 2 * 2 * 2 * 3
    assert result.runs_executed == 24 and result.runs_failed == 6 and result.runs_cached == 0
    rows = csv_rows(result.csv_path)
    ok = [r for r in rows if r["status"] == "ok"]
    errors = [r for r in rows if r["status"] == "error"]
    assert len(ok) == 18 * 5 and len(errors) == 6
    assert all(e["error"] == "ValueError: boom: cannot" and e["k"] == "3" and e["max_cluster_size"] == "13"
               for e in errors)
    assert len({(r["run"], r["method"], r["metric"]) for r in ok}) == len(ok)
    first = next(r for r in ok if r["metric"] == "pem" and r["method"] == "weak")
    assert first["attack"] == "cover" and first["dataset"] == "toy-a" and first["versions"].startswith("workbench=")
    for plot in spec.plots:
        for ext in ("png", "svg"):
            assert (result.directory / "figures" / f"{plot.id}.{ext}").stat().st_size > 1000
    report = result.report_path.read_text(encoding="utf-8")
    assert "![vulnerable](figures/vulnerable.png)" in report
    assert "## Vulnerable records (fake)" in report
    assert "toy-b stands in for BMS-WebView-1" in report
    assert "## Failed runs" in report and "ValueError: boom" in report
    # the numbers behind the figure: mean over the 3 seeds, 95% interval from Student's t
    line = next(ln for ln in report.splitlines() if ln.startswith("| 6 | strong |"))
    mean = sum(0.05 * 6 / k + 0.01 * s for k in (2, 3) for s in (0, 1, 2)) / 6 * 100
    assert float(line.split("|")[3]) == pytest.approx(mean, rel=1e-3)
    assert line.split("|")[6].strip() == "6"
    df = read_results(result.csv_path)
    assert df["k"].dtype.kind in "if" and set(df["safe"]) == {False}


def test_rerun_uses_the_cache_and_gives_the_same_bytes(tmp_path):
    spec = spec_for(tmp_path)
    first = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, plots=False)
    before = first.csv_path.read_bytes()
    before_table = table(first.csv_path)

    def exploding(config):
        raise AssertionError("a cached run was run again")

    second = run_sweep(spec, results_root=tmp_path / "r", task=exploding, plots=False)
    assert second.runs_cached == 24 and second.runs_executed == 0
    assert second.csv_path.read_bytes() == before
    third = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, plots=False, retry_failed=True)
    assert third.runs_executed == 6 and table(third.csv_path) == before_table


@pytest.mark.slow
def test_resume_after_a_killed_sweep(tmp_path):
    """Kill the sweep process (SIGKILL) in the middle, rerun: same rows as an uninterrupted sweep."""
    spec_path = tmp_path / "sweep.yaml"
    spec_path.write_text(yaml.safe_dump(SWEEP), encoding="utf-8")
    script = tmp_path / "go.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from experiments.sweep.runner import run_sweep
        from experiments.sweep.schema import load_sweep
        import test_experiments_runner as T
        run_sweep(load_sweep(sys.argv[1]), results_root=sys.argv[2], task=T.fake_task, plots=False)
    """), encoding="utf-8")
    env = dict(os.environ, CRASH_AT="toy-b-2-6")
    killed = subprocess.run([sys.executable, str(script), str(spec_path), str(tmp_path / "a")], env=env,
                            capture_output=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    runs_dir = tmp_path / "a" / "fake" / "runs"
    done_before = sorted(p.name for p in runs_dir.glob("*.json"))
    assert 0 < len(done_before) < 24
    assert not [p for p in runs_dir.iterdir() if p.name.startswith(".")]  # no half-written file
    env.pop("CRASH_AT")
    resumed = subprocess.run([sys.executable, str(script), str(spec_path), str(tmp_path / "a")], env=env,
                             capture_output=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert len(list(runs_dir.glob("*.json"))) == 24
    clean = run_sweep(load_sweep(spec_path), results_root=tmp_path / "b", task=fake_task, plots=False)
    assert table(tmp_path / "a" / "fake" / "results.csv") == table(clean.csv_path)
    rows = csv_rows(clean.csv_path)
    assert len(rows) == len({(r["run"], r["method"], r["metric"]) for r in rows})


def test_corrupt_or_foreign_run_files_are_run_again(tmp_path):
    spec = spec_for(tmp_path)
    result = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, plots=False)
    files = sorted((result.directory / "runs").glob("*.json"))
    files[0].write_text('{"format": "experiments-run/1", "status": "ok", "rows": [', encoding="utf-8")
    files[1].write_text('{"format": "something-else"}', encoding="utf-8")
    (result.directory / "runs" / ".x.json.tmp").write_text("partial", encoding="utf-8")
    again = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, plots=False)
    assert again.runs_executed == 2
    assert table(again.csv_path) == table(result.csv_path)


def test_writes_are_atomic(tmp_path, monkeypatch):
    spec = spec_for(tmp_path)
    result = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, plots=False)
    before = result.csv_path.read_bytes()
    runs = expand_runs(spec)
    records = {r.key: execute_run(fake_task, r.key, r.config) for r in runs}
    calls = {"n": 0}
    real = runner_mod._fmt

    def failing(value):
        calls["n"] += 1
        if calls["n"] > 300:
            raise RuntimeError("disk full")
        return real(value)

    monkeypatch.setattr(runner_mod, "_fmt", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        write_results_csv(result.csv_path, runs, records)
    assert result.csv_path.read_bytes() == before
    assert sorted(p.name for p in result.directory.iterdir()) == [".lock", "results.csv", "runs"]
    monkeypatch.setattr(runner_mod, "_fmt", real)

    def no_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_fsync)  # the disk fills while the table is written
    with pytest.raises(OSError, match="No space left"):
        write_results_csv(result.csv_path, runs, records)
    assert result.csv_path.read_bytes() == before
    assert sorted(p.name for p in result.directory.iterdir()) == [".lock", "results.csv", "runs"]
    monkeypatch.undo()
    # a run record that cannot be serialized leaves no file behind
    progress = runner_mod._Progress(result.directory / "runs", result.csv_path, runs, {}, runner_mod.tqdm(disable=True))
    bad = dict(records[runs[0].key], key="0123456789abcdef", rows=[{"value": object()}])
    with pytest.raises(TypeError):
        progress.done(bad)
    assert not list((result.directory / "runs").glob("0123456789abcdef*"))
    assert not [p for p in (result.directory / "runs").iterdir() if p.name.startswith(".")]


def test_process_pool_gives_the_same_table(tmp_path):
    spec = spec_for(tmp_path)
    serial = run_sweep(spec, results_root=tmp_path / "s", task=fake_task, plots=False)
    pooled = run_sweep(spec, results_root=tmp_path / "p", task=fake_task, plots=False, jobs=2)
    assert pooled.runs_executed == 24 and pooled.runs_failed == 6
    assert table(pooled.csv_path) == table(serial.csv_path)


def test_dask_local_cluster_gives_the_same_table(tmp_path):
    from distributed import LocalCluster

    spec = spec_for(tmp_path, executor="dask")
    serial = run_sweep(spec, results_root=tmp_path / "s", task=fake_task, plots=False, executor="local")
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        result = run_sweep(spec, results_root=tmp_path / "d", task=fake_task, scheduler=cluster.scheduler_address)
    assert result.runs_executed == 24 and result.runs_failed == 6
    assert table(result.csv_path) == table(serial.csv_path)
    assert all(p.exists() for p in result.figures) and len(result.figures) == 6


def test_dry_run_lists_runs_and_writes_nothing(tmp_path):
    spec = spec_for(tmp_path)
    out = io.StringIO()
    result = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, dry_run=True, out=out,
                       only=parse_only(["k=2", "dataset=toy-a"]))
    lines = out.getvalue().splitlines()
    assert len(lines) == 7 and lines[-1].startswith("6 runs (6 to run, 0 cached)")
    assert all("pending" in ln and "k=2" in ln and "dataset=toy-a" in ln for ln in lines[:-1])
    assert not (tmp_path / "r").exists() and result.runs_executed == 0


def test_only_runs_the_matching_runs_and_keeps_the_rest(tmp_path):
    spec = spec_for(tmp_path)
    part = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, only=parse_only(["seed=0"]), plots=False)
    assert part.runs_executed == 8
    assert {r["seed"] for r in csv_rows(part.csv_path)} == {"0"}
    rest = run_sweep(spec, results_root=tmp_path / "r", task=fake_task, plots=False)
    assert rest.runs_cached == 8 and rest.runs_executed == 16
    with pytest.raises(InputError, match="no run of the sweep matches k=9"):
        run_sweep(spec, results_root=tmp_path / "r", task=fake_task, only=parse_only(["k=9"]))


def test_zip_archive_of_the_outputs(tmp_path):
    import zipfile

    spec = spec_for(tmp_path, zip_results=True, seeds=[0])
    result = run_sweep(spec, results_root=tmp_path / "r", task=fake_task)
    names = zipfile.ZipFile(result.zip_path).namelist()
    assert "fake/results.csv" in names and "fake/report.md" in names and "fake/figures/vulnerable.svg" in names
    assert not any("/runs/" in n for n in names)


def test_a_task_returning_garbage_is_a_failed_run(tmp_path):
    spec = parse_sweep(dict(SWEEP, plots=[]), source="s.yaml")
    rec = execute_run(lambda c: [{"value": 1.0}], "k", {"x": 1})
    assert rec["status"] == "error" and "needs 'metric' and 'value'" in rec["error"]
    rec = execute_run(lambda c: {"metric": "pem"}, "k", {"x": 1})
    assert rec["status"] == "error" and rec["error"].startswith("TypeError: a task must return a list")
    result = run_sweep(spec, results_root=tmp_path, task=lambda c: [{"metric": "pem", "value": 1, "colour": 2}])
    assert result.runs_failed == result.runs_total == 24


def test_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    from experiments.run import main

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(dict(SWEEP, grid={"k": 1})), encoding="utf-8")
    assert run_cli(main, [str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {bad}: grid.k: 1 is impossible: must be >= 2 (k-anonymity needs k >= 2)"
    assert run_cli(main, [str(tmp_path / "missing.yaml")]) == 2
    assert "no such sweep file" in capsys.readouterr().err
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(SWEEP), encoding="utf-8")
    assert run_cli(main, [str(good), "--only", "kk=2"]) == 2
    assert "unknown key 'kk' (did you mean 'k'?)" in capsys.readouterr().err
    assert run_cli(main, [str(good), "--jobs", "0"]) == 2
    assert run_cli(main, [str(good), "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def slow_task(config):
    """A fifth of a second per run (the 18 runs of the SIGTERM test outlast its signal, sent after 2); records
    the worker's pid."""
    import time

    Path(os.environ["PID_DIR"], str(os.getpid())).write_text("", encoding="utf-8")
    time.sleep(0.2)
    return [{"metric": "clusters", "value": config["k"] + config["seed"], "method": "disassociation"}]


@pytest.mark.slow
def test_sigterm_stops_workers_and_the_sweep_resumes(tmp_path):
    """SIGTERM to ``python -m experiments.run --jobs 2``: exit 130, no orphan worker, table written, resumable."""
    import time

    spec_path = tmp_path / "sweep.yaml"
    spec_path.write_text(yaml.safe_dump({"name": "slow", "datasets": ["terrovitis2012-fig2"],
                                         "grid": {"k": [2, 3, 4], "max_cluster_size": 10},
                                         "metrics": ["clusters"], "repeats": 6}), encoding="utf-8")
    script = tmp_path / "cli.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import experiments.sweep.task
        import test_experiments_runner as T
        experiments.sweep.task.run_task = T.slow_task
        from corpora.common.errors import run_cli
        from experiments.run import main
        sys.exit(run_cli(main, sys.argv[1:]))
    """), encoding="utf-8")
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    env = dict(os.environ, PID_DIR=str(pid_dir))
    cmd = [sys.executable, str(script), str(spec_path), "--jobs", "2", "--results", str(tmp_path / "r")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runs_dir = tmp_path / "r" / "slow" / "runs"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(runs_dir.glob("*.json"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().endswith("error: interrupted")
    done = len(list(runs_dir.glob("*.json")))
    assert 2 <= done < 18
    assert len(csv_rows(tmp_path / "r" / "slow" / "results.csv")) == done
    time.sleep(0.5)
    for pid_file in pid_dir.iterdir():
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid_file.name), 0)
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"slow: 18 runs ({done} cached, {18 - done} run, 0 failed)" in again.stdout
    rows = csv_rows(tmp_path / "r" / "slow" / "results.csv")
    assert len(rows) == 18 == len({r["run"] for r in rows})
