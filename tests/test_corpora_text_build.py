"""Building transaction datasets from text: split, topics, TF-IDF, density search, output."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.common.errors import InputError
from corpora.text.api import build_text_dataset, reference_documents, split_parts, write_text_dataset
from corpora.text.build import DENSITY_TOLERANCE, density_search, load_preprocessed, rank_by_tfidf
from corpora.text.topics import fit_topics, select_by_topics

THESIS_DENSITIES = (0.2, 0.3, 0.5, 0.7)


def _recount_density(records):
    occurrences = sum(len(r) for r in records)
    return len({t for r in records for t in r}) / occurrences


# ----------------------------------------------------------------------------- split
def test_split_parts_is_disjoint_complete_and_seeded():
    attacked, reference = split_parts(300, seed=4, reference_share=0.3)
    assert len(reference) == 90 and len(attacked) == 210
    assert set(attacked).isdisjoint(reference) and set(attacked) | set(reference) == set(range(300))
    assert attacked == sorted(attacked) and reference == sorted(reference)
    assert split_parts(300, 4, 0.3) == (attacked, reference)
    assert split_parts(300, 5, 0.3)[1] != reference
    assert len(split_parts(3, 0, 0.01)[1]) == 1 and len(split_parts(3, 0, 0.99)[0]) == 1


@pytest.mark.parametrize("share", [0, 1, 1.5, -0.1, "0.3", True])
def test_split_parts_rejects_bad_share(share):
    with pytest.raises(InputError, match="reference_share"):
        split_parts(10, 0, share)


@pytest.mark.parametrize("seed", [0, 7])
def test_reference_part_never_shares_a_document_with_attacked_part(seed):
    attacked = build_text_dataset("lee", part="attacked", seed=seed)
    reference = build_text_dataset("lee", part="reference", seed=seed)
    a_ids, r_ids = attacked.metadata["documents"], reference.metadata["documents"]
    assert set(a_ids).isdisjoint(r_ids) and len(a_ids) + len(r_ids) == 300
    docs = load_preprocessed("lee")
    assert reference_documents("lee", seed=seed) == [list(docs[i]) for i in r_ids]
    # the attacked dataset at a density and with topics still only uses attacked documents
    sub = build_text_dataset("lee", density=0.4, topics=5, select_topics=[1, 2], part="attacked", seed=seed)
    assert set(sub.metadata["documents"]) <= set(a_ids)


# ----------------------------------------------------------------------------- TF-IDF
def test_rank_by_tfidf_matches_scikit_learn():
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = [["fire", "home", "fire", "wind"], ["wind", "rain", "rain", "storm"], ["fire", "storm", "cricket"]]
    ranked, scores = rank_by_tfidf(docs)
    vec = TfidfVectorizer(analyzer=lambda d: d, norm=None)
    matrix = vec.fit_transform(docs).toarray()
    names = list(vec.get_feature_names_out())
    for row, (terms, score) in enumerate(zip(ranked, scores, strict=True)):
        expected = {names[j]: matrix[row, j] for j in np.flatnonzero(matrix[row])}
        assert set(terms) == set(expected)
        assert [round(s, 9) for s in score] == [round(expected[t], 9) for t in terms]
        assert all(a >= b for a, b in zip(score, score[1:], strict=False))
    # ties keep first-occurrence order: "rain" (tf 2) first, then wind before storm (same tf and df)
    assert ranked[1] == ["rain", "wind", "storm"]


# ----------------------------------------------------------------------------- density search
def test_density_search_truncates_to_raise_density():
    # three documents, each with an own best term (4, 5, 6) and shared terms 0..3: 7 terms / 12
    transactions = [[4, 0, 1, 2], [5, 0, 1, 3], [6, 0, 2, 3]]
    weights = [[3.0, 1.0, 1.0, 1.0]] * 3
    full = density_search(transactions, weights, None, 7)
    assert full.method == "full" and math.isclose(full.reached, 7 / 12)
    choice = density_search(transactions, weights, 1.0, 7)
    # one term each (4, 5, 6) is 3/3; the next step adds the shared 0 once: 4/4, still 1, more kept
    assert choice.method == "tfidf-truncation" and choice.keep == (2, 1, 1) and choice.reached == 1.0
    choice = density_search(transactions, weights, 0.8, 7)  # 4 of 5 kept: keep (2, 2, 1)
    assert choice.keep == (2, 2, 1) and math.isclose(choice.reached, 4 / 5)
    assert choice.details == {"cap": 1, "documents_with_one_more": 2, "occurrences_kept": 5, "occurrences_full": 12}


def test_density_search_drops_rare_terms_to_lower_density():
    transactions = [[4, 0, 1], [5, 0, 1], [6, 0, 2], [0, 2]]
    weights = [[2.0, 1.0, 1.0], [3.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0]]
    # full: 6 terms / 11 occurrences; the df-1 terms go in weight order 6, 4, 5:
    # 5/10 = 0.5, then 4/9 = 0.444, then 3/8 = 0.375
    assert math.isclose(density_search(transactions, weights, None, 7).reached, 6 / 11)
    choice = density_search(transactions, weights, 0.5, 7)
    assert choice.method == "drop-rare-terms" and choice.dropped_terms == frozenset({6})
    assert math.isclose(choice.reached, 0.5)
    assert density_search(transactions, weights, 0.44, 7).dropped_terms == frozenset({4, 6})
    last = density_search(transactions, weights, 0.375, 7)
    assert last.dropped_terms == frozenset({4, 5, 6}) and math.isclose(last.reached, 0.375)
    assert last.details["max_dropped_document_frequency"] == 1 and last.details["emptied_documents"] == 0


def test_density_search_refuses_unreachable_targets():
    transactions = [[0, 1], [0, 2]]
    with pytest.raises(InputError, match="out of reach"):
        density_search(transactions, [[1, 1], [1, 1]], 0.1, 3)
    # without a seed the documents are fixed: one term each (both "0") gives 0.5 at most
    with pytest.raises(InputError, match="out of reach; shortening transactions gets no higher than 0.750"):
        density_search(transactions, [[1, 1], [1, 1]], 0.9, 3)
    with pytest.raises(InputError, match="no document may be empty"):
        density_search([[0], []], [[1], []], 0.5, 1)


def test_density_search_with_seed_keeps_the_prefix_with_most_occurrences():
    # ten documents share their best term 0, then each has three own terms
    transactions = [[0, 10 + 3 * i, 11 + 3 * i, 12 + 3 * i] for i in range(10)]
    weights = [[4.0, 3.0, 2.0, 1.0]] * 10
    # all ten at full length: 31 / 40; one document alone: 4 / 4 = 1
    choice = density_search(transactions, weights, 1.0, 40, seed=3)
    assert choice.method == "fewer-documents+tfidf-truncation" and math.isclose(choice.reached, 1.0)
    kept = [k for k in choice.keep if k]
    assert len(kept) == 1 and kept == [4] and choice.details["documents_kept"] == 1
    # all ten documents give 31/40 = 0.775 at most (shortening keeps the shared term 0 first); the
    # prefix of five documents is exactly 16/20 = 0.8 at full length; six give 19/24 (too far off)
    choice = density_search(transactions, weights, 0.8, 40, seed=3)
    assert choice.method == "fewer-documents+tfidf-truncation" and math.isclose(choice.reached, 0.8)
    assert sorted(choice.keep) == [0] * 5 + [4] * 5
    # without a seed the documents stay; 0.775 is within the tolerance of 0.79
    choice = density_search(transactions, weights, 0.79, 40)
    assert choice.method == "tfidf-truncation" and choice.keep == (4,) * 10
    with pytest.raises(InputError, match="also with fewer documents"):
        density_search(transactions, weights, 0.9, 40, seed=3)  # 2 documents: 0.875, 1 document: 1
    assert density_search(transactions, weights, 1.0, 40, seed=3) == density_search(
        transactions, weights, 1.0, 40, seed=3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 14), min_size=1, max_size=8, unique=True), min_size=1, max_size=12),
       st.floats(0.05, 1.0), st.one_of(st.none(), st.integers(0, 5)))
def test_density_search_result_matches_an_independent_recount(transactions, target, seed):
    weights = [[float(len(t) - k) for k in range(len(t))] for t in transactions]
    try:
        choice = density_search(transactions, weights, target, 15, seed=seed)
    except InputError:
        assert seed is None or target < 1.0  # with a seed a high target is always reachable
        return
    kept = [[t for t in row[:cap] if t not in choice.dropped_terms]
            for row, cap in zip(transactions, choice.keep, strict=True)]
    kept = [r for r in kept if r]
    assert kept
    assert math.isclose(_recount_density(kept), choice.reached)
    assert abs(choice.reached - target) <= DENSITY_TOLERANCE + 1e-12
    if seed is None:
        assert all(choice.keep)


# ----------------------------------------------------------------------------- datasets
@pytest.mark.parametrize("part", ["all", "attacked"])
@pytest.mark.parametrize("density", THESIS_DENSITIES)
def test_lee_reaches_the_thesis_densities(part, density):
    ds = build_text_dataset("lee", density=density, part=part, seed=3)
    assert abs(ds.density - density) <= DENSITY_TOLERANCE
    meta = ds.metadata
    assert math.isclose(meta["density"]["reached"], ds.density)
    assert meta["density"]["method"] in ("tfidf-truncation", "drop-rare-terms", "fewer-documents+tfidf-truncation")
    assert meta["density"].get("documents_kept", len(ds)) == len(ds)
    assert meta["counts"]["records"] == len(ds) == len(meta["documents"])
    assert meta["counts"]["distinct_terms"] == ds.stats().distinct_terms
    json.dumps(meta)  # JSON-serialisable


@pytest.mark.parametrize("density", [0.2, 0.7])
def test_newsgroups_reaches_densities_on_both_sides(density):
    ds = build_text_dataset("newsgroups-sample", density=density)
    assert abs(ds.density - density) <= DENSITY_TOLERANCE


def test_wiki_sample_builds_with_top_n():
    ds = build_text_dataset("wiki-sample", density=0.5, top_n=100, part="attacked")
    assert abs(ds.density - 0.5) <= DENSITY_TOLERANCE and ds.stats().max_length <= 100


def test_without_density_records_are_the_documents_distinct_terms(lee_dataset):
    ds = lee_dataset  # build_text_dataset("lee"), built once per session (tests/conftest.py)
    docs = load_preprocessed("lee")
    assert len(ds) == 300 and ds.metadata["density"]["method"] == "full"
    assert ds[0] == frozenset(docs[0]) and ds[299] == frozenset(docs[299])


def test_top_n_keeps_the_best_tfidf_terms():
    ds = build_text_dataset("lee", top_n=5)
    ranked, _ = rank_by_tfidf(load_preprocessed("lee"))
    assert ds.stats().max_length == 5 and ds[10] == frozenset(ranked[10][:5])


def test_impossible_density_is_refused_with_the_reachable_end():
    # topic 4 of 8 in the reference part holds four documents: one shared term in each is the least
    with pytest.raises(InputError, match=r"4 documents, part reference\): density 0.1 is out of reach; dropping "
                                         r"rare terms gets no lower than 0\.250"):
        build_text_dataset("lee", density=0.1, topics=8, select_topics=[4], part="reference")


def test_same_seed_same_bytes(tmp_path):
    paths = []
    for run in range(2):
        ds = build_text_dataset("lee", density=0.3, topics=4, select_topics=[0, 2], part="attacked", seed=11)
        path = tmp_path / f"run{run}.jsonl"
        write_text_dataset(ds, path)
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    meta = [json.loads(p.with_name(p.name + ".meta.json").read_text()) for p in paths]
    assert meta[0] == meta[1]


def test_written_files_round_trip(tmp_path):
    ds = build_text_dataset("newsgroups-sample", density=0.5, topics=3, seed=2)
    path = tmp_path / "news.jsonl"
    meta_path = write_text_dataset(ds, path)
    assert meta_path.name == "news.jsonl.meta.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == ds.sorted_records()
    meta = json.loads(meta_path.read_text())
    assert {"source", "parameters", "counts", "density", "topics", "seed", "documents"} <= set(meta)
    assert meta["parameters"]["topics"] == 3 and len(meta["topics"]) == 3
    assert all(t["top_words"] for t in meta["topics"])


# ----------------------------------------------------------------------------- topics
def test_nmf_topics_are_deterministic_per_seed():
    docs = load_preprocessed("lee")[:120]
    first, again = fit_topics(docs, 6, seed=5), fit_topics(docs, 6, seed=5)
    assert first == again
    assert len(first.assignments) == 120 and sum(first.sizes) == sum(a >= 0 for a in first.assignments)
    chosen = select_by_topics(first, [1, 4])
    assert chosen == [i for i, a in enumerate(first.assignments) if a in (1, 4)]
    ds1 = build_text_dataset("lee", topics=6, select_topics=[1, 4], seed=5)
    ds2 = build_text_dataset("lee", topics=6, select_topics=[1, 4], seed=5)
    assert ds1 == ds2 and ds1.metadata == ds2.metadata
    assert set(ds1.metadata["record_topics"]) <= {1, 4}
    assert [t["selected"] for t in ds1.metadata["topics"]] == [i in (1, 4) for i in range(6)]


def test_topics_group_documents_by_vocabulary():
    sport = ["cricket", "bowler", "wicket", "match", "innings"]
    fire = ["bushfire", "firefighter", "blaze", "wind", "evacuate"]
    docs = [sport[i:] + sport[:i] for i in range(5)] + [fire[i:] + fire[:i] for i in range(5)]
    model = fit_topics(docs, 2, seed=0)
    assert len(set(model.assignments[:5])) == 1 and len(set(model.assignments[5:])) == 1
    assert model.assignments[0] != model.assignments[5]
    sport_topic = model.assignments[0]
    assert set(model.top_words[sport_topic][:5]) == set(sport)


@pytest.mark.parametrize("kwargs, message", [
    ({"topics": 0}, "topics"),
    ({"topics": 3, "select_topics": [3]}, "topic 3 does not exist"),
    ({"select_topics": [0]}, "select_topics needs topics"),
    ({"topics": 3, "select_topics": ["a"]}, "select_topics: expected a list of topic ids"),
    ({"topics": 3, "select_topics": []}, "no document is left"),
    ({"density": 0}, "density"),
    ({"density": 1.5}, "density"),
    ({"top_n": 0}, "top_n"),
    ({"part": "train"}, "part"),
    ({"seed": -1}, "seed"),
    ({"reference_share": 1.0}, "reference_share"),
])
def test_bad_arguments_are_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        build_text_dataset("lee", **kwargs)


def test_unknown_source_is_an_input_error():
    with pytest.raises(InputError, match="unknown text source 'leee'"):
        build_text_dataset("leee")
    with pytest.raises(InputError, match="unknown text source"):
        reference_documents("leee")
