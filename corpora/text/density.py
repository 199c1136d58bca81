"""Reaching a type-token density (AlShuhail2021 section 5.1.1, equation 5.1: distinct terms / all term occurrences).

The thesis gives no procedure; these are ours. Let D0 be the density of the full transactions.
Two levers exist: transaction lengths and the set of documents (:func:`density_search`).

- Target below D0: drop the terms held by the fewest documents, so the remaining terms are shared
  vocabulary. Terms are ordered by document frequency, then by their summed TF-IDF weight
  (least informative first), then alphabetically; dropping the first j terms gives density
  (V - j) / (T - sum of their frequencies), computed for every j at once, and the first j at or
  below the target (or the closer neighbour) is taken. Documents left without terms are dropped
  and counted. Method ``drop-rare-terms``.
- Target at or above D0: shorten transactions to their best TF-IDF terms; fewer occurrences of
  mostly distinctive terms raise the ratio. For m documents the lengths are set by one integer s
  (from m, one term per document, up to m times the longest transaction): document i keeps its
  ``s // m`` best terms, plus one more when i < ``s % m``. Bisection on s finds where the
  density crosses the target (each step of s changes it by about one over the number of
  occurrences) and the closer side is taken. Many documents sharing their best terms limit how
  high truncation alone can go (one term per document), and very short transactions carry few
  associations, so the documents are chosen too: the documents are put in a seeded order and
  prefixes of it are tried, all documents first, then 85 %, 85 % of that, ... down to one
  document; each prefix gets its own length search (or rare-term dropping if its density is
  already above the target). Among the results within 0.005 of the target the one keeping the
  most term occurrences wins, ties to more documents (if none is that close, the closest within
  the tolerance). Method ``tfidf-truncation`` when all documents stay,
  ``fewer-documents+<method>`` otherwise (``documents_kept`` in the metadata).
- A target that cannot be reached within the tolerance raises :class:`InputError` naming the
  reachable end (rare-term dropping has a lowest density: about one over the number of
  documents; high targets are reached with few documents).

The thesis pipeline (:mod:`corpora.text.thesis`) reaches a density by choosing whole documents
instead, never dropping a term: :func:`select_documents_for_density`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from corpora.common.errors import InputError
from corpora.text.parameters import CLOSE, DENSITY_TOLERANCE

__all__ = ["DensityChoice", "density_of", "density_search", "select_documents_for_density"]


@dataclass(frozen=True)
class DensityChoice:
    """How a density was reached: the method, the result and the method's parameters.

    ``keep`` holds, per document, the number of its best terms kept (``tfidf-truncation`` or
    ``full``); ``dropped_terms`` the term ids removed everywhere (``drop-rare-terms``).
    """

    method: str
    target: float | None
    reached: float
    full_density: float
    keep: tuple[int, ...]
    dropped_terms: frozenset[int] = frozenset()
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "reached": self.reached, "tolerance": DENSITY_TOLERANCE,
                               "method": self.method, "full_density": self.full_density}
        out.update(self.details)
        return out


def density_of(distinct: int, occurrences: int) -> float:
    """Distinct terms / term occurrences (0.0 without occurrences)."""
    return distinct / occurrences if occurrences else 0.0


def density_search(transactions: Sequence[Sequence[int]], weights: Sequence[Sequence[float]],
                   target: float | None, n_terms: int, label: str = "the documents",
                   seed: int | None = None) -> DensityChoice:
    """Choose transaction lengths or dropped terms so the density is within 0.02 of ``target``.

    ``transactions`` hold term ids (``0..n_terms-1``) ranked best first, ``weights`` their TF-IDF
    scores. The method is described in the module docstring; ``target=None`` keeps everything.
    With a ``seed``, a target at or above the full density is searched over seeded-order
    prefixes of the documents too (fewer documents, longer transactions); a document left out
    has ``keep`` 0. Without a seed all documents stay.
    """
    n = len(transactions)
    lengths = np.array([len(t) for t in transactions], dtype=np.int64)
    if n == 0 or lengths.min(initial=1) == 0:
        raise InputError(f"{label}: no document may be empty")
    terms = np.concatenate([np.asarray(t, dtype=np.int64) for t in transactions])
    doc = np.repeat(np.arange(n), lengths)
    rank = np.arange(len(terms)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    full = density_of(int(np.count_nonzero(np.bincount(terms, minlength=n_terms))), len(terms))
    keep_all = tuple(int(x) for x in lengths)
    if target is None:
        return DensityChoice("full", None, full, full, keep_all)

    def caps_for(s: int) -> np.ndarray:
        caps = np.full(n, s // n, dtype=np.int64)
        caps[: s % n] += 1
        return np.minimum(caps, lengths)

    def density_at(s: int) -> float:
        mask = rank < caps_for(s)[doc]
        kept = terms[mask]
        return density_of(int(np.count_nonzero(np.bincount(kept, minlength=n_terms))), len(kept))

    s_min, s_max = n, n * int(lengths.max())
    if target >= full:
        if seed is not None:
            return _best_document_prefix(transactions, weights, target, n_terms, label, seed, full)
        highest = density_at(s_min)
        if max(highest, full) < target - DENSITY_TOLERANCE:
            raise InputError(f"{label}: density {target} is out of reach; shortening transactions gets no "
                             f"higher than {max(highest, full):.3f}")
        lo, hi = s_min, s_max  # density_at(lo) >= target, density_at(hi) <= target: a crossing between
        if full >= target:  # the full transactions are exactly on target
            lo = hi
        elif highest < target:  # no crossing known: take the better end
            lo = hi = s_min if highest > full else s_max
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if density_at(mid) > target:
                lo = mid
            else:
                hi = mid
        best = min((lo, hi), key=lambda s: (abs(density_at(s) - target), -s))
        reached = density_at(best)
        caps = caps_for(best)
        details = {"cap": int(best // n), "documents_with_one_more": int(best % n),
                   "occurrences_kept": int(caps.sum()), "occurrences_full": int(lengths.sum())}
        choice = DensityChoice("tfidf-truncation", target, reached, full, tuple(int(c) for c in caps),
                               details=details)
    else:
        df = np.bincount(terms, minlength=n_terms)
        weight = np.bincount(terms, weights=np.concatenate([np.asarray(w, float) for w in weights]),
                             minlength=n_terms)
        present = np.flatnonzero(df)
        order = present[np.lexsort((present, weight[present], df[present]))]
        dropped_occ = np.concatenate(([0], np.cumsum(df[order])))[:-1]  # keep at least one term
        j = np.arange(len(order))
        dens = (len(order) - j) / (len(terms) - dropped_occ)
        below = np.flatnonzero(dens <= target)
        if below.size:
            first = int(below[0])
            candidates = [first - 1, first] if first > 0 else [first]
            best = min(candidates, key=lambda k: (abs(dens[k] - target), k))
        else:
            best = int(np.argmin(np.abs(dens - target)))
        reached = float(dens[best])
        if abs(reached - target) > DENSITY_TOLERANCE + 1e-12:
            raise InputError(f"{label}: density {target} is out of reach; dropping rare terms gets no lower "
                             f"than {float(dens.min()):.3f}")
        dropped = order[:best]
        dropped_mask = np.zeros(n_terms, dtype=bool)
        dropped_mask[dropped] = True
        remaining = np.bincount(doc[~dropped_mask[terms]], minlength=n)
        details = {"dropped_terms": int(best),
                   "max_dropped_document_frequency": int(df[dropped].max()) if best else 0,
                   "occurrences_kept": int(len(terms) - dropped_occ[best]),
                   "occurrences_full": int(len(terms)),
                   "emptied_documents": int(np.count_nonzero(remaining == 0))}
        choice = DensityChoice("drop-rare-terms", target, reached, full, keep_all,
                               frozenset(int(t) for t in dropped), details)
    if abs(choice.reached - target) > DENSITY_TOLERANCE + 1e-12:
        raise InputError(f"{label}: density {target} is out of reach; the closest is {choice.reached:.3f}")
    return choice


def _best_document_prefix(transactions: Sequence[Sequence[int]], weights: Sequence[Sequence[float]],
                          target: float, n_terms: int, label: str, seed: int, full: float) -> DensityChoice:
    """The length search on seeded-order prefixes of the documents; the best prefix wins.

    Prefix sizes n, 0.85 n, 0.85^2 n, ... 1 are tried. A result within :data:`CLOSE` of the
    target beats any farther one; among those, the most term occurrences win, then more
    documents; if none is that close, the closest wins. With all documents the method is the
    plain one, otherwise ``fewer-documents+<method>``.
    """
    n = len(transactions)
    order = np.random.default_rng(seed).permutation(n)
    sizes = sorted({max(1, round(n * 0.85 ** k)) for k in range(int(math.log(n) / -math.log(0.85)) + 2)},
                   reverse=True)
    best: tuple[tuple[bool, float, int], DensityChoice, list[int]] | None = None
    for m in sizes:
        chosen = list(range(n)) if m == n else sorted(int(i) for i in order[:m])
        try:
            inner = density_search([transactions[i] for i in chosen], [weights[i] for i in chosen], target,
                                   n_terms, label, seed=None)
        except InputError:
            continue
        gap = abs(inner.reached - target)
        close = gap <= CLOSE
        key = (close, float(inner.details["occurrences_kept"]) if close else -gap, m)
        if best is None or key > best[0]:
            best = (key, inner, chosen)
    if best is None:
        raise InputError(f"{label}: density {target} is out of reach, also with fewer documents")
    key, inner, chosen = best
    m = key[2]
    if m == n:
        return inner
    keep = [0] * n
    for pos, i in enumerate(chosen):
        keep[i] = inner.keep[pos]
    details = {"documents_kept": m, "documents_left_out": n - m, **inner.details}
    return DensityChoice(f"fewer-documents+{inner.method}", target, inner.reached, full, tuple(keep),
                         inner.dropped_terms, details)


def select_documents_for_density(
    docs: Sequence[Sequence[int]], n_terms: int, target: float, count: int, topics: Sequence[int], seed: int
) -> list[int]:
    """Choose ``count`` of the documents (term-id lists) so that their type-token density ends near
    ``target`` (AlShuhail2021 5.3.2: "subsets of documents have been selected ... with average density
    levels ranging from 0.2 to 0.7"; the thesis gives no procedure, this greedy one is ours).

    Start from a seeded random document; then add, one at a time, the document whose addition puts
    the density of the chosen set closest to the target (distinct terms / occurrences, computed for
    every candidate at once with one sparse product against the terms not seen yet). Candidates
    within 0.001 of the best are equal; among them the one whose NMF topic (``topics``) is used
    least so far wins, so the set spans as many topics as the density allows, then a seeded random
    order. Terms are never dropped: every chosen document keeps all its terms.
    """
    n = len(docs)
    if count > n:
        raise InputError(f"{count} transactions requested but only {n} documents qualify")
    lengths = np.array([len(d) for d in docs], dtype=np.float64)
    indptr = np.concatenate([[0], np.cumsum([len(d) for d in docs])])
    indices = np.concatenate([np.asarray(d, dtype=np.int64) for d in docs]) if n else np.zeros(0, np.int64)
    X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(n, n_terms))
    rng = np.random.default_rng(seed)
    tiebreak = rng.random(n)
    topic = np.asarray(topics, dtype=np.int64)
    used_topic: Counter[int] = Counter()
    unseen = np.ones(n_terms)
    free = np.ones(n, dtype=bool)
    first = int(rng.integers(n))
    chosen = [first]
    free[first] = False
    unseen[np.asarray(docs[first], dtype=np.int64)] = 0.0
    distinct, occurrences = float(len(set(docs[first]))), float(lengths[first])
    used_topic[int(topic[first])] += 1
    for _step in range(count - 1):
        new = X @ unseen
        dens = (distinct + new) / (occurrences + lengths)
        gap = np.where(free, np.abs(dens - target), np.inf)
        best = gap.min()
        near = np.flatnonzero(gap <= best + 1e-3)
        use = np.array([used_topic[int(topic[i])] for i in near])
        near = near[use == use.min()]
        pick = int(near[np.argmin(tiebreak[near])])
        chosen.append(pick)
        free[pick] = False
        distinct += float(new[pick])
        occurrences += float(lengths[pick])
        unseen[np.asarray(docs[pick], dtype=np.int64)] = 0.0
        used_topic[int(topic[pick])] += 1
    return chosen
