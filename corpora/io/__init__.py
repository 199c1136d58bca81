"""corpora.io: see the package docstring."""
