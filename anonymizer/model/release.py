"""The published disassociated dataset (`Release`) and the never-published `Truth` beside it.

Both follow the file formats of the project's design (``disassociated/1`` and
``disassociated-truth/1``). A release holds clusters (Terrovitis2012 section 3): each cluster has
its size, its record chunks (bags of sub-records; the empty sub-records are implied by the size)
and its term chunk; joint clusters (Terrovitis2012 section 3, "Refining") group clusters or
other joint clusters and carry shared chunks. Nothing in a release links sub-records of one
record: the truth file does, and only experiments read it to score attacks. The seed of the random
choices is kept in the truth (``seed``, and ``safe_seed`` after safe disassociation), never in the
release (:mod:`corpora.common.seeds`).

Every command reads a release through :func:`load_release`, which validates it fully before any
work starts (:meth:`Release.from_dict`): the file is read with a size bound, must be UTF-8 JSON
nested no deeper than the format needs, ``params.k >= 2`` and ``params.m >= 1`` are integers,
every field has its type, cluster sizes are positive integers that hold the sub-records listed
in each of their chunks, and all cluster sizes together stay below :data:`MAX_RECORDS`. A release
whose params carry a seed (``seed``, ``safe_seed``, any key naming a seed: it fixes the random
choices that hide the records) is refused with one line: older versions published it, and such
a release must be made again (issue 22; the truth file keeps its seeds and reads as before).

A truth file written with its release records the SHA-256 of the release's JSON form
(``release_sha256``: the bytes of the JSON release file as this package writes it; for a parquet
release, the bytes its JSON form has, so converting either file keeps the pair valid; see
:mod:`anonymizer.io.json_writer`). :meth:`Truth.check_against` compares it with the release, so a
release and a truth of different runs are refused in one line even when they have the same
clusters; a truth file without the field (an older version's) is checked piece by piece only.

Both files also have a columnar parquet form with the same content (:mod:`anonymizer.io.parquet`,
:mod:`anonymizer.io.truth_parquet`); :func:`load_release` and :func:`load_truth` read either form, and
a large release is read into numpy arrays (:mod:`anonymizer.model.arrays`) whose cluster objects
are built only when a command asks for them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpora.common.errors import InputError
from corpora.common.files import parse_json, read_text_bounded
from corpora.common.seeds import check_seed

__all__ = [
    "RELEASE_FORMAT",
    "TRUTH_FORMAT",
    "MAX_RECORDS",
    "MAX_JSON_BYTES",
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

    def terms(self) -> list[str]:
        """Every term the release publishes (record, term and shared chunks), sorted."""
        out: set[str] = set()
        for cluster in self.clusters:
            out.update(cluster.record_terms())
            out.update(cluster.term_chunk)
        for joint in self.joint_clusters:
            for chunk in joint.shared_chunks:
                for sub in chunk:
                    out.update(sub)
        return sorted(out)

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
            "params": dict(self.params),
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

    def __repr__(self) -> str:
        p = self.params
        extra = "".join(f", {key}={p[key]!r}" for key in ("max_cluster_size", "safe") if key in p)
        return (f"Release(k={p.get('k')}, m={p.get('m')}{extra}, records={self.n_records}, "
                f"clusters={len(self.clusters)}, joint_clusters={len(self.joint_clusters)}, "
                f"record_chunks={sum(len(c.record_chunks) for c in self.clusters)})")

    @classmethod
    def from_json(cls, obj: Any, source: str = "release") -> Release:
        """Parse and validate a release given as JSON text or as the parsed object (:meth:`from_dict`)."""
        if isinstance(obj, (str, bytes)):
            obj = parse_json(obj.decode("utf-8") if isinstance(obj, bytes) else obj, source)
        return cls.from_dict(obj, source)

    @classmethod
    def from_dict(cls, obj: Any, source: str = "release") -> Release:
        """Parse and validate a release object; raises :class:`InputError` naming what is wrong.

        A release whose params carry a seed is refused (see the module docstring).
        """
        if not isinstance(obj, Mapping):
            raise InputError(f"{source}: expected a JSON object")
        if obj.get("format") != RELEASE_FORMAT:
            raise InputError(f"{source}: 'format' must be {RELEASE_FORMAT!r}, got {_short(obj.get('format'))}")
        params = _parse_params(obj.get("params"), source)
        clusters_raw = obj.get("clusters")
        if not isinstance(clusters_raw, list):
            raise InputError(f"{source}: 'clusters' must be a list")
        clusters = []
        seen: set[str] = set()
        total = 0
        for i, c in enumerate(clusters_raw):
            where = f"{source}: clusters[{i}]"
            if not isinstance(c, Mapping):
                raise InputError(f"{where}: expected an object")
            cid = c.get("id")
            if not isinstance(cid, str) or not cid or cid in seen:
                raise InputError(f"{where}: 'id' must be a unique non-empty string")
            seen.add(cid)
            size = c.get("size")
            if not _is_int(size) or not 1 <= size <= MAX_RECORDS:
                raise InputError(f"{where}: 'size' must be a positive integer of at most {MAX_RECORDS}, "
                                 f"got {_short(size)}")
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
        joints_raw = obj.get("joint_clusters", [])
        if joints_raw is None:
            joints_raw = []
        if not isinstance(joints_raw, list):
            raise InputError(f"{source}: 'joint_clusters' must be a list, got {_short(joints_raw)}")
        joints = []
        for i, j in enumerate(joints_raw):
            where = f"{source}: joint_clusters[{i}]"
            if not isinstance(j, Mapping):
                raise InputError(f"{where}: expected an object")
            jid = j.get("id")
            if not isinstance(jid, str) or not jid or jid in seen:
                raise InputError(f"{where}: 'id' must be a unique non-empty string")
            children = j.get("children")
            if (not isinstance(children, list) or not children
                    or not all(isinstance(ch, str) and ch in seen for ch in children)
                    or len(set(children)) != len(children)):
                raise InputError(f"{where}: 'children' must list distinct ids of clusters defined before it")
            seen.add(jid)
            shared = _parse_chunks(j.get("shared_chunks"), f"{where}.shared_chunks")
            joints.append(JointCluster(jid, list(children), shared))
        return cls(params, clusters, joints)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: object) -> str:
    """``repr`` of a value cut to a short prefix (error lines quote at most 60 characters)."""
    text = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_params(raw: Any, source: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise InputError(f"{source}: 'params' must be an object")
    for key in raw:
        if isinstance(key, str) and "seed" in key.lower():
            raise InputError(f"{source}: params.{key} is a seed, which must never be published (it replays the "
                             "random choices that hide the records); keep it in the truth file and make the "
                             "release again")
    params = dict(raw)
    k, m = params.get("k"), params.get("m")
    if not _is_int(k) or k < 2:
        raise InputError(f"{source}: params.k must be an integer >= 2, got {_short(k)}")
    if not _is_int(m) or m < 1:
        raise InputError(f"{source}: params.m must be an integer >= 1, got {_short(m)}")
    for key, value in params.items():
        want = _PARAM_TYPES.get(key)
        if want is int and not (_is_int(value) and value >= k):
            raise InputError(f"{source}: params.{key} must be an integer >= k, got {_short(value)}")
        if want is not None and not isinstance(value, want):
            raise InputError(f"{source}: params.{key} must be a {want.__name__}, got {_short(value)}")
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise InputError(f"{source}: params.{key} must be a number, string or boolean, got {_short(value)}")
    return params


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

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "shared_chunks": [list(ch) for ch in self.shared_chunks]}


@dataclass
class Truth:
    """The secret link between a release and the original record ids (never published).

    ``seed`` is the secret seed of the publishing shuffle (:func:`anonymizer.disassociation.pipeline.disassociate`)
    and ``safe_seed`` the one of safe disassociation's draws (:mod:`anonymizer.disassociation.safe`); ``None`` when
    unknown (a truth file of an older version). Re-running with them gives the same bytes.
    ``release_sha256`` is the SHA-256 (hex) of the bytes of the release file this truth was written
    with (``None`` in memory before writing, and in older truth files).
    """

    clusters: list[ClusterTruth]
    joint_clusters: list[JointClusterTruth] = field(default_factory=list)
    seed: int | None = None
    safe_seed: int | None = None
    release_sha256: str | None = field(default=None, compare=False)  # binds a file, not the content

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": TRUTH_FORMAT}
        if self.seed is not None:
            out["seed"] = self.seed
        if self.safe_seed is not None:
            out["safe_seed"] = self.safe_seed
        out["clusters"] = [c.to_dict() for c in self.clusters]
        out["joint_clusters"] = [j.to_dict() for j in self.joint_clusters]
        if self.release_sha256 is not None:
            out["release_sha256"] = self.release_sha256
        return out

    def to_json(self, indent: int | None = None) -> str:
        """The truth as a JSON text (the ``disassociated-truth/1`` file's content; never publish it)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def __repr__(self) -> str:
        records = sum(1 for c in self.clusters for r in c.records if r >= 0)
        ghosts = sum(1 for c in self.clusters for r in c.records if r < 0)
        seeds = "seed kept" if self.seed is not None else "no seed"
        return (f"Truth(records={records}, ghost_records={ghosts}, clusters={len(self.clusters)}, "
                f"joint_clusters={len(self.joint_clusters)}, {seeds})")

    @classmethod
    def from_json(cls, obj: Any, source: str = "truth") -> Truth:
        """Parse a truth given as JSON text or as the parsed object (:meth:`from_dict`)."""
        if isinstance(obj, (str, bytes)):
            obj = parse_json(obj.decode("utf-8") if isinstance(obj, bytes) else obj, source)
        return cls.from_dict(obj, source)

    @classmethod
    def from_dict(cls, obj: Any, source: str = "truth") -> Truth:
        """Parse and validate a truth object; raises :class:`InputError` naming what is wrong."""
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
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            message = f"{exc.__class__.__name__}: {exc}"
            raise InputError(f"{source}: malformed truth file ({message[:80]})") from None
        seeds = [None if obj.get(key) is None else check_seed(obj[key], f"{source}: {key}")
                 for key in ("seed", "safe_seed")]
        return cls(clusters, joints, *seeds, release_sha256=check_digest(obj.get("release_sha256"), source))

    def check_against(self, release: Release) -> None:
        """Raise :class:`InputError` unless this truth describes ``release`` piece for piece, and, when
        the truth records its release's SHA-256, unless ``release`` is the one it was written with
        ("the truth belongs to another release"): the file ``release`` was read from is hashed, and
        if that differs (a parquet or hand-written file, a release built in memory) its JSON form."""
        if self.release_sha256 is not None and not _verified(release, self.release_sha256):
            raise InputError(f"{_SOURCES.get(id(release), ('release',))[0]}: the truth belongs to another "
                             "release (the SHA-256 it records is not this file's); use the truth file written "
                             "with this release")
        if [c.id for c in self.clusters] != [c.id for c in release.clusters]:
            raise InputError("truth and release list different clusters")
        for c, t in zip(release.clusters, self.clusters, strict=True):
            if len(t.records) != c.size or [len(ch) for ch in c.record_chunks] != [len(ch) for ch in t.record_chunks]:
                raise InputError(f"truth and release disagree on cluster {c.id}")


_DIGEST = re.compile(r"[0-9a-f]{64}")
_SOURCES: dict[int, tuple[str, tuple[int, int, int, int]]] = {}
"""id(release) -> (the file it was read from, that file's (device, inode, size, mtime_ns)); an entry
is dropped when the release object is collected (see :func:`_remember_source`)."""


def check_digest(value: Any, source: str) -> str | None:
    """``value`` as a truth's ``release_sha256`` (64 lowercase hex digits) or ``None`` if absent."""
    if value is None:
        return None
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise InputError(f"{source}: 'release_sha256' must be 64 lowercase hex digits")
    return value


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remember_source(release: Release, path: str | os.PathLike[str], before: os.stat_result) -> None:
    """Remember that ``release`` was read from ``path`` if that file did not change while it was read."""
    import stat as stat_mod
    import weakref

    try:
        after = os.stat(path)
    except OSError:
        return
    if not stat_mod.S_ISREG(before.st_mode):
        return
    if _identity(after) != _identity(before):
        raise InputError(f"{path}: the release file changed while it was read; read it again")
    key = id(release)
    _SOURCES[key] = (os.fspath(path), _identity(before))
    weakref.finalize(release, _SOURCES.pop, key, None)
    weakref.finalize(release, _MATCHED.pop, key, None)


_MATCHED: dict[int, set[str]] = {}
"""id(release) -> digests a release read from a file was found to match (each is checked once)."""


def _verified(release: Release, digest: str) -> bool:
    """True if ``release`` is the one a truth recording ``digest`` was written with: the file it was
    read from hashes to ``digest``, or else its JSON form does (a parquet file, a release in memory)."""
    key = id(release)
    if digest in _MATCHED.get(key, ()):
        return True
    matched = read_digest(release) == digest
    if not matched:
        from anonymizer.io.json_writer import release_digest

        matched = release_digest(release) == digest
    if matched and key in _SOURCES:
        _MATCHED.setdefault(key, set()).add(digest)
    return matched


def read_digest(release: Release) -> str | None:
    """SHA-256 (hex) of the file ``release`` was read from by :func:`load_release` (``None`` for a
    release built in memory); :class:`InputError` if that file was replaced or changed since.

    A JSON release written by this package hashes to the digest its truth records, without encoding
    the release again (:meth:`Truth.check_against` does that only when the file's digest differs)."""
    entry = _SOURCES.get(id(release))
    if entry is None:
        return None
    path, identity = entry
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            if _identity(os.fstat(handle.fileno())) != identity:
                raise InputError(f"{path}: the release file was replaced since it was read; read it again")
            while piece := handle.read(1 << 20):
                digest.update(piece)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the release file again ({exc.strerror or exc})") from None
    return digest.hexdigest()


def _read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file read with :func:`corpora.common.files.read_text_bounded` (size, UTF-8, no NUL bytes).

    JSON nested deeper than Python's recursion limit is refused in one line, not a traceback.
    """
    text = read_text_bounded(path, MAX_JSON_BYTES)
    if not text.strip():
        raise InputError(f"{path}: file is empty")
    return parse_json(text, str(path))


def load_release(path: str | os.PathLike[str]) -> Release:
    """Read and validate a release file, JSON or parquet (:mod:`anonymizer.io.parquet`).

    A parquet file (it starts with ``PAR1``, or its name ends in ``.parquet``) and a plain JSON
    release (:mod:`anonymizer.io.json_fast`) are read into arrays: the result is an
    :class:`anonymizer.model.arrays.ArrayRelease`, whose cluster objects are built on first use.
    Any other JSON file is read with ``json.loads`` and :meth:`Release.from_dict`. Either way the
    release is the same and fully validated; a progress bar shows on a terminal after one second.
    """
    from tqdm import tqdm

    from anonymizer.io.json_fast import read_release_json_arrays
    from anonymizer.io.parquet import is_parquet, read_release_parquet
    from anonymizer.model.arrays import ArrayRelease
    from corpora.common.gcpause import no_gc

    try:
        before = os.stat(path)
    except OSError:
        before = None  # the readers report it in their words
    with tqdm(total=2, desc=f"reading {os.path.basename(str(path))}", unit="step", disable=None, delay=1.0,
              leave=False) as bar:
        release: Release
        if is_parquet(path):
            release = read_release_parquet(path)
        else:
            arrays = read_release_json_arrays(path)
            bar.update(1)
            if arrays is not None:
                release = ArrayRelease(arrays)
            else:
                with no_gc():
                    obj = _read_json(path)
                    bar.update(1)
                    release = Release.from_dict(obj, source=str(path))
    if before is not None:
        _remember_source(release, path, before)
    return release


def load_truth(path: str | os.PathLike[str]) -> Truth:
    """Read and validate a truth file, JSON or parquet (:mod:`anonymizer.io.truth_parquet`)."""
    from anonymizer.io.parquet import is_parquet
    from corpora.common.gcpause import no_gc

    if is_parquet(path):
        from anonymizer.io.truth_parquet import read_truth_parquet

        return read_truth_parquet(path)
    with no_gc():
        return Truth.from_dict(_read_json(path), source=str(path))


def save_release(release: Release, path: str | os.PathLike[str]) -> None:
    """Write a release file atomically (:mod:`anonymizer.io.json_writer`)."""
    from anonymizer.io.json_writer import write_release

    write_release(release, path)


def save_truth(truth: Truth, path: str | os.PathLike[str]) -> None:
    """Write a truth file atomically (:mod:`anonymizer.io.json_writer`; never publish it)."""
    from anonymizer.io.json_writer import write_truth

    write_truth(truth, path)
