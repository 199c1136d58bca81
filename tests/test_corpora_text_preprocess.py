"""Each pre-processing step of AlShuhail2021 5.1.2 on small literal texts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.text.preprocess import (
    distinct_terms,
    filter_tokens,
    lemmatize_tokens,
    preprocess_text,
    stop_words,
    strip_links,
    strip_reference_sections,
    strip_title,
    strip_wiki_headings,
    tokenize,
)


def test_strip_links_removes_urls_emails_and_message_ids():
    text = ("See http://example.com/a?b=1 and https://x.org, www.abc.net/page or mail bob.smith@uni.edu "
            "(In article <1993Apr5.123@watson.ibm.com>) ftp://files.org/x done")
    out = strip_links(text)
    for gone in ("http", "example", "x.org", "www", "abc.net", "bob.smith", "uni.edu", "watson", "ftp", "files"):
        assert gone not in out
    assert out.split()[0] == "See" and out.split()[-1] == "done"
    assert "mail" in out and "article" in out


def test_strip_reference_sections_wiki_and_plain_headings():
    wiki = "Intro text.\n== History ==\nOld times.\n== References ==\n* Smith 1999\n== Later ==\nMore.\n"
    out = strip_reference_sections(wiki)
    assert "Smith" not in out and "Old times." in out and "More." in out and "Intro text." in out
    plain = "Body one.\nReferences:\n[1] Jones, A. (2001)\n[2] Brown\n"
    out = strip_reference_sections(plain)
    assert out.strip() == "Body one."
    assert strip_reference_sections("See also\nfoo\n== External links ==\nbar").strip() == ""
    # a word "references" inside a sentence is text, not a heading
    assert "references" in strip_reference_sections("He gave references to the work.")


def test_strip_titles_and_headings():
    assert "History" not in strip_wiki_headings("a\n== History ==\nb")
    assert strip_wiki_headings("a\n== History ==\nb").split() == ["a", "b"]
    assert strip_title("Bahia Cocoa Review: Showers continued", "BAHIA COCOA  REVIEW").startswith("Showers")
    assert strip_title("Other text", "Title") == "Other text"
    assert strip_title("Text", "") == "Text"


def test_tokenize_keeps_hyphens_cuts_clitics():
    tokens = tokenize("The study's south-west fire-fighters don't (O'Brien) 4:00pm 5.93!")
    assert tokens == ["The", "study", "south-west", "fire-fighters", "do", "(", "O'Brien", ")",
                      "4:00pm", "5.93", "!"]


def test_lemmas_resolve_inflections_and_keep_names():
    assert lemmatize_tokens(["studies", "studying", "study", "Studies"]) == ["study"] * 4
    assert lemmatize_tokens(["children", "went", "mice", "fire-fighters"]) == ["child", "go", "mouse", "fire-fighter"]
    # simplemma is applied before lower-casing, so a capitalised name is not turned into a verb
    assert lemmatize_tokens(["Laden", "laden"]) == ["laden", "lade"]
    cache: dict[str, str] = {}
    assert lemmatize_tokens(["bushfires"], cache) == ["bushfire"] and cache == {"bushfires": "bushfire"}


def test_stop_words_numbers_punctuation_single_characters_dropped():
    tokens = tokenize("The fire was in 1987 at 4pm, burned 5.93 mln & a b x; they were 1990s-era.")
    assert filter_tokens(tokens) == ["fire", "burn", "mln"]
    assert "the" in stop_words() and "don" in stop_words()
    import corpora.text.preprocess as preprocess  # the constant's name still reads the same set

    assert preprocess.STOP_WORDS is stop_words()
    assert "fire" not in stop_words() and "system" not in stop_words() and "computer" not in stop_words()
    # a token whose lemma is a stop word goes too ("was" -> "be", "doing" -> "do")
    assert filter_tokens(["was", "doing", "runs"]) == ["run"]


def test_duplicates_removed_in_first_occurrence_order():
    assert distinct_terms(["fire", "home", "fire", "bush", "home"]) == ["fire", "home", "bush"]
    assert distinct_terms([]) == []


def test_preprocess_text_end_to_end():
    article = ("Bushfires threaten homes\nHundreds of people were forced from their homes "
               "(see http://rfs.nsw.gov.au) as the bushfire burned 500 hectares.\n"
               "References\nSmith J. Fire science 2001\n")
    terms = preprocess_text(article, title="Bushfires threaten homes")
    assert terms == ["people", "force", "home", "bushfire", "burn", "hectare"]
    assert distinct_terms(terms) == terms


_TERM = re.compile(r"^[^\W\d_]{1}[^\W\d_'-]*(?:[-'][^\W\d_]+)*$")


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeFGHijklmnoSTUvwxyz0189 -'.,:;!?@/\n")), max_size=200))
def test_every_term_is_a_clean_lowercase_word(text):
    for term in preprocess_text(text):
        assert term == term.lower()
        assert len(term) >= 2
        assert not any(c.isdigit() for c in term)
        assert term not in stop_words()
        assert _TERM.match(term), term
