"""Issue 24: every text build says what it is made of (transactions per source), and the sweep records it."""

from __future__ import annotations

import csv

import pytest
import yaml

from corpora.__main__ import main as corpora_main
from corpora.common.errors import InputError, run_cli
from corpora.text.api import build_text_dataset, composition, list_text_sources, record_sources
from experiments.plugins import all_metrics
from experiments.run import main as run_main
from experiments.steps.datasets import dataset_rows, load_run_dataset

REUTERS = {i.name: i.present for i in list_text_sources()}.get("reuters", False)
needs_reuters = pytest.mark.skipif(not REUTERS, reason="Reuters needs Debian's weka")
LEE = {"text": "lee", "label": "lee", "density": 0.5, "options": {"top_n": 5}}


def test_record_sources_and_composition() -> None:
    thesis = {"pipeline": "thesis", "documents": [["reuters", 4], ["lee", 1], ["reuters", 9]]}
    assert record_sources(thesis) == ["reuters", "lee", "reuters"]
    assert composition(record_sources(thesis), ("lee", "wiki-sample")) == {"lee": 1, "wiki-sample": 0, "reuters": 2}
    assert record_sources({"source": "lee", "documents": [3, 5]}) == ["lee", "lee"]
    with pytest.raises(InputError):
        record_sources({"pipeline": "thesis", "documents": [3]})


def test_single_source_build_records_its_composition() -> None:
    ds = build_text_dataset("lee", density=0.5, top_n=5)
    assert ds.metadata["composition"] == {"lee": len(ds)}
    rows = {r["metric"]: r["value"] for r in dataset_rows(ds)}
    assert rows == {"source_share_lee": 1.0, "source_share_wiki_sample": 0.0,
                    "source_share_newsgroups_sample": 0.0, "source_share_reuters": 0.0}


def test_dataset_step_counts_the_kept_records_only() -> None:
    ds = load_run_dataset(dict(LEE, records=10), seed=0)
    assert len(ds) == 10 and ds.metadata["composition"]["lee"] == 10 and len(ds.metadata["documents"]) == 10
    assert all_metrics()["source_share_reuters"].step == "dataset"


@needs_reuters
def test_thesis_pool_at_density_0_3_is_almost_all_reuters(tmp_path, capsys) -> None:
    # the reviewer's count (issue 24): 198 of the 200 attacked transactions at density 0.3 are Reuters
    out = tmp_path / "pool.jsonl"
    assert run_cli(corpora_main, ["build-text", "--source", "pool", "--pipeline", "thesis", "--density", "0.3",
                                  "--part", "attacked", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "composition (transactions per source): lee 2 (1% of 210 offered)" in printed
    assert "reuters 198 (99% of 1120 offered)" in printed
    meta = yaml.safe_load((tmp_path / "pool.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["composition"] == {"lee": 2, "wiki-sample": 0, "newsgroups-sample": 0, "reuters": 198}
    ds = load_run_dataset({"text": "pool", "label": "p", "density": 0.3, "options": {"pipeline": "thesis"}}, 0)
    assert {r["metric"]: r["value"] for r in dataset_rows(ds)}["source_share_reuters"] == 0.99


def test_sweep_records_the_composition(tmp_path, capsys) -> None:
    sweep = {"name": "composition", "datasets": [dict(LEE, grid={"k": 2, "max_cluster_size": 9})],
             "grid": {"m": 2}, "metrics": ["clusters", "source_share_lee", "source_share_reuters"], "seeds": [0]}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(sweep, sort_keys=False), encoding="utf-8")
    assert run_cli(run_main, [str(path), "--results", str(tmp_path / "r"), "--no-plots"]) == 0, capsys.readouterr().err
    with open(tmp_path / "r" / "composition" / "results.csv", encoding="utf-8", newline="") as handle:
        values = {r["metric"]: r["value"] for r in csv.DictReader(handle)}
    assert float(values["source_share_lee"]) == 1.0 and float(values["source_share_reuters"]) == 0.0
    assert "clusters" in values
