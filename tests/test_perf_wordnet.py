"""The WordNet reader reads its index and exception files as plain files (issue 25: 5 s of NLTK's seekable
stream per process): the same lines as NLTK's own stream, and the same reader."""

from __future__ import annotations

import pytest

from attacks.semantic.wordnet import _READ_IN_ORDER, load_wordnet, wordnet_available

pytestmark = pytest.mark.skipif(not wordnet_available(), reason="Debian's wordnet-base is not installed")


@pytest.fixture(scope="module")
def reader():
    return load_wordnet()  # the process's reader (the scorers' too): built once per worker


@pytest.mark.parametrize("name", ["index.adv", "index.adj", "adv.exc", "verb.exc", "lexnames"])
def test_a_file_read_in_order_gives_nltks_lines(reader, name):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    assert name in _READ_IN_ORDER
    with reader.open(name) as plain, WordNetCorpusReader.open(reader, name) as stream:
        assert type(plain) is not type(stream)
        assert list(plain) == list(stream)


def test_data_files_keep_nltks_stream_and_the_reader_answers(reader):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    with reader.open("data.noun") as data, WordNetCorpusReader.open(reader, "data.noun") as stream:
        assert type(data) is type(stream)
    dog, cat = reader.synset("dog.n.01"), reader.synset("cat.n.01")
    assert dog.path_similarity(cat) == 0.2 and reader.morphy("geese") == "goose"
