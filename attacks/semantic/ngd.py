"""Normalized Google Distance (NGD) and the count backends behind it.

AlShuhail2021 section 4.1.2, equation 4.1 (after Cilibrasi and Vitanyi)::

    NGD(x, y) = (max(log f(x), log f(y)) - log f(x, y)) / (log N - min(log f(x), log f(y)))

with f(x) the number of documents holding x, f(x, y) the number holding both and N the number of
documents searched. The thesis asks Google for the counts; this module gets them from a
*backend*:

* :class:`LocalCountBackend`: document frequencies and co-occurrences from a reference corpus held
  as a ``scipy.sparse`` document-term matrix (one column per token; pair counts are one sparse
  matrix product). The default corpus is :func:`default_reference_documents`: the paragraphs of
  the Wikipedia sample that ships with gensim's test data (about 5,000 passages), which is not one
  of the attacked texts unless the user attacks that very sample.
* :class:`WebCountBackend`: a web search API through ``requests``; the URL template, the JSON path
  of the hit count, the environment variable holding the key, timeouts, retries, a rate limit and
  a persistent SQLite cache are all configurable, so no query is paid twice. The key is never
  logged: every URL that reaches a log line or an error message has it replaced by ``***``.

Matching rule for terms (both backends see the same rule through :func:`term_words`): terms and
corpus tokens are compared in lower case; a multi-word term ("double vision", "audi_a4") is found
in a document when the document holds the whole term as one token or else holds every one of its
words (a bag-of-words approximation of a phrase query).
"""

from __future__ import annotations

import bz2
import dataclasses
import json
import logging
import math
import os
import re
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from corpora.common.errors import InputError
from corpora.common.files import parse_json, read_text_bounded
from corpora.common.messages import show

__all__ = [
    "CountBackend",
    "LocalCountBackend",
    "WebCountBackend",
    "WebConfig",
    "ngd",
    "ngd_relatedness",
    "term_words",
    "tokenize",
    "default_reference_documents",
    "resolve_reference",
    "DEFAULT_REFERENCE",
    "NGD_SETTINGS",
    "POOL_SOURCES",
    "ReferenceInfo",
    "pooled_reference_documents",
    "setting_reference",
]

log = logging.getLogger(__name__)

DEFAULT_REFERENCE = "gensim-wiki"
"""Name of the default reference corpus: paragraphs of gensim's shipped Wikipedia sample."""

NGD_SETTINGS = ("public", "private")
"""The two threat settings of the NGD attacker (see :func:`pooled_reference_documents`)."""
POOL_SOURCES = ("lee", "wiki-sample", "newsgroups-sample", "reuters")
"""The offline text sources pooled into a reference corpus (and into the thesis pipeline's data)."""

_TOKEN = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_WORD_SPLIT = re.compile(r"[\s_\-]+")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens of a text (letters and digits; an apostrophe suffix is kept)."""
    return _TOKEN.findall(text.lower())


def term_words(term: str) -> tuple[str, ...]:
    """The lower-case words of a (possibly multi-word) term: split on spaces, '_' and '-'."""
    return tuple(w for w in _WORD_SPLIT.split(term.lower().strip()) if w)


# --------------------------------------------------------------------------------------------
# The formula
# --------------------------------------------------------------------------------------------


def ngd(fx: Any, fy: Any, fxy: Any, n: float) -> np.ndarray:
    """Equation 4.1, vectorized (NumPy broadcasting over the count arrays).

    Returns ``nan`` where f(x) or f(y) is 0 (the distance is undefined: a term the corpus never
    saw), ``inf`` where both terms occur but never together, 0 where the denominator vanishes
    because both terms occur in every document. Negative values (possible only with inconsistent
    web counts, f(x, y) > min(f(x), f(y))) are clipped to 0.
    """
    fx = np.asarray(fx, dtype=float)
    fy = np.asarray(fy, dtype=float)
    fxy = np.asarray(fxy, dtype=float)
    if n <= 0:
        raise InputError(f"NGD: the number of documents N must be positive, got {n}")
    with np.errstate(divide="ignore", invalid="ignore"):
        lx, ly, lxy = np.log(fx), np.log(fy), np.log(fxy)
        num = np.maximum(lx, ly) - lxy
        den = math.log(n) - np.minimum(lx, ly)
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    out = np.where(fxy <= 0, np.inf, np.maximum(out, 0.0))
    out = np.where((fx <= 0) | (fy <= 0), np.nan, out)
    return out


def ngd_relatedness(distance: Any, transform: str = "exp", ngd_max: float = 1.0) -> np.ndarray:
    """Turn NGD into a relatedness score in [0, 1] (1 = always together, 0 = never together).

    ``transform="exp"`` (default): ``exp(-NGD)``, strictly decreasing, never clips.
    ``transform="linear"``: the thesis's NGD' = 1 - NGD / max(NGD) (section 4.1.4) with the
    maximum fixed to ``ngd_max`` instead of the batch maximum, so a pair's score does not depend on
    which other pairs are scored with it; distances above ``ngd_max`` score 0.
    ``nan`` (unknown term) stays ``nan``.
    """
    d = np.asarray(distance, dtype=float)
    if transform == "exp":
        with np.errstate(over="ignore"):
            return np.exp(-d)
    if transform == "linear":
        if ngd_max <= 0:
            raise InputError(f"NGD: ngd_max must be positive, got {ngd_max}")
        return np.clip(1.0 - d / ngd_max, 0.0, 1.0)
    raise InputError(f"NGD: unknown transform {transform!r}; choose exp or linear")


# --------------------------------------------------------------------------------------------
# Backends
# --------------------------------------------------------------------------------------------


@runtime_checkable
class CountBackend(Protocol):
    """Where the NGD counts come from."""

    @property
    def total(self) -> float:
        """N, the number of documents searched."""
        ...

    def counts(self, terms: Sequence[str]) -> np.ndarray:
        """f(x) for each term (float array)."""
        ...

    def pair_counts(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """f(x, y) for every pair, shape (len(terms_a), len(terms_b))."""
        ...


class LocalCountBackend:
    """Document and co-occurrence counts from a local reference corpus.

    ``documents`` are token lists (order and repeats do not matter). Internally a boolean CSC
    matrix (documents x tokens); a term's document set is its token's column, or the AND of its
    words' columns for a multi-word term (see the module docstring). Term columns are cached.
    """

    def __init__(self, documents: Iterable[Sequence[str]], name: str = "reference") -> None:
        index: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        n_docs = 0
        for d, doc in enumerate(documents):
            n_docs = d + 1
            seen = {t.lower() for t in doc if t}
            for tok in seen:
                j = index.setdefault(tok, len(index))
                rows.append(d)
                cols.append(j)
        if n_docs == 0:
            raise InputError(f"NGD reference corpus {name!r} has no documents")
        data = np.ones(len(rows), dtype=np.float32)
        self._matrix = sp.csc_matrix((data, (rows, cols)), shape=(n_docs, max(len(index), 1)))
        self._index = index
        self._n = n_docs
        self.name = name
        self._cache: dict[str, sp.csc_matrix] = {}

    @property
    def total(self) -> float:
        return float(self._n)

    @property
    def n_tokens(self) -> int:
        return len(self._index)

    def _column(self, term: str) -> sp.csc_matrix:
        col = self._cache.get(term)
        if col is not None:
            return col
        key = term.lower().strip()
        if key in self._index:
            col = self._matrix[:, self._index[key]]
        else:
            words = term_words(term)
            if len(words) == 1 and words[0] in self._index:
                col = self._matrix[:, self._index[words[0]]]
            elif len(words) > 1 and all(w in self._index for w in words):
                col = self._matrix[:, self._index[words[0]]]
                for w in words[1:]:
                    col = col.multiply(self._matrix[:, self._index[w]])
                col = sp.csc_matrix(col)
            else:
                col = sp.csc_matrix((self._n, 1), dtype=np.float32)
        self._cache[term] = col
        return col

    def _block(self, terms: Sequence[str]) -> sp.csc_matrix:
        if not terms:
            return sp.csc_matrix((self._n, 0), dtype=np.float32)
        return sp.hstack([self._column(t) for t in terms], format="csc")

    def counts(self, terms: Sequence[str]) -> np.ndarray:
        return np.array([self._column(t).nnz for t in terms], dtype=float)

    def pair_counts(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        a, b = self._block(terms_a), self._block(terms_b)
        return np.asarray((a.T @ b).toarray(), dtype=float)


_CONFIG_BYTES = 64 << 10


@dataclass
class WebConfig:
    """How to ask a web search API for hit counts.

    ``url_template`` holds ``{query}`` (URL-encoded by us) and optionally ``{key}``; ``json_path``
    is a dotted path to the hit count in the JSON answer (list indices allowed, e.g.
    ``"searchInformation.totalResults"`` or ``"data.0.count"``); ``key_env`` names the environment
    variable with the API key (read at request time, never logged); ``key_header`` sends the key in
    that HTTP header instead of the URL; ``total`` is N, the size of the searched index;
    ``pair_query`` builds the query for f(x, y) from ``{a}`` and ``{b}``; ``single_query`` the one
    for f(x). Requests time out after ``timeout`` seconds, are retried ``retries`` times on network
    errors, HTTP 429 and 5xx with exponential back-off from ``backoff`` seconds, and are spaced at
    least ``min_interval`` seconds apart. ``cache_path`` is the SQLite cache file (``None``: no
    persistent cache, only an in-memory one).
    """

    url_template: str
    json_path: str
    total: float
    key_env: str | None = None
    key_header: str | None = None
    single_query: str = '"{a}"'
    pair_query: str = '"{a}" "{b}"'
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 0.5
    min_interval: float = 1.0
    cache_path: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, source: str = "web NGD config") -> None:
        """InputError (one line) for a value of the wrong type or a template naming an unknown field.

        Checked when the config is built, so a mistake costs no request and ends in no traceback:
        ``url_template`` may name only ``{query}`` (required) and ``{key}``, ``single_query`` only
        ``{a}``, ``pair_query`` ``{a}`` and ``{b}``; ``total`` is a positive number.
        """
        for name in ("url_template", "json_path", "single_query", "pair_query"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise InputError(f"{source}: {name} must be a non-empty string, got {_short(getattr(self, name))}")
        for name in ("key_env", "key_header", "cache_path"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise InputError(f"{source}: {name} must be a non-empty string or null, got {_short(value)}")
        _template_fields(source, "url_template", self.url_template, required={"query"}, allowed={"query", "key"})
        _template_fields(source, "single_query", self.single_query, required={"a"}, allowed={"a"})
        _template_fields(source, "pair_query", self.pair_query, required={"a", "b"}, allowed={"a", "b"})
        _positive_number(source, "total", self.total, strict=True)
        _positive_number(source, "timeout", self.timeout, strict=True)
        _positive_number(source, "backoff", self.backoff)
        _positive_number(source, "min_interval", self.min_interval)
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or not 0 <= self.retries <= 100:
            raise InputError(f"{source}: retries must be an integer from 0 to 100, got {_short(self.retries)}")
        if not isinstance(self.extra_headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.extra_headers.items()
        ):
            raise InputError(f"{source}: extra_headers must map header names to strings")
        if "{key}" in self.url_template and not self.key_env:
            raise InputError(f"{source}: url_template uses {{key}} but no key_env is set")

    @classmethod
    def from_file(cls, path: str) -> WebConfig:
        """Read a config from a JSON file (at most 64 KiB of UTF-8; InputError in one line otherwise)."""
        text = read_text_bounded(path, _CONFIG_BYTES)
        return cls.from_json(parse_json(text, path), source=path)

    @classmethod
    def from_json(cls, obj: Any, source: str = "web NGD config") -> WebConfig:
        """Build a config from a JSON object (the keys are the field names)."""
        if not isinstance(obj, dict):
            raise InputError(f"{source}: expected a JSON object")
        allowed = set(cls.__dataclass_fields__)
        unknown = sorted(set(obj) - allowed)
        if unknown:
            raise InputError(f"{source}: unknown key(s) {_short(', '.join(unknown))}")
        for req in ("url_template", "json_path", "total"):
            if req not in obj:
                raise InputError(f"{source}: missing key {req!r}")
        # built without __init__ so that the one validation names the file, not "web NGD config"
        config = cls.__new__(cls)
        for spec in dataclasses.fields(cls):
            if spec.name in obj:
                value = obj[spec.name]
            elif spec.default_factory is not dataclasses.MISSING:
                value = spec.default_factory()
            else:
                value = spec.default
            setattr(config, spec.name, value)
        config.validate(source)
        return config


def _short(value: Any) -> str:
    return show(value, limit=60)


def _template_fields(source: str, name: str, template: str, required: set[str], allowed: set[str]) -> None:
    import string

    try:
        parsed = [(f, spec, conv) for _lit, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:  # an unmatched brace
        raise InputError(f"{source}: {name} is not a valid template ({exc})") from None
    if any(spec or conv for _f, spec, conv in parsed):  # {query:>99999999} would pad without bound
        raise InputError(f"{source}: {name}: write fields plainly, without a format or conversion (e.g. {{query}})")
    fields = {f for f, _spec, _conv in parsed}
    unknown = sorted(fields - allowed)
    if unknown:
        raise InputError(f"{source}: {name} names the unknown field {{{_short(unknown[0])[1:-1]}}}; "
                         f"allowed: {', '.join('{' + f + '}' for f in sorted(allowed))}")
    missing = sorted(required - fields)
    if missing:
        raise InputError(f"{source}: {name} must contain {{{missing[0]}}}")


def _positive_number(source: str, name: str, value: Any, strict: bool = False) -> None:
    ok = not isinstance(value, bool) and isinstance(value, int | float)
    if ok:
        try:
            ok = math.isfinite(float(value)) and (value > 0 if strict else value >= 0)
        except OverflowError:
            ok = False
    if not ok:
        what = "a positive number" if strict else "a number >= 0"
        raise InputError(f"{source}: {name} must be {what}, got {_short(value)}")


class WebCountBackend:
    """Hit counts from a web search API, with a persistent cache (see :class:`WebConfig`)."""

    def __init__(self, config: WebConfig, session: Any = None) -> None:
        import requests

        config.validate("web NGD")
        self.config = config
        self._session = session or requests.Session()
        self._requests = requests
        self._memory: dict[str, float] = {}
        self._lock = threading.Lock()
        self._last_request = -math.inf
        self.requests_sent = 0
        self.cache_hits = 0
        self._db: sqlite3.Connection | None = None
        if config.cache_path:
            try:
                self._db = sqlite3.connect(config.cache_path, check_same_thread=False)
                self._db.execute("CREATE TABLE IF NOT EXISTS hits (query TEXT PRIMARY KEY, count REAL NOT NULL)")
                self._db.commit()
            except sqlite3.Error as exc:
                where = _short(config.cache_path)
                raise InputError(f"web NGD: cache {where}: not a usable SQLite file ({exc})") from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    @property
    def total(self) -> float:
        return float(self.config.total)

    # -- cache -------------------------------------------------------------------------------
    def _cached(self, query: str) -> float | None:
        if query in self._memory:
            return self._memory[query]
        if self._db is not None:
            row = self._db.execute("SELECT count FROM hits WHERE query = ?", (query,)).fetchone()
            if row is not None:
                self._memory[query] = float(row[0])
                return float(row[0])
        return None

    def _store(self, query: str, count: float) -> None:
        self._memory[query] = count
        if self._db is not None:
            self._db.execute("INSERT OR REPLACE INTO hits (query, count) VALUES (?, ?)", (query, count))
            self._db.commit()

    # -- requests ----------------------------------------------------------------------------
    def _key(self) -> str:
        name = self.config.key_env
        if not name:
            return ""
        value = os.environ.get(name)
        if not value:
            raise InputError(f"web NGD: environment variable {name} (the API key) is not set")
        return value

    def _redact(self, text: str, key: str) -> str:
        return text.replace(key, "***") if key else text

    def _answer(self, value: Any) -> str:
        """A server's answer as an error line may show it: the key removed (as sent, quoted or not),
        control characters replaced, at most a short prefix."""
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        key = os.environ.get(self.config.key_env, "") if self.config.key_env else ""
        return show(text, limit=60, secrets=(key, urllib.parse.quote(key, safe="")) if key else ())

    def _extract(self, payload: Any, query: str) -> float:
        node = payload
        for part in self.config.json_path.split("."):
            if isinstance(node, list) and part.lstrip("-").isdigit():
                idx = int(part)
                node = node[idx] if -len(node) <= idx < len(node) else None
            elif isinstance(node, dict):
                node = node.get(part)
            else:
                node = None
            if node is None:
                raise InputError(f"web NGD: JSON path {_short(self.config.json_path)} not found in the answer to "
                                 f"{_short(query)} (answer begins {self._answer(payload)})")
        try:
            value = float(node)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"web NGD: hit count at {_short(self.config.json_path)} is not a number: "
                             f"{self._answer(node)}") from None
        if value < 0 or not math.isfinite(value):
            raise InputError(f"web NGD: negative or invalid hit count {self._answer(node)} for {_short(query)}")
        return value

    def _wait_rate_limit(self) -> None:
        gap = time.monotonic() - self._last_request
        if gap < self.config.min_interval:
            time.sleep(self.config.min_interval - gap)
        self._last_request = time.monotonic()

    def hit_count(self, query: str) -> float:
        """The hit count of one query: from the cache, else from the API (then cached)."""
        with self._lock:
            cached = self._cached(query)
            if cached is not None:
                self.cache_hits += 1
                return cached
            key = self._key()
            url = self.config.url_template.format(
                query=urllib.parse.quote(query, safe=""), key=urllib.parse.quote(key, safe="")
            )
            shown = self._redact(url, urllib.parse.quote(key, safe="")) if key else url
            headers = dict(self.config.extra_headers)
            if self.config.key_header and key:
                headers[self.config.key_header] = key
            attempts = self.config.retries + 1
            last_error = ""
            for attempt in range(attempts):
                self._wait_rate_limit()
                self.requests_sent += 1
                try:
                    resp = self._session.get(url, headers=headers, timeout=self.config.timeout)
                except self._requests.RequestException as exc:
                    last_error = exc.__class__.__name__
                    log.warning("web NGD: %s for %s (attempt %d/%d)", last_error, shown, attempt + 1, attempts)
                else:
                    status = resp.status_code
                    if status == 200:
                        try:
                            payload = resp.json()
                        except ValueError:
                            raise InputError(f"web NGD: the answer to {shown} is not JSON") from None
                        value = self._extract(payload, query)
                        self._store(query, value)
                        log.debug("web NGD: %s -> %s", shown, value)
                        return value
                    last_error = f"HTTP {status}"
                    if status != 429 and status < 500:
                        raise InputError(f"web NGD: {last_error} for {shown}")
                    log.warning("web NGD: %s for %s (attempt %d/%d)", last_error, shown, attempt + 1, attempts)
                if attempt + 1 < attempts:
                    time.sleep(self.config.backoff * (2**attempt))
            raise InputError(f"web NGD: giving up on {shown} after {attempts} attempts ({last_error})")

    def counts(self, terms: Sequence[str]) -> np.ndarray:
        return np.array([self.hit_count(self.config.single_query.format(a=t)) for t in terms], dtype=float)

    def pair_counts(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(terms_a), len(terms_b)), dtype=float)
        for i, a in enumerate(terms_a):
            for j, b in enumerate(terms_b):
                x, y = sorted((a, b))
                out[i, j] = self.hit_count(self.config.pair_query.format(a=x, b=y))
        return out


# --------------------------------------------------------------------------------------------
# Reference corpora
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _gensim_wiki_passages(min_tokens: int = 20) -> tuple[tuple[str, ...], ...]:
    from gensim.corpora.wikicorpus import extract_pages, filter_wiki
    from gensim.test.utils import datapath

    path = datapath("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
    passages: list[tuple[str, ...]] = []
    with bz2.open(path) as handle:
        for _title, text, _pid in extract_pages(handle):
            for para in re.split(r"\n\s*\n", filter_wiki(text)):
                toks = tokenize(para)
                if len(toks) >= min_tokens:
                    passages.append(tuple(toks))
    return tuple(passages)


def default_reference_documents() -> list[tuple[str, ...]]:
    """The default NGD reference corpus: paragraphs (>= 20 tokens) of gensim's Wikipedia sample.

    gensim ships ``enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2`` (206
    pages) in its test data; split into paragraphs it gives about 5,000 passages, a small stand-in
    for the web pages the thesis counted with Google. Loaded once per process (about 3 s).
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
    from attacks.semantic.wordnet import wordnet_documents

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
    from corpora.text import build as textbuild
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
    import re

    from corpora.common.files import read_bounded
    from corpora.io.formats import MAX_LINE_BYTES

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
