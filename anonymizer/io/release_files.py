"""Reading and writing release and truth files, in either form (JSON or parquet).

Every command reads a release through :func:`load_release`, which validates it fully before any
work starts: the file is read with a size bound (:data:`~anonymizer.model.clusters.MAX_JSON_BYTES`),
must be UTF-8 JSON nested no deeper than the format needs (or a parquet release,
:mod:`anonymizer.io.parquet`), and the release it holds passes the model's checks
(:mod:`anonymizer.model.release`). A parquet file and a plain JSON release the fast reader accepts
(:mod:`anonymizer.io.json_fast`) are read into arrays (:meth:`Release.from_arrays`), whose cluster
objects are built only when a command asks for them; any other JSON file is read with ``json.loads``
and :meth:`Release.from_dict`. The file a release was read from is remembered
(:func:`anonymizer.model.provenance.remember_source`) so that its truth can be checked against it.

Writing goes through :mod:`anonymizer.io.json_writer` (atomic, streamed).
"""

from __future__ import annotations

import os
from typing import Any

from tqdm import tqdm

from anonymizer.io.bounded import is_parquet
from anonymizer.io.json_fast import read_release_json_arrays
from anonymizer.io.json_writer import write_release, write_truth
from anonymizer.io.parquet import read_release_parquet
from anonymizer.io.truth_parquet import read_truth_parquet
from anonymizer.model.clusters import MAX_JSON_BYTES
from anonymizer.model.provenance import remember_source
from anonymizer.model.release import Release
from anonymizer.model.truth import Truth
from corpora.common.errors import InputError
from corpora.common.files import parse_json, read_text_bounded
from corpora.common.gcpause import no_gc

__all__ = ["load_release", "load_truth", "save_release", "save_truth", "read_json"]


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file read with :func:`corpora.common.files.read_text_bounded` (size, UTF-8, no NUL bytes).

    JSON nested deeper than Python's recursion limit is refused in one line, not a traceback.
    """
    text = read_text_bounded(path, MAX_JSON_BYTES)
    if not text.strip():
        raise InputError(f"{path}: file is empty")
    return parse_json(text, str(path))


def load_release(path: str | os.PathLike[str]) -> Release:
    """Read and validate a release file, JSON or parquet (module docstring); a progress bar shows on a
    terminal after one second."""
    try:
        before = os.stat(path)
    except OSError:
        before = None  # the readers report it in their words
    with tqdm(total=2, desc=f"reading {os.path.basename(str(path))}", unit="step", disable=None, delay=1.0,
              leave=False) as bar:
        release: Release
        if is_parquet(path):
            release = read_release_parquet(path)
        else:
            arrays = read_release_json_arrays(path)
            bar.update(1)
            if arrays is not None:
                release = Release.from_arrays(arrays, str(path))
            else:
                with no_gc():
                    obj = read_json(path)
                    bar.update(1)
                    release = Release.from_dict(obj, source=str(path))
    if before is not None:
        remember_source(release, path, before)
    return release


def load_truth(path: str | os.PathLike[str]) -> Truth:
    """Read and validate a truth file, JSON or parquet (:mod:`anonymizer.io.truth_parquet`)."""
    if is_parquet(path):
        return read_truth_parquet(path)
    with no_gc():
        return Truth.from_dict(read_json(path), source=str(path))


def save_release(release: Release, path: str | os.PathLike[str]) -> None:
    """Write a release file atomically (:mod:`anonymizer.io.json_writer`)."""
    write_release(release, path)


def save_truth(truth: Truth, path: str | os.PathLike[str]) -> None:
    """Write a truth file atomically (:mod:`anonymizer.io.json_writer`; never publish it)."""
    write_truth(truth, path)
