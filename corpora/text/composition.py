"""What a text build is made of: how many of its transactions come from each text source.

AlShuhail2021 builds its transactions from one corpus ("about 1,000 articles ... from
EzineArticles", section 5.1.2); offline the thesis pipeline pools several sources
(:data:`corpora.text.parameters.POOL_SOURCES`), and which of them a build draws on depends on the
density: the sparse sources cannot reach every density, so a build can be almost all one source
(issue 24: 198 of the 200 transactions at density 0.3 are Reuters). Every build records its
composition in its metadata (``composition``: source -> transactions, one document each, in the
order of the build's sources; see ``docs/text-corpora.md``); :func:`record_sources` gives each
transaction's source, :func:`composition` counts them. Light on purpose (no text stack): the sweep's
dataset step reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from corpora.common.errors import InputError

__all__ = ["composition", "record_sources"]


def record_sources(metadata: Mapping[str, Any]) -> list[str]:
    """The source of each transaction of a text build, in record order, from its metadata.

    A thesis-pipeline build lists ``documents`` as ``[source, position]`` pairs; a single-source
    build (``term-dropping``) has every transaction from ``source``.
    """
    documents = metadata.get("documents")
    if metadata.get("pipeline") == "thesis":
        if not isinstance(documents, list) or not all(isinstance(d, list) and len(d) == 2 for d in documents):
            raise InputError("text build metadata: documents must be [source, position] pairs")
        return [str(d[0]) for d in documents]
    if not isinstance(documents, list) or "source" not in metadata:
        raise InputError("text build metadata: expected source and documents")
    return [str(metadata["source"])] * len(documents)


def composition(sources: Iterable[str], names: Sequence[str] = ()) -> dict[str, int]:
    """Transactions per source: every name of ``names`` first (0 when absent), then any other in first-seen order."""
    out = dict.fromkeys(names, 0)
    for s in sources:
        out[s] = out.get(s, 0) + 1
    return out
