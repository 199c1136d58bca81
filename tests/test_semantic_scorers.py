"""Scorers: NGD arithmetic and backends, word embeddings, score tables, unknown-term policies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gensim.models import KeyedVectors
from gensim.test.utils import datapath

from attacks.semantic import ngd as ngd_mod
from attacks.semantic.reference import resolve_reference
from attacks.semantic.scorers import EmbeddingScorer, NGDScorer, TableScorer, make_scorer
from corpora.common.errors import InputError

# Counts of the shape of AlShuhail2021 section 4.1.2: f(glaucoma) = 67,400,000 (Figure 4.3), an index
# of N = 25.27 billion pages; the other counts are chosen so that equation 4.1 lands on the thesis's
# NGD(glaucoma, cataract) = 0.18 and NGD(glaucoma, double vision) = 0.32.
N_PAGES = 25_270_000_000
F = {"glaucoma": 67_400_000, "cataract": 120_000_000, "double vision": 30_500_000}
F_PAIR = {("glaucoma", "cataract"): 41_292_491, ("glaucoma", "double vision"): 7_848_780}


def _by_hand(fx: float, fy: float, fxy: float, n: float) -> float:
    lx, ly, lxy, ln = math.log(fx), math.log(fy), math.log(fxy), math.log(n)
    return (max(lx, ly) - lxy) / (ln - min(lx, ly))


class FixedCounts:
    """A count backend with given numbers (the shape of a search engine's answers)."""

    total = float(N_PAGES)

    def counts(self, terms):
        return np.array([float(F.get(t, 0)) for t in terms])

    def pair_counts(self, a, b):
        return np.array([[float(F_PAIR.get((x, y), F_PAIR.get((y, x), 0))) for y in b] for x in a])


def test_ngd_thesis_example() -> None:
    d_cat = ngd_mod.ngd(F["glaucoma"], F["cataract"], F_PAIR[("glaucoma", "cataract")], N_PAGES)
    d_dv = ngd_mod.ngd(F["glaucoma"], F["double vision"], F_PAIR[("glaucoma", "double vision")], N_PAGES)
    assert round(float(d_cat), 2) == 0.18
    assert round(float(d_dv), 2) == 0.32
    assert float(d_cat) == pytest.approx(_by_hand(67_400_000, 120_000_000, 41_292_491, N_PAGES))
    # equation 4.2: glaucoma is closer to cataract than to double vision
    scorer = NGDScorer(FixedCounts())
    s = scorer.score_matrix(["glaucoma"], ["cataract", "double vision"])[0]
    assert s[0] > s[1]
    assert s[0] == pytest.approx(math.exp(-float(d_cat)))
    assert scorer.distance_matrix(["glaucoma"], ["cataract"])[0, 0] == pytest.approx(float(d_cat))


def test_ngd_edge_cases() -> None:
    assert ngd_mod.ngd(10, 20, 10, 1000) == pytest.approx(_by_hand(10, 20, 10, 1000))
    assert ngd_mod.ngd(10, 10, 10, 1000) == 0.0  # always together
    assert np.isinf(ngd_mod.ngd(10, 20, 0, 1000))  # never together
    assert np.isnan(ngd_mod.ngd(0, 20, 0, 1000))  # unknown term
    assert ngd_mod.ngd_relatedness(np.inf) == 0.0
    assert ngd_mod.ngd_relatedness(0.25, "linear", 0.5) == pytest.approx(0.5)
    assert ngd_mod.ngd_relatedness(2.0, "linear") == 0.0
    with pytest.raises(InputError):
        ngd_mod.ngd_relatedness(0.1, "log")


def test_local_backend_counts_and_multiword_terms() -> None:
    docs = [["eye", "glaucoma", "cataract"], ["glaucoma", "double", "vision"], ["cataract", "surgery"], ["tree"]]
    backend = ngd_mod.LocalCountBackend(docs)
    assert backend.total == 4
    assert backend.counts(["glaucoma", "cataract", "double vision", "Double_Vision", "unknownword"]).tolist() == [
        2,
        2,
        1,
        1,
        0,
    ]
    pairs = backend.pair_counts(["glaucoma", "cataract"], ["cataract", "double vision", "tree"])
    assert pairs.tolist() == [[1, 1, 0], [2, 0, 0]]
    scorer = NGDScorer(backend)
    s = scorer.score_matrix(["glaucoma"], ["cataract", "tree", "nothing"])[0]
    assert s[0] == pytest.approx(math.exp(-_by_hand(2, 2, 1, 4)))
    assert s[1] == 0.0  # both known, never together
    assert np.isnan(s[2])  # unknown: no evidence
    assert scorer.unknown_terms == {"nothing"} and scorer.unknown_pairs == 1


def test_reference_resolution(tmp_path) -> None:
    path = tmp_path / "ref.txt"
    path.write_text("Glaucoma and cataract.\nDouble vision, glaucoma!\n\n", encoding="utf-8")
    backend = resolve_reference(str(path))
    assert backend.total == 2 and backend.counts(["glaucoma"]).tolist() == [2]
    listed = resolve_reference([["a", "b"], ["b"]])
    assert listed.counts(["b"]).tolist() == [2]
    with pytest.raises(InputError):
        resolve_reference(["plain string documents"])
    with pytest.raises(InputError):
        make_scorer("ngd", reference=[])


def test_embedding_scores_are_clipped_cosines(test_vectors: KeyedVectors) -> None:
    scorer = EmbeddingScorer(test_vectors)
    words = list(test_vectors.index_to_key[:12])
    mat = scorer.score_matrix(words, words)
    for i, a in enumerate(words):
        for j, b in enumerate(words):
            va, vb = test_vectors[a].astype(float), test_vectors[b].astype(float)
            cos = va @ vb / np.linalg.norm(va) / np.linalg.norm(vb)
            assert mat[i, j] == pytest.approx(max(cos, 0.0), abs=1e-6)
            assert mat[i, j] == pytest.approx(max(float(test_vectors.similarity(a, b)), 0.0), abs=1e-5)
    assert np.allclose(np.diag(mat), 1.0)
    affine = EmbeddingScorer(test_vectors, negative="affine").score_matrix(words, words)
    assert affine.min() >= 0 and affine.max() <= 1 + 1e-9
    assert affine[0, 1] == pytest.approx((1 + float(test_vectors.similarity(words[0], words[1]))) / 2, abs=1e-5)


def test_embedding_multiword_and_unknown(test_vectors: KeyedVectors) -> None:
    a, b, c = test_vectors.index_to_key[1:4]
    scorer = EmbeddingScorer(test_vectors)
    mean = test_vectors[a] / np.linalg.norm(test_vectors[a]) + test_vectors[b] / np.linalg.norm(test_vectors[b])
    mean = mean / np.linalg.norm(mean)
    vc = test_vectors[c] / np.linalg.norm(test_vectors[c])
    assert scorer.score(f"{a} {b}", c) == pytest.approx(max(float(mean @ vc), 0.0), abs=1e-6)
    assert scorer.known([f"{a} {b}", f"{a} qqqzzz", "qqqzzz"]).tolist() == [True, False, False]
    assert np.isnan(scorer.score("qqqzzz", c))
    assert make_scorer("glove", embeddings=test_vectors, unknown="zero").score("qqqzzz", c) == 0.0
    with pytest.raises(InputError, match="qqqzzz"):
        make_scorer("glove", embeddings=test_vectors, unknown="error").score("qqqzzz", c)


def test_embeddings_from_a_path() -> None:
    kv = make_scorer("glove", embeddings=datapath("test_glove.txt")).kv
    assert len(kv) > 10
    with pytest.raises(InputError):
        make_scorer("glove", embeddings="/nonexistent/vectors.txt")


def test_table_scorer(tmp_path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("term_a,term_b,score\nflu,fever,0.8\nflu,itunes,0.1\n", encoding="utf-8")
    scorer = make_scorer(f"table:{path}")
    assert isinstance(scorer, TableScorer)
    assert scorer.score("fever", "flu") == 0.8
    assert scorer.score("flu", "flu") == 1.0
    assert np.isnan(scorer.score("fever", "itunes"))  # pair missing: no evidence
    assert scorer.unknown_pairs == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,1.5\n", encoding="utf-8")
    with pytest.raises(InputError, match="outside"):
        make_scorer(f"table:{bad}")
    with pytest.raises(InputError):
        make_scorer("no-such-scorer")
    with pytest.raises(InputError):
        make_scorer("glove", embeddings=None, unknown="ignore")


def test_glove_6b_default() -> None:
    scorer = make_scorer("glove")
    s = scorer.score_matrix(["glaucoma"], ["cataract", "football"])[0]
    assert s[0] > s[1]
    assert scorer.known(["audi a4", "sony tv"]).all()
