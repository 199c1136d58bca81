"""The reference corpora NGD counts in, and how a ``reference`` argument resolves to a count backend.

AlShuhail2021 (4.1.2) counts NGD with Google. Offline the attacker counts in a reference corpus:
by default the paragraphs of the Wikipedia sample that ships with gensim's test data
(:func:`default_reference_documents`, about 5,000 passages, not one of the attacked texts unless
the user attacks that very sample); a file; the reference part of a text source; or the pooled
corpus of all offline sources in the thesis's public or a private threat setting
(:func:`pooled_reference_documents`). :func:`resolve_reference` turns any of these (or a
:class:`attacks.semantic.web_counts.WebConfig`) into a :class:`attacks.semantic.ngd.CountBackend`.
"""

from __future__ import annotations

import bz2
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from attacks.semantic.ngd import CountBackend, LocalCountBackend, tokenize
from attacks.semantic.web_counts import WebConfig, WebCountBackend
from attacks.semantic.wordnet import wordnet_documents
from corpora.common.errors import InputError
from corpora.common.files import read_bounded

__all__ = [
    "DEFAULT_REFERENCE",
    "NGD_SETTINGS",
    "POOL_SOURCES",
    "ReferenceInfo",
    "default_reference_documents",
    "pooled_reference_documents",
    "resolve_reference",
    "setting_reference",
]

DEFAULT_REFERENCE = "gensim-wiki"
"""Name of the default reference corpus: paragraphs of gensim's shipped Wikipedia sample."""

NGD_SETTINGS = ("public", "private")
"""The two threat settings of the NGD attacker (see :func:`pooled_reference_documents`)."""
POOL_SOURCES = ("lee", "wiki-sample", "newsgroups-sample", "reuters")
"""The offline text sources pooled into a reference corpus (and into the thesis pipeline's data)."""
# --------------------------------------------------------------------------------------------
# Reference corpora
# --------------------------------------------------------------------------------------------


_WIKI_SAMPLE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
"""gensim's shipped Wikipedia sample (206 pages), in its test data."""


def _wiki_sample_path() -> str:
    """The sample's path inside the installed gensim, found without importing gensim (a second of imports)."""
    import importlib.util

    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("NGD: the default reference corpus is gensim's Wikipedia sample; install gensim")
    return os.path.join(list(spec.submodule_search_locations)[0], "test", "test_data", _WIKI_SAMPLE)


def _wiki_passages(path: str, min_tokens: int) -> list[list[str]]:
    from gensim.corpora.wikicorpus import extract_pages, filter_wiki

    passages: list[list[str]] = []
    with bz2.open(path) as handle:
        for _title, text, _pid in extract_pages(handle):
            for para in re.split(r"\n\s*\n", filter_wiki(text)):
                toks = tokenize(para)
                if len(toks) >= min_tokens:
                    passages.append(toks)
    return passages


@lru_cache(maxsize=2)
def _gensim_wiki_passages(min_tokens: int = 20) -> tuple[tuple[str, ...], ...]:
    """The sample's paragraphs of at least ``min_tokens`` tokens, kept per process and on disk
    (``<cache>/gensim-wiki-passages.json.gz``, :func:`corpora.text.documents.disk_cache`: stamped with the
    sample's size and this code, so a new gensim or tokenizer rebuilds it). Stripping the wiki markup takes
    about 2.5 s; reading the cached passages back a fraction of that."""
    import attacks.semantic.ngd as ngd_module
    from corpora.text.documents import code_stamp, disk_cache

    path = _wiki_sample_path()
    stamp = [os.path.getsize(path), min_tokens, *code_stamp(ngd_module, sys.modules[__name__])]
    passages = disk_cache("gensim-wiki-passages", stamp, lambda: _wiki_passages(path, min_tokens))
    return tuple(tuple(p) for p in passages)


def default_reference_documents() -> list[tuple[str, ...]]:
    """The default NGD reference corpus: paragraphs (>= 20 tokens) of gensim's Wikipedia sample.

    gensim ships ``enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2`` (206
    pages) in its test data; split into paragraphs it gives about 5,000 passages, a small stand-in
    for the web pages the thesis counted with Google. Built once (about 2.5 s of wiki markup stripping),
    then read from the cache folder (0.2 s).
    """
    return list(_gensim_wiki_passages())


@dataclass(frozen=True)
class ReferenceInfo:
    """What a pooled reference corpus holds: the setting, the parts used and the sources absent here."""

    setting: str
    attacked_sources: tuple[str, ...]
    documents: int
    parts: tuple[str, ...]
    missing: tuple[str, ...]


_POOL_CACHE: dict[tuple[str, tuple[str, ...], int, float], tuple[list[list[str]], ReferenceInfo]] = {}


def _wordnet_documents() -> list[list[str]]:
    key = ("wordnet-glosses", (), 0, 0.0)
    if key not in _POOL_CACHE:
        docs = wordnet_documents()
        _POOL_CACHE[key] = (docs, ReferenceInfo("", (), len(docs), (), () if docs else ("wordnet",)))
    return _POOL_CACHE[key][0]


def pooled_reference_documents(
    setting: str, attacked_sources: Sequence[str], seed: int = 0, reference_share: float = 0.3
) -> tuple[list[list[str]], ReferenceInfo]:
    """A large offline reference corpus for NGD counts, in one of two threat settings.

    AlShuhail2021 (4.1.2) counts NGD with Google, whose index holds the EzineArticles the attacked
    transactions were made from: the attacker's corpus contains the published documents. Offline
    both settings pool every present text source of :data:`POOL_SOURCES` and one short document
    per WordNet synset (its lemma names, gloss and examples; about 117,000 documents; absent when
    WordNet is not installed), all lemmatised like the attacked terms:

    * ``"public"`` (the thesis's setting: the documents were published and indexed): every
      document of every source, the attacked ones included;
    * ``"private"`` (data that were never public): for the ``attacked_sources`` only their
      reference part of the seeded split (:func:`corpora.text.build.split_parts` with ``seed`` and
      ``reference_share``, disjoint from their attacked part), every document of the other
      sources. No attacked document is in it.

    Sources that are not installed (``reuters`` needs Debian's ``weka``) are left out and named in
    ``ReferenceInfo.missing``. Cached per process.
    """
    if setting not in NGD_SETTINGS:
        raise InputError(f"NGD setting must be one of {', '.join(NGD_SETTINGS)}, got {setting!r}")
    attacked = tuple(sorted(dict.fromkeys(attacked_sources)))
    from corpora.text import build as textbuild  # on first use: the text pipeline is slow to import
    from corpora.text import sources as textsources

    for name in attacked:
        if name not in textsources.source_names():
            raise InputError(f"NGD reference: unknown text source {name!r}; choose from "
                             f"{', '.join(textsources.source_names())}")
    if setting == "public":  # every document of every source: the split does not matter
        attacked, seed, reference_share = (), 0, 0.3
    key = (setting, attacked, int(seed), float(reference_share))
    if key in _POOL_CACHE:
        return _POOL_CACHE[key]
    present = {i.name: i.present for i in textsources.list_text_sources()}
    docs: list[list[str]] = []
    parts: list[str] = []
    missing: list[str] = []
    for name in POOL_SOURCES:
        if not present.get(name):
            missing.append(name)
            continue
        if setting == "private" and name in attacked:
            part = textbuild.reference_documents(name, seed=seed, reference_share=reference_share)
            parts.append(f"{name} (reference part, {len(part)} documents)")
        else:
            part = [list(d) for d in textbuild.load_preprocessed(name)]
            parts.append(f"{name} (all {len(part)} documents)")
        docs += [d for d in part if d]
    glosses = _wordnet_documents()
    if glosses:
        parts.append(f"WordNet glosses ({len(glosses)} synsets)")
        docs += glosses
    else:
        missing.append("wordnet")
    info = ReferenceInfo(setting, attacked, len(docs), tuple(parts), tuple(missing))
    _POOL_CACHE[key] = (docs, info)
    return docs, info


def setting_reference(spec: str) -> tuple[str, tuple[str, ...]] | None:
    """Parse ``"public:SOURCE[,SOURCE...]"`` / ``"private:..."`` (``pool``/``thesis`` = :data:`POOL_SOURCES`);
    ``None`` for any other string."""
    setting, sep, rest = spec.partition(":")
    if not sep or setting not in NGD_SETTINGS:
        return None
    names = tuple(n.strip() for n in rest.split(",") if n.strip())
    if not names:
        raise InputError(f"NGD reference {spec!r}: name the attacked text source(s) after '{setting}:'")
    out: list[str] = []
    for n in names:
        out += list(POOL_SOURCES) if n in ("thesis", "pool") else [n]
    return setting, tuple(out)


def _read_reference_file(path: str) -> list[list[str]]:
    """One document per line (a ``.jsonl`` file: one JSON list of tokens or one string per line)."""
    from corpora.io.formats import MAX_LINE_BYTES  # on first use: the formats module is slow to import

    docs: list[list[str]] = []
    with open(path, "rb") as handle:  # a binary file (a NUL byte) is refused, not read as mojibake
        data = read_bounded(handle, path, max_line=MAX_LINE_BYTES)
    control = re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", data)
    if control is not None:
        line = data.count(b"\n", 0, control.start()) + 1
        raise InputError(f"{path}:{line}: a control character; the reference corpus must be text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not valid UTF-8 text; the reference corpus must be text") from None
    del data
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if path.endswith(".jsonl"):
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {lineno}: not valid JSON ({exc.msg})") from None
            except (RecursionError, ValueError):
                raise InputError(f"{path}: line {lineno}: not valid JSON (nested too deeply or a number "
                                 "too long)") from None
            if isinstance(item, str):
                docs.append(tokenize(item))
            elif isinstance(item, list) and all(isinstance(t, str) for t in item):
                docs.append([t.lower() for t in item])
            else:
                raise InputError(f"{path}: line {lineno}: expected a string or a list of strings")
        else:
            docs.append(tokenize(line))
    if not docs:
        raise InputError(f"{path}: the reference corpus is empty")
    return docs


def resolve_reference(reference: Any = None, seed: int = 0) -> CountBackend:
    """Turn the ``reference`` argument of the NGD scorer into a count backend.

    * ``None`` or ``"gensim-wiki"``: :func:`default_reference_documents`;
    * a :class:`CountBackend` (local or web): used as is; a :class:`WebConfig`: a web backend;
    * a list of token lists: a local backend over them;
    * a string naming an existing file: one document per line (plain text is tokenized; ``.jsonl``
      holds a JSON string or token list per line);
    * ``"public:SOURCES"`` / ``"private:SOURCES"`` (comma-separated source names, ``thesis`` for
      all of :data:`POOL_SOURCES`): the pooled corpus of :func:`pooled_reference_documents` in that
      threat setting;
    * any other string: a text source of the project's text corpora, resolved with
      ``corpora.text.api.reference_documents(name, seed)`` (the reference part, disjoint from the
      attacked part of the same source).
    """
    if reference is None or reference == DEFAULT_REFERENCE:
        return LocalCountBackend(default_reference_documents(), name=DEFAULT_REFERENCE)
    if isinstance(reference, WebConfig):
        return WebCountBackend(reference)
    if isinstance(reference, (LocalCountBackend, WebCountBackend)) or (
        not isinstance(reference, (str, list, tuple)) and isinstance(reference, CountBackend)
    ):
        return reference
    if isinstance(reference, str):
        parsed = setting_reference(reference) if not os.path.isfile(reference) else None
        if parsed is not None:
            docs, info = pooled_reference_documents(parsed[0], parsed[1], seed=seed)
            backend = LocalCountBackend(docs, name=reference)
            backend.info = info  # type: ignore[attr-defined]
            return backend
        if os.path.isfile(reference):
            return LocalCountBackend(_read_reference_file(reference), name=reference)
        try:
            from corpora.text import api as text_corpora
        except ImportError:
            text_corpora = None
        if text_corpora is None or not hasattr(text_corpora, "reference_documents"):
            raise InputError(
                f"NGD reference {reference!r}: not a file, and the text corpora (corpora.text.api) are not available"
            )
        docs = text_corpora.reference_documents(reference, seed=seed)
        return LocalCountBackend(docs, name=reference)
    if isinstance(reference, (list, tuple)):
        docs = list(reference)
        if docs and all(isinstance(d, str) for d in docs):
            raise InputError("NGD reference: give documents as token lists, not as plain strings")
        return LocalCountBackend(docs, name="reference")
    raise InputError(f"NGD reference: unsupported type {type(reference).__name__}")
