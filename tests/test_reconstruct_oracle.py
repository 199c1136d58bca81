"""reconstruct() against the exhaustive oracle of valid reconstructions (tests/reconstruction_oracle.py).

For random tiny hand-built releases: when the oracle finds a valid reconstruction, every sample
(several seeds, both term rules) is one; when it finds none, reconstruct raises InputError.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reconstruction_oracle import analyse, is_valid_reconstruction, release_dict
from release_strategies import per_cluster, tiny_releases

from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.model.release import Release
from corpora.common.errors import InputError


def check_against_oracle(obj: dict, seeds, term_rule: str = "one") -> bool:
    """Assert reconstruct agrees with the oracle on ``obj``; returns the oracle's feasibility."""
    release = Release.from_json(obj)
    if not analyse(obj).feasible:
        with pytest.raises(InputError, match="no valid reconstruction"):
            reconstruct(release, seed=seeds[0], term_rule=term_rule)
        return False
    for seed in seeds:
        ds = reconstruct(release, seed=seed, term_rule=term_rule)
        assert is_valid_reconstruction(obj, per_cluster(obj, ds.records)), (seed, ds.sorted_records())
    return True


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(obj=tiny_releases(), seed=st.integers(0, 2**20))
def test_sampler_finds_a_valid_reconstruction_whenever_one_exists(obj, seed):
    check_against_oracle(obj, [seed, seed + 1, seed + 2])


@settings(max_examples=25, deadline=None)
@given(obj=tiny_releases(), seed=st.integers(0, 2**20))
def test_uniform_term_rule_is_valid_too(obj, seed):
    check_against_oracle(obj, [seed], term_rule="uniform")


def release(clusters, joints=(), k=2, m=2):
    return release_dict(clusters, joints, k, m)


def test_issue9_refine_case_is_sampled_validly():
    """P2's third record can only be filled by a shared [c]: the sampler must send one there."""
    obj = release([("P1", 3, [[["a"]] * 3], []), ("P2", 3, [[["b"]] * 2], [])],
                  [("J1", ["P1", "P2"], [[["c"], ["c"]]])])
    assert check_against_oracle(obj, list(range(30)))


def test_donor_with_a_single_piece_is_reached_through_a_chain():
    """P0 is short of one piece; the only movable shared piece sits on Q, which needs it, and Q can be
    refilled only from R: a chain of two moves (the old sampler gave up)."""
    obj = release([("P0", 2, [[["a"]]], []), ("Q", 2, [[["b"]]], []), ("R", 2, [[["c"]] * 2], [])],
                  [("J", ["P0", "Q", "R"], [[["s"], ["s"]], [["u"]]])])
    assert check_against_oracle(obj, list(range(40)))


def test_lower_joint_sub_records_stay_on_its_own_leaves():
    """J0's two [a] may go to P0 only (P1 lists a): one record, so no valid reconstruction, even
    though P2 (a leaf of J1 above, not of J0) has free records."""
    obj = release([("P0", 1, [], []), ("P1", 1, [[["a"]]], []), ("P2", 2, [], [])],
                  [("J0", ["P0", "P1"], [[["a"], ["a"]]]), ("J1", ["J0", "P2"], [[["a"]]])], k=2, m=1)
    assert not check_against_oracle(obj, [0])


def test_shared_sub_record_never_goes_where_its_term_is_listed():
    """A shared [a] cannot go to P1 (its record chunk lists a), so P2 gets all three."""
    obj = release([("P1", 3, [[["a"], ["a"]], [["z"]] * 3], []), ("P2", 3, [[["b"]] * 3], [])],
                  [("J1", ["P1", "P2"], [[["a"]] * 3])])
    for seed in range(20):
        ds = reconstruct(Release.from_json(obj), seed=seed)
        p1, p2 = per_cluster(obj, ds.records)
        assert sum("a" in r for r in p1) == 2 and sum("a" in r for r in p2) == 3
    assert check_against_oracle(obj, [0])


@pytest.mark.parametrize("obj, message", [
    (release([("P1", 2, [], []), ("P2", 2, [], [])], [("J1", ["P1", "P2"], [[["b"], ["b"]]])]),
     "no valid reconstruction"),
    (release([("P", 3, [[["a"]] * 2], [])]), "cluster P: no valid reconstruction"),
    (release([("P", 2, [[["a"]] * 2], []), ("Q", 1, [[["a"]]], [])], [("J", ["P", "Q"], [[["a"]]])]),
     "joint cluster J shared chunk 0: no valid reconstruction"),
])
def test_infeasible_releases_raise_one_clear_error(obj, message):
    assert not analyse(obj).feasible
    with pytest.raises(InputError, match=message):
        reconstruct(Release.from_json(obj))


def test_malformed_overlapping_chunks_are_refused():
    obj = release([("P", 2, [[["a"], ["a"]], [["a", "b"]] * 2], [])])
    with pytest.raises(InputError, match="share a term"):
        reconstruct(Release.from_json(obj))
    obj = release([("P", 2, [[["a"]] * 2], []), ("Q", 2, [[["b"]] * 2], [])],
                  [("J", ["P", "Q"], [[["s"]] * 2, [["s", "u"]] * 2])])
    with pytest.raises(InputError, match="two shared chunks share a term"):
        reconstruct(Release.from_json(obj))
