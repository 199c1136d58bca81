"""attacks.cli: see the package docstring."""
