"""Free text to terms: the article pre-processing of AlShuhail2021 section 5.1.2, offline.

The thesis turns an article into a transaction in these steps (section 5.1.2, "Data
pre-processing"): remove titles, references and external links; tokenise into words; lemmatise;
remove stop words, numbers, punctuation and single characters; remove duplicated terms. Each
step is a small public function here so it can be tested on its own, and
:func:`preprocess_text` chains them.

Choices where the thesis is not specific (each is tested):

- Links: URLs (``http://``, ``https://``, ``ftp://``, ``www.``), e-mail addresses and
  Usenet message ids (``<...@...>``) are removed before tokenising.
- References: a line that is a heading named References, Bibliography, External links, See
  also, Notes, Footnotes, Further reading or Sources (plain, ``References:`` or wiki style
  ``== References ==``) starts a reference section, which runs to the next heading of another
  name or to the end of the text; it is removed.
- Titles: wiki headings (``== History ==``) are removed; a caller that knows a document's title
  passes it to :func:`strip_title`, which removes it from the start of the text.
- Tokens: one regular expression (:data:`TOKEN_PATTERN`, the pattern and engine of NLTK's
  :class:`~nltk.tokenize.RegexpTokenizer`, which this module used before; a test holds the two
  equal, and the pattern alone spares importing NLTK) keeps words
  with inner hyphens or apostrophes (``south-west``, ``o'brien``) as one token, so hyphenated
  multi-word terms survive; English clitics (``'s``, ``n't``, ``'re``, ``'ve``, ``'ll``,
  ``'d``, ``'m``) are cut off.
- Lemmas: ``simplemma`` (English), which works offline, applied to the token as written and then
  lower-cased: simplemma leaves capitalised names alone (``Laden`` stays ``laden`` while
  ``laden`` would become ``lade``; ``Studies`` becomes ``study``). A hyphenated token is
  lemmatised on its last part (``fire-fighters`` -> ``fire-fighter``). Every term is lower case.
- Stop words: scikit-learn's ENGLISH_STOP_WORDS (318 words) without the 22 content words that
  list inherited from the Glasgow list (``fire``, ``bill``, ``system``, ``interest``, ``mine``
  ... see :data:`CONTENT_WORDS_KEPT`; news about bushfires needs ``fire``), plus leftovers of
  contractions (``didn``, ``doesn``, ``don`` ...). A token is dropped when it or its lemma is a
  stop word (``was`` -> ``be``). gensim's list is not used: it holds the same content words and
  more (``computer``, ``km``, ``make``).
- Numbers: every token holding a digit is dropped (``1987``, ``5.93``, ``4pm``, ``1990s``).
- Punctuation and single characters: a kept term has at least two characters and only letters
  plus inner hyphens and apostrophes.
- Duplicates: :func:`distinct_terms` keeps the first occurrence of each term.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import regex
import simplemma

__all__ = [
    "CONTENT_WORDS_KEPT",
    "distinct_terms",
    "stop_words",
    "filter_tokens",
    "lemmatize_tokens",
    "preprocess_text",
    "strip_links",
    "strip_reference_sections",
    "strip_title",
    "strip_wiki_headings",
    "tokenize",
]

_CONTRACTION_LEFTOVERS = frozenset(
    "aren couldn didn doesn don hadn hasn haven isn ll mightn mustn needn shan shouldn ve wasn "
    "weren won wouldn".split()
)

#: Nouns and adjectives of scikit-learn's stop list that carry topic meaning; they are kept.
CONTENT_WORDS_KEPT: frozenset[str] = frozenset(
    "amount bill bottom cry detail empty fill fire front full interest mill mine name part serious side "
    "sincere system thick thin top".split()
)



@functools.cache
def stop_words() -> frozenset[str]:
    """The stop words removed from every document: scikit-learn's English list without
    :data:`CONTENT_WORDS_KEPT`, plus contraction leftovers (``STOP_WORDS``).

    Made on first use: importing scikit-learn takes seconds, which a command that reads no text should not pay.
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return (frozenset(ENGLISH_STOP_WORDS) - CONTENT_WORDS_KEPT) | _CONTRACTION_LEFTOVERS


def __getattr__(name: str) -> frozenset[str]:
    if name == "STOP_WORDS":  # the constant, made on first use (see stop_words)
        return stop_words()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_URL = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\"')\]]+", re.IGNORECASE)
_EMAIL = re.compile(r"<?\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b>?")
_MESSAGE_ID = re.compile(r"<[^<>\s]+@[^<>\s]+>")

_REFERENCE_NAMES = ("references", "reference", "bibliography", "external links", "external link",
                    "see also", "notes", "footnotes", "further reading", "sources")
_HEADING = re.compile(r"^\s*(=+)\s*([^=\n]*?)\s*\1\s*$")
_PLAIN_REFERENCE_HEADING = re.compile(
    r"^\s*(?:" + "|".join(re.escape(n) for n in _REFERENCE_NAMES) + r")\s*:?\s*$", re.IGNORECASE)


#: Words with inner hyphens/apostrophes, numbers with separators, or any other non-space run: the
#: pattern and flags this module gave NLTK's ``RegexpTokenizer`` (whose ``tokenize`` is the pattern's
#: ``findall``; no branch matches the empty string). Compiled with the ``regex`` engine, as NLTK
#: compiles it from 3.10.3 on (``nltk.redos``; 3.10.2 and earlier used ``re``): its ``\w`` and ``\d`` differ
#: from ``re``'s on superscripts (``II²``) and combining accents, so naming the engine here keeps the tokens
#: from changing with the NLTK version.
TOKEN_PATTERN = regex.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*|\w+(?:[.,:/-]\w+)*|[^\w\s]+",
                              re.UNICODE | re.MULTILINE | re.DOTALL)
_CLITIC = re.compile(r"(?:'s|'re|'ve|'ll|'d|'m|n't)$", re.IGNORECASE)
_TERM = re.compile(r"^[^\W\d_]+(?:[-'][^\W\d_]+)*$")


def strip_links(text: str) -> str:
    """Remove URLs, e-mail addresses and message ids (AlShuhail2021 5.1.2: "external links")."""
    if "@" in text:  # a message id and an e-mail address hold an @, a URL :// or www.
        text = _MESSAGE_ID.sub(" ", text)
    if "://" in text or "www." in text.lower():
        text = _URL.sub(" ", text)
    return _EMAIL.sub(" ", text) if "@" in text else text


def _is_reference_heading(line: str) -> bool | None:
    """True for a reference-section heading, False for another heading, None for a text line."""
    match = _HEADING.match(line)
    if match:
        return match.group(2).strip().lower() in _REFERENCE_NAMES
    if _PLAIN_REFERENCE_HEADING.match(line):
        return True
    return None


def strip_reference_sections(text: str) -> str:
    """Remove reference sections: from a references-like heading to the next other heading.

    Recognised headings are listed in the module docstring; both plain lines (``References``,
    ``See also:``) and wiki headings (``== External links ==``) count.
    """
    kept: list[str] = []
    skipping = False
    for line in text.split("\n"):
        kind = _is_reference_heading(line)
        if kind is True:
            skipping = True
            continue
        if kind is False:
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept)


def strip_wiki_headings(text: str) -> str:
    """Remove wiki section headings (``== History ==``): they are titles, not content."""
    return "\n".join(line for line in text.split("\n") if not _HEADING.match(line))


def strip_title(text: str, title: str) -> str:
    """Remove a document's ``title`` when the text starts with it (case and spacing ignored)."""
    words = title.split()
    if not words:
        return text
    pattern = r"^\s*" + r"\s+".join(re.escape(w) for w in words) + r"\b[\s:.-]*"
    return re.sub(pattern, "", text, count=1, flags=re.IGNORECASE)


def tokenize(text: str) -> list[str]:
    """Tokens as written (words, numbers, punctuation runs), clitics cut off words.

    :data:`TOKEN_PATTERN`'s matches; a text without an apostrophe has no clitic to cut.
    """
    text = text.replace("’", "'")
    tokens = TOKEN_PATTERN.findall(text)
    if "'" not in text:
        return tokens
    cut = (_CLITIC.sub("", token) if "'" in token else token for token in tokens)
    return [token for token in cut if token]


def lemmatize_tokens(tokens: Iterable[str], cache: dict[str, str] | None = None) -> list[str]:
    """Lower-case English lemmas by simplemma (applied before lower-casing, so names stay).

    A hyphenated token is lemmatised on its last part.

    ``cache`` (token -> lemma) may be shared between calls of one job to save time.
    """
    memo = {} if cache is None else cache
    out: list[str] = []
    for token in tokens:
        lemma = memo.get(token)
        if lemma is None:
            head, sep, last = token.rpartition("-")
            lemma = (head + sep + simplemma.lemmatize(last, lang="en")).lower() if last else token.lower()
            memo[token] = lemma
        out.append(lemma)
    return out


def _keep(term: str) -> bool:
    return len(term) >= 2 and term not in stop_words() and _TERM.match(term) is not None


def filter_tokens(tokens: Iterable[str], cache: dict[str, str] | None = None) -> list[str]:
    """Lemmatise and drop stop words, numbers, punctuation and single characters.

    A token is dropped when the token itself or its lemma is a stop word, when it holds a digit
    or any character other than a letter or an inner hyphen/apostrophe, or when its lemma is a
    single character (all compared in lower case). Order and repeats are kept; terms are lower
    case.

    The decision depends on the token alone, so it is made once per distinct token: ``cache``
    (token -> the term it gives, ``""`` when it is dropped) may be shared between the calls of one
    job, as :func:`preprocess_text`'s callers do over a whole corpus.
    """
    memo = {} if cache is None else cache
    out: list[str] = []
    for token in tokens:
        term = memo.get(token)
        if term is None:
            term = ""
            if _keep(token.lower()):
                lemma = lemmatize_tokens([token])[0]
                term = lemma if _keep(lemma) else ""
            memo[token] = term
        if term:
            out.append(term)
    return out


def distinct_terms(terms: Iterable[str]) -> list[str]:
    """The terms without duplicates, in order of first occurrence (thesis step 5)."""
    return list(dict.fromkeys(terms))


def preprocess_text(text: str, title: str = "", cache: dict[str, str] | None = None) -> list[str]:
    """The whole pre-processing of one article: its terms in text order, repeats kept.

    Steps: remove the title, wiki headings, reference sections and links; tokenise; lemmatise;
    drop stop words, numbers, punctuation and single characters. Apply :func:`distinct_terms`
    to get the article's transaction. ``cache``: :func:`filter_tokens`'s, shared over a corpus.
    """
    if title:
        text = strip_title(text, title)
    text = strip_reference_sections(text)
    text = strip_wiki_headings(text)
    text = strip_links(text)
    return filter_tokens(tokenize(text), cache)
