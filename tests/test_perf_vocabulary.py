"""The weak attacker's external vocabulary is read from WordNet's index files with one regular
expression per file (:data:`attacks.cover.knowledge._WORDNET_LEMMA`). These tests hold it equal to
the line-by-line reading it replaced: a line that does not start with a space gives its first field,
underscores read as spaces, when every space-separated part is three or more letters a-z. One
difference, on purpose: a line that is a lemma alone (no space; WordNet has none) gave the lemma with
its newline (``$`` matches before a final newline), and now gives the lemma; the reference below
strips the newline first."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from attacks.cover.knowledge import WORDNET_DIR, external_vocabulary, wordnet_index_words

_PART = re.compile(r"^[a-z]{3,}$")


def _line_by_line(lines: list[str]) -> set[str]:
    words: set[str] = set()
    for line in lines:
        line = line.rstrip("\n")
        if line and not line.startswith(" "):
            lemma = line.split(" ", 1)[0].replace("_", " ")
            if lemma and all(_PART.match(part) for part in lemma.split(" ")):
                words.add(lemma)
    return words


def _lines_of(path: Path) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return list(handle)


_LINE = st.text(alphabet="abcz_ -\nA1é", max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=12), st.booleans())
def test_one_search_equals_the_line_by_line_reading(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    assert wordnet_index_words(text) == _line_by_line(text.splitlines(keepends=True))


def test_a_folder_of_index_files_is_read_as_wordnet(tmp_path):
    (tmp_path / "index.noun").write_text("  1 licence\nhot_dog n 1\nzebra n 1\nx_ray n 1\n")
    (tmp_path / "index.adv").write_text("quickly r 1")
    external_vocabulary.cache_clear()
    try:
        assert external_vocabulary(str(tmp_path)) == (f"wordnet:{tmp_path}", ("hot dog", "quickly", "zebra"))
    finally:
        external_vocabulary.cache_clear()


def test_debians_wordnet_gives_the_same_words():
    files = [WORDNET_DIR / f"index.{pos}" for pos in ("noun", "verb", "adj", "adv")]
    present = [f for f in files if f.is_file()]
    if not present:
        import pytest

        pytest.skip("wordnet-base is not installed (scripts/install-system-data.sh installs it)")
    external_vocabulary.cache_clear()
    try:
        source, words = external_vocabulary()
    finally:
        external_vocabulary.cache_clear()
    assert source == f"wordnet:{WORDNET_DIR}"
    assert set(words) == set().union(*(_line_by_line(_lines_of(f)) for f in present))
    assert len(words) > 50_000
