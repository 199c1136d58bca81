"""corpora.common: see the package docstring."""
