"""Writing releases and truth files fast, whole or part by part (the ``disassociated/1`` and
``disassociated-truth/1`` JSON of the project's design).

The files are JSON as before; what changed is how they are made. orjson serializes the
:class:`~anonymizer.model.release.Cluster`, :class:`~anonymizer.model.release.JointCluster` and truth
dataclasses directly (their fields are the format's keys, in the format's order), so no
intermediate dict or list is built per cluster, chunk or sub-record: on 1M records (k=5, m=2,
maximum cluster size 30) writing the release and truth took 18 s through ``to_dict`` and
``json.dumps`` and takes about 1.5 s this way.

:class:`ReleaseWriter` streams: a run split into parts (:mod:`anonymizer.disassociation.parts`, the Dask
executor of :mod:`anonymizer.disassociation.distributed`) adds each part's release and truth as soon as it is
done, and only that part is held in memory. Each part's clusters ``P1..`` and joint clusters
``J1..`` are renumbered to follow the parts before it (its truth already names records by their
positions in the whole input). Clusters go straight to the release file; joint
clusters, which the format lists after all clusters, wait in an unnamed temporary file and are
copied in at the end.

Both or neither
---------------
Both files are written to temporary names beside their targets, opened before any byte is
written, and renamed only when both are complete and on disk (:func:`corpora.common.files.atomic_files`):
a run that fails or is killed before the renames leaves the existing files byte for byte as they
were, and a truth that cannot be opened (a name too long) fails before anything is renamed.

The two renames are two steps, and a SIGKILL (or a power cut) can fall between them. No ordering
or shared temporary folder makes two renames one atomic step, and a random run id in both files
would put a value in the published release that says nothing about the data but is still a new
field. So the pairing is made checkable instead: the truth records the SHA-256 of the release
file's bytes (``release_sha256``; hashed while the release is streamed, so no second pass; the
truth is secret, so the hash reveals nothing to the public), and the truth is renamed first, the
release last. Every reader that takes a release and its truth together goes through
:meth:`anonymizer.model.truth.Truth.check_against`, which hashes the release file it read and refuses a
truth that records another hash in one line ("the truth belongs to another release"). After a
kill between the renames the folder holds the new truth and the old release: the pair is refused,
never used as one, and running the command again makes a matching pair. A reader therefore only
ever works with a release and the truth written with it. The release bytes are unchanged (no new
key); truth files of older versions, without the hash, are still read and checked piece by piece.

The bytes of each piece are the model's (:mod:`anonymizer.model.provenance`: :func:`release_digest` hashes
what :func:`write_release` writes). 128-bit seeds do not fit orjson's 64-bit integers; the truth's
header is written by hand.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tqdm import tqdm

from anonymizer.model.provenance import SLICE, dumps, items, release_digest, release_head
from anonymizer.model.release import (
    TRUTH_FORMAT,
    Cluster,
    ClusterTruth,
    JointCluster,
    JointClusterTruth,
    Release,
    Truth,
)
from corpora.common.files import atomic_files, atomic_open

__all__ = ["EncodedPart", "ReleaseWriter", "encode_part", "renumbered", "merge_parts", "write_release",
           "write_truth", "write_release_and_truth", "release_digest"]

def renumbered(release: Release, truth: Truth | None, first_cluster: int, first_joint: int
               ) -> tuple[list[Cluster], list[JointCluster], list[ClusterTruth], list[JointClusterTruth]]:
    """``release``'s clusters as ``P{first_cluster + 1}..`` and joint clusters as ``J{first_joint + 1}..``
    (children follow), and the truth's pieces under the same names.

    A child that is not one of the part's own clusters keeps its name (the joint clusters REFINE makes
    across the parts of a split run, :mod:`anonymizer.disassociation.split_refine`, name children of
    earlier parts as the merged release names them).

    Copies only the small objects around the chunks: sub-records and record-id lists are shared.
    The truth's record ids are kept as they are: a part's truth already names the records by their
    positions in the whole dataset (:func:`anonymizer.disassociation.parts.disassociate_part`).
    """
    names: dict[str, str] = {}
    for i, c in enumerate(release.clusters):
        names[c.id] = f"P{first_cluster + i + 1}"
    for j, jc in enumerate(release.joint_clusters):
        names[jc.id] = f"J{first_joint + j + 1}"
    clusters = [Cluster(names[c.id], c.size, c.record_chunks, c.term_chunk) for c in release.clusters]
    joints = [JointCluster(names[j.id], [names.get(ch, ch) for ch in j.children], j.shared_chunks)
              for j in release.joint_clusters]
    if truth is None:
        return clusters, joints, [], []
    truths = [ClusterTruth(names[t.id], t.records, t.record_chunks, t.term_chunk) for t in truth.clusters]
    joint_truths = [JointClusterTruth(names[t.id], t.shared_chunks) for t in truth.joint_clusters]
    return clusters, joints, truths, joint_truths


def merge_parts(parts: Iterable[tuple[Release, Truth]], params: Mapping[str, Any], seed: int | None,
                safe_seed: int | None = None) -> tuple[Release, Truth]:
    """One release and truth in memory from the parts' (release, truth), in part order, numbered as
    :class:`ReleaseWriter` numbers them (the same bytes once written)."""
    clusters: list[Cluster] = []
    joints: list[JointCluster] = []
    truths: list[ClusterTruth] = []
    joint_truths: list[JointClusterTruth] = []
    for release, truth in parts:
        c, j, t, jt = renumbered(release, truth, len(clusters), len(joints))
        clusters += c
        joints += j
        truths += t
        joint_truths += jt
    return Release(dict(params), clusters, joints), Truth(truths, joint_truths, seed=seed, safe_seed=safe_seed)


@dataclass
class EncodedPart:
    """A part's release (and truth) as JSON bytes, one piece per cluster, each without its leading
    ``{"id":ID`` (and a joint cluster's without its children), so a writer can name them: what a
    Dask worker sends back instead of millions of Python objects.

    ``clusters[i]`` is cluster ``cluster_ids[i]``'s JSON after its id (``,"size":...}``);
    ``joints[j]`` is joint ``joint_ids[j]``'s after its children; ``truth_clusters`` and
    ``truth_joints`` the truth's pieces after their ids (``None`` without a truth).
    """

    cluster_ids: list[str]
    clusters: list[bytes]
    joint_ids: list[str]
    joint_children: list[list[str]]
    joints: list[bytes]
    truth_clusters: list[bytes] | None = None
    truth_joints: list[bytes] | None = None


def _tails(objs: Sequence[Any], heads: Sequence[bytes]) -> list[bytes]:
    """Each object's JSON with its known head cut off."""
    out = []
    for obj, head in zip(objs, heads, strict=True):
        text = dumps(obj)
        if not text.startswith(head):  # pragma: no cover - the dataclasses' first fields are their ids
            raise ValueError(f"unexpected JSON of {type(obj).__name__}: {text[:60]!r}")
        out.append(text[len(head):])
    return out


def encode_part(release: Release, truth: Truth | None = None) -> EncodedPart:
    """Encode ``release`` (and ``truth``) for :meth:`ReleaseWriter.add` (see :class:`EncodedPart`)."""
    cluster_heads = [b'{"id":' + dumps(c.id) for c in release.clusters]
    joint_heads = [b'{"id":' + dumps(j.id) + b',"children":' + dumps(j.children) for j in release.joint_clusters]
    part = EncodedPart([c.id for c in release.clusters], _tails(release.clusters, cluster_heads),
                       [j.id for j in release.joint_clusters], [list(j.children) for j in release.joint_clusters],
                       _tails(release.joint_clusters, joint_heads))
    if truth is not None:
        part.truth_clusters = _tails(truth.clusters, [b'{"id":' + dumps(t.id) for t in truth.clusters])
        part.truth_joints = _tails(truth.joint_clusters, [b'{"id":' + dumps(t.id) for t in truth.joint_clusters])
    return part


class _Hashing:
    """A binary file whose written bytes are also fed to a SHA-256."""

    def __init__(self, handle: IO[bytes] | None) -> None:
        self.handle = handle
        self.sha256 = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        return len(data) if self.handle is None else self.handle.write(data)


class ReleaseWriter:
    """Write one release (and optionally its truth) from parts added in order; see the module doc.

    >>> with ReleaseWriter("release.json", "truth.json", params, seed=seed) as out:  # doctest: +SKIP
    ...     for release, truth in parts:
    ...         out.add(release, truth)

    Nothing appears under either name unless the ``with`` block ends normally.
    """

    def __init__(self, release_path: str | Path, truth_path: str | Path | None, params: Mapping[str, Any],
                 seed: int | None = None, safe_seed: int | None = None) -> None:
        if "seed" in params:
            raise ValueError("params must not hold the seed: the release is published, the seed is secret")
        self.release_path, self.truth_path = release_path, truth_path
        self.params = dict(params)
        self.seed, self.safe_seed = seed, safe_seed
        self.n_clusters = 0
        self.n_joints = 0
        self._stack: contextlib.ExitStack | None = None
        self.release_sha256: str | None = None

    def __enter__(self) -> ReleaseWriter:
        stack = contextlib.ExitStack()
        try:
            specs = ([(self.truth_path, "wb")] if self.truth_path else []) + [(self.release_path, "wb")]
            handles = stack.enter_context(atomic_files(specs))  # the truth is renamed first, the release last
            self._release: Any = _Hashing(handles[-1])
            self._truth = handles[0] if self.truth_path else None
            directory = Path(self.release_path).parent
            self._joints: IO[bytes] = stack.enter_context(tempfile.TemporaryFile(dir=directory))
            self._joint_truths: IO[bytes] | None = (stack.enter_context(tempfile.TemporaryFile(dir=directory))
                                                    if self._truth is not None else None)
            self._bar = stack.enter_context(tqdm(desc="writing", unit="cluster", disable=None, leave=False,
                                                 file=sys.stderr))
        except BaseException:
            stack.__exit__(*sys.exc_info())
            raise
        self._stack = stack
        self._release.write(release_head(self.params))
        if self._truth is not None:
            self._truth.write(_truth_head(self.seed, self.safe_seed))
        return self

    def add(self, part: EncodedPart | Release, truth: Truth | None = None, *, renumber: bool = True) -> None:
        """Append one part (a release and its truth, or a part :func:`encode_part` already encoded, e.g.
        on a Dask worker): its clusters and joint clusters renumbered to follow the parts before it.

        ``renumber=False`` writes the ids as they are (a whole release written in one go). A child that
        is not one of the part's own clusters is written as named (as in :func:`renumbered`).
        """
        if self._stack is None:
            raise RuntimeError("ReleaseWriter.add outside its with block")
        if isinstance(part, Release) and not renumber:
            self._add_as_is(part, truth)
            return
        if isinstance(part, Release):
            part = encode_part(part, truth if self._truth is not None else None)
        elif truth is not None:
            raise ValueError("an encoded part carries its own truth")
        if (part.truth_clusters is None) != (self._truth is None):
            raise ValueError("give a truth with every part exactly when the writer has a truth path")
        names: dict[str, bytes] = {}
        for i, cid in enumerate(part.cluster_ids):
            names[cid] = dumps(f"P{self.n_clusters + i + 1}" if renumber else cid)
        for j, jid in enumerate(part.joint_ids):
            names[jid] = dumps(f"J{self.n_joints + j + 1}" if renumber else jid)
        self._writeitems(self._release, [names[c] + tail for c, tail in zip(part.cluster_ids, part.clusters,
                                                                              strict=True)], self.n_clusters)
        self._bar.update(len(part.clusters))
        self._writeitems(self._joints, [
            names[jid] + b',"children":[' + b",".join(names[ch] if ch in names else dumps(ch) for ch in children)
            + b"]" + tail
            for jid, children, tail in zip(part.joint_ids, part.joint_children, part.joints, strict=True)],
            self.n_joints)
        if self._truth is not None and self._joint_truths is not None:
            self._writeitems(self._truth, [names[c] + tail for c, tail in zip(part.cluster_ids, part.truth_clusters,
                                                                                strict=True)], self.n_clusters)
            self._writeitems(self._joint_truths, [names[j] + tail for j, tail in zip(
                part.joint_ids, part.truth_joints or [], strict=True)], self.n_joints)
        self.n_clusters += len(part.cluster_ids)
        self.n_joints += len(part.joint_ids)

    def _add_as_is(self, release: Release, truth: Truth | None) -> None:
        """A release under its own ids: each list serialized a slice of objects at a time, with no piece
        cut off and put back (the same bytes as :func:`encode_part` then :meth:`add`)."""
        if self._truth is not None and truth is None:  # (a truth given to a writer without a truth path is left out)
            raise ValueError("give a truth with every part exactly when the writer has a truth path")
        lists: list[tuple[Any, Sequence[Any], int]] = [(self._release, release.clusters, self.n_clusters),
                                                        (self._joints, release.joint_clusters, self.n_joints)]
        if self._truth is not None and self._joint_truths is not None and truth is not None:
            lists += [(self._truth, truth.clusters, self.n_clusters),
                      (self._joint_truths, truth.joint_clusters, self.n_joints)]
        for handle, objs, before in lists:
            for start in range(0, len(objs), SLICE):
                handle.write((b"," if before or start else b"") + items(objs[start : start + SLICE]))
        self._bar.update(len(release.clusters))
        self.n_clusters += len(release.clusters)
        self.n_joints += len(release.joint_clusters)

    @staticmethod
    def _writeitems(handle: IO[bytes], items: list[bytes], before: int) -> None:
        """Write objects (each ``{"id":`` left out) as array items after ``before`` earlier ones."""
        for start in range(0, len(items), SLICE):
            head = b',{"id":' if before or start else b'{"id":'
            handle.write(head + b',{"id":'.join(items[start : start + SLICE]))

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        stack, self._stack = self._stack, None
        if stack is None:
            return
        if kind is not None:  # the temporary files are removed, the targets left as they were
            stack.__exit__(kind, error, trace)
            return
        try:
            self._finish(self._release, self._joints, b"")
            if self._truth is not None and self._joint_truths is not None:
                self.release_sha256 = self._release.sha256.hexdigest()
                self._finish(self._truth, self._joint_truths, _digest_tail(self.release_sha256))
        except BaseException:
            if not stack.__exit__(*sys.exc_info()):
                raise
            return  # pragma: no cover - atomic_files never swallows an exception
        stack.close()  # both files flushed to disk, then renamed: the truth first, the release last

    @staticmethod
    def _finish(handle: Any, spool: IO[bytes], tail: bytes) -> None:
        handle.write(b'],"joint_clusters":[')
        spool.seek(0)
        shutil.copyfileobj(spool, handle, 1 << 20)
        handle.write(b"]" + tail + b"}\n")


def write_release_and_truth(release: Release, truth: Truth | None, release_path: str | Path,
                            truth_path: str | Path | None) -> None:
    """Write a whole release (and its truth) atomically: both files appear together or neither does."""
    with ReleaseWriter(release_path, truth_path if truth is not None else None, release.params,
                       seed=truth.seed if truth is not None else None,
                       safe_seed=truth.safe_seed if truth is not None else None) as out:
        out.add(release, truth, renumber=False)


def write_release(release: Release, path: str | Path) -> None:
    """Write a release file atomically."""
    write_release_and_truth(release, None, path, None)


def write_truth(truth: Truth, path: str | Path) -> None:
    """Write a truth file atomically (never publish it)."""
    with atomic_open(path, "wb") as handle:
        handle.write(_truth_head(truth.seed, truth.safe_seed) + items(truth.clusters) + b'],"joint_clusters":['
                     + items(truth.joint_clusters) + b"]" + _digest_tail(truth.release_sha256) + b"}\n")


def _digest_tail(digest: str | None) -> bytes:
    """The truth's last key, the release's SHA-256 (b"" when unknown)."""
    return b"" if digest is None else b',"release_sha256":' + dumps(digest)


def _truth_head(seed: int | None, safe_seed: int | None) -> bytes:
    """The truth file up to its first cluster; seeds as decimal text (128 bits exceed orjson's ints)."""
    head = b'{"format":' + dumps(TRUTH_FORMAT)
    for key, value in (("seed", seed), ("safe_seed", safe_seed)):
        if value is not None:
            head += b',"' + key.encode() + b'":' + str(int(value)).encode()
    return head + b',"clusters":['
