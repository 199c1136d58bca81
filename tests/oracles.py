"""Independent oracles the tests compare the fast code with (not part of the product)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import fim


def frequent_itemsets(transactions: Sequence[Iterable[Hashable]], min_support: int,
                      max_size: int | None = None) -> dict[frozenset, int]:
    """All itemsets with absolute support >= ``min_support`` by pyfim's FP-growth (unbounded output).

    The oracle of the top-K search of :mod:`anonymizer.evaluation.topk`. pyfim leaves out an item
    that is in every transaction (a perfect extension of the empty set), so one empty transaction
    is added, which changes no support.
    """
    if min_support < 1:
        raise ValueError(f"min_support must be at least 1, got {min_support}")
    tracts = [list(t) for t in transactions]
    tracts.append([])
    kwargs: dict[str, Any] = {"target": "s", "supp": -int(min_support), "zmin": 1, "report": "a"}
    if max_size is not None:
        kwargs["zmax"] = int(max_size)
    return {frozenset(items): int(n) for items, n in fim.fpgrowth(tracts, **kwargs)}
