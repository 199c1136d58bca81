"""Scorers against human judgements, the WordNet scorer, pooled NGD references and `attacks score`."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from attacks.__main__ import main as attacks_main
from attacks.semantic.ngd import LocalCountBackend
from attacks.semantic.reference import setting_reference
from attacks.semantic.relatedness import (
    TABLE_4_1_PRINTED,
    benchmark_pairs,
    correlations,
    ngd_prime_pairs,
    read_pairs,
    score_pairs,
    thesis_table_4_1,
)
from attacks.semantic.scorers import DEFAULT_SCORER, HybridScorer, NGDScorer, make_scorer
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
def test_hybrid_follows_human_judgements() -> None:
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


def test_table_4_1_is_the_thesis_list_not_miller_charles() -> None:
    table = thesis_table_4_1()
    assert len(table.pairs) == 30 and table.pairs[0] == ("cord", "smile", 0.01)
    assert table.pairs[-1] == ("gem", "jewel", 0.99) and table.columns["ngd_prime"][23] == 0.16  # cock-rooster
    assert all(len(v) == 30 for v in table.columns.values())
    assert benchmark_pairs("table4.1") == list(table.pairs)
    mc = {frozenset((a, b)) for a, b, _h in benchmark_pairs("miller-charles")}
    assert len(mc & {frozenset((a, b)) for a, b, _h in table.pairs}) == 11  # issue 24: 11 of 30 shared


def test_table_4_1_columns_reproduce_the_printed_correlations() -> None:
    # an independent check of the transcription: the thesis's own columns give its printed Pearson values
    table = thesis_table_4_1()
    for column, printed in TABLE_4_1_PRINTED.items():
        assert round(table.pearson(column), 2) == printed, column
    r, rho, n = correlations([h for _a, _b, h in table.pairs], list(table.columns["we"]))
    assert n == 30 and abs(r - 0.7523) < 1e-3 and rho is not None


def test_score_cli_table_4_1_beside_the_thesis(tmp_path, capsys) -> None:
    # replaying the thesis's WE column as a score table must give the thesis's WE correlation
    table = thesis_table_4_1()
    we = tmp_path / "we.csv"
    we.write_text("".join(f"{a},{b},{s}\n" for (a, b, _h), s in zip(table.pairs, table.columns["we"], strict=True)),
                  encoding="utf-8")
    assert attacks_main(["score", "table4.1", "--scorer", f"table:{we}"]) == 0
    out = capsys.readouterr().out
    assert "Pearson 0.752" in out and "thesis NGD' 0.05, WE 0.01" in out
    assert "as printed: NGD' 0.72, WE 0.75, Li 0.72, Islam 0.65" in out
    assert attacks_main(["score", "table4.1", "--scorer", f"table:{we}", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["thesis"]["printed"]["we"] == 0.75 and round(obj["pearson"], 3) == 0.752
    assert "ngd_prime" not in obj  # a table scorer has no distances


def test_ngd_prime_as_the_thesis() -> None:
    docs = [["cord", "string"], ["cord", "string", "smile"], ["smile", "grin"], ["grin"], ["noon"], ["string"]]
    scorer = NGDScorer(LocalCountBackend(docs, name="toy"))
    pairs = [("cord", "string", 0.9), ("smile", "grin", 0.8), ("cord", "smile", 0.1), ("noon", "string", 0.0),
             ("cord", "zzqx", 0.5)]
    report = score_pairs(scorer, pairs)
    prime = ngd_prime_pairs(report, scorer)
    d = [float(scorer.distance_matrix([a], [b])[0, 0]) for a, b, _h in pairs]
    top = max(x for x in d if np.isfinite(x))
    assert [p.score for p in prime.pairs[:3]] == pytest.approx([1 - x / top for x in d[:3]])
    assert prime.pairs[3].score == 0.0 and np.isnan(prime.pairs[4].score)  # never together / unknown
    assert prime.unknown == 1 and prime.compared == 4
    assert ngd_prime_pairs(report, make_scorer("constant")) is None


def test_default_scorer_is_ngd_over_the_offline_sample(capsys) -> None:
    # issue 24: the default is the scorer that attacks best without setup (benchmarks/scorers.py), not the hybrid
    assert DEFAULT_SCORER == "ngd"
    scorer = make_scorer(DEFAULT_SCORER)
    assert isinstance(scorer, NGDScorer) and scorer.backend.name == "gensim-wiki"
    from attacks.api import semantic_attack

    assert inspect.signature(semantic_attack).parameters["scorer"].default == DEFAULT_SCORER
    with pytest.raises(SystemExit):
        attacks_main(["semantic", "--help"])
    assert "(default ngd" in " ".join(capsys.readouterr().out.split())
