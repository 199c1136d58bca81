"""The web NGD backend against a local HTTP server started by the test (127.0.0.1 only)."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from attacks.semantic.scorers import make_scorer
from attacks.semantic.web_counts import WebConfig, WebCountBackend
from corpora.common.errors import InputError

SECRET = "s3cr3t-KEY-value"


class _State:
    def __init__(self) -> None:
        self.requests: list[str] = []
        self.fail_first = 0
        self.slow_first = 0
        self.status_always: int | None = None
        self.lock = threading.Lock()


def _counts(query: str) -> int:
    terms = [t for t in query.replace('"', " ").split() if t]
    table = {"glaucoma": 6740, "cataract": 12000}
    if len(terms) == 1:
        return table.get(terms[0], 0)
    return 4129 if sorted(terms) == ["cataract", "glaucoma"] else 0


@pytest.fixture()
def server():
    state = _State()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep the test output quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            with state.lock:
                state.requests.append(self.path)
                n = len(state.requests)
            url = urllib.parse.urlparse(self.path)
            params = urllib.parse.parse_qs(url.query)
            if n <= state.slow_first:
                time.sleep(0.6)
            if state.status_always is not None:
                self.send_response(state.status_always)
                self.end_headers()
                return
            if n <= state.fail_first:
                self.send_response(503)
                self.end_headers()
                return
            if params.get("key", [""])[0] != SECRET and self.headers.get("X-Api-Key") != SECRET:
                self.send_response(403)
                self.end_headers()
                return
            body = json.dumps({"info": {"hits": [{"total": str(_counts(params["q"][0]))}]}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()


def _config(base: str, tmp_path, **kw) -> WebConfig:
    defaults = dict(
        url_template=base + "/search?q={query}&key={key}",
        json_path="info.hits.0.total",
        total=100_000,
        key_env="NGD_TEST_KEY",
        timeout=2.0,
        retries=2,
        backoff=0.01,
        min_interval=0.0,
        cache_path=str(tmp_path / "cache.sqlite"),
    )
    defaults.update(kw)
    return WebConfig(**defaults)


def test_counts_cache_and_key_never_logged(server, tmp_path, monkeypatch, caplog) -> None:
    base, state = server
    monkeypatch.setenv("NGD_TEST_KEY", SECRET)
    caplog.set_level(logging.DEBUG, logger="attacks.semantic.ngd")
    backend = WebCountBackend(_config(base, tmp_path))
    assert backend.counts(["glaucoma", "cataract"]).tolist() == [6740, 12000]
    assert backend.pair_counts(["glaucoma"], ["cataract"]).tolist() == [[4129]]
    assert backend.pair_counts(["cataract"], ["glaucoma"]).tolist() == [[4129]]  # same query, from the cache
    assert len(state.requests) == 3 and backend.cache_hits == 1
    backend.close()
    # a new backend over the same cache file pays nothing
    again = WebCountBackend(_config(base, tmp_path))
    scorer = make_scorer("ngd", reference=again)
    assert scorer.score("glaucoma", "cataract") > 0
    assert len(state.requests) == 3
    again.close()
    assert caplog.records, "the debug log shows the queries"
    assert all(SECRET not in r.getMessage() for r in caplog.records)
    assert all(SECRET not in line for line in (tmp_path / "cache.sqlite").read_bytes().decode("latin-1").splitlines())


def test_retries_then_success(server, tmp_path, monkeypatch, caplog) -> None:
    base, state = server
    monkeypatch.setenv("NGD_TEST_KEY", SECRET)
    state.fail_first = 2
    backend = WebCountBackend(_config(base, tmp_path, cache_path=None))
    assert backend.hit_count('"glaucoma"') == 6740
    assert backend.requests_sent == 3
    assert any("HTTP 503" in r.getMessage() for r in caplog.records)
    assert all(SECRET not in r.getMessage() for r in caplog.records)


def test_timeout_is_retried(server, tmp_path, monkeypatch) -> None:
    base, state = server
    monkeypatch.setenv("NGD_TEST_KEY", SECRET)
    state.slow_first = 1
    backend = WebCountBackend(_config(base, tmp_path, timeout=0.2, cache_path=None))
    assert backend.hit_count('"cataract"') == 12000
    assert backend.requests_sent == 2


def test_gives_up_without_leaking_the_key(server, tmp_path, monkeypatch) -> None:
    base, state = server
    monkeypatch.setenv("NGD_TEST_KEY", SECRET)
    state.status_always = 500
    backend = WebCountBackend(_config(base, tmp_path, retries=1, cache_path=None))
    with pytest.raises(InputError) as err:
        backend.hit_count('"glaucoma"')
    assert "giving up" in str(err.value) and SECRET not in str(err.value) and "***" in str(err.value)
    assert backend.requests_sent == 2
    state.status_always = 403  # a client error is not retried
    with pytest.raises(InputError, match="HTTP 403"):
        backend.hit_count('"cataract"')
    assert backend.requests_sent == 3


def test_key_in_header_and_rate_limit(server, tmp_path, monkeypatch) -> None:
    base, state = server
    monkeypatch.setenv("NGD_TEST_KEY", SECRET)
    cfg = _config(base, tmp_path, url_template=base + "/search?q={query}", key_header="X-Api-Key", min_interval=0.15)
    backend = WebCountBackend(cfg)
    started = time.monotonic()
    backend.counts(["glaucoma", "cataract", "nothing"])
    assert time.monotonic() - started >= 0.29  # three requests at least 0.15 s apart
    assert all(SECRET not in path for path in state.requests)
    backend.close()


def test_configuration_errors(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("NGD_TEST_KEY", raising=False)
    with pytest.raises(InputError, match="query"):
        WebCountBackend(WebConfig(url_template="http://127.0.0.1:9/x", json_path="a", total=10))
    backend = WebCountBackend(
        WebConfig(url_template="http://127.0.0.1:9/?q={query}&k={key}", json_path="a", total=10, key_env="NGD_TEST_KEY")
    )
    with pytest.raises(InputError, match="NGD_TEST_KEY"):
        backend.hit_count("x")
    with pytest.raises(InputError, match="unknown key"):
        WebConfig.from_json({"url_template": "u{query}", "json_path": "a", "total": 1, "password": "x"})
