"""corpora.text.api: see the package docstring."""
