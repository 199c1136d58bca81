"""The dataset of a run: a registry name or path, or a text build (AlShuhail2021 ch. 5) at a density.

Datasets are cached per worker process, so the many runs of one worker load the kosarak file or
build a text once.

The dataset step's metrics (:data:`DATASET_METRICS`, step ``dataset``; issue 24): a text build's
composition, the share of the attacked transactions from each text source,
``source_share_<source>`` (``source_share_lee``, ``source_share_wiki_sample``,
``source_share_newsgroups_sample``, ``source_share_reuters``; 0 for a source the build does not
draw on), from the build's ``composition`` metadata (:mod:`corpora.text.composition`). A pooled
build can be almost all one source (198 of 200 Reuters at density 0.3), which a reader of the
figures must know. A dataset that is not a text build gives no such row.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import os
from collections.abc import Mapping
from typing import Any

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.text.composition import composition, record_sources
from corpora.text.parameters import POOL_SOURCES
from experiments.steps.base import MetricInfo, Row, row

__all__ = ["DATASET_METRICS", "dataset_rows", "load_named", "load_run_dataset", "loaded_names", "source_share_metric"]


def source_share_metric(source: str) -> str:
    """The metric name of a text source's share of the attacked transactions (``source_share_wiki_sample``)."""
    return "source_share_" + source.replace("-", "_")


DATASET_METRICS = tuple(
    MetricInfo(source_share_metric(name), "dataset", f"share of the transactions from {name}", fraction=True)
    for name in POOL_SOURCES
)


def dataset_rows(ds: TransactionDataset) -> list[Row]:
    """The dataset step's rows: each text source's share of the transactions of a text build (none otherwise)."""
    counts = ds.metadata.get("composition") if isinstance(ds.metadata, dict) else None
    if not isinstance(counts, dict) or not len(ds):
        return []
    counts = composition((), POOL_SOURCES) | counts
    return [row(source_share_metric(name), n / len(ds)) for name, n in counts.items() if name in POOL_SOURCES]


_NAMED: collections.OrderedDict[tuple[str, str], TransactionDataset] = collections.OrderedDict()
_NAMED_KEPT = 16
"""Datasets kept per process (least recently used dropped first): a paper sweep names at most 12, so runs started
longest first, which mixes the datasets, load each one once per worker."""


def load_named(name: str, base_dir: str) -> TransactionDataset:
    """A dataset of the registry, or a file (relative to the sweep file's folder when it exists there)."""
    key = (name, base_dir)
    if key in _NAMED:
        _NAMED.move_to_end(key)
        return _NAMED[key]
    from corpora.registry import load_dataset

    candidate = os.path.join(base_dir, name)
    if not os.path.isabs(name) and os.path.exists(candidate) and not os.path.exists(name):
        name = candidate
    ds = _NAMED[key] = load_dataset(name)
    while len(_NAMED) > _NAMED_KEPT:
        _NAMED.popitem(last=False)
    return ds


def loaded_names() -> frozenset[tuple[str, str]]:
    """The (name, base_dir) of the datasets :func:`load_named` holds in this process now."""
    return frozenset(_NAMED)


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
        kept = ds.subset(range(n))
        if "composition" in ds.metadata:  # the kept records' composition, not the whole build's
            meta = dict(kept.metadata, documents=list(ds.metadata["documents"])[:n],
                        composition=composition(record_sources(ds.metadata)[:n], POOL_SOURCES))
            kept = dataclasses.replace(kept, metadata=meta)
        ds = kept
    return ds


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v
