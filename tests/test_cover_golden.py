"""Golden tests: the worked examples of Barakat2016 (Figures 1 and 3) and Awad2019 (Figure 1).

The figures are images in the papers; the releases below are built from what the text says of
them (items, supports, which item is covered by which).
"""

import itertools

from anonymizer.evaluation.verify import km_violations, verify
from anonymizer.model.release import Cluster, ClusterTruth, Release, Truth
from attacks.cover.detector import run_cover_attack
from attacks.cover.knowledge import EVERY_COVER_PAIR, cover_pair_itemsets, make_knowledge

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


def two_breach_chunk() -> tuple[Release, Truth]:
    """One chunk where Barakat2016 section 6's strong attacker finds two breaches, section 4's one.

    k = m = 2, records r0 {a, b, c, e, f}, r1 {a, b, e, f}, r2 {a, b, c}, r3 {a, b}. C1 lists
    (a, b, c), (a, b), (a, b, c), (a, b): c is covered by a and b, s({a, b, c}) = 2 = s(c). C2 lists
    (e, f), (e, f): for x = e and for x = f (support 2), I_1(x) = {a, b, c} is a cover problem, so
    (e, C1) and (f, C1) are two cover relations of chunk C2 (VERPART rejected e and f from C1: {c, e}
    and {c, f} have support 1). Only r0 holds a cover pair ({c, e} and {c, f}), so one well-picked
    itemset per record knows one of them.
    """
    c1 = [("a", "b", "c"), ("a", "b"), ("a", "b", "c"), ("a", "b")]
    c2 = [("e", "f"), ("e", "f")]
    release = Release({"k": 2, "m": 2, "max_cluster_size": 8}, [Cluster("P1", 4, [c1, c2], [])])
    truth = Truth([ClusterTruth("P1", [0, 1, 2, 3], [[0, 3, 2, 1], [0, 1]], {})])
    return release, truth


def _problems(report, definition):
    return [(p.cluster, p.chunk, p.covered, p.covering, p.item) for p in report.cover_problems
            if p.definition == definition]


def test_figures_are_km_anonymous_releases():
    for release in (barakat_fig1(), barakat_fig3(), awad_fig1(), two_breach_chunk()[0]):
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
    assert report.knowledge_source == EVERY_COVER_PAIR and report.knowledge_size == 2  # {c, e} and {d, e}
    assert report.breaches == 1 and report.vulnerable_records == 2
    per_record = run_cover_attack(awad_fig1(), "strong-per-record")
    assert per_record.knowledge_source == "release"
    assert per_record.breaches == 1 and per_record.vulnerable_records == 2


def test_section6_strong_counts_two_breaches_in_one_chunk_per_record_one():
    """Issue 24's golden case: Barakat2016 section 6 ("a privacy breach occurs whenever a cover problem
    is found") counts both cover relations of chunk C2; section 4's one well-picked itemset per record
    (a bijection with the records) knows one of r0's two cover pairs, and no other record holds one."""
    release, truth = two_breach_chunk()
    strong = run_cover_attack(release, knowledge=make_knowledge(release, "strong", truth=truth))
    assert (strong.breaches, strong.algorithm1_total, strong.vulnerable_records) == (2, 2, 2)
    assert sorted((b.chunk, b.item, b.covered_chunk, tuple(b.covered)) for b in strong.breach_list) == [
        (1, "e", 0, ("c",)), (1, "f", 0, ("c",))]
    assert strong.knowledge_source == EVERY_COVER_PAIR and strong.knowledge_size == 2
    for seed in range(8):  # whichever pair r0's itemset holds, one breach
        kn = make_knowledge(release, "strong-per-record", seed, truth=truth)
        assert kn.source == "truth" and kn.details["well_picked"] == 1 and len(kn.itemsets) == 4
        per_record = run_cover_attack(release, "strong-per-record", knowledge=kn)
        assert (per_record.breaches, per_record.algorithm1_total, per_record.vulnerable_records) == (1, 1, 2)
    # the every-cover-pair mode is the knowledge of every cover pair written out
    assert cover_pair_itemsets(release) == [("c", "e"), ("c", "f")]
    explicit = run_cover_attack(release, knowledge=cover_pair_itemsets(release))
    assert (explicit.breaches, explicit.algorithm1_total) == (2, 2)


def test_awad_fig1_pem_counts_the_linkable_chunk():
    """All three readings agree on Figure 1: R_C1's cover problem can be linked to e of R_C2."""
    report = run_cover_attack(awad_fig1(), "strong")
    assert (report.vulnerable_chunks, report.pem) == (1, 0.5)
    assert (report.vulnerable_chunks_linkable, report.pem_linkable, report.linkable_chunks) == (1, 0.5, 2)
    assert (report.vulnerable_clusters, report.clusters, report.pem_cluster) == (1, 1, 1.0)
    assert [p.linkable for p in report.cover_problems if p.definition == "awad2019"] == [True]


def test_single_chunk_cluster_with_covered_items_is_vulnerable_but_not_linkable():
    """Awad2019 5.1.1: "every record chunk that is subject to a cover problem is a vulnerable record
    chunk", so PEM counts it; section 3.3 / Lemma 1 need "an item in another record chunk", so the
    linkable reading does not (c and d are covered by a and b)."""
    c1 = [("a", "b", "c", "d")] * 4 + [("a", "b")] * 2
    release = Release({"k": 2, "m": 2, "max_cluster_size": 8}, [Cluster("P1", 6, [c1], ["z"])])
    report = run_cover_attack(release, "strong")
    assert (report.vulnerable_chunks, report.pem) == (1, 1.0)
    assert (report.vulnerable_chunks_linkable, report.pem_linkable, report.linkable_chunks) == (0, 0.0, 0)
    assert (report.vulnerable_clusters, report.pem_cluster) == (1, 1.0)
    [problem] = [p for p in report.cover_problems if p.definition == "awad2019"]
    assert problem.covered == ["c", "d"] and problem.linkable is False


def test_three_pem_readings_differ():
    """Awad2019 Figure 1's cluster, a single-chunk cluster with a cover problem, a cluster without one
    and a cluster whose two chunks both have one: 4/6 chunks (5.1.1), 3/6 linkable (3.3, Lemma 1),
    3/4 clusters (Definition 3: "the cluster R ... subject to a cover problem")."""
    lone = [("a", "b", "c", "d")] * 4 + [("a", "b")] * 2
    safe = [("g", "h"), ("g",), ("h",), ("g", "h")]
    double = [[("p", "q"), ("p", "q"), ("p",)], [("s", "t"), ("s", "t"), ("t",)]]
    fig1 = awad_fig1().clusters[0]
    release = Release({"k": 2, "m": 2, "max_cluster_size": 8}, [
        fig1, Cluster("P2", 6, [lone], []), Cluster("P3", 4, [safe], []), Cluster("P4", 3, double, [])])
    report = run_cover_attack(release, "strong", list_problems=False)
    assert report.record_chunks == 6
    assert (report.vulnerable_chunks, report.pem) == (4, 4 / 6)
    assert (report.vulnerable_chunks_linkable, report.linkable_chunks, report.pem_linkable) == (3, 4, 3 / 6)
    assert (report.vulnerable_clusters, report.clusters, report.pem_cluster) == (3, 4, 3 / 4)
    assert report.to_dict()["pem_cluster"] == 0.75 and "pem_literal" not in report.to_dict()
