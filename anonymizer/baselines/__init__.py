"""anonymizer.baselines: see the package docstring."""
