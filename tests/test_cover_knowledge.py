"""Attacker knowledge (Barakat2016 sections 4 and 6), its files, and the `python -m attacks cover` CLI."""

import itertools
import json

import pytest
from test_cover_golden import awad_fig1
from test_safe_golden import awad_truth

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.io.release_files import save_release, save_truth
from attacks.__main__ import main as attacks_main
from attacks.cover.knowledge import (
    ATTACKERS,
    EVERY_COVER_PAIR,
    external_vocabulary,
    load_knowledge,
    make_knowledge,
    save_knowledge,
)
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

RECORDS = [["a"], ["a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e"], ["a", "b", "c", "d"], ["a", "b", "c", "d"],
           ["a", "b"]]


def test_strong_knows_every_cover_pair_without_building_itemsets():
    """Barakat2016 section 6: "a privacy breach occurs whenever a cover problem is found"."""
    for kw in ({}, {"truth": awad_truth()}, {"original": TransactionDataset.from_records(RECORDS)}):
        kn = make_knowledge(awad_fig1(), "strong", seed=1, **kw)
        assert kn.every_cover_pair and kn.itemsets == [] and kn.source == EVERY_COVER_PAIR
    assert not make_knowledge(awad_fig1(), "strong", m=1).every_cover_pair  # no pair fits in a 1-itemset
    assert ATTACKERS == ("strong", "strong-per-record", "moderate", "weak")


def test_strong_per_record_from_truth_is_one_well_picked_itemset_per_record():
    kn = make_knowledge(awad_fig1(), "strong-per-record", seed=1, truth=awad_truth())
    assert kn.source == "truth"
    # Record 0 = {a} has no 2-combination; the two records with e know e with a covered item (c or d).
    assert len(kn.itemsets) == 5 and kn.details["well_picked"] == 2
    assert sum(1 for s in kn.itemsets if "e" in s and ({"c", "d"} & set(s))) == 2
    records = [set(r) for r in RECORDS]
    assert all(any(set(s) <= r for r in records) for s in kn.itemsets)


def test_strong_per_record_from_original_and_release():
    ds = TransactionDataset.from_records(RECORDS)
    kn = make_knowledge(awad_fig1(), "strong-per-record", seed=0, original=ds)
    assert kn.source == "original" and kn.details["well_picked"] == 2 and len(kn.itemsets) == 5
    assert make_knowledge(awad_fig1(), "strong-per-record").itemsets == [("c", "e"), ("d", "e")]


def test_moderate_knows_a_strict_subset():
    kn = make_knowledge(awad_fig1(), "moderate", seed=2, truth=awad_truth(), moderate_share=0.5)
    assert kn.details["records_known"] == 3 and len(kn.itemsets) <= 3
    assert all(len(s) == 2 for s in kn.itemsets)
    assert make_knowledge(awad_fig1(), "moderate", seed=2).source == "release-reconstruction"
    assert make_knowledge(awad_fig1(), "moderate", seed=2, moderate_share=0.99).details["records_known"] == 5
    with pytest.raises(InputError):
        make_knowledge(awad_fig1(), "moderate", moderate_share=1.0)


def test_weak_is_all_combinations_of_dataset_and_external_items():
    vocab = [f"word{c}" for c in "abcdefghijklmnop"]
    kn = make_knowledge(awad_fig1(), "weak", seed=0, vocabulary=vocab)
    items = kn.details["dataset_items"] + kn.details["external_items"]
    assert sorted(kn.details["dataset_items"]) == ["a", "b", "c", "d", "e"]  # only 5 items in the release
    assert len(kn.details["external_items"]) == 10 and set(kn.details["external_items"]) <= set(vocab)
    assert kn.itemsets == [tuple(c) for c in itertools.combinations(sorted(items), 2)]
    source, words = external_vocabulary()
    assert source in ("glove-6b-vocabulary", "gensim-wordsim353") or source.startswith("wordnet:")
    assert len(words) > 100


def test_external_vocabulary_reads_wordnet_index_files(tmp_path):
    (tmp_path / "index.noun").write_text("  1 This software and database\nhot_dog n 1 1 @ 1 0 07697537\nzebra n 1\n")
    (tmp_path / "index.verb").write_text("run v 41 1 @ 41 5 01926311\n")
    external_vocabulary.cache_clear()
    assert external_vocabulary(str(tmp_path)) == (f"wordnet:{tmp_path}", ("hot dog", "run", "zebra"))
    external_vocabulary.cache_clear()


def test_knowledge_is_seeded_and_roundtrips(tmp_path):
    a = make_knowledge(awad_fig1(), "moderate", seed=5, truth=awad_truth())
    b = make_knowledge(awad_fig1(), "moderate", seed=5, truth=awad_truth())
    assert a.itemsets == b.itemsets
    path = tmp_path / "k.jsonl"
    save_knowledge(a, path)
    assert load_knowledge(path).itemsets == a.itemsets
    bad = tmp_path / "bad.jsonl"
    bad.write_text('["a", "b"]\n{"x": 1}\n')
    with pytest.raises(InputError, match="line 2"):
        load_knowledge(bad)


def test_make_knowledge_rejects_unknown_attacker():
    with pytest.raises(InputError, match="attacker"):
        make_knowledge(awad_fig1(), "clever")


def test_cli_json_and_text(tmp_path, capsys):
    rel, tru = tmp_path / "r.json", tmp_path / "t.json"
    save_release(awad_fig1(), rel)
    save_truth(awad_truth(), tru)
    kfile = tmp_path / "k.jsonl"
    assert attacks_main(["cover", str(rel), "--truth", str(tru), "--save-knowledge", str(kfile), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("vulnerable_records", "pem", "record_chunks", "vulnerable_chunks", "cover_problems", "pem_linkable",
                "vulnerable_chunks_linkable", "linkable_chunks", "pem_cluster", "vulnerable_clusters", "clusters"):
        assert key in out
    assert "pem_literal" not in out and out["pem_cluster"] == 1.0 and out["pem_linkable"] == 0.5
    assert out["pem"] == 0.5 and out["vulnerable_records"] == 2 and out["knowledge_source"] == EVERY_COVER_PAIR
    assert {"cluster", "chunk", "covered", "covering"} <= set(out["cover_problems"][0])
    assert load_knowledge(kfile).itemsets == [("c", "e"), ("d", "e")]  # every cover pair, written out
    assert attacks_main(["cover", str(rel), "--knowledge", str(kfile), "--attacker", "moderate"]) == 0
    text = capsys.readouterr().out
    assert "vulnerable records: 2 of 6" in text
    assert "PEM (Awad2019 5.1.1: Definition 3 on every record chunk): 1 / 2 record chunks" in text
    assert "PEM, linkable chunks only (Awad2019 3.3, Lemma 1): 1 / 2" in text
    assert "PEM per cluster (Definition 3: the cluster is subject to a cover problem): 1 / 1 clusters" in text
    assert attacks_main(["cover", str(rel), "--truth", str(tru), "--attacker", "strong-per-record", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["knowledge_source"] == "truth"
    assert attacks_main(["cover", str(rel), "--attacker", "nobody"]) == 2
    assert attacks_main(["cover", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 2 and "Traceback" not in err


def test_cli_on_disassociated_data(tmp_path, capsys):
    ds = TransactionDataset.from_records([[f"i{(r * 7 + j) % 13}" for j in range(r % 5 + 2)] for r in range(120)])
    release, truth = disassociate(ds, 3, 2, 20, seed=1)
    rel = tmp_path / "r.json"
    save_release(release, rel)
    for attacker in ATTACKERS:
        assert attacks_main(["cover", str(rel), "--attacker", attacker, "--seed", "3", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert 0 <= out["vulnerable_records"] <= 120


@pytest.mark.parametrize("found", [True, False])
def test_weak_attacker_says_in_one_line_when_wordnet_is_missing(tmp_path, capsys, monkeypatch, found):
    import attacks.cover.knowledge as K

    words = tuple(f"word{i}" for i in range(40))
    source = "wordnet:/usr/share/wordnet" if found else "glove-6b-vocabulary"
    monkeypatch.setattr(K, "external_vocabulary", lambda: (source, words))
    rel = tmp_path / "r.json"
    save_release(awad_fig1(), rel)
    assert attacks_main(["cover", str(rel), "--attacker", "weak", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["knowledge_source"] == f"release+{source}"
    notes = [line for line in captured.err.splitlines() if line]
    if found:
        assert notes == []
    else:
        assert len(notes) == 1 and "WordNet not found" in notes[0] and "glove-6b-vocabulary" in notes[0]
