"""Hit counts for NGD from a web search API (AlShuhail2021 4.1.2 counts with Google).

:class:`WebCountBackend` asks a search API through ``requests``: the URL template, the JSON path of
the hit count, the environment variable holding the key, timeouts, retries, a rate limit and a
persistent SQLite cache are all configurable (:class:`WebConfig`), so no query is paid twice. The
key is never logged: every URL that reaches a log line or an error message has it replaced by
``***``. Log lines go to the NGD logger, ``attacks.semantic.ngd``.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from corpora.common.errors import InputError
from corpora.common.files import parse_json, read_text_bounded
from corpora.common.messages import show

__all__ = ["WebConfig", "WebCountBackend"]

log = logging.getLogger("attacks.semantic.ngd")
"""The NGD logger: one name for NGD and its backends (a user's logging configuration names it)."""

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
