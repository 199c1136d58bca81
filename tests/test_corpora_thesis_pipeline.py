"""The thesis's data pipeline (AlShuhail2021 5.1.2): ~20 terms per transaction, density by documents."""

from __future__ import annotations

import pytest

from corpora.common.errors import InputError
from corpora.text.api import build_text_dataset
from corpora.text.build import build_thesis_dataset, select_documents_for_density


@pytest.mark.parametrize("density", [0.2, 0.3, 0.5, 0.7])
def test_density_reached_by_documents_with_about_20_terms(density: float) -> None:
    ds = build_thesis_dataset("pool", density=density, seed=0)
    assert len(ds) == 200
    assert abs(ds.density - density) <= 0.02
    lengths = [len(r) for r in ds]
    assert min(lengths) >= 15 and max(lengths) <= 20
    assert 18.0 <= sum(lengths) / len(lengths) <= 20.0
    meta = ds.metadata
    assert meta["pipeline"] == "thesis" and meta["density"]["method"] == "document-subset"
    assert meta["counts"]["topics_spanned"] >= 20


def test_pipeline_is_a_named_option_and_deterministic() -> None:
    a = build_text_dataset("pool", density=0.3, pipeline="thesis", seed=1, part="attacked")
    b = build_thesis_dataset("pool", density=0.3, seed=1)
    assert [sorted(r) for r in a] == [sorted(r) for r in b]
    with pytest.raises(InputError, match="pipeline"):
        build_text_dataset("lee", pipeline="nope")
    with pytest.raises(InputError, match="out of reach"):
        build_thesis_dataset("lee", density=0.95, transactions=150, seed=0)


def test_attacked_documents_stay_out_of_the_reference_part() -> None:
    from corpora.text.build import split_parts

    ds = build_thesis_dataset("pool", density=0.3, seed=2)
    for source, position in ds.metadata["documents"]:
        from corpora.text.build import load_preprocessed

        _attacked, reference = split_parts(len(load_preprocessed(source)), 2, 0.3)
        assert position not in reference


def test_greedy_selection_keeps_every_term() -> None:
    docs = [[0, 1], [0, 1], [2, 3], [4, 5], [0, 2]]
    chosen = select_documents_for_density(docs, 6, 0.5, 3, [0, 0, 1, 2, 1], seed=0)
    assert len(set(chosen)) == 3
