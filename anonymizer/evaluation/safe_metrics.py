"""Utility metrics of safe disassociation (Awad2019 section 5.1): RLM and RAE.

* **RLM** (5.1.2), relative loss: sum over items x of (s(x, T*) - s(x, T')) divided by the sum of
  s(x, T*), where T* is the disassociated and T' the safely disassociated release. Choice: the
  support of an item in a release is what the release publishes, i.e. its occurrences in record
  chunks and shared chunks; term-chunk terms publish no support (and safe disassociation does
  not touch them), so they count in neither. Ghost records keep every item's support (Awad2019
  eq. 6), so only suppressed occurrences count. A term that safe disassociation had to move into
  a term chunk (see :mod:`anonymizer.disassociation.safe`) loses its published support and counts as lost.
* **RAE** (5.1.3), relative association error, as printed: for pairs {x, y},
  ``(s(xy, T) - s(xy, R)) / AVG(s(xy, T), s(xy, R))``, T the original dataset and R the anonymized
  data. The formula is signed, so ``rae`` keeps the sign: positive when R loses associations
  (suppression), negative when it invents them (the cross join of record chunks). Awad2019 cites
  it from the re of Terrovitis2012 (section 6, eq. 3), which takes the absolute difference; that
  reading is kept beside it as ``rae_abs`` (``absolute=True``, equal to re). Both average over
  the pairs of the terms ranked ``rank_range`` by original support (200th-220th by default),
  pairs with zero support on both sides left out. The support in a release is taken on random
  reconstructions (Awad2019 Table 1: T^o, "a dataset reconstructed by cross joining the
  itemsets of the record chunks"), averaged over ``reconstructions`` of them, seeded.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from anonymizer.evaluation.loss import averaged_pair_supports, pair_supports, ranked_terms, re_from_supports
from anonymizer.evaluation.published import published_supports
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["published_supports", "rlm", "rae", "rae_from_supports", "rae_readings"]


def rlm(original_release: Release, safe_release: Release) -> float:
    """Relative Loss Metric of Awad2019 5.1.2 between a release and its safe version (0 = nothing lost)."""
    before = published_supports(original_release)
    after = published_supports(safe_release)
    total = sum(before.values())
    if total == 0:
        return 0.0
    grown = [t for t in after if after[t] > before.get(t, 0)]
    if grown:
        raise InputError(f"rlm: the safe release has more occurrences of {grown[0]!r} than the original release; "
                         "pass (original release, safe release) in that order")
    return float(sum(before[t] - after.get(t, 0) for t in before) / total)


def rae_from_supports(s_o: np.ndarray, s_r: np.ndarray, *, absolute: bool = False) -> float:
    """RAE from pair-support matrices of the original (``s_o``) and the anonymized data (``s_r``),
    signed as printed, or the absolute reading with ``absolute`` (module docstring)."""
    return re_from_supports(s_o, s_r, signed=not absolute)


def rae(original: TransactionDataset, anonymized: Release | TransactionDataset | Iterable[TransactionDataset], *,
        reconstructions: int = 1, seed: int = 0, rank_range: tuple[int, int] = (200, 220),
        absolute: bool = False) -> float:
    """Relative Association Error of Awad2019 5.1.3 between the original dataset and anonymized data.

    Signed as printed; ``absolute=True`` gives the absolute reading ``rae_abs`` (module docstring).
    ``anonymized`` is a release (disassociated or safe: it is reconstructed ``reconstructions``
    times with seeds seed, seed+1, ...) or already reconstructed dataset(s), from any iterable
    (read once, one at a time); several datasets' pair supports are averaged.
    """
    signed, unsigned = rae_readings(original, anonymized, reconstructions=reconstructions, seed=seed,
                                    rank_range=rank_range)
    return unsigned if absolute else signed


def rae_readings(original: TransactionDataset,
                 anonymized: Release | TransactionDataset | Iterable[TransactionDataset], *,
                 reconstructions: int = 1, seed: int = 0, rank_range: tuple[int, int] = (200, 220)
                 ) -> tuple[float, float]:
    """(RAE as printed, RAE absolute) on the same reconstructions (arguments as :func:`rae`)."""
    if isinstance(anonymized, Release):
        if reconstructions < 1:
            raise InputError(f"rae: reconstructions must be at least 1, got {reconstructions}")
        runs = (reconstruct(anonymized, seed=seed + i) for i in range(reconstructions))
    else:
        runs = anonymized
    terms = ranked_terms(original, rank_range)
    s_o = pair_supports(original, terms)
    s_r = averaged_pair_supports(runs, terms)
    return rae_from_supports(s_o, s_r), rae_from_supports(s_o, s_r, absolute=True)
