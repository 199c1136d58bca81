"""Transaction data: the dataset type, file formats, named datasets, synthetic and text corpora.

The functions most people need are importable from here (loaded on first use, so that
``import corpora`` stays cheap)::

    from corpora import load_dataset, read_dataset, write_dataset, from_dataframe
    ds = load_dataset("terrovitis2012-fig2")          # a name, a synthetic: spec or a file
    ds = read_dataset("orders.csv", user_column="user_id", item_column="item")
    ds = read_sql("SELECT customer, product FROM orders ORDER BY customer", "shop.db")  # or postgresql://...
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from corpora.common.errors import InputError

__all__ = ["DatasetStats", "InputError", "TransactionDataset", "from_dataframe", "generate_quest", "list_datasets",
           "load_dataset", "read_dataset", "read_sql", "write_dataset"]

_LAZY = {
    "DatasetStats": ("corpora.dataset", "DatasetStats"),
    "TransactionDataset": ("corpora.dataset", "TransactionDataset"),
    "load_dataset": ("corpora.registry", "load_dataset"),
    "list_datasets": ("corpora.registry", "list_datasets"),
    "read_dataset": ("corpora.io.formats", "read_dataset"),
    "read_sql": ("corpora.io.sql", "read_sql"),
    "write_dataset": ("corpora.io.formats", "write_dataset"),
    "from_dataframe": ("corpora.io.frames", "dataset_from_frame"),
    "generate_quest": ("corpora.synthetic.quest", "generate_quest"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'corpora' has no attribute {name!r}") from None
    return getattr(import_module(module), attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
