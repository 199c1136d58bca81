"""Which bytes a release is: the SHA-256 of its JSON form, and the file a release was read from.

A truth file written with its release records the SHA-256 of the release's JSON form
(``release_sha256``: the bytes of the JSON release file as this package writes it; for a parquet
release, the bytes its JSON form has, so converting either file keeps the pair valid).
:meth:`anonymizer.model.truth.Truth.check_against` compares it with the release, so a release and a
truth of different runs are refused in one line even when they have the same clusters.

The JSON form is the published ``disassociated/1`` contract, so it is defined here, in the model:
:func:`dumps` and :func:`items` encode the cluster dataclasses with orjson (their fields are the
format's keys, in the format's order), :func:`release_digest` hashes the bytes without writing them,
and :mod:`anonymizer.io.json_writer` writes the very same bytes. A release read by
:func:`anonymizer.io.release_files.load_release` is remembered with the identity of its file
(:func:`remember_source`), so checking a truth hashes that file instead of encoding the release again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import orjson

from anonymizer.model.clusters import RELEASE_FORMAT, Cluster, JointCluster
from corpora.common.errors import InputError

__all__ = ["SLICE", "ReleaseLike", "dumps", "items", "release_digest", "remember_source", "read_digest",
           "matches_digest", "source_name"]

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY

SLICE = 8192
"""Clusters serialized at a time."""


class ReleaseLike(Protocol):
    """What the digest reads of a :class:`anonymizer.model.release.Release`."""

    @property
    def params(self) -> Mapping[str, Any]: ...

    @property
    def clusters(self) -> Sequence[Cluster]: ...

    @property
    def joint_clusters(self) -> Sequence[JointCluster]: ...


def dumps(obj: Any) -> bytes:
    """orjson's bytes of ``obj`` (dataclasses field by field, numpy arrays as lists)."""
    return orjson.dumps(obj, option=_OPTIONS)


def items(objs: Sequence[Any]) -> bytes:
    """The JSON array of ``objs`` without its brackets (b"" for none)."""
    return dumps(objs)[1:-1] if objs else b""


def release_head(params: Mapping[str, Any]) -> bytes:
    """The release file up to its first cluster."""
    return b'{"format":' + dumps(RELEASE_FORMAT) + b',"params":' + dumps(dict(params)) + b',"clusters":['


def release_digest(release: ReleaseLike) -> str:
    """SHA-256 (hex) of ``release``'s JSON form: the bytes :func:`anonymizer.io.json_writer.write_release`
    writes for it, hashed without writing them (the digest a truth records; the same for the JSON and
    parquet forms)."""
    sink = hashlib.sha256()
    sink.update(release_head(release.params))
    for key, objs in ((b"", release.clusters), (b'],"joint_clusters":[', release.joint_clusters)):
        sink.update(key)
        for start in range(0, len(objs), SLICE):
            sink.update((b"," if start else b"") + items(objs[start : start + SLICE]))
    sink.update(b"]}\n")
    return sink.hexdigest()


_SOURCES: dict[int, tuple[str, tuple[int, int, int, int]]] = {}
"""id(release) -> (the file it was read from, that file's (device, inode, size, mtime_ns)); an entry
is dropped when the release object is collected (see :func:`remember_source`)."""

_MATCHED: dict[int, set[str]] = {}
"""id(release) -> digests a release read from a file was found to match (each is checked once)."""


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def remember_source(release: ReleaseLike, path: str | os.PathLike[str], before: os.stat_result) -> None:
    """Remember that ``release`` was read from ``path`` if that file did not change while it was read."""
    try:
        after = os.stat(path)
    except OSError:
        return
    if not stat.S_ISREG(before.st_mode):
        return
    if _identity(after) != _identity(before):
        raise InputError(f"{path}: the release file changed while it was read; read it again")
    key = id(release)
    _SOURCES[key] = (os.fspath(path), _identity(before))
    weakref.finalize(release, _SOURCES.pop, key, None)
    weakref.finalize(release, _MATCHED.pop, key, None)


def source_name(release: ReleaseLike) -> str:
    """The file ``release`` was read from, or ``"release"`` for one built in memory."""
    return _SOURCES.get(id(release), ("release",))[0]


def matches_digest(release: ReleaseLike, digest: str) -> bool:
    """True if ``release`` is the one a truth recording ``digest`` was written with: the file it was
    read from hashes to ``digest``, or else its JSON form does (a parquet file, a release in memory)."""
    key = id(release)
    if digest in _MATCHED.get(key, ()):
        return True
    matched = read_digest(release) == digest or release_digest(release) == digest
    if matched and key in _SOURCES:
        _MATCHED.setdefault(key, set()).add(digest)
    return matched


def read_digest(release: ReleaseLike) -> str | None:
    """SHA-256 (hex) of the file ``release`` was read from (``None`` for a release built in memory);
    :class:`InputError` if that file was replaced or changed since.

    A JSON release written by this package hashes to the digest its truth records, without encoding
    the release again (:func:`matches_digest` encodes it only when the file's digest differs)."""
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
