"""Named offline text sources: real articles that ship with installed packages.

AlShuhail2021 (section 5.1.1) builds its transactions from EzineArticles, which is not available
offline; these sources give real text of the same kind (news, encyclopaedia, forum posts):

- ``lee``: the Lee background corpus of 300 Australian news articles (one a line, latin-1),
  shipped in gensim's test data as ``lee_background.cor``.
- ``wiki-sample``: the shortened English Wikipedia dump in gensim's test data (206 pages, of
  which 100 are redirects; the 106 articles are the documents). Wiki markup is removed with
  gensim's ``filter_wiki``.
- ``newsgroups-sample``: 200 posts of 20 Newsgroups (alt.atheism, sci.space) in gensim's test
  data (``mini_newsgroup``, a zlib-compressed Python 2 pickle of a scikit-learn Bunch). It is
  read with a restricted unpickler that only rebuilds dicts, lists and strings: every numpy
  array in it becomes an inert placeholder and any other class is refused. Header lines (also
  stray ones after the header block), quoted lines (``>``, ``|``, ``XY>``), attribution lines
  (``In article ...``, ``... writes:``) and signatures (after ``-- ``) are removed; the
  Subject is the title.
- ``reuters``: Reuters-21578 (ModApte split, Corn and Grain files, duplicates removed) from the
  ARFF files of Debian's ``weka`` package, when installed.

Each loader returns :class:`RawDocument` items (title and cleaned body) in the source's order;
documents whose body is empty are skipped.
"""

from __future__ import annotations

import bz2
import html
import importlib.util
import io
import pickle
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from corpora.common.errors import InputError

__all__ = [
    "RawDocument",
    "TextSourceInfo",
    "WEKA_EXAMPLES",
    "list_text_sources",
    "load_raw_documents",
    "parse_arff_strings",
    "source_names",
    "source_files",
]

#: Where Debian's ``weka`` package installs its example ARFF files.
WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")
_REUTERS_FILES = ("ReutersCorn-train.arff", "ReutersCorn-test.arff",
                  "ReutersGrain-train.arff", "ReutersGrain-test.arff")
_LEE_FILE = "lee_background.cor"
_WIKI_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
_NEWSGROUPS_FILE = "mini_newsgroup"


@dataclass(frozen=True)
class RawDocument:
    """One article of a source: its title (may be empty) and its body text."""

    title: str
    text: str


@dataclass(frozen=True)
class TextSourceInfo:
    """A named text source: its usable documents, licence, whether its files are present here."""

    name: str
    documents: int
    licence: str
    present: bool
    description: str


def _gensim_file(name: str) -> Path:
    """``gensim.test.utils.datapath(name)``, found without importing gensim (seconds of start-up)."""
    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("gensim is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "test" / "test_data" / name


# ---------------------------------------------------------------------------------------- lee
def _read_lee(path: Path) -> list[RawDocument]:
    text = path.read_bytes().decode("latin-1")
    return [RawDocument("", line.strip()) for line in text.splitlines() if line.strip()]


# --------------------------------------------------------------------------------------- wiki
def _read_wiki(path: Path) -> list[RawDocument]:
    from gensim.corpora.wikicorpus import extract_pages, filter_wiki

    docs: list[RawDocument] = []
    with bz2.open(path, "rb") as handle:
        for title, markup, _pageid in extract_pages(handle):
            if markup.lstrip().lower().startswith("#redirect"):
                continue
            body = filter_wiki(markup).replace("'''", "").replace("''", "")
            if body.strip():
                docs.append(RawDocument(title, body))
    return docs


# --------------------------------------------------------------------------------- newsgroups
class _Inert:
    """Stands in for every numpy object of the pickle: takes any arguments and state, keeps none."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __setstate__(self, state: object) -> None:
        pass


def _inert_reconstruct(*args: object) -> _Inert:
    return _Inert()


def _copyreg_reconstructor(cls: type, base: type, state: object) -> object:
    if cls is not dict or base not in (dict, object):
        raise pickle.UnpicklingError("unexpected object in newsgroup pickle")
    return dict(state) if isinstance(state, dict) else {}


class _SafeUnpickler(pickle.Unpickler):
    """Rebuilds only dicts (the sklearn Bunch becomes a dict), lists and strings."""

    _ALLOWED: dict[tuple[str, str], Callable[..., object] | type] = {
        ("copy_reg", "_reconstructor"): _copyreg_reconstructor,
        ("copyreg", "_reconstructor"): _copyreg_reconstructor,
        ("__builtin__", "dict"): dict,
        ("builtins", "dict"): dict,
        ("__builtin__", "object"): object,
        ("builtins", "object"): object,
        ("numpy.core.multiarray", "_reconstruct"): _inert_reconstruct,
        ("numpy._core.multiarray", "_reconstruct"): _inert_reconstruct,
        ("numpy", "ndarray"): _Inert,
        ("numpy", "dtype"): _Inert,
    }

    def find_class(self, module: str, name: str) -> object:
        if name == "Bunch" and module.startswith("sklearn."):
            return dict
        try:
            return self._ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a data pickle") from None


_NEWS_QUOTE = re.compile(r"^\s*(?:[>|:]|\w{1,4}>)")
_NEWS_HEADER = re.compile(
    r"^(?:To: )?(?:From|Path|Message-ID|Subject|Organization|Lines|Date|Newsgroups|To|Sender|References|"
    r"Reply-To|NNTP-Posting-Host|Distribution|Keywords|Summary|Expires|Followup-To|Article-I\.D\.|"
    r"In-Reply-To|Originator|X-[\w-]+):", re.IGNORECASE)
_NEWS_SIGNATURE = re.compile(r"\n-- ?\n.*", re.DOTALL)
_NEWS_ATTRIBUTION = re.compile(r"^\s*in article\b.*$|^.*\b(?:writes|wrote|said)\s*:\s*$", re.IGNORECASE)


def _clean_news_post(post: str) -> RawDocument:
    head, _sep, body = post.partition("\n\n")
    subject = ""
    for line in head.split("\n"):
        if line.lower().startswith("subject:"):
            subject = line.split(":", 1)[1].strip()
    body = _NEWS_SIGNATURE.sub("", body)
    lines = [ln for ln in body.split("\n")
             if not _NEWS_QUOTE.match(ln) and not _NEWS_ATTRIBUTION.match(ln) and not _NEWS_HEADER.match(ln)]
    return RawDocument(subject, "\n".join(lines))


# The workbench's only unpickling. The file is a package file, not a user's: gensim's own test data
# (``_gensim_file(_NEWSGROUPS_FILE)``, inside the installed wheel; no option names another path),
# and even so it goes through the restricted unpickler above, which builds nothing but containers.
def _read_newsgroups(path: Path) -> list[RawDocument]:
    try:
        raw = zlib.decompress(path.read_bytes())
        bunch = _SafeUnpickler(io.BytesIO(raw), encoding="latin-1").load()
    except (zlib.error, pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise InputError(f"{path}: not a readable newsgroup pickle ({exc})") from None
    posts = bunch.get("data") if isinstance(bunch, dict) else None
    if not isinstance(posts, list) or not all(isinstance(p, str) for p in posts):
        raise InputError(f"{path}: the pickle holds no list of posts under 'data'")
    docs = [_clean_news_post(p) for p in posts]
    return [d for d in docs if d.text.strip()]


# -------------------------------------------------------------------------------------- ARFF
def _split_arff_values(line: str, where: str) -> list[str | None]:
    """Split one dense ARFF data line into values (quotes removed, escapes resolved, ? = None)."""
    values: list[str | None] = []
    i, n = 0, len(line)
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "%": "%"}
    while i <= n:
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] in "'\"":
            quote = line[i]
            i += 1
            chars: list[str] = []
            while True:
                if i >= n:
                    raise InputError(f"{where}: unterminated quoted value")
                c = line[i]
                if c == "\\" and i + 1 < n:
                    chars.append(escapes.get(line[i + 1], line[i + 1]))
                    i += 2
                    continue
                if c == quote:
                    i += 1
                    break
                chars.append(c)
                i += 1
            values.append("".join(chars))
            while i < n and line[i] in " \t":
                i += 1
            if i < n and line[i] != ",":
                raise InputError(f"{where}: expected a comma after a quoted value")
        else:
            j = line.find(",", i)
            j = n if j < 0 else j
            token = line[i:j].strip()
            values.append(None if token == "?" else token)
            i = j
        i += 1
    return values


def parse_arff_strings(text: str, name: str = "<arff>") -> list[dict[str, str | None]]:
    """Read the instances of an ARFF file (dense format) as dicts: attribute name -> value.

    Only what the Reuters files need: ``@relation``, ``@attribute NAME TYPE`` (any type; values
    stay strings, ``?`` becomes None), ``@data`` and one instance a line with quoted values and
    backslash escapes; ``%`` starts a comment line. Sparse instances (``{...}``) are refused.
    """
    attributes: list[str] = []
    rows: list[dict[str, str | None]] = []
    in_data = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        where = f"{name} line {number}"
        if not in_data:
            keyword = stripped.split(None, 1)[0].lower()
            if keyword == "@attribute":
                match = re.match(r"@attribute\s+('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+\S",
                                 stripped, re.IGNORECASE)
                if not match:
                    raise InputError(f"{where}: malformed @attribute line")
                attributes.append(match.group(1).strip("'\""))
            elif keyword == "@data":
                if not attributes:
                    raise InputError(f"{where}: @data before any @attribute")
                in_data = True
            elif keyword != "@relation":
                raise InputError(f"{where}: unexpected header line {stripped[:40]!r}")
            continue
        if stripped.startswith("{"):
            raise InputError(f"{where}: sparse ARFF instances are not supported")
        values = _split_arff_values(stripped, where)
        if len(values) != len(attributes):
            raise InputError(f"{where}: {len(values)} values for {len(attributes)} attributes")
        rows.append(dict(zip(attributes, values, strict=True)))
    if not in_data:
        raise InputError(f"{name}: no @data section; not an ARFF file")
    return rows


_REUTERS_TRAILER = re.compile(r"\s*Reuter\s*$")
_LEADING_CAPS = re.compile(r"^\s*((?:[^\sa-z]+\s+)+)(?=[^\sa-z]*[a-z])")


def _clean_reuters(text: str) -> RawDocument:
    text = html.unescape(text)
    text = "".join(c if c >= " " or c in "\n\t" else " " for c in text)
    text = _REUTERS_TRAILER.sub("", text.rstrip())
    match = _LEADING_CAPS.match(text)
    title = match.group(1).strip() if match else ""
    return RawDocument(title, text[match.end():] if match else text)


def _read_reuters(directory: Path) -> list[RawDocument]:
    if not directory.is_dir() or not all((directory / f).is_file() for f in _REUTERS_FILES):
        raise InputError(f"source 'reuters' needs the Reuters ARFF files in {directory}: "
                         "install Debian package weka (apt-get install weka)")
    seen: set[str] = set()
    docs: list[RawDocument] = []
    for file in _REUTERS_FILES:
        path = directory / file
        rows = parse_arff_strings(path.read_text(encoding="utf-8", errors="replace"), str(path))
        for row in rows:
            text = row.get("Text")
            if text is None:
                raise InputError(f"{path}: no 'Text' attribute")
            if text in seen:
                continue
            seen.add(text)
            doc = _clean_reuters(text)
            if doc.text.strip():
                docs.append(doc)
    return docs


# ----------------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class _Source:
    documents: int
    licence: str
    description: str


_SOURCES: dict[str, _Source] = {
    "lee": _Source(300, "distributed in gensim's test data (gensim: LGPL-2.1); news text of Lee, "
                   "Pincombe and Welsh (2005), research use",
                   "Lee background corpus: 300 Australian news articles (gensim test data)"),
    "wiki-sample": _Source(106, "CC BY-SA 3.0 / GFDL (Wikipedia text), in gensim's test data",
                           "English Wikipedia sample: 206 pages, 106 articles without redirects "
                           "(gensim test data)"),
    "newsgroups-sample": _Source(200, "20 Newsgroups (Lang 1995), research use, in gensim's test data",
                                 "200 Usenet posts from alt.atheism and sci.space (gensim test data)"),
    "reuters": _Source(2151, "Reuters-21578 Distribution 1.0, research use (Debian weka: GPL-2+)",
                       "Reuters-21578 ModApte news stories from Debian package weka "
                       "(apt-get install weka)"),
}


def source_names() -> list[str]:
    """The names of the text sources, in listing order."""
    return list(_SOURCES)


def _source_present(name: str) -> bool:
    if name == "reuters":
        return all((WEKA_EXAMPLES / f).is_file() for f in _REUTERS_FILES)
    file = {"lee": _LEE_FILE, "wiki-sample": _WIKI_FILE, "newsgroups-sample": _NEWSGROUPS_FILE}[name]
    try:
        return _gensim_file(file).is_file()
    except ImportError:
        return False


def list_text_sources() -> list[TextSourceInfo]:
    """Every named text source with its number of usable documents, licence and presence."""
    return [TextSourceInfo(name, s.documents, s.licence, _source_present(name), s.description)
            for name, s in _SOURCES.items()]


def source_files(name: str) -> list[Path]:
    """The installed data files a source is read from (for cache stamps); absent files are listed too."""
    if name == "reuters":
        return [WEKA_EXAMPLES / f for f in _REUTERS_FILES]
    file = {"lee": _LEE_FILE, "wiki-sample": _WIKI_FILE, "newsgroups-sample": _NEWSGROUPS_FILE}[name]
    return [_gensim_file(file)]


def load_raw_documents(name: str, weka_dir: str | Path | None = None) -> list[RawDocument]:
    """The documents of source ``name`` with titles separated and source-specific noise removed.

    ``weka_dir`` overrides the folder of the Reuters ARFF files (default :data:`WEKA_EXAMPLES`).
    Raises InputError for an unknown name or a missing source.
    """
    if name not in _SOURCES:
        raise InputError(f"unknown text source {name!r}; choose one of {', '.join(_SOURCES)}")
    if name == "reuters":
        return _read_reuters(Path(weka_dir) if weka_dir is not None else WEKA_EXAMPLES)
    file = {"lee": _LEE_FILE, "wiki-sample": _WIKI_FILE, "newsgroups-sample": _NEWSGROUPS_FILE}[name]
    path = _gensim_file(file)
    if not path.is_file():
        raise InputError(f"source {name!r}: {path} is missing; reinstall gensim (pip install gensim)")
    reader = {"lee": _read_lee, "wiki-sample": _read_wiki, "newsgroups-sample": _read_newsgroups}[name]
    return reader(path)
