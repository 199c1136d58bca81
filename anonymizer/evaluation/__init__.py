"""anonymizer.evaluation: see the package docstring."""
