"""Metrics that compare every method side by side: tKd-ML^2, re of generalized data, NCP.

**tKd-ML^2** (Terrovitis2012 section 6, "top-K multiple level mining loss", after the ML^2 of the
2008 Apriori paper): equation 2, ``1 - |FI & FI'| / |FI|``, where FI and FI' are the top-K
*generalized* frequent itemsets "that can be traced in the original and anonymized data". Our
reading:

* Level l (1 .. the hierarchy's height; the root's level 0 tells nothing) of a dataset is the
  dataset with every item replaced by its ancestor at depth l (an item shallower than l stays);
  a level-l itemset is a set of nodes of that projection. FI is the top-K over all levels
  together: the itemsets (as node sets; one that occurs at several levels counts once) whose
  support reaches the K-th largest support among them, ties at the cut kept (as for tKd,
  :mod:`anonymizer.evaluation.topk`). Each level's top K comes from the exact best-first search.
* For a dataset of original items (a reconstruction of a disassociated release, DiffPart's
  output), FI' is the same on the published data, and an itemset of FI counts when its published
  support reaches the published K-th support (:func:`tkd_ml2`).
* For a generalized release (Apriori) "a generalized frequent itemset is lost if it contains
  terms that have been generalized at a higher level during the anonymization process": an
  itemset of FI counts when each of its nodes x is *traceable*, i.e. every leaf under x is
  published as x or as a node below x. Global recoding keeps the supports of traceable itemsets
  exactly, so they are also in the published top K (:func:`tkd_ml2_generalized`).

**re of generalized data** (Terrovitis2012 section 7, Figure 11c): "calculated by uniformly
dividing the support of a generalized term to the original terms that map to it". *Choice*: a
record holding generalized node G holds one of G's |G| leaves, uniformly; so the estimated support
of the pair (a, b) is ``supp'(G_a, G_b) / (|G_a| * |G_b|)`` when a and b are published as
different nodes, and 0 when both fall into the same node (one leaf per node and record).

**NCP** (the 2008 paper; Amnesia's measure): see :func:`anonymizer.baselines.apriori.ncp_of_cut`. It is 0
for disassociation (no term is generalized) and undefined for DiffPart (records are not kept one
to one, so no item has "its" published form); :func:`baseline_utility` reports None there.
"""

from __future__ import annotations

import heapq
import warnings
from typing import TYPE_CHECKING

import numpy as np

from anonymizer.baselines.hierarchy import Hierarchy
from anonymizer.evaluation.loss import pair_supports, ranked_terms, re, re_from_supports, resolve_re_range, tkd_against
from anonymizer.evaluation.report import UtilityReport
from anonymizer.evaluation.topk import TopK, itemset_supports, top_k_search
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from corpora.io.tokens import sorted_unique

if TYPE_CHECKING:  # the baselines' releases are imported where one is scored, not with the disassociation metrics
    from anonymizer.baselines.generalized import GeneralizedRelease

__all__ = ["MultiLevelTopK", "project_dataset", "sorted_unique", "multilevel_top_k", "tkd_ml2", "tkd_ml2_generalized",
           "re_generalized", "baseline_utility", "traceable_nodes"]


class MultiLevelTopK:
    """FI of tKd-ML^2: itemsets (frozensets of node labels) -> (support, level); and the K-th support."""

    def __init__(self, itemsets: dict[frozenset, tuple[int, int]], kth: int, truncated: bool) -> None:
        self.itemsets = itemsets
        self.kth_support = kth
        self.truncated = truncated


def project_dataset(ds: TransactionDataset, hierarchy: Hierarchy, leaf_map: np.ndarray, *,
                    min_support: int = 0) -> TransactionDataset:
    """``ds`` (items = leaves of ``hierarchy``) with every leaf replaced by ``leaf_map[leaf]`` (vectorized).

    The nodes are labelled and sorted by label (the projection's vocabulary); each record's node ids
    come out sorted and distinct (one sort of the (record, node) keys, :func:`sorted_unique`).
    ``min_support``: leave out the nodes whose terms' supports sum below it (a node's support is at most
    that sum, so no itemset holding one reaches ``min_support``); the other nodes and their supports
    are as without it, in the same order.
    """
    return _project(ds, hierarchy, leaf_map, _Entries.of(ds, hierarchy), min_support)


class _Entries:
    """What every projection of one dataset starts from, computed once for all its levels: the leaf positions of
    its vocabulary, its term supports and the record of each entry."""

    def __init__(self, pos: np.ndarray, term_supports: np.ndarray, rows: np.ndarray) -> None:
        self.pos, self.term_supports, self.rows = pos, term_supports, rows

    @classmethod
    def of(cls, ds: TransactionDataset, hierarchy: Hierarchy) -> _Entries:
        return cls(hierarchy.leaf_positions(list(ds.vocabulary)), ds.term_supports(),
                   np.repeat(np.arange(len(ds), dtype=np.int64), np.diff(ds.indptr)))


def _project(ds: TransactionDataset, hierarchy: Hierarchy, leaf_map: np.ndarray, entries: _Entries,
             min_support: int) -> TransactionDataset:
    """:func:`project_dataset` with ``entries`` (:class:`_Entries`) of ``ds`` given."""
    node_of_term = leaf_map[entries.pos]
    term_supports = entries.term_supports
    present = np.flatnonzero(term_supports)
    if min_support > 0 and present.size:
        node_sums = np.bincount(node_of_term[present], weights=term_supports[present])
        present = present[node_sums[node_of_term[present]] >= min_support]
    used = sorted_unique(node_of_term[present])
    labels = [hierarchy.labels[n] for n in used.tolist()]
    order = np.argsort(np.asarray(labels, dtype=object), kind="stable") if labels else np.zeros(0, dtype=np.int64)
    rank = np.empty(used.size, dtype=np.int64)
    rank[order] = np.arange(used.size)
    width = max(used.size, 1)
    id_of_term = np.full(len(ds.vocabulary), -1, dtype=np.int64)
    id_of_term[present] = rank[np.searchsorted(used, node_of_term[present])]
    rows = entries.rows
    ids = id_of_term[ds.indices]
    if present.size < len(ds.vocabulary):  # absent (or left out) terms
        kept = ids >= 0
        rows, ids = rows[kept], ids[kept]
    key = rows * width + ids
    if len(ds) * width <= np.iinfo(np.int32).max:  # 32-bit keys sort (and divide) faster
        key = key.astype(np.int32)
    key = sorted_unique(key)
    r = key // width
    c = key - r * width
    indptr = np.zeros(len(ds) + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=len(ds)), out=indptr[1:])
    vocab = tuple(labels[i] for i in order.tolist())
    return TransactionDataset(vocab, indptr, c.astype(np.int32), name=ds.name)


def _levels(hierarchy: Hierarchy) -> list[int]:
    return list(range(1, hierarchy.height + 1))


def _is_leaf_level(pos: np.ndarray, hierarchy: Hierarchy, leaf_map: np.ndarray) -> bool:
    """Whether ``leaf_map`` keeps every term (leaf positions ``pos``) itself: the projection is then the dataset."""
    return bool(np.array_equal(leaf_map[pos], hierarchy.leaf_nodes[pos]))


def multilevel_top_k(ds: TransactionDataset, hierarchy: Hierarchy, top_k: int,
                     exact_ties: bool = True, leaf_top: TopK | None = None) -> MultiLevelTopK:
    """The top-K itemsets over all levels of ``ds`` (module docstring).

    ``leaf_top``: :func:`anonymizer.evaluation.topk.top_k_search` of ``ds`` itself with the same cap
    (``max_itemsets=None`` with ``exact_ties``, else ``top_k``), reused at a level that keeps every
    term as it is (the leaf level of a balanced tree) instead of searching the same data again.
    ``truncated`` tells whether a level's cap cut itemsets that could reach the K-th support over all
    levels (:func:`_level_searches`)."""
    return _level_searches(ds, hierarchy, top_k, exact_ties, leaf_top)[0]


def _level_searches(ds: TransactionDataset, hierarchy: Hierarchy, top_k: int, exact_ties: bool,
                    leaf_top: TopK | None) -> tuple[MultiLevelTopK, dict[int, TransactionDataset]]:
    """:func:`multilevel_top_k` and the projection of ``ds`` searched at each level.

    Threshold across levels: FI keeps the itemsets whose support reaches the K-th largest support over
    all levels, which is at least the K-th largest support of any K distinct itemsets already found.
    So each level is searched (and projected, :func:`project_dataset`'s ``min_support``) only down to
    that bound, reached first from the leaf level's ``leaf_top`` and the small upper levels; a level's
    answer is then the prefix of its full answer above the bound, which holds every itemset FI takes
    from it (with the level it is first found at), so FI and its K-th support are those of full
    searches. A projection leaves out only nodes below the bound, which is at most the K-th support,
    so :func:`tkd_ml2` counts published supports on it with the same outcome."""
    cap = None if exact_ties else top_k
    levels = _levels(hierarchy)
    maps = {level: hierarchy.level_map(level) for level in levels}
    entries = _Entries.of(ds, hierarchy)
    pos = entries.pos
    reused = [level for level in levels if leaf_top is not None and _is_leaf_level(pos, hierarchy, maps[level])]
    results: dict[int, TopK] = {}
    projections: dict[int, TransactionDataset] = {}
    seen: dict[frozenset, int] = {}
    for level in reused + [level for level in levels if level not in reused]:
        if level in reused:
            res, proj = leaf_top, ds
        else:
            bound = heapq.nlargest(top_k, seen.values())[-1] if len(seen) >= top_k else 0
            proj = _project(ds, hierarchy, maps[level], entries, bound)
            res = top_k_search(proj, top_k, max_itemsets=cap, min_support=bound)
        results[level], projections[level] = res, proj
        for items, n in res.itemsets.items():
            seen.setdefault(items, n)
    found: dict[frozenset, tuple[int, int]] = {}
    truncated = False
    for level in levels:
        truncated |= results[level].truncated
        for items, n in results[level].itemsets.items():
            found.setdefault(items, (n, level))
    if not found:
        return MultiLevelTopK({}, 0, truncated), projections
    supports = sorted((n for n, _ in found.values()), reverse=True)
    kth = supports[top_k - 1] if len(supports) >= top_k else 1
    return MultiLevelTopK({s: v for s, v in found.items() if v[0] >= kth}, kth, truncated), projections


def tkd_ml2(original: TransactionDataset, published: TransactionDataset, hierarchy: Hierarchy,
            top_k: int = 1000, fi: MultiLevelTopK | None = None, published_top: TopK | None = None) -> float:
    """tKd-ML^2 of a published dataset of original items (a reconstruction, DiffPart's output).

    ``published_top``: ``top_k_search(published, top_k, max_itemsets=top_k)`` when the caller has it
    (:func:`multilevel_top_k`'s ``leaf_top``)."""
    fi = fi or multilevel_top_k(original, hierarchy, top_k)
    if not fi.itemsets:
        return 0.0
    kth, projections = 0, {}
    if len(published):
        ml, projections = _level_searches(published, hierarchy, top_k, False, published_top)
        kth = ml.kth_support
    kept = 0
    by_level: dict[int, list[frozenset]] = {}
    for items, (_n, level) in fi.itemsets.items():
        by_level.setdefault(level, []).append(items)
    for level, sets in by_level.items():
        proj = projections.get(level, published)
        searched = published_top if proj is published else None  # the leaf level: counted on its search's bitsets
        for n in itemset_supports(proj, sets, searched=searched).values():
            kept += int(n > 0 and n >= kth)
    return 1.0 - kept / len(fi.itemsets)


def traceable_nodes(release: GeneralizedRelease) -> np.ndarray:
    """Per node: True when every leaf under it is published as it or as a node below it."""
    h = release.hierarchy
    lowest = np.full(len(h), np.iinfo(np.int64).max, dtype=np.int64)
    lowest[h.leaf_nodes] = h.depth[release.leaf_map()]  # depth of each leaf's published node
    for d in range(h.height, 0, -1):  # children before parents: the shallowest published depth below
        nodes = np.flatnonzero(h.depth == d)
        np.minimum.at(lowest, h.parent[nodes], lowest[nodes])
    return lowest >= h.depth


def tkd_ml2_generalized(original: TransactionDataset, release: GeneralizedRelease, top_k: int = 1000,
                        fi: MultiLevelTopK | None = None) -> float:
    """tKd-ML^2 of an Apriori release: the share of FI with a node generalized above its level."""
    h = release.hierarchy
    fi = fi or multilevel_top_k(original, h, top_k)
    if not fi.itemsets:
        return 0.0
    ok = traceable_nodes(release)
    index = h.index
    kept = sum(1 for items in fi.itemsets if all(ok[index[x]] for x in items))
    return 1.0 - kept / len(fi.itemsets)


def re_generalized(original: TransactionDataset, release: GeneralizedRelease,
                   rank_range: tuple[int, int] = (200, 220)) -> float:
    """re of an Apriori release, supports divided uniformly over the leaves of each node (module docstring)."""
    h = release.hierarchy
    terms = ranked_terms(original, rank_range)
    leaf_map = release.leaf_map()
    pos = h.leaf_positions(terms, what="original dataset")
    nodes = leaf_map[pos]
    labels = [h.labels[n] for n in nodes.tolist()]
    distinct = sorted(set(labels))
    g = pair_supports(release.dataset(), distinct)
    at = {lab: i for i, lab in enumerate(distinct)}
    idx = np.asarray([at[lab] for lab in labels])
    size = h.leaf_count[nodes].astype(np.float64)
    s_p = g[np.ix_(idx, idx)] / np.outer(size, size)
    s_p[nodes[:, None] == nodes[None, :]] = 0.0
    return re_from_supports(pair_supports(original, terms), s_p)


def baseline_utility(original: TransactionDataset, release: GeneralizedRelease, top_k: int = 1000,
                     re_range: tuple[int, int] | None = None,
                     hierarchy: Hierarchy | None = None) -> UtilityReport:
    """tKd, re, tKd-ML^2 and NCP of an Apriori or DiffPart release (tKd-a, re-a, tlost, RLM, RAE: None).

    ``hierarchy`` (default: the release's own) is the one tKd-ML^2 mines with. ``re_range=None``
    is the default ranks 200-220, adapted to small vocabularies (:func:`anonymizer.evaluation.loss.resolve_re_range`).
    """
    re_range, adapted = resolve_re_range(original, re_range)
    h = hierarchy or release.hierarchy
    published = release.dataset()
    fi_plain = top_k_search(original, top_k)
    notes = []
    if fi_plain.truncated:
        notes.append(f"tKd: more than {len(fi_plain.itemsets)} itemsets tie at the top-{top_k} cut")
        warnings.warn(notes[-1], RuntimeWarning, stacklevel=2)
    published_top = top_k_search(published, top_k, max_itemsets=top_k)  # FI' of tKd, a level of tKd-ML^2
    tkd_value = tkd_against(fi_plain, published, top_k, published_top=published_top)
    fi = multilevel_top_k(original, h, top_k, leaf_top=fi_plain)
    if release.method == "apriori":
        from anonymizer.baselines.apriori import ncp_of_cut

        if h is not release.hierarchy:
            raise InputError("tKd-ML^2 of an Apriori release uses the release's own hierarchy")
        re_value = re_generalized(original, release, re_range)
        ml2 = tkd_ml2_generalized(original, release, top_k, fi=fi)
        ncp: float | None = ncp_of_cut(original, h, release.leaf_map())
    else:
        re_value = re(original, published, re_range)
        ml2 = tkd_ml2(original, published, h, top_k, fi=fi, published_top=published_top)
        ncp = None
    return UtilityReport(tkd=tkd_value, tkd_a=None, re=re_value, re_a=None, tlost=None, reconstructions=0,
                         seed=0, top_k=top_k, re_range=(int(re_range[0]), int(re_range[1])), tkd_runs=[tkd_value],
                         re_runs=[re_value], warnings=notes, tkd_ml2=ml2, ncp=ncp, method=release.method,
                         re_range_adapted=adapted)
