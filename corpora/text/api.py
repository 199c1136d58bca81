"""Text corpora to transactions (AlShuhail2021 section 5.1): the public entry points.

- :func:`build_text_dataset`: a named text source to a :class:`~corpora.dataset.TransactionDataset`
  (pre-processing, seeded attacked/reference split, NMF topic selection, TF-IDF top-N terms,
  density control by type-token ratio);
- :func:`reference_documents`: the attacker's reference part of a source (token lists), disjoint
  from the attacked part of the same seed;
- :func:`list_text_sources`: the named sources (``lee``, ``wiki-sample``, ``newsgroups-sample``,
  ``reuters``) with size, licence and presence;
- :func:`write_text_dataset`: JSON lines plus ``<output>.meta.json``;
- :func:`record_sources` and :func:`composition`: the source of each transaction of a build and
  the transactions per source (every build's metadata holds its ``composition``).

The work is done in :mod:`corpora.text.sources` (readers), :mod:`corpora.text.preprocess` (text to
terms), :mod:`corpora.text.documents` (cached documents, split, TF-IDF), :mod:`corpora.text.topics`
(NMF), :mod:`corpora.text.density` (density search), :mod:`corpora.text.build` and
:mod:`corpora.text.thesis` (the builders).
"""

from corpora.text.build import build_text_dataset, write_text_dataset
from corpora.text.composition import composition, record_sources
from corpora.text.density import DensityChoice
from corpora.text.documents import reference_documents, split_parts
from corpora.text.parameters import DENSITY_TOLERANCE, PARTS
from corpora.text.sources import TextSourceInfo, list_text_sources

__all__ = [
    "DENSITY_TOLERANCE",
    "PARTS",
    "DensityChoice",
    "TextSourceInfo",
    "build_text_dataset",
    "composition",
    "list_text_sources",
    "record_sources",
    "reference_documents",
    "split_parts",
    "write_text_dataset",
]
