"""Readers of the named text sources: lee, wiki-sample, newsgroups-sample, reuters (ARFF)."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from corpora.common.errors import InputError
from corpora.text.sources import (
    _clean_news_post,
    _clean_reuters,
    _read_newsgroups,
    list_text_sources,
    load_raw_documents,
    parse_arff_strings,
)

ARFF = """% a comment
@relation 'test relation'

@attribute Text string
@attribute class-att {0,1}

@data
'FIRST TITLE The body, with a comma.\\nSecond line \\'quoted\\'',1
"double \\"quoted\\" text",0
?,1
"""


def test_arff_parser_reads_quotes_escapes_and_missing_values():
    rows = parse_arff_strings(ARFF, "t.arff")
    assert rows == [
        {"Text": "FIRST TITLE The body, with a comma.\nSecond line 'quoted'", "class-att": "1"},
        {"Text": 'double "quoted" text', "class-att": "0"},
        {"Text": None, "class-att": "1"},
    ]


@pytest.mark.parametrize("text, message", [
    ("@relation r\n@attribute a string\n@data\n'open,1\n", "unterminated"),
    ("@relation r\n@attribute a string\n@attribute b string\n@data\n'x'\n", "1 values for 2 attributes"),
    ("@relation r\n@attribute a string\n@data\n{0 'x'}\n", "sparse"),
    ("@relation r\n@attribute a string\n", "no @data"),
    ("hello\n", "unexpected header line"),
    ("@relation r\n@data\n", "@data before any @attribute"),
])
def test_arff_parser_refuses_bad_files_with_line(text, message):
    with pytest.raises(InputError, match=message):
        parse_arff_strings(text, "bad.arff")


def test_reuters_absent_names_the_debian_package(tmp_path):
    with pytest.raises(InputError, match="install Debian package weka"):
        load_raw_documents("reuters", weka_dir=tmp_path)


def _reuters_arff(texts: list[str]) -> str:
    body = "\n".join("'" + t.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "',0"
                     for t in texts)
    return "@relation 'Reuters'\n@attribute Text string\n@attribute class-att {0,1}\n@data\n" + body + "\n"


def test_reuters_reader_deduplicates_and_cleans(tmp_path):
    one = "BAHIA COCOA REVIEW Showers continued in the Bahia zone &lt;ABC>.\n Reuter\n&#3;"
    two = "GRAIN PRICES RISE Wheat prices rose sharply.\n Reuter\n&#3;"
    files = {"ReutersCorn-train.arff": [one, two], "ReutersCorn-test.arff": [two],
             "ReutersGrain-train.arff": [one], "ReutersGrain-test.arff": []}
    for name, texts in files.items():
        (tmp_path / name).write_text(_reuters_arff(texts), encoding="utf-8")
    docs = load_raw_documents("reuters", weka_dir=tmp_path)
    assert [d.title for d in docs] == ["BAHIA COCOA REVIEW", "GRAIN PRICES RISE"]
    assert docs[0].text.startswith("Showers continued") and "<ABC>" in docs[0].text
    assert "Reuter" not in docs[0].text and "&#3;" not in docs[0].text
    assert docs[1].text.strip() == "Wheat prices rose sharply."


def test_reuters_title_needs_a_lowercase_word_after_it():
    assert _clean_reuters("ALL CAPS TABLE 1 2 3").title == ""
    assert _clean_reuters("U.S. SEES RISE The U.S. said").title == "U.S. SEES RISE"


def test_newsgroup_post_cleaning_drops_headers_quotes_signature():
    post = ("From: someone@x.edu\nSubject: Re: Orbits of Pluto\nLines: 5\n\n"
            "In article <123@x.edu> someone@x.edu writes:\n> quoted old text\n"
            "Pluto orbit is elliptical.\n-- \nJohn, signature line\n")
    doc = _clean_news_post(post)
    assert doc.title == "Re: Orbits of Pluto"
    assert doc.text.strip() == "Pluto orbit is elliptical."


def test_newsgroup_unpickler_refuses_foreign_classes(tmp_path):
    evil = b"cos\nsystem\n(S'echo owned'\ntR."  # protocol-0 pickle calling os.system
    path = tmp_path / "evil"
    path.write_bytes(zlib.compress(evil))
    with pytest.raises(InputError, match="refusing to load os.system"):
        _read_newsgroups(path)
    path.write_bytes(b"not zlib")
    with pytest.raises(InputError, match="not a readable newsgroup pickle"):
        _read_newsgroups(path)


def test_gensim_sources_load():
    lee = load_raw_documents("lee")
    assert len(lee) == 300 and lee[0].text.startswith("Hundreds of people")
    news = load_raw_documents("newsgroups-sample")
    assert len(news) == 200
    assert not any(line.startswith(("From:", "Path:", "Message-ID:")) for d in news for line in d.text.split("\n"))
    wiki = load_raw_documents("wiki-sample")
    assert len(wiki) == 106
    assert all("#REDIRECT" not in d.text and "[[" not in d.text for d in wiki)
    assert wiki[0].title == "Anarchism" and wiki[1].title == "Autism"


def test_list_text_sources_and_unknown_name():
    infos = {s.name: s for s in list_text_sources()}
    assert list(infos) == ["lee", "wiki-sample", "newsgroups-sample", "reuters"]
    assert infos["lee"].documents == 300 and infos["lee"].present
    assert infos["wiki-sample"].present and infos["newsgroups-sample"].present
    assert infos["reuters"].present == Path("/usr/share/doc/weka/examples/ReutersCorn-train.arff").is_file()
    assert all(s.licence and s.description for s in infos.values())
    with pytest.raises(InputError, match="unknown text source 'nope'"):
        load_raw_documents("nope")
