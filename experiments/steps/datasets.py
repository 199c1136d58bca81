"""The dataset of a run: a registry name or path, or a text build (AlShuhail2021 ch. 5) at a density.

Datasets are cached per worker process, so the many runs of one worker load the kosarak file or
build a text once.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Any

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["load_named", "load_run_dataset"]


@functools.lru_cache(maxsize=8)
def load_named(name: str, base_dir: str) -> TransactionDataset:
    """A dataset of the registry, or a file (relative to the sweep file's folder when it exists there)."""
    from corpora.registry import load_dataset

    candidate = os.path.join(base_dir, name)
    if not os.path.isabs(name) and os.path.exists(candidate) and not os.path.exists(name):
        name = candidate
    return load_dataset(name)


@functools.lru_cache(maxsize=16)
def _load_text(source: str, density: float | None, seed: int,
               options: tuple[tuple[str, Any], ...]) -> TransactionDataset:
    from corpora.text.api import build_text_dataset

    return build_text_dataset(source, density=density, seed=seed, **dict(options))


def load_run_dataset(dconf: Mapping[str, Any], seed: int, base_dir: str = ".") -> TransactionDataset:
    """The dataset of a run: a registry name or path, or a text build at the run's density.

    ``records`` keeps the first N records (for size sweeps, Awad2019 Figure 7); a text build
    uses the entry's seed, or the run's seed when the entry gives none (so repeats sample
    different documents).
    """
    if dconf.get("text"):
        ds_seed = dconf["seed"] if dconf.get("seed") is not None else seed
        options = tuple(sorted((k, _freeze(v)) for k, v in dict(dconf.get("options") or {}).items()))
        if "part" not in dict(options):  # the attacked part, disjoint from the NGD reference part
            options = tuple(sorted((*options, ("part", "attacked"))))
        ds = _load_text(dconf["text"], dconf.get("density"), int(ds_seed), options)
    else:
        ds = load_named(dconf["names"][0], base_dir)
    n = dconf.get("records")
    if n is not None:
        if n > len(ds):
            raise InputError(f"dataset {dconf['label']}: records={n} but it has only {len(ds)} records")
        ds = ds.subset(range(n))
    return ds


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v
