"""The verifier's exact search (anonymizer/evaluation/exact.py) against the exhaustive oracle of
tests/reconstruction_oracle.py, on Terrovitis2012's examples and on random tiny releases."""

import re
from collections import Counter

import pytest
from hypothesis import given, reject, settings
from reconstruction_oracle import TooLarge, analyse, guarantee1_violations
from release_strategies import tiny_releases

from anonymizer.evaluation.exact import EXACT_MAX_RECORDS, build_components, check_component
from anonymizer.evaluation.verify import MAX_ITEMSETS_PER_CHUNK, verify


def release(clusters, joints=(), k=2, m=2):
    return {"format": "disassociated/1", "params": {"k": k, "m": m},
            "clusters": [{"id": cid, "size": size, "record_chunks": chunks, "term_chunk": terms}
                         for cid, size, chunks, terms in clusters],
            "joint_clusters": [{"id": jid, "children": ch, "shared_chunks": sc} for jid, ch, sc in joints]}


def exact_analysis(obj):
    """(feasible, largest support of every itemset) from the product's exact search."""
    comps = build_components([(c["id"], c["size"], c["record_chunks"], c["term_chunk"]) for c in obj["clusters"]],
                             [(j["id"], j["children"], j["shared_chunks"]) for j in obj["joint_clusters"]])
    feasible, best = True, Counter()
    for comp in comps:
        result = check_component(comp, obj["params"]["m"])
        assert result is not None
        feasible = feasible and result.feasible
        best.update(result.max_support)
    return feasible, dict(best) if feasible else {}


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(obj=tiny_releases())
def test_exact_search_matches_the_oracle(obj):
    try:
        oracle = analyse(obj)
    except TooLarge:  # a release the exhaustive oracle cannot enumerate decides nothing
        reject()
    assert exact_analysis(obj) == (oracle.feasible, oracle.max_support)


G1 = re.compile(r"Guarantee 1 fails: itemset \{(.*)\} reaches at most (\d+) record")


@settings(max_examples=60, deadline=None)
@given(obj=tiny_releases())
def test_verify_exact_reports_what_the_oracle_finds(obj):
    try:
        feasible, bad = guarantee1_violations(obj)
    except TooLarge:  # as above
        reject()
    report = verify(obj, exact=True)
    assert (report.components_proven, report.components_unproven, report.unproven) == (0, 0, [])
    lines = [v for v in report.violations if "Guarantee 1" in v]
    if not feasible:
        assert any("no valid reconstruction" in v for v in lines)
        return
    named = {(frozenset(m.group(1).split(", ")), int(m.group(2))) for v in lines if (m := G1.search(v))}
    assert named <= set(bad)
    assert len(named) == min(len(bad), MAX_ITEMSETS_PER_CHUNK)
    if len(bad) > MAX_ITEMSETS_PER_CHUNK:
        assert lines[-1] == f"Guarantee 1: ... and {len(bad) - MAX_ITEMSETS_PER_CHUNK} more such itemsets"


def test_terrovitis2012_example1():
    obj = release([("P1", 5, [[["a"]] * 3, [["b", "c"]] * 3], [])], k=3)
    feasible, best = exact_analysis(obj)
    assert feasible and best[frozenset("ab")] == 1 and best[frozenset("a")] == 3 and best[frozenset("bc")] == 3
    obj["clusters"][0]["term_chunk"] = ["x"]
    assert exact_analysis(obj)[1][frozenset("ab")] == 3


def test_issue9_refine_case():
    obj = release([("P1", 3, [[["a"]] * 3], []), ("P2", 3, [[["b"]] * 2], [])],
                  [("J1", ["P1", "P2"], [[["c"], ["c"]]])])
    feasible, best = exact_analysis(obj)
    assert feasible and best[frozenset("ac")] == 1 and best[frozenset("bc")] == 1  # P2's third record takes a c
    assert (feasible, best) == (analyse(obj).feasible, analyse(obj).max_support)


def test_infeasible_case():
    obj = release([("P1", 2, [], []), ("P2", 2, [], [])], [("J1", ["P1", "P2"], [[["b"], ["b"]]])])
    assert exact_analysis(obj) == (False, {})
    report = verify(obj)
    assert "joint cluster J1: Guarantee 1 fails: no valid reconstruction" in report.violations[-1]


def test_shared_sub_record_never_lands_where_its_term_is_listed():
    obj = release([("P1", 3, [[["a"], ["a"]], [["z"]] * 3], []), ("P2", 3, [[["b"]] * 3], [])],
                  [("J1", ["P1", "P2"], [[["a"]] * 3])])
    best = exact_analysis(obj)[1]
    assert best[frozenset("ab")] == 3 and best[frozenset("a")] == 5 and best[frozenset("az")] == 2


def test_supports_add_up_over_components():
    """{a} reaches one record in each of two lone clusters: two records in all, k=2 is kept. With
    the second cluster too large for the automatic search, its k^m violation ({a} in 1 sub-record)
    fails the release already, so it is not decided further (undecided), and the first one's {a}
    is not reported as a Guarantee 1 failure ({b} occurs in P1 only: still reported)."""
    obj = release([("P1", 2, [[["a"]], [["b"]] * 2], []), ("P2", 2, [[["a"]], [["c"]] * 2], [])], k=2, m=1)
    assert verify(obj).violations == [f"cluster {c} record chunk 0: itemset {{a}} appears in 1 sub-record(s), "
                                      "fewer than k=2" for c in ("P1", "P2")]
    obj["params"]["k"] = 3
    report = verify(obj)
    assert ("cluster P1, cluster P2: Guarantee 1 fails: itemset {a} reaches at most 2 record(s) in any valid "
            "reconstruction, fewer than k=3") in report.violations
    obj["clusters"][1]["size"] = EXACT_MAX_RECORDS + 1
    obj["clusters"][1]["term_chunk"] = ["t"]
    report = verify(obj)
    lines = [v for v in report.violations if "Guarantee 1" in v]
    assert lines == ["cluster P1: Guarantee 1 fails: itemset {b} reaches at most 2 record(s) in any valid "
                     "reconstruction, fewer than k=3"]
    assert (report.components_exact, report.components_proven, report.components_unproven) == (1, 0, 1)
    assert verify(obj, exact=True).components_exact == 2


def test_too_many_spreads_leaves_the_component_to_the_sufficient_conditions():
    obj = release([("P1", 3, [[["a"]] * 3], []), ("P2", 3, [[["b"]] * 3], [])],
                  [("J1", ["P1", "P2"], [[["s"]] * 3, [["u"]] * 2])])
    comp = build_components([(c["id"], c["size"], c["record_chunks"], c["term_chunk"]) for c in obj["clusters"]],
                            [(j["id"], j["children"], j["shared_chunks"]) for j in obj["joint_clusters"]])[0]
    assert check_component(comp, 2) is not None
    assert check_component(comp, 2, max_spreads=3) is None


@settings(max_examples=150, deadline=None)
@given(obj=tiny_releases())
def test_the_spread_count_equals_the_spreads_listed(obj):
    """count_spreads (the refusal of a component with too many spreads, decided before any is listed)
    counts exactly what the search lists, and caps at cap + 1."""
    from anonymizer.evaluation.exact import _deals, count_spreads

    comps = build_components([(c["id"], c["size"], c["record_chunks"], c["term_chunk"]) for c in obj["clusters"]],
                             [(j["id"], j["children"], j["shared_chunks"]) for j in obj["joint_clusters"]])
    for comp in comps:
        listed = sum(1 for _ in _deals(comp))
        assert count_spreads(comp, 10**9) == listed
        assert count_spreads(comp, 2) == min(listed, 3)
