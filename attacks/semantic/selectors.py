"""Selection step of the semantic attack: ABA, RGA, MRA, assign, random (AlShuhail2021 4.2.2-4.3).

The scoring step (Algorithm 4) gives, for one cluster, a matrix ``S`` of relatedness scores between
every term of the pieces to place (sub-records of record chunks C_2..C_n, terms of the term chunk)
and every term of the anchors (the sub-records of the anchoring chunk C_1). The selectors turn
``S`` into one score per (piece, anchor) and rank the anchors:

* first, for every anchor term, the piece's score is the **mean over the piece's terms** (a term
  piece has one term). This is how the thesis's worked example computes its tables: e.g. RGA's
  0.36 for (tumor, biopsy) against (blood, treatment, lung) in Table 4.7 is the median split of the
  per-anchor-term means 0.235, 0.305, 0.42 (printed truncated to two decimals);
* **ABA** (Algorithm 6, equation 4.3): the mean of those values over the anchor's terms;
* **RGA** (Algorithm 7, equation 4.5): the median of those values over the anchor's terms is the
  division indicator; the anchor terms scoring at least the median form the related group, whose
  mean is the anchor's score;
* **MRA** (Algorithm 8): the maximum of those values over the anchor's terms.

Pairs without a score (``nan``: an unknown term under the ``"skip"`` policy) are left out of every
mean, median and maximum; an anchor with no scored pair at all (in particular an *empty* anchor: a
record whose C_1 sub-record is empty) has no evidence and ranks after every anchor with evidence.

Ranking: anchors from most to least related; ties (scores equal after rounding to 9 decimals, so
floating-point noise does not break a tie) go to the first anchor in listed order. The thesis says
so for RGA and MRA only ("chooses the first ASR with the best semantic score", sections 4.3.2-4.3.3);
Algorithm 6 (ABA) states no tie rule, so for ABA listed order is this implementation's choice.
Identical anchors get identical scores, which is why a term's k-1 copies pile on the first of them
(``ABA-spread`` below is the named departure that spreads them). A sub-record listed ``c`` times in
its chunk goes to the ``c`` best anchors
(Algorithm 6 lines 5-9); a term-chunk term to the ``k - 1`` best (lines 11-14), capped at the
cluster size. Different sub-records of one chunk are placed independently, as in the thesis, so
two of them may land on the same anchor. The extra selector ``assign`` (not in the thesis) removes
that: each chunk's listed sub-records go to *distinct* anchors maximizing the total ABA score
(``scipy.optimize.linear_sum_assignment``; an anchor without evidence counts as score -1).
``ABA-spread`` (a labelled departure, not in the thesis) ranks like ABA but gives a term-chunk
term's ``k - 1`` copies to anchors of *distinct* C_1 content in rank order (a copy on a second
anchor identical to one already chosen adds nothing anyone can tell apart; see
:func:`spread_anchors`); record chunks are placed as under ABA.
``random`` (the thesis's baseline, section 5.2) gives each chunk's sub-records distinct uniformly
random anchors and each term ``k - 1`` distinct random anchors.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from corpora.common.errors import InputError

__all__ = [
    "SELECTORS",
    "SCORING_SELECTORS",
    "anchor_scores",
    "per_anchor_term_scores",
    "rank_anchors",
    "top_anchors",
    "top_anchors_rows",
    "assign_distinct",
    "distinct_pieces",
    "random_distinct",
    "spread_anchors",
]

SELECTORS = ("ABA", "RGA", "MRA", "VPA", "assign", "ABA-spread", "random")
SCORING_SELECTORS = ("ABA", "RGA", "MRA")
NO_EVIDENCE_ASSIGN = -1.0


def per_anchor_term_scores(
    S: np.ndarray, piece_terms: Sequence[Sequence[int]], decimals: int | None = None
) -> np.ndarray:
    """For each piece and each anchor term, the mean score over the piece's terms.

    ``S`` has one row per distinct piece term and one column per distinct anchor term;
    ``piece_terms[p]`` lists the rows of piece p. ``nan`` entries are skipped; a cell with no
    scored pair is ``nan``. ``decimals`` truncates the means (the thesis's tables print these
    intermediate means truncated to two decimals; ``None`` keeps full precision).
    """
    n_p, n_rows = len(piece_terms), S.shape[0]
    lengths = np.fromiter((len(rows) for rows in piece_terms), dtype=np.int64, count=n_p)
    flat = np.fromiter((r for rows in piece_terms for r in rows), dtype=np.int64, count=int(lengths.sum()))
    if n_p and (lengths == 1).all():
        T = S[flat].astype(float, copy=True)  # one term per piece: its own row
    else:
        inc = sp.csr_matrix((np.ones(len(flat)), flat, np.concatenate([[0], np.cumsum(lengths)])), shape=(n_p, n_rows))
        valid = ~np.isnan(S)
        total = np.asarray(inc @ np.where(valid, S, 0.0))
        count = np.asarray(inc @ valid.astype(float))
        with np.errstate(invalid="ignore", divide="ignore"):
            T = np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)
    if decimals is not None:
        scale = 10.0**decimals
        T = np.floor(T * scale + 1e-9) / scale
    return T


def anchor_scores(
    method: str,
    S: np.ndarray,
    piece_terms: Sequence[Sequence[int]],
    anchor_terms: Sequence[Sequence[int]],
    decimals: int | None = None,
) -> np.ndarray:
    """Score of every (piece, anchor) pair under ABA, RGA or MRA; ``nan`` = no evidence.

    ``anchor_terms[a]`` lists the columns of ``S`` holding anchor a's terms (empty for an empty
    anchor). Returns an array of shape (len(piece_terms), len(anchor_terms)).
    """
    if method not in SCORING_SELECTORS:
        raise InputError(f"selector {method!r} does not score anchors; choose ABA, RGA or MRA")
    T = per_anchor_term_scores(S, piece_terms, decimals)
    n_p, n_a = len(piece_terms), len(anchor_terms)
    width = max([len(a) for a in anchor_terms] + [1])
    idx = np.full((n_a, width), -1, dtype=np.int64)
    for a, cols in enumerate(anchor_terms):
        idx[a, : len(cols)] = list(cols)
    if T.shape[1] == 0:
        return np.full((n_p, n_a), np.nan)
    G = T[:, np.maximum(idx, 0)]  # (pieces, anchors, width)
    G = np.where((idx < 0)[None, :, :], np.nan, G)
    valid = ~np.isnan(G)
    count = valid.sum(axis=2)
    has = count > 0
    if method == "ABA":
        total = np.where(valid, G, 0.0).sum(axis=2)
        return np.where(has, total / np.maximum(count, 1), np.nan)
    if method == "MRA":
        best = np.where(valid, G, -np.inf).max(axis=2)
        return np.where(has, best, np.nan)
    # RGA: equation 4.5 median of the anchor's term scores, then the mean of those >= it.
    ordered = np.sort(G, axis=2)  # nan sorts last
    lo = np.maximum((count - 1) // 2, 0)
    hi = np.maximum(count // 2, 0)
    hi = np.minimum(hi, width - 1)
    med = (
        np.take_along_axis(ordered, lo[..., None], 2)[..., 0] + np.take_along_axis(ordered, hi[..., None], 2)[..., 0]
    ) / 2
    # For odd counts lo == hi; for even counts the two middle values are averaged.
    related = valid & (G >= med[..., None] - 1e-12)
    rsum = np.where(related, G, 0.0).sum(axis=2)
    rcount = related.sum(axis=2)
    return np.where(has & (rcount > 0), rsum / np.maximum(rcount, 1), np.nan)


def rank_anchors(scores: np.ndarray) -> np.ndarray:
    """Anchor indices from most to least related; ``nan`` last; ties keep listed order."""
    s = np.asarray(scores, dtype=float)
    key = np.where(np.isnan(s), np.inf, -np.round(s, 9))
    return np.argsort(key, kind="stable")


def top_anchors(scores: np.ndarray, count: int) -> list[int]:
    """The ``count`` best anchors (see :func:`rank_anchors`)."""
    return [int(a) for a in rank_anchors(scores)[: max(0, count)]]


def top_anchors_rows(scores: np.ndarray, count: int) -> np.ndarray:
    """:func:`top_anchors` for every row of a (pieces x anchors) matrix at once."""
    s = np.asarray(scores, dtype=float)
    key = np.where(np.isnan(s), np.inf, -np.round(s, 9))
    return np.argsort(key, axis=1, kind="stable")[:, : max(0, count)]


def assign_distinct(scores: np.ndarray) -> list[int]:
    """Distinct anchors for the rows (listed pieces) maximizing the total score.

    ``scores`` has one row per listed piece and one column per anchor (rows <= columns); ``nan``
    counts as :data:`NO_EVIDENCE_ASSIGN`.
    """
    from scipy.optimize import linear_sum_assignment  # here: scipy.optimize takes half a second to import

    s = np.where(np.isnan(scores), NO_EVIDENCE_ASSIGN, np.round(scores, 9))
    if s.shape[0] > s.shape[1]:
        raise InputError(f"assign: {s.shape[0]} sub-records but only {s.shape[1]} records in the cluster")
    rows, cols = linear_sum_assignment(s, maximize=True)
    out = [0] * s.shape[0]
    for r, c in zip(rows, cols, strict=True):
        out[int(r)] = int(c)
    return out


def random_distinct(rng: np.random.Generator, n_pieces: int, n_anchors: int) -> list[int]:
    """Distinct uniformly random anchors for ``n_pieces`` pieces."""
    if n_pieces > n_anchors:
        raise InputError(f"random: {n_pieces} pieces but only {n_anchors} records in the cluster")
    return [int(a) for a in rng.permutation(n_anchors)[:n_pieces]]


def spread_anchors(ranked: Sequence[int], contents: Sequence[object], count: int) -> list[int]:
    """The first ``count`` anchors of ``ranked`` whose contents differ; when fewer distinct contents
    exist, the rest in rank order among the skipped ones (the ``ABA-spread`` placement)."""
    chosen: list[int] = []
    seen: set[object] = set()
    skipped: list[int] = []
    for a in ranked:
        if len(chosen) >= count:
            break
        key = contents[a]
        if key in seen:
            skipped.append(int(a))
        else:
            seen.add(key)
            chosen.append(int(a))
    for a in skipped:
        if len(chosen) >= count:
            break
        chosen.append(a)
    if len(chosen) < count:
        rest = [int(a) for a in ranked if int(a) not in chosen]
        chosen += rest[: count - len(chosen)]
    return chosen


def distinct_pieces(chunk: Sequence[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[list[int]]]:
    """Distinct sub-records in first-listed order and the listed positions of each."""
    where: dict[tuple[str, ...], list[int]] = {}
    for p, sub in enumerate(chunk):
        where.setdefault(tuple(sub), []).append(p)
    return list(where), list(where.values())
