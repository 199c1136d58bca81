"""anonymizer.cli.anonymize: see the package docstring."""
