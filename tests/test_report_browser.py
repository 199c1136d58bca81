"""The reports in a real browser: Debian's headless Chromium, network disabled (tests/browser.py).

Each test loads a report from a file, then checks what a reader sees (the rendered DOM: the verdict
in words, the tables), that no request left the page, and keeps a screenshot of the first screen
in the test's temporary folder. A control page that does fetch proves the check can fail.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import chromium_missing, load_page

from attacks import audit
from attacks.report_html import COUNT_CHECKS, render_audit_html
from corpora import load_dataset
from corpora.common.receipt import make_receipt

pytestmark = [pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing())),
              pytest.mark.subprocess]  # each test starts a browser

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


class _Cells(HTMLParser):
    """The tables of a DOM (caption, rows of cell texts) and every image source."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self.images: list[str] = []
        self._text: list[str] | None = None

    @property
    def rows(self) -> list[list[str]]:
        return [row for _, rows in self.tables for row in rows]

    def table(self, caption: str) -> list[list[str]]:
        """The rows (header first) of the table whose caption starts with ``caption``."""
        return next(rows for cap, rows in self.tables if cap and cap[0].startswith(caption))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(([], []))
        elif tag == "tr":
            self.tables[-1][1].append([])
        elif tag in ("td", "th", "caption"):
            self._text = []
        elif tag == "img":
            self.images.append(dict(attrs).get("src") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "caption") and self._text is not None:
            text = " ".join("".join(self._text).split())
            (self.tables[-1][0] if tag == "caption" else self.tables[-1][1][-1]).append(text)
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def _cells(dom: str) -> _Cells:
    parser = _Cells()
    parser.feed(dom)
    return parser


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.fixture(scope="module")
def audit_page(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("audit")
    release = EXAMPLES / "fig2b.json"
    report = audit(release, original=load_dataset(str(EXAMPLES / "fig2.jsonl")), semantic=False).to_dict()
    report["receipt"] = make_receipt({"release": release, "original": EXAMPLES / "fig2.jsonl"},
                                     ["python", "-m", "attacks", "audit", str(release)]).to_dict()
    page = folder / "report.html"
    page.write_text(render_audit_html(report), encoding="utf-8")
    return page, report


def test_audit_report_renders_offline_with_its_verdict_and_tables(audit_page):
    page, report = audit_page
    load = load_page(page, pdf=True)
    (page.parent / "first-screen.png").write_bytes(load.screenshot)
    assert load.requests == [] and load.refused == [], (load.requests, load.console)
    assert _png_size(load.screenshot) == (1280, 1000)
    assert load.pdf is not None and load.pdf.startswith(b"%PDF")
    word = "PASS" if report["passed"] else "FAIL"
    banner = re.search(r'<div class="banner (pass|fail)"[^>]*><span class="word">(\w+)</span>', load.dom)
    assert banner is not None and banner.group(2) == word
    cells = _cells(load.dom)
    header, *checks = cells.table("The checks")
    assert header[:2] == ["check", "result"] and header[2].startswith("value") and header[3] == "threshold"
    assert len(checks) == len(report["checks"])
    words = {"pass": "PASS", "fail": "FAIL", "skipped": "NOT CHECKED", "info": "INFO"}
    for row, check in zip(checks, report["checks"], strict=True):
        assert row[0].startswith(check["name"]) and row[1] == words[check["status"]]
        if check["value"] is not None and check["name"] not in COUNT_CHECKS:  # each risk, its interval, baselines
            interval = check.get("interval")
            assert row[2] == f"{check['value']:.2%}" + (f" [{interval[0]:.2%}, {interval[1]:.2%}]" if interval
                                                          else "")
            for baseline in check.get("baselines") or []:
                assert baseline["name"] in row[header.index("baselines [interval]")]
    assert any(rows[0][:2] == ["attacker", "knowledge"] and len(rows) == len(report["attackers"]) + 1
               for _, rows in cells.tables)
    for entry in report["receipt"]["inputs"]:
        assert [entry["role"], entry["path"], f"{entry['size']:,}", entry["sha256"]] in cells.rows


def test_a_page_that_fetches_is_caught(tmp_path):
    """The control: the same check fails on a page that asks the network for an image and a stylesheet."""
    page = tmp_path / "fetching.html"
    page.write_text('<!DOCTYPE html><html><head><title>t</title>'
                    '<link rel="stylesheet" href="https://fonts.example.invalid/a.css"></head>'
                    '<body><p>hello</p><img src="http://images.example.invalid/x.png"></body></html>',
                    encoding="utf-8")
    load = load_page(page)
    assert "https://fonts.example.invalid/a.css" in load.requests
    assert "http://images.example.invalid/x.png" in load.requests
    assert "<p>hello</p>" in load.dom


def test_a_blocked_fetch_is_caught_too(tmp_path, audit_page):
    """Under the report's own policy a fetch is refused before it leaves: it is still listed and logged."""
    html = audit_page[0].read_text(encoding="utf-8").replace("</body>", '<img src="https://x.example.invalid/t.png">'
                                                                        "</body>")
    page = tmp_path / "blocked.html"
    page.write_text(html, encoding="utf-8")
    load = load_page(page)
    assert load.requests == ["https://x.example.invalid/t.png"] and load.refused


def test_sweep_report_renders_offline(tmp_path):
    import yaml

    from experiments.sweep.runner import run_sweep
    from experiments.sweep.schema import load_sweep

    def task(config):
        return [{"metric": "pem", "value": 0.1 * config["k"] + 0.01 * config["seed"], "attack": "cover",
                 "method": "strong"}]

    sweep = tmp_path / "tiny.yaml"
    sweep.write_text(yaml.safe_dump({
        "name": "tiny", "datasets": ["toy-a"], "grid": {"k": [2, 3], "m": 2}, "metrics": ["pem"], "seeds": [0, 1],
        "attacks": {"cover": {"attackers": ["strong"]}},
        "plots": [{"id": "pem-k", "metric": "pem", "x": "k", "group_by": "method"}]}), encoding="utf-8")
    result = run_sweep(load_sweep(sweep), results_root=tmp_path / "results", task=task)
    load = load_page(result.directory / "report.html")
    (tmp_path / "sweep-first-screen.png").write_bytes(load.screenshot)
    assert load.requests == [] and load.refused == []
    cells = _cells(load.dom)
    assert len(cells.images) == 1 and cells.images[0].startswith("data:image/")
    numbers = [r for r in cells.rows if r and r[0] in ("2", "3") and len(r) == 6]
    assert len(numbers) == 2 and all(r[1] == "strong" for r in numbers)
    assert str(sweep) in load.dom  # the receipt names the sweep file
