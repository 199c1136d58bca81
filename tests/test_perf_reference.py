"""The default NGD reference (gensim's Wikipedia sample, paragraphs) is kept on disk (issue 25: stripping the
wiki markup costs every process about 2.5 s): built once, read back the same, rebuilt when its stamp changes."""

from __future__ import annotations

import os

import pytest

from attacks.semantic import reference


@pytest.fixture
def fake_build(monkeypatch, tmp_path):
    """A cache folder of the test's own and a build that counts its calls; the per-process cache emptied before
    and after (other tests of this worker must not see the fake passages)."""
    monkeypatch.setenv("DISASSOC_CACHE", str(tmp_path))
    calls = []

    def build(path: str, min_tokens: int) -> list[list[str]]:
        calls.append((path, min_tokens))
        return [["anarchism", "political"], ["philosophy"] * min_tokens]

    monkeypatch.setattr(reference, "_wiki_passages", build)
    reference._gensim_wiki_passages.cache_clear()
    yield calls, tmp_path
    reference._gensim_wiki_passages.cache_clear()


def test_built_once_then_read_back_from_disk(fake_build):
    calls, folder = fake_build
    first = reference._gensim_wiki_passages()
    assert first == (("anarchism", "political"), ("philosophy",) * 20) and len(calls) == 1
    assert os.path.isfile(calls[0][0]) and calls[0][0].endswith(reference._WIKI_SAMPLE)
    assert (folder / "gensim-wiki-passages.json.gz").is_file()
    reference._gensim_wiki_passages.cache_clear()  # a new process: only the disk cache is left
    assert reference._gensim_wiki_passages() == first and len(calls) == 1
    assert reference._gensim_wiki_passages(5) == (("anarchism", "political"), ("philosophy",) * 5)
    assert len(calls) == 2  # another stamp (min_tokens): rebuilt


def test_a_damaged_cache_file_is_rebuilt(fake_build):
    calls, folder = fake_build
    (folder / "gensim-wiki-passages.json.gz").write_bytes(b"not gzip")
    assert reference._gensim_wiki_passages()[0] == ("anarchism", "political") and len(calls) == 1
