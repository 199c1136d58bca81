"""Scorers against human judgements, the WordNet scorer, pooled NGD references and `attacks score`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attacks.__main__ import main as attacks_main
from attacks.semantic.reference import setting_reference
from attacks.semantic.relatedness import benchmark_pairs, read_pairs, score_pairs
from attacks.semantic.scorers import HybridScorer, make_scorer
from attacks.semantic.wordnet import wordnet_available
from corpora.common.errors import InputError

needs_wordnet = pytest.mark.skipif(not wordnet_available(), reason="Debian's wordnet-base is not installed")


def test_benchmarks_ship_and_parse() -> None:
    mc = benchmark_pairs("miller-charles")
    assert len(mc) == 30 and mc[0] == ("car", "automobile", 3.92)
    assert len(benchmark_pairs("wordsim353")) == 353
    assert len(benchmark_pairs("simlex999")) == 999


def test_glove_on_wordsim353_has_a_floor() -> None:
    report = score_pairs(make_scorer("glove"), benchmark_pairs("wordsim353"))
    assert report.unknown == 0
    assert report.pearson >= 0.48 and report.spearman >= 0.47  # measured 0.517 / 0.503


@needs_wordnet
def test_default_scorer_is_trusted() -> None:
    scorer = make_scorer("hybrid")
    assert isinstance(scorer, HybridScorer) and scorer.wordnet is not None
    mc = score_pairs(scorer, benchmark_pairs("miller-charles"))
    assert mc.pearson >= 0.75  # AlShuhail2021 Table 4.1: WE 0.75, NGD 0.72; measured 0.771
    ws = score_pairs(scorer, benchmark_pairs("wordsim353"))
    assert ws.pearson >= 0.45 and ws.unknown == 0  # measured 0.499


@needs_wordnet
def test_wordnet_scorer_values() -> None:
    wn = make_scorer("wordnet")
    m = wn.score_matrix(["car", "dog", "run", "zzqx"], ["automobile", "cat", "car"])
    assert m[0, 0] == 1.0 and m[0, 2] == 1.0  # the same synset
    assert 0.5 < m[1, 1] < 1.0  # dog / cat share carnivore
    assert np.isnan(m[3]).all()  # unknown to WordNet
    assert 0.0 <= m[2, 0] < m[1, 1]


def test_read_pairs_errors(tmp_path) -> None:
    good = tmp_path / "p.tsv"
    good.write_text("# c\nw1\tw2\th\nCar\tauto\t3\n", encoding="utf-8")
    assert read_pairs(good) == [("Car", "auto", 3.0)]
    mixed = tmp_path / "m.tsv"
    mixed.write_text("a\tb\t1\nc\td\n", encoding="utf-8")
    with pytest.raises(InputError, match="every line or on none"):
        read_pairs(mixed)
    with pytest.raises(InputError, match="line 1"):
        (tmp_path / "x.tsv").write_text("onlyone\n", encoding="utf-8")
        read_pairs(tmp_path / "x.tsv")


def test_score_cli_json(tmp_path, capsys) -> None:
    pairs = tmp_path / "p.tsv"
    pairs.write_text("car\tautomobile\t3.9\ncar\tbanana\t0.2\nnoon\tstring\t0.1\nqqzzx\tcar\t1\n", encoding="utf-8")
    assert attacks_main(["score", str(pairs), "--scorer", "glove", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"pairs", "pearson", "spearman", "unknown"}
    assert out["unknown"] == 1 and len(out["pairs"]) == 4 and out["pairs"][3]["score"] is None
    assert attacks_main(["score", str(pairs), "--scorer", "glove"]) == 0
    assert "Pearson" in capsys.readouterr().out
    assert attacks_main(["score", str(tmp_path / "none.tsv")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert attacks_main(["score", str(pairs), "--scorer", "bogus"]) == 2


def test_setting_reference_specs() -> None:
    assert setting_reference("public:lee") == ("public", ("lee",))
    assert setting_reference("private:thesis")[1] == ("lee", "wiki-sample", "newsgroups-sample", "reuters")
    assert setting_reference("lee") is None
    with pytest.raises(InputError):
        setting_reference("private:")
