"""Information loss of disassociation (Terrovitis2012 section 6, measured in section 7.1).

* **tKd**, top-K deviation (section 6, equation 2): ``1 - |FI & FI'| / |FI|`` where FI and FI' are
  the top-K frequent itemsets (any size, :mod:`anonymizer.evaluation.topk`) of the original and of
  the published data. For :func:`tkd` the published data is a reconstructed dataset
  (:func:`anonymizer.evaluation.reconstruct.reconstruct`); for :func:`tkd_a` (section 7.1) it is the
  bag of the sub-records listed in the record and shared chunks only
  (:mod:`anonymizer.evaluation.published`), the lower bounds of the itemset supports that hold in
  every reconstruction.
* **re**, relative error (section 6, equation 3) of the supports of the pairs of terms:
  ``|s_o(a,b) - s_p(a,b)| / avg(s_o(a,b), s_p(a,b))``, averaged over all pairs of the terms ranked
  200th-220th by support in the original (section 7.1; ``rank_range`` is 0-based and half-open,
  so the default (200, 220) takes 20 terms and 190 pairs; ties in support are broken by term).
  ``re_a`` takes s_p from the record- and shared-chunk sub-records only. Choice: a pair with
  support 0 on both sides has no defined error and is left out of the average (0.0 if no pair
  remains). Choice: the *default* range adapts to small vocabularies (:func:`resolve_re_range`):
  an original with N < 220 distinct terms is scored on the last 20-rank window that exists,
  ``(N - 20, N)``, or ``(0, N)`` when N < 20 (re needs N >= 2); the report says so
  (``UtilityReport.re_range_adapted``). A range given explicitly is used as given.
* **tlost** (section 7.1): "the percentage of terms tlost that have support more than k in the
  original dataset D but they are placed in term chunks by our method": the share of the terms
  with support more than k that the release keeps only in term chunks (in no record or shared
  chunk), :func:`anonymizer.model.lost.tlost_share`. Variant ``at_least_k`` (``tlost_at_least_k``
  in the sweeps): support at least k, the complement of VERPART's "less than k" rule (section 4),
  which the paper's "over k" elsewhere may mean; a term of support exactly k is then traced too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from anonymizer.evaluation.bitsets import term_bitsets
from anonymizer.evaluation.published import published_term_counts, subrecord_dataset
from anonymizer.evaluation.topk import TopK, itemset_supports, top_k_search
from anonymizer.model.lost import tlost_share
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["DEFAULT_RE_RANGE", "tkd", "tkd_a", "tkd_against", "re", "re_a", "re_from_supports", "pair_supports",
           "averaged_pair_supports", "tlost", "tlost_readings", "ranked_terms", "distinct_terms", "resolve_re_range"]

DEFAULT_RE_RANGE: tuple[int, int] = (200, 220)
"""Terrovitis2012 section 7.1: re over the pairs of the terms ranked 200th-220th (0-based, half-open)."""


def tkd_against(fi: TopK, published: TransactionDataset, top_k: int, published_top: TopK | None = None) -> float:
    """1 - |FI & FI'| / |FI| without materialising FI' (see the module docstring).

    ``published_top``: ``top_k_search(published, top_k, max_itemsets=top_k)`` when the caller has it (with
    ``keep_bitsets``, the FI supports are counted on its bitsets)."""
    if not fi.itemsets:
        return 0.0
    published_top = published_top or top_k_search(published, top_k, max_itemsets=top_k, keep_bitsets=True)
    supports = itemset_supports(published, fi.itemsets, searched=published_top)
    kth = published_top.kth_support
    kept = sum(1 for n in supports.values() if n > 0 and n >= kth)
    return 1.0 - kept / len(fi.itemsets)


def tkd(original: TransactionDataset, reconstructed: TransactionDataset, top_k: int = 1000) -> float:
    """Top-K deviation between the original and one reconstructed dataset (section 6, eq. 2)."""
    return tkd_against(top_k_search(original, top_k), reconstructed, top_k)


def tkd_a(original: TransactionDataset, release: Release, top_k: int = 1000) -> float:
    """Top-K deviation against the sub-records of the record and shared chunks only (section 7.1)."""
    return tkd_against(top_k_search(original, top_k), subrecord_dataset(release), top_k)


def ranked_terms(original: TransactionDataset, rank_range: tuple[int, int] = (200, 220)) -> list[str]:
    """Terms ranked ``rank_range[0]`` .. ``rank_range[1]-1`` (0-based) by descending support, ties by term."""
    lo, hi = rank_range
    if lo < 0 or hi <= lo:
        raise InputError(f"re range {rank_range}: expected 0 <= start < end")
    supports = original.term_supports()
    vocab = original.vocabulary
    order = sorted((i for i in range(len(vocab)) if supports[i] > 0), key=lambda i: (-int(supports[i]), vocab[i]))
    chosen = [vocab[i] for i in order[lo:hi]]
    if len(chosen) < 2:
        raise InputError(
            f"re range {lo}-{hi}: the original dataset has only {len(order)} distinct terms, "
            f"so the range holds {len(chosen)} term(s); choose a range with at least 2 terms"
        )
    return chosen


def distinct_terms(original: TransactionDataset) -> int:
    """Number of terms that occur in ``original`` (support > 0): the ranks :func:`ranked_terms` can take."""
    return int(np.count_nonzero(original.term_supports()))


def resolve_re_range(original: TransactionDataset, re_range: tuple[int, int] | None = None, *,
                     strict: bool = False, label: str = "re range") -> tuple[tuple[int, int], bool]:
    """The rank range re is computed on, and whether the default was adapted.

    ``re_range=None`` asks for the default :data:`DEFAULT_RE_RANGE` (Terrovitis2012 section 7.1,
    ranks 200-220). When the original has N distinct terms, fewer than its END, the default
    adapts to the last window of the same width that exists: ``(N - 20, N)``, or ``(0, N)``
    when N < 20 (N >= 2 is needed for one pair); the second value is then True. A range given
    explicitly is returned as given (validated by :func:`ranked_terms` when used); with
    ``strict`` it must also fit, END <= N, and the error names ``label`` (the CLI passes
    ``--re-range``).
    """
    n = distinct_terms(original)
    if re_range is None:
        lo, hi = DEFAULT_RE_RANGE
        if n >= hi:
            return (lo, hi), False
        if n < 2:
            raise InputError(f"re: the original dataset has {n} distinct term(s); re needs at least 2 (one pair)")
        return (max(0, n - (hi - lo)), n), True
    lo, hi = int(re_range[0]), int(re_range[1])
    if lo < 0 or hi <= lo:
        raise InputError(f"{label} {lo} {hi}: expected 0 <= START < END")
    if strict and hi > n:
        raise InputError(f"{label} {lo} {hi}: the original dataset has only {n} distinct terms, so END must be at "
                         f"most {n}; choose another range or leave {label} out (the default adapts)")
    return (lo, hi), False


def pair_supports(ds: TransactionDataset, terms: Sequence[str]) -> np.ndarray:
    """Matrix G[i, j] = number of records of ``ds`` holding both terms[i] and terms[j]."""
    index = ds.term_index
    cols = np.asarray([index.get(t, -1) for t in terms], dtype=np.int64)
    present = np.flatnonzero(cols >= 0)
    out = np.zeros((len(terms), len(terms)), dtype=np.float64)
    if present.size:  # popcounts of the ANDed row bitsets of the terms (no sparse matrix, no scipy)
        needed = np.unique(cols[present])
        bits = term_bitsets(ds, needed)
        gram = np.zeros((needed.size, needed.size), dtype=np.int64)
        for a in range(needed.size):
            gram[a, a:] = np.bitwise_count(bits[a:] & bits[a]).sum(axis=1, dtype=np.int64)
        gram = np.triu(gram) + np.triu(gram, 1).T
        at = np.searchsorted(needed, cols[present])
        out[np.ix_(present, present)] = gram[np.ix_(at, at)]
    return out


def re_from_supports(s_o: np.ndarray, s_p: np.ndarray, *, signed: bool = False) -> float:
    """Equation 3 over the pairs above the diagonal of two pair-support matrices (module docstring).

    ``signed``: average ``(s_o - s_p) / avg(s_o, s_p)`` without the absolute value (Awad2019's RAE as
    printed, :func:`anonymizer.evaluation.safe_metrics.rae`): negative when the published data
    over-associate the pairs, as reconstructions of disassociated data do."""
    iu = np.triu_indices(s_o.shape[0], k=1)
    a, b = s_o[iu], s_p[iu]
    keep = (a > 0) | (b > 0)
    if not np.any(keep):
        return 0.0
    a, b = a[keep], b[keep]
    diff = a - b if signed else np.abs(a - b)
    return float(np.mean(diff / ((a + b) / 2.0)))


def averaged_pair_supports(runs: TransactionDataset | Iterable[TransactionDataset], terms: Sequence[str]) -> np.ndarray:
    """The pair supports of ``terms`` averaged over one or several datasets (any iterable, each read once)."""
    runs = [runs] if isinstance(runs, TransactionDataset) else runs
    total, count = None, 0
    for ds in runs:
        pairs = pair_supports(ds, terms)
        total = pairs if total is None else total + pairs
        count += 1
    if total is None:
        raise InputError("re: no reconstructed dataset given")
    return total / count


def re(original: TransactionDataset, reconstructed: TransactionDataset | Iterable[TransactionDataset],
       rank_range: tuple[int, int] = (200, 220)) -> float:
    """Relative error of pair supports (section 6, eq. 3); several datasets: their supports are averaged.

    Several datasets may come from any iterable (a generator too): each is read once, one at a time.
    """
    terms = ranked_terms(original, rank_range)
    return re_from_supports(pair_supports(original, terms), averaged_pair_supports(reconstructed, terms))


def re_a(original: TransactionDataset, release: Release, rank_range: tuple[int, int] = (200, 220)) -> float:
    """Relative error against supports counted in the record- and shared-chunk sub-records only."""
    terms = ranked_terms(original, rank_range)
    return re_from_supports(pair_supports(original, terms), pair_supports(subrecord_dataset(release), terms))


def tlost(release: Release, original: TransactionDataset | None = None, *, at_least_k: bool = False) -> float:
    """Share of the terms with support more than k that only term chunks hold (Terrovitis2012 section 7.1;
    the definition and its ``at_least_k`` variant: :func:`anonymizer.model.lost.tlost_share`).

    With ``original`` the supports are exact. Without it they are the release's lower bounds
    (section 6: occurrences in record and shared chunks plus one per term chunk holding the term),
    which can only undercount the lost terms. 0.0 when no term is frequent.
    """
    return tlost_readings(release, original)[1 if at_least_k else 0]


def tlost_readings(release: Release, original: TransactionDataset | None = None) -> tuple[float, float]:
    """(:func:`tlost`, :func:`tlost` with ``at_least_k``) from one pass over the release's arrays
    (:func:`anonymizer.evaluation.published.published_term_counts`)."""
    pub = published_term_counts(release)
    kept = {pub.terms[i] for i in np.flatnonzero(pub.in_subrecords).tolist()}
    in_term_chunks = {pub.terms[i] for i in np.flatnonzero(pub.term_chunks).tolist()}
    if original is not None:
        supports = original.supports()
    else:
        total = pub.in_subrecords + pub.term_chunks
        supports = {pub.terms[i]: int(total[i]) for i in np.flatnonzero(total).tolist()}
    return (tlost_share(supports, release.k, kept, in_term_chunks),
            tlost_share(supports, release.k, kept, in_term_chunks, at_least_k=True))
