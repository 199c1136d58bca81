"""The commands of ``python -m attacks`` (cover, semantic, audit, score), one module each."""
