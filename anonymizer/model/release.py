"""The published disassociated dataset: one immutable :class:`Release` with two faces.

A release follows the ``disassociated/1`` file format of the project's design: parameters, simple
clusters (Terrovitis2012 section 3: a size, record chunks and a term chunk) and joint clusters
(Terrovitis2012 section 3, "Refining": children and shared chunks); :mod:`anonymizer.model.clusters`
defines the pieces. Nothing in a release links sub-records of one record: the truth
(:mod:`anonymizer.model.truth`, never published) does, and only experiments read it to score attacks.
The seed of the random choices is kept in the truth, never in the release (:mod:`corpora.common.seeds`).

One value, two faces
--------------------
A :class:`Release` is either built by the engine from cluster objects (``Release(params, clusters,
joint_clusters)``) or read from a file into flat numpy arrays (:meth:`Release.from_arrays`, see
:mod:`anonymizer.model.arrays`). Both faces are always available: :attr:`Release.clusters` /
:attr:`Release.joint_clusters` (read-only object views) and :attr:`Release.arrays`
(:class:`~anonymizer.model.arrays.ReleaseArrays`); whichever the release did not start from is built
once, on first use, and kept. So the engine never pays for arrays it does not ask for, and a large
release read from a file never builds millions of Python objects unless a command wants them.
:attr:`Release.has_arrays` tells a hot path whether the arrays are already there.

A release never changes after it is made: its attributes cannot be assigned, its ``params`` are a
read-only mapping, and its views are tuples; :meth:`Release.with_params` gives a release with other
parameters (the same clusters).

Validation
----------
Every release that comes from outside is checked before any work starts: :meth:`Release.from_dict`
for a JSON object, and :func:`anonymizer.model.arrays.validate` (run by :meth:`Release.from_arrays`
unless the reader already ran it) for arrays. Both apply the same rules and word their errors the
same way: ``params`` as :func:`anonymizer.model.clusters.parse_params` wants them (``k >= 2``,
``m >= 1``, no seed: a release whose params carry one is refused, issue 22), every field of its type,
cluster sizes positive integers that hold the sub-records listed in each of their chunks, all sizes
together at most :data:`MAX_RECORDS`, children defined before their parent. Reading files (and their
size bound and JSON nesting) is :mod:`anonymizer.io.release_files`'s job; the model reads no file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from anonymizer.model.arrays import ReleaseArrays, from_objects, validate
from anonymizer.model.clusters import (
    MAX_JSON_BYTES,
    MAX_RECORDS,
    RELEASE_FORMAT,
    Chunk,
    Cluster,
    JointCluster,
    SubRecord,
    is_int,
    parse_params,
    published_terms,
    short,
)
from anonymizer.model.truth import TRUTH_FORMAT, ClusterTruth, JointClusterTruth, Truth
from corpora.common.errors import InputError
from corpora.common.files import parsed_json

__all__ = [
    "RELEASE_FORMAT",
    "TRUTH_FORMAT",
    "MAX_RECORDS",
    "MAX_JSON_BYTES",
    "Chunk",
    "SubRecord",
    "Cluster",
    "JointCluster",
    "Release",
    "ClusterTruth",
    "JointClusterTruth",
    "Truth",
]

_FIELDS = ("_params", "_clusters", "_joints", "_arrays", "_validated")


class Release:
    """A disassociated dataset as published: parameters, clusters and joint clusters (module docstring).

    ``Release(params, clusters, joint_clusters)`` wraps objects the engine built (they are not
    checked: use :meth:`from_dict` for data from outside); :meth:`from_arrays` wraps arrays read
    from a file. Immutable; equal releases have equal params, clusters and joint clusters.
    """

    __slots__ = (*_FIELDS, "__weakref__")

    _params: Mapping[str, Any]
    _clusters: tuple[Cluster, ...] | None
    _joints: tuple[JointCluster, ...] | None
    _arrays: ReleaseArrays | None
    _validated: bool

    def __init__(self, params: Mapping[str, Any], clusters: Iterable[Cluster],
                 joint_clusters: Iterable[JointCluster] = ()) -> None:
        self._init(params, tuple(clusters), tuple(joint_clusters), None)

    def _init(self, params: Mapping[str, Any], clusters: tuple[Cluster, ...] | None,
              joints: tuple[JointCluster, ...] | None, arrays: ReleaseArrays | None, validated: bool = False) -> None:
        values = (MappingProxyType(dict(params)), clusters, joints, arrays, validated)
        for name, value in zip(_FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    @classmethod
    def from_arrays(cls, arrays: ReleaseArrays, source: str = "release") -> Release:
        """The release held by ``arrays`` (checked by :func:`~anonymizer.model.arrays.validate` first,
        unless a reader already did); its cluster objects are built on first use."""
        if not arrays.checked:
            validate(arrays, source)
        release = cls.__new__(cls)
        release._init(arrays.params, None, None, arrays, True)
        return release

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Release cannot be changed (tried to set {name!r}); build a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Release cannot be changed (tried to delete {name!r})")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # pickle and copy: the faces the release holds
        return _restore, (dict(self._params), self._clusters, self._joints, self._arrays, self._validated)

    def with_params(self, **changes: Any) -> Release:
        """This release with ``changes`` applied to its params (keys kept in order, new ones last)."""
        release = Release.__new__(Release)
        arrays = self._arrays
        if arrays is not None:
            arrays = ReleaseArrays(**{**vars(arrays), "params": {**self._params, **changes}, "checked": False})
        release._init({**self._params, **changes}, self._clusters, self._joints, arrays)
        return release

    # ---- the two faces ----------------------------------------------------------------------------

    @property
    def params(self) -> Mapping[str, Any]:
        """The parameters, read-only (``dict(release.params)`` for a copy)."""
        return self._params

    @property
    def clusters(self) -> tuple[Cluster, ...]:
        """The simple clusters, in published order (built from the arrays on first use)."""
        if self._clusters is None:
            self._build_objects()
        return self._clusters  # type: ignore[return-value]

    @property
    def joint_clusters(self) -> tuple[JointCluster, ...]:
        """The joint clusters, children before parents (built from the arrays on first use)."""
        if self._joints is None:
            self._build_objects()
        return self._joints  # type: ignore[return-value]

    def _build_objects(self) -> None:
        clusters, joints = self._arrays.to_objects()  # type: ignore[union-attr]
        object.__setattr__(self, "_clusters", tuple(clusters))
        object.__setattr__(self, "_joints", tuple(joints))

    @property
    def arrays(self) -> ReleaseArrays:
        """The release as flat arrays (made from the cluster objects on first use, then kept)."""
        if self._arrays is None:
            object.__setattr__(self, "_arrays", from_objects(dict(self._params), self.clusters, self.joint_clusters))
        return self._arrays  # type: ignore[return-value]

    @property
    def has_arrays(self) -> bool:
        """True when :attr:`arrays` costs nothing (read from a file, or made already)."""
        return self._arrays is not None

    @property
    def validated(self) -> bool:
        """True when the release was made from arrays that :func:`~anonymizer.model.arrays.validate`
        accepted (:meth:`from_arrays`: every sub-record a sorted tuple of distinct terms, every bound checked)."""
        return self._validated

    # ---- what the release says ----------------------------------------------------------------------

    @property
    def k(self) -> int:
        return int(self._params["k"])

    @property
    def m(self) -> int:
        return int(self._params["m"])

    @property
    def n_records(self) -> int:
        """Number of records of the original dataset (the sum of the cluster sizes)."""
        if self._clusters is None:
            return self.arrays.n_records
        return sum(c.size for c in self._clusters)

    def cluster_sizes(self) -> dict[str, int]:
        """Cluster id -> size, from whichever face the release holds."""
        if self._clusters is None:
            a = self.arrays
            return dict(zip(a.cluster_ids, a.cluster_size.tolist(), strict=True))
        return {c.id: c.size for c in self._clusters}

    def cluster_by_id(self) -> dict[str, Cluster]:
        return {c.id: c for c in self.clusters}

    def terms(self) -> list[str]:
        """Every term the release publishes (record, term and shared chunks), sorted."""
        if self._clusters is None:
            return self.arrays.used_terms()
        return published_terms(self.clusters, self.joint_clusters)

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RELEASE_FORMAT,
            "params": dict(self._params),
            "clusters": [c.to_dict() for c in self.clusters],
            "joint_clusters": [j.to_dict() for j in self.joint_clusters],
        }

    def to_json(self, indent: int | None = None) -> str:
        """The release as a JSON text (the ``disassociated/1`` file's content)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_frame(self) -> Any:
        """One row per simple cluster: its id, size, record chunks, listed sub-records, term-chunk terms,
        and the joint cluster directly above it (a pandas DataFrame; counts only, no terms)."""
        import pandas as pd

        parent = {child: j.id for j in self.joint_clusters for child in j.children}
        return pd.DataFrame([{"cluster": c.id, "size": c.size, "record_chunks": len(c.record_chunks),
                              "sub_records": sum(len(ch) for ch in c.record_chunks),
                              "term_chunk_terms": len(c.term_chunk), "joint_cluster": parent.get(c.id)}
                             for c in self.clusters])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Release):
            return NotImplemented
        return (self._params, self.clusters, self.joint_clusters) == (other._params, other.clusters,
                                                                       other.joint_clusters)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        p = self._params
        extra = "".join(f", {key}={p[key]!r}" for key in ("max_cluster_size", "safe") if key in p)
        if self._clusters is None:
            a = self.arrays
            counts = (a.n_records, a.n_clusters, len(a.joint_ids), int(a.chunk_off[-1]))
        else:
            counts = (self.n_records, len(self._clusters), len(self.joint_clusters),
                      sum(len(c.record_chunks) for c in self._clusters))
        return (f"Release(k={p.get('k')}, m={p.get('m')}{extra}, records={counts[0]}, "
                f"clusters={counts[1]}, joint_clusters={counts[2]}, record_chunks={counts[3]})")

    # ---- from outside ---------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, obj: Any, source: str = "release") -> Release:
        """Parse and validate a release given as JSON text or as the parsed object (:meth:`from_dict`)."""
        return cls.from_dict(parsed_json(obj, source), source)

    @classmethod
    def from_dict(cls, obj: Any, source: str = "release") -> Release:
        """Parse and validate a release object; raises :class:`InputError` naming what is wrong.

        A release whose params carry a seed is refused (see the module docstring).
        """
        if not isinstance(obj, Mapping):
            raise InputError(f"{source}: expected a JSON object")
        if obj.get("format") != RELEASE_FORMAT:
            raise InputError(f"{source}: 'format' must be {RELEASE_FORMAT!r}, got {short(obj.get('format'))}")
        params = parse_params(obj.get("params"), source)
        seen: set[str] = set()
        clusters = _parse_clusters(obj.get("clusters"), source, seen)
        joints = _parse_joints(obj.get("joint_clusters", []), source, seen)
        return cls(params, clusters, joints)


def _restore(params: dict[str, Any], clusters: tuple[Cluster, ...] | None, joints: tuple[JointCluster, ...] | None,
             arrays: ReleaseArrays | None, validated: bool) -> Release:
    release = Release.__new__(Release)
    release._init(params, clusters, joints, arrays, validated)
    return release


def _entry_id(entry: Any, where: str, seen: set[str], remember: bool = True) -> str:
    """The id of a cluster or joint cluster object: a non-empty string no earlier entry used."""
    if not isinstance(entry, Mapping):
        raise InputError(f"{where}: expected an object")
    name = entry.get("id")
    if not isinstance(name, str) or not name or name in seen:
        raise InputError(f"{where}: 'id' must be a unique non-empty string")
    if remember:
        seen.add(name)
    return name


def _parse_clusters(raw: Any, source: str, seen: set[str]) -> list[Cluster]:
    if not isinstance(raw, list):
        raise InputError(f"{source}: 'clusters' must be a list")
    clusters = []
    total = 0
    for i, c in enumerate(raw):
        where = f"{source}: clusters[{i}]"
        cid = _entry_id(c, where, seen)
        size = c.get("size")
        if not is_int(size) or not 1 <= size <= MAX_RECORDS:
            raise InputError(f"{where}: 'size' must be a positive integer of at most {MAX_RECORDS}, "
                             f"got {short(size)}")
        total += size
        if total > MAX_RECORDS:
            raise InputError(f"{where}: the cluster sizes add up to more than {MAX_RECORDS} records")
        chunks = _parse_chunks(c.get("record_chunks"), f"{where}.record_chunks")
        for j, chunk in enumerate(chunks):
            if len(chunk) > size:
                raise InputError(f"{where}.record_chunks[{j}]: {len(chunk)} sub-records exceed size {size}")
        term_chunk = c.get("term_chunk", [])
        if not isinstance(term_chunk, list) or not all(isinstance(t, str) and t for t in term_chunk):
            raise InputError(f"{where}: 'term_chunk' must be a list of non-empty strings")
        clusters.append(Cluster(cid, size, chunks, list(term_chunk)))
    return clusters


def _parse_joints(raw: Any, source: str, seen: set[str]) -> list[JointCluster]:
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise InputError(f"{source}: 'joint_clusters' must be a list, got {short(raw)}")
    joints = []
    for i, j in enumerate(raw):
        where = f"{source}: joint_clusters[{i}]"
        jid = _entry_id(j, where, seen, remember=False)
        children = j.get("children")
        if (not isinstance(children, list) or not children
                or not all(isinstance(ch, str) and ch in seen for ch in children)
                or len(set(children)) != len(children)):
            raise InputError(f"{where}: 'children' must list distinct ids of clusters defined before it")
        seen.add(jid)
        shared = _parse_chunks(j.get("shared_chunks"), f"{where}.shared_chunks")
        joints.append(JointCluster(jid, list(children), shared))
    return joints


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
