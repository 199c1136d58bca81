"""anonymizer.disassociation: see the package docstring."""
