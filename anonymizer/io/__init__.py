"""anonymizer.io: see the package docstring."""
