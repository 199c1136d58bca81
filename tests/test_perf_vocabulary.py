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

from attacks.cover.knowledge import WORDNET_DIR, external_vocabulary

_PART = re.compile(r"^[a-z]{3,}$")


def _line_by_line(files: list[Path]) -> tuple[str, ...]:
    words: set[str] = set()
    for index in files:
        with open(index, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                line = line.rstrip("\n")
                if line and not line.startswith(" "):
                    lemma = line.split(" ", 1)[0].replace("_", " ")
                    if lemma and all(_PART.match(part) for part in lemma.split(" ")):
                        words.add(lemma)
    return tuple(sorted(words))


_LINE = st.text(alphabet="abcz_ -\nA1é", max_size=40)


@settings(max_examples=150, deadline=None)
@given(noun=st.lists(_LINE, max_size=8), verb=st.lists(_LINE, max_size=4))
def test_one_search_per_file_equals_the_line_by_line_reading(tmp_path_factory, noun, verb):
    folder = tmp_path_factory.mktemp("wordnet")
    # one valid line, so that the folder is always read as WordNet (no fall-through to GloVe)
    (folder / "index.noun").write_text("\n".join([*noun, "zebra n 1"]), encoding="utf-8")
    (folder / "index.verb").write_text("\n".join(verb) + "\n", encoding="utf-8")
    expected = _line_by_line([folder / "index.noun", folder / "index.verb"])
    external_vocabulary.cache_clear()
    try:
        assert external_vocabulary(str(folder)) == (f"wordnet:{folder}", expected)
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
    assert words == _line_by_line(present)
    assert len(words) > 50_000
