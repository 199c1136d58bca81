"""The release of the baselines: ``generalized/1`` (Apriori's generalized records, DiffPart's noisy records).

One JSON object, UTF-8::

    {
      "format": "generalized/1",
      "method": "apriori",                       # or "diffpart"
      "params": {"k": 5, "m": 2, "hierarchy": "fanout:5"},   # diffpart: {"epsilon": 1.0, "hierarchy": ..., ...}
      "hierarchy": {"source": "fanout:5", "nodes": [["*", null], ["1..5", 0], ["1", 1], ...]},
      "generalized": ["1..5", "6..10"],          # apriori: the internal nodes of the global cut
      "records": [["1..5", "17"], ["1..5"], ...]
    }

* ``hierarchy`` is inline (depth-first preorder, each node ``[label, index of its parent]``; the
  root first, with ``null``), so the file can be read, checked and scored without anything else.
* ``generalized`` (Apriori only) lists the internal nodes that the global full-subtree recoding
  maps leaves to: every leaf under one of them is published as that node, every other leaf as
  itself. The nodes must be internal and none may lie under another.
* ``records`` are the published records, each a sorted list of distinct node labels, the records
  sorted (so the file says nothing about the input's record order). Apriori: every item is a
  ``generalized`` node or a leaf under none of them. DiffPart: every item is a leaf.
* Nothing in the file lets anyone recompute a random choice: DiffPart's seed is never written
  here; :class:`OwnerFile` (``generalized-owner/1``) keeps it for the data owner, like the truth
  file of disassociation.

:func:`load_generalized` validates all of this before any work (size-bounded read, types,
labels, the cut, every record item); every problem is one :class:`InputError` line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from anonymizer.baselines.hierarchy import Hierarchy
from corpora.common.errors import InputError
from corpora.common.files import parse_json, read_text_bounded, write_json_atomic, write_text_atomic
from corpora.common.seeds import check_seed

if TYPE_CHECKING:  # the dataset class (and scipy) load only when a release is turned into one
    from corpora.dataset import TransactionDataset

__all__ = ["GENERALIZED_FORMAT", "OWNER_FORMAT", "METHODS", "GeneralizedRelease", "OwnerFile",
           "load_generalized", "save_generalized", "load_owner", "save_owner", "release_format", "MAX_JSON_BYTES"]

GENERALIZED_FORMAT = "generalized/1"
OWNER_FORMAT = "generalized-owner/1"
METHODS = ("apriori", "diffpart")
MAX_JSON_BYTES = 4 * 2**30
MAX_RECORDS = 2**31 - 1


@dataclass
class GeneralizedRelease:
    """A published baseline release: method, public parameters, the hierarchy, the cut, the records."""

    method: str
    params: dict[str, Any]
    hierarchy: Hierarchy
    records: list[tuple[str, ...]]
    generalized: list[str] = field(default_factory=list)

    @property
    def n_records(self) -> int:
        return len(self.records)

    @property
    def k(self) -> int | None:
        return self.params.get("k")

    @property
    def m(self) -> int | None:
        return self.params.get("m")

    def dataset(self, name: str = "published") -> TransactionDataset:
        """The records as a :class:`TransactionDataset` (items are node labels)."""
        from corpora.dataset import TransactionDataset

        return TransactionDataset.from_records(self.records, name=name)

    def leaf_map(self) -> np.ndarray:
        """Node published for each leaf (leaf order): the cut node above it, else the leaf itself."""
        h = self.hierarchy
        out = h.leaf_nodes.astype(np.int64).copy()
        for label in self.generalized:
            n = h.index[label]
            out[h.leaf_lo[n]:h.leaf_hi[n]] = n
        return out

    def to_dict(self) -> dict[str, Any]:
        return {**self._header(), "records": [list(r) for r in self.records]}

    def to_json_text(self) -> str:
        """``json.dumps(self.to_dict(), ensure_ascii=False)``, without copying every record into a list first
        (the encoder writes a tuple as an array)."""
        return json.dumps({**self._header(), "records": self.records}, ensure_ascii=False)

    def _header(self) -> dict[str, Any]:
        return {"format": GENERALIZED_FORMAT, "method": self.method, "params": dict(self.params),
                "hierarchy": self.hierarchy.to_dict(), "generalized": list(self.generalized)}

    @classmethod
    def from_json(cls, obj: Any, source: str = "release") -> GeneralizedRelease:
        """Parse and validate (see the module docstring); raises :class:`InputError` naming the problem."""
        method, params = _parse_header(obj, source)
        hierarchy = Hierarchy.from_json(obj.get("hierarchy"), source=source)
        gen_nodes = _parse_cut(obj.get("generalized", []), hierarchy, method, source)
        allowed = _allowed_nodes(hierarchy, gen_nodes, method)
        records = _parse_records(obj.get("records"), hierarchy.index, allowed, method, source)
        return cls(method, params, hierarchy, records, [hierarchy.labels[n] for n in gen_nodes])


def _parse_header(obj: Any, source: str) -> tuple[str, dict[str, Any]]:
    """The format, the method and its public parameters (scalars; no seed; Apriori's k, m or DiffPart's epsilon)."""
    if not isinstance(obj, Mapping):
        raise InputError(f"{source}: expected a JSON object")
    if obj.get("format") != GENERALIZED_FORMAT:
        raise InputError(f"{source}: 'format' must be {GENERALIZED_FORMAT!r}")
    method = obj.get("method")
    if method not in METHODS:
        raise InputError(f"{source}: 'method' must be one of {', '.join(METHODS)}, got {_short(method)}")
    params = obj.get("params")
    if not isinstance(params, Mapping):
        raise InputError(f"{source}: 'params' must be an object")
    params = dict(params)
    if "seed" in params:
        raise InputError(f"{source}: params.seed: a release must not carry its seed (keep it in the owner file)")
    for key, value in params.items():
        if not isinstance(value, (str, int, float, bool)) or value is None:
            raise InputError(f"{source}: params.{key} must be a number, string or boolean")
    if method == "apriori":
        for key, low in (("k", 2), ("m", 1)):
            v = params.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise InputError(f"{source}: params.{key} must be an integer >= {low}, got {_short(v)}")
    else:
        eps = params.get("epsilon")
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < float("inf"):
            raise InputError(f"{source}: params.epsilon must be a positive number, got {_short(eps)}")
    return method, params


def _parse_cut(raw_gen: Any, hierarchy: Hierarchy, method: str, source: str) -> list[int]:
    """The generalized nodes, sorted: known internal nodes, each once, none under another; none for DiffPart."""
    if not isinstance(raw_gen, list) or not all(isinstance(g, str) for g in raw_gen):
        raise InputError(f"{source}: 'generalized' must be a list of node labels")
    if method == "diffpart" and raw_gen:
        raise InputError(f"{source}: 'generalized' must be empty for a diffpart release")
    index = hierarchy.index
    gen_nodes = []
    for g in raw_gen:
        n = index.get(g)
        if n is None:
            raise InputError(f"{source}: generalized node {_short(g)} is not in the hierarchy")
        if hierarchy.is_leaf[n]:
            raise InputError(f"{source}: generalized node {_short(g)} is a leaf, not an internal node")
        gen_nodes.append(n)
    gen_nodes.sort()
    if len(set(gen_nodes)) != len(gen_nodes):
        raise InputError(f"{source}: 'generalized' lists a node twice")
    for a, b in zip(gen_nodes, gen_nodes[1:], strict=False):
        if hierarchy.is_ancestor(a, b):
            raise InputError(f"{source}: generalized nodes {hierarchy.labels[a]!r} and {hierarchy.labels[b]!r} "
                             "overlap (one lies under the other)")
    return gen_nodes


def _allowed_nodes(hierarchy: Hierarchy, gen_nodes: list[int], method: str) -> np.ndarray:
    """Per node, whether a record may hold it: the cut and the leaves under none of it (Apriori), leaves (DiffPart)."""
    if method != "apriori":
        return hierarchy.is_leaf.copy()
    allowed = np.zeros(len(hierarchy), dtype=bool)
    mapped = np.zeros(len(hierarchy), dtype=bool)
    for n in gen_nodes:
        mapped[n:hierarchy.end[n]] = True
        allowed[n] = True
    allowed |= hierarchy.is_leaf & ~mapped
    return allowed


def _parse_records(raw: Any, index: Mapping[str, int], allowed: np.ndarray, method: str,
                   source: str) -> list[tuple[str, ...]]:
    """The records, each a sorted tuple of distinct allowed node labels."""
    if not isinstance(raw, list):
        raise InputError(f"{source}: 'records' must be a list of records")
    if len(raw) > MAX_RECORDS:
        raise InputError(f"{source}: more than {MAX_RECORDS} records")
    records: list[tuple[str, ...]] = []
    for i, rec in enumerate(raw):
        if not isinstance(rec, list) or not all(isinstance(t, str) for t in rec):
            raise InputError(f"{source}: records[{i}] must be a list of node labels")
        nodes = [index.get(t, -1) for t in rec]
        if min(nodes, default=0) < 0:
            bad = rec[nodes.index(-1)]
            raise InputError(f"{source}: records[{i}]: item {_short(bad)} is not in the hierarchy")
        if len(set(rec)) != len(rec):
            raise InputError(f"{source}: records[{i}] repeats an item")
        if not all(allowed[n] for n in nodes):
            bad = rec[next(j for j, n in enumerate(nodes) if not allowed[n])]
            what = ("neither a generalized node nor a leaf outside them" if method == "apriori"
                    else "not a leaf of the hierarchy")
            raise InputError(f"{source}: records[{i}]: item {_short(bad)} is {what}")
        records.append(tuple(sorted(rec)))
    return records


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class OwnerFile:
    """What the data owner keeps beside a baseline release (never published): the seed of its random choices."""

    method: str
    seed: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"format": OWNER_FORMAT, "method": self.method, "seed": self.seed}

    @classmethod
    def from_json(cls, obj: Any, source: str = "owner file") -> OwnerFile:
        if not isinstance(obj, Mapping) or obj.get("format") != OWNER_FORMAT:
            raise InputError(f"{source}: not an owner file ('format' must be {OWNER_FORMAT!r})")
        seed = obj.get("seed")
        return cls(str(obj.get("method")), None if seed is None else check_seed(seed, f"{source}: seed"))


def _read(path: str | os.PathLike[str]) -> Any:
    text = read_text_bounded(path, MAX_JSON_BYTES)
    if not text.strip():
        raise InputError(f"{path}: file is empty")
    return parse_json(text, str(path))


def release_format(obj: Any) -> str | None:
    """The ``format`` of a parsed release object (None if it has none)."""
    return obj.get("format") if isinstance(obj, Mapping) and isinstance(obj.get("format"), str) else None


def load_generalized(path: str | os.PathLike[str]) -> GeneralizedRelease:
    """Read and validate a ``generalized/1`` file."""
    return GeneralizedRelease.from_json(_read(path), source=str(path))


def save_generalized(release: GeneralizedRelease, path: str | os.PathLike[str]) -> None:
    write_text_atomic(path, release.to_json_text() + "\n")


def load_owner(path: str | os.PathLike[str]) -> OwnerFile:
    return OwnerFile.from_json(_read(path), source=str(path))


def save_owner(owner: OwnerFile, path: str | os.PathLike[str]) -> None:
    write_json_atomic(path, owner.to_dict())
