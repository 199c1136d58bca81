"""Normalized Google Distance (NGD) and the local count backend behind it.

AlShuhail2021 section 4.1.2, equation 4.1 (after Cilibrasi and Vitanyi)::

    NGD(x, y) = (max(log f(x), log f(y)) - log f(x, y)) / (log N - min(log f(x), log f(y)))

with f(x) the number of documents holding x, f(x, y) the number holding both and N the number of
documents searched. The thesis asks Google for the counts; here they come from a *backend*
(:class:`CountBackend`):

* :class:`LocalCountBackend` (this module): document frequencies and co-occurrences from a
  reference corpus held as a ``scipy.sparse`` document-term matrix (one column per token; pair
  counts are one sparse matrix product);
* :class:`attacks.semantic.web_counts.WebCountBackend`: a web search API (configured by
  :class:`attacks.semantic.web_counts.WebConfig`), with a persistent cache and the key never logged.

Which reference corpus a backend counts in (gensim's Wikipedia sample by default, a file, a text
source, the pooled public/private corpora) is resolved by
:func:`attacks.semantic.reference.resolve_reference`.

Matching rule for terms (both backends see the same rule through :func:`term_words`): terms and
corpus tokens are compared in lower case; a multi-word term ("double vision", "audi_a4") is found
in a document when the document holds the whole term as one token or else holds every one of its
words (a bag-of-words approximation of a phrase query).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from corpora.common.errors import InputError

__all__ = ["CountBackend", "LocalCountBackend", "ngd", "ngd_relatedness", "term_words", "tokenize"]

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
