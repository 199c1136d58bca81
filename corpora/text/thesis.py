"""The thesis's data pipeline (AlShuhail2021 5.1.2 and the density paragraph of 5.3.2): pooled sources, ~20 terms
per transaction, a density reached by choosing documents.

:func:`build_thesis_dataset` is ``build_text_dataset(..., pipeline="thesis")``
(:mod:`corpora.text.build`); its steps are in its docstring.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

import corpora.text.topics as topics_mod
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.text.composition import composition
from corpora.text.density import density_of, select_documents_for_density
from corpora.text.documents import code_stamp, disk_cache, load_preprocessed, rank_by_tfidf, split_parts
from corpora.text.parameters import (
    DENSITY_TOLERANCE,
    POOL_NAMES,
    POOL_SOURCES,
    check_density,
    check_part,
    check_seed,
    check_share,
    check_top_n,
)
from corpora.text.sources import list_text_sources, source_names
from corpora.text.topics import TopicModel, fit_topics

__all__ = ["build_thesis_dataset"]


def _pool_sources(source: str) -> tuple[list[str], list[str]]:
    """(present sources, absent pooled sources) named by ``source``: one name, a comma list or ``pool``."""
    names: list[str] = []
    for name in (n.strip() for n in source.split(",")):
        if not name:
            continue
        names += list(POOL_SOURCES) if name in POOL_NAMES else [name]
    if not names:
        raise InputError("source: name at least one text source (or pool)")
    for name in names:
        if name not in source_names():
            raise InputError(f"unknown text source {name!r}; choose from {', '.join(source_names())} or pool")
    present = {i.name: i.present for i in list_text_sources()}
    names = list(dict.fromkeys(names))
    return [n for n in names if present[n]], [n for n in names if not present[n]]


def _qualifying(sources: tuple[str, ...], top_n: int) -> list[tuple[str, int]]:
    """The (source, position) of every document with at least ``ceil(0.75 * top_n)`` distinct terms."""
    min_terms = math.ceil(0.75 * top_n)
    return [(name, i) for name in sources for i, d in enumerate(load_preprocessed(name)) if len(set(d)) >= min_terms]


@functools.lru_cache(maxsize=4)
def _pool_topics(sources: tuple[str, ...], top_n: int,
                 topics: int) -> tuple[dict[tuple[str, int], int], tuple[tuple[str, ...], ...]]:
    """The NMF topic of every qualifying document of the pooled sources, all parts together, fitted
    once (``random_state=0``; kept on disk too): topics describe the corpus, not a seed's sample."""
    def build() -> dict[str, Any]:
        pool = _qualifying(sources, top_n)
        texts = [load_preprocessed(name)[i] for name, i in pool]
        model = fit_topics(texts, min(topics, len(pool)), 0, solver="mu", tol=1e-3, max_iter=200)
        return {"assignments": list(model.assignments), "top_words": [list(w) for w in model.top_words]}

    pool = _qualifying(sources, top_n)
    stamp = [[n, len(load_preprocessed(n))] for n in sources] + [top_n, topics,
                                                                   code_stamp(topics_mod)]
    key = "thesis-topics-" + "-".join(sources) + f"-{top_n}-{topics}"
    value = disk_cache(key, stamp, build)
    topic_of = {doc: int(a) for doc, a in zip(pool, value["assignments"], strict=True)}
    return topic_of, tuple(tuple(w) for w in value["top_words"])


@functools.lru_cache(maxsize=8)
def _thesis_pool(sources: tuple[str, ...], part: str, seed: int, share: float, top_n: int,
                 topics: int) -> tuple[list[tuple[str, int]], list[tuple[str, ...]], list[list[str]], list[str], Any]:
    """The qualifying documents of the part, their top terms, the vocabulary and their topics
    (steps 1-3 of :func:`build_thesis_dataset`; cached, since they do not depend on the density)."""
    qualifying = set(_qualifying(sources, top_n))
    pool: list[tuple[str, int]] = []
    for name in sources:
        n_docs = len(load_preprocessed(name))
        if part == "all":
            ids = list(range(n_docs))
        else:
            attacked, reference = split_parts(n_docs, seed, share)
            ids = attacked if part == "attacked" else reference
        pool += [(name, i) for i in ids if (name, i) in qualifying]
    if not pool:
        raise InputError(f"no document of {', '.join(sources)} has at least {math.ceil(0.75 * top_n)} terms")
    texts = [load_preprocessed(name)[i] for name, i in pool]
    ranked, _scores = rank_by_tfidf(texts)
    ranked = [r[:top_n] for r in ranked]
    vocabulary = sorted({t for r in ranked for t in r})
    topic_of, top_words = _pool_topics(sources, top_n, topics)
    assignments = tuple(topic_of[d] for d in pool)
    sizes = tuple(sum(1 for a in assignments if a == t) for t in range(len(top_words)))
    model = TopicModel(assignments, top_words, sizes, 0)
    return pool, texts, ranked, vocabulary, model


def build_thesis_dataset(
    source: str = "pool",
    density: float | None = 0.3,
    transactions: int = 200,
    top_n: int = 20,
    topics: int = 40,
    seed: int = 0,
    part: str = "attacked",
    reference_share: float = 0.3,
) -> TransactionDataset:
    """The thesis's data pipeline (AlShuhail2021 5.1.2 and the density paragraph of 5.3.2).

    The thesis pre-processes about 1,000 EzineArticles, fits NMF topics, classifies and selects
    articles by topic and builds 200 transactions with about 4,000 terms (about 20 terms each) from
    more than 35 topics; a density is reached by selecting subsets of documents. Offline:

    1. every present source named by ``source`` (``pool``: lee, wiki-sample, newsgroups-sample and
       reuters, about 2,750 documents) is pre-processed (:mod:`corpora.text.preprocess`) and split by seed
       into attacked and reference parts (:func:`split_parts`, per source); ``part`` picks one;
    2. a document qualifies when it has at least ``ceil(0.75 * top_n)`` distinct terms; its
       transaction is its ``top_n`` best terms by TF-IDF over the qualifying documents, so a
       transaction holds 15-20 terms for ``top_n=20`` (the thesis's "around 20");
    3. NMF with ``topics`` topics (:mod:`corpora.text.topics`), fitted once on every qualifying document
       of the pooled sources (all parts, ``random_state=0``), gives each document a topic;
    4. ``transactions`` documents are chosen by :func:`select_documents_for_density` so that the
       density (type-token ratio) ends within 0.02 of ``density``, spreading over topics where
       the density allows; no term is dropped. ``density=None`` takes a seeded random subset.

    The metadata say how many topics the chosen documents span, which sources were absent
    (``reuters`` needs Debian's ``weka``; the pool goes on without it), how many transactions come
    from each source (``composition``, :mod:`corpora.text.composition`) and how many documents of
    each source the part offered (``counts.pool_by_source``).
    """
    sources, missing = _pool_sources(source)
    if not sources:
        raise InputError(f"none of the text sources {', '.join(missing)} is installed here")
    target = check_density(density)
    seed = check_seed(seed)
    share = check_share(reference_share)
    top_n = check_top_n(top_n) or 20
    check_part(part)
    if isinstance(transactions, bool) or not isinstance(transactions, (int, np.integer)) or transactions < 2:
        raise InputError(f"transactions: expected a whole number >= 2, got {transactions!r}")
    pool, texts, ranked, vocabulary, model = _thesis_pool(tuple(sources), part, seed, share, top_n, int(topics))
    if len(pool) < transactions:
        raise InputError(f"only {len(pool)} documents with at least {math.ceil(0.75 * top_n)} terms; "
                         f"{transactions} requested")
    n_topics = model.topics
    index = {t: k for k, t in enumerate(vocabulary)}
    ids_docs = [[index[t] for t in r] for r in ranked]
    if target is None:
        chosen = sorted(int(i) for i in np.random.default_rng(seed).permutation(len(pool))[:transactions])
        method = "random-subset"
    else:
        chosen = select_documents_for_density(ids_docs, len(vocabulary), target, transactions,
                                              model.assignments, seed)
        method = "document-subset"
    chosen = sorted(chosen, key=lambda i: (sources.index(pool[i][0]), pool[i][1]))
    records = [ranked[i] for i in chosen]
    occurrences = sum(len(r) for r in records)
    distinct = len({t for r in records for t in r})
    reached = density_of(distinct, occurrences)
    if target is not None and abs(reached - target) > DENSITY_TOLERANCE + 1e-12:
        raise InputError(f"source {source!r} ({len(pool)} documents, part {part}): density {target} is out of reach "
                         f"by choosing {transactions} documents; the closest is {reached:.3f}")
    chosen_topics = [model.assignments[i] for i in chosen]
    metadata: dict[str, Any] = {
        "source": source,
        "source_description": "pooled offline sources: " + ", ".join(sources),
        "licence": "; ".join(i.licence for i in list_text_sources() if i.name in sources),
        "pipeline": "thesis",
        "parameters": {"density": target, "topics": n_topics, "transactions": transactions, "top_n": top_n,
                       "seed": seed, "part": part, "reference_share": share, "sources": sources,
                       "missing_sources": missing},
        "counts": {"pool_documents": len(pool), "records": len(records), "distinct_terms": distinct,
                   "term_occurrences": occurrences,
                   "avg_length": round(occurrences / len(records), 4) if records else 0.0,
                   "topics_spanned": len({t for t in chosen_topics if t >= 0}),
                   "pool_by_source": composition((pool[i][0] for i in range(len(pool))), sources)},
        "composition": composition((pool[i][0] for i in chosen), sources),
        "density": {"target": target, "reached": reached, "tolerance": DENSITY_TOLERANCE, "method": method},
        "topics": [dict(t, selected=True) for t in model.as_dicts()],
        "record_topics": chosen_topics,
        "seed": seed,
        "documents": [[pool[i][0], pool[i][1]] for i in chosen],
        "preprocessing": "AlShuhail2021 5.1.2: as the term-dropping pipeline; each transaction keeps its "
                         f"{top_n} best terms by TF-IDF over the pooled documents",
    }
    return TransactionDataset.from_records(records, name=f"text:{source}", metadata=metadata)
