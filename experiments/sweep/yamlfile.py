"""Reading a sweep file: safe YAML, bounded before any Python object is built (:mod:`corpora.common.yamlfile`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpora.common.yamlfile import YamlBounds
from corpora.common.yamlfile import read_yaml as _read_bounded
from experiments.sweep.limits import LIMITS

__all__ = ["read_yaml", "SWEEP_BOUNDS"]

SWEEP_BOUNDS = YamlBounds(file_bytes=LIMITS.file_bytes, nodes=LIMITS.yaml_nodes, depth=LIMITS.yaml_depth,
                          scalar_chars=LIMITS.scalar_chars, what="sweep file")
"""The sweep file's bounds (:data:`experiments.sweep.limits.LIMITS`)."""


def read_yaml(p: Path) -> Any:
    """The YAML document of a sweep file, within :data:`LIMITS` (InputError otherwise)."""
    return _read_bounded(p, SWEEP_BOUNDS)
