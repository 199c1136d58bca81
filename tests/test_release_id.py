"""The release fingerprint the figures use to say what their bands span (issue 24)."""

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.model.params import DisassociationParams
from anonymizer.model.release import Cluster, Release
from corpora.synthetic.toy import toy_dataset
from experiments.steps.disassociation import release_fingerprint


def test_fingerprint_ignores_order_and_follows_content():
    q = Cluster("Q", 2, [[("d",)] * 2], [])
    a = Release({"k": 2, "m": 2}, [Cluster("P", 2, [[("a", "b"), ("a",)]], ["c"]), q])
    shuffled = Release({"k": 2, "m": 2}, [q, Cluster("P", 2, [[("a",), ("b", "a")]], ["c"])])
    other = Release({"k": 2, "m": 2}, [Cluster("P", 2, [[("a", "b"), ("a",)]], ["e"]), q])
    assert release_fingerprint(a) == release_fingerprint(shuffled) != release_fingerprint(other)
    assert 0 <= release_fingerprint(a) < 2 ** 40  # a float column holds it exactly


def test_seeds_of_the_papers_disassociation_give_one_release():
    # Terrovitis2012's HORPART and VERPART are deterministic: the seed only reorders sub-records
    ds = toy_dataset("terrovitis2012-fig2")
    params = DisassociationParams(k=2, m=2, horpart="original", verpart="original")
    ids = {release_fingerprint(disassociate(ds, params=params, seed=s)[0]) for s in range(4)}
    assert len(ids) == 1
    assert release_fingerprint(disassociate(ds, params=DisassociationParams(k=3, m=2), seed=0)[0]) not in ids
