"""The never-published :class:`Truth` beside a release (the ``disassociated-truth/1`` format).

The truth links every published piece of a release (Terrovitis2012 section 3: record chunks, term
chunks, shared chunks) to the original record ids; only experiments read it, to score attacks. It
keeps the seeds of the random choices (``seed``, and ``safe_seed`` after safe disassociation, Awad2019),
which the release never publishes (:mod:`corpora.common.seeds`), and the SHA-256 of the release it was
written with (:mod:`anonymizer.model.provenance`): :meth:`Truth.check_against` refuses a truth of
another release in one line; a truth file without the field (an older version's) is checked piece by
piece only. Reading and writing truth files is :mod:`anonymizer.io.release_files`'s job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonymizer.model.provenance import ReleaseLike, matches_digest, source_name
from corpora.common.errors import InputError
from corpora.common.files import parsed_json
from corpora.common.seeds import check_seed

__all__ = ["TRUTH_FORMAT", "ClusterTruth", "JointClusterTruth", "Truth", "check_digest"]

TRUTH_FORMAT = "disassociated-truth/1"

_DIGEST = re.compile(r"[0-9a-f]{64}")


def check_digest(value: Any, source: str) -> str | None:
    """``value`` as a truth's ``release_sha256`` (64 lowercase hex digits) or ``None`` if absent."""
    if value is None:
        return None
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise InputError(f"{source}: 'release_sha256' must be 64 lowercase hex digits")
    return value


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
        return cls.from_dict(parsed_json(obj, source), source)

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

    def check_against(self, release: ReleaseLike) -> None:
        """Raise :class:`InputError` unless this truth describes ``release`` piece for piece, and, when
        the truth records its release's SHA-256, unless ``release`` is the one it was written with
        ("the truth belongs to another release"): the file ``release`` was read from is hashed, and
        if that differs (a parquet or hand-written file, a release built in memory) its JSON form."""
        if self.release_sha256 is not None and not matches_digest(release, self.release_sha256):
            raise InputError(f"{source_name(release)}: the truth belongs to another "
                             "release (the SHA-256 it records is not this file's); use the truth file written "
                             "with this release")
        if [c.id for c in self.clusters] != [c.id for c in release.clusters]:
            raise InputError("truth and release list different clusters")
        for c, t in zip(release.clusters, self.clusters, strict=True):
            if len(t.records) != c.size or [len(ch) for ch in c.record_chunks] != [len(ch) for ch in t.record_chunks]:
                raise InputError(f"truth and release disagree on cluster {c.id}")
