"""The published disassociated dataset (`Release`) and the never-published `Truth` beside it.

Both follow the file formats of the project's design (``disassociated/1`` and
``disassociated-truth/1``). A release holds clusters (Terrovitis2012 section 3): each cluster has
its size, its record chunks (bags of sub-records; the empty sub-records are implied by the size)
and its term chunk; joint clusters (Terrovitis2012 section 3, "Refining") group clusters or
other joint clusters and carry shared chunks. Nothing in a release links sub-records of one
record: the truth file does, and only experiments read it to score attacks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpora.errors import InputError
from corpora.files import write_json_atomic

__all__ = [
    "RELEASE_FORMAT",
    "TRUTH_FORMAT",
    "Chunk",
    "Cluster",
    "JointCluster",
    "Release",
    "ClusterTruth",
    "JointClusterTruth",
    "Truth",
    "load_release",
    "load_truth",
    "save_release",
    "save_truth",
]

RELEASE_FORMAT = "disassociated/1"
TRUTH_FORMAT = "disassociated-truth/1"

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

    def record_terms(self) -> set[str]:
        """All terms that appear in the cluster's record chunks."""
        return {t for chunk in self.record_chunks for sub in chunk for t in sub}

    def to_json(self) -> dict[str, Any]:
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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "children": list(self.children),
            "shared_chunks": [[list(sub) for sub in chunk] for chunk in self.shared_chunks],
        }


@dataclass
class Release:
    """A disassociated dataset as published: parameters, clusters and joint clusters."""

    params: dict[str, Any]
    clusters: list[Cluster]
    joint_clusters: list[JointCluster] = field(default_factory=list)

    @property
    def k(self) -> int:
        return int(self.params["k"])

    @property
    def m(self) -> int:
        return int(self.params["m"])

    @property
    def n_records(self) -> int:
        """Number of records of the original dataset (the sum of the cluster sizes)."""
        return sum(c.size for c in self.clusters)

    def cluster_by_id(self) -> dict[str, Cluster]:
        return {c.id: c for c in self.clusters}

    def leaves(self, joint_id: str) -> list[Cluster]:
        """The simple clusters under one joint cluster, in depth-first child order.

        To visit every joint cluster, use :meth:`joint_leaves` (one pass over the release).
        """
        return self.joint_leaves()[joint_id]

    def joint_leaves(self) -> dict[str, list[Cluster]]:
        """The simple clusters under every joint cluster, in depth-first child order.

        Children are defined before their parents (the release format requires it), so one pass
        in listed order builds every list from its children's lists.
        """
        simple = self.cluster_by_id()
        out: dict[str, list[Cluster]] = {}
        for joint in self.joint_clusters:
            leaves: list[Cluster] = []
            for child in joint.children:
                leaves.extend([simple[child]] if child in simple else out[child])
            out[joint.id] = leaves
        return out

    def iter_record_chunks(self) -> Iterator[tuple[Cluster, int, Chunk]]:
        """Every (cluster, chunk index, chunk) in release order."""
        for cluster in self.clusters:
            for j, chunk in enumerate(cluster.record_chunks):
                yield cluster, j, chunk

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RELEASE_FORMAT,
            "params": dict(self.params),
            "clusters": [c.to_json() for c in self.clusters],
            "joint_clusters": [j.to_json() for j in self.joint_clusters],
        }

    @classmethod
    def from_json(cls, obj: Any, source: str = "release") -> Release:
        """Parse and validate a release object; raises :class:`InputError` naming what is wrong."""
        if not isinstance(obj, Mapping):
            raise InputError(f"{source}: expected a JSON object")
        if obj.get("format") != RELEASE_FORMAT:
            raise InputError(f"{source}: 'format' must be {RELEASE_FORMAT!r}, got {obj.get('format')!r}")
        params = obj.get("params")
        if not isinstance(params, Mapping):
            raise InputError(f"{source}: 'params' must be an object")
        for key in ("k", "m"):
            if not isinstance(params.get(key), int) or isinstance(params.get(key), bool):
                raise InputError(f"{source}: params.{key} must be an integer")
        clusters_raw = obj.get("clusters")
        if not isinstance(clusters_raw, list):
            raise InputError(f"{source}: 'clusters' must be a list")
        clusters = []
        seen: set[str] = set()
        for i, c in enumerate(clusters_raw):
            where = f"{source}: clusters[{i}]"
            if not isinstance(c, Mapping):
                raise InputError(f"{where}: expected an object")
            cid = c.get("id")
            if not isinstance(cid, str) or cid in seen:
                raise InputError(f"{where}: 'id' must be a unique string")
            seen.add(cid)
            size = c.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise InputError(f"{where}: 'size' must be a non-negative integer")
            chunks = _parse_chunks(c.get("record_chunks"), f"{where}.record_chunks")
            for j, chunk in enumerate(chunks):
                if len(chunk) > size:
                    raise InputError(f"{where}.record_chunks[{j}]: {len(chunk)} sub-records exceed size {size}")
            term_chunk = c.get("term_chunk", [])
            if not isinstance(term_chunk, list) or not all(isinstance(t, str) and t for t in term_chunk):
                raise InputError(f"{where}: 'term_chunk' must be a list of non-empty strings")
            clusters.append(Cluster(cid, size, chunks, list(term_chunk)))
        joints = []
        for i, j in enumerate(obj.get("joint_clusters", []) or []):
            where = f"{source}: joint_clusters[{i}]"
            if not isinstance(j, Mapping):
                raise InputError(f"{where}: expected an object")
            jid = j.get("id")
            if not isinstance(jid, str) or jid in seen:
                raise InputError(f"{where}: 'id' must be a unique string")
            children = j.get("children")
            if not isinstance(children, list) or not all(isinstance(ch, str) and ch in seen for ch in children):
                raise InputError(f"{where}: 'children' must list ids of clusters defined before it")
            seen.add(jid)
            shared = _parse_chunks(j.get("shared_chunks"), f"{where}.shared_chunks")
            joints.append(JointCluster(jid, list(children), shared))
        return cls(dict(params), clusters, joints)


def _parse_chunks(raw: Any, where: str) -> list[Chunk]:
    if not isinstance(raw, list):
        raise InputError(f"{where}: must be a list of chunks")
    chunks: list[Chunk] = []
    for j, chunk in enumerate(raw):
        if not isinstance(chunk, list):
            raise InputError(f"{where}[{j}]: a chunk must be a list of sub-records")
        subs: Chunk = []
        for s, sub in enumerate(chunk):
            if not isinstance(sub, list) or not sub or not all(isinstance(t, str) and t for t in sub):
                raise InputError(f"{where}[{j}][{s}]: a sub-record must be a non-empty list of strings")
            subs.append(tuple(sorted(set(sub))))
        chunks.append(subs)
    return chunks


@dataclass
class ClusterTruth:
    """Which original record stands behind each published piece of one cluster.

    ``records`` are the cluster's record ids; ``record_chunks[j][p]`` is the record of the p-th
    listed sub-record of chunk j (-1 for a ghost sub-record of safe disassociation);
    ``term_chunk[t]`` lists the records holding term t.
    """

    id: str
    records: list[int]
    record_chunks: list[list[int]] = field(default_factory=list)
    term_chunk: dict[str, list[int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "records": list(self.records),
            "record_chunks": [list(ch) for ch in self.record_chunks],
            "term_chunk": {t: list(r) for t, r in self.term_chunk.items()},
        }


@dataclass
class JointClusterTruth:
    """``shared_chunks[j][p]`` is the record of the p-th listed sub-record of shared chunk j."""

    id: str
    shared_chunks: list[list[int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "shared_chunks": [list(ch) for ch in self.shared_chunks]}


@dataclass
class Truth:
    """The secret link between a release and the original record ids (never published)."""

    clusters: list[ClusterTruth]
    joint_clusters: list[JointClusterTruth] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": TRUTH_FORMAT,
            "clusters": [c.to_json() for c in self.clusters],
            "joint_clusters": [j.to_json() for j in self.joint_clusters],
        }

    @classmethod
    def from_json(cls, obj: Any, source: str = "truth") -> Truth:
        if not isinstance(obj, Mapping) or obj.get("format") != TRUTH_FORMAT:
            raise InputError(f"{source}: not a truth file ('format' must be {TRUTH_FORMAT!r})")
        try:
            clusters = [
                ClusterTruth(
                    str(c["id"]),
                    [int(r) for r in c["records"]],
                    [[int(r) for r in ch] for ch in c.get("record_chunks", [])],
                    {str(t): [int(r) for r in rs] for t, rs in c.get("term_chunk", {}).items()},
                )
                for c in obj["clusters"]
            ]
            joints = [
                JointClusterTruth(str(j["id"]), [[int(r) for r in ch] for ch in j.get("shared_chunks", [])])
                for j in obj.get("joint_clusters", [])
            ]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"{source}: malformed truth file ({exc.__class__.__name__}: {exc})") from None
        return cls(clusters, joints)

    def check_against(self, release: Release) -> None:
        """Raise :class:`InputError` unless this truth describes ``release`` piece for piece."""
        if [c.id for c in self.clusters] != [c.id for c in release.clusters]:
            raise InputError("truth and release list different clusters")
        for c, t in zip(release.clusters, self.clusters, strict=True):
            if len(t.records) != c.size or [len(ch) for ch in c.record_chunks] != [len(ch) for ch in t.record_chunks]:
                raise InputError(f"truth and release disagree on cluster {c.id}")


def _read_json(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if not text.strip():
        raise InputError(f"{path}: file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def load_release(path: str | os.PathLike[str]) -> Release:
    """Read and validate a release file."""
    return Release.from_json(_read_json(path), source=str(path))


def load_truth(path: str | os.PathLike[str]) -> Truth:
    """Read and validate a truth file."""
    return Truth.from_json(_read_json(path), source=str(path))


def save_release(release: Release, path: str | os.PathLike[str]) -> None:
    """Write a release file atomically."""
    write_json_atomic(path, release.to_json())


def save_truth(truth: Truth, path: str | os.PathLike[str]) -> None:
    """Write a truth file atomically."""
    write_json_atomic(path, truth.to_json())
