"""The pieces of a published release: its clusters and joint clusters, its bounds and its parameters.

A simple cluster P (Terrovitis2012 section 3) has a size, record chunks (bags of sub-records; the
empty sub-records are implied by the size) and a term chunk; a joint cluster (Terrovitis2012 section
3, "Refining") groups clusters or other joint clusters and carries shared chunks. These dataclasses
are what the disassociation engine builds, what :class:`anonymizer.model.release.Release` shows as
its object view, and what the JSON writer serializes field by field (their fields are the format's
keys, in the format's order). A release's views are read-only: build new objects instead of
changing those of a release.

:func:`parse_params` is the one check of a release's ``params`` (both ways of building a release
from outside, :meth:`Release.from_dict` and :func:`anonymizer.model.arrays.validate`, use it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpora.common.errors import InputError

__all__ = ["RELEASE_FORMAT", "MAX_RECORDS", "MAX_JSON_BYTES", "SubRecord", "Chunk", "Cluster", "JointCluster",
           "parse_params", "published_terms", "is_int", "short"]

RELEASE_FORMAT = "disassociated/1"

MAX_RECORDS = 2**31 - 1
"""Upper bound on the records of a release (the sum of its cluster sizes), checked on load."""

MAX_JSON_BYTES = 4 * 2**30
"""Largest release or truth file read (bytes); larger files are refused before parsing."""

_PARAM_TYPES: dict[str, type] = {"max_cluster_size": int, "horpart": str, "verpart": str, "refine": bool,
                                 "safe": bool, "identifiers_allowed": bool}
"""Types of the optional known parameters (``k`` and ``m`` are required and checked separately)."""

SubRecord = tuple[str, ...]
"""A sub-record: its terms, sorted."""
Chunk = list[SubRecord]
"""A record chunk or shared chunk: its non-empty sub-records, in published order."""


@dataclass
class Cluster:
    """A simple cluster P: ``size`` records split into record chunks C_1..C_v and term chunk C_T."""

    id: str
    size: int
    record_chunks: list[Chunk] = field(default_factory=list)
    term_chunk: list[str] = field(default_factory=list)

    def chunk_terms(self, j: int) -> set[str]:
        """The term set T_j of record chunk ``j`` (0-based)."""
        return {t for sub in self.record_chunks[j] for t in sub}

    def __repr__(self) -> str:
        return (f"Cluster({self.id!r}, size={self.size}, record_chunks={len(self.record_chunks)}, "
                f"term_chunk_terms={len(self.term_chunk)})")

    def record_terms(self) -> set[str]:
        """All terms that appear in the cluster's record chunks."""
        return {t for chunk in self.record_chunks for sub in chunk for t in sub}

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "size": self.size,
            "record_chunks": [[list(sub) for sub in chunk] for chunk in self.record_chunks],
            "term_chunk": list(self.term_chunk),
        }


@dataclass
class JointCluster:
    """A joint cluster J (Terrovitis2012 section 3): children (cluster or joint-cluster ids) and shared chunks."""

    id: str
    children: list[str]
    shared_chunks: list[Chunk] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "children": list(self.children),
            "shared_chunks": [[list(sub) for sub in chunk] for chunk in self.shared_chunks],
        }


def published_terms(clusters: Iterable[Cluster], joint_clusters: Iterable[JointCluster]) -> list[str]:
    """Every term the clusters and joint clusters publish (record, term and shared chunks), sorted."""
    out: set[str] = set()
    for cluster in clusters:
        out.update(cluster.record_terms())
        out.update(cluster.term_chunk)
    for joint in joint_clusters:
        for chunk in joint.shared_chunks:
            for sub in chunk:
                out.update(sub)
    return sorted(out)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def short(value: object) -> str:
    """``repr`` of a value cut to a short prefix (error lines quote at most 60 characters)."""
    text = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def parse_params(raw: Any, source: str) -> dict[str, Any]:
    """``raw`` as a release's params (a new dict); :class:`InputError` naming the first bad one.

    ``k >= 2`` and ``m >= 1`` are integers, the known keys have their types, every value is a number,
    string or boolean, and no key names a seed (a release never publishes one, issue 22)."""
    if not isinstance(raw, Mapping):
        raise InputError(f"{source}: 'params' must be an object")
    for key in raw:
        if isinstance(key, str) and "seed" in key.lower():
            raise InputError(f"{source}: params.{key} is a seed, which must never be published (it replays the "
                             "random choices that hide the records); keep it in the truth file and make the "
                             "release again")
    params = dict(raw)
    k, m = params.get("k"), params.get("m")
    if not is_int(k) or k < 2:
        raise InputError(f"{source}: params.k must be an integer >= 2, got {short(k)}")
    if not is_int(m) or m < 1:
        raise InputError(f"{source}: params.m must be an integer >= 1, got {short(m)}")
    for key, value in params.items():
        want = _PARAM_TYPES.get(key)
        if want is int and not (is_int(value) and value >= k):
            raise InputError(f"{source}: params.{key} must be an integer >= k, got {short(value)}")
        if want is not None and not isinstance(value, want):
            raise InputError(f"{source}: params.{key} must be a {want.__name__}, got {short(value)}")
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise InputError(f"{source}: params.{key} must be a number, string or boolean, got {short(value)}")
    return params
