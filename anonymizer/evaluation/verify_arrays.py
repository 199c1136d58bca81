"""Which chunks of a release read into arrays certainly pass k^m- and k-anonymity (Terrovitis2012 sections 3, 5).

The verifier (:mod:`anonymizer.evaluation.verify`) states its chunk conditions with the papers'
definitions (:mod:`anonymizer.model.conditions`: every itemset of 1..m terms of every sub-record
counted). On a release read into arrays (:class:`anonymizer.model.arrays.ReleaseArrays`, sub-records
sorted and distinct) the itemsets of all chunks are counted here at once, as integer keys
``(chunk, term_1, ..., term_s)`` sorted and run-length counted, one itemset size at a time; a chunk
whose every itemset reaches k sub-records passes, and only the others are handed to the
definitions, which name the failing itemsets. A passing chunk is one for which the definition
returns no violation, so the report is the same line for line (``tests/test_perf_verify.py`` holds
the two equal on random chunks).
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

__all__ = ["km_anonymous_chunks", "k_anonymous_chunks", "itemset_keys", "itemset_supports", "MAX_ITEMSETS"]

MAX_ITEMSETS = 1 << 25
"""At most this many itemsets of one size are counted at once; beyond it (or when the keys would not
fit 63 bits) the chunks are left to the definitions (``None``)."""


@cache
def _combinations(length: int, size: int) -> np.ndarray:
    return np.asarray(list(itertools.combinations(range(length), size)), dtype=np.int64).reshape(-1, size)


def _lengths(term_off: np.ndarray) -> np.ndarray:
    return np.diff(term_off)


def itemset_keys(owner: np.ndarray, starts: np.ndarray, lengths: np.ndarray, terms: np.ndarray, width: int,
                 size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every itemset of ``size`` terms of every sub-record ``i`` (sorted distinct term ids
    ``terms[starts[i]:starts[i] + lengths[i]]``) as the key ``(owner[i], term_1, ..., term_size)``
    in base ``width``, with the sub-record of each key. None when they are more than
    :data:`MAX_ITEMSETS` or the keys would not fit 63 bits."""
    if (int(owner.max()) + 1 if owner.size else 1) * float(width) ** size >= 2.0 ** 62:
        return None
    present = np.bincount(lengths) if lengths.size else np.zeros(0, dtype=np.int64)
    groups = [(n, np.flatnonzero(lengths == n)) for n in (np.flatnonzero(present[size:]) + size).tolist()]
    total = sum(len(idx) * len(_combinations(n, size)) for n, idx in groups)
    if total > MAX_ITEMSETS:
        return None
    keys = np.empty(total, dtype=np.int64)
    rows = np.empty(total, dtype=np.int64)
    at = 0
    for n, idx in groups:
        combos = _combinations(n, size)
        held = terms[starts[idx][:, None] + np.arange(n)].astype(np.int64)  # the sub-records of length n
        key = owner[idx][:, None]
        for col in range(size):
            key = key * width + held[:, combos[:, col]]
        keys[at:at + key.size] = key.ravel()
        rows[at:at + key.size] = np.repeat(idx, len(combos))
        at += key.size
    return keys, rows


def itemset_supports(sub_off: np.ndarray, term_off: np.ndarray, terms: np.ndarray, n_terms: int,
                     size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every itemset of ``size`` terms held in a chunk, as the sorted distinct keys ``(chunk, term_1,
    ..., term_size)`` in base ``max(n_terms, 1)`` (:func:`itemset_keys`), with the number of the
    chunk's sub-records holding it. None when the count is too large to do at once."""
    chunk_of_sub = np.repeat(np.arange(len(sub_off) - 1, dtype=np.int64), np.diff(sub_off))
    found = itemset_keys(chunk_of_sub, term_off[:-1], _lengths(term_off), terms, max(n_terms, 1), size)
    if found is None:
        return None
    keys = np.sort(found[0])
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if keys.size else keys
    return keys[starts], np.diff(np.append(starts, len(keys)))


def km_anonymous_chunks(sub_off: np.ndarray, term_off: np.ndarray, terms: np.ndarray, n_terms: int, k: int,
                        m: int) -> np.ndarray | None:
    """Per chunk (sub-records ``sub_off[c]:sub_off[c + 1]``, each's sorted distinct term ids
    ``terms[term_off[i]:term_off[i + 1]]``): True when every itemset of 1..m terms it holds sits in
    at least ``k`` of its sub-records. None when the count is too large to do at once."""
    ok = np.ones(len(sub_off) - 1, dtype=bool)
    if len(term_off) < 2:
        return ok
    width = max(n_terms, 1)
    for size in range(1, m + 1):
        found = itemset_supports(sub_off, term_off, terms, n_terms, size)
        if found is None:
            return None
        keys, support = found
        if not keys.size:
            break
        ok[keys[support < k] // width ** size] = False
    return ok


def k_anonymous_chunks(sub_off: np.ndarray, term_off: np.ndarray, terms: np.ndarray, k: int) -> np.ndarray:
    """Per chunk: True when every distinct sub-record it lists appears at least ``k`` times in it
    (sub-records of one length at a time: sorted by chunk and terms, equal neighbours counted)."""
    n_chunks = len(sub_off) - 1
    ok = np.ones(n_chunks, dtype=bool)
    lengths = _lengths(term_off)
    chunk_of_sub = np.repeat(np.arange(n_chunks, dtype=np.int64), np.diff(sub_off))
    for n in np.unique(lengths).tolist():
        idx = np.flatnonzero(lengths == n)
        rows = np.column_stack((chunk_of_sub[idx], terms[term_off[idx][:, None] + np.arange(n)]))
        rows = rows[np.lexsort(rows.T[::-1])]
        starts = np.flatnonzero(np.concatenate(([True], (rows[1:] != rows[:-1]).any(axis=1))))
        count = np.diff(np.append(starts, len(rows)))
        ok[rows[starts[count < k], 0]] = False
    return ok
