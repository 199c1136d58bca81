"""The papers' small worked-example datasets, transcribed record by record.

* ``terrovitis2012-fig2``: Terrovitis2012 section 3, Figure 2a, the original dataset D with records
  r_1..r_10 (search-query terms; several are multi-word, e.g. "audi a4", "sony tv").
* ``alshuhail2021-table3.2``: AlShuhail2021 section 3.2.1, Table 3.2, the four medical transactions
  that horizontal partitioning keeps in one cluster (the same transactions as Table 3.1, in the
  order of Table 3.2).
* ``alshuhail2021-table3.4``: AlShuhail2021 section 3.2.2, Table 3.4, the original transactions of
  cluster P2 of the running example.
* ``alshuhail2021-table4.2``: AlShuhail2021 section 4.2.1, Table 4.2, the original transactions of
  the semantic-attack example (the order of Table 4.2, which differs from Table 3.2).

Record ids are 0-based positions, so r_1 of Figure 2a is record 0.
"""

from __future__ import annotations

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["TOY_DATASETS", "toy_dataset", "toy_records"]

_TOYS: dict[str, tuple[str, tuple[tuple[str, ...], ...]]] = {
    "terrovitis2012-fig2": (
        "Terrovitis2012 Figure 2a: the original dataset D (r_1..r_10)",
        (
            ("itunes", "flu", "madonna", "ikea", "ruby"),
            ("madonna", "flu", "viagra", "ruby", "audi a4", "sony tv"),
            ("itunes", "madonna", "audi a4", "ikea", "sony tv"),
            ("itunes", "flu", "viagra"),
            ("itunes", "flu", "madonna", "audi a4", "sony tv"),
            ("madonna", "digital camera", "panic disorder", "playboy"),
            ("iphone sdk", "madonna", "ikea", "ruby"),
            ("iphone sdk", "digital camera", "madonna", "playboy"),
            ("iphone sdk", "digital camera", "panic disorder"),
            ("iphone sdk", "digital camera", "madonna", "ikea", "ruby"),
        ),
    ),
    "alshuhail2021-table3.2": (
        "AlShuhail2021 Table 3.2: the one cluster kept by horizontal partitioning (k=2)",
        (
            ("cancer", "radiotherapy", "lung", "treatment"),
            ("cancer", "lung", "blood", "tumor", "biopsy"),
            ("cancer", "blood", "treatment", "tumor", "biopsy"),
            ("vessel", "blood", "treatment", "lung", "catheterisation"),
        ),
    ),
    "alshuhail2021-table3.4": (
        "AlShuhail2021 Table 3.4: the original transactions of cluster P2",
        (
            ("kidney", "infection", "failure", "sepsis"),
            ("kidney", "surgery", "catheterisation"),
            ("kidney", "infection", "surgery"),
            ("infection", "failure", "dialysis"),
        ),
    ),
    "alshuhail2021-table4.2": (
        "AlShuhail2021 Table 4.2: the original transactions of the semantic-attack example",
        (
            ("vessel", "blood", "treatment", "lung", "catheterisation"),
            ("cancer", "radiotherapy", "lung", "treatment"),
            ("cancer", "lung", "blood", "tumor", "biopsy"),
            ("cancer", "blood", "treatment", "tumor", "biopsy"),
        ),
    ),
}

#: Names accepted by :func:`toy_dataset`, in a stable order.
TOY_DATASETS: tuple[str, ...] = tuple(_TOYS)


def toy_description(name: str) -> str:
    """One-line description (paper, table or figure) of a toy dataset."""
    return _lookup(name)[0]


def toy_records(name: str) -> list[list[str]]:
    """The records of a toy dataset as term lists, in the order the paper prints them."""
    return [list(r) for r in _lookup(name)[1]]


def toy_dataset(name: str) -> TransactionDataset:
    """The toy dataset ``name`` (one of :data:`TOY_DATASETS`) as a :class:`TransactionDataset`."""
    description, records = _lookup(name)
    return TransactionDataset.from_records(records, name=name,
                                           metadata={"source": description, "kind": "toy"})


def _lookup(name: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    try:
        return _TOYS[name]
    except KeyError:
        raise InputError(f"unknown toy dataset {name!r}; choose one of: {', '.join(TOY_DATASETS)}") from None
