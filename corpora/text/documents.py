"""The documents of a text source: pre-processed and cached, split by seed into parts, ranked by TF-IDF.

:func:`load_preprocessed` pre-processes every document of a source once (:mod:`corpora.text.preprocess`)
and keeps the result in the process and on disk; :func:`split_parts` gives the seeded attacked and
reference parts (AlShuhail2021 chapter 4: the attacker counts co-occurrences in a corpus that does
not hold the attacked documents), :func:`reference_documents` the reference part itself, and
:func:`rank_by_tfidf` each document's terms best first.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

import corpora.text.preprocess as preprocess_mod
import corpora.text.sources as sources_mod
from corpora.common.cachefile import write_json_gz
from corpora.common.errors import InputError
from corpora.registry import default_cache_dir
from corpora.text.parameters import check_seed, check_share
from corpora.text.preprocess import preprocess_text
from corpora.text.sources import load_raw_documents, source_names

__all__ = ["code_stamp", "disk_cache", "load_preprocessed", "rank_by_tfidf", "reference_documents", "split_parts"]

_DISK_CACHE_MAX_CHARS = 1 << 28
"""Largest cached pre-processing result read back (characters); every shipped source takes a few MB."""


def disk_cache(name: str, stamp: Any, build: Any) -> Any:
    """``build()``'s JSON-able result, kept in ``<cache>/<name>.json.gz`` with ``stamp``; rebuilt when the
    stamp differs or the file is unreadable. Written to a temporary file and renamed."""
    path = default_cache_dir() / f"{name}.json.gz"
    stamp = json.loads(json.dumps(stamp))
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            text = handle.read(_DISK_CACHE_MAX_CHARS + 1)  # bounded: a damaged or planted file is rebuilt
        if len(text) <= _DISK_CACHE_MAX_CHARS:
            payload = json.loads(text)
            if isinstance(payload, dict) and payload.get("stamp") == stamp:
                return payload["value"]
    except (OSError, ValueError, EOFError, KeyError, RecursionError):
        pass
    value = build()
    try:
        write_json_gz(path, {"stamp": stamp, "value": value})
    except OSError:
        pass  # an unwritable cache only costs time
    return value


def code_stamp(*modules: Any) -> list[str]:
    """A short hash of each module's source file: a cached result is rebuilt when the code changes."""
    return [hashlib.sha256(Path(m.__file__).read_bytes()).hexdigest()[:16] for m in modules]


@functools.lru_cache(maxsize=8)
def load_preprocessed(source: str) -> tuple[tuple[str, ...], ...]:
    """Every document of ``source`` pre-processed: its terms in text order, repeats kept.

    Pure (depends only on the installed data files and the pre-processing code) and cached per
    source name, in the process and on disk (``<cache>/text-<source>.json.gz``, stamped with the
    data files' sizes and times and a hash of the reading and pre-processing code).
    """
    files = sources_mod.source_files(source) if source in source_names() else []
    if files and all(f.is_file() for f in files):
        stamp = [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files]
        stamp.append(code_stamp(preprocess_mod, sources_mod))
        docs = disk_cache(f"text-{source}", stamp, lambda: _preprocess_source(source))
        return tuple(tuple(d) for d in docs)
    return tuple(tuple(d) for d in _preprocess_source(source))


def _preprocess_source(source: str) -> list[list[str]]:
    raw = load_raw_documents(source)
    cache: dict[str, str] = {}
    return [preprocess_text(d.text, d.title, cache)
            for d in tqdm(raw, desc=f"preprocessing {source}", unit="doc", disable=not sys.stderr.isatty())]


def split_parts(documents: int, seed: int = 0, reference_share: float = 0.3) -> tuple[list[int], list[int]]:
    """Split document positions ``0..documents-1`` into (attacked, reference) parts by seed.

    A seeded permutation (numpy ``default_rng(seed)``) puts ``round(share * documents)``
    documents (at least one, and at most all but one) into the reference part; both parts are
    returned in source order and never share a document.
    """
    share = check_share(reference_share)
    seed = check_seed(seed)
    if documents < 2:
        raise InputError(f"a source needs at least 2 documents to split, it has {documents}")
    n_ref = min(max(round(share * documents), 1), documents - 1)
    order = np.random.default_rng(seed).permutation(documents)
    reference = sorted(int(i) for i in order[:n_ref])
    attacked = sorted(int(i) for i in order[n_ref:])
    return attacked, reference


def reference_documents(source: str, seed: int = 0, reference_share: float = 0.3) -> list[list[str]]:
    """The reference part of ``source``: pre-processed token lists (text order, repeats kept).

    For the attacker's NGD counts (AlShuhail2021 chapter 4 scores terms by co-occurrence in a
    corpus). With the same ``seed`` and ``reference_share`` these documents never overlap the
    documents of ``build_text_dataset(source, part="attacked")``.
    """
    docs = load_preprocessed(source)
    _attacked, reference = split_parts(len(docs), seed, reference_share)
    return [list(docs[i]) for i in reference]


def rank_by_tfidf(documents: Sequence[Sequence[str]]) -> tuple[list[list[str]], list[list[float]]]:
    """Each document's distinct terms ranked by TF-IDF (best first) and their scores.

    tf is the count of the term in the document; idf is scikit-learn's smoothed
    ``ln((1 + n) / (1 + df)) + 1`` over the given documents; ties keep first-occurrence order.
    """
    n = len(documents)
    counts = [Counter(d) for d in documents]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    idf = {t: math.log((1 + n) / (1 + f)) + 1.0 for t, f in df.items()}
    ranked: list[list[str]] = []
    scores: list[list[float]] = []
    for c in counts:  # Counter keeps first-occurrence order; sorted() is stable
        order = sorted(c.items(), key=lambda item: -item[1] * idf[item[0]])
        ranked.append([t for t, _ in order])
        scores.append([k * idf[t] for t, k in order])
    return ranked, scores
