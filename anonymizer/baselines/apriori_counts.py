"""The counting side of Apriori Anonymization (:mod:`anonymizer.baselines.apriori`): the data published
under a cut and its unsafe itemsets, on arrays, never one record at a time in Python.

* :func:`row_sorted_leaves`: every record's items as leaf-order positions, ascending within the record.
  A cut maps leaves to nodes monotonically (the cut's subtrees are disjoint preorder ranges), so the
  published nodes of a record come out ascending too and :func:`publish` drops repeats by comparing
  neighbours (no sort per pass).
* :func:`unsafe_itemsets`: the i-itemsets of the published data held by 1..k-1 records, in the
  order of the count tree (lexicographic by preorder id), as an ``(n, i)`` array. Given ``new``
  (the nodes that entered the cut during the previous pass of the same round) only the itemsets
  holding a new node are counted: every unsafe itemset of the previous pass lost a node from the
  cut during that pass (it was fixed, which lifts one of its nodes, or skipped because one had been
  lifted), and the support of an itemset of cut nodes does not depend on the rest of the cut, so
  an itemset of old nodes that is still in the cut is safe. The counts stay on the records that
  hold a new node.
  Counting enumerates every counted record's i-combinations (records grouped by length, numpy
  blocks) as integer keys over the nodes in use, and counts the keys in one table when the key
  space is small, else by sorting batches of keys. Its output comes out in key order, which is the
  count tree's order (a sparse Gram for pairs did the same work per record twice, in a sizing pass
  and the product, and then had its output sorted).
* :func:`sorted_labelled_records`: the release's records (sorted distinct labels, the records sorted)
  from the published arrays, ordered by label ranks without comparing strings per record.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np

from corpora.common.errors import InputError

__all__ = ["MAX_COMBINATIONS", "row_sorted_leaves", "publish", "unsafe_itemsets", "sorted_labelled_records",
           "lexicographic_order"]

MAX_COMBINATIONS = 200_000_000
"""Most itemset occurrences (sum over records of C(length, i)) counted in one pass for i >= 3."""

_BLOCK = 2_000_000
"""Combinations enumerated in one numpy block (records of one length)."""

DENSE_KEYS = 1 << 22
"""Largest key space (nodes in use to the power i) counted in one table; a larger one is counted by sorting."""

TABLE_KEYS = 1 << 25
"""Largest key space counted in a table of 32-bit counts fed by sorted batches (128 MiB); a larger one merges
the batches' runs."""

SORT_BATCH = 1 << 24
"""Most keys sorted at once when counting by sorting."""


def row_sorted_leaves(indptr: np.ndarray, indices: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row of every entry, leaf of every entry) with each row's leaves ascending; rows as in ``indptr``."""
    n_rows = indptr.size - 1
    row = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(indptr))
    leaf = positions[indices.astype(np.int64)] if indices.size else np.zeros(0, dtype=np.int64)
    if leaf.size > 1:
        same_row = row[1:] == row[:-1]
        if bool(np.any(same_row & (leaf[1:] < leaf[:-1]))):
            width = int(positions.max()) + 1
            key = np.sort(row * width + leaf)
            leaf = key - row * width
    return row, leaf


def publish(row: np.ndarray, leaf: np.ndarray, gen: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(row pointer, nodes) of the data published under ``gen``: each record's distinct nodes, ascending."""
    nodes = gen[leaf]
    keep = np.ones(nodes.size, dtype=bool)
    if nodes.size > 1:
        np.not_equal(nodes[1:], nodes[:-1], out=keep[1:])
        keep[1:] |= row[1:] != row[:-1]
    nodes = nodes[keep]
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row[keep], minlength=n_rows), out=ptr[1:])
    return ptr, nodes


def unsafe_itemsets(ptr: np.ndarray, nodes: np.ndarray, n_nodes: int, i: int, k: int,
                    new: np.ndarray | None = None) -> np.ndarray:
    """The published i-itemsets with support 1..k-1 (those holding a node of ``new`` only, when given)."""
    if i == 1:
        counts = np.bincount(nodes, minlength=n_nodes)
        bad = (counts > 0) & (counts < k)
        if new is not None:
            bad &= new
        return np.flatnonzero(bad).astype(np.int64)[:, None]
    if i >= 3:
        _check_enumeration(ptr, nodes, i)
    counted = _counted_rows(ptr, nodes, i, new)
    used = np.flatnonzero(np.bincount(nodes[np.repeat(counted, np.diff(ptr))], minlength=n_nodes))
    width = max(int(used.size), 1)
    small = width ** i < 2**31  # 32-bit keys: half the memory traffic and faster sorts
    compact = np.zeros(n_nodes, dtype=np.int32 if small else np.int64)
    compact[used] = np.arange(used.size)
    lengths = np.diff(ptr)[counted]
    total = sum(math.comb(int(L), i) * int(c) for L, c in zip(*np.unique(lengths, return_counts=True), strict=True))
    keys, counts = _count_keys(_combination_keys(ptr, compact[nodes], counted, i, width), width ** i, total)
    bad = keys[counts < k]  # ascending: the itemsets in lexicographic order
    out = np.empty((bad.size, i), dtype=np.int64)
    for j in range(i - 1, -1, -1):
        out[:, j] = used[bad % width] if bad.size else bad
        bad = bad // width
    return out if new is None else out[new[out].any(axis=1)]


def _check_enumeration(ptr: np.ndarray, nodes: np.ndarray, i: int) -> None:
    """Refuse (one error line) counting i-itemsets (i >= 3) past :data:`MAX_COMBINATIONS` or past int64 keys."""
    lengths = np.diff(ptr)
    total = sum(math.comb(int(L), i) * int(c) for L, c in zip(*np.unique(lengths, return_counts=True), strict=True))
    if total > MAX_COMBINATIONS:
        raise InputError(f"apriori: counting {i}-itemsets needs {total:,} combinations (more than "
                         f"{MAX_COMBINATIONS:,}); use a smaller m or a coarser hierarchy (smaller fan-out)")
    if total and (int(nodes.max()) + 1) ** i >= 2**63:
        raise InputError(f"apriori: hierarchy too large to count {i}-itemsets")


def _counted_rows(ptr: np.ndarray, nodes: np.ndarray, i: int, new: np.ndarray | None) -> np.ndarray:
    """Per record, whether its i-itemsets are counted: at least i nodes (and a node of ``new``, given it)."""
    lengths = np.diff(ptr)
    counted = lengths >= i
    if new is not None:
        row = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        counted &= np.bincount(row[new[nodes]], minlength=lengths.size) > 0
    return counted


def _combination_keys(ptr: np.ndarray, values: np.ndarray, counted: np.ndarray, i: int,
                      width: int) -> Iterator[np.ndarray]:
    """Blocks of keys ``((v1 * width + v2) * width + ...)`` of the i-combinations of every counted record."""
    lengths = np.diff(ptr)
    for length in np.unique(lengths[counted]).tolist():
        recs = np.flatnonzero(counted & (lengths == length))
        combos = _combinations(length, i)
        step = max(1, _BLOCK // max(len(combos), 1))
        for chunk in range(0, recs.size, step):
            # the block's records as rows of a matrix (one gather), then its combinations column by column
            rows = values[ptr[recs[chunk:chunk + step]][:, None] + np.arange(length)]
            key = rows[:, combos[:, 0]]  # (records, combos); each record's values ascending
            for j in range(1, i):
                key = key * width + rows[:, combos[:, j]]
            yield key.ravel()


def _combinations(length: int, i: int) -> np.ndarray:
    """The i-combinations of ``range(length)`` in lexicographic order, one per row."""
    if i == 2:
        return np.stack(np.triu_indices(length, 1), axis=1).astype(np.int64)
    return np.asarray(list(itertools.combinations(range(length), i)), dtype=np.int64).reshape(-1, i)


def _count_keys(blocks: Iterator[np.ndarray], space: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of ``blocks`` (``total`` keys in ``0..space-1``), ascending, and how often each occurs.

    A key space of at most :data:`DENSE_KEYS` is one table of counts (a bincount per block). A larger
    one is gathered in batches of at most :data:`SORT_BATCH` keys, each sorted in place into runs of
    (key, count); the runs go into one table when the space is at most :data:`TABLE_KEYS`, else they
    are merged with the runs so far (a stable sort of two sorted runs)."""
    if space <= DENSE_KEYS:
        counts = np.zeros(space, dtype=np.int64)
        for block in blocks:
            counts += np.bincount(block, minlength=space)
        keys = np.flatnonzero(counts)
        return keys, counts[keys]
    table = np.zeros(space, dtype=np.int32) if space <= TABLE_KEYS else None
    merged = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    for batch in _batches(blocks, min(total, SORT_BATCH)):
        batch.sort()
        keys, counts = _runs(batch, None)
        if table is not None:
            table[keys] += counts.astype(np.int32)
        elif merged[0].size:
            both = np.concatenate([merged[0], keys])
            order = np.argsort(both, kind="stable")
            merged = _runs(both[order], np.concatenate([merged[1], counts])[order])
        else:
            merged = (keys, counts)
    if table is None:
        return merged
    keys = np.flatnonzero(table)
    return keys, table[keys].astype(np.int64)


def _batches(blocks: Iterator[np.ndarray], size: int) -> Iterator[np.ndarray]:
    """The keys of ``blocks`` in consecutive batches of at most ``size`` (a block is never split: a larger
    block is its own batch), written into one reused buffer."""
    buffer: np.ndarray | None = None
    filled = 0
    for block in blocks:
        if buffer is None:
            buffer = np.empty(max(size, 1), dtype=block.dtype)
        if block.size > buffer.size:
            yield block
            continue
        if filled + block.size > buffer.size:
            yield buffer[:filled]
            filled = 0
        buffer[filled:filled + block.size] = block
        filled += block.size
    if filled and buffer is not None:
        yield buffer[:filled]


def _runs(keys: np.ndarray, counts: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, summed counts) of sorted ``keys`` (each counted once when ``counts`` is None)."""
    if not keys.size:
        return keys, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    if counts is None:
        return keys[starts], np.diff(np.append(starts, keys.size))
    return keys[starts], np.add.reduceat(counts, starts)


def lexicographic_order(ptr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Row order that sorts the rows (``values[ptr[r]:ptr[r+1]]``, non-negative) as tuples, a prefix first.

    Prefix refinement: every row carries the number of rows known to be smaller (rows tied on their
    first j values share it); the rows of a tie are re-ranked by their (j+1)-th value (-1 past their
    end) within the tie's span, until no two rows tie short of equal. The work is bounded by the
    number of values, one sort per column.
    """
    n = ptr.size - 1
    lengths = np.diff(ptr)
    rank = np.zeros(n, dtype=np.int64)
    active = np.arange(n, dtype=np.int64)  # the rows of ties not yet broken
    j = 0
    while active.size > 1:
        col = np.full(active.size, -1, dtype=np.int64)
        has = lengths[active] > j
        col[has] = values[ptr[active[has]] + j]
        order = np.lexsort((col, rank[active]))
        rows, g, c = active[order], rank[active][order], col[order]
        pos = np.arange(rows.size, dtype=np.int64)
        new_group = np.concatenate(([True], g[1:] != g[:-1]))
        new_sub = new_group | np.concatenate(([False], c[1:] != c[:-1]))
        group_start = np.maximum.accumulate(np.where(new_group, pos, 0))
        sub_start = np.maximum.accumulate(np.where(new_sub, pos, 0))
        rank[rows] = g + sub_start - group_start
        sizes = np.diff(np.append(np.flatnonzero(new_sub), rows.size))
        still = np.repeat(sizes > 1, sizes) & (c >= 0)  # a tie of rows that have not ended
        active = rows[still]
        j += 1
    return np.argsort(rank, kind="stable")


def sorted_labelled_records(ptr: np.ndarray, nodes: np.ndarray, labels: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Each record's nodes as its sorted distinct labels; the records sorted (as tuples of strings)."""
    n_nodes = max(len(labels), 1)
    by_label = sorted(range(len(labels)), key=labels.__getitem__)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[np.asarray(by_label, dtype=np.int64)] = np.arange(len(labels), dtype=np.int64)
    row = np.repeat(np.arange(ptr.size - 1, dtype=np.int64), np.diff(ptr))
    ranked = np.sort(row * n_nodes + rank[nodes]) - row * n_nodes
    order = lexicographic_order(ptr, ranked)
    by_rank = np.asarray([labels[n] for n in by_label], dtype=object)
    lengths = np.diff(ptr)[order]
    out = np.empty(order.size, dtype=object)
    for length in np.unique(lengths).tolist():  # records of one length become tuples in C (zip)
        at = np.flatnonzero(lengths == length)
        flat = by_rank[ranked[(ptr[order[at]][:, None] + np.arange(length)).ravel()]].tolist()
        out[at] = np.fromiter(zip(*[iter(flat)] * length, strict=True) if length else [()] * at.size, dtype=object,
                              count=at.size)
    return out.tolist()
