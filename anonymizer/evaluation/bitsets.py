"""Row bitsets and tid-lists of a CSR dataset: the counting primitives of the top-K search and of the supports of
given itemsets (:mod:`anonymizer.evaluation.topk`).

A bitset holds bit ``i % 64`` of word ``i // 64`` for record i; a tid-list is the sorted records holding a term.
"""

from __future__ import annotations

import numpy as np

from corpora.dataset import TransactionDataset

__all__ = ["has_bit", "in_sorted", "intersect_sorted", "itemset_supports_by_tids", "row_bitsets", "term_bitsets"]


def in_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether each value of sorted ``a`` is in sorted ``b`` (binary search, no sort)."""
    if b.size == 0:
        return np.zeros(a.size, dtype=bool)
    pos = np.searchsorted(b, a)
    pos[pos == b.size] = 0
    return b[pos] == a


def intersect_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Common values of two sorted arrays of distinct values (binary search, no sort)."""
    if a.size > b.size:
        a, b = b, a
    if a.size == 0:
        return a
    return a[in_sorted(a, b)]


def has_bit(bits: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Whether each row's bit is set in one bitset (bit ``i % 64`` of word ``i // 64`` for row i)."""
    return (bits[rows >> 6] >> (rows & 63).astype(np.uint64)) & np.uint64(1) == 1


def row_bitsets(sets: np.ndarray, rows: np.ndarray, n_rows: int, n_sets: int) -> np.ndarray:
    """Bitsets (n_sets x ceil(n_rows / 64) words) holding bit ``row`` of set ``set`` for each pair of ``sets`` and
    ``rows`` (any order, repeats allowed). Pairs sorted by set then row (a CSR's column lists) are ORed one word at a
    time (one ``reduceat``), others by one unbuffered OR per pair."""
    words = (n_rows + 63) // 64
    bits = np.zeros(n_sets * words, dtype=np.uint64)
    if sets.size:
        key = sets * words + (rows >> 6)
        one = np.left_shift(np.uint64(1), (rows & 63).astype(np.uint64))
        if bool(np.all(key[1:] >= key[:-1])):
            first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
            bits[key[first]] = np.bitwise_or.reduceat(one, first)
        else:
            np.bitwise_or.at(bits, key, one)
    return bits.reshape(n_sets, words)


def term_bitsets(ds: TransactionDataset, terms: np.ndarray) -> np.ndarray:
    """The row bitsets of the term ids ``terms`` of ``ds`` (distinct, sorted): bit ``i % 64`` of word ``i // 64`` of
    row j is set when record i holds ``terms[j]``."""
    slot = np.full(len(ds.vocabulary), -1, dtype=np.int64)
    slot[terms] = np.arange(terms.size)
    at = slot[ds.indices]
    mine = at >= 0
    at = at[mine]
    rows = np.repeat(np.arange(len(ds), dtype=np.int64), np.diff(ds.indptr))[mine]
    return row_bitsets(at, rows, max(len(ds), 1), terms.size)


def itemset_supports_by_tids(ds: TransactionDataset, asked: list[list[int]]) -> list[int]:
    """The supports of the itemsets of term ids ``asked`` (-1: a term ``ds`` lacks) by intersecting sorted tid-lists
    (the columns of a CSC matrix): :func:`anonymizer.evaluation.topk.itemset_supports` on data whose bitsets would be
    too large."""
    csc = ds.matrix().tocsc()
    csc.sort_indices()
    ptr, rows = csc.indptr, csc.indices
    out: list[int] = []
    for cols in asked:
        if not cols or min(cols) < 0:
            out.append(0)
            continue
        cols = sorted(cols, key=lambda j: ptr[j + 1] - ptr[j])
        got = rows[ptr[cols[0]]:ptr[cols[0] + 1]]
        for j in cols[1:]:
            if got.size == 0:
                break
            got = intersect_sorted(got, rows[ptr[j]:ptr[j + 1]])
        out.append(int(got.size))
    return out
