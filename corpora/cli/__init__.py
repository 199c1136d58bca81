"""corpora.cli.main: see the package docstring."""
