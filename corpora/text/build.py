"""Text sources to transaction datasets at a requested density (AlShuhail2021 section 5.1).

:func:`build_text_dataset` runs the thesis's construction on a named source:

1. pre-process every document (:mod:`corpora.text.preprocess`; cached per source name);
2. split the source by seed into a reference part (for the attacker's NGD counts, see
   :func:`reference_documents`) and an attacked part; ``part`` picks one of them or all;
3. optionally fit NMF topics on the part and keep the documents of the selected topics
   (:mod:`corpora.text.topics`);
4. make each document's transaction: its distinct terms ranked by TF-IDF within the selected
   documents, cut to the ``top_n`` best when given;
5. optionally reach the requested type-token density (section 5.1.1, equation 5.1: distinct
   terms / all term occurrences) within +-0.02 by the deterministic search below.

Density search (the thesis gives no procedure; this is ours). Let D0 be the density of step 4.
Two levers exist: transaction lengths and the set of documents.

- Target below D0: drop the terms held by the fewest documents, so the remaining terms are shared
  vocabulary. Terms are ordered by document frequency, then by their summed TF-IDF weight
  (least informative first), then alphabetically; dropping the first j terms gives density
  (V - j) / (T - sum of their frequencies), computed for every j at once, and the first j at or
  below the target (or the closer neighbour) is taken. Documents left without terms are dropped
  and counted. Method ``drop-rare-terms``.
- Target at or above D0: shorten transactions to their best TF-IDF terms; fewer occurrences of
  mostly distinctive terms raise the ratio. For m documents the lengths are set by one integer s
  (from m, one term per document, up to m times the longest transaction): document i keeps its
  ``s // m`` best terms, plus one more when i < ``s % m``. Bisection on s finds where the
  density crosses the target (each step of s changes it by about one over the number of
  occurrences) and the closer side is taken. Many documents sharing their best terms limit how
  high truncation alone can go (one term per document), and very short transactions carry few
  associations, so the documents are chosen too: the documents are put in a seeded order and
  prefixes of it are tried, all documents first, then 85 %, 85 % of that, ... down to one
  document; each prefix gets its own length search (or rare-term dropping if its density is
  already above the target). Among the results within 0.005 of the target the one keeping the
  most term occurrences wins, ties to more documents (if none is that close, the closest within
  the tolerance). Method ``tfidf-truncation`` when all documents stay,
  ``fewer-documents+<method>`` otherwise (``documents_kept`` in the metadata).
- A target that cannot be reached within the tolerance raises :class:`InputError` naming the
  reachable end (rare-term dropping has a lowest density: about one over the number of
  documents; high targets are reached with few documents).

Everything is deterministic for a seed; the metadata of the dataset records the source,
parameters, counts, the density reached and how, the topics and their top words, and the
source position of every record's document.
"""

from __future__ import annotations

import functools
import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.text.preprocess import preprocess_text
from corpora.text.sources import TextSourceInfo, list_text_sources, load_raw_documents, source_names
from corpora.text.topics import TopicModel, fit_topics, select_by_topics

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

#: The largest accepted difference between the requested and the reached density.
DENSITY_TOLERANCE = 0.02
#: When documents are chosen, results this close to the target are preferred to farther ones.
CLOSE = 0.005
PARTS = ("all", "attacked", "reference")
PIPELINES = ("term-dropping", "thesis")
"""``term-dropping``: one source, its documents' TF-IDF terms, the density reached mostly by dropping
rare terms or truncating (:func:`build_text_dataset`'s original builder); ``thesis``: AlShuhail2021
section 5.1.2 (:func:`build_thesis_dataset`)."""
POOL_SOURCES = ("lee", "wiki-sample", "newsgroups-sample", "reuters")
"""The offline text sources the thesis pipeline pools (for the ~1,000 EzineArticles of the thesis)."""
POOL_NAMES = ("pool", "thesis")
"""Source names that stand for every present source of :data:`POOL_SOURCES`."""


# ------------------------------------------------------------------------------ source loading
_DISK_CACHE_MAX_CHARS = 1 << 28
"""Largest cached pre-processing result read back (characters); every shipped source takes a few MB."""


def _disk_cache(name: str, stamp: Any, build: Any) -> Any:
    """``build()``'s JSON-able result, kept in ``<cache>/<name>.json.gz`` with ``stamp``; rebuilt when the
    stamp differs or the file is unreadable. Written to a temporary file and renamed."""
    import gzip
    import json

    from corpora.registry import default_cache_dir

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
        from corpora.common.cachefile import write_json_gz

        write_json_gz(path, {"stamp": stamp, "value": value})
    except OSError:
        pass  # an unwritable cache only costs time
    return value


def _code_stamp(*modules: Any) -> list[str]:
    import hashlib

    return [hashlib.sha256(Path(m.__file__).read_bytes()).hexdigest()[:16] for m in modules]


@functools.lru_cache(maxsize=8)
def load_preprocessed(source: str) -> tuple[tuple[str, ...], ...]:
    """Every document of ``source`` pre-processed: its terms in text order, repeats kept.

    Pure (depends only on the installed data files and the pre-processing code) and cached per
    source name, in the process and on disk (``<cache>/text-<source>.json.gz``, stamped with the
    data files' sizes and times and a hash of the reading and pre-processing code).
    """
    import corpora.text.preprocess as preprocess_mod
    import corpora.text.sources as sources_mod

    files = sources_mod.source_files(source) if source in source_names() else []
    if files and all(f.is_file() for f in files):
        stamp = [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files]
        stamp.append(_code_stamp(preprocess_mod, sources_mod))
        docs = _disk_cache(f"text-{source}", stamp, lambda: _preprocess_source(source))
        return tuple(tuple(d) for d in docs)
    return tuple(tuple(d) for d in _preprocess_source(source))


def _preprocess_source(source: str) -> list[list[str]]:
    raw = load_raw_documents(source)
    cache: dict[str, str] = {}
    return [preprocess_text(d.text, d.title, cache)
            for d in tqdm(raw, desc=f"preprocessing {source}", unit="doc", disable=not sys.stderr.isatty())]


def _check_share(reference_share: float) -> float:
    if isinstance(reference_share, bool) or not isinstance(reference_share, (int, float)) \
            or not 0.0 < float(reference_share) < 1.0:
        raise InputError(f"reference_share: expected a number between 0 and 1 (exclusive), got {reference_share!r}")
    return float(reference_share)


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed: expected a whole number >= 0, got {seed!r}")
    return int(seed)


def split_parts(documents: int, seed: int = 0, reference_share: float = 0.3) -> tuple[list[int], list[int]]:
    """Split document positions ``0..documents-1`` into (attacked, reference) parts by seed.

    A seeded permutation (numpy ``default_rng(seed)``) puts ``round(share * documents)``
    documents (at least one, and at most all but one) into the reference part; both parts are
    returned in source order and never share a document.
    """
    share = _check_share(reference_share)
    seed = _check_seed(seed)
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


# ------------------------------------------------------------------------------ TF-IDF ranking
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


# ------------------------------------------------------------------------------ density search
@dataclass(frozen=True)
class DensityChoice:
    """How a density was reached: the method, the result and the method's parameters.

    ``keep`` holds, per document, the number of its best terms kept (``tfidf-truncation`` or
    ``full``); ``dropped_terms`` the term ids removed everywhere (``drop-rare-terms``).
    """

    method: str
    target: float | None
    reached: float
    full_density: float
    keep: tuple[int, ...]
    dropped_terms: frozenset[int] = frozenset()
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "reached": self.reached, "tolerance": DENSITY_TOLERANCE,
                               "method": self.method, "full_density": self.full_density}
        out.update(self.details)
        return out


def _density(distinct: int, occurrences: int) -> float:
    return distinct / occurrences if occurrences else 0.0


def density_search(transactions: Sequence[Sequence[int]], weights: Sequence[Sequence[float]],
                   target: float | None, n_terms: int, label: str = "the documents",
                   seed: int | None = None) -> DensityChoice:
    """Choose transaction lengths or dropped terms so the density is within 0.02 of ``target``.

    ``transactions`` hold term ids (``0..n_terms-1``) ranked best first, ``weights`` their TF-IDF
    scores. The method is described in the module docstring; ``target=None`` keeps everything.
    With a ``seed``, a target at or above the full density is searched over seeded-order
    prefixes of the documents too (fewer documents, longer transactions); a document left out
    has ``keep`` 0. Without a seed all documents stay.
    """
    n = len(transactions)
    lengths = np.array([len(t) for t in transactions], dtype=np.int64)
    if n == 0 or lengths.min(initial=1) == 0:
        raise InputError(f"{label}: no document may be empty")
    terms = np.concatenate([np.asarray(t, dtype=np.int64) for t in transactions])
    doc = np.repeat(np.arange(n), lengths)
    rank = np.arange(len(terms)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    full = _density(int(np.count_nonzero(np.bincount(terms, minlength=n_terms))), len(terms))
    keep_all = tuple(int(x) for x in lengths)
    if target is None:
        return DensityChoice("full", None, full, full, keep_all)

    def caps_for(s: int) -> np.ndarray:
        caps = np.full(n, s // n, dtype=np.int64)
        caps[: s % n] += 1
        return np.minimum(caps, lengths)

    def density_at(s: int) -> float:
        mask = rank < caps_for(s)[doc]
        kept = terms[mask]
        return _density(int(np.count_nonzero(np.bincount(kept, minlength=n_terms))), len(kept))

    s_min, s_max = n, n * int(lengths.max())
    if target >= full:
        if seed is not None:
            return _best_document_prefix(transactions, weights, target, n_terms, label, seed, full)
        highest = density_at(s_min)
        if max(highest, full) < target - DENSITY_TOLERANCE:
            raise InputError(f"{label}: density {target} is out of reach; shortening transactions gets no "
                             f"higher than {max(highest, full):.3f}")
        lo, hi = s_min, s_max  # density_at(lo) >= target, density_at(hi) <= target: a crossing between
        if full >= target:  # the full transactions are exactly on target
            lo = hi
        elif highest < target:  # no crossing known: take the better end
            lo = hi = s_min if highest > full else s_max
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if density_at(mid) > target:
                lo = mid
            else:
                hi = mid
        best = min((lo, hi), key=lambda s: (abs(density_at(s) - target), -s))
        reached = density_at(best)
        caps = caps_for(best)
        details = {"cap": int(best // n), "documents_with_one_more": int(best % n),
                   "occurrences_kept": int(caps.sum()), "occurrences_full": int(lengths.sum())}
        choice = DensityChoice("tfidf-truncation", target, reached, full, tuple(int(c) for c in caps),
                               details=details)
    else:
        df = np.bincount(terms, minlength=n_terms)
        weight = np.bincount(terms, weights=np.concatenate([np.asarray(w, float) for w in weights]),
                             minlength=n_terms)
        present = np.flatnonzero(df)
        order = present[np.lexsort((present, weight[present], df[present]))]
        dropped_occ = np.concatenate(([0], np.cumsum(df[order])))[:-1]  # keep at least one term
        j = np.arange(len(order))
        dens = (len(order) - j) / (len(terms) - dropped_occ)
        below = np.flatnonzero(dens <= target)
        if below.size:
            first = int(below[0])
            candidates = [first - 1, first] if first > 0 else [first]
            best = min(candidates, key=lambda k: (abs(dens[k] - target), k))
        else:
            best = int(np.argmin(np.abs(dens - target)))
        reached = float(dens[best])
        if abs(reached - target) > DENSITY_TOLERANCE + 1e-12:
            raise InputError(f"{label}: density {target} is out of reach; dropping rare terms gets no lower "
                             f"than {float(dens.min()):.3f}")
        dropped = order[:best]
        dropped_mask = np.zeros(n_terms, dtype=bool)
        dropped_mask[dropped] = True
        remaining = np.bincount(doc[~dropped_mask[terms]], minlength=n)
        details = {"dropped_terms": int(best),
                   "max_dropped_document_frequency": int(df[dropped].max()) if best else 0,
                   "occurrences_kept": int(len(terms) - dropped_occ[best]),
                   "occurrences_full": int(len(terms)),
                   "emptied_documents": int(np.count_nonzero(remaining == 0))}
        choice = DensityChoice("drop-rare-terms", target, reached, full, keep_all,
                               frozenset(int(t) for t in dropped), details)
    if abs(choice.reached - target) > DENSITY_TOLERANCE + 1e-12:
        raise InputError(f"{label}: density {target} is out of reach; the closest is {choice.reached:.3f}")
    return choice


def _best_document_prefix(transactions: Sequence[Sequence[int]], weights: Sequence[Sequence[float]],
                          target: float, n_terms: int, label: str, seed: int, full: float) -> DensityChoice:
    """The length search on seeded-order prefixes of the documents; the best prefix wins.

    Prefix sizes n, 0.85 n, 0.85^2 n, ... 1 are tried. A result within :data:`CLOSE` of the
    target beats any farther one; among those, the most term occurrences win, then more
    documents; if none is that close, the closest wins. With all documents the method is the
    plain one, otherwise ``fewer-documents+<method>``.
    """
    n = len(transactions)
    order = np.random.default_rng(seed).permutation(n)
    sizes = sorted({max(1, round(n * 0.85 ** k)) for k in range(int(math.log(n) / -math.log(0.85)) + 2)},
                   reverse=True)
    best: tuple[tuple[bool, float, int], DensityChoice, list[int]] | None = None
    for m in sizes:
        chosen = list(range(n)) if m == n else sorted(int(i) for i in order[:m])
        try:
            inner = density_search([transactions[i] for i in chosen], [weights[i] for i in chosen], target,
                                   n_terms, label, seed=None)
        except InputError:
            continue
        gap = abs(inner.reached - target)
        close = gap <= CLOSE
        key = (close, float(inner.details["occurrences_kept"]) if close else -gap, m)
        if best is None or key > best[0]:
            best = (key, inner, chosen)
    if best is None:
        raise InputError(f"{label}: density {target} is out of reach, also with fewer documents")
    key, inner, chosen = best
    m = key[2]
    if m == n:
        return inner
    keep = [0] * n
    for pos, i in enumerate(chosen):
        keep[i] = inner.keep[pos]
    details = {"documents_kept": m, "documents_left_out": n - m, **inner.details}
    return DensityChoice(f"fewer-documents+{inner.method}", target, inner.reached, full, tuple(keep),
                         inner.dropped_terms, details)


# ------------------------------------------------------------------------------ building
def _check_density(density: float | None) -> float | None:
    if density is None:
        return None
    if isinstance(density, bool) or not isinstance(density, (int, float)) or not 0.0 < float(density) <= 1.0:
        raise InputError(f"density: expected a number in (0, 1], got {density!r}")
    return float(density)


def _check_top_n(top_n: int | None) -> int | None:
    if top_n is None:
        return None
    if isinstance(top_n, bool) or not isinstance(top_n, (int, np.integer)) or top_n < 1:
        raise InputError(f"top_n: expected a whole number >= 1, got {top_n!r}")
    return int(top_n)


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
    terms by TF-IDF. ``density``: reach this type-token density within 0.02 (module docstring);
    ``None`` keeps the transactions as they are.

    Records are in source order. ``metadata`` holds ``source``, ``parameters``, ``counts``,
    ``density`` (target, reached, method and its parameters), ``topics`` (id, top words,
    documents, selected), ``seed``, ``documents`` (the source position of each record's
    document) and ``preprocessing``. Raises InputError for every bad argument and for a
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
    if source not in source_names():
        raise InputError(f"unknown text source {source!r}; choose one of {', '.join(source_names())}")
    target = _check_density(density)
    top_n = _check_top_n(top_n)
    seed = _check_seed(seed)
    share = _check_share(reference_share)
    if part not in PARTS:
        raise InputError(f"part: expected one of {', '.join(PARTS)}, got {part!r}")
    if select_topics is not None and topics is None:
        raise InputError("select_topics needs topics (the number of NMF topics to fit)")
    if select_topics is not None:
        if isinstance(select_topics, (str, bytes)) or not all(
                isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in select_topics):
            raise InputError(f"select_topics: expected a list of topic ids (whole numbers), got {select_topics!r}")
        select_topics = sorted({int(t) for t in select_topics})

    docs = load_preprocessed(source)
    if part == "all":
        ids = [i for i in range(len(docs)) if docs[i]]
    else:
        attacked, reference = split_parts(len(docs), seed, share)
        ids = [i for i in (attacked if part == "attacked" else reference) if docs[i]]
    part_size = len(ids)

    topic_meta: list[dict[str, Any]] = []
    record_topics: list[int] | None = None
    if topics is not None:
        model = fit_topics([docs[i] for i in ids], topics, seed)
        chosen = select_topics
        positions = select_by_topics(model, chosen) if chosen is not None else list(range(len(ids)))
        topic_meta = [dict(t, selected=chosen is None or t["id"] in chosen) for t in model.as_dicts()]
        record_topics = [model.assignments[p] for p in positions]
        ids = [ids[p] for p in positions]
    if not ids:
        raise InputError(f"source {source!r}: no document is left after the part and topic selection")

    ranked, scores = rank_by_tfidf([docs[i] for i in ids])
    if top_n is not None:
        ranked = [r[:top_n] for r in ranked]
        scores = [s[:top_n] for s in scores]
    vocabulary = sorted({t for r in ranked for t in r})
    index = {t: k for k, t in enumerate(vocabulary)}
    transactions = [[index[t] for t in r] for r in ranked]
    label = f"source {source!r} ({len(ids)} documents, part {part})"
    choice = density_search(transactions, scores, target, len(vocabulary), label, seed=seed)

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

    occurrences = sum(len(r) for r in records)
    distinct = len({t for r in records for t in r})
    density_meta = choice.as_dict()
    density_meta["reached"] = _density(distinct, occurrences)
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
        "preprocessing": "AlShuhail2021 5.1.2: titles, reference sections, links removed; NLTK regexp tokens; "
                         "simplemma lemmas; stop words, numbers, punctuation, single characters, "
                         "duplicates removed; terms ranked by TF-IDF",
    }
    if record_topics is not None:
        metadata["record_topics"] = kept_topics
    return TransactionDataset.from_records(records, name=f"text:{source}", metadata=metadata)


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


def select_documents_for_density(
    docs: Sequence[Sequence[int]], n_terms: int, target: float, count: int, topics: Sequence[int], seed: int
) -> list[int]:
    """Choose ``count`` of the documents (term-id lists) so that their type-token density ends near
    ``target`` (AlShuhail2021 5.3.2: "subsets of documents have been selected ... with average density
    levels ranging from 0.2 to 0.7"; the thesis gives no procedure, this greedy one is ours).

    Start from a seeded random document; then add, one at a time, the document whose addition puts
    the density of the chosen set closest to the target (distinct terms / occurrences, computed for
    every candidate at once with one sparse product against the terms not seen yet). Candidates
    within 0.001 of the best are equal; among them the one whose NMF topic (``topics``) is used
    least so far wins, so the set spans as many topics as the density allows, then a seeded random
    order. Terms are never dropped: every chosen document keeps all its terms.
    """
    import scipy.sparse as sp

    n = len(docs)
    if count > n:
        raise InputError(f"{count} transactions requested but only {n} documents qualify")
    lengths = np.array([len(d) for d in docs], dtype=np.float64)
    indptr = np.concatenate([[0], np.cumsum([len(d) for d in docs])])
    indices = np.concatenate([np.asarray(d, dtype=np.int64) for d in docs]) if n else np.zeros(0, np.int64)
    X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(n, n_terms))
    rng = np.random.default_rng(seed)
    tiebreak = rng.random(n)
    topic = np.asarray(topics, dtype=np.int64)
    used_topic: Counter[int] = Counter()
    unseen = np.ones(n_terms)
    free = np.ones(n, dtype=bool)
    first = int(rng.integers(n))
    chosen = [first]
    free[first] = False
    unseen[np.asarray(docs[first], dtype=np.int64)] = 0.0
    distinct, occurrences = float(len(set(docs[first]))), float(lengths[first])
    used_topic[int(topic[first])] += 1
    for _step in range(count - 1):
        new = X @ unseen
        dens = (distinct + new) / (occurrences + lengths)
        gap = np.where(free, np.abs(dens - target), np.inf)
        best = gap.min()
        near = np.flatnonzero(gap <= best + 1e-3)
        use = np.array([used_topic[int(topic[i])] for i in near])
        near = near[use == use.min()]
        pick = int(near[np.argmin(tiebreak[near])])
        chosen.append(pick)
        free[pick] = False
        distinct += float(new[pick])
        occurrences += float(lengths[pick])
        unseen[np.asarray(docs[pick], dtype=np.int64)] = 0.0
        used_topic[int(topic[pick])] += 1
    return chosen


def _qualifying(sources: tuple[str, ...], top_n: int) -> list[tuple[str, int]]:
    min_terms = math.ceil(0.75 * top_n)
    return [(name, i) for name in sources for i, d in enumerate(load_preprocessed(name)) if len(set(d)) >= min_terms]


@functools.lru_cache(maxsize=4)
def _pool_topics(sources: tuple[str, ...], top_n: int,
                 topics: int) -> tuple[dict[tuple[str, int], int], tuple[tuple[str, ...], ...]]:
    """The NMF topic of every qualifying document of the pooled sources, all parts together, fitted
    once (``random_state=0``; kept on disk too): topics describe the corpus, not a seed's sample."""
    import corpora.text.topics as topics_mod

    def build() -> dict[str, Any]:
        pool = _qualifying(sources, top_n)
        texts = [load_preprocessed(name)[i] for name, i in pool]
        model = fit_topics(texts, min(topics, len(pool)), 0, solver="mu", tol=1e-3, max_iter=200)
        return {"assignments": list(model.assignments), "top_words": [list(w) for w in model.top_words]}

    pool = _qualifying(sources, top_n)
    stamp = [[n, len(load_preprocessed(n))] for n in sources] + [top_n, topics,
                                                                   _code_stamp(topics_mod)]
    key = "thesis-topics-" + "-".join(sources) + f"-{top_n}-{topics}"
    value = _disk_cache(key, stamp, build)
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

    The metadata say how many topics the chosen documents span and which sources were absent
    (``reuters`` needs Debian's ``weka``; the pool goes on without it).
    """
    sources, missing = _pool_sources(source)
    if not sources:
        raise InputError(f"none of the text sources {', '.join(missing)} is installed here")
    target = _check_density(density)
    seed = _check_seed(seed)
    share = _check_share(reference_share)
    top_n = _check_top_n(top_n) or 20
    if part not in PARTS:
        raise InputError(f"part: expected one of {', '.join(PARTS)}, got {part!r}")
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
    reached = _density(distinct, occurrences)
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
                   "per_source": {n: sum(1 for i in chosen if pool[i][0] == n) for n in sources}},
        "density": {"target": target, "reached": reached, "tolerance": DENSITY_TOLERANCE, "method": method},
        "topics": [dict(t, selected=True) for t in model.as_dicts()],
        "record_topics": chosen_topics,
        "seed": seed,
        "documents": [[pool[i][0], pool[i][1]] for i in chosen],
        "preprocessing": "AlShuhail2021 5.1.2: as the term-dropping pipeline; each transaction keeps its "
                         f"{top_n} best terms by TF-IDF over the pooled documents",
    }
    return TransactionDataset.from_records(records, name=f"text:{source}", metadata=metadata)


def write_text_dataset(ds: TransactionDataset, path: str | Path) -> Path:
    """Write ``ds`` as JSON lines to ``path`` and its metadata to ``<path>.meta.json``.

    Both files are written atomically; if the metadata cannot be written the data file is
    removed again. Returns the metadata path.
    """
    from corpora.common.files import write_json_atomic
    from corpora.io.formats import write_dataset

    path = Path(path)
    meta_path = path.with_name(path.name + ".meta.json")
    write_dataset(ds, path, "jsonl")
    try:
        write_json_atomic(meta_path, dict(ds.metadata), indent=2)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return meta_path
