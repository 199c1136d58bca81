"""Array helpers of :mod:`anonymizer.evaluation.verify_fast`: the forest of a release's clusters and joint
clusters numbered in preorder, its term occurrences, and grouping by sorting (never numpy's hash-based
``unique``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonymizer.model.arrays import ReleaseArrays

__all__ = ["Tree", "forest", "new_rows", "distinct_pairs", "occurrences", "below", "unique_sorted", "ranges"]


@dataclass
class Tree:
    """The forest of clusters (nodes 0..C-1) and joint clusters (C..C+J-1), numbered in preorder."""

    root: np.ndarray
    pre: np.ndarray
    end: np.ndarray
    """Preorder number of each node, and one past the last preorder number of its subtree."""
    leaf_at: np.ndarray
    """Cluster at each preorder number (-1 at a joint cluster)."""
    room: np.ndarray
    """Records of the clusters before each preorder number (length N + 1)."""
    leaf_count: np.ndarray
    """Clusters in the subtree of each node."""


def forest(a: ReleaseArrays) -> Tree | None:
    """The forest of ``a``, or None when a child is listed twice (the strict parser refuses that)."""
    n_clusters, n_joints = a.n_clusters, len(a.joint_ids)
    n = n_clusters + n_joints
    if a.children.size and np.bincount(a.children).max() > 1:
        return None
    parent = np.full(n, -1, dtype=np.int64)
    parent[a.children] = n_clusters + np.repeat(np.arange(n_joints, dtype=np.int64), np.diff(a.child_off))
    root = np.arange(n, dtype=np.int64)
    while True:
        up = parent[root]
        moving = up >= 0
        if not moving.any():
            break
        root[moving] = up[moving]
    kids = a.children.tolist()
    bounds = a.child_off.tolist()
    size = [1] * n
    for j in range(n_joints):  # children are defined before their joint cluster
        size[n_clusters + j] += sum(size[ch] for ch in kids[bounds[j]:bounds[j + 1]])
    pre = [0] * n
    at = 0
    for node in np.flatnonzero(parent < 0).tolist():
        pre[node] = at
        at += size[node]
    for j in range(n_joints - 1, -1, -1):  # parents before their children
        at = pre[n_clusters + j] + 1
        for ch in kids[bounds[j]:bounds[j + 1]]:
            pre[ch] = at
            at += size[ch]
    pre_a = np.asarray(pre, dtype=np.int64)
    leaf_at = np.full(n, -1, dtype=np.int64)
    leaf_at[pre_a[:n_clusters]] = np.arange(n_clusters)
    records = np.zeros(n, dtype=np.int64)
    records[pre_a[:n_clusters]] = a.cluster_size
    end = pre_a + np.asarray(size, dtype=np.int64)
    leaves = np.concatenate(([0], np.cumsum(leaf_at >= 0)))
    return Tree(root, pre_a, end, leaf_at, np.concatenate(([0], np.cumsum(records))), leaves[end] - leaves[pre_a])


def new_rows(*columns: np.ndarray) -> np.ndarray:
    """True at each row of sorted ``columns`` that differs from the row before (the first row included)."""
    if not columns[0].size:
        return np.zeros(0, dtype=bool)
    differs = np.zeros(columns[0].size - 1, dtype=bool)
    for column in columns:
        differs |= column[1:] != column[:-1]
    return np.concatenate(([True], differs))


def distinct_pairs(node: np.ndarray, term: np.ndarray, chunk: np.ndarray, width: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (node, term) pairs as keys ``node * width + term``, sorted, with the smallest and
    largest chunk and the number of occurrences of each."""
    if not node.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    key = node * width + term
    order = np.argsort(key, kind="stable")
    key, chunk = key[order], chunk[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    count = np.diff(np.append(starts, key.size))
    return key[starts], np.minimum.reduceat(chunk, starts), np.maximum.reduceat(chunk, starts), count


def occurrences(chunk_off: np.ndarray, sub_off: np.ndarray, term_off: np.ndarray, terms: np.ndarray,
                 first_node: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per term occurrence of a chunk family: its node, term and chunk."""
    n_chunks = len(sub_off) - 1
    chunk_of_sub = np.repeat(np.arange(n_chunks, dtype=np.int64), np.diff(sub_off))
    chunk = chunk_of_sub[np.repeat(np.arange(len(term_off) - 1, dtype=np.int64), np.diff(term_off))]
    node_of_chunk = first_node + np.repeat(np.arange(len(chunk_off) - 1, dtype=np.int64), np.diff(chunk_off))
    return node_of_chunk[chunk], terms.astype(np.int64), chunk


def below(keys: np.ndarray, tree: Tree, joint: np.ndarray, term: np.ndarray, n: int) -> np.ndarray:
    """Per (joint cluster, term) query: how many of the sorted occurrence ``keys`` (term * n +
    preorder number) lie at a node strictly below the joint cluster."""
    lo = term * n + tree.pre[joint]
    hi = term * n + tree.end[joint] - 1
    return np.searchsorted(keys, hi, side="right") - np.searchsorted(keys, lo, side="right")


def unique_sorted(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``keys`` (sorted) and the position of each key's value among them (a sort,
    not numpy's hash-based ``unique``)."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1])) if keys.size else np.zeros(0, dtype=bool)
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated ranges ``starts[i]:starts[i] + lengths[i]``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if not lengths.size:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return shift + np.arange(int(lengths.sum()), dtype=np.int64)
