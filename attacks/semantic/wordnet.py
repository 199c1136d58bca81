"""WordNet 3.0 from Debian's ``wordnet-base`` through NLTK's reader, offline.

NLTK's ``WordNetCorpusReader`` reads the WordNet database files but wants them in one folder
together with a ``lexnames`` file that Debian does not ship, and NLTK's downloader needs the
network. :func:`wordnet_reader` therefore copies the database files of ``/usr/share/wordnet`` once
into ``<cache>/nltk_data/corpora/wordnet/`` (``<cache>`` = :func:`corpora.registry.default_cache_dir`,
``$DISASSOC_CACHE`` or ``~/.cache/disassociation-workbench``), writes the 45-line ``lexnames``
file there (the lexicographer file names are a fixed part of WordNet 3.0, listed in WordNet's
``lexnames(5)`` manual page and below) and opens the reader on that folder: nothing is
downloaded. The copy is written to a temporary folder and renamed, so a half-made copy is never
used. NLTK opens corpora only below a folder of its data path, so ``<cache>/nltk_data`` is
appended to ``nltk.data.path`` (once; nothing else is changed). NLTK would map the synsets to
WordNet 3.0 through ``index.sense`` (another Debian package); the data are 3.0 already, so the
reader skips that mapping. :func:`wordnet_available` says whether the Debian files are there,
:func:`load_wordnet` keeps one reader per process.

:class:`WordNetScorer` is the taxonomy relatedness over that reader (the ``wordnet`` scorer and
half of the default ``hybrid`` one of :mod:`attacks.semantic.scorers`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from attacks.semantic.ngd import term_words
from attacks.semantic.scoring import BaseScorer
from corpora.common.errors import InputError

__all__ = ["WORDNET_DIR", "LEXNAMES", "wordnet_available", "wordnet_reader", "wordnet_documents", "load_wordnet",
           "WordNetScorer"]

WORDNET_DIR = Path("/usr/share/wordnet")
_FILES = ("data.noun", "data.verb", "data.adj", "data.adv", "index.noun", "index.verb", "index.adj",
          "index.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc", "index.sense")
_OPTIONAL = ("index.sense",)

#: The lexicographer files of WordNet 3.0 in file-number order (lexnames(5)).
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
    "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
    "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
    "verb.weather", "adj.ppl",
)
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def wordnet_available(wordnet_dir: str | os.PathLike[str] = WORDNET_DIR) -> bool:
    """True when the WordNet database files NLTK needs are in ``wordnet_dir``."""
    base = Path(wordnet_dir)
    return all((base / f).is_file() for f in _FILES if f not in _OPTIONAL)


def _prepared_copy(wordnet_dir: Path, cache_dir: Path) -> Path:
    """The folder NLTK reads (made once): the database files and a ``lexnames`` file."""
    target = cache_dir / "nltk_data" / "corpora" / "wordnet"
    if (target / "lexnames").is_file() and all((target / f).is_file() for f in _FILES if f not in _OPTIONAL):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))
    try:
        for name in _FILES:
            if (wordnet_dir / name).is_file():
                shutil.copyfile(wordnet_dir / name, tmp / name)  # NLTK refuses symlinked files
        lines = [f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}" for i, name in enumerate(LEXNAMES)]
        (tmp / "lexnames").write_text("\n".join(lines) + "\n", encoding="ascii")
        try:
            tmp.rename(target)
        except OSError:  # another process made it meanwhile
            if not (target / "lexnames").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


_READ_IN_ORDER = frozenset({*(f"index.{pos}" for pos in ("noun", "verb", "adj", "adv")),
                            *(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")), "lexnames"})
"""The WordNet files NLTK's reader reads from start to end when it is built."""


def wordnet_reader(wordnet_dir: str | os.PathLike[str] = WORDNET_DIR,
                   cache_dir: str | os.PathLike[str] | None = None) -> Any:
    """NLTK's WordNet reader over Debian's WordNet 3.0 files (InputError when they are absent)."""
    base = Path(wordnet_dir)
    if not wordnet_available(base):
        raise InputError(f"WordNet: the database files are not in {base}; install Debian's wordnet-base "
                         "(bash scripts/install-system-data.sh)")
    if cache_dir is None:
        from corpora.registry import default_cache_dir

        cache_dir = default_cache_dir()
    root = _prepared_copy(base, Path(cache_dir))
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    data_root = str(root.parent.parent)
    if data_root not in nltk.data.path:  # NLTK reads corpora only below a folder of its data path
        nltk.data.path.append(data_root)

    class _Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            # The data are WordNet 3.0 itself: no mapping to 3.0 is needed (NLTK would build one
            # from index.sense, which Debian ships in another package, wordnet-sense-index).
            return None

        def open(self, file: str) -> Any:
            # The index and exception files are read once, line by line, while the reader is built: a plain
            # file does that in a fraction of the time NLTK's seekable stream takes (5 s for the 180,000 index
            # lines). The data files, read by offset later, keep NLTK's stream.
            if file in _READ_IN_ORDER:
                return open(root / file, encoding="utf-8", newline="")  # noqa: SIM115 - NLTK closes it
            return super().open(file)

    return _Reader(str(root), None)


def _parse_data_line(line: str) -> str:
    """The words of one synset line of a WordNet data file: lemma names, then gloss and examples."""
    head, _bar, gloss = line.partition(" | ")
    fields = head.split()
    count = int(fields[3], 16)  # the word count is hexadecimal
    words = [fields[4 + 2 * i].replace("_", " ") for i in range(count)]
    words = [w.split("(")[0] for w in words]  # adjective markers such as "(a)"
    return " ".join(words) + ". " + gloss.replace('"', " ")


def wordnet_documents(wordnet_dir: str | os.PathLike[str] = WORDNET_DIR,
                      cache_dir: str | os.PathLike[str] | None = None) -> list[list[str]]:
    """One token list per synset: its lemma names and the words of its gloss and examples.

    A large offline background corpus for NGD counts (117,659 short documents; every WordNet word
    is in at least one), lemmatised like the attacked texts' terms
    (:func:`corpora.text.preprocess.preprocess_text`). The data files are read directly (NLTK's
    synset objects would take 16 s); the result is kept in ``<cache>/wordnet-documents-v1.json.gz``
    with the data files' sizes, and rebuilt when they change. ``[]`` when WordNet is absent.
    """
    import gzip
    import json

    base = Path(wordnet_dir)
    if not wordnet_available(base):
        return []
    if cache_dir is None:
        from corpora.registry import default_cache_dir

        cache_dir = default_cache_dir()
    files = [base / f"data.{pos}" for pos in ("noun", "verb", "adj", "adv")]
    stamp = [f.stat().st_size for f in files]
    cached = Path(cache_dir) / "wordnet-documents-v1.json.gz"
    if cached.is_file():
        try:
            with gzip.open(cached, "rt", encoding="utf-8") as handle:
                payload = json.load(handle)
            if payload.get("stamp") == stamp and isinstance(payload.get("documents"), list):
                return payload["documents"]
        except (OSError, ValueError, EOFError, RecursionError, AttributeError):
            pass  # rebuilt below (a damaged or planted cache file)
    from corpora.text.preprocess import preprocess_text

    cache: dict[str, str] = {}
    docs: list[list[str]] = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("  "):  # the licence header
                    continue
                tokens = preprocess_text(_parse_data_line(line), "", cache)
                if tokens:
                    docs.append(tokens)
    from corpora.common.cachefile import write_json_gz

    write_json_gz(cached, {"stamp": stamp, "documents": docs})
    return docs


class WordNetScorer(BaseScorer):
    """Taxonomy similarity over WordNet 3.0 in the style of Wu and Palmer, vectorized.

    A term's synsets are those of its noun and verb senses (the term as is, in lower case, with its
    words joined by ``_``; WordNet's own morphology finds the base form). For every hypernym
    ancestor ``a`` of any of them (instance hypernyms included) the term keeps ``d(a)``, the fewest
    hypernym steps from one of its synsets to ``a``. Two terms score

        max over common ancestors a of  2 D(a) / (d1(a) + d2(a) + 2 D(a))

    with ``D(a)`` one plus the ancestor's greatest depth below its root; identical synsets score 1.
    The maximum over ancestors with per-term smallest distances equals the maximum over all
    synset pairs, since the fraction falls as either distance grows. Terms known to WordNet whose
    senses share no ancestor (verbs of different hierarchies, a noun and a verb) score 0; a term
    with no noun or verb sense (adjectives, adverbs, names WordNet lacks) is unknown.

    ``score_matrix`` is computed ancestor by ancestor: each common ancestor updates the block of
    the term pairs that share it (one NumPy maximum per ancestor), so no pair is looked at in
    Python.
    """

    name = "wordnet"

    def __init__(self, reader: Any, unknown: str = "skip") -> None:
        super().__init__(unknown)
        self.reader = reader
        self._anc: dict[str, dict[int, int] | None] = {}
        self._depth: dict[int, int] = {}
        self._ids: dict[Any, int] = {}

    def _ancestors(self, term: str) -> dict[int, int] | None:
        if term in self._anc:
            return self._anc[term]
        words = term_words(term)
        synsets: list[Any] = []
        for key in dict.fromkeys([term, term.lower(), "_".join(words)]):
            if not key:
                continue
            for pos in ("n", "v"):
                synsets += self.reader.synsets(key, pos=pos)
            if synsets:
                break
        if not synsets:
            self._anc[term] = None
            return None
        dist: dict[int, int] = {}
        frontier = list(dict.fromkeys(synsets))
        step = 0
        seen: set[Any] = set()
        while frontier:
            nxt: list[Any] = []
            for syn in frontier:
                if syn in seen:
                    continue
                seen.add(syn)
                sid = self._ids.setdefault(syn, len(self._ids))
                if sid not in dist:
                    dist[sid] = step
                if sid not in self._depth:
                    self._depth[sid] = syn.max_depth() + 1
                nxt += syn.hypernyms() + syn.instance_hypernyms()
            frontier = nxt
            step += 1
        self._anc[term] = dist
        return dist

    def known(self, terms: Sequence[str]) -> np.ndarray:
        return np.array([self._ancestors(t) is not None for t in terms], dtype=bool)

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        na, nb = len(terms_a), len(terms_b)
        out = np.zeros((na, nb))
        anc_a = [self._ancestors(t) for t in terms_a]
        anc_b = [self._ancestors(t) for t in terms_b]
        holders_b: dict[int, tuple[list[int], list[int]]] = {}
        for j, anc in enumerate(anc_b):
            for sid, d in (anc or {}).items():
                rows, dists = holders_b.setdefault(sid, ([], []))
                rows.append(j)
                dists.append(d)
        holders_a: dict[int, tuple[list[int], list[int]]] = {}
        for i, anc in enumerate(anc_a):
            for sid, d in (anc or {}).items():
                if sid in holders_b:
                    rows, dists = holders_a.setdefault(sid, ([], []))
                    rows.append(i)
                    dists.append(d)
        for sid, (rows_a, dist_a) in holders_a.items():
            rows_b, dist_b = holders_b[sid]
            depth2 = 2.0 * self._depth[sid]
            block = depth2 / (np.asarray(dist_a, float)[:, None] + np.asarray(dist_b, float)[None, :] + depth2)
            ia, ib = np.asarray(rows_a), np.asarray(rows_b)
            out[np.ix_(ia, ib)] = np.maximum(out[np.ix_(ia, ib)], block)
        out[[a is None for a in anc_a], :] = np.nan
        out[:, [b is None for b in anc_b]] = np.nan
        return out


_READER_CACHE: dict[str, Any] = {}


def load_wordnet() -> Any:
    """NLTK's reader over Debian's WordNet (cached per process), or ``None`` when it is absent."""
    if "reader" not in _READER_CACHE:
        if not wordnet_available():
            _READER_CACHE["reader"] = None
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "multilingual functions are not available"
                _READER_CACHE["reader"] = wordnet_reader()
    return _READER_CACHE["reader"]
