"""The reference reconstructions an attack is measured against (AlShuhail2021 section 5.2).

* :func:`truth_reconstruction`: the perfect attack, every piece on its owner's anchor;
* :func:`blind_attack`: the attack's placement rule with every score equal (no semantic signal);
* :func:`oracle_reconstruction`: a perfect ranking under the attack's own placement rule, the
  ceiling of any attack that follows that rule.

The random baseline of the thesis is ``run_semantic_attack(release, None, "random", seed=seed)``.
"""

from __future__ import annotations

from anonymizer.model.release import Release, Truth
from attacks.semantic.attack import run_semantic_attack
from attacks.semantic.matching import fixed_anchors
from attacks.semantic.result import (
    ClusterReconstruction,
    SemanticResult,
    SharedReconstruction,
    cluster_anchors,
    fill_records,
)
from attacks.semantic.scoring import ConstantScorer

__all__ = ["truth_reconstruction", "blind_attack", "oracle_reconstruction"]


def truth_reconstruction(release: Release, truth: Truth) -> SemanticResult:
    """The perfect attack: every piece on the anchor of the record the truth gives it.

    Anchors as in :func:`attacks.semantic.attack.run_semantic_attack`; every record gets its anchor
    of the fixed pairing (:func:`attacks.semantic.matching.fixed_anchors`: listed position -> the
    record the truth lists there; the records whose C_1 sub-record is empty take the empty anchors
    in the truth's record order). Ghost pieces (-1) are left out.
    Useful as the upper bound of every metric (accuracy 1) and in tests.
    """
    truth.check_against(release)
    anchor_of_record: list[dict[int, int]] = []
    clusters: list[ClusterReconstruction] = []
    for cluster, ct in zip(release.clusters, truth.clusters, strict=True):
        anchors = cluster_anchors(cluster)
        listed = ct.record_chunks[0] if ct.record_chunks else []
        where = fixed_anchors(ct, len(listed), len(anchors))
        anchor_of_record.append(where)
        rec = ClusterReconstruction(cluster.id, anchors, len(listed))
        if cluster.record_chunks:
            rec.record_assignment = [list(range(len(listed)))]
            for j in range(1, len(cluster.record_chunks)):
                rec.record_assignment.append([where.get(rid, -1) for rid in ct.record_chunks[j]])
        rec.term_assignment = {t: sorted(where[r] for r in rids if r >= 0) for t, rids in ct.term_chunk.items()}
        clusters.append(rec)
    position = {c.id: i for i, c in enumerate(release.clusters)}
    shared: list[SharedReconstruction] = []
    jtruth = {j.id: j for j in truth.joint_clusters}
    joint_leaves = release.joint_leaves()
    for joint in release.joint_clusters:
        refs = [(position[leaf.id], a) for leaf in joint_leaves[joint.id] for a in range(leaf.size)]
        gindex = {ref: g for g, ref in enumerate(refs)}
        owner: dict[int, int] = {}
        for ci, _a in refs:
            for rid, a in anchor_of_record[ci].items():
                owner[rid] = gindex[(ci, a)]
        ids = jtruth[joint.id].shared_chunks if joint.id in jtruth else []
        shared.append(SharedReconstruction(joint.id, refs, [[owner.get(r, -1) for r in ch] for ch in ids]))
    # ghost pieces (-1 in the assignments) are left out of the records
    result = SemanticResult(selector="truth", chunks="both", scorer="none", seed=0, clusters=clusters, shared=shared)
    fill_records(release, result)
    return result


def blind_attack(release: Release, selector: str = "ABA", chunks: str = "both", seed: int = 0) -> SemanticResult:
    """The blind placement: ``selector`` with every score equal (:class:`attacks.semantic.scoring.ConstantScorer`),
    so only the placement rule and the implementation's order among equal scores act (ties go to
    the first listed anchor: AlShuhail2021 says so for RGA and MRA, 4.3.2-4.3.3, "the strategy
    chooses the first ASR with the best semantic score"; Algorithm 6, ABA, only says "Arrange
    sub-records of C_1 based on the average in list N" and names no order among equal averages).
    What the rule earns with no semantic signal at all."""
    method = selector if selector in ("ABA", "RGA", "MRA", "assign", "ABA-spread") else "ABA"
    result = run_semantic_attack(release, ConstantScorer(), selector=method, chunks=chunks, seed=seed)
    result.selector = "blind"
    return result


def oracle_reconstruction(release: Release, truth: Truth, chunks: str = "both") -> SemanticResult:
    """The oracle ceiling: a perfect ranking under the attack's own placement rule (Algorithm 6).

    Every sub-record goes to the anchors of the records that hold it (its best anchors under a
    perfect score); a term-chunk term goes to its owners and, since the rule places every term on
    ``min(k - 1, size)`` anchors, to further anchors in tie order (listed order, skipping its
    owners) until it has that many. No attack that follows the same rule can place more pieces
    right, so its accuracy and breakage are at most the oracle's.
    """
    result = truth_reconstruction(release, truth)
    k = release.k
    for rec in result.clusters:
        count = min(k - 1, len(rec.anchors))
        for t, owners in rec.term_assignment.items():
            chosen = list(dict.fromkeys(owners))
            for a in range(len(rec.anchors)):
                if len(chosen) >= count:
                    break
                if a not in chosen:
                    chosen.append(a)
            rec.term_assignment[t] = sorted(chosen)
    do_record, do_term = chunks in ("record", "both"), chunks in ("term", "both")
    for rec in result.clusters:
        if not do_record:
            rec.record_assignment = rec.record_assignment[:1] + [[] for _ in rec.record_assignment[1:]]
        if not do_term:
            rec.term_assignment = {}
    if not do_record:
        result.shared = []
    result.chunks = chunks
    fill_records(release, result)
    result.selector = "oracle"
    return result
