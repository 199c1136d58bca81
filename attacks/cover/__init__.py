"""attacks.cover.detector: see the package docstring."""
