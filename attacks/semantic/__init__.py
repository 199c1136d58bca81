"""attacks.semantic.attack: see the package docstring."""
