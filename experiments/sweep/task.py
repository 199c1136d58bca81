"""The default task of a run: the run's anonymizer step, then the attack steps on what it publishes.

One run = load (or build) the dataset (:mod:`experiments.steps.datasets`; its rows: a text build's
composition, ``source_share_<source>``), run the anonymizer the
grid names (disassociation, Terrovitis2012, made safe on request, Awad2019; or a baseline of
Terrovitis2012 Figure 11: Apriori, DiffPart; or a plugin's), then each attack the sweep declares
(the cover problem of Barakat2016 and Awad2019, the semantic attack of AlShuhail2021, or a
plugin's) on the release it publishes, and keep the rows of the metrics the sweep asks for. The
steps are small adapters over the workbench's own APIs, nothing re-implemented; each declares its
metrics beside its code (:mod:`experiments.steps`). Every random step takes the run's seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corpora.common.errors import InputError
from experiments.plugins import load
from experiments.registry import ANONYMIZERS, ATTACKS
from experiments.steps.datasets import dataset_rows, load_named, load_run_dataset, loaded_names
from experiments.sweep.spec import DatasetSpec

__all__ = ["load_run_dataset", "resolve_dataset_label", "run_size", "run_task", "share_key"]


def resolve_dataset_label(ds: DatasetSpec, base_dir: str = ".") -> str:
    """The first of the entry's names that loads offline (a cached BMS file before its kosarak stand-in)."""
    problems = []
    for name in ds.names:
        try:
            load_named(name, base_dir)
            return name
        except (InputError, OSError) as exc:
            problems.append(f"{name}: {exc}")
    raise InputError("no dataset of [" + ", ".join(ds.names) + "] loads offline (" + "; ".join(problems) + ")")


def run_size(config: Mapping[str, Any]) -> float | None:
    """The term occurrences of a run's dataset when they are known without work (a registry dataset or file
    this process has loaded already, e.g. by :func:`resolve_dataset_label`); None for a text build or a
    dataset not loaded. The sweep starts the largest runs first when it has no cached seconds."""
    dconf = config["dataset"]
    if dconf.get("text") or not dconf.get("names"):
        return None
    name, base_dir = dconf["names"][0], str(config.get("base_dir", "."))
    if (name, base_dir) not in loaded_names():
        return None
    ds = load_named(name, base_dir)
    n = dconf.get("records")
    lengths = ds.lengths if n is None else ds.lengths[: int(n)]
    return float(lengths.sum())


def share_key(config: Mapping[str, Any]) -> str | None:
    """Runs with one key share their anonymizer's work (an anonymizer step's optional ``release_key``:
    disassociation's plain release, see :func:`experiments.steps.disassociation.release_key`); None: shares nothing.
    The runner runs the runs of one key one after the other in one worker, which computes the release once."""
    load()
    step = ANONYMIZERS.get(config.get("anonymizer", "disassociation"))
    key = getattr(step, "release_key", None)
    return key(config) if key is not None else None


def run_task(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Do one run of a sweep (see the module docstring); return its metric rows."""
    load()
    wanted = set(config["metrics"])
    ds = load_run_dataset(config["dataset"], int(config["seed"]), str(config.get("base_dir", ".")))
    rows, published = ANONYMIZERS.get(config.get("anonymizer", "disassociation")).run(config, ds)
    rows += dataset_rows(ds)
    if published is not None:
        attacks = config.get("attacks") or {}
        for name in ATTACKS.names():
            if name in attacks:
                rows += ATTACKS.get(name).run(attacks[name], published)
    return [r for r in rows if r["metric"] in wanted]
