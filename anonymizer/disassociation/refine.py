"""REFINE: joint clusters and shared chunks (Terrovitis2012 sections 3, 4 and 5).

After VERPART every simple cluster P has record chunks (term sets T_1..T_v) and a term chunk T_T.
A term that is rare inside each of several clusters lands in all their term chunks, although it
is frequent enough over the union of those clusters (Figure 2b: ``ikea`` and ``ruby``). REFINE
joins clusters into *joint clusters* that carry *shared chunks*: the records of the joint's leaves
projected on the *refining terms* T^s, which leave the leaves' term chunks (Figure 3).

Algorithm REFINE (section 4), as implemented here::

    repeat
        give every joint cluster a virtual term chunk: the union of its leaves' current term chunks
        order the clusters (simple or joint) by the contents of their (virtual) term chunks
        join adjacent pairs of clusters where Equation 1 holds
    until no join happens

Choices where the paper is terse (each one is tested in ``tests/test_refine_*.py``):

* **Ordering** (section 4, after the pseudocode): every term gets its *term chunk support*
  tcs(t), the number of term chunks of the input simple clusters holding it; a (virtual) term
  chunk is written as its terms sorted by decreasing tcs (ties by term, alphabetically); clusters
  are sorted by comparing these sequences lexicographically (a proper prefix first; ties by
  cluster number). tcs is computed once, on the clusters REFINE receives (the paper defines it
  on "the term chunks in clusters of P" and adds virtual term chunks only "in the ordering
  step"), so a cluster's position changes only when it is replaced by a joint cluster; this
  keeps each round near-linear. Clusters whose term chunk is empty can never join and are left
  out of the ordering.
* **Adjacent pairs**: one left-to-right pass over the ordered list; positions i and i+1 are
  tried; on a join both are consumed (the pass continues at i+2), otherwise at i+1. A cluster
  joins at most once per round; the new joint cluster takes part from the next round on.
* **Rounds**: the loop runs until a round makes no join (the paper's fixpoint). A cluster pair
  that failed once fails forever (neither side changes until it is joined, and then it is
  replaced by a new joint cluster), so failed pairs are remembered and not retried; the ordered
  list is kept between rounds (joined clusters leave it, new joint clusters are appended and a
  run-aware sort restores the order). Every round that joins removes at least one cluster, so the
  loop ends; kosarak10k and kosarak25k take 10 rounds, synthetic 100k 14 and 250k 16 (depth of
  the joint-cluster trees 13-15). ``max_rounds`` can cap it. The first round, which tries every
  adjacent pair of simple clusters, finds the pairs without any candidate (no common term whose
  support over both reaches k) for all pairs at once with numpy; they fail as a join attempt would
  (:func:`anonymizer.disassociation.refine_join.try_join`).

The modules, in the order of the paper's steps:

* :mod:`anonymizer.disassociation.refine_leaves`: the simple clusters REFINE receives, indexed;
* this module: the repeat loop, the ordering and the pass over adjacent pairs (:func:`refine`);
* :mod:`anonymizer.disassociation.refine_join`: one join (candidates, Equation 1, the new joint
  cluster and its virtual term chunk), :class:`JointPlan`, :func:`refining_criterion`;
* :mod:`anonymizer.disassociation.shared_chunks`: the shared chunks of a join under Property 1
  (section 5), :func:`build_shared_chunks`, :func:`is_k_anonymous`;
* :mod:`anonymizer.disassociation.lemma2_repair`: Lemma 2 after REFINE (:func:`restore_lemma2`).

The plans refer to record ids (dataset positions); the release builder in
:mod:`anonymizer.disassociation.pipeline` turns them into published joint clusters.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from anonymizer.disassociation.lemma2_repair import Lemma2Repair, restore_lemma2
from anonymizer.disassociation.refine_join import JointPlan, RefineState, refining_criterion, start_state, try_join
from anonymizer.disassociation.refine_leaves import PartitionLike
from anonymizer.disassociation.shared_chunks import SharedChunk, build_shared_chunks, is_k_anonymous
from anonymizer.disassociation.verpart import PartitionTable
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = [
    "JointPlan",
    "Lemma2Repair",
    "SharedChunk",
    "build_shared_chunks",
    "is_k_anonymous",
    "refine",
    "refining_criterion",
    "restore_lemma2",
]


def _check_parameters(k: int, m: int, max_rounds: int | None) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InputError(f"refine: k must be an integer >= 2, got {k!r}")
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise InputError(f"refine: m must be an integer >= 1, got {m!r}")
    if max_rounds is not None and max_rounds < 0:
        raise InputError(f"refine: max_rounds must be >= 0, got {max_rounds!r}")


def _hopeless_pairs(st: RefineState, nodes: list[int]) -> list[bool]:
    """For simple clusters ``nodes[i]``, ``nodes[i+1]``: True when their term chunks share no
    term whose support over both reaches k (``try_join`` finds no candidate and fails)."""
    if len(nodes) < 2:
        return []
    group_ptr = np.asarray(st.leaves.group_ptr, dtype=np.int64)
    group_term = np.asarray(st.leaves.group_term, dtype=np.int64)
    group_size = np.frombuffer(st.gsize, dtype=np.int64)
    width = max(len(st.vocabulary), 1)
    o = np.asarray(nodes, dtype=np.int64)
    pair = np.concatenate((np.arange(len(o) - 1), np.arange(len(o) - 1)))
    side = np.concatenate((o[:-1], o[1:]))
    starts = group_ptr[side]
    lens = group_ptr[side + 1] - starts
    g = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    g += np.arange(int(lens.sum()), dtype=np.int64)
    key = np.repeat(pair, lens) * width + group_term[g]
    order = np.argsort(key, kind="stable")
    key, sup = key[order], group_size[g[order]]
    common = (key[1:] == key[:-1]) & (sup[1:] + sup[:-1] >= st.k)  # a term appears once per side
    hopeless = np.ones(len(o) - 1, dtype=bool)
    hopeless[key[1:][common] // width] = False
    return hopeless.tolist()


def _join_adjacent_pairs(st: RefineState, ordered: list[int], hopeless: list[bool] | None,
                         failed: set[tuple[int, int]]) -> int:
    """One pass over the ordered clusters: try positions i and i+1, skip both on a join.

    ``hopeless`` (first round only) marks the pairs known to fail; every failed pair is added to
    ``failed`` and never tried again. Returns the number of joins.
    """
    joined = 0
    i = 0
    while i + 1 < len(ordered):
        a, b = ordered[i], ordered[i + 1]
        if hopeless is not None and hopeless[i]:  # try_join would return False, changing nothing
            failed.add((a, b))
            i += 1
            continue
        if (a, b) not in failed and try_join(st, a, b):
            joined += 1
            i += 2
        else:
            failed.add((a, b))
            i += 1
    return joined


def _next_ordered(st: RefineState, ordered: list[int], joined: int) -> list[int]:
    """The list for the next round: joined clusters leave, the new joint clusters are appended."""
    n_nodes = st.n_parts + len(st.plans)
    keys = st.keys
    ordered = [x for x in ordered if keys[x]]
    ordered.extend(x for x in range(n_nodes - joined, n_nodes) if keys[x])
    return ordered


def refine(
    dataset: TransactionDataset,
    partitions: Sequence[PartitionLike] | PartitionTable,
    k: int,
    m: int,
    *,
    max_rounds: int | None = None,
) -> list[JointPlan]:
    """Algorithm REFINE of Terrovitis2012 section 4: join clusters into joint clusters.

    ``partitions`` are the simple clusters after VERPART (``records``, ``chunk_terms``,
    ``term_chunk``), or VERPART's :class:`~anonymizer.disassociation.verpart.PartitionTable` itself (read
    without the term strings; the same plans); record ids are positions in ``dataset``. Returns the joint clusters in
    creation order; children of a plan are simple clusters or earlier plans (see
    :class:`JointPlan`). Every shared chunk satisfies Property 1 (section 5). ``max_rounds``
    caps the repeat loop (``None``: until a round makes no join). See the module docstring for
    the choices made where the paper is terse.
    """
    _check_parameters(k, m, max_rounds)
    st = start_state(dataset, partitions, k, m)
    failed: set[tuple[int, int]] = set()
    # The ordered list persists between rounds: joined clusters leave it, new joint clusters are
    # appended, and the (stable, run-aware) sort restores the order in near-linear time.
    ordered = [x for x in range(st.n_parts) if st.keys[x]]
    rounds = 0
    with tqdm(desc="refine", unit="round", disable=None, file=sys.stderr) as bar:
        while max_rounds is None or rounds < max_rounds:
            rounds += 1
            # by (key, cluster number): ``ordered`` is already in that order among equal keys (it
            # starts ascending, filtering keeps the order, new joint clusters come last with
            # ascending numbers), so a stable sort on the key alone gives the same list
            ordered.sort(key=st.keys.__getitem__)
            # the first round tries every adjacent pair of simple clusters: the pairs without any
            # candidate (no common term with support >= k) are found at once, vectorised
            hopeless = _hopeless_pairs(st, ordered) if rounds == 1 else None
            joined = _join_adjacent_pairs(st, ordered, hopeless, failed)
            bar.update(1)
            bar.set_postfix(joint=len(st.plans))
            if not joined:
                break
            ordered = _next_ordered(st, ordered, joined)
    return st.plans
