"""A seeded synthetic transaction generator in the spirit of IBM Quest (Agrawal & Srikant 1994).

Agrawal and Srikant's Quest generator ("Fast algorithms for mining association rules", VLDB 1994,
section 2.4.3) draws transaction sizes from a Poisson distribution around the average size and
builds each transaction from "potentially large itemsets" (patterns) so that frequent itemsets
exist. This module keeps those two ideas and adds the skewed term popularity of real query logs
(Terrovitis2012 section 7 runs disassociation on click-stream and query data of this kind):

1. Item popularity is Zipf-like: the item of popularity rank ``r`` (1-based) has weight
   ``1 / r**skew`` (``skew=0`` is uniform). Ranks are a seeded random permutation of the item ids,
   so popular items are spread over the vocabulary.
2. ``patterns`` potentially large itemsets are drawn: sizes ``1 + Poisson(pattern_length - 1)``
   (capped at ``domain``), items by popularity, and a pattern weight from an exponential
   distribution (as in Quest).
3. Every record gets a target length ``max(1, Poisson(avg_length))`` (capped at ``domain``). A
   share ``pattern_share`` of the records embeds one pattern, picked by pattern weight: a cyclic
   window of the pattern's sorted items, as long as the pattern or the record, whichever is
   shorter (Quest's "corruption" of a pattern, made deterministic per seed). The remaining
   positions are filled with items drawn by popularity.
4. Duplicate items in a record are dropped and re-drawn until every record has exactly its target
   length (after a few rounds the re-draws become uniform so that even extreme skew finishes).

Everything is vectorized with numpy and driven by ``numpy.random.default_rng(seed)``: the same
arguments give the same dataset. Items are named ``i0000``, ``i0001``, ... (zero-padded to a fixed
width, so the sorted vocabulary is in id order and the CSR arrays are built directly).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["generate_quest", "item_names"]

_POPULARITY_ROUNDS = 8  # re-draw rounds by popularity before switching to uniform re-draws
_MAX_ROUNDS = 200


def item_names(domain: int) -> tuple[str, ...]:
    """The vocabulary ``i0000 .. i{domain-1}``, zero-padded to at least 4 digits."""
    width = max(4, len(str(max(domain - 1, 0))))
    return tuple(f"i{i:0{width}d}" for i in range(domain))


def _check(name: str, value: float, low: float, integer: bool) -> None:
    if integer and (isinstance(value, bool) or not isinstance(value, int | np.integer)):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if not isinstance(value, int | float | np.integer | np.floating) or not np.isfinite(value):
        raise InputError(f"{name} must be a finite number, got {value!r}")
    if value < low:
        raise InputError(f"{name} must be at least {low}, got {value!r}")


def _exact_sets(
    target: np.ndarray,
    initial_rows: np.ndarray,
    initial_items: np.ndarray,
    domain: int,
    draw: Callable[[int], np.ndarray],
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(indptr, indices)`` with exactly ``target[row]`` distinct sorted items per row.

    Starts from the given (row, item) draws, drops duplicates and re-draws the missing items of
    short rows; ``target`` must not exceed ``domain``.
    """
    n = len(target)
    keys = np.sort(initial_rows * domain + initial_items)
    finished: list[np.ndarray] = []
    active = np.ones(n, dtype=bool)
    for rnd in range(_MAX_ROUNDS):
        if len(keys):
            keep = np.empty(len(keys), dtype=bool)
            keep[0] = True
            np.not_equal(keys[1:], keys[:-1], out=keep[1:])
            keys = keys[keep]
        key_rows = keys // domain
        counts = np.bincount(key_rows, minlength=n)
        short = active & (counts < target)
        done = ~short[key_rows]
        finished.append(keys[done])
        keys = keys[~done]
        rows_short = np.flatnonzero(short)
        if len(rows_short) == 0:
            break
        need = target[rows_short] - counts[rows_short]
        new_rows = np.repeat(rows_short, need)
        if rnd < _POPULARITY_ROUNDS:
            new_items = draw(len(new_rows))
        else:
            new_items = rng.integers(0, domain, size=len(new_rows))
        keys = np.sort(np.concatenate((keys, new_rows * domain + new_items)))
        active = np.zeros(n, dtype=bool)
        active[rows_short] = True
    else:  # pragma: no cover - uniform re-draws always finish long before this
        raise RuntimeError("synthetic generator did not converge")
    # scatter the finished pieces (each sorted, rows disjoint) into CSR order without a sort
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(target, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int64)
    for piece in finished:
        if not len(piece):
            continue
        piece_rows = piece // domain
        starts = np.concatenate(([0], np.flatnonzero(piece_rows[1:] != piece_rows[:-1]) + 1))
        first = np.repeat(starts, np.diff(np.concatenate((starts, [len(piece)]))))
        indices[indptr[piece_rows] + (np.arange(len(piece)) - first)] = piece - piece_rows * domain
    return indptr, indices


def _inverse_cdf_sampler(cdf: np.ndarray, rng: np.random.Generator) -> Callable[[int], np.ndarray]:
    """``draw(n)``: n items with ``P(item i) = cdf[i] - cdf[i-1]``, by inversion with a guide table.

    Gives exactly ``searchsorted(cdf, u, side="right")`` for uniform ``u`` but starts each search at
    a precomputed guide index (Chen's guide-table method), so it costs O(1) expected per draw.
    """
    last = len(cdf) - 1
    buckets = 4 * len(cdf)
    guide = np.searchsorted(cdf, np.arange(buckets) / buckets, side="right")

    def draw(size: int) -> np.ndarray:
        u = rng.random(size)
        idx = np.minimum(guide[(u * buckets).astype(np.int64)], last)
        todo = np.flatnonzero((cdf[idx] <= u) & (idx < last))
        while len(todo):
            idx[todo] += 1
            todo = todo[(cdf[idx[todo]] <= u[todo]) & (idx[todo] < last)]
        return idx

    return draw


def generate_quest(
    records: int,
    domain: int,
    avg_length: float,
    skew: float = 1.0,
    seed: int = 0,
    patterns: int | None = None,
    pattern_length: float = 4.0,
    pattern_share: float = 0.5,
    name: str | None = None,
) -> TransactionDataset:
    """Generate ``records`` transactions over ``domain`` items (see the module doc for the model).

    ``avg_length`` is the Poisson mean of the record length (records hold at least one item, so
    the realised average is slightly above it when ``avg_length`` is small); ``skew`` the Zipf
    exponent of item popularity; ``patterns`` the number of potentially large itemsets (default
    ``min(1000, max(1, domain // 5))``; 0 disables them); ``pattern_length`` their average size;
    ``pattern_share`` the share of records that embed one. Same arguments, same dataset.
    """
    _check("records", records, 1, True)
    _check("domain", domain, 1, True)
    _check("avg_length", avg_length, 0, False)
    _check("skew", skew, 0, False)
    _check("seed", seed, 0, True)
    _check("pattern_length", pattern_length, 1, False)
    _check("pattern_share", pattern_share, 0, False)
    if avg_length <= 0:
        raise InputError(f"avg_length must be positive, got {avg_length!r}")
    if avg_length > domain:
        raise InputError(f"avg_length {avg_length} exceeds the domain of {domain} distinct items")
    if pattern_share > 1:
        raise InputError(f"pattern_share must be between 0 and 1, got {pattern_share!r}")
    if patterns is None:
        patterns = min(1000, max(1, domain // 5))
    _check("patterns", patterns, 0, True)
    records, domain, seed, patterns = int(records), int(domain), int(seed), int(patterns)

    rng = np.random.default_rng(seed)
    rank_of_item = rng.permutation(domain)
    weights = 1.0 / np.power(rank_of_item + 1.0, float(skew))
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]

    draw = _inverse_cdf_sampler(cdf, rng)

    target = np.minimum(np.maximum(rng.poisson(avg_length, size=records), 1), domain).astype(np.int64)
    rows = np.zeros(0, dtype=np.int64)
    items = np.zeros(0, dtype=np.int64)
    if patterns > 0 and pattern_share > 0:
        p_len = np.minimum(1 + rng.poisson(pattern_length - 1, size=patterns), domain).astype(np.int64)
        p_ptr, p_items = _exact_sets(p_len, np.repeat(np.arange(patterns, dtype=np.int64), p_len),
                                     draw(int(p_len.sum())), domain, draw, rng)
        p_weight = rng.exponential(1.0, size=patterns)
        p_cdf = np.cumsum(p_weight) / p_weight.sum()
        chosen = np.flatnonzero(rng.random(records) < pattern_share)
        which = np.minimum(np.searchsorted(p_cdf, rng.random(len(chosen)), side="right"), patterns - 1)
        take = np.minimum(p_len[which], target[chosen])
        shift = (rng.random(len(chosen)) * p_len[which]).astype(np.int64)
        rows = np.repeat(chosen, take)
        # position j of a record's window: (shift + j) mod pattern length, inside that pattern
        first = np.repeat(np.cumsum(take) - take, take)
        j = np.arange(len(rows), dtype=np.int64) - first
        pat = np.repeat(which, take)
        items = p_items[p_ptr[pat] + (np.repeat(shift, take) + j) % p_len[pat]]
    filled = np.bincount(rows, minlength=records)
    rest = target - filled
    rows = np.concatenate((rows, np.repeat(np.arange(records, dtype=np.int64), rest)))
    items = np.concatenate((items, draw(int(rest.sum()))))
    indptr, indices = _exact_sets(target, rows, items, domain, draw, rng)
    indices = indices.astype(np.int32)
    params = {"generator": "quest", "records": records, "domain": domain, "avg_length": float(avg_length),
              "skew": float(skew), "seed": seed, "patterns": patterns,
              "pattern_length": float(pattern_length), "pattern_share": float(pattern_share)}
    label = name if name is not None else (
        f"synthetic:records={records},domain={domain},avg_length={avg_length:g},skew={skew:g},seed={seed}")
    return TransactionDataset(item_names(domain), indptr, indices, name=label, metadata=params)
