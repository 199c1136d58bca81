"""Apriori Anonymization: k^m-anonymity by global full-subtree generalization (the 2008 paper).

The baseline that Terrovitis2012 section 7 ("Comparison to state-of-the-art", Figure 11) compares
disassociation with is the *Apriori* algorithm of its reference [27]: Terrovitis, Mamoulis and
Kalnis, "Privacy-preserving anonymization of set-valued data", VLDB 2008 ("the 2008 paper"
below). We do not have the 2008 paper's text; what follows is our reconstruction of it from
Terrovitis2012 (sections 2, 6, 7) and from what is commonly reported about the algorithm, and
every point we had to choose is said so.

**Model.** Items are leaves of a hierarchy (:mod:`anonymizer.baselines.hierarchy`). A *global full-subtree
recoding* is a cut of the hierarchy: a set of nodes, none under another, that covers every
leaf; each leaf is published as the cut node above it, in every record (global), and when a node
is used every leaf under it is mapped to it (full subtree). A record that then holds the same
node twice keeps it once. The result is k^m-anonymous when every itemset of at most m published
items that some record holds is held by at least k records (Terrovitis2012 section 2).

**Algorithm** (the 2008 paper's Apriori Anonymization, as reconstructed). Start with every leaf
itself. For ``i = 1 .. m`` (the apriori principle: after round i-1 every (i-1)-itemset is
k-anonymous, and generalizing further never breaks that, so round i only looks at i-itemsets):

1. publish the data under the current cut and count the support of every i-itemset of it (the
   2008 paper keeps these counts in a count tree; here a bincount for i = 1 and, for i >= 2, a
   vectorized enumeration of the records' combinations counted in a table or by sorting,
   :mod:`anonymizer.baselines.apriori_counts`). A later pass of a round counts only the itemsets
   that hold a node which entered the cut during the pass before: the others are safe (see there);
2. take the *unsafe* i-itemsets (support 1..k-1) in the count tree's order: by their items'
   preorder positions in the hierarchy, lexicographically (*choice*: the order of a depth-first
   walk of the count tree);
3. for each one whose items are all still nodes of the cut (one an earlier fix coarsened is
   looked at again in the next pass, from fresh counts), choose among the generalizations of it,
   i.e. every combination of an ancestor-or-self of each of its items other than the itemset
   itself, the one of *least information loss* that makes it k-anonymous (support >= k), and apply
   it to the cut. Information loss is NCP (below) added to the whole dataset, which counts the
   leaves that other cut nodes lose to the new, larger subtree as well. *Choices*: ties of cost
   go to the candidate that generalizes fewer levels, then to the lower preorder ids;
   the support of a candidate is counted on the original data (a generalized itemset's support
   does not depend on the rest of the cut: the records with a leaf under each of its nodes);
   candidates are tried in increasing cost, so the first one that reaches k is taken;
4. repeat 1-3 until round i has no unsafe itemset.

Every fix moves at least one node of the cut up, so this ends; at worst everything becomes the
root, which k records hold (the command refuses data with fewer than k non-empty records).

**NCP** (the 2008 paper's information-loss measure, also Amnesia's): a published node n costs
``NCP(n) = |leaves(n)| / |I|`` (0 for a leaf; I is the hierarchy's leaves), and the dataset's
``NCP = sum over item occurrences of NCP(published node) / occurrences``
(:func:`ncp_of_cut`).

**Work.** The search stays on counts: the published data is arrays (a record's nodes ascending),
the unsafe itemsets one sorted array per pass, scanned for the next one whose nodes are all still
in the cut by a vectorized check over a window of it (no Python step per unsafe itemset, of which
there are about eight per record at k = 5, m = 2); Python runs once per fix only. Supports of
candidate generalizations intersect sorted row lists of the nodes (built lazily from the leaves'
row lists, the nodes' leaves being contiguous in preorder). The records of the release are
ordered by the ranks of their labels (:func:`~anonymizer.baselines.apriori_counts.sorted_labelled_records`).
For i >= 3 the enumeration is refused past :data:`MAX_COMBINATIONS` combinations (one error line).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace

import numpy as np

from anonymizer.baselines.apriori_counts import (
    MAX_COMBINATIONS,
    publish,
    row_sorted_leaves,
    sorted_labelled_records,
    unsafe_itemsets,
)
from anonymizer.baselines.generalized import GeneralizedRelease
from anonymizer.baselines.hierarchy import Hierarchy
from anonymizer.model.params import AprioriParams
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.tokens import sorted_unique

__all__ = ["AprioriParams", "AprioriResult", "AprioriStats", "apriori_anonymize", "ncp_of_cut", "generalized_records",
           "MAX_COMBINATIONS", "run_apriori"]


@dataclass
class AprioriStats:
    """What one Apriori run did: passes and fixes per round i, the cut's size, NCP, seconds."""

    passes: list[int] = field(default_factory=list)
    fixes: list[int] = field(default_factory=list)
    unsafe_first_pass: list[int] = field(default_factory=list)
    generalized_nodes: int = 0
    ncp: float = 0.0
    seconds: float = 0.0


@dataclass(frozen=True)
class AprioriResult:
    """What one Apriori run returns: the ``generalized/1`` release and what the run did."""

    release: GeneralizedRelease
    stats: AprioriStats


class _Engine:
    """State of one run: the records' sorted leaves, the current cut (node of every leaf, cut membership), row lists."""

    def __init__(self, ds: TransactionDataset, h: Hierarchy, k: int) -> None:
        self.h = h
        self.k = k
        pos = h.leaf_positions(list(ds.vocabulary))
        self.n_rows = len(ds)
        self.row, self.leaf = row_sorted_leaves(ds.indptr.astype(np.int64), ds.indices, pos)
        import scipy.sparse as sp  # here, not with the module: utility imports ncp_of_cut only

        # rows holding each leaf (leaf order), sorted: the leaves' column lists (a CSC conversion, no sort)
        csc = sp.csr_matrix((np.ones(self.leaf.size, dtype=np.int8), self.leaf, ds.indptr.astype(np.int64)),
                            shape=(self.n_rows, h.n_leaves)).tocsc()
        self.col_rows = csc.indices.astype(np.int64)
        self.col_ptr = csc.indptr.astype(np.int64)
        self.leaf_support = np.diff(self.col_ptr).astype(np.float64)
        self.ncp_node = np.where(h.is_leaf, 0.0, h.leaf_count / max(h.n_leaves, 1))
        self.gen = h.leaf_nodes.astype(np.int64).copy()  # published node of every leaf
        self.current = h.is_leaf.copy()  # the nodes of the cut
        self.leaf_lo = h.leaf_lo.tolist()
        self.leaf_hi = h.leaf_hi.tolist()
        self.end = h.end.tolist()
        self.depth = h.depth.tolist()
        self._rows: dict[int, np.ndarray] = {}

    # ---- supports on the original data
    def rows_of(self, node: int) -> np.ndarray:
        got = self._rows.get(node)
        if got is None:
            lo, hi = self.col_ptr[self.leaf_lo[node]], self.col_ptr[self.leaf_hi[node]]
            part = self.col_rows[lo:hi]
            got = part if self.leaf_hi[node] - self.leaf_lo[node] == 1 else sorted_unique(part)
            self._rows[node] = got
        return got

    def support(self, nodes: tuple[int, ...]) -> int:
        lists = sorted((self.rows_of(n) for n in nodes), key=len)
        got = lists[0]
        for other in lists[1:]:
            if got.size == 0:
                break
            pos = np.searchsorted(other, got)
            pos[pos == other.size] = 0
            got = got[other[pos] == got]
        return int(got.size)

    # ---- the cut
    def increase(self, node: int) -> float:
        """NCP mass (unnormalized) added by publishing every leaf under ``node`` as ``node``."""
        lo, hi = self.leaf_lo[node], self.leaf_hi[node]
        s = self.leaf_support[lo:hi]
        return float(self.ncp_node[node] * s.sum() - (s * self.ncp_node[self.gen[lo:hi]]).sum())

    def apply(self, node: int) -> None:
        lo, hi = self.leaf_lo[node], self.leaf_hi[node]
        self.gen[lo:hi] = node
        self.current[node:self.end[node]] = False
        self.current[node] = True

    def fix(self, itemset: tuple[int, ...]) -> None:
        """Generalize ``itemset`` (nodes of the cut, support < k) at the least NCP cost (module docstring)."""
        chains = [self.h.ancestors(x) for x in itemset]
        increase: dict[int, float] = {}  # the cut does not change while the candidates are priced
        candidates = []
        for combo in itertools.product(*chains):
            if combo == itemset:
                continue
            chosen = _maximal(sorted(set(combo)), self.end)
            for a in chosen:
                if a not in increase:
                    increase[a] = self.increase(a)
            cost = sum(increase[a] for a in chosen)
            lift = sum(self.depth[x] - self.depth[a] for x, a in zip(itemset, combo, strict=True))
            candidates.append((cost, lift, tuple(chosen)))
        candidates.sort()
        for _cost, _lift, chosen in candidates:
            if self.support(chosen) >= self.k:
                for a in chosen:
                    self.apply(a)
                return
        raise AssertionError("no generalization reaches k; the root should")  # pragma: no cover

    def fix_all(self, unsafe: np.ndarray) -> int:
        """Fix, in order, every itemset of ``unsafe`` whose nodes are all still in the cut; the number fixed.

        The check is vectorized over a window of the list that starts where the last fix was and
        doubles while no itemset in it qualifies (a fix only takes nodes out of the cut, and the
        list holds no node that enters it).
        """
        fixes, start, window = 0, 0, 256
        while start < len(unsafe):
            block = unsafe[start:start + window]
            ok = self.current[block].all(axis=1)
            first = int(np.argmax(ok))
            if not ok[first]:
                start += block.shape[0]
                window *= 2
                continue
            self.fix(tuple(block[first].tolist()))
            fixes += 1
            start += first + 1
            window = max(256, 2 * (first + 1))
        return fixes

    # ---- counting on the published data
    def published(self) -> tuple[np.ndarray, np.ndarray]:
        """(row pointer, nodes) of the published data: each record's distinct nodes, ascending."""
        return publish(self.row, self.leaf, self.gen, self.n_rows)

    def unsafe(self, i: int, new: np.ndarray | None) -> np.ndarray:
        ptr, nodes = self.published()
        return unsafe_itemsets(ptr, nodes, len(self.h), i, self.k, new)


def _maximal(nodes: list[int], end: list[int]) -> list[int]:
    """The nodes of a preorder-sorted list that lie under no other node of the list."""
    out: list[int] = []
    for n in nodes:
        if out and n < end[out[-1]]:
            continue
        out.append(n)
    return out


def ncp_of_cut(ds: TransactionDataset, hierarchy: Hierarchy, leaf_map: np.ndarray) -> float:
    """NCP of publishing ``ds`` with every leaf mapped to ``leaf_map[leaf]`` (module docstring)."""
    pos = hierarchy.leaf_positions(list(ds.vocabulary))
    supports = ds.term_supports().astype(np.float64)
    total = supports.sum()
    if total == 0:
        return 0.0
    node = leaf_map[pos]
    cost = np.where(hierarchy.is_leaf[node], 0.0, hierarchy.leaf_count[node] / hierarchy.n_leaves)
    return float((supports * cost).sum() / total)


def generalized_records(ds: TransactionDataset, hierarchy: Hierarchy, leaf_map: np.ndarray) -> list[tuple[str, ...]]:
    """Every record of ``ds`` published under ``leaf_map``: sorted distinct labels; the records sorted."""
    pos = hierarchy.leaf_positions(list(ds.vocabulary))
    row, leaf = row_sorted_leaves(ds.indptr.astype(np.int64), ds.indices, pos)
    ptr, nodes = publish(row, leaf, leaf_map, len(ds))
    return sorted_labelled_records(ptr, nodes, hierarchy.labels)


def apriori_anonymize(ds: TransactionDataset, hierarchy: Hierarchy, k: int | None = None, m: int | None = None, *,
                      params: AprioriParams | None = None) -> GeneralizedRelease:
    """k^m-anonymize ``ds`` by global full-subtree generalization over ``hierarchy`` (module docstring).

    ``k`` and ``m`` make one :class:`~anonymizer.model.params.AprioriParams` (or pass ``params=``);
    :func:`run_apriori` also returns what the run did. Returns the ``generalized/1`` release
    (records sorted, no seed: the algorithm is deterministic).
    """
    if params is None:
        params = AprioriParams(k, m, hierarchy.source or "file")  # type: ignore[arg-type]
    elif k is not None or m is not None:
        raise InputError("give params= or k and m, not both")
    return run_apriori(ds, hierarchy, params).release


def run_apriori(ds: TransactionDataset, hierarchy: Hierarchy, params: AprioriParams) -> AprioriResult:
    """Apriori Anonymization of ``ds`` with ``params`` (checked when made); the release and its stats.

    The release's ``params`` are ``params.to_json()`` with the hierarchy named as ``hierarchy`` names
    itself (its ``source``, or ``file``).
    """
    start = time.perf_counter()
    params.check_records(int(np.count_nonzero(np.diff(ds.indptr))))
    k, m = params.k, params.m
    eng = _Engine(ds, hierarchy, k)
    st = AprioriStats()
    for i in range(1, m + 1):
        passes = fixes = 0
        new = None  # the first pass of a round counts every itemset, a later one those holding a new node
        while True:
            unsafe = eng.unsafe(i, new)
            if passes == 0:
                st.unsafe_first_pass.append(len(unsafe))
            passes += 1
            if not len(unsafe):
                break
            before = eng.current.copy()
            fixes += eng.fix_all(unsafe)
            new = eng.current & ~before
        st.passes.append(passes)
        st.fixes.append(fixes)
    leaf_map = eng.gen
    cut = np.flatnonzero(eng.current & ~hierarchy.is_leaf).tolist()
    st.generalized_nodes = len(cut)
    st.ncp = ncp_of_cut(ds, hierarchy, leaf_map)
    records = sorted_labelled_records(*eng.published(), hierarchy.labels)
    st.seconds = time.perf_counter() - start
    label = hierarchy.source or "file"
    published = (params if params.hierarchy == label else replace(params, hierarchy=label)).to_json()
    release = GeneralizedRelease("apriori", published, hierarchy, records, [hierarchy.labels[n] for n in cut])
    return AprioriResult(release, st)
