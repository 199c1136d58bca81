"""The commands of ``python -m experiments`` (run, claims, differences), one module each."""
