"""A tiny builder of self-contained HTML: one file that shows the same offline, in any browser and printed.

Every function returns a :class:`Html` fragment (a ``str`` that is already markup); every plain
``str`` passed in is text and is escaped (:func:`escape`), so a term, a path or a detail taken from
the data can never become markup. :func:`document` wraps the fragments into a page with its CSS
embedded (a print style included: no backgrounds needed to read it, tables not split across rows,
collapsed sections printed open) and a Content-Security-Policy that allows nothing to be fetched
(``default-src 'none'; img-src data:; style-src 'unsafe-inline'``): no script, no external font,
image or stylesheet. Figures are ``data:`` URIs (:func:`figure`, from a matplotlib figure or from
the bytes of an SVG or PNG file), so the file stands alone.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["CSP", "CSS", "Html", "banner", "definition_list", "details", "document", "escape", "figure",
           "figure_from_bytes", "frame_table", "heading", "join", "items", "paragraph", "receipt_section", "table",
           "tag"]

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""Nothing may be fetched: images only from ``data:`` URIs, styles only from the page itself."""

CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 1.5rem auto;
       max-width: 72rem; padding: 0 1rem; color: #1a1a1a; line-height: 1.4; font-size: 15px; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; } h2 { font-size: 1.2rem; margin: 1.6rem 0 .5rem;
     border-bottom: 1px solid #ccc; } h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
.banner { border: 3px solid; border-radius: 6px; padding: .6rem 1rem; margin: .6rem 0 1rem; }
.banner .word { font-size: 1.6rem; font-weight: 700; letter-spacing: .05em; margin-right: .6rem; }
.banner.pass { border-color: #1b7f3b; background: #e8f5ec; }
.banner.fail { border-color: #b3261e; background: #fbeaea; }
.banner.info { border-color: #555; background: #f2f2f2; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { border: 1px solid #bbb; padding: .25rem .5rem; vertical-align: top; text-align: left; }
th { background: #f0f0f0; } .nowrap { white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.fail td { background: #fbeaea; } tr.fail td:first-child { font-weight: 700; }
.status { font-weight: 700; text-transform: uppercase; font-size: .85em; }
.muted { color: #555; font-size: .9em; } code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: .88em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: .4rem; border: 1px solid #ddd; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .85em; color: #444; }
details { margin: .4rem 0; } summary { cursor: pointer; font-weight: 600; }
dl { display: grid; grid-template-columns: max-content auto; gap: .15rem 1rem; } dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; color: #000; }
  .banner, tr.fail td, th { background: none !important; }
  .banner { border-width: 2pt; }
  h2 { break-after: avoid; } tr, figure, .banner { break-inside: avoid; }
  td { overflow-wrap: anywhere; }
  details::details-content { content-visibility: visible; display: block; }
  a { color: #000; text-decoration: none; }
}
"""
"""The page's style: readable on screen and printed (``@media print``), no colour carries meaning alone."""


class Html(str):
    """Markup that is already safe: passed through as is where a plain ``str`` would be escaped."""

    __slots__ = ()


def escape(value: Any) -> Html:
    """``value`` as text in HTML (``&``, ``<``, ``>``, both quotes escaped); an :class:`Html` is kept."""
    if isinstance(value, Html):
        return value
    return Html(html.escape("" if value is None else str(value), quote=True))



def join(parts: Iterable[Any], sep: str = "\n") -> Html:
    """The fragments ``parts`` one after the other (plain strings escaped)."""
    return Html(escape(sep).join(escape(p) for p in parts))


def _attrs(**attrs: Any) -> str:
    out = [f' {name.rstrip("_").replace("_", "-")}="{escape(value)}"' for name, value in attrs.items()
           if value is not None and value is not False]
    return "".join(out)


def tag(name: str, *children: Any, **attrs: Any) -> Html:
    """``<name attrs>children</name>`` (children escaped unless :class:`Html`)."""
    return Html(f"<{name}{_attrs(**attrs)}>" + "".join(escape(c) for c in children) + f"</{name}>")


def heading(level: int, content: Any, id_: str | None = None) -> Html:
    """A heading ``<h1>`` .. ``<h4>``."""
    if level not in (1, 2, 3, 4):
        raise ValueError(f"heading level {level}: 1 to 4")
    return tag(f"h{level}", content, id=id_)


def paragraph(*content: Any, class_: str | None = None) -> Html:
    return tag("p", *content, class_=class_)


def items(entries: Iterable[Any], ordered: bool = False) -> Html:
    """A list, one item per entry."""
    return tag("ol" if ordered else "ul", *(tag("li", e) for e in entries))


def banner(status: str, word: str, *content: Any) -> Html:
    """The verdict: ``word`` (PASS, FAIL) in large letters then ``content``; ``status`` (pass, fail, info) only
    picks the colour, so the verdict is read from the words, never from the colour alone."""
    kind = status if status in ("pass", "fail") else "info"
    return tag("div", tag("span", word, class_="word"), *content, class_=f"banner {kind}", role="status")


def _cell(value: Any) -> Html:
    if isinstance(value, Html):
        return tag("td", value)
    if isinstance(value, bool) or value is None:
        return tag("td", "" if value is None else str(value))
    if isinstance(value, int):
        return tag("td", f"{value:,}", class_="num")
    if isinstance(value, float):
        return tag("td", "" if math.isnan(value) else f"{value:.4g}", class_="num")
    return tag("td", value)


def table(header: Sequence[Any], rows: Iterable[Sequence[Any]], caption: Any = None,
          row_classes: Sequence[str | None] | None = None) -> Html:
    """A table: ``header`` then one row per entry of ``rows`` (numbers right-aligned, floats to 4 digits);
    ``row_classes`` marks rows (``fail``)."""
    body = []
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes is not None and i < len(row_classes) else None
        body.append(tag("tr", *(_cell(v) for v in row), class_=cls))
    parts = [tag("caption", caption)] if caption is not None else []
    parts.append(tag("thead", tag("tr", *(tag("th", h, scope="col") for h in header))))
    parts.append(tag("tbody", *body))
    return tag("table", *parts)


def frame_table(frame: Any, caption: Any = None, index: bool = False) -> Html:
    """:func:`table` of a pandas DataFrame (its index as the first column when ``index``)."""
    header = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    rows = []
    for key, row in zip(frame.index, frame.itertuples(index=False, name=None), strict=True):
        values = [v.item() if hasattr(v, "item") else v for v in row]
        rows.append(([key] if index else []) + values)
    return table(header, rows, caption)


def figure_from_bytes(data: bytes, mime: str, alt: str, caption: Any = None) -> Html:
    """A figure from the bytes of an image (``image/svg+xml`` or ``image/png``) as a ``data:`` URI.

    An SVG shown as an image cannot run a script or fetch anything (browsers load no external
    resource of an image), so even a file written elsewhere stays inert.
    """
    if mime not in ("image/svg+xml", "image/png"):
        raise ValueError(f"figure type {mime!r}: image/svg+xml or image/png")
    uri = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
    parts = [Html(f'<img src="{uri}"{_attrs(alt=alt)}>')]
    if caption is not None:
        parts.append(tag("figcaption", caption))
    return tag("figure", *parts)


def figure(fig: Any, alt: str, caption: Any = None, fmt: str = "svg", dpi: int = 110) -> Html:
    """A matplotlib figure as an embedded SVG (default) or PNG (the caller closes the figure)."""
    if fmt not in ("svg", "png"):
        raise ValueError(f"figure format {fmt!r}: svg or png")
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta, bbox_inches="tight", pad_inches=0.1)
    return figure_from_bytes(buf.getvalue(), "image/svg+xml" if fmt == "svg" else "image/png", alt, caption)


def details(summary: Any, *content: Any, open_: bool = False) -> Html:
    """A collapsible section (printed open)."""
    return tag("details", tag("summary", summary), *content, open=open_)


def definition_list(pairs: Iterable[tuple[Any, Any]]) -> Html:
    """``<dl>``: a term and its description per pair."""
    return tag("dl", *(Html(tag("dt", k) + tag("dd", v)) for k, v in pairs))


def receipt_section(receipt: Mapping[str, Any]) -> list[Html]:
    """A provenance receipt (:meth:`corpora.common.receipt.Receipt.to_dict`) as a section: the inputs with their
    sizes and SHA-256, the command, the time, platform and Python, any extra facts, the package versions."""
    out = [heading(2, "Provenance receipt", "receipt"),
           paragraph("Check a file with sha256sum: its digest must equal the one below.", class_="muted")]
    rows = [[f.get("role"), tag("code", f.get("path", "")), f.get("size"), tag("code", f.get("sha256", ""))]
            for f in receipt.get("inputs", [])]
    if rows:
        out.append(table(["input", "path", "bytes", "SHA-256"], rows))
    out += [paragraph("Command:"), tag("pre", receipt.get("command", ""))]
    facts = [("time (UTC)", receipt.get("time", "")), ("platform", receipt.get("platform", "")),
             ("python", receipt.get("python", ""))]
    facts += [(k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str))
              for k, v in (receipt.get("extra") or {}).items()]
    out.append(definition_list(facts))
    versions = receipt.get("versions") or {}
    if versions:
        out.append(details("Package versions", table(["package", "version"], list(versions.items()))))
    return out


def document(title: str, *body: Any, lang: str = "en") -> Html:
    """The whole page: doctype, charset, the no-fetch Content-Security-Policy, the CSS, then ``body``."""
    head = (f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{escape(CSP)}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{CSS}</style>")
    main = "\n".join(escape(b) for b in body)
    return Html(f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n{head}\n</head>\n<body>\n{main}\n'
                "</body>\n</html>\n")
