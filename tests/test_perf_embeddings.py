"""A vectors file's header is read and checked before gensim is imported (issue 25: refusing a bad
``--embeddings`` file took 2-4 s, most of it importing gensim and SciPy's statistics).

:func:`attacks.semantic.embeddings._first_fields` opens the file by its suffix with the standard
library (gzip, bz2, lzma) where gensim's reader (``smart_open``) did; the first line must be the same.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attacks.semantic.embeddings import _first_fields, load_embeddings
from corpora.common.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
TEXT = "3 4\nfire 0.1 0.2 0.3 0.4\nbush 0.5 -0.1 0.0 1.5\nhome 1 2 3 4\n"
OPENERS = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _write(path: Path, text: str) -> Path:
    opener = OPENERS.get(path.suffix, open)
    with opener(path, "wb") as handle:
        handle.write(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
@pytest.mark.parametrize("header", [True, False])
def test_every_compression_reads_the_first_line_and_the_vectors_as_gensim_does(tmp_path, suffix, header):
    from gensim import utils as gensim_utils
    from gensim.models import KeyedVectors

    text = TEXT if header else TEXT.split("\n", 1)[1]
    path = _write(tmp_path / f"vectors.txt{suffix}", text)
    with gensim_utils.open(str(path), "rb") as handle:
        assert _first_fields(str(path)) == handle.readline(1 << 16).split()
    kv = load_embeddings(str(path))
    reference = KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=not header)
    assert kv.index_to_key == reference.index_to_key == ["fire", "bush", "home"]
    np.testing.assert_array_equal(kv.vectors, reference.vectors)


@pytest.mark.parametrize("name, content, expected", [
    ("empty.vec", "", "empty embeddings file"),
    ("wide.vec", "2 2000000000\nthe 0.1 0.2\n", "of dimension 2000000000"),
    ("huge.vec.gz", "1000000000 50\nthe " + " ".join(["0.1"] * 50) + "\n", "header declares 1000000000 vectors"),
])
def test_a_bad_header_is_refused_before_gensim_is_imported(tmp_path, name, content, expected):
    path = _write(tmp_path / name, content)
    with pytest.raises(InputError, match=expected):
        load_embeddings(str(path))
    script = ("import sys\nfrom attacks.semantic.embeddings import load_embeddings\n"
              "from corpora.common.errors import InputError\n"
              f"try:\n    load_embeddings({str(path)!r})\nexcept InputError:\n    pass\n"
              "print('gensim' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_a_damaged_compressed_file_is_one_error(tmp_path):
    path = tmp_path / "broken.vec.xz"
    path.write_bytes(b"\xfd7zXZ\x00 not really xz")
    with pytest.raises(InputError, match="not a readable embeddings file"):
        load_embeddings(str(path))
