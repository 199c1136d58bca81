"""The independent checker against the fast anonymizer: every disassociate() release passes verify(),
and its reconstructions are valid (Terrovitis2012 sections 4-5)."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.utility import utility_report
from anonymizer.evaluation.verify import verify
from corpora.dataset import TransactionDataset
from corpora.synthetic.quest import generate_quest

TERMS = [f"t{i}" for i in range(14)]


# skewed terms (the smaller of two uniform ids): low ids are frequent, so clusters get both
# record chunks and term chunks
skewed_term = st.tuples(st.integers(0, 13), st.integers(0, 13)).map(lambda p: TERMS[min(p)])
datasets = st.lists(st.frozensets(skewed_term, min_size=1, max_size=7), min_size=4, max_size=60).map(
    TransactionDataset.from_records)


def assert_reconstruction_valid(release, ds):
    assert len(ds) == release.n_records
    published = Counter(t for c in release.clusters for ch in c.record_chunks for sub in ch for t in sub)
    published.update(t for j in release.joint_clusters for ch in j.shared_chunks for sub in ch for t in sub)
    in_term_chunks = {t for c in release.clusters for t in c.term_chunk}
    support = ds.supports()
    for t, n in published.items():
        if t not in in_term_chunks:
            assert support[t] == n, t
    start, records = 0, ds.records
    for c in release.clusters:
        part = records[start:start + c.size]
        start += c.size
        if c.term_chunk:
            assert all(part)


@settings(max_examples=40, deadline=None)
@given(ds=datasets, k=st.integers(2, 4), m=st.integers(1, 3), extra=st.integers(0, 6),
       horpart=st.sampled_from(["original", "abandon", "suppression", "adding", "remaining"]),
       verpart=st.sampled_from(["original", "strict", "grouped"]), refine=st.booleans(), seed=st.integers(0, 99))
def test_disassociate_output_passes_verify_and_reconstructs(ds, k, m, extra, horpart, verpart, refine, seed):
    if len(ds) < k:
        return
    max_size = k + extra if horpart == "abandon" else 2 * k - 1 + extra  # bounded strategies need >= 2k - 1
    release, _ = disassociate(ds, k, m, max_size, horpart=horpart, verpart=verpart, refine=refine, seed=seed)
    report = verify(release)
    assert report.ok, report.violations[:5]
    assert_reconstruction_valid(release, reconstruct(release, seed=seed))


def test_synthetic_release_with_joint_clusters():
    ds = generate_quest(4000, 400, 8, seed=3)
    release, _ = disassociate(ds, 5, 2, 30, seed=1)
    assert release.joint_clusters, "REFINE should build joint clusters on this data"
    report = verify(release)
    assert report.ok, report.violations[:5]
    rec = reconstruct(release, seed=4)
    assert_reconstruction_valid(release, rec)
    assert int((rec.lengths == 0).sum()) == 0
    rep = utility_report(ds, release, reconstructions=2, top_k=200, re_range=(20, 40))
    assert 0.0 <= rep.tkd <= 1.0 and 0.0 <= rep.tkd_a <= 1.0 and len(rep.tkd_runs) == 2
    assert 0.0 <= rep.re <= 2.0 and 0.0 <= rep.re_a <= 2.0 and 0.0 <= rep.tlost <= 1.0


def test_corrupted_release_is_caught():
    ds = generate_quest(1500, 200, 8, seed=4)
    release, _ = disassociate(ds, 4, 2, 16, seed=0)
    assert verify(release).ok
    # move one term-chunk term into a single sub-record of a record chunk: support 1 < k
    for cluster in release.clusters:
        if cluster.term_chunk and cluster.record_chunks:
            term = cluster.term_chunk.pop()
            chunk = cluster.record_chunks[0]
            chunk[0] = tuple(sorted(chunk[0] + (term,)))
            break
    report = verify(release)
    assert not report.ok
    assert any(f"cluster {cluster.id} record chunk 0" in v and term in v for v in report.violations)
