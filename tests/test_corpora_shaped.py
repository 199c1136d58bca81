"""Stand-ins shaped like the papers' KDD Cup 2000 datasets (corpora.synthetic.shaped)."""

import pytest

from corpora.registry import dataset_names, list_datasets, load_dataset
from corpora.synthetic.shaped import PAPER_STATISTICS, compare, shape_like


@pytest.fixture(scope="module")
def kosarak():
    return load_dataset("kosarak25k")


@pytest.mark.parametrize("name, like", [("wv1-shaped", "bms-webview-1"), ("pos-shaped", "bms-pos")])
def test_stand_in_matches_the_papers_domain_and_average_length(name, like):
    ds = load_dataset(name)
    paper = PAPER_STATISTICS[like]
    assert len(ds.vocabulary) == paper.items
    assert abs(float(ds.lengths.mean()) - paper.avg_length) < 0.1
    assert ds.lengths.min() >= 1
    line = compare(ds, like)
    assert f"{paper.records:,} records" in line and f"{len(ds):,} records" in line


@pytest.mark.slow
def test_records_are_real_records_cut_to_the_kept_items(kosarak):
    ds = shape_like(kosarak, 50, 1.8, seed=3)
    kept = set(ds.vocabulary)
    base = {frozenset(r) & kept for r in kosarak}
    assert all(frozenset(r) in base for r in ds)
    supports = kosarak.term_supports()
    top = sorted(range(len(kosarak.vocabulary)), key=lambda t: (-int(supports[t]), t))[:50]
    assert kept == {kosarak.vocabulary[t] for t in top}


def test_shaping_is_seeded(kosarak):
    assert shape_like(kosarak, 200, 2.0, seed=1) == shape_like(kosarak, 200, 2.0, seed=1)
    assert shape_like(kosarak, 200, 2.0, seed=1) != shape_like(kosarak, 200, 2.0, seed=2)


def test_no_thinning_when_the_records_are_already_short(kosarak):
    ds = shape_like(kosarak, 300, 50.0)
    assert len(ds) == sum(1 for r in kosarak if r & set(ds.vocabulary))


def test_registry_lists_the_stand_ins():
    assert {"wv1-shaped", "wv2-shaped", "pos-shaped"} <= set(dataset_names())
    kinds = {i.name: i.kind for i in list_datasets()}
    assert kinds["wv1-shaped"] == "stand-in"


# ---------------------------------------------------------------- fitted stand-ins (controls)
@pytest.mark.parametrize("name, like", [("wv1-fitted", "bms-webview-1"), ("wv2-fitted", "bms-webview-2")])
def test_fitted_stand_in_has_the_papers_records_items_and_average_length(name, like):
    ds = load_dataset(name)
    paper = PAPER_STATISTICS[like]
    assert len(ds) == paper.records
    assert len(ds.vocabulary) == paper.items
    assert abs(float(ds.lengths.mean()) - paper.avg_length) < 0.05
    assert load_dataset(name) == ds  # seeded


def test_poisson_mean_is_corrected_for_the_length_floor():
    import math

    from corpora.synthetic.shaped import poisson_mean_for

    for avg in (1.5, 2.5, 5.0, 6.5):
        lam = poisson_mean_for(avg)
        assert lam + math.exp(-lam) == pytest.approx(avg, abs=1e-9)
    assert poisson_mean_for(1.0) == 0.0


def test_registry_lists_the_fitted_stand_ins():
    kinds = {i.name: i for i in list_datasets()}
    assert kinds["pos-fitted"].kind == "stand-in" and kinds["pos-fitted"].records == 515_597
    assert "fitted" in kinds["pos-fitted"].description


def test_stand_ins_are_described_beside_the_papers_statistics():
    from corpora.registry import describe_stand_ins

    lines = describe_stand_ins(["kosarak10k", "WV1-shaped", "wv1-shaped", "terrovitis2012-fig2"])
    assert len(lines) == 1 and lines[0].startswith("wv1-shaped: 12,635 records, 497 items")
    assert "BMS-WebView-1 (WV1) in Terrovitis2012 Figure 6: 59,602 records" in lines[0]


def test_a_sweep_prints_its_stand_ins_and_reports_them(tmp_path, capsys):
    import yaml

    from corpora.common.errors import run_cli
    from experiments.run import main

    spec = {"name": "s", "datasets": [{"name": "wv1-shaped", "records": 300}], "grid": {"k": 2, "m": 2,
            "max_cluster_size": 4}, "metrics": ["clusters"], "plots": []}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(spec))
    assert run_cli(main, [str(path), "--results", str(tmp_path / "r")]) == 0
    assert "stand-in: wv1-shaped: 12,635 records" in capsys.readouterr().out
    assert "- wv1-shaped: 12,635 records" in (tmp_path / "r" / "s" / "report.md").read_text()
