"""The parameters of the text pipeline (AlShuhail2021 section 5.1), their names and their checks.

Light on purpose (numpy only, no text stack): the command line (``python -m corpora build-text``)
builds its parser from :data:`PARTS` and :data:`PIPELINES` without loading NLTK or scikit-learn,
and both builders (:mod:`corpora.text.build`, :mod:`corpora.text.thesis`) check their arguments
with the same functions, so a bad value gets the same one line from either.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from corpora.common.errors import InputError

__all__ = ["CLOSE", "DENSITY_TOLERANCE", "PARTS", "PIPELINES", "POOL_NAMES", "POOL_SOURCES", "check_density",
           "check_part", "check_seed", "check_share", "check_top_n"]

#: The largest accepted difference between the requested and the reached density.
DENSITY_TOLERANCE = 0.02
#: When documents are chosen, results this close to the target are preferred to farther ones.
CLOSE = 0.005
PARTS = ("all", "attacked", "reference")
PIPELINES = ("term-dropping", "thesis")
"""``term-dropping``: one source, its documents' TF-IDF terms, the density reached mostly by dropping
rare terms or truncating (:func:`build_text_dataset`'s original builder); ``thesis``: AlShuhail2021
section 5.1.2 (:func:`build_thesis_dataset`)."""
POOL_SOURCES = ("lee", "wiki-sample", "newsgroups-sample", "reuters")
"""The offline text sources the thesis pipeline pools (for the ~1,000 EzineArticles of the thesis)."""
POOL_NAMES = ("pool", "thesis")
"""Source names that stand for every present source of :data:`POOL_SOURCES`."""


def check_share(reference_share: float) -> float:
    """The share of reference documents, a number strictly between 0 and 1."""
    if isinstance(reference_share, bool) or not isinstance(reference_share, (int, float)) \
            or not 0.0 < float(reference_share) < 1.0:
        raise InputError(f"reference_share: expected a number between 0 and 1 (exclusive), got {reference_share!r}")
    return float(reference_share)


def check_seed(seed: int) -> int:
    """The seed, a whole number >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed: expected a whole number >= 0, got {seed!r}")
    return int(seed)


def check_density(density: float | None) -> float | None:
    """The target type-token density, in (0, 1], or ``None`` for none."""
    if density is None:
        return None
    if isinstance(density, bool) or not isinstance(density, (int, float)) or not 0.0 < float(density) <= 1.0:
        raise InputError(f"density: expected a number in (0, 1], got {density!r}")
    return float(density)



def check_top_n(top_n: int | None) -> int | None:
    """The number of best terms a transaction keeps, a whole number >= 1, or ``None`` for all."""
    if top_n is None:
        return None
    if isinstance(top_n, bool) or not isinstance(top_n, (int, np.integer)) or top_n < 1:
        raise InputError(f"top_n: expected a whole number >= 1, got {top_n!r}")
    return int(top_n)



def check_part(part: Any) -> str:
    """The part of a source to build from, one of :data:`PARTS`."""
    if part not in PARTS:
        raise InputError(f"part: expected one of {', '.join(PARTS)}, got {part!r}")
    return part
