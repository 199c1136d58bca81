"""corpora.synthetic.quest: see the package docstring."""
