"""Text corpora to transactions (AlShuhail2021 section 5.1); :mod:`corpora.text.api` is the entry point.

* :mod:`corpora.text.sources`: the named text sources and their readers;
* :mod:`corpora.text.preprocess`: text to terms (the thesis's pre-processing steps);
* :mod:`corpora.text.documents`: pre-processed documents (cached), the seeded attacked/reference split,
  TF-IDF ranking;
* :mod:`corpora.text.topics`: NMF topics;
* :mod:`corpora.text.density`: reaching a type-token density;
* :mod:`corpora.text.build` (one source, term dropping) and :mod:`corpora.text.thesis` (the thesis's
  pooled pipeline): the builders;
* :mod:`corpora.text.parameters`: the pipeline's parameter names and checks (no text stack needed).
"""
