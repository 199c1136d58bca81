"""The utility report of a disassociated or safe release (Terrovitis2012 sections 6-7, Awad2019 section 5.1).

The measures themselves live by role: the top-K itemset search in :mod:`anonymizer.evaluation.topk`,
tKd, tKd-a, re, re-a and tlost in :mod:`anonymizer.evaluation.loss` (their definitions and the
choices made), the published sub-records in :mod:`anonymizer.evaluation.published`, tKd-ML^2 in
:mod:`anonymizer.evaluation.multilevel`, RLM and RAE in :mod:`anonymizer.evaluation.safe_metrics`.
This module draws the reconstructions and puts the figures together; it re-exports the measures
under the names it has always offered.

Several reconstructions (section 7, Figure 7d): ``re`` is computed on the pair supports averaged
over the r reconstructions (the paper's re-r2/re-r5/re-r10); ``tkd`` is the mean of the r
single-reconstruction values (an average support is not a dataset one can mine). The per-run
values are kept in :class:`UtilityReport`. :func:`re_by_rank` draws Figure 7d itself: re over
windows of term ranks (0-20, 100-120, 200-220, 300-320, 400-420 in the paper) with the supports
averaged over the first r of one set of reconstructions (r = 1, 2, 5, 10: re, re-r2, re-r5,
re-r10), so every r reuses the same reconstructions, as the paper's "10 random reconstructions"
are reused.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from anonymizer.evaluation.consistency import check_before, check_original
from anonymizer.evaluation.loss import (
    DEFAULT_RE_RANGE,
    distinct_terms,
    pair_supports,
    ranked_terms,
    re,
    re_a,
    re_from_supports,
    resolve_re_range,
    tkd,
    tkd_a,
    tkd_against,
    tlost,
    tlost_readings,
)
from anonymizer.evaluation.multilevel import multilevel_top_k, tkd_ml2
from anonymizer.evaluation.published import published_subrecords, subrecord_dataset
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.report import UtilityReport
from anonymizer.evaluation.safe_metrics import rae_from_supports, rlm
from anonymizer.evaluation.topk import (
    DEFAULT_TIE_FACTOR,
    TopK,
    dataset_top_k,
    itemset_supports,
    top_k_itemsets,
    top_k_search,
)
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.common.gcpause import no_gc
from corpora.dataset import TransactionDataset

__all__ = [
    "UtilityReport",
    "DEFAULT_TIE_FACTOR",
    "TopK",
    "itemset_supports",
    "top_k_search",
    "top_k_itemsets",
    "dataset_top_k",
    "published_subrecords",
    "tkd",
    "tkd_a",
    "re",
    "re_a",
    "tlost",
    "ranked_terms",
    "DEFAULT_RE_RANGE",
    "distinct_terms",
    "resolve_re_range",
    "utility_report",
    "FIGURE_7D_WINDOWS",
    "FIGURE_7D_AVERAGED",
    "re_by_rank",
]

FIGURE_7D_WINDOWS: tuple[tuple[int, int], ...] = ((0, 20), (100, 120), (200, 220), (300, 320), (400, 420))
"""The term-rank windows of Terrovitis2012 Figure 7d (0-based, half-open)."""
FIGURE_7D_AVERAGED: tuple[int, ...] = (1, 2, 5, 10)
"""How many reconstructions Figure 7d averages: re (one), re-r2, re-r5, re-r10."""


def utility_report(original: TransactionDataset, release: Release, reconstructions: int = 1, seed: int = 0,
                   top_k: int = 1000, re_range: tuple[int, int] | None = None,
                   hierarchy: Any = None, *, before: Release | None = None,
                   label: str = "the original dataset") -> UtilityReport:
    """tKd, tKd-a, re, re-a, tlost and Awad2019's RAE (and RLM with ``before``) of ``release`` against ``original``.

    ``original`` must be the dataset the release was made from
    (:func:`anonymizer.evaluation.consistency.check_original`; ``label`` names it in the error).
    Reconstruction i uses seed ``seed + i``. ``tkd`` is the mean over the reconstructions, ``re``
    uses their averaged pair supports (see the module docstring). ``re_range=None`` is the
    default ranks 200-220, adapted to an original with fewer distinct terms
    (:func:`resolve_re_range`; ``re_range_adapted`` tells); an explicit range is used as given.
    With ``hierarchy`` (an :class:`anonymizer.baselines.hierarchy.Hierarchy` over the original's items)
    tKd-ML^2 is measured on every reconstruction too (:func:`anonymizer.evaluation.multilevel.tkd_ml2`) and
    NCP is 0.

    Awad2019 section 5.1: ``rae`` is its RAE as printed, signed (:mod:`anonymizer.evaluation.safe_metrics`),
    over re's pairs on the same seeded reconstructions; ``rae_abs``, the absolute reading, equals ``re``.
    Awad2019 applies it to disassociated and safely disassociated data alike. ``tlost`` traces the
    terms of support more than k (Terrovitis2012 7.1), ``tlost_at_least_k`` those of support at least k.
    ``before`` is the non-safe release the safe ``release`` was made from (same dataset, options and seed): it
    must match (:func:`anonymizer.evaluation.consistency.check_before`), and ``rlm`` is
    :func:`anonymizer.evaluation.safe_metrics.rlm` (before, release), the share of published item
    occurrences that safe disassociation suppressed. Without ``before``, ``rlm`` is None.

    A safe release (``params.safe``, Awad2019 section 4) holds ghost records: partial
    suppression adds two records L1, L2 per treated chunk (section 4.1, rule 4), so the release
    lists more records than the original (at most ``size - k`` per cluster). The release does not
    say which records are ghosts, and must not (that is their point), so every reconstruction
    holds them too, and the figures compare the original with data of ``n + ghosts`` records:

    * supports are counts, not frequencies, so nothing is rescaled. A ghost record holds items
      moved off real records (rules 3-4: each suppressed item goes to L1 or L2), so every item
      keeps its support (Awad2019 eq. 6) while the suppressed pairs lose one or two
      co-occurrences; items deleted entirely (chunks that fail preconditions (3)/(4)) lose their
      support;
    * **tKd** then measures how many of the original's top-K itemsets stay top-K in a
      reconstruction with the ghosts (a ghost can only support itemsets of the items it holds,
      which partial suppression splits apart); **tKd-a** and **re-a** count the published
      sub-records, ghost sub-records included;
    * **re** (and RAE) compare the original pair supports with those of the reconstructions,
      ghosts included: the loss of association that suppression causes is part of the error,
      as Awad2019 Figure 6 measures it;
    * **tlost** keeps its definition: a frequent term of the original counts as lost when the
      release keeps it only in term chunks (safe disassociation moves some suppressed items
      there to keep records non-empty, :mod:`anonymizer.disassociation.safe`); a term deleted entirely is in no
      chunk and is not counted (its loss is in RLM, which needs ``before``).
    """
    if reconstructions < 1:
        raise InputError(f"reconstructions must be at least 1, got {reconstructions}")
    with no_gc():  # the searches' heaps make hundreds of thousands of small tuples (no cycles): 8-10% of the CPU
        return _report(original, release, reconstructions, seed, top_k, re_range, hierarchy, before, label)


def _report(original: TransactionDataset, release: Release, reconstructions: int, seed: int, top_k: int,
            re_range: tuple[int, int] | None, hierarchy: Any, before: Release | None, label: str) -> UtilityReport:
    """:func:`utility_report` (its arguments checked)."""
    check_original(release, original, label=label)
    if before is not None:
        check_before(before, release)
    re_range, adapted = resolve_re_range(original, re_range)
    terms = ranked_terms(original, re_range)
    fi = top_k_search(original, top_k)
    notes = []
    if fi.truncated:
        notes.append(
            f"tKd: more than {len(fi.itemsets)} itemsets of the original tie at the top-{top_k} cut "
            f"(support {fi.kth_support}); FI holds the first {len(fi.itemsets)} in (support, size, "
            "rank) order"
        )
        warnings.warn(notes[-1], RuntimeWarning, stacklevel=3)  # the caller of utility_report
    s_o = pair_supports(original, terms)
    tkd_runs, re_runs, pair_runs, ml2_runs = [], [], [], []
    ml_fi = multilevel_top_k(original, hierarchy, top_k, leaf_top=fi) if hierarchy is not None else None

    def runs() -> Iterator[TransactionDataset]:
        for i in range(reconstructions):
            ds = reconstruct(release, seed=seed + i)
            ds_top = top_k_search(ds, top_k, max_itemsets=top_k, keep_bitsets=True)  # FI' of tKd, tKd-ML^2's leaves
            tkd_runs.append(tkd_against(fi, ds, top_k, published_top=ds_top))
            if ml_fi is not None:
                ml2_runs.append(tkd_ml2(original, ds, hierarchy, top_k, fi=ml_fi, published_top=ds_top))
            pairs = pair_supports(ds, terms)
            pair_runs.append(pairs)
            re_runs.append(re_from_supports(s_o, pairs))
            yield ds
            del ds

    for _drawn in runs():  # one reconstruction at a time, none drawn twice
        pass
    pairs_mean = np.mean(pair_runs, axis=0)
    subs = subrecord_dataset(release)
    lost, lost_at_least_k = tlost_readings(release, original)
    return UtilityReport(
        tkd=float(np.mean(tkd_runs)),
        tkd_a=tkd_against(fi, subs, top_k),
        re=re_from_supports(s_o, pairs_mean),
        re_a=re_from_supports(s_o, pair_supports(subs, terms)),
        tlost=lost,
        tlost_at_least_k=lost_at_least_k,
        reconstructions=reconstructions,
        seed=seed,
        top_k=top_k,
        re_range=(int(re_range[0]), int(re_range[1])),
        tkd_runs=tkd_runs,
        re_runs=re_runs,
        warnings=notes,
        tkd_ml2=float(np.mean(ml2_runs)) if ml2_runs else None,
        ncp=0.0 if hierarchy is not None else None,
        re_range_adapted=adapted,
        rlm=rlm(before, release) if before is not None else None,
        rae=rae_from_supports(s_o, pairs_mean),
        rae_abs=rae_from_supports(s_o, pairs_mean, absolute=True),
    )


def re_by_rank(original: TransactionDataset, release: Release,
               windows: Sequence[tuple[int, int]] = FIGURE_7D_WINDOWS,
               averaged: Sequence[int] = FIGURE_7D_AVERAGED, seed: int = 0, *,
               label: str = "the original dataset") -> dict[tuple[int, int], float]:
    """Terrovitis2012 Figure 7d: ``{(window start, r): re}`` for every rank window and every r.

    ``max(averaged)`` reconstructions are drawn once (seeds ``seed``, ``seed + 1``, ...); the re of
    a window with r reconstructions compares the original pair supports of the window's terms with
    their mean over the first r reconstructions (section 7: "averaging the itemset supports on
    them"). A window past the number of distinct terms raises :class:`InputError`, and so does an
    ``original`` that cannot be the release's (:func:`anonymizer.evaluation.consistency.check_original`, which
    allows the ghost records of a safe release: see :func:`utility_report` for what the figures
    mean then).
    """
    if not windows:
        raise InputError("re_by_rank: no rank window given")
    counts = sorted({int(r) for r in averaged})
    if not counts or counts[0] < 1:
        raise InputError(f"re_by_rank: the numbers of reconstructions must be at least 1, got {list(averaged)}")
    check_original(release, original, label=label)
    window_terms = [ranked_terms(original, (int(lo), int(hi))) for lo, hi in windows]
    union = sorted({t for terms in window_terms for t in terms})
    position = {t: i for i, t in enumerate(union)}
    slices = [np.array([position[t] for t in terms]) for terms in window_terms]
    s_o = pair_supports(original, union)
    running = np.zeros_like(s_o)
    out: dict[tuple[int, int], float] = {}
    for i in range(counts[-1]):
        running += pair_supports(reconstruct(release, seed=seed + i), union)
        r = i + 1
        if r in counts:
            mean = running / r
            for (lo, _hi), idx in zip(windows, slices, strict=True):
                out[(int(lo), r)] = re_from_supports(s_o[np.ix_(idx, idx)], mean[np.ix_(idx, idx)])
    return out
