"""The exhaustive oracle of tests/reconstruction_oracle.py, checked on hand-made releases and
against a naive enumeration by permutations (so the property tests can trust it)."""

import itertools
import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from paper_examples import fig2b
from reconstruction_oracle import analyse, guarantee1_violations, is_valid_reconstruction, release_dict


def release(clusters, joints=(), k=3, m=2):
    return release_dict(clusters, joints, k, m)


def test_terrovitis2012_example1_breaks_guarantee1():
    """Example 1 (section 5): C1 = {a}x3, C2 = {b,c}x3 in a cluster of 5 and no term chunk. Only one
    5-record reconstruction exists and it holds {a, b} once: Lemma 1 holds, Guarantee 1 does not."""
    rel = release([("P1", 5, [[["a"]] * 3, [["b", "c"]] * 3], [])])
    feasible, bad = guarantee1_violations(rel)
    assert feasible
    assert dict(bad) == {frozenset("ab"): 1, frozenset("ac"): 1}


def test_example1_with_a_term_chunk_keeps_guarantee1():
    """Lemma 2: a non-empty term chunk fills the other records, so {a, b} reaches 3 records."""
    rel = release([("P1", 5, [[["a"]] * 3, [["b", "c"]] * 3], ["x"])])
    feasible, bad = guarantee1_violations(rel)
    assert feasible and bad == []
    assert analyse(rel).max_support[frozenset("ab")] == 3


def test_figure2b_keeps_guarantee1():
    feasible, bad = guarantee1_violations(json.loads(json.dumps(fig2b().to_dict())))
    assert feasible and bad == []


def test_refine_minimal_case_of_issue9():
    """P1 = {a}x3, P2 = {b}x2 + one empty record, shared chunk [c]x2: P2's empty record must take a
    [c], so {a, c} reaches one record at most."""
    rel = release([("P1", 3, [[["a"]] * 3], []), ("P2", 3, [[["b"]] * 2], [])],
                  [("J1", ["P1", "P2"], [[["c"], ["c"]]])], k=2)
    feasible, bad = guarantee1_violations(rel)
    assert feasible
    assert frozenset("ac") in dict(bad)


def test_no_valid_reconstruction_when_records_cannot_be_filled():
    rel = release([("P1", 2, [], []), ("P2", 2, [], [])], [("J1", ["P1", "P2"], [[["b"], ["b"]]])], k=2)
    assert not analyse(rel).feasible


def test_shared_subrecord_never_lands_where_its_term_is_already_listed():
    """A shared [a] cannot go to P1, whose record chunk lists every record's a: all three go to P2."""
    rel = release([("P1", 3, [[["a"], ["a"]], [["z"]] * 3], []), ("P2", 3, [[["b"]] * 3], [])],
                  [("J1", ["P1", "P2"], [[["a"]] * 3])], k=2)
    res = analyse(rel)
    assert res.feasible
    assert res.max_support[frozenset("ab")] == 3
    assert res.max_support[frozenset("a")] == 5
    assert res.max_support[frozenset("az")] == 2


def test_is_valid_reconstruction():
    rel = release([("P1", 3, [[["a"], ["a"]]], ["t"])], k=2)
    a, t = frozenset("a"), frozenset("t")
    assert is_valid_reconstruction(rel, [[a, a | t, t]])
    assert is_valid_reconstruction(rel, [[a, a, t]])  # t held once
    assert not is_valid_reconstruction(rel, [[a, a, frozenset()]])  # an empty record
    assert not is_valid_reconstruction(rel, [[a, a | t, a | t]])  # three a's, two listed
    assert not is_valid_reconstruction(rel, [[a, a, a]])  # the term chunk's t missing


def _naive_max_supports(size, chunks, terms, m):
    """Every matching of padded chunk lists to records by plain permutations (one cluster)."""
    padded = [[frozenset(s) for s in ch] + [frozenset()] * (size - len(ch)) for ch in chunks]
    best: Counter = Counter()
    feasible = False
    for perms in itertools.product(*(set(itertools.permutations(p)) for p in padded)):
        recs = [frozenset().union(*(perm[i] for perm in perms)) if perms else frozenset() for i in range(size)]
        if not terms and any(not r for r in recs):
            continue
        feasible = True
        sup: Counter = Counter()
        for r in recs:
            pool = sorted(r | set(terms))
            for n in range(1, m + 1):
                for s in itertools.combinations(pool, n):
                    sup[frozenset(s)] += 1
        for s, n in sup.items():
            best[s] = max(best[s], n)
    return feasible, dict(best)


_subrecords = st.lists(st.frozensets(st.sampled_from("ab"), min_size=1), max_size=5)


@settings(max_examples=60, deadline=None)
@given(size=st.integers(2, 5), c1=_subrecords,
       c2=st.lists(st.frozensets(st.sampled_from("cd"), min_size=1), max_size=5),
       with_term=st.booleans())
def test_oracle_matches_naive_permutations(size, c1, c2, with_term):
    chunks = [[sorted(s) for s in ch[:size]] for ch in (c1, c2) if ch]
    terms = ["t"] if with_term else []
    rel = release([("P1", size, chunks, terms)], k=2, m=2)
    feasible, best = _naive_max_supports(size, chunks, terms, 2)
    res = analyse(rel)
    assert res.feasible == feasible
    if feasible:
        assert res.max_support == best
