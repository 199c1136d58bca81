"""A release as flat integer arrays (`ReleaseArrays`), and a `Release` that builds its objects only when asked.

The same content as a ``disassociated/1`` release (Terrovitis2012 section 3: clusters with a size,
record chunks and a term chunk; joint clusters with children and shared chunks), held column-wise
so that reading a large release creates a few numpy arrays instead of millions of Python lists,
tuples and strings:

* ``terms``: the sorted vocabulary; every term below is an ``int32`` position in it;
* one entry per simple cluster: ``cluster_ids``, ``cluster_size``; ``chunk_off`` (its record
  chunks are ``chunk_off[c]:chunk_off[c + 1]``) and ``term_chunk_off`` into ``term_chunk_terms``
  (the term chunk in published order);
* one entry per record chunk: ``sub_off`` (its sub-records, in published order); one per
  sub-record: ``term_off`` into ``sub_terms`` (its terms, strictly increasing: sorted, distinct);
* one entry per joint cluster: ``joint_ids``, ``child_off`` into ``children`` (node numbers:
  ``c`` for the simple cluster ``c``, ``n_clusters + j`` for the joint cluster ``j``, always
  defined before its parent), and ``shared_chunk_off`` / ``shared_sub_off`` / ``shared_term_off``
  / ``shared_terms`` like the record chunks.

:func:`validate` checks every bound (offsets start at 0, never decrease and end at the length of
what they index; ids in range; sub-records non-empty and sorted; sizes positive and their sum at
most :data:`anonymizer.model.release.MAX_RECORDS`; chunks no larger than their cluster; children
distinct and defined before their parent; params as :meth:`Release.from_dict` wants them), so
arrays read from a file (:mod:`anonymizer.io.parquet`, :mod:`anonymizer.io.json_fast`)
are as trustworthy as a :class:`Release` parsed by :meth:`Release.from_dict`.

:class:`anonymizer.model.release.Release` holds such arrays as one of its two faces: a release read
from a file starts from them (:meth:`Release.from_arrays`, which runs :func:`validate` unless the
reader already did) and builds its cluster objects on first use (:meth:`ReleaseArrays.to_objects`);
a release the engine built starts from its objects and makes its arrays on first use
(:func:`from_objects`). The hot paths (e.g. :func:`attacks.cover.problem.flatten`) read the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonymizer.model.clusters import MAX_RECORDS, Cluster, JointCluster, parse_params, published_terms
from corpora.common.errors import InputError
from corpora.common.gcpause import no_gc

__all__ = ["ReleaseArrays", "validate", "from_objects"]

_INT = np.int64
_TERM = np.int32


@dataclass(eq=False)
class ReleaseArrays:
    """A ``disassociated/1`` release as flat arrays (see the module docstring for each field)."""

    params: dict[str, Any]
    terms: list[str]
    cluster_ids: list[str]
    cluster_size: np.ndarray
    chunk_off: np.ndarray
    sub_off: np.ndarray
    term_off: np.ndarray
    sub_terms: np.ndarray
    term_chunk_off: np.ndarray
    term_chunk_terms: np.ndarray
    joint_ids: list[str]
    child_off: np.ndarray
    children: np.ndarray
    shared_chunk_off: np.ndarray
    shared_sub_off: np.ndarray
    shared_term_off: np.ndarray
    shared_terms: np.ndarray
    checked: bool = field(default=False, compare=False, repr=False)
    """True once :func:`validate` accepted these arrays."""

    @property
    def n_clusters(self) -> int:
        return len(self.cluster_ids)

    @property
    def n_records(self) -> int:
        """Number of records of the original dataset (the sum of the cluster sizes)."""
        return int(self.cluster_size.sum())

    def node_ids(self) -> list[str]:
        """Ids of the simple clusters, then of the joint clusters (the numbering of ``children``)."""
        return [*self.cluster_ids, *self.joint_ids]

    def used_terms(self) -> list[str]:
        """Every term some chunk publishes, sorted (what :meth:`Release.terms` returns)."""
        used = np.zeros(len(self.terms), dtype=bool)
        for ids in (self.sub_terms, self.term_chunk_terms, self.shared_terms):
            used[ids] = True
        if used.all():
            return list(self.terms)
        return [self.terms[i] for i in np.flatnonzero(used).tolist()]

    def to_objects(self) -> tuple[list[Cluster], list[JointCluster]]:
        """The same clusters and joint clusters as objects (tuples of the vocabulary's own strings)."""
        with no_gc():
            return self._objects()

    def _objects(self) -> tuple[list[Cluster], list[JointCluster]]:
        clusters = [Cluster(cid, size, chunks, terms) for cid, size, chunks, terms in zip(
            self.cluster_ids, self.cluster_size.tolist(),
            _nested(self.terms, self.chunk_off, self.sub_off, self.term_off, self.sub_terms),
            _split(_words(self.terms, self.term_chunk_terms), self.term_chunk_off), strict=True)]
        names = self.node_ids()
        joints = [JointCluster(jid, [names[i] for i in kids], chunks) for jid, kids, chunks in zip(
            self.joint_ids, _split(self.children.tolist(), self.child_off),
            _nested(self.terms, self.shared_chunk_off, self.shared_sub_off, self.shared_term_off, self.shared_terms),
            strict=True)]
        return clusters, joints


def _words(terms: list[str], ids: np.ndarray) -> list[str]:
    if not ids.size:
        return []
    return np.asarray(terms, dtype=object)[ids].tolist()


def _split(values: list[Any], off: np.ndarray) -> list[list[Any]]:
    bounds = off.tolist()
    return [values[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _nested(terms: list[str], node_off: np.ndarray, sub_off: np.ndarray, term_off: np.ndarray,
            ids: np.ndarray) -> list[list[list[tuple[str, ...]]]]:
    """Per node, its chunks as lists of sorted term tuples."""
    words = _words(terms, ids)
    bounds = term_off.tolist()
    subs = [tuple(words[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    return _split(_split(subs, sub_off), node_off)


def _fail(source: str, message: str) -> InputError:
    return InputError(f"{source}: {message}")


def _check_offsets(off: np.ndarray, length: int, what: str, source: str) -> None:
    """``off`` starts at 0, never decreases and ends at ``length``."""
    if off.ndim != 1 or off.size == 0 or off[0] != 0 or off[-1] != length:
        raise _fail(source, f"{what}: offsets must start at 0 and end at {length}")
    if off.size > 1 and (np.diff(off) < 0).any():
        at = int(np.flatnonzero(np.diff(off) < 0)[0])
        raise _fail(source, f"{what}: offsets decrease at entry {at}")


def _check_ids(ids: list[Any], what: str, source: str, seen: set[str]) -> None:
    for i, name in enumerate(ids):
        if not isinstance(name, str) or not name or name in seen:
            raise _fail(source, f"{what}[{i}]: 'id' must be a unique non-empty string")
        seen.add(name)


def _check_chunks(chunk_off: np.ndarray, sub_off: np.ndarray, term_off: np.ndarray, ids: np.ndarray,
                  n_nodes: int, n_terms: int, what: str, source: str) -> None:
    """Offsets of nodes -> chunks -> sub-records -> term ids, and non-empty sorted sub-records."""
    _check_offsets(chunk_off, sub_off.size - 1 if sub_off.size else -1, f"{what} chunks", source)
    if chunk_off.size != n_nodes + 1:
        raise _fail(source, f"{what} chunks: {chunk_off.size - 1} entries for {n_nodes} nodes")
    _check_offsets(sub_off, term_off.size - 1 if term_off.size else -1, f"{what} sub-records", source)
    _check_offsets(term_off, ids.size, f"{what} sub-record terms", source)
    lengths = np.diff(term_off)
    if (lengths < 1).any():
        at = int(np.flatnonzero(lengths < 1)[0])
        raise _fail(source, f"{what} sub-record {at}: a sub-record must be a non-empty list of terms")
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= n_terms):
        raise _fail(source, f"{what} terms: term ids must lie in 0..{n_terms - 1}")
    if ids.size > 1:
        rising = np.diff(ids) > 0
        rising[term_off[1:-1] - 1] = True  # a new sub-record starts: no order between sub-records
        if not rising.all():
            at = int(np.searchsorted(term_off, int(np.flatnonzero(~rising)[0]) + 1, side="right")) - 1
            raise _fail(source, f"{what} sub-record {at}: terms must be sorted and distinct")


def validate(a: ReleaseArrays, source: str = "release") -> ReleaseArrays:
    """Check every bound of ``a`` (module docstring); raise one :class:`InputError` line naming what is wrong.

    Returns ``a`` with ``params`` as :meth:`Release.from_dict` keeps them (a seed in them is refused),
    marked ``checked``.
    """
    a.params = parse_params(a.params, source)
    for name in ("cluster_size", "chunk_off", "sub_off", "term_off", "term_chunk_off", "child_off", "children",
                 "shared_chunk_off", "shared_sub_off", "shared_term_off"):
        value = getattr(a, name)
        if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype != _INT:
            raise _fail(source, f"{name}: expected a one-dimensional int64 array")
    for name in ("sub_terms", "term_chunk_terms", "shared_terms"):
        value = getattr(a, name)
        if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype != _TERM:
            raise _fail(source, f"{name}: expected a one-dimensional int32 array")
    terms = a.terms
    if not all(isinstance(t, str) and t for t in terms):
        raise _fail(source, "the vocabulary must hold non-empty strings")
    if any(x >= y for x, y in zip(terms, terms[1:], strict=False)):
        raise _fail(source, "the vocabulary must be sorted and hold each term once")
    n_terms = len(terms)
    seen: set[str] = set()
    n = a.n_clusters
    _check_ids(a.cluster_ids, "clusters", source, seen)
    _check_ids(a.joint_ids, "joint_clusters", source, seen)
    if a.cluster_size.size != n:
        raise _fail(source, f"{a.cluster_size.size} cluster sizes for {n} clusters")
    if n and (int(a.cluster_size.min()) < 1 or int(a.cluster_size.max()) > MAX_RECORDS):
        at = int(np.flatnonzero((a.cluster_size < 1) | (a.cluster_size > MAX_RECORDS))[0])
        raise _fail(source, f"clusters[{at}]: 'size' must be a positive integer of at most {MAX_RECORDS}, "
                            f"got {int(a.cluster_size[at])}")
    total = np.cumsum(a.cluster_size)
    if n and int(total[-1]) > MAX_RECORDS:
        at = int(np.flatnonzero(total > MAX_RECORDS)[0])
        raise _fail(source, f"clusters[{at}]: the cluster sizes add up to more than {MAX_RECORDS} records")
    _check_chunks(a.chunk_off, a.sub_off, a.term_off, a.sub_terms, n, n_terms, "record", source)
    per_chunk = np.diff(a.sub_off)
    owner = np.repeat(np.arange(n, dtype=_INT), np.diff(a.chunk_off))
    over = per_chunk > a.cluster_size[owner]
    if over.any():
        c = int(np.flatnonzero(over)[0])
        cl = int(owner[c])
        raise _fail(source, f"clusters[{cl}].record_chunks[{c - int(a.chunk_off[cl])}]: {int(per_chunk[c])} "
                            f"sub-records exceed size {int(a.cluster_size[cl])}")
    _check_offsets(a.term_chunk_off, a.term_chunk_terms.size, "term chunks", source)
    if a.term_chunk_off.size != n + 1:
        raise _fail(source, f"term chunks: {a.term_chunk_off.size - 1} entries for {n} clusters")
    if a.term_chunk_terms.size and (int(a.term_chunk_terms.min()) < 0 or int(a.term_chunk_terms.max()) >= n_terms):
        raise _fail(source, f"term chunks: term ids must lie in 0..{n_terms - 1}")
    n_joints = len(a.joint_ids)
    _check_offsets(a.child_off, a.children.size, "joint cluster children", source)
    if a.child_off.size != n_joints + 1:
        raise _fail(source, f"joint cluster children: {a.child_off.size - 1} entries for {n_joints} joint clusters")
    per_joint = np.diff(a.child_off)
    owner = np.repeat(np.arange(n_joints, dtype=_INT), per_joint)
    bad = np.zeros(n_joints, dtype=bool)
    bad[per_joint == 0] = True
    bad[owner[(a.children < 0) | (a.children >= n + owner)]] = True
    pairs = np.lexsort((a.children, owner))
    twice = (owner[pairs][1:] == owner[pairs][:-1]) & (a.children[pairs][1:] == a.children[pairs][:-1])
    bad[owner[pairs][1:][twice]] = True
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise _fail(source, f"joint_clusters[{j}]: 'children' must list distinct ids of clusters defined before it")
    _check_chunks(a.shared_chunk_off, a.shared_sub_off, a.shared_term_off, a.shared_terms, n_joints, n_terms,
                  "shared", source)
    a.checked = True
    return a


def from_objects(params: dict[str, Any], clusters: Sequence[Cluster],
                 joint_clusters: Sequence[JointCluster]) -> ReleaseArrays:
    """The arrays of a release given as objects (terms of each sub-record sorted and distinct, as loading
    makes them); :meth:`anonymizer.model.release.Release.arrays` calls it once per release."""
    vocab = published_terms(clusters, joint_clusters)
    tid = {t: i for i, t in enumerate(vocab)}

    def chunks(nodes: list[list[list[tuple[str, ...]]]]) -> tuple[np.ndarray, ...]:
        per_node = [len(chs) for chs in nodes]
        subs = [sub for chs in nodes for ch in chs for sub in ch]
        per_chunk = [len(ch) for chs in nodes for ch in chs]
        ids = [tid[t] for sub in subs for t in sorted(set(sub))]
        lengths = [len(set(sub)) for sub in subs]
        return (_offsets(per_node), _offsets(per_chunk), _offsets(lengths), np.asarray(ids, dtype=_TERM))

    chunk_off, sub_off, term_off, sub_terms = chunks([c.record_chunks for c in clusters])
    s_chunk_off, s_sub_off, s_term_off, s_terms = chunks([j.shared_chunks for j in joint_clusters])
    number = {c.id: i for i, c in enumerate(clusters)}
    number.update({j.id: len(clusters) + i for i, j in enumerate(joint_clusters)})
    return ReleaseArrays(
        params=dict(params),
        terms=vocab,
        cluster_ids=[c.id for c in clusters],
        cluster_size=np.asarray([c.size for c in clusters], dtype=_INT),
        chunk_off=chunk_off, sub_off=sub_off, term_off=term_off, sub_terms=sub_terms,
        term_chunk_off=_offsets([len(c.term_chunk) for c in clusters]),
        term_chunk_terms=np.asarray([tid[t] for c in clusters for t in c.term_chunk], dtype=_TERM),
        joint_ids=[j.id for j in joint_clusters],
        child_off=_offsets([len(j.children) for j in joint_clusters]),
        children=np.asarray([number[ch] for j in joint_clusters for ch in j.children], dtype=_INT),
        shared_chunk_off=s_chunk_off, shared_sub_off=s_sub_off, shared_term_off=s_term_off, shared_terms=s_terms,
    )


def _offsets(lengths: list[int] | np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths) + 1, dtype=_INT)
    if len(lengths):
        np.cumsum(np.asarray(lengths, dtype=_INT), out=out[1:])
    return out
