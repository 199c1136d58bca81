"""What a semantic attack returns: the reconstruction of every cluster (AlShuhail2021 chapter 4).

Anchoring (section 4.2.2): the sub-records of the first record chunk C_1 anchor the records. A
cluster of ``size`` records whose C_1 lists ``v`` sub-records has ``size - v`` further records
whose C_1 sub-record is empty: they are *empty anchors* (:func:`cluster_anchors`).

Output order (what :meth:`SemanticResult.records` and the CLI write): clusters in release order;
within a cluster the records anchored by the listed C_1 sub-records in listed order, then the
empty anchors. :func:`fill_records` builds the records from the assignments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from anonymizer.model.release import Cluster, Release
from corpora.common.errors import InputError

__all__ = [
    "CHUNK_PARTS",
    "ClusterReconstruction",
    "SharedReconstruction",
    "SemanticResult",
    "cluster_anchors",
    "fill_records",
]

CHUNK_PARTS = ("record", "term", "both")
"""What an attack may reconstruct: the record (and shared) chunks, the term chunk, or both."""


@dataclass
class ClusterReconstruction:
    """One cluster's reconstruction.

    ``anchors[a]`` is anchor a's C_1 sub-record (``()`` for an empty anchor; the first
    ``n_listed`` follow the listed order of C_1). ``record_assignment[j][p]`` is the anchor that
    received the p-th listed sub-record of record chunk j (``record_assignment[0]`` is the identity
    of C_1; an empty list for a chunk that was not attacked). ``term_assignment[t]`` lists the
    anchors that received term t. ``records[a]`` is anchor a's reconstructed record (sorted terms,
    shared-chunk pieces included).
    """

    cluster_id: str
    anchors: list[tuple[str, ...]]
    n_listed: int
    record_assignment: list[list[int]] = field(default_factory=list)
    term_assignment: dict[str, list[int]] = field(default_factory=dict)
    records: list[list[str]] = field(default_factory=list)


@dataclass
class SharedReconstruction:
    """A joint cluster's shared chunks: ``anchors[g] = (cluster position, anchor index)`` over the
    leaves; ``assignment[j][p]`` is the global anchor g of the p-th sub-record of shared chunk j."""

    joint_id: str
    anchors: list[tuple[int, int]]
    assignment: list[list[int]] = field(default_factory=list)


@dataclass
class SemanticResult:
    """What :func:`run_semantic_attack` returns."""

    selector: str
    chunks: str
    scorer: str
    seed: int
    clusters: list[ClusterReconstruction]
    shared: list[SharedReconstruction] = field(default_factory=list)
    unknown_terms: int = 0
    """Distinct terms of the attacked pieces and anchors that the scorer does not know."""
    distinct_terms: int = 0
    """Distinct terms of the attacked pieces and anchors (the base of ``unknown_terms``)."""
    unknown_occurrences: int = 0
    """Occurrences of those terms in the attacked pieces and anchors."""
    unknown_pairs: int = 0
    """Pair scores the scorer could not give (policy ``skip``: left out; ``zero``: scored 0)."""
    unknown_policy: str = "skip"
    no_evidence_pieces: int = 0
    """Pieces whose scores were all missing, so that they went to the first anchors by tie order."""
    vpa_cut: bool = False
    """True when VPA's ``vpa_limit`` stopped at least one search before it was exhausted."""
    vpa_cut_chunks: int = 0
    vpa_failed_chunks: int = 0
    """Chunks for which VPA's search ended with no consistent trial (placed at random)."""
    vpa_trials: int = 0
    seconds: float = 0.0

    def records(self) -> list[list[str]]:
        """All reconstructed records, flat, in the output order (see the module docstring)."""
        return [r for c in self.clusters for r in c.records]

    def __repr__(self) -> str:
        records = sum(len(c.records) for c in self.clusters)
        vpa = f", vpa_trials={self.vpa_trials}" if self.selector == "VPA" else ""
        return (f"SemanticResult(selector={self.selector!r}, scorer={self.scorer!r}, chunks={self.chunks!r}, "
                f"clusters={len(self.clusters)}, joint_clusters={len(self.shared)}, records={records}, "
                f"unknown_terms={self.unknown_terms}{vpa})")

    def to_dict(self) -> dict[str, Any]:
        """The counters (:meth:`summary`) and the reconstructed records, as plain Python values."""
        return {**self.summary(), "clusters": len(self.clusters), "reconstructed": self.records()}

    def to_json(self, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_frame(self) -> Any:
        """One row per reconstructed record: cluster, anchor position, whether the anchor was a listed
        C_1 sub-record, and the record's terms joined with ``"; "`` (a pandas DataFrame)."""
        import pandas as pd

        rows = [{"cluster": c.cluster_id, "anchor": a, "listed_anchor": a < c.n_listed, "terms": "; ".join(r)}
                for c in self.clusters for a, r in enumerate(c.records)]
        return pd.DataFrame(rows, columns=["cluster", "anchor", "listed_anchor", "terms"])

    def summary(self) -> dict[str, Any]:
        """The report counters as a plain dict."""
        return {
            "selector": self.selector,
            "chunks": self.chunks,
            "scorer": self.scorer,
            "seed": self.seed,
            "records": sum(len(c.records) for c in self.clusters),
            "unknown_terms": self.unknown_terms,
            "distinct_terms": self.distinct_terms,
            "unknown_term_share": round(self.unknown_terms / self.distinct_terms, 6) if self.distinct_terms else 0.0,
            "unknown_occurrences": self.unknown_occurrences,
            "unknown_pairs": self.unknown_pairs,
            "unknown_policy": self.unknown_policy,
            "no_evidence_pieces": self.no_evidence_pieces,
            "vpa_cut": self.vpa_cut,
            "vpa_cut_chunks": self.vpa_cut_chunks,
            "vpa_failed_chunks": self.vpa_failed_chunks,
            "vpa_trials": self.vpa_trials,
            "seconds": round(self.seconds, 3),
        }


def cluster_anchors(cluster: Cluster) -> list[tuple[str, ...]]:
    """A cluster's anchors: its listed C_1 sub-records in listed order, then one empty anchor per
    record without a listed C_1 sub-record."""
    listed = [tuple(s) for s in cluster.record_chunks[0]] if cluster.record_chunks else []
    if len(listed) > cluster.size:
        raise InputError(f"cluster {cluster.id}: C1 lists more sub-records than the cluster size")
    return listed + [()] * (cluster.size - len(listed))


def fill_records(release: Release, result: SemanticResult) -> None:
    """Set ``records`` of every cluster of ``result``: each anchor's C_1 terms with every piece
    assigned to it (record, term and shared chunks). Ghost pieces (anchor -1, the truth's ghost
    sub-records of safe disassociation) are left out."""
    bags = [[set(a) for a in rec.anchors] for rec in result.clusters]
    for cluster, rec, bag in zip(release.clusters, result.clusters, bags, strict=True):
        for j in range(1, len(rec.record_assignment)):
            for p, a in enumerate(rec.record_assignment[j]):
                if a >= 0:
                    bag[a].update(cluster.record_chunks[j][p])
        for t, anchors in rec.term_assignment.items():
            for a in anchors:
                bag[a].add(t)
    joints = {j.id: j for j in release.joint_clusters}
    for sh in result.shared:
        for j, assign in enumerate(sh.assignment):
            for p, g in enumerate(assign):
                if g >= 0:
                    ci, a = sh.anchors[g]
                    bags[ci][a].update(joints[sh.joint_id].shared_chunks[j][p])
    for rec, bag in zip(result.clusters, bags, strict=True):
        rec.records = [sorted(b) for b in bag]
