"""The papers' conditions (anonymizer.model.conditions): the worked examples, and every fast path
that decides the same thing property-tested equal to the definition on random inputs.

Fast paths: VERPART's incremental k^m test on record bitsets (``verpart.extends_km``), REFINE's
incremental Property 1 grouping (``refine.build_shared_chunks``), Apriori's vectorized k^m test
(``apriori.apriori_anonymize``), and the vectorized cover index of ``attacks.cover.problem``
(``awad_covers``, ``barakat_relations``).
"""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.baselines.apriori import apriori_anonymize
from anonymizer.baselines.hierarchy import balanced_hierarchy
from anonymizer.disassociation.refine import build_shared_chunks
from anonymizer.disassociation.safe import _lemma2_ok
from anonymizer.disassociation.verpart import extends_km
from anonymizer.model.conditions import (
    awad_cover,
    barakat_cover,
    is_k_anonymous,
    is_km_anonymous,
    k_anonymity_violations,
    km_violations,
    lemma2_holds,
    property1_holds,
)
from anonymizer.model.release import Cluster, Release
from attacks.cover.problem import awad_covers, barakat_relations, flatten
from corpora.dataset import TransactionDataset

subrecords = st.lists(st.frozensets(st.sampled_from("abcdefg"), min_size=1, max_size=5), min_size=0, max_size=14)


def powerset_km(chunk, k, m):
    """k^m-anonymity read off the definition by enumerating every itemset of the chunk's terms."""
    terms = sorted({t for sub in chunk for t in sub})
    for size in range(1, m + 1):
        for combo in itertools.combinations(terms, size):
            n = sum(1 for sub in chunk if set(combo) <= set(sub))
            if 0 < n < k:
                return False
    return True


# ---- the definitions on the papers' examples ------------------------------------------------------

def test_km_and_k_anonymity_definitions() -> None:
    chunk = [("a", "b", "c"), ("a", "b", "c"), ("a",), ("b", "c"), ("b", "c")]
    assert km_violations(chunk, 3, 2) == [(("a", "b"), 2), (("a", "c"), 2)]
    assert is_km_anonymous(chunk, 2, 2) and not is_km_anonymous(chunk, 3, 2)
    assert k_anonymity_violations(chunk, 2) == [(("a",), 1)]
    assert not is_k_anonymous(chunk, 2) and is_k_anonymous([("a",), ("a",), ()], 2)


@settings(max_examples=80, deadline=None)
@given(chunk=subrecords, k=st.integers(2, 4), m=st.integers(1, 4))
def test_km_definition_matches_the_powerset_reading(chunk, k, m) -> None:
    assert is_km_anonymous(chunk, k, m) == powerset_km(chunk, k, m)
    # k-anonymity (Property 1's stronger reading) implies k^m-anonymity
    assert not is_k_anonymous(chunk, k) or is_km_anonymous(chunk, k, m)


def test_lemma2_example1_and_the_v0_reading() -> None:
    """Terrovitis2012 Example 1: s=5, k=3, m=2, chunks {a}x3 and {b,c}x3: 6 < 5 + 3*(2-1)."""
    assert not lemma2_holds(5, 6, 2, 3, 2, term_chunk_empty=True)
    assert lemma2_holds(5, 8, 2, 3, 2, term_chunk_empty=True)
    assert lemma2_holds(5, 6, 2, 3, 2, term_chunk_empty=False)
    # v = 0: read with h = 1 (module docstring): k records with no piece at all never pass
    assert not lemma2_holds(3, 0, 0, 3, 2, term_chunk_empty=True)
    assert lemma2_holds(3, 0, 0, 3, 2, term_chunk_empty=False)


@settings(max_examples=80, deadline=None)
@given(size=st.integers(1, 12), v=st.integers(0, 4), k=st.integers(2, 4), m=st.integers(1, 4),
       term_chunk=st.booleans(), data=st.data())
def test_safe_lemma2_is_the_definition(size, v, k, m, term_chunk, data) -> None:
    chunks = [[(f"t{j}",)] * data.draw(st.integers(1, size)) for j in range(v)]
    cluster = Cluster("P1", size, chunks, ["z"] if term_chunk else [])
    total = sum(map(len, chunks))
    assert _lemma2_ok(cluster, k, m) == lemma2_holds(size, total, v, k, m, not term_chunk)
    if v >= 1 and not term_chunk:  # the paper's formula, literally, wherever v >= 1
        assert lemma2_holds(size, total, v, k, m, True) == (total >= size + k * (min(m, v) - 1))


def test_property1_figure5a() -> None:
    """Figure 5a: a is in T^r, so the shared chunk {a,o}x3, {a}, {o} must be k-anonymous (it is 3^2-anonymous
    only if a is not restricted)."""
    chunk = [("a", "o")] * 3 + [("a",), ("o",)]
    assert not property1_holds(chunk, {"a"}, 3, 2)
    assert property1_holds([("a", "o")] * 3, {"a"}, 3, 2)
    assert property1_holds([("a", "o")] * 3 + [("a", "o", "q")] * 3, set(), 3, 1)


def test_awad_figure1() -> None:
    """Awad2019 Figure 1(b): I_1 = {a, b, c, d}, s(I_1) = 4 = s(c) = s(d): c and d are covered by a and b."""
    c1 = [("a",), *[("a", "b", "c", "d")] * 4, ("a", "b")]
    assert awad_cover(c1) == (["a", "b", "c", "d"], 4, ["c", "d"])
    assert awad_cover([("e",), ("e",)]) is None
    assert awad_cover([("a",), ("b",)]) is None


def test_barakat_figures_1_and_3() -> None:
    """Barakat2016 Figure 3(a): I_{1,1} = {a, b, c}, s = 2 = s(c): c is covered by a and b; Figure 1(b):
    Cancer is covered by Oncologist and Treatment for Side Effects."""
    c1 = [("a", "b", "c"), ("a", "b", "c"), ("a", "b"), ("a", "b")]
    assert barakat_cover(c1, [("e",), ("e",)], "e") == (["c"], ["a", "b"])
    onc, can, tre, se = "oncologist", "cancer", "treatment", "side effects"
    fig1 = [(can, onc, tre)] * 3 + [(onc, tre)] * 2
    assert barakat_cover(fig1, [(se,)] * 3, se) == ([can], [onc, tre])
    assert barakat_cover([("a",), ("b",)], [("e",)], "e") is None  # s(I) = 0 < 1


# ---- fast paths against the definitions ------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(records=st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=6), min_size=1, max_size=14),
       k=st.integers(2, 4), m=st.integers(1, 4))
def test_verpart_incremental_km_test_is_the_definition(records, k, m) -> None:
    """Grow a chunk term by term as Algorithm VERPART does: the bitset test ``extends_km`` accepts a
    term exactly when the chunk projected on the grown term set is k^m-anonymous."""
    support = Counter(t for r in records for t in r)
    order = sorted((t for t in support if support[t] >= k), key=lambda t: (-support[t], t))
    bits = {t: sum(1 << i for i, r in enumerate(records) if t in r) for t in order}
    current: list[str] = []
    for t in order:
        trial = set(current) | {t}
        chunk = [tuple(sorted(r & trial)) for r in records if r & trial]
        got = extends_km([bits[u] for u in current], bits[t], k, m, zero_ok=True)
        assert got == is_km_anonymous(chunk, k, m)
        if got:
            current.append(t)


@settings(max_examples=60, deadline=None)
@given(projections=st.dictionaries(st.integers(0, 30), st.frozensets(st.sampled_from("abcdefg"), min_size=1,
                                                                      max_size=4), max_size=25),
       restricted=st.frozensets(st.sampled_from("abcdefg"), max_size=3), k=st.integers(2, 4), m=st.integers(1, 3))
def test_refine_shared_chunks_satisfy_property1(projections, restricted, k, m) -> None:
    chunks, left = build_shared_chunks(projections, restricted, k, m)
    for sc in chunks:
        assert property1_holds([sub for _, sub in sc.subrecords], restricted, k, m)
    support = Counter(t for terms in projections.values() for t in terms)
    assert left == sorted(t for t, s in support.items() if s < k)


@settings(max_examples=60, deadline=None)
@given(records=st.lists(st.lists(st.integers(1, 14).map(str), min_size=1, max_size=6), min_size=2, max_size=25),
       k=st.integers(2, 4), m=st.integers(1, 3), fanout=st.integers(2, 4))
def test_apriori_output_is_km_anonymous_by_the_definition(records, k, m, fanout) -> None:
    ds = TransactionDataset.from_records(records)
    if k > len(ds):
        return
    release = apriori_anonymize(ds, balanced_hierarchy(ds.vocabulary, fanout), k, m)
    assert is_km_anonymous(release.records, k, m)


@st.composite
def releases(draw):
    """Clusters of random record chunks over disjoint term sets (not necessarily k^m-anonymous)."""
    terms = list("abcdefg")
    clusters = []
    for c in range(draw(st.integers(1, 3))):
        size = draw(st.integers(1, 7))
        order = draw(st.permutations(terms))
        cuts = sorted(draw(st.lists(st.integers(1, len(terms) - 1), max_size=3, unique=True)))
        chunks = []
        for a, b in zip([0, *cuts], [*cuts, len(terms)], strict=True):
            subs = draw(st.lists(st.frozensets(st.sampled_from(order[a:b]), min_size=1), min_size=1, max_size=size))
            chunks.append([tuple(sorted(s)) for s in subs])
        clusters.append(Cluster(f"P{c}", size, chunks, []))
    return Release({"k": 2, "m": 2}, clusters)


@settings(max_examples=80, deadline=None)
@given(release=releases())
def test_vectorized_awad_covers_are_the_definition(release) -> None:
    flat = flatten(release)
    covers = awad_covers(flat)
    chunks = [chunk for c in release.clusters for chunk in c.record_chunks]
    for i, chunk in enumerate(chunks):
        want = awad_cover(chunk)
        assert bool(covers.vulnerable[i]) == (want is not None)
        mine = covers.covered_key & (flat.key_chunk == i)
        got_covered = sorted(flat.terms[flat.key_item[mine]].tolist())
        if want is not None:
            assert int(covers.full_support[i]) == want[1] and got_covered == want[2]
        else:
            assert got_covered == []


@settings(max_examples=80, deadline=None)
@given(release=releases())
def test_vectorized_barakat_relations_are_the_definition(release) -> None:
    flat = flatten(release)
    rels = barakat_relations(flat)
    rel, item = rels.covered_pairs(flat)
    got = {}
    for r in range(rels.x_key.size):
        j, l = int(flat.key_chunk[rels.x_key[r]]), int(rels.l_chunk[r])
        start = int(flat.chunk_off[l])
        covering = sorted(flat.terms[flat.key_item[start:start + int(rels.first_covered[r])]].tolist())
        covered = sorted(flat.terms[item[rel == r]].tolist())
        got[(j, l, str(flat.terms[flat.key_item[rels.x_key[r]]]))] = (covered, covering)
    want = {}
    first = 0
    for cluster in release.clusters:
        chunks = cluster.record_chunks
        for earlier, later in itertools.combinations(range(len(chunks)), 2):
            for x in sorted({t for sub in chunks[later] for t in sub}):
                found = barakat_cover(chunks[earlier], chunks[later], x)
                if found is not None:
                    want[(first + later, first + earlier, x)] = found
        first += len(chunks)
    assert got == want
