"""Issue 25, the sweeps: the progress bar's line (runs done, running, time left), the estimates behind it,
the longest runs first, and runs sharing one disassociation (the same rows as computed alone)."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import yaml

from experiments.steps import disassociation as disassociation_step
from experiments.sweep import runner as runner_mod
from experiments.sweep.grid import Run, expand_runs
from experiments.sweep.runner import run_sweep
from experiments.sweep.schedule import Estimator, Running, batches, format_left, progress_postfix, work_key
from experiments.sweep.schema import load_sweep
from experiments.sweep.task import run_size, run_task, share_key


def _run(key: str, seed: int = 0, size: int = 10) -> Run:
    return Run(key=key, config={"dataset": {"label": "d", "records": size}, "k": 2, "seed": seed, "metrics": []})


def test_progress_line_shows_done_running_and_time_left(tmp_path: Path) -> None:
    runs = [_run(f"r{i}", size=i) for i in range(4)]
    estimator = Estimator(cached={work_key(r.config): [60.0] for r in runs})
    out = io.StringIO()
    bar = runner_mod.tqdm(total=4, desc="paper", file=out, disable=False, bar_format=runner_mod._BAR_FORMAT)
    progress = runner_mod._Progress(tmp_path, tmp_path / "results.csv", runs, {}, bar, estimator, workers=2)
    progress.waiting.extend((r,) for r in runs)
    first, second = progress.next_batch(), progress.next_batch()
    assert progress.running_runs == 2
    progress.done({"key": first[0].key, "status": "ok", "seconds": 60.0, "rows": [], "error": None})
    bar.refresh()
    line = out.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert line.startswith("paper: 1/4 runs done, 1 running, "), line
    # the running run has about 60 s left, then two waiting runs of 60 s on two workers: about 2 min
    assert re.search(r", about (1 min 5\d|2 min 0) s left \|", line), line
    assert line.endswith("|"), line
    assert second[0].key in {r.key for b in progress.running.values() for r in b.runs}
    bar.close()


def test_progress_postfix_and_time_left_formats() -> None:
    assert progress_postfix(2, 250.4) == "2 running, about 4 min 10 s left"
    assert progress_postfix(0, None) == "0 running, time left unknown"
    assert format_left(49.6) == "about 50 s left"
    assert format_left(2 * 3600 + 5 * 60 + 3) == "about 2 h 5 min left"


def test_time_left_is_the_end_of_a_list_schedule() -> None:
    runs = [Run(k, {"dataset": {"label": k}, "seed": 0}) for k in "abcd"]
    est = Estimator(cached={work_key(r.config): [s] for r, s in zip(runs, (100.0, 30.0, 50.0, 40.0), strict=True)})
    a, b, c, d = runs
    # a runs since t=0 (90 s left at t=10); c (50) takes the free worker, d (40) the first free after it
    # (at 50: ends at 90), b (30) the next (at 90: ends at 120)
    assert est.left([(c,), (d,), (b,)], [Running([a], 0.0)], workers=2, now=10.0) == 120.0
    assert est.left([(b,)], [Running([a, c], 5.0)], workers=1, now=5.0) == 180.0  # a batch runs its runs in turn
    assert est.order([(b,), (d,), (a,), (c,)]) == [(a,), (c,), (d,), (b,)]
    assert est.order([(b,), (c, d)]) == [(c, d), (b,)]
    unknown = Run("u", {"dataset": {"label": "u"}, "seed": 0})
    assert est.left([(unknown,)], [], workers=2) is None
    assert est.order([(unknown,), (b,)]) == [(b,), (unknown,)]


def test_estimates_learn_from_finished_runs_and_scale_with_the_machine() -> None:
    runs = [Run(f"s{seed}", {"dataset": {"label": "x"}, "seed": seed}) for seed in range(3)]
    est = Estimator(cached={work_key(runs[0].config): [10.0]})
    assert est.seconds(runs[1]) == 10.0  # an equal run (another seed) was cached at 10 s
    est.finish(runs[0], 30.0)  # the machine is three times slower now
    assert est.speed == 3.0 and est.seconds(runs[2]) == 30.0
    new = Run("n", {"dataset": {"label": "new"}, "seed": 0})
    assert est.seconds(new) == 30.0  # nothing known of it: the mean of the runs done
    sized = Estimator(sizes={"n": 1000.0}, rate=0.01)
    assert sized.seconds(new) == 10.0


def _spec(tmp_path: Path, **changes: object):
    raw = {"name": "perf", "datasets": [{"name": "kosarak10k", "records": 400}],
           "grid": {"k": 3, "m": 2, "max_cluster_size": [10, 20], "safe": [False, True]},
           "attacks": {"cover": {"attackers": ["strong", "moderate"]}},
           "metrics": ["pem", "vulnerable_records", "rlm", "clusters", "anonymize_seconds", "release_id"],
           "seeds": [0, 1], **changes}
    path = tmp_path / "perf.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return load_sweep(path)


def _order_task(config):
    with open(os.environ["PERF_SWEEP_LOG"], "a", encoding="utf-8") as handle:
        handle.write(f"{config['max_cluster_size']} {config['seed']}\n")
    return [{"metric": "clusters", "value": 1.0}]


def test_runs_start_longest_first_from_the_cached_seconds_of_equal_runs(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "order.log"
    monkeypatch.setenv("PERF_SWEEP_LOG", str(log))
    spec = _spec(tmp_path, grid={"k": 3, "m": 2, "max_cluster_size": [10, 20, 30]}, seeds=[0], attacks={},
                 metrics=["clusters"])
    runs = expand_runs(spec)
    runs_dir = tmp_path / "results" / "perf" / "runs"
    runs_dir.mkdir(parents=True)
    for run, seconds in zip(runs, (5.0, 50.0, 20.0), strict=True):  # an older sweep's runs, seed 7
        old = dict(run.config, seed=7)
        (runs_dir / f"old{seconds:.0f}.json").write_text(json.dumps(
            {"format": "experiments-run/1", "key": "old", "config": old, "status": "ok", "rows": [],
             "seconds": seconds}), encoding="utf-8")
    run_sweep(spec, results_root=tmp_path / "results", task=_order_task, plots=False)
    assert log.read_text(encoding="utf-8").split("\n")[:3] == ["20 0", "30 0", "10 0"]


def test_runs_sharing_a_disassociation_give_the_rows_computed_alone(tmp_path: Path) -> None:
    runs = expand_runs(_spec(tmp_path))
    groups = batches(runs, share_key)
    assert [len(g) for g in groups] == [2, 2, 2, 2]  # plain and safe run of each size and seed
    assert all({r.config["safe"] for r in g} == {False, True} for g in groups)

    def measured(rows):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows if not r["metric"].endswith("seconds")]

    alone = []
    for run in runs:
        disassociation_step._LAST_RELEASE.clear()
        alone.append(measured(run_task(run.config)))
    disassociation_step._LAST_RELEASE.clear()
    shared = [measured(run_task(run.config)) for g in groups for run in g]
    order = [run.key for g in groups for run in g]
    assert shared == [alone[[r.key for r in runs].index(k)] for k in order]
    assert run_size(runs[0].config) is None or run_size(runs[0].config) > 0
