"""Reading and writing transaction data, one module per role; :mod:`corpora.io.formats` is the entry point.

* :mod:`corpora.io.options`: the format names, extensions and which reading options apply;
* :mod:`corpora.io.spmf`, :mod:`corpora.io.lines` (basket, kdd, jsonl), :mod:`corpora.io.tabular`
  (long CSV/TSV tables), :mod:`corpora.io.parquet`, :mod:`corpora.io.frames` (pandas DataFrames):
  the readers, each giving flat tokens and their record numbers;
* :mod:`corpora.io.tokens`: tokens to the CSR arrays of a :class:`~corpora.dataset.TransactionDataset`;
* :mod:`corpora.io.writers`: every format written atomically;
* :mod:`corpora.io.headers`: header words and layouts that would publish a user column;
* :mod:`corpora.io.identifiers`: terms that look like direct identifiers, screened before publishing.

The readers import the dataset type; the type (:mod:`corpora.dataset`) imports no reader.
"""
