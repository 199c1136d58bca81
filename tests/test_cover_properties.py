"""Property tests of the cover-problem detector against naive references and the inverse transformation."""

import itertools
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from test_cover_golden import _reconstructions, _valid

from anonymizer.evaluation.verify import km_violations
from anonymizer.model.release import Cluster, Release
from attacks.cover.detector import run_cover_attack
from attacks.cover.knowledge import cover_pair_itemsets

TERMS = list("abcdefg")
sub_records = st.frozensets(st.sampled_from(TERMS), min_size=1, max_size=5)


@st.composite
def random_releases(draw):
    """Clusters of random chunks with disjoint term sets (not necessarily k^m-anonymous)."""
    clusters = []
    for c in range(draw(st.integers(1, 3))):
        size = draw(st.integers(1, 7))
        terms = draw(st.permutations(TERMS))
        cuts = sorted(draw(st.lists(st.integers(1, len(TERMS) - 1), min_size=0, max_size=3, unique=True)))
        groups = [terms[a:b] for a, b in zip([0, *cuts], [*cuts, len(TERMS)], strict=True)]
        chunks = []
        for group in groups:
            subs = draw(st.lists(st.frozensets(st.sampled_from(group), min_size=1), min_size=1, max_size=size))
            chunks.append([tuple(sorted(s)) for s in subs])
        clusters.append(Cluster(f"P{c}", size, chunks, []))
    return Release({"k": 2, "m": 2}, clusters)


def naive_barakat(release):
    out = set()
    for cluster in release.clusters:
        chunks = cluster.record_chunks
        for j in range(1, len(chunks)):
            sj = Counter(t for sub in chunks[j] for t in sub)
            for x in sj:
                for l in range(j):
                    sl = Counter(t for sub in chunks[l] for t in sub)
                    items = {y for y in sl if sl[y] >= sj[x]}
                    if len(items) < 2:
                        continue
                    s_i = sum(1 for sub in chunks[l] if items <= set(sub))
                    if s_i == min(sl[y] for y in items):
                        covered = tuple(sorted(y for y in items if sl[y] == s_i))
                        out.add((cluster.id, j, x, l, covered, tuple(sorted(items - set(covered)))))
    return out


def naive_awad(release):
    out = set()
    for cluster in release.clusters:
        for j, chunk in enumerate(cluster.record_chunks):
            sc = Counter(t for sub in chunk for t in sub)
            full = sum(1 for sub in chunk if set(sc) <= set(sub))
            covered = tuple(sorted(t for t in sc if sc[t] == full))
            if len(sc) >= 2 and full > 0 and covered:
                out.add((cluster.id, j, covered, tuple(sorted(set(sc) - set(covered)))))
    return out


def naive_vulnerable(release, knowledge):
    return naive_algorithm1(release, knowledge)[2]


def naive_algorithm1(release, knowledge=None):
    """(breaches, Algorithm 1 total, vulnerable records); ``knowledge=None``: every cover problem a breach."""
    pairs = None if knowledge is None else {
        frozenset(p) for s in knowledge for p in itertools.combinations(sorted(set(s)), 2)}
    breached, counter = {}, Counter()
    for cid, j, x, _l, covered, _cov in naive_barakat(release):
        if pairs is None or any(frozenset((x, y)) in pairs for y in covered):
            breached.setdefault((cid, j), set()).add(x)
            counter[(cid, j)] += 1
    total = alg1 = 0
    for cluster in release.clusters:
        best = 0
        for j, chunk in enumerate(cluster.record_chunks):
            xs = breached.get((cluster.id, j), set())
            best = max(best, sum(1 for sub in chunk if xs & set(sub)))
        total += best
        alg1 += max((counter[(cluster.id, j)] for j in range(len(cluster.record_chunks))), default=0)
    return sum(counter.values()), alg1, total


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(release=random_releases(), seed=st.integers(0, 5))
def test_detector_matches_naive_definitions(release, seed):
    rng = np.random.default_rng(seed)
    terms = sorted({t for c in release.clusters for t in c.record_terms()})
    knowledge = [tuple(rng.choice(terms, size=2, replace=False)) for _ in range(6)] if len(terms) >= 2 else []
    report = run_cover_attack(release, knowledge=knowledge)
    got_b = {(p.cluster, p.item_chunk, p.item, p.chunk, tuple(p.covered), tuple(p.covering))
             for p in report.cover_problems if p.definition == "barakat2016"}
    assert got_b == naive_barakat(release)
    got_a = {(p.cluster, p.chunk, tuple(p.covered), tuple(p.covering))
             for p in report.cover_problems if p.definition == "awad2019"}
    assert got_a == naive_awad(release)
    assert report.vulnerable_records == naive_vulnerable(release, knowledge)
    n_chunks = sum(len(c.record_chunks) for c in release.clusters)
    assert report.record_chunks == n_chunks and 0 <= report.vulnerable_chunks <= n_chunks
    assert report.vulnerable_records <= release.n_records
    assert report.pem == (report.vulnerable_chunks / n_chunks if n_chunks else 0.0)
    assert report.vulnerable_chunks == len(got_a)  # Awad2019 5.1.1: Definition 3 on every record chunk
    lone = {c.id for c in release.clusters if len(c.record_chunks) == 1}
    assert report.vulnerable_chunks_linkable == len([p for p in got_a if p[0] not in lone])
    assert report.linkable_chunks == sum(len(c.record_chunks) for c in release.clusters if c.id not in lone)
    assert report.pem_linkable <= report.linkable_chunks / n_chunks if n_chunks else report.pem_linkable == 0.0
    assert report.vulnerable_clusters == len({p[0] for p in got_a}) and report.clusters == len(release.clusters)
    assert report.pem_cluster == report.vulnerable_clusters / report.clusters
    # Barakat2016 section 6's strong attacker: every cover relation is a breach, with no itemset built;
    # the same as knowing every cover pair {x, y} written out.
    strong = run_cover_attack(release, "strong")
    assert (strong.breaches, strong.algorithm1_total, strong.vulnerable_records) == naive_algorithm1(release)
    assert strong.breaches == len(got_b)
    explicit = run_cover_attack(release, knowledge=cover_pair_itemsets(release))
    assert (explicit.breaches, explicit.algorithm1_total, explicit.vulnerable_records) == naive_algorithm1(release)
    assert (report.breaches, report.algorithm1_total, report.vulnerable_records) == naive_algorithm1(
        release, knowledge)
    # Section 4's reading knows at most one itemset per record, all from cover relations: never more.
    per_record = run_cover_attack(release, "strong-per-record")
    assert per_record.knowledge_size <= release.n_records
    assert per_record.breaches <= strong.breaches and (per_record.breaches > 0) == (len(got_b) > 0)
    assert per_record.vulnerable_records <= strong.vulnerable_records <= release.n_records


def reference_verpart(records, k, m):
    """Terrovitis2012 VERPART, naive: terms by descending support, greedily grown k^m-anonymous chunks."""
    supp = Counter(t for r in records for t in r)
    remaining = sorted((t for t in supp if supp[t] >= k), key=lambda t: (-supp[t], t))
    chunks = []
    while remaining:
        cur, rest = [], []
        for t in remaining:
            trial = set(cur) | {t}
            proj = [tuple(sorted(set(r) & trial)) for r in records if set(r) & trial]
            (rest if km_violations(proj, k, m) else cur).append(t)
        chunks.append(set(cur))
        remaining = rest
    return chunks, sorted(t for t in supp if supp[t] < k)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(st.frozensets(st.sampled_from(list("abcdef")), min_size=1, max_size=4), min_size=3,
                        max_size=5), seed=st.integers(0, 3))
def test_every_reported_breach_is_real(records, seed):
    """Brute force over the inverse transformation: each breach {x, y} has support < k in every valid dataset."""
    k, m = 2, 2
    chunks, term_chunk = reference_verpart(records, k, m)
    assume(len(chunks) >= 2)
    rng = np.random.default_rng(seed)
    listed = []
    for ch in chunks:
        subs = [tuple(sorted(set(r) & ch)) for r in records if set(r) & ch]
        listed.append([subs[int(i)] for i in rng.permutation(len(subs))])
    cluster = Cluster("P1", len(records), listed, term_chunk)
    release = Release({"k": k, "m": m}, [cluster])
    padded = [len(set(itertools.permutations(list(ch) + [()] * (cluster.size - len(ch))))) for ch in listed[1:]]
    assume(int(np.prod(padded)) <= 3000)
    everything = [(x, y) for a, b in itertools.combinations(chunks, 2) for x in a for y in b]
    report = run_cover_attack(release, knowledge=everything)
    valid = [r for r in _reconstructions(cluster) if _valid(r, cluster, k, m)]
    original = tuple(sorted(tuple(sorted(r - set(term_chunk))) for r in records))
    assert original in valid  # the data VERPART came from is one of the valid reconstructions
    event(f"breaches reported: {bool(report.breach_list)}")
    for breach in report.breach_list:
        for y in breach.covered:
            for recs in valid:
                assert sum(1 for r in recs if {breach.item, y} <= set(r)) < k
    assert report.vulnerable_records <= len(records)
