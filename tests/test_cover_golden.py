"""Golden tests: the worked examples of Barakat2016 (Figures 1 and 3) and Awad2019 (Figure 1).

The figures are images in the papers; the releases below are built from what the text says of
them (items, supports, which item is covered by which).
"""

import itertools

from anonymizer.evaluation.verify import km_violations, verify
from anonymizer.model.release import Cluster, Release
from attacks.cover.detector import run_cover_attack

ONC, CAN, TRE, SE, VOM = "oncologist", "cancer", "treatment", "side effects", "vomiting"


def barakat_fig1() -> Release:
    """Barakat2016 Figure 1(b): k=3, m=2, one cluster, record chunks C1 and C2.

    Text (section 5.1, 5.2): I1 = {Oncologist, Cancer, Treatment} are the items of C1 with support
    at least that of Side Effects (in C2); Cancer is covered by Oncologist and Treatment: every
    occurrence of Cancer comes with both.
    """
    c1 = [(CAN, ONC, TRE)] * 3 + [(ONC, TRE)] * 2
    c2 = [(SE,)] * 3
    return Release({"k": 3, "m": 2, "max_cluster_size": 10}, [Cluster("P1", 6, [c1, c2], [VOM])])


def barakat_fig3() -> Release:
    """Barakat2016 Figure 3(a): k=2; I_{1,1} = {a, b, c} have support >= s(e); s(I) = 2 = s(c)."""
    c1 = [("a", "b", "c"), ("a", "b", "c"), ("a", "b"), ("a", "b")]
    c2 = [("e",), ("e",)]
    return Release({"k": 2, "m": 2, "max_cluster_size": 10}, [Cluster("P1", 4, [c1, c2], [])])


def awad_fig1() -> Release:
    """Awad2019 Figure 1(b), given in full in section 3.2: R_C1 and R_C2 of one cluster, k=2, m=2."""
    c1 = [("a",), ("a", "b", "c", "d"), ("a", "b", "c", "d"), ("a", "b", "c", "d"), ("a", "b", "c", "d"), ("a", "b")]
    c2 = [("e",), ("e",)]
    return Release({"k": 2, "m": 2, "max_cluster_size": 8}, [Cluster("P1", 6, [c1, c2], [])])


def _problems(report, definition):
    return [(p.cluster, p.chunk, p.covered, p.covering, p.item) for p in report.cover_problems
            if p.definition == definition]


def test_figures_are_km_anonymous_releases():
    for release in (barakat_fig1(), barakat_fig3(), awad_fig1()):
        assert verify(release).ok


def test_barakat_fig1_cancer_covered_for_side_effects():
    report = run_cover_attack(barakat_fig1(), knowledge=[(CAN, SE)])
    assert _problems(report, "barakat2016") == [("P1", 0, [CAN], [ONC, TRE], SE)]
    assert _problems(report, "awad2019") == [("P1", 0, [CAN], [ONC, TRE], None)]
    assert report.breaches == 1
    # The three records holding Side Effects are the vulnerable ones.
    assert report.vulnerable_records == 3
    assert report.pem == 0.5 and report.vulnerable_chunks == 1 and report.record_chunks == 2


def test_barakat_fig1_alice_knowledge_is_no_cover_breach():
    # Alice's {Side Effects, Vomiting}: Vomiting is not a covered item, so Algorithm 1 notes nothing.
    report = run_cover_attack(barakat_fig1(), knowledge=[(SE, VOM)])
    assert report.breaches == 0 and report.vulnerable_records == 0
    assert report.pem == 0.5  # PEM ignores the knowledge (Awad2019 5.2.1)


def test_barakat_fig3_c_covered_by_a_and_b():
    report = run_cover_attack(barakat_fig3(), knowledge=[("c", "e")])
    assert _problems(report, "barakat2016") == [("P1", 0, ["c"], ["a", "b"], "e")]
    assert report.breaches == 1 and report.vulnerable_records == 2
    assert [(b.item, b.covered_chunk, b.covered) for b in report.breach_list] == [("e", 0, ["c"])]
    # Knowledge {b, e} does not involve the covered item: no breach.
    assert run_cover_attack(barakat_fig3(), knowledge=[("b", "e")]).breaches == 0


def _reconstructions(cluster):
    """All distinct datasets of the inverse transformation of one cluster (record chunks only)."""
    padded = [list(ch) + [()] * (cluster.size - len(ch)) for ch in cluster.record_chunks]
    perms = [sorted(set(itertools.permutations(p))) for p in padded[1:]]
    seen = set()
    for combo in itertools.product(*perms):
        records = tuple(sorted(tuple(sorted(set(padded[0][i]).union(*(c[i] for c in combo))))
                               for i in range(cluster.size)))
        seen.add(records)
    return sorted(seen)


def _valid(records, cluster, k, m):
    """Barakat2016 section 5.2: VERPART must have rejected each x of C_j from each earlier C_l."""
    chunks = [{t for sub in ch for t in sub} for ch in cluster.record_chunks]
    supp = {t: sum(1 for r in records if t in r) for ch in chunks for t in ch}
    for j in range(1, len(chunks)):
        for x in chunks[j]:
            for l in range(j):
                items = {y for y in chunks[l] if supp[y] >= supp[x]} | {x}
                projected = [tuple(sorted(set(r) & items)) for r in records if set(r) & items]
                if not km_violations(projected, k, m):
                    return False
    return True


def test_barakat_fig3_every_valid_reconstruction_links_e_and_c_to_fewer_than_k():
    release = barakat_fig3()
    cluster = release.clusters[0]
    all_recs = _reconstructions(cluster)
    valid = [r for r in all_recs if _valid(r, cluster, 2, 2)]
    # Pairing e twice with c (T'6 of the paper) is ruled out, and so is pairing e only with {a, b}: in
    # both, {a, b, c, e} would have been a k^m-anonymous chunk, so VERPART would have put e in C1.
    assert len(all_recs) == 3 and len(valid) == 1
    for records in valid:
        assert sum(1 for r in records if {"c", "e"} <= set(r)) < 2
        # and every record holding c and e holds a and b too (Figure 3(c)).
        assert all({"a", "b"} <= set(r) for r in records if {"c", "e"} <= set(r))


def test_awad_fig1_c_and_d_covered_by_a_and_b():
    report = run_cover_attack(awad_fig1(), knowledge=[("d", "e")])
    assert _problems(report, "awad2019") == [("P1", 0, ["c", "d"], ["a", "b"], None)]
    assert report.vulnerable_chunks == 1 and report.record_chunks == 2 and report.pem == 0.5
    assert report.breaches == 1 and report.vulnerable_records == 2


def test_awad_fig1_attacker_with_d_and_e_links_to_abcd():
    # Section 1: with {d, e} known, every record holding d and e is {a, b, c, d, e} in the valid reconstructions.
    release = awad_fig1()
    cluster = release.clusters[0]
    valid = [r for r in _reconstructions(cluster) if _valid(r, cluster, 2, 2)]
    assert valid
    for records in valid:
        assert {r for r in records if {"d", "e"} <= set(r)} <= {("a", "b", "c", "d", "e")}


def test_strong_attacker_from_release_breaches_every_cover_problem():
    report = run_cover_attack(awad_fig1(), "strong")
    assert report.knowledge_source == "release"
    assert report.breaches == 1 and report.vulnerable_records == 2


def test_awad_fig1_pem_counts_the_linkable_chunk():
    """Both readings agree on Figure 1: R_C1's cover problem can be linked to e of R_C2."""
    report = run_cover_attack(awad_fig1(), "strong")
    assert (report.vulnerable_chunks, report.pem) == (1, 0.5)
    assert (report.vulnerable_chunks_literal, report.pem_literal) == (1, 0.5)
    assert [p.linkable for p in report.cover_problems if p.definition == "awad2019"] == [True]


def test_single_chunk_cluster_with_covered_items_is_not_vulnerable():
    """Awad2019 section 3.3: a cover problem associates items "in two distinct record chunks, from
    the same cluster"; with no other record chunk there is no y to link (Lemma 1), so PEM is 0.
    Definition 3 on its own still flags the chunk (c and d are covered by a and b)."""
    c1 = [("a", "b", "c", "d")] * 4 + [("a", "b")] * 2
    release = Release({"k": 2, "m": 2, "max_cluster_size": 8}, [Cluster("P1", 6, [c1], ["z"])])
    report = run_cover_attack(release, "strong")
    assert (report.vulnerable_chunks, report.pem) == (0, 0.0)
    assert (report.vulnerable_chunks_literal, report.pem_literal) == (1, 1.0)
    [problem] = [p for p in report.cover_problems if p.definition == "awad2019"]
    assert problem.covered == ["c", "d"] and problem.linkable is False
