"""The exact search's spreads and supports against the listing it replaced (issue 25, the suite's slowest property).

:func:`anonymizer.evaluation.exact._deals` builds what each leaf is dealt while it walks the spreads, and
:func:`check_component` sums each leaf's cached supports as arrays. The references below are the former
code, kept here as the slow, plain reading: each spread as one Counter of (leaf, sub-record) per shared
chunk, each leaf's pieces gathered and sorted from it, and the supports added up in a Counter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from release_strategies import tiny_releases

from anonymizer.evaluation.exact import (
    Component,
    _compositions,
    _deals,
    _leaf_supports,
    build_components,
    check_component,
)


def spreads_reference(comp: Component) -> Iterator[list[Counter]]:
    """Every spread: per shared chunk, a Counter of (leaf, sub-record) -> count (chunk by chunk, kind by kind)."""
    plans = [chunk.kinds() for chunk in comp.shared]

    def one_chunk(options, i: int, room: dict[int, int]) -> Iterator[Counter]:
        if i == len(options):
            yield Counter()
            return
        sub, n, allowed = options[i]
        for split in _compositions(n, [room[p] for p in allowed]):
            left = dict(room)
            for p, x in zip(allowed, split, strict=True):
                left[p] -= x
            for rest in one_chunk(options, i + 1, left):
                out = Counter(rest)
                for p, x in zip(allowed, split, strict=True):
                    if x:
                        out[(p, sub)] += x
                yield out

    def all_chunks(c: int) -> Iterator[list[Counter]]:
        if c == len(plans):
            yield []
            return
        room = {p: comp.leaves[p].size for p in comp.shared[c].leaves}
        for mine in one_chunk(plans[c], 0, room):
            for rest in all_chunks(c + 1):
                yield [mine] + rest

    yield from all_chunks(0)


def dealt_reference(comp: Component, spread: list[Counter], p: int) -> tuple:
    return tuple(tuple(sorted((sub for (q, sub), x in per_chunk.items() if q == p for _ in range(x)), key=sorted))
                 for per_chunk in spread)


def supports_reference(comp: Component, m: int, below: int | None) -> tuple[bool, dict, int]:
    best: dict = {}
    feasible, n = False, 0
    leaf_below = below if len(comp.leaves) == 1 else None
    for spread in spreads_reference(comp):
        n += 1
        total: Counter = Counter()
        for p, leaf in enumerate(comp.leaves):
            shared = dealt_reference(comp, spread, p)
            got = _leaf_supports(leaf, leaf.record_chunks + tuple(ch for ch in shared if ch), m, None, leaf_below)
            if got is None:
                break
            total.update(got)
        else:
            feasible = True
            for itemset, x in total.items():
                best[itemset] = max(best.get(itemset, 0), x)
    return feasible, (best if feasible else {}), n


def components(obj: dict) -> list[Component]:
    return build_components([(c["id"], c["size"], c["record_chunks"], c["term_chunk"]) for c in obj["clusters"]],
                            [(j["id"], j["children"], j["shared_chunks"]) for j in obj["joint_clusters"]])


@settings(max_examples=60, deadline=None)
@given(obj=tiny_releases(max_clusters=4))
def test_deals_are_the_spreads_listed_in_the_same_order(obj):
    for comp in components(obj):
        listed = [tuple(dealt_reference(comp, spread, p) for p in range(len(comp.leaves)))
                  for spread in spreads_reference(comp)]
        assert list(_deals(comp)) == listed


@settings(max_examples=60, deadline=None)
@given(obj=tiny_releases(max_clusters=3))
def test_summed_arrays_give_the_supports_of_the_counter_sum(obj):
    for comp in components(obj):
        for below in (None, obj["params"]["k"]):
            result = check_component(comp, obj["params"]["m"], below=below)
            feasible, best, n = supports_reference(comp, obj["params"]["m"], below)
            assert (result.feasible, result.max_support, result.spreads) == (feasible, best, n)
