"""Shared, session-scoped fixtures and the test markers of the workbench.

Loading word vectors and building a text corpus take seconds each; the fixtures below do each
once per test session, so a test asks for them by name instead of loading its own.

Markers (``pytest -m "not slow"`` for a quick run):

* ``slow``: a test that takes seconds (end-to-end sweeps, large inputs); marked in its file.
* ``subprocess``: a test that starts a Python process (a command line's smoke test, a plugin
  installed on ``PYTHONPATH``); marked here from the test's source, so a new one cannot be missed.
* ``dask``: a test that starts a Dask cluster; marked here from the test's source.

The suite runs in parallel (``pytest-xdist``; ``addopts`` in pyproject.toml): ``-n 0`` runs it in one
process. Tests must not share files or global state; every session fixture is built once per worker.

Property tests (hypothesis) draw their random datasets from a fixed seed sequence by default
(profile ``reproducible``: the same examples on every machine, so CI and a developer see the same
run); ``HYPOTHESIS_PROFILE=explore python -m pytest -q`` draws fresh examples each run (and keeps
failing ones in ``.hypothesis/``) to search further. A failure found that way is pinned with
``@example`` in its test.
"""

from __future__ import annotations

import ast
import gc
import inspect
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


def _function_sources(path: str) -> dict[int, str]:
    """Each function of a module file by its first line (its first decorator's, as ``co_firstlineno`` counts).

    One parse per module instead of one ``inspect.getsource`` per test (which tokenizes the file again for
    every test and parameter: seconds of every worker's collection).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {}
    lines = text.splitlines(keepends=True)
    sources: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            sources[start] = "".join(lines[start - 1:node.end_lineno])
    return sources


def _source(item: pytest.Item, modules: dict[str, dict[int, str]]) -> str:
    """The source of a test's function, its decorators included (``inspect.getsource``'s text)."""
    function = getattr(item, "function", None)
    if function is None:
        return ""
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is not None:
        if code.co_filename not in modules:
            modules[code.co_filename] = _function_sources(code.co_filename)
        found = modules[code.co_filename].get(code.co_firstlineno)
        if found is not None:
            return found
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that start processes or Dask clusters, read from what their code calls; run the long ones first.

    The order matters under ``pytest-xdist`` (``addopts`` in pyproject.toml): a worker that finishes its share
    takes pending tests from the others, so the long tests (``slow``, then those starting processes or Dask
    clusters) go first and the short ones fill in at the end, instead of one long test running alone last.
    The sort is stable: within each group, tests keep the order they were collected in.
    """
    modules: dict[str, dict[int, str]] = {}
    for item in items:
        text = _source(item, modules)
        if "subprocess" in text or "sys.executable" in text:
            item.add_marker(pytest.mark.subprocess)
        if "dask" in text.lower() or "dask" in item.nodeid.lower():
            item.add_marker(pytest.mark.dask)
    items.sort(key=_long_first)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection made (the imported libraries, the test modules and their items: about 200,000
    objects a worker) out of the cyclic collector's sight (``gc.freeze``), as a server does before it forks.

    They live until the session ends, and every full collection during the tests walked them again:
    measured with ``gc.callbacks``, the two workers spent 36 s of the suite's 6 min 10 s of CPU in the
    collector, 29 s after the freeze. The garbage collection left is collected first, so only live objects
    are frozen (reference counting still frees them), and the tests' own objects are collected as usual."""
    gc.collect()
    gc.freeze()


def _long_first(item: pytest.Item) -> int:
    if item.get_closest_marker("slow"):
        return 0
    if item.get_closest_marker("subprocess") or item.get_closest_marker("dask"):
        return 1
    return 2


@pytest.fixture(scope="session")
def test_vectors() -> Any:
    """gensim's small GloVe test file (``test_glove.txt``) as KeyedVectors, loaded once."""
    from gensim.models import KeyedVectors
    from gensim.test.utils import datapath

    return KeyedVectors.load_word2vec_format(datapath("test_glove.txt"), no_header=True)


@pytest.fixture(scope="session")
def lee_dataset(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The Lee news corpus as transactions (each document's distinct terms), built once per session from
    scratch, in a cache folder of its own. The folder is named for the build only: the tests after it read
    the usual cache (the variable was left set for the rest of the session, so every later test of the
    worker rebuilt WordNet's documents, the text sources and the topic models in an empty folder)."""
    from corpora.text.api import build_text_dataset

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DISASSOC_CACHE", str(tmp_path_factory.mktemp("text-cache")))
        return build_text_dataset("lee")


@pytest.fixture(scope="module")
def tiny_read_blocks() -> Iterator[None]:
    """The readers' 1 MiB pieces and 4 MiB blocks shrunk to a few bytes, so a small file crosses many borders."""
    import corpora.common.files
    import corpora.io.spmf

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(corpora.common.files, "_PIECE", 5)
        patch.setattr(corpora.io.spmf, "STREAM_BLOCK_BYTES", 8)
        yield
