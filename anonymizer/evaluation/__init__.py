"""What is measured on a release: the independent verifier (``verify``, ``exact``), reconstruction, utility metrics.

The verifier modules import the model and I/O only, never the engine (an import contract in
``pyproject.toml`` checks it in CI).
"""
