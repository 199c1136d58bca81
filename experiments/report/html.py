"""The sweep's ``report.html``: ``report.md`` as one self-contained page, figures embedded, with a receipt.

:func:`write_report_html` turns the Markdown of ``report.md``
(:func:`experiments.report.plots.write_figures_and_report`) into HTML with :mod:`corpora.common.html`,
so both reports always hold the same text, tables and figures. Only the Markdown that report
writes is read: headings (``#``, ``##``), paragraphs, ``-`` lists, ``*note*`` lines, pipe tables
(``\\|`` inside a cell), inline ``code`` and ``**bold**``, and the figure lines
``![id](figures/ID.png) ([svg](figures/ID.svg))``. Each figure is embedded as a ``data:`` URI from
the files beside the report: the SVG (vector, sharp printed) unless it is more than twice the
PNG's size. The table of numbers behind a figure sits, collapsed, under it (printed open). The
page ends with a provenance receipt (:func:`corpora.common.receipt.make_receipt`): the SHA-256 of
the sweep file and of ``results.csv``, the command line that ran the sweep (``sys.orig_argv``),
the versions and the platform.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

from corpora.common import html as h
from corpora.common.files import write_text_atomic
from corpora.common.receipt import make_receipt

__all__ = ["markdown_to_html", "write_report_html"]

_FIGURE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<png>[^)\s]+\.png)\)(?: \(\[svg\]\((?P<svg>[^)\s]+\.svg)\)\))?$")
_INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")
_SPLIT = re.compile(r"(?<!\\)\|")


def _inline(text: str) -> h.Html:
    """Text with its inline code and bold as markup; everything else escaped."""
    parts: list[h.Html] = []
    last = 0
    for m in _INLINE.finditer(text):
        parts.append(h.escape(text[last:m.start()]))
        parts.append(h.tag("code", m.group(1)) if m.group(1) is not None else h.tag("strong", m.group(2)))
        last = m.end()
    parts.append(h.escape(text[last:]))
    return h.Html("".join(parts))


def _cells(line: str) -> list[h.Html]:
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [_inline(c.strip().replace("\\|", "|")) for c in _SPLIT.split(inner)]


def _figure(match: re.Match[str], directory: Path) -> h.Html:
    """The figure a Markdown image line names, embedded from its file (a line saying so when it is missing)."""
    png = directory / match.group("png")
    svg = directory / match.group("svg") if match.group("svg") else None
    alt = match.group("alt")
    if svg is not None and svg.is_file() and (not png.is_file() or svg.stat().st_size <= 2 * png.stat().st_size):
        return h.figure_from_bytes(svg.read_bytes(), "image/svg+xml", alt)
    if png.is_file():
        return h.figure_from_bytes(png.read_bytes(), "image/png", alt)
    return h.paragraph(f"(figure {alt}: {match.group('png')} is missing)", class_="muted")


def _table(lines: Sequence[str], after_figure: bool) -> h.Html:
    header = _cells(lines[0])
    rows = [_cells(line) for line in lines[2:]]
    table = h.table(header, rows)
    if after_figure:
        return h.details(f"The numbers behind the figure ({len(rows)} rows)", table)
    return table


def markdown_to_html(markdown: str, directory: Path) -> list[h.Html]:
    """The fragments of the report's Markdown (module docstring); figures read from ``directory``."""
    out: list[h.Html] = []
    lines = markdown.split("\n")
    i = 0
    last_figure = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_table(block, last_figure) if len(block) >= 2 else h.paragraph(_inline(block[0])))
            last_figure = False
            continue
        if line.startswith("- "):
            entries = []
            while i < len(lines) and lines[i].startswith("- "):
                entries.append(_inline(lines[i][2:]))
                i += 1
            out.append(h.items(entries))
            continue
        i += 1
        figure = _FIGURE.match(line.strip())
        if figure:
            out.append(_figure(figure, directory))
            last_figure = True
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 4)
            out.append(h.heading(level, _inline(line.lstrip("#").strip())))
            last_figure = False
        elif len(line) > 2 and line.startswith("*") and line.endswith("*") and not line.startswith("**"):
            out.append(h.paragraph(h.tag("em", _inline(line[1:-1])), class_="muted"))
        else:
            out.append(h.paragraph(_inline(line)))
    return out


def write_report_html(directory: Path, markdown: str, sweep_file: str | None,
                      argv: Sequence[str] | None = None) -> Path:
    """Write ``directory/report.html`` from the Markdown of ``report.md``; return its path.

    The receipt names the sweep file (when it is a file) and ``results.csv``; ``argv`` is the
    command line to record (default: ``sys.orig_argv``, the running process's own).
    """
    inputs = {"sweep file": sweep_file if sweep_file and Path(sweep_file).is_file() else None,
              "results table": directory / "results.csv" if (directory / "results.csv").is_file() else None}
    receipt = make_receipt(inputs, list(sys.orig_argv if argv is None else argv))
    body = markdown_to_html(markdown, directory)
    title = next((m.group(1) for m in re.finditer(r"^# (.+)$", markdown, re.M)), "Sweep report").replace("`", "")
    target = directory / "report.html"
    write_text_atomic(target, h.document(title, *body, *h.receipt_section(receipt.to_dict())))
    return target
