"""Golden tests of REFINE against the papers' worked examples.

Terrovitis2012 Figure 2 -> Figure 3 (a joint cluster over {ikea, ruby}), the Equation 1 example
(4+4)/10 >= 4/10, the Figure 5 situation behind Property 1, and AlShuhail2021 Tables 3.5 -> 3.6
(catheterisation moved to a shared chunk).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from anonymizer.disassociation.refine import (
    JointPlan,
    SharedChunk,
    build_shared_chunks,
    is_k_anonymous,
    refine,
    refining_criterion,
)
from anonymizer.disassociation.verpart import VerticalPartition as VP
from anonymizer.disassociation.verpart import is_km_anonymous
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.synthetic.toy import toy_dataset, toy_records


def part(records: list[int], chunk_terms: list[list[str]], term_chunk: list[str]) -> VP:
    return VP(np.asarray(records, dtype=np.int64), [sorted(c) for c in chunk_terms], sorted(term_chunk))


def figure2_partitions() -> list[VP]:
    """Terrovitis2012 Figure 2b: P1 = r1..r5, P2 = r6..r10 with their chunks (k=3, m=2)."""
    p1 = part([0, 1, 2, 3, 4], [["itunes", "flu", "madonna"], ["audi a4", "sony tv"]], ["ikea", "viagra", "ruby"])
    p2 = part([5, 6, 7, 8, 9], [["madonna", "digital camera", "iphone sdk"]],
              ["panic disorder", "playboy", "ikea", "ruby"])
    return [p1, p2]


def test_figure2_to_figure3_joint_cluster() -> None:
    ds = toy_dataset("terrovitis2012-fig2")
    plans = refine(ds, figure2_partitions(), k=3, m=2)
    assert plans == [
        JointPlan(
            children=[0, 1],
            shared_chunks=[
                SharedChunk(
                    ["ikea", "ruby"],
                    [(0, ("ikea", "ruby")), (1, ("ruby",)), (2, ("ikea",)),
                     (6, ("ikea", "ruby")), (9, ("ikea", "ruby"))],
                )
            ],
            removed={0: ["ikea", "ruby"], 1: ["ikea", "ruby"]},
        )
    ]
    # Figure 3 keeps viagra in P1's term chunk and panic disorder, playboy in P2's.
    chunk = [sub for _, sub in plans[0].shared_chunks[0].subrecords]
    assert is_km_anonymous(chunk, 3, 2) and not is_k_anonymous(chunk, 3)


def test_equation1_worked_example_numbers() -> None:
    """Section 4: (s(ruby)+s(ikea))/|J_new| = (4+4)/10 >= (2+2)/(|P1|+|P2|) = 4/10."""
    ds = toy_dataset("terrovitis2012-fig2")
    plan = refine(ds, figure2_partitions(), k=3, m=2)[0]
    supports = {t: sum(t in sub for _, sub in sc.subrecords) for sc in plan.shared_chunks for t in sc.terms}
    assert supports == {"ikea": 4, "ruby": 4}
    lhs = Fraction(sum(supports.values()), 10)
    v = [len(terms) for terms in plan.removed.values()]
    assert v == [2, 2]
    rhs = Fraction(sum(v), 5 + 5)
    assert (lhs, rhs) == (Fraction(8, 10), Fraction(4, 10))
    assert refining_criterion([4, 4], 10, [2, 2], [5, 5])
    # Equality still joins (the criterion is ">="), a smaller left side does not.
    assert refining_criterion([2], 10, [2], [10])
    assert not refining_criterion([3], 13, [1, 1], [5, 3])
    assert not refining_criterion([], 10, [], [])


def test_equation1_can_refuse_a_join() -> None:
    """A joint cluster {A, B} and C share term t, but only leaf A holds it: 3/13 < (1+1)/(5+3)."""
    f = "f"
    records = [[f, "p", "t"], [f, "p"], [f], [f], [f],  # A: r0..r4
               [f, "p"], [f, "p"], [f], [f], [f],        # B: r5..r9
               [f, "t"], [f, "t"], [f]]                  # C: r10..r12
    ds = TransactionDataset.from_records(records)
    parts = [part([0, 1, 2, 3, 4], [[f]], ["p", "t"]), part([5, 6, 7, 8, 9], [[f]], ["p"]),
             part([10, 11, 12], [[f]], ["t"])]
    plans = refine(ds, parts, k=3, m=2)
    assert plans == [JointPlan([0, 1], [SharedChunk(["p"], [(0, ("p",)), (1, ("p",)), (5, ("p",)), (6, ("p",))])],
                               {0: ["p"], 1: ["p"]})]
    # Without the joint of A and B, A and C alone would join on t (3/8 >= 2/8).
    plans = refine(ds, [parts[0], parts[2]], k=3, m=2)
    assert [sc.terms for sc in plans[0].shared_chunks] == [["t"]]


def test_term_below_k_stays_in_term_chunks() -> None:
    """A common term whose support over both clusters is below k is not refined."""
    ds = toy_dataset("terrovitis2012-fig2")
    plans = refine(ds, figure2_partitions(), k=5, m=2)  # ikea and ruby have support 4 < 5
    assert plans == []


def figure5_like(shared_a_in_record_chunk: bool) -> tuple[TransactionDataset, list[VP]]:
    """The Figure 5 situation: term s sits in a record chunk of leaf A (with x, like a in Figure 5)
    and in the term chunks of leaves B and C. A and B join first on p; then the joint and C join
    on {s, t}, so s is in T^r and the shared chunk holding s must be k-anonymous."""
    s = "s" if shared_a_in_record_chunk else "s2"
    records = [
        [s, "x", "p"], [s, "x", "p"], [s, "x"], [s, "x"],   # A: r0..r3, record chunk {s|s2, x}
        ["b", "p", "s", "t"], ["b", "p", "t"], ["b", "s", "t"],  # B: r4..r6
        ["c", "s", "t"], ["c", "s", "t"], ["c", "s"],       # C: r7..r9
    ]
    ds = TransactionDataset.from_records(records)
    parts = [part([0, 1, 2, 3], [[s, "x"]], ["p"]), part([4, 5, 6], [["b"]], ["p", "s", "t"]),
             part([7, 8, 9], [["c"]], ["s", "t"])]
    return ds, parts


def test_figure5_property1_forces_k_anonymous_shared_chunks() -> None:
    ds, parts = figure5_like(True)
    plans = refine(ds, parts, k=3, m=2)
    assert [p.children for p in plans] == [[0, 1], [2, 3]]
    top = plans[1]
    # {s,t} x4, {s} x1, {t} x1 is 3^2-anonymous but not 3-anonymous: Property 1 splits it.
    assert [sc.terms for sc in top.shared_chunks] == [["s"], ["t"]]
    for sc in top.shared_chunks:
        assert is_k_anonymous([sub for _, sub in sc.subrecords], 3)
    assert top.removed == {1: ["s", "t"], 2: ["s", "t"]}


def test_figure5_without_record_chunk_term_keeps_one_km_chunk() -> None:
    ds, parts = figure5_like(False)
    plans = refine(ds, parts, k=3, m=2)
    top = plans[-1]
    assert [sc.terms for sc in top.shared_chunks] == [["s", "t"]]
    subs = [sub for _, sub in top.shared_chunks[0].subrecords]
    assert is_km_anonymous(subs, 3, 2) and not is_k_anonymous(subs, 3)


def test_figure5a_shared_chunk_builder() -> None:
    """Figure 5a's unsafe chunk: a in T^r with a and o together; 5b keeps them k-anonymous."""
    projections = {0: ["a", "o"], 1: ["a", "o"], 2: ["a", "o"], 3: ["a"], 4: ["o"]}
    unsafe, left = build_shared_chunks(projections, restricted=set(), k=3, m=2)
    assert [c.terms for c in unsafe] == [["a", "o"]] and left == []
    safe, left = build_shared_chunks(projections, restricted={"a", "b", "x"}, k=3, m=2)
    assert [c.terms for c in safe] == [["a"], ["o"]] and left == []
    assert safe[0].subrecords == [(0, ("a",)), (1, ("a",)), (2, ("a",)), (3, ("a",))]
    # A k-anonymous pair may stay together even when it holds a T^r term.
    together = {0: ["a", "o"], 1: ["a", "o"], 2: ["a", "o"], 3: ["z"]}
    chunks, left = build_shared_chunks(together, restricted={"a"}, k=3, m=2)
    assert [c.terms for c in chunks] == [["a", "o"]] and left == ["z"]


def test_alshuhail_table_3_5_to_3_6() -> None:
    """AlShuhail2021 section 3.2.3: catheterisation (once in P1, once in P2, k=2) is refined."""
    ds = TransactionDataset.from_records(toy_records("alshuhail2021-table3.2") + toy_records("alshuhail2021-table3.4"))
    p1 = part([0, 1, 2, 3], [["cancer", "lung", "treatment", "blood"], ["tumor", "biopsy"]],
              ["vessel", "catheterisation", "radiotherapy"])
    p2 = part([4, 5, 6, 7], [["kidney", "infection"], ["surgery"], ["failure"]],
              ["catheterisation", "dialysis", "sepsis"])
    plans = refine(ds, [p1, p2], k=2, m=2)
    assert plans == [
        JointPlan([0, 1], [SharedChunk(["catheterisation"], [(3, ("catheterisation",)), (5, ("catheterisation",))])],
                  {0: ["catheterisation"], 1: ["catheterisation"]})
    ]


def test_ordering_follows_term_chunk_support() -> None:
    """Section 4: clusters sorted by their term chunks written in decreasing tcs; adjacent pairs join.

    Term chunks {a,b}, {c}, {a}, {c}: tcs a=2, c=2, b=1 gives order {a}(P3) {a,b}(P1) {c}(P2) {c}(P4),
    so P3+P1 and P2+P4 join (a pass over input order would pair P1 with P2 and fail). Every leaf has a
    record chunk [x]x2: a leaf without one keeps its last term-chunk term (Lemma 2)."""
    records = [["a", "b", "x"], ["a", "b", "x"], ["c", "x"], ["c", "x"], ["a", "x"], ["a", "x"], ["c", "x"], ["c", "x"]]
    ds = TransactionDataset.from_records(records)
    parts = [part([0, 1], [["x"]], ["a", "b"]), part([2, 3], [["x"]], ["c"]), part([4, 5], [["x"]], ["a"]),
             part([6, 7], [["x"]], ["c"])]
    plans = refine(ds, parts, k=2, m=2)
    assert [p.children for p in plans] == [[0, 2], [1, 3]]
    assert [[sc.terms for sc in p.shared_chunks] for p in plans] == [[["a"]], [["c"]]]


def nested_example() -> tuple[TransactionDataset, list[VP]]:
    """Four leaves; a joins P1+P3 and b joins P2+P4 (k=4); z (support 1 per leaf) waits for round 2."""
    records = [["a", "z"], ["a"], ["y"], ["b", "z"], ["b"], ["y"], ["a", "z"], ["a"], ["y"], ["b", "z"], ["b"], ["y"]]
    ds = TransactionDataset.from_records(records)
    parts = [part([0, 1, 2], [["y"]], ["a", "z"]), part([3, 4, 5], [["y"]], ["b", "z"]),
             part([6, 7, 8], [["y"]], ["a", "z"]), part([9, 10, 11], [["y"]], ["b", "z"])]
    return ds, parts


def test_a_leaf_without_record_chunks_keeps_its_last_term_chunk_term() -> None:
    """Lemma 2 after REFINE: P2 has no record chunk, so it cannot get a term chunk back from one; of
    its candidates the one with the smaller support (ties alphabetical) stays in its term chunk."""
    records = [["a", "b", "x"], ["a", "x"], ["b", "x"], ["a", "b"], ["b"]]
    ds = TransactionDataset.from_records(records)
    plans = refine(ds, [part([0, 1, 2], [["x"]], ["a", "b"]), part([3, 4], [], ["a", "b"])], k=2, m=2)
    assert len(plans) == 1 and plans[0].removed == {0: ["b"], 1: ["b"]}
    assert [sc.terms for sc in plans[0].shared_chunks] == [["b"]]
    plans = refine(ds, [part([0, 1, 2], [["x"]], ["a", "b"]), part([3], [], ["a"]), part([4], [], ["b"])], k=2, m=2)
    assert plans == []  # each single-record leaf would lose its only term


def test_joints_join_again_in_later_rounds() -> None:
    """After round 1 the joints carry virtual term chunks and may join each other (Figure 5 nesting)."""
    ds, parts = nested_example()
    plans = refine(ds, parts, k=4, m=2)
    assert [p.children for p in plans] == [[0, 2], [1, 3], [4, 5]]
    assert [[sc.terms for sc in p.shared_chunks] for p in plans] == [[["a"]], [["b"]], [["z"]]]
    assert plans[2].removed == {0: ["z"], 1: ["z"], 2: ["z"], 3: ["z"]}
    # Equation 1 for the top join: 4/12 >= (1+1+1+1)/12 (equality joins).
    children = [c for p in plans for c in p.children]
    assert sorted(children) == [0, 1, 2, 3, 4, 5]


def test_max_rounds_caps_the_loop() -> None:
    ds, parts = nested_example()
    assert len(refine(ds, parts, k=4, m=2, max_rounds=1)) == 2
    assert refine(ds, parts, k=4, m=2, max_rounds=0) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 1, "m": 2}, "k must be"),
        ({"k": 3, "m": 0}, "m must be"),
        ({"k": 3, "m": 2, "max_rounds": -1}, "max_rounds"),
    ],
)
def test_bad_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        refine(toy_dataset("terrovitis2012-fig2"), figure2_partitions(), **kwargs)


def test_bad_partitions() -> None:
    ds = toy_dataset("terrovitis2012-fig2")
    with pytest.raises(InputError, match="more than one partition"):
        refine(ds, [part([0, 1, 2], [], ["ikea"]), part([2, 3], [], ["ikea"])], 2, 2)
    with pytest.raises(InputError, match="outside"):
        refine(ds, [part([0, 99], [], ["ikea"])], 2, 2)
    with pytest.raises(InputError, match="not in the dataset"):
        refine(ds, [part([0, 1], [], ["nonexistent"])], 2, 2)
    with pytest.raises(InputError, match="both in a record chunk"):
        refine(ds, [part([0, 1], [["ikea"]], ["ikea"])], 2, 2)
