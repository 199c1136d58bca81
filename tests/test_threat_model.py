"""The audit's declared threat model (issue 26): the YAML file, the options over it, the skipped checks."""

import dataclasses
import json
from pathlib import Path

import pytest
from cli_runner import run_tool
from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer import disassociate
from attacks import audit
from attacks.cover.knowledge import ATTACKERS, make_knowledge
from attacks.threat_model import PARAMETERS, AttackerSpec, ThreatModel
from corpora import load_dataset
from corpora.common.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def _cli(*args: str, cwd: Path):
    return run_tool("attacks", ["audit", *args], cwd=cwd)


def test_the_example_file_is_the_audits_defaults():
    tm = ThreatModel.from_yaml(EXAMPLES / "threat-model.yaml")
    assert tm.source.endswith("threat-model.yaml")
    assert dataclasses.replace(tm, source=None) == ThreatModel()
    assert [a.name for a in tm.attackers] == list(ATTACKERS)
    assert (tm.max_pem, tm.max_vulnerable, tm.max_semantic_gain, tm.scorer) == (0.0, 0.05, 0.0, "glove")


def _layout(tm: ThreatModel) -> dict:
    out = tm.to_dict()
    del out["source"], out["options"]
    return out


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.sampled_from(ATTACKERS), unique=True, max_size=4),
       share=st.floats(0.01, 0.99), per_target=st.integers(1, 5), m=st.one_of(st.none(), st.integers(1, 6)),
       knowledge=st.sampled_from(("auto", "truth", "original", "release")),
       scorer=st.sampled_from(("glove", "ngd", "wordnet", "none")),
       known=st.lists(st.sampled_from(PARAMETERS), unique=True),
       limit=st.one_of(st.none(), st.floats(0, 1)))
def test_to_dict_reads_back_as_the_same_threat_model(names, share, per_target, m, knowledge, scorer, known, limit):
    attackers = tuple(AttackerSpec(n, m=m, moderate_share=share,
                                   itemsets_per_target=per_target if n in ("strong-per-record", "moderate") else 1)
                      for n in names)
    tm = ThreatModel(attackers=attackers, knowledge=knowledge, scorer=scorer,
                     parameters_known=tuple(p for p in PARAMETERS if p in known), max_vulnerable=limit)
    assert ThreatModel.from_mapping(_layout(tm)) == tm
    assert json.loads(json.dumps(tm.to_dict())) == tm.to_dict()


@pytest.mark.parametrize("doc, message", [
    ({"atackers": []}, "atackers: unknown key (did you mean 'attackers'?)"),
    ({"thresholds": {"max_pme": 0.1}}, "thresholds.max_pme: unknown key (did you mean 'max_pem'?)"),
    ({"attackers": [{"name": "strnog"}]}, "attackers[0].name: 'strnog' is not one of"),
    ({"attackers": [{"name": "moderate", "moderat_share": 0.2}]}, "did you mean 'moderate_share'"),
    ({"attackers": [{"m": 2}]}, "attackers[0]: missing key 'name'"),
    ({"attackers": ["weak", "weak"]}, "each attacker at most once"),
    ({"attackers": [{"name": "weak", "itemsets_per_target": 2}]}, "applies to strong-per-record and moderate only"),
    ({"semantic": {"scorer": "glovee"}}, "semantic.scorer: 'glovee' is not one of glove, ngd, wordnet, none"),
    ({"semantic": {"scorer": "glove", "reference": "x.txt"}}, "applies to the ngd scorer only"),
    ({"semantic": {"scorer": "ngd", "reference": "https://example.org/counts"}}, "never a web backend"),
    ({"knowledge": "truht"}, "did you mean 'truth'"),
    ({"parameters_known": {"delt": False}}, "did you mean 'delta'"),
    ({"parameters_known": {"k": "no"}}, "parameters_known.k: expected true or false"),
    ({"thresholds": {"max_pem": 2}}, "thresholds.max_pem: expected a share between 0 and 1"),
    ({"thresholds": {"max_vulnerable": True}}, "expected a share"),
    (["strong"], "expected a mapping"),
])
def test_bad_threat_models_are_one_line(doc, message):
    with pytest.raises(InputError) as caught:
        ThreatModel.from_mapping(doc)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_bad_key_on_the_command_line_is_one_line_exit_2_and_writes_nothing(tmp_path):
    (tmp_path / "tm.yaml").write_text("attackers:\n  - strong\nthreshold:\n  max_pem: 0.1\n")
    (tmp_path / "alias.yaml").write_text("a: &x [1]\nattackers: *x\n")
    for name, says in (("tm.yaml", "tm.yaml: threshold: unknown key (did you mean 'thresholds'?)"),
                       ("alias.yaml", "aliases (*name) are not allowed in a threat model"),
                       ("missing.yaml", "missing.yaml")):
        done = _cli(str(EXAMPLES / "fig1.json"), "--threat-model", name, "--json", "out.json", "--html", "out.html",
                    cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and "Traceback" not in done.stderr
        assert not (tmp_path / "out.json").exists() and not (tmp_path / "out.html").exists()
    bad = _cli(str(EXAMPLES / "fig1.json"), "--attackers", "strong,wek", cwd=tmp_path)
    assert bad.returncode == 2 and "did you mean 'weak'" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_options_override_the_file_and_no_threat_model_behaves_as_the_defaults(tmp_path):
    (tmp_path / "tm.yaml").write_text("attackers: [strong, weak]\nthresholds:\n  max_vulnerable: 0.5\n"
                                      "semantic:\n  scorer: none\n")
    fig1 = str(EXAMPLES / "fig1.json")
    done = _cli(fig1, "--threat-model", "tm.yaml", "--max-vulnerable", "0.1", "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["threat_model"]["thresholds"]["max_vulnerable"] == 0.1  # the option wins
    assert [a["name"] for a in report["threat_model"]["attackers"]] == ["strong", "weak"]  # the file's
    assert [c["name"] for c in report["checks"]] == ["Guarantee 1", "identifiers", "PEM", "strong attacker",
                                                     "weak attacker", "semantic attack"]
    assert report["threat_model"]["source"] == "tm.yaml" and report["threat_model"]["options"] == ["max_vulnerable"]
    assert report["threat_model"]["summary"].endswith("declared in tm.yaml; set by options: max_vulnerable")
    # `attacks audit REL` and `attacks audit REL --threat-model <the example>` check the same things
    plain = json.loads(_cli(fig1, "--json", cwd=tmp_path).stdout)
    example = json.loads(_cli(fig1, "--json", "--threat-model", str(EXAMPLES / "threat-model.yaml"),
                              cwd=tmp_path).stdout)
    strip = ("detail",)
    assert ([{k: v for k, v in c.items() if k not in strip} for c in plain["checks"]]
            == [{k: v for k, v in c.items() if k not in strip} for c in example["checks"]])
    assert plain["verdict"] == example["verdict"]


def test_a_declared_source_that_is_missing_skips_those_attackers_with_the_reason():
    release = load_dataset("terrovitis2012-fig2")
    rel, _truth = disassociate(release, k=2, m=2, max_cluster_size=5, seed=1)
    tm = ThreatModel(knowledge="truth", scorer="none")
    report = audit(rel, threat_model=tm)
    status = {c.name: c.status for c in report.checks}
    assert status["strong-per-record attacker"] == "skipped" and status["moderate attacker"] == "skipped"
    assert status["strong attacker"] != "skipped" and status["weak attacker"] != "skipped"  # they need no records
    reasons = {s["check"]: s["reason"] for s in report.skipped}
    assert "knowledge: truth" in reasons["moderate attacker"] and "--truth" in reasons["moderate attacker"]
    assert reasons["semantic attack"].startswith("the threat model gives the attacker no semantic background")
    assert "the utility cost needs the original dataset" in reasons["utility (tKd, re, tlost)"]
    text = report.to_markdown()
    assert "- moderate attacker: skipped: the threat model says this attacker knows the truth records" in text
    assert report.to_dict()["skipped"] == report.skipped


def test_semantic_background_on_numeric_items_is_a_skipped_line_not_a_pass():
    numbers = load_dataset("synthetic:records=60,domain=20,avg_length=3,seed=2")
    rel, tru = disassociate(numbers, k=3, m=2, seed=1)
    report = audit(rel, original=numbers, truth=tru, threat_model=ThreatModel(scorer="wordnet"), max_pem=1.0)
    line = next(c for c in report.checks if c.name == "semantic attack")
    assert line.status == "skipped" and "not words" in line.detail and "(wordnet) says nothing of them" in line.detail
    assert any(s["check"] == "semantic attack" and "not words" in s["reason"] for s in report.skipped)
    assert "semantic attack: skipped: the terms are not words" in report.to_markdown()


def test_parameters_declared_unknown_but_published_get_an_info_line():
    ds = load_dataset("terrovitis2012-fig2")
    rel, _ = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=1)
    report = audit(rel, threat_model=ThreatModel(parameters_known=("m",), scorer="none"))
    line = next(c for c in report.checks if c.name == "parameters")
    assert line.status == "info" and "k=2" in line.detail and "max_cluster_size=5" in line.detail
    assert "does not hold" in line.detail
    assert "parameters" not in [c.name for c in audit(rel, semantic=False).checks]


def test_itemsets_per_target_one_draws_as_before_and_more_know_more():
    ds = load_dataset("terrovitis2012-fig2")
    rel, tru = disassociate(ds, k=2, m=2, max_cluster_size=5, seed=1)
    for attacker in ("moderate", "strong-per-record"):
        one = make_knowledge(rel, attacker, 3, truth=tru, original=ds)
        same = make_knowledge(rel, attacker, 3, truth=tru, original=ds, itemsets_per_target=1)
        more = make_knowledge(rel, attacker, 3, truth=tru, original=ds, itemsets_per_target=4)
        assert one.itemsets == same.itemsets
        assert len(more.itemsets) > len(one.itemsets)  # every target keeps one, some get more
    report = audit(rel, truth=tru, original=ds, semantic=False,
                   threat_model=ThreatModel(attackers=(AttackerSpec("moderate", itemsets_per_target=3),)))
    row = report.attackers[0]
    assert row["attacker"] == "moderate" and row["itemsets_per_target"] == 3
    assert "3 itemsets per target" in next(c for c in report.checks if c.name == "moderate attacker").detail
