"""Experiment sweeps over datasets, anonymizers and attacks: ``python -m experiments run sweep.yaml``.

Subpackages by role: :mod:`experiments.steps` (what one run does; each step declares its metrics),
:mod:`experiments.sweep` (the sweep file, its runs, running them), :mod:`experiments.report` (figures,
claims, differences) and :mod:`experiments.cli` (the commands). Plugins: ``docs/extending.md``.
"""
