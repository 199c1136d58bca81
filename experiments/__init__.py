"""Experiment sweeps over datasets, anonymizers and attacks: `python -m experiments.run sweep.yaml`."""
