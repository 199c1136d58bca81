"""Experiment sweeps over datasets, anonymizers and attacks: ``python -m experiments run sweep.yaml``.

Subpackages by role: :mod:`experiments.steps` (what one run does; each step declares its metrics),
:mod:`experiments.sweep` (the sweep file, its runs, running them), :mod:`experiments.report` (figures,
claims, differences) and :mod:`experiments.cli` (the commands). Plugins: ``docs/extending.md``.

The Python API (loaded on first use, so that ``import experiments`` stays cheap)::

    from experiments import load_sweep, run_sweep
    spec = load_sweep("sweep.yaml")                     # SweepSpec: checked, every error one line
    result = run_sweep(spec, jobs=2)                     # SweepResult: the table, figures and report
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "load_sweep": ("experiments.sweep.schema", "load_sweep"),
    "parse_sweep": ("experiments.sweep.schema", "parse_sweep"),
    "run_sweep": ("experiments.sweep.runner", "run_sweep"),
    "SweepResult": ("experiments.sweep.runner", "SweepResult"),
    "SweepSpec": ("experiments.sweep.spec", "SweepSpec"),
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'experiments' has no attribute {name!r}") from None
    return getattr(import_module(module), attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
