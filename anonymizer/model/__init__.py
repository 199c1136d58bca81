"""anonymizer.model: see the package docstring."""
