"""Paper-vs-ours claims computed from a sweep's results (experiments.claims)."""

import pandas as pd
import pytest

from experiments.claims import main
from experiments.report.claims import Claim, evaluate_claim
from experiments.report.claims_table import claims_table, update_readme


def rows(values_by_x, metric="pem", dataset="BMS1"):
    return pd.DataFrame([{"status": "ok", "metric": metric, "dataset": dataset, "max_cluster_size": x,
                          "seed": s, "value": v}
                         for x, vs in values_by_x.items() for s, v in enumerate(vs)])


RISING = Claim("awad-fig4", "PEM rises with delta", "pem", "max_cluster_size", (("dataset", ("BMS1",)),),
               paper=((10, 17.0), (60, 52.0)), trend="rising", tolerance=1.0,
               reason="single-chunk clusters dominate")


def test_a_rising_claim_matches_a_rising_line():
    r = evaluate_claim(rows({10: [0.2, 0.22], 30: [0.3, 0.3], 60: [0.5, 0.52]}), RISING)
    assert r.verdict == "matches" and r.ours[10.0] == pytest.approx(21.0) and r.ours[60.0] == pytest.approx(51.0)


def test_a_falling_line_differs_and_the_reason_is_printed():
    r = evaluate_claim(rows({10: [0.7], 60: [0.3]}), RISING)
    assert r.verdict == "differs"
    [header, rule, line] = claims_table([r])
    assert "| differs | single-chunk clusters dominate |" in line
    assert "max_cluster_size=10: 17" in line and "max_cluster_size=10,60: 70, 30" in line


def test_values_within_tolerance_and_no_data():
    claim = Claim("t7a", "tKd about 5%", "tkd", "max_cluster_size", paper=((30, 5.0),), tolerance=2.0)
    df = rows({30: [0.06, 0.065]}, metric="tkd")
    assert evaluate_claim(df, claim).verdict == "matches"
    assert evaluate_claim(rows({30: [0.5]}, metric="tkd"), claim).verdict == "differs (level x10)"
    assert evaluate_claim(rows({30: [0.5]}, metric="pem"), claim).verdict == "no data"


def test_readme_blocks_are_filled_from_the_results(tmp_path, capsys):
    (tmp_path / "r" / "awad2019").mkdir(parents=True)
    (tmp_path / "r" / "awad2019" / "claims.md").write_text("| claim |\n|---|\n| x |\n")
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- claims:awad2019 -->\nold table\n<!-- /claims:awad2019 -->\nend\n")
    assert update_readme(readme, tmp_path / "r") == ["awad2019"]
    table = "| claim |\n|---|\n| x |\n"
    assert readme.read_text() == f"intro\n<!-- claims:awad2019 -->\n{table}<!-- /claims:awad2019 -->\nend\n"
    readme.write_text("<!-- claims:barakat2016 -->\n<!-- /claims:barakat2016 -->\n")
    assert main([str(readme), str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_claims_in_a_sweep_file_are_validated_and_reported(tmp_path):
    import yaml

    from corpora.common.errors import InputError
    from experiments.run import main as run_main
    from experiments.sweep.schema import parse_sweep

    spec = {"name": "claimed", "datasets": [{"name": "terrovitis2012-fig2", "grid": {"k": 2,
                                                                                  "max_cluster_size": [4, 6]}}],
            "grid": {"m": 2}, "metrics": ["clusters"],
            "plots": [{"id": "clusters", "metric": "clusters", "x": "max_cluster_size", "group_by": "dataset"}],
            "claims": [{"id": "c1", "statement": "fewer clusters when they may be larger", "metric": "clusters",
                        "x": "max_cluster_size", "trend": "falling", "reason": "none", "paper": {4: 3},
                        "plot": "clusters"}],
            "ours": [{"setting": "m", "value": 2, "why": "a small example", "sensitivity": ["c1"]}]}
    assert parse_sweep(spec).claims[0].trend == "falling"
    for bad, message in (({"trend": "up"}, "'up' is not allowed"), ({"metric": "pem"}, "'pem' is not allowed"),
                         ({"trend": None}, "None is not allowed")):
        broken = {**spec, "claims": [{**spec["claims"][0], **bad}]}
        with pytest.raises(InputError, match=message):
            parse_sweep(broken)
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(spec))
    assert run_main([str(path), "--results", str(tmp_path / "r")]) == 0
    table = (tmp_path / "r" / "claimed" / "claims.md").read_text()
    assert "fewer clusters when they may be larger" in table
    assert "| matches |" in table or "| differs |" in table or "| trend only (level x" in table
    assert "**Settings we chose**" in table and "| m | 2 | a small example | c1: " in table
    assert table in (tmp_path / "r" / "claimed" / "report.md").read_text()
    assert "paper: fewer clusters when they may be larger" in \
        (tmp_path / "r" / "claimed" / "figures" / "clusters.svg").read_text()


def test_controls_and_explaining_metrics_are_measured_from_the_table():
    df = pd.concat([
        rows({10: [0.03], 60: [0.02]}, dataset="BMS1"),                                  # falls: differs
        rows({10: [0.2], 60: [0.5]}, dataset="BMS1-fitted"),                             # the control rises
        rows({10: [0.04], 60: [0.025]}, metric="linkable_chunk_share", dataset="BMS1"),  # PEM's ceiling
    ]).assign(method=lambda d: d["metric"].map({"pem": "strong"}).fillna("disassociation"))
    claim = Claim("c", "PEM rises with delta", "pem", "max_cluster_size",
                  (("dataset", ("BMS1",)), ("method", ("strong",))), trend="rising", tolerance=1.0,
                  reason="few linkable chunks", controls=((("dataset", ("BMS1-fitted",)),),),
                  explain=("linkable_chunk_share",))
    r = evaluate_claim(df, claim)
    assert r.verdict == "differs"
    assert r.controls[0].verdict == "matches" and r.controls[0].ours == {10.0: 20.0, 60.0: 50.0}
    assert r.explained["linkable_chunk_share"] == {10.0: pytest.approx(4.0), 60.0: pytest.approx(2.5)}
    [_, _, line] = claims_table([r])
    assert ("few linkable chunks measured: record chunks in multi-chunk clusters (ceiling of PEM's linkable "
            "reading) (%): max_cluster_size=10: 4, max_cluster_size=60: 2.5") in line
    assert "on dataset=BMS1-fitted: matches (max_cluster_size=10,60: 20, 50; " in line


def test_controls_and_explain_are_validated():
    from corpora.common.errors import InputError
    from experiments.sweep.schema import parse_sweep

    base = {"name": "s", "datasets": ["terrovitis2012-fig2"], "grid": {"k": 2, "m": 2, "max_cluster_size": 4},
            "metrics": ["clusters", "linkable_chunk_share"]}
    claim = {"id": "c", "statement": "s", "metric": "clusters", "x": "k", "trend": "flat"}
    ok = parse_sweep({**base, "claims": [{**claim, "controls": [{"dataset": "x"}], "explain": "linkable_chunk_share"}]})
    assert ok.claims[0].controls == ((("dataset", ("x",)),),) and ok.claims[0].explain == ("linkable_chunk_share",)
    for bad, message in (({"controls": [{"datset": "x"}]}, "did you mean 'dataset'"),
                         ({"controls": [{}]}, "row selection"),
                         ({"explain": ["pem"]}, "'pem' is not allowed")):
        with pytest.raises(InputError, match=message):
            parse_sweep({**base, "claims": [{**claim, **bad}]})
