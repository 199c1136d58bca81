"""Text sources to transaction datasets at a requested density (AlShuhail2021 section 5.1).

:func:`build_text_dataset` runs the thesis's construction on a named source:

1. pre-process every document (:mod:`corpora.text.preprocess`; cached per source name,
   :func:`corpora.text.documents.load_preprocessed`);
2. split the source by seed into a reference part (for the attacker's NGD counts, see
   :func:`reference_documents`) and an attacked part; ``part`` picks one of them or all;
3. optionally fit NMF topics on the part and keep the documents of the selected topics
   (:mod:`corpora.text.topics`);
4. make each document's transaction: its distinct terms ranked by TF-IDF within the selected
   documents, cut to the ``top_n`` best when given;
5. optionally reach the requested type-token density (section 5.1.1, equation 5.1: distinct
   terms / all term occurrences) within +-0.02 by the deterministic search of
   :mod:`corpora.text.density`.

``pipeline="thesis"`` builds the thesis's own pooled data instead (:mod:`corpora.text.thesis`).

Everything is deterministic for a seed; the metadata of the dataset records the source,
parameters, counts, the density reached and how, the topics and their top words, and the
source position of every record's document. The names of the text pipeline that callers import
from here (:func:`split_parts`, :func:`density_search`, :func:`build_thesis_dataset`, ...) are
defined in those modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpora.common.errors import InputError
from corpora.common.files import write_json_atomic
from corpora.dataset import TransactionDataset
from corpora.io.formats import write_dataset
from corpora.text.composition import composition
from corpora.text.density import DensityChoice, density_of, density_search, select_documents_for_density
from corpora.text.documents import load_preprocessed, rank_by_tfidf, reference_documents, split_parts
from corpora.text.parameters import (
    DENSITY_TOLERANCE,
    PARTS,
    PIPELINES,
    POOL_NAMES,
    POOL_SOURCES,
    check_density,
    check_part,
    check_seed,
    check_share,
    check_top_n,
)
from corpora.text.sources import TextSourceInfo, list_text_sources, source_names
from corpora.text.thesis import build_thesis_dataset
from corpora.text.topics import fit_topics, select_by_topics

__all__ = [
    "DENSITY_TOLERANCE",
    "DensityChoice",
    "PARTS",
    "TextSourceInfo",
    "POOL_NAMES",
    "POOL_SOURCES",
    "PIPELINES",
    "build_text_dataset",
    "build_thesis_dataset",
    "density_search",
    "select_documents_for_density",
    "list_text_sources",
    "load_preprocessed",
    "rank_by_tfidf",
    "reference_documents",
    "split_parts",
    "write_text_dataset",
]

_PREPROCESSING = ("AlShuhail2021 5.1.2: titles, reference sections, links removed; NLTK regexp tokens; "
                  "simplemma lemmas; stop words, numbers, punctuation, single characters, "
                  "duplicates removed; terms ranked by TF-IDF")


def build_text_dataset(
    source: str,
    density: float | None = None,
    topics: int | None = None,
    select_topics: Sequence[int] | None = None,
    top_n: int | None = None,
    seed: int = 0,
    part: str = "all",
    reference_share: float = 0.3,
    pipeline: str = "term-dropping",
    transactions: int = 200,
) -> TransactionDataset:
    """Transactions from the articles of a named text source (AlShuhail2021 section 5.1).

    ``pipeline="thesis"`` hands the build to :func:`build_thesis_dataset` (``source``: a name, a
    comma-separated list or ``pool``; ``transactions``, ``top_n`` (default 20) and ``topics``
    (default 40) apply; ``select_topics`` does not). The default ``"term-dropping"`` is the builder
    described here.

    ``source``: a name of :func:`list_text_sources`. ``part``: ``"all"`` documents, the
    ``"attacked"`` part or the ``"reference"`` part of the seeded split (see
    :func:`split_parts`; ``reference_share`` of the documents are reference). ``topics``: fit
    that many NMF topics on the part (seeded by ``seed``); ``select_topics``: keep only the
    documents of these topic ids. ``top_n``: a transaction holds at most its ``top_n`` best
    terms by TF-IDF. ``density``: reach this type-token density within 0.02 (:mod:`corpora.text.density`);
    ``None`` keeps the transactions as they are.

    Records are in source order. ``metadata`` holds ``source``, ``parameters``, ``counts``,
    ``density`` (target, reached, method and its parameters), ``topics`` (id, top words,
    documents, selected), ``seed``, ``documents`` (the source position of each record's
    document), ``composition`` (transactions per source, :mod:`corpora.text.composition`; here
    one source) and ``preprocessing``. Raises InputError for every bad argument and for a
    density the selected documents cannot reach.
    """
    if pipeline not in PIPELINES:
        raise InputError(f"pipeline: expected one of {', '.join(PIPELINES)}, got {pipeline!r}")
    if pipeline == "thesis":
        if select_topics is not None:
            raise InputError("select_topics applies to the term-dropping pipeline only")
        return build_thesis_dataset(source, density=density, transactions=transactions,
                                    top_n=20 if top_n is None else top_n, topics=40 if topics is None else topics,
                                    seed=seed, part=part, reference_share=reference_share)
    target, top_n, seed, share, select_topics = _checked(source, density, topics, select_topics, top_n, seed, part,
                                                         reference_share)
    docs = load_preprocessed(source)
    ids = _part_ids(docs, part, seed, share)
    part_size = len(ids)
    ids, topic_meta, record_topics = _topic_selection(docs, ids, topics, select_topics, seed)
    if not ids:
        raise InputError(f"source {source!r}: no document is left after the part and topic selection")

    ranked, scores = rank_by_tfidf([docs[i] for i in ids])
    if top_n is not None:
        ranked = [r[:top_n] for r in ranked]
        scores = [s[:top_n] for s in scores]
    vocabulary = sorted({t for r in ranked for t in r})
    index = {t: k for k, t in enumerate(vocabulary)}
    transactions_ids = [[index[t] for t in r] for r in ranked]
    label = f"source {source!r} ({len(ids)} documents, part {part})"
    choice = density_search(transactions_ids, scores, target, len(vocabulary), label, seed=seed)
    records, kept_ids, kept_topics = _kept_records(ids, ranked, index, choice, record_topics)

    occurrences = sum(len(r) for r in records)
    distinct = len({t for r in records for t in r})
    density_meta = choice.as_dict()
    density_meta["reached"] = density_of(distinct, occurrences)
    info = {s.name: s for s in list_text_sources()}[source]
    metadata: dict[str, Any] = {
        "source": source,
        "source_description": info.description,
        "licence": info.licence,
        "parameters": {"density": target, "topics": topics,
                       "select_topics": select_topics,
                       "top_n": top_n, "seed": seed, "part": part, "reference_share": share},
        "counts": {"source_documents": len(docs), "part_documents": part_size,
                   "selected_documents": len(ids), "records": len(records), "distinct_terms": distinct,
                   "term_occurrences": occurrences,
                   "avg_length": round(occurrences / len(records), 4) if records else 0.0},
        "density": density_meta,
        "topics": topic_meta,
        "seed": seed,
        "documents": kept_ids,
        "composition": composition([source] * len(records)),
        "preprocessing": _PREPROCESSING,
    }
    if record_topics is not None:
        metadata["record_topics"] = kept_topics
    return TransactionDataset.from_records(records, name=f"text:{source}", metadata=metadata)


def _checked(source: str, density: float | None, topics: int | None, select_topics: Sequence[int] | None,
             top_n: int | None, seed: int, part: str,
             reference_share: float) -> tuple[float | None, int | None, int, float, list[int] | None]:
    """The term-dropping builder's arguments checked, in the order their errors are reported."""
    if source not in source_names():
        raise InputError(f"unknown text source {source!r}; choose one of {', '.join(source_names())}")
    target = check_density(density)
    top_n = check_top_n(top_n)
    seed = check_seed(seed)
    share = check_share(reference_share)
    check_part(part)
    if select_topics is not None and topics is None:
        raise InputError("select_topics needs topics (the number of NMF topics to fit)")
    if select_topics is not None:
        if isinstance(select_topics, (str, bytes)) or not all(
                isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in select_topics):
            raise InputError(f"select_topics: expected a list of topic ids (whole numbers), got {select_topics!r}")
        select_topics = sorted({int(t) for t in select_topics})
    return target, top_n, seed, share, select_topics


def _part_ids(docs: Sequence[Sequence[str]], part: str, seed: int, share: float) -> list[int]:
    """The positions of the part's documents that hold a term."""
    if part == "all":
        return [i for i in range(len(docs)) if docs[i]]
    attacked, reference = split_parts(len(docs), seed, share)
    return [i for i in (attacked if part == "attacked" else reference) if docs[i]]


def _topic_selection(docs: Sequence[Sequence[str]], ids: list[int], topics: int | None,
                     select_topics: list[int] | None,
                     seed: int) -> tuple[list[int], list[dict[str, Any]], list[int] | None]:
    """The documents of the selected NMF topics, the topics' metadata and each kept document's topic."""
    if topics is None:
        return ids, [], None
    model = fit_topics([docs[i] for i in ids], topics, seed)
    chosen = select_topics
    positions = select_by_topics(model, chosen) if chosen is not None else list(range(len(ids)))
    topic_meta = [dict(t, selected=chosen is None or t["id"] in chosen) for t in model.as_dicts()]
    record_topics = [model.assignments[p] for p in positions]
    return [ids[p] for p in positions], topic_meta, record_topics


def _kept_records(ids: list[int], ranked: list[list[str]], index: dict[str, int], choice: DensityChoice,
                  record_topics: list[int] | None) -> tuple[list[list[str]], list[int], list[int]]:
    """The transactions the density choice keeps (documents left without terms dropped), their
    documents' positions and topics."""
    records: list[list[str]] = []
    kept_ids: list[int] = []
    kept_topics: list[int] = []
    for k, (doc_id, row) in enumerate(zip(ids, ranked, strict=True)):
        terms = [t for t in row[: choice.keep[k]] if index[t] not in choice.dropped_terms]
        if terms:
            records.append(terms)
            kept_ids.append(doc_id)
            if record_topics is not None:
                kept_topics.append(record_topics[k])
    return records, kept_ids, kept_topics


def write_text_dataset(ds: TransactionDataset, path: str | Path) -> Path:
    """Write ``ds`` as JSON lines to ``path`` and its metadata to ``<path>.meta.json``.

    Both files are written atomically; if the metadata cannot be written the data file is
    removed again. Returns the metadata path.
    """
    path = Path(path)
    meta_path = path.with_name(path.name + ".meta.json")
    write_dataset(ds, path, "jsonl")
    try:
        write_json_atomic(meta_path, dict(ds.metadata), indent=2)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return meta_path
