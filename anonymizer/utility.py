"""Information-loss metrics of disassociation (Terrovitis2012 sections 6 and 7.1).

* **tKd**, top-K deviation (section 6, equation 2): ``1 - |FI & FI'| / |FI|`` where FI and FI' are
  the top-K frequent itemsets (any size) of the original and of the published data. For
  ``tkd`` the published data is a reconstructed dataset (:func:`anonymizer.reconstruct.reconstruct`);
  for ``tkd_a`` (section 7.1) it is the bag of the sub-records listed in the record and shared
  chunks only, i.e. the lower bounds of the itemset supports that hold in every reconstruction.
* **re**, relative error (section 6, equation 3) of the supports of the pairs of terms:
  ``|s_o(a,b) - s_p(a,b)| / avg(s_o(a,b), s_p(a,b))``, averaged over all pairs of the terms ranked
  200th-220th by support in the original (section 7.1; ``rank_range`` is 0-based and half-open,
  so the default (200, 220) takes 20 terms and 190 pairs; ties in support are broken by term).
  ``re_a`` takes s_p from the record- and shared-chunk sub-records only. Choice: a pair with
  support 0 on both sides has no defined error and is left out of the average (0.0 if no pair
  remains).
* **tlost** (section 7.1): the share of the terms with support at least k in the original that
  the release keeps only in term chunks (in no record or shared chunk). The paper says "more
  than k" here but uses "over k" elsewhere for the complement of VERPART's "less than k" rule
  (section 4), so support >= k is the criterion.

Several reconstructions (section 7, Figure 7d): ``re`` is computed on the pair supports averaged
over the r reconstructions (the paper's re-r2/re-r5/re-r10); ``tkd`` is the mean of the r
single-reconstruction values (an average support is not a dataset one can mine). The per-run
values are kept in :class:`UtilityReport`.

Top-K mining uses pyfim's FP-growth, which has no top-K mode. At the K-th largest single-term
support at least K itemsets surely exist; when at most 20K pairs reach it (sparse data), the
itemsets are mined there directly. Otherwise the absolute support threshold is halved from the
largest support (never below that floor) until at least K itemsets come back. Either way FI is
every itemset whose support reaches the K-th largest support, so ties at the cut are all kept and
FI may hold a few more than K itemsets.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import fim
import numpy as np

from anonymizer.reconstruct import reconstruct
from anonymizer.release import Release
from corpora.dataset import TransactionDataset
from corpora.errors import InputError

__all__ = [
    "UtilityReport",
    "frequent_itemsets",
    "top_k_itemsets",
    "dataset_top_k",
    "published_subrecords",
    "tkd",
    "tkd_a",
    "re",
    "re_a",
    "tlost",
    "ranked_terms",
    "utility_report",
]



_DIRECT_FACTOR = 20
"""Mine directly at the K-th single-term support when at most this many times K pairs reach it."""


def _prepare(transactions: Iterable[Iterable[Hashable]]) -> list[list[Hashable]]:
    """Transactions as lists, plus one empty transaction.

    pyfim silently drops items present in every transaction (it treats them as perfect
    extensions of the empty set); the empty transaction prevents that and changes no support.
    """
    tracts = [list(t) for t in transactions]
    tracts.append([])
    return tracts


def _mine(tracts: list[list[Hashable]], min_support: int, max_size: int | None) -> list[tuple[tuple, int]]:
    kwargs: dict[str, Any] = {"target": "s", "supp": -int(min_support), "zmin": 1, "report": "a"}
    if max_size is not None:
        kwargs["zmax"] = int(max_size)
    return fim.fpgrowth(tracts, **kwargs)


def frequent_itemsets(transactions: Sequence[Iterable[Hashable]], min_support: int,
                      max_size: int | None = None) -> dict[frozenset, int]:
    """All itemsets with absolute support >= ``min_support`` (pyfim FP-growth)."""
    if min_support < 1:
        raise InputError(f"min_support must be at least 1, got {min_support}")
    return {frozenset(items): int(n) for items, n in _mine(_prepare(transactions), min_support, max_size)}


def _top_k_prepared(tracts: list[list[Hashable]], top_k: int, max_size: int | None,
                    single_supports: Sequence[int] | None = None) -> dict[frozenset, int]:
    if top_k < 1:
        raise InputError(f"top_k must be at least 1, got {top_k}")
    if single_supports is None:
        single_supports = list(Counter(item for t in tracts for item in set(t)).values())
    ranked = sorted((int(n) for n in single_supports if n > 0), reverse=True)
    if not ranked:
        return {}
    floor = ranked[top_k - 1] if len(ranked) >= top_k else 1
    found: list[tuple[tuple, int]] | None = None
    if len(ranked) >= top_k and len(_mine(tracts, floor, 2)) <= _DIRECT_FACTOR * top_k:
        # Shortcut: at the K-th single-term support at least K itemsets surely exist; when the
        # pairs above it are few, mining there directly is cheap and gives the same cut.
        found = _mine(tracts, floor, max_size)
    else:
        threshold = ranked[0]
        while True:
            found = _mine(tracts, threshold, max_size)
            if len(found) >= top_k or threshold <= floor:
                break
            threshold = max(floor, threshold // 2)
    if len(found) > top_k:
        cut = sorted((n for _, n in found), reverse=True)[top_k - 1]
        found = [(items, n) for items, n in found if n >= cut]
    return {frozenset(items): int(n) for items, n in found}


def top_k_itemsets(transactions: Sequence[Iterable[Hashable]], top_k: int,
                   max_size: int | None = None) -> dict[frozenset, int]:
    """The top-K frequent itemsets with their supports (ties at the K-th support all kept)."""
    return _top_k_prepared(_prepare(transactions), top_k, max_size)


def dataset_top_k(ds: TransactionDataset, top_k: int, max_size: int | None = None) -> dict[frozenset, int]:
    """:func:`top_k_itemsets` of a dataset's records, mined on integer term ids (faster), keyed by terms."""
    ind, ptr = ds.indices.tolist(), ds.indptr.tolist()
    tracts: list[list[Hashable]] = [ind[a:b] for a, b in zip(ptr[:-1], ptr[1:], strict=True)]
    tracts.append([])
    voc = ds.vocabulary
    found = _top_k_prepared(tracts, top_k, max_size, ds.term_supports().tolist())
    return {frozenset(voc[i] for i in s): n for s, n in found.items()}


def published_subrecords(release: Release) -> list[tuple[str, ...]]:
    """Every non-empty sub-record of the record chunks and shared chunks (the "-a" metrics' data)."""
    subs = [sub for c in release.clusters for chunk in c.record_chunks for sub in chunk if sub]
    subs += [sub for j in release.joint_clusters for chunk in j.shared_chunks for sub in chunk if sub]
    return subs


def _tkd_from(fi: dict[frozenset, int], fi_pub: dict[frozenset, int]) -> float:
    if not fi:
        return 0.0
    return 1.0 - len(fi.keys() & fi_pub.keys()) / len(fi)


def tkd(original: TransactionDataset, reconstructed: TransactionDataset, top_k: int = 1000) -> float:
    """Top-K deviation between the original and one reconstructed dataset (section 6, eq. 2)."""
    return _tkd_from(dataset_top_k(original, top_k), dataset_top_k(reconstructed, top_k))


def tkd_a(original: TransactionDataset, release: Release, top_k: int = 1000) -> float:
    """Top-K deviation against the sub-records of the record and shared chunks only (section 7.1)."""
    return _tkd_from(dataset_top_k(original, top_k), top_k_itemsets(published_subrecords(release), top_k))


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


def _pair_supports(ds: TransactionDataset, terms: Sequence[str]) -> np.ndarray:
    """Matrix G[i, j] = number of records of ``ds`` holding both terms[i] and terms[j]."""
    index = ds.term_index
    cols = [index.get(t, -1) for t in terms]
    present = [i for i, c in enumerate(cols) if c >= 0]
    out = np.zeros((len(terms), len(terms)), dtype=np.float64)
    if present:
        sub = ds.matrix()[:, [cols[i] for i in present]].astype(np.int64)
        gram = (sub.T @ sub).toarray()
        out[np.ix_(present, present)] = gram
    return out


def _re_from(s_o: np.ndarray, s_p: np.ndarray) -> float:
    iu = np.triu_indices(s_o.shape[0], k=1)
    a, b = s_o[iu], s_p[iu]
    keep = (a > 0) | (b > 0)
    if not np.any(keep):
        return 0.0
    a, b = a[keep], b[keep]
    return float(np.mean(np.abs(a - b) / ((a + b) / 2.0)))


def re(original: TransactionDataset, reconstructed: TransactionDataset | Sequence[TransactionDataset],
       rank_range: tuple[int, int] = (200, 220)) -> float:
    """Relative error of pair supports (section 6, eq. 3); several datasets: their supports are averaged."""
    terms = ranked_terms(original, rank_range)
    runs = [reconstructed] if isinstance(reconstructed, TransactionDataset) else list(reconstructed)
    if not runs:
        raise InputError("re: no reconstructed dataset given")
    s_p = np.mean([_pair_supports(ds, terms) for ds in runs], axis=0)
    return _re_from(_pair_supports(original, terms), s_p)


def re_a(original: TransactionDataset, release: Release, rank_range: tuple[int, int] = (200, 220)) -> float:
    """Relative error against supports counted in the record- and shared-chunk sub-records only."""
    terms = ranked_terms(original, rank_range)
    pos = {t: i for i, t in enumerate(terms)}
    s_p = np.zeros((len(terms), len(terms)), dtype=np.float64)
    for sub in published_subrecords(release):
        hit = sorted(pos[t] for t in sub if t in pos)
        for i, j in itertools.combinations(hit, 2):
            s_p[i, j] += 1
            s_p[j, i] += 1
    return _re_from(_pair_supports(original, terms), s_p)


def tlost(release: Release, original: TransactionDataset | None = None) -> float:
    """Share of the terms with support >= k that only term chunks hold (section 7.1).

    With ``original`` the supports are exact. Without it they are the release's lower bounds
    (section 6: occurrences in record and shared chunks plus one per term chunk holding the term),
    which can only undercount the lost terms. 0.0 when no term reaches support k.
    """
    k = release.k
    kept = {t for sub in published_subrecords(release) for t in sub}
    in_term_chunks = Counter(t for c in release.clusters for t in set(c.term_chunk))
    if original is not None:
        supports = original.supports()
    else:
        supports = Counter(t for sub in published_subrecords(release) for t in sub)
        supports.update(in_term_chunks)
    frequent = [t for t, n in supports.items() if n >= k]
    if not frequent:
        return 0.0
    lost = sum(1 for t in frequent if t in in_term_chunks and t not in kept)
    return lost / len(frequent)


@dataclass
class UtilityReport:
    """Information-loss figures of one release (Terrovitis2012 sections 6-7)."""

    tkd: float
    tkd_a: float
    re: float
    re_a: float
    tlost: float
    reconstructions: int
    seed: int
    top_k: int
    re_range: tuple[int, int]
    tkd_runs: list[float] = field(default_factory=list)
    re_runs: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["re_range"] = list(self.re_range)
        return out


def utility_report(original: TransactionDataset, release: Release, reconstructions: int = 1, seed: int = 0,
                   top_k: int = 1000, re_range: tuple[int, int] = (200, 220)) -> UtilityReport:
    """tKd, tKd-a, re, re-a and tlost of ``release`` against ``original``.

    Reconstruction i uses seed ``seed + i``. ``tkd`` is the mean over the reconstructions, ``re``
    uses their averaged pair supports (see the module docstring).
    """
    if reconstructions < 1:
        raise InputError(f"reconstructions must be at least 1, got {reconstructions}")
    if release.n_records != len(original):
        raise InputError(
            f"the release covers {release.n_records} records but the original dataset has {len(original)}"
        )
    terms = ranked_terms(original, re_range)
    fi = dataset_top_k(original, top_k)
    s_o = _pair_supports(original, terms)
    tkd_runs, re_runs, pair_runs = [], [], []
    for i in range(reconstructions):
        ds = reconstruct(release, seed=seed + i)
        tkd_runs.append(_tkd_from(fi, dataset_top_k(ds, top_k)))
        pairs = _pair_supports(ds, terms)
        pair_runs.append(pairs)
        re_runs.append(_re_from(s_o, pairs))
    return UtilityReport(
        tkd=float(np.mean(tkd_runs)),
        tkd_a=_tkd_from(fi, top_k_itemsets(published_subrecords(release), top_k)),
        re=_re_from(s_o, np.mean(pair_runs, axis=0)),
        re_a=re_a(original, release, re_range),
        tlost=tlost(release, original),
        reconstructions=reconstructions,
        seed=seed,
        top_k=top_k,
        re_range=(int(re_range[0]), int(re_range[1])),
        tkd_runs=tkd_runs,
        re_runs=re_runs,
    )
