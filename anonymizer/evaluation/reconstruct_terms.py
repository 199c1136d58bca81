"""Step 5 of a reconstruction over arrays: the term-chunk terms (Terrovitis2012 sections 5 and 6).

:mod:`anonymizer.evaluation.reconstruct` describes the rule (``term_rule``). Per cluster with a term
chunk of nt terms and s records, in release order, the object form draws ``integers(1, top + 1,
size=nt)`` (rule ``uniform`` only), then an nt x s matrix of ``random`` keys, then, when the cluster
has empty records, ``shuffle(empties)`` and ``permutation(nt)``; term i lands on the records of its
``counts[i]`` smallest keys (a stable sort), empty records forced first (key -1). Here the key
matrices of consecutive clusters come from one ``random(out=...)`` call (numpy draws a batch as
the same doubles as successive calls) and the smallest keys are found for all rows at once: a
segmented minimum for the rows that take one record, one stable sort of the rows that take more.
"""

from __future__ import annotations

import numpy as np

from anonymizer.evaluation.reconstruct_arrays import segments

__all__ = ["term_chunk_cells", "BLOCK_KEYS"]

BLOCK_KEYS = 1 << 22
"""At most about this many keys are held at once (32 MiB of doubles): clusters are handled in blocks."""


def _blocks(width: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges of clusters whose keys add up to at most :data:`BLOCK_KEYS` (at least one cluster)."""
    out = []
    start, total = 0, 0
    for i, w in enumerate(width.tolist()):
        if total and total + w > BLOCK_KEYS:
            out.append((start, i))
            start, total = i, 0
        total += w
    if start < len(width):
        out.append((start, len(width)))
    return out


def term_chunk_cells(size: np.ndarray, offset: np.ndarray, tc_off: np.ndarray, tc_terms: np.ndarray,
                     pieces: np.ndarray, k: int, rule: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(global record, term id) cells that place every cluster's term-chunk terms (module docstring).

    ``tc_off`` / ``tc_terms``: each cluster's term chunk, sorted and distinct; ``pieces``: the chunk
    sub-records each record holds after steps 1-4 (a record with none is empty)."""
    nt = np.diff(tc_off)
    chosen = np.flatnonzero((nt > 0) & (size > 0))
    empty_records = np.bincount(np.repeat(np.arange(len(size)), size)[pieces == 0], minlength=len(size))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    width = nt[chosen] * size[chosen]
    for lo, hi in _blocks(width):
        r, c = _block(chosen[lo:hi], size, offset, tc_off, tc_terms, pieces, empty_records, k, rule, rng)
        rows.append(r)
        cols.append(c)
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(rows), np.concatenate(cols)


def _block(clusters: np.ndarray, size: np.ndarray, offset: np.ndarray, tc_off: np.ndarray, tc_terms: np.ndarray,
           pieces: np.ndarray, empty_records: np.ndarray, k: int, rule: str,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The cells of one block of clusters: draw their keys in the object form's order, then select."""
    s = size[clusters]
    nt = tc_off[clusters + 1] - tc_off[clusters]
    key_base = np.cumsum(nt * s) - nt * s
    row_base = np.cumsum(nt) - nt
    keys = np.empty(int((nt * s).sum()), dtype=np.float64)
    counts = np.ones(int(nt.sum()), dtype=np.int64)
    uniform = rule != "one"
    special = np.arange(len(clusters)) if uniform else np.flatnonzero(empty_records[clusters] > 0)
    drawn = 0
    for q in special.tolist():
        c, s_q, nt_q, kb, rb = int(clusters[q]), int(s[q]), int(nt[q]), int(key_base[q]), int(row_base[q])
        if uniform:
            rng.random(out=keys[drawn:kb])  # empty unless a cluster was skipped (no draws before it)
            top = max(1, min(k - 1, s_q))
            counts[rb:rb + nt_q] = rng.integers(1, top + 1, size=nt_q)
            drawn = kb
        rng.random(out=keys[drawn:kb + nt_q * s_q])
        drawn = kb + nt_q * s_q
        if empty_records[c] == 0:
            continue
        empties = np.flatnonzero(pieces[offset[c]:offset[c] + s_q] == 0)
        rng.shuffle(empties)
        term_order = rng.permutation(nt_q)
        who = term_order[np.arange(len(empties)) % nt_q]
        keys[kb + who * s_q + empties] = -1.0
        counts[rb:rb + nt_q] = np.maximum(counts[rb:rb + nt_q], np.bincount(who, minlength=nt_q))
    rng.random(out=keys[drawn:])
    row_len = np.repeat(s, nt)
    row_start = np.cumsum(row_len) - row_len
    row_record = np.repeat(offset[clusters], nt)
    row_term = np.concatenate([tc_terms[tc_off[c]:tc_off[c + 1]] for c in clusters.tolist()]).astype(np.int64)
    first = _first_minimum(keys, row_start, row_len)
    one = counts == 1
    rows = [row_record[one] + first[one]]
    cols = [row_term[one]]
    many = np.flatnonzero(~one)
    if len(many):
        row, pos = _smallest(keys, row_start[many], row_len[many], counts[many])
        rows.append(row_record[many][row] + pos)
        cols.append(row_term[many][row])
    return np.concatenate(rows), np.concatenate(cols)


def _first_minimum(keys: np.ndarray, row_start: np.ndarray, row_len: np.ndarray) -> np.ndarray:
    """Per row (ragged, contiguous, non-empty), the position of its first smallest key (a stable argsort's first)."""
    lowest = np.minimum.reduceat(keys, row_start)
    at = np.flatnonzero(keys == np.repeat(lowest, row_len))
    row = np.searchsorted(row_start, at, side="right") - 1
    keep = np.ones(len(at), dtype=bool)
    keep[1:] = row[1:] != row[:-1]
    return at[keep] - row_start


def _smallest(keys: np.ndarray, row_start: np.ndarray, row_len: np.ndarray,
              counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, position) of the ``counts[row]`` smallest keys of each row, ties in position order (stable)."""
    row, local = segments(row_len)
    flat = row_start[row] + local
    order = np.lexsort((keys[flat], row))
    rank = local  # rows stay in order and keep their lengths, so the rank in the sorted run is the local index
    keep = order[rank < counts[row]]
    return row[keep], local[keep]
